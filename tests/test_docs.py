"""The examples in README.md and doc/*.md are executed, so they cannot rot.

Every ```python block that contains `>>>` prompts runs as a doctest, with
`orcodec` imported; blocks of a page share one namespace, in page order.
Blocks without prompts are illustrations and are not run.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import orcodec
import pytest

REPO = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def examples(page: Path) -> list[str]:
    return [block for block in FENCE.findall(page.read_text(encoding="utf-8")) if ">>>" in block]


# Pages with examples (reference pages must have some: checked below).
PAGES = [page for page in sorted((REPO / "doc").glob("*.md")) + [REPO / "README.md"] if examples(page)]


def test_the_doc_pages_have_examples() -> None:
    # Each reference page shows what it describes.
    for name in ("json.md", "msgpack.md", "types-and-flags.md"):
        assert examples(REPO / "doc" / name), name
    assert REPO / "README.md" in PAGES


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_examples_run(page: Path) -> None:
    # One doctest per page, so later blocks see what earlier ones defined.
    text = "\n".join(examples(page))
    test = doctest.DocTestParser().get_doctest(text, {"orcodec": orcodec}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, (
        f"{result.failed} of {result.attempted} examples in {page.name} failed (see output above)"
    )
    assert result.attempted > 0

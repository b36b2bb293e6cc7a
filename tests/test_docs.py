"""The examples in README.md and doc/*.md are executed, so they cannot rot.

Every ```python block that contains `>>>` prompts runs as a doctest, with
`orcodec` imported; blocks of a page share one namespace, in page order.
Blocks without prompts are illustrations and are not run.
"""

from __future__ import annotations

import doctest
import re
import sys
import traceback
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


_format_exception_only = traceback.format_exception_only


def _exception_as_311_shows_it(exc_type, value) -> list[str]:
    """The exception's line and its notes, as one item (for doctest before 3.11)."""
    text = "".join(_format_exception_only(exc_type, value))
    notes = [str(note) for note in getattr(value, "__notes__", [])]
    if notes and not text.endswith(f"{notes[-1]}\n"):
        text += "".join(f"{note}\n" for note in notes)
    return [text]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_examples_run(page: Path, monkeypatch) -> None:
    if sys.version_info < (3, 11):
        # The examples show exceptions as Python 3.11+ does, PEP 678 notes included;
        # doctest before 3.11 compares only the last line traceback gives it.
        monkeypatch.setattr(traceback, "format_exception_only", _exception_as_311_shows_it)
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

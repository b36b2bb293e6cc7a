"""Run the examples of a Markdown page (README.md by default) as one doctest.

    python tools/readme_doctest.py [PAGE]

Every ```python block with `>>>` prompts runs, in page order, in one namespace
with `orcodec` imported (as tests/test_docs.py runs them). Only the standard
library and orcodec are needed: `make release-check` runs it in a fresh venv
holding nothing but the installed package.
"""

from __future__ import annotations

import doctest
import re
import sys
from pathlib import Path

import orcodec

FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def main() -> int:
    page = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "README.md"
    blocks = [block for block in FENCE.findall(page.read_text(encoding="utf-8")) if ">>>" in block]
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {"orcodec": orcodec}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    print(f"{page.name}: {result.attempted} examples, {result.failed} failed (orcodec from {orcodec.__file__})")
    return 1 if result.failed or not result.attempted else 0


if __name__ == "__main__":
    sys.exit(main())

"""Where the test data lives: the repository's own corpora, and the shared ones.

The repository carries everything the suite needs: stand-ins of the four
real-world documents (``fixtures/generated``, written by
``bench/generate_fixtures.py``) and a JSON conformance corpus with a list of
hostile strings (``fixtures/conformance``, written by
``tools/conformance_corpus.py``). The shared fixtures (the real twitter,
github, citm_catalog and canada documents, the JSONTestSuite and JSON_checker
files, the Big List of Naughty Strings) are used in addition when they are
there: ``$ORCODEC_FIXTURES`` when set (then it must exist), else
``../shared/fixtures`` beside the repository when that exists.

No import of orcodec or pytest here: ``python tests/corpora.py`` prints the
line ``make test`` ends with, saying which extra corpora were used.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
OWN_FIXTURES = REPO_ROOT / "fixtures"
GENERATED_DIR = OWN_FIXTURES / "generated"
CONFORMANCE_DIR = OWN_FIXTURES / "conformance"
STRINGS_FILE = CONFORMANCE_DIR / "strings.txt"

DOCUMENT_STEMS = ("twitter", "github", "citm_catalog", "canada")
ENV = "ORCODEC_FIXTURES"


class FixturesError(Exception):
    """``$ORCODEC_FIXTURES`` names something that is not a fixtures directory."""


def shared_dir() -> Path | None:
    """The shared fixtures directory, or None when there is none to use."""
    env = os.environ.get(ENV)
    if env:
        path = Path(env)
        if not path.is_dir():
            raise FixturesError(f"{ENV}={env} is not a directory (unset it to run on the repository's own corpora)")
        return path
    default = REPO_ROOT.parent / "shared" / "fixtures"
    return default if default.is_dir() else None


SHARED_DIR = shared_dir()


def shared_documents() -> list[str]:
    """The real-world documents present in the shared fixtures (stems)."""
    if SHARED_DIR is None:
        return []
    return [stem for stem in DOCUMENT_STEMS if (SHARED_DIR / f"{stem}.json").is_file()]


def shared_conformance() -> Path | None:
    if SHARED_DIR is None:
        return None
    path = SHARED_DIR / "json-conformance"
    return path if path.is_dir() else None


def shared_strings() -> Path | None:
    if SHARED_DIR is None:
        return None
    path = SHARED_DIR / "blns.txt"
    return path if path.is_file() else None


def describe() -> str:
    """One line: which extra corpora the tests used."""
    if SHARED_DIR is None:
        return (
            "extra corpora: none (no $ORCODEC_FIXTURES, no ../shared/fixtures): "
            "the repository's own corpora only (fixtures/generated, fixtures/conformance)"
        )
    used = []
    documents = shared_documents()
    if documents:
        used.append("real-world documents (" + ", ".join(documents) + ")")
    conformance = shared_conformance()
    if conformance is not None:
        count = sum(1 for _ in conformance.rglob("*.json"))
        used.append(f"json-conformance ({count} files)")
    if shared_strings() is not None:
        used.append("blns.txt")
    what = "; ".join(used) if used else "nothing usable in it"
    return f"extra corpora: {SHARED_DIR}: {what}, beside the repository's own"


if __name__ == "__main__":
    try:
        print(describe())
    except FixturesError as e:
        sys.exit(f"corpora: {e}")

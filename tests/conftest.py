"""pytest configuration for the orcodec suite.

Shared helpers and data live in ``helpers.py`` next to this file; this conftest makes that
module importable regardless of pytest's import mode and provides fixtures.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_TESTS_DIR = str(Path(__file__).resolve().parent)
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)

import helpers  # noqa: E402


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """The shared fixtures directory; fails (never skips) when it does not exist."""
    if not helpers.FIXTURES_DIR.is_dir():
        helpers.missing_fixtures("the fixtures directory")
    return helpers.FIXTURES_DIR


@pytest.fixture(params=helpers.FORMATS, ids=lambda f: f.name)
def fmt(request) -> helpers.Format:
    """Each format under test in turn (see helpers.Format): JSON, then MessagePack."""
    return request.param

"""pytest configuration for the orcodec suite.

Shared helpers and data live in ``helpers.py`` next to this file; this conftest makes that
module importable regardless of pytest's import mode and provides fixtures.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

_TESTS_DIR = str(Path(__file__).resolve().parent)
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)

import corpora  # noqa: E402
import helpers  # noqa: E402


def pytest_sessionstart(session) -> None:
    """Under ``ORCODEC_EXPECT_INSTALLED=DIR`` (the wheel test), refuse to test any orcodec
    but the one installed under DIR."""
    expected = os.environ.get("ORCODEC_EXPECT_INSTALLED")
    if expected:
        location = Path(helpers.orcodec.__file__).resolve()
        if not location.is_relative_to(Path(expected).resolve()):
            pytest.exit(f"orcodec imported from {location}, not from the installation under {expected}", returncode=3)


@pytest.fixture(params=helpers.FORMATS, ids=lambda f: f.name)
def fmt(request) -> helpers.Format:
    """Each format under test in turn (see helpers.Format): JSON, then MessagePack."""
    return request.param


def pytest_collection_modifyitems(config, items) -> None:
    """Skip the tests of peer_releases.NEEDS_PINNED for each peer that is not its pinned
    release on this Python (see peer_releases.py)."""
    import importlib.metadata
    import re

    import peer_releases

    for peer, patterns in peer_releases.NEEDS_PINNED.items():
        if not patterns or helpers.peer_is_pinned(peer):
            continue
        installed = importlib.metadata.version(peer)
        reason = (
            f"checks {peer} {helpers.MAIN_PINS[peer]}'s behaviour; {peer} {installed} is the newest "
            f"release that installs on Python {sys.version_info[0]}.{sys.version_info[1]}"
        )
        # "*" is the only wildcard (brackets are the parameters' own).
        matches = [re.compile(".*".join(map(re.escape, p.split("*"))) + "$") for p in patterns]
        for item in items:
            if any(m.match(item.nodeid) for m in matches):
                item.add_marker(pytest.mark.skip(reason=reason))


def pytest_terminal_summary(terminalreporter) -> None:
    """The last line says which corpora beyond the repository's own were used."""
    terminalreporter.write_line(corpora.describe())

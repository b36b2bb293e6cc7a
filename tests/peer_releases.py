"""Tests that check a peer's behaviour as of its pinned release (requirements-dev.txt).

On Python 3.9 and 3.10 some pinned peers cannot be installed (their releases need a
newer Python), and requirements-dev.txt installs the newest release that can. Those
older releases differ from the pinned ones in places these tests pin down (messages,
argument errors, types they accept; some crash the interpreter on hostile input). On such
a Python each test listed here for that peer is skipped, with the reason; wherever the
pinned release is installed, every one of them runs. orcodec's own behaviour in them is
covered on the versions where they run: none of these paths differs by Python version.

Patterns are fnmatch patterns on pytest node ids.
"""

from __future__ import annotations

NEEDS_PINNED: dict[str, list[str]] = {
    "ormsgpack": [],
    "orjson": [],
    "msgspec": [],
    "msgpack": [],
}

"""Tests that check a peer's behaviour as of its pinned release (requirements-dev.txt).

On Python 3.9 and 3.10 some pinned peers cannot be installed (their releases need a
newer Python), and requirements-dev.txt installs the newest release that can. Those
older releases differ from the pinned ones in places these tests pin down (messages,
argument errors, types they accept; some crash the interpreter on hostile input). On such
a Python each test listed here for that peer is skipped, with the reason; wherever the
pinned release is installed, every one of them runs. orcodec's own behaviour in them is
covered on the versions where they run: none of these paths differs by Python version.

Patterns are pytest node ids, where ``*`` stands for any text.
"""

from __future__ import annotations

NEEDS_PINNED: dict[str, list[str]] = {
    "ormsgpack": [
        # Fragment, and datetimes whose tzinfo gives no offset, are newer in ormsgpack.
        "tests/test_compat.py::test_same_as_peer[datetime_none_offset-msgpack]",
        "tests/test_compat.py::test_same_as_peer[fragment-msgpack]",
        "tests/test_compat.py::test_same_as_peer[fragment_nested-msgpack]",
        "tests/test_compat.py::test_encode_error_message_same_as_peer[msgpack-numpy_explicit_default_none]",
        # The argument errors' messages (older releases raise ValueError, or word them
        # differently).
        "tests/test_compat.py::test_encode_argument_errors_same_as_peer[*-msgpack]",
        "tests/test_compat.py::test_unpackb_argument_errors_same_as_ormsgpack[*]",
        "tests/test_compat.py::test_extra_positional_arguments_are_refused",
    ],
    "orjson": [],
    "msgspec": [],
    "msgpack": [],
}

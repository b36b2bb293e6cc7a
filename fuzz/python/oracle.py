"""What a decode of hostile bytes may do, shared by the atheris targets.

orcodec must either return a value or raise its own decode error, nothing
else; a value it returns must be the one the reference decoders (orjson,
msgpack) read from the same bytes, and where orjson refuses JSON, orcodec
refuses it with orjson's message at orjson's position.
"""

import math
import zlib

import atheris
import msgpack
import orcodec
import orjson


def _feature_source(n: int) -> str:
    lines = ["def _feature(bucket):"]
    lines += [f"    if bucket == {i}:\n        return" for i in range(n)]
    return "\n".join(lines)


# `_feature` has one branch per bucket, written out: the native code is not
# instrumented, so these branches are what tells libFuzzer that an input led
# somewhere new (another outcome, another error message) and keeps it.
exec(_feature_source(256))  # noqa: S102
_feature = atheris.instrument_func(_feature)  # noqa: F821


def feature(*what) -> None:
    """Coverage for an outcome: `what` (e.g. the exception class and the
    first words of its message) picks one of 256 branches."""
    _feature(zlib.crc32(repr(what).encode()) % 256)


def same(a, b, leaf=None) -> bool:
    """Equal, with types kept apart (1 vs 1.0 vs True) and NaN equal to NaN.
    Iterative: decoded documents nest 1024 deep, past Python's recursion limit.
    `leaf(a, b)`, if given, judges the pairs it knows (True or False) and
    leaves the others (None) to these rules."""
    todo = [(a, b)]
    while todo:
        a, b = todo.pop()
        verdict = leaf(a, b) if leaf is not None else None
        if verdict is not None:
            if not verdict:
                return False
            continue
        if type(a) is not type(b):
            return False
        if isinstance(a, float):
            if not (a == b or (math.isnan(a) and math.isnan(b))):
                return False
        elif isinstance(a, list):
            if len(a) != len(b):
                return False
            todo.extend(zip(a, b))
        elif isinstance(a, dict):
            if list(a) != list(b):
                return False
            todo.extend((a[k], b[k]) for k in a)
        elif a != b:
            return False
    return True


def check_loads(data: bytes) -> None:
    try:
        value = orcodec.loads(data)
    except orcodec.JSONDecodeError as e:
        value = REJECTED
        ours = (e.msg, e.pos)
    try:
        expected = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        expected = REJECTED
        theirs = (e.msg, e.pos)
    feature("loads", ours[0] if value is REJECTED else type(value).__name__)
    if value is REJECTED and expected is REJECTED:
        if theirs[0] == "failed to allocate memory":
            # orjson sizes its parser's memory from the input's length, and
            # some malformed input (deep nesting cut short after many empty
            # containers) runs out before the real error is reached: both
            # refuse, and only orcodec names the actual fault.
            return
        assert ours == theirs, f"orcodec {ours} orjson {theirs} for {data!r:.200}"
    if value is REJECTED or expected is REJECTED:
        assert value is expected, f"orcodec {value!r:.200} orjson {expected!r:.200} for {data!r:.200}"
    else:
        assert same(value, expected), f"orcodec {value!r:.200} orjson {expected!r:.200} for {data!r:.200}"


def check_unpackb(data: bytes) -> None:
    try:
        value = orcodec.unpackb(data)
    except orcodec.MsgpackDecodeError as e:
        feature("unpackb", str(e)[:30])
        return  # a stricter decoder than msgpack: non-str keys, ext, trailing bytes
    feature("unpackb", type(value).__name__)
    expected = msgpack.unpackb(data, raw=False, strict_map_key=True)
    assert same(value, expected), f"orcodec {value!r:.200} msgpack {expected!r:.200} for {data!r:.200}"


class _Rejected:
    def __repr__(self) -> str:
        return "<rejected>"


REJECTED = _Rejected()

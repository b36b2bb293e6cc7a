"""What a decode of hostile bytes may do, shared by the atheris targets.

orcodec must either return a value or raise its own decode error, nothing
else; and a value it returns must be the one the reference decoders
(orjson, msgpack, the stdlib) read from the same bytes.
"""

import json
import math

import msgpack
import orcodec
import orjson


def same(a, b) -> bool:
    """Equal, with types kept apart (1 vs 1.0 vs True) and NaN equal to NaN.
    Iterative: decoded documents nest 1024 deep, past Python's recursion limit."""
    todo = [(a, b)]
    while todo:
        a, b = todo.pop()
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


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def _int_or_float(text: str):
    """orcodec's (and orjson's) integers: beyond 64 bits they are floats."""
    value = int(text)
    return value if -(2**63) <= value < 2**64 else float(text)


def _has_surrogate(obj) -> bool:
    if isinstance(obj, str):
        return any(0xD800 <= ord(c) < 0xE000 for c in obj)
    if isinstance(obj, list):
        return any(map(_has_surrogate, obj))
    if isinstance(obj, dict):
        return any(map(_has_surrogate, obj)) or any(map(_has_surrogate, obj.values()))
    return False


def stdlib_strict(data: bytes):
    """The stdlib's reading made as strict as orcodec: no NaN/Infinity
    literals, no lone surrogates, big integers as floats."""
    try:
        value = json.loads(data, parse_constant=_reject_constant, parse_int=_int_or_float)
        return REJECTED if _has_surrogate(value) else value
    except ValueError:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return REJECTED
    except RecursionError:  # too deep for the stdlib: no verdict
        return UNKNOWN


def check_loads(data: bytes) -> None:
    try:
        value = orcodec.loads(data)
    except orcodec.JSONDecodeError:
        value = REJECTED
    try:
        expected = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        expected = REJECTED
        if "infinity" in str(e):
            # Documented deviation: orcodec reads 1e400 as inf, like the stdlib.
            expected = stdlib_strict(data)
    if expected is UNKNOWN:
        return
    if value is REJECTED or expected is REJECTED:
        assert value is expected, f"orcodec {value!r:.200} orjson {expected!r:.200} for {data!r:.200}"
    else:
        assert same(value, expected), f"orcodec {value!r:.200} orjson {expected!r:.200} for {data!r:.200}"


def check_unpackb(data: bytes) -> None:
    try:
        value = orcodec.unpackb(data)
    except orcodec.MsgpackDecodeError:
        return  # a stricter decoder than msgpack: non-str keys, ext, trailing bytes
    expected = msgpack.unpackb(data, raw=False, strict_map_key=True)
    assert same(value, expected), f"orcodec {value!r:.200} msgpack {expected!r:.200} for {data!r:.200}"


class _Rejected:
    def __repr__(self) -> str:
        return "<rejected>"


REJECTED = _Rejected()
UNKNOWN = object()

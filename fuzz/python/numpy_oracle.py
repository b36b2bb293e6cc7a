"""The numpy part of the atheris oracle: what orcodec.unpackb must make of
bytes with the numpy options (OPT_NUMPY_EXT, OPT_NUMPY_ZERO_COPY,
OPT_MSGPACK_NUMPY): msgpack reads the document, and the numpy values are
read from the format as doc/numpy.md describes it, with struct and
numpy.frombuffer, independently of orcodec. Imported instrumented by
numpy_ext.py, so its branches guide the fuzzer."""

import struct

import msgpack
import numpy as np
import oracle
import orcodec

# Timestamps decoded, so that extension -1 reads as msgpack reads it (a Timestamp).
OPTIONS = orcodec.OPT_NUMPY_EXT | orcodec.OPT_MSGPACK_NUMPY | orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT
UNITS = {"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"}
SIZES = {"b": {1}, "i": {1, 2, 4, 8}, "u": {1, 2, 4, 8}, "f": {2, 4, 8}, "c": {8, 16}, "M": {8}, "m": {8}}


class Refused(Exception):
    pass


def dtype_of(text: str) -> np.dtype:
    """The closed list of dtype strings, written out again from the description."""
    if len(text) < 3 or text[1] not in SIZES:
        raise Refused(text)
    order, kind, rest = text[0], text[1], text[2:]
    size_text = rest.split("[", 1)[0]
    unit = rest[len(size_text) :]
    if size_text not in {"1", "2", "4", "8", "16"} or int(size_text) not in SIZES[kind]:
        raise Refused(text)
    if (size_text == "1" and order != "|") or (size_text != "1" and order not in "<>"):
        raise Refused(text)
    if unit:
        inner = unit[1:-1] if unit.startswith("[") and unit.endswith("]") else None
        count = inner.rstrip("YMWDhmsunpfa") if inner is not None else None
        if kind not in "Mm" or inner is None or inner[len(count) :] not in UNITS:
            raise Refused(text)
        if count and (count[0] == "0" or not count.isdigit() or int(count) > 2**31 - 1):
            raise Refused(text)
    return np.dtype(text)


def build(dtype: np.dtype, dims: list[int], data: bytes, scalar: bool):
    if any(d > 2**63 - 1 for d in dims):
        raise Refused("dimension")
    nonzero = dtype.itemsize
    for d in dims:
        if d:
            nonzero *= d
            if nonzero > 2**63 - 1:
                raise Refused("size")
    size = 0 if 0 in dims else nonzero
    if size != len(data):
        raise Refused("length")
    array = np.frombuffer(data, dtype=dtype).reshape(dims)
    return array[()] if scalar else array


def reference_ext(code: int, payload: bytes):
    if code != 78:
        return orcodec.Ext(code, payload)
    if len(payload) < 4:
        raise Refused("short")
    flags, ndim, length, pad = payload[:4]
    if flags > 1 or ndim > 64 or (flags and ndim) or not 1 <= length <= 32:
        raise Refused("header")
    start = 4 + length + 8 * ndim + pad
    if len(payload) < start:
        raise Refused("short")
    try:
        text = payload[4 : 4 + length].decode("ascii")
    except UnicodeDecodeError:
        raise Refused("dtype") from None
    dims = list(struct.unpack(f">{ndim}Q", payload[4 + length : 4 + length + 8 * ndim]))
    return build(dtype_of(text), dims, payload[start:], bool(flags))


def reference_map(pairs):
    """A map as orcodec reads it: a repeated key keeps its last value."""
    d = dict(pairs)
    if isinstance(d.get(b"nd"), bool):
        extra = set(d) - {b"nd", b"type", b"kind", b"shape", b"data"}
        if extra or d.get(b"kind", b"") != b"" or not isinstance(d.get(b"data"), bytes):
            raise Refused("map")
        text = d.get(b"type")
        text = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        if not isinstance(text, str):
            raise Refused("type")
        if d[b"nd"]:
            shape = d.get(b"shape")
            if not isinstance(shape, list) or len(shape) > 64:
                raise Refused("shape")
            if not all(type(x) is int and 0 <= x < 2**63 for x in shape):
                raise Refused("shape")
            return build(dtype_of(text), shape, d[b"data"], False)
        if b"shape" in d:
            raise Refused("shape")
        return build(dtype_of(text), [], d[b"data"], True)
    if d.get(b"complex") is True and len(pairs) == 2 and b"data" in d:
        data = d[b"data"]
        try:
            return complex(data.decode("ascii") if isinstance(data, bytes) else data)
        except (TypeError, ValueError, UnicodeDecodeError):
            raise Refused("complex") from None
    for key in d:
        if not isinstance(key, (str, bytes)):
            raise Refused("key")
    return d


def numpy_leaf(a, b):
    """oracle.same's judgement of numpy values (dtype, shape and bits),
    complex numbers (by repr: NaN parts) and msgpack's timestamps (as the
    datetimes orcodec makes)."""
    if type(b) is msgpack.Timestamp:
        b = b.to_datetime()
        return type(a) is type(b) and a == b
    if isinstance(a, (np.ndarray, np.generic)):
        return type(a) is type(b) and a.dtype.str == b.dtype.str and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, complex):
        return type(a) is type(b) and repr(a) == repr(b)
    return None


def same(a, b) -> bool:
    return oracle.same(a, b, numpy_leaf)


def arrays(value):
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, np.ndarray):
            yield v
        elif isinstance(v, list):
            todo.extend(v)
        elif isinstance(v, dict):
            todo.extend(v.values())


def reference(data: bytes):
    """What orcodec must read from `data`; raises when it must refuse it."""
    value = msgpack.unpackb(
        data, raw=False, strict_map_key=False, ext_hook=reference_ext, object_pairs_hook=reference_map
    )
    # Timestamps as orcodec makes them: aware datetimes, within datetime's years.
    todo = [(None, None, value)]
    while todo:
        parent, key, v = todo.pop()
        if type(v) is msgpack.Timestamp:
            try:
                v = v.to_datetime()
            except (OverflowError, ValueError, OSError):
                raise Refused("timestamp") from None
            if parent is None:
                value = v
            else:
                parent[key] = v
        elif isinstance(v, list):
            todo.extend((v, i, item) for i, item in enumerate(v))
        elif isinstance(v, dict):
            todo.extend((v, k, item) for k, item in v.items())
    return value


def check(data: bytes) -> None:
    values = []
    for option in (OPTIONS, OPTIONS | orcodec.OPT_NUMPY_ZERO_COPY):
        try:
            values.append(orcodec.unpackb(data, option=option, ext_hook=orcodec.Ext))
        except orcodec.MsgpackDecodeError:
            values.append(None)
    try:
        expected = reference(data)
    except Exception:
        # The reference refuses: orcodec must have refused too.
        expected = REFUSED
    if values[0] is None:
        assert values[1] is None, "the zero-copy read accepted what the copying read refused"
        return
    assert expected is not REFUSED, f"orcodec read {values[0]!r:.300} where the format refuses {data!r:.300}"
    for value in values:
        assert same(value, expected), f"orcodec {value!r:.300} reference {expected!r:.300} for {data!r:.300}"
    for array in arrays(values[1]):
        assert not array.flags.writeable
        assert array.base is data or isinstance(array.base, bytes)


REFUSED = object()

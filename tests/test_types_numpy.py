"""numpy arrays and scalars with OPT_SERIALIZE_NUMPY in both formats, byte for byte
against the peer (orjson for JSON, ormsgpack for MessagePack) and hand-written bytes,
the rows the backends write in one loop (aligned or not), and that orcodec never
imports numpy itself.

Peers crash (abort the process) on some datetime64 inputs: unit multiples such as
``datetime64[10ms]``, orjson on ``datetime64[M]`` before 1970, and both on values outside
years 1..9999. Those inputs are given to orcodec only.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import textwrap

import numpy as np
import orcodec
import orjson
import ormsgpack
import pytest
from helpers import JSON, MSGPACK, by_format, f32, f64, msgpack_header, msgpack_int, random_doubles

NUMPY = ("OPT_SERIALIZE_NUMPY",)


def same_as_peer(fmt, obj, names=NUMPY, default=None) -> bytes:
    """orcodec's bytes with OPT_SERIALIZE_NUMPY (or ``names``) equal the peer's."""
    return fmt.same_as_peer(obj, names, default=default)


INT_DTYPES = [np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8]
FLOAT_DTYPES = [np.float64, np.float32, np.float16]


def _int_values(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    edges = [info.min, info.min + 1, -1 if info.min < 0 else 0, 0, 1, 127, 128, 255, 256, info.max - 1, info.max]
    edges = [v for v in edges if info.min <= v <= info.max]
    randoms = rng.integers(info.min, info.max, size=500, dtype=dtype, endpoint=True)
    return np.concatenate([np.array(edges, dtype=dtype), randoms])


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: d.__name__)
def test_int_arrays_equal_peers(fmt, dtype):
    values = _int_values(dtype)
    out = same_as_peer(fmt, values)
    assert fmt.decode(out) == values.tolist()
    for shape in [(len(values) // 4, 4), (2, len(values) // 8, 4), (1, 1, 1, len(values))]:
        same_as_peer(fmt, values[: int(np.prod(shape))].reshape(shape))
    # Scalars of each type.
    for v in values[:12]:
        assert type(v) is dtype
        same_as_peer(fmt, v)
        same_as_peer(fmt, [v, {"k": v}])


@pytest.mark.parametrize(
    "fmt, expected", by_format(json=[b"[[true,false],[false,true]]"], msgpack=[b"\x92\x92\xc3\xc2\x92\xc2\xc3"])
)
def test_bool_arrays_and_scalars(fmt, expected):
    arr = np.array([[True, False], [False, True]])
    assert same_as_peer(fmt, arr) == expected
    same_as_peer(fmt, np.bool_(True))
    same_as_peer(fmt, [np.bool_(False)])


def _random_float_bits(dtype, count, seed):
    rng = np.random.default_rng(seed)
    width = np.dtype(dtype).itemsize
    raw = rng.integers(0, 2 ** (8 * width), size=count, dtype=np.uint64).astype(
        {2: np.uint16, 4: np.uint32, 8: np.uint64}[width]
    )
    return raw.view(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=lambda d: d.__name__)
def test_random_float32_float16_equal_peers(fmt, dtype):
    # 20 000 random bit patterns each: NaNs and infinities included (JSON null);
    # signalling half NaNs are made quiet when widened, as by ormsgpack.
    values = _random_float_bits(dtype, 20_000, seed=11)
    out = same_as_peer(fmt, values)
    # Each value on its own as a scalar too.
    for v in values[:2000]:
        same_as_peer(fmt, v)
    back = fmt.decode(out)
    if fmt is MSGPACK:
        # MessagePack float32 keeps every value exactly (half precision widened).
        decoded = np.array(back, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            widened = values.astype(np.float64)
        assert np.array_equal(decoded, widened, equal_nan=True)
    else:
        # JSON text is the shortest that reads back as the same float32.
        for v, b in zip(values.tolist(), back):
            if np.isfinite(v):
                assert np.float32(b) == np.float32(v)
            else:
                assert b is None


def test_random_float64_equal_peers(fmt):
    values = np.array(random_doubles(5000, seed=5) + [0.0, -0.0, float("nan"), float("inf"), float("-inf")])
    out = same_as_peer(fmt, values)
    assert fmt.decode(out)[:5000] == values[:5000].tolist()
    if fmt is MSGPACK:
        assert out[3:12] == b"\xcb" + struct.pack(">d", values[0])


FLOAT_BYTES = [
    # (array or scalar, JSON, MessagePack)
    (
        np.array([1.5, -0.0, np.nan], dtype=np.float32),
        b"[1.5,-0.0,null]",
        b"\x93\xca?\xc0\x00\x00\xca\x80\x00\x00\x00\xca\x7f\xc0\x00\x00",
    ),
    (np.float16(1.1), b"1.0996094", f32(np.float16(1.1))),
    (np.float32(0.1), b"0.1", f32(np.float32(0.1))),
    # Half precision: a signalling NaN becomes a quiet float32 NaN with its payload,
    # infinities and subnormals are exact.
    (
        np.array([0x7C01, 0xFE00, 0x7C00, 0xFC00, 0x0001, 0x8001], dtype=np.uint16).view(np.float16),
        b"[null,null,null,null,5.9604645e-8,-5.9604645e-8]",
        b"\x96\xca\x7f\xc0\x20\x00\xca\xff\xc0\x00\x00\xca\x7f\x80\x00\x00\xca\xff\x80\x00\x00"
        b"\xca\x33\x80\x00\x00\xca\xb3\x80\x00\x00",
    ),
]


@pytest.mark.parametrize(
    "fmt, value, expected",
    by_format(
        json=[(v, j) for v, j, _ in FLOAT_BYTES],
        msgpack=[(v, m) for v, _, m in FLOAT_BYTES],
        ids=lambda case: f"{case[0].dtype}{getattr(case[0], 'shape', '')}",
    ),
)
def test_float_exact_bytes(fmt, value, expected):
    assert fmt.encode(value, option=orcodec.OPT_SERIALIZE_NUMPY) == expected
    assert same_as_peer(fmt, value) == expected


@pytest.mark.parametrize(
    "arr",
    [
        np.zeros((0,)),
        np.zeros((0, 3)),
        np.zeros((3, 0)),
        np.zeros((2, 0, 2)),
        np.zeros((2, 2, 0), dtype=np.int8),
        np.arange(24, dtype=np.int16).reshape(2, 3, 4),
        np.arange(32, dtype=np.uint8).reshape(2, 2, 2, 2, 2),
        np.arange(10)[2:7],
        np.ones((1,)),
        np.arange(6.0).reshape(3, 2)[1:],
    ],
    ids=lambda a: f"{a.dtype}{a.shape}",
)
def test_shapes_equal_peers(fmt, arr):
    out = same_as_peer(fmt, arr)
    assert fmt.decode(out) == arr.tolist()
    same_as_peer(fmt, {"a": [arr, arr]})


def test_zero_dimensional_arrays_go_to_default(fmt):
    # As with both peers: a 0-d array is no array to them; default gets it (and
    # ndarray.item() gives its value).
    option = orcodec.OPT_SERIALIZE_NUMPY
    for arr in [np.array(3.5), np.array(7, dtype=np.uint8), np.array(True)]:
        assert arr.ndim == 0
        with pytest.raises(fmt.encode_error) as info:
            fmt.encode(arr, option=option)
        with pytest.raises(TypeError) as peer:
            fmt.peer_encode(arr, option=fmt.peer_opts(NUMPY))
        assert str(info.value) == str(peer.value)
        assert "0-d array" in "\n".join(info.value.__notes__)
        out = same_as_peer(fmt, [arr], default=lambda o: o.item())
        assert fmt.decode(out) == [arr.item()]


def test_indent_and_sort_keys_with_arrays(fmt):
    doc = {"z": np.arange(4).reshape(2, 2), "a": np.zeros((2, 0)), "m": [np.float32(0.5)]}
    for names in [("OPT_INDENT_2",), ("OPT_INDENT_2", "OPT_SORT_KEYS", "OPT_APPEND_NEWLINE")]:
        same_as_peer(fmt, doc, names + NUMPY)


# --------------------------------------------------------------------------------------
# Rows: written by the backend in one loop when aligned
# --------------------------------------------------------------------------------------

ROW_DTYPES = [
    "float64",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint64",
    "uint32",
    "uint16",
    "uint8",
    "bool",
    "float32",
    "float16",
]


def _values(dtype, n, seed=3):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.startswith("float"):
        with np.errstate(over="ignore"):  # float16 overflows to inf: written as null
            return (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)).astype(dtype)
    info = np.iinfo(dtype)
    edges = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dtype)
    return np.concatenate([edges, rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)])[:n]


def _unaligned(arr):
    """A copy of `arr` whose data starts one byte past an aligned address."""
    raw = np.zeros(arr.nbytes + 1, dtype=np.uint8)
    raw[1:] = np.frombuffer(arr.tobytes(), dtype=np.uint8)
    out = np.frombuffer(raw.data, dtype=arr.dtype, offset=1, count=arr.size).reshape(arr.shape)
    return out


def _row(fmt, items: list[bytes]) -> bytes:
    """A one-dimensional array written out by hand from its items' bytes."""
    return b"[" + b",".join(items) + b"]" if fmt is JSON else msgpack_header("array", len(items)) + b"".join(items)


@pytest.mark.parametrize("dtype", ROW_DTYPES)
@pytest.mark.parametrize(
    "shape", [(0,), (1,), (2,), (255,), (256,), (257,), (3, 700), (2, 0), (4, 1), (2, 3, 100)], ids=str
)
def test_rows_equal_peers_and_unaligned_path(fmt, dtype, shape):
    arr = _values(dtype, int(np.prod(shape))).reshape(shape)
    out = same_as_peer(fmt, arr)
    if dtype not in ("float32", "float16"):  # those are written as the shortest float32
        assert fmt.decode(out) == arr.tolist()
    if arr.dtype.itemsize > 1 and arr.size:
        odd = _unaligned(arr)
        assert not odd.flags.aligned and odd.flags.c_contiguous
        assert fmt.encode(odd, option=orcodec.OPT_SERIALIZE_NUMPY) == out
    same_as_peer(fmt, arr, NUMPY + ("OPT_INDENT_2",))


def test_bool_rows_every_pattern_and_non_canonical_bytes(fmt):
    # Every 8-bit pattern of 8 bools, in one row and as rows.
    bits = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(bool)
    same_as_peer(fmt, bits.ravel())
    same_as_peer(fmt, bits)
    true, false = (b"true", b"false") if fmt is JSON else (b"\xc3", b"\xc2")
    option = orcodec.OPT_SERIALIZE_NUMPY
    assert fmt.encode(np.ones(300, dtype=bool), option=option) == _row(fmt, [true] * 300)
    assert fmt.encode(np.zeros(300, dtype=bool), option=option) == _row(fmt, [false] * 300)
    # A byte other than 0/1 viewed as bool is true, as one element or in a row.
    odd = np.array([0, 1, 2, 255, 0], dtype=np.uint8).view(bool)
    assert fmt.encode(odd, option=option) == _row(fmt, [false, true, true, true, false])


def test_row_float_specials_and_exact_text(fmt):
    arr = np.array([0.0, -0.0, 1.0, 0.1, 1e16, 1e-7, np.nan, np.inf, -np.inf, 5e-324, 1.7976931348623157e308])
    out = same_as_peer(fmt, arr)
    if fmt is JSON:
        assert out == b"[0.0,-0.0,1.0,0.1,1e+16,1e-7,null,null,null,5e-324,1.7976931348623157e+308]"
    else:
        assert out == _row(fmt, [f64(x) for x in arr.tolist()])


def test_row_int_exact_text(fmt):
    arr = np.array([np.iinfo(np.int64).min, -1, 0, 9, 10, 99, 100, 9999, 10000, np.iinfo(np.int64).max])
    unsigned = np.array([2**64 - 1, 0], dtype=np.uint64)
    option = orcodec.OPT_SERIALIZE_NUMPY
    if fmt is JSON:
        assert (
            fmt.encode(arr, option=option) == b"[-9223372036854775808,-1,0,9,10,99,100,9999,10000,9223372036854775807]"
        )
        assert fmt.encode(unsigned, option=option) == b"[18446744073709551615,0]"
    else:
        assert fmt.encode(arr, option=option) == _row(fmt, [msgpack_int(x) for x in arr.tolist()])
        assert fmt.encode(unsigned, option=option) == _row(fmt, [msgpack_int(x) for x in unsigned.tolist()])


# --------------------------------------------------------------------------------------
# datetime64
# --------------------------------------------------------------------------------------

DT_TEXTS = [
    "1970-01-01",
    "2020-02-29T12:34:56.789012",
    "1900-01-01T23:59:59.999999",
    "2262-01-01",
    "1677-09-22",
    "2000-06-15T01:02:03.000001",
]
DT_UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns"]
DT_FLAG_SETS = [
    (),
    ("OPT_NAIVE_UTC",),
    ("OPT_NAIVE_UTC", "OPT_UTC_Z"),
    ("OPT_OMIT_MICROSECONDS",),
    ("OPT_NAIVE_UTC", "OPT_UTC_Z", "OPT_OMIT_MICROSECONDS"),
]


@pytest.mark.parametrize("unit", DT_UNITS)
def test_datetime64_equals_peers(fmt, unit):
    texts = DT_TEXTS if unit != "M" else DT_TEXTS[:4]  # orjson crashes on months before 1970
    arr = np.array(texts, dtype=f"datetime64[{unit}]")
    for names in DT_FLAG_SETS:
        same_as_peer(fmt, arr, names + NUMPY)
        same_as_peer(fmt, arr.reshape(len(texts), 1), names + NUMPY)
        for v in arr:
            same_as_peer(fmt, v, names + NUMPY)


def _exact_texts(fmt, texts) -> bytes:
    """An array of strs (or one str) written out by hand."""
    if isinstance(texts, str):
        return fmt.exact_str(texts)
    items = [fmt.exact_str(t) for t in texts]
    return b"[" + b",".join(items) + b"]" if fmt is JSON else msgpack_header("array", len(items)) + b"".join(items)


NS = np.array(["2020-02-29T12:34:56.789012345"], dtype="datetime64[ns]")
DATETIME64_TEXT = [
    (NS, (), ["2020-02-29T12:34:56.789012"]),
    (NS, ("OPT_OMIT_MICROSECONDS",), ["2020-02-29T12:34:56"]),
    (NS, ("OPT_NAIVE_UTC",), ["2020-02-29T12:34:56.789012+00:00"]),
    (NS, ("OPT_NAIVE_UTC", "OPT_UTC_Z"), ["2020-02-29T12:34:56.789012Z"]),
    # datetime64 is text, never the timestamp extension.
    (NS, ("OPT_NAIVE_UTC", "OPT_DATETIME_AS_TIMESTAMP_EXT"), ["2020-02-29T12:34:56.789012+00:00"]),
    (
        np.array(["1969-12-31T23:59:59.999999999", "1969-12"], dtype="datetime64[ns]"),
        (),
        ["1969-12-31T23:59:59.999999", "1969-12-01T00:00:00"],
    ),
    (
        np.array(["1969-12", "0001-01", "9999-12"], dtype="datetime64[M]"),
        (),
        ["1969-12-01T00:00:00", "0001-01-01T00:00:00", "9999-12-01T00:00:00"],
    ),
]


@pytest.mark.parametrize("value, names, texts", DATETIME64_TEXT, ids=lambda v: None)
def test_datetime64_exact(fmt, value, names, texts):
    out = fmt.encode(value, option=fmt.opts(names + NUMPY))
    assert out == _exact_texts(fmt, texts)
    if fmt is MSGPACK or str(value.dtype) != "datetime64[M]":  # orjson crashes on months before 1970
        assert same_as_peer(fmt, value, names + NUMPY) == out


@pytest.mark.parametrize(
    "value, texts",
    [
        (np.array([0, 5], dtype="datetime64[10ms]"), ["1970-01-01T00:00:00", "1970-01-01T00:00:00.050000"]),
        (np.array([5], dtype="datetime64[2D]"), ["1970-01-11T00:00:00"]),
        (np.array([3], dtype="datetime64[3M]"), ["1970-10-01T00:00:00"]),
        (np.datetime64(5, "10ms"), "1970-01-01T00:00:00.050000"),
    ],
    ids=lambda v: None,
)
def test_datetime64_unit_multiples(fmt, value, texts):
    # The peers crash on these; orcodec scales the value.
    assert fmt.encode(value, option=orcodec.OPT_SERIALIZE_NUMPY) == _exact_texts(fmt, texts)


UNREPRESENTABLE = "unrepresentable numpy.datetime64: "
NAT = "-9223372036854775808"


@pytest.mark.parametrize(
    "value, json_message, msgpack_message, peers",
    [
        (np.array(["NaT"], dtype="datetime64[s]"), f"{NAT} seconds", "NaT", "both"),
        # orjson writes 1970-01-01 for NaT in days (a listed deviation).
        (np.array(["2020-01-01", "NaT"], dtype="datetime64[D]"), f"{NAT} days", "NaT", "ormsgpack"),
        # orjson writes 1677-09-21T00:12:43.145224 for NaT in nanoseconds.
        (np.datetime64("NaT", "ns"), f"{NAT} nanoseconds", "NaT", "ormsgpack"),
        # ormsgpack crashes the interpreter on year 11970.
        (np.array([10_000], dtype="datetime64[Y]"), "10000 years", "10000 years", "orjson"),
        # ormsgpack writes "0-30-01-01T00:00:00" for year -30.
        (np.array([-2000], dtype="datetime64[Y]"), "-2000 years", "-2000 years", "orjson"),
        (np.array([2**62], dtype="datetime64[s]"), f"{2**62} seconds", f"{2**62} seconds", "both"),
        # orjson writes 1970-01-01 (its multiplication overflows).
        (np.array([-(2**62)], dtype="datetime64[W]"), f"{-(2**62)} weeks", f"{-(2**62)} weeks", "ormsgpack"),
    ],
    ids=lambda v: f"{v!r}"[:40] if isinstance(v, np.ndarray) else None,
)
def test_datetime64_without_text_is_an_error(fmt, value, json_message, msgpack_message, peers):
    # The peers' messages: the value and its unit (ormsgpack says NaT for NaT).
    encode, error = fmt.encode, fmt.encode_error
    message = UNREPRESENTABLE + (json_message if fmt is JSON else msgpack_message)
    with pytest.raises(error) as info:
        encode(value, option=orcodec.OPT_SERIALIZE_NUMPY)
    assert str(info.value) == message
    # Not something default can take instead: the value, not the array, is the problem.
    with pytest.raises(error) as info:
        encode(value, default=lambda o: "d", option=orcodec.OPT_SERIALIZE_NUMPY)
    assert str(info.value) == message
    if peers == "both" or peers == fmt.peer.__name__:
        with pytest.raises(TypeError) as peer:
            fmt.peer_encode(value, option=fmt.peer_opts(NUMPY))
        assert str(peer.value) == message
    elif fmt is JSON:
        assert type(orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY)) is bytes  # the deviation


# --------------------------------------------------------------------------------------
# What goes to default
# --------------------------------------------------------------------------------------

UNSUPPORTED = {
    "complex": (np.array([1 + 2j]), "unsupported datatype in numpy array"),
    "str": (np.array(["a", "b"]), "unsupported datatype in numpy array"),
    "bytes": (np.array([b"a"]), "unsupported datatype in numpy array"),
    "object": (np.array([1, "x"], dtype=object), "unsupported datatype in numpy array"),
    "longdouble": (np.array([1.0], dtype=np.longdouble), "unsupported datatype in numpy array"),
    "timedelta": (np.array([1], dtype="timedelta64[s]"), "unsupported datatype in numpy array"),
    # The array interface of a structured array says it is not C-contiguous.
    "structured": (np.zeros(2, dtype=[("a", "i4")]), "not C contiguous"),
    "reversed": (np.arange(5)[::-1], "not C contiguous"),
    "strided": (np.arange(10)[::2], "not C contiguous"),
    "fortran": (np.asfortranarray(np.arange(6).reshape(2, 3)), "not C contiguous"),
    "column": (np.arange(6).reshape(3, 2)[:, :1], "not C contiguous"),
    "transposed": (np.arange(6).reshape(2, 3).T, "not C contiguous"),
}


def _reason(fmt, reason):
    # ormsgpack says "not C contiguous" of every array it does not write (a note
    # gives the dtype).
    return "not C contiguous" if fmt is MSGPACK else reason


@pytest.mark.parametrize("name", list(UNSUPPORTED))
def test_unsupported_arrays_go_to_default(fmt, name):
    encode, error = fmt.encode, fmt.encode_error
    arr, reason = UNSUPPORTED[name]
    seen = []

    def as_list(obj):
        return obj.dtype.kind in "iufb" and obj.dtype.itemsize <= 8

    def default(obj):
        seen.append(obj)
        return obj.tolist() if as_list(obj) else "default"

    expected = arr.tolist() if as_list(arr) else "default"
    assert encode([arr], default=default, option=orcodec.OPT_SERIALIZE_NUMPY) == encode([expected])
    assert len(seen) == 1 and seen[0] is arr
    for doc in (arr, {"k": [arr]}):
        with pytest.raises(error, match=_reason(fmt, reason)) as info:
            encode(doc, option=orcodec.OPT_SERIALIZE_NUMPY)
        with pytest.raises(TypeError) as peer:
            fmt.peer_encode(doc, option=fmt.peer_opts(NUMPY))
        assert str(info.value) == str(peer.value)
        if "datatype" in reason:
            assert f"the array's dtype is {arr.dtype}" in info.value.__notes__


@pytest.mark.parametrize("name", list(UNSUPPORTED))
def test_unsupported_arrays_default_equals_peers(fmt, name):
    arr = UNSUPPORTED[name][0]
    same_as_peer(fmt, [arr], default=lambda o: f"default:{o.dtype}:{o.shape}")


# The peers raise for these without asking default, and so does orcodec.
PEERS_RAISE = {
    "datetime64[ps]": (np.array([1], dtype="datetime64[ps]"), "unsupported numpy.datetime64 unit: picoseconds"),
    "datetime64[fs]": (np.array([1], dtype="datetime64[fs]"), "unsupported numpy.datetime64 unit: femtoseconds"),
    "datetime64[as]": (np.array([1], dtype="datetime64[as]"), "unsupported numpy.datetime64 unit: attoseconds"),
    "datetime64[generic]": (np.array(["NaT"], dtype="datetime64"), "unsupported numpy.datetime64 unit: NaT"),
    "datetime64 scalar[ps]": (np.datetime64(1, "ps"), "unsupported numpy.datetime64 unit: picoseconds"),
    "datetime64 scalar[generic]": (np.datetime64("NaT"), "unsupported numpy.datetime64 unit: NaT"),
}


@pytest.mark.parametrize("name", sorted(PEERS_RAISE))
def test_peers_do_not_ask_default(fmt, name):
    arr, message = PEERS_RAISE[name]
    default = lambda o: "default"  # noqa: E731
    for default in (None, lambda o: "default"):
        with pytest.raises(fmt.encode_error) as info:
            fmt.encode([arr], default=default, option=orcodec.OPT_SERIALIZE_NUMPY)
        with pytest.raises(TypeError) as peer:
            fmt.peer_encode([arr], default=default, option=fmt.peer_opts(NUMPY))
        assert str(info.value) == str(peer.value) == message


@pytest.mark.parametrize("dtype", [">i4", ">f8", ">u2"])
def test_big_endian_arrays_raise(fmt, dtype):
    # As orjson: an array not in native byte order raises, even with a default.
    # ormsgpack writes the bytes as if native (wrong numbers): a listed deviation.
    arr = np.array([1, 2], dtype=dtype)
    for default in (None, lambda o: o.tolist()):
        with pytest.raises(fmt.encode_error) as info:
            fmt.encode(arr, default=default, option=orcodec.OPT_SERIALIZE_NUMPY)
        assert str(info.value) == "numpy array is not native-endianness"
    with pytest.raises(TypeError, match="(?m)^numpy array is not native-endianness$"):
        orjson.dumps(arr, default=lambda o: o.tolist(), option=orjson.OPT_SERIALIZE_NUMPY)
    if fmt is MSGPACK:
        assert ormsgpack.packb(arr, option=ormsgpack.OPT_SERIALIZE_NUMPY) != ormsgpack.packb(arr.tolist())


def test_without_flag_numpy_goes_to_default(fmt):
    encode, error = fmt.encode, fmt.encode_error
    for value in [np.arange(3), np.int64(1), np.float32(1.5), np.bool_(True), np.datetime64("2020-01-01")]:
        with pytest.raises(error, match="serializable"):
            encode(value)
        assert encode(value, default=lambda o: o.tolist()) == encode(value.tolist())
    # float64 is a float subclass, which neither peer writes without its flag.
    for names in ((), ("OPT_PASSTHROUGH_SUBCLASS",)):
        with pytest.raises(error) as info:
            encode(np.float64(1.5), option=fmt.opts(names))
        assert str(info.value) == f"Type is not {fmt.label} serializable: numpy.float64"
        assert "pass OPT_SERIALIZE_NUMPY to write numpy arrays and scalars" in info.value.__notes__
    assert encode(np.float64(1.5), option=orcodec.OPT_PASSTHROUGH_SUBCLASS | orcodec.OPT_SERIALIZE_NUMPY) == encode(1.5)


def test_numpy_scalar_types_equal_peers(fmt):
    values = [
        np.float64(0.1),
        np.float32(-2.5e-8),
        np.float16(65504),
        np.int64(-(2**63)),
        np.uint64(2**64 - 1),
        np.int8(-128),
        np.uint8(255),
        np.int16(7),
        np.uint16(7),
        np.int32(-7),
        np.uint32(7),
    ]
    same_as_peer(fmt, values)
    same_as_peer(fmt, {"k": values})


def test_orcodec_does_not_import_numpy():
    script = textwrap.dedent(
        """
        import sys, dataclasses, datetime, enum, uuid, collections
        import orcodec
        assert "numpy" not in sys.modules

        @dataclasses.dataclass
        class D:
            a: int

        class E(enum.Enum):
            A = 1

        doc = {
            "d": D(1), "e": E.A, "u": uuid.UUID(int=1), "dt": datetime.datetime(2020, 1, 1),
            "date": datetime.date(2020, 1, 1), "t": datetime.time(1), "od": collections.OrderedDict(a=1),
            "f": orcodec.Fragment(b"1"), "l": [1, 2.5, None, True, "s", (1,)], 1: 2,
        }
        numpy_keys = orcodec.OPT_SERIALIZE_NUMPY | orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SORT_KEYS
        for option in (0, orcodec.OPT_SERIALIZE_NUMPY, numpy_keys):
            option |= orcodec.OPT_NON_STR_KEYS
            orcodec.dumps(doc, option=option, default=str)
            del doc["f"]
            # (packb refuses OPT_NON_STR_KEYS with OPT_SORT_KEYS, as ormsgpack.)
            option &= ~orcodec.OPT_SORT_KEYS
            orcodec.packb(doc, option=option | orcodec.OPT_SERIALIZE_PYDANTIC, default=str)
            doc["f"] = orcodec.Fragment(b"1")
        orcodec.packb(orcodec.Ext(1, b""))
        orcodec.unpackb(orcodec.packb(datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc),
                        option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT), option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT)
        orcodec.loads(b"[1]")
        try:
            orcodec.dumps(object(), option=orcodec.OPT_SERIALIZE_NUMPY)
        except orcodec.JSONEncodeError:
            pass
        assert "numpy" not in sys.modules, "orcodec imported numpy"
        assert "pydantic" not in sys.modules, "orcodec imported pydantic"
        print("ok")
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"

"""numpy arrays and scalars with OPT_SERIALIZE_NUMPY, byte for byte against orjson
(dumps) and ormsgpack (packb), and that orcodec never imports numpy itself.

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
from helpers import opts, random_doubles

NUMPY = ("OPT_SERIALIZE_NUMPY",)


def same_as_peers(obj, names=NUMPY, default=None):
    ours_json = orcodec.dumps(obj, default=default, option=opts(orcodec, names))
    assert ours_json == orjson.dumps(obj, default=default, option=opts(orjson, names))
    ours_msgpack = orcodec.packb(obj, default=default, option=opts(orcodec, names))
    assert ours_msgpack == ormsgpack.packb(obj, default=default, option=opts(ormsgpack, names))
    return ours_json, ours_msgpack


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
def test_int_arrays_equal_peers(dtype):
    values = _int_values(dtype)
    json_bytes, msgpack_bytes = same_as_peers(values)
    assert orcodec.loads(json_bytes) == values.tolist()
    assert orcodec.unpackb(msgpack_bytes) == values.tolist()
    for shape in [(len(values) // 4, 4), (2, len(values) // 8, 4), (1, 1, 1, len(values))]:
        same_as_peers(values[: int(np.prod(shape))].reshape(shape))
    # Scalars of each type.
    for v in values[:12]:
        assert type(v) is dtype
        same_as_peers(v)
        same_as_peers([v, {"k": v}])


def test_bool_arrays_and_scalars():
    arr = np.array([[True, False], [False, True]])
    json_bytes, msgpack_bytes = same_as_peers(arr)
    assert json_bytes == b"[[true,false],[false,true]]"
    assert msgpack_bytes == b"\x92\x92\xc3\xc2\x92\xc2\xc3"
    same_as_peers(np.bool_(True))
    same_as_peers([np.bool_(False)])


def _random_float_bits(dtype, count, seed):
    rng = np.random.default_rng(seed)
    width = np.dtype(dtype).itemsize
    raw = rng.integers(0, 2 ** (8 * width), size=count, dtype=np.uint64).astype(
        {2: np.uint16, 4: np.uint32, 8: np.uint64}[width]
    )
    return raw.view(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=lambda d: d.__name__)
def test_random_float32_float16_equal_peers(dtype):
    # 20 000 random bit patterns each: NaNs and infinities included (JSON null);
    # signalling half NaNs are made quiet when widened, as by ormsgpack.
    values = _random_float_bits(dtype, 20_000, seed=11)
    json_bytes, msgpack_bytes = same_as_peers(values)
    # Each value on its own as a scalar too.
    for v in values[:2000]:
        assert orcodec.dumps(v, option=orcodec.OPT_SERIALIZE_NUMPY) == orjson.dumps(
            v, option=orjson.OPT_SERIALIZE_NUMPY
        )
    # MessagePack float32 keeps every value exactly (half precision widened).
    decoded = np.array(orcodec.unpackb(msgpack_bytes), dtype=np.float64)
    with np.errstate(invalid="ignore"):
        widened = values.astype(np.float64)
    assert np.array_equal(decoded, widened, equal_nan=True)
    # JSON text is the shortest that reads back as the same float32.
    back = orcodec.loads(json_bytes)
    for v, b in zip(values.tolist(), back):
        if np.isfinite(v):
            assert np.float32(b) == np.float32(v)
        else:
            assert b is None


def test_random_float64_equal_peers():
    values = np.array(random_doubles(5000, seed=5) + [0.0, -0.0, float("nan"), float("inf"), float("-inf")])
    json_bytes, msgpack_bytes = same_as_peers(values)
    assert orcodec.unpackb(msgpack_bytes)[:5000] == values[:5000].tolist()
    assert msgpack_bytes[3:12] == b"\xcb" + struct.pack(">d", values[0])


def test_float_exact_bytes():
    arr = np.array([1.5, -0.0, np.nan], dtype=np.float32)
    assert orcodec.dumps(arr, option=orcodec.OPT_SERIALIZE_NUMPY) == b"[1.5,-0.0,null]"
    assert (
        orcodec.packb(arr, option=orcodec.OPT_SERIALIZE_NUMPY)
        == b"\x93\xca?\xc0\x00\x00\xca\x80\x00\x00\x00\xca\x7f\xc0\x00\x00"
    )
    assert orcodec.dumps(np.float16(1.1), option=orcodec.OPT_SERIALIZE_NUMPY) == b"1.0996094"
    # Half precision: a signalling NaN becomes a quiet float32 NaN with its payload,
    # infinities and subnormals are exact.
    halves = np.array([0x7C01, 0xFE00, 0x7C00, 0xFC00, 0x0001, 0x8001], dtype=np.uint16).view(np.float16)
    assert orcodec.packb(halves, option=orcodec.OPT_SERIALIZE_NUMPY) == (
        b"\x96\xca\x7f\xc0\x20\x00\xca\xff\xc0\x00\x00\xca\x7f\x80\x00\x00\xca\xff\x80\x00\x00"
        b"\xca\x33\x80\x00\x00\xca\xb3\x80\x00\x00"
    )
    assert orcodec.packb(halves, option=orcodec.OPT_SERIALIZE_NUMPY) == ormsgpack.packb(
        halves, option=ormsgpack.OPT_SERIALIZE_NUMPY
    )
    assert orcodec.dumps(np.float32(0.1), option=orcodec.OPT_SERIALIZE_NUMPY) == b"0.1"


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
def test_shapes_equal_peers(arr):
    json_bytes, _ = same_as_peers(arr)
    assert orcodec.loads(json_bytes) == arr.tolist()
    assert orcodec.unpackb(orcodec.packb(arr, option=orcodec.OPT_SERIALIZE_NUMPY)) == arr.tolist()
    same_as_peers({"a": [arr, arr]})


def test_zero_dimensional_arrays_are_their_value():
    # Deviation: orjson and ormsgpack refuse 0-d arrays.
    for arr, expected in [(np.array(3.5), 3.5), (np.array(7, dtype=np.uint8), 7), (np.array(True), True)]:
        assert arr.ndim == 0
        assert orcodec.loads(orcodec.dumps(arr, option=orcodec.OPT_SERIALIZE_NUMPY)) == expected
        assert orcodec.unpackb(orcodec.packb(arr, option=orcodec.OPT_SERIALIZE_NUMPY)) == expected
        assert orcodec.packb(arr, option=orcodec.OPT_SERIALIZE_NUMPY) == orcodec.packb(
            arr[()], option=orcodec.OPT_SERIALIZE_NUMPY
        )
        with pytest.raises(TypeError):
            orjson.dumps(arr, option=orjson.OPT_SERIALIZE_NUMPY)
        with pytest.raises(TypeError):
            ormsgpack.packb(arr, option=ormsgpack.OPT_SERIALIZE_NUMPY)


def test_indent_and_sort_keys_with_arrays():
    doc = {"z": np.arange(4).reshape(2, 2), "a": np.zeros((2, 0)), "m": [np.float32(0.5)]}
    for names in [("OPT_INDENT_2",), ("OPT_INDENT_2", "OPT_SORT_KEYS", "OPT_APPEND_NEWLINE")]:
        names = names + NUMPY
        assert orcodec.dumps(doc, option=opts(orcodec, names)) == orjson.dumps(doc, option=opts(orjson, names))


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
def test_datetime64_equals_peers(unit):
    texts = DT_TEXTS if unit != "M" else DT_TEXTS[:4]  # orjson crashes on months before 1970
    arr = np.array(texts, dtype=f"datetime64[{unit}]")
    for names in DT_FLAG_SETS:
        same_as_peers(arr, names + NUMPY)
        same_as_peers(arr.reshape(len(texts), 1), names + NUMPY)
        for v in arr:
            same_as_peers(v, names + NUMPY)


def test_datetime64_exact():
    arr = np.array(["2020-02-29T12:34:56.789012345"], dtype="datetime64[ns]")
    option = orcodec.OPT_SERIALIZE_NUMPY
    assert orcodec.dumps(arr, option=option) == b'["2020-02-29T12:34:56.789012"]'
    assert orcodec.dumps(arr, option=option | orcodec.OPT_OMIT_MICROSECONDS) == b'["2020-02-29T12:34:56"]'
    assert orcodec.dumps(arr, option=option | orcodec.OPT_NAIVE_UTC) == b'["2020-02-29T12:34:56.789012+00:00"]'
    assert (
        orcodec.dumps(arr, option=option | orcodec.OPT_NAIVE_UTC | orcodec.OPT_UTC_Z)
        == b'["2020-02-29T12:34:56.789012Z"]'
    )
    before_epoch = np.array(["1969-12-31T23:59:59.999999999", "1969-12"], dtype="datetime64[ns]")
    assert orcodec.dumps(before_epoch, option=option) == b'["1969-12-31T23:59:59.999999","1969-12-01T00:00:00"]'
    months = np.array(["1969-12", "0001-01", "9999-12"], dtype="datetime64[M]")
    assert (
        orcodec.dumps(months, option=option) == b'["1969-12-01T00:00:00","0001-01-01T00:00:00","9999-12-01T00:00:00"]'
    )
    assert orcodec.packb(months, option=option) == ormsgpack.packb(months, option=ormsgpack.OPT_SERIALIZE_NUMPY)
    # datetime64 is text, never the timestamp extension.
    assert orcodec.packb(
        arr, option=option | orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT | orcodec.OPT_NAIVE_UTC
    ) == orcodec.packb(["2020-02-29T12:34:56.789012+00:00"])


def test_datetime64_unit_multiples():
    # The peers crash on these; orcodec scales the value.
    option = orcodec.OPT_SERIALIZE_NUMPY
    assert (
        orcodec.dumps(np.array([0, 5], dtype="datetime64[10ms]"), option=option)
        == b'["1970-01-01T00:00:00","1970-01-01T00:00:00.050000"]'
    )
    assert orcodec.dumps(np.array([5], dtype="datetime64[2D]"), option=option) == b'["1970-01-11T00:00:00"]'
    assert orcodec.dumps(np.array([3], dtype="datetime64[3M]"), option=option) == b'["1970-10-01T00:00:00"]'
    assert orcodec.dumps(np.datetime64(5, "10ms"), option=option) == b'"1970-01-01T00:00:00.050000"'


@pytest.mark.parametrize(
    "value",
    [
        np.array(["NaT"], dtype="datetime64[s]"),
        np.array(["2020-01-01", "NaT"], dtype="datetime64[D]"),
        np.datetime64("NaT"),
        np.datetime64("NaT", "ns"),
        np.array([10_000], dtype="datetime64[Y]"),  # year 11970
        np.array([-2000], dtype="datetime64[Y]"),  # year -30
        np.array([2**62], dtype="datetime64[s]"),
        np.array([-(2**62)], dtype="datetime64[W]"),
    ],
    ids=lambda v: f"{v!r}"[:40],
)
def test_datetime64_without_text_is_an_error(fmt, value):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error, match="NaT or outside years 1 to 9999"):
        encode(value, option=orcodec.OPT_SERIALIZE_NUMPY)
    # Not something default can take instead: the value, not the array, is the problem.
    with pytest.raises(error):
        encode(value, default=lambda o: "d", option=orcodec.OPT_SERIALIZE_NUMPY)


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
    "datetime64[ps]": (np.array([1], dtype="datetime64[ps]"), "unsupported datatype in numpy array"),
    "datetime64[generic]": (np.array(["NaT"], dtype="datetime64"), "unsupported datatype in numpy array"),
    "structured": (np.zeros(2, dtype=[("a", "i4")]), "unsupported datatype in numpy array"),
    "reversed": (np.arange(5)[::-1], "not C contiguous"),
    "strided": (np.arange(10)[::2], "not C contiguous"),
    "fortran": (np.asfortranarray(np.arange(6).reshape(2, 3)), "not C contiguous"),
    "column": (np.arange(6).reshape(3, 2)[:, :1], "not C contiguous"),
    "transposed": (np.arange(6).reshape(2, 3).T, "not C contiguous"),
    "big_endian_i4": (np.array([1, 2], dtype=">i4"), "not in native byte order"),
    "big_endian_f8": (np.array([1.5], dtype=">f8"), "not in native byte order"),
}


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
    with pytest.raises(error, match=reason):
        encode(arr, option=orcodec.OPT_SERIALIZE_NUMPY)
    with pytest.raises(error, match=reason):
        encode({"k": [arr]}, option=orcodec.OPT_SERIALIZE_NUMPY)


# The peers raise for these without asking default: see test_peers_do_not_ask_default.
PEERS_RAISE = {"big_endian_i4", "big_endian_f8", "datetime64[ps]", "datetime64[generic]"}


@pytest.mark.parametrize("name", [n for n in UNSUPPORTED if n not in PEERS_RAISE])
def test_unsupported_arrays_default_equals_peers(name):
    arr = UNSUPPORTED[name][0]
    same_as_peers([arr], default=lambda o: f"default:{o.dtype}:{o.shape}")


@pytest.mark.parametrize("name", sorted(PEERS_RAISE))
def test_peers_do_not_ask_default(name):
    # Deviation: for datetime64 units without text (ps, generic) and for byte-swapped
    # arrays, orjson raises even with a default; orcodec asks default like for any
    # other array it does not write.
    arr = UNSUPPORTED[name][0]
    default = lambda o: "default"  # noqa: E731
    assert orcodec.dumps(arr, default=default, option=orcodec.OPT_SERIALIZE_NUMPY) == b'"default"'
    assert orcodec.packb(arr, default=default, option=orcodec.OPT_SERIALIZE_NUMPY) == orcodec.packb("default")
    with pytest.raises(TypeError):
        orjson.dumps(arr, default=default, option=orjson.OPT_SERIALIZE_NUMPY)
    if not name.startswith("big_endian"):
        with pytest.raises(TypeError):
            ormsgpack.packb(arr, default=default, option=ormsgpack.OPT_SERIALIZE_NUMPY)


def test_big_endian_deviation():
    # Deviation: ormsgpack writes the bytes of a big-endian array as if native (wrong
    # values); orcodec hands it to default.
    arr = np.array([1, 2], dtype=">i4")
    assert ormsgpack.packb(arr, option=ormsgpack.OPT_SERIALIZE_NUMPY) == b"\x92\xce\x01\x00\x00\x00\xce\x02\x00\x00\x00"
    assert orcodec.packb(arr, default=lambda o: o.tolist(), option=orcodec.OPT_SERIALIZE_NUMPY) == b"\x92\x01\x02"
    assert orcodec.dumps(arr, default=lambda o: o.tolist(), option=orcodec.OPT_SERIALIZE_NUMPY) == b"[1,2]"


def test_without_flag_numpy_goes_to_default(fmt):
    encode, error = fmt.encode, fmt.encode_error
    for value in [np.arange(3), np.int64(1), np.float32(1.5), np.bool_(True), np.datetime64("2020-01-01")]:
        with pytest.raises(error, match="serializable"):
            encode(value)
        assert encode(value, default=lambda o: o.tolist()) == encode(value.tolist())
    # float64 is a float subclass: written as a float like any float subclass unless
    # OPT_PASSTHROUGH_SUBCLASS (a deviation: the peers refuse it without their flag).
    assert encode(np.float64(1.5)) == encode(1.5)
    with pytest.raises(error):
        encode(np.float64(1.5), option=orcodec.OPT_PASSTHROUGH_SUBCLASS)
    assert encode(np.float64(1.5), option=orcodec.OPT_PASSTHROUGH_SUBCLASS | orcodec.OPT_SERIALIZE_NUMPY) == encode(1.5)


def test_numpy_scalar_types_equal_peers():
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
    same_as_peers(values)
    same_as_peers({"k": values})


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

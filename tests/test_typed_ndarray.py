"""numpy arrays as typed-decoding targets: ``numpy.ndarray`` and ``NDArray[dtype]`` read
straight from nested arrays of numbers (JSON text, MessagePack arrays, Python lists for
convert), numbers parsed into the array's buffer, shape from the nesting.

Values are checked bit for bit against numpy itself (``np.array(orjson.loads(text),
dtype=...)``, numpy's own float16 rounding), messages and paths exactly.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import math
import struct
import subprocess
import sys
import textwrap
from typing import Any, Optional

import msgpack
import numpy as np
import orcodec
import orjson
import pytest
from numpy.typing import NDArray
from typed_helpers import FORMATS, JSON, MSGPACK

by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float16, np.float32, np.float64]
DTYPES = [np.bool_, *INT_DTYPES, *FLOAT_DTYPES]


def same(actual, expected) -> None:
    """The same array: type, dtype, shape and every bit."""
    assert type(actual) is np.ndarray, type(actual)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.tobytes() == expected.tobytes(), (actual, expected)
    assert actual.flags.c_contiguous and actual.flags.writeable and actual.flags.owndata


def message(fmt, value, tp, **kwargs) -> str:
    return str(fmt.error(value, tp, **kwargs))


def big(fmt, value, tp, **kwargs):
    """``fmt.decode`` for values with ints beyond 64 bits (JSON text by the stdlib)."""
    if fmt is JSON:
        return orcodec.loads(json.dumps(value), type=tp, **kwargs)
    return fmt.decode(value, tp, **kwargs)


def big_message(fmt, value, tp, **kwargs) -> str:
    with pytest.raises(orcodec.ValidationError) as info:
        big(fmt, value, tp, **kwargs)
    return str(info.value)


def sample(dtype) -> list:
    """Values of each dtype, its extremes included, as nested lists (3 x 2)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return [[True, False], [False, False], [True, True]]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [[int(info.min), int(info.max)], [0, 1], [int(info.max) - 1, int(info.min) + 1]]
    big = float(np.finfo(dtype).max)
    tiny = float(np.finfo(dtype).smallest_subnormal)
    return [[0.5, -0.0], [big, -big], [tiny, 1.0 / 3.0]]


# --------------------------------------------------------------------------------------
# Values, dtypes and shapes
# --------------------------------------------------------------------------------------


@by_format
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_each_dtype(fmt, dtype):
    values = sample(dtype)
    same(fmt.decode(values, NDArray[dtype]), np.array(values, dtype=dtype))
    same(fmt.decode(values[0], NDArray[dtype]), np.array(values[0], dtype=dtype))
    same(fmt.decode([values], NDArray[dtype]), np.array([values], dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_differential_json_against_numpy(dtype):
    # What numpy makes of the same numbers read by orjson.
    rng = np.random.default_rng(7)
    kind = np.dtype(dtype).kind
    for shape in [(0,), (1,), (17,), (5, 7), (2, 3, 4), (1, 1, 1, 6)]:
        if kind == "b":
            values = rng.integers(0, 2, shape).astype(bool).tolist()
        elif kind in "iu":
            info = np.iinfo(dtype)
            values = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True).tolist()
        else:
            scale = {np.float16: 1e4, np.float32: 1e30, np.float64: 1e300}[dtype]
            values = (rng.standard_normal(shape) * rng.choice([1e-8, 1.0, scale / 10], shape)).tolist()
        text = orjson.dumps(values)
        same(orcodec.loads(text, type=NDArray[dtype]), np.array(orjson.loads(text), dtype=dtype))
        packed = orcodec.packb(values)
        same(orcodec.unpackb(packed, type=NDArray[dtype]), np.array(values, dtype=dtype))
        same(orcodec.convert(values, NDArray[dtype]), np.array(values, dtype=dtype))


def test_float64_bit_exact_with_loads():
    # Every float is parsed exactly as untyped loads parses it (random bit patterns,
    # subnormals and -0.0 included).
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2**64, 5000, dtype=np.uint64)
    values = [v for v in bits.view(np.float64).tolist() if math.isfinite(v)]
    values += [-0.0, 0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1e23]
    text = orjson.dumps(values)
    array = orcodec.loads(text, type=NDArray[np.float64])
    same(array, np.array(orcodec.loads(text), dtype=np.float64))
    assert array.tobytes() == struct.pack(f"<{len(values)}d", *values)
    # Text that is not shortest form: many digits, exponents, integers.
    text = b"[0.30000000000000004441, 1E2, -2.5e-3, 123456789012345678901234567890, 7, -0]"
    same(orcodec.loads(text, type=NDArray[np.float64]), np.array(orcodec.loads(text), dtype=np.float64))


def test_minus_zero_keeps_its_sign():
    for fmt in FORMATS:
        array = fmt.decode([-0.0, 0.0], NDArray[np.float64])
        assert [math.copysign(1, v) for v in array.tolist()] == [-1, 1]
    assert math.copysign(1, orcodec.loads(b"[-0.0]", type=NDArray[np.float16])[0]) == -1


def test_nan_is_not_json():
    # JSON has no NaN: the malformed document is the format's error, as untyped.
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(b"[1.0, NaN]", type=NDArray[np.float64])
    assert not isinstance(info.value, orcodec.ValidationError)
    # MessagePack has NaN: its payload is kept bit for bit.
    nan = struct.unpack("<d", struct.pack("<Q", 0x7FF0_0000_DEAD_BEEF))[0]
    packed = b"\x92\xcb" + struct.pack(">Q", 0x7FF0_0000_DEAD_BEEF) + b"\xcb" + struct.pack(">d", -math.inf)
    array = orcodec.unpackb(packed, type=NDArray[np.float64])
    assert array.view(np.uint64)[0] == 0x7FF0_0000_DEAD_BEEF
    assert array[1] == -math.inf
    assert math.isnan(orcodec.convert([nan], NDArray[np.float32])[0])


def test_msgpack_float32_items():
    values = [0.1, -3.5, 1e-40, 3.4028234663852886e38]
    packed = msgpack.packb(values, use_single_float=True)
    same(orcodec.unpackb(packed, type=NDArray[np.float32]), np.array(values, dtype=np.float32))


def test_float16_rounding_matches_numpy():
    # Every float16, the midpoints between neighbours (ties go to even) and the
    # floats just beside them, rounded as numpy rounds float64 to float16.
    halves = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)
    mids = (halves[:-1] + halves[1:]) / 2
    above, below = np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf)
    tiny = np.array([2.0**-25, 2.0**-26, 2.0**-25 * 1.0000001, 1e-310, 65504.0, 65519.99])
    values = np.concatenate([halves, mids, above, below, tiny])
    values = np.concatenate([values, -values]).tolist()
    expected = np.array(values, dtype=np.float16)
    same(orcodec.convert(values, NDArray[np.float16]), expected)
    same(orcodec.loads(orjson.dumps(values), type=NDArray[np.float16]), expected)


def test_float16_and_float32_nan_and_infinity():
    values = [math.inf, -math.inf, math.nan]
    for dtype in (np.float16, np.float32):
        same(orcodec.convert(values, NDArray[dtype]), np.array(values, dtype=dtype))
    # An infinity from MessagePack is a value.
    array = orcodec.unpackb(orcodec.packb(values[:2]), type=NDArray[np.float32])
    assert array.tolist() == [math.inf, -math.inf]


@pytest.mark.parametrize(
    ("data", "tp", "message"),
    [
        (b"[1e400, 2]", NDArray[np.float32], "Expected `float` in the range of `float32`, got `1e400` - at `$[0]`"),
        (b"[1.5, -1e400]", NDArray[np.float64], "Expected `float` in the range of `float64`, got `-1e400` - at `$[1]`"),
        (b"[[1], [1e999]]", np.ndarray, "Expected `float` in the range of `float64`, got `1e999` - at `$[1][0]`"),
        (b"1e400", NDArray[np.float16], "Expected `float` in the range of `float16`, got `1e400`"),
        (b"[1, 1e400]", NDArray[np.int64], "Expected `int`, got `float` - at `$[1]`"),
        (
            b'{"a": [1e400]}',
            dict[str, NDArray[np.float64]],
            "Expected `float` in the range of `float64`, got `1e400` - at `$[...][0]`",
        ),
    ],
    ids=["float32", "float64", "inferred", "0-d", "int64", "nested"],
)
def test_json_numbers_beyond_float64_are_out_of_range(data, tp, message):
    # A JSON number no float64 holds is refused, as untyped loads refuses it (orjson's
    # "number is infinity when parsed as double") and as a float field refuses it: never
    # read as an infinity the text does not say.
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.loads(data, type=tp)
    assert str(info.value) == message
    with pytest.raises(orcodec.JSONDecodeError, match="number is infinity when parsed as double"):
        orcodec.loads(data)


@by_format
@pytest.mark.parametrize(
    ("value", "dtype", "shape"),
    [
        ([1, 2, 3], np.int64, (3,)),
        ([[1, 2], [3, -4]], np.int64, (2, 2)),
        ([1, 2.5], np.float64, (2,)),
        ([[1.5, 2], [3, 4]], np.float64, (2, 2)),
        ([True, False], np.bool_, (2,)),
        ([[True], [False]], np.bool_, (2, 1)),
        ([9223372036854775807, -9223372036854775808], np.int64, (2,)),
        ([9223372036854775808, 1], np.float64, (2,)),
        ([], np.float64, (0,)),
        ([[], []], np.float64, (2, 0)),
        ([[[]]], np.float64, (1, 1, 0)),
    ],
)
def test_inferred_dtype_is_numpys(fmt, value, dtype, shape):
    # numpy.ndarray (and NDArray[Any]) without a dtype: what np.array infers.
    for tp in (np.ndarray, NDArray[Any], np.ndarray[Any, np.dtype[Any]]):
        array = fmt.decode(value, tp)
        expected = np.array(value)
        assert (array.dtype, array.shape) == (np.dtype(dtype), shape)
        same(array, expected)


@by_format
def test_inferred_dtype_beyond_numpy(fmt):
    # Ints beyond uint64 (numpy makes an object array): float64.
    if fmt is not MSGPACK:  # MessagePack has no such ints
        same(big(fmt, [2**64, 1], np.ndarray), np.array([2.0**64, 1.0]))
    # Bools do not mix with numbers (numpy would make them 0 and 1).
    assert message(fmt, [True, 1], np.ndarray) == "Expected `bool`, got `int` - at `$[1]`"
    assert message(fmt, [1.5, False], np.ndarray) == "Expected `int | float`, got `bool` - at `$[1]`"
    assert message(fmt, [1, "x"], np.ndarray) == "Expected `int | float`, got `str` - at `$[1]`"


@by_format
def test_zero_dimensional(fmt):
    # A bare number is a 0-d array, as np.array(5) is.
    same(fmt.decode(5, NDArray[np.int8]), np.array(5, dtype=np.int8))
    same(fmt.decode(2.5, NDArray[np.float32]), np.array(2.5, dtype=np.float32))
    same(fmt.decode(True, np.ndarray), np.array(True))
    same(fmt.decode(-7, np.ndarray), np.array(-7))
    assert message(fmt, 300, NDArray[np.int8]) == "Expected `int` in the range of `int8` (-128 to 127), got `300`"
    assert message(fmt, "5", NDArray[np.int8]) == "Expected `array`, got `str`"
    assert message(fmt, None, NDArray[np.int8]) == f"Expected `array`, got `{fmt.null}`"


@by_format
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_empty_shapes(fmt, dtype):
    for value, shape in [([], (0,)), ([[], []], (2, 0)), ([[[]], [[]]], (2, 1, 0))]:
        same(fmt.decode(value, NDArray[dtype]), np.zeros(shape, dtype=dtype))


# --------------------------------------------------------------------------------------
# Failures: ragged nesting, element types, ranges
# --------------------------------------------------------------------------------------


@by_format
def test_ragged_nesting(fmt):
    tp = NDArray[np.int64]
    longer = "got a longer one" if fmt is JSON else "got length 3"
    cases = {
        "short row": (
            [[1, 2], [3]],
            "Expected `array` of length 2 (as the arrays before it), got length 1 - at `$[1]`",
        ),
        "long row": (
            [[1, 2], [3, 4, 5]],
            f"Expected `array` of length 2 (as the arrays before it), {longer} - at `$[1]`",
        ),
        "number for a row": ([[1, 2], 3], "Expected `array`, got `int` - at `$[1]`"),
        "row for a number": ([[1, 2], [3, [4]]], "Expected `int`, got `array` - at `$[1][1]`"),
        "row for a number first": ([1, [2]], "Expected `int`, got `array` - at `$[1]`"),
        "deeper": (
            [[[1], [2]], [[3], [4, 5]]],
            f"Expected `array` of length 1 (as the arrays before it), "
            f"{'got a longer one' if fmt is JSON else 'got length 2'} - at `$[1][1]`",
        ),
        "empty then not": (
            [[], [1]],
            "Expected `array` of length 0 (as the arrays before it), "
            f"{'got a longer one' if fmt is JSON else 'got length 1'} - at `$[1]`",
        ),
        "not then empty": (
            [[1], []],
            "Expected `array` of length 1 (as the arrays before it), got length 0 - at `$[1]`",
        ),
        "object": ([[1], [{"a": 1}]], "Expected `int`, got `object` - at `$[1][0]`"),
    }
    for name, (value, expected) in cases.items():
        error = fmt.error(value, tp)
        assert str(error) == expected, name
        assert error.path == expected.rsplit("at `", 1)[1][:-1]


def test_json_error_position():
    doc = "[[1, 2],\n [3, 4, 5]]"
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.loads(doc, type=NDArray[np.float64])
    assert (info.value.pos, info.value.lineno, info.value.colno) == (doc.index("[3"), 2, 2)
    doc = "[[1, 2], [3, true]]"
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.loads(doc, type=NDArray[np.float64])
    assert str(info.value) == "Expected `float`, got `bool` - at `$[1][1]`"
    assert info.value.pos == doc.index("true")


@by_format
def test_element_types(fmt):
    assert message(fmt, [[1, 2.5]], NDArray[np.int32]) == "Expected `int`, got `float` - at `$[0][1]`"
    assert message(fmt, [1, "2"], NDArray[np.float64]) == "Expected `float`, got `str` - at `$[1]`"
    assert message(fmt, [1.0, True], NDArray[np.float64]) == "Expected `float`, got `bool` - at `$[1]`"
    assert message(fmt, [True, 1], NDArray[np.bool_]) == "Expected `bool`, got `int` - at `$[1]`"
    assert message(fmt, [1, None], NDArray[np.uint8]) == f"Expected `int`, got `{fmt.null}` - at `$[1]`"
    assert message(fmt, {"a": 1}, NDArray[np.uint8]) == "Expected `array`, got `object`"
    # strict=False: integral floats for ints, 0 and 1 for bools, nothing else.
    same(fmt.decode([1.0, -2.0], NDArray[np.int8], strict=False), np.array([1, -2], dtype=np.int8))
    same(fmt.decode([1, 0], NDArray[np.bool_], strict=False), np.array([True, False]))
    assert message(fmt, [1.5], NDArray[np.int8], strict=False) == "Expected `int`, got `float` - at `$[0]`"
    assert (
        message(fmt, [200.0], NDArray[np.int8], strict=False)
        == "Expected `int` in the range of `int8` (-128 to 127), got `200.0` - at `$[0]`"
    )
    assert message(fmt, [2], NDArray[np.bool_], strict=False) == "Expected `bool`, got `int` - at `$[0]`"
    assert message(fmt, ["1"], NDArray[np.int8], strict=False) == "Expected `int`, got `str` - at `$[0]`"


@by_format
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_int_ranges(fmt, dtype):
    info = np.iinfo(dtype)
    name = np.dtype(dtype).name
    same(fmt.decode([[int(info.min), int(info.max)]], NDArray[dtype]), np.array([[info.min, info.max]], dtype=dtype))
    for bad in (int(info.min) - 1, int(info.max) + 1):
        if fmt is MSGPACK and not -(2**63) <= bad < 2**64:
            continue  # no such MessagePack int
        expected = f"Expected `int` in the range of `{name}` ({info.min} to {info.max}), got `{bad}` - at `$[1][0]`"
        assert big_message(fmt, [[0, 0], [bad, 0]], NDArray[dtype]) == expected


@by_format
def test_float_ranges(fmt):
    # A finite value beyond the dtype's largest (after rounding) fails.
    assert message(fmt, [1e300], NDArray[np.float32]) == (
        "Expected `float` in the range of `float32`, got `1e+300` - at `$[0]`"
    )
    assert str(fmt.error([65520.0], NDArray[np.float16])).startswith("Expected `float` in the range of `float16`")
    same(fmt.decode([3.4028235e38], NDArray[np.float32]), np.array([3.4028235e38], dtype=np.float32))
    same(fmt.decode([65519.0], NDArray[np.float16]), np.array([65504.0], dtype=np.float16))
    if fmt is not MSGPACK:
        # The value is quoted up to 200 bytes, as every message quotes one.
        huge = 10**400
        assert big_message(fmt, [huge], NDArray[np.float64]) == (
            f"Expected `float` in the range of `float64`, got `{str(huge)[:200]}...` - at `$[0]`"
        )
        same(big(fmt, [10**30], NDArray[np.float64]), np.array([1e30]))


def test_uint64_beyond_int64():
    for fmt in FORMATS:
        same(fmt.decode([2**64 - 1, 2**63], NDArray[np.uint64]), np.array([2**64 - 1, 2**63], dtype=np.uint64))


def test_exception_classes():
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(b"[[1], [2, 3]]", type=NDArray[np.int8])
    assert isinstance(info.value, orcodec.ValidationError)
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(orcodec.packb([[1], [2, 3]]), type=NDArray[np.int8])
    assert isinstance(info.value, orcodec.ValidationError)
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.convert([[1], [2, 3]], NDArray[np.int8])
    assert type(info.value) is orcodec.ValidationError


# --------------------------------------------------------------------------------------
# Inside other types; convert; Decoder
# --------------------------------------------------------------------------------------


@dataclasses.dataclass
class Frame:
    name: str
    pixels: NDArray[np.uint8]
    weights: Optional[NDArray[np.float32]] = None  # noqa: UP045
    extra: list[NDArray[np.int16]] = dataclasses.field(default_factory=list)


@by_format
def test_inside_other_types(fmt):
    value = {"name": "f", "pixels": [[1, 2], [3, 255]], "extra": [[1], [2, 3], []]}
    frame = fmt.decode(value, Frame)
    assert frame.name == "f" and frame.weights is None
    same(frame.pixels, np.array([[1, 2], [3, 255]], dtype=np.uint8))
    assert [a.tolist() for a in frame.extra] == [[1], [2, 3], []]
    assert all(a.dtype == np.int16 for a in frame.extra)
    frame = fmt.decode({**value, "weights": [0.5]}, Frame)
    same(frame.weights, np.array([0.5], dtype=np.float32))
    assert str(fmt.error({**value, "pixels": [[1, 2], [3, 256]]}, Frame)) == (
        "Expected `int` in the range of `uint8` (0 to 255), got `256` - at `$.pixels[1][1]`"
    )
    assert (
        str(fmt.error({**value, "extra": [[1], [[2], 3]]}, Frame)) == "Expected `array`, got `int` - at `$.extra[1][1]`"
    )
    decoded = fmt.decode({"a": [[1.5]], "b": None}, dict[str, Optional[NDArray[np.float64]]])  # noqa: UP045
    same(decoded["a"], np.array([[1.5]]))
    assert decoded["b"] is None
    assert message(fmt, {"a": "x"}, dict[str, Optional[NDArray[np.float64]]]) == (  # noqa: UP045
        "Expected `array | null`, got `str` - at `$[...]`"
    )


def test_convert_keeps_an_ndarray_of_the_dtype():
    array = np.arange(6.0).reshape(2, 3)
    assert orcodec.convert(array, NDArray[np.float64]) is array
    assert orcodec.convert(array, np.ndarray) is array
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.convert(array, NDArray[np.int64])
    assert str(info.value) == "Expected `ndarray` of `int64`, got `ndarray` of `float64`"
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.convert(array.astype(">f8"), NDArray[np.float64])
    assert str(info.value) == "Expected `ndarray` of `float64`, got `ndarray` of `>f8`"
    frame = orcodec.convert({"name": "x", "pixels": np.zeros((1, 2), dtype=np.uint8)}, Frame)
    assert frame.pixels.dtype == np.uint8
    # Tuples are arrays too, as numpy reads them.
    same(orcodec.convert(((1, 2), (3, 4)), NDArray[np.int8]), np.array([[1, 2], [3, 4]], dtype=np.int8))


def test_convert_reads_numpy_scalars():
    # As numpy reads them into an array (np.float64 is a float already).
    values = [np.int32(5), np.float32(0.5), np.uint64(2**64 - 1), np.float16(-2.5), np.float64(0.1)]
    same(orcodec.convert(values, NDArray[np.float64]), np.array(values, dtype=np.float64))
    same(orcodec.convert(list(np.arange(4, dtype=np.int32)), NDArray[np.int32]), np.arange(4, dtype=np.int32))
    same(orcodec.convert([np.True_, np.False_], NDArray[np.bool_]), np.array([True, False]))
    same(orcodec.convert([np.uint64(2**64 - 1)], NDArray[np.uint64]), np.array([2**64 - 1], dtype=np.uint64))
    same(orcodec.convert(np.float32(2.5), NDArray[np.float32]), np.array(2.5, dtype=np.float32))
    # The element rules are the same as for Python numbers; messages show the value.
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.convert([np.int64(1), np.int64(300)], NDArray[np.int8])
    assert str(info.value) == "Expected `int` in the range of `int8` (-128 to 127), got `300` - at `$[1]`"
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.convert([np.float32(1.5)], NDArray[np.int8])
    assert str(info.value) == "Expected `int`, got `float32` - at `$[0]`"
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.convert([np.str_("1")], NDArray[np.int8])
    assert str(info.value) == "Expected `int`, got `str_` - at `$[0]`"
    # An inferred array takes numpy scalars as the Python numbers they stand for.
    same(orcodec.convert([np.int16(1), np.int16(2)], np.ndarray), np.array([1, 2]))


def test_decoder():
    decoder = orcodec.Decoder(NDArray[np.float32])
    same(decoder.loads(b"[[1, 2], [3, 4]]"), np.array([[1, 2], [3, 4]], dtype=np.float32))
    same(decoder.unpackb(orcodec.packb([1.5])), np.array([1.5], dtype=np.float32))
    same(decoder.convert([2]), np.array([2], dtype=np.float32))


def test_unsupported_types():
    for tp in (NDArray[np.complex128], NDArray[np.floating], NDArray[np.object_], NDArray[np.datetime64]):
        with pytest.raises(TypeError, match="is not supported: ndarray element types are bool, int8 to int64"):
            orcodec.loads(b"[]", type=tp)
    with pytest.raises(TypeError, match=r"must be given as numpy.dtype\[...\]"):
        orcodec.loads(b"[]", type=np.ndarray[Any, np.float64])


def test_every_alias_of_a_dtype():
    for alias, dtype in [(np.double, np.float64), (np.half, np.float16), (np.intp, np.int64), (np.ubyte, np.uint8)]:
        assert orcodec.loads(b"[1]", type=NDArray[alias]).dtype == dtype
    assert orcodec.loads(b"[1]", type=np.ndarray[tuple[int], np.dtype[np.int16]]).dtype == np.int16


# --------------------------------------------------------------------------------------
# Hostile input
# --------------------------------------------------------------------------------------


@by_format
def test_too_many_dimensions(fmt):
    value: Any = []
    for _ in range(63):
        value = [value]
    assert fmt.decode(value, np.ndarray).shape == (1,) * 63 + (0,)
    error = fmt.error([value], np.ndarray)
    assert str(error).startswith("Expected at most 64 dimensions, got more - at `$" + "[0]" * 64 + "`")


def test_hostile_nesting_and_lengths():
    # Deep nesting stops at 64 dimensions, before anything is built.
    with pytest.raises(orcodec.ValidationError, match="at most 64 dimensions"):
        orcodec.loads(b"[" * 200_000 + b"]" * 200_000, type=NDArray[np.float64])
    # Around the array, the document's nesting limit still counts every level.
    doc = b'{"next": ' * 1020 + b'{"array": [[[[[1]]]]]}' + b"}" * 1020
    with pytest.raises(orcodec.JSONDecodeError, match="nesting deeper than 1024 levels"):
        orcodec.loads(doc, type=Chain)
    doc = b'{"next": ' * 1010 + b'{"array": [[[[[1]]]]]}' + b"}" * 1010
    assert orcodec.loads(doc, type=Chain).next.next.next is not None
    # A MessagePack array header claiming 2**32-1 items, with none: the format's
    # error, nothing allocated for the claim.
    for data in (b"\xdd\xff\xff\xff\xff", b"\x91\xdd\xff\xff\xff\xff\x01"):
        with pytest.raises(orcodec.MsgpackDecodeError):
            orcodec.unpackb(data, type=NDArray[np.float64])


@dataclasses.dataclass
class Chain:
    next: Optional[Chain] = None  # noqa: UP045
    array: Optional[NDArray[np.float64]] = None  # noqa: UP045


def test_large_array():
    array = np.random.default_rng(1).standard_normal((1000, 100))
    text = orjson.dumps(array, option=orjson.OPT_SERIALIZE_NUMPY)
    same(orcodec.loads(text, type=NDArray[np.float64]), array)
    same(orcodec.unpackb(orcodec.packb(array.tolist()), type=NDArray[np.float64]), array)


# --------------------------------------------------------------------------------------
# numpy stays optional
# --------------------------------------------------------------------------------------


def run_python(script: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_typed_decoding_without_numpy():
    script = """
        import sys
        sys.modules["numpy"] = None  # importing numpy now fails
        import dataclasses, orcodec

        @dataclasses.dataclass
        class P:
            x: list[float]

        print(orcodec.loads(b'{"x": [1, 2.5]}', type=P), orcodec.convert([1], list[int]))
        print(orcodec.unpackb(orcodec.packb([1]), type=list[float]))
    """
    assert run_python(script).splitlines() == ["P(x=[1.0, 2.5]) [1]", "[1.0]"]


def test_typed_decoding_does_not_import_numpy():
    script = """
        import sys, orcodec
        orcodec.loads(b'[1]', type=list[int])
        orcodec.convert({"a": 1}, dict[str, int])
        print("numpy" in sys.modules)
    """
    assert run_python(script) == "False"


# --------------------------------------------------------------------------------------
# References and leaks
# --------------------------------------------------------------------------------------

LEAK_JSON = orjson.dumps(np.arange(60.0).reshape(3, 4, 5), option=orjson.OPT_SERIALIZE_NUMPY)
LEAK_LISTS = np.arange(60).reshape(6, 10).tolist()
LEAK_PACKED = orcodec.packb(LEAK_LISTS)
LEAK_FRAME = orcodec.dumps({"name": "f", "pixels": [[1, 2]], "weights": [1.5], "extra": [[1], []]})
LEAK_CASES = {
    "loads": (lambda: orcodec.loads(LEAK_JSON, type=NDArray[np.float32]), None),
    "loads-inferred": (lambda: orcodec.loads(LEAK_JSON, type=np.ndarray), None),
    "unpackb": (lambda: orcodec.unpackb(LEAK_PACKED, type=NDArray[np.int16]), None),
    "convert": (lambda: orcodec.convert(LEAK_LISTS, NDArray[np.uint8]), None),
    "frame": (lambda: orcodec.loads(LEAK_FRAME, type=Frame), None),
    "zero-d": (lambda: orcodec.loads(b"1.5", type=NDArray[np.float64]), None),
    "ragged": (lambda: orcodec.loads(b"[[1, 2], [3]]", type=NDArray[np.float64]), orcodec.ValidationError),
    "range": (lambda: orcodec.convert([[1, 300]], NDArray[np.int8]), orcodec.ValidationError),
    "malformed": (lambda: orcodec.loads(LEAK_JSON[:-5], type=NDArray[np.float64]), orcodec.JSONDecodeError),
}


@pytest.mark.parametrize("name", sorted(LEAK_CASES))
def test_no_leak(name):
    call, expected = LEAK_CASES[name]

    def once():
        if expected is None:
            call()
            return
        try:
            call()
        except expected:
            return
        raise AssertionError(f"{name} raised nothing")

    tracked = [LEAK_JSON, LEAK_LISTS, LEAK_PACKED, Frame]
    for _ in range(1000):
        once()
    gc.collect()
    refs = [sys.getrefcount(obj) for obj in tracked]
    blocks = sys.getallocatedblocks()
    for _ in range(10_000):
        once()
    gc.collect()
    assert [sys.getrefcount(obj) for obj in tracked] == refs
    assert sys.getallocatedblocks() - blocks <= 100


# --------------------------------------------------------------------------------------
# MessagePack's numpy extension (OPT_NUMPY_EXT) in typed decoding
# --------------------------------------------------------------------------------------

EXT = orcodec.OPT_NUMPY_EXT


def test_numpy_ext_values_at_array_targets():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    packed = orcodec.packb({"name": "x", "pixels": array.astype(np.uint8), "weights": array[0]}, option=EXT)
    frame = orcodec.unpackb(packed, type=Frame, option=EXT)
    same(frame.pixels, array.astype(np.uint8))
    same(frame.weights, array[0])
    shared = orcodec.unpackb(packed, type=Frame, option=EXT | orcodec.OPT_NUMPY_ZERO_COPY)
    assert not shared.pixels.flags.writeable and shared.pixels.tolist() == [[0, 1, 2], [3, 4, 5]]
    same(orcodec.Decoder(Frame).unpackb(packed, option=EXT).pixels, array.astype(np.uint8))
    # Nested lists and extension values mix.
    packed = orcodec.packb([array, array.tolist()], option=EXT)
    for got in orcodec.unpackb(packed, type=list[NDArray[np.float32]], option=EXT):
        same(got, array)
    # An array of another dtype is refused, as convert refuses it.
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(orcodec.packb([array], option=EXT), type=list[NDArray[np.float64]], option=EXT)
    assert isinstance(info.value, orcodec.ValidationError)
    assert str(info.value) == "Expected `ndarray` of `float64`, got `ndarray` of `float32` - at `$[0]`"
    # Without the flag (or for a numpy scalar) an extension value is no array.
    for data, option in [(orcodec.packb(array, option=EXT), None), (orcodec.packb(np.float32(1), option=EXT), EXT)]:
        with pytest.raises(orcodec.ValidationError) as info:
            orcodec.unpackb(data, type=NDArray[np.float32], option=option)
        assert str(info.value) == "Expected `array`, got `ext`"
    # A malformed extension value stays the format's error.
    bad = orcodec.packb(orcodec.Ext(78, b"\x00"))
    with pytest.raises(orcodec.MsgpackDecodeError, match="invalid numpy extension value") as info:
        orcodec.unpackb(bad, type=NDArray[np.float32], option=EXT)
    assert not isinstance(info.value, orcodec.ValidationError)


def test_numpy_values_in_any_parts():
    array = np.arange(3, dtype=np.int16)
    for option in (EXT, orcodec.OPT_MSGPACK_NUMPY):
        packed = orcodec.packb({"a": array, "n": 1}, option=option)
        decoded = orcodec.unpackb(packed, type=dict[str, Any], option=option)
        same(decoded["a"], array)
        assert decoded["n"] == 1


def test_msgpack_numpy_maps_at_array_targets():
    import msgpack_numpy

    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    document = {"name": "x", "pixels": array.astype(np.uint8), "weights": array[0]}
    theirs = msgpack.packb(document, default=msgpack_numpy.encode)
    for option in (orcodec.OPT_MSGPACK_NUMPY, orcodec.OPT_MSGPACK_NUMPY | EXT):
        frame = orcodec.unpackb(theirs, type=Frame, option=option)
        same(frame.pixels, array.astype(np.uint8))
        same(frame.weights, array[0])
    shared = orcodec.unpackb(theirs, type=Frame, option=orcodec.OPT_MSGPACK_NUMPY | orcodec.OPT_NUMPY_ZERO_COPY)
    assert not shared.weights.flags.writeable and shared.weights.tolist() == [0.0, 1.0, 2.0]
    # In a union with no map member, a map is read as an array.
    MN = orcodec.OPT_MSGPACK_NUMPY
    optional = msgpack.packb({"a": array, "b": None}, default=msgpack_numpy.encode)
    decoded = orcodec.unpackb(optional, type=dict[str, Optional[NDArray[np.float32]]], option=MN)
    same(decoded["a"], array)
    assert decoded["b"] is None
    # Another dtype, a map that is no array, the option missing: the validation errors.
    no_array = orcodec.packb({"v": {"a": 1}})
    cases = [
        (theirs, Frame, None, "Expected `array`, got `object` - at `$.pixels`"),
        (theirs, Frame, EXT, "Expected `array`, got `object` - at `$.pixels`"),
        (
            optional,
            dict[str, NDArray[np.float64]],
            MN,
            "Expected `ndarray` of `float64`, got `ndarray` of `float32` - at `$[...]`",
        ),
        (no_array, dict[str, np.ndarray], MN, "Expected `array`, got `object` - at `$[...]`"),
        (no_array, dict[str, Optional[NDArray[np.int8]]], MN, "Expected `array | null`, got `object` - at `$[...]`"),
    ]
    for data, target, option, message in cases:
        with pytest.raises(orcodec.ValidationError) as info:
            orcodec.unpackb(data, type=target, option=option)
        assert str(info.value) == message
    # A malformed msgpack-numpy map stays the format's error.
    bad = msgpack.packb({"v": {b"nd": True, b"type": "<i2", b"kind": b"", b"shape": [3], b"data": b"12"}})
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(bad, type=dict[str, NDArray[np.int16]], option=orcodec.OPT_MSGPACK_NUMPY)
    assert not isinstance(info.value, orcodec.ValidationError)
    assert str(info.value).startswith("msgpack-numpy array: the shape and dtype need 6 bytes of data, b'data' has 2")


F64 = np.dtype[np.float64]


@pytest.mark.parametrize("fmt", FORMATS)
def test_stated_shapes(fmt):
    from typing import Literal

    cases = [
        (np.ndarray[tuple[int, int], F64], [[1, 2], [3, 4]], (2, 2)),
        (np.ndarray[tuple[int], F64], [1, 2, 3], (3,)),
        (np.ndarray[tuple[()], F64], 5, ()),
        (np.ndarray[tuple[Literal[3]], F64], [1, 2, 3], (3,)),
        (np.ndarray[tuple[int, Literal[2]], F64], [[1, 2], [3, 4], [5, 6]], (3, 2)),
        (np.ndarray[tuple[int, Literal[0]], F64], [[], []], (2, 0)),
        (np.ndarray[tuple[int, ...], F64], [[[1]]], (1, 1, 1)),
        (np.ndarray[Any, F64], [[[1]]], (1, 1, 1)),
        (NDArray[np.float64], 5, ()),
    ]
    for target, value, shape in cases:
        got = fmt.decode(value, target)
        same(got, np.array(value, dtype=np.float64))
        assert got.shape == shape
    errors = [
        (np.ndarray[tuple[int, int], F64], [1, 2, 3], "Expected `array` of 2 dimensions, got 1 dimension"),
        (np.ndarray[tuple[int], F64], [[1, 2], [3, 4]], "Expected `array` of 1 dimension, got 2 dimensions"),
        (np.ndarray[tuple[int], F64], 5, "Expected `array` of 1 dimension, got 0 dimensions"),
        (np.ndarray[tuple[()], F64], [1], "Expected `array` of 0 dimensions, got 1 dimension"),
        (np.ndarray[tuple[Literal[3]], F64], [1, 2], "Expected `array` of shape (3,), got shape (2,)"),
        (np.ndarray[tuple[Literal[3]], F64], [[1, 2, 3]], "Expected `array` of shape (3,), got shape (1, 3)"),
        (np.ndarray[tuple[int, Literal[2]], F64], [[1, 2, 3]], "Expected `array` of shape (*, 2), got shape (1, 3)"),
        (np.ndarray[tuple[int, Literal[2]], F64], 1, "Expected `array` of shape (*, 2), got shape ()"),
    ]
    for target, value, message in errors:
        error = fmt.error({"a": [value]}, dict[str, list[target]])
        assert str(error) == f"{message} - at `$[...][0]`"
        assert error.path == "$[...][0]"


def test_stated_shapes_of_existing_arrays():
    from typing import Literal

    two_by_three = np.arange(6.0).reshape(2, 3)
    target = np.ndarray[tuple[int, Literal[3]], F64]
    assert orcodec.convert(two_by_three, target) is two_by_three
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.convert([two_by_three], list[np.ndarray[tuple[int], F64]])
    assert str(info.value) == "Expected `array` of 1 dimension, got 2 dimensions - at `$[0]`"
    packed = orcodec.packb([two_by_three], option=EXT)
    same(orcodec.unpackb(packed, type=list[target], option=EXT)[0], two_by_three)
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.unpackb(packed, type=list[np.ndarray[tuple[Literal[3], int], F64]], option=EXT)
    assert str(info.value) == "Expected `array` of shape (3, *), got shape (2, 3) - at `$[0]`"
    packed = orcodec.packb([two_by_three], option=orcodec.OPT_MSGPACK_NUMPY)
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.unpackb(packed, type=list[np.ndarray[tuple[int], F64]], option=orcodec.OPT_MSGPACK_NUMPY)
    assert str(info.value) == "Expected `array` of 1 dimension, got 2 dimensions - at `$[0]`"


def test_unsupported_shapes():
    from typing import Literal

    why = "the shape of an ndarray must be given as tuple[...] of int or Literal[n] entries"
    for shape in (str, tuple[str], tuple[Literal[-1]], tuple[Literal["3"]], list[int], tuple[Literal[1, 2]]):
        target = np.ndarray[shape, F64]
        with pytest.raises(TypeError) as info:
            orcodec.loads(b"[1]", type=target)
        assert str(info.value) == f"Type `{target!r}` is not supported: {why}"
    with pytest.raises(TypeError, match="an ndarray has at most 64 dimensions"):
        orcodec.loads(b"[1]", type=np.ndarray[tuple[(int,) * 65], F64])


# Numbers of the shapes JSON text's quick path reads (no exponent, at most 19 digits;
# used where 64 bytes of input remain) and of the shapes it leaves to the full path.
QUICK_SHAPES = [
    "0.5488135039273248",
    "-1.0316569150323788",
    "0.12345678901234567",
    "-0.000123456789012345",
    "9.999999999999999",
    "1.5",
    "-0.0",
    "0.0",
    "7.0000000000000000001",
    "3.141592653589793238462643383",
    "2.2250738585072014",
    "1.7976931348623157",
    "12.5",
    "123456.789",
    "1234567890123.4567",
    "0",
    "-7",
    "42",
    "1.5e3",
    "-2.0E-7",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
]


def json_rows(tokens: list[str], width: int, tail: int) -> str:
    rows = [tokens[i : i + width] for i in range(0, len(tokens), width)]
    return "[" + ",".join("[" + ",".join(row) + "]" for row in rows) + "]" + " " * tail


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_json_quick_numbers_bit_exact(dtype):
    # Every number as numpy reads Python's float() of its text, bit for bit, wherever it
    # falls: far from the end of the input (the quick path), across and inside the last
    # 64 bytes (the full path), one digit before the point or more.
    shapes = [t for t in QUICK_SHAPES if abs(float(t)) < float(np.finfo(dtype).max)]
    tokens = shapes * 3
    want = np.array([float(t) for t in tokens], dtype=dtype).reshape(-1, len(shapes))
    for tail in range(0, 70):
        text = json_rows(tokens, len(shapes), tail)
        same(orcodec.loads(text, type=NDArray[dtype]), want)
    rng = np.random.default_rng(18)
    values = np.concatenate([rng.standard_normal(3000), rng.standard_normal(1000) * 1e-3, rng.random(1000) * 10])
    tokens = [repr(float(v)) for v in values] + [repr(-float(v)) for v in values[:500]]
    text = json_rows(tokens, 100, 0)
    want = np.array([float(t) for t in tokens], dtype=dtype).reshape(-1, 100)
    same(orcodec.loads(text, type=NDArray[dtype]), want)
    same(orcodec.loads(text.replace(",", ", "), type=NDArray[dtype]), want)


def test_json_quick_numbers_ints_and_inferred():
    ints = [t for t in QUICK_SHAPES if "." not in t and "e" not in t.lower()]
    fits = [t for t in ints if -(2**63) <= int(t) < 2**63]
    for tail in (0, 40, 64, 100):
        text = json_rows(fits * 4, len(fits), tail)
        same(orcodec.loads(text, type=NDArray[np.int64]), np.array([int(t) for t in fits * 4]).reshape(4, -1))
        same(orcodec.loads(text, type=np.ndarray), np.array([int(t) for t in fits * 4]).reshape(4, -1))
        text = json_rows(QUICK_SHAPES * 2, len(QUICK_SHAPES), tail)
        want = np.array([float(t) for t in QUICK_SHAPES * 2]).reshape(2, -1)
        same(orcodec.loads(text, type=np.ndarray), want)
        same(orcodec.loads(text, type=NDArray[np.float64]), want)


@pytest.mark.parametrize(
    ("doc", "tp"),
    [
        ("[[1.5, 2.5], [1.5, 2.5, 3.5], [1.5, 2.5]]", NDArray[np.float64]),
        ("[[1.5,2.5],[1.5,2.5,3.5],[1.5,2.5]]", NDArray[np.float64]),
        ("[[1.5,2.5],[1.5],[1.5,2.5]]", NDArray[np.float64]),
        ("[[1,2],[3,300],[1,2]]", NDArray[np.int8]),
        ("[[1,2],[3,-1],[1,2]]", NDArray[np.uint64]),
        ("[[1,2],[3,2.5],[1,2]]", NDArray[np.int32]),
        ("[[1,2],[3,2.0],[1,2]]", NDArray[np.int32]),
        ("[[0,1],[1,2],[0,1]]", NDArray[np.bool_]),
        ("[[1.5,2.5],[1.5,true],[1.5,2.5]]", NDArray[np.float64]),
        ("[[1.5,2.5],[1.5,[2.5]],[1.5,2.5]]", NDArray[np.float64]),
        ("[[1.5,2.5],[1.5,1e400],[1.5,2.5]]", NDArray[np.float64]),
        ("[[70000.5,2.5],[1.5,2.5]]", NDArray[np.float16]),
        ("[[3.5e38,2.5],[1.5,2.5]]", NDArray[np.float32]),
        ("[[1,2],[3,4.5],[1,true]]", np.ndarray),
    ],
)
@pytest.mark.parametrize("strict", [True, False])
def test_json_quick_numbers_errors_unchanged(doc, tp, strict):
    # Where the quick path reads the failing number (64 bytes follow it), the outcome is
    # the full path's (which reads it where fewer follow): the error's message, path and
    # position (or, for what strict=False takes, the array).
    def outcome(text):
        try:
            array = orcodec.loads(text, type=tp, strict=strict)
        except orcodec.ValidationError as e:
            return str(e), e.path, e.pos
        return array.dtype, array.shape, array.tobytes()

    want = outcome(doc)
    if strict:
        assert want[1].startswith("$["), want
    for tail in (1, 30, 63, 64, 65, 200):
        assert outcome(doc + " " * tail) == want, tail

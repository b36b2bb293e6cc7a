"""numpy arrays and scalars in binary form: OPT_NUMPY_EXT (one extension value each, read
back by unpackb, copied or with OPT_NUMPY_ZERO_COPY shared), and msgpack-numpy's map form
(OPT_MSGPACK_NUMPY) against msgpack-numpy itself.

Round trips are exact: dtype (byte order included), shape, and every bit of the data
(NaN payloads, -0.0, NaT). Expected header bytes are written out from the format's
description (doc/numpy.md), not from the implementation.
"""

from __future__ import annotations

import builtins
import dataclasses
import datetime as dt
import gc
import pickle
import random
import struct
import subprocess
import sys
import textwrap

import msgpack
import msgpack_numpy
import numpy as np
import orcodec
import ormsgpack
import pytest
from helpers import assert_resident_set_steady, rss

EXT = orcodec.OPT_NUMPY_EXT
ZERO = orcodec.OPT_NUMPY_ZERO_COPY
MAPS = orcodec.OPT_MSGPACK_NUMPY
CODE = 78

INTS = ["|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8"]
FLOATS = ["<f2", "<f4", "<f8", "<c8", "<c16"]
UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "10ms", "3D"]
TIMES = [f"<M8[{u}]" for u in UNITS] + [f"<m8[{u}]" for u in UNITS] + ["<M8", "<m8"]
DTYPES = ["|b1", *INTS, *FLOATS, *TIMES]


def random_array(dtype: str, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Random bits of every element (NaN payloads, subnormals, -0.0, NaT included),
    except bool, whose elements are 0 or 1."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, size=count * dtype.itemsize, dtype=np.uint8)
    if dtype.kind == "b":
        raw &= 1
    return raw.view(dtype).reshape(shape)


def same(a, b) -> None:
    """Exactly the same array: type, dtype (byte order too), shape, bits."""
    assert type(a) is type(b)
    assert a.dtype == b.dtype and a.dtype.str == b.dtype.str
    assert a.shape == b.shape
    assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def round_trip(obj, option=EXT, **kwargs):
    return orcodec.unpackb(orcodec.packb(obj, option=EXT, **kwargs), option=option, **kwargs)


def ext_value(payload: bytes, code: int = CODE) -> bytes:
    return msgpack.packb(msgpack.ExtType(code, payload))


def header(flags: int, dtype: str, dims, pad: int = 0) -> bytes:
    """A payload header as doc/numpy.md describes it."""
    return (
        bytes([flags, len(dims), len(dtype), pad])
        + dtype.encode()
        + b"".join(d.to_bytes(8, "big") for d in dims)
        + bytes(pad)
    )


# --------------------------------------------------------------------------------------
# The bytes
# --------------------------------------------------------------------------------------


def test_header_bytes_as_documented():
    a = np.array([[1, 2, 3], [4, 5, 6]], dtype="<i2")
    # ext8 header (3 bytes) + 23 header bytes: the data starts at 26, a multiple of 2.
    payload = header(0, "<i2", [2, 3]) + a.tobytes()
    assert orcodec.packb(a, option=EXT) == b"\xc7" + bytes([len(payload), CODE]) + payload
    # float64: 3 + 15 bytes before the data, 6 bytes of padding make it start at 24.
    b = np.array([1.5, -0.0])
    payload = header(0, "<f8", [2], pad=6) + b.tobytes()
    assert orcodec.packb(b, option=EXT) == b"\xc7\x25N" + payload
    # A scalar: flag bit 0, no dimensions. 8 bytes of payload: the fixext 8 form.
    assert orcodec.packb(np.int8(-2), option=EXT) == b"\xd7N" + header(1, "|i1", []) + b"\xfe"
    # 3 + 7 bytes before the data, 2 bytes of padding make it start at 12.
    expected = b"\xc7\x0dN" + header(1, "<f4", [], pad=2) + b"\x00\x00\x80?"
    assert orcodec.packb(np.float32(1.0), option=EXT) == expected


@pytest.mark.parametrize("prefix", range(20))
@pytest.mark.parametrize("dtype", ["|u1", "<f2", "<f4", "<f8", "<c16", "<M8[ns]"])
def test_data_starts_aligned_in_the_output(prefix, dtype):
    a = random_array(dtype, (3, 5))
    out = orcodec.packb([b"x" * prefix, a], option=EXT)
    align = min(np.dtype(dtype).itemsize, 8)
    start = out.index(a.tobytes())
    assert start % align == 0
    # The padding is zeros, and counted in the header.
    at = out.index(b"N\x00\x02") + 1
    pad = out[at + 3]
    assert pad < 4 * align
    assert out[start - pad : start] == bytes(pad)
    back = orcodec.unpackb(out, option=EXT | ZERO)[1]
    same(back, a)
    assert back.flags.aligned and back.ctypes.data % align == 0


def test_numpy_ext_code():
    a = np.arange(4, dtype="<u2")
    out = orcodec.packb(a, option=EXT, numpy_ext_code=5)
    assert out[:3] == b"\xc7" + bytes([len(out) - 3]) + b"\x05"
    assert out == orcodec.packb(a, option=EXT).replace(b"N", b"\x05", 1)
    same(orcodec.unpackb(out, option=EXT, numpy_ext_code=5), a)
    # Read with the default code, type 5 is another extension: ext_hook's.
    assert orcodec.unpackb(out, option=EXT, ext_hook=orcodec.Ext) == orcodec.Ext(5, out[3:])
    with pytest.raises(orcodec.MsgpackDecodeError, match="Unsupported extension type 5|extension type 5"):
        orcodec.unpackb(out, option=EXT)
    # Type 78 is then an ordinary extension too.
    default = orcodec.packb(a, option=EXT)
    assert orcodec.unpackb(default, option=EXT, numpy_ext_code=5, ext_hook=orcodec.Ext).tag == CODE
    # 0 and 127 are fine; None is the default.
    for code in (0, 127):
        same(round_trip(a, numpy_ext_code=code), a)
    assert orcodec.packb(a, option=EXT, numpy_ext_code=None) == default


@pytest.mark.parametrize("code", [-1, 128, 1 << 70, 1.0, "5", True, b"\x05"])
def test_invalid_numpy_ext_code(code):
    message = "numpy_ext_code must be an int from 0 to 127"
    with pytest.raises(orcodec.MsgpackEncodeError, match=message):
        orcodec.packb([1], option=EXT, numpy_ext_code=code)
    with pytest.raises(orcodec.MsgpackDecodeError, match=message):
        orcodec.unpackb(b"\x91\x01", option=EXT, numpy_ext_code=code)
    # Checked even where it would not be used.
    with pytest.raises(orcodec.MsgpackEncodeError, match=message):
        orcodec.packb([1], numpy_ext_code=code)
    with pytest.raises(TypeError):
        orcodec.dumps([1], numpy_ext_code=5)


def test_without_the_flag_nothing_changes():
    a = np.arange(3)
    # numpy.float64 is a float subclass, which goes to default as with ormsgpack;
    # arrays go to default.
    for peer in (orcodec, ormsgpack):
        with pytest.raises(TypeError) as info:
            peer.packb(np.float64(1.5))
        assert str(info.value) == "Type is not msgpack serializable: numpy.float64"
    assert orcodec.packb(np.float64(1.5), default=float) == msgpack.packb(1.5)
    assert orcodec.packb(a, default=lambda o: "d") == msgpack.packb("d")
    assert orcodec.packb(a, option=orcodec.OPT_SERIALIZE_NUMPY) == msgpack.packb([0, 1, 2])
    # The extension is an extension like any other without the flag.
    out = orcodec.packb(a, option=EXT)
    assert orcodec.unpackb(out, ext_hook=orcodec.Ext) == orcodec.Ext(CODE, out[3:])
    # JSON ignores the flags.
    assert orcodec.dumps(a, option=EXT | MAPS | orcodec.OPT_SERIALIZE_NUMPY) == b"[0,1,2]"
    assert orcodec.dumps(np.float64(1.5), option=EXT | orcodec.OPT_SERIALIZE_NUMPY) == b"1.5"
    with pytest.raises(orcodec.JSONEncodeError) as info:
        orcodec.dumps(np.float64(1.5), option=EXT)
    assert str(info.value) == "Type is not JSON serializable: numpy.float64"


# --------------------------------------------------------------------------------------
# Exact round trips
# --------------------------------------------------------------------------------------

SHAPES = [(), (0,), (7,), (3, 4), (2, 0, 3), (0, 0), (1, 1, 1, 1), (2, 3, 1, 2, 2), (1,) * 32]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("zero_copy", [False, True], ids=["copy", "zero-copy"])
def test_every_dtype_and_shape_round_trips(dtype, zero_copy):
    option = EXT | (ZERO if zero_copy else 0)
    for i, shape in enumerate(SHAPES):
        a = random_array(dtype, shape, seed=i)
        packed = orcodec.packb(a, option=EXT)
        back = orcodec.unpackb(packed, option=option)
        same(back, a)
        assert back.flags.c_contiguous
        assert back.flags.writeable is not zero_copy
        assert back.flags.owndata is not zero_copy
        if zero_copy:
            assert back.base is packed
        # The same bytes from the map form, read back too.
        same(orcodec.unpackb(orcodec.packb(a, option=MAPS), option=MAPS | (ZERO if zero_copy else 0)), a)


@pytest.mark.parametrize("dtype", [">i2", ">i4", ">u8", ">f2", ">f4", ">f8", ">c8", ">c16", ">M8[ns]", ">m8[s]"])
def test_big_endian_arrays_keep_their_byte_order(dtype):
    a = random_array(dtype, (4, 3), seed=3)
    out = orcodec.packb(a, option=EXT)
    assert dtype.encode() in out and a.tobytes() in out
    same(round_trip(a), a)
    same(round_trip(a, option=EXT | ZERO), a)
    # Values equal to the native array's.
    native = a.astype(a.dtype.newbyteorder("="))
    assert round_trip(native).tobytes() == native.tobytes()
    assert np.array_equal(round_trip(a).view(np.uint8), a.view(np.uint8))


def test_special_values_bit_for_bit():
    nan_payloads = np.array([0x7FF8000000000001, 0xFFF0000000000001, 0x7FF4000000000000], dtype="<u8").view("<f8")
    floats = np.concatenate([nan_payloads, np.array([-0.0, 0.0, np.inf, -np.inf, 5e-324])])
    same(round_trip(floats), floats)
    halves = np.array([0x7C01, 0xFE00, 0x8000, 0x0001], dtype="<u2").view("<f2")
    same(round_trip(halves), halves)
    nat = np.array(["NaT", "2024-03-01T12:00:00.123456789", "NaT"], dtype="M8[ns]")
    back = round_trip(nat)
    same(back, nat)
    assert np.isnat(back[0]) and np.isnat(back[2])
    assert np.isnat(round_trip(np.timedelta64("NaT", "s")))


def test_layouts_are_written_in_c_order():
    base = random_array("<f8", (6, 8), seed=9)
    views = {
        "fortran": np.asfortranarray(base),
        "transposed": base.T,
        "strided": base[::2, 1::3],
        "reversed": base[::-1, ::-1],
        "column": base[:, 3],
        "broadcast": np.broadcast_to(base[0], (5, 8)),
        "unaligned": np.frombuffer(b"\x00" + base.tobytes(), dtype="<f8", offset=1).reshape(6, 8),
        "3d-swapped": random_array("<i2", (3, 4, 5), seed=1).transpose(2, 0, 1),
        "complex-strided": random_array("<c16", (4, 6))[:, ::-2],
        "bool-strided": random_array("|b1", (9,))[::4],
    }
    for name, view in views.items():
        assert name == "unaligned" or not view.flags.c_contiguous or view.ndim == 1
        back = round_trip(view)
        same(back, np.ascontiguousarray(view))
        assert back.flags.c_contiguous, name
        # The map form copies the same way, as msgpack-numpy does (tobytes()).
        assert orcodec.packb(view, option=MAPS) == msgpack.packb(view, default=msgpack_numpy.encode), name


@pytest.mark.parametrize(
    "scalar",
    [
        np.bool_(True),
        np.bool_(False),
        np.int8(-128),
        np.int16(-2),
        np.int32(7),
        np.int64(-(2**63)),
        np.uint8(255),
        np.uint16(65535),
        np.uint32(2**32 - 1),
        np.uint64(2**64 - 1),
        np.longlong(-5),
        np.ulonglong(5),
        np.intc(3),
        np.float16(-0.0),
        np.float32(np.nan),
        np.float64(-0.0),
        np.float64(1e-310),
        np.complex64(1 - 2j),
        np.complex128(complex(-0.0, np.inf)),
        np.datetime64("2024-03-01T12:00:00.123456789", "ns"),
        np.datetime64("NaT", "ms"),
        np.datetime64("2024", "Y"),
        np.datetime64("2024-03-01", "10D"),
        np.timedelta64(-7, "us"),
        np.timedelta64("NaT"),
    ],
    ids=repr,
)
def test_scalars_keep_their_type_and_bits(scalar):
    # numpy.longlong and numpy.ulonglong have the dtype string of int64 and uint64, so
    # come back as those (numpy's own scalar type for the dtype).
    expected = {np.longlong: np.int64, np.ulonglong: np.uint64}.get(type(scalar), type(scalar))
    for option in (EXT, EXT | ZERO):
        back = round_trip(scalar, option=option)
        assert type(back) is expected
        assert back.dtype.str == scalar.dtype.str
        assert back.tobytes() == scalar.tobytes()
    if type(scalar) is not np.float64:  # a float in the map form, as msgpack-numpy writes it
        back = orcodec.unpackb(orcodec.packb(scalar, option=MAPS), option=MAPS)
        assert type(back) is expected and back.tobytes() == scalar.tobytes()


def test_nan_payload_of_a_scalar():
    scalar = np.array([0x7FF0000000000ABC], dtype="<u8").view("<f8")[0]
    back = round_trip(scalar)
    assert back.tobytes() == scalar.tobytes()


def test_scalars_of_other_dtypes_follow_the_other_rules():
    # numpy.str_ and numpy.bytes_ are str and bytes subclasses: the first is
    # written as a str, the second goes to default, as with ormsgpack.
    assert orcodec.packb([np.str_("é")], option=EXT) == msgpack.packb(["é"])
    assert orcodec.packb([np.str_("é")]) == ormsgpack.packb([np.str_("é")])
    for peer, option in ((orcodec, EXT), (ormsgpack, 0)):
        with pytest.raises(TypeError) as info:
            peer.packb([np.bytes_(b"\x00")], option=option)
        assert str(info.value) == "Type is not msgpack serializable: numpy.bytes_"
    assert orcodec.packb([np.bytes_(b"\x00")], option=EXT, default=bytes) == msgpack.packb([b"\x00"])
    with pytest.raises(orcodec.MsgpackEncodeError, match="Type is not msgpack serializable: numpy.longdouble"):
        orcodec.packb(np.longdouble(1), option=EXT)
    assert orcodec.packb(np.longdouble(1), option=EXT, default=float) == msgpack.packb(1.0)


@dataclasses.dataclass
class Sample:
    name: str
    values: np.ndarray
    mean: np.float64
    at: dt.datetime


def test_inside_any_document():
    at = dt.datetime(2024, 3, 1, 12, 30, tzinfo=dt.timezone.utc)
    doc = [
        {"samples": [Sample("a", np.arange(6.0).reshape(2, 3), np.float64(2.5), at)], "n": 1},
        (np.int32(4), [np.zeros((0, 3), dtype="<c8")]),
        {"nested": {"deep": [[np.array([True, False])]]}},
    ]
    option = EXT | orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT
    back = orcodec.unpackb(orcodec.packb(doc, option=option), option=option)
    sample = back[0]["samples"][0]
    assert sample["name"] == "a" and sample["at"] == at
    same(sample["values"], np.arange(6.0).reshape(2, 3))
    assert type(sample["mean"]) is np.float64 and sample["mean"] == 2.5
    assert type(back[1][0]) is np.int32
    same(back[1][1][0], np.zeros((0, 3), dtype="<c8"))
    same(back[2]["nested"]["deep"][0][0], np.array([True, False]))
    # The timestamp extension (-1) is read as a datetime alongside.
    assert back[0]["samples"][0]["at"].tzinfo is dt.timezone.utc
    # Sorted keys, non-str keys and OPT_SERIALIZE_NUMPY alongside (sorted and
    # non-str keys not together: ormsgpack refuses that pair).
    flags = EXT | orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SERIALIZE_NUMPY
    out = orcodec.packb({1: np.float32(1), "b": np.arange(2)}, option=flags)
    back = orcodec.unpackb(out, option=EXT | orcodec.OPT_NON_STR_KEYS)
    assert list(back) == [1, "b"] and type(back[1]) is np.float32
    same(back["b"], np.arange(2))
    flags = EXT | orcodec.OPT_SORT_KEYS | orcodec.OPT_SERIALIZE_NUMPY
    back = orcodec.unpackb(orcodec.packb({"b": np.arange(2), "a": np.float32(1)}, option=flags), option=EXT)
    assert list(back) == ["a", "b"] and type(back["a"]) is np.float32
    same(back["b"], np.arange(2))


def test_refused_dtypes_are_never_pickled():
    reduced = []

    class Spy:
        def __reduce__(self):
            reduced.append(self)
            return (Spy, ())

    refused = {
        "object": np.array([Spy(), 1], dtype=object),
        "unicode": np.array(["ab", "c"]),
        "bytes": np.array([b"ab"]),
        "void": np.zeros(2, dtype="V4"),
        "structured": np.zeros(2, dtype=[("x", "<i4"), ("y", "<f8")]),
        "longdouble": np.zeros(2, dtype=np.longdouble),
        "clongdouble": np.zeros(2, dtype=np.clongdouble),
        "stringdtype": np.array(["a"], dtype=np.dtypes.StringDType()),
    }
    for name, array in refused.items():
        for option in (EXT, MAPS):
            with pytest.raises(orcodec.MsgpackEncodeError) as info:
                orcodec.packb([array], option=option)
            assert str(info.value).startswith("numpy dtype has no binary form:"), name
            assert "never pickled" in str(info.value)
            expected = msgpack.packb([list(array.shape)])
            assert orcodec.packb([array], option=option, default=lambda arr: arr.shape) == expected
    assert reduced == []


def test_subclasses_of_ndarray_go_to_default():
    masked = np.ma.masked_array([1, 2], mask=[0, 1])
    with pytest.raises(orcodec.MsgpackEncodeError, match="^Type is not msgpack serializable: MaskedArray$"):
        orcodec.packb(masked, option=EXT)
    out = orcodec.packb(masked, option=EXT, default=lambda a: a.filled(0))
    same(orcodec.unpackb(out, option=EXT), np.array([1, 0]))


def test_large_arrays():
    big = random_array("<f4", (10**7,), seed=5)
    out = orcodec.packb(big, option=EXT)
    assert out[0] == 0xC9 and len(out) == 6 + 4 + 3 + 8 + out[9] + big.nbytes
    same(orcodec.unpackb(out, option=EXT), big)
    zero = orcodec.unpackb(out, option=EXT | ZERO)
    same(zero, big)
    assert np.shares_memory(zero, np.frombuffer(out, dtype=np.uint8))


# --------------------------------------------------------------------------------------
# Zero copy: what the arrays hold, and what they stop
# --------------------------------------------------------------------------------------


def test_zero_copy_from_bytes_holds_the_input():
    a = random_array("<i8", (50, 4))
    packed = orcodec.packb({"a": a, "b": [a[:2]]}, option=EXT)
    refs = sys.getrefcount(packed)
    back = orcodec.unpackb(packed, option=EXT | ZERO)
    assert sys.getrefcount(packed) == refs + 2
    assert back["a"].base is packed and back["b"][0].base is packed
    address = np.frombuffer(packed, dtype=np.uint8).ctypes.data
    assert address <= back["a"].ctypes.data < address + len(packed)
    with pytest.raises(ValueError, match="read-only"):
        back["a"][0, 0] = 1
    with pytest.raises(ValueError):
        back["a"].flags.writeable = True
    arr = back["a"]
    del back, packed
    gc.collect()
    same(arr, a)


def test_zero_copy_from_bytearray_pins_its_size():
    a = random_array("<f8", (10,))
    data = bytearray(orcodec.packb(a, option=EXT))
    back = orcodec.unpackb(data, option=EXT | ZERO)
    same(back, a)
    assert type(back.base) is memoryview
    assert not back.flags.writeable
    # The buffer export stops the bytearray from moving or being freed ...
    with pytest.raises(BufferError):
        data.extend(b"x" * 100_000)
    with pytest.raises(BufferError):
        del data[:10]
    # ... but writes in place show through the read-only array.
    data[-8:] = struct.pack("<d", 42.0)
    assert back[-1] == 42.0
    del back
    gc.collect()
    data.extend(b"x" * 100_000)


def test_zero_copy_from_memoryview_survives_release():
    a = random_array("<u4", (3, 3))
    owner = bytearray(b"\x00" * 5 + orcodec.packb(a, option=EXT))
    view = memoryview(owner)[5:]
    back = orcodec.unpackb(view, option=EXT | ZERO)
    same(back, a)
    # Releasing the caller's view does not free the memory the array reads.
    view.release()
    with pytest.raises(BufferError):
        owner.clear()
    same(back, a)
    del back
    gc.collect()
    owner.clear()


def test_copies_are_independent():
    a = random_array("<i4", (5,))
    data = bytearray(orcodec.packb(a, option=EXT))
    back = orcodec.unpackb(data, option=EXT)
    assert back.base is None and back.flags.owndata and back.flags.writeable
    data.clear()
    back[0] = 1
    assert back[1:].tobytes() == a[1:].tobytes()


def test_zero_copy_needs_a_form_to_read():
    message = "^OPT_NUMPY_ZERO_COPY needs OPT_NUMPY_EXT or OPT_MSGPACK_NUMPY$"
    with pytest.raises(orcodec.MsgpackDecodeError, match=message):
        orcodec.unpackb(b"\x90", option=ZERO)
    assert orcodec.unpackb(b"\x90", option=ZERO | MAPS) == []
    # packb accepts it and ignores it.
    assert orcodec.packb(np.int8(1), option=EXT | ZERO) == orcodec.packb(np.int8(1), option=EXT)


# --------------------------------------------------------------------------------------
# Hostile payloads
# --------------------------------------------------------------------------------------

F8 = header(0, "<f8", [2, 3]) + bytes(48)
HOSTILE = {
    "empty": (b"", "payload of 0 bytes ends inside its 4-byte header"),
    "short-fixed": (b"\x00\x01\x03", "payload of 3 bytes ends inside its 4-byte header"),
    "flags": (b"\x02" + F8[1:], "unknown flags 0x02"),
    "flags-high": (b"\x80" + F8[1:], "unknown flags 0x80"),
    "scalar-with-dims": (header(1, "<f8", [1]) + bytes(8), "a scalar with 1 dimensions"),
    "ndim-65": (bytes([0, 65, 3, 0]) + b"<f8" + bytes(8 * 65), "65 dimensions (at most 64)"),
    "ndim-255": (bytes([0, 255, 3, 0]) + b"<f8", "255 dimensions (at most 64)"),
    "dtype-empty": (b"\x00\x00\x00\x00", "dtype string of 0 bytes (1 to 32)"),
    "dtype-long": (b"\x00\x00\x21\x00" + b"<" * 33, "dtype string of 33 bytes (1 to 32)"),
    "dtype-truncated": (b"\x00\x00\x03\x00<f", "payload of 6 bytes ends inside its 7-byte header"),
    "dims-truncated": (header(0, "<f8", [2, 3])[:-4], "payload of 19 bytes ends inside its 23-byte header"),
    "pad-past-end": (b"\x00\x00\x03\xff<f8", "payload of 7 bytes ends inside its 262-byte header"),
    "object": (header(0, "|O", [1]) + bytes(8), 'unsupported dtype "|O"'),
    "unicode": (header(0, "<U3", [1]) + bytes(12), 'unsupported dtype "<U3"'),
    "structured": (header(0, "|V8", [1]) + bytes(8), 'unsupported dtype "|V8"'),
    "native-order": (header(0, "=f8", [1]) + bytes(8), 'unsupported dtype "=f8"'),
    "bad-unit": (header(0, "<M8[xs]", [1]) + bytes(8), 'unsupported dtype "<M8[xs]"'),
    "not-ascii": (header(0, "<f8", [1]).replace(b"f8", b"\xff8") + bytes(8), 'unsupported dtype "<\ufffd8"'),
    "data-short": (F8[:-8], "the shape and dtype need 48 bytes of data, the payload has 40"),
    "data-long": (F8 + b"\x00", "the shape and dtype need 48 bytes of data, the payload has 49"),
    "data-for-empty": (
        header(0, "<f8", [0, 3]) + bytes(8),
        "the shape and dtype need 0 bytes of data, the payload has 8",
    ),
    "negative-dim": (header(0, "<f8", [2**64 - 1]) + bytes(8), "dimension 0 is 18446744073709551615 (at most 2**63-1)"),
    "dim-2**63": (header(0, "|u1", [1, 2**63]), "dimension 1 is 9223372036854775808 (at most 2**63-1)"),
    "overflow": (header(0, "<f8", [2**32, 2**32]) + bytes(8), "the shape is too large"),
    "overflow-times-itemsize": (header(0, "<c16", [2**60]), "the shape is too large"),
    "overflow-beside-zero": (header(0, "<f8", [0, 2**40, 2**40]), "the shape is too large"),
    "scalar-data-short": (
        header(1, "<f8", []) + bytes(4),
        "the shape and dtype need 8 bytes of data, the payload has 4",
    ),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_payloads(name):
    payload, reason = HOSTILE[name]
    data = b"\x92\xa1x" + ext_value(payload)
    start = 3 + len(ext_value(payload)) - len(payload)
    expected = f"invalid numpy extension value (type 78, payload at byte {start}): {reason}"
    for option in (EXT, EXT | ZERO):
        with pytest.raises(orcodec.MsgpackDecodeError) as info:
            orcodec.unpackb(data, option=option)
        assert str(info.value) == expected
    # As another extension type it is just bytes for ext_hook.
    assert orcodec.unpackb(data, option=EXT, numpy_ext_code=1, ext_hook=orcodec.Ext)[1].data == payload


def test_truncated_extension_values():
    out = orcodec.packb(random_array("<f8", (4, 4)), option=EXT)
    for cut in range(len(out)):
        with pytest.raises(orcodec.MsgpackDecodeError):
            orcodec.unpackb(out[:cut], option=EXT | ZERO)


def test_random_mutations_raise_or_decode():
    rng = random.Random(18)
    seeds = [
        orcodec.packb(x, option=EXT)
        for x in (
            random_array("<f8", (3, 4)),
            random_array("<M8[10ms]", (2,)),
            np.int16(3),
            np.zeros((0, 2)),
            random_array("|b1", (2, 2, 2)),
        )
    ]
    for _ in range(20_000):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 4)):
            if not data:
                break
            op = rng.random()
            at = rng.randrange(len(data))
            if op < 0.6:
                data[at] = rng.randrange(256)
            elif op < 0.8:
                del data[at:]
            else:
                data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 9)))
        if not data:
            continue
        try:
            value = orcodec.unpackb(bytes(data), option=EXT | ZERO, ext_hook=orcodec.Ext)
        except orcodec.MsgpackDecodeError:
            continue
        if isinstance(value, (np.ndarray, np.generic)):
            assert value.nbytes <= len(data)


# --------------------------------------------------------------------------------------
# msgpack-numpy interop
# --------------------------------------------------------------------------------------

INTEROP = [
    random_array("<f8", (3, 4)),
    random_array("|b1", (5,)),
    random_array("<i2", (2, 0, 2)),
    random_array(">u4", (3,)),
    random_array("<c8", (2, 2)),
    np.array(3.5),
    np.float64(2.5),  # a float subclass: msgpack writes it as a float
    np.int8(-1),
    np.complex64(1j),
    np.bool_(True),
    np.timedelta64(5, "s"),
    1 + 2j,
    complex(-0.0, float("inf")),
    {"arrays": [np.arange(3), np.arange(6).reshape(2, 3).T], "n": np.uint16(7), "s": "text"},
]


@pytest.mark.parametrize("obj", INTEROP, ids=lambda o: type(o).__name__ + getattr(o, "dtype", np.dtype("O")).str)
def test_map_form_is_msgpack_numpys(obj):
    ours = orcodec.packb(obj, option=MAPS)
    theirs = msgpack.packb(obj, default=msgpack_numpy.encode)
    assert ours == theirs
    # Each reads the other's.
    from_theirs = orcodec.unpackb(theirs, option=MAPS)
    from_ours = msgpack.unpackb(ours, object_hook=msgpack_numpy.decode)
    for back in (from_theirs, from_ours):
        # numpy.float64 is written as a float (msgpack's choice), so read as one.
        assert type(back) is (float if type(obj) is np.float64 else type(obj))
        if isinstance(obj, (np.ndarray, np.generic)):
            same(np.asarray(back), np.asarray(obj))
        elif isinstance(obj, complex):
            assert repr(back) == repr(obj)


def test_msgpack_numpy_datetime64():
    # msgpack-numpy itself does not write datetime64 scalars and arrays (a memoryview of
    # them cannot be taken); orcodec writes them in its form, and msgpack-numpy reads
    # that back.
    scalar = np.datetime64("2024-03-01T12:00", "m")
    ours = orcodec.packb(scalar, option=MAPS)
    assert ours == b"\x83\xc4\x02nd\xc2\xc4\x04type\xa6<M8[m]\xc4\x04data\xc4\x08" + scalar.tobytes()
    assert msgpack.unpackb(ours, object_hook=msgpack_numpy.decode) == scalar
    array = random_array("<M8[us]", (2, 2))
    ours = orcodec.packb(array, option=MAPS)
    same(msgpack.unpackb(ours, object_hook=msgpack_numpy.decode), array)
    same(orcodec.unpackb(ours, option=MAPS), array)


def test_ext_form_wins_when_both_are_given():
    a = np.arange(3)
    assert orcodec.packb(a, option=EXT | MAPS) == orcodec.packb(a, option=EXT)
    both = orcodec.packb([a, 1j], option=EXT | MAPS)
    back = orcodec.unpackb(both + b"", option=EXT | MAPS)
    same(back[0], a)
    assert back[1] == 1j
    maps = orcodec.packb([a], option=MAPS)
    same(orcodec.unpackb(maps, option=EXT | MAPS)[0], a)


def test_maps_that_are_not_arrays_stay_maps():
    for doc in [
        {b"nd": 1, b"type": "<f8"},
        {b"other": True, b"data": b""},
        {b"complex": False, b"data": "1j"},
        {b"complex": True, b"data": "1j", b"more": 1},
        {"nd": True, "type": "<f8", "shape": [1], "data": bytes(8)},
        {b"x": 1},
    ]:
        packed = msgpack.packb(doc)
        back = orcodec.unpackb(packed, option=MAPS)
        assert back == doc
    # Without the flag, bytes keys are refused as usual.
    with pytest.raises(orcodec.MsgpackDecodeError, match="map key"):
        orcodec.unpackb(msgpack.packb({b"x": 1}))


class Evil:
    def __reduce__(self):
        return (exec, ("import builtins; builtins.orcodec_was_unpickled = True",))


def test_pickled_object_arrays_are_refused():
    obj_array = np.array([Evil(), 1], dtype=object)
    packed = msgpack.packb(obj_array, default=msgpack_numpy.encode)
    assert pickle.PROTO in packed or b"\x80" in packed
    for option in (MAPS, MAPS | ZERO, MAPS | EXT):
        with pytest.raises(orcodec.MsgpackDecodeError, match="object array refused: its data is a pickle"):
            orcodec.unpackb(packed, option=option)
    assert not hasattr(builtins, "orcodec_was_unpickled")
    # Refused without it too: a dtype that is no plain dtype.
    forged = {b"nd": True, b"type": "|O", b"kind": b"", b"shape": [1], b"data": pickle.dumps(Evil())}
    with pytest.raises(orcodec.MsgpackDecodeError, match='unsupported dtype "\\|O"'):
        orcodec.unpackb(msgpack.packb(forged), option=MAPS)
    assert not hasattr(builtins, "orcodec_was_unpickled")


HOSTILE_MAPS = {
    "structured": (
        msgpack.packb(np.zeros(2, dtype=[("x", "<i4")]), default=msgpack_numpy.encode),
        "msgpack-numpy structured array refused: only plain dtypes are read",
    ),
    "kind": ({b"nd": True, b"type": "<f8", b"kind": b"Q", b"shape": [1], b"data": bytes(8)}, "unknown b'kind'"),
    "no-type": ({b"nd": True, b"shape": [1], b"data": bytes(8)}, "without a dtype string"),
    "type-int": ({b"nd": True, b"type": 5, b"shape": [1], b"data": bytes(8)}, "without a dtype string"),
    "dtype": ({b"nd": True, b"type": "<f9", b"shape": [1], b"data": bytes(8)}, 'unsupported dtype "<f9"'),
    "no-data": ({b"nd": True, b"type": "<f8", b"shape": [1]}, "without bytes b'data'"),
    "data-str": ({b"nd": True, b"type": "<f8", b"shape": [1], b"data": "x" * 8}, "without bytes b'data'"),
    "no-shape": ({b"nd": True, b"type": "<f8", b"data": bytes(8)}, "without a list b'shape'"),
    "negative": ({b"nd": True, b"type": "<f8", b"shape": [-1], b"data": bytes(8)}, "non-negative ints"),
    "shape-str": ({b"nd": True, b"type": "<f8", b"shape": ["1"], b"data": bytes(8)}, "non-negative ints"),
    "huge": ({b"nd": True, b"type": "<f8", b"shape": [2**62, 4], b"data": b""}, "the shape is too large"),
    "too-big": ({b"nd": True, b"type": "<f8", b"shape": [2**64 - 1], b"data": b""}, "non-negative ints"),
    "ndim": ({b"nd": True, b"type": "<f8", b"shape": [1] * 65, b"data": bytes(8)}, "65 dimensions"),
    "length": ({b"nd": True, b"type": "<f8", b"shape": [2], b"data": bytes(8)}, "need 16 bytes of data, b'data' has 8"),
    "extra": ({b"nd": True, b"type": "<f8", b"shape": [1], b"data": bytes(8), b"x": 1}, "unexpected key b'x'"),
    "extras": (
        {b"nd": True, b"type": "<f8", b"kind": b"", b"shape": [1], b"data": bytes(8), "x": 1, "y": 2},
        "unexpected key 'x'",
    ),
    "alone": ({b"nd": False}, "without a dtype string"),
    "scalar-shape": ({b"nd": False, b"type": "<f8", b"shape": [], b"data": bytes(8)}, "scalar with a b'shape'"),
    "complex": ({b"complex": True, b"data": "1+"}, "complex number that complex() does not read"),
    "complex-type": ({b"complex": True, b"data": 5}, "complex number that is not text"),
}


@pytest.mark.parametrize("name", HOSTILE_MAPS)
def test_hostile_maps(name):
    doc, reason = HOSTILE_MAPS[name]
    packed = doc if isinstance(doc, bytes) else msgpack.packb(doc)
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(packed, option=MAPS | ZERO)
    assert reason in str(info.value)


def test_map_form_zero_copy_holds_the_bin_bytes():
    a = random_array("<i4", (4,))
    back = orcodec.unpackb(orcodec.packb(a, option=MAPS), option=MAPS | ZERO)
    same(back, a)
    assert type(back.base) is bytes and not back.flags.writeable
    copied = orcodec.unpackb(orcodec.packb(a, option=MAPS), option=MAPS)
    assert copied.flags.writeable and copied.flags.owndata


def test_complex_numbers_in_the_map_form():
    for value in (1 + 2j, -0.0j, complex("nan+infj"), complex(1e300, -1e-300)):
        out = orcodec.packb(value, option=MAPS)
        assert out == msgpack.packb(value, default=msgpack_numpy.encode)
        assert repr(orcodec.unpackb(out, option=MAPS)) == repr(value)

    class Sub(complex):
        def __repr__(self):
            return "not a complex"

    assert orcodec.unpackb(orcodec.packb(Sub(3j), option=MAPS), option=MAPS) == 3j
    # Without the flag a complex goes to default, as before.
    with pytest.raises(orcodec.MsgpackEncodeError, match="complex"):
        orcodec.packb(1j, option=EXT)


# --------------------------------------------------------------------------------------
# numpy is optional
# --------------------------------------------------------------------------------------


def run_python(script: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_works_without_numpy():
    packed = orcodec.packb([np.arange(3), np.float32(1)], option=EXT)
    script = f"""
        import sys
        sys.modules["numpy"] = None  # importing numpy now fails
        import orcodec
        opt = orcodec.OPT_NUMPY_EXT | orcodec.OPT_MSGPACK_NUMPY
        assert orcodec.unpackb(orcodec.packb({{"a": [1, 2.5]}}, option=opt), option=opt) == {{"a": [1, 2.5]}}
        assert orcodec.unpackb(orcodec.packb([1j], option=opt), option=opt) == [1j]
        try:
            orcodec.unpackb({packed!r}, option=orcodec.OPT_NUMPY_EXT)
        except orcodec.MsgpackDecodeError as exc:
            print(exc, "|", type(exc.__cause__).__name__)
        print(orcodec.unpackb({packed!r}, ext_hook=orcodec.Ext)[1].tag)
    """
    assert run_python(script).splitlines() == [
        "the input holds numpy arrays, but numpy could not be imported | ModuleNotFoundError",
        "78",
    ]


def test_numpy_is_imported_only_when_an_array_is_met():
    packed = orcodec.packb({"x": np.arange(3)}, option=EXT)
    script = f"""
        import sys
        import orcodec
        opt = orcodec.OPT_NUMPY_EXT | orcodec.OPT_MSGPACK_NUMPY | orcodec.OPT_NUMPY_ZERO_COPY
        orcodec.unpackb(orcodec.packb({{"a": [1, b"x"]}}, option=opt), option=opt)
        print("numpy" in sys.modules)
        value = orcodec.unpackb({packed!r}, option=opt)
        print("numpy" in sys.modules, type(value["x"]).__name__, value["x"].tolist())
    """
    assert run_python(script).splitlines() == ["False", "True ndarray [0, 1, 2]"]


# --------------------------------------------------------------------------------------
# References and leaks (as tests/test_leaks.py checks the rest)
# --------------------------------------------------------------------------------------

LEAK_ARRAY = random_array("<f8", (20, 5))
LEAK_DOC = {"a": LEAK_ARRAY, "s": np.float32(2), "t": LEAK_ARRAY.T, "c": np.complex128(1j)}
LEAK_PACKED = orcodec.packb(LEAK_DOC, option=EXT)
LEAK_MAPS = orcodec.packb(LEAK_DOC, option=MAPS)
LEAK_BYTEARRAY = bytearray(LEAK_PACKED)
LEAK_BAD = b"\x92\x01" + ext_value(F8[:-8])
LEAK_OBJECT = np.array([object()], dtype=object)
LEAK_PICKLED = msgpack.packb(np.array([1], dtype=object), default=msgpack_numpy.encode)

LEAK_CASES = {
    "packb-ext": (lambda: orcodec.packb(LEAK_DOC, option=EXT), None),
    "packb-maps": (lambda: orcodec.packb(LEAK_DOC, option=MAPS), None),
    "packb-refused": (lambda: orcodec.packb([LEAK_ARRAY, LEAK_OBJECT], option=EXT), orcodec.MsgpackEncodeError),
    "unpackb-copy": (lambda: orcodec.unpackb(LEAK_PACKED, option=EXT), None),
    "unpackb-zero-copy": (lambda: orcodec.unpackb(LEAK_PACKED, option=EXT | ZERO), None),
    "unpackb-zero-copy-bytearray": (lambda: orcodec.unpackb(LEAK_BYTEARRAY, option=EXT | ZERO), None),
    "unpackb-maps": (lambda: orcodec.unpackb(LEAK_MAPS, option=MAPS), None),
    "unpackb-maps-zero-copy": (lambda: orcodec.unpackb(LEAK_MAPS, option=MAPS | ZERO), None),
    "unpackb-hostile": (lambda: orcodec.unpackb(LEAK_BAD, option=EXT | ZERO), orcodec.MsgpackDecodeError),
    "unpackb-pickled": (lambda: orcodec.unpackb(LEAK_PICKLED, option=MAPS), orcodec.MsgpackDecodeError),
}


@pytest.mark.parametrize("name", sorted(LEAK_CASES))
def test_no_leak(name):
    call, expected = LEAK_CASES[name]
    tracked = [LEAK_ARRAY, LEAK_DOC, LEAK_PACKED, LEAK_MAPS, LEAK_BYTEARRAY, LEAK_BAD, LEAK_OBJECT, LEAK_PICKLED]

    def once():
        try:
            call()
        except Exception as exc:
            assert expected is not None and isinstance(exc, expected), exc
        else:
            assert expected is None

    for _ in range(1000):
        once()
    gc.collect()
    refs = [sys.getrefcount(obj) for obj in tracked]
    blocks, resident = sys.getallocatedblocks(), rss()
    for _ in range(30_000):
        once()
    gc.collect()
    assert [sys.getrefcount(obj) for obj in tracked] == refs
    assert sys.getallocatedblocks() - blocks <= 100

    def run_calls():
        for _ in range(30_000):
            once()

    assert_resident_set_steady(rss() - resident, run_calls, 1 << 20, 30_000)
    # The bytearray can be resized again: every export was released.
    LEAK_BYTEARRAY.extend(b"")
    LEAK_BYTEARRAY.append(0)
    LEAK_BYTEARRAY.pop()

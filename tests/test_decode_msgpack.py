"""orcodec.unpackb: every MessagePack family (minimal and non-minimal encodings), errors and
their byte offsets, limits and input types."""

from __future__ import annotations

import math
import struct
import time

import msgpack
import orcodec
import ormsgpack
import pytest
from helpers import (
    MSGPACK,
    MSGPACK_SAMPLES,
    array16,
    array32,
    assert_strict_equal,
    bin8,
    bin16,
    bin32,
    f32,
    f64,
    fixarray,
    fixmap,
    fixstr,
    i8,
    i16,
    i32,
    i64,
    map16,
    map32,
    str8,
    str16,
    str32,
    u8,
    u16,
    u32,
    u64,
)


def _decode(data: bytes):
    """Decoded from bytes, bytearray and memoryview; all three must agree exactly."""
    return MSGPACK.decode_every_input(data)


def _error(data: bytes) -> orcodec.MsgpackDecodeError:
    """The decode error, for bytes, bytearray and memoryview alike."""
    return MSGPACK.refuses_every_input(data)


def _error_offset(data: bytes) -> int:
    """The byte offset the decode error gives, as ``pos`` and in a note."""
    error = _error(data)
    assert type(error.pos) is int
    assert f"at byte {error.pos}" in error.__notes__
    return error.pos


# --------------------------------------------------------------------------------------
# Integers
# --------------------------------------------------------------------------------------

INT_CASES = [
    # positive / negative fixint
    (b"\x00", 0),
    (b"\x01", 1),
    (b"\x7f", 127),
    (b"\xff", -1),
    (b"\xf0", -16),
    (b"\xe0", -32),
    # uint8..uint64, minimal
    (u8(128), 128),
    (u8(255), 255),
    (u16(256), 256),
    (u16(65535), 65535),
    (u32(65536), 65536),
    (u32(2**32 - 1), 2**32 - 1),
    (u64(2**32), 2**32),
    (u64(2**63 - 1), 2**63 - 1),
    (u64(2**63), 2**63),
    (u64(2**64 - 1), 2**64 - 1),
    # int8..int64, minimal
    (i8(-33), -33),
    (i8(-128), -128),
    (i16(-129), -129),
    (i16(-32768), -32768),
    (i32(-32769), -32769),
    (i32(-(2**31)), -(2**31)),
    (i64(-(2**31) - 1), -(2**31) - 1),
    (i64(-(2**63)), -(2**63)),
    # non-minimal encodings
    (u8(0), 0),
    (u8(1), 1),
    (u16(1), 1),
    (u32(1), 1),
    (u64(1), 1),
    (u64(0), 0),
    (u16(255), 255),
    (u32(65535), 65535),
    (i8(1), 1),
    (i8(127), 127),
    (i8(-1), -1),
    (i16(1), 1),
    (i16(-1), -1),
    (i16(32767), 32767),
    (i32(-1), -1),
    (i32(2**31 - 1), 2**31 - 1),
    (i64(1), 1),
    (i64(-1), -1),
    (i64(2**63 - 1), 2**63 - 1),
    (i64(0), 0),
]


@pytest.mark.parametrize("data, expected", INT_CASES, ids=[d.hex() for d, _ in INT_CASES])
def test_int_families(data, expected):
    result = _decode(data)
    assert type(result) is int
    assert result == expected
    assert msgpack.unpackb(data) == expected  # the hand-built bytes are valid


@pytest.mark.parametrize(
    "data, expected",
    [(b"\xc0", None), (b"\xc2", False), (b"\xc3", True)],
    ids=["nil", "false", "true"],
)
def test_nil_and_bool(data, expected):
    assert _decode(data) is expected


# --------------------------------------------------------------------------------------
# Floats
# --------------------------------------------------------------------------------------

FLOAT32_VALUES = [
    1.5,
    0.0,
    -0.0,
    0.1,
    -2.5,
    3.4028234663852886e38,
    1.401298464324817e-45,
    1e-30,
    float("inf"),
    float("-inf"),
    16777217.0,
]


@pytest.mark.parametrize("value", FLOAT32_VALUES, ids=repr)
def test_float32(value):
    data = f32(value)
    (expected,) = struct.unpack(">f", data[1:])
    result = _decode(data)
    assert type(result) is float
    assert_strict_equal(result, expected)


def test_float32_exact_example():
    assert_strict_equal(orcodec.unpackb(b"\xca" + struct.pack(">f", 1.5)), 1.5)
    assert_strict_equal(orcodec.unpackb(b"\xca" + struct.pack(">f", 0.1)), 0.10000000149011612)


def test_float32_nan():
    result = _decode(b"\xca\x7f\xc0\x00\x00")
    assert type(result) is float and math.isnan(result)


FLOAT64_VALUES = [
    0.0,
    -0.0,
    1.5,
    0.1,
    5e-324,
    1.7976931348623157e308,
    -1e-300,
    2.2250738585072014e-308,
    float("inf"),
    float("-inf"),
]


@pytest.mark.parametrize("value", FLOAT64_VALUES, ids=repr)
def test_float64(value):
    assert_strict_equal(_decode(f64(value)), value)


@pytest.mark.parametrize("hexbits", ["7ff8000000000000", "fff8000000000000", "7ff0000000000001", "7fffffffffffffff"])
def test_float64_nan_patterns(hexbits):
    result = _decode(b"\xcb" + bytes.fromhex(hexbits))
    assert type(result) is float and math.isnan(result)


# --------------------------------------------------------------------------------------
# str and bin
# --------------------------------------------------------------------------------------

STR_SAMPLES = ["", "a", "abc", "\u00e9", "\u4e2d\u6587", "\U0001f600", "a\u00e9\u4e2d\U0001f600\x00\n\U0010ffff"]


@pytest.mark.parametrize("s", STR_SAMPLES, ids=ascii)
@pytest.mark.parametrize("family", [fixstr, str8, str16, str32], ids=lambda f: f.__name__)
def test_str_families(s, family):
    data = family(s.encode("utf-8"))
    result = _decode(data)
    assert type(result) is str
    assert result == s


@pytest.mark.parametrize("nbytes", [31, 32, 255, 256, 65535, 65536, 100_000])
@pytest.mark.parametrize("char", ["a", "\u00e9", "\u4e2d", "\U0001f600"], ids=ascii)
def test_long_str(nbytes, char):
    width = len(char.encode())
    s = char * (nbytes // width) + "b" * (nbytes % width)
    encoded = s.encode()
    assert _decode(msgpack.packb(s)) == s
    assert _decode(str32(encoded)) == s
    if len(encoded) < 65536:
        assert _decode(str16(encoded)) == s


BIN_SAMPLES = [b"", b"\x00", b"abc", bytes(range(256)), b"\xff" * 300]


@pytest.mark.parametrize("raw", BIN_SAMPLES, ids=lambda b: f"len{len(b)}")
@pytest.mark.parametrize("family", [bin8, bin16, bin32], ids=lambda f: f.__name__)
def test_bin_families(raw, family):
    if family is bin8 and len(raw) > 255:
        raw = raw[:255]
    result = _decode(family(raw))
    assert type(result) is bytes
    assert result == raw


@pytest.mark.parametrize("n", [0, 255, 256, 65535, 65536, 100_000])
def test_long_bin(n):
    raw = bytes(i % 253 for i in range(n))
    assert_strict_equal(_decode(msgpack.packb(raw, use_bin_type=True)), raw)
    assert_strict_equal(_decode(bin32(raw)), raw)


# --------------------------------------------------------------------------------------
# Arrays and maps
# --------------------------------------------------------------------------------------

ITEMS = [b"\x01", fixstr(b"x"), b"\xc0", fixarray([]), fixmap([])]
ITEMS_VALUE = [1, "x", None, [], {}]


@pytest.mark.parametrize("family", [fixarray, array16, array32], ids=lambda f: f.__name__)
def test_array_families(family):
    assert_strict_equal(_decode(family([])), [])
    assert_strict_equal(_decode(family(ITEMS)), ITEMS_VALUE)
    assert_strict_equal(_decode(family([family([b"\x02"])])), [[2]])


PAIRS = [(fixstr(b"a"), b"\x01"), (str8(b"b"), fixstr(b"x")), (str32(b"\xc3\xa9"), fixarray([b"\xc3"]))]
PAIRS_VALUE = {"a": 1, "b": "x", "\u00e9": [True]}


@pytest.mark.parametrize("family", [fixmap, map16, map32], ids=lambda f: f.__name__)
def test_map_families(family):
    assert_strict_equal(_decode(family([])), {})
    result = _decode(family(PAIRS))
    assert_strict_equal(result, PAIRS_VALUE)
    assert_strict_equal(_decode(family([(fixstr(b"k"), family([(fixstr(b"j"), b"\x02")]))])), {"k": {"j": 2}})


@pytest.mark.parametrize(
    "key",
    [b"\x01", b"\xff", b"\xc0", b"\xc3", f64(1.0), bin8(b"k"), fixarray([]), fixmap([]), u64(1)],
    ids=lambda b: b.hex(),
)
def test_non_str_map_keys_rejected(key):
    _error(fixmap([(key, b"\x01")]))
    _error(fixarray([fixmap([(fixstr(b"ok"), b"\x01"), (key, b"\x02")])]))


# --------------------------------------------------------------------------------------
# Extension types, reserved byte
# --------------------------------------------------------------------------------------

EXT_ENCODINGS = {
    "fixext1": b"\xd4\x05" + b"\x01",
    "fixext2": b"\xd5\x05" + b"\x01" * 2,
    "fixext4": b"\xd6\x05" + b"\x01" * 4,
    "fixext8": b"\xd7\x05" + b"\x01" * 8,
    "fixext16": b"\xd8\x05" + b"\x01" * 16,
    "ext8": b"\xc7\x03\x05" + b"\x01" * 3,
    "ext8_empty": b"\xc7\x00\x05",
    "ext16": b"\xc8\x00\x03\x05" + b"\x01" * 3,
    "ext32": b"\xc9\x00\x00\x00\x03\x05" + b"\x01" * 3,
    "fixext1_type127": b"\xd4\x7f\x00",
}


@pytest.mark.parametrize("name", EXT_ENCODINGS)
def test_ext_without_hook_rejected(name):
    data = EXT_ENCODINGS[name]
    msgpack.unpackb(data)  # valid MessagePack
    _error(data)
    _error(fixarray([b"\x01", data]))
    _error(fixmap([(fixstr(b"k"), data)]))


def test_reserved_byte_rejected():
    _error(b"\xc1")
    _error(fixarray([b"\x01", b"\xc1"]))
    _error(fixmap([(fixstr(b"k"), b"\xc1")]))
    _error(fixmap([(b"\xc1", b"\x01")]))


# --------------------------------------------------------------------------------------
# Malformed input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("data", MSGPACK_SAMPLES, ids=lambda b: b[:8].hex())
def test_truncated_at_every_length(data):
    orcodec.unpackb(data)  # the complete encoding is fine
    for end in range(len(data)):
        with pytest.raises(orcodec.MsgpackDecodeError):
            orcodec.unpackb(data[:end])
        with pytest.raises(orcodec.MsgpackDecodeError):
            orcodec.unpackb(memoryview(data)[:end])


@pytest.mark.parametrize(
    "data",
    [
        b"\xdd\xff\xff\xff\xff",
        b"\xdd\xff\xff\xff\xff\x01\x02\x03",
        b"\xdb\xff\xff\xff\xff",
        b"\xdb\xff\xff\xff\xffabc",
        b"\xc6\xff\xff\xff\xff",
        b"\xc6\xff\xff\xff\xff\x00\x00",
        b"\xdf\xff\xff\xff\xff",
        b"\xdf\xff\xff\xff\xff\xa1a\x01",
        b"\xdc\xff\xff\x01",
        b"\xde\xff\xff\xa1a\x01",
        b"\xda\xff\xffabc",
        b"\xc5\xff\xffabc",
        b"\xd9\xffabc",
        b"\xc4\xffabc",
        b"\xc9\xff\xff\xff\xff\x05",
        b"\x91\xdd\xff\xff\xff\xff",
        b"\x91" * 10 + b"\xdd\x7f\xff\xff\xff",
    ],
    ids=lambda b: b[:8].hex(),
)
def test_declared_length_beyond_input(data):
    start = time.perf_counter()
    _error(data)
    assert time.perf_counter() - start < 2.0, "declared length must be checked before allocating"


@pytest.mark.parametrize(
    "raw",
    [b"\xff", b"\x80", b"\xc3\x28", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe4\xb8", b"a\xe9b"],
    ids=lambda b: b.hex(),
)
def test_invalid_utf8_in_str_rejected(raw):
    _error(fixstr(raw))
    _error(str8(raw))
    _error(str32(raw))
    _error(str16(b"a" * 100 + raw + b"b" * 100))
    _error(fixmap([(fixstr(raw), b"\x01")]))
    _error(fixarray([fixstr(b"ok"), fixstr(raw)]))


# --------------------------------------------------------------------------------------
# Error offsets
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, offset",
    [
        # from the contract
        (b"\xc1", 0),
        (b"\x92\x01\xc1", 2),
        (b"\x01\x02", 1),
        # a container declaring more items than bytes remain is refused at its
        # header, before any item is read or anything allocated
        (b"\x92\x01", 0),
        (b"\x92\x01\x91", 2),
        (b"\x92\x01\x92\x01", 2),
        # same rule on other simple cases
        (b"", 0),
        (b"\x93\x01\x02\x03\x04", 4),
        (b"\x91\xc1", 1),
        (b"\x81\xa1a\xc1", 3),
        (b"\xcd\x01", 0),
        (b"\x91\xcd\x01", 1),
        (b"\xa3ab", 0),
        (b"\x92\x01\xa3ab", 2),
        (b"\x91\xd4\x01\x02", 1),
        (b"\x81\x01\x02", 1),
        (b"\x82\xa1a\x01\x02\x03", 4),
        (b"\x91\xa1\xff", 1),
    ],
    ids=lambda x: x.hex() if isinstance(x, bytes) else str(x),
)
def test_error_offset(data, offset):
    assert _error_offset(data) == offset


@pytest.mark.parametrize(
    "data",
    [
        b"\xc1",
        b"\x01\x02",
        b"\x92\x01",
        b"",
        b"\xd4\x01\x02",
        b"\x81\x01\x02",
        b"\xa1\xff",
        b"\xdd\xff\xff\xff\xff",
        b"\x91" * 1025 + b"\x90",
    ],
    ids=lambda b: b[:8].hex(),
)
def test_every_error_has_its_offset_and_ormsgpacks_message(data):
    offset = _error_offset(data)
    assert 0 <= offset <= len(data)
    message = str(_error(data))
    assert "at byte" not in message  # the offset is pos (and a note), the message ormsgpack's
    if data == b"\x01\x02":
        # A listed deviation: ormsgpack ignores what follows the value.
        assert message == "trailing data after the value"
        assert ormsgpack.unpackb(data) == 1
        return
    with pytest.raises(ValueError) as peer:
        ormsgpack.unpackb(data)
    assert message == str(peer.value)

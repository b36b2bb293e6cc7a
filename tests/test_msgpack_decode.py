"""orcodec.unpackb: every MessagePack family (minimal and non-minimal encodings), errors and
their byte offsets, limits and input types."""

from __future__ import annotations

import math
import re
import struct
import time

import msgpack
import orcodec
import pytest
from helpers import (
    INT_BOUNDARIES,
    array16,
    array32,
    assert_strict_equal,
    bin8,
    bin16,
    bin32,
    depth_of,
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
    """Decode from bytes, bytearray and memoryview; all three must agree exactly."""
    result = orcodec.unpackb(data)
    assert_strict_equal(orcodec.unpackb(bytearray(data)), result)
    assert_strict_equal(orcodec.unpackb(memoryview(data)), result)
    return result


def _error(data: bytes) -> orcodec.MsgpackDecodeError:
    for convert in (bytearray, memoryview):
        with pytest.raises(orcodec.MsgpackDecodeError):
            orcodec.unpackb(convert(data))
    with pytest.raises(orcodec.MsgpackDecodeError) as excinfo:
        orcodec.unpackb(data)
    return excinfo.value


def _error_offset(data: bytes) -> int:
    message = str(_error(data))
    match = re.search(r"at byte (\d+)$", message)
    assert match, f"message does not end with 'at byte N': {message!r}"
    return int(match.group(1))


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


@pytest.mark.parametrize("value", INT_BOUNDARIES, ids=str)
def test_int_boundaries_from_msgpack(value):
    assert_strict_equal(_decode(msgpack.packb(value)), value)


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


@pytest.mark.parametrize("n", [15, 16, 65535, 65536, 70000])
def test_long_array_and_map(n):
    items = list(range(n))
    assert_strict_equal(_decode(msgpack.packb(items)), items)
    d = {f"k{i}": i for i in range(n)}
    assert_strict_equal(_decode(msgpack.packb(d)), d)


def test_duplicate_map_keys_last_wins():
    data = fixmap([(fixstr(b"a"), b"\x01"), (fixstr(b"b"), b"\x02"), (fixstr(b"a"), b"\x03")])
    result = _decode(data)
    assert result == {"a": 3, "b": 2}


def test_map_key_order_preserved():
    data = fixmap([(fixstr(k.encode()), b"\x00") for k in ["z", "a", "m", ""]])
    assert list(_decode(data)) == ["z", "a", "m", ""]


def test_key_cache_same_object():
    a, b = orcodec.unpackb(orcodec.packb([{"key": 1}, {"key": 2}]))
    (k1,) = a
    (k2,) = b
    assert k1 == "key"
    assert k1 is k2
    a, b = orcodec.unpackb(msgpack.packb([{"key": 1}, {"key": 2}]))
    assert next(iter(a)) is next(iter(b))


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


def test_empty_input_rejected():
    _error(b"")


@pytest.mark.parametrize(
    "data",
    [b"\x01\x02", b"\xc0\xc0", b"\x90\x90", b"\x80\x00", b"\xa1a\x00", b"\x92\x01\x02\x03", b"\x01\xc1"],
    ids=lambda b: b.hex(),
)
def test_trailing_bytes_rejected(data):
    _error(data)


VALID_ENCODINGS = [
    msgpack.packb(
        {"key": [1, -200, 70000, 2**40, -(2**40), 1.5, None, True, "s" * 40, b"\x00" * 300]}, use_bin_type=True
    ),
    msgpack.packb([2**64 - 1, -(2**63), "\u00e9\u4e2d\U0001f600", {"a": {"b": []}}], use_bin_type=True),
    msgpack.packb("x" * 300),
    msgpack.packb(list(range(20))),
    msgpack.packb({f"k{i}": i for i in range(20)}),
    f32(1.5),
    f64(2.5),
    u64(1),
    i16(-1),
    str32(b"abc"),
    bin32(b"abc"),
    array32([b"\x01", b"\x02"]),
    map32([(fixstr(b"a"), b"\x01")]),
]


@pytest.mark.parametrize("data", VALID_ENCODINGS, ids=lambda b: b[:8].hex())
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


def test_str_input_rejected():
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpackb("\x01")
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpackb("")


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
def test_every_error_message_ends_with_offset(data):
    offset = _error_offset(data)
    assert 0 <= offset <= len(data)


# --------------------------------------------------------------------------------------
# Depth
# --------------------------------------------------------------------------------------


def _nested_arrays(depth: int, header: bytes = b"\x91") -> bytes:
    """``depth`` nested one-element arrays around an empty fixarray (depth counts all)."""
    return header * (depth - 1) + b"\x90"


def _nested_maps(depth: int) -> bytes:
    return b"\x81\xa1a" * (depth - 1) + b"\x80"


@pytest.mark.parametrize("depth", [1, 2, 100, 1023, 1024])
@pytest.mark.parametrize("kind", ["fixarray", "array16", "array32", "fixmap"])
def test_depth_within_limit(depth, kind):
    data = {
        "fixarray": lambda: _nested_arrays(depth),
        "array16": lambda: _nested_arrays(depth, b"\xdc\x00\x01"),
        "array32": lambda: _nested_arrays(depth, b"\xdd\x00\x00\x00\x01"),
        "fixmap": lambda: _nested_maps(depth),
    }[kind]()
    assert depth_of(_decode(data)) == depth


@pytest.mark.parametrize("depth", [1025, 1026, 100_000])
@pytest.mark.parametrize("kind", ["fixarray", "array32", "fixmap"])
def test_depth_beyond_limit(depth, kind):
    data = {
        "fixarray": lambda: _nested_arrays(depth),
        "array32": lambda: _nested_arrays(depth, b"\xdd\x00\x00\x00\x01"),
        "fixmap": lambda: _nested_maps(depth),
    }[kind]()
    _error(data)


def test_100000_array_headers_without_payload():
    _error(b"\x91" * 100_000)
    _error(b"\xdd\xff\xff\xff\xff" * 100_000)


def test_decoder_usable_after_depth_error():
    _error(_nested_arrays(1025))
    assert depth_of(orcodec.unpackb(_nested_arrays(1024))) == 1024


# --------------------------------------------------------------------------------------
# Input types
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("data", VALID_ENCODINGS, ids=lambda b: b[:8].hex())
def test_input_types_identical(data):
    expected = msgpack.unpackb(data, raw=False)
    result = _decode(data)
    assert_strict_equal(result, expected)


def test_memoryview_slice_input():
    buf = b"xx\x92\x01\xa1ayy"
    assert orcodec.unpackb(memoryview(buf)[2:6]) == [1, "a"]


@pytest.mark.parametrize("length", [63, 64, 65, 127, 128, 129, 200, 1000, 11 * 1024])
def test_long_str_values_every_position_of_one_non_ascii_char(length):
    # Long str values are built by copying while checking for ASCII; text
    # with a non-ASCII character anywhere must come out the same, and
    # invalid UTF-8 anywhere must still be refused.
    base = "".join(chr(0x20 + k % 90) for k in range(length))
    positions = sorted({0, 1, 15, 16, 17, 31, 32, 63, 64, 127, 128, length // 2, length - 2, length - 1})
    for at in (p for p in positions if p < length):
        for ch in ("é", "中", "😀"):
            text = base[:at] + ch + base[at + 1 :]
            packed = msgpack.packb([text, {"k": text}])
            assert orcodec.unpackb(packed) == [text, {"k": text}]
        raw = base.encode()
        for bad in (b"\xff", b"\xc3\x28", b"\xed\xa0\x80"):
            broken = raw[:at] + bad + raw[at + 1 :]
            _error(str32(broken))
            _error(fixarray([str32(broken), fixstr(b"ok")]))
    assert orcodec.unpackb(msgpack.packb(base)) == base
    assert orcodec.unpackb(msgpack.packb(base)).isascii()


# --- decoder stacks kept between calls ----------------------------------------


class Payload:
    """What the ext_hook returns: a weakly referenceable object."""

    def __init__(self, data):
        self.data = data


def test_kept_stacks_after_errors_nesting_and_large_documents():
    # The decoders keep their stacks between calls (decode.rs): a failed
    # decode must release what its unfinished containers held, a decode run
    # from inside another (ext_hook) must not share them, and a large
    # document must leave nothing behind for the next.
    import gc
    import weakref

    refs = []

    def hook(tag, data):
        obj = Payload(data)
        refs.append(weakref.ref(obj))
        return obj

    truncated = msgpack.packb([[msgpack.ExtType(1, b"x"), msgpack.ExtType(2, b"y")], "tail"])[:-2]
    for _ in range(3):
        with pytest.raises(orcodec.MsgpackDecodeError):
            orcodec.unpackb(truncated, ext_hook=hook)
        with pytest.raises(orcodec.JSONDecodeError):
            orcodec.loads(b'[[{"a": [1, 2, "x"]}, "y"], [3')
    gc.collect()
    assert refs and all(r() is None for r in refs)

    inner_doc = msgpack.packb({"inner": [1, 2, {"k": "v"}]})

    def nesting_hook(tag, data):
        # Decodes of both formats while the outer one is half done.
        return (orcodec.unpackb(inner_doc), orcodec.loads(b'{"j": [true, null]}'), bytes(data))

    outer = msgpack.packb([1, {"e": msgpack.ExtType(5, b"z")}, [2, 3]])
    expected = [1, {"e": ({"inner": [1, 2, {"k": "v"}]}, {"j": [True, None]}, b"z")}, [2, 3]]
    for _ in range(3):
        assert orcodec.unpackb(outer, ext_hook=nesting_hook) == expected

    big = [[i, str(i)] for i in range(200_000)]
    assert orcodec.unpackb(msgpack.packb(big)) == big
    assert orcodec.loads(orcodec.dumps(big)) == big
    assert orcodec.unpackb(msgpack.packb({"a": [1]})) == {"a": [1]}
    assert orcodec.loads(b'{"a": [1]}') == {"a": [1]}

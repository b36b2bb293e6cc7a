"""orcodec.packb: output bytes, compared with msgpack.packb(obj, use_bin_type=True) and with
hand-built encodings."""

from __future__ import annotations

import math
import struct

import msgpack
import orcodec
import pytest
from helpers import (
    CONTROL_CHARS,
    INT_BOUNDARIES,
    INTS_OUT_OF_RANGE,
    LONG_STRINGS,
    NON_FINITE_FLOATS,
    SPECIAL_FLOATS,
    STRING_KINDS,
    SURROGATE_STRINGS,
    MyDict,
    MyFloat,
    MyInt,
    MyList,
    MyStr,
    Unsupported,
    assert_strict_equal,
    blns_params,
    msgpack_header,
    random_doubles,
    require_blns,
    utf8_string,
)


def _reference(obj) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def _same_as_msgpack(obj) -> bytes:
    out = orcodec.packb(obj)
    assert type(out) is bytes
    assert out == _reference(obj)
    return out


# --------------------------------------------------------------------------------------
# Scalars
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj, expected",
    [
        (None, b"\xc0"),
        (False, b"\xc2"),
        (True, b"\xc3"),
        (0, b"\x00"),
        ("", b"\xa0"),
        ("a", b"\xa1a"),
        ([], b"\x90"),
        ((), b"\x90"),
        ({}, b"\x80"),
        (b"", b"\xc4\x00"),
        ([None, True, False], b"\x93\xc0\xc3\xc2"),
        ({"a": [1, -1]}, b"\x81\xa1a\x92\x01\xff"),
        ((1, (2,)), b"\x92\x01\x91\x02"),
        (1.5, b"\xcb" + struct.pack(">d", 1.5)),
    ],
    ids=repr,
)
def test_exact_bytes(obj, expected):
    assert orcodec.packb(obj) == expected
    assert _reference(obj) == expected


# Expected header for each integer boundary: the smallest encoding.
INT_ENCODINGS = [
    (0, b"\x00"),
    (127, b"\x7f"),
    (128, b"\xcc\x80"),
    (255, b"\xcc\xff"),
    (256, b"\xcd\x01\x00"),
    (65535, b"\xcd\xff\xff"),
    (65536, b"\xce\x00\x01\x00\x00"),
    (2**32 - 1, b"\xce\xff\xff\xff\xff"),
    (2**32, b"\xcf\x00\x00\x00\x01\x00\x00\x00\x00"),
    (2**63 - 1, b"\xcf\x7f\xff\xff\xff\xff\xff\xff\xff"),
    (2**63, b"\xcf\x80\x00\x00\x00\x00\x00\x00\x00"),
    (2**64 - 1, b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff"),
    (-1, b"\xff"),
    (-32, b"\xe0"),
    (-33, b"\xd0\xdf"),
    (-128, b"\xd0\x80"),
    (-129, b"\xd1\xff\x7f"),
    (-32768, b"\xd1\x80\x00"),
    (-32769, b"\xd2\xff\xff\x7f\xff"),
    (-(2**31), b"\xd2\x80\x00\x00\x00"),
    (-(2**31) - 1, b"\xd3\xff\xff\xff\xff\x7f\xff\xff\xff"),
    (-(2**63), b"\xd3\x80\x00\x00\x00\x00\x00\x00\x00"),
]


@pytest.mark.parametrize("value, expected", INT_ENCODINGS, ids=[str(v) for v, _ in INT_ENCODINGS])
def test_int_boundary_exact_bytes(value, expected):
    assert orcodec.packb(value) == expected
    assert _reference(value) == expected


@pytest.mark.parametrize("value", INT_BOUNDARIES, ids=str)
def test_int_boundaries_same_as_msgpack(value):
    _same_as_msgpack(value)
    _same_as_msgpack([value, {"k": value}])


def test_every_int_near_small_boundaries():
    values = list(range(-70000, 70000, 7)) + list(range(-300, 300))
    _same_as_msgpack(values)


@pytest.mark.parametrize("value", INTS_OUT_OF_RANGE, ids=str)
@pytest.mark.parametrize("wrap", ["bare", "list", "dict"])
def test_int_out_of_range(value, wrap):
    obj = {"bare": value, "list": [1, value], "dict": {"k": value}}[wrap]
    with pytest.raises(orcodec.MsgpackEncodeError) as excinfo:
        orcodec.packb(obj)
    assert str(excinfo.value) == "Integer exceeds 64-bit range"


# --------------------------------------------------------------------------------------
# Floats: always float64
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", SPECIAL_FLOATS + NON_FINITE_FLOATS, ids=repr)
def test_float_is_float64(value):
    out = _same_as_msgpack(value)
    assert out == b"\xcb" + struct.pack(">d", value)


def test_float_bit_patterns_preserved():
    patterns = [
        "7ff8000000000000",  # nan
        "fff8000000000000",  # -nan
        "7ff0000000000000",  # inf
        "fff0000000000000",  # -inf
        "8000000000000000",  # -0.0
        "0000000000000001",  # smallest subnormal
        "800fffffffffffff",
        "7fefffffffffffff",
    ]
    for hexbits in patterns:
        (value,) = struct.unpack(">d", bytes.fromhex(hexbits))
        assert orcodec.packb(value) == b"\xcb" + bytes.fromhex(hexbits) == _reference(value)


@pytest.mark.parametrize("seed", [1, 2])
def test_random_doubles_same_as_msgpack(seed):
    values = random_doubles(2000, seed)
    _same_as_msgpack(values)


# --------------------------------------------------------------------------------------
# str: lengths measured in UTF-8 bytes
# --------------------------------------------------------------------------------------

LENGTHS = [0, 1, 31, 32, 33, 255, 256, 65535, 65536, 70000]
STR_CHARS = ["a", "\u00e9", "\u4e2d", "\U0001f600"]


@pytest.mark.parametrize("nbytes", LENGTHS)
@pytest.mark.parametrize("char", STR_CHARS, ids=ascii)
def test_str_length_boundaries(nbytes, char):
    s = utf8_string(nbytes, char)
    encoded = s.encode("utf-8")
    out = _same_as_msgpack(s)
    assert out == msgpack_header("str", nbytes) + encoded
    _same_as_msgpack({s: [s]})


def test_str_31_32_bytes_of_multibyte_chars():
    # Strings whose *character* count is below 32 but whose UTF-8 length is not.
    for s in ["\u00e9" * 16, "\u4e2d" * 11, "\U0001f600" * 8, "\U0001f600" * 64, "\u4e2d" * 85, "\u4e2d" * 86]:
        n = len(s.encode("utf-8"))
        assert orcodec.packb(s) == msgpack_header("str", n) + s.encode("utf-8") == _reference(s)


@pytest.mark.parametrize("kind", STRING_KINDS)
def test_string_kinds_same_as_msgpack(kind):
    s = STRING_KINDS[kind]
    _same_as_msgpack(s)
    _same_as_msgpack([s, {s: s}])


@pytest.mark.parametrize("char", CONTROL_CHARS, ids=lambda c: f"U+{ord(c):04X}")
def test_control_characters_are_raw(char):
    assert orcodec.packb(char) == b"\xa1" + char.encode() == _reference(char)


@pytest.mark.parametrize("kind", LONG_STRINGS)
def test_long_strings_same_as_msgpack(kind):
    s = LONG_STRINGS[kind]
    _same_as_msgpack(s)
    _same_as_msgpack({s: s})


def test_every_bmp_code_point_same_as_msgpack():
    chars = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF)
    for start in range(0, len(chars), 4093):
        _same_as_msgpack(chars[start : start + 4093])


@pytest.mark.parametrize("s", blns_params())
def test_blns_same_as_msgpack(s):
    s = require_blns(s)
    _same_as_msgpack(s)
    out = _same_as_msgpack({s: [s]})
    assert_strict_equal(orcodec.unpackb(out), {s: [s]})


@pytest.mark.parametrize("s", SURROGATE_STRINGS, ids=ascii)
@pytest.mark.parametrize("where", ["bare", "list", "value", "key"])
def test_surrogates_rejected(s, where):
    obj = {"bare": s, "list": ["ok", s], "value": {"k": s}, "key": {s: 1}}[where]
    with pytest.raises(orcodec.MsgpackEncodeError) as excinfo:
        orcodec.packb(obj)
    assert str(excinfo.value) == "str is not valid UTF-8: surrogates not allowed"


# --------------------------------------------------------------------------------------
# bin
# --------------------------------------------------------------------------------------

BIN_LENGTHS = [0, 1, 31, 32, 255, 256, 65535, 65536, 70000]


@pytest.mark.parametrize("n", BIN_LENGTHS)
@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview"])
def test_bin_length_boundaries(n, kind):
    raw = bytes(i % 251 for i in range(n))
    obj = {"bytes": bytes, "bytearray": bytearray, "memoryview": memoryview}[kind](raw)
    out = _same_as_msgpack(obj)
    assert out == msgpack_header("bin", n) + raw
    _same_as_msgpack([obj, {"k": obj}])


def test_memoryview_slice():
    view = memoryview(b"0123456789")[2:7]
    assert orcodec.packb(view) == b"\xc4\x0523456" == _reference(view)


# --------------------------------------------------------------------------------------
# Arrays and maps
# --------------------------------------------------------------------------------------

CONTAINER_LENGTHS = [0, 1, 15, 16, 17, 255, 256, 65535, 65536, 70000]


@pytest.mark.parametrize("n", CONTAINER_LENGTHS)
@pytest.mark.parametrize("kind", ["list", "tuple"])
def test_array_length_boundaries(n, kind):
    items = [None] * n if kind == "list" else (None,) * n
    out = _same_as_msgpack(items)
    assert out == msgpack_header("array", n) + b"\xc0" * n


@pytest.mark.parametrize("n", CONTAINER_LENGTHS)
def test_map_length_boundaries(n):
    d = {f"{i:05x}": i % 100 for i in range(n)}
    out = _same_as_msgpack(d)
    assert out[: len(msgpack_header("map", n))] == msgpack_header("map", n)


def test_dict_preserves_insertion_order():
    d = {"z": 1, "a": 2, "\u00e9": 3}
    assert orcodec.packb(d) == b"\x83\xa1z\x01\xa1a\x02\xa2\xc3\xa9\x03"


def test_nested_document_same_as_msgpack():
    doc = {
        "id": 2**64 - 1,
        "neg": -(2**63),
        "f": [0.5, -0.0, 1e300, float("inf")],
        "users": [
            {"name": "\u00e9l\u00e8ve", "tags": ("a", "b\n", "\U0001f600"), "active": True, "n": None},
            {"name": "\u4e2d\u6587", "tags": [], "active": False, "blob": b"\x00\xff" * 40},
        ],
        "empty": {"list": [], "dict": {}, "str": "", "bin": b""},
        "nested": [[[[{"deep": [1, 2, 3]}]]]],
    }
    _same_as_msgpack(doc)


# --------------------------------------------------------------------------------------
# Subclasses
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj, base",
    [
        (MyStr("sub \u00e9"), "sub \u00e9"),
        (MyStr("x" * 40), "x" * 40),
        (MyInt(42), 42),
        (MyInt(2**64 - 1), 2**64 - 1),
        (MyInt(-(2**63)), -(2**63)),
        (MyFloat(1.5), 1.5),
        (MyFloat(-0.0), -0.0),
        (MyDict(a=1, b=[2]), {"a": 1, "b": [2]}),
        (MyList([1, "x", None]), [1, "x", None]),
        ([MyStr("a"), MyInt(1), MyDict(k=MyList([MyFloat(2.5)]))], ["a", 1, {"k": [2.5]}]),
    ],
    ids=lambda o: type(o).__name__,
)
def test_subclasses_like_base_type(obj, base):
    assert orcodec.packb(obj) == orcodec.packb(base) == _reference(base)


def test_float_subclass_nan():
    out = orcodec.packb(MyFloat("nan"))
    assert out[:1] == b"\xcb"
    assert math.isnan(struct.unpack(">d", out[1:])[0])


def test_int_subclass_out_of_range():
    with pytest.raises(orcodec.MsgpackEncodeError) as excinfo:
        orcodec.packb(MyInt(-(2**63) - 1))
    assert str(excinfo.value) == "Integer exceeds 64-bit range"


# --------------------------------------------------------------------------------------
# Unsupported types and keys
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj, type_name",
    [
        ({1, 2}, "set"),
        (frozenset(), "frozenset"),
        (1j, "complex"),
        (object(), "object"),
        (Unsupported(), "Unsupported"),
        (Unsupported, "type"),
        (len, "builtin_function_or_method"),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
@pytest.mark.parametrize("wrap", ["bare", "list", "dict"])
def test_unsupported_type(obj, type_name, wrap):
    doc = {"bare": obj, "list": [1, obj], "dict": {"k": obj}}[wrap]
    with pytest.raises(orcodec.MsgpackEncodeError) as excinfo:
        orcodec.packb(doc)
    assert str(excinfo.value) == f"Type is not MessagePack serializable: {type_name}"


@pytest.mark.parametrize(
    "key",
    [1, 0, -1, 1.5, None, True, False, b"k", (1, 2), MyInt(3), frozenset()],
    ids=repr,
)
def test_non_str_key(key):
    with pytest.raises(orcodec.MsgpackEncodeError) as excinfo:
        orcodec.packb({key: 1})
    assert str(excinfo.value) == "Dict key must be str"
    with pytest.raises(orcodec.MsgpackEncodeError) as excinfo:
        orcodec.packb([{"ok": {"a": 1, key: 2}}])
    assert str(excinfo.value) == "Dict key must be str"


def test_bytes_do_not_go_to_default():
    def default(obj):  # pragma: no cover - must not be called
        raise AssertionError(f"default called for {obj!r}")

    assert (
        orcodec.packb([b"a", bytearray(b"b"), memoryview(b"c")], default=default) == b"\x93\xc4\x01a\xc4\x01b\xc4\x01c"
    )


def test_output_size_hint_across_calls():
    # packb starts each buffer at the previous output's size: outputs of
    # very different sizes in any order must still be exact and exactly sized.
    docs = [
        {"k": "x" * 40_000},
        1,
        ["é" * 300] * 50,
        {},
        "a" * 2_000_000,
        [1.5] * 10,
        {"k": "x" * 40_000},
        b"\x00" * 600,
    ]
    for _ in range(2):
        for doc in docs:
            out = orcodec.packb(doc)
            assert out == msgpack.packb(doc, use_bin_type=True)

"""orcodec.dumps: output bytes, compared with orjson and with hand-written expectations."""

from __future__ import annotations

import struct

import orcodec
import orjson
import pytest
from helpers import (
    CONTROL_CHARS,
    INT_BOUNDARIES,
    INTS_OUT_OF_RANGE,
    LONG_STRINGS,
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
    random_doubles,
    require_blns,
)


def _same_as_orjson(obj) -> bytes:
    out = orcodec.dumps(obj)
    assert type(out) is bytes
    assert out == orjson.dumps(obj)
    return out


# --------------------------------------------------------------------------------------
# Scalars
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj, expected",
    [
        (None, b"null"),
        (True, b"true"),
        (False, b"false"),
        (0, b"0"),
        (-1, b"-1"),
        ("", b'""'),
        ("a", b'"a"'),
        ([], b"[]"),
        ({}, b"{}"),
        ((), b"[]"),
        ([None, True, False], b"[null,true,false]"),
        ({"a": 1}, b'{"a":1}'),
        ({"a": [1, {"b": None}]}, b'{"a":[1,{"b":null}]}'),
        ((1, (2, 3)), b"[1,[2,3]]"),
    ],
    ids=repr,
)
def test_exact_bytes(obj, expected):
    assert orcodec.dumps(obj) == expected
    assert orjson.dumps(obj) == expected


@pytest.mark.parametrize("value", INT_BOUNDARIES, ids=str)
def test_int_boundaries(value):
    assert orcodec.dumps(value) == str(value).encode() == orjson.dumps(value)
    _same_as_orjson([value, {"k": value}])


@pytest.mark.parametrize("value", INTS_OUT_OF_RANGE, ids=str)
@pytest.mark.parametrize("wrap", ["bare", "list", "dict"])
def test_int_out_of_range(value, wrap):
    obj = {"bare": value, "list": [1, value], "dict": {"k": value}}[wrap]
    with pytest.raises(orcodec.JSONEncodeError) as excinfo:
        orcodec.dumps(obj)
    assert str(excinfo.value) == "Integer exceeds 64-bit range"


def test_bool_is_not_int():
    assert orcodec.dumps([True, 1, False, 0]) == b"[true,1,false,0]"


# --------------------------------------------------------------------------------------
# Floats
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [
        (0.0, b"0.0"),
        (-0.0, b"-0.0"),
        (1.0, b"1.0"),
        (0.1, b"0.1"),
        (100.0, b"100.0"),
        (1.5, b"1.5"),
        (1e16, b"1e+16"),
        (1e-7, b"1e-7"),
        (5e-324, b"5e-324"),
        (1.7976931348623157e308, b"1.7976931348623157e+308"),
        (-1.7976931348623157e308, b"-1.7976931348623157e+308"),
        (float("nan"), b"null"),
        (float("inf"), b"null"),
        (float("-inf"), b"null"),
    ],
    ids=repr,
)
def test_float_exact_text(value, expected):
    assert orcodec.dumps(value) == expected
    assert orjson.dumps(value) == expected


@pytest.mark.parametrize("value", SPECIAL_FLOATS, ids=repr)
def test_float_same_text_as_orjson(value):
    out = _same_as_orjson(value)
    assert_strict_equal(orcodec.loads(out), value)
    assert_strict_equal(orjson.loads(out), value)


def test_special_floats_list_same_as_orjson():
    values = SPECIAL_FLOATS + [-x for x in SPECIAL_FLOATS]
    out = _same_as_orjson(values)
    assert_strict_equal(orcodec.loads(out), values)


def test_non_finite_floats_become_null():
    values = [float("nan"), float("inf"), float("-inf"), 1.0]
    assert orcodec.dumps(values) == b"[null,null,null,1.0]" == orjson.dumps(values)
    assert orcodec.dumps({"nan": float("nan")}) == b'{"nan":null}'


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_doubles_same_text_as_orjson(seed):
    values = random_doubles(1500, seed)
    ours = orcodec.dumps(values)
    if ours != orjson.dumps(values):
        for x in values:
            assert orcodec.dumps(x) == orjson.dumps(x), f"{x!r} ({struct.pack('>d', x).hex()})"
    assert ours == orjson.dumps(values)
    assert_strict_equal(orcodec.loads(ours), values)
    assert_strict_equal(orjson.loads(ours), values)


@pytest.mark.parametrize("seed", [4, 5])
def test_random_doubles_short_decimal_text_as_orjson(seed):
    # Doubles that are short decimals (the common case in real data).
    import random

    rng = random.Random(seed)
    values = [round(rng.uniform(-1e6, 1e6), rng.randint(0, 8)) for _ in range(2000)]
    values += [rng.randint(-(10**9), 10**9) / 10 ** rng.randint(0, 20) for _ in range(2000)]
    assert orcodec.dumps(values) == orjson.dumps(values)


# --------------------------------------------------------------------------------------
# Strings
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", STRING_KINDS)
def test_string_kinds_same_as_orjson(kind):
    s = STRING_KINDS[kind]
    _same_as_orjson(s)
    _same_as_orjson([s, {s: s}])


@pytest.mark.parametrize("char", CONTROL_CHARS, ids=lambda c: f"U+{ord(c):04X}")
def test_control_characters(char):
    out = _same_as_orjson(char)
    expected_escape = {
        "\b": b"\\b",
        "\t": b"\\t",
        "\n": b"\\n",
        "\f": b"\\f",
        "\r": b"\\r",
        "\x7f": b"\x7f",
    }.get(char, b"\\u%04x" % ord(char))
    assert out == b'"' + expected_escape + b'"'
    _same_as_orjson({f"k{char}": f"v{char}v"})


@pytest.mark.parametrize(
    "s, expected",
    [
        ('"', b'"\\""'),
        ("\\", b'"\\\\"'),
        ("/", b'"/"'),
        ("\u2028\u2029", '"\u2028\u2029"'.encode()),
        ("\u00e9", '"\u00e9"'.encode()),
        ("\U0001f600", b'"\xf0\x9f\x98\x80"'),
        ("\U0010ffff", b'"\xf4\x8f\xbf\xbf"'),
        ("\uffff", b'"\xef\xbf\xbf"'),
        ("\x00", b'"\\u0000"'),
        ("\x1f", b'"\\u001f"'),
    ],
    ids=repr,
)
def test_string_escapes_exact(s, expected):
    assert orcodec.dumps(s) == expected
    assert orjson.dumps(s) == expected


def test_every_bmp_code_point_same_as_orjson():
    # All non-surrogate BMP code points, in chunks so that mistakes at chunk boundaries
    # inside the encoder's fast paths show up too.
    chars = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF)
    for start in range(0, len(chars), 4093):
        _same_as_orjson(chars[start : start + 4093])


def test_sampled_astral_code_points_same_as_orjson():
    s = "".join(chr(c) for c in range(0x10000, 0x110000, 97))
    _same_as_orjson(s)


@pytest.mark.parametrize("kind", LONG_STRINGS)
def test_long_strings_same_as_orjson(kind):
    s = LONG_STRINGS[kind]
    _same_as_orjson(s)
    _same_as_orjson([s, s])
    _same_as_orjson({s: s})


@pytest.mark.parametrize("length", [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 4096])
@pytest.mark.parametrize("filler", ["a", "\u00e9", "\u4e2d", "\U0001f600"])
def test_escape_at_every_position_of_short_strings(length, filler):
    # An escaped character before, inside and after runs of various lengths.
    for special in ['"', "\\", "\n", "\x00"]:
        _same_as_orjson(special + filler * length)
        _same_as_orjson(filler * length + special)
        _same_as_orjson(filler * (length // 2) + special + filler * (length - length // 2))


@pytest.mark.parametrize("s", blns_params())
def test_blns_same_as_orjson(s):
    s = require_blns(s)
    _same_as_orjson(s)
    out = _same_as_orjson({s: [s]})
    assert_strict_equal(orcodec.loads(out), {s: [s]})


@pytest.mark.parametrize("s", SURROGATE_STRINGS, ids=ascii)
@pytest.mark.parametrize("where", ["bare", "list", "value", "key"])
def test_surrogates_rejected(s, where):
    obj = {"bare": s, "list": ["ok", s], "value": {"k": s}, "key": {s: 1}}[where]
    with pytest.raises(orcodec.JSONEncodeError) as excinfo:
        orcodec.dumps(obj)
    assert str(excinfo.value) == "str is not valid UTF-8: surrogates not allowed"


# --------------------------------------------------------------------------------------
# Containers
# --------------------------------------------------------------------------------------


def test_dict_preserves_insertion_order():
    d = {"z": 1, "a": 2, "m": 3, "\u00e9": 4, "": 5}
    assert orcodec.dumps(d) == b'{"z":1,"a":2,"m":3,"\xc3\xa9":4,"":5}'
    _same_as_orjson(d)


@pytest.mark.parametrize("length", [0, 1, 15, 16, 100, 65536])
def test_long_containers_same_as_orjson(length):
    _same_as_orjson(list(range(length)))
    _same_as_orjson(tuple(range(length)))
    _same_as_orjson({f"k{i}": i for i in range(length)})


def test_tuple_same_as_list():
    assert orcodec.dumps((1, "a", (None,), [()])) == orcodec.dumps([1, "a", [None], [[]]])


def test_document_without_floats_same_as_orjson():
    doc = {
        "id": 2**63 - 1,
        "neg": -(2**63),
        "users": [
            {"name": "\u00e9l\u00e8ve", "tags": ["a", "b\n", "\U0001f600"], "active": True, "n": None},
            {"name": "\u4e2d\u6587", "tags": [], "active": False, "n": 0},
        ],
        "empty": {"list": [], "dict": {}, "str": ""},
        "nested": [[[[{"deep": [1, 2, 3]}]]]],
    }
    _same_as_orjson(doc)


# --------------------------------------------------------------------------------------
# Subclasses
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj, base",
    [
        (MyStr("sub \u00e9"), "sub \u00e9"),
        (MyInt(42), 42),
        (MyInt(2**64 - 1), 2**64 - 1),
        (MyInt(-(2**63)), -(2**63)),
        (MyFloat(1.5), 1.5),
        (MyFloat(-0.0), -0.0),
        (MyFloat("nan"), float("nan")),
        (MyDict(a=1, b=[2]), {"a": 1, "b": [2]}),
        (MyList([1, "x", None]), [1, "x", None]),
        ([MyStr("a"), MyInt(1), MyDict(k=MyList([MyFloat(2.5)]))], ["a", 1, {"k": [2.5]}]),
    ],
    ids=lambda o: type(o).__name__,
)
def test_subclasses_like_base_type(obj, base):
    assert orcodec.dumps(obj) == orcodec.dumps(base) == orjson.dumps(base)


def test_int_subclass_out_of_range():
    with pytest.raises(orcodec.JSONEncodeError) as excinfo:
        orcodec.dumps(MyInt(2**64))
    assert str(excinfo.value) == "Integer exceeds 64-bit range"


# --------------------------------------------------------------------------------------
# Unsupported types and keys
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj, type_name",
    [
        (b"bytes", "bytes"),
        (b"", "bytes"),
        (bytearray(b"x"), "bytearray"),
        (memoryview(b"x"), "memoryview"),
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
    with pytest.raises(orcodec.JSONEncodeError) as excinfo:
        orcodec.dumps(doc)
    assert str(excinfo.value) == f"Type is not JSON serializable: {type_name}"


@pytest.mark.parametrize(
    "key",
    [1, 0, -1, 1.5, None, True, False, b"k", (1, 2), MyInt(3), frozenset()],
    ids=repr,
)
def test_non_str_key(key):
    with pytest.raises(orcodec.JSONEncodeError) as excinfo:
        orcodec.dumps({key: 1})
    assert str(excinfo.value) == "Dict key must be str"
    with pytest.raises(orcodec.JSONEncodeError) as excinfo:
        orcodec.dumps([{"ok": {"a": 1, key: 2}}])
    assert str(excinfo.value) == "Dict key must be str"


@pytest.mark.parametrize("obj", [b"abc", bytearray(b"abc"), memoryview(b"abc")], ids=lambda o: type(o).__name__)
def test_bytes_go_to_default(obj):
    calls = []

    def default(o):
        calls.append(o)
        return bytes(o).decode()

    assert orcodec.dumps({"b": obj}, default=default) == b'{"b":"abc"}'
    assert calls == [obj]


def test_output_size_hint_across_calls():
    # dumps starts each buffer at the previous output's size (and grows
    # eight-fold): outputs of very different sizes in any order, with and
    # without indentation, must still be exact.
    docs = [
        {"k": "x" * 40_000},
        1,
        ["é" * 300] * 50,
        {},
        "a" * 2_000_000,
        [1.5] * 10,
        {"k": "x" * 40_000, "n": list(range(5000))},
        ['a"b\\c\n' * 30] * 200,
    ]
    for _ in range(2):
        for doc in docs:
            for option in (None, orjson.OPT_INDENT_2):
                assert orcodec.dumps(doc, option=option) == orjson.dumps(doc, option=option)


@pytest.mark.parametrize(
    "doc", [["a" * 20_000] * 200, {"text": "b" * 11_000}, ["c" * 600]], ids=["4MB", "11KB", "600B"]
)
def test_large_output_is_an_ordinary_bytes_object(doc):
    # Outputs past pymalloc's sizes (512 bytes) keep spare capacity past
    # their end (see BytesSink::finish): the object must still say its
    # length, end in a NUL, hash and compare like any other bytes, for both
    # formats.
    import ctypes

    import msgpack

    data_offset = bytes.__basicsize__ - 1  # where ob_sval starts
    for _ in range(3):  # later calls start from the size hint
        for out, expected in ((orcodec.dumps(doc), orjson.dumps(doc)), (orcodec.packb(doc), msgpack.packb(doc))):
            assert len(out) == len(expected) > 512
            assert out == expected and hash(out) == hash(bytes(bytearray(expected)))
            assert ctypes.string_at(id(out) + data_offset + len(out), 1) == b"\0"
            assert out + b"x" == expected + b"x"

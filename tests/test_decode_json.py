"""orcodec.loads: values, number and string grammar, errors and their positions, limits."""

from __future__ import annotations

import gc
import json
import math
import random
import sys
import tracemalloc

import orcodec
import orjson
import pytest
from helpers import (
    JSON,
    assert_strict_equal,
    random_doubles,
)


def _error(data) -> orcodec.JSONDecodeError:
    with pytest.raises(orcodec.JSONDecodeError) as excinfo:
        orcodec.loads(data)
    return excinfo.value


# --------------------------------------------------------------------------------------
# Scalars and structure
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("null", None),
        ("true", True),
        ("false", False),
        ("0", 0),
        ("-0", 0),
        ("1", 1),
        ("-1", -1),
        ("0.0", 0.0),
        ("-0.0", -0.0),
        ("1.0", 1.0),
        ("1e2", 100.0),
        ("1E2", 100.0),
        ("1e+2", 100.0),
        ("1e-2", 0.01),
        ("-1.5E-3", -0.0015),
        ("0e0", 0.0),
        ("0.5", 0.5),
        ('""', ""),
        ('"a"', "a"),
        ("[]", []),
        ("{}", {}),
        ("[1,[2,[3]]]", [1, [2, [3]]]),
        ('{"a":{"b":[null,true,false]}}', {"a": {"b": [None, True, False]}}),
        (" \t\r\n[ \t\r\n1 \t\r\n, \t\r\n2 \t\r\n] \t\r\n", [1, 2]),
        ('{ "a" : 1 , "b" : [ ] }', {"a": 1, "b": []}),
    ],
    ids=repr,
)
def test_values(text, expected):
    assert_strict_equal(orcodec.loads(text.encode()), expected)
    assert_strict_equal(orcodec.loads(text), expected)


@pytest.mark.parametrize(
    "text",
    [
        "18446744073709551616",
        "18446744073709551617",
        "-9223372036854775809",
        "-18446744073709551615",
        "100000000000000000000",
        "123456789012345678901234567890",
        "-123123123123123123123123123123",
        "-237462374673276894279832749832423479823246327846",
        "1" + "0" * 300,
    ],
)
def test_ints_beyond_64_bits_become_float(text):
    result = orcodec.loads(text)
    assert type(result) is float
    assert result == float(text) == orjson.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        "0.1",
        "1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203124",
        "1.00000000000000011102230246251565404236316680908203126",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "4.9406564584124654e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "9007199254740993.0",
        "9007199254740993e0",
        "0.000000000000000000000000000000000000000000001",
        "123456789012345678901234567890.5",
        "3.14159265358979323846264338327950288419716939937510",
        "1e-320",
        "7.038531e-26",
        "1.000000000000000005",
        "1000000000000000000000000000000000000000e-40",
        "0." + "0" * 400 + "1e400",
    ],
)
def test_float_parsing_is_correctly_rounded(text):
    assert_strict_equal(orcodec.loads(text), float(text))
    assert_strict_equal(orcodec.loads(f"[-{text}]"), [-float(text)])


PRICES = b"[" + b",".join(b"%d.25" % i for i in range(5000)) + b"]"


@pytest.mark.parametrize(
    "decode",
    [
        orcodec.loads,
        lambda text: orcodec.loads(text, type=list[float]),
        lambda text: orcodec.unpackb(orcodec.packb(json.loads(text))),
    ],
    ids=["loads", "typed", "unpackb"],
)
def test_decoded_floats_are_ordinary_floats(decode):
    # Some interpreter versions get their floats written in place by the
    # decoder: they are floats like any other, counted, freed and traced by
    # tracemalloc as the interpreter's own are.
    values = decode(PRICES)
    assert values == [i + 0.25 for i in range(5000)]
    assert {type(v) for v in values} == {float}
    # The list's reference and getrefcount's argument.
    assert [sys.getrefcount(values[i]) for i in range(3)] == [2, 2, 2]
    assert hash(values[7]) == hash(7.25)
    del values
    gc.collect()
    blocks = sys.getallocatedblocks()
    for _ in range(50):
        decode(PRICES)
    gc.collect()
    assert sys.getallocatedblocks() - blocks < 100
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        values = decode(PRICES)
        traced = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # 5000 floats of 24 bytes and the list's 40,000-byte item array, at least,
    # held by the result.
    assert traced >= 5000 * 24 + 40_000, traced
    assert len(values) == 5000


MILLION_ZEROS = "0" * 10**6


def _loads_like_float(text):
    """loads(text) is float(text), correctly rounded; beyond the doubles, where float()
    gives inf, it is orjson's error instead."""
    if math.isinf(float(text)):
        with pytest.raises(orcodec.JSONDecodeError) as info:
            orcodec.loads(text)
        assert (info.value.msg, info.value.pos) == ("number is infinity when parsed as double", 0)
    else:
        assert_strict_equal(orcodec.loads(text), float(text))


@pytest.mark.parametrize(
    "text",
    [
        # Both exactly 1.0: the standard library's parser alone gives inf and 0.0.
        "1" + MILLION_ZEROS + "e-1000000",
        "0." + MILLION_ZEROS + "1e1000001",
        # 2**53 + 1, a tie (to even), and a digit a million places on that breaks it.
        "9007199254740993." + MILLION_ZEROS,
        "9007199254740993." + MILLION_ZEROS + "1",
        "1" + MILLION_ZEROS,
        "0." + MILLION_ZEROS + "1",
        "0." + MILLION_ZEROS,
        "12.5" + MILLION_ZEROS + "e-" + "0" * 1000 + "1000000",
        "1" + MILLION_ZEROS + "e-99999999999999999999999999",
        "2.2250738585072011" + MILLION_ZEROS + "e-308",
        "4.9406564584124654" + "1" * 10**6 + "e-324",
    ],
    ids=lambda t: f"{t[:12]}...{t[-14:]}",
)
def test_very_long_numbers_are_correctly_rounded(text):
    # At any length, like Python's float() and orjson: 655 360 digits and
    # more once went to inf or 0.0.
    _loads_like_float(text)
    if not math.isinf(float(text)):
        assert_strict_equal(orcodec.loads(f"[-{text},1]"), [-float(text), 1])
    if "e" in text or "." in text:
        assert_strict_equal(orjson.loads(text), float(text))


def test_very_long_random_numbers_are_correctly_rounded():
    rng = random.Random(1515)
    for _ in range(20):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.choice([20, 800, 5000])))
        padding = "0" * rng.choice([0, 700_000])
        exponent = rng.randrange(-340, 330) - len(padding)
        text = f"{padding}{digits}{padding}e{exponent}".lstrip("0") or "0"
        if not text[0].isdigit():
            text = "0" + text
        _loads_like_float(text)


@pytest.mark.parametrize("seed", [11, 12])
def test_random_doubles_parse_exactly(seed):
    values = random_doubles(2000, seed)
    assert_strict_equal(orcodec.loads("[" + ",".join(map(repr, values)) + "]"), values)
    # 17 significant digits, and exponent forms.
    text = "[" + ",".join(f"{v:.16e}" for v in values) + "]"
    assert_strict_equal(orcodec.loads(text), values)


@pytest.mark.parametrize(
    "text",
    [
        "01",
        "-01",
        "00",
        "+1",
        "-",
        ".5",
        "-.5",
        "1.",
        "1.e5",
        "1e",
        "1e+",
        "1E-",
        "1ee2",
        "0x10",
        "1_000",
        "NaN",
        "nan",
        "-NaN",
        "Infinity",
        "-Infinity",
        "inf",
        "--1",
        "1.5.2",
        "\uff11",
        "-\u0031\u0032a",
        "1e5.0",
        "2.e3",
        "0e+-1",
        "- 1",
        "1 .5",
    ],
    ids=ascii,
)
def test_invalid_numbers(text):
    JSON.refuses_every_input(text.encode())
    JSON.refuses_every_input(f"[{text}]".encode())


# Arrays of numbers are read in one run (a comma, optional whitespace, the
# next number) that builds the array itself when `]` follows the last number
# and hands anything else back to the general loop from the comma.
NUMBER_RUNS = [
    "[1,2]",
    "[1.5,-2.25e3]",
    "[[1,2],[3,4]]",
    "[1, 2,\n\t3 , 4]",
    "[1,2 ]",
    "[1 ,2]",
    '[1,"a",2]',
    "[1,[2,3],4]",
    "[1,{},2]",
    '{"a":[1,2],"b":3}',
    '{"a":1,"b":[2]}',
    "[[],1,2]",
    "[1,true,null,2.5]",
    "[-0,0.0,-0.0]",
    "[18446744073709551615,-9223372036854775808]",
    "[1e308,-1e308]",
    "[123456789012345678901234567890,1]",
    " [ 7 , 8 ] ",
    "[[[0]]]",
]


@pytest.mark.parametrize("text", NUMBER_RUNS, ids=ascii)
def test_number_runs_agree_with_stdlib(text):
    # Ints beyond 64 bits are floats, as in orjson.
    assert_strict_equal(orcodec.loads(text), json.loads(text), big_int_as_float=True)


@pytest.mark.parametrize(
    "text, pos",
    [
        ("[1,2,]", 4),
        ("[1, 2 ,]", 6),
        ("[1,2,x]", 5),
        # orjson's positions: the sign without a digit, the missing fraction digit.
        ("[1,-]", 4),
        ("[1,2.]", 5),
        ("[1,2", 4),
        ("[1,2}", 4),
        ("[[1,2]]]", 7),
        ("[1,2,,3]", 5),
        ('{"a":1,2}', 7),
    ],
    ids=ascii,
)
def test_number_run_errors(text, pos):
    assert _error(text).pos == pos
    with pytest.raises(orjson.JSONDecodeError) as theirs:
        orjson.loads(text)
    assert theirs.value.pos == pos


def test_long_number_runs_agree_with_stdlib():
    rng = random.Random(7)
    values = [
        rng.choice([rng.randrange(-(10**20), 10**20), rng.uniform(-1e6, 1e6), rng.randrange(0, 300)])
        for _ in range(5000)
    ]
    for separator in [",", ", ", ",\n  "]:
        text = "[" + separator.join(map(repr, values)) + "]"
        assert_strict_equal(orcodec.loads(text), json.loads(text), big_int_as_float=True)
        nested = "[" + separator.join(f"[{a!r},{b!r}]" for a, b in zip(values, values[1:])) + "]"
        assert_strict_equal(orcodec.loads(nested), json.loads(nested), big_int_as_float=True)


@pytest.mark.parametrize(
    "text",
    [
        "nul",
        "tru",
        "fals",
        "True",
        "False",
        "NULL",
        "None",
        "nulll",
        "truefalse",
        "[",
        "]",
        "{",
        "}",
        "[1,]",
        "[,1]",
        "[1,,2]",
        "[1 2]",
        "[1:2]",
        "{1:2}",
        "{'a':1}",
        '{"a"}',
        '{"a":}',
        '{"a" 1}',
        '{"a":1,}',
        '{,"a":1}',
        '{"a":1 "b":2}',
        '{"a"::1}',
        '{"a":1]',
        "[1}",
        '["a"',
        '"abc',
        "'abc'",
        "[/*c*/1]",
        "[1]//",
        "#",
        "@",
        "[\x00]",
        "\x00",
        "[1]\x00",
        '{"a":1}}',
        "[[1]",
        '"\\',
        "[true false]",
    ],
    ids=ascii,
)
def test_invalid_structure(text):
    JSON.refuses_every_input(text.encode())


@pytest.mark.parametrize("ws", ["\f", "\v", "\u00a0", "\u2028", "\u3000", "\ufeff", "\x85"], ids=ascii)
def test_only_rfc_whitespace_allowed(ws):
    JSON.refuses_every_input(f"[1,{ws}2]".encode())
    JSON.refuses_every_input(f"[1{ws}]".encode())
    JSON.refuses_every_input(f"1{ws}".encode())
    if ws != "\ufeff":  # a leading byte order mark may be ignored (RFC 8259 section 8.1)
        JSON.refuses_every_input(f"{ws}1".encode())


@pytest.mark.parametrize("text", ["[1] ", "[1]\n", "[1]\r\n\t  ", "1\n", '"x"\t'])
def test_trailing_whitespace_ok(text):
    assert orcodec.loads(text) == orcodec.loads(text.strip())


# --------------------------------------------------------------------------------------
# Strings
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        (r'"\""', '"'),
        (r'"\\"', "\\"),
        (r'"\/"', "/"),
        (r'"\b\f\n\r\t"', "\b\f\n\r\t"),
        (r'"\u0000"', "\x00"),
        (r'"\u001f\u007F"', "\x1f\x7f"),
        (r'"\u00e9\u00E9"', "\u00e9\u00e9"),
        (r'"\u4e2D"', "\u4e2d"),
        (r'"\uFFFF"', "\uffff"),
        (r'"\u2028"', "\u2028"),
        (r'"\ud83d\ude00"', "\U0001f600"),
        (r'"\uD83D\uDE00"', "\U0001f600"),
        (r'"\udbff\udfff"', "\U0010ffff"),
        (r'"\ud800\udc00"', "\U00010000"),
        (r'"a\u0041b\\c\"d"', 'aAb\\c"d'),
        ('"\x7f"', "\x7f"),
        ('"/"', "/"),
        ('"\u00e9\u4e2d\U0001f600\U0010ffff"', "\u00e9\u4e2d\U0001f600\U0010ffff"),
        ('"\u2028\u2029"', "\u2028\u2029"),
    ],
    ids=ascii,
)
def test_string_values(text, expected):
    assert_strict_equal(orcodec.loads(text.encode("utf-8")), expected)
    assert_strict_equal(orcodec.loads(text), expected)
    assert_strict_equal(orcodec.loads(f"{{{text}:[{text}]}}"), {expected: [expected]})


@pytest.mark.parametrize("code", list(range(0x20)), ids=lambda c: f"U+{c:04X}")
def test_raw_control_characters_rejected_in_strings(code):
    JSON.refuses_every_input(b'"a' + bytes([code]) + b'b"')
    JSON.refuses_every_input(b'{"k' + bytes([code]) + b'":1}')


@pytest.mark.parametrize("code", list(range(0x20)), ids=lambda c: f"U+{c:04X}")
def test_escaped_control_characters(code):
    assert orcodec.loads(b'"\\u%04x"' % code) == chr(code)
    assert orcodec.loads(b'"\\u%04X"' % code) == chr(code)


@pytest.mark.parametrize(
    "escape",
    [
        r"\a",
        r"\x41",
        r"\'",
        r"\0",
        r"\U0041",
        r"\u",
        r"\u1",
        r"\u12",
        r"\u123",
        r"\u12g4",
        r"\uXXXX",
        r"\ ",
        "\\\n",
        "\\\t",
        r"\e",
        r"\v",
        r"\N",
    ],
    ids=ascii,
)
def test_invalid_escapes(escape):
    JSON.refuses_every_input(f'"{escape}"'.encode())
    JSON.refuses_every_input(f'["a{escape}z"]'.encode())  # z: not a hex digit


@pytest.mark.parametrize(
    "escape",
    [
        r"\ud800",
        r"\udbff",
        r"\udc00",
        r"\udfff",
        r"\ud800x",
        r"\ud800\n",
        r"\ud800\u0041",
        r"\ud800\ud800",
        r"\udc00\ud800",
        r"\ude00\ud83d",
        r"\ud83d\u",
        r"\ud83d\ude0",
        r"\ud83d\\ude00",
    ],
    ids=ascii,
)
def test_lone_surrogate_escapes_rejected(escape):
    JSON.refuses_every_input(f'"{escape}"'.encode())
    JSON.refuses_every_input(f'{{"{escape}":1}}'.encode())


@pytest.mark.parametrize(
    "raw",
    [
        b"\xff",
        b"\xfe",
        b"\x80",
        b"\xbf",
        b"\xc0\x80",  # overlong NUL
        b"\xc0\xaf",  # overlong '/'
        b"\xc1\xbf",
        b"\xe0\x80\xaf",  # overlong 3-byte
        b"\xf0\x80\x80\xaf",  # overlong 4-byte
        b"\xed\xa0\x80",  # encoded surrogate U+D800
        b"\xed\xbf\xbf",  # encoded surrogate U+DFFF
        b"\xed\xa0\xbd\xed\xb8\x80",  # CESU-8 style pair
        b"\xf4\x90\x80\x80",  # U+110000
        b"\xf5\x80\x80\x80",
        b"\xf8\x88\x80\x80\x80",
        b"\xfc\x84\x80\x80\x80\x80",
        b"\xc3",  # truncated 2-byte
        b"\xe4\xb8",  # truncated 3-byte
        b"\xf0\x9f\x98",  # truncated 4-byte
        b"\xc3\x28",
        b"\xe2\x28\xa1",
        b"\xf0\x28\x8c\x28",
        b"\xe9",  # latin-1
    ],
    ids=lambda b: b.hex(),
)
@pytest.mark.parametrize("where", ["value", "key", "long_value", "outside"])
def test_invalid_utf8_rejected(raw, where):
    doc = {
        "value": b'["' + raw + b'"]',
        "key": b'{"' + raw + b'":1}',
        "long_value": b'["' + b"a" * 100 + raw + b"b" * 100 + b'"]',
        "outside": b"[1," + raw + b"]",
    }[where]
    for convert in (bytes, bytearray, memoryview):
        with pytest.raises(orcodec.JSONDecodeError):
            orcodec.loads(convert(doc))


@pytest.mark.parametrize("s", ["\ud800", "a\udfffb", "\ud83d", "\u00e9\U0001f600\ud800"], ids=ascii)
def test_str_input_with_lone_surrogate_rejected(s):
    # orjson's message; the position is the first lone surrogate's, where orjson
    # says 0 (a listed deviation: a position that helps), with the str as doc.
    for doc in (f'"{s}"', f'{{"{s}":1}}', f'[\n 1,\n  "{s}"]'):
        with pytest.raises(orcodec.JSONDecodeError) as info:
            orcodec.loads(doc)
        error = info.value
        at = next(i for i, c in enumerate(doc) if 0xD800 <= ord(c) < 0xE000)
        assert (error.msg, error.pos, error.doc) == ("str is not valid UTF-8: surrogates not allowed", at, doc)
        assert (error.lineno, error.colno) == (doc.count("\n", 0, at) + 1, at - doc.rfind("\n", 0, at))
        with pytest.raises(orjson.JSONDecodeError) as peer:
            orjson.loads(doc)
        assert (peer.value.msg, peer.value.pos) == (error.msg, 0)


def test_valid_utf8_boundaries():
    for ch in ["\x7f", "\x80", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff", "\U00010000", "\U0010ffff"]:
        assert orcodec.loads(f'"{ch}"'.encode()) == ch
        assert orcodec.loads(f'{{"{ch}":"{ch}"}}'.encode()) == {ch: ch}


@pytest.mark.parametrize("length", [0, 1, 15, 16, 31, 32, 33, 100, 1000, 100_000])
@pytest.mark.parametrize("char", ["a", "\u00e9", "\u4e2d", "\U0001f600", "\\n", "\\u00e9", "\\ud83d\\ude00"])
def test_long_strings(length, char):
    text = '"' + char * length + '"'
    expected = json.loads(text)
    assert orcodec.loads(text.encode()) == expected
    assert orcodec.loads(text) == expected


# --------------------------------------------------------------------------------------
# JSONDecodeError details
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, pos",
    [
        ("", 0),
        ("1 2", 2),
        ("[1,x]", 3),
        ("[1", 2),
        ('{"a" 1}', 5),
        (b"", 0),
        (b"1 2", 2),
        (b"[1,x]", 3),
        (b"[1", 2),
        (b'{"a" 1}', 5),
    ],
    ids=repr,
)
def test_error_position(data, pos):
    err = _error(data)
    assert err.pos == pos
    assert err.lineno == 1
    assert err.colno == pos + 1


def test_error_position_multiline():
    err = _error(b"[1,\n 2,x]")
    assert err.pos == 7
    assert err.lineno == 2
    assert err.colno == 4
    assert err.doc == "[1,\n 2,x]"


@pytest.mark.parametrize("prefix", ["\u00e9", "\u4e2d\u6587", "\U0001f600", "\U0001f600\u00e9\u4e2d"], ids=ascii)
def test_error_position_is_a_character_index(prefix):
    text = f'["{prefix}",x]'
    for data in (text, text.encode("utf-8")):
        err = _error(data)
        assert err.doc == text
        assert err.pos == len(prefix) + 4
        assert err.doc[err.pos] == "x"
        assert err.colno == err.pos + 1


@pytest.mark.parametrize(
    "text",
    [
        "[1,x]",
        '{\n"a":\n1,\n"b" 2}',
        "[\n\n\n  tru]",
        "\n\n\n",
        "[1,2,3,\n4,5,\n6,,7]",
        '["\u00e9",\n"\U0001f600" ,\n x]',
        '{"a":[1,2,{"b":nul}]}',
        "[1]\n\n x",
        '"abc',
        "[1.5e]",
    ],
    ids=ascii,
)
def test_error_attributes_like_stdlib(text):
    for data in (text, text.encode("utf-8")):
        err = _error(data)
        assert isinstance(err, json.JSONDecodeError)
        assert isinstance(err.msg, str) and err.msg
        assert err.doc == text
        assert 0 <= err.pos <= len(text)
        assert err.lineno == text.count("\n", 0, err.pos) + 1
        assert err.colno == err.pos - text.rfind("\n", 0, err.pos)


# --------------------------------------------------------------------------------------
# Agreement with orjson on random documents
# --------------------------------------------------------------------------------------


def _random_json_text(rng: random.Random, depth: int = 0) -> str:
    choice = rng.randrange(9 if depth < 6 else 6)
    if choice == 0:
        return rng.choice(["null", "true", "false"])
    if choice == 1:
        return str(rng.randint(-(2**70), 2**70))
    if choice == 2:
        return repr(rng.uniform(-1e10, 1e10))
    if choice == 3:
        return f"{rng.randint(-999, 999)}e{rng.randint(-30, 30)}"
    if choice in (4, 5):
        alphabet = ["a", "\u00e9", "\u4e2d", "\U0001f600", "\\n", "\\u0041", "\\\\", '\\"', " ", "\\ud83d\\ude00"]
        return '"' + "".join(rng.choice(alphabet) for _ in range(rng.randrange(12))) + '"'
    ws = lambda: rng.choice(["", " ", "\n", "\t ", "\r\n"])  # noqa: E731
    if choice in (6, 7):
        return (
            "["
            + ws()
            + ("," + ws()).join(_random_json_text(rng, depth + 1) for _ in range(rng.randrange(5)))
            + ws()
            + "]"
        )
    items = []
    for _ in range(rng.randrange(5)):
        key = '"' + rng.choice(["a", "b", "key", "\u00e9", "\\u00e9", ""]) + '"'
        items.append(key + ws() + ":" + ws() + _random_json_text(rng, depth + 1))
    return "{" + ws() + ("," + ws()).join(items) + ws() + "}"


@pytest.mark.parametrize("seed", range(5))
def test_random_documents_agree_with_stdlib_and_orjson(seed):
    rng = random.Random(seed)
    for _ in range(200):
        text = _random_json_text(rng)
        result = orcodec.loads(text.encode())
        assert_strict_equal(result, json.loads(text), big_int_as_float=True)
        assert_strict_equal(result, orjson.loads(text))

"""dumps and packb on str: JSON's escapes and MessagePack's length headers (measured in
UTF-8 bytes), every code point class, long strings, naughty strings and lone surrogates,
exact and against the references (orjson; ormsgpack and msgpack-python)."""

from __future__ import annotations

import pytest
from helpers import (
    CONTROL_CHARS,
    JSON,
    LONG_STRINGS,
    STRING_KINDS,
    SURROGATE_STRINGS,
    assert_strict_equal,
    by_format,
    msgpack_str,
    naughty_params,
    utf8_string,
)


@pytest.mark.parametrize("kind", STRING_KINDS)
def test_string_kinds(fmt, kind):
    s = STRING_KINDS[kind]
    fmt.same_as_reference(s)
    fmt.same_as_reference([s, {s: s}])


JSON_ESCAPES = {"\b": b"\\b", "\t": b"\\t", "\n": b"\\n", "\f": b"\\f", "\r": b"\\r", "\x7f": b"\x7f"}


@pytest.mark.parametrize("char", CONTROL_CHARS, ids=lambda c: f"U+{ord(c):04X}")
def test_control_characters(fmt, char):
    # JSON escapes them (short forms where there are some, DEL is not one); MessagePack
    # writes them raw.
    out = fmt.same_as_reference(char)
    if fmt is JSON:
        assert out == b'"' + JSON_ESCAPES.get(char, b"\\u%04x" % ord(char)) + b'"'
    else:
        assert out == b"\xa1" + char.encode()
    fmt.same_as_reference({f"k{char}": f"v{char}v"})


ESCAPES = [
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
]


@pytest.mark.parametrize(
    "fmt, s, expected",
    by_format(json=ESCAPES, msgpack=[(s, msgpack_str(s)) for s, _ in ESCAPES], ids=lambda case: ascii(case[0])),
)
def test_string_escapes_exact(fmt, s, expected):
    assert fmt.encode(s) == expected
    assert fmt.reference(s) == expected


def test_every_bmp_code_point(fmt):
    # All non-surrogate BMP code points, in chunks so that mistakes at chunk boundaries
    # inside the encoder's fast paths show up too.
    chars = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF)
    for start in range(0, len(chars), 4093):
        fmt.same_as_reference(chars[start : start + 4093])


def test_sampled_astral_code_points(fmt):
    s = "".join(chr(c) for c in range(0x10000, 0x110000, 97))
    fmt.same_as_reference(s)


@pytest.mark.parametrize("kind", LONG_STRINGS)
def test_long_strings(fmt, kind):
    s = LONG_STRINGS[kind]
    fmt.same_as_reference(s)
    fmt.same_as_reference([s, s])
    fmt.same_as_reference({s: s})


@pytest.mark.parametrize("length", [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 4096])
@pytest.mark.parametrize("filler", ["a", "\u00e9", "\u4e2d", "\U0001f600"])
def test_escape_at_every_position_of_short_strings(fmt, length, filler):
    # A character JSON escapes before, inside and after runs of various lengths.
    for special in ['"', "\\", "\n", "\x00"]:
        fmt.same_as_reference(special + filler * length)
        fmt.same_as_reference(filler * length + special)
        fmt.same_as_reference(filler * (length // 2) + special + filler * (length - length // 2))


LENGTHS = [0, 1, 31, 32, 33, 255, 256, 65535, 65536, 70000]
STR_CHARS = ["a", "\u00e9", "\u4e2d", "\U0001f600"]


@pytest.mark.parametrize("nbytes", LENGTHS)
@pytest.mark.parametrize("char", STR_CHARS, ids=ascii)
def test_str_length_boundaries(fmt, nbytes, char):
    # MessagePack's str header counts UTF-8 bytes: fixstr, str8, str16, str32.
    s = utf8_string(nbytes, char)
    out = fmt.same_as_reference(s)
    assert out == fmt.exact_str(s)
    fmt.same_as_reference({s: [s]})


@pytest.mark.parametrize(
    "s",
    ["\u00e9" * 16, "\u4e2d" * 11, "\U0001f600" * 8, "\U0001f600" * 64, "\u4e2d" * 85, "\u4e2d" * 86],
    ids=lambda s: f"{len(s)}x{ascii(s[0])}",
)
def test_str_fewer_characters_than_utf8_bytes(fmt, s):
    # Strings whose *character* count is below a header limit but whose UTF-8 length is not.
    assert fmt.encode(s) == fmt.exact_str(s) == fmt.reference(s)


@pytest.mark.parametrize("s", naughty_params())
def test_naughty_strings(fmt, s):
    fmt.same_as_reference(s)
    out = fmt.same_as_reference({s: [s]})
    assert_strict_equal(fmt.decode(out), {s: [s]})


@pytest.mark.parametrize("s", SURROGATE_STRINGS, ids=ascii)
@pytest.mark.parametrize("where", ["bare", "list", "value", "key"])
def test_surrogates_rejected(fmt, s, where):
    obj = {"bare": s, "list": ["ok", s], "value": {"k": s}, "key": {s: 1}}[where]
    with pytest.raises(fmt.encode_error) as excinfo:
        fmt.encode(obj)
    assert str(excinfo.value) == fmt.surrogates_message


def test_dict_keys_of_every_length_and_escape_against_orjson():
    # An ASCII key goes out with its comma and colon in one step: keys of
    # every length around the 16- and 32-byte blocks, clean or with
    # something to escape at the start, the middle or the end, first in
    # their dict or later, in compact and pretty output.
    import orcodec
    import orjson

    keys = ["k" * n for n in range(70)]
    for n in (0, 1, 15, 16, 31, 32, 33, 64):
        for piece in ('"', "\\", "\n", "\x00", "\x1f", "\x7f", "/"):
            keys += [piece + "a" * n, "a" * n + piece, "a" * n + piece + "b" * (n // 2)]
    keys += ["é", "a" * 20 + "中", "😀"]
    for i, key in enumerate(keys):
        obj = {"first": 1, key: [key, {key: None}], "z" * (i % 40): 2.5}
        for option in (0, orjson.OPT_INDENT_2, orjson.OPT_SORT_KEYS):
            assert orcodec.dumps(obj, option=option) == orjson.dumps(obj, option=option), key
        assert orcodec.dumps({key: 1}) == orjson.dumps({key: 1})

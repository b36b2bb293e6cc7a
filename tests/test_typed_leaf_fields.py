"""Class fields of the common leaf types (`str`, `int`, `Optional[str]` without
constraints), which the class validator reads itself rather than through the generic
dispatch: every value they take gives exactly what it gives through the generic path,
and every value they refuse the same message and path. Each case is checked against the
same type where the field is no class field (a list item, the generic path) and against
msgspec where it decodes the same."""

from __future__ import annotations

import dataclasses
import sys
from typing import Annotated, Optional, Union

import annotated_types as at
import msgspec
import orcodec
import pytest
from helpers import slots_dataclass
from typed_helpers import FORMATS

by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)
# `X | Y` unions are Python 3.10+; on 3.9 the annotations below are the typing forms
# (annotations are text here, so only the branch that applies is ever evaluated).
PIPE_UNIONS = sys.version_info >= (3, 10)


@dataclasses.dataclass
class Leaves:
    s: str
    i: int
    o: Optional[str]  # noqa: UP045 - the typing form and the `|` form below (3.10+)
    p: str | None if PIPE_UNIONS else Optional[str] = None  # noqa: UP045


@slots_dataclass
class SlotLeaves:
    s: str
    i: int
    o: Optional[str]  # noqa: UP045
    p: str | None if PIPE_UNIONS else Optional[str] = None  # noqa: UP045


@dataclasses.dataclass
class Constrained:
    s: Annotated[str, at.MinLen(2)]
    i: Annotated[int, at.Ge(0)]
    o: Annotated[str, at.MaxLen(3)] | None if PIPE_UNIONS else Optional[Annotated[str, at.MaxLen(3)]]  # noqa: UP045


@dataclasses.dataclass
class Wider:
    """Unions that are not `Optional[str]`: the generic path."""

    a: str | int if PIPE_UNIONS else Union[str, int]  # noqa: UP007
    b: int | None if PIPE_UNIONS else Optional[int]  # noqa: UP045
    c: Union[str, None, int]  # noqa: UP007


CLASSES = [Leaves, SlotLeaves]

GOOD = [
    {"s": "", "i": 0, "o": None},
    {"s": "x", "i": -1, "o": "", "p": "p"},
    {"s": "é漢😀", "i": 2**63 - 1, "o": "ü", "p": None},
    {"s": "a" * 64, "i": -(2**63), "o": "b" * 65},
    # Values the value cache keeps (short ASCII), repeated.
    {"s": "ab", "i": 5, "o": "ab", "p": "ab"},
    # Integers past i64 (u64) take the generic path.
    {"s": "q", "i": 2**63, "o": None},
    {"s": "q", "i": 2**64 - 1, "o": None},
]


@by_format
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("value", GOOD, ids=range(len(GOOD)))
def test_values(fmt, cls, value):
    out = fmt.decode(value, cls)
    assert type(out) is cls
    expected = {"p": None, **value}
    for name, v in expected.items():
        got = getattr(out, name)
        assert got == v and type(got) is type(v), name
    assert out == fmt.peer(value, cls)


@by_format
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_many_instances(fmt, cls):
    rows = [{"s": f"s{k}", "i": k * 7919 - 10**6, "o": None if k % 3 else f"o{k}", "p": "p"} for k in range(300)]
    out = fmt.decode(rows, list[cls])
    assert [dataclasses.asdict(x) for x in out] == rows
    assert out == fmt.peer(rows, list[cls])


BAD = [
    ({"s": 1, "i": 0, "o": None}, "Expected `str`, got `int` - at `$.s`"),
    ({"s": None, "i": 0, "o": None}, "Expected `str`, got `{null}` - at `$.s`"),
    ({"s": True, "i": 0, "o": None}, "Expected `str`, got `bool` - at `$.s`"),
    ({"s": 1.5, "i": 0, "o": None}, "Expected `str`, got `float` - at `$.s`"),
    ({"s": [], "i": 0, "o": None}, "Expected `str`, got `array` - at `$.s`"),
    ({"s": {}, "i": 0, "o": None}, "Expected `str`, got `object` - at `$.s`"),
    ({"s": "", "i": "1", "o": None}, "Expected `int`, got `str` - at `$.i`"),
    ({"s": "", "i": None, "o": None}, "Expected `int`, got `{null}` - at `$.i`"),
    ({"s": "", "i": False, "o": None}, "Expected `int`, got `bool` - at `$.i`"),
    ({"s": "", "i": 1.0, "o": None}, "Expected `int`, got `float` - at `$.i`"),
    ({"s": "", "i": [1], "o": None}, "Expected `int`, got `array` - at `$.i`"),
    ({"s": "", "i": {"a": 1}, "o": None}, "Expected `int`, got `object` - at `$.i`"),
    ({"s": "", "i": 0, "o": 1}, "Expected `str | null`, got `int` - at `$.o`"),
    ({"s": "", "i": 0, "o": False}, "Expected `str | null`, got `bool` - at `$.o`"),
    ({"s": "", "i": 0, "o": ["a"]}, "Expected `str | null`, got `array` - at `$.o`"),
    ({"s": "", "i": 0, "o": {}}, "Expected `str | null`, got `object` - at `$.o`"),
    ({"s": "", "i": 0, "o": None, "p": 2.5}, "Expected `str | null`, got `float` - at `$.p`"),
    ({"s": "", "o": None}, "Object missing required field `i`"),
]


@by_format
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("value, message", BAD, ids=range(len(BAD)))
def test_errors(fmt, cls, value, message):
    message = message.replace("{null}", fmt.null)
    err = fmt.error(value, cls)
    assert str(err) == message
    # The same as the generic path (the item of a list) says, one level down.
    err = fmt.error([value], list[cls])
    assert str(err) == message.replace("`$.", "`$[0].").replace(
        "missing required field `i`", "missing required field `i` - at `$[0]`"
    )
    assert str(err) == fmt.peer_error([value], list[cls])


@by_format
@pytest.mark.parametrize(
    "value, expected",
    [
        ({"s": "1", "i": "12", "o": "null"}, ("1", 12, "null")),
        ({"s": "1", "i": 3.0, "o": None}, ("1", 3, None)),
        ({"s": "1", "i": "1e3", "o": "x"}, ("1", 1000, "x")),
    ],
)
def test_lax(fmt, value, expected):
    out = fmt.decode(value, Leaves, strict=False)
    assert (out.s, out.i, out.o) == expected
    assert type(out.i) is int
    peer = fmt.peer(value, Leaves, strict=False)
    assert (peer.s, peer.i, peer.o) == expected


@by_format
def test_lax_still_refuses(fmt):
    err = fmt.error({"s": "", "i": 0, "o": 5}, Leaves, strict=False)
    assert str(err) == "Expected `str | null`, got `int` - at `$.o`"
    err = fmt.error({"s": 5, "i": 0, "o": None}, Leaves, strict=False)
    assert str(err) == "Expected `str`, got `int` - at `$.s`"


@by_format
def test_constrained_fields_are_checked(fmt):
    assert fmt.decode({"s": "ab", "i": 0, "o": "abc"}, Constrained) == Constrained("ab", 0, "abc")
    assert fmt.decode({"s": "ab", "i": 0, "o": None}, Constrained) == Constrained("ab", 0, None)
    cases = [
        ({"s": "a", "i": 0, "o": None}, "Expected `str` of length >= 2, got length 1 - at `$.s`"),
        ({"s": "ab", "i": -1, "o": None}, "Expected `int` >= 0, got `-1` - at `$.i`"),
        ({"s": "ab", "i": 0, "o": "abcd"}, "Expected `str` of length <= 3, got length 4 - at `$.o`"),
    ]
    for value, message in cases:
        assert str(fmt.error(value, Constrained)) == message


@by_format
def test_wider_unions(fmt):
    assert fmt.decode({"a": "x", "b": 1, "c": 2}, Wider) == Wider("x", 1, 2)
    assert fmt.decode({"a": 3, "b": None, "c": None}, Wider) == Wider(3, None, None)
    assert fmt.decode({"a": "y", "b": None, "c": "z"}, Wider) == Wider("y", None, "z")
    err = fmt.error({"a": None, "b": 1, "c": 2}, Wider)
    assert str(err) == "Expected `int | str`, got `" + fmt.null + "` - at `$.a`"
    assert str(err) == fmt.peer_error({"a": None, "b": 1, "c": 2}, Wider)
    err = fmt.error({"a": 1, "b": "1", "c": 2}, Wider)
    assert str(err) == "Expected `int | null`, got `str` - at `$.b`"
    assert str(err) == fmt.peer_error({"a": 1, "b": "1", "c": 2}, Wider)


@pytest.mark.parametrize("i", [2**64, -(2**63) - 1, 10**30, -(10**40)])
def test_ints_beyond_64_bits(i):
    data = b'{"s": "q", "i": ' + str(i).encode() + b', "o": null}'
    out = orcodec.loads(data, type=Leaves)
    assert out == Leaves("q", i, None) and type(out.i) is int
    assert out == msgspec.json.decode(data, type=Leaves)
    assert orcodec.convert({"s": "q", "i": i, "o": None}, Leaves) == out


def test_json_text_forms():
    """Escapes, whitespace and numbers as JSON writes them by hand."""
    data = b' { "s" : "a\\u00e9\\n\\"" , "i" : -0 , "o" : "\\ud83d\\ude00" , "p" : null } '
    out = orcodec.loads(data, type=Leaves)
    assert out == Leaves('a\u00e9\n"', 0, "\U0001f600", None)
    assert out == msgspec.json.decode(data, type=Leaves)
    # An integer written with an exponent or a fraction is a float.
    for text in (b"1e2", b"1.0", b"-0.0"):
        data = b'{"s": "", "i": ' + text + b', "o": null}'
        with pytest.raises(orcodec.ValidationError) as info:
            orcodec.loads(data, type=Leaves)
        assert str(info.value) == "Expected `int`, got `float` - at `$.i`"
    # Malformed input is the JSON decode error, as without a type.
    for data in (b'{"s": "abc', b'{"s": "", "i": 12x', b'{"s": "", "i": 1, "o": nul}', b'{"s": tru}'):
        with pytest.raises(orcodec.JSONDecodeError) as info:
            orcodec.loads(data, type=Leaves)
        assert not isinstance(info.value, orcodec.ValidationError)


def test_msgpack_forms():
    """Every MessagePack width of strs and ints (fixstr, str8/16/32; fixint, int8..64,
    uint8..64)."""
    import msgpack

    for s in ("", "a" * 31, "b" * 32, "c" * 255, "d" * 256, "e" * 65535, "f" * 65536):
        for i in (0, 127, -32, -33, 255, 256, -129, 65535, 65536, -32769, 2**32, -(2**31) - 1, 2**63 - 1, 2**64 - 1):
            data = msgpack.packb({"s": s, "i": i, "o": s or None})
            out = orcodec.unpackb(data, type=Leaves)
            assert (out.s, out.i, out.o, out.p) == (s, i, s or None, None)
    # str8 etc. written by a packer that uses bin-compatible forms, and a bin where a
    # str is expected.
    data = msgpack.packb({"s": b"x", "i": 1, "o": None}, use_bin_type=True)
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.unpackb(data, type=Leaves)
    assert str(info.value) == "Expected `str`, got `bytes` - at `$.s`"


def test_convert_objects():
    """`convert` reads Python objects: str and int subclasses and other objects."""

    class S(str):
        pass

    class I(int):  # noqa: E742 - a short name for an int subclass
        pass

    out = orcodec.convert({"s": S("x"), "i": I(3), "o": S("y")}, Leaves)
    assert out.s == "x" and out.i == 3 and out.o == "y"
    assert out == msgspec.convert({"s": S("x"), "i": I(3), "o": S("y")}, Leaves)
    out = orcodec.convert(Leaves("a", 1, None), Leaves)
    assert out == Leaves("a", 1, None)
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.convert({"s": b"x", "i": 1, "o": None}, Leaves)
    assert str(info.value) == "Expected `str`, got `bytes` - at `$.s`"


@by_format
def test_forbid_unknown_and_defaults(fmt):
    dec_value = {"s": "a", "zzz": [1, {"b": 2}], "i": 1, "o": None}
    assert fmt.decode(dec_value, Leaves) == Leaves("a", 1, None, None)
    if fmt.name != "convert":
        data = fmt.encode(dec_value)
        decoder = orcodec.Decoder(Leaves, forbid_unknown_fields=True) if _has_forbid() else None
        if decoder is not None:
            with pytest.raises(orcodec.ValidationError) as info:
                (decoder.loads if fmt.name == "json" else decoder.unpackb)(data)
            assert str(info.value) == "Object contains unknown field `zzz`"


def _has_forbid() -> bool:
    try:
        orcodec.Decoder(int, forbid_unknown_fields=True)
    except TypeError:
        return False
    return True

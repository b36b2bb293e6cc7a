"""Typed decoding of None, bool, int, float, str and bytes: values, boundaries,
constraints, the lax conversions of strict=False, and every message, in JSON, MessagePack
and convert, against msgspec."""

from __future__ import annotations

import math
import re
from typing import Annotated, Any

import annotated_types as at
import msgspec
import orcodec
import pytest
from helpers import INT_BOUNDARIES, SPECIAL_FLOATS
from typed_helpers import CONVERT, FORMATS, JSON, MSGPACK, STREAMS, exact

by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)
by_stream = pytest.mark.parametrize("fmt", STREAMS, ids=repr)


@by_format
@pytest.mark.parametrize("value", [None, True, False, 0, -1, 2**63 - 1, 1.5, "x", [1, "a"], {"k": [None]}])
def test_any_gives_the_value_as_untyped_decoding_does(fmt, value):
    exact(fmt.decode(value, Any), value)
    exact(fmt.decode(value, object), value)


@by_format
def test_none(fmt):
    assert fmt.decode(None, type(None)) is None
    assert fmt.decode(None, None.__class__) is None
    e = fmt.error(0, type(None))
    assert str(e) == "Expected `null`, got `int`" == fmt.peer_error(0, type(None))


@by_format
def test_bool(fmt):
    assert fmt.decode(True, bool) is True
    assert fmt.decode(False, bool) is False
    for value, got in [(1, "int"), ("true", "str"), (None, fmt.null), (1.0, "float")]:
        assert str(fmt.error(value, bool)) == f"Expected `bool`, got `{got}`" == fmt.peer_error(value, bool)


@by_format
@pytest.mark.parametrize("value", INT_BOUNDARIES)
def test_int_boundaries(fmt, value):
    exact(fmt.decode(value, int), value)
    assert fmt.decode(value, int) == fmt.peer(value, int)


@pytest.mark.parametrize("fmt", [JSON, CONVERT], ids=repr)  # MessagePack has no integers beyond 64 bits
@pytest.mark.parametrize("value", [2**64, 2**100, -(2**63) - 1, -(10**40)])
def test_ints_beyond_64_bits(fmt, value):
    if fmt is JSON:
        data = str(value).encode()
        exact(orcodec.loads(data, type=int), value)
        exact(msgspec.json.decode(data, type=int), value)
    else:
        exact(orcodec.convert(value, int), value)


@by_format
@pytest.mark.parametrize(
    ("value", "got"), [(1.5, "float"), (1.0, "float"), (True, "bool"), ("1", "str"), ([], "array"), ({}, "object")]
)
def test_int_refuses_other_kinds(fmt, value, got):
    assert str(fmt.error(value, int)) == f"Expected `int`, got `{got}`"
    if not (fmt is CONVERT and got in ("array", "object")):
        assert str(fmt.error(value, int)) == fmt.peer_error(value, int)


@by_format
def test_int_of_null_names_it_as_the_format_does(fmt):
    assert str(fmt.error(None, int)) == f"Expected `int`, got `{fmt.null}`" == fmt.peer_error(None, int)


@by_format
def test_float_takes_ints_and_floats(fmt):
    exact(fmt.decode(1, float), 1.0)
    exact(fmt.decode(-(2**63), float), -9.223372036854776e18)
    for value in SPECIAL_FLOATS:
        exact(fmt.decode(value, float), value)
    assert str(fmt.error(True, float)) == "Expected `float`, got `bool`" == fmt.peer_error(True, float)
    assert str(fmt.error("1.5", float)) == "Expected `float`, got `str`"


def test_float_out_of_range_in_json():
    with pytest.raises(orcodec.ValidationError, match="^Number out of range$"):
        orcodec.loads(b"1e400", type=float)
    with pytest.raises(orcodec.ValidationError, match="^Number out of range$"):
        orcodec.loads(b"-" + b"9" * 400, type=float)
    assert orcodec.loads(b"1" + b"0" * 30, type=float) == 1e30


@pytest.mark.parametrize("fmt", [MSGPACK, CONVERT], ids=repr)
def test_non_finite_floats_where_the_format_holds_them(fmt):
    assert math.isnan(fmt.decode(float("nan"), float))
    assert fmt.decode(float("inf"), float) == math.inf


@by_format
def test_str(fmt):
    for value in ["", "x", "caf\u00e9", "\U0001f600" * 3, "a" * 1000]:
        exact(fmt.decode(value, str), value)
    for value, got in [(1, "int"), (b"x", "bytes"), (None, fmt.null)]:
        if value == b"x" and fmt is JSON:
            continue
        assert str(fmt.error(value, str)) == f"Expected `str`, got `{got}`" == fmt.peer_error(value, str)


def test_str_subclass_is_kept_by_convert():
    class S(str):
        pass

    value = S("x")
    assert orcodec.convert(value, str) is value


@pytest.mark.parametrize("fmt", [MSGPACK, CONVERT], ids=repr)
def test_bytes_from_bin_and_bytes_like(fmt):
    exact(fmt.decode(b"\x00\xff", bytes), b"\x00\xff")
    exact(fmt.decode(b"\x00\xff", bytearray), bytearray(b"\x00\xff"))


def test_bytes_from_base64_text_in_json_and_convert():
    exact(orcodec.loads(b'"YWJj"', type=bytes), b"abc")
    exact(orcodec.loads(b'"YWJjZA=="', type=bytearray), bytearray(b"abcd"))
    exact(orcodec.convert("YWJjZA==", bytes), b"abcd")
    exact(orcodec.convert(bytearray(b"x"), bytes), b"x")
    exact(orcodec.convert(memoryview(b"xy"), bytes), b"xy")
    for bad in ['"YWJ"', '"YW Jj"', '"_-8="', '"YWJjZA"']:
        with pytest.raises(orcodec.ValidationError, match="^Invalid base64 encoded string$"):
            orcodec.loads(bad, type=bytes)
        with pytest.raises(msgspec.ValidationError, match="^Invalid base64 encoded string$"):
            msgspec.json.decode(bad, type=bytes)


def test_bytes_round_trip_through_dumps_needs_default():
    import base64

    data = bytes(range(256))
    text = orcodec.dumps(data, default=lambda b: base64.b64encode(b).decode())
    assert orcodec.loads(text, type=bytes) == data


# -- constraints -------------------------------------------------------------------------


@by_format
@pytest.mark.parametrize(
    ("tp", "value", "message"),
    [
        (Annotated[int, at.Ge(1)], 0, "Expected `int` >= 1, got `0`"),
        (Annotated[int, at.Gt(1)], 1, "Expected `int` >= 2, got `1`"),
        (Annotated[int, at.Le(1)], 5, "Expected `int` <= 1, got `5`"),
        (Annotated[int, at.Lt(1)], 1, "Expected `int` <= 0, got `1`"),
        (Annotated[int, at.MultipleOf(2)], 5, "Expected `int` that's a multiple of 2, got `5`"),
        (Annotated[int, at.Interval(ge=0, le=10)], 11, "Expected `int` <= 10, got `11`"),
        (Annotated[float, at.Ge(10)], 5.5, "Expected `float` >= 10.0, got `5.5`"),
        (Annotated[float, at.Gt(0.5)], 0.5, "Expected `float` > 0.5, got `0.5`"),
        (Annotated[float, at.Le(-1)], 0, "Expected `float` <= -1.0, got `0.0`"),
        (Annotated[float, at.Lt(1e20)], 1e21, "Expected `float` < 1e+20, got `1e+21`"),
        (Annotated[str, at.MinLen(3)], "ab", "Expected `str` of length >= 3, got length 2"),
        (Annotated[str, at.MaxLen(3)], "ab\u00e9\U0001f600", "Expected `str` of length <= 3, got length 4"),
        (Annotated[str, at.Len(1, 2)], "", "Expected `str` of length >= 1, got length 0"),
        (Annotated[list[int], at.MinLen(3)], [1, 2], "Expected `array` of length >= 3, got length 2"),
        (Annotated[list[int], at.MaxLen(1)], [1, 2], "Expected `array` of length <= 1, got length 2"),
        (Annotated[dict[str, int], at.MaxLen(0)], {"a": 1}, "Expected `object` of length <= 0, got length 1"),
    ],
)
def test_constraint_messages(fmt, tp, value, message):
    assert str(fmt.error(value, tp)) == message
    # msgspec says the same, without what was found.
    meta = {
        "Ge": "ge",
        "Gt": "gt",
        "Le": "le",
        "Lt": "lt",
        "MultipleOf": "multiple_of",
        "MinLen": "min_length",
        "MaxLen": "max_length",
    }
    m = tp.__metadata__[0]
    name = type(m).__name__
    if name in meta:
        value_of = {
            "ge": "ge",
            "gt": "gt",
            "le": "le",
            "lt": "lt",
            "multiple_of": "multiple_of",
            "min_length": "min_length",
            "max_length": "max_length",
        }[meta[name]]
        peer_tp = Annotated[tp.__origin__, msgspec.Meta(**{meta[name]: getattr(m, value_of)})]
        peer = fmt.peer_error(value, peer_tp)
        assert message.startswith(peer + ", got "), (message, peer)


@by_format
def test_constraints_pass_at_their_bounds(fmt):
    assert fmt.decode(1, Annotated[int, at.Ge(1)]) == 1
    assert fmt.decode(10, Annotated[int, at.Le(10), at.MultipleOf(5)]) == 10
    assert fmt.decode(0.5, Annotated[float, at.Ge(0.5)]) == 0.5
    assert fmt.decode("abc", Annotated[str, at.Len(3, 3)]) == "abc"
    assert fmt.decode([1, 2, 3], Annotated[list[int], at.Len(3, 3)]) == [1, 2, 3]


@by_format
def test_regex_constraint(fmt):
    tp = Annotated[str, re.compile(r"^[a-z]+\d$")]
    assert fmt.decode("abc1", tp) == "abc1"
    assert str(fmt.error("abc", tp)) == "Expected `str` matching regex '^[a-z]+\\\\d$'"
    assert str(fmt.error("abc", tp)) == fmt.peer_error("abc", Annotated[str, msgspec.Meta(pattern=r"^[a-z]+\d$")])


def test_big_ints_against_bounds():
    assert orcodec.loads(b"100000000000000000000", type=Annotated[int, at.Ge(0)]) == 10**20
    with pytest.raises(orcodec.ValidationError, match=r"^Expected `int` <= 5, got `100000000000000000000`$"):
        orcodec.loads(b"100000000000000000000", type=Annotated[int, at.Le(5)])
    with pytest.raises(orcodec.ValidationError, match=r"^Expected `int` >= 0, got `-100000000000000000000`$"):
        orcodec.convert(-(10**20), Annotated[int, at.Ge(0)])
    with pytest.raises(orcodec.ValidationError, match="multiple of 3"):
        orcodec.convert(10**20, Annotated[int, at.MultipleOf(3)])


def test_invalid_constraints_are_refused_when_compiled():
    with pytest.raises(TypeError, match="multiple_of"):
        orcodec.Decoder(Annotated[int, at.MultipleOf(0)])
    with pytest.raises(TypeError, match="64 bits"):
        orcodec.Decoder(Annotated[int, at.Ge(2**70)])


# -- lax conversions ---------------------------------------------------------------------


@by_format
@pytest.mark.parametrize(
    ("value", "tp", "expected"),
    [
        ("1", int, 1),
        ("-12", int, -12),
        ("1e3", int, 1000),
        ("1.0", int, 1),
        (1.0, int, 1),
        (-3.0, int, -3),
        ("1.5", float, 1.5),
        ("1", float, 1.0),
        ("1e3", float, 1000.0),
        ("true", bool, True),
        ("FALSE", bool, False),
        ("1", bool, True),
        ("0", bool, False),
        (1, bool, True),
        (0, bool, False),
        ("null", type(None), None),
        ("100000000000000000000", int, 10**20),
    ],
)
def test_lax_conversions(fmt, value, tp, expected):
    exact(fmt.decode(value, tp, strict=False), expected)
    exact(fmt.peer(value, tp, strict=False), expected)
    with pytest.raises(orcodec.ValidationError):
        fmt.decode(value, tp)


@by_format
@pytest.mark.parametrize(
    ("value", "tp"), [(" 1", int), ("+1", int), ("0x10", int), ("1_000", int), (1.5, int), (2, bool), ("yes", bool)]
)
def test_lax_refusals(fmt, value, tp):
    e = fmt.error(value, tp, strict=False)
    assert str(e) == fmt.peer_error(value, tp, strict=False)


@by_format
def test_lax_special_floats(fmt):
    assert math.isnan(fmt.decode("nan", float, strict=False))
    assert fmt.decode("-inf", float, strict=False) == -math.inf
    assert fmt.decode("Infinity", float, strict=False) == math.inf


@by_format
def test_lax_applies_constraints_after_converting(fmt):
    with pytest.raises(orcodec.ValidationError, match=r"^Expected `int` >= 2, got `1`$"):
        fmt.decode("1", Annotated[int, at.Ge(2)], strict=False)

"""Typed decoding into Optional, unions, Literal, enums (Enum, IntEnum, StrEnum, Flag,
IntFlag) and unions of classes told apart by a tag field; ambiguous unions refused when
the type is compiled."""

from __future__ import annotations

import datetime as dt
import enum
import sys
import uuid
from dataclasses import dataclass
from typing import Literal, Optional, Union

import orcodec
import pytest
from typed_helpers import CONVERT, FORMATS, exact
from typing_extensions import TypedDict

by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Perm(enum.IntFlag):
    R = 4
    W = 2
    X = 1


class Shape(enum.Flag):
    ROUND = 1
    SQUARE = 2


@by_format
def test_enums_by_value(fmt):
    assert fmt.decode("red", Color) is Color.RED
    assert fmt.decode(2, Level) is Level.HIGH
    assert fmt.decode(4, Perm) is Perm.R
    assert fmt.decode(6, Perm) == Perm.R | Perm.W
    assert fmt.decode(3, Shape) == Shape.ROUND | Shape.SQUARE
    assert str(fmt.error("purple", Color)) == "Invalid enum value 'purple'" == fmt.peer_error("purple", Color)
    assert str(fmt.error(3, Level)) == "Invalid enum value 3" == fmt.peer_error(3, Level)
    assert str(fmt.error(8, Shape)) == "Invalid enum value 8"
    assert str(fmt.error(1, Color)) == "Expected `str`, got `int`" == fmt.peer_error(1, Color)
    assert str(fmt.error("x", Level)) == "Expected `int`, got `str`" == fmt.peer_error("x", Level)
    assert str(fmt.error(True, Level)) == "Expected `int`, got `bool`" == fmt.peer_error(True, Level)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="StrEnum needs Python 3.11")
@by_format
def test_str_enum(fmt):
    class Mode(enum.StrEnum):
        A = "a"

    assert fmt.decode("a", Mode) is Mode.A


@by_format
def test_enum_value_in_a_path(fmt):
    e = fmt.error({"color": "purple"}, dict[str, Color])
    assert (
        str(e) == "Invalid enum value 'purple' - at `$[...]`" == fmt.peer_error({"color": "purple"}, dict[str, Color])
    )


def test_convert_keeps_enum_members():
    assert orcodec.convert(Color.RED, Color) is Color.RED
    assert orcodec.convert(Level.LOW, Level) is Level.LOW
    assert orcodec.convert(Level.LOW, int) == 1 and type(orcodec.convert(Level.LOW, int)) is int


@by_format
def test_literals(fmt):
    tp = Literal["a", "b", 1, True]
    assert fmt.decode("a", tp) == "a"
    assert fmt.decode(1, tp) == 1
    assert fmt.decode(True, tp) is True
    assert str(fmt.error("x", tp)) == "Invalid enum value 'x'"
    assert str(fmt.error(2, tp)) == "Invalid enum value 2"
    assert str(fmt.error(False, tp)) == "Invalid enum value False"
    assert str(fmt.error(1.5, tp)) == "Expected `bool | int | str`, got `float`"
    assert fmt.decode(None, Literal["a", None]) is None
    assert str(fmt.error("x", Literal["a", "b"])) == fmt.peer_error("x", Literal["a", "b"])
    assert str(fmt.error(3, Literal[1, 2])) == fmt.peer_error(3, Literal[1, 2])


@by_format
def test_optional(fmt):
    for tp in (Optional[int], Union[int, None], int | None):
        assert fmt.decode(None, tp) is None
        assert fmt.decode(3, tp) == 3
        assert str(fmt.error("x", tp)) == "Expected `int | null`, got `str`" == fmt.peer_error("x", tp)


@by_format
def test_unions_by_kind(fmt):
    tp = Union[int, str, list[int], dict[str, int], None]
    for value in [1, "x", [1], {"a": 1}, None]:
        exact(fmt.decode(value, tp), value)
    assert str(fmt.error(1.5, tp)) == "Expected `int | str | object | array | null`, got `float`"
    exact(fmt.decode(1, Union[float, str]), 1.0)
    exact(fmt.decode(1, Union[int, float]), 1)
    exact(fmt.decode(1.5, Union[int, float]), 1.5)
    assert fmt.decode("2020-01-02", Union[dt.date, int]) == dt.date(2020, 1, 2)
    assert fmt.decode("red", Union[Color, int]) is Color.RED


def test_convert_union_picks_by_class_first():
    u = uuid.uuid4()
    assert orcodec.convert(u, Union[uuid.UUID, int]) is u
    now = dt.datetime.now()
    assert orcodec.convert(now, Optional[dt.datetime]) is now


@by_format
def test_lax_unions(fmt):
    assert fmt.decode("1", Optional[int], strict=False) == 1
    assert fmt.decode("null", Optional[int], strict=False) is None
    assert fmt.decode("1", Union[int, str], strict=False) == "1"
    assert fmt.peer("1", Optional[int], strict=False) == 1


@pytest.mark.parametrize(
    ("tp", "words"),
    [
        (Union[int, Level], "int-like"),
        (Union[str, dt.datetime], "str-like"),
        (Union[list[int], tuple[int, ...]], "array-like"),
        (Union[dict[str, int], TypedDict("TD", {"a": int})], "dict-like"),
    ],
)
def test_ambiguous_unions_are_refused_when_compiled(tp, words):
    with pytest.raises(TypeError, match=f"Type unions may not contain more than one {words}"):
        orcodec.Decoder(tp)
    with pytest.raises(TypeError, match="more than one"):
        orcodec.convert(1, tp)


@dataclass
class Cancel:
    kind: Literal["cancel"]
    order_id: int


@dataclass
class Place:
    kind: Literal["place"]
    order_id: int
    qty: int = 1


@dataclass
class Untagged:
    x: int


Message = Union[Cancel, Place]


@by_format
def test_tagged_union(fmt):
    exact(fmt.decode({"kind": "cancel", "order_id": 3}, Message), Cancel("cancel", 3))
    exact(fmt.decode({"kind": "place", "order_id": 3, "qty": 2}, Message), Place("place", 3, 2))
    # The tag anywhere among the keys.
    exact(fmt.decode({"order_id": 3, "kind": "place"}, Message), Place("place", 3, 1))
    exact(fmt.decode([{"kind": "cancel", "order_id": 1}, None], list[Optional[Message]]), [Cancel("cancel", 1), None])
    assert str(fmt.error({"kind": "x", "order_id": 3}, Message)) == "Invalid value 'x' - at `$.kind`"
    assert str(fmt.error({"order_id": 3}, Message)) == "Object missing required field `kind`"
    assert str(fmt.error({}, Message)) == "Object missing required field `kind`"
    assert str(fmt.error({"kind": "place"}, Message)) == "Object missing required field `order_id`"
    assert str(fmt.error(1, Message)) == "Expected `object`, got `int`"


def test_convert_tagged_union_keeps_instances():
    c = Cancel("cancel", 1)
    assert orcodec.convert(c, Message) is c


def test_untagged_class_unions_are_refused():
    with pytest.raises(TypeError, match="tag"):
        orcodec.Decoder(Union[Cancel, Untagged])


@dataclass
class Expr:
    kind: Literal["expr"]
    left: Union[Expr, Lit, None] = None  # noqa: UP007 (evaluated on 3.9 too)


@dataclass
class Lit:
    kind: Literal["lit"]
    value: int = 0


@by_format
def test_recursive_tagged_union(fmt):
    value = {"kind": "expr", "left": {"kind": "expr", "left": {"kind": "lit", "value": 3}}}
    exact(fmt.decode(value, Expr | Lit), Expr("expr", Expr("expr", Lit("lit", 3))))
    assert str(fmt.error({"kind": "expr", "left": {"kind": "x"}}, Expr)) == "Invalid value 'x' - at `$.left.kind`"
    if fmt is CONVERT:
        e = Expr("expr", Lit("lit", 1))
        assert orcodec.convert(e, Expr | Lit) is e


def test_deep_recursive_tagged_union_in_a_1_mib_thread():
    import threading

    data = b'{"kind":"expr","left":' * 1023 + b'{"kind":"lit"}' + b"}" * 1023
    late = b'{"left":' * 1023 + b'{"kind":"lit"}' + b',"kind":"expr"}' * 1023
    results = []

    def run():
        try:
            for d in (data, late):
                out = orcodec.loads(d, type=Expr | Lit)
                n = 0
                while isinstance(out, Expr):
                    out = out.left
                    n += 1
                results.append(n)
        except BaseException as exc:  # noqa: BLE001 - reported below
            results.append(exc)

    old = threading.stack_size(1 << 20)
    try:
        t = threading.Thread(target=run)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert results == [1023, 1023], results

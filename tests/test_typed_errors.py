"""Typed decoding's failures: the exception classes (ValidationError, and caught by the
formats' decode errors), the path attribute, JSONDecodeError's fields, dec_hook and its
exceptions, hooks that mutate the input, malformed input staying the format's error,
hostile input (deep nesting, huge declared lengths, small thread stacks)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Annotated, Optional

import orcodec
import pytest
from typed_helpers import CONVERT, FORMATS, JSON, MSGPACK, STREAMS

by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)
by_stream = pytest.mark.parametrize("fmt", STREAMS, ids=repr)


@dataclass
class Item:
    qty: int


def test_exception_classes():
    assert issubclass(orcodec.ValidationError, ValueError)
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.loads(b'{"qty": "x"}', type=Item)
    e = info.value
    assert isinstance(e, orcodec.JSONDecodeError) and isinstance(e, json.JSONDecodeError)
    assert not isinstance(e, orcodec.MsgpackDecodeError)
    with pytest.raises(orcodec.MsgpackDecodeError) as info2:
        orcodec.unpackb(orcodec.packb({"qty": "x"}), type=Item)
    assert isinstance(info2.value, orcodec.ValidationError) and not isinstance(info2.value, json.JSONDecodeError)
    with pytest.raises(orcodec.ValidationError) as info3:
        orcodec.convert({"qty": "x"}, Item)
    assert type(info3.value) is orcodec.ValidationError


def test_json_validation_error_fields():
    doc = '[{"qty": 1},\n  {"qty": "x"}]'
    with pytest.raises(json.JSONDecodeError) as info:
        orcodec.loads(doc, type=list[Item])
    e = info.value
    assert str(e) == "Expected `int`, got `str` - at `$[1].qty`"
    assert e.msg == str(e)
    assert e.doc == doc
    assert e.pos == doc.index('"x"')
    assert (e.lineno, e.colno) == (2, doc.split("\n")[1].index('"x"') + 1)
    assert e.path == "$[1].qty"
    # Non-ASCII text before the value: pos counts characters.
    doc = '["\u00e9\u00e9", "x"]'
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.loads(doc.encode(), type=tuple[str, int])
    assert info.value.pos == doc.index('"x"')


@by_stream
def test_malformed_input_stays_the_format_decode_error(fmt):
    data = b'{"qty": 1' if fmt is JSON else b"\x81\xa3qty"
    with pytest.raises(fmt.format_error) as info:
        fmt.decode_data(data, type=Item)
    assert not isinstance(info.value, orcodec.ValidationError)
    untyped = pytest.raises(fmt.format_error)
    with untyped as plain:
        fmt.decode_data(data)
    assert str(info.value) == str(plain.value)


@by_stream
def test_trailing_data_after_a_typed_value(fmt):
    data = b"1 2" if fmt is JSON else b"\x01\x02"
    # orjson's words in JSON; orcodec's own in MessagePack (ormsgpack ignores trailing data).
    message = "unexpected content after document" if fmt is JSON else "trailing data"
    with pytest.raises(fmt.format_error, match=message):
        fmt.decode_data(data, type=int)


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return (self.x, self.y) == (other.x, other.y)


def point_hook(tp, obj):
    assert tp is Point
    if not isinstance(obj, list):
        raise TypeError(f"a Point is an array, not {type(obj).__name__}")
    return Point(*obj)


@by_format
def test_dec_hook(fmt):
    assert fmt.decode({"p": [1, 2]}, dict[str, Point], dec_hook=point_hook) == {"p": Point(1, 2)}
    assert fmt.decode([[1, 2]], list[Point], dec_hook=point_hook) == [Point(1, 2)]
    e = fmt.error([[1, 2], "x"], list[Point], dec_hook=point_hook)
    assert str(e) == "a Point is an array, not str - at `$[1]`"
    assert isinstance(e.__cause__, TypeError)
    assert str(e) == fmt.peer_error([[1, 2], "x"], list[Point], dec_hook=point_hook)


@by_format
def test_custom_type_without_dec_hook(fmt):
    assert str(fmt.error(1, Point)) == "Expected `Point`, got `int`" == fmt.peer_error(1, Point)


@by_format
def test_dec_hook_other_exceptions_propagate(fmt):
    def hook(tp, obj):
        raise KeyError("k")

    with pytest.raises(KeyError):
        fmt.decode(1, Point, dec_hook=hook)


def test_dec_hook_must_be_callable():
    with pytest.raises(TypeError, match="dec_hook must be callable"):
        orcodec.loads(b"1", type=int, dec_hook=1)
    with pytest.raises(TypeError, match="dec_hook must be callable"):
        orcodec.Decoder(int, dec_hook="x")


def test_convert_when_a_hook_mutates_the_input():
    data = {"a": [1, 2, 3], "b": [4, 5]}

    def hook(tp, obj):
        data["a"].clear()
        data.clear()
        return Point(obj, 0)

    out = orcodec.convert(data, dict[str, tuple[Point, ...]], dec_hook=hook)
    assert out["a"][0] == Point(1, 0)


@dataclass
class Mutating:
    a: list[int] = field(default_factory=list)

    def __post_init__(self):
        self.a.append(99)


@by_format
def test_post_init_that_mutates(fmt):
    assert fmt.decode({"a": [1]}, Mutating).a == [1, 99]


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_depth_limit_is_the_format_error():
    tp = list
    ok = nested(1024)
    assert orcodec.loads(ok, type=tp) is not None
    with pytest.raises(orcodec.JSONDecodeError, match="nesting deeper than 1024 levels") as info:
        orcodec.loads(nested(1025), type=tp)
    assert not isinstance(info.value, orcodec.ValidationError)
    data = b"\x91" * 1025 + b"\x90"
    with pytest.raises(orcodec.MsgpackDecodeError, match="nesting deeper than 1024 levels"):
        orcodec.unpackb(data, type=list)


@dataclass
class Tree:
    children: list[Tree]


def test_deep_recursive_type_in_a_small_thread_stack():
    results = []

    def run():
        try:
            depth = 1024 // 2
            data = b'{"children":[' * depth + b"]}" * depth
            out = orcodec.loads(data, type=Tree)
            n = 0
            while out.children:
                out = out.children[0]
                n += 1
            results.append(n)
            with pytest.raises(orcodec.JSONDecodeError, match="nesting deeper"):
                orcodec.loads(b'{"children":[' * 600 + b"]}" * 600, type=Tree)
            obj: dict = {"children": []}
            for _ in range(1100):
                obj = {"children": [obj]}
            with pytest.raises(orcodec.ValidationError, match="nesting deeper"):
                orcodec.convert(obj, Tree)
            results.append("ok")
        except BaseException as exc:  # noqa: BLE001 - reported below
            results.append(exc)

    old = threading.stack_size(1 << 20)
    try:
        t = threading.Thread(target=run)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert results == [511, "ok"], results


@dataclass
class Chain:
    child: Optional[Chain] = None  # noqa: UP045 (evaluated on 3.9 too)


def test_1024_nested_classes_fit_a_1_mib_thread_stack():
    # Every level of a nested class is a few stack frames of Rust recursion.
    data = b'{"child":' * 1024 + b"null" + b"}" * 1024
    packed = b"\x81\xa5child" * 1024 + b"\xc0"
    plain = orcodec.loads(data)
    results = []

    def run():
        try:
            for out in (
                orcodec.loads(data, type=Chain),
                orcodec.unpackb(packed, type=Chain),
                orcodec.convert(plain, Chain),
            ):
                n = 0
                while out is not None:
                    out = out.child
                    n += 1
                results.append(n)
            with pytest.raises(orcodec.JSONDecodeError, match="nesting deeper"):
                orcodec.loads(b'{"child":' * 1025 + b"null" + b"}" * 1025, type=Chain)
            with pytest.raises(orcodec.MsgpackDecodeError, match="nesting deeper"):
                orcodec.unpackb(b"\x81\xa5child" * 1025 + b"\xc0", type=Chain)
        except BaseException as exc:  # noqa: BLE001 - reported below
            results.append(exc)

    old = threading.stack_size(1 << 20)
    try:
        t = threading.Thread(target=run)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert results == [1024, 1024, 1024], results


def test_convert_of_a_self_containing_dict_stops_at_the_limit():
    d: dict = {"children": []}
    d["children"].append(d)
    with pytest.raises(orcodec.ValidationError, match="nesting deeper than 1024 levels"):
        orcodec.convert(d, Tree)


@pytest.mark.parametrize(
    ("data", "tp"),
    [
        (b"\xdd\xff\xff\xff\xff", list[int]),
        (b"\xdf\xff\xff\xff\xff", dict[str, int]),
        (b"\xdf\xff\xff\xff\xff", Item),
        (b"\xdb\xff\xff\xff\xff", str),
        (b"\xc6\xff\xff\xff\xff", bytes),
    ],
)
def test_huge_declared_lengths_are_refused_before_allocating(data, tp):
    with pytest.raises(orcodec.MsgpackDecodeError, match="declares") as info:
        orcodec.unpackb(data, type=tp)
    assert not isinstance(info.value, orcodec.ValidationError)


def test_unhashable_type_is_compiled_each_call():
    tp = Annotated[int, {"not": "hashable"}]
    assert orcodec.loads(b"1", type=tp) == 1
    assert orcodec.convert(2, tp) == 2


def test_type_none_is_untyped():
    assert orcodec.loads(b'{"a": 1}', type=None) == {"a": 1}
    assert orcodec.unpackb(orcodec.packb([1]), type=None) == [1]
    assert orcodec.loads(b"null", type=type(None)) is None


def test_msgspec_messages_agree_on_a_corpus():
    @dataclass
    class Rec:
        a: int
        b: list[str]
        c: Optional[dict[str, float]] = None  # noqa: UP045

    corpus = [
        {"a": "1", "b": []},
        {"a": 1, "b": [1]},
        {"a": 1, "b": ["x"], "c": {"k": "v"}},
        {"b": []},
        [],
        {"a": 1, "b": "x"},
        {"a": None, "b": []},
    ]
    for value in corpus:
        for fmt in (JSON, MSGPACK, CONVERT):
            mine = fmt.error(value, Rec)
            assert str(mine) == fmt.peer_error(value, Rec), (fmt, value)


@by_format
def test_long_values_are_quoted_in_part(fmt):
    # A message quotes at most 200 bytes of a value, cut on a character
    # boundary and marked with "...": a message about a value of any size
    # stays short (msgspec quotes it whole).
    import enum
    from typing import Literal

    class Color(enum.Enum):
        RED = "red"

    long = "é" * 150 + "x" * 1000  # 300 bytes of "é", then ASCII
    assert str(fmt.error(long, Color)) == "Invalid enum value '" + "é" * 100 + "'..."
    assert str(fmt.error("ab" * 100, Color)) == "Invalid enum value '" + "ab" * 100 + "'"
    assert str(fmt.error("ab" * 100 + "c", Literal["red"])) == "Invalid enum value '" + "ab" * 100 + "'..."
    dec = orcodec.Decoder(Item, forbid_unknown_fields=True)
    key = "k" * 199 + "é" + "k" * 10**6
    value = {"qty": 1, key: 0}
    with pytest.raises(orcodec.ValidationError) as info:
        if fmt is CONVERT:
            dec.convert(value)
        elif fmt is JSON:
            dec.loads(orcodec.dumps(value))
        else:
            dec.unpackb(orcodec.packb(value))
    assert str(info.value) == "Object contains unknown field `" + "k" * 199 + "...`"

"""Typed decoding into list, tuple, set, frozenset, dict and their abstract forms: items
and keys validated with their paths, JSON object keys converted to the key type, lengths."""

from __future__ import annotations

import collections.abc as cabc
import enum
import typing
import uuid
from typing import Any, Literal

import orcodec
import pytest
from typed_helpers import CONVERT, FORMATS, JSON, MSGPACK, exact

by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)


@by_format
@pytest.mark.parametrize(
    ("tp", "value", "expected"),
    [
        (list[int], [1, 2], [1, 2]),
        (list, [1, "a"], [1, "a"]),
        (typing.List[str], ["a"], ["a"]),  # noqa: UP006 - the typing alias
        (cabc.Sequence[int], [1], [1]),
        (cabc.MutableSequence[int], [1], [1]),
        (cabc.Collection[int], [1], [1]),
        (cabc.Iterable[int], [1], [1]),
        (tuple[int, ...], [1, 2], (1, 2)),
        (tuple, [1, "a"], (1, "a")),
        (tuple[int, str], [1, "a"], (1, "a")),
        (tuple[()], [], ()),
        (set[int], [1, 2, 2], {1, 2}),
        (cabc.Set[int], [1], {1}),
        (cabc.MutableSet[int], [1], {1}),
        (frozenset[str], ["a"], frozenset({"a"})),
        (dict[str, int], {"a": 1, "b": 2}, {"a": 1, "b": 2}),
        (dict, {"a": [1]}, {"a": [1]}),
        (typing.Dict[str, Any], {"a": None}, {"a": None}),  # noqa: UP006 - the typing alias
        (cabc.Mapping[str, int], {"a": 1}, {"a": 1}),
        (cabc.MutableMapping[str, int], {"a": 1}, {"a": 1}),
        (list[list[list[int]]], [[[1]], [[2, 3]]], [[[1]], [[2, 3]]]),
        (dict[str, list[int]], {}, {}),
        (list[int], [], []),
    ],
)
def test_containers(fmt, tp, value, expected):
    exact(fmt.decode(value, tp), expected)


@by_format
def test_item_paths_and_messages(fmt):
    assert (
        str(fmt.error([1, "x"], list[int]))
        == "Expected `int`, got `str` - at `$[1]`"
        == fmt.peer_error([1, "x"], list[int])
    )
    assert str(fmt.error([1, "x"], tuple[int, int])) == "Expected `int`, got `str` - at `$[1]`"
    assert str(fmt.error([1, "x"], set[int])) == fmt.peer_error([1, "x"], set[int])
    value = {"a": {"b": [1, "x"]}}
    tp = dict[str, dict[str, list[int]]]
    e = fmt.error(value, tp)
    assert str(e) == "Expected `int`, got `str` - at `$[...][...][1]`" == fmt.peer_error(value, tp)
    assert e.path == "$[...][...][1]"
    assert (
        str(fmt.error({"a": 1}, list[int])) == "Expected `array`, got `object`" == fmt.peer_error({"a": 1}, list[int])
    )
    assert (
        str(fmt.error([1], dict[str, int])) == "Expected `object`, got `array`" == fmt.peer_error([1], dict[str, int])
    )


@by_format
def test_fixed_tuple_length(fmt):
    got = ", got 1" if fmt is not JSON else ""
    assert (
        str(fmt.error([1], tuple[int, int]))
        == f"Expected `array` of length 2{got}"
        == fmt.peer_error([1], tuple[int, int])
    )
    got = ", got 3" if fmt is not JSON else ""
    assert str(fmt.error([1, 2, 3], tuple[int, int])) == f"Expected `array` of length 2{got}"


@by_format
@pytest.mark.parametrize("tp", [tuple[()], typing.Tuple[()]], ids=repr)  # noqa: UP006 - the typing alias
def test_the_empty_tuple_takes_no_items(fmt, tp):
    # On Python 3.11 and newer `tuple[()]` has no arguments, as bare `tuple` has:
    # it is still the empty tuple, not a tuple of any length.
    exact(fmt.decode([], tp), ())
    got = ", got 1" if fmt is not JSON else ""
    assert str(fmt.error([1], tp)) == f"Expected `array` of length 0{got}" == fmt.peer_error([1], tp)
    assert orcodec.json_schema(tp) == {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array",
        "maxItems": 0,
    }
    # The bare forms stay tuples of any length.
    bare = tuple if tp is tuple[()] else typing.Tuple  # noqa: UP006 - the typing alias
    exact(fmt.decode([1, "a"], bare), (1, "a"))


class Code(enum.IntEnum):
    A = 1


class Name(enum.Enum):
    X = "x"


@by_format
@pytest.mark.parametrize(
    ("tp", "value", "expected"),
    [
        (dict[int, str], {1: "a", -2: "b"}, {1: "a", -2: "b"}),
        (dict[float, str], {1.5: "a"}, {1.5: "a"}),
        (dict[Code, int], {1: 2}, {Code.A: 2}),
        (dict[Name, int], {"x": 2}, {Name.X: 2}),
        (dict[Literal[1, 2], int], {2: 0}, {2: 0}),
        (dict[Literal["a"], int], {"a": 0}, {"a": 0}),
    ],
)
def test_dict_keys_converted(fmt, tp, value, expected):
    exact(fmt.decode(value, tp), expected)
    if fmt is not MSGPACK:
        exact(fmt.peer(value, tp), expected)


def test_json_int_keys_must_be_numbers():
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.loads(b'{"x": 1}', type=dict[int, int])
    assert str(info.value) == "Expected `int`, got `str` - at `key` in `$`"
    assert info.value.path == "$"
    with pytest.raises(orcodec.ValidationError, match=r"^Expected `int`, got `str` - at `\$\[\.\.\.\]`$"):
        orcodec.loads(b'{"1": "x"}', type=dict[int, int])


@pytest.mark.parametrize("fmt", [MSGPACK, CONVERT], ids=repr)  # JSON keys are always text
def test_str_key_of_another_kind(fmt):
    e = fmt.error({1: 1}, dict[str, int])
    assert str(e) == "Expected `str`, got `int` - at `key` in `$`"
    if fmt is CONVERT:
        assert str(e) == fmt.peer_error({1: 1}, dict[str, int])


@by_format
def test_uuid_keys(fmt):
    u = uuid.UUID(int=5)
    exact(fmt.decode({str(u): [1]}, dict[uuid.UUID, list[int]]), {u: [1]})


def test_convert_takes_tuples_and_sets_for_sequences():
    exact(orcodec.convert((1, 2), list[int]), [1, 2])
    exact(orcodec.convert({1}, list[int]), [1])
    exact(orcodec.convert(frozenset({1}), set[int]), {1})
    exact(orcodec.convert([1, 2], tuple[int, ...]), (1, 2))


def test_unhashable_set_items_are_a_validation_error():
    with pytest.raises(orcodec.ValidationError, match="unhashable"):
        orcodec.convert([[1]], set[Any])


def test_json_any_parts_refuse_numbers_beyond_the_doubles_as_untyped_loads():
    # The same error, at the same place, as loads without a type (orjson's); a float
    # target keeps msgspec's ValidationError.
    for data, tp in ((b"[1, 1e400]", Any), (b"[1, -1e400]", list[Any]), (b'{"a": [1, 1' + b"0" * 400 + b"]}", Any)):
        with pytest.raises(orcodec.JSONDecodeError) as typed:
            orcodec.loads(data, type=tp)
        assert not isinstance(typed.value, orcodec.ValidationError)
        with pytest.raises(orcodec.JSONDecodeError) as untyped:
            orcodec.loads(data)
        assert (typed.value.msg, typed.value.pos) == (untyped.value.msg, untyped.value.pos)
        assert typed.value.msg == "number is infinity when parsed as double"
    with pytest.raises(orcodec.ValidationError, match="^Number out of range - at `\\$\\[1\\]`$"):
        orcodec.loads(b"[1, 1e400]", type=list[float])


def test_msgpack_any_parts_follow_untyped_unpackb():
    data = orcodec.packb({1: [1]}, option=orcodec.OPT_NON_STR_KEYS)
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(data, type=Any)
    assert not isinstance(info.value, orcodec.ValidationError)
    with pytest.raises(orcodec.MsgpackDecodeError) as untyped:
        orcodec.unpackb(data)
    assert str(info.value) == str(untyped.value) == "invalid type FixPos(1)"
    assert info.value.pos == untyped.value.pos == 1
    assert info.value.__notes__ == untyped.value.__notes__
    assert orcodec.unpackb(data, type=Any, option=orcodec.OPT_NON_STR_KEYS) == {1: [1]}
    # A typed dict reads int keys whatever the option.
    assert orcodec.unpackb(data, type=dict[int, list[int]]) == {1: [1]}
    ext = orcodec.packb([orcodec.Ext(3, b"ab")])
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(ext, type=list[Any])
    with pytest.raises(orcodec.MsgpackDecodeError) as untyped:
        orcodec.unpackb(ext)
    assert str(info.value) == str(untyped.value) == "ext_hook missing"
    assert info.value.pos == untyped.value.pos
    assert orcodec.unpackb(ext, type=list[Any], ext_hook=orcodec.Ext) == [orcodec.Ext(3, b"ab")]
    assert orcodec.unpackb(orcodec.packb([[1, 2]]), type=list[Any]) == [[1, 2]]


def test_msgpack_container_keys_are_refused_for_typed_targets():
    with pytest.raises(orcodec.ValidationError, match=r"^Expected `str`, got `array` - at `key` in `\$`$"):
        orcodec.unpackb(b"\x81\x91\x01\x02", type=dict[str, int])

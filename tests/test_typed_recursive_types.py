"""Recursive NamedTuples (alone, in unions, in a cycle with a dataclass) and generic
dataclasses used without parameters (recursive or not, with bounds and constraints), in
JSON, MessagePack and convert, against msgspec: the same values and the same messages."""

from __future__ import annotations

import dataclasses
from typing import Generic, NamedTuple, Optional, TypeVar, Union

import msgspec
import orcodec
import pytest
from typed_helpers import FORMATS, exact

by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)


class Linked(NamedTuple):
    v: int
    nxt: Optional[Linked]  # noqa: UP007, UP045 - the typing forms as reported


class IntOrLinked(NamedTuple):
    v: int
    nxt: Union[int, IntOrLinked]  # noqa: UP007, UP045 - the typing forms as reported


class Entered(NamedTuple):
    v: int
    d: Optional[Via] = None  # noqa: UP007, UP045 - the typing forms as reported


@dataclasses.dataclass
class Via:
    n: Optional[Entered] = None  # noqa: UP007, UP045 - the typing forms as reported


def same_as_msgspec(fmt, value, tp):
    out = fmt.decode(value, tp)
    exact(out, fmt.peer(value, tp))
    return out


@by_format
def test_recursive_namedtuple(fmt):
    out = same_as_msgspec(fmt, [1, [2, None]], Linked)
    exact(out, Linked(1, Linked(2, None)))
    deep = None
    for i in range(50):
        deep = [i, deep]
    same_as_msgspec(fmt, deep, Linked)


@by_format
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([1, {"a": 1}], "Expected `array | null`, got `object` - at `$[1]`"),
        ([1, [2, "x"]], "Expected `array | null`, got `str` - at `$[1][1]`"),
        ([1, [2, None, 3]], "Expected `array` of length 2 - at `$[1]`"),
        ([1, ["x", None]], "Expected `int`, got `str` - at `$[1][0]`"),
    ],
)
def test_recursive_namedtuple_errors(fmt, value, message):
    # msgspec shows the length found where the input states it ahead (MessagePack,
    # Python objects), as orcodec does.
    got = str(fmt.error(value, Linked))
    assert got == fmt.peer_error(value, Linked)
    assert got.startswith(message.split(" - at")[0])
    assert got.endswith(message.split(" - at")[1])


@by_format
def test_recursive_namedtuple_in_a_union_with_int(fmt):
    out = same_as_msgspec(fmt, [1, [2, 3]], IntOrLinked)
    exact(out, IntOrLinked(1, IntOrLinked(2, 3)))
    message = str(fmt.error([1, "x"], IntOrLinked))
    assert message == fmt.peer_error([1, "x"], IntOrLinked)
    assert message == "Expected `int | array`, got `str` - at `$[1]`"


@by_format
def test_namedtuple_dataclass_cycle_entered_at_the_namedtuple(fmt):
    out = same_as_msgspec(fmt, [1, {"n": [2, {"n": None}]}], Entered)
    exact(out, Entered(1, Via(Entered(2, Via(None)))))
    same_as_msgspec(fmt, [1], Entered)
    message = str(fmt.error([1, {"n": {}}], Entered))
    assert message == fmt.peer_error([1, {"n": {}}], Entered)
    assert message == "Expected `array | null`, got `object` - at `$[1].n`"
    # Entered at the dataclass it worked before; it still does.
    same_as_msgspec(fmt, {"n": [1, {"n": [2]}]}, Via)


class Key(NamedTuple):
    k: Optional[dict[Key, int]]  # noqa: UP007, UP045 - the typing forms as reported


def test_recursive_namedtuple_as_a_dict_key_is_refused_like_any_class():
    with pytest.raises(TypeError, match="dict keys must be str, int, float"):
        orcodec.Decoder(Key)


def test_convert_a_recursive_namedtuple_from_tuples_and_instances():
    value = Linked(1, Linked(2, None))
    exact(orcodec.convert(value, Linked), value)
    exact(orcodec.convert([1, Linked(2, None)], Linked), value)
    exact(orcodec.convert([1, (2, 3)], IntOrLinked), msgspec.convert([1, (2, 3)], IntOrLinked))
    with pytest.raises(orcodec.ValidationError, match=r"^Expected `int`, got `str` - at `\$\[1\]\[0\]`$"):
        orcodec.convert([1, Linked("x", None)], Linked)


T = TypeVar("T")
B = TypeVar("B", bound=int)
C = TypeVar("C", int, str)


@dataclasses.dataclass
class Tree(Generic[T]):
    value: T
    children: list[Tree[T]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Bounded(Generic[B]):
    b: B
    kids: list[Bounded[B]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Constrained(Generic[C]):
    c: C
    kids: list[Constrained[C]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Swapped(Generic[T, B]):
    a: T
    b: B
    nxt: Optional[Swapped[B, T]] = None  # noqa: UP007, UP045 - the typing forms as reported


@dataclasses.dataclass
class Box(Generic[T]):
    x: T


@dataclasses.dataclass
class Outer(Generic[T]):
    b: Box[list[T]]


TREE = {"value": 1, "children": [{"value": "x", "children": [{"value": [None]}]}, {"value": {"a": 1.5}}]}


@by_format
def test_unparametrized_recursive_generic_reads_its_variable_as_any(fmt):
    out = same_as_msgspec(fmt, TREE, Tree)
    assert out.children[0].children[0].value == [None]
    # Parametrized, the variable is checked at every level.
    message = str(fmt.error(TREE, Tree[int]))
    assert message == fmt.peer_error(TREE, Tree[int])
    assert message == "Expected `int`, got `str` - at `$.children[0].value`"
    # The two compile to different decoders: neither disturbs the other.
    same_as_msgspec(fmt, TREE, Tree)


@by_format
def test_unparametrized_recursive_generic_with_a_bound(fmt):
    value = {"b": 1, "kids": [{"b": 2}]}
    exact(same_as_msgspec(fmt, value, Bounded), Bounded(1, [Bounded(2)]))
    bad = {"b": 1, "kids": [{"b": "x"}]}
    message = str(fmt.error(bad, Bounded))
    assert message == fmt.peer_error(bad, Bounded)
    assert message == "Expected `int`, got `str` - at `$.kids[0].b`"


@by_format
def test_unparametrized_recursive_generic_with_constraints_reads_their_union(fmt):
    # msgspec refuses constrained variables left unbound (a TypeError when the type is
    # compiled); orcodec reads them as the union of the constraints, as it does for a
    # non-recursive generic.
    with pytest.raises(TypeError, match="Unbound TypeVar `~C` has constraints"):
        fmt.peer({"c": 1}, Constrained)
    exact(fmt.decode({"c": 1, "kids": [{"c": "x"}]}, Constrained), Constrained(1, [Constrained("x")]))
    assert str(fmt.error({"c": 1.5}, Constrained)) == "Expected `int | str`, got `float` - at `$.c`"


@by_format
def test_generic_variables_swapped_at_each_level(fmt):
    value = {"a": "s", "b": 1, "nxt": {"a": 1, "b": "x"}}
    exact(same_as_msgspec(fmt, value, Swapped), Swapped("s", 1, Swapped(1, "x")))
    exact(same_as_msgspec(fmt, value, Swapped[str, int]), Swapped("s", 1, Swapped(1, "x")))
    bad = {"a": "s", "b": 1, "nxt": {"a": "x", "b": "x"}}
    message = str(fmt.error(bad, Swapped[str, int]))
    assert message == fmt.peer_error(bad, Swapped[str, int])
    assert message == "Expected `int`, got `str` - at `$.nxt.a`"
    # Unparametrized, `b` is bound to int at the top, `a` (its T) below.
    message = str(fmt.error({"a": None, "b": 1, "nxt": {"a": "x", "b": 2}}, Swapped))
    assert message == "Expected `int`, got `str` - at `$.nxt.a`"


@by_format
def test_a_variable_inside_an_argument_of_another_generic(fmt):
    # `Box[list[T]]` inside `Outer[int]` is `Box[list[int]]`: this recursed without end.
    exact(same_as_msgspec(fmt, {"b": {"x": [1]}}, Outer[int]), Outer(Box([1])))
    bad = {"b": {"x": ["a"]}}
    message = str(fmt.error(bad, Outer[int]))
    assert message == fmt.peer_error(bad, Outer[int])
    assert message == "Expected `int`, got `str` - at `$.b.x[0]`"
    exact(same_as_msgspec(fmt, bad, Outer), Outer(Box(["a"])))


@dataclasses.dataclass
class Grow(Generic[T]):
    x: T
    nxt: Optional[Grow[list[T]]] = None  # noqa: UP007, UP045 - the typing forms as reported


def test_a_generic_whose_arguments_grow_at_each_level_is_refused():
    # msgspec recurses while analyzing the type (a RecursionError on 3.11 and
    # 3.12; on 3.13 it runs on for minutes), so it is not asked here.
    for tp in (Grow, Grow[int]):
        with pytest.raises(TypeError, match=r"is not supported: the class is used with more than 64 different type"):
            orcodec.Decoder(tp)


def test_subclass_of_a_generic_parametrized_by_its_own_variable():
    @dataclasses.dataclass
    class Page(Generic[T]):
        items: list[T]

    U = TypeVar("U")

    @dataclasses.dataclass
    class Named(Page[U], Generic[U]):
        name: str = ""

    @dataclasses.dataclass
    class Same(Page[T]):
        name: str = ""

    assert orcodec.convert({"items": [1]}, Named[int]) == Named([1])
    with pytest.raises(orcodec.ValidationError, match=r"^Expected `int`, got `str` - at `\$.items\[0\]`$"):
        orcodec.convert({"items": ["a"]}, Named[int])
    assert orcodec.convert({"items": ["a"]}, Named) == Named(["a"])
    assert orcodec.convert({"items": ["a"]}, Same) == Same(["a"])
    assert orcodec.convert({"items": ["a"]}, Same) == msgspec.convert({"items": ["a"]}, Same)

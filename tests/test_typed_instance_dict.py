"""Typed decoding into classes whose instances keep a ``__dict__``: the fields are stored
as ``object.__setattr__`` (the generic setattr) stores them, whatever the class looks like
and however it changes between decodes. Each result is compared with a reference built
in Python with ``object.__new__`` and ``object.__setattr__`` in the same order (the
instance ``__dict__``'s content and order, ``vars``, equality, pickling, later attribute
changes), and with msgspec where it decodes the same class.

On CPython 3.11 to 3.13 the values go straight into the instance's inline values; these
tests hold that fast path to the generic one: fresh classes, classes whose shared keys
are full or hold other names first, data descriptors present from the start or added
later, a descriptor whose class gains ``__set__``, a ``__dict__`` made while the instance
is being filled, subclasses, mixed ``__slots__`` and ``__dict__``, custom ``__new__``."""

from __future__ import annotations

import copy
import dataclasses
import datetime
import decimal
import gc
import pickle
import sys
import uuid
from typing import Any, Optional

import attrs
import msgspec
import orcodec
import pytest
from helpers import slots_dataclass
from typed_helpers import FORMATS, STREAMS

by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)
by_stream = pytest.mark.parametrize("fmt", STREAMS, ids=repr)


class Token:
    """A type orcodec does not know (decoded by a dec_hook)."""

    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, Token) and other.v == self.v

    __hash__ = None  # type: ignore[assignment]


def reference(cls: type, value: dict[str, Any], decoded: dict[str, Any] | None = None) -> Any:
    """What the generic path builds: ``object.__new__``, each input key's value set with
    ``object.__setattr__`` in input order, then the missing fields' defaults in field
    order, then ``__post_init__``. ``decoded`` gives the already-typed value of a key
    (for fields that are not plain builtins)."""
    obj = object.__new__(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for k, v in value.items():
        if k in fields and fields[k].init:
            object.__setattr__(obj, k, (decoded or {}).get(k, v))
    for name, f in fields.items():
        if name in value and f.init:
            continue
        if f.default is not dataclasses.MISSING:
            object.__setattr__(obj, name, f.default)
        elif f.default_factory is not dataclasses.MISSING:
            object.__setattr__(obj, name, f.default_factory())
    if hasattr(cls, "__post_init__"):
        obj.__post_init__()
    return obj


def same_instance(got: Any, want: Any) -> None:
    assert type(got) is type(want)
    assert list(vars(got).items()) == list(vars(want).items())
    assert got == want


def check(fmt: Any, cls: type, value: dict[str, Any], times: int = 3, peer: bool = True) -> Any:
    """Decodes ``value`` into ``cls`` a few times (the first decode of a class works out
    where its fields go, the next ones use it) and compares each result with the
    reference built just before it, and with msgspec's result."""
    out = None
    for _ in range(times):
        want = reference(cls, value)
        out = fmt.decode(value, cls)
        same_instance(out, want)
        if peer:
            # msgspec leaves a plain default to the class attribute (not in the
            # instance dict): the same value, and the input's fields in the same order.
            theirs = fmt.peer(value, cls)
            assert theirs == out
            assert [k for k in vars(theirs) if k in value] == [k for k in vars(out) if k in value]
    return out


@by_format
def test_fresh_class_first_and_later_decodes(fmt):
    @dataclasses.dataclass
    class Fresh:
        a: int
        b: str
        c: list[int] = dataclasses.field(default_factory=list)
        d: Optional[float] = None  # noqa: UP045 (evaluated on 3.9 too)

    # Never instantiated before: the class's shared keys learn the names from the decode.
    check(fmt, Fresh, {"b": "x", "a": 1})
    check(fmt, Fresh, {"d": 2.5, "c": [1], "b": "y", "a": 2})
    check(fmt, Fresh, {"a": 3, "b": "z", "c": [], "d": None})


@by_format
def test_input_order_is_the_dict_order(fmt):
    @dataclasses.dataclass
    class Ordered:
        a: int
        b: int
        c: int = 0

    # Instances made by __init__ first: the shared keys hold a, b, c in that order.
    Ordered(1, 2)
    out = check(fmt, Ordered, {"c": 3, "b": 2, "a": 1})
    assert list(vars(out)) == ["c", "b", "a"]
    out = check(fmt, Ordered, {"b": 2, "a": 1})
    assert list(vars(out)) == ["b", "a", "c"]


@pytest.mark.parametrize("fmt", [f for f in STREAMS if f.name == "json"], ids=repr)
def test_repeated_key_keeps_its_first_place(fmt):
    @dataclasses.dataclass
    class Twice:
        a: int
        b: int

    for _ in range(3):
        out = orcodec.loads(b'{"a": 1, "b": 2, "a": 3}', type=Twice)
        assert list(vars(out).items()) == [("a", 3), ("b", 2)]
        assert out == msgspec.json.decode(b'{"a": 1, "b": 2, "a": 3}', type=Twice)


@by_format
def test_later_changes_to_the_instance(fmt):
    @dataclasses.dataclass
    class Changed:
        a: int
        b: str = "b"

    for _ in range(3):
        out = fmt.decode({"a": 1}, Changed)
        want = reference(Changed, {"a": 1})
        for obj in (out, want):
            obj.extra = [1]
            del obj.a
            obj.a = 5
            obj.b = "c"
        same_instance(out, want)
        assert out.a == 5 and out.extra == [1]
        same_instance(copy.copy(out), want)
        same_instance(copy.deepcopy(out), want)


@by_format
def test_values_compare_and_pickle(fmt):
    @dataclasses.dataclass
    class Point:
        x: int
        y: int = 0

    globals()["Point"] = Point  # picklable by name
    Point.__qualname__ = "Point"
    try:
        for _ in range(3):
            out = fmt.decode({"x": 1, "y": 2}, Point)
            assert out == Point(1, 2) and out.x == 1 and out.y == 2
            same_instance(pickle.loads(pickle.dumps(out)), Point(1, 2))
            assert vars(out) == {"x": 1, "y": 2}
    finally:
        del globals()["Point"]


@by_format
def test_setattr_override_and_frozen_are_bypassed(fmt):
    calls = []

    @dataclasses.dataclass
    class Guarded:
        a: int
        b: int = 0

        def __setattr__(self, name, value):
            calls.append(name)
            object.__setattr__(self, name, value * 100)

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: int
        b: tuple[int, ...] = ()

    check(fmt, Guarded, {"a": 1, "b": 2})
    assert calls == []
    for _ in range(3):
        out = fmt.decode({"b": [1, 2], "a": 1}, Frozen)
        assert list(vars(out).items()) == [("b", (1, 2)), ("a", 1)]
        assert out == Frozen(1, (1, 2)) and hash(out) == hash(Frozen(1, (1, 2)))
        with pytest.raises(dataclasses.FrozenInstanceError):
            out.a = 2  # type: ignore[misc]


@by_format
def test_property_shadowing_a_field(fmt):
    @dataclasses.dataclass
    class WithProperty:
        a: int
        b: int = 0

    def set_b(self, v):
        self.__dict__["_b"] = v * 10

    check(fmt, WithProperty, {"a": 1, "b": 2})
    # Added after decodes that worked out where the fields go: the setter now takes `b`.
    WithProperty.b = property(lambda self: self.__dict__.get("_b"), set_b)
    for _ in range(3):
        out = fmt.decode({"a": 1, "b": 2}, WithProperty)
        assert vars(out) == {"a": 1, "_b": 20}
        assert out.b == 20
    # A read-only property: the generic setattr's AttributeError, as before.
    WithProperty.b = property(lambda self: 7)
    with pytest.raises(AttributeError):
        fmt.decode({"a": 1, "b": 2}, WithProperty)
    del WithProperty.b
    out = check(fmt, WithProperty, {"a": 1, "b": 2})
    assert vars(out) == {"a": 1, "b": 2}


@by_format
def test_descriptor_whose_class_gains_set(fmt):
    class Marker:
        def __eq__(self, other):
            return isinstance(other, Marker)

        __hash__ = object.__hash__

    @dataclasses.dataclass
    class WithMarker:
        a: int
        m: Any = dataclasses.field(default_factory=Marker)

    WithMarker.m = Marker()  # a class attribute of a class without __set__
    check(fmt, WithMarker, {"a": 1, "m": 5})
    seen = []
    Marker.__set__ = lambda self, obj, value: seen.append(value)
    for _ in range(3):
        out = fmt.decode({"a": 1, "m": 5}, WithMarker)
        assert vars(out) == {"a": 1}
    assert seen == [5, 5, 5]
    del Marker.__set__
    out = check(fmt, WithMarker, {"a": 1, "m": 5})
    assert vars(out) == {"a": 1, "m": 5}


@by_format
def test_post_init(fmt):
    @dataclasses.dataclass
    class Post:
        a: int
        b: int = 0
        total: int = dataclasses.field(init=False, default=0)

        def __post_init__(self):
            self.total = self.a + self.b
            self.seen = list(vars(self))

    for _ in range(3):
        out = fmt.decode({"b": 2, "a": 1}, Post)
        assert list(vars(out).items()) == [("b", 2), ("a", 1), ("total", 3), ("seen", ["b", "a", "total"])]
        assert out == Post(1, 2)


@by_format
def test_subclasses_and_their_bases(fmt):
    @dataclasses.dataclass
    class Base:
        a: int
        b: str = "base"

    @dataclasses.dataclass
    class Child(Base):
        c: float = 1.5
        b: str = "child"

    for _ in range(2):
        check(fmt, Base, {"b": "x", "a": 1})
        check(fmt, Child, {"c": 2.0, "a": 1})
        check(fmt, Child, {"a": 1, "b": "y", "c": 3.0})


@by_format
def test_slots_base_with_dict_subclass(fmt):
    @slots_dataclass
    class SlotBase:
        a: int
        b: int = 0

    @dataclasses.dataclass
    class Mixed(SlotBase):
        c: int = 0
        d: str = "d"

    for _ in range(3):
        out = fmt.decode({"d": "x", "a": 1, "c": 2}, Mixed)
        assert out == Mixed(1, 0, 2, "x")
        assert list(vars(out).items()) == [("d", "x"), ("c", 2)]
        assert out.a == 1 and out.b == 0


@by_format
def test_shared_keys_full_of_other_names(fmt):
    @dataclasses.dataclass
    class Crowded:
        a: int
        b: int = 0

    # An instance that set 40 other attributes first: the class's shared keys are full
    # before they ever see `a` and `b`, so decoded instances make a real __dict__.
    other = object.__new__(Crowded)
    for i in range(40):
        setattr(other, f"x{i}", i)
    for _ in range(3):
        out = check(fmt, Crowded, {"b": 2, "a": 1})
        assert list(vars(out)) == ["b", "a"]


@by_format
def test_more_fields_than_shared_keys_hold(fmt):
    names = [f"f{i}" for i in range(40)]
    Wide = dataclasses.make_dataclass("Wide", [(n, int, dataclasses.field(default=-1)) for n in names])
    value = {n: i for i, n in enumerate(reversed(names))}
    for _ in range(3):
        out = check(fmt, Wide, value)
        assert list(vars(out).items()) == list(value.items())
    check(fmt, Wide, {"f3": 3, "f39": 39})


@by_format
def test_dict_made_while_the_instance_is_filled(fmt):
    """A hook run in the middle of a fill asks for the half-built instance's __dict__
    (through the collector): the fields that follow go into that dict."""

    @dataclasses.dataclass
    class Host:
        a: int
        t: Token
        b: int = 0
        c: str = "c"

    def dec_hook(tp, value):
        for obj in gc.get_objects():
            if type(obj) is Host:
                vars(obj)  # makes the instance's dict
        return tp(value)

    for _ in range(3):
        value = {"a": 1, "t": 5, "b": 2}
        want = reference(Host, value, {"t": Token(5)})
        out = fmt.decode(value, Host, dec_hook=dec_hook)
        same_instance(out, want)


@by_format
def test_custom_new(fmt):
    @dataclasses.dataclass
    class Plain:
        a: int
        b: int = 0

    class Other(Plain):
        pass

    @dataclasses.dataclass
    class Redirected(Plain):
        def __new__(cls, *args, **kwargs):
            return object.__new__(Other)

    for _ in range(3):
        out = fmt.decode({"b": 2, "a": 1}, Redirected)
        assert type(out) is Other
        assert list(vars(out).items()) == [("b", 2), ("a", 1)]
        check(fmt, Plain, {"b": 2, "a": 1})


@by_format
def test_attrs_classes_with_a_dict(fmt):
    @attrs.define(slots=False)
    class Loose:
        a: int
        b: list[int] = attrs.Factory(list)

    for _ in range(3):
        out = fmt.decode({"b": [1], "a": 1}, Loose)
        assert list(vars(out).items()) == [("b", [1]), ("a", 1)]
        assert out == Loose(1, [1])


@by_format
def test_classes_with_a_class_attribute_default(fmt):
    """A field whose default is a class attribute (what dataclasses set for a plain
    default) and a method of the same name in a base class: neither is a data
    descriptor, so the instance gets the value."""

    class Named:
        def label(self):
            return "method"

    @dataclasses.dataclass
    class Labeled(Named):
        label: str  # type: ignore[assignment]
        n: int = 3

    for _ in range(3):
        out = check(fmt, Labeled, {"label": "x"})
        assert out.label == "x" and vars(out) == {"label": "x", "n": 3}


@by_stream
def test_many_instances_and_reference_counts(fmt):
    @dataclasses.dataclass
    class Cell:
        k: str
        v: list[int]
        w: int = 0

    shared = "a shared value that is not interned" + str(id(fmt))
    value = [{"k": shared, "v": [1, 2], "w": 5}] * 500
    data = fmt.encode(value)
    fmt.decode_data(data, type=list[Cell])  # the compiled type, cached, holds the class
    gc.collect()
    before = sys.getrefcount(Cell)
    for _ in range(5):
        out = fmt.decode_data(data, type=list[Cell])
        assert out == [Cell(shared, [1, 2], 5)] * 500
        assert [list(vars(o)) for o in out] == [["k", "v", "w"]] * 500
        del out
    gc.collect()
    assert sys.getrefcount(Cell) == before


def test_json_keys_in_and_out_of_definition_order():
    """The JSON input matches the next field's key in place; every other way of writing
    a key still finds its field (or none), as msgspec does."""

    @dataclasses.dataclass
    class Keys:
        name: str
        é: int = 0
        n: int = 1
        late: int = dataclasses.field(init=False, default=9)

    docs = [
        b'{"name": "a", "\xc3\xa9": 2, "n": 3}',
        b'{"n": 3, "name": "a"}',
        b'{"n\\u0061me": "a", "\\u00e9": 2}',
        b'{ "name" : "a" , "names": 1, "nam": 2, "\xc3\xa9" : 5 }',
    ]
    for doc in docs:
        for _ in range(2):
            out = orcodec.loads(doc, type=Keys)
            assert out == msgspec.json.decode(doc, type=Keys)
            assert list(vars(out).items()) == list(vars(reference(Keys, msgspec.json.decode(doc))).items())
    # An init=False field's key is skipped like an unknown one (msgspec reads it).
    out = orcodec.loads(b'{"name": "a", "late": 5, "n": 4}', type=Keys)
    assert list(vars(out).items()) == [("name", "a"), ("n", 4), ("\xe9", 0), ("late", 9)]
    strict = orcodec.Decoder(Keys, forbid_unknown_fields=True)
    for doc, key in [(b'{"name": "a", "late": 5}', "late"), (b'{"name": "a", "\xc3\xa9": 1, "x": 2}', "x")]:
        with pytest.raises(orcodec.ValidationError) as info:
            strict.loads(doc)
        assert str(info.value) == f"Object contains unknown field `{key}`"
    with pytest.raises(orcodec.JSONDecodeError):
        orcodec.loads(b'{"name" "a"}', type=Keys)
    with pytest.raises(orcodec.JSONDecodeError):
        orcodec.loads(b'{"name": "a", "n"', type=Keys)


# Module-level: the annotations (strings here) name each other.
MIDFILL_SEEN: list[Any] = []


@dataclasses.dataclass
class MidInner:
    x: int

    def __post_init__(self):
        if self.x == 1:
            MidOuter.b = property(lambda s: "prop", lambda s, v: MIDFILL_SEEN.append(v))  # type: ignore[assignment]
        elif self.x == 3:
            for obj in gc.get_objects():
                if type(obj) is MidOuter:
                    vars(obj)  # makes the half-built instance's dict


@dataclasses.dataclass
class MidOuter:
    a: str
    inner: MidInner
    b: str
    c: int = 0


@by_format
def test_nested_post_init_adds_a_data_descriptor_to_the_outer_class(fmt):
    """The outer instance's inline values are checked once, then again after any value
    whose building may run code: a nested instance's ``__post_init__`` that puts a
    property on the outer class sends the fields after it through the property."""
    MIDFILL_SEEN.clear()
    try:
        first = fmt.decode({"a": "a", "inner": {"x": 0}, "b": "b", "c": 3}, MidOuter)
        assert vars(first) == {"a": "a", "inner": MidInner(0), "b": "b", "c": 3}
        out = fmt.decode({"a": "a", "inner": {"x": 1}, "b": "b", "c": 3}, MidOuter)
        assert MIDFILL_SEEN == ["b"]
        assert vars(out) == {"a": "a", "inner": MidInner(1), "c": 3}
        assert out.b == "prop"
    finally:
        if isinstance(MidOuter.__dict__.get("b"), property):
            del MidOuter.b
    out = fmt.decode({"a": "a", "inner": {"x": 2}, "b": "b", "c": 3}, MidOuter)
    assert vars(out) == {"a": "a", "inner": MidInner(2), "b": "b", "c": 3}


@by_format
def test_nested_post_init_makes_the_outer_dict(fmt):
    """A nested instance's ``__post_init__`` asks for the half-built outer instance's
    __dict__ (through the collector): the fields after it go into that dict."""
    for _ in range(3):
        value = {"a": "a", "inner": {"x": 3}, "b": "b", "c": 4}
        want = reference(MidOuter, value, {"inner": MidInner(3)})
        same_instance(fmt.decode(value, MidOuter), want)


class Dying:
    """Its release (value 1) puts a property on ``Holder``."""

    def __init__(self, v):
        self.v = v

    def __del__(self):
        if self.v == 1:
            Holder.b = property(lambda s: "prop", lambda s, v: MIDFILL_SEEN.append(v))  # type: ignore[assignment]


@dataclasses.dataclass
class Holder:
    t: Dying
    b: str = ""


def test_released_repeated_value_runs_code():
    """A repeated key releases the value stored first; when that runs code (a
    finalizer putting a property on the class), the fields after it see the change."""

    def dec_hook(tp, value):
        return tp(value)

    MIDFILL_SEEN.clear()
    try:
        for _ in range(2):
            out = orcodec.loads(b'{"t": 2, "b": "x"}', type=Holder, dec_hook=dec_hook)
            assert list(vars(out)) == ["t", "b"] and out.t.v == 2 and out.b == "x"
        out = orcodec.loads(b'{"t": 1, "t": 2, "b": "x"}', type=Holder, dec_hook=dec_hook)
        assert MIDFILL_SEEN == ["x"]
        assert list(vars(out)) == ["t"] and out.t.v == 2 and out.b == "prop"
    finally:
        if isinstance(Holder.__dict__.get("b"), property):
            del Holder.b


RUN_SEEN: list[str] = []
RUN_STATE = {"decoding": False, "ran_during": False}


@dataclasses.dataclass
class RunOuter:
    a: str
    u: uuid.UUID
    b: str
    c: str


class CollectedTrap:
    """Garbage in a cycle: its finalizer, run by the collector, puts properties on
    ``RunOuter`` for ``a``, ``b`` and ``c``."""

    def __init__(self):
        self.me = self

    def __del__(self):
        RUN_STATE["ran_during"] = RUN_STATE["decoding"]
        for name in ("a", "b", "c"):
            setattr(RunOuter, name, property(lambda s: "prop", lambda s, v, n=name: RUN_SEEN.append(n)))


@pytest.mark.parametrize("kind", ["json", "msgpack"])
def test_collection_between_leaf_fields(kind):
    """The key loop's stores after the first skip the class and instance checks only
    while nothing can have run code. Before 3.12, making an object the collector tracks
    (the UUID) may start a collection there, whose finalizers can change the class: a
    finalizer that puts properties on the class at the UUID's allocation sends the
    fields after it through them. From 3.12 the collector runs only between bytecodes,
    never while the decoder runs."""
    value = {"a": "x", "u": "6f1c2a3e-0d4b-4c5a-9e8f-1a2b3c4d5e6f", "b": "y", "c": "z"}
    data = orcodec.dumps(value) if kind == "json" else orcodec.packb(value)
    dec = orcodec.Decoder(RunOuter)
    decode = dec.loads if kind == "json" else dec.unpackb
    decode(data)
    threshold = gc.get_threshold()
    cases = []
    try:
        for t in range(1, 12):
            for _ in range(3):
                RUN_SEEN.clear()
                RUN_STATE["ran_during"] = False
                gc.collect()
                gc.set_threshold(t)
                CollectedTrap()
                RUN_STATE["decoding"] = True
                out = decode(data)
                RUN_STATE["decoding"] = False
                gc.set_threshold(*threshold)
                gc.collect()
                for name in ("a", "b", "c"):
                    if isinstance(RunOuter.__dict__.get(name), property):
                        delattr(RunOuter, name)
                stored = vars(out)
                assert stored["u"] == uuid.UUID(value["u"])
                # Each field went either into the instance dict (stored before the
                # finalizer ran) or through the property (after), in field order.
                assert [k for k in ("a", "b", "c") if k in stored] + RUN_SEEN == ["a", "b", "c"]
                assert all(stored[k] == value[k] for k in ("a", "b", "c") if k in stored)
                if sys.version_info >= (3, 12):
                    # A collection the decoder's allocations start runs once the
                    # interpreter runs again, after the decode.
                    assert RUN_SEEN == []
                elif RUN_STATE["ran_during"]:
                    # It ran at the instance's or the UUID's allocation: before b and c.
                    assert RUN_SEEN[-2:] == ["b", "c"]
                cases.append(tuple(RUN_SEEN))
    finally:
        gc.set_threshold(*threshold)
        for name in ("a", "b", "c"):
            if isinstance(RunOuter.__dict__.get(name), property):
                delattr(RunOuter, name)
    if sys.version_info < (3, 12):
        # The collection started at the UUID's allocation, between two leaf stores.
        assert ("b", "c") in cases


@dataclasses.dataclass
class LeafRun:
    a: str
    n: int
    u: uuid.UUID
    d: decimal.Decimal
    when: datetime.datetime
    day: datetime.date
    s: Optional[str] = None  # noqa: UP045


def msgpack_map(pairs: list[tuple[Any, Any]]) -> bytes:
    """A MessagePack map of ``pairs`` as given (repeated keys kept)."""
    assert len(pairs) < 16
    return bytes([0x80 | len(pairs)]) + b"".join(orcodec.packb(k) + orcodec.packb(v) for k, v in pairs)


LEAF_RUN_PAIRS = [
    ("a", "x"),
    ("n", 7),
    ("u", "6f1c2a3e-0d4b-4c5a-9e8f-1a2b3c4d5e6f"),
    ("d", "12.50"),
    ("when", "2024-03-01T10:20:30+02:00"),
    ("day", "2024-03-01"),
    ("s", None),
]


def leaf_run_want(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The instance dict the generic setattr makes: each key in its first place, its
    last value, typed."""
    typed: dict[str, Any] = {}
    for k, v in pairs:
        if k not in LeafRun.__dataclass_fields__:
            continue
        if k == "u":
            v = uuid.UUID(v)
        elif k == "d":
            v = decimal.Decimal(v)
        elif k == "when":
            v = datetime.datetime.fromisoformat(v)
        elif k == "day":
            v = datetime.date.fromisoformat(v)
        typed[k] = v
    return list(typed.items())


@pytest.mark.parametrize(
    "pairs",
    [
        LEAF_RUN_PAIRS,
        # Every leaf repeated right after itself, and at the end.
        [p for pair in LEAF_RUN_PAIRS for p in (pair, (pair[0], pair[1]))][:14],
        LEAF_RUN_PAIRS + [("a", "again"), ("u", "00000000-0000-0000-0000-000000000001")],
        # Texts not in the forms read in the key loop: the full validator makes them.
        [("d", "1.5E+3") if k == "d" else (k, v) for k, v in LEAF_RUN_PAIRS] + [("d", "-0.000001e-3"), ("s", "s")],
        [
            (
                k,
                {"when": "2024-03-01 10:20:30.123456400-05:30", "u": "6F1C2A3E0D4B4C5A9E8F1A2B3C4D5E6F"}.get(k, v),
            )
            for k, v in LEAF_RUN_PAIRS
        ],
        # Keys out of definition order and unknown keys between leaves.
        LEAF_RUN_PAIRS[::-1][:3] + [("zz", [1, {"a": 2}])] + LEAF_RUN_PAIRS[::-1][3:],
    ],
    ids=["in-order", "each-repeated", "repeated-at-end", "fallback-texts", "other-forms", "out-of-order"],
)
@pytest.mark.parametrize("kind", ["json", "msgpack"])
def test_runs_of_leaf_fields(kind, pairs):
    """Runs of leaf fields stored one after the other (the later ones with shorter
    checks), broken by a repeated key (its old value released), by a text the key loop
    leaves to the full validator, by keys out of order or unknown: the instance dict
    holds what the generic setattr would put there, in the same order."""
    if kind == "json":
        data = b"{" + b",".join(orcodec.dumps(k) + b":" + orcodec.dumps(v) for k, v in pairs) + b"}"
        decode = orcodec.Decoder(LeafRun).loads
    else:
        data = msgpack_map(pairs)
        decode = orcodec.Decoder(LeafRun).unpackb
    want = leaf_run_want(pairs)
    for _ in range(3):
        out = decode(data)
        got = list(vars(out).items())
        assert got == want
        assert [type(v) for _, v in got] == [type(v) for _, v in want]
        for k, v in want:
            assert getattr(out, k) == v

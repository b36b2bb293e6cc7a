"""dataclasses, TypedDict / OrderedDict and other dict subclasses, enums, UUIDs and
pydantic models, in both formats: byte for byte against the peer (orjson for JSON,
ormsgpack for MessagePack) and against hand-written bytes. Also the fast paths the walker
takes for them (a UUID's int read directly, an enum's value from the member's dict, a
dataclass's split instance dict), which must write what the general paths write."""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import enum
import json
import random
import sys
import typing
import uuid

import orcodec
import orjson
import ormsgpack
import pydantic
import pytest
from helpers import (
    JSON,
    MSGPACK,
    UTC,
    Frozen,
    Movie,
    MyUUID,
    Point,
    Slotted,
    Unsupported,
    by_format,
    make_slots_dataclass,
    msgpack_header,
    msgpack_str,
    outcome,
)

# --------------------------------------------------------------------------------------
# dataclasses
# --------------------------------------------------------------------------------------


@dataclasses.dataclass
class Base:
    base: int = 1
    shared: str = "base"


@dataclasses.dataclass
class Derived(Base):
    derived: int = 2
    shared: str = "derived"  # redefined: keeps its place from Base


@dataclasses.dataclass
class WithSpecialFields:
    kept: int
    _private: int = 7
    __dunder: int = 8
    counter: typing.ClassVar[int] = 99
    init_only: dataclasses.InitVar[int] = 5
    from_factory: list = dataclasses.field(default_factory=lambda: [1, 2])
    not_in_init: str = dataclasses.field(default="fixed", init=False)
    not_in_repr: int = dataclasses.field(default=3, repr=False)

    def __post_init__(self, init_only):
        self.derived_value = init_only * 2  # an attribute that is not a field


@dataclasses.dataclass
class Nested:
    point: Point
    items: list
    mapping: dict
    when: dt.datetime
    maybe: typing.Optional[Nested] = None  # noqa: UP045 (evaluated on 3.9 too)


@dataclasses.dataclass
class Empty:
    pass


Unicode = dataclasses.make_dataclass("Unicode", [("caf\u00e9", int, 1), ("\u4e2d", int, 2)])


def _nested():
    inner = Nested(Point(1, 2.5), [Frozen(1, 2)], {"k": Slotted(3)}, dt.datetime(2020, 1, 1, tzinfo=UTC))
    return Nested(Point(-1, -0.0, "p"), [inner, None], {"d": Derived()}, dt.datetime(2021, 5, 6, 7, 8, 9, 10), inner)


DATACLASSES = {
    "point": Point(1, 2.0),
    "frozen": Frozen(2, 1),
    "slotted": Slotted(5),
    "derived": Derived(),
    "empty": Empty(),
    "unicode": Unicode(),
    "nested": _nested(),
    "list_of": [Point(i, i / 2) for i in range(20)],
}


@pytest.mark.parametrize("name", list(DATACLASSES))
def test_dataclass_equals_peers(fmt, name):
    obj = DATACLASSES[name]
    for names in [(), ("OPT_SORT_KEYS",), ("OPT_UTC_Z", "OPT_NAIVE_UTC"), ("OPT_INDENT_2",)]:
        fmt.same_as_peer(obj, names)


DATACLASS_BYTES = [
    # (object, flags, JSON, MessagePack): fields in definition order, never sorted
    (
        Point(1, 2.0),
        (),
        b'{"x":1,"y":2.0,"label":"origin"}',
        b"\x83\xa1x\x01\xa1y\xcb@\x00\x00\x00\x00\x00\x00\x00\xa5label\xa6origin",
    ),
    (Frozen(2, 1), (), b'{"b":2,"a":1}', b"\x82\xa1b\x02\xa1a\x01"),
    (Frozen(2, 1), ("OPT_SORT_KEYS",), b'{"b":2,"a":1}', b"\x82\xa1b\x02\xa1a\x01"),
    (
        Derived(),
        (),
        b'{"base":1,"shared":"derived","derived":2}',
        b"\x83\xa4base\x01\xa6shared\xa7derived\xa7derived\x02",
    ),
    (Empty(), (), b"{}", b"\x80"),
]


@pytest.mark.parametrize(
    "fmt, obj, names, expected",
    by_format(
        json=[(obj, names, j) for obj, names, j, _ in DATACLASS_BYTES],
        msgpack=[(obj, names, m) for obj, names, _, m in DATACLASS_BYTES],
        ids=lambda case: f"{type(case[0]).__name__}{'-sorted' if case[1] else ''}",
    ),
)
def test_dataclass_exact_bytes_and_order(fmt, obj, names, expected):
    assert fmt.encode(obj, option=fmt.opts(names)) == expected
    assert fmt.same_as_peer(obj, names) == expected


def test_dataclass_same_value_in_both_formats():
    assert orcodec.loads(orcodec.dumps(_nested())) == orcodec.unpackb(orcodec.packb(_nested()))


def test_dataclass_special_fields_excluded(fmt):
    obj = WithSpecialFields(1)
    if fmt is MSGPACK:
        # ormsgpack writes the fields, read with getattr: the init=False field (whose
        # value lives on the class) is in, the attribute that is no field is out.
        expected = {"kept": 1, "from_factory": [1, 2], "not_in_init": "fixed", "not_in_repr": 3}
    else:
        # orjson writes the instance __dict__ (names starting with "_" left out): the
        # attribute that is no field is in, the init=False field is out.
        assert "not_in_init" not in obj.__dict__
        expected = {"kept": 1, "from_factory": [1, 2], "not_in_repr": 3, "derived_value": 10}
    decoded = fmt.decode(fmt.same_as_peer(obj))
    assert decoded == expected and list(decoded) == list(expected)


def test_dataclass_extra_attribute(fmt):
    # ormsgpack writes the fields only; orjson writes the instance __dict__.
    obj = Point(1, 2.0)
    obj.added = "later"
    obj._private = "never"
    out = fmt.same_as_peer(obj)
    if fmt is MSGPACK:
        assert out == fmt.encode(Point(1, 2.0))
    else:
        assert out == b'{"x":1,"y":2.0,"label":"origin","added":"later"}'
    # A class that declares __slots__ is written by its fields in both.
    assert fmt.same_as_peer(Slotted(1)) == fmt.encode({"z": 1, "a": "s"})


def test_passthrough_dataclass(fmt):
    encode, error = fmt.encode, fmt.encode_error
    seen = []

    def default(obj):
        seen.append(obj)
        return {"dc": type(obj).__name__}

    obj = [Point(1, 2.0), Slotted(1)]
    out = encode(obj, default=default, option=orcodec.OPT_PASSTHROUGH_DATACLASS)
    assert out == encode([{"dc": "Point"}, {"dc": "Slotted"}])
    assert seen == obj
    with pytest.raises(error, match="serializable: Point"):
        encode(Point(1, 2.0), option=orcodec.OPT_PASSTHROUGH_DATACLASS)
    fmt.same_as_peer(obj, ("OPT_PASSTHROUGH_DATACLASS",), default=lambda o: {"dc": type(o).__name__})


def test_dataclass_unset_slot_is_an_encode_error(fmt):
    # orjson segfaults on this input: the peers are not called.
    encode, error = fmt.encode, fmt.encode_error
    obj = Slotted.__new__(Slotted)
    with pytest.raises(error) as info:
        encode([obj])
    assert type(info.value.__cause__) is AttributeError
    obj.z = 1
    del obj.z
    with pytest.raises(error):
        encode({"k": obj}, default=lambda o: None)
    # A field missing from the instance: the same for MessagePack (ormsgpack asks
    # getattr); JSON writes the instance __dict__ as it is, like orjson.
    obj = Point(1, 2.0)
    del obj.x
    if fmt is JSON:
        assert fmt.same_as_peer(obj) == b'{"y":2.0,"label":"origin"}'
        return
    with pytest.raises(error) as info:
        encode(obj)
    assert type(info.value.__cause__) is AttributeError
    with pytest.raises(TypeError) as peer:
        fmt.peer_encode(obj)
    assert str(info.value) == str(peer.value)


def test_dataclass_value_types_and_flags_apply(fmt):
    @dataclasses.dataclass
    class Holder:
        when: dt.datetime
        uid: uuid.UUID
        raw: object

    obj = Holder(dt.datetime(2020, 1, 1, 0, 0, 0, 5), uuid.UUID(int=1), Unsupported())
    default = repr
    names = ("OPT_NAIVE_UTC", "OPT_UTC_Z", "OPT_OMIT_MICROSECONDS")
    out = fmt.same_as_peer(obj, names, default=default)
    plain = {"when": "2020-01-01T00:00:00Z", "uid": "00000000-0000-0000-0000-000000000001", "raw": "Unsupported()"}
    if fmt is JSON:
        assert out == (
            b'{"when":"2020-01-01T00:00:00Z","uid":"00000000-0000-0000-0000-000000000001","raw":"Unsupported()"}'
        )
    else:
        assert out == b"\x83" + b"".join(msgpack_str(k) + msgpack_str(v) for k, v in plain.items())


def test_many_dataclasses_beyond_the_cache(fmt):
    classes = [dataclasses.make_dataclass(f"C{i}", [(f"f{i}", int), ("g", int)]) for i in range(1100)]
    objs = [cls(i, -i) for i, cls in enumerate(classes)]
    fmt.same_as_peer(objs)
    # Again, after the cache started over.
    assert fmt.decode(fmt.encode(objs[:3])) == [{"f0": 0, "g": 0}, {"f1": 1, "g": -1}, {"f2": 2, "g": -2}]


def test_dataclass_class_object_is_not_an_instance(fmt):
    with pytest.raises(fmt.encode_error):
        fmt.encode(Point)
    assert fmt.encode(Point, default=lambda o: o.__name__) == fmt.encode("Point")


def test_dataclass_recursion_is_an_error(fmt):
    @dataclasses.dataclass
    class Loop:
        me: object = None

    obj = Loop()
    obj.me = obj
    with pytest.raises(fmt.encode_error, match="Recursion limit reached"):
        fmt.encode(obj)


# Instance dicts with split keys are read in place.


@dataclasses.dataclass
class SplitPoint:
    x: int
    y: str
    _hidden: int = 0
    z: float = 1.5


def _written(fmt, json_text: bytes) -> bytes:
    """What each format writes for the JSON text's value: the text itself, or its value
    as the MessagePack references write it."""
    return json_text if fmt is JSON else MSGPACK.reference(json.loads(json_text))


def test_dataclass_split_dict_in_order_and_changed(fmt):
    # MessagePack writes the fields in their order, whatever the instance dict holds
    # (as ormsgpack); JSON writes the instance dict as it stands (as orjson).
    p = SplitPoint(1, "a")
    assert fmt.same_as_peer(p) == _written(fmt, b'{"x":1,"y":"a","z":1.5}')
    vars(p)  # the instance dict exists from here on (split keys)
    assert fmt.same_as_peer([p, p]) == _written(fmt, b'[{"x":1,"y":"a","z":1.5},{"x":1,"y":"a","z":1.5}]')
    p.extra = "extra"
    expected = {JSON: b'{"x":1,"y":"a","z":1.5,"extra":"extra"}', MSGPACK: _written(fmt, b'{"x":1,"y":"a","z":1.5}')}
    assert fmt.same_as_peer(p) == expected[fmt]
    # Deleted and set again: insertion order changes.
    del p.x
    if fmt is MSGPACK:
        with pytest.raises(fmt.encode_error):
            fmt.encode(p)
    else:
        assert fmt.same_as_peer(p) == b'{"y":"a","z":1.5,"extra":"extra"}'
    p.x = 7
    expected = {JSON: b'{"y":"a","z":1.5,"extra":"extra","x":7}', MSGPACK: _written(fmt, b'{"x":7,"y":"a","z":1.5}')}
    assert fmt.same_as_peer(p) == expected[fmt]
    del p.z  # getattr finds the class default
    expected = {JSON: b'{"y":"a","extra":"extra","x":7}', MSGPACK: _written(fmt, b'{"x":7,"y":"a","z":1.5}')}
    assert fmt.same_as_peer(p) == expected[fmt]
    p.z = -2.0
    p.y = "b"
    fmt.same_as_peer(p)


def test_dataclass_many_instances_of_one_class(fmt):
    people = [SplitPoint(i, str(i), i, float(i)) for i in range(300)]
    expected = b"[" + b",".join(b'{"x":%d,"y":"%d","z":%d.0}' % (i, i, i) for i in range(300)) + b"]"
    assert fmt.encode(people) == _written(fmt, expected)
    fmt.same_as_peer(people)


def test_dataclass_dict_replaced_by_a_combined_one(fmt):
    p = SplitPoint(1, "a")
    p.__dict__ = {"z": 3.0, "y": "c", "x": 2}  # a dict of its own, other order
    expected = {JSON: b'{"z":3.0,"y":"c","x":2}', MSGPACK: _written(fmt, b'{"x":2,"y":"c","z":3.0}')}
    assert fmt.same_as_peer(p) == expected[fmt]


# A class changed after its first use is looked at again.


def _fresh_point():
    @dataclasses.dataclass
    class Changed:
        x: int
        y: int = 2

    return Changed


def test_dataclass_property_added_to_the_class_later(fmt):
    cls = _fresh_point()
    p = cls(1)
    assert fmt.decode(fmt.encode(p)) == {"x": 1, "y": 2}
    cls.x = property(lambda self: 42)
    assert p.x == 42
    # Both peers read the value in the instance's __dict__, which the property does
    # not change.
    expected = {"x": 1, "y": 2}
    assert fmt.decode(fmt.encode(p)) == expected
    assert fmt.decode(fmt.peer_encode(p)) == expected
    del cls.x
    assert fmt.decode(fmt.encode(p)) == {"x": 1, "y": 2}


def test_dataclass_getattribute_added_to_the_class_later(fmt):
    cls = _fresh_point()
    p = cls(1)
    assert fmt.decode(fmt.encode([p, p])) == [{"x": 1, "y": 2}] * 2
    cls.__getattribute__ = lambda self, name: 7 if name == "y" else object.__getattribute__(self, name)
    expected = [{"x": 1, "y": 2}] * 2  # the __dict__'s values, as both peers
    assert fmt.decode(fmt.encode([p, p])) == expected
    assert fmt.decode(fmt.peer_encode([p, p])) == expected


def test_dataclass_property_added_to_a_base_class_later(fmt):
    class Base:
        pass

    @dataclasses.dataclass
    class Derived(Base):
        x: int

    p = Derived(1)
    assert fmt.decode(fmt.encode(p)) == {"x": 1}
    Base.x = property(lambda self: "from the base")
    expected = {"x": 1}  # the __dict__'s value, as both peers
    assert fmt.decode(fmt.encode(p)) == expected
    assert fmt.decode(fmt.peer_encode(p)) == expected


class _EncodesWhenFreed:
    """Not a field (its `_field_type` is None), so the field list skips it;
    when the last reference goes, it encodes a dataclass instance."""

    _field_type = None
    results: list = []

    def __init__(self, encode, obj):
        self.encode, self.obj = encode, obj

    def __del__(self):
        self.results.append(self.encode(self.obj))


def test_dataclass_cache_entry_freed_while_encoding_more_dataclasses(fmt):
    # An old `__dataclass_fields__` dict lives on only in the cache; dropping
    # it (when the class's entry is replaced, and when the cache starts over)
    # runs a finalizer that encodes dataclasses, which reaches the cache again.
    _EncodesWhenFreed.results.clear()
    for round in range(2):
        cls = _fresh_point()
        cls.__dataclass_fields__ = dict(cls.__dataclass_fields__, hook=_EncodesWhenFreed(fmt.encode, _fresh_point()(5)))
        p = cls(1)
        assert fmt.decode(fmt.encode(p)) == {"x": 1, "y": 2}
        cls.__dataclass_fields__ = {k: v for k, v in cls.__dataclass_fields__.items() if k != "hook"}
        if round == 0:
            # The entry is replaced: the old dict and its hook go.
            assert fmt.decode(fmt.encode(p)) == {"x": 1, "y": 2}
        else:
            # The cache starts over (more classes than it keeps) while the hook's class is in it.
            others = [dataclasses.make_dataclass(f"C{i}", [("v", int)])(i) for i in range(1100)]
            assert fmt.decode(fmt.encode(others)) == [{"v": i} for i in range(1100)]
        assert [fmt.decode(r) for r in _EncodesWhenFreed.results] == [{"x": 5, "y": 2}] * (round + 1)
    assert fmt.decode(fmt.encode(p)) == {"x": 1, "y": 2}


# JSON writes the instance __dict__ as orjson does: read in place (split keys), the
# private names skipped by their first character, what the class is remembered against
# its version tag.


class _Key(str):
    pass


def test_dataclass_instance_dict_names_as_orjson():
    p = SplitPoint(1, "a")
    d = vars(p)
    d["é"] = 1  # non-ASCII first character, written
    d["_é"] = 2  # private, non-ASCII
    d["é_"] = 3
    d["_"] = 4
    d["a" * 40] = 6
    d["_" + "b" * 40] = 7
    d["\U0001f600"] = 8
    d["_\U0001f600"] = 9
    expected = ('{"x":1,"y":"a","z":1.5,"é":1,"é_":3,"' + "a" * 40 + '":6,"\U0001f600":8}').encode()
    assert orcodec.dumps(p) == orjson.dumps(p) == expected
    assert orcodec.dumps([p, p]) == b"[" + expected + b"," + expected + b"]"
    # An empty name is not private (orjson itself aborts the process on it).
    d[""] = 5
    assert orcodec.dumps(p) == expected[:-1] + b',"":5}'
    del d[""]
    d[_Key("sub")] = 10  # a str subclass is no str key to either
    with pytest.raises(orcodec.JSONEncodeError, match="Dict key must be str"):
        orcodec.dumps(p)
    with pytest.raises(orjson.JSONEncodeError, match="Dict key must be str"):
        orjson.dumps(p)


def test_dataclass_instance_dict_non_str_key_is_an_error():
    p = SplitPoint(1, "a")
    vars(p)[1] = 2
    with pytest.raises(orcodec.JSONEncodeError):
        orcodec.dumps(p)
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(p)


def test_dataclass_instance_dict_split_and_combined_many_attributes():
    # Up to the split table's limit and beyond it (the dict becomes combined).
    for n in (1, 7, 8, 29, 30, 31, 40):
        p = SplitPoint(1, "a")
        for i in range(n):
            setattr(p, f"a{i}", i)
        expected = b'{"x":1,"y":"a","z":1.5' + b"".join(b',"a%d":%d' % (i, i) for i in range(n)) + b"}"
        assert orcodec.dumps(p) == orjson.dumps(p) == expected, n
        assert orcodec.dumps([p] * 3) == b"[" + b",".join([expected] * 3) + b"]"


def test_dataclass_instance_dict_changed_by_default_while_walked():
    p = SplitPoint(1, "a", 0, 1.5)
    p.extra = Unsupported()

    def default(obj):
        del p.z
        return "d"

    with pytest.raises(orcodec.JSONEncodeError):
        orcodec.dumps(p, default=default)


def test_class_becomes_a_dataclass_and_gains_slots_later():
    class Plain:
        def __init__(self):
            self.a = 1
            self._b = 2

    obj = Plain()
    for _ in range(2):  # the second time from what was remembered of the class
        with pytest.raises(orcodec.JSONEncodeError):
            orcodec.dumps(obj)
    Plain.__dataclass_fields__ = {}  # what makes a dataclass to both peers
    for _ in range(2):
        assert orcodec.dumps(obj) == orjson.dumps(obj) == b'{"a":1}'
    Plain.__slots__ = ()  # declared now: the fields (none) are written, as orjson
    for _ in range(2):
        assert orcodec.dumps(obj) == orjson.dumps(obj) == b"{}"
    del Plain.__slots__
    assert orcodec.dumps(obj) == orjson.dumps(obj) == b'{"a":1}'
    del Plain.__dataclass_fields__
    for _ in range(2):
        with pytest.raises(orcodec.JSONEncodeError):
            orcodec.dumps(obj)


def test_many_classes_share_the_remembered_facts():
    # More classes than the slots that remember them, interleaved: each is still
    # told apart (dataclass or not, with or without __slots__).
    made = []
    for i in range(100):
        if i % 3 == 0:
            cls = make_slots_dataclass(f"S{i}", [("v", int)])
        elif i % 3 == 1:
            cls = dataclasses.make_dataclass(f"D{i}", [("v", int)])
        else:
            cls = type(f"P{i}", (), {"__init__": lambda self, v: setattr(self, "v", v)})
        made.append(cls(i))
    for _ in range(3):
        out = orcodec.dumps(made, default=lambda o: f"plain {o.v}")
        assert out == orjson.dumps(made, default=lambda o: f"plain {o.v}")
        assert orjson.loads(out) == [{"v": i} if i % 3 != 2 else f"plain {i}" for i in range(100)]


def test_uuid_is_told_by_type_not_by_name():
    # While no uuid.UUID has been encoded, types are first told apart by their name:
    # other types named like it (or a prefix of it) are not UUIDs. A fresh interpreter,
    # so nothing has been encoded yet.
    code = """
import orcodec, uuid
for name in ("UUID", "UUI", "UUIDX", "U", "", "uuid"):
    obj = type(name, (), {})()
    assert orcodec.dumps(obj, default=lambda o: type(o).__name__) == ('"' + name + '"').encode(), name
    assert orcodec.packb(obj, default=lambda o: type(o).__name__) == orcodec.packb(name), name
u = uuid.UUID(int=1)
assert orcodec.dumps(u) == b'"00000000-0000-0000-0000-000000000001"'
obj = type("UUID", (), {})()
assert orcodec.dumps(obj, default=lambda o: "other") == b'"other"'
"""
    import subprocess

    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


# --------------------------------------------------------------------------------------
# TypedDict, OrderedDict and other dict subclasses
# --------------------------------------------------------------------------------------


class MyOrderedDict(collections.OrderedDict):
    pass


MAPPINGS = {
    "typeddict": Movie(title="Blade Runner", year=1982),
    "ordereddict": collections.OrderedDict([("b", 1), ("a", [collections.OrderedDict(z=1)])]),
    "ordereddict_moved": (lambda d: (d.move_to_end("a", last=False), d)[1])(collections.OrderedDict(b=1, a=2)),
    "defaultdict": collections.defaultdict(list, {"x": [1], "y": []}),
    "counter": collections.Counter("hello"),
    "ordereddict_subclass": MyOrderedDict(q=1, p=2),
    "chain_in_dict": {"od": collections.OrderedDict(k=Movie(title="t", year=1))},
}


@pytest.mark.parametrize("name", list(MAPPINGS))
def test_dict_subclasses_equal_peers(fmt, name):
    obj = MAPPINGS[name]
    for names in [(), ("OPT_SORT_KEYS",), ("OPT_PASSTHROUGH_SUBCLASS",)]:
        fmt.same_as_peer(obj, names, default=lambda o: sorted(o.items()))


@pytest.mark.parametrize(
    "fmt, moved, typeddict",
    by_format(
        json=[(b'{"b":1,"a":2}', b'{"title":"Blade Runner","year":1982}')],
        msgpack=[(b"\x82\xa1b\x01\xa1a\x02", b"\x82\xa5title\xacBlade Runner\xa4year\xcd\x07\xbe")],
        ids=lambda _: "",
    ),
)
def test_dict_subclasses_exact(fmt, moved, typeddict):
    # move_to_end() reorders the OrderedDict's own links, not the dict storage the
    # peers (and orcodec) walk: all three write insertion order here.
    assert list(MAPPINGS["ordereddict_moved"]) == ["a", "b"]
    assert fmt.encode(MAPPINGS["ordereddict_moved"]) == moved
    assert fmt.encode(MAPPINGS["typeddict"]) == typeddict
    with pytest.raises(fmt.encode_error, match="serializable: (collections.)?OrderedDict"):
        fmt.encode(collections.OrderedDict(), option=orcodec.OPT_PASSTHROUGH_SUBCLASS)
    # A TypedDict instance is a plain dict: no subclass.
    assert fmt.encode(MAPPINGS["typeddict"], option=orcodec.OPT_PASSTHROUGH_SUBCLASS) == typeddict


# --------------------------------------------------------------------------------------
# enum
# --------------------------------------------------------------------------------------


class Color(enum.Enum):
    RED = 1
    GREEN = "green"
    BLUE = 2.5
    NONE = None
    LIST = (1, 2)
    WHEN = dt.datetime(2020, 1, 1, 0, 0, 0, 7)
    POINT = Point(0, 0.0)


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2**60


class Text(str, enum.Enum):
    A = "a"
    E = "\u00e9\U0001f600"


class Perm(enum.Flag):
    R = 4
    W = 2
    X = 1


class IntPerm(enum.IntFlag):
    R = 4
    W = 2


class NestedEnum(enum.Enum):
    INNER = Color.RED
    DICT = {"k": Level.HIGH}


class Weird(enum.Enum):
    """A member whose value is the member itself (the peers crash on it)."""

    SELF = 1


Weird.SELF._value_ = Weird.SELF


class ValueProperty(enum.Enum):
    """``value`` overridden to return the member: orcodec reads ``_value_``."""

    SELF = 1

    @property
    def value(self):
        return self


class Big(enum.Enum):
    BIG = 2**70


ENUMS = [
    *Color,
    *Level,
    *Text,
    Perm.R,
    Perm.R | Perm.W,
    Perm(0),
    IntPerm.R,
    IntPerm.R | IntPerm.W,
    *NestedEnum,
]
if sys.version_info >= (3, 11):

    class Str(enum.StrEnum):
        S = "s"

    ENUMS.append(Str.S)


@pytest.mark.parametrize("member", ENUMS, ids=repr)
def test_enum_equals_peers(fmt, member):
    for names in [(), ("OPT_NAIVE_UTC", "OPT_UTC_Z"), ("OPT_OMIT_MICROSECONDS",), ("OPT_PASSTHROUGH_SUBCLASS",)]:
        fmt.same_as_peer(member, names)
        fmt.same_as_peer({"k": [member]}, names)


ENUM_BYTES = {
    JSON: {
        "when": b'"2020-01-01T00:00:00.000007Z"',
        "point": b'{"x":0,"y":0.0,"label":"origin"}',
        "inner": b"1",
        "high": b"1152921504606846976",
        "big": b'"1180591620717411303424"',
    },
    MSGPACK: {
        "when": b"\xbb2020-01-01T00:00:00.000007Z",
        "point": b"\x83\xa1x\x00\xa1y\xcb\x00\x00\x00\x00\x00\x00\x00\x00\xa5label\xa6origin",
        "inner": b"\x01",
        "high": b"\xcf\x10\x00\x00\x00\x00\x00\x00\x00",
        "big": b"\xb61180591620717411303424",
    },
}


def test_enum_value_is_walked_with_options(fmt):
    # The member's value goes through the walker with every flag, in both formats.
    expected = ENUM_BYTES[fmt]
    assert fmt.encode(Color.WHEN, option=orcodec.OPT_NAIVE_UTC | orcodec.OPT_UTC_Z) == expected["when"]
    assert fmt.encode(Color.POINT) == expected["point"]
    assert fmt.encode(NestedEnum.INNER) == expected["inner"]
    assert fmt.encode(Level.HIGH) == fmt.encode(2**60) == expected["high"]
    if fmt is JSON:
        with pytest.raises(orcodec.JSONEncodeError, match="53-bit"):
            orcodec.dumps(Level.HIGH, option=orcodec.OPT_STRICT_INTEGER)
    else:  # a JSON-only flag
        assert orcodec.packb(Level.HIGH, option=orcodec.OPT_STRICT_INTEGER) == expected["high"]
    with pytest.raises(fmt.encode_error, match="serializable: tuple"):
        fmt.encode(Color.LIST, option=orcodec.OPT_PASSTHROUGH_TUPLE)
    out = fmt.encode(Big.BIG, default=str, option=orcodec.OPT_PASSTHROUGH_BIG_INT)
    assert out == fmt.encode(str(2**70)) == expected["big"]


@pytest.mark.parametrize("member", [Color.RED, Level.LOW, Text.A, Perm.R, IntPerm.W], ids=repr)
def test_passthrough_enum(fmt, member):
    encode, error = fmt.encode, fmt.encode_error
    seen = []

    def default(obj):
        seen.append(obj)
        return f"enum:{obj.name}"

    assert encode([member], default=default, option=orcodec.OPT_PASSTHROUGH_ENUM) == encode([f"enum:{member.name}"])
    assert seen == [member]
    with pytest.raises(error, match="serializable"):
        encode(member, option=orcodec.OPT_PASSTHROUGH_ENUM)
    if hasattr(fmt.peer, "OPT_PASSTHROUGH_ENUM"):  # ormsgpack has the flag too
        fmt.same_as_peer(member, ("OPT_PASSTHROUGH_ENUM",), default=default)


def test_enum_value_returning_itself_is_a_recursion_error(fmt):
    encode, error = fmt.encode, fmt.encode_error
    for option in (0, orcodec.OPT_SORT_KEYS, orcodec.OPT_NON_STR_KEYS):
        with pytest.raises(error, match="Recursion limit reached"):
            encode(Weird.SELF, option=option)
    options = [orcodec.OPT_NON_STR_KEYS]
    if fmt is JSON:  # (packb refuses the two flags together, as ormsgpack)
        options.append(orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SORT_KEYS)
    for option in options:
        with pytest.raises(error, match="Recursion limit reached"):
            encode({Weird.SELF: 1}, option=option)
    assert encode(ValueProperty.SELF) == encode(1)
    assert encode({ValueProperty.SELF: 1}, option=orcodec.OPT_NON_STR_KEYS) == encode(
        {1: 1}, option=orcodec.OPT_NON_STR_KEYS
    )


def test_enum_with_unsupported_value_calls_default_with_the_value(fmt):
    class Holder(enum.Enum):
        X = Unsupported()

    seen = []
    assert fmt.encode(Holder.X, default=lambda o: seen.append(o) or "d") == fmt.exact_str("d")
    assert type(seen[0]) is Unsupported
    fmt.same_as_peer(Holder.X, default=repr)


# Enum members: `_value_` is read from the member's __dict__.


class Status(enum.Enum):
    ACTIVE = "active"
    SUSPENDED = "suspended"


def test_enum_value_read_from_member_dict(fmt):
    out = fmt.encode([Status.ACTIVE, Status.SUSPENDED])
    assert out == fmt.same_as_peer([Status.ACTIVE, Status.SUSPENDED])
    if fmt is JSON:
        assert out == b'["active","suspended"]'
    else:
        assert out == b"\x92" + msgpack_str("active") + msgpack_str("suspended")


def test_enum_value_changed_after_creation_is_seen(fmt):
    class E(enum.Enum):
        A = 1

    assert fmt.encode(E.A) == (b"1" if fmt is JSON else b"\x01")
    E.A._value_ = 2
    assert fmt.encode(E.A) == (b"2" if fmt is JSON else b"\x02")


def test_enum_value_from_a_data_descriptor_or_getattribute(fmt):
    class Prop(enum.Enum):
        A = 1

    # A data descriptor on the class wins over the member's __dict__.
    type.__setattr__(Prop, "_value_", property(lambda self: "from property"))
    assert fmt.encode(Prop.A) == fmt.exact_str("from property")

    class Hooked(enum.Enum):
        A = 1

        def __getattribute__(self, name):
            if name == "_value_":
                return "hooked"
            return super().__getattribute__(name)

    assert fmt.encode(Hooked.A) == fmt.exact_str("hooked")


def test_enum_value_missing_from_dict_uses_getattr(fmt):
    class E(enum.Enum):
        A = 1

    del E.A.__dict__["_value_"]
    with pytest.raises(fmt.encode_error):
        fmt.encode(E.A)


# --------------------------------------------------------------------------------------
# uuid
# --------------------------------------------------------------------------------------


UUIDS = [
    uuid.UUID(int=0),
    uuid.UUID(int=2**128 - 1),
    uuid.UUID("12345678-1234-5678-1234-567812345678"),
    uuid.UUID("{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}"),
    uuid.uuid5(uuid.NAMESPACE_DNS, "orcodec"),
    uuid.UUID(bytes=bytes(range(16))),
    uuid.UUID(int=1, version=4),
]


@pytest.mark.parametrize("value", UUIDS, ids=str)
def test_uuid(fmt, value):
    text = str(value)
    assert fmt.encode(value) == fmt.exact_str(text) == fmt.encode(text)
    for names in [(), ("OPT_SORT_KEYS",)]:
        fmt.same_as_peer([value, {"u": value}], names)
    # orjson's no-op flag.
    assert fmt.encode(value, option=orcodec.OPT_SERIALIZE_UUID) == fmt.exact_str(text)
    if hasattr(fmt.peer, "OPT_SERIALIZE_UUID"):
        fmt.same_as_peer(value, ("OPT_SERIALIZE_UUID",))


def test_uuid_random_equal_peers(fmt):
    values = [uuid.UUID(int=(i * 0x9E3779B97F4A7C15F39CC0605CEDC835) % 2**128) for i in range(2000)]
    fmt.same_as_peer(values)


def test_uuid_passthrough_and_subclass(fmt):
    encode, error = fmt.encode, fmt.encode_error
    value = uuid.UUID(int=5)
    assert encode(value, default=lambda o: o.hex, option=orcodec.OPT_PASSTHROUGH_UUID) == encode(value.hex)
    with pytest.raises(error, match="serializable: (uuid.)?UUID"):
        encode(value, option=orcodec.OPT_PASSTHROUGH_UUID)
    sub = MyUUID(int=5)
    with pytest.raises(error, match="serializable: .*MyUUID"):
        encode(sub)
    assert encode(sub, default=lambda o: "sub") == encode("sub")
    fmt.same_as_peer(sub, default=lambda o: "sub")
    if hasattr(fmt.peer, "OPT_PASSTHROUGH_UUID"):  # ormsgpack's flag
        fmt.same_as_peer(value, ("OPT_PASSTHROUGH_UUID",), default=str)


# UUIDs: the int slot and its 30-bit digits are read directly.


def _uuid_ints():
    ints = {0, 1, 2**128 - 1, 2**127, 2**120, 2**120 - 1, 2**8 - 1}
    for k in (30, 60, 90, 120):
        ints |= {2**k - 1, 2**k, 2**k + 1}
    # Leading zero bytes of every length.
    ints |= {2 ** (8 * n) - 1 for n in range(1, 17)}
    ints |= {0xAB << (8 * n) for n in range(16)}
    return sorted(ints)


@pytest.mark.parametrize("value", _uuid_ints(), ids=hex)
def test_uuid_text_at_digit_boundaries(fmt, value):
    u = uuid.UUID(int=value)
    assert fmt.encode(u) == fmt.exact_str(str(u)) == fmt.same_as_peer(u)
    key = f'{{"{u}":1}}'.encode() if fmt is JSON else b"\x81" + msgpack_str(str(u)) + b"\x01"
    assert fmt.encode({u: 1}, option=orcodec.OPT_NON_STR_KEYS) == key
    fmt.same_as_peer({u: 1}, ("OPT_NON_STR_KEYS",))


def test_uuid_random_bits(fmt):
    rng = random.Random(7)
    values = [uuid.UUID(int=rng.getrandbits(rng.randrange(1, 129))) for _ in range(3000)]
    out = fmt.same_as_peer(values)
    if fmt is JSON:
        assert out == ("[" + ",".join(f'"{u}"' for u in values) + "]").encode()
    else:
        assert out == msgpack_header("array", len(values)) + b"".join(msgpack_str(str(u)) for u in values)


def test_uuid_int_slot_overwritten(fmt):
    # What getattr returns is what is written, also when the slot was
    # changed behind UUID's back.
    u = uuid.UUID(int=5)
    object.__setattr__(u, "int", 2**100 + 7)
    assert fmt.encode(u) == fmt.exact_str(str(uuid.UUID(int=2**100 + 7)))
    for bad, cause in [("not an int", TypeError), (2**128, OverflowError), (-1, OverflowError)]:
        object.__setattr__(u, "int", bad)
        with pytest.raises(fmt.encode_error) as info:
            fmt.encode(u)
        assert type(info.value.__cause__) is cause
    object.__delattr__(u, "int")
    with pytest.raises(fmt.encode_error) as info:
        fmt.encode(u)
    assert type(info.value.__cause__) is AttributeError


def test_uuid_int_is_int_subclass(fmt):
    class Big(int):
        pass

    u = uuid.UUID(int=1)
    object.__setattr__(u, "int", Big(2**128 - 2))
    assert fmt.encode(u) == fmt.exact_str("ffffffff-ffff-ffff-ffff-fffffffffffe")


# --------------------------------------------------------------------------------------
# pydantic
# --------------------------------------------------------------------------------------


class Address(pydantic.BaseModel):
    street: str
    number: int = 1


class Person(pydantic.BaseModel):
    name: str
    age: int
    born: dt.datetime
    address: Address
    tags: list[str] = []
    friends: list[Person] = []
    uid: typing.Optional[uuid.UUID] = None  # noqa: UP045


class Open(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")
    a: int
    nested: typing.Optional[Address] = None  # noqa: UP045


class WithPrivate(pydantic.BaseModel):
    visible: int
    _hidden: int = pydantic.PrivateAttr(default=3)


class FrozenModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True)
    z: int
    a: int


def _person():
    friend = Person(name="f", age=3, born=dt.datetime(2001, 1, 1, tzinfo=UTC), address=Address(street="s"))
    return Person(
        name="P\u00e9",
        age=40,
        born=dt.datetime(1980, 5, 6, 7, 8, 9, 10),
        address=Address(street="Main", number=5),
        tags=["x"],
        friends=[friend],
        uid=uuid.UUID(int=7),
    )


MODELS = {
    "address": Address(street="s"),
    "person": _person(),
    "open_with_extra": Open(a=1, z=[1, 2], nested=Address(street="n"), extra_model=Address(street="e")),
    "open_without_extra": Open(a=2),
    "private": WithPrivate(visible=1),
    "frozen": FrozenModel(z=1, a=2),
    "list": [Address(street=str(i), number=i) for i in range(10)],
}


def _model_dict(obj):
    extra = obj.__pydantic_extra__ or {}
    return {**obj.__dict__, **extra}


PYDANTIC_FLAG_SETS = [
    ("OPT_SERIALIZE_PYDANTIC",),
    ("OPT_SERIALIZE_PYDANTIC", "OPT_NAIVE_UTC", "OPT_UTC_Z"),
    ("OPT_SERIALIZE_PYDANTIC", "OPT_SORT_KEYS"),
]


@pytest.mark.parametrize("name", list(MODELS))
def test_pydantic_equals_peers(fmt, name):
    obj = MODELS[name]
    for names in PYDANTIC_FLAG_SETS:
        if fmt is MSGPACK:
            fmt.same_as_peer(obj, names)
        else:
            # orjson has no such flag: the same map, as orjson writes it when default gives it.
            json_names = [n for n in names if n != "OPT_SERIALIZE_PYDANTIC"]
            assert orcodec.dumps(obj, option=fmt.opts(names)) == orjson.dumps(
                obj, default=_model_dict, option=fmt.peer_opts(json_names)
            ), names


@pytest.mark.parametrize(
    "fmt, name, expected",
    by_format(
        json=[
            (
                "open_with_extra",
                b'{"a":1,"nested":{"street":"n","number":1},"z":[1,2],"extra_model":{"street":"e","number":1}}',
            ),
            ("private", b'{"visible":1}'),
        ],
        msgpack=[
            (
                "open_with_extra",
                b"\x84\xa1a\x01\xa6nested\x82\xa6street\xa1n\xa6number\x01\xa1z\x92\x01\x02"
                b"\xabextra_model\x82\xa6street\xa1e\xa6number\x01",
            ),
            ("private", b"\x81\xa7visible\x01"),
        ],
        ids=lambda case: case[0],
    ),
)
def test_pydantic_exact(fmt, name, expected):
    assert fmt.encode(MODELS[name], option=orcodec.OPT_SERIALIZE_PYDANTIC) == expected


def test_pydantic_without_flag_goes_to_default(fmt):
    encode, error = fmt.encode, fmt.encode_error
    obj = MODELS["address"]
    with pytest.raises(error, match="serializable: Address"):
        encode(obj)
    assert encode(obj, default=lambda o: o.model_dump()) == encode({"street": "s", "number": 1})
    fmt.same_as_peer(obj, default=lambda o: "m")
    with pytest.raises(TypeError):
        fmt.peer_encode(obj)
    # A model class is no instance.
    with pytest.raises(error):
        encode(Address, option=orcodec.OPT_SERIALIZE_PYDANTIC)


# --------------------------------------------------------------------------------------
# The older flags (big ints, tuples, subclasses, surrogates) combined with these types
# --------------------------------------------------------------------------------------


@dataclasses.dataclass
class Mixed:
    text: str
    big: int
    pair: tuple
    sub: object
    when: dt.datetime


class Surrogate(enum.Enum):
    S = "x\ud800y"


COMBINED = [
    Mixed("a\udfffb", 2**70, (1, (2,)), collections.OrderedDict(k=(3,)), dt.datetime(2020, 1, 1)),
    [Surrogate.S, Level.HIGH, Color.LIST],
    {"m": Open(a=1, t=(1, 2), big=2**65), "d": Point(2**64, 1.0)},
]


@pytest.mark.parametrize("index", range(len(COMBINED)))
def test_older_flags_with_new_types_equal_ormsgpack(index):
    obj = COMBINED[index]
    names_sets = [
        ("OPT_REPLACE_SURROGATES", "OPT_PASSTHROUGH_BIG_INT"),
        ("OPT_REPLACE_SURROGATES", "OPT_PASSTHROUGH_BIG_INT", "OPT_PASSTHROUGH_TUPLE"),
        ("OPT_REPLACE_SURROGATES", "OPT_PASSTHROUGH_BIG_INT", "OPT_PASSTHROUGH_SUBCLASS", "OPT_SERIALIZE_PYDANTIC"),
        (
            "OPT_REPLACE_SURROGATES",
            "OPT_PASSTHROUGH_BIG_INT",
            "OPT_PASSTHROUGH_TUPLE",
            "OPT_SERIALIZE_PYDANTIC",
            "OPT_NAIVE_UTC",
        ),
        (),
    ]
    for names in names_sets:
        ours = outcome(orcodec.packb, obj, default=repr, option=MSGPACK.opts(names))
        theirs = outcome(ormsgpack.packb, obj, default=repr, option=MSGPACK.peer_opts(names))
        # The bytes, or the kind of error (the messages for surrogates differ: see
        # test_encode_strings.py::test_surrogate_message_same_as_peer).
        assert ours[:2] == theirs[:2] == (("ok", ours[1]) if ours[0] == "ok" else ("raise", TypeError)), names
    # JSON: the same options where orcodec gives them to JSON too; the result is what
    # MessagePack decodes to (JSON has no bin, and the same map order).
    for names in names_sets[:4]:
        option = MSGPACK.opts(names)
        assert orcodec.loads(orcodec.dumps(obj, default=repr, option=option)) == orcodec.unpackb(
            orcodec.packb(obj, default=repr, option=option)
        )


def test_strict_integer_and_sort_keys_with_new_types_equal_peers(fmt):
    # OPT_STRICT_INTEGER is JSON's; MessagePack ignores it.
    for obj in [Point(2**53, 1.0), [Level.HIGH], {"k": uuid.UUID(int=1), "n": 2**53 - 1}]:
        for names in [("OPT_STRICT_INTEGER",), ("OPT_SORT_KEYS",)]:
            ours = outcome(fmt.encode, obj, option=fmt.opts(names))
            assert ours == outcome(fmt.peer_encode, obj, option=fmt.peer_opts(fmt.peer_names(names))), names

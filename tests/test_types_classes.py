"""dataclasses, TypedDict / OrderedDict and other dict subclasses, enums, UUIDs and
pydantic models in both formats, byte for byte against orjson and ormsgpack."""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import enum
import sys
import typing
import uuid

import orcodec
import orjson
import ormsgpack
import pydantic
import pytest
from helpers import FORMATS, Unsupported, opts

UTC = dt.timezone.utc


def same_as_peers(obj, names=(), default=None):
    """orcodec's bytes equal orjson's (dumps) and ormsgpack's (packb) for ``obj``."""
    assert orcodec.dumps(obj, default=default, option=opts(orcodec, names)) == orjson.dumps(
        obj, default=default, option=opts(orjson, names)
    )
    assert orcodec.packb(obj, default=default, option=opts(orcodec, names)) == ormsgpack.packb(
        obj, default=default, option=opts(ormsgpack, names)
    )


# --------------------------------------------------------------------------------------
# dataclasses
# --------------------------------------------------------------------------------------


@dataclasses.dataclass
class Point:
    x: int
    y: float
    label: str = "origin"


@dataclasses.dataclass(frozen=True)
class Frozen:
    b: int
    a: int


@dataclasses.dataclass(slots=True)
class Slotted:
    z: int
    a: str = "s"


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
    maybe: Nested | None = None


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
def test_dataclass_equals_peers(name):
    obj = DATACLASSES[name]
    for names in [(), ("OPT_SORT_KEYS",), ("OPT_UTC_Z", "OPT_NAIVE_UTC"), ("OPT_INDENT_2",)]:
        if "OPT_INDENT_2" in names:
            assert orcodec.dumps(obj, option=opts(orcodec, names)) == orjson.dumps(obj, option=opts(orjson, names))
            continue
        same_as_peers(obj, names)


def test_dataclass_exact_bytes_and_order():
    assert orcodec.dumps(Point(1, 2.0)) == b'{"x":1,"y":2.0,"label":"origin"}'
    assert orcodec.packb(Point(1, 2.0)) == b"\x83\xa1x\x01\xa1y\xcb@\x00\x00\x00\x00\x00\x00\x00\xa5label\xa6origin"
    assert orcodec.dumps(Frozen(2, 1)) == b'{"b":2,"a":1}'
    assert (
        orcodec.dumps(Frozen(2, 1), option=orcodec.OPT_SORT_KEYS)
        == b'{"b":2,"a":1}'
        == orjson.dumps(Frozen(2, 1), option=orjson.OPT_SORT_KEYS)
    )
    assert orcodec.dumps(Derived()) == b'{"base":1,"shared":"derived","derived":2}'
    assert orcodec.dumps(Empty()) == b"{}"
    assert orcodec.packb(Empty()) == b"\x80"
    assert orcodec.loads(orcodec.dumps(_nested())) == orcodec.unpackb(orcodec.packb(_nested()))


def test_dataclass_special_fields_excluded():
    obj = WithSpecialFields(1)
    expected = {"kept": 1, "from_factory": [1, 2], "not_in_init": "fixed", "not_in_repr": 3}
    assert orcodec.loads(orcodec.dumps(obj)) == expected
    assert list(orcodec.unpackb(orcodec.packb(obj))) == list(expected)
    # ormsgpack leaves out the attribute that is not a field too; orjson writes it
    # (a documented deviation, also in test_compat.py). orjson also misses the
    # init=False field, whose value lives on the class, not in the instance __dict__
    # (another deviation: orcodec reads every field with getattr, like ormsgpack).
    assert orcodec.packb(obj) == ormsgpack.packb(obj)
    assert "not_in_init" not in obj.__dict__
    assert orjson.loads(orjson.dumps(obj)) == {
        "kept": 1,
        "from_factory": [1, 2],
        "not_in_repr": 3,
        "derived_value": 10,
    }


def test_dataclass_extra_attribute_not_written():
    obj = Point(1, 2.0)
    obj.added = "later"
    assert orcodec.dumps(obj) == b'{"x":1,"y":2.0,"label":"origin"}'
    assert orcodec.packb(obj) == ormsgpack.packb(obj)
    assert orjson.dumps(obj) == b'{"x":1,"y":2.0,"label":"origin","added":"later"}'


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
    same_as_peers(obj, ("OPT_PASSTHROUGH_DATACLASS",), default=lambda o: {"dc": type(o).__name__})


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
    # A property raising while a field is read: the same.
    obj = Point(1, 2.0)
    del obj.x
    with pytest.raises(error) as info:
        encode(obj)
    assert type(info.value.__cause__) is AttributeError


def test_dataclass_value_types_and_flags_apply():
    @dataclasses.dataclass
    class Holder:
        when: dt.datetime
        uid: uuid.UUID
        raw: object

    obj = Holder(dt.datetime(2020, 1, 1, 0, 0, 0, 5), uuid.UUID(int=1), Unsupported())
    default = repr
    names = ("OPT_NAIVE_UTC", "OPT_UTC_Z", "OPT_OMIT_MICROSECONDS")
    same_as_peers(obj, names, default=default)
    assert orcodec.dumps(obj, default=default, option=opts(orcodec, names)) == (
        b'{"when":"2020-01-01T00:00:00Z","uid":"00000000-0000-0000-0000-000000000001","raw":"Unsupported()"}'
    )


def test_many_dataclasses_beyond_the_cache():
    classes = [dataclasses.make_dataclass(f"C{i}", [(f"f{i}", int), ("g", int)]) for i in range(1100)]
    objs = [cls(i, -i) for i, cls in enumerate(classes)]
    assert orcodec.dumps(objs) == orjson.dumps(objs)
    assert orcodec.packb(objs) == ormsgpack.packb(objs)
    # Again, after the cache started over.
    assert orcodec.loads(orcodec.dumps(objs[:3])) == [{"f0": 0, "g": 0}, {"f1": 1, "g": -1}, {"f2": 2, "g": -2}]


def test_dataclass_class_object_is_not_an_instance():
    for fmt in FORMATS:
        encode, error = fmt.encode, fmt.encode_error
        with pytest.raises(error):
            encode(Point)
        assert encode(Point, default=lambda o: o.__name__) == encode("Point")


def test_dataclass_recursion_is_an_error():
    @dataclasses.dataclass
    class Loop:
        me: object = None

    obj = Loop()
    obj.me = obj
    for fmt in FORMATS:
        encode, error = fmt.encode, fmt.encode_error
        with pytest.raises(error, match="Recursion limit reached"):
            encode(obj)


# --------------------------------------------------------------------------------------
# TypedDict, OrderedDict and other dict subclasses
# --------------------------------------------------------------------------------------


class Movie(typing.TypedDict):
    title: str
    year: int


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
def test_dict_subclasses_equal_peers(name):
    obj = MAPPINGS[name]
    for names in [(), ("OPT_SORT_KEYS",), ("OPT_PASSTHROUGH_SUBCLASS",)]:
        same_as_peers(obj, names, default=lambda o: sorted(o.items()))


def test_dict_subclasses_exact():
    # move_to_end() reorders the OrderedDict's own links, not the dict storage the
    # peers (and orcodec) walk: all three write insertion order here.
    assert list(MAPPINGS["ordereddict_moved"]) == ["a", "b"]
    assert orcodec.dumps(MAPPINGS["ordereddict_moved"]) == b'{"b":1,"a":2}'
    assert orcodec.dumps(MAPPINGS["typeddict"]) == b'{"title":"Blade Runner","year":1982}'
    for fmt in FORMATS:
        encode, error = fmt.encode, fmt.encode_error
        with pytest.raises(error, match="serializable: (collections.)?OrderedDict"):
            encode(collections.OrderedDict(), option=orcodec.OPT_PASSTHROUGH_SUBCLASS)
        # A TypedDict instance is a plain dict: no subclass.
        assert encode(MAPPINGS["typeddict"], option=orcodec.OPT_PASSTHROUGH_SUBCLASS) == encode(
            dict(MAPPINGS["typeddict"])
        )


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
def test_enum_equals_peers(member):
    for names in [(), ("OPT_NAIVE_UTC", "OPT_UTC_Z"), ("OPT_OMIT_MICROSECONDS",), ("OPT_PASSTHROUGH_SUBCLASS",)]:
        same_as_peers(member, names)
        same_as_peers({"k": [member]}, names)


def test_enum_value_is_walked_with_options():
    assert (
        orcodec.dumps(Color.WHEN, option=orcodec.OPT_NAIVE_UTC | orcodec.OPT_UTC_Z) == b'"2020-01-01T00:00:00.000007Z"'
    )
    assert orcodec.dumps(Color.POINT) == b'{"x":0,"y":0.0,"label":"origin"}'
    assert orcodec.dumps(NestedEnum.INNER) == b"1"
    assert orcodec.packb(Level.HIGH) == orcodec.packb(2**60)
    with pytest.raises(orcodec.JSONEncodeError, match="53-bit"):
        orcodec.dumps(Level.HIGH, option=orcodec.OPT_STRICT_INTEGER)
    with pytest.raises(orcodec.MsgpackEncodeError, match="serializable: tuple"):
        orcodec.packb(Color.LIST, option=orcodec.OPT_PASSTHROUGH_TUPLE)
    assert orcodec.packb(Big.BIG, default=str, option=orcodec.OPT_PASSTHROUGH_BIG_INT) == orcodec.packb(str(2**70))


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
    # ormsgpack has the flag too.
    assert orcodec.packb(member, default=default, option=orcodec.OPT_PASSTHROUGH_ENUM) == ormsgpack.packb(
        member, default=default, option=ormsgpack.OPT_PASSTHROUGH_ENUM
    )


def test_enum_value_returning_itself_is_a_recursion_error(fmt):
    encode, error = fmt.encode, fmt.encode_error
    for option in (0, orcodec.OPT_SORT_KEYS, orcodec.OPT_NON_STR_KEYS):
        with pytest.raises(error, match="Recursion limit reached"):
            encode(Weird.SELF, option=option)
    for option in (orcodec.OPT_NON_STR_KEYS, orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SORT_KEYS):
        with pytest.raises(error, match="Recursion limit reached"):
            encode({Weird.SELF: 1}, option=option)
    assert encode(ValueProperty.SELF) == encode(1)
    assert encode({ValueProperty.SELF: 1}, option=orcodec.OPT_NON_STR_KEYS) == encode(
        {1: 1}, option=orcodec.OPT_NON_STR_KEYS
    )


def test_enum_with_unsupported_value_calls_default_with_the_value():
    class Holder(enum.Enum):
        X = Unsupported()

    seen = []
    assert orcodec.dumps(Holder.X, default=lambda o: seen.append(o) or "d") == b'"d"'
    assert type(seen[0]) is Unsupported
    same_as_peers(Holder.X, default=repr)


# --------------------------------------------------------------------------------------
# uuid
# --------------------------------------------------------------------------------------


class MyUUID(uuid.UUID):
    pass


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
def test_uuid(value):
    text = str(value)
    assert orcodec.dumps(value) == f'"{text}"'.encode()
    assert orcodec.packb(value) == orcodec.packb(text)
    for names in [(), ("OPT_SORT_KEYS",)]:
        same_as_peers([value, {"u": value}], names)
    # orjson's no-op flag.
    assert orcodec.dumps(value, option=orcodec.OPT_SERIALIZE_UUID) == orjson.dumps(
        value, option=orjson.OPT_SERIALIZE_UUID
    )


def test_uuid_random_equal_peers():
    values = [uuid.UUID(int=(i * 0x9E3779B97F4A7C15F39CC0605CEDC835) % 2**128) for i in range(2000)]
    same_as_peers(values)


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
    same_as_peers(sub, default=lambda o: "sub")
    assert orcodec.packb(value, default=str, option=orcodec.OPT_PASSTHROUGH_UUID) == ormsgpack.packb(
        value, default=str, option=ormsgpack.OPT_PASSTHROUGH_UUID
    )


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
    uid: uuid.UUID | None = None


class Open(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")
    a: int
    nested: Address | None = None


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
def test_pydantic_equals_ormsgpack(name):
    obj = MODELS[name]
    for names in PYDANTIC_FLAG_SETS:
        assert orcodec.packb(obj, option=opts(orcodec, names)) == ormsgpack.packb(obj, option=opts(ormsgpack, names)), (
            names
        )
        # JSON: the same map, as orjson writes it when default gives it.
        json_names = [n for n in names if n != "OPT_SERIALIZE_PYDANTIC"]
        assert orcodec.dumps(obj, option=opts(orcodec, names)) == orjson.dumps(
            obj, default=_model_dict, option=opts(orjson, json_names)
        ), names


def test_pydantic_exact():
    assert orcodec.dumps(MODELS["open_with_extra"], option=orcodec.OPT_SERIALIZE_PYDANTIC) == (
        b'{"a":1,"nested":{"street":"n","number":1},"z":[1,2],"extra_model":{"street":"e","number":1}}'
    )
    assert orcodec.dumps(MODELS["private"], option=orcodec.OPT_SERIALIZE_PYDANTIC) == b'{"visible":1}'


def test_pydantic_without_flag_goes_to_default(fmt):
    encode, error = fmt.encode, fmt.encode_error
    obj = MODELS["address"]
    with pytest.raises(error, match="serializable: Address"):
        encode(obj)
    assert encode(obj, default=lambda o: o.model_dump()) == encode({"street": "s", "number": 1})
    assert orcodec.packb(obj, default=lambda o: "m") == ormsgpack.packb(obj, default=lambda o: "m")
    with pytest.raises(TypeError):
        ormsgpack.packb(obj)
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
        ours = _outcome_of(orcodec.packb, obj, default=repr, option=opts(orcodec, names))
        theirs = _outcome_of(ormsgpack.packb, obj, default=repr, option=opts(ormsgpack, names))
        assert ours == theirs, names
    # JSON: the same options where orcodec gives them to JSON too; the result is what
    # MessagePack decodes to (JSON has no bin, and the same map order).
    for names in names_sets[:4]:
        option = opts(orcodec, names)
        assert orcodec.loads(orcodec.dumps(obj, default=repr, option=option)) == orcodec.unpackb(
            orcodec.packb(obj, default=repr, option=option)
        )


def _outcome_of(call, *args, **kwargs):
    try:
        return call(*args, **kwargs)
    except TypeError:
        return TypeError


def test_strict_integer_with_new_types_equals_orjson():
    for obj in [Point(2**53, 1.0), [Level.HIGH], {"k": uuid.UUID(int=1), "n": 2**53 - 1}]:
        for option in ["OPT_STRICT_INTEGER", "OPT_SORT_KEYS"]:
            assert _outcome_of(orcodec.dumps, obj, option=getattr(orcodec, option)) == _outcome_of(
                orjson.dumps, obj, option=getattr(orjson, option)
            )

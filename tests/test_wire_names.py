"""Wire names and defaults: ``orcodec.Name``, ``@orcodec.options`` and
``OPT_OMIT_DEFAULTS``/``OPT_OMIT_NONE``, through dumps/packb, typed decoding,
convert and json_schema. Bytes are compared with msgspec's ``rename=`` and
``omit_defaults=`` Structs and pydantic's aliases and exclusions where they
mean the same."""

import dataclasses
import gc
import json
import sys
from typing import Annotated, NamedTuple, NotRequired, Optional, TypedDict

import attrs
import jsonschema
import msgspec
import orcodec
import orjson
import pydantic
import pytest
from pydantic.alias_generators import to_camel

BOTH = [
    pytest.param(orcodec.dumps, orcodec.loads, id="json"),
    pytest.param(orcodec.packb, orcodec.unpackb, id="msgpack"),
]

NAMES = ["order_id", "_private", "a__b", "already_Camel", "x1_y", "trailing_", "HTTP_code", "a_BC_d", "ABC", "plain"]


def _dataclass(names, **options):
    cls = dataclasses.make_dataclass("Wire", [(n, int, dataclasses.field(default=i)) for i, n in enumerate(names)])
    return orcodec.options(**options)(cls) if options else cls


def _struct(names, **kw):
    return msgspec.defstruct("Wire", [(n, int, i) for i, n in enumerate(names)], **kw)


# -- the rename policies, byte for byte against msgspec --------------------------------


@pytest.mark.parametrize(("policy", "msgspec_policy"), [("camel", "camel"), ("pascal", "pascal"), ("kebab", "kebab")])
def test_policies_write_msgspecs_names(policy, msgspec_policy):
    # orcodec writes fields with a leading "_" no more than ormsgpack does: msgspec's
    # _private is compared without it.
    names = [n for n in NAMES if not n.startswith("_")]
    value = _dataclass(names, rename=policy)()
    peer = _struct(names, rename=msgspec_policy)()
    assert orcodec.dumps(value) == msgspec.json.encode(peer)
    assert orcodec.packb(value) == msgspec.msgpack.encode(peer)


def test_screaming_snake_is_msgspecs_upper():
    names = [n for n in NAMES if not n.startswith("_")]
    value = _dataclass(names, rename="screaming_snake")()
    assert orcodec.dumps(value) == msgspec.json.encode(_struct(names, rename="upper")())


def test_private_fields_are_renamed_for_decoding_as_msgspec_renames_them():
    cls = _dataclass(NAMES, rename="camel")
    assert list(orcodec.json_schema(cls)["$defs"]["Wire"]["properties"]) == list(
        msgspec.json.schema(_struct(NAMES, rename="camel"))["$defs"]["Wire"]["properties"]
    )


def test_a_callable_policy_and_a_name_that_wins_over_it():
    @orcodec.options(rename=str.upper)
    @dataclasses.dataclass
    class Order:
        order_id: int
        note: Annotated[str, orcodec.Name("comment")] = ""

    assert orcodec.dumps(Order(7, "x")) == b'{"ORDER_ID":7,"comment":"x"}'
    assert orcodec.packb(Order(7)) == msgspec.msgpack.encode({"ORDER_ID": 7, "comment": ""})
    assert orcodec.loads(b'{"ORDER_ID":7,"comment":"y"}', type=Order) == Order(7, "y")


def test_pydantic_alias_generator_gives_the_same_bytes():
    class Model(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(alias_generator=to_camel)
        order_id: int
        unit_price: float
        ship_to: Optional[str] = None

    @orcodec.options(rename="camel")
    @dataclasses.dataclass
    class Order:
        order_id: int
        unit_price: float
        ship_to: Optional[str] = None

    model = Model(orderId=3, unitPrice=1.5, shipTo="home")
    assert orcodec.dumps(Order(3, 1.5, "home")) == model.model_dump_json(by_alias=True).encode()
    assert orcodec.loads(model.model_dump_json(by_alias=True), type=Order) == Order(3, 1.5, "home")


# -- leaving defaults and None out ------------------------------------------------------


@dataclasses.dataclass
class Line:
    sku: str
    qty: int = 1
    note: Optional[str] = None
    tags: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Basket:
    owner: Optional[str]
    lines: list[Line]
    coupon: Optional[str] = None


class LineModel(pydantic.BaseModel):
    sku: str
    qty: int = 1
    note: Optional[str] = None
    tags: list = pydantic.Field(default_factory=list)


class BasketModel(pydantic.BaseModel):
    owner: Optional[str]
    lines: list[LineModel]
    coupon: Optional[str] = None


BASKETS = [
    (
        Basket(None, [Line("a"), Line("b", 2, "gift", ["x"])]),
        {"owner": None, "lines": [{"sku": "a"}, {"sku": "b", "qty": 2, "note": "gift", "tags": ["x"]}]},
    ),
    (Basket("ann", [], "SAVE"), {"owner": "ann", "lines": [], "coupon": "SAVE"}),
]


@pytest.mark.parametrize(("value", "fields"), BASKETS)
@pytest.mark.parametrize(
    ("option", "exclude"),
    [
        (orcodec.OPT_OMIT_DEFAULTS, {"exclude_defaults": True}),
        (orcodec.OPT_OMIT_NONE, {"exclude_none": True}),
        (orcodec.OPT_OMIT_DEFAULTS | orcodec.OPT_OMIT_NONE, {"exclude_defaults": True, "exclude_none": True}),
    ],
)
def test_per_call_flags_reach_nested_instances_as_pydantics_exclusions(value, fields, option, exclude):
    model = BasketModel(**fields)
    assert orcodec.dumps(value, option=option) == model.model_dump_json(**exclude).encode()
    assert orcodec.packb(value, option=option) == msgspec.msgpack.encode(model.model_dump(**exclude))


def test_omit_defaults_per_class_is_msgspecs():
    @orcodec.options(omit_defaults=True)
    @dataclasses.dataclass
    class Point:
        x: int
        y: int = 0
        label: str = "origin"
        extra: list = dataclasses.field(default_factory=list)

    class Peer(msgspec.Struct, omit_defaults=True):
        x: int
        y: int = 0
        label: str = "origin"
        extra: list = msgspec.field(default_factory=list)

    for args in [(1,), (1, 2), (1, 0, "p"), (1, 0, "origin", [3])]:
        assert orcodec.dumps(Point(*args)) == msgspec.json.encode(Peer(*args))
        assert orcodec.packb(Point(*args)) == msgspec.msgpack.encode(Peer(*args))


def test_omit_none_per_class_and_both_together_with_rename():
    @orcodec.options(rename="camel", omit_none=True)
    @dataclasses.dataclass
    class Contact:
        first_name: str
        middle_name: Optional[str] = None
        phone_number: Optional[str] = None

    assert orcodec.dumps(Contact("Ann")) == b'{"firstName":"Ann"}'
    assert orcodec.dumps(Contact("Ann", phone_number="1")) == b'{"firstName":"Ann","phoneNumber":"1"}'
    assert orcodec.packb(Contact("Ann")) == b"\x81\xa9firstName\xa3Ann"
    assert orcodec.loads(b'{"firstName":"Ann"}', type=Contact) == Contact("Ann")


def test_a_default_factory_is_called_when_the_instance_is_written():
    calls = []

    def make():
        calls.append(1)
        return [0]

    @dataclasses.dataclass
    class Box:
        items: list = dataclasses.field(default_factory=make)

    box = Box()
    calls.clear()
    assert orcodec.dumps(box, option=orcodec.OPT_OMIT_DEFAULTS) == b"{}"
    assert orcodec.dumps(Box([1]), option=orcodec.OPT_OMIT_DEFAULTS) == b'{"items":[1]}'
    assert len(calls) == 2  # once per instance written
    assert orcodec.dumps(box) == b'{"items":[0]}'  # without the flag: not called
    assert len(calls) == 2


def test_a_default_compared_with_eq_that_raises_is_the_encode_error():
    class Odd:
        def __eq__(self, other):
            raise RuntimeError("no comparing")

        __hash__ = object.__hash__

    @dataclasses.dataclass
    class Holder:
        value: object = 0

    with pytest.raises(orcodec.JSONEncodeError) as info:
        orcodec.dumps(Holder(Odd()), option=orcodec.OPT_OMIT_DEFAULTS)
    assert isinstance(info.value.__cause__, RuntimeError)
    with pytest.raises(orcodec.MsgpackEncodeError, match="^no comparing") as info:
        orcodec.packb(Holder(Odd()), option=orcodec.OPT_OMIT_DEFAULTS)
    assert isinstance(info.value.__cause__, RuntimeError)


def test_a_factory_that_raises_is_the_encode_error():
    def broken():
        raise ValueError("factory broke")

    @dataclasses.dataclass
    class Holder:
        value: list = dataclasses.field(default_factory=list)

    holder = Holder()
    Holder.__dataclass_fields__["value"].default_factory = broken
    with pytest.raises(orcodec.MsgpackEncodeError, match="^factory broke") as info:
        orcodec.packb(holder, option=orcodec.OPT_OMIT_DEFAULTS)
    assert isinstance(info.value.__cause__, ValueError)


# -- classes without any of it -------------------------------------------------------------


@dataclasses.dataclass
class Plain:
    order_id: int
    note: Optional[str] = None


def test_plain_classes_write_orjsons_bytes_also_after_the_cache_knows_them():
    value = Plain(1)
    value.added = "outside the fields"  # orjson writes the instance __dict__
    for _ in range(3):
        assert orcodec.dumps(value) == orjson.dumps(value)
        assert orcodec.dumps([value, Plain(2, "n")]) == orjson.dumps([value, Plain(2, "n")])


def test_per_call_flags_write_a_plain_class_as_its_fields():
    value = Plain(1)
    value.added = "outside the fields"
    assert orcodec.dumps(value, option=orcodec.OPT_OMIT_NONE) == b'{"order_id":1}'
    assert orcodec.dumps(value) == b'{"order_id":1,"note":null,"added":"outside the fields"}'


def test_flags_are_ignored_by_typed_decoding_and_by_other_types():
    assert orcodec.dumps({"a": None}, option=orcodec.OPT_OMIT_NONE) == b'{"a":null}'
    assert orcodec.packb([None, 0], option=orcodec.OPT_OMIT_NONE | orcodec.OPT_OMIT_DEFAULTS) == b"\x92\xc0\x00"


# -- round trips: encode, typed decode, convert, schema -----------------------------------


@orcodec.options(rename="camel", forbid_unknown_fields=True)
@dataclasses.dataclass
class Item:
    sku_code: str
    unit_count: Annotated[int, orcodec.Name("n")] = 1


@orcodec.options(rename="kebab", omit_none=True)
@dataclasses.dataclass
class Order:
    order_id: int
    line_items: list[Item]
    ship_to: Optional[str] = None


ORDER = Order(7, [Item("A-1"), Item("B-2", 3)])
ORDER_JSON = b'{"order-id":7,"line-items":[{"skuCode":"A-1","n":1},{"skuCode":"B-2","n":3}]}'


@pytest.mark.parametrize(("encode", "decode"), BOTH)
def test_round_trip_through_every_path(encode, decode):
    data = encode(ORDER)
    assert decode(data, type=Order) == ORDER
    assert orcodec.Decoder(Order).loads(orcodec.dumps(ORDER)) == ORDER
    untyped = decode(data)
    assert orcodec.convert(untyped, Order) == ORDER
    assert jsonschema.Draft202012Validator(orcodec.json_schema(Order)).is_valid(json.loads(orcodec.dumps(ORDER)))


def test_exact_json_and_the_schema_under_wire_names():
    assert orcodec.dumps(ORDER) == ORDER_JSON
    defs = orcodec.json_schema(Order)["$defs"]
    assert defs["Order"]["properties"].keys() == {"order-id", "line-items", "ship-to"}
    assert defs["Order"]["required"] == ["order-id", "line-items"]
    assert "additionalProperties" not in defs["Order"]
    assert defs["Item"]["properties"] == {"skuCode": {"type": "string"}, "n": {"type": "integer", "default": 1}}
    assert defs["Item"]["required"] == ["skuCode"]
    assert defs["Item"]["additionalProperties"] is False


def test_decoding_takes_the_wire_names_only():
    with pytest.raises(orcodec.ValidationError, match="^Object missing required field `order-id`$"):
        orcodec.loads(b'{"order_id": 7, "line-items": []}', type=Order)
    with pytest.raises(orcodec.ValidationError, match="^Object missing required field `order-id`$"):
        orcodec.convert({"order_id": 7, "line-items": []}, Order)


@pytest.mark.parametrize(("encode", "decode"), BOTH)
def test_error_paths_name_the_wire_names(encode, decode):
    data = encode({"order-id": 7, "line-items": [{"skuCode": "A"}, {"skuCode": "B", "n": "x"}]})
    with pytest.raises(orcodec.ValidationError) as info:
        decode(data, type=Order)
    assert str(info.value) == "Expected `int`, got `str` - at `$.line-items[1].n`"
    assert info.value.path == "$.line-items[1].n"


@pytest.mark.parametrize(("encode", "decode"), BOTH)
def test_unknown_fields_refused_by_a_forbidding_class_only(encode, decode):
    data = encode({"order-id": 7, "extra": 1, "line-items": [{"skuCode": "A", "sku_code": "B"}]})
    with pytest.raises(orcodec.ValidationError) as info:
        decode(data, type=Order)
    assert str(info.value) == "Object contains unknown field `sku_code` - at `$.line-items[0]`"
    assert decode(encode({"order-id": 7, "extra": 1, "line-items": []}), type=Order) == Order(7, [])
    with pytest.raises(orcodec.ValidationError, match=r"^Object contains unknown field `extra`$"):
        orcodec.Decoder(Order, forbid_unknown_fields=True).convert({"order-id": 7, "extra": 1, "line-items": []})


def test_tagged_unions_use_the_tags_wire_name():
    from typing import Literal

    @orcodec.options(rename="camel")
    @dataclasses.dataclass
    class Cancel:
        order_kind: Literal["cancel"]
        order_id: int

    @orcodec.options(rename="camel")
    @dataclasses.dataclass
    class Place:
        order_kind: Literal["place"]
        order_id: int

    assert orcodec.loads(b'{"orderKind": "place", "orderId": 1}', type=Cancel | Place) == Place("place", 1)
    assert orcodec.json_schema(Cancel | Place)["discriminator"]["propertyName"] == "orderKind"


def test_attrs_classes_decode_convert_and_describe_by_wire_names():
    @orcodec.options(rename="pascal", forbid_unknown_fields=True)
    @attrs.define
    class Account:
        user_name: str
        balance_cents: Annotated[int, orcodec.Name("cents")] = 0

    assert orcodec.loads(b'{"UserName": "ann", "cents": 5}', type=Account) == Account("ann", 5)
    assert orcodec.convert({"UserName": "bob"}, Account) == Account("bob")
    with pytest.raises(orcodec.ValidationError, match="unknown field `user_name`"):
        orcodec.loads(b'{"UserName": "ann", "user_name": "x"}', type=Account)
    assert list(orcodec.json_schema(Account)["$defs"]["Account"]["properties"]) == ["UserName", "cents"]


def test_typeddicts_decode_wire_names_into_their_python_keys():
    @orcodec.options(rename="camel")
    class Movie(TypedDict):
        movie_title: str
        release_year: NotRequired[Annotated[int, orcodec.Name("year")]]

    assert orcodec.loads(b'{"movieTitle": "M", "year": 1999}', type=Movie) == {"movie_title": "M", "release_year": 1999}
    assert orcodec.json_schema(Movie)["$defs"]["Movie"]["required"] == ["movieTitle"]
    # A TypedDict value is a plain dict: written with the keys it has.
    assert orcodec.dumps(Movie(movie_title="M")) == b'{"movie_title":"M"}'


def test_typeddict_options_are_inherited_where_python_keeps_the_bases():
    @orcodec.options(rename="camel")
    class Person(TypedDict):
        user_id: int

    class Employee(Person):
        staff_number: int

    data = b'{"userId": 1, "staffNumber": 2}'
    if sys.version_info >= (3, 12):  # __orig_bases__ on TypedDicts
        assert orcodec.loads(data, type=Employee) == {"user_id": 1, "staff_number": 2}
    else:
        with pytest.raises(orcodec.ValidationError, match="missing required field `user_id`"):
            orcodec.loads(data, type=Employee)


def test_namedtuples_take_no_options():
    with pytest.raises(TypeError, match=r"NamedTuple `.*P`: a NamedTuple is an array on the wire"):

        @orcodec.options(rename="camel")
        class P(NamedTuple):
            x_y: int


# -- inheritance --------------------------------------------------------------------------


@orcodec.options(rename="camel", omit_none=True)
@dataclasses.dataclass
class Base:
    base_id: int
    base_note: Annotated[Optional[str], orcodec.Name("memo")] = None


@orcodec.options(omit_defaults=True)
@dataclasses.dataclass
class Child(Base):
    child_count: int = 0


@orcodec.options(rename="kebab", omit_none=False)
@dataclasses.dataclass
class Grandchild(Child):
    last_word: Optional[str] = None


def test_options_are_inherited_the_nearest_first():
    assert orcodec.dumps(Child(1)) == b'{"baseId":1}'
    assert orcodec.dumps(Child(1, "m", 2)) == b'{"baseId":1,"memo":"m","childCount":2}'
    # rename and omit_none set again; omit_defaults from Child, Name from Base.
    assert orcodec.dumps(Grandchild(1, None, 0, None)) == b'{"base-id":1}'
    assert orcodec.dumps(Grandchild(1, "m", 5, None)) == b'{"base-id":1,"memo":"m","child-count":5}'
    assert orcodec.loads(b'{"base-id": 1, "memo": "m", "last-word": "w"}', type=Grandchild) == Grandchild(
        1, "m", 0, "w"
    )
    # The base class keeps its own policy.
    assert orcodec.dumps(Base(1)) == b'{"baseId":1}'


# -- the cache ----------------------------------------------------------------------------


def test_a_rename_callable_is_called_once_per_field_and_consumer():
    calls = []

    def rename(name):
        calls.append(name)
        return name.upper()

    @orcodec.options(rename=rename)
    @dataclasses.dataclass
    class Counted:
        a: int
        b: int = 0

    for i in range(50):
        assert orcodec.dumps(Counted(i)) == b'{"A":%d,"B":0}' % i
        assert orcodec.packb(Counted(i))
    assert calls == ["a", "b"]  # the encoders' field table
    for i in range(50):
        assert orcodec.loads(b'{"A": %d}' % i, type=Counted) == Counted(i)
        assert orcodec.convert({"A": i}, Counted) == Counted(i)
    assert calls == ["a", "b", "a", "b"]  # and the compiled type


def test_two_classes_with_the_same_fields_and_different_policies_never_share():
    def make(**options):
        @orcodec.options(**options)
        @dataclasses.dataclass
        class Same:
            user_id: int
            nick: Optional[str] = None

        return Same

    camel, kebab, plain = make(rename="camel", omit_none=True), make(rename="kebab"), make()
    for _ in range(2):
        assert (
            orcodec.dumps([camel(1), kebab(1), plain(1)])
            == b'[{"userId":1},{"user-id":1,"nick":null},{"user_id":1,"nick":null}]'
        )
    assert orcodec.loads(b'{"userId": 2}', type=camel) == camel(2)
    assert orcodec.loads(b'{"user-id": 2}', type=kebab) == kebab(2)
    with pytest.raises(orcodec.ValidationError, match="missing required field `user_id`"):
        orcodec.loads(b'{"user-id": 2}', type=plain)


def test_a_class_changed_after_use_is_looked_at_again():
    @dataclasses.dataclass
    class Later:
        user_id: int

    assert orcodec.dumps(Later(1)) == b'{"user_id":1}'
    orcodec.options(rename="camel")(Later)
    assert orcodec.dumps(Later(1)) == b'{"userId":1}'
    assert orcodec.packb(Later(1)) == b"\x81\xa6userId\x01"


# -- refused policies ---------------------------------------------------------------------


def test_a_name_two_fields_share_is_a_type_error_at_first_use():
    @orcodec.options(rename="camel")
    @dataclasses.dataclass
    class Clash:
        user_id: int
        userId: int  # noqa: N815 - the collision under test

    message = "Type `.*Clash` is not supported: fields `user_id` and `userId` both have the wire name `userId`"
    with pytest.raises(orcodec.JSONEncodeError, match=message) as info:
        orcodec.dumps([Clash(1, 2)])
    assert isinstance(info.value.__cause__, TypeError)
    assert info.value.__notes__ == ["at $[0]"]
    with pytest.raises(orcodec.MsgpackEncodeError, match=message):
        orcodec.packb(Clash(1, 2))
    with pytest.raises(TypeError, match=message):
        orcodec.loads(b"{}", type=Clash)
    with pytest.raises(TypeError, match=message):
        orcodec.json_schema(Clash)


@pytest.mark.parametrize(
    ("rename", "message"),
    [
        (lambda name: 1, "its rename policy gave `int` for field `a`, not a str"),
        (lambda name: None, "its rename policy gave `NoneType` for field `a`, not a str"),
        (lambda name: 1 / 0, "its rename policy raised ZeroDivisionError for field `a`: division by zero"),
        (lambda: "x", "its rename policy raised TypeError for field `a`"),
    ],
)
def test_hostile_rename_callables_are_type_errors(rename, message):
    @orcodec.options(rename=rename)
    @dataclasses.dataclass
    class Hostile:
        a: int

    calls = [
        (lambda: orcodec.dumps(Hostile(1)), orcodec.JSONEncodeError),
        (lambda: orcodec.packb(Hostile(1)), orcodec.MsgpackEncodeError),
        (lambda: orcodec.loads(b"{}", type=Hostile), TypeError),
        (lambda: orcodec.json_schema(Hostile), TypeError),
    ]
    for _ in range(2):  # a policy that failed is tried again, and fails the same way
        for call, error in calls:
            with pytest.raises(error) as info:
                call()
            assert message in str(info.value)
    gc.collect()


def test_a_rename_giving_a_str_subclass_writes_its_text():
    class Loud(str):
        def __str__(self):
            return "not this"

    @orcodec.options(rename=lambda name: Loud(name + "_x"))
    @dataclasses.dataclass
    class Sub:
        a: int

    assert orcodec.dumps(Sub(1)) == b'{"a_x":1}'
    assert orcodec.loads(b'{"a_x": 2}', type=Sub) == Sub(2)


def test_option_values_are_checked_when_decorating():
    with pytest.raises(ValueError, match="rename must be one of 'camel', 'pascal', 'kebab', 'screaming_snake'"):
        orcodec.options(rename="snake")
    with pytest.raises(TypeError, match="omit_none must be a bool or None, not int"):
        orcodec.options(omit_none=1)
    with pytest.raises(TypeError, match="decorates a class"):
        orcodec.options(rename="camel")(len)
    with pytest.raises(TypeError, match="takes a str, not int"):
        orcodec.Name(3)
    assert orcodec.Name("x") == orcodec.Name("x") and repr(orcodec.Name("x")) == "orcodec.Name('x')"


def test_string_annotations_are_evaluated_for_names():
    @dataclasses.dataclass
    class Postponed:
        user_id: "Annotated[int, orcodec.Name('uid')]"
        user_name: "Optional[str]" = None

    assert orcodec.dumps(Postponed(1)) == b'{"uid":1,"user_name":null}'
    assert orcodec.loads(b'{"uid": 2}', type=Postponed) == Postponed(2)

    @dataclasses.dataclass
    class Unresolvable:
        user_id: "Annotated[Missing, orcodec.Name('uid')]"  # noqa: F821 - unresolvable on purpose

    with pytest.raises(TypeError, match="cannot be evaluated"):
        orcodec.packb(Unresolvable(1))

    @dataclasses.dataclass
    class NoNameInside:
        user: "MissingUserName"  # noqa: F821 - never evaluated: it names no orcodec.Name

    assert orcodec.dumps(NoNameInside(1)) == b'{"user":1}'

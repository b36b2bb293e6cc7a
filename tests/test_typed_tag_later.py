"""Tagged unions whose tag is not the first key of the object.

The decoder reads on to the tag without building anything, then reads the object again
as the member the tag names, so every value is read by its own type, exactly as when the
tag comes first: ints beyond 64 bits, int dict keys, Decimals as written, MessagePack
timestamps. Both stream formats; msgspec's tagged Structs as the peer.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import itertools
import json
from typing import Literal, Optional, Union

import msgspec
import orcodec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typing_extensions import TypedDict


@dataclasses.dataclass
class Buy:
    kind: Literal["buy"]
    qty: int
    price: decimal.Decimal
    counts: dict[int, int]
    at: Optional[dt.datetime] = None  # noqa: UP045 (evaluated on 3.9 too)
    ratio: float = 0.0


@dataclasses.dataclass
class Sell:
    kind: Literal["sell"]
    qty: int
    reason: str = ""


class Hold(TypedDict):
    kind: Literal["hold"]
    days: int


Order = Union[Buy, Sell, Hold]


def json_object(entries: list[tuple[str, str]]) -> bytes:
    """An object from (key, JSON text) pairs, in that order."""
    return ("{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in entries) + "}").encode()


BUY = [
    ("qty", "123456789012345678901234567890"),
    ("price", "1.10"),
    ("counts", '{"1": 2, "-3": 4}'),
    ("ratio", "0.30000000000000004"),
]
BUY_VALUE = Buy(
    "buy", 123456789012345678901234567890, decimal.Decimal("1.10"), {1: 2, -3: 4}, None, 0.30000000000000004
)


@pytest.mark.parametrize("where", range(len(BUY) + 1), ids=lambda i: f"tag-at-{i}")
def test_json_values_are_read_by_their_type_wherever_the_tag_is(where):
    entries = [*BUY[:where], ("kind", '"buy"'), *BUY[where:]]
    out = orcodec.loads(json_object(entries), type=Order)
    assert out == BUY_VALUE
    assert type(out.qty) is int and type(out.ratio) is float
    assert str(out.price) == "1.10"


@pytest.mark.parametrize("where", range(5), ids=lambda i: f"tag-at-{i}")
def test_msgpack_values_are_read_by_their_type_wherever_the_tag_is(where):
    at = dt.datetime(2024, 3, 1, 10, 20, 30, 123456, tzinfo=dt.timezone.utc)
    entries = [("qty", 2**64 - 1), ("price", "2.50"), ("counts", {7: 8}), ("at", at)]
    entries.insert(where, ("kind", "buy"))
    data = orcodec.packb(dict(entries), option=orcodec.OPT_NON_STR_KEYS | orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT)
    out = orcodec.unpackb(data, type=Order)
    assert out == Buy("buy", 2**64 - 1, decimal.Decimal("2.50"), {7: 8}, at)
    # The timestamp extension is a datetime to the field's type, not an Ext.
    assert out.at == at


PACKERS = {
    "json": (lambda v: orcodec.dumps(v), orcodec.loads, orcodec.JSONDecodeError),
    "msgpack": (lambda v: orcodec.packb(v), orcodec.unpackb, orcodec.MsgpackDecodeError),
}
by_format = pytest.mark.parametrize("fmt", sorted(PACKERS))


@by_format
def test_typed_dict_and_class_members(fmt):
    encode, decode, _ = PACKERS[fmt]
    assert decode(encode({"days": 3, "kind": "hold"}), type=Order) == {"kind": "hold", "days": 3}
    assert decode(encode({"qty": 1, "reason": "r", "kind": "sell"}), type=Order) == Sell("sell", 1, "r")


@by_format
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"qty": 1}, "Object missing required field `kind`"),
        ({"qty": 1, "reason": "x"}, "Object missing required field `kind`"),
        ({"qty": 1, "kind": "refund"}, "Invalid value 'refund' - at `$.kind`"),
        ({"qty": 1, "kind": 3}, "Invalid value 3 - at `$.kind`"),
        ({"qty": 1, "kind": [1]}, "Expected `str`, got `array` - at `$.kind`"),
        # Found by the tag, then refused as the member's field.
        ({"qty": "1", "kind": "sell"}, "Expected `int`, got `str` - at `$.qty`"),
        ({"reason": "x", "kind": "sell"}, "Object missing required field `qty`"),
    ],
)
def test_errors_are_those_of_the_tag_first(fmt, value, message):
    encode, decode, error = PACKERS[fmt]
    with pytest.raises(orcodec.ValidationError) as info:
        decode(encode(value), type=Order)
    assert str(info.value) == message
    assert isinstance(info.value, error)
    # The same document with the tag first says the same (where it has a tag).
    if "kind" in value:
        first = {"kind": value["kind"], **value}
        with pytest.raises(orcodec.ValidationError) as again:
            decode(encode(first), type=Order)
        assert str(again.value) == message


def test_json_error_positions_point_at_the_value():
    data = b'{"qty": 1, "kind": "refund"}'
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(data, type=Order)
    assert info.value.pos == data.index(b'"refund"')
    data = b'{"qty": "1", "reason": "", "kind": "sell"}'
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(data, type=Order)
    assert info.value.pos == data.index(b'"1"')


@pytest.mark.parametrize(
    "data",
    [
        b'{"qty": 1, "reason": [1, 2, "kind": "sell"}',
        b'{"qty": 1, "kind": "sell", "reason": }',
        b'{"qty": 1 "kind": "sell"}',
        b'{"qty": 1, "kind": "sell"',
        b'{"qty": 01, "kind": "sell"}',
    ],
)
def test_malformed_json_is_the_syntax_error_untyped_decoding_gives(data):
    with pytest.raises(orcodec.JSONDecodeError) as untyped:
        orcodec.loads(data)
    with pytest.raises(orcodec.JSONDecodeError) as typed:
        orcodec.loads(data, type=Order)
    assert not isinstance(typed.value, orcodec.ValidationError)
    assert (typed.value.msg, typed.value.pos) == (untyped.value.msg, untyped.value.pos)


def test_a_repeated_tag_is_read_as_with_the_tag_first():
    # The first tag picks the member; the second is that member's field again.
    for data in (b'{"kind": "sell", "qty": 1, "kind": "buy"}', b'{"qty": 1, "kind": "sell", "kind": "buy"}'):
        with pytest.raises(orcodec.ValidationError) as info:
            orcodec.loads(data, type=Order)
        assert str(info.value) == "Invalid enum value 'buy' - at `$.kind`"


@by_format
def test_unknown_keys_before_the_tag_are_skipped_or_refused(fmt):
    encode, decode, _ = PACKERS[fmt]
    data = encode({"extra": {"deep": [1, {"x": None}]}, "qty": 2, "kind": "sell"})
    assert decode(data, type=Order) == Sell("sell", 2)
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.Decoder(Order, forbid_unknown_fields=True).loads(data) if fmt == "json" else orcodec.Decoder(
            Order, forbid_unknown_fields=True
        ).unpackb(data)
    assert str(info.value) == "Object contains unknown field `extra`"


@dataclasses.dataclass
class Leaf:
    kind: Literal["leaf"]
    value: int = 0


@dataclasses.dataclass
class Node:
    kind: Literal["node"]
    children: list[Union[Node, Leaf]]  # noqa: UP007 (evaluated on 3.9 too)
    big: int = 0


def tree(depth: int, tag_last: bool, big: int = 2**70):
    leaf = {"value": big, "kind": "leaf"} if tag_last else {"kind": "leaf", "value": big}
    if depth == 0:
        return leaf
    node = {"children": [tree(depth - 1, tag_last, big), leaf], "big": big // 2}
    return {**node, "kind": "node"} if tag_last else {"kind": "node", **node}


def tree_value(depth: int, big: int = 2**70):
    leaf = Leaf("leaf", big)
    return leaf if depth == 0 else Node("node", [tree_value(depth - 1, big), leaf], big // 2)


@pytest.mark.parametrize("depth", [1, 3, 6])
def test_nested_unions_with_the_tag_last(depth):
    data = json.dumps(tree(depth, tag_last=True)).encode()
    assert orcodec.loads(data, type=Union[Node, Leaf]) == tree_value(depth)


def test_deep_nests_with_the_tag_last_stay_linear():
    # Each level looks ahead over all it holds: past a budget of a few times the
    # input's length, the deeper objects are read as builtins first (so values
    # there must be what builtins keep: ints within 64 bits) and the input is not
    # gone over once per level.
    def levels(out) -> int:
        n = 0
        while isinstance(out, Node):
            assert out.big == 2**39 and out.children[1] == Leaf("leaf", 2**40)
            out = out.children[0]
            n += 1
        assert out == Leaf("leaf", 2**40)
        return n

    for depth in (40, 120):
        doc = tree(depth, tag_last=True, big=2**40)
        assert levels(orcodec.loads(json.dumps(doc).encode(), type=Union[Node, Leaf])) == depth
        packed = orcodec.json_to_msgpack(json.dumps(doc).encode())
        assert levels(orcodec.unpackb(packed, type=Union[Node, Leaf])) == depth


def test_nested_unions_with_the_tag_last_in_msgpack():
    for depth in (1, 4):
        out = orcodec.unpackb(orcodec.packb(tree(depth, tag_last=True, big=2**64 - 1)), type=Union[Node, Leaf])
        assert out == tree_value(depth, big=2**64 - 1)


def test_depth_limit_is_the_same_wherever_the_tag_is():
    for levels in (1020, 1021, 1022, 1023, 1024):
        deep = "[" * levels + "]" * levels
        results = []
        for entries in (
            [("kind", '"sell"'), ("qty", "1"), ("x", deep)],
            [("x", deep), ("qty", "1"), ("kind", '"sell"')],
        ):
            try:
                results.append(repr(orcodec.loads(json_object(entries), type=Order)))
            except orcodec.JSONDecodeError as exc:
                results.append(exc.msg)
        assert results[0] == results[1], levels


# msgspec's tagged Structs: the same union, the tag anywhere.
class MBuy(msgspec.Struct, tag_field="kind", tag="buy"):
    qty: int
    price: decimal.Decimal
    counts: dict[int, int]
    at: Optional[dt.datetime] = None  # noqa: UP045 (evaluated on 3.9 too)
    ratio: float = 0.0


class MSell(msgspec.Struct, tag_field="kind", tag="sell"):
    qty: int
    reason: str = ""


def as_dict(value) -> dict:
    if isinstance(value, msgspec.Struct):
        return {"kind": value.__struct_config__.tag, **msgspec.structs.asdict(value)}
    return dataclasses.asdict(value)


@settings(max_examples=60, deadline=None)
@given(
    buy=st.booleans(),
    qty=st.integers(-(2**63), 2**64 - 1),
    price=st.decimals(allow_nan=False, allow_infinity=False, places=3),
    counts=st.dictionaries(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**63), 2**63 - 1), max_size=3),
    ratio=st.floats(allow_nan=False, allow_infinity=False),
    reason=st.text(max_size=5),
    extra=st.booleans(),
    order=st.randoms(use_true_random=False),
)
def test_key_orders_agree_with_msgspec(buy, qty, price, counts, ratio, reason, extra, order):
    if buy:
        entries = {"qty": qty, "price": str(price), "counts": counts, "ratio": ratio}
    else:
        entries = {"qty": qty, "reason": reason}
    if extra:
        entries["unknown"] = [reason, {"k": qty}]
    items = [*entries.items(), ("kind", "buy" if buy else "sell")]
    order.shuffle(items)
    doc = dict(items)
    for encode, decode, peer in (
        (lambda v: orcodec.dumps(v, option=orcodec.OPT_NON_STR_KEYS), orcodec.loads, msgspec.json.decode),
        (lambda v: orcodec.packb(v, option=orcodec.OPT_NON_STR_KEYS), orcodec.unpackb, msgspec.msgpack.decode),
    ):
        data = encode(doc)
        ours = decode(data, type=Order)
        theirs = peer(data, type=Union[MBuy, MSell])
        assert as_dict(ours) == as_dict(theirs)
        # And what the tag first gives.
        first = dict(sorted(items, key=lambda kv: kv[0] != "kind"))
        assert ours == decode(encode(first), type=Order)


@settings(max_examples=40, deadline=None)
@given(perm=st.permutations(range(len(BUY) + 1)))
def test_every_key_order_reads_the_same(perm):
    pairs = [*BUY, ("kind", '"buy"')]
    assert orcodec.loads(json_object([pairs[i] for i in perm]), type=Order) == BUY_VALUE


def test_every_key_order_of_a_small_object():
    pairs = [("kind", '"buy"'), ("qty", "1"), ("price", "2"), ("counts", "{}")]
    for perm in itertools.permutations(pairs):
        assert orcodec.loads(json_object(list(perm)), type=Order) == Buy("buy", 1, decimal.Decimal(2), {})

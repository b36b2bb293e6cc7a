"""The ``default`` hook and the encoders' nesting limits, for both formats."""

from __future__ import annotations

import orcodec
import orjson
import pytest
from helpers import (
    JSON,
    Unsupported,
    assert_strict_equal,
    depth_of,
    nested_dicts,
    nested_lists,
    nested_mixed,
    nested_tuples,
)


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


class Chain:
    """default(Chain(n)) returns Chain(n - 1) until n == 1, then a plain value."""

    def __init__(self, n):
        self.n = n


def chain_default(obj):
    if isinstance(obj, Chain):
        return Chain(obj.n - 1) if obj.n > 1 else "end"
    raise TypeError(f"unexpected {obj!r}")


# --------------------------------------------------------------------------------------
# default
# --------------------------------------------------------------------------------------


def test_default_result_is_serialized(fmt):
    encode, reference = fmt.encode, fmt.reference

    def default(obj):
        if isinstance(obj, Point):
            return {"x": obj.x, "y": obj.y}
        raise TypeError

    doc = {"p": Point(1, "a"), "ps": [Point(2, None), Point(3, [True])]}
    expected = {"p": {"x": 1, "y": "a"}, "ps": [{"x": 2, "y": None}, {"x": 3, "y": [True]}]}
    assert encode(doc, default=default) == reference(expected)
    assert encode(Point(0, 0), default=default) == reference({"x": 0, "y": 0})


def test_default_called_once_per_unsupported_object(fmt):
    encode, reference = fmt.encode, fmt.reference
    calls = []

    def default(obj):
        calls.append(obj)
        return len(calls)

    a, b, c = Unsupported(), Unsupported(), {1, 2}
    assert encode([a, {"k": b}, "s", 1, None, c], default=default) == reference([1, {"k": 2}, "s", 1, None, 3])
    assert len(calls) == 3
    assert calls[0] is a and calls[1] is b and calls[2] is c


def test_default_not_called_for_supported_types(fmt):
    encode, reference = fmt.encode, fmt.reference

    def default(obj):
        raise AssertionError(f"default called for {obj!r}")

    doc = {"a": [None, True, 1, -(2**63), 2**64 - 1, 1.5, "s", (), {}], "b": ("t",)}
    assert encode(doc, default=default) == reference(doc)


def test_default_returning_unsupported_objects_inside_containers(fmt):
    encode, reference = fmt.encode, fmt.reference

    def default(obj):
        if isinstance(obj, Point):
            return [obj.x, obj.y]
        if isinstance(obj, Unsupported):
            return "u"
        raise TypeError

    doc = [Point(Unsupported(), Point(1, Unsupported()))]
    assert encode(doc, default=default) == reference([["u", [1, "u"]]])


def test_default_returning_none(fmt):
    encode, reference = fmt.encode, fmt.reference
    assert encode([Unsupported()], default=lambda o: None) == reference([None])


@pytest.mark.parametrize("calls", [1, 2, 10, 100, 254, 255])
def test_default_chain_within_limit(fmt, calls):
    # Both peers allow a chain of 255 calls.
    encode, reference = fmt.encode, fmt.reference
    assert encode(Chain(calls), default=chain_default) == reference("end")
    assert encode({"k": [Chain(calls)]}, default=chain_default) == reference({"k": ["end"]})
    assert fmt.peer_encode(Chain(calls), default=chain_default) == reference("end")


@pytest.mark.parametrize("calls", [256, 300, 1000])
def test_default_chain_beyond_limit(fmt, calls):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error) as excinfo:
        encode(Chain(calls), default=chain_default)
    assert str(excinfo.value) == fmt.default_recursion_message
    with pytest.raises(fmt.peer_encode_error) as peer:
        fmt.peer_encode(Chain(calls), default=chain_default)
    assert str(peer.value) == str(excinfo.value)


def test_default_always_returning_new_unsupported_object(fmt):
    encode, error = fmt.encode, fmt.encode_error
    for doc in (Unsupported(), [1, Unsupported()], {"k": Unsupported()}):
        with pytest.raises(error) as excinfo:
            encode(doc, default=lambda obj: Unsupported())
        assert str(excinfo.value) == fmt.default_recursion_message


def test_default_returning_its_argument(fmt):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error) as excinfo:
        encode(Unsupported(), default=lambda obj: obj)
    assert str(excinfo.value) == fmt.default_recursion_message


def test_default_chain_limit_is_per_value(fmt):
    # The limit is on calls nested in one another: each sibling gets 255 calls, as
    # with the peer.
    encode, reference = fmt.encode, fmt.reference
    doc = [Chain(255), Chain(255), {"k": Chain(255)}]
    assert encode(doc, default=chain_default) == reference(["end", "end", {"k": "end"}])
    assert fmt.peer_encode(doc, default=chain_default) == encode(doc, default=chain_default)


class CustomError(Exception):
    pass


@pytest.mark.parametrize("exc_type", [ValueError, TypeError, KeyError, CustomError, ZeroDivisionError])
@pytest.mark.parametrize("where", ["bare", "list", "dict", "deep"])
def test_exception_in_default_becomes_encode_error_with_cause(fmt, exc_type, where):
    encode, error = fmt.encode, fmt.encode_error
    raised = []

    def default(obj):
        exc = exc_type("boom")
        raised.append(exc)
        raise exc

    obj = Unsupported()
    doc = {"bare": obj, "list": [1, obj], "dict": {"a": 1, "b": obj}, "deep": [[{"x": [obj]}]]}[where]
    with pytest.raises(error) as excinfo:
        encode(doc, default=default)
    assert len(raised) == 1
    assert type(excinfo.value.__cause__) is exc_type
    assert excinfo.value.__cause__ is raised[0]


def test_exception_in_default_after_chain(fmt):
    encode, error = fmt.encode, fmt.encode_error
    raised = []

    def default(obj):
        if isinstance(obj, Chain) and obj.n > 1:
            return Chain(obj.n - 1)
        exc = CustomError("at the end")
        raised.append(exc)
        raise exc

    with pytest.raises(error) as excinfo:
        encode([Chain(5)], default=default)
    assert excinfo.value.__cause__ is raised[0]


def test_default_result_with_unsupported_key_still_rejected(fmt):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error) as excinfo:
        encode(Unsupported(), default=lambda obj: {1: 2})
    assert str(excinfo.value) == "Dict key must be str"


def test_default_result_with_big_int_rejected(fmt):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error) as excinfo:
        encode(Unsupported(), default=lambda obj: 2**64)
    assert str(excinfo.value) == "Integer exceeds 64-bit range"


# --------------------------------------------------------------------------------------
# Nesting limits
# --------------------------------------------------------------------------------------

BUILDERS = {
    "list": nested_lists,
    "dict": nested_dicts,
    "tuple": nested_tuples,
    "mixed": nested_mixed,
}


@pytest.mark.parametrize("kind", BUILDERS)
@pytest.mark.parametrize("below", [None, 1, 0])
def test_nesting_within_limit(fmt, kind, below):
    # The peer's limit: orjson writes 254 levels, ormsgpack 255.
    depth = {None: 1, 1: fmt.max_depth - 1, 0: fmt.max_depth}[below]
    obj = BUILDERS[kind](depth)
    assert depth_of(fmt.decode(fmt.encode(obj))) == depth
    assert fmt.encode(obj) == fmt.peer_encode(obj)


@pytest.mark.parametrize("kind", BUILDERS)
@pytest.mark.parametrize("beyond", [1, 2, 1000])
def test_nesting_beyond_limit(fmt, kind, beyond):
    encode, error = fmt.encode, fmt.encode_error
    obj = BUILDERS[kind](fmt.max_depth + beyond)
    with pytest.raises(error) as excinfo:
        encode(obj)
    assert str(excinfo.value) == "Recursion limit reached"
    if (fmt.name, kind) != ("json", "tuple"):  # see test_orjson_nests_tuples_without_limit
        with pytest.raises(fmt.peer_encode_error, match="(?m)^Recursion limit reached"):
            fmt.peer_encode(obj)


def test_orjson_nests_tuples_without_limit():
    # A listed deviation: orjson counts no nesting in tuples (10 000 nested tuples
    # crash the interpreter); orcodec stops them at the limit lists have.
    obj = nested_tuples(JSON.max_depth + 10)
    assert orjson.dumps(obj) == b"[" * 264 + b"]" * 264
    with pytest.raises(orcodec.JSONEncodeError) as info:
        orcodec.dumps(obj)
    assert str(info.value) == "Recursion limit reached"


def test_nesting_at_the_limit_with_values_at_the_bottom(fmt):
    encode, error = fmt.encode, fmt.encode_error
    decode = fmt.decode
    # max_depth - 1 lists around a list of scalars: max_depth levels.
    obj = nested_lists(fmt.max_depth, innermost=1)
    assert_strict_equal(decode(encode(obj)), obj)
    assert encode(obj) == fmt.peer_encode(obj)
    with pytest.raises(error) as excinfo:
        encode(nested_lists(fmt.max_depth, innermost=[1]))
    assert str(excinfo.value) == "Recursion limit reached"


def test_100000_deep_list(fmt):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error) as excinfo:
        encode(nested_lists(100_000))
    assert str(excinfo.value) == "Recursion limit reached"


def test_100000_deep_dict(fmt):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error) as excinfo:
        encode(nested_dicts(100_000))
    assert str(excinfo.value) == "Recursion limit reached"


def test_100000_deep_tuples_and_mixed(fmt):
    encode, error = fmt.encode, fmt.encode_error
    tuples: object = ()
    mixed: object = None
    for i in range(100_000):
        tuples = (tuples,)
        mixed = [mixed] if i % 2 else {"k": mixed}
    for obj in (tuples, mixed):
        with pytest.raises(error) as info:
            encode(obj)
        assert str(info.value) == "Recursion limit reached"


def test_default_building_ever_deeper_containers(fmt):
    encode, error = fmt.encode, fmt.encode_error

    class Node:
        pass

    # One list and one call of default per level: orjson's 254 levels come
    # first, ormsgpack's 255 calls before its 256 levels; each says so.
    with pytest.raises(error) as info:
        encode(Node(), default=lambda obj: [Node()])
    with pytest.raises(fmt.peer_encode_error) as peer:
        fmt.peer_encode(Node(), default=lambda obj: [Node()])
    assert str(info.value) == str(peer.value)
    expected = fmt.default_recursion_message if fmt.name == "msgpack" else "Recursion limit reached"
    assert str(info.value) == expected


def test_self_referencing_list(fmt):
    encode, error = fmt.encode, fmt.encode_error
    a: list = [1]
    a.append(a)
    with pytest.raises(error) as excinfo:
        encode(a)
    assert str(excinfo.value) == "Recursion limit reached"
    a.clear()


def test_self_referencing_dict(fmt):
    encode, error = fmt.encode, fmt.encode_error
    d: dict = {"a": 1}
    d["self"] = d
    with pytest.raises(error) as excinfo:
        encode(d)
    assert str(excinfo.value) == "Recursion limit reached"
    d.clear()


def test_mutually_referencing_containers(fmt):
    encode, error = fmt.encode, fmt.encode_error
    a: list = []
    b: dict = {"a": a}
    a.append(b)
    with pytest.raises(error) as excinfo:
        encode([a, b])
    assert str(excinfo.value) == "Recursion limit reached"
    a.clear()


def test_default_returning_deep_nesting(fmt):
    # Containers produced by default count towards the same limit.
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error) as excinfo:
        encode(Unsupported(), default=lambda obj: nested_lists(300))
    assert str(excinfo.value) == "Recursion limit reached"


def test_encoder_usable_after_limit_errors(fmt):
    encode, error, reference = fmt.encode, fmt.encode_error, fmt.reference
    with pytest.raises(error):
        encode(nested_lists(100_000))
    with pytest.raises(error):
        encode(Unsupported(), default=lambda obj: Unsupported())
    assert encode([1, {"a": "b"}]) == reference([1, {"a": "b"}])

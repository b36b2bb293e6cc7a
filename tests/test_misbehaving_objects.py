"""Objects and hooks that misbehave while being serialized: a `default` or an
attribute that raises, returns itself, or changes the containers being
walked; `__eq__`/`__hash__`/`__lt__` that mutate. The result is the format's
encode error (with the user's exception as `__cause__`) or output equal to
orjson's, never a crash.

Plain objects reach `default`; dataclasses and datetimes are serialized
natively, so their misbehaving `__slots__`/`utcoffset()` are met by the walker
itself.
"""

from __future__ import annotations

import dataclasses
import datetime

import orcodec
import pytest
from helpers import Unsupported


class Boom(Exception):
    pass


class BadDict:
    """An object whose `__dict__` raises."""

    @property
    def __dict__(self):
        raise Boom("__dict__")


class HalfSlots:
    """`__slots__` with a slot never set: reading it raises AttributeError."""

    __slots__ = ("a", "b")

    def __init__(self):
        self.a = 1


class BadZone(datetime.tzinfo):
    def utcoffset(self, dt):
        raise Boom("utcoffset")

    def tzname(self, dt):
        return "bad"

    def dst(self, dt):
        return None


class WrongZone(datetime.tzinfo):
    """utcoffset() returns something that is not a timedelta."""

    def utcoffset(self, dt):
        return "an hour"

    def dst(self, dt):
        return None


def vars_default(obj):
    return vars(obj)


def slots_default(obj):
    return {name: getattr(obj, name) for name in obj.__slots__}


@pytest.mark.parametrize(
    "obj, default, cause, name",
    [
        (BadDict(), vars_default, Boom, "BadDict"),
        (HalfSlots(), slots_default, AttributeError, "HalfSlots"),
    ],
    ids=["__dict__-raises", "unset-slot"],
)
def test_misbehaving_attributes_through_default(fmt, obj, default, cause, name):
    encode, error = fmt.encode, fmt.encode_error
    format_name = fmt.label
    for doc in (obj, [1, obj], {"k": [obj, 2]}):
        with pytest.raises(error) as info:
            encode(doc, default=default)
        assert type(info.value.__cause__) is cause
        assert str(info.value) == f"Type is not {format_name} serializable: {name}"


@dataclasses.dataclass
class SlotsRecord:
    __slots__ = ("a", "b")
    a: int
    b: int


def _half_set_record():
    record = SlotsRecord.__new__(SlotsRecord)
    record.a = 1
    return record


@pytest.mark.parametrize(
    "obj, cause, message",
    [
        (datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=BadZone()), Boom, "datetime's tzinfo.utcoffset() raised"),
        # datetime.utcoffset() itself refuses a tzinfo answer that is no timedelta.
        (datetime.datetime(2024, 1, 2, tzinfo=WrongZone()), TypeError, "datetime's tzinfo.utcoffset() raised"),
        (datetime.time(1, 2, tzinfo=BadZone()), None, "datetime.time must not have tzinfo set"),
        (_half_set_record(), AttributeError, None),
    ],
    ids=["utcoffset-raises", "utcoffset-wrong-type", "time-with-tzinfo", "dataclass-unset-slot"],
)
def test_misbehaving_native_types(fmt, obj, cause, message):
    encode, error = fmt.encode, fmt.encode_error
    # orjson 3.13 crashes the interpreter on the first and last of these, so
    # there is no reference call: the walker must give the encode error.
    format_name = fmt.label
    for doc in (obj, [1, obj], {"k": [obj, 2]}):
        with pytest.raises(error) as info:
            encode(doc)
        if cause is None:
            assert info.value.__cause__ is None
        else:
            assert type(info.value.__cause__) is cause
        assert str(info.value) == (message or f"{format_name} encoding failed")


def test_default_that_raises_every_other_call(fmt):
    encode, error = fmt.encode, fmt.encode_error
    calls = []

    def default(obj):
        calls.append(obj)
        if len(calls) % 2 == 0:
            raise Boom(len(calls))
        return len(calls)

    doc = [Unsupported(), Unsupported(), Unsupported()]
    with pytest.raises(error) as info:
        encode(doc, default=default)
    assert isinstance(info.value.__cause__, Boom) and info.value.__cause__.args == (2,)
    assert encode([Unsupported()], default=default) == encode([3])


def test_default_that_replaces_the_dict_entries_keeping_its_size(fmt):
    encode = fmt.encode

    # Same size after the hook, so nothing to detect: the walker goes on over
    # the dict as it now is, exactly as orjson/msgpack do, and does not crash.
    def make():
        mapping = {"a": Unsupported(), "b": 1}

        def default(obj):
            del mapping["b"]
            mapping["c"] = 2
            return "x"

        return mapping, default

    mapping, default = make()
    ours = encode(mapping, default=default)
    for reference in fmt.references:
        mapping, default = make()
        assert ours == reference(mapping, default=default)


def test_default_mutating_a_sorted_dict(fmt):
    encode, error = fmt.encode, fmt.encode_error
    mapping = {"b": Unsupported(), "a": 1}

    def default(obj):
        mapping["c"] = 3
        return None

    with pytest.raises(error) as info:
        encode(mapping, default=default, option=orcodec.OPT_SORT_KEYS)
    assert str(info.value) == "dict changed size during serialization"


def test_default_dropping_the_last_reference_to_a_sorted_dict_value(fmt):
    encode = fmt.encode
    inner = [Unsupported(), "tail"]
    mapping = {"a": inner, "b": 1}
    del inner

    def default(obj):
        mapping.clear()  # frees the list being walked, unless the walker holds it
        mapping.update(a=0, b=0)
        return "x"

    assert encode(mapping, default=default, option=orcodec.OPT_SORT_KEYS) == encode({"a": ["x", "tail"], "b": 1})


def test_default_dropping_the_last_reference_to_a_dict_value(fmt):
    encode = fmt.encode
    inner = [Unsupported(), "tail" * 10]
    mapping = {"a": inner}
    del inner

    def default(obj):
        mapping["a"] = None  # same size, but frees the list being walked
        return "x"

    assert encode(mapping, default=default) == encode({"a": ["x", "tail" * 10]})


class MeddlingKey(str):
    """A str subclass whose comparison and hashing hooks empty a container."""

    victim: list | dict = []
    calls = 0

    def _meddle(self):
        MeddlingKey.calls += 1
        MeddlingKey.victim.clear()

    def __eq__(self, other):
        self._meddle()
        return str.__eq__(self, other)

    def __lt__(self, other):
        self._meddle()
        return str.__lt__(self, other)

    def __hash__(self):
        return str.__hash__(self)


@pytest.mark.parametrize("option", [0, orcodec.OPT_SORT_KEYS], ids=["insertion", "sorted"])
def test_meddling_eq_and_lt_on_keys_are_never_called(fmt, option):
    encode = fmt.encode
    victim = [1, 2, 3]
    mapping = {MeddlingKey("b"): victim, MeddlingKey("a"): victim}
    MeddlingKey.victim, MeddlingKey.calls = victim, 0
    # Built after the dict: inserting a key calls __eq__ on a hash collision.
    out = encode(mapping, option=option)
    assert MeddlingKey.calls == 0
    expected = {"a": [1, 2, 3], "b": [1, 2, 3]} if option else {"b": [1, 2, 3], "a": [1, 2, 3]}
    assert out == encode(expected)


class MeddlingItem:
    """An unsupported item whose __eq__ would empty the list it is in."""

    def __init__(self, owner: list):
        self.owner = owner

    def __eq__(self, other):
        self.owner.clear()
        return False

    __hash__ = None


def test_default_comparing_items_of_the_list_being_walked(fmt):
    encode, error = fmt.encode, fmt.encode_error
    items: list = []
    items += [MeddlingItem(items), MeddlingItem(items), 5]

    def default(obj):
        # A default that looks the object up in its list calls the items'
        # __eq__, which empties the list under the walker.
        return items.index(obj) if obj in items else -1

    with pytest.raises(error) as info:
        encode(items, default=default)
    assert str(info.value) == "list changed size during serialization"


def test_default_returning_a_container_holding_the_object(fmt):
    encode, error = fmt.encode, fmt.encode_error
    obj = Unsupported()
    # Two containers per call: 255 levels come before 254 calls.
    with pytest.raises(error) as info:
        encode(obj, default=lambda o: {"again": [o]})
    assert str(info.value) == "Recursion limit reached"


def test_default_returning_the_list_being_walked(fmt):
    encode, error = fmt.encode, fmt.encode_error
    items: list = [Unsupported()]
    # One list per call: 254 calls come before 255 levels.
    with pytest.raises(error) as info:
        encode(items, default=lambda o: items)
    assert str(info.value) == "default serializer exceeds recursion limit"


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit, MemoryError, RecursionError])
def test_default_raising_special_exceptions(fmt, exc):
    encode, error = fmt.encode, fmt.encode_error

    def default(obj):
        raise exc("from default")

    with pytest.raises(error) as info:
        encode({"k": Unsupported()}, default=default)
    assert type(info.value.__cause__) is exc

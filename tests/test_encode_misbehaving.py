"""Objects and hooks that misbehave while being serialized, in both formats: a
`default`, an attribute or a tzinfo that raises, returns itself, or changes (or
drops the last reference to) the containers being walked; `__eq__`/`__hash__`/
`__lt__` that mutate. The result is the format's encode error (with the user's
exception as `__cause__`) or output equal to the references', never a crash.

Plain objects reach `default`; dataclasses and datetimes are serialized
natively, so their misbehaving `__slots__`/`utcoffset()` are met by the walker
itself.
"""

from __future__ import annotations

import dataclasses
import datetime
import gc

import orcodec
import pytest
from helpers import RaisingOffset, StrOffset, Unsupported

# --------------------------------------------------------------------------------------
# Containers changed by `default`
# --------------------------------------------------------------------------------------


def test_list_shrunk_by_default_is_an_error(fmt):
    encode, error = fmt.encode, fmt.encode_error
    items = [Unsupported(), 1, 2, 3]

    def default(obj):
        items.clear()
        return None

    with pytest.raises(error, match="list changed size during serialization"):
        encode(items, default=default)


def test_list_grown_by_default_is_an_error(fmt):
    encode, error = fmt.encode, fmt.encode_error
    items = [Unsupported(), 1]

    def default(obj):
        items.extend(range(100))
        return None

    with pytest.raises(error, match="list changed size during serialization"):
        encode(items, default=default)


def test_dict_changed_by_default_is_an_error(fmt):
    encode, error = fmt.encode, fmt.encode_error
    mapping = {"a": Unsupported(), "b": 1}

    def default(obj):
        mapping["c"] = 2
        mapping["d"] = 3
        return None

    with pytest.raises(error, match="dict changed size during serialization"):
        encode(mapping, default=default)


def test_default_dropping_the_container_being_walked(fmt):
    encode, error = fmt.encode, fmt.encode_error
    # The inner list's only reference is the outer list; default clears the
    # outer list while the inner one is still being walked. The walker holds
    # its own reference, so this is a size error and not a use-after-free.
    outer = [[Unsupported(), "x" * 100, {"k": [1, 2, 3]}], 5]

    def default(obj):
        outer.clear()
        return "replaced"

    with pytest.raises(error, match="list changed size during serialization"):
        encode(outer, default=default)


def test_default_mutating_an_unrelated_list_is_fine(fmt):
    encode = fmt.encode
    log = []

    def default(obj):
        log.append(obj)
        return len(log)

    out = encode([Unsupported(), Unsupported()], default=default)
    assert out == encode([1, 2])


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
        (
            datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=RaisingOffset(Boom)),
            Boom,
            "datetime's tzinfo.utcoffset() raised",
        ),
        # datetime.utcoffset() itself refuses a tzinfo answer that is no timedelta.
        (datetime.datetime(2024, 1, 2, tzinfo=StrOffset()), TypeError, "datetime's tzinfo.utcoffset() raised"),
        (datetime.time(1, 2, tzinfo=RaisingOffset(Boom)), None, "datetime.time must not have tzinfo set"),
        (_half_set_record(), AttributeError, None),
    ],
    ids=["utcoffset-raises", "utcoffset-wrong-type", "time-with-tzinfo", "dataclass-unset-slot"],
)
def test_misbehaving_native_types(fmt, obj, cause, message):
    encode, error = fmt.encode, fmt.encode_error
    # orjson 3.13 crashes the interpreter on the first and last of these, so
    # there is no reference call: the walker must give the encode error.
    for doc in (obj, [1, obj], {"k": [obj, 2]}):
        with pytest.raises(error) as info:
            encode(doc)
        if cause is None:
            assert info.value.__cause__ is None
        else:
            assert type(info.value.__cause__) is cause
        if message is None:
            # A field that cannot be read: orjson's words for a dataclass whose field
            # raises, ormsgpack's (the exception's own message) for MessagePack.
            expected = {"json": f"Type is not JSON serializable: {type(obj).__name__}"}
            message = expected.get(fmt.name, str(info.value.__cause__))
        assert str(info.value) == message


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


@pytest.mark.parametrize(
    "names",
    [(), ("OPT_NON_STR_KEYS",), ("OPT_NON_STR_KEYS", "OPT_SORT_KEYS"), ("OPT_SORT_KEYS",)],
    ids=lambda names: "-".join(n[4:].lower() for n in names) or "none",
)
def test_meddling_eq_and_lt_on_keys_are_never_called(fmt, names):
    # str subclass keys are keys only with OPT_NON_STR_KEYS (and MessagePack refuses it
    # with OPT_SORT_KEYS): written or refused, their hooks are never called.
    encode = fmt.encode
    victim = [1, 2, 3]
    mapping = {MeddlingKey("b"): victim, MeddlingKey("a"): victim}
    MeddlingKey.victim, MeddlingKey.calls = victim, 0
    # Built after the dict: inserting a key calls __eq__ on a hash collision.
    refused = "OPT_NON_STR_KEYS" not in names or (fmt.name == "msgpack" and "OPT_SORT_KEYS" in names)
    if refused:
        with pytest.raises(fmt.encode_error):
            encode(mapping, option=fmt.opts(names))
    else:
        out = encode(mapping, option=fmt.opts(names))
        expected = {"a": [1, 2, 3], "b": [1, 2, 3]} if "OPT_SORT_KEYS" in names else {"b": [1, 2, 3], "a": [1, 2, 3]}
        assert out == encode(expected)
    assert MeddlingKey.calls == 0
    assert victim == [1, 2, 3]


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
    # One list per call: the nesting limit comes before the limit on calls, as
    # with the peer.
    with pytest.raises(error) as info:
        encode(items, default=lambda o: items)
    assert str(info.value) == "Recursion limit reached"
    with pytest.raises(fmt.peer_encode_error, match="(?m)^Recursion limit reached$"):
        fmt.peer_encode(items, default=lambda o: items)


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit, MemoryError, RecursionError])
def test_default_raising_special_exceptions(fmt, exc):
    encode, error = fmt.encode, fmt.encode_error

    def default(obj):
        raise exc("from default")

    with pytest.raises(error) as info:
        encode({"k": Unsupported()}, default=default)
    assert type(info.value.__cause__) is exc


# Python code that runs during a walk without any `default`: a tzinfo's
# utcoffset(), a dataclass field's property. It may drop the last reference to
# the containers being walked; the walker holds what it walks, so the result is
# a clean error (or output), never a use-after-free. Run under `python -X dev`
# the freed memory is poisoned, so a regression crashes these tests.


def _tz_that_runs(action):
    class Meddling(datetime.tzinfo):
        def utcoffset(self, d):
            action()
            gc.collect()
            return datetime.timedelta(hours=1)

    return Meddling()


def test_utcoffset_emptying_the_outer_list(fmt):
    encode, error = fmt.encode, fmt.encode_error
    outer = []
    tz = _tz_that_runs(outer.clear)
    outer.extend([{"at": datetime.datetime(2020, 1, 1, tzinfo=tz), "items": [str(i) * 20 for i in range(200)]}] * 2)
    with pytest.raises(error, match="list changed size during serialization"):
        encode(outer)


def test_utcoffset_of_a_key_emptying_the_dict(fmt):
    encode, error = fmt.encode, fmt.encode_error
    doc = {}
    tz = _tz_that_runs(doc.clear)
    doc[datetime.datetime(2020, 1, 1, tzinfo=tz)] = [str(i) * 20 for i in range(200)]
    doc["other"] = [1, 2, 3]
    with pytest.raises(error, match="dict changed size during serialization"):
        encode(doc, option=orcodec.OPT_NON_STR_KEYS)


def test_dataclass_property_dropping_the_instance(fmt):
    encode, error = fmt.encode, fmt.encode_error
    holder = []

    @dataclasses.dataclass
    class Record:
        a: list
        b: list

    # Decorated itself (an undecorated subclass is no dataclass to the peers); its
    # __slots__ make orjson (and so JSON) read the fields with getattr rather than take
    # the instance __dict__.
    @dataclasses.dataclass
    class Meddling(Record):
        __slots__ = ()

        @property
        def b(self):
            holder.clear()
            gc.collect()
            return [str(i) * 20 for i in range(50)]

        @b.setter
        def b(self, value):
            pass

    holder.append(Meddling([1], None))
    # The instance lives on while its fields are read; the list it sat in shrank.
    with pytest.raises(error, match="list changed size during serialization"):
        encode(holder)


def test_the_meddling_cases_under_python_dev_mode():
    # In-process, freed memory may still look valid; `-X dev` poisons it, so
    # a walker that lost its hold would crash this child process.
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).resolve()
    result = subprocess.run(
        [
            sys.executable,
            "-X",
            "dev",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(here),
            "-k",
            "utcoffset_emptying or utcoffset_of_a_key or property_dropping",
        ],
        capture_output=True,
        text=True,
        cwd=here.parent,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "6 passed" in result.stdout


@pytest.mark.parametrize("floats", [1, 2, 40])
def test_list_shrunk_by_default_before_a_run_of_floats(fmt, floats):
    # The floats after the item whose `default` shrinks the list are written
    # by a loop of their own in JSON: it meets the shorter list as the
    # item loop does.
    encode, error = fmt.encode, fmt.encode_error
    items = [Unsupported()] + [1.5] * floats + [2]

    def default(obj):
        del items[1:]
        return None

    with pytest.raises(error, match="list changed size during serialization"):
        encode(items, default=default)

    items2 = [Unsupported()] + [1.5] * floats

    def default2(obj):
        items2.append(0.25)
        return None

    with pytest.raises(error, match="list changed size during serialization"):
        encode(items2, default=default2)

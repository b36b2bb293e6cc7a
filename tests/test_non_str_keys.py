"""OPT_NON_STR_KEYS in both formats and both directions, byte for byte against orjson
and ormsgpack, with the datetime flags and OPT_SORT_KEYS."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import uuid

import orcodec
import orjson
import ormsgpack
import pytest
from helpers import JSON, MSGPACK, UTC, Letter, MyInt, MyStr, by_format, opts

NSK = ("OPT_NON_STR_KEYS",)


class Color(enum.Enum):
    RED = 1
    NAME = "name"
    WHEN = dt.date(2020, 1, 1)
    FLOAT = 2.5


class Level(enum.IntEnum):
    HIGH = 9


class Nested(enum.Enum):
    INNER = Color.NAME


KEYS = {
    "int": 1,
    "negative": -7,
    "zero": 0,
    "u64_max": 2**64 - 1,
    "i64_min": -(2**63),
    "float": 1.5,
    "float_int": 2.0,
    "float_neg_zero": -0.0,
    "float_big": 1e300,
    "float_tiny": 5e-324,
    "nan": float("nan"),
    "inf": float("inf"),
    "neg_inf": float("-inf"),
    "true": True,
    "false": False,
    "none": None,
    "datetime_naive": dt.datetime(2020, 1, 2, 3, 4, 5, 6),
    "datetime_aware": dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=-2))),
    "datetime_utc": dt.datetime(2020, 1, 2, tzinfo=UTC),
    "date": dt.date(1999, 12, 31),
    "time": dt.time(23, 59, 59, 999_999),
    "enum_int": Color.RED,
    "enum_str": Color.NAME,
    "enum_date": Color.WHEN,
    "enum_float": Color.FLOAT,
    "int_enum": Level.HIGH,
    "str_enum": Letter.A,
    "nested_enum": Nested.INNER,
    "uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "str_subclass": MyStr("sub"),
    "int_subclass": MyInt(5),
    "str": "plain",
}
MSGPACK_ONLY_KEYS = {
    "bytes": b"\x00bin",
    "tuple": (1, "a", None),
    "nested_tuple": ((1, (2, 3)), b"x"),
    "empty_tuple": (),
}
DATETIME_FLAG_SETS = [
    (),
    ("OPT_NAIVE_UTC",),
    ("OPT_UTC_Z", "OPT_NAIVE_UTC"),
    ("OPT_OMIT_MICROSECONDS",),
    ("OPT_PASSTHROUGH_SUBCLASS",),
]


@pytest.mark.parametrize("name", list(KEYS))
def test_key_equals_peers(fmt, name):
    key = KEYS[name]
    for extra in DATETIME_FLAG_SETS:
        doc = {key: [key]} if name != "str_subclass" or "OPT_PASSTHROUGH_SUBCLASS" not in extra else {key: 1}
        fmt.same_as_peer(doc, NSK + extra, default=str)


@pytest.mark.parametrize("name", list(MSGPACK_ONLY_KEYS))
def test_msgpack_only_keys(name):
    key = MSGPACK_ONLY_KEYS[name]
    doc = {key: 1, "s": 2}
    packed = orcodec.packb(doc, option=orcodec.OPT_NON_STR_KEYS)
    assert packed == ormsgpack.packb(doc, option=ormsgpack.OPT_NON_STR_KEYS)
    assert orcodec.unpackb(packed, option=orcodec.OPT_NON_STR_KEYS) == doc
    assert orcodec.unpackb(packed, option=orcodec.OPT_NON_STR_KEYS) == ormsgpack.unpackb(
        packed, option=ormsgpack.OPT_NON_STR_KEYS
    )
    # JSON has no text for them.
    with pytest.raises(orcodec.JSONEncodeError, match="Dict key must a type serializable with OPT_NON_STR_KEYS"):
        orcodec.dumps(doc, option=orcodec.OPT_NON_STR_KEYS)
    with pytest.raises(TypeError):
        orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS)


@pytest.mark.parametrize(
    "fmt, doc, expected",
    by_format(
        json=[({MyInt(3): 1}, b'{"3":1}')],
        msgpack=[({MyInt(3): 1}, b"\x81\x03\x01"), ({MyInt(3): 1, (1, (2,)): 2}, b"\x82\x03\x01\x92\x01\x91\x02\x02")],
        ids=lambda case: str(len(case[0])),
    ),
)
def test_passthrough_flags_do_not_apply_to_keys(fmt, doc, expected):
    # Keys are keys: OPT_PASSTHROUGH_SUBCLASS / _TUPLE are about values, as in the peers.
    for extra in ["OPT_PASSTHROUGH_SUBCLASS", "OPT_PASSTHROUGH_TUPLE"]:
        names = NSK + (extra,)
        assert fmt.encode(doc, option=fmt.opts(names), default=str) == expected
        if hasattr(fmt.peer, extra):
            fmt.same_as_peer(doc, names, default=str)

    # Subclasses of float, tuple and bytes are no keys for either peer.
    class MyFloat(float):
        pass

    class MyTuple(tuple):
        pass

    class MyBytes(bytes):
        pass

    for key in (MyFloat(1.5), MyTuple((1,)), MyBytes(b"a")):
        for names in (NSK, NSK + ("OPT_PASSTHROUGH_SUBCLASS",)):
            with pytest.raises(fmt.encode_error) as info:
                fmt.encode({key: 1}, option=fmt.opts(names))
            with pytest.raises(fmt.peer_encode_error) as peer:
                fmt.peer_encode({key: 1}, option=fmt.peer_opts(names))
            assert str(info.value) == str(peer.value) == "Dict key must a type serializable with OPT_NON_STR_KEYS"


def test_msgpack_tuple_key_items_follow_the_key_rules():
    # Tuple items follow the key rules too, as in ormsgpack.
    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: int

    for key in [(1, Frozen(1)), (1, (2, frozenset()))]:
        with pytest.raises(orcodec.MsgpackEncodeError, match="Dict key must a type serializable"):
            orcodec.packb({key: 1}, option=orcodec.OPT_NON_STR_KEYS, default=str)
        with pytest.raises(TypeError):
            ormsgpack.packb({key: 1}, option=ormsgpack.OPT_NON_STR_KEYS, default=str)


KEYS_BY_HAND = {
    2: "a",
    1.5: "b",
    float("nan"): "c",
    float("-inf"): "d",
    True: "e",
    None: "f",
    dt.date(2020, 1, 1): "g",
    Color.RED: "h",
    uuid.UUID(int=1): "i",
    dt.time(1, 2): "j",
}
DATETIME_KEY = {dt.datetime(2020, 1, 1): 1}


@pytest.mark.parametrize(
    "fmt, doc, names, expected",
    by_format(
        json=[
            (
                KEYS_BY_HAND,
                NSK,
                b'{"2":"a","1.5":"b","null":"c","null":"d","true":"e","null":"f","2020-01-01":"g","1":"h",'
                b'"00000000-0000-0000-0000-000000000001":"i","01:02:00":"j"}',
            ),
            (DATETIME_KEY, NSK + ("OPT_NAIVE_UTC", "OPT_UTC_Z"), b'{"2020-01-01T00:00:00Z":1}'),
        ],
        msgpack=[
            (
                KEYS_BY_HAND,
                NSK,
                b"\x8a\x02\xa1a\xcb?\xf8\x00\x00\x00\x00\x00\x00\xa1b\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00\xa1c"
                b"\xcb\xff\xf0\x00\x00\x00\x00\x00\x00\xa1d\xc3\xa1e\xc0\xa1f\xaa2020-01-01\xa1g\x01\xa1h"
                b"\xd9$00000000-0000-0000-0000-000000000001\xa1i\xa801:02:00\xa1j",
            ),
            (DATETIME_KEY, NSK + ("OPT_NAIVE_UTC", "OPT_UTC_Z"), b"\x81\xb42020-01-01T00:00:00Z\x01"),
            ({1: 2, None: 3, b"b": 4}, NSK, b"\x83\x01\x02\xc0\x03\xc4\x01b\x04"),
        ],
        ids=lambda case: str(len(case[0])),
    ),
)
def test_key_exact_bytes(fmt, doc, names, expected):
    # JSON writes each key as text; MessagePack writes it natively (floats, ints, nil,
    # bool, bin) or as the text JSON would give it (dates, UUIDs, enums' values).
    assert fmt.encode(doc, option=fmt.opts(names)) == expected


@pytest.mark.parametrize(
    "key",
    [2**64, -(2**63) - 1, 10**30],
    ids=repr,
)
def test_big_int_key_is_an_error(fmt, key):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error):
        encode({key: 1}, option=orcodec.OPT_NON_STR_KEYS)
    with pytest.raises(error):
        encode({key: 1}, option=orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SORT_KEYS)
    with pytest.raises(TypeError):
        orjson.dumps({key: 1}, option=orjson.OPT_NON_STR_KEYS)
    with pytest.raises(TypeError):
        ormsgpack.packb({key: 1}, option=ormsgpack.OPT_NON_STR_KEYS)


@dataclasses.dataclass(frozen=True)
class FrozenKey:
    a: int


class MyDateTime(dt.datetime):
    pass


UNSUPPORTED_KEYS = {
    "frozenset": frozenset([1]),
    "object": object(),
    "dataclass": FrozenKey(1),
    "timedelta": dt.timedelta(1),
    "complex": 1 + 2j,
    "type": int,
    "datetime_subclass": MyDateTime(2020, 1, 1),
    "uuid_subclass": type("MyUUID", (uuid.UUID,), {})(int=1),
    "enum_of_tuple": enum.Enum("T", [("X", (1, 2))]).X,
}


@pytest.mark.parametrize("name", list(UNSUPPORTED_KEYS))
def test_unsupported_key_is_an_error(fmt, name):
    key = UNSUPPORTED_KEYS[name]
    doc = {key: 1}
    if fmt is MSGPACK and name == "enum_of_tuple":
        # MessagePack keys may be arrays: the enum's tuple value is a key there.
        fmt.same_as_peer(doc, NSK)
        return
    # (packb refuses OPT_NON_STR_KEYS with OPT_SORT_KEYS before it looks at a key.)
    options = [orcodec.OPT_NON_STR_KEYS] + ([orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SORT_KEYS] if fmt is JSON else [])
    for option in options:
        for default in (None, str):
            with pytest.raises(fmt.encode_error, match="Dict key must a type serializable with OPT_NON_STR_KEYS"):
                fmt.encode(doc, option=option, default=default)
    for default in (None, str):
        with pytest.raises(TypeError):
            fmt.peer_encode(doc, option=fmt.peer_opts(NSK), default=default)


def test_without_flag_non_str_keys_are_an_error(fmt):
    encode, error = fmt.encode, fmt.encode_error
    for key in [1, None, 1.5, True, dt.date(2020, 1, 1), uuid.UUID(int=1), Color.RED, b"x", (1,)]:
        with pytest.raises(error, match="Dict key must be str"):
            encode({key: 1})
        with pytest.raises(error, match="Dict key must be str"):
            encode({"a": 1, key: 1}, option=orcodec.OPT_SORT_KEYS)


# --------------------------------------------------------------------------------------
# With OPT_SORT_KEYS
# --------------------------------------------------------------------------------------

SORTABLE = [
    {3: "a", 1: "b", 2: "c"},
    {"b": 1, 10: 2, 9: 3, "a": 4, -1: 5},
    {1.5: 1, 1: 2, "1.25": 3, None: 4, True: 5, False: 6},  # noqa: F601 (True is 1)
    {dt.date(2020, 1, 2): 1, dt.date(2019, 12, 31): 2, "2020-01-01": 3},
    {dt.datetime(2020, 1, 1, tzinfo=UTC): 1, dt.datetime(2020, 1, 1): 2, dt.time(0, 0): 3},
    {Color.NAME: 1, Color.RED: 2, uuid.UUID(int=5): 3, "\u00e9": 4, "z": 5, "\U0001f600": 6},
    {MyStr("b"): 1, "a": 2, MyInt(0): 3},
    {"nested": {2: [{1: "x", 0: "y"}]}, 1: {"b": 1, "a": 2}},
]


@pytest.mark.parametrize("doc", SORTABLE, ids=lambda d: repr(list(d))[:40])
def test_sorted_json_equals_orjson(doc):
    for extra in [(), ("OPT_INDENT_2",), ("OPT_UTC_Z", "OPT_NAIVE_UTC")]:
        names = NSK + ("OPT_SORT_KEYS",) + extra
        assert orcodec.dumps(doc, option=opts(orcodec, names)) == orjson.dumps(doc, option=opts(orjson, names)), names


@pytest.mark.parametrize("doc", SORTABLE + [{"a": 1}, {"a": {}}], ids=lambda d: repr(list(d))[:40])
def test_sorted_msgpack_non_str_keys_refused_like_ormsgpack(doc):
    # ormsgpack refuses OPT_NON_STR_KEYS with OPT_SORT_KEYS as soon as it meets a
    # dict that is not empty, whatever its keys; so does packb.
    option = orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SORT_KEYS
    with pytest.raises(orcodec.MsgpackEncodeError) as info:
        orcodec.packb(doc, option=option)
    with pytest.raises(TypeError) as peer:
        ormsgpack.packb(doc, option=ormsgpack.OPT_NON_STR_KEYS | ormsgpack.OPT_SORT_KEYS)
    assert str(info.value) == str(peer.value) == "OPT_NON_STR_KEYS is not compatible with OPT_SORT_KEYS"


def test_sorted_msgpack_non_str_keys_without_dicts():
    option = orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SORT_KEYS
    for doc in ([], [1, {}], {}, "s"):
        assert orcodec.packb(doc, option=option) == ormsgpack.packb(
            doc, option=ormsgpack.OPT_NON_STR_KEYS | ormsgpack.OPT_SORT_KEYS
        )


# --------------------------------------------------------------------------------------
# Decoding: unpackb(option=OPT_NON_STR_KEYS)
# --------------------------------------------------------------------------------------

DECODE_CASES = {
    "int": b"\x81\x01\xa1a",
    "negative": b"\x81\xff\xa1a",
    "uint64": b"\x81\xcf\xff\xff\xff\xff\xff\xff\xff\xff\x01",
    "float": b"\x81\xcb?\xf8\x00\x00\x00\x00\x00\x00\x01",
    "float32": b"\x81\xca?\xc0\x00\x00\x01",
    "nil": b"\x81\xc0\x01",
    "bool": b"\x82\xc3\x01\xc2\x02",
    "bin": b"\x81\xc4\x02ab\x01",
    "array": b"\x81\x92\x01\xa1x\x01",
    "nested_array": b"\x81\x92\x91\x92\x01\x02\xc4\x00\x01",
    "empty_array": b"\x81\x90\x01",
    "mixed": b"\x83\xa1s\x01\x02\x02\xc0\x03",
    "nested_map_value": b"\x81\x01\x81\x02\x03",
    "array_of_maps_value": b"\x81\x01\x91\x81\x02\x03",
}


@pytest.mark.parametrize("name", list(DECODE_CASES))
def test_decode_non_str_keys_equals_ormsgpack(name):
    data = DECODE_CASES[name]
    ours = orcodec.unpackb(data, option=orcodec.OPT_NON_STR_KEYS)
    assert ours == ormsgpack.unpackb(data, option=ormsgpack.OPT_NON_STR_KEYS)
    assert [type(k) for k in ours] == [type(k) for k in ormsgpack.unpackb(data, option=ormsgpack.OPT_NON_STR_KEYS)]
    # Without the flag: the decode error, in ormsgpack's words (the key's type);
    # a note says which flag reads such keys.
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(data)
    with pytest.raises(ValueError) as peer:
        ormsgpack.unpackb(data)
    assert str(info.value) == str(peer.value)
    assert str(info.value).startswith("invalid type ")
    assert "map keys must be str: pass OPT_NON_STR_KEYS to read keys of other types" in info.value.__notes__


def test_decode_array_keys_are_tuples_at_every_level():
    data = orcodec.packb({(1, (2, (3, b"x")), ()): {(4,): [5]}}, option=orcodec.OPT_NON_STR_KEYS)
    decoded = orcodec.unpackb(data, option=orcodec.OPT_NON_STR_KEYS)
    assert decoded == {(1, (2, (3, b"x")), ()): {(4,): [5]}}
    (key,) = decoded
    assert type(key) is tuple and type(key[1]) is tuple and type(key[1][1]) is tuple
    # Arrays that are values stay lists.
    assert type(decoded[key][(4,)]) is list


@pytest.mark.parametrize(
    "data",
    [b"\x81\x80\x01", b"\x81\x81\x01\x02\x03", b"\x81\x91\x80\x01", b"\x81\x92\x01\x81\xa1a\x01\x02"],
    ids=lambda d: d.hex(),
)
def test_decode_map_as_key_is_a_decode_error(data):
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpackb(data, option=orcodec.OPT_NON_STR_KEYS)
    with pytest.raises(ValueError):
        ormsgpack.unpackb(data, option=ormsgpack.OPT_NON_STR_KEYS)


def test_decode_timestamp_key():
    stamp = dt.datetime(2020, 1, 1, tzinfo=UTC)
    option = orcodec.OPT_NON_STR_KEYS | orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT
    data = orcodec.packb({stamp: 1}, option=option)
    assert orcodec.unpackb(data, option=option) == {stamp: 1}


@pytest.mark.parametrize(
    "doc",
    [
        {1: 2, 3.5: 4, None: 5, True: 6, b"b": 7, (1, 2): 8, "s": {9: 10}},  # noqa: F601 (True is 1)
        {(): 1, ((),): 2, (b"",): 3},
        {i: str(i) for i in range(-50, 50)},
    ],
    ids=["mixed", "tuples", "ints"],
)
def test_non_str_keys_round_trip(doc):
    option = orcodec.OPT_NON_STR_KEYS
    packed = orcodec.packb(doc, option=option)
    assert packed == ormsgpack.packb(doc, option=ormsgpack.OPT_NON_STR_KEYS)
    assert orcodec.unpackb(packed, option=option) == doc
    assert list(orcodec.unpackb(packed, option=option)) == list(doc)


@pytest.mark.parametrize(
    "extra",
    [
        "OPT_PASSTHROUGH_DATETIME",
        "OPT_PASSTHROUGH_ENUM",
        "OPT_PASSTHROUGH_UUID",
        "OPT_PASSTHROUGH_BIG_INT",
        "OPT_PASSTHROUGH_SUBCLASS",
    ],
)
def test_keys_never_go_to_default(fmt, extra):
    # The passthrough flags are about values; keys are written as keys, in both formats
    # (as orjson and ormsgpack do), and default is never asked about one.
    doc = {
        dt.datetime(2020, 1, 1): 1,
        dt.date(2020, 1, 2): 2,
        dt.time(3): 3,
        Color.RED: 4,
        Letter.A: 5,
        uuid.UUID(int=9): 6,
        MyInt(7): 7,
        (Color.NAME, dt.date(2020, 1, 3)): 8,
    }

    def default(obj):
        raise AssertionError(f"default asked about {obj!r}")

    if fmt is JSON:  # JSON has no text for a tuple key
        doc = {k: v for k, v in doc.items() if not isinstance(k, tuple)}
    names = NSK + (extra,)
    out = fmt.encode(doc, default=default, option=fmt.opts(names))
    assert out == fmt.encode(doc, option=orcodec.OPT_NON_STR_KEYS)
    if hasattr(fmt.peer, extra):
        assert fmt.same_as_peer(doc, names, default=default) == out
    with pytest.raises(fmt.encode_error, match="64-bit"):
        fmt.encode({2**64: 1}, default=str, option=fmt.opts(names))


class _SwitchedOffset(dt.tzinfo):
    """A tzinfo whose `utcoffset()` misbehaves (raises, or returns `answer`) once
    `on` is set: hashing a datetime key calls it, so it behaves until the dict is made."""

    def __init__(self, answer):
        self.answer = answer
        self.on = False

    def utcoffset(self, d):
        if not self.on:
            return None
        if self.answer == "raise":
            raise ZeroDivisionError("boom")
        return self.answer

    def dst(self, d):
        return None


MISBEHAVING_OFFSETS = {
    "raises": ("raise", ZeroDivisionError),
    "not-a-timedelta": ("+01:00", TypeError),
    "out-of-range": (dt.timedelta(hours=24), ValueError),
}


@pytest.mark.parametrize("sort", [False, True], ids=["insertion-order", "sort-keys"])
@pytest.mark.parametrize("how", list(MISBEHAVING_OFFSETS))
def test_misbehaving_datetime_key_is_the_encode_error_like_a_value(fmt, how, sort):
    # A datetime key whose utcoffset() raises, returns no timedelta or one out
    # of range gives what the same datetime gives as a value: the format's
    # encode error, with Python's exception as the cause (never that exception
    # itself). orjson 3.13 crashes the interpreter on the value, so no peer.
    answer, cause = MISBEHAVING_OFFSETS[how]
    zone = _SwitchedOffset(answer)
    when = dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=zone)
    docs = [{"a": 1, when: 2}, {when: [1]}, {"x": {when: 1}}]
    if fmt is MSGPACK:
        docs.append({(1, when): 1})
    zone.on = True
    option = orcodec.OPT_NON_STR_KEYS | (orcodec.OPT_SORT_KEYS if sort else 0)
    with pytest.raises(fmt.encode_error) as as_value:
        fmt.encode([when], option=option)
    assert type(as_value.value.__cause__) is cause
    for doc in docs:
        with pytest.raises(fmt.encode_error) as as_key:
            fmt.encode(doc, option=option)
        if fmt is MSGPACK and sort:
            # ormsgpack refuses the pair of flags on any non-empty dict, first.
            assert str(as_key.value) == "OPT_NON_STR_KEYS is not compatible with OPT_SORT_KEYS"
            continue
        assert str(as_key.value) == str(as_value.value) == "datetime's tzinfo.utcoffset() raised"
        assert type(as_key.value.__cause__) is cause
    for extra in ("OPT_NAIVE_UTC", "OPT_UTC_Z", "OPT_OMIT_MICROSECONDS", "OPT_DATETIME_AS_TIMESTAMP_EXT"):
        with pytest.raises(fmt.encode_error) as as_key:
            fmt.encode(docs[0], option=option | getattr(orcodec, extra))
        assert type(as_key.value.__cause__) is (type(None) if fmt is MSGPACK and sort else cause)

"""Class fields typed `uuid.UUID`, `datetime`, `date`, `Decimal`, or an enum or Literal
with str values, which the class validator makes from their text itself rather than
through the generic dispatch: every text gives exactly what the type's own constructor
gives (`UUID(int=...)`, `datetime(..., tzinfo=timezone(timedelta(...)))`, `date(...)`,
`Decimal(text)`, the enum's own lookup) and exactly what the same type gives where it is
no class field (a list item, the generic path); every text they refuse the same message
and path. MessagePack and `convert` read the same documents."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import gc
import sys
import uuid
import weakref
from typing import Literal, Union

import orcodec
import pytest
from helpers import slots_dataclass
from typed_helpers import FORMATS, STREAMS, exact

by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)
by_stream = pytest.mark.parametrize("fmt", STREAMS, ids=repr)


class Status(enum.Enum):
    ACTIVE = "active"
    SUSPENDED = "suspended"
    CLOSED = "closed"
    # An alias: the lookup gives the canonical member.
    SHUT = "closed"


@dataclasses.dataclass
class Record:
    id: uuid.UUID
    created: datetime.datetime
    day: datetime.date
    status: Status
    amount: decimal.Decimal
    kind: Literal["a", "bb", 3] = "a"


@slots_dataclass
class SlotRecord:
    id: uuid.UUID
    created: datetime.datetime
    day: datetime.date
    status: Status
    amount: decimal.Decimal
    kind: Literal["a", "bb", 3] = "a"


CLASSES = [Record, SlotRecord]
by_class = pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)

UUIDS = [
    "00000000-0000-0000-0000-000000000000",
    "ffffffff-ffff-ffff-ffff-ffffffffffff",
    "6513270E-269E-4D37-B2A7-4DE452E6B438",
    "0123456789abcdefABCDEF0123456789",
    "00000000-0000-0000-0000-000000000001",
    "80000000-0000-0000-0000-000000000000",
]

# (text, what the datetime type makes of it)
DATETIMES = [
    ("2024-01-10T09:01:51.075954+02:00", (2024, 1, 10, 9, 1, 51, 75954, datetime.timedelta(hours=2))),
    ("2024-01-10T09:01:51Z", (2024, 1, 10, 9, 1, 51, 0, datetime.timedelta(0))),
    ("2024-01-10t09:01:51z", (2024, 1, 10, 9, 1, 51, 0, datetime.timedelta(0))),
    ("2024-01-10 09:01:51.1-00:00", (2024, 1, 10, 9, 1, 51, 100000, datetime.timedelta(0))),
    ("0001-01-01T00:00:00-23:59", (1, 1, 1, 0, 0, 0, 0, -datetime.timedelta(hours=23, minutes=59))),
    ("9999-12-31T23:59:59.999999+05:45", (9999, 12, 31, 23, 59, 59, 999999, datetime.timedelta(hours=5, minutes=45))),
    ("2024-02-29T12:00:00.5-07:30", (2024, 2, 29, 12, 0, 0, 500000, -datetime.timedelta(hours=7, minutes=30))),
    ("2024-02-29T12:00:00", (2024, 2, 29, 12, 0, 0, 0, None)),
]

DATES = ["2024-02-29", "0001-01-01", "9999-12-31", "2023-12-31"]

DECIMALS = ["0", "-0.000", "-012.50", "1000000.99", "9999999999999999999", "1E+3", "NaN", "-Infinity", " 1_000.5 "]


def document(i: int) -> dict:
    dt = DATETIMES[i % len(DATETIMES)][0]
    return {
        "id": UUIDS[i % len(UUIDS)],
        "created": dt,
        "day": DATES[i % len(DATES)],
        "status": ["active", "suspended", "closed"][i % 3],
        "amount": DECIMALS[i % len(DECIMALS)],
        "kind": ["a", "bb", 3][i % 3],
    }


def expected_datetime(parts) -> datetime.datetime:
    *fields, offset = parts
    if offset is None:
        return datetime.datetime(*fields)
    tz = datetime.timezone.utc if offset == datetime.timedelta(0) else datetime.timezone(offset)
    return datetime.datetime(*fields, tzinfo=tz)


def expected_record(cls, i: int):
    doc = document(i)
    return cls(
        id=uuid.UUID(int=uuid.UUID(doc["id"]).int),
        created=expected_datetime(DATETIMES[i % len(DATETIMES)][1]),
        day=datetime.date.fromisoformat(doc["day"]),
        status=Status(doc["status"]),
        amount=decimal.Decimal(doc["amount"]),
        kind=doc["kind"],
    )


def same_decimal(a: decimal.Decimal, b: decimal.Decimal) -> None:
    assert type(a) is type(b) is decimal.Decimal
    assert str(a) == str(b) and a.as_tuple() == b.as_tuple()


def check_record(out, expected) -> None:
    assert type(out) is type(expected)
    u, e = out.id, expected.id
    assert type(u) is uuid.UUID and u == e and u.int == e.int and type(u.int) is int
    assert u.is_safe is e.is_safe is uuid.SafeUUID.unknown
    assert hash(u) == hash(e) and str(u) == str(e)
    assert gc.is_tracked(u) == gc.is_tracked(e)
    assert not hasattr(u, "__dict__")
    assert weakref.ref(u)() is u
    with pytest.raises(TypeError):
        u.int = 1  # UUID is immutable: its own __setattr__ still applies
    exact(out.created, expected.created)
    assert out.created.tzinfo == expected.created.tzinfo
    assert type(out.created.tzinfo) is type(expected.created.tzinfo)
    if expected.created.tzinfo is datetime.timezone.utc:
        assert out.created.tzinfo is datetime.timezone.utc
    assert out.created.fold == 0
    exact(out.day, expected.day)
    assert out.status is expected.status
    same_decimal(out.amount, expected.amount)
    assert out.kind == expected.kind and type(out.kind) is type(expected.kind)


@by_format
@by_class
@pytest.mark.parametrize("i", range(18))
def test_values_are_what_the_constructors_make(fmt, cls, i):
    out = fmt.decode(document(i), cls)
    check_record(out, expected_record(cls, i))
    # The generic path (the field's type as a list item) agrees.
    doc = document(i)
    assert fmt.decode([doc["id"]], list[uuid.UUID]) == [out.id]
    assert fmt.decode([doc["created"]], list[datetime.datetime]) == [out.created]
    assert fmt.decode([doc["day"]], list[datetime.date]) == [out.day]
    assert fmt.decode([doc["status"]], list[Status]) == [out.status]
    [amount] = fmt.decode([doc["amount"]], list[decimal.Decimal])
    same_decimal(amount, out.amount)


@by_stream
@by_class
def test_many_records_and_msgspec(fmt, cls):
    docs = [document(i) for i in range(400)]
    out = fmt.decode(docs, list[cls])
    for i, rec in enumerate(out):
        check_record(rec, expected_record(cls, i))
    peer = fmt.peer([{**d, "amount": d["amount"].strip().replace("_", "")} for d in docs], list[cls])
    assert [(r.id, r.created, r.day, r.status, r.kind) for r in out] == [
        (r.id, r.created, r.day, r.status, r.kind) for r in peer
    ]


@by_stream
def test_offsets_share_one_zone_each(fmt):
    docs = [{**document(0), "created": f"2024-01-10T09:01:51+{h:02d}:{m:02d}"} for h in (1, 2, 14) for m in (0, 30)]
    out = fmt.decode(docs * 2, list[Record])
    for rec, doc in zip(out, docs * 2):
        offset = datetime.datetime.fromisoformat(doc["created"]).utcoffset()
        assert rec.created.tzinfo == datetime.timezone(offset)
        assert type(rec.created.tzinfo) is datetime.timezone
    # One zone object per offset, whatever the order values come in.
    assert out[0].created.tzinfo is out[len(docs)].created.tzinfo


BAD = [
    ("id", "6513270e-269e-4d37-b2a7-4de452e6b43", "Invalid UUID - at `$.id`"),
    ("id", "6513270e+269e-4d37-b2a7-4de452e6b438", "Invalid UUID - at `$.id`"),
    ("id", "", "Invalid UUID - at `$.id`"),
    ("id", 5, "Expected `uuid`, got `int` - at `$.id`"),
    ("created", "2024-01-10T25:01:51Z", "Invalid RFC3339 encoded datetime - at `$.created`"),
    ("created", "2024-02-30T00:00:00Z", "Invalid RFC3339 encoded datetime - at `$.created`"),
    ("created", "2024-01-10T09:01:51+24:00", "Invalid RFC3339 encoded datetime - at `$.created`"),
    ("created", "1700000000", "Invalid RFC3339 encoded datetime - at `$.created`"),
    ("created", None, "Expected `datetime`, got `{null}` - at `$.created`"),
    ("day", "2023-02-29", "Invalid RFC3339 encoded date - at `$.day`"),
    ("day", "0000-01-01", "Invalid RFC3339 encoded date - at `$.day`"),
    ("day", "2024-01-10T00:00:00", "Invalid RFC3339 encoded date - at `$.day`"),
    ("status", "ACTIVE", "Invalid enum value 'ACTIVE' - at `$.status`"),
    ("status", "", "Invalid enum value '' - at `$.status`"),
    ("status", 1, "Expected `str`, got `int` - at `$.status`"),
    ("amount", "1.2.3", "Invalid decimal string - at `$.amount`"),
    ("amount", "", "Invalid decimal string - at `$.amount`"),
    ("kind", "b", "Invalid enum value 'b' - at `$.kind`"),
    ("kind", 4, "Invalid enum value 4 - at `$.kind`"),
]


@by_format
@by_class
@pytest.mark.parametrize("name, value, message", BAD, ids=range(len(BAD)))
def test_errors_are_those_of_the_generic_path(fmt, cls, name, value, message):
    message = message.replace("{null}", fmt.null)
    doc = {**document(0), name: value}
    err = fmt.error(doc, cls)
    assert str(err) == message
    assert err.path == message.rsplit("`", 2)[1]
    # The generic path says the same one level down.
    err = fmt.error([doc], list[cls])
    assert str(err) == message.replace("`$.", "`$[0].")


@by_format
def test_lax_forms_still_reach_their_conversions(fmt):
    doc = {**document(0), "created": "1700000000.5"}
    out = fmt.decode(doc, Record, strict=False)
    assert out.created == datetime.datetime(2023, 11, 14, 22, 13, 20, 500000, tzinfo=datetime.timezone.utc)
    assert out.created.tzinfo is datetime.timezone.utc


def test_msgpack_other_forms_of_the_same_fields():
    value = uuid.UUID(UUIDS[2])
    when = datetime.datetime(2024, 1, 10, 9, 1, 51, 75954, tzinfo=datetime.timezone.utc)
    doc = {**document(0), "id": value.bytes, "created": when, "amount": 12.5}
    out = orcodec.unpackb(orcodec.packb(doc, option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT), type=Record)
    expected = dataclasses.replace(expected_record(Record, 0), id=value, created=when, amount=decimal.Decimal("12.5"))
    check_record(out, expected)


def test_slots_class_given_a_new_after_its_decoder():
    """A `__slots__` class given its own `__new__` after its decoder was made: the
    instance is still made as `object.__new__` makes it (no call of `__new__`, as for
    any class whose `__new__` was object's when the decoder was made)."""

    @slots_dataclass
    class Late:
        id: uuid.UUID
        n: int = 0

    calls = []

    def new(cls, *args, **kwargs):
        calls.append(args)
        return object.__new__(cls)

    d = orcodec.Decoder(Late)
    data = orcodec.dumps({"id": UUIDS[2], "n": 3})
    before = d.loads(data)
    Late.__new__ = new
    after = d.loads(data)
    assert calls == []
    assert type(after) is Late and after == before == Late(uuid.UUID(UUIDS[2]), 3)


def test_records_leave_no_reference_behind():
    data = orcodec.dumps([document(i) for i in range(50)])
    d = orcodec.Decoder(list[Record])
    members = [Status.ACTIVE, Status.SUSPENDED, Status.CLOSED]
    counts = [sys.getrefcount(m) for m in members]
    for _ in range(20):
        out = d.loads(data)
    del out
    assert [sys.getrefcount(m) for m in members] == counts


# MessagePack keys: the key expected next (the next field in definition order) is matched
# in place against its shortest str form; every other form of the same key, and every
# other key, is read as before.


@dataclasses.dataclass
class Pair:
    name: str
    age: int


@dataclasses.dataclass
class Optional2:
    name: str = "d"
    age: int = 0


LONG = "f" * 40
LONGER = "g" * 300


LongKeys = dataclasses.make_dataclass("LongKeys", [(LONG, int), (LONGER, int), ("z", int)])


@pytest.mark.parametrize(
    "data, expected",
    [
        (b"\x82\xa4name\xa1x\xa3age\x01", Pair("x", 1)),
        # The same keys in longer str forms (str 8, str 16, str 32).
        (b"\x82\xd9\x04name\xa1x\xa3age\x01", Pair("x", 1)),
        (b"\x82\xda\x00\x04name\xa1x\xda\x00\x03age\x01", Pair("x", 1)),
        (b"\x82\xdb\x00\x00\x00\x04name\xa1x\xa3age\x01", Pair("x", 1)),
        # Out of order, and repeated (the last wins).
        (b"\x82\xa3age\x01\xa4name\xa1x", Pair("x", 1)),
        (b"\x83\xa4name\xa1x\xa3age\x01\xa3age\x02", Pair("x", 2)),
    ],
)
def test_msgpack_keys_in_any_form(data, expected):
    assert orcodec.unpackb(data, type=Pair) == expected


@pytest.mark.parametrize(
    "data, message",
    [
        # A bin key with the name's bytes, a longer key, a shorter one: no field `name`.
        (b"\x82\xc4\x04name\xa1x\xa3age\x01", "Object missing required field `name`"),
        (b"\x82\xa5names\xa1x\xa3age\x01", "Object missing required field `name`"),
        (b"\x82\xa3nam\xa1x\xa3age\x01", "Object missing required field `name`"),
    ],
)
def test_msgpack_keys_that_only_look_alike(data, message):
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.unpackb(data, type=Pair)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "data, pos",
    [
        (b"\x82\xa4nam", 1),  # the input ends inside the expected key
        (b"\x82\xa4name", 6),  # after it
        (b"\x81\xa4name", 6),
        (b"\x82", 0),  # the map header itself: its count is more than the input holds
    ],
)
def test_msgpack_keys_cut_short(data, pos):
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(data, type=Pair)
    assert not isinstance(info.value, orcodec.ValidationError)
    assert str(info.value) == "unexpected end of file" and info.value.pos == pos


def test_msgpack_expected_key_never_read_past_its_map():
    """An empty map followed by a str that is the next field's name: the map ends at
    its count, the str is the next item."""
    data = orcodec.packb([{}, "name", {"age": 3}])
    assert orcodec.unpackb(data, type=list[Union[Optional2, str]]) == [Optional2(), "name", Optional2(age=3)]


def test_msgpack_long_field_names():
    value = {LONG: 1, LONGER: 2, "z": 3}
    data = orcodec.packb(value)
    assert data[1:3] == b"\xd9\x28" and b"\xda\x01\x2c" in data
    out = orcodec.unpackb(data, type=LongKeys)
    assert (getattr(out, LONG), getattr(out, LONGER), out.z) == (1, 2, 3)
    assert out == orcodec.convert(value, LongKeys)


# Str values of every length up to past 16 bytes, with shared prefixes and suffixes
# (the few-value table matches a length and its first and last bytes, and the whole
# text past 16 bytes).
CHOICE_VALUES = ["", "a", "b", "ab", "ba", "abc", "acb", "abcd", "abdd", "abcde", "abcdf", "xbcde"]
CHOICE_VALUES += ["a" * n for n in range(6, 12)] + ["a" * 7 + "b", "b" + "a" * 7]
CHOICE_VALUES += ["p" * 8 + "q" + "p" * 8, "p" * 17, "p" * 8 + "r" + "p" * 8]
ManyLengths = enum.Enum("ManyLengths", {f"V{i}": v for i, v in enumerate(CHOICE_VALUES[:12])})
LongValues = enum.Enum("LongValues", {f"V{i}": v for i, v in enumerate(CHOICE_VALUES[12:])})


@dataclasses.dataclass
class Choices:
    short: ManyLengths
    long: LongValues


@by_format
def test_str_choices_matched_whole(fmt):
    """Every value finds its own member; texts that share a length and first and last
    bytes with a value, or differ from one only in the middle, are refused."""
    for i, short in enumerate(CHOICE_VALUES[:12]):
        long = CHOICE_VALUES[12 + i % (len(CHOICE_VALUES) - 12)]
        out = fmt.decode({"short": short, "long": long}, Choices)
        assert out.short is ManyLengths(short) and out.long is LongValues(long)
    for text in ["abed", "abxde", "c", "ac", "aaaaab", "a" * 12, "p" * 8 + "s" + "p" * 8, "p" * 16, "abcd "]:
        field = "short" if len(text) < 6 else "long"
        value = {"short": "a", "long": "aaaaaa", field: text}
        with pytest.raises(orcodec.ValidationError, match=f"Invalid enum value '{text}' - at `\\$.{field}`"):
            fmt.decode(value, Choices)

"""Typed decoding into datetime, date, time, UUID and Decimal: every RFC 3339 form the
encoders write and the rest, MessagePack timestamps and 16-byte UUIDs, epoch numbers with
strict=False, Decimal from a JSON number exactly as written."""

from __future__ import annotations

import datetime as dt
import decimal
import gc
import pickle
import random
import sys
import uuid
import zoneinfo

import msgspec
import orcodec
import pytest
from typed_helpers import CONVERT, FORMATS, JSON, MSGPACK, STREAMS, exact

by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)
by_stream = pytest.mark.parametrize("fmt", STREAMS, ids=repr)
UTC = dt.timezone.utc


@by_format
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-01T00:00:00Z", dt.datetime(2024, 3, 1, tzinfo=UTC)),
        ("2024-03-01T00:00:00+00:00", dt.datetime(2024, 3, 1, tzinfo=UTC)),
        ("2024-03-01T00:00:00-00:00", dt.datetime(2024, 3, 1, tzinfo=UTC)),
        (
            "2024-03-01T10:20:30.123456+05:45",
            dt.datetime(2024, 3, 1, 10, 20, 30, 123456, dt.timezone(dt.timedelta(hours=5, minutes=45))),
        ),
        ("2024-03-01t10:20:30.5z", dt.datetime(2024, 3, 1, 10, 20, 30, 500000, tzinfo=UTC)),
        ("2024-03-01 10:20:30", dt.datetime(2024, 3, 1, 10, 20, 30)),
        (
            "2024-03-01T10:20:30.123456789-08:00",
            dt.datetime(2024, 3, 1, 10, 20, 30, 123457, dt.timezone(dt.timedelta(hours=-8))),
        ),
        ("2019-12-31T23:59:59.9999999Z", dt.datetime(2020, 1, 1, tzinfo=UTC)),
        ("2024-03-01T00:00:00+0130", dt.datetime(2024, 3, 1, tzinfo=dt.timezone(dt.timedelta(hours=1, minutes=30)))),
        ("0001-01-01T00:00:00", dt.datetime(1, 1, 1)),
        ("9999-12-31T23:59:59.999999Z", dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
    ],
)
def test_datetime_text(fmt, text, expected):
    out = fmt.decode(text, dt.datetime)
    assert out == expected and out.tzinfo == expected.tzinfo
    assert out.utcoffset() == expected.utcoffset()
    assert out == fmt.peer(text, dt.datetime)


@by_format
@pytest.mark.parametrize(
    "text",
    [
        "2024-03-01",
        "2024-03-01T00:00Z",
        "2024-02-30T00:00:00Z",
        "2024-03-01T24:00:00Z",
        "2024-03-01T00:00:60Z",
        "0000-01-01T00:00:00Z",
        "2024-03-01T00:00:00+24:00",
        "2024-03-01T00:00:00+01",
        "x",
        "",
    ],
)
def test_datetime_invalid_text(fmt, text):
    assert str(fmt.error(text, dt.datetime)) == "Invalid RFC3339 encoded datetime"
    assert fmt.peer_error(text, dt.datetime) == "Invalid RFC3339 encoded datetime"


@by_format
def test_datetime_refuses_other_kinds(fmt):
    assert str(fmt.error(1, dt.datetime)) == "Expected `datetime`, got `int`" == fmt.peer_error(1, dt.datetime)


@by_format
def test_datetimes_written_by_dumps_and_packb_read_back(fmt):
    values = [
        dt.datetime(2024, 3, 1, 1, 2, 3, 456789, tzinfo=UTC),
        dt.datetime(2024, 3, 1, 1, 2, 3, tzinfo=zoneinfo.ZoneInfo("Europe/Paris")),
        dt.datetime(2024, 3, 1, 1, 2, 3),
    ]
    for v in values:
        out = fmt.decode(v, dt.datetime)
        assert out == v and out.utcoffset() == v.utcoffset()


def test_msgpack_timestamps():
    v = dt.datetime(2024, 3, 1, 1, 2, 3, 456789, tzinfo=UTC)
    data = orcodec.packb(v, option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT)
    exact(orcodec.unpackb(data, type=dt.datetime), v)
    exact(orcodec.unpackb(data, type=dt.datetime), msgspec.msgpack.decode(data, type=dt.datetime))
    old = dt.datetime(1900, 1, 1, tzinfo=UTC)
    exact(orcodec.unpackb(orcodec.packb(old, option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT), type=dt.datetime), old)
    with pytest.raises(orcodec.ValidationError, match="^Expected `date`, got `ext`$"):
        orcodec.unpackb(data, type=dt.date)
    with pytest.raises(orcodec.MsgpackDecodeError, match="invalid timestamp extension"):
        orcodec.unpackb(b"\xd5\xff\x00\x00", type=dt.datetime)


@by_format
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, dt.datetime(1970, 1, 1, tzinfo=UTC)),
        (1.5, dt.datetime(1970, 1, 1, 0, 0, 1, 500000, tzinfo=UTC)),
        (-1, dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC)),
        ("1700000000", dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)),
        ("1.25", dt.datetime(1970, 1, 1, 0, 0, 1, 250000, tzinfo=UTC)),
    ],
)
def test_lax_epoch_datetimes(fmt, value, expected):
    exact(fmt.decode(value, dt.datetime, strict=False), expected)
    exact(fmt.peer(value, dt.datetime, strict=False), expected)


@by_format
def test_lax_epoch_out_of_range(fmt):
    assert str(fmt.error(1e20, dt.datetime, strict=False)) == "Timestamp is out of range"


@by_format
def test_date_and_time(fmt):
    exact(fmt.decode("2024-02-29", dt.date), dt.date(2024, 2, 29))
    exact(fmt.decode(dt.date(2024, 2, 29), dt.date), dt.date(2024, 2, 29))
    assert str(fmt.error("2024-02-30", dt.date)) == "Invalid RFC3339 encoded date"
    assert str(fmt.error("2024-01-01T00:00:00Z", dt.date)) == "Invalid RFC3339 encoded date"
    exact(fmt.decode("10:20:30", dt.time), dt.time(10, 20, 30))
    exact(fmt.decode("10:20:30.5", dt.time), dt.time(10, 20, 30, 500000))
    out = fmt.decode("10:20:30+01:00", dt.time)
    assert out == dt.time(10, 20, 30, tzinfo=dt.timezone(dt.timedelta(hours=1))) and out.utcoffset() == dt.timedelta(
        hours=1
    )
    exact(fmt.decode(dt.time(1, 2, 3, 4), dt.time), dt.time(1, 2, 3, 4))
    assert str(fmt.error("10:20", dt.time)) == "Invalid RFC3339 encoded time" == fmt.peer_error("10:20", dt.time)
    assert str(fmt.error(1, dt.date)) == "Expected `date`, got `int`" == fmt.peer_error(1, dt.date)


def test_convert_keeps_datetimes_and_tells_date_from_datetime():
    now = dt.datetime.now(UTC)
    assert orcodec.convert(now, dt.datetime) is now
    with pytest.raises(orcodec.ValidationError, match="^Expected `date`, got `datetime`$"):
        orcodec.convert(now, dt.date)
    with pytest.raises(orcodec.ValidationError, match="^Expected `datetime`, got `date`$"):
        orcodec.convert(dt.date(2020, 1, 1), dt.datetime)


@by_format
def test_uuid(fmt):
    u = uuid.UUID("6f1c2b3a-0000-4000-8000-0123456789ab")
    for text in [str(u), str(u).upper(), u.hex, u.hex.upper()]:
        out = fmt.decode(text, uuid.UUID)
        exact(out, u)
        assert out.is_safe == uuid.SafeUUID.unknown and out.int == u.int and hash(out) == hash(u)
    exact(fmt.decode(u, uuid.UUID), u)
    for bad in ["x", "{" + str(u) + "}", "urn:uuid:" + str(u), str(u)[:-1], str(u).replace("-", "_")]:
        assert str(fmt.error(bad, uuid.UUID)) == "Invalid UUID" == fmt.peer_error(bad, uuid.UUID)
    assert str(fmt.error(1, uuid.UUID)) == "Expected `uuid`, got `int`" == fmt.peer_error(1, uuid.UUID)


def test_uuid_from_16_bytes_of_bin():
    u = uuid.uuid4()
    exact(orcodec.unpackb(orcodec.packb(u.bytes), type=uuid.UUID), u)
    with pytest.raises(orcodec.ValidationError, match="^Invalid UUID bytes$"):
        orcodec.unpackb(orcodec.packb(b"123"), type=uuid.UUID)


def test_uuid_boundaries():
    for value in [0, 1, 2**127, 2**128 - 1]:
        u = uuid.UUID(int=value)
        exact(orcodec.loads(orcodec.dumps(u), type=uuid.UUID), u)


def _uuid_ints():
    ints = {0, 1, 255, 256, 2**64 - 1, 2**64, 2**65 - 1, 2**127, 2**128 - 1}
    # Every bit length, the edges of each 30-bit digit of an int included.
    ints |= {2**k - 1 for k in range(1, 129)} | {2**k for k in range(128)} | {2**k + 1 for k in range(128)}
    rng = random.Random(14)
    ints |= {rng.getrandbits(rng.randrange(1, 129)) for _ in range(2000)}
    return sorted(ints)


def test_uuid_ints_built_exactly_at_every_bit_length():
    # The decoded UUID's `int` is a plain, normalized int: equal, hashing and
    # comparing as the one `uuid.UUID(int=...)` holds, for both text forms,
    # both cases and the 16 bytes of MessagePack bin.
    values = _uuid_ints()
    expected = [uuid.UUID(int=v) for v in values]
    texts = [str(u) for u in expected]
    for data in [texts, [t.upper() for t in texts], [u.hex for u in expected], [u.hex.upper() for u in expected]]:
        for out in [
            orcodec.loads(orcodec.dumps(data), type=list[uuid.UUID]),
            orcodec.unpackb(orcodec.packb(data), type=list[uuid.UUID]),
        ]:
            assert out == expected
            for u, v in zip(out, values, strict=True):
                assert type(u.int) is int and u.int == v and hash(u.int) == hash(v)
                assert u.int.bit_length() == v.bit_length() and u.int.to_bytes(16, "big") == v.to_bytes(16, "big")
                assert u.int - v == 0 and u.int >> 64 == v >> 64 and -u.int == -v and str(u) == str(uuid.UUID(int=v))
    out = orcodec.unpackb(orcodec.packb([u.bytes for u in expected]), type=list[uuid.UUID])
    assert [u.int for u in out] == values
    assert orcodec.loads('"00000000-0000-0000-0000-000000000005"', type=uuid.UUID).int == 5


@by_format
def test_decimal(fmt):
    exact(fmt.decode("1.10", decimal.Decimal), decimal.Decimal("1.10"))
    exact(fmt.decode("NaN", decimal.Decimal).is_nan(), True)
    exact(fmt.decode(3, decimal.Decimal), decimal.Decimal(3))
    exact(fmt.decode(1.5, decimal.Decimal), decimal.Decimal("1.5"))
    assert str(fmt.error("x", decimal.Decimal)) == "Invalid decimal string" == fmt.peer_error("x", decimal.Decimal)
    assert str(fmt.error(True, decimal.Decimal)) == "Expected `decimal`, got `bool`"


def test_decimal_from_a_json_number_as_written():
    for text in ["1.10", "-0", "1E+5", "0.30000000000000004441", "123456789012345678901234567890.5", "1e-7"]:
        exact(orcodec.loads(text, type=decimal.Decimal), decimal.Decimal(text))
    exact(orcodec.convert(decimal.Decimal("1.5"), decimal.Decimal), decimal.Decimal("1.5"))


def same_datetime(ours, theirs) -> None:
    """Indistinguishable datetimes or dates: every field, the tzinfo object itself, the
    hash, the size, and what the methods give."""
    assert type(ours) is type(theirs)
    assert ours == theirs and repr(ours) == repr(theirs) and hash(ours) == hash(theirs)
    assert sys.getsizeof(ours) == sys.getsizeof(theirs) and gc.is_tracked(ours) == gc.is_tracked(theirs)
    assert pickle.loads(pickle.dumps(ours)) == theirs and ours.isoformat() == theirs.isoformat()
    assert ours.timetuple() == theirs.timetuple() and ours.toordinal() == theirs.toordinal()
    if isinstance(theirs, dt.datetime):
        assert ours.tzinfo == theirs.tzinfo and ours.fold == theirs.fold == 0
        assert (ours.tzinfo is theirs.tzinfo) if theirs.tzinfo in (None, UTC) else type(ours.tzinfo) is dt.timezone
        assert ours.utcoffset() == theirs.utcoffset() and ours.replace(fold=1).fold == 1
        assert (ours.tzinfo is None or ours.timestamp() == theirs.timestamp()) and ours.time() == theirs.time()
        step = dt.timedelta(microseconds=1 if theirs.year < 9999 else -1)
        assert ours + step == theirs + step and ours - theirs == dt.timedelta(0)


@pytest.mark.parametrize("fmt", [JSON, MSGPACK, CONVERT], ids=repr)
def test_datetimes_and_dates_from_text_are_what_their_types_make(fmt):
    rng = random.Random(5)
    zones = [None, UTC, dt.timezone(dt.timedelta(hours=2)), dt.timezone(dt.timedelta(hours=-9, minutes=-30))]
    values = [dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999, UTC), dt.datetime(2024, 2, 29, 12)]
    for _ in range(300):
        day = dt.date(1, 1, 1) + dt.timedelta(days=rng.randrange(3652059))
        values.append(
            dt.datetime(
                day.year,
                day.month,
                day.day,
                rng.randrange(24),
                rng.randrange(60),
                rng.randrange(60),
                rng.choice([0, rng.randrange(1000000)]),
                rng.choice(zones),
            )  # fmt: skip
        )
    texts = [v.isoformat() for v in values]
    for ours, theirs in zip(fmt.decode(texts, list[dt.datetime]), values):
        same_datetime(ours, theirs)
    dates = [v.date() for v in values]
    for ours, theirs in zip(fmt.decode([d.isoformat() for d in dates], list[dt.date]), dates):
        same_datetime(ours, theirs)
    # Out of datetime's range after rounding: the constructor's refusal, as before.
    assert str(fmt.error("9999-12-31T23:59:59.9999999Z", dt.datetime)).startswith("Invalid RFC3339 encoded datetime")


def decimal_texts() -> list[str]:
    """Texts in plain notation (the ones made in place) around every limit, and
    forms only ``Decimal()`` itself reads."""
    rng = random.Random(11)
    texts = ["0", "-0", "00", "-0.000", "0.000", "0E+5", "1E+3", "1e-7", "25e0", "-012.50", "7e-000000001",
             "1e999999999", "-1e-999999999", "9999999999999999999", "-0000000000000000000000999999999999999.99999",
             "0.1000000000000000000", "1000000000000000000.0", "12345678901234567890", "1e1000000000",
             "1.", ".5", "+1", " 1.5 ", "1_000.5", "NaN", "-sNaN", "Infinity", "-inf", "\u0661\u0662.5"]  # fmt: skip
    for _ in range(400):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 22)))
        cut = rng.randint(0, len(digits))
        text = rng.choice(["", "-"]) + (digits[:cut] or "0") + ("." + digits[cut:] if digits[cut:] else "")
        if rng.random() < 0.3:
            text += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randint(0, 10 ** rng.randint(1, 10)))
        texts.append(text)
    return texts


def same_decimal(ours: decimal.Decimal, theirs: decimal.Decimal) -> None:
    """Indistinguishable: the same number, digits and exponent, and the same behaviour."""
    assert type(ours) is decimal.Decimal
    assert ours.as_tuple() == theirs.as_tuple() and str(ours) == str(theirs) and repr(ours) == repr(theirs)
    assert ours.is_nan() or hash(ours) == hash(theirs)
    assert gc.is_tracked(ours) == gc.is_tracked(theirs) and sys.getsizeof(ours) == sys.getsizeof(theirs)
    assert pickle.loads(pickle.dumps(ours)).as_tuple() == theirs.as_tuple()

    def results(d: decimal.Decimal) -> list[str]:
        out = []
        ops = [lambda: d + 1, lambda: d * d, lambda: -d, lambda: d.quantize(decimal.Decimal("0.01"))]
        ops += [lambda: d.adjusted(), lambda: d.normalize(), lambda: d.to_integral_value(), lambda: float(d)]
        for op in ops:
            try:
                out.append(repr(op()))
            except (ArithmeticError, ValueError) as e:
                out.append(type(e).__name__)
        return out

    assert results(ours) == results(theirs)


@pytest.mark.parametrize("fmt", [JSON, MSGPACK, CONVERT], ids=repr)
def test_decimal_from_text_is_the_decimal_the_type_makes(fmt):
    texts = decimal_texts()
    for text, ours in zip(texts, fmt.decode(texts, list[decimal.Decimal])):
        same_decimal(ours, decimal.Decimal(text))


def test_decimal_from_a_json_number_is_the_decimal_the_type_makes():
    for text in decimal_texts():
        if orcodec.dumps(text)[1:-1].decode() != text:
            continue
        try:
            json_number = orcodec.loads(text) is not None
        except orcodec.JSONDecodeError:
            json_number = False
        if json_number:
            same_decimal(orcodec.loads(text, type=decimal.Decimal), decimal.Decimal(text))


def test_decimals_made_in_place_leave_no_reference_behind():
    data = orcodec.dumps(["12.50", "-0.001", "3e5"] * 1000)
    decoder = orcodec.Decoder(list[decimal.Decimal])
    decoder.loads(data)
    gc.collect()
    before = sys.getrefcount(decimal.Decimal)
    for _ in range(20):
        decoder.loads(data)
    gc.collect()
    after = sys.getrefcount(decimal.Decimal)  # outside the assert: its rewriting holds references
    assert after == before


@pytest.mark.parametrize("fmt", [JSON, MSGPACK, CONVERT], ids=repr)
def test_stdtypes_as_dict_keys(fmt):
    u = uuid.uuid4()
    value = {str(u): 1}
    assert fmt.decode(value, dict[uuid.UUID, int]) == {u: 1}
    assert fmt.decode({"2024-01-01": 1}, dict[dt.date, int]) == {dt.date(2024, 1, 1): 1}

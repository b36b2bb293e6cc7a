"""datetime, date and time in both formats: RFC 3339 text byte for byte against the peer
(orjson for JSON, ormsgpack for MessagePack) and hand-written bytes, every timezone
library, the datetime flags, the fast path for fixed-offset timezones, and the
MessagePack timestamp extension (OPT_DATETIME_AS_TIMESTAMP_EXT) both ways."""

from __future__ import annotations

import datetime as dt
import itertools
import random
import struct
import zoneinfo

import orcodec
import orjson
import ormsgpack
import pendulum
import pytest
import pytz
from dateutil import tz as dateutil_tz
from helpers import (
    JSON,
    UTC,
    MyDate,
    MyDateTime,
    NoneOffset,
    RaisingOffset,
    StrOffset,
    opts,
)
from helpers import fixed_offset as fixed

DATETIME_FLAGS = ["OPT_NAIVE_UTC", "OPT_UTC_Z", "OPT_OMIT_MICROSECONDS"]
FLAG_SETS = [c for r in range(len(DATETIME_FLAGS) + 1) for c in itertools.combinations(DATETIME_FLAGS, r)]


def _timezones():
    zones = {
        "utc": UTC,
        "plus0530": fixed(5 * 3600 + 30 * 60),
        "minus08": fixed(-8 * 3600),
        "zero_offset": fixed(0),
        "plus_seconds": fixed(5 * 3600 + 30),
        "minus_seconds": fixed(-(3 * 3600 + 29)),
        "minus_sub_minute_29": fixed(-29),
        "minus_sub_minute_30": fixed(-30),
        "plus_sub_minute_59": fixed(59),
        "sub_second": fixed(3600, 999_999),
        "zoneinfo_berlin": zoneinfo.ZoneInfo("Europe/Berlin"),
        "zoneinfo_new_york": zoneinfo.ZoneInfo("America/New_York"),
        "zoneinfo_kolkata": zoneinfo.ZoneInfo("Asia/Kolkata"),
        "zoneinfo_lord_howe": zoneinfo.ZoneInfo("Australia/Lord_Howe"),
        "zoneinfo_utc": zoneinfo.ZoneInfo("UTC"),
        "dateutil_utc": dateutil_tz.tzutc(),
        "dateutil_offset": dateutil_tz.tzoffset("X", -(2 * 3600 + 15 * 60)),
        "dateutil_paris": dateutil_tz.gettz("Europe/Paris"),
        "dateutil_sao_paulo": dateutil_tz.gettz("America/Sao_Paulo"),
        "pendulum_paris": pendulum.timezone("Europe/Paris"),
        "pendulum_utc": pendulum.timezone("UTC"),
        "pendulum_fixed": pendulum.FixedTimezone(-(9 * 3600 + 30 * 60)),
    }
    return zones


TIMEZONES = _timezones()
# Offsets whose seconds round up to a whole hour: RFC 3339 text carries into
# the hour, where the peers write minute 60 (a deviation, see
# test_offset_seconds_carry_into_the_hour): zone, orcodec's text, the peers',
# Python's isoformat.
CARRY_ZONES = {
    "plus_3599": (fixed(3599), "+01:00", "+00:60", "+00:59:59"),
    "minus_3599": (fixed(-3599), "-01:00", "-00:60", "-00:59:59"),
    "plus_7170": (fixed(7170), "+02:00", "+01:60", "+01:59:30"),
    "plus_max": (fixed(23 * 3600 + 59 * 60 + 59), "+23:59", "+23:60", "+23:59:59"),
    "minus_max": (fixed(-(23 * 3600 + 59 * 60 + 59)), "-23:59", "-23:60", "-23:59:59"),
}
# Wall times that do not exist in the zone (skipped by the clocks going forward).
PYTZ_GAPS = {("Europe/Amsterdam", dt.datetime(2024, 3, 31, 2, 30))}
PYTZ_ZONES = ["Europe/Amsterdam", "US/Eastern", "Asia/Kathmandu", "UTC", "Australia/Adelaide"]

WALL_TIMES = [
    dt.datetime(2020, 1, 2, 3, 4, 5, 6),
    dt.datetime(2021, 7, 15, 12, 30, 0, 0),
    dt.datetime(1, 1, 1, 0, 0, 0, 0) + dt.timedelta(days=2),
    dt.datetime(9999, 12, 30, 23, 59, 59, 999_999),
    dt.datetime(1970, 1, 1),
    dt.datetime(1969, 12, 31, 23, 59, 59, 500_000),
    dt.datetime(2000, 2, 29, 23, 0, 0, 120),
    dt.datetime(2024, 3, 31, 2, 30),  # in the DST gap in Europe
    dt.datetime(2024, 10, 27, 2, 30, fold=1),  # in the DST overlap in Europe
]


def aware_datetimes():
    out = []
    for name, zone in TIMEZONES.items():
        for i, wall in enumerate(WALL_TIMES):
            out.append(pytest.param(wall.replace(tzinfo=zone), id=f"{name}-{i}"))
    for name in PYTZ_ZONES:
        zone = pytz.timezone(name)
        for i, wall in enumerate(WALL_TIMES):
            if (name, wall) in PYTZ_GAPS:
                continue  # a deviation: see test_pytz_time_in_dst_gap
            out.append(pytest.param(zone.localize(wall), id=f"pytz_{name}-{i}"))
            out.append(pytest.param(wall.replace(tzinfo=pytz.utc).astimezone(zone), id=f"pytz_astimezone_{name}-{i}"))
    return out


AWARE = aware_datetimes()
NAIVE = [pytest.param(w, id=f"naive-{i}") for i, w in enumerate(WALL_TIMES)]


# --------------------------------------------------------------------------------------
# Text, byte for byte against the peers
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", AWARE + NAIVE)
def test_datetime_text_equals_peers(fmt, value):
    for names in FLAG_SETS:
        fmt.same_as_peer(value, names)


EXACT_TEXT = [
    (dt.datetime(2020, 1, 2, 3, 4, 5, 60, tzinfo=fixed(-(5 * 3600 + 30 * 60))), (), "2020-01-02T03:04:05.000060-05:30"),
    (dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC), (), "2020-01-02T03:04:05+00:00"),
    (dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC), ("OPT_UTC_Z",), "2020-01-02T03:04:05Z"),
    (dt.datetime(1, 1, 1, 0, 0, 0, 999_999), (), "0001-01-01T00:00:00.999999"),
    (dt.datetime(1, 1, 1, 0, 0, 0, 999_999), ("OPT_OMIT_MICROSECONDS",), "0001-01-01T00:00:00"),
    (dt.datetime(1, 1, 1, 0, 0, 0, 999_999), ("OPT_NAIVE_UTC", "OPT_UTC_Z"), "0001-01-01T00:00:00.999999Z"),
    (dt.datetime(1, 1, 1, 0, 0, 0, 999_999), ("OPT_NAIVE_UTC",), "0001-01-01T00:00:00.999999+00:00"),
]


@pytest.mark.parametrize("value, names, text", EXACT_TEXT, ids=lambda v: None)
def test_datetime_text_exact_bytes(fmt, value, names, text):
    assert fmt.encode(value, option=opts(orcodec, names)) == fmt.exact_str(text)


def test_datetime_exact_msgpack_str8():
    value = dt.datetime(2020, 1, 2, 3, 4, 5, 60, tzinfo=fixed(-(5 * 3600 + 30 * 60)))
    assert orcodec.packb(value) == b"\xd9\x202020-01-02T03:04:05.000060-05:30"


@pytest.mark.parametrize(
    "seconds, text",
    [
        (1, "+00:00"),
        (-1, "-00:00"),
        (29, "+00:00"),
        (-29, "-00:00"),
        (30, "+00:01"),
        (-30, "-00:01"),
        (89, "+00:01"),
        (90, "+00:02"),
        (3569, "+00:59"),
        (3630, "+01:01"),
        (18_030, "+05:01"),
        (-86_369, "-23:59"),
    ],
)
def test_offset_with_seconds_rounds_like_the_peers(fmt, seconds, text):
    # RFC 3339 offsets have no seconds: rounded to the minute, 30 s up, as
    # orjson and ormsgpack round them (but see the carry below).
    value = dt.datetime(2020, 1, 1, tzinfo=fixed(seconds))
    assert fmt.encode(value) == fmt.exact_str(f"2020-01-01T00:00:00{text}")
    fmt.same_as_peer(value)
    # A non-zero offset is never Z.
    assert fmt.same_as_peer(value, ("OPT_UTC_Z",)) == fmt.encode(value)


@pytest.mark.parametrize("zone", list(CARRY_ZONES))
def test_offset_seconds_carry_into_the_hour(fmt, zone):
    # A deviation: where the rounded seconds make a whole hour, orjson and
    # ormsgpack write minute 60 (`+00:60`, `+23:60`), which is no valid RFC
    # 3339 offset; orcodec carries into the hour, and writes offsets of
    # 23:59:30 or more as 23:59 (RFC 3339 hours end at 23). Python's
    # isoformat keeps the seconds (`+00:59:59`), which RFC 3339 has no room for.
    tz, ours, peers, python = CARRY_ZONES[zone]
    for wall in WALL_TIMES:
        value = wall.replace(tzinfo=tz)
        assert value.isoformat().endswith(python)
        for names in FLAG_SETS:
            got = fmt.encode(value, option=opts(orcodec, names))
            peer = fmt.peer_encode(value, option=fmt.peer_opts(names))
            assert peers.encode() in peer, (names, peer)
            assert got == peer.replace(peers.encode(), ours.encode()), (names, got)
        hours, minutes = int(ours[1:3]), int(ours[4:6])
        assert hours <= 23 and minutes <= 59
        offset = value.utcoffset().days * 86_400 + value.utcoffset().seconds
        written = (hours * 3600 + minutes * 60) * (-1 if ours[0] == "-" else 1)
        assert abs(written - offset) <= 30 or abs(offset) > 86_340


@pytest.mark.parametrize(
    "value",
    [dt.date(1, 1, 1), dt.date(2020, 2, 29), dt.date(9999, 12, 31), dt.date(1970, 1, 1)],
    ids=str,
)
def test_date(fmt, value):
    text = value.isoformat()
    for names in FLAG_SETS + [("OPT_DATETIME_AS_TIMESTAMP_EXT",)]:
        assert fmt.same_as_peer(value, names) == fmt.exact_str(text)


@pytest.mark.parametrize(
    "value",
    [dt.time(0, 0), dt.time(23, 59, 59, 999_999), dt.time(12, 0, 0, 1), dt.time(1, 2, 3, 400_000)],
    ids=str,
)
def test_time(fmt, value):
    for names in FLAG_SETS:
        fmt.same_as_peer(value, names)
    assert fmt.encode(dt.time(1, 2, 3, 4)) == fmt.exact_str("01:02:03.000004")
    assert fmt.encode(dt.time(1, 2, 3, 4), option=orcodec.OPT_OMIT_MICROSECONDS) == fmt.exact_str("01:02:03")


@pytest.mark.parametrize(
    "zone", [UTC, fixed(3600), zoneinfo.ZoneInfo("Europe/Berlin")], ids=["utc", "fixed", "zoneinfo"]
)
def test_time_with_tzinfo_is_an_error(fmt, zone):
    value = dt.time(1, 2, 3, tzinfo=zone)
    with pytest.raises(fmt.encode_error, match="datetime.time must not have tzinfo set"):
        fmt.encode(value)
    with pytest.raises(TypeError):
        fmt.peer_encode(value)


def test_datetime_inside_containers_with_indent_and_sort_keys(fmt):
    doc = {"b": [dt.datetime(2020, 1, 1, tzinfo=UTC), dt.date(2020, 1, 2)], "a": {"t": dt.time(1, 2)}}
    for names in [(), ("OPT_INDENT_2",), ("OPT_SORT_KEYS", "OPT_UTC_Z", "OPT_INDENT_2", "OPT_APPEND_NEWLINE")]:
        fmt.same_as_peer(doc, names)


# --------------------------------------------------------------------------------------
# The fast path for datetime.timezone (a fixed offset read without a call)
# --------------------------------------------------------------------------------------


class CallOffset(dt.tzinfo):
    """A tzinfo that is not `datetime.timezone`: the general path (a call)."""

    def __init__(self, delta):
        self.delta = delta

    def utcoffset(self, _):
        return self.delta

    def dst(self, _):
        return None


MAX_OFFSET = dt.timedelta(hours=23, minutes=59, seconds=59, microseconds=999_999)
OFFSETS = [
    dt.timedelta(0),
    dt.timedelta(hours=2),
    dt.timedelta(hours=-2),
    dt.timedelta(seconds=-1, microseconds=500_000),
    dt.timedelta(seconds=1, microseconds=1),
    dt.timedelta(microseconds=-1),
    MAX_OFFSET,
    -MAX_OFFSET,
    dt.timedelta(hours=5, minutes=30, seconds=29),
    dt.timedelta(hours=-5, minutes=-30, seconds=-30),
]


@pytest.mark.parametrize("delta", OFFSETS, ids=str)
def test_fixed_offset_timezone_equals_called_tzinfo_and_peers(fmt, delta):
    wall = dt.datetime(2024, 3, 1, 12, 30, 15, 123456)
    fast = wall.replace(tzinfo=dt.timezone(delta))
    slow = wall.replace(tzinfo=CallOffset(delta))
    for names in ((), ("OPT_UTC_Z",), ("OPT_OMIT_MICROSECONDS",)):
        assert fmt.encode(fast, option=opts(orcodec, names)) == fmt.encode(slow, option=opts(orcodec, names))
        if delta in (MAX_OFFSET, -MAX_OFFSET):
            # Deviations (see test_offset_seconds_carry_into_the_hour): RFC 3339
            # hours end at 23, so orcodec writes these as 23:59. orjson writes
            # +23:60 and drops the negative one (+00:00, or Z); ormsgpack writes
            # +23:60 and -24:00.
            sign = b"+" if delta > dt.timedelta(0) else b"-"
            assert fmt.encode(fast, option=opts(orcodec, names)).endswith(
                sign + b"23:59" + (b'"' if fmt is JSON else b"")
            )
            assert fmt.peer_encode(fast, option=fmt.peer_opts(names)) != fmt.encode(fast, option=opts(orcodec, names))
        else:
            fmt.same_as_peer(fast, names)
    ts = orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT
    assert fmt.encode(fast, option=ts) == fmt.encode(slow, option=ts)


def test_fixed_offset_timezone_exact_text(fmt):
    tz = dt.timezone(dt.timedelta(hours=2))
    value = [dt.datetime(2024, 3, 1, 12, 30, 15, 123456, tzinfo=tz)] * 2
    text = fmt.exact_str("2024-03-01T12:30:15.123456+02:00")
    assert fmt.encode(value) == (b"[" + text + b"," + text + b"]" if fmt is JSON else b"\x92" + text + text)
    neg = dt.datetime(2024, 3, 1, tzinfo=dt.timezone(-dt.timedelta(hours=9, minutes=30)))
    assert fmt.encode(neg) == fmt.exact_str("2024-03-01T00:00:00-09:30")


# --------------------------------------------------------------------------------------
# Passthrough, subclasses, odd tzinfo objects
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 1, tzinfo=UTC), dt.date(2020, 1, 1), dt.time(1, 2)],
    ids=["naive", "aware", "date", "time"],
)
def test_passthrough_datetime(fmt, value):
    encode, error = fmt.encode, fmt.encode_error
    seen = []

    def default(obj):
        seen.append(obj)
        return "passed"

    option = orcodec.OPT_PASSTHROUGH_DATETIME | orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT | orcodec.OPT_NAIVE_UTC
    assert encode([value], default=default, option=option) == encode(["passed"])
    assert seen == [value] and type(seen[0]) is type(value)
    with pytest.raises(
        error,
        match=(
            f"Type is not {fmt.label} serializable: {type(value).__module__}.{type(value).__name__}"
            f"|serializable: {type(value).__name__}"
        ),
    ):
        encode(value, option=orcodec.OPT_PASSTHROUGH_DATETIME)


@pytest.mark.parametrize(
    "value",
    [
        MyDateTime(2020, 1, 1, tzinfo=UTC),
        MyDate(2020, 1, 1),
        pendulum.datetime(2020, 1, 1, tz="Europe/Paris"),
        pendulum.date(2020, 1, 1),
        pendulum.time(1, 2, 3),
    ],
    ids=["MyDateTime", "MyDate", "pendulum.DateTime", "pendulum.Date", "pendulum.Time"],
)
def test_datetime_subclasses_go_to_default_like_peers(fmt, value):
    out = fmt.same_as_peer(value, default=lambda o: type(o).__name__)
    assert out == fmt.exact_str(type(value).__name__)
    for option in (0, orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT):
        with pytest.raises(fmt.encode_error, match=f"Type is not {fmt.label} serializable"):
            fmt.encode(value, option=option)


def test_utcoffset_none_is_naive_in_json():
    # Deviation: orjson writes +00:00 (it reads the None it gets back as if it were a
    # timedelta); Python itself calls such a datetime naive, and so does dumps.
    value = dt.datetime(2020, 1, 1, 1, 2, 3, tzinfo=NoneOffset())
    assert value.utcoffset() is None
    assert orcodec.dumps(value) == b'"2020-01-01T01:02:03"'
    assert orcodec.dumps(value, option=orcodec.OPT_NAIVE_UTC | orcodec.OPT_UTC_Z) == b'"2020-01-01T01:02:03Z"'
    assert orjson.dumps(value) == b'"2020-01-01T01:02:03+00:00"'


def test_utcoffset_none_is_refused_in_msgpack():
    # As ormsgpack, whatever the flags.
    value = dt.datetime(2020, 1, 1, 1, 2, 3, tzinfo=NoneOffset())
    for names in ((), ("OPT_NAIVE_UTC",), ("OPT_DATETIME_AS_TIMESTAMP_EXT",)):
        with pytest.raises(orcodec.MsgpackEncodeError) as info:
            orcodec.packb(value, option=opts(orcodec, names))
        with pytest.raises(TypeError) as peer:
            ormsgpack.packb(value, option=opts(ormsgpack, names))
        assert str(info.value) == str(peer.value)
        assert str(info.value).startswith("datetime's timezone library is not supported")


def test_utcoffset_raising_is_an_encode_error_with_cause(fmt):
    # orjson segfaults on this input: it is never given to the peers.
    encode, error = fmt.encode, fmt.encode_error
    value = dt.datetime(2020, 1, 1, tzinfo=RaisingOffset())
    for option in (0, orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT, orcodec.OPT_NON_STR_KEYS):
        with pytest.raises(error, match=r"utcoffset\(\) raised") as info:
            encode([value], option=option)
        assert type(info.value.__cause__) is ZeroDivisionError
    # As a dict key with OPT_NON_STR_KEYS, also when sorting (hashing the key for the
    # dict calls utcoffset() too, so it starts raising only after the dict is made).
    zone = RaisingOffset()
    zone.fail = False
    keyed = {dt.datetime(2020, 1, 1, tzinfo=zone): 1, "a": 2}
    zone.fail = True
    options = [orcodec.OPT_NON_STR_KEYS]
    if fmt.name == "json":  # (packb refuses the two flags together, as ormsgpack)
        options.append(orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SORT_KEYS)
    for option in options:
        with pytest.raises(error) as info:
            encode(keyed, option=option)
        assert type(info.value.__cause__) is ZeroDivisionError
    # PASSTHROUGH_DATETIME never asks for the offset.
    assert encode(value, default=lambda o: 1, option=orcodec.OPT_PASSTHROUGH_DATETIME) == encode(1)


def test_utcoffset_of_wrong_type_is_an_encode_error(fmt):
    value = dt.datetime(2020, 1, 1, tzinfo=StrOffset())
    for option in (0, orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT):
        with pytest.raises(fmt.encode_error):
            fmt.encode(value, option=option)


PYTZ_IN_GAP = pytz.timezone("Europe/Amsterdam").localize(dt.datetime(2024, 3, 31, 2, 30))
PYTZ_UNLOCALIZED = dt.datetime(2020, 1, 1, tzinfo=pytz.timezone("Europe/Amsterdam"))


def test_pytz_time_in_dst_gap(fmt):
    # For a wall time in a DST gap, pytz's localize() gives the offset before the change
    # (+01:00 here) and Python agrees; both peers ask the zone's normalize() and write the
    # wall time with the offset after the change (+02:00), and so does orcodec.
    value = PYTZ_IN_GAP
    assert value.utcoffset() == dt.timedelta(hours=1)
    assert fmt.same_as_peer(value) == fmt.exact_str("2024-03-31T02:30:00+02:00")


@pytest.mark.parametrize(
    "value, text",
    [
        (PYTZ_UNLOCALIZED, "2020-01-01T00:00:00+01:00"),
        (dt.datetime(2018, 1, 1, 2, 3, 4, tzinfo=pytz.timezone("Asia/Shanghai")), "2018-01-01T02:03:04+08:00"),
        (dt.datetime(2018, 6, 1, 2, 3, 4, tzinfo=pytz.timezone("America/New_York")), "2018-06-01T02:03:04-04:00"),
        (dt.datetime(2018, 12, 1, 2, 3, 4, tzinfo=pytz.timezone("Australia/Adelaide")), "2018-12-01T02:03:04+10:30"),
    ],
    ids=lambda v: None if isinstance(v, str) else str(v.tzinfo),
)
def test_pytz_without_localize_like_peers(fmt, value, text):
    # A pytz zone attached with replace() or the constructor is its local mean time entry
    # (Amsterdam +00:18, Shanghai +08:06); both peers write the offset normalize() finds
    # for that time, which users of both rely on, and so does orcodec.
    assert value.utcoffset() != value.tzinfo.normalize(value).utcoffset()
    assert fmt.same_as_peer(value) == fmt.exact_str(text)
    for names in (("OPT_UTC_Z",), ("OPT_OMIT_MICROSECONDS",), ("OPT_NAIVE_UTC",)):
        fmt.same_as_peer(value, names)
    assert fmt.encode({value: 1}, option=orcodec.OPT_NON_STR_KEYS) == fmt.encode({text: 1})


def test_pytz_as_timestamps_equal_ormsgpack():
    for value in (PYTZ_IN_GAP, PYTZ_UNLOCALIZED):
        stamp = orcodec.packb(value, option=TS)
        assert stamp == ormsgpack.packb(value, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT)
        normalized = value.tzinfo.normalize(value)
        instant = (value.replace(tzinfo=None) - normalized.utcoffset()).replace(tzinfo=UTC)
        assert orcodec.unpackb(stamp, option=TS) == instant


# --------------------------------------------------------------------------------------
# The timestamp extension (MessagePack, type -1)
# --------------------------------------------------------------------------------------

TS = orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT


def ormsgpack_loses_fraction(value: dt.datetime) -> bool:
    """Whether ormsgpack 1.13 writes ``value`` wrongly as a timestamp: with nanoseconds
    of 2**29 or more (microsecond >= 536871) and seconds in 0..2**34-1 (the 64-bit form)
    it writes the 32-bit form, dropping the fraction (and wrapping seconds past 2**32).
    orcodec writes the 64-bit form the spec asks for."""
    seconds = int((value - dt.datetime(1970, 1, 1, tzinfo=UTC)).total_seconds() // 1)
    return 0 <= seconds < 2**34 and value.microsecond * 1000 >= 2**29


def test_ormsgpack_timestamp_bug_is_a_deviation():
    value = dt.datetime(1976, 1, 19, 22, 10, 10, 607_673, tzinfo=UTC)
    assert ormsgpack_loses_fraction(value)
    expected = b"\xd7\xff" + struct.pack(">Q", (607_673_000 << 34) | 190937410)
    assert orcodec.packb(value, option=TS) == expected
    assert ormsgpack.packb(value, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT) == b"\xd6\xff" + struct.pack(
        ">I", 190937410
    )
    assert orcodec.unpackb(expected, option=TS) == value
    assert ormsgpack.unpackb(expected, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT) == value


def _stamp_forms():
    return [
        # 32-bit: seconds in 0..2**32-1, no nanoseconds.
        (dt.datetime(1970, 1, 1, tzinfo=UTC), b"\xd6\xff\x00\x00\x00\x00"),
        (dt.datetime(2020, 1, 1, tzinfo=UTC), b"\xd6\xff" + struct.pack(">I", 1577836800)),
        (dt.datetime(2106, 2, 7, 6, 28, 15, tzinfo=UTC), b"\xd6\xff\xff\xff\xff\xff"),
        # 64-bit: nanoseconds, or seconds in 2**32..2**34-1.
        (dt.datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=UTC), b"\xd7\xff" + struct.pack(">Q", 1000 << 34)),
        (dt.datetime(2106, 2, 7, 6, 28, 16, tzinfo=UTC), b"\xd7\xff" + struct.pack(">Q", 2**32)),
        (
            dt.datetime(2514, 5, 30, 1, 53, 3, 999_999, tzinfo=UTC),
            b"\xd7\xff" + struct.pack(">Q", (999_999_000 << 34) | (2**34 - 1)),
        ),
        # 96-bit: negative seconds or beyond 2**34-1.
        (dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC), b"\xc7\x0c\xff" + struct.pack(">Iq", 0, -1)),
        (dt.datetime(1, 1, 1, tzinfo=UTC), b"\xc7\x0c\xff" + struct.pack(">Iq", 0, -62135596800)),
        (
            dt.datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
            b"\xc7\x0c\xff" + struct.pack(">Iq", 999_999_000, 253402300799),
        ),
        (dt.datetime(2514, 5, 30, 1, 53, 4, tzinfo=UTC), b"\xc7\x0c\xff" + struct.pack(">Iq", 0, 2**34)),
    ]


@pytest.mark.parametrize(
    "value, expected", _stamp_forms(), ids=lambda v: str(v)[:26] if isinstance(v, dt.datetime) else None
)
def test_timestamp_forms_exact(value, expected):
    assert orcodec.packb(value, option=TS) == expected
    if not ormsgpack_loses_fraction(value):
        assert ormsgpack.packb(value, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT) == expected
    back = orcodec.unpackb(expected, option=TS)
    assert back == value and back.tzinfo is UTC and type(back) is dt.datetime
    assert ormsgpack.unpackb(expected, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT) == back


CARRY_AWARE = [
    pytest.param(wall.replace(tzinfo=zone), id=f"{name}-{i}")
    for name, (zone, *_) in CARRY_ZONES.items()
    for i, wall in enumerate(WALL_TIMES)
]


@pytest.mark.parametrize("value", AWARE + CARRY_AWARE)
def test_timestamp_aware_equals_ormsgpack(value):
    for names in FLAG_SETS:
        names = names + ("OPT_DATETIME_AS_TIMESTAMP_EXT",)
        ours = orcodec.packb(value, option=opts(orcodec, names))
        if not ormsgpack_loses_fraction(value):
            assert ours == ormsgpack.packb(value, option=opts(ormsgpack, names)), names
    back = orcodec.unpackb(ours, option=TS)
    # Offsets are whole seconds: sub-second parts are dropped, as by the peers.
    offset = value.utcoffset()
    whole = dt.timedelta(days=offset.days, seconds=offset.seconds)
    assert back.tzinfo is UTC
    assert back == (value.replace(tzinfo=None) - whole).replace(tzinfo=UTC)


@pytest.mark.parametrize("value", NAIVE)
def test_timestamp_naive(value):
    # Naive: text, unless OPT_NAIVE_UTC makes it UTC.
    assert orcodec.packb(value, option=TS) == orcodec.packb(value.isoformat())
    assert orcodec.packb(value, option=TS) == ormsgpack.packb(value, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT)
    option = TS | orcodec.OPT_NAIVE_UTC
    ours = orcodec.packb(value, option=option)
    assert ours == ormsgpack.packb(value, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT | ormsgpack.OPT_NAIVE_UTC)
    assert orcodec.unpackb(ours, option=TS) == value.replace(tzinfo=UTC)


def test_timestamp_flag_is_ignored_by_dumps():
    value = dt.datetime(2020, 1, 1, tzinfo=UTC)
    assert orcodec.dumps(value, option=TS) == orjson.dumps(value)


def test_timestamp_random_round_trips():
    rng = random.Random(3)
    lo = dt.datetime(1, 1, 1, tzinfo=UTC)
    span_us = int((dt.datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC) - lo) / dt.timedelta(microseconds=1))
    values = [lo + dt.timedelta(microseconds=rng.randrange(span_us + 1)) for _ in range(3000)]
    values += [v.replace(microsecond=0) for v in values[:500]]
    values += [
        dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(seconds=rng.randrange(-(10**6), 2**34 + 10**6))
        for _ in range(500)
    ]
    packed = orcodec.packb(values, option=TS)
    back = orcodec.unpackb(packed, option=TS)
    assert back == values
    assert all(v.tzinfo is UTC for v in back)
    assert back == ormsgpack.unpackb(packed, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT)
    same = [v for v in values if not ormsgpack_loses_fraction(v)]
    assert len(same) > 3000
    assert orcodec.packb(same, option=TS) == ormsgpack.packb(same, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT)
    for v in same[:1000]:
        assert orcodec.packb(v, option=TS) == ormsgpack.packb(v, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT)


def test_timestamp_nanoseconds_are_truncated_to_microseconds():
    payload = struct.pack(">Q", (999_999_999 << 34) | 5)
    assert orcodec.unpackb(b"\xd7\xff" + payload, option=TS) == dt.datetime(1970, 1, 1, 0, 0, 5, 999_999, tzinfo=UTC)
    payload = struct.pack(">Iq", 1_999, -1)
    assert orcodec.unpackb(b"\xc7\x0c\xff" + payload, option=TS) == dt.datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "data",
    [
        b"\xd4\xff\x00",  # fixext 1
        b"\xd5\xff\x00\x00",  # fixext 2
        b"\xd8\xff" + bytes(16),  # fixext 16
        b"\xc7\x00\xff",  # ext 8, empty
        b"\xc7\x05\xff" + bytes(5),
        b"\xc7\x0b\xff" + bytes(11),
        b"\xc8\x00\x0c\xff" + bytes(11),  # ext 16 claiming 12 with 11 bytes
        b"\xd7\xff" + struct.pack(">Q", 1_000_000_000 << 34),  # 64-bit, nanoseconds >= 1e9
        b"\xd7\xff" + struct.pack(">Q", (2**30 - 1) << 34),
        b"\xc7\x0c\xff" + struct.pack(">Iq", 1_000_000_000, 0),  # 96-bit, nanoseconds >= 1e9
        b"\xc7\x0c\xff" + struct.pack(">Iq", 2**32 - 1, 0),
    ],
    ids=lambda d: d.hex()[:16],
)
def test_timestamp_invalid_payload_is_a_decode_error(data):
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpackb(data, option=TS)
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpackb(b"\x91" + data, option=TS)


@pytest.mark.parametrize(
    "seconds",
    [-62135596801, 253402300800, 2**63 - 1, -(2**63), 10**15, -(10**15)],
)
def test_timestamp_out_of_range_is_a_decode_error(seconds):
    data = b"\xc7\x0c\xff" + struct.pack(">Iq", 0, seconds)
    with pytest.raises(orcodec.MsgpackDecodeError, match="outside the range"):
        orcodec.unpackb(data, option=TS)
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpackb(b"\x81\xa1k" + data, option=TS)


def test_timestamp_without_flag_goes_to_ext_hook_or_fails():
    value = dt.datetime(2020, 1, 1, 0, 0, 0, 5, tzinfo=UTC)
    data = orcodec.packb(value, option=TS)
    calls = []

    def hook(tag, payload):
        calls.append((tag, payload))
        return "hooked"

    assert orcodec.unpackb(data, ext_hook=hook) == "hooked"
    assert calls == [(-1, data[2:])]
    assert ormsgpack.unpackb(data, ext_hook=lambda t, b: (t, b)) == (-1, data[2:])
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpackb(data)
    # With the flag the hook is not asked.
    assert orcodec.unpackb(data, ext_hook=hook, option=TS) == value
    assert len(calls) == 1
    # Other extension types still go to the hook with the flag set.
    assert orcodec.unpackb(b"\xd4\x05\x01", ext_hook=hook, option=TS) == "hooked"
    assert calls[-1] == (5, b"\x01")


def test_timestamp_as_key_and_in_containers():
    stamp = dt.datetime(2020, 1, 1, tzinfo=UTC)
    doc = {"when": [stamp, {"nested": stamp}], "date": dt.date(2020, 1, 1)}
    packed = orcodec.packb(doc, option=TS)
    assert packed == ormsgpack.packb(doc, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT)
    assert orcodec.unpackb(packed, option=TS) == {"when": [stamp, {"nested": stamp}], "date": "2020-01-01"}
    keyed = {stamp: 1}
    option = TS | orcodec.OPT_NON_STR_KEYS
    packed = orcodec.packb(keyed, option=option)
    assert packed == ormsgpack.packb(keyed, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT | ormsgpack.OPT_NON_STR_KEYS)
    assert orcodec.unpackb(packed, option=option) == keyed
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpackb(packed, option=TS)

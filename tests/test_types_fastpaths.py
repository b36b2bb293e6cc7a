"""Fast paths for typed values (fixed-offset timezones, UUIDs, enums, numpy
rows) must write exactly what the general paths and the peers write."""

from __future__ import annotations

import datetime as dt

import orjson
import ormsgpack
import pytest

import orcodec


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
def test_fixed_offset_timezone_equals_called_tzinfo_and_peers(delta):
    wall = dt.datetime(2024, 3, 1, 12, 30, 15, 123456)
    fast = wall.replace(tzinfo=dt.timezone(delta))
    slow = wall.replace(tzinfo=CallOffset(delta))
    for name in (None, "OPT_UTC_Z", "OPT_OMIT_MICROSECONDS"):
        option, oj, om = (0, 0, 0) if name is None else (getattr(m, name) for m in (orcodec, orjson, ormsgpack))
        assert orcodec.dumps(fast, option=option) == orcodec.dumps(slow, option=option)
        if delta != -MAX_OFFSET:
            # orjson writes +00:00 for this one (ormsgpack and orcodec -24:00):
            # a deviation that predates the fast path, which keeps it.
            assert orcodec.dumps(fast, option=option) == orjson.dumps(fast, option=oj)
        assert orcodec.packb(fast, option=option) == ormsgpack.packb(fast, option=om)
    ts = orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT
    assert orcodec.packb(fast, option=ts) == orcodec.packb(slow, option=ts)


def test_fixed_offset_timezone_exact_text():
    tz = dt.timezone(dt.timedelta(hours=2))
    value = [dt.datetime(2024, 3, 1, 12, 30, 15, 123456, tzinfo=tz)] * 2
    assert orcodec.dumps(value) == b'["2024-03-01T12:30:15.123456+02:00","2024-03-01T12:30:15.123456+02:00"]'
    neg = dt.datetime(2024, 3, 1, tzinfo=dt.timezone(-dt.timedelta(hours=9, minutes=30)))
    assert orcodec.dumps(neg) == b'"2024-03-01T00:00:00-09:30"'

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


# --- UUIDs: the int slot and its 30-bit digits read directly ------------------------

import enum  # noqa: E402
import uuid  # noqa: E402


def _uuid_ints():
    ints = {0, 1, 2**128 - 1, 2**127, 2**120, 2**120 - 1, 2**8 - 1}
    for k in (30, 60, 90, 120):
        ints |= {2**k - 1, 2**k, 2**k + 1}
    # Leading zero bytes of every length.
    ints |= {2 ** (8 * n) - 1 for n in range(1, 17)}
    ints |= {0xAB << (8 * n) for n in range(16)}
    return sorted(ints)


@pytest.mark.parametrize("value", _uuid_ints(), ids=hex)
def test_uuid_text_at_digit_boundaries(value):
    u = uuid.UUID(int=value)
    assert orcodec.dumps(u) == f'"{u}"'.encode() == orjson.dumps(u)
    assert orcodec.packb(u) == ormsgpack.packb(u)
    assert orcodec.dumps({u: 1}, option=orcodec.OPT_NON_STR_KEYS) == f'{{"{u}":1}}'.encode()


def test_uuid_random_bits():
    import random

    rng = random.Random(7)
    values = [uuid.UUID(int=rng.getrandbits(rng.randrange(1, 129))) for _ in range(3000)]
    assert orcodec.dumps(values) == orjson.dumps(values)
    assert orcodec.dumps(values) == ("[" + ",".join(f'"{u}"' for u in values) + "]").encode()


def test_uuid_int_slot_overwritten():
    # What getattr returns is what is written, also when the slot was
    # changed behind UUID's back.
    u = uuid.UUID(int=5)
    object.__setattr__(u, "int", 2**100 + 7)
    assert orcodec.dumps(u) == f'"{uuid.UUID(int=2**100 + 7)}"'.encode()
    for bad, cause in [("not an int", TypeError), (2**128, OverflowError), (-1, OverflowError)]:
        object.__setattr__(u, "int", bad)
        with pytest.raises(orcodec.JSONEncodeError) as info:
            orcodec.dumps(u)
        assert type(info.value.__cause__) is cause
    object.__delattr__(u, "int")
    with pytest.raises(orcodec.JSONEncodeError) as info:
        orcodec.dumps(u)
    assert type(info.value.__cause__) is AttributeError


def test_uuid_int_is_int_subclass():
    class Big(int):
        pass

    u = uuid.UUID(int=1)
    object.__setattr__(u, "int", Big(2**128 - 2))
    assert orcodec.dumps(u) == b'"ffffffff-ffff-ffff-ffff-fffffffffffe"'


# --- enum members: `_value_` from the member's __dict__ ------------------------------


class Status(enum.Enum):
    ACTIVE = "active"
    SUSPENDED = "suspended"


def test_enum_value_read_from_member_dict():
    assert orcodec.dumps([Status.ACTIVE, Status.SUSPENDED]) == b'["active","suspended"]'
    assert orcodec.packb(Status.ACTIVE) == ormsgpack.packb(Status.ACTIVE)


def test_enum_value_changed_after_creation_is_seen():
    class E(enum.Enum):
        A = 1

    assert orcodec.dumps(E.A) == b"1"
    E.A._value_ = 2
    assert orcodec.dumps(E.A) == b"2"


def test_enum_value_from_a_data_descriptor_or_getattribute():
    class Prop(enum.Enum):
        A = 1

    # A data descriptor on the class wins over the member's __dict__.
    type.__setattr__(Prop, "_value_", property(lambda self: "from property"))
    assert orcodec.dumps(Prop.A) == b'"from property"'

    class Hooked(enum.Enum):
        A = 1

        def __getattribute__(self, name):
            if name == "_value_":
                return "hooked"
            return super().__getattribute__(name)

    assert orcodec.dumps(Hooked.A) == b'"hooked"'


def test_enum_value_missing_from_dict_uses_getattr():
    class E(enum.Enum):
        A = 1

    del E.A.__dict__["_value_"]
    with pytest.raises(orcodec.JSONEncodeError):
        orcodec.dumps(E.A)

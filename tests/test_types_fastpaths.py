"""Fast paths for typed values (fixed-offset timezones, UUIDs, enums, numpy
rows) must write exactly what the general paths and the peers write."""

from __future__ import annotations

import datetime as dt

import orcodec
import orjson
import ormsgpack
import pytest


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


# --- numpy rows: written by the backend in one loop when aligned ----------------------

np = pytest.importorskip("numpy")

ROW_DTYPES = [
    "float64",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint64",
    "uint32",
    "uint16",
    "uint8",
    "bool",
    "float32",
    "float16",
]


def _values(dtype, n, seed=3):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.startswith("float"):
        with np.errstate(over="ignore"):  # float16 overflows to inf: written as null
            return (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)).astype(dtype)
    info = np.iinfo(dtype)
    edges = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dtype)
    return np.concatenate([edges, rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)])[:n]


def _unaligned(arr):
    """A copy of `arr` whose data starts one byte past an aligned address."""
    raw = np.zeros(arr.nbytes + 1, dtype=np.uint8)
    raw[1:] = np.frombuffer(arr.tobytes(), dtype=np.uint8)
    out = np.frombuffer(raw.data, dtype=arr.dtype, offset=1, count=arr.size).reshape(arr.shape)
    return out


def _both(arr):
    o = orcodec.OPT_SERIALIZE_NUMPY
    return orcodec.dumps(arr, option=o), orcodec.packb(arr, option=o)


@pytest.mark.parametrize("dtype", ROW_DTYPES)
@pytest.mark.parametrize(
    "shape", [(0,), (1,), (2,), (255,), (256,), (257,), (3, 700), (2, 0), (4, 1), (2, 3, 100)], ids=str
)
def test_rows_equal_peers_and_unaligned_path(dtype, shape):
    arr = _values(dtype, int(np.prod(shape))).reshape(shape)
    json_bytes, msgpack_bytes = _both(arr)
    assert json_bytes == orjson.dumps(arr, option=orjson.OPT_SERIALIZE_NUMPY)
    assert msgpack_bytes == ormsgpack.packb(arr, option=ormsgpack.OPT_SERIALIZE_NUMPY)
    if dtype not in ("float32", "float16"):  # those are written as the shortest float32
        assert orcodec.loads(json_bytes) == arr.tolist()
    if arr.dtype.itemsize > 1 and arr.size:
        odd = _unaligned(arr)
        assert not odd.flags.aligned and odd.flags.c_contiguous
        assert _both(odd) == (json_bytes, msgpack_bytes)
    pretty = orcodec.dumps(arr, option=orcodec.OPT_SERIALIZE_NUMPY | orcodec.OPT_INDENT_2)
    assert pretty == orjson.dumps(arr, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_INDENT_2)


def test_bool_rows_every_pattern_and_non_canonical_bytes():
    # Every 8-bit pattern of 8 bools, in one row and as rows.
    bits = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(bool)
    assert _both(bits.ravel())[0] == orjson.dumps(bits.ravel(), option=orjson.OPT_SERIALIZE_NUMPY)
    assert _both(bits)[0] == orjson.dumps(bits, option=orjson.OPT_SERIALIZE_NUMPY)
    assert _both(np.ones(300, dtype=bool))[0] == b"[" + b",".join([b"true"] * 300) + b"]"
    assert _both(np.zeros(300, dtype=bool))[0] == b"[" + b",".join([b"false"] * 300) + b"]"
    # A byte other than 0/1 viewed as bool is true, as one element or in a row.
    odd = np.array([0, 1, 2, 255, 0], dtype=np.uint8).view(bool)
    assert _both(odd)[0] == b"[false,true,true,true,false]"


def test_row_float_specials_and_exact_text():
    arr = np.array([0.0, -0.0, 1.0, 0.1, 1e16, 1e-7, np.nan, np.inf, -np.inf, 5e-324, 1.7976931348623157e308])
    assert _both(arr)[0] == b"[0.0,-0.0,1.0,0.1,1e+16,1e-7,null,null,null,5e-324,1.7976931348623157e+308]"
    assert _both(arr)[0] == orjson.dumps(arr, option=orjson.OPT_SERIALIZE_NUMPY)


def test_row_int_exact_text():
    arr = np.array([np.iinfo(np.int64).min, -1, 0, 9, 10, 99, 100, 9999, 10000, np.iinfo(np.int64).max])
    assert _both(arr)[0] == (b"[-9223372036854775808,-1,0,9,10,99,100,9999,10000,9223372036854775807]")
    assert _both(np.array([2**64 - 1, 0], dtype=np.uint64))[0] == b"[18446744073709551615,0]"


# --- dataclasses: instance dicts with split keys read in place ------------------------

import dataclasses  # noqa: E402


@dataclasses.dataclass
class Point:
    x: int
    y: str
    _hidden: int = 0
    z: float = 1.5


def test_dataclass_split_dict_in_order_and_changed():
    p = Point(1, "a")
    assert orcodec.dumps(p) == b'{"x":1,"y":"a","z":1.5}'
    vars(p)  # the instance dict exists from here on (split keys)
    assert orcodec.dumps([p, p]) == b'[{"x":1,"y":"a","z":1.5},{"x":1,"y":"a","z":1.5}]'
    assert orcodec.packb(p) == ormsgpack.packb(p)
    # Extra attributes after the fields are ignored; before them, too.
    p.extra = "ignored"
    assert orcodec.dumps(p) == b'{"x":1,"y":"a","z":1.5}'
    # Deleted and set again: insertion order changes, the field order holds.
    del p.x
    with pytest.raises(orcodec.JSONEncodeError):
        orcodec.dumps(p)
    p.x = 7
    assert orcodec.dumps(p) == b'{"x":7,"y":"a","z":1.5}'
    del p.z  # the class default is found by getattr
    assert orcodec.dumps(p) == b'{"x":7,"y":"a","z":1.5}'
    p.z = -2.0
    p.y = "b"
    assert orcodec.dumps(p) == b'{"x":7,"y":"b","z":-2.0}'
    # (orjson would write this instance's __dict__ as it stands, "extra" and
    # all: orcodec writes the fields, as documented.)


def test_dataclass_many_instances_of_one_class():
    people = [Point(i, str(i), i, float(i)) for i in range(300)]
    expected = b"[" + b",".join(b'{"x":%d,"y":"%d","z":%d.0}' % (i, i, i) for i in range(300)) + b"]"
    assert orcodec.dumps(people) == expected
    assert orcodec.dumps(people) == orjson.dumps(people)
    assert orcodec.packb(people) == ormsgpack.packb(people)


def test_dataclass_dict_replaced_by_a_combined_one():
    p = Point(1, "a")
    p.__dict__ = {"z": 3.0, "y": "c", "x": 2}  # a dict of its own, other order
    assert orcodec.dumps(p) == b'{"x":2,"y":"c","z":3.0}'

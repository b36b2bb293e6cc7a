"""The compatibility suite: the same calls against orcodec and against orjson (dumps,
loads) / ormsgpack (packb, unpackb), comparing the bytes or values, or the kind of
exception, over a corpus of objects of every supported type times combinations of the
flags each peer has; and the encode errors' messages, word for word.

Each library is always given its own flag constants, by name (orjson's and ormsgpack's
values differ; orcodec uses orjson's values for orjson's flags). Every call is made twice:
without ``default`` and with one that names the type it was given, so "goes to default"
is compared as well as "raises".

Where orcodec deliberately differs, the case is listed in DEVIATIONS below, with the
reason and the flags under which it shows. A listed deviation is asserted to *be* a
difference (under every flag combination it names), and each entry must match at least
one combination, so the list cannot rot. Inputs on which a peer crashes the process
(orjson: a dataclass with an unset slot, a tzinfo whose utcoffset() raises, an enum that
is its own value, some datetime64 values) are not in the corpus; the type tests cover
orcodec alone there.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import decimal
import enum
import itertools
import uuid
import zoneinfo

import numpy as np
import orcodec
import orjson
import ormsgpack
import pendulum
import pydantic
import pytest
import pytz
from dateutil import tz as dateutil_tz
from helpers import (
    FORMATS,
    MSGPACK,
    UTC,
    Frozen,
    Letter,
    Movie,
    MyByteArray,
    MyBytes,
    MyDateTime,
    MyDict,
    MyFloat,
    MyInt,
    MyList,
    MyStr,
    MyTuple,
    MyUUID,
    NoneOffset,
    Point,
    Slotted,
    Unsupported,
    assert_strict_equal,
    outcome,
)

JSON_FLAGS = [
    "OPT_APPEND_NEWLINE",
    "OPT_INDENT_2",
    "OPT_NAIVE_UTC",
    "OPT_NON_STR_KEYS",
    "OPT_OMIT_MICROSECONDS",
    "OPT_PASSTHROUGH_DATACLASS",
    "OPT_PASSTHROUGH_DATETIME",
    "OPT_PASSTHROUGH_SUBCLASS",
    "OPT_SERIALIZE_NUMPY",
    "OPT_SORT_KEYS",
    "OPT_STRICT_INTEGER",
    "OPT_UTC_Z",
    "OPT_SERIALIZE_DATACLASS",
    "OPT_SERIALIZE_UUID",
]
MSGPACK_FLAGS = [
    "OPT_DATETIME_AS_TIMESTAMP_EXT",
    "OPT_NAIVE_UTC",
    "OPT_NON_STR_KEYS",
    "OPT_OMIT_MICROSECONDS",
    "OPT_PASSTHROUGH_BIG_INT",
    "OPT_PASSTHROUGH_DATACLASS",
    "OPT_PASSTHROUGH_DATETIME",
    "OPT_PASSTHROUGH_ENUM",
    "OPT_PASSTHROUGH_SUBCLASS",
    "OPT_PASSTHROUGH_TUPLE",
    "OPT_PASSTHROUGH_UUID",
    "OPT_REPLACE_SURROGATES",
    "OPT_SERIALIZE_NUMPY",
    "OPT_SERIALIZE_PYDANTIC",
    "OPT_SORT_KEYS",
    "OPT_UTC_Z",
]
assert all(hasattr(orjson, n) and hasattr(orcodec, n) for n in JSON_FLAGS)
assert all(hasattr(ormsgpack, n) and hasattr(orcodec, n) for n in MSGPACK_FLAGS)

DATETIME_FLAGS = ("OPT_NAIVE_UTC", "OPT_UTC_Z", "OPT_OMIT_MICROSECONDS")


def _combinations(flags, extra):
    """No flag, each flag, each pair, and a few larger sets."""
    out = [()]
    out += [(f,) for f in flags]
    out += list(itertools.combinations(flags, 2))
    out += [tuple(f for f in s if f in flags) for s in extra]
    return list(dict.fromkeys(out))


JSON_COMBINATIONS = _combinations(
    JSON_FLAGS,
    [
        DATETIME_FLAGS,
        DATETIME_FLAGS + ("OPT_NON_STR_KEYS", "OPT_SORT_KEYS"),
        DATETIME_FLAGS + ("OPT_INDENT_2", "OPT_APPEND_NEWLINE", "OPT_SORT_KEYS", "OPT_SERIALIZE_NUMPY"),
        ("OPT_PASSTHROUGH_DATACLASS", "OPT_PASSTHROUGH_DATETIME", "OPT_PASSTHROUGH_SUBCLASS"),
        tuple(JSON_FLAGS),
    ],
)
MSGPACK_COMBINATIONS = _combinations(
    MSGPACK_FLAGS,
    [
        DATETIME_FLAGS,
        DATETIME_FLAGS + ("OPT_DATETIME_AS_TIMESTAMP_EXT",),
        DATETIME_FLAGS + ("OPT_NON_STR_KEYS", "OPT_SERIALIZE_NUMPY", "OPT_SERIALIZE_PYDANTIC"),
        (
            "OPT_PASSTHROUGH_DATACLASS",
            "OPT_PASSTHROUGH_DATETIME",
            "OPT_PASSTHROUGH_ENUM",
            "OPT_PASSTHROUGH_SUBCLASS",
            "OPT_PASSTHROUGH_TUPLE",
            "OPT_PASSTHROUGH_UUID",
            "OPT_PASSTHROUGH_BIG_INT",
        ),
        tuple(f for f in MSGPACK_FLAGS if f != "OPT_SORT_KEYS"),
    ],
)


# --------------------------------------------------------------------------------------
# The corpus
# --------------------------------------------------------------------------------------


class PerLibrary:
    """A value that must be made with each library's own class (Fragment, Ext)."""

    def __init__(self, make):
        self.make = make  # make(module, fmt) -> object


@dataclasses.dataclass
class WithDatetime:
    when: dt.datetime
    uid: uuid.UUID
    inner: Point


@dataclasses.dataclass
class WithInitFalse:
    a: int
    b: str = dataclasses.field(default="class-level", init=False)


class Color(enum.Enum):
    RED = 1
    NAME = "name"


class Level(enum.IntEnum):
    LOW = 1


class Perm(enum.Flag):
    R = 4
    W = 2


class Valued(enum.Enum):
    WHEN = dt.datetime(2020, 1, 1, 0, 0, 0, 7)
    PAIR = (1, 2)
    POINT = Point(1, 2.0)
    BIG = 2**70


class Model(pydantic.BaseModel):
    name: str
    when: dt.datetime
    tags: list[str] = []


class OpenModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")
    a: int


PointTuple = collections.namedtuple("PointTuple", "x y")


def _with_extra_attribute():
    p = Point(1, 2.0)
    p.extra = "added"
    return p


AWARE = dt.datetime(2020, 1, 2, 3, 4, 5, 6, tzinfo=UTC)
NAIVE = dt.datetime(2020, 1, 2, 3, 4, 5, 6)

CORPUS = {
    # builtins
    "none": None,
    "bools": [True, False],
    "ints": [0, -1, 2**31, 2**53, -(2**53) - 1, 2**63, 2**64 - 1, -(2**63)],
    "int_2_64": 2**64,
    "int_neg_big": -(2**63) - 1,
    "floats": [1.5, -0.0, 1e300, 5e-324, 0.1],
    "non_finite": [float("nan"), float("inf"), float("-inf")],
    "str": 'h\u00e9llo \u4e2d \U0001f600 \n"\\',
    "surrogate": "a\ud800b",
    "surrogate_key": {"a\udfff": 1},
    "bytes": b"\x00\xff",
    "bytearray": bytearray(b"ba"),
    "memoryview": memoryview(b"mv"),
    "list": [1, [2, [3, []]], {}],
    "tuple": (1, (2, ()), [3]),
    "dict": {"b": 1, "a": {"d": [], "c": {}}, "\u00e9": 2},
    "set": {1},
    "decimal": decimal.Decimal("1.5"),
    "complex": 1 + 2j,
    "unsupported": Unsupported(),
    # subclasses
    "str_subclass": MyStr("s"),
    "int_subclass": MyInt(3),
    "float_subclass": MyFloat(2.5),
    "dict_subclass": MyDict(b=1, a=2),
    "list_subclass": MyList([1, MyList([2])]),
    "tuple_subclass": MyTuple((1, 2)),
    "bytes_subclass": MyBytes(b"sub"),
    "bytearray_subclass": MyByteArray(b"sub"),
    "namedtuple": PointTuple(1, 2),
    "ordereddict": collections.OrderedDict([("b", 1), ("a", 2)]),
    "defaultdict": collections.defaultdict(int, {"k": 1}),
    "typeddict": Movie(title="t", year=1),
    # non-str keys
    "int_keys": {2: "a", 1: "b", -5: "c"},
    "mixed_keys": {"s": 1, 3: 2, 1.5: 3, None: 4, True: 5},
    "nan_key": {float("nan"): 1, float("inf"): 2},
    "date_keys": {dt.date(2020, 1, 2): 1, NAIVE: 2, AWARE: 3, dt.time(1, 2): 4},
    "enum_uuid_keys": {Color.RED: 1, Letter.A: 2, uuid.UUID(int=3): 3},
    "tuple_key": {(1, "a"): 1},
    "bytes_key": {b"k": 1},
    "big_int_key": {2**64: 1},
    "frozenset_key": {frozenset([1]): 1},
    "str_subclass_key": {MyStr("b"): 1, "a": 2},
    # datetime
    "datetime_naive": NAIVE,
    "datetime_utc": AWARE,
    "datetime_no_micro": dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC),
    "datetime_offset": dt.datetime(
        1999, 12, 31, 23, 59, 59, 999_999, tzinfo=dt.timezone(dt.timedelta(hours=-5, minutes=-30))
    ),
    "datetime_offset_seconds": dt.datetime(2020, 1, 1, tzinfo=dt.timezone(dt.timedelta(seconds=-3630))),
    "datetime_zoneinfo": dt.datetime(2020, 7, 1, 12, tzinfo=zoneinfo.ZoneInfo("Europe/Berlin")),
    "datetime_pytz": pytz.timezone("US/Eastern").localize(dt.datetime(2020, 7, 1, 12)),
    "datetime_dateutil": dt.datetime(2020, 1, 1, 12, tzinfo=dateutil_tz.gettz("Asia/Kolkata")),
    "datetime_pendulum_tz": dt.datetime(2020, 1, 1, 12, tzinfo=pendulum.timezone("America/Sao_Paulo")),
    "datetime_year_1": dt.datetime(1, 1, 1, tzinfo=UTC),
    "datetime_year_9999": dt.datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
    "datetime_before_epoch": dt.datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=UTC),
    "datetime_after_2106": dt.datetime(2200, 1, 1, 0, 0, 0, 5, tzinfo=UTC),
    "datetime_big_fraction": dt.datetime(2020, 1, 1, 0, 0, 0, 999_999, tzinfo=UTC),
    "datetime_none_offset": dt.datetime(2020, 1, 1, tzinfo=NoneOffset()),
    "datetime_pytz_unlocalized": dt.datetime(2020, 1, 1, tzinfo=pytz.timezone("Europe/Amsterdam")),
    "datetime_subclass": MyDateTime(2020, 1, 1),
    "pendulum_datetime": pendulum.datetime(2020, 1, 1, tz="Europe/Paris"),
    "date": dt.date(2020, 2, 29),
    "time": dt.time(12, 30, 15, 500),
    "time_tz": dt.time(12, 30, tzinfo=UTC),
    "datetimes_in_containers": {"a": [NAIVE, AWARE], "b": (dt.date(2020, 1, 1), dt.time(0))},
    # uuid
    "uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "uuid_subclass": MyUUID(int=1),
    # enum
    "enum_int": Color.RED,
    "enum_str": Color.NAME,
    "int_enum": Level.LOW,
    "str_enum": Letter.A,
    "flag": Perm.R | Perm.W,
    "enum_datetime": Valued.WHEN,
    "enum_tuple": Valued.PAIR,
    "enum_dataclass": Valued.POINT,
    "enum_big_int": Valued.BIG,
    # dataclass
    "dataclass": Point(1, 2.0),
    "dataclass_slots": Slotted(1),
    "dataclass_frozen": Frozen(1, 2),
    "dataclass_nested": WithDatetime(NAIVE, uuid.UUID(int=7), Point(0, -0.0)),
    "dataclass_extra_attribute": _with_extra_attribute(),
    "dataclass_init_false": WithInitFalse(1),
    "dataclass_list": [Point(i, i / 2) for i in range(3)],
    # numpy
    "np_float64": np.array([1.5, -0.0, np.nan]),
    "np_float32": np.array([0.1, 3.4e38], dtype=np.float32),
    "np_float16": np.array([1.1, 65504], dtype=np.float16),
    "np_ints": [np.array([-1, 2], dtype=t) for t in (np.int64, np.int32, np.int16, np.int8)],
    "np_uints": [np.array([1, 2], dtype=t) for t in (np.uint64, np.uint32, np.uint16, np.uint8)],
    "np_bool": np.array([[True], [False]]),
    "np_2d": np.arange(6, dtype=np.int32).reshape(2, 3),
    "np_empty": np.zeros((0, 2)),
    "np_0d": np.array(1.5),
    "np_non_contiguous": np.arange(6)[::2],
    "np_complex": np.array([1j]),
    "np_datetime64": np.array(["2020-01-01T00:00:01.5", "1970-01-01"], dtype="datetime64[ms]"),
    "np_datetime64_scalar": np.datetime64("2021-06-15", "D"),
    "np_scalars": [np.int64(-1), np.uint8(255), np.float32(0.5), np.float16(0.25), np.bool_(True)],
    "np_float64_scalar": np.float64(2.5),
    "np_in_dict": {"a": np.arange(3)},
    # pydantic
    "pydantic": Model(name="n", when=NAIVE, tags=["t"]),
    "pydantic_extra": OpenModel(a=1, b=[2]),
    # Fragment and Ext, each library's own
    "fragment": PerLibrary(
        lambda lib, fmt: lib.Fragment(b'{"f":[1,2]}' if fmt == "json" else b"\x81\xa1f\x92\x01\x02")
    ),
    "fragment_nested": PerLibrary(lambda lib, fmt: {"k": [lib.Fragment(b"[]" if fmt == "json" else b"\x90")]}),
    "ext": PerLibrary(lambda lib, fmt: getattr(lib, "Ext", ormsgpack.Ext)(5, b"ext")),
    "ext_tag_out_of_range": PerLibrary(lambda lib, fmt: getattr(lib, "Ext", ormsgpack.Ext)(200, b"")),
    # a document of everything
    "mixed": {
        "when": [NAIVE, AWARE, dt.date(2020, 1, 1)],
        "ids": [uuid.UUID(int=i) for i in range(3)],
        "enums": [Color.RED, Level.LOW, Letter.A],
        "points": [Point(1, 1.0), Frozen(2, 3)],
        "od": collections.OrderedDict(z=1, y=MyDict(x=[MyInt(1), MyStr("s"), (1, 2)])),
    },
}


@dataclasses.dataclass(frozen=True)
class Deviation:
    fmt: str  # "json" or "msgpack"
    cases: tuple  # names in CORPUS
    reason: str
    when: tuple = ()  # shows when all of these flags are given ...
    unless: tuple = ()  # ... and none of these
    default: bool | None = None  # only with (True) / without (False) a default


SORTED_NON_STR = ("OPT_NON_STR_KEYS", "OPT_SORT_KEYS")

DEVIATIONS = [
    # --- deliberate, from the issue ---
    Deviation(
        "json",
        ("dataclass_extra_attribute",),
        "orjson writes attributes that are not fields; orcodec (like ormsgpack) writes only the fields",
        unless=("OPT_PASSTHROUGH_DATACLASS",),
    ),
    Deviation(
        "json",
        ("datetime_none_offset",),
        "a tzinfo whose utcoffset() is None: naive in orcodec (as in Python), +00:00 in orjson",
        unless=("OPT_PASSTHROUGH_DATETIME", "OPT_NAIVE_UTC"),
    ),
    Deviation(
        "msgpack",
        ("datetime_none_offset",),
        "utcoffset() None is naive in orcodec; ormsgpack raises",
        unless=("OPT_PASSTHROUGH_DATETIME",),
    ),
    Deviation(
        "json",
        ("datetime_pytz_unlocalized",),
        "pytz zone attached without localize():"
        " orcodec writes Python's utcoffset() (LMT, +00:18), orjson the standard offset",
        unless=("OPT_PASSTHROUGH_DATETIME",),
    ),
    Deviation(
        "msgpack",
        ("datetime_pytz_unlocalized",),
        "pytz zone attached without localize():"
        " orcodec writes Python's utcoffset() (LMT), ormsgpack the standard offset",
        unless=("OPT_PASSTHROUGH_DATETIME",),
    ),
    Deviation(
        "json", ("np_0d",), "a 0-d array is its value in orcodec; orjson refuses it", when=("OPT_SERIALIZE_NUMPY",)
    ),
    Deviation(
        "msgpack",
        ("np_0d",),
        "a 0-d array is its value in orcodec; ormsgpack refuses it",
        when=("OPT_SERIALIZE_NUMPY",),
    ),
    Deviation(
        "msgpack",
        (
            "dict",
            "dict_subclass",
            "ordereddict",
            "defaultdict",
            "typeddict",
            "int_keys",
            "mixed_keys",
            "nan_key",
            "date_keys",
            "enum_uuid_keys",
            "tuple_key",
            "bytes_key",
            "str_subclass_key",
            "datetimes_in_containers",
            "mixed",
            "fragment_nested",
        ),
        "OPT_NON_STR_KEYS with OPT_SORT_KEYS: orcodec sorts by the keys' JSON text, ormsgpack refuses the combination",
        when=SORTED_NON_STR,
    ),
    Deviation(
        "msgpack",
        ("np_in_dict",),
        "OPT_NON_STR_KEYS with OPT_SORT_KEYS: ormsgpack refuses the combination (without default both raise: "
        "the array is not serializable without OPT_SERIALIZE_NUMPY)",
        when=SORTED_NON_STR,
        default=True,
    ),
    # --- documented supersets (doc/types-and-flags.md) ---
    Deviation(
        "json",
        ("float_subclass",),
        "float subclasses are floats in orcodec; orjson does not serialize them",
        unless=("OPT_PASSTHROUGH_SUBCLASS",),
    ),
    Deviation(
        "msgpack",
        ("float_subclass",),
        "float subclasses are floats in orcodec; ormsgpack does not serialize them",
        unless=("OPT_PASSTHROUGH_SUBCLASS",),
    ),
    Deviation(
        "json",
        ("np_float64_scalar",),
        "numpy.float64 is a float subclass, a float in orcodec without OPT_SERIALIZE_NUMPY; orjson needs the flag",
        unless=("OPT_PASSTHROUGH_SUBCLASS", "OPT_SERIALIZE_NUMPY"),
    ),
    Deviation(
        "msgpack",
        ("np_float64_scalar",),
        "numpy.float64 is a float subclass, a float in orcodec without OPT_SERIALIZE_NUMPY; ormsgpack needs the flag",
        unless=("OPT_PASSTHROUGH_SUBCLASS", "OPT_SERIALIZE_NUMPY"),
    ),
    Deviation(
        "json",
        ("tuple_subclass", "namedtuple"),
        "tuple subclasses are arrays in orcodec; orjson does not serialize them",
        unless=("OPT_PASSTHROUGH_SUBCLASS",),
    ),
    Deviation(
        "msgpack",
        ("tuple_subclass", "namedtuple"),
        "tuple subclasses are arrays in orcodec; ormsgpack does not serialize them",
        unless=("OPT_PASSTHROUGH_SUBCLASS", "OPT_PASSTHROUGH_TUPLE"),
    ),
    Deviation(
        "msgpack",
        ("bytes_subclass", "bytearray_subclass"),
        "bytes and bytearray subclasses are bin in orcodec; ormsgpack does not serialize them",
        unless=("OPT_PASSTHROUGH_SUBCLASS",),
    ),
    Deviation(
        "json",
        ("str_subclass_key",),
        "str subclass keys are keys in orcodec; orjson raises 'Dict key must be str'",
        unless=("OPT_NON_STR_KEYS",),
    ),
    Deviation(
        "msgpack",
        ("str_subclass_key",),
        "str subclass keys are keys in orcodec; ormsgpack raises 'Dict key must be str' without OPT_NON_STR_KEYS",
        unless=("OPT_NON_STR_KEYS",),
    ),
    Deviation(
        "msgpack",
        ("surrogate_key",),
        "OPT_REPLACE_SURROGATES replaces in keys too; ormsgpack raises for a key",
        when=("OPT_REPLACE_SURROGATES",),
    ),
    # --- found by this suite ---
    Deviation(
        "json",
        ("dataclass_init_false",),
        "a field with init=False whose value is the class-level default is not in the instance __dict__: "
        "orjson leaves it out, orcodec (getattr, like ormsgpack) writes it",
        unless=("OPT_PASSTHROUGH_DATACLASS",),
    ),
    Deviation(
        "msgpack",
        ("datetime_offset", "datetime_big_fraction"),
        "ormsgpack 1.13 writes a timestamp with nanoseconds >= 2**29 in the 32-bit form, dropping the fraction "
        "(a bug); orcodec writes the 64-bit form the spec asks for",
        when=("OPT_DATETIME_AS_TIMESTAMP_EXT",),
        unless=("OPT_PASSTHROUGH_DATETIME",),
    ),
]


def _matching(fmt, case, names, with_default):
    return [
        d
        for d in DEVIATIONS
        if d.fmt == fmt
        and case in d.cases
        and all(f in names for f in d.when)
        and not any(f in names for f in d.unless)
        and (d.default is None or d.default == with_default)
    ]


def test_deviation_table_names_real_cases_and_flags():
    for d in DEVIATIONS:
        assert d.cases and set(d.cases) <= set(CORPUS), d
        flags = JSON_FLAGS if d.fmt == "json" else MSGPACK_FLAGS
        assert set(d.when) <= set(flags) and set(d.unless) <= set(flags), d
        assert d.reason


# --------------------------------------------------------------------------------------
# Running the same call against both
# --------------------------------------------------------------------------------------


def _default(obj):
    return f"default:{type(obj).__name__}"


def _outcome(call, obj, option, default, encode_error):
    try:
        return ("ok", call(obj, default=default, option=option))
    except encode_error:
        return ("raise", "encode error")
    except Exception as exc:  # noqa: BLE001 - the type is the outcome
        return ("raise", type(exc).__name__)


COMBINATIONS = {"json": JSON_COMBINATIONS, "msgpack": MSGPACK_COMBINATIONS}


def _objects(case, fmt):
    obj = CORPUS[case]
    if isinstance(obj, PerLibrary):
        return obj.make(orcodec, fmt.name), obj.make(fmt.peer, fmt.name)
    return obj, obj


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("case", list(CORPUS))
def test_same_as_peer(case, fmt):
    ours_obj, peer_obj = _objects(case, fmt)
    unexpected = []
    matched = set()
    for names in COMBINATIONS[fmt.name]:
        for default in (None, _default):
            ours = _outcome(fmt.encode, ours_obj, fmt.opts(names), default, fmt.encode_error)
            theirs = _outcome(fmt.peer_encode, peer_obj, fmt.peer_opts(names), default, fmt.peer_encode_error)
            deviations = _matching(fmt.name, case, names, default is not None)
            matched.update(deviations)
            if deviations:
                if ours == theirs:
                    unexpected.append(
                        f"listed deviation but the same: {names} default={default is not None}: {ours!r:.120}"
                    )
            elif ours != theirs:
                unexpected.append(
                    f"{names} default={default is not None}: orcodec {ours!r:.150} != peer {theirs!r:.150}"
                )
    listed = [d for d in DEVIATIONS if d.fmt == fmt.name and case in d.cases]
    unmatched = [d for d in listed if d not in matched]
    assert not unmatched, f"deviation entries that match no flag combination: {unmatched}"
    assert not unexpected, f"{len(unexpected)} differences:\n" + "\n".join(unexpected[:25])


# --------------------------------------------------------------------------------------
# Decoding: unpackb against ormsgpack.unpackb
# --------------------------------------------------------------------------------------

DECODE_CORPUS = {
    "timestamp32": b"\xd6\xff\x5e\x0b\xe1\x00",
    "timestamp64": b"\xd7\xff\x00\x00\x0f\xa1\xb0\x9e\x19\x00",
    "timestamp96": b"\xc7\x0c\xff\x00\x00\x00\x00\xff\xff\xff\xf1\x88\x6e\x09\x00",
    "timestamp96_negative": b"\xc7\x0c\xff\x00\x00\x03\xe8\xff\xff\xff\xff\xff\xff\xff\xff",
    "timestamp_bad_length": b"\xd5\xff\x00\x00",
    "timestamp_bad_nanoseconds": b"\xc7\x0c\xff\x3b\x9a\xca\x00\x00\x00\x00\x00\x00\x00\x00\x00",
    "timestamp_in_map": b"\x81\xa1t\xd6\xff\x00\x00\x00\x01",
    "timestamp_key": b"\x81\xd6\xff\x00\x00\x00\x01\x01",
    "ext": b"\xd4\x05\x01",
    "ext8": b"\xc7\x03\x7f" + b"abc",
    "ext_negative": b"\xd5\x80\x00\x01",
    "int_key": b"\x81\x01\xa1a",
    "nil_bool_keys": b"\x82\xc0\x01\xc3\x02",
    "float_key": b"\x81\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00\x01",
    "bin_key": b"\x81\xc4\x01k\x01",
    "array_key": b"\x81\x92\x01\x92\x02\xc4\x00\x01",
    "map_key": b"\x81\x81\x01\x02\x03",
    "str_keys": b"\x82\xa1b\x01\xa1a\x02",
    "nested": b"\x92\x81\x01\x91\x02\xd6\xff\x00\x00\x00\x00",
}
DECODE_OPTIONS = [
    (),
    ("OPT_NON_STR_KEYS",),
    ("OPT_DATETIME_AS_TIMESTAMP_EXT",),
    ("OPT_NON_STR_KEYS", "OPT_DATETIME_AS_TIMESTAMP_EXT"),
]

DECODE_DEVIATIONS = {
    # (case, options, with hook) -> reason
    (
        "timestamp_key",
        ("OPT_NON_STR_KEYS",),
        True,
    ): "an extension as map key: orcodec gives the ext_hook's result as key, ormsgpack refuses ext keys",
}


def _decode_outcome(call, data, option, hook, decode_error):
    try:
        kwargs = {"option": option}
        if hook is not None:
            kwargs["ext_hook"] = hook
        value = call(data, **kwargs)
        return ("ok", value, repr(value))
    except decode_error:
        return ("raise", "decode error")
    except Exception as exc:  # noqa: BLE001
        return ("raise", type(exc).__name__)


def _hook(tag, data):
    return ("hook", tag, data)


@pytest.mark.parametrize("case", list(DECODE_CORPUS))
def test_unpackb_same_as_ormsgpack(case):
    data = DECODE_CORPUS[case]
    unexpected = []
    for names in DECODE_OPTIONS:
        for hook in (None, _hook):
            ours = _decode_outcome(MSGPACK.decode, data, MSGPACK.opts(names), hook, MSGPACK.decode_error)
            theirs = _decode_outcome(
                MSGPACK.peer_decode, data, MSGPACK.peer_opts(names), hook, MSGPACK.peer_decode_error
            )
            key = (case, names, hook is not None)
            if key in DECODE_DEVIATIONS:
                if ours == theirs:
                    unexpected.append(f"listed deviation but the same: {key}")
            elif ours != theirs:
                unexpected.append(
                    f"{names} hook={hook is not None}: orcodec {ours!r:.150} != ormsgpack {theirs!r:.150}"
                )
    assert not unexpected, "\n".join(unexpected)


def test_decode_deviations_name_real_cases():
    for (case, names, _), reason in DECODE_DEVIATIONS.items():
        assert case in DECODE_CORPUS and names in DECODE_OPTIONS and reason


def test_round_trip_through_the_peer():
    # What orcodec writes, the peers read back to the same value, and the other way.
    doc = {"a": [1, 2.5, None, True, "s\u00e9"], "b": {"c": [], "d": {}}, "e": b"bin", "f": -(2**63), "g": 2**64 - 1}
    assert ormsgpack.unpackb(orcodec.packb(doc)) == doc
    assert orcodec.unpackb(ormsgpack.packb(doc)) == doc
    json_doc = {k: v for k, v in doc.items() if k != "e"}
    assert orjson.loads(orcodec.dumps(json_doc)) == json_doc
    assert orcodec.loads(orjson.dumps(json_doc)) == json_doc
    stamps = [AWARE, dt.datetime(1, 1, 1, tzinfo=UTC), dt.datetime(2200, 1, 1, tzinfo=UTC)]
    ts = orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT
    assert ormsgpack.unpackb(orcodec.packb(stamps, option=ts), option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT) == stamps
    assert orcodec.unpackb(ormsgpack.packb(stamps, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT), option=ts) == stamps


# --------------------------------------------------------------------------------------
# Decoding: loads against orjson.loads
# --------------------------------------------------------------------------------------

LOADS_CORPUS = {
    "literals": b"[null,true,false]",
    "numbers": b"[0,-0,1.5,-1e-7,1E2,-0.0,5e-324,1.7976931348623157e308]",
    "int_boundaries": b"[18446744073709551615,-9223372036854775808,9223372036854775807]",
    "ints_beyond_64_bits": b"[18446744073709551616,-9223372036854775809,123456789012345678901234567890]",
    "big_exponent": b"1e400",
    "negative_big_exponent": b"[-1e400]",
    "tiny": b"[1e-400,-1e-400]",
    "long_fraction": b"0." + b"0" * 400 + b"1",
    "strings": '["a","\\u00e9","\\ud83d\\ude00","\u4e2d","\\"\\\\\\/\\b\\f\\n\\r\\t"]'.encode(),
    "lone_surrogate_escape": b'["\\ud800"]',
    "invalid_utf8": b'["\xff"]',
    "overlong_utf8": b'["\xc0\x80"]',
    "encoded_surrogate": b'["\xed\xa0\x80"]',
    "byte_order_mark": b"\xef\xbb\xbf[1]",
    "control_character": b'["a\x01"]',
    "depth_1024": b"[" * 1024 + b"]" * 1024,
    "depth_1025": b"[" * 1025 + b"]" * 1025,
    "objects_1024_deep": b'{"a":' * 1023 + b"{}" + b"}" * 1023,
    "trailing_comma": b"[1,]",
    "trailing_data": b"[1] x",
    "leading_zero": b"01",
    "nan": b"NaN",
    "empty": b"",
    "whitespace": b' \t\r\n[1 , {"a" : 2}] \n',
    "repeated_keys": b'{"a":1,"b":2,"a":3}',
    "nested": b'{"a":[{"b":{"c":[1,2,{"d":null}]}}],"e":""}',
}
LOADS_DEVIATIONS = {
    "big_exponent": "a number beyond the doubles: inf in orcodec (as the stdlib), orjson raises (doc/json.md)",
    "negative_big_exponent": "a number beyond the doubles: -inf in orcodec (as the stdlib), orjson raises",
}


@pytest.mark.parametrize("case", list(LOADS_CORPUS))
def test_loads_same_as_orjson(case):
    # The value, or that both refuse the input (the messages are compared elsewhere).
    data = LOADS_CORPUS[case]
    ours, theirs = (outcome(call, data)[:2] for call in (orcodec.loads, orjson.loads))
    if case in LOADS_DEVIATIONS:
        assert ours[0] != theirs[0], f"listed deviation but the same: {ours!r:.100}"
        return
    assert ours[0] == theirs[0], f"orcodec {ours!r:.150} != orjson {theirs!r:.150}"
    if ours[0] == "ok":
        assert_strict_equal(ours[1], theirs[1])
    else:
        assert ours[1] is theirs[1] is ValueError


def test_loads_deviations_name_real_cases():
    assert set(LOADS_DEVIATIONS) <= set(LOADS_CORPUS) and all(LOADS_DEVIATIONS.values())


# --------------------------------------------------------------------------------------
# Encode error messages against the peer's
# --------------------------------------------------------------------------------------


def _self_referencing():
    items: list = []
    items.append(items)
    return items


# name -> (object, flags, default)
ERROR_CASES = {
    "unsupported_type": (Unsupported(), (), None),
    "non_str_key": ({1: 2}, (), None),
    "int_beyond_64_bits": ([2**64], (), None),
    "surrogate": (["a\ud800"], (), None),
    "surrogate_key": ({"k\udfff": 1}, (), None),
    "recursion": (_self_referencing(), (), None),
    "default_recursion": (Unsupported(), (), lambda o: Unsupported()),
    "time_with_tzinfo": (dt.time(1, tzinfo=UTC), (), None),
    "unsupported_non_str_key": ({frozenset(): 1}, ("OPT_NON_STR_KEYS",), None),
}
# Where orcodec's message is not the peer's: (format, case) -> the difference.
MESSAGE_DIFFERENCES = {
    ("msgpack", "unsupported_type"): "ormsgpack: 'Type is not msgpack serializable: Unsupported'; "
    "orcodec: 'Type is not MessagePack serializable: Unsupported'",
    ("msgpack", "surrogate"): "ormsgpack: 'string contains surrogates'; "
    "orcodec (orjson's words): 'str is not valid UTF-8: surrogates not allowed'",
    ("msgpack", "surrogate_key"): "ormsgpack: 'string contains surrogates'; "
    "orcodec (orjson's words): 'str is not valid UTF-8: surrogates not allowed'",
    ("msgpack", "default_recursion"): "ormsgpack: 'Recursion limit for default hook reached'; "
    "orcodec (orjson's words): 'default serializer exceeds recursion limit'",
    ("json", "unsupported_non_str_key"): "orjson: 'Dict key must a type serializable with OPT_NON_STR_KEYS'; "
    "orcodec: 'Dict key must be a type serializable with OPT_NON_STR_KEYS, not frozenset'",
    ("msgpack", "unsupported_non_str_key"): "ormsgpack: 'Dict key must a type serializable with OPT_NON_STR_KEYS'; "
    "orcodec: 'Dict key must be a type serializable with OPT_NON_STR_KEYS, not frozenset'",
}


def _message_params():
    params = []
    for fmt in FORMATS:
        for case in ERROR_CASES:
            reason = MESSAGE_DIFFERENCES.get((fmt.name, case))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(fmt, case, marks=marks, id=f"{fmt.name}-{case}"))
    return params


@pytest.mark.parametrize("fmt, case", _message_params())
def test_encode_error_message_same_as_peer(fmt, case):
    obj, names, default = ERROR_CASES[case]
    with pytest.raises(fmt.encode_error) as ours:
        fmt.encode(obj, default=default, option=fmt.opts(names))
    with pytest.raises(fmt.peer_encode_error) as theirs:
        fmt.peer_encode(obj, default=default, option=fmt.peer_opts(names))
    assert str(ours.value) == str(theirs.value)


def test_message_differences_name_real_cases():
    assert all(f in ("json", "msgpack") and c in ERROR_CASES and r for (f, c), r in MESSAGE_DIFFERENCES.items())

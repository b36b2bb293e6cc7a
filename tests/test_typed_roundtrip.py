"""Property tests: the encoders and the typed decoders are inverse. For generated types and
values of those types (every type dumps and packb write natively, and NamedTuples, which they
hand to default as orjson and ormsgpack do, through a default that writes them as arrays),
loads(dumps(v), type=T)
== v and unpackb(packb(v), type=T) == v, and convert(v, T) == v; a decode into a type
also equals msgspec's decode into it."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import itertools
import typing
import uuid
from typing import Any, NamedTuple, Optional

import msgspec
import orcodec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


_counter = itertools.count()

INTS = st.integers(min_value=-(2**63), max_value=2**64 - 1)
FLOATS = st.floats(allow_nan=False, allow_infinity=False)
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
ZONES = st.sampled_from(
    [None, dt.timezone.utc, dt.timezone(dt.timedelta(hours=5, minutes=30)), dt.timezone(dt.timedelta(hours=-8))]
)
DATETIMES = st.builds(
    lambda d, tz: d.replace(tzinfo=tz),
    st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30)),
    ZONES,
)

LEAVES: list[tuple[Any, st.SearchStrategy]] = [
    (bool, st.booleans()),
    (int, INTS),
    (float, FLOATS),
    (str, TEXT),
    (dt.datetime, DATETIMES),
    (dt.date, st.dates()),
    (dt.time, st.times()),
    (uuid.UUID, st.uuids()),
    (Color, st.sampled_from(Color)),
    (Level, st.sampled_from(Level)),
    (Any, st.recursive(st.none() | st.booleans() | INTS | FLOATS | TEXT, lambda c: st.lists(c, max_size=3))),
]


def leaf() -> st.SearchStrategy:
    return st.sampled_from(LEAVES)


def make_dataclass(fields: list[tuple[Any, st.SearchStrategy]], slots: bool) -> tuple[Any, st.SearchStrategy]:
    names = [f"f{i}" for i in range(len(fields))]
    cls = dataclasses.make_dataclass(
        f"Gen{next(_counter)}", [(n, tp) for n, (tp, _) in zip(names, fields)], slots=slots
    )
    return cls, st.builds(cls, *[s for _, s in fields])


def make_namedtuple(fields: list[tuple[Any, st.SearchStrategy]]) -> tuple[Any, st.SearchStrategy]:
    cls = NamedTuple(f"Tup{next(_counter)}", [(f"f{i}", tp) for i, (tp, _) in enumerate(fields)])
    return cls, st.builds(cls, *[s for _, s in fields])


def extend(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        children.map(lambda c: (list[c[0]], st.lists(c[1], max_size=4))),
        children.map(lambda c: (tuple[c[0], ...], st.lists(c[1], max_size=4).map(tuple))),
        st.lists(children, min_size=1, max_size=3).map(
            lambda cs: (tuple[tuple(c[0] for c in cs)], st.tuples(*[c[1] for c in cs]))
        ),
        children.map(lambda c: (dict[str, c[0]], st.dictionaries(TEXT, c[1], max_size=3))),
        children.map(lambda c: (Optional[c[0]], st.none() | c[1])),  # noqa: UP045 - Optional is under test
        st.tuples(st.lists(children, min_size=1, max_size=4), st.booleans()).map(lambda a: make_dataclass(*a)),
        st.lists(children, min_size=1, max_size=3).map(make_namedtuple),
    )


TYPES = st.recursive(leaf(), extend, max_leaves=6)


def as_array(obj: object) -> list:
    """default for NamedTuples (tuple subclasses go to default): their items as an array."""
    if isinstance(obj, tuple):
        return list(obj)
    raise TypeError


def dumps(value: object) -> bytes:
    return orcodec.dumps(value, default=as_array)


def packb(value: object) -> bytes:
    return orcodec.packb(value, default=as_array)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_roundtrip(data):
    tp, strategy = data.draw(TYPES)
    value = data.draw(strategy)
    assert orcodec.loads(dumps(value), type=tp) == value
    assert orcodec.unpackb(packb(value), type=tp) == value
    assert orcodec.convert(value, tp) == value
    decoder = orcodec.Decoder(tp)
    assert decoder.loads(dumps(value)) == value
    assert decoder.unpackb(packb(value)) == value


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_agrees_with_msgspec(data):
    tp, strategy = data.draw(TYPES)
    if "Tup" in repr(tp):
        return  # msgspec reads NamedTuples too, but repr-based types are enough here
    value = data.draw(strategy)
    text = dumps(value)
    assert orcodec.loads(text, type=tp) == msgspec.json.decode(text, type=tp)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_arbitrary_bytes_never_crash_and_agree_with_convert(blob):
    @dataclasses.dataclass
    class Small:
        a: int
        b: Optional[list[str]] = None  # noqa: UP045

    for tp in (Small, list[int], dict[str, float], typing.Union[int, str, None], uuid.UUID, dt.datetime):
        for decode, untyped in ((orcodec.loads, orcodec.loads), (orcodec.unpackb, orcodec.unpackb)):
            try:
                out = decode(blob, type=tp)
            except (orcodec.JSONDecodeError, orcodec.MsgpackDecodeError, orcodec.ValidationError):
                continue
            assert out == orcodec.convert(untyped(blob), tp)

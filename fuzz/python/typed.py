"""atheris: arbitrary bytes decoded into a fixed set of types, in both formats
(the first byte picks the type and the format). Never a crash; a decode
either raises the format's error (ValidationError included) or gives a
value equal to what convert() makes of the untyped decode of the same bytes.

For JSON the untyped view is the standard library's (integers beyond 64 bits
exact, as typed decoding reads them), with object keys read as ints for the
int-keyed dict, and Decimals compared by value as floats (a JSON number is
read exactly into a Decimal, but as a float when untyped)."""

import dataclasses
import datetime
import decimal
import enum
import json
import sys
import typing
import uuid

import atheris

with atheris.instrument_imports():
    import orcodec


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Address:
    street: str
    zip: int = 0
    email: typing.Optional[str] = None  # noqa: UP045


@dataclasses.dataclass(slots=True)
class Person:
    name: str
    age: typing.Annotated[int, "meta"] = 0
    addresses: typing.Optional[list[Address]] = None  # noqa: UP045
    tags: dict[str, float] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Cancel:
    kind: typing.Literal["cancel"]
    id: int


@dataclasses.dataclass
class Place:
    kind: typing.Literal["place"]
    id: int
    qty: int = 1


class Point(typing.NamedTuple):
    x: int
    y: float = 0.0


class Movie(typing.TypedDict):
    title: str
    year: int


@dataclasses.dataclass
class Record:
    """Leaf fields the class validator makes from their text itself."""

    id: uuid.UUID
    at: datetime.datetime
    day: datetime.date
    color: Color
    amount: decimal.Decimal
    kind: typing.Literal["a", 1] = "a"


@dataclasses.dataclass(slots=True)
class SlotRecord:
    id: uuid.UUID
    at: typing.Optional[datetime.datetime] = None  # noqa: UP045
    color: Color = Color.RED


@dataclasses.dataclass
class Node:
    value: int
    children: "list[Node]" = dataclasses.field(default_factory=list)


TYPES = [
    Person,
    list[Person],
    typing.Union[Cancel, Place],
    Point,
    Movie,
    Node,
    dict[int, Color],
    list[typing.Union[int, str, None]],
    tuple[uuid.UUID, datetime.datetime, datetime.date, datetime.time],
    list[decimal.Decimal],
    dict[str, typing.Any],
    typing.Optional[bytes],
    frozenset[int],
    typing.Literal["a", 1, True],
    list[Record],
    SlotRecord,
]
DECODERS = [orcodec.Decoder(t) for t in TYPES] + [orcodec.Decoder(t, strict=False) for t in TYPES]
ERRORS = (orcodec.JSONDecodeError, orcodec.MsgpackDecodeError)

# Keys and text the types above read, so generated documents reach their fields.
KEYS = ["name", "age", "addresses", "street", "zip", "tags", "kind", "id", "qty", "x", "y", "title", "year", "value"]
KEYS += ["children", "email", "1", "2", "a", "", "at", "day", "color", "amount"]
TEXTS = ["red", "blue", "cancel", "place", "a", "", "6f1c2b3a-9d4e-4f60-8a7b-0c1d2e3f4a5b", "2024-03-01T00:00:00Z"]
TEXTS += ["2024-03-01", "10:20:30.5", "1.10", "YWJj", "nan", "true", "1"]


def generate(fdp: atheris.FuzzedDataProvider, depth: int = 0):
    """A document of builtins shaped like what the types above read."""
    kind = fdp.ConsumeIntInRange(0, 9 if depth < 6 else 6)
    if kind == 0:
        return fdp.PickValueInList([None, True, False])
    if kind == 1:
        return fdp.ConsumeIntInRange(-(2**63), 2**64 - 1)
    if kind == 2:
        return fdp.ConsumeIntInRange(-3, 300)
    if kind == 3:
        return fdp.ConsumeFloat()
    if kind == 4:
        return fdp.PickValueInList(TEXTS)
    if kind == 5:
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 12))
    if kind == 6:
        return fdp.PickValueInList(KEYS)
    n = fdp.ConsumeIntInRange(0, 5)
    if kind == 7:
        return [generate(fdp, depth + 1) for _ in range(n)]
    return {fdp.PickValueInList(KEYS): generate(fdp, depth + 1) for _ in range(n)}


def outcome_kind(decoder, error) -> int:
    """Distinct branches per type and kind of failure, so that inputs reaching
    new failures (the native code is not instrumented) are kept in the corpus."""
    text = str(error)
    if text.startswith("Expected"):
        return 1
    if text.startswith("Object missing"):
        return 2
    if text.startswith("Invalid"):
        return 3
    if "nesting" in text:
        return 4
    if "unexpected" in text:
        return 5
    return 6


@atheris.instrument_func
def note(index: int, outcome: int) -> None:
    """One branch per decoder and per outcome: the native code is not
    instrumented, so these are what tells libFuzzer that an input reached a new
    type, format or kind of failure, and keeps it in the corpus."""
    if index == 0:
        pass
    if index == 1:
        pass
    if index == 2:
        pass
    if index == 3:
        pass
    if index == 4:
        pass
    if index == 5:
        pass
    if index == 6:
        pass
    if index == 7:
        pass
    if index == 8:
        pass
    if index == 9:
        pass
    if index == 10:
        pass
    if index == 11:
        pass
    if index == 12:
        pass
    if index == 13:
        pass
    if index == 14:
        pass
    if index == 15:
        pass
    if index == 16:
        pass
    if index == 17:
        pass
    if index == 18:
        pass
    if index == 19:
        pass
    if index == 20:
        pass
    if index == 21:
        pass
    if index == 22:
        pass
    if index == 23:
        pass
    if index == 24:
        pass
    if index == 25:
        pass
    if index == 26:
        pass
    if index == 27:
        pass
    if index == 28:
        pass
    if index == 29:
        pass
    if index == 30:
        pass
    if index == 31:
        pass
    if index == 32:
        pass
    if index == 33:
        pass
    if index == 34:
        pass
    if index == 35:
        pass
    if index == 36:
        pass
    if index == 37:
        pass
    if index == 38:
        pass
    if index == 39:
        pass
    if index == 40:
        pass
    if index == 41:
        pass
    if index == 42:
        pass
    if index == 43:
        pass
    if index == 44:
        pass
    if index == 45:
        pass
    if index == 46:
        pass
    if index == 47:
        pass
    if index == 48:
        pass
    if index == 49:
        pass
    if index == 50:
        pass
    if index == 51:
        pass
    if index == 52:
        pass
    if index == 53:
        pass
    if index == 54:
        pass
    if index == 55:
        pass
    if index == 56:
        pass
    if index == 57:
        pass
    if index == 58:
        pass
    if index == 59:
        pass
    if index == 60:
        pass
    if index == 61:
        pass
    if index == 62:
        pass
    if index == 63:
        pass
    if outcome == 0:
        pass
    if outcome == 1:
        pass
    if outcome == 2:
        pass
    if outcome == 3:
        pass
    if outcome == 4:
        pass
    if outcome == 5:
        pass
    if outcome == 6:
        pass
    if outcome == 7:
        pass


def is_nan(value) -> bool:
    return (isinstance(value, float) and value != value) or (isinstance(value, decimal.Decimal) and value.is_nan())


def equal(a, b) -> bool:
    """a == b, with NaN (float or Decimal) equal to NaN wherever it sits:
    each decode makes its own NaN objects, which == tells apart."""
    if is_nan(a) or is_nan(b):
        return type(a) is type(b) and is_nan(a) and is_nan(b)
    if type(a) is not type(b):
        return a == b
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if dataclasses.is_dataclass(a):
        return all(equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b


@atheris.instrument_func
def test_one_input(data: bytes) -> None:
    if not data:
        return
    pick, body = data[0], data[1:]
    decoder = DECODERS[pick % len(DECODERS)]
    msgpack = pick & 0x80 != 0
    if body[:1] == b"\x00":
        # Structured: a generated document, encoded, so that valid documents
        # reach deep into the types (arbitrary bytes are mostly refused early).
        value = generate(atheris.FuzzedDataProvider(body[1:]))
        try:
            body = orcodec.packb(value) if msgpack else orcodec.dumps(value)
        except (orcodec.JSONEncodeError, orcodec.MsgpackEncodeError):
            return
    decode = decoder.unpackb if msgpack else decoder.loads

    # MessagePack maps may have int keys (`dict[int, Color]`); untyped
    # `unpackb` reads them only when told to.
    def untyped(data: bytes):
        return orcodec.unpackb(data, option=orcodec.OPT_NON_STR_KEYS)

    try:
        out = decode(body)
    except ERRORS as error:
        note(pick % len(DECODERS) + len(DECODERS) * msgpack, outcome_kind(decoder, error))
        return
    note(pick % len(DECODERS) + len(DECODERS) * msgpack, 0)
    # Decoded: the untyped decoder reads the same bytes, and convert agrees.
    plain = untyped(body) if msgpack else json.loads(body)
    tp = decoder.type
    if not msgpack and tp == dict[int, Color]:
        plain = {int(k): v for k, v in plain.items()}
    expected = decoder.convert(plain)
    if not msgpack and tp == list[decimal.Decimal]:
        out, expected = [float(d) for d in out], [float(d) for d in expected]
    if not equal(out, expected):
        raise AssertionError(f"{decoder!r}: {out!r} != convert {expected!r}")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()

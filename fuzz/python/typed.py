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
]
DECODERS = [orcodec.Decoder(t) for t in TYPES] + [orcodec.Decoder(t, strict=False) for t in TYPES]
ERRORS = (orcodec.JSONDecodeError, orcodec.MsgpackDecodeError)


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
def test_one_input(data: bytes) -> None:
    if not data:
        return
    pick, body = data[0], data[1:]
    decoder = DECODERS[pick % len(DECODERS)]
    msgpack = pick & 0x80 != 0
    decode = decoder.unpackb if msgpack else decoder.loads
    untyped = orcodec.unpackb
    try:
        out = decode(body)
    except ERRORS as error:
        kind = outcome_kind(decoder, error)
        if kind == 1 and msgpack:
            return
        if kind == 2 and isinstance(error, orcodec.ValidationError):
            return
        return
    # Decoded: the untyped decoder reads the same bytes, and convert agrees.
    plain = untyped(body) if msgpack else json.loads(body)
    tp = decoder.type
    if not msgpack and tp == dict[int, Color]:
        plain = {int(k): v for k, v in plain.items()}
    expected = decoder.convert(plain)
    if not msgpack and tp == list[decimal.Decimal]:
        out, expected = [float(d) for d in out], [float(d) for d in expected]
    if out != expected and not (out != out and expected != expected):
        raise AssertionError(f"{decoder!r}: {out!r} != convert {expected!r}")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()

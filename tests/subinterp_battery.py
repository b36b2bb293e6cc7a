"""Every public function and class of orcodec, exercised once each: run in
the main interpreter and in subinterpreters by tests/test_subinterpreters.py,
which compares what each returned (byte-equal) and raised (type, message,
notes).

Kept free of anything a subinterpreter may not load: numpy and pydantic
(their extension modules refuse isolated interpreters) and zoneinfo (on
CPython 3.12 an isolated interpreter runs the pure-Python `datetime`,
which orcodec reads and makes too, and zoneinfo's C part needs the C one).
"""

import dataclasses
import datetime
import enum
import io
import sys
import typing
import uuid

import orcodec


@dataclasses.dataclass
class Point:
    x: int
    y: float
    tags: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(slots=True) if sys.version_info >= (3, 10) else dataclasses.dataclass
class Slotted:
    id: uuid.UUID
    name: str


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Movie(typing.TypedDict):
    title: str
    year: int


class Pair(typing.NamedTuple):
    left: int
    right: str


@orcodec.options(rename="camel", omit_none=True, forbid_unknown_fields=True)
@dataclasses.dataclass
class Renamed:
    order_id: int
    ship_to: typing.Optional[str] = None
    qty: typing.Annotated[int, orcodec.Name("n")] = 1


def outcome(call):
    """What `call()` gives: its result's repr, or its exception's type name,
    message and notes."""
    try:
        value = call()
    except Exception as e:  # noqa: BLE001 - every failure is part of the result
        return f"raised {type(e).__module__}.{type(e).__qualname__}: {e} {getattr(e, '__notes__', [])}"
    return f"{type(value).__name__}: {value!r}"


def battery():
    uid = uuid.UUID(int=0x1234567890ABCDEF1234567890ABCDEF)
    doc = {
        "ints": [0, -1, 2**63 - 1, -(2**63), 2**64 - 1],
        "floats": [0.5, -1e300, 3.141592653589793],
        "text": "caf\u00e9 \U0001f600 \u4e2d\u6587",
        "none": None,
        "bools": [True, False],
        "tuple": (1, "two"),
        "nested": {"a": {"b": [{"c": []}]}},
        "uuid": uid,
        "point": Point(1, 2.5, ["a"]),
        "slotted": Slotted(uid, "s"),
        "color": Color.RED,
        "level": Level.HIGH,
        "movie": Movie(title="t", year=1999),
    }
    results = {}

    def case(name, call):
        results[name] = outcome(call)

    o = orcodec
    tz = datetime.timezone(datetime.timedelta(hours=-5, minutes=-30))
    dt = datetime.datetime(2024, 2, 29, 23, 59, 58, 123456, tzinfo=tz)
    times = [dt, datetime.datetime(2000, 1, 1), datetime.date(1999, 12, 31), datetime.time(12, 0, 0, 5)]
    case("dumps datetimes", lambda: o.dumps(times, option=o.OPT_UTC_Z))
    case("dumps datetimes naive utc", lambda: o.dumps(times, option=o.OPT_NAIVE_UTC | o.OPT_OMIT_MICROSECONDS))
    case("packb datetimes", lambda: o.packb(times))
    case("packb timestamps", lambda: o.packb(dt, option=o.OPT_DATETIME_AS_TIMESTAMP_EXT))
    case("dumps time with tzinfo", lambda: o.dumps(datetime.time(1, tzinfo=tz)))
    case(
        "unpackb timestamps",
        lambda: o.unpackb(o.packb(dt, option=o.OPT_DATETIME_AS_TIMESTAMP_EXT), option=o.OPT_DATETIME_AS_TIMESTAMP_EXT),
    )
    case(
        "typed datetimes",
        lambda: o.loads(
            b'["2024-01-02T03:04:05.5+01:00", "2024-01-02", "10:11:12Z"]',
            type=tuple[datetime.datetime, datetime.date, datetime.time],
        ),
    )
    case("typed datetime error", lambda: o.loads(b'"2024-13-01T00:00:00"', type=datetime.datetime))
    case("convert datetime", lambda: o.convert(dt, datetime.datetime))
    case("typed timedeltas", lambda: o.loads(b'["P1DT2H3.5S", "-PT0.000001S"]', type=list[datetime.timedelta]))
    case("typed timedelta lax", lambda: o.unpackb(o.packb(1.5), type=datetime.timedelta, strict=False))
    case("convert timedelta", lambda: o.convert(datetime.timedelta(days=-1), datetime.timedelta))
    case("dumps", lambda: o.dumps(doc))
    case("dumps options", lambda: o.dumps(doc, option=o.OPT_SORT_KEYS | o.OPT_INDENT_2 | o.OPT_APPEND_NEWLINE))
    case("dumps non-str keys", lambda: o.dumps({1: "a", uid: "b", Color.BLUE: "c"}, option=o.OPT_NON_STR_KEYS))
    case("dumps default", lambda: o.dumps({"s": {1, 2}}, default=sorted))
    case("dumps unsupported", lambda: o.dumps({"x": [object.__new__(type("Opaque", (), {}))]}))
    case("dumps surrogate", lambda: o.dumps("\ud800"))
    case("dumps fragment", lambda: o.dumps([o.Fragment(b'{"raw":1}')]))
    case("packb", lambda: o.packb(doc))
    case("packb bytes and ext", lambda: o.packb([b"\x00\x01", bytearray(b"ba"), o.Ext(5, b"payload")]))
    case("packb numpy flag without numpy", lambda: o.packb([1, 2.0], option=o.OPT_SERIALIZE_NUMPY))
    case("loads", lambda: o.loads(o.dumps(doc)))
    case("loads str", lambda: o.loads('{"a": [1, 2.5, "x", null, true]}'))
    case("loads error", lambda: o.loads(b'{"a": 1,}'))
    case("unpackb", lambda: o.unpackb(o.packb(doc)))
    case("unpackb ext hook", lambda: o.unpackb(o.packb(o.Ext(3, b"xy")), ext_hook=lambda tag, data: (tag, data)))
    case("unpackb error", lambda: o.unpackb(b"\x92\x01"))
    case("unpackb trailing", lambda: o.unpackb(b"\x01\x02"))
    case("typed loads", lambda: o.loads(b'{"x": 1, "y": 2.5, "tags": ["q"]}', type=Point))
    case("typed loads slots", lambda: o.loads(o.dumps(Slotted(uid, "n")), type=Slotted))
    case("typed loads enum", lambda: o.loads(b'["red", "blue"]', type=list[Color]))
    case("typed loads typeddict", lambda: o.loads(b'{"title": "t", "year": 2000}', type=Movie))
    case("typed loads namedtuple", lambda: o.loads(b'[1, "r"]', type=Pair))
    case("typed loads error", lambda: o.loads(b'{"x": "no", "y": 1}', type=Point))
    case("typed unpackb", lambda: o.unpackb(o.packb({"x": 3, "y": 1.5}), type=Point))
    case("typed unpackb error", lambda: o.unpackb(o.packb({"x": 3}), type=Point))
    case("typed uuid", lambda: o.loads(b'"12345678-90ab-cdef-1234-567890abcdef"', type=uuid.UUID))
    case("typed dict int keys", lambda: o.loads(b'{"1": 2}', type=dict[int, int]))
    case("convert", lambda: o.convert({"x": 1, "y": 2.0}, Point))
    case("convert error", lambda: o.convert({"x": 1, "y": "nope"}, Point))
    decoder = o.Decoder(list[Point])
    case("decoder loads", lambda: decoder.loads(b'[{"x": 1, "y": 2}]'))
    case("decoder unpackb", lambda: decoder.unpackb(o.packb([{"x": 1, "y": 2}])))
    case("decoder convert", lambda: decoder.convert([{"x": 5, "y": 6}]))
    case("decoder loads partial", lambda: decoder.loads(b'[{"x": 1, "y": 2}, {"x": "no", "y": 3', partial=True))
    case("decoder loads pointer", lambda: decoder.loads(b'{"a": [{"x": 1, "y": 2}]}', pointer="/a"))
    case("decoder unpackb pointer", lambda: decoder.unpackb(o.packb({"a": [{"x": 1, "y": 2}]}), pointer="/a"))
    case("decoder repr", lambda: repr(decoder))

    def unpacker():
        u = o.Unpacker(max_buffer_size=1 << 20)
        u.feed(o.packb([1, 2]) + o.packb({"k": "v"})[:2])
        first = list(u)
        u.feed(o.packb({"k": "v"})[2:])
        return first, list(u), u.tell()

    case("unpacker", unpacker)
    case("unpacker file", lambda: list(o.Unpacker(io.BytesIO(o.packb(1) + o.packb("two")), read_size=3)))

    def unpacker_out_of_data():
        u = o.Unpacker()
        u.feed(b"\x92\x01")
        return u.unpack()

    case("unpacker out of data", unpacker_out_of_data)
    case("unpacker typed", lambda: list(o.Unpacker(io.BytesIO(o.packb({"x": 1, "y": 2})), type=Point)))
    packer = o.Packer(option=o.OPT_SORT_KEYS)
    case("packer", lambda: (packer.pack({"b": 1, "a": 2}), packer.pack_array_header(3), packer.pack_map_header(2)))
    case("dumps_lines", lambda: o.dumps_lines([{"a": 1}, [2], "three"]))
    case("loads_lines", lambda: o.loads_lines(b'{"a": 1}\n\n[2]\r\n"three"\n'))
    case("loads_lines error", lambda: o.loads_lines(b'{"a": 1}\n{"b": }\n'))
    case("iter_lines", lambda: list(o.iter_lines(io.BytesIO(b"1\n2\n[3]\n"), read_size=2)))
    case("iter_lines typed", lambda: list(o.iter_lines(io.BytesIO(b'{"x": 1, "y": 1}\n'), type=Point)))

    def files():
        json_file, msgpack_file = io.BytesIO(), io.BytesIO()
        o.dump(doc["nested"], json_file)
        o.pack(doc["nested"], msgpack_file)
        written = json_file.getvalue(), msgpack_file.getvalue()
        return written, o.load(io.BytesIO(written[0])), o.unpack(io.BytesIO(written[1]))

    case("files", files)
    case("json_to_msgpack", lambda: o.json_to_msgpack(o.dumps(doc)))
    case("json_to_msgpack error", lambda: o.json_to_msgpack(b"[1, 2"))
    case("msgpack_to_json", lambda: o.msgpack_to_json(o.packb(doc)))
    case("msgpack_to_json base64", lambda: o.msgpack_to_json(o.packb([b"\x00", o.Ext(1, b"z")]), base64=True))
    case("msgpack_to_json error", lambda: o.msgpack_to_json(b"\xc1"))
    case("counted", lambda: (o._orcodec._tally(o.dumps(doc)), o._orcodec._tally(o.packb(doc), option=0)))
    case("counted error", lambda: o._orcodec._tally(b"[1, 2"))
    case("ext", lambda: (o.Ext(1, b"x"), o.Ext(1, b"x") == o.Ext(1, b"x"), o.Ext(1, b"x").tag))
    case("fragment", lambda: o.Fragment("x").contents)
    case("exceptions", lambda: [c.__mro__[1].__name__ for c in (o.JSONDecodeError, o.MsgpackDecodeError)])
    # The modules and functions built on the core's private entry points.
    import orcodec.json as oj
    import orcodec.msgpack as om

    case("orcodec.json dumps", lambda: oj.dumps({"b": [1.5, None], "a": "caf\u00e9"}, indent=2, sort_keys=True))
    case("orcodec.json loads", lambda: oj.loads('{"a": [1, 2.5, "x", NaN]}'))
    case("orcodec.json error", lambda: oj.loads('{"a": }'))
    case("orcodec.msgpack packb", lambda: om.packb({"a": [1, 2.5, b"x"]}, use_single_float=True))
    case("orcodec.msgpack unpackb", lambda: om.unpackb(om.packb([1, {"k": b"v"}]), use_list=False, raw=True))

    def msgpack_unpacker():
        u = om.Unpacker()
        u.feed(om.packb([1, 2]) + om.packb("three")[:1])
        return list(u), u.tell()

    case("orcodec.msgpack Unpacker", msgpack_unpacker)
    case("loads partial", lambda: o.loads(b'{"a": [1, 2, {"b": "cut', partial="trailing-strings"))
    case("loads pointer", lambda: o.loads(o.dumps(doc), pointer="/nested/a/b/0"))
    case("unpackb pointer", lambda: o.unpackb(o.packb(doc), pointer="/ints/2"))
    case("loads pointer missing", lambda: o.loads(b'{"a": 1}', pointer="/b"))

    def json_unpacker():
        u = o.JSONUnpacker()
        u.feed(b'{"a": 1} [2] "th')
        first = list(u)
        u.feed(b'ree" 4')
        return first, list(u), u.tell()

    case("JSONUnpacker", json_unpacker)
    case("json_schema", lambda: o.json_schema(Point))
    case("dumps wire names", lambda: o.dumps([Renamed(1), Renamed(2, "x", 3)]))
    case("packb OPT_OMIT_DEFAULTS", lambda: o.packb(Point(1, 2.0), option=o.OPT_OMIT_DEFAULTS | o.OPT_OMIT_NONE))
    case("loads wire names", lambda: o.loads(b'{"orderId": 1, "n": 2}', type=Renamed))
    case("loads unknown field", lambda: o.loads(b'[{"orderId": 1, "order_id": 2}]', type=list[Renamed]))
    case("json_schema wire names", lambda: o.json_schema(Renamed))
    case("version", lambda: o.__version__)
    case("flags", lambda: sorted(o.flags) if hasattr(o, "flags") else None)
    return results

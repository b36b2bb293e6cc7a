"""Leaks: each entry point called CALLS times on success and on every error
path. Afterwards the objects it touched have their reference counts back,
CPython's allocated-block count is where it was (a leaked Python object
shows here), and the resident set has not grown (a leaked Rust allocation or
bytes buffer shows here: CALLS calls leaking 16 bytes each would be 1.6 MB).
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import gc
import io
import uuid

import msgpack
import numpy
import orcodec
import pytest
from helpers import Unsupported, assert_no_leak

CALLS = 100_000
# A call that ends in "default serializer exceeds recursion limit" runs
# default 254 times: 10 000 such calls are 2.5 million hook calls.
CHAIN_CALLS = 10_000
WARMUP = 2_000
# Slack for allocator noise (freelists, arenas, the key cache settling).
MAX_BLOCK_GROWTH = 100
MAX_RSS_GROWTH = 1 << 20


PIECES_JSON = b'{"a": [1, {"b": "text \\u00e9 and more"}], "c": [true, null]}'
PIECES_MSGPACK = orcodec.packb(orcodec.loads(PIECES_JSON))


class HookError(Exception):
    pass


def raising_hook(*args):
    raise HookError("from the hook")


def fresh_unsupported(obj):
    return Unsupported()


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class TypedRecord:
    id: uuid.UUID
    at: datetime.datetime
    color: Color
    items: list


TZ = datetime.timezone(datetime.timedelta(hours=2))
TYPED_OPTS = orcodec.OPT_SERIALIZE_NUMPY | orcodec.OPT_NON_STR_KEYS


class Container:
    """Objects whose reference counts are checked after the run."""

    def __init__(self):
        self.doc = {
            "id": 12345,
            "name": "naïve 中文 😀",
            "tags": ["a", "b", "c" * 40],
            "nested": {"f": 1.5, "n": None, "t": True, "big": 2**63, "neg": -(2**40)},
            "tuple": (1, "x"),
        }
        self.unsupported = Unsupported()
        self.json = orcodec.dumps(self.doc)
        self.msgpack = orcodec.packb(self.doc)
        self.self_ref: list = [1]
        self.self_ref.append(self.self_ref)
        # The native types of the type surface, all in one document.
        self.typed = {
            "record": TypedRecord(uuid.UUID(int=7), datetime.datetime(2024, 3, 1, 12, tzinfo=TZ), Color.RED, [1, 2]),
            "when": datetime.date(2024, 3, 1),
            "at": datetime.time(1, 2, 3, 4),
            "array": numpy.arange(12, dtype=numpy.float32).reshape(3, 4),
            "frag": orcodec.Fragment(b"[1]"),
            datetime.date(2024, 1, 1): 1,
        }
        self.typed_msgpack = orcodec.packb(
            [orcodec.Ext(3, b"ab"), datetime.datetime(2024, 3, 1, tzinfo=TZ)],
            option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT,
        )


OBJ = Container()
D, U = OBJ.doc, OBJ.unsupported
JSON_BAD = [
    b'[{"a":[1,2,"xyz",{"k":"v"}],"b":',  # truncated with values built
    b'{"k": "\xff"}',  # invalid UTF-8
    b'["\\ud800"]',  # lone surrogate escape
    b"[" * 1025 + b"]" * 1025,  # depth
    b'{"a":1,}',  # trailing comma
    b"[1,2,3] x",  # trailing data
]
MSGPACK_BAD = [
    OBJ.msgpack[:-3],  # truncated with values built
    b"\xdd\xff\xff\xff\xff\xc0",  # length bomb
    b"\x81\xa2\xc3\x28\x01",  # invalid UTF-8 key
    b"\x81\x01\x02",  # non-str key
    b"\x91" * 1025 + b"\xc0",  # depth
    b"\x92\x01\xc1",  # reserved byte
    OBJ.msgpack + b"\x00",  # trailing data
]
EXT = b"\x92\xa1x\xd4\x05\x00"  # [ "x", ext(5, b"\x00") ]
LONG_KEY = "k" * 100
REPEATED_KEYS_JSON = (
    '{"a": [1], "a": "' + "v" * 50 + f'", "a": {{"b": 2}}, "{LONG_KEY}": 1, "{LONG_KEY}": 2.5}}'
).encode()
REPEATED_KEYS_MSGPACK = b"\x85" + b"".join(
    msgpack.packb(k) + msgpack.packb(v)
    for k, v in [("a", [1]), ("a", "v" * 50), ("a", {"b": 2}), (LONG_KEY, 1), (LONG_KEY, 2.5)]
)


def growing_list_default():
    items = [U, 1]

    def default(obj):
        items.append(0)
        return None

    return items, default


@orcodec.options(rename="camel", omit_defaults=True, omit_none=True, forbid_unknown_fields=True)
@dataclasses.dataclass
class WireRecord:
    record_id: int
    note: str | None = None
    tags: list = dataclasses.field(default_factory=list)


@orcodec.options(rename=lambda name: "same")
@dataclasses.dataclass
class WireClash:
    a: int
    b: int


WIRE = [WireRecord(1), WireRecord(2, "n", ["t"]), TypedRecord(uuid.UUID(int=7), None, Color.RED, [])]
WIRE_OPTS = orcodec.OPT_OMIT_DEFAULTS | orcodec.OPT_OMIT_NONE


# name -> (call, expected exception or None[, number of calls[, warm-up calls]])
CASES = {
    # dumps
    "dumps-ok": (lambda: orcodec.dumps(D), None),
    "dumps-ok-typed": (lambda: orcodec.dumps(OBJ.typed, option=TYPED_OPTS), None),
    "packb-ok-typed": (
        lambda: orcodec.packb({k: v for k, v in OBJ.typed.items() if k != "frag"}, option=TYPED_OPTS),
        None,
    ),
    "unpackb-ok-ext-timestamp": (
        lambda: orcodec.unpackb(OBJ.typed_msgpack, ext_hook=orcodec.Ext, option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT),
        None,
    ),
    "dumps-ok-sorted-indented": (lambda: orcodec.dumps(D, option=orcodec.OPT_SORT_KEYS | orcodec.OPT_INDENT_2), None),
    "dumps-ok-default": (lambda: orcodec.dumps([U, D, U], default=repr), None),
    "dumps-unsupported": (lambda: orcodec.dumps([D, U]), orcodec.JSONEncodeError),
    "dumps-default-raises": (lambda: orcodec.dumps([D, U], default=raising_hook), orcodec.JSONEncodeError),
    "dumps-default-chain": (
        lambda: orcodec.dumps([D, U], default=fresh_unsupported),
        orcodec.JSONEncodeError,
        CHAIN_CALLS,
    ),
    "dumps-surrogate": (lambda: orcodec.dumps([D, "a\ud800"]), orcodec.JSONEncodeError),
    "dumps-big-int": (lambda: orcodec.dumps([D, 2**64]), orcodec.JSONEncodeError),
    "dumps-key-not-str": (lambda: orcodec.dumps({"a": D, 1: 2}), orcodec.JSONEncodeError),
    "dumps-recursion": (lambda: orcodec.dumps(OBJ.self_ref), orcodec.JSONEncodeError),
    "dumps-changed-size": (lambda: orcodec.dumps(*growing_list_default()), orcodec.JSONEncodeError),
    "dumps-bad-option": (lambda: orcodec.dumps(D, option=1 << 40), orcodec.JSONEncodeError),
    "dumps-bad-arguments": (lambda: orcodec.dumps(D, nonsense=1), TypeError),
    # packb
    "packb-ok": (lambda: orcodec.packb(D), None),
    "packb-ok-bin": (lambda: orcodec.packb([b"\x00" * 300, bytearray(b"ab"), memoryview(b"xyz")]), None),
    "packb-ok-sorted-indented": (lambda: orcodec.packb(D, option=orcodec.OPT_SORT_KEYS | orcodec.OPT_INDENT_2), None),
    "packb-ok-default": (lambda: orcodec.packb([U, D, U], default=repr), None),
    "packb-unsupported": (lambda: orcodec.packb([D, U]), orcodec.MsgpackEncodeError),
    "packb-default-raises": (lambda: orcodec.packb([D, U], default=raising_hook), orcodec.MsgpackEncodeError),
    "packb-default-chain": (
        lambda: orcodec.packb([D, U], default=fresh_unsupported),
        orcodec.MsgpackEncodeError,
        CHAIN_CALLS,
    ),
    "packb-surrogate": (lambda: orcodec.packb({"a\ud800": D}), orcodec.MsgpackEncodeError),
    "packb-big-int": (lambda: orcodec.packb([D, -(2**64)]), orcodec.MsgpackEncodeError),
    "packb-key-not-str": (lambda: orcodec.packb({"a": D, 1: 2}), orcodec.MsgpackEncodeError),
    "packb-recursion": (lambda: orcodec.packb(OBJ.self_ref), orcodec.MsgpackEncodeError),
    "packb-changed-size": (lambda: orcodec.packb(*growing_list_default()), orcodec.MsgpackEncodeError),
    "packb-buffer-error": (lambda: orcodec.packb([D, memoryview(b"abcd")[::2]]), orcodec.MsgpackEncodeError),
    "packb-bad-option": (lambda: orcodec.packb(D, option=1 << 40), orcodec.MsgpackEncodeError),
    "packb-bad-arguments": (lambda: orcodec.packb(D, nonsense=1), TypeError),
    # loads
    "loads-ok": (lambda: orcodec.loads(OBJ.json), None),
    "loads-ok-str": (lambda: orcodec.loads('{"k": ["é", 1.5, null]}'), None),
    "loads-ok-memoryview": (lambda: orcodec.loads(memoryview(OBJ.json)), None),
    # A repeated key releases the value it replaces (and a long key, past the key cache, itself).
    "loads-ok-repeated-keys": (lambda: orcodec.loads(REPEATED_KEYS_JSON), None),
    **{
        f"loads-error-{i}": (lambda data=data: orcodec.loads(data), orcodec.JSONDecodeError)
        for i, data in enumerate(JSON_BAD)
    },
    "loads-error-str-surrogate": (lambda: orcodec.loads('["\ud800"]'), orcodec.JSONDecodeError),
    "loads-error-type": (lambda: orcodec.loads(12), orcodec.JSONDecodeError),
    # unpackb
    "unpackb-ok": (lambda: orcodec.unpackb(OBJ.msgpack), None),
    "unpackb-ok-memoryview": (lambda: orcodec.unpackb(memoryview(OBJ.msgpack)), None),
    "unpackb-ok-repeated-keys": (lambda: orcodec.unpackb(REPEATED_KEYS_MSGPACK), None),
    **{
        f"unpackb-error-{i}": (lambda data=data: orcodec.unpackb(data), orcodec.MsgpackDecodeError)
        for i, data in enumerate(MSGPACK_BAD)
    },
    "unpackb-ext-without-hook": (lambda: orcodec.unpackb(EXT), orcodec.MsgpackDecodeError),
    # The hook's HookError becomes the decode error's __cause__.
    "unpackb-ext-hook-raises": (lambda: orcodec.unpackb(EXT, ext_hook=raising_hook), orcodec.MsgpackDecodeError),
    "unpackb-ext-hook-ok": (lambda: orcodec.unpackb(EXT, ext_hook=lambda tag, data: (tag, data)), None),
    "unpackb-bad-option": (lambda: orcodec.unpackb(OBJ.msgpack, option=1 << 40), orcodec.MsgpackDecodeError),
    "unpackb-error-type": (lambda: orcodec.unpackb("text"), orcodec.MsgpackDecodeError),
    # wire names and defaults
    "dumps-ok-wire": (lambda: orcodec.dumps(WIRE, option=WIRE_OPTS), None),
    "packb-ok-wire": (lambda: orcodec.packb(WIRE, option=WIRE_OPTS), None),
    # Each call runs the failing policy's Python code again (nothing is cached): the
    # interpreter's own allocations settle over some 50 000 calls of it (then none grow).
    "dumps-wire-policy-fails": (
        lambda: orcodec.dumps([D, WireClash(1, 2)]),
        orcodec.JSONEncodeError,
        50_000,
        50_000,
    ),
    "loads-wire-unknown-field": (
        lambda: orcodec.loads(b'[{"recordId": 1}, {"recordId": 2, "record_id": 3}]', type=list[WireRecord]),
        orcodec.ValidationError,
    ),
}

# Streams, JSON Lines and the transcoders: fewer calls, each does several things.
STREAM_CALLS = 20_000
STREAM = OBJ.msgpack * 3
JSON_LINES = OBJ.json + b"\n" + OBJ.json + b"\r\n\n" + OBJ.json


def unpack_all(*pieces, **kwargs):
    unpacker = orcodec.Unpacker(**kwargs)
    for piece in pieces:
        unpacker.feed(piece)
    return list(unpacker)


def unpack_next(data, **kwargs):
    unpacker = orcodec.Unpacker(**kwargs)
    unpacker.feed(data)
    return unpacker.unpack()


CASES.update(
    {
        name: (*case, STREAM_CALLS)
        for name, case in {
            "unpacker-ok-pieces": (lambda: unpack_all(STREAM[:50], STREAM[50:]), None),
            "unpacker-ok-file-like": (lambda: list(orcodec.Unpacker(io.BytesIO(STREAM), read_size=64)), None),
            "unpacker-ok-typed": (lambda: unpack_all(STREAM, type=dict), None),
            "unpacker-ok-skip": (lambda: orcodec.Unpacker(io.BytesIO(STREAM)).skip(), None),
            "unpacker-error": (lambda: unpack_next(MSGPACK_BAD[2] + STREAM), orcodec.MsgpackDecodeError),
            "unpacker-error-typed": (lambda: unpack_next(STREAM, type=list), orcodec.ValidationError),
            "unpacker-ext-hook-raises": (
                lambda: unpack_next(EXT, ext_hook=raising_hook),
                orcodec.MsgpackDecodeError,
            ),
            "unpacker-out-of-data": (lambda: unpack_next(OBJ.msgpack[:-1]), orcodec.OutOfData),
            "unpacker-buffer-full": (lambda: unpack_all(STREAM, max_buffer_size=10), orcodec.BufferFull),
            "packer-ok": (lambda: orcodec.Packer(default=repr).pack([D, U]), None),
            "packer-unsupported": (lambda: orcodec.Packer().pack([D, U]), orcodec.MsgpackEncodeError),
            "dumps_lines-ok": (lambda: orcodec.dumps_lines([D, D, [U]], default=repr), None),
            "dumps_lines-unsupported": (lambda: orcodec.dumps_lines([D, U]), orcodec.JSONEncodeError),
            "loads_lines-ok": (lambda: orcodec.loads_lines(JSON_LINES), None),
            "loads_lines-error": (
                lambda: orcodec.loads_lines(JSON_LINES + b"\n" + JSON_BAD[0]),
                orcodec.JSONDecodeError,
            ),
            "loads_lines-error-typed": (lambda: orcodec.loads_lines(JSON_LINES, type=list), orcodec.ValidationError),
            "iter_lines-ok": (lambda: list(orcodec.iter_lines(io.BytesIO(JSON_LINES), read_size=64)), None),
            "iter_lines-error": (
                lambda: list(orcodec.iter_lines(io.BytesIO(JSON_LINES + b"\n" + JSON_BAD[1]))),
                orcodec.JSONDecodeError,
            ),
            "json_to_msgpack-ok": (lambda: orcodec.json_to_msgpack(REPEATED_KEYS_JSON), None),
            "json_to_msgpack-error": (lambda: orcodec.json_to_msgpack(JSON_BAD[0]), orcodec.JSONDecodeError),
            "json_to_msgpack-two-step": (
                lambda: orcodec.json_to_msgpack(b"[" * 300 + b"]" * 300),
                orcodec.MsgpackEncodeError,
            ),
            "msgpack_to_json-ok": (lambda: orcodec.msgpack_to_json(OBJ.msgpack, option=orcodec.OPT_SORT_KEYS), None),
            "msgpack_to_json-error": (lambda: orcodec.msgpack_to_json(MSGPACK_BAD[0]), orcodec.MsgpackDecodeError),
            "msgpack_to_json-bin": (lambda: orcodec.msgpack_to_json(b"\xc4\x01x"), orcodec.JSONEncodeError),
            "msgpack_to_json-base64": (lambda: orcodec.msgpack_to_json(EXT, base64=True), None),
            "loads-partial-ok": (lambda: orcodec.loads(PIECES_JSON[:-9], partial="trailing-strings"), None),
            "loads-partial-error": (lambda: orcodec.loads(b'[1, "a\\x', partial=True), orcodec.JSONDecodeError),
            "loads-partial-typed-error": (
                lambda: orcodec.loads(b'[1, "x', type=list[int], partial="trailing-strings"),
                orcodec.ValidationError,
            ),
            "loads-pointer-ok": (lambda: orcodec.loads(PIECES_JSON, pointer="/a/1/b"), None),
            "loads-pointer-missing": (lambda: orcodec.loads(PIECES_JSON, pointer="/a/5"), orcodec.JSONDecodeError),
            "unpackb-pointer-ok": (lambda: orcodec.unpackb(PIECES_MSGPACK, pointer="/a/1"), None),
            "unpackb-pointer-missing": (
                lambda: orcodec.unpackb(PIECES_MSGPACK, pointer="/a/1/c"),
                orcodec.MsgpackDecodeError,
            ),
            "JSONUnpacker": (lambda: list(json_unpacker_run()), None, 20_000),
        }.items()
    }
)


def json_unpacker_run():
    unpacker = orcodec.JSONUnpacker()
    unpacker.feed(PIECES_JSON[:7])
    yield from unpacker
    unpacker.feed(PIECES_JSON[7:] + b" [1] {")
    yield from unpacker


def tracked() -> list:
    """Everything a case touches whose reference count must come back."""
    return [
        OBJ.doc,
        OBJ.typed,
        OBJ.typed_msgpack,
        OBJ.unsupported,
        OBJ.json,
        OBJ.msgpack,
        OBJ.self_ref,
        raising_hook,
        fresh_unsupported,
        repr,
        *OBJ.doc.values(),
        *JSON_BAD,
        *MSGPACK_BAD,
        EXT,
        REPEATED_KEYS_JSON,
        REPEATED_KEYS_MSGPACK,
        HookError,
        orcodec.JSONEncodeError,
        orcodec.MsgpackEncodeError,
        orcodec.JSONDecodeError,
        orcodec.MsgpackDecodeError,
    ]


@pytest.fixture(scope="module", autouse=True)
def frozen_suite_objects():
    """Move what the rest of the suite left alive out of the collector's way: millions of
    calls here run many full collections, which would otherwise walk all of it (the
    cases then took twice as long late in a full run as on their own)."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_leak(name):
    call, expected, *counts = CASES[name]
    calls = counts[0] if counts else CALLS
    warmup = counts[1] if len(counts) > 1 else WARMUP

    assert_no_leak(
        name, call, expected, tracked, calls=calls, warmup=warmup, max_blocks=MAX_BLOCK_GROWTH, max_rss=MAX_RSS_GROWTH
    )


def test_collector_sees_what_instances_hold():
    """Each collected class reports its references and its type to the cyclic
    collector, so a cycle through any of them is freed."""

    def hook(obj):
        return obj

    def read(size):
        return b""

    target = list[int]
    instances = [
        (orcodec.Decoder(target, dec_hook=hook), [target, hook]),
        (orcodec.Packer(default=hook), [hook]),
        (orcodec.Unpacker(io.BytesIO(b""), ext_hook=hook), [hook]),
        (orcodec.iter_lines(io.BytesIO(b"")), []),
    ]
    for obj, held in instances:
        referents = gc.get_referents(obj)
        assert type(obj) in referents, type(obj)
        for ref in held:
            assert any(r is ref for r in referents), (type(obj), ref)
    # A cycle through a Decoder's dec_hook is collected.
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(100):
        box = []
        decoder = orcodec.Decoder(list[int], dec_hook=box.append)
        box.append(decoder)
        del box, decoder
    gc.collect()
    assert len(gc.get_objects()) - before < 50

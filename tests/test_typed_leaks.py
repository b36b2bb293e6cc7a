"""Leaks in typed decoding: every typed entry point called many times on success and on
every failure path (validation errors, malformed input, hooks that raise, depth). The
objects involved get their reference counts back, CPython's allocated-block count and the
resident set do not grow."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import gc
import sys
import uuid
from typing import Literal, Optional, Union

import orcodec
import pytest
from helpers import assert_blocks_steady, assert_resident_set_steady, rss, slots_dataclass

CALLS = 30_000
WARMUP = 2_000
MAX_BLOCK_GROWTH = 100
MAX_RSS_GROWTH = 1 << 20


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Address:
    street: str
    zip: int = 0


@slots_dataclass
class Person:
    name: str
    at: datetime.datetime
    id: uuid.UUID
    color: Color
    amount: decimal.Decimal
    addresses: Optional[list[Address]] = None  # noqa: UP045
    tags: dict[str, float] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Checked:
    a: int

    def __post_init__(self):
        if self.a < 0:
            raise ValueError("negative")


@dataclasses.dataclass
class A:
    kind: Literal["a"]
    x: int


@dataclasses.dataclass
class B:
    kind: Literal["b"]
    y: int


class Custom:
    pass


def hook(tp, value):
    if value == "bad":
        raise TypeError("bad value")
    return Custom()


DOC = {
    "name": "n",
    "at": "2024-03-01T00:00:00+02:00",
    "id": "6f1c2b3a-9d4e-4f60-8a7b-0c1d2e3f4a5b",
    "color": "red",
    "amount": "1.10",
    "addresses": [{"street": "s", "zip": 1, "extra": [1, {"x": None}]}],
    "tags": {"t": 1.5},
}
JSON = orcodec.dumps(DOC)
MSGPACK = orcodec.packb(DOC)
BAD = {**DOC, "addresses": [{"street": "s", "zip": "x"}]}
BAD_JSON, BAD_MSGPACK = orcodec.dumps(BAD), orcodec.packb(BAD)
PERSON = orcodec.Decoder(Person)
TAGGED = orcodec.Decoder(Union[A, B])

CASES = {
    "loads-ok": (lambda: orcodec.loads(JSON, type=Person), None),
    "unpackb-ok": (lambda: orcodec.unpackb(MSGPACK, type=Person), None),
    "convert-ok": (lambda: orcodec.convert(DOC, Person), None),
    "decoder-ok": (lambda: PERSON.loads(JSON), None),
    "loads-invalid": (lambda: orcodec.loads(BAD_JSON, type=Person), orcodec.ValidationError),
    "unpackb-invalid": (lambda: orcodec.unpackb(BAD_MSGPACK, type=Person), orcodec.ValidationError),
    "convert-invalid": (lambda: orcodec.convert(BAD, Person), orcodec.ValidationError),
    "loads-malformed": (lambda: orcodec.loads(JSON[:-10], type=Person), orcodec.JSONDecodeError),
    "unpackb-malformed": (lambda: orcodec.unpackb(MSGPACK[:-10], type=Person), orcodec.MsgpackDecodeError),
    "loads-missing": (lambda: orcodec.loads(b'{"name": "n"}', type=Person), orcodec.ValidationError),
    "post-init-raises": (lambda: orcodec.loads(b'[{"a": 1}, {"a": -1}]', type=list[Checked]), orcodec.ValidationError),
    "dec-hook-ok": (lambda: orcodec.loads(b'["ok"]', type=list[Custom], dec_hook=hook), None),
    "dec-hook-raises": (
        lambda: orcodec.loads(b'["ok", "bad"]', type=list[Custom], dec_hook=hook),
        orcodec.ValidationError,
    ),
    "tagged-ok": (lambda: TAGGED.loads(b'{"y": 1, "kind": "b"}'), None),
    "tagged-invalid": (lambda: TAGGED.unpackb(orcodec.packb({"kind": "c"})), orcodec.ValidationError),
    "depth": (lambda: orcodec.loads(b"[" * 1100 + b"]" * 1100, type=list), orcodec.JSONDecodeError),
    "lax": (lambda: orcodec.loads(b'["1", "2.0", "true"]', type=tuple[int, int, bool], strict=False), None),
    "big-int": (lambda: orcodec.loads(b"[123456789012345678901234567890]", type=list[int]), None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_leak(name):
    call, expected = CASES[name]

    def once():
        if expected is None:
            call()
            return
        try:
            call()
        except expected:
            return
        raise AssertionError(f"{name} raised nothing")

    tracked = [DOC, JSON, MSGPACK, BAD, BAD_JSON, BAD_MSGPACK, hook, Person, Address, Checked, Color.RED, PERSON]
    for _ in range(WARMUP):
        once()
    gc.collect()
    refs = [sys.getrefcount(obj) for obj in tracked]
    blocks, resident = sys.getallocatedblocks(), rss()
    for _ in range(CALLS):
        once()
    gc.collect()
    assert [sys.getrefcount(obj) for obj in tracked] == refs
    growth = sys.getallocatedblocks() - blocks
    resident_growth = rss() - resident

    def run_calls():
        for _ in range(CALLS):
            once()

    assert_blocks_steady(growth, run_calls, MAX_BLOCK_GROWTH, CALLS)
    assert_resident_set_steady(resident_growth, run_calls, MAX_RSS_GROWTH, CALLS)

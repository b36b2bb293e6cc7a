"""Ints around the one-digit fast path (|x| < 2**30, read from the object on CPython 3.11-3.13) and the
64-bit limits encode like orjson / msgpack."""

import enum

import msgpack
import orcodec
import orjson

EDGES = [
    0,
    1,
    -1,
    2**30 - 1,
    2**30,
    -(2**30) + 1,
    -(2**30),
    -(2**30) - 1,
    2**31,
    2**53,
    -(2**53),
    2**63 - 1,
    -(2**63),
    2**64 - 1,
    127,
    128,
    -32,
    -33,
    255,
    256,
    65535,
    65536,
]


def test_edges_both_formats():
    assert orcodec.dumps(EDGES[:-1]) == orjson.dumps(EDGES[:-1])
    assert orcodec.dumps(EDGES) == str(EDGES).replace(" ", "").encode()
    assert orcodec.packb(EDGES) == msgpack.packb(EDGES)


def test_int_subclasses_and_computed_ints():
    class Big(int):
        pass

    class Level(enum.IntEnum):
        LOW = 1
        HIGH = 2**40

    values = [Big(5), Big(-(2**35)), Level.LOW, Level.HIGH, 10**6 * 3, -(10**9) // 7, True, False]
    assert orcodec.dumps(values) == orjson.dumps(values)
    assert orcodec.packb(values) == msgpack.packb(values)

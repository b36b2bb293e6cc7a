"""Round trips of builtin documents through each format, and interoperability with the
references (orjson; ormsgpack and msgpack-python) in both directions."""

from __future__ import annotations

import random
import struct

import orcodec
import pytest
from helpers import (
    INT_BOUNDARIES,
    JSON,
    LONG_STRINGS,
    MSGPACK,
    NON_FINITE_FLOATS,
    SPECIAL_FLOATS,
    STRING_KINDS,
    MyDict,
    MyInt,
    MyList,
    MyStr,
    assert_strict_equal,
    naughty_strings,
    nested_lists,
    nested_mixed,
    random_doubles,
)


def _random_document(rng: random.Random, depth: int = 0):
    choice = rng.randrange(12 if depth < 5 else 8)
    if choice == 0:
        return rng.choice([None, True, False])
    if choice == 1:
        return rng.choice(INT_BOUNDARIES)
    if choice == 2:
        return rng.randint(-(2**63), 2**64 - 1)
    if choice == 3:
        return rng.choice(SPECIAL_FLOATS)
    if choice == 4:
        return random_doubles(1, rng.randrange(2**32))[0]
    if choice in (5, 6):
        alphabet = 'ab\u00e9\u00ff\u4e2d\u2028\U0001f600\U0010ffff\x00\n"\\/\x7f'
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(40)))
    if choice == 7:
        return rng.choice(list(STRING_KINDS.values()))
    if choice in (8, 9):
        items = [_random_document(rng, depth + 1) for _ in range(rng.randrange(6))]
        return tuple(items) if rng.random() < 0.2 else items
    return {
        rng.choice(["a", "b", "key", "\u00e9", "\U0001f600", "", "x" * 40]) + str(i): _random_document(rng, depth + 1)
        for i in range(rng.randrange(6))
    }


CORPUS = {
    "none": None,
    "true": True,
    "false": False,
    "ints": INT_BOUNDARIES,
    "floats": SPECIAL_FLOATS + [-x for x in SPECIAL_FLOATS],
    "strings": list(STRING_KINDS.values()),
    "string_keys": {s: s for s in STRING_KINDS.values()},
    "long_strings": LONG_STRINGS,
    "empty_containers": [[], {}, [[]], [{}], {"a": []}, {"a": {}}],
    "tuples": (1, ("a", (None, ())), [(), (1.5,)]),
    "nested": {
        "a": [1, 2, {"b": [3, {"c": [4, {"d": "deep"}]}]}],
        "e": {"f": {"g": {"h": [None, True, False, -0.0, 5e-324]}}},
    },
    "deep_lists": nested_lists(254, innermost="x"),
    "deep_mixed": nested_mixed(254),
    "subclasses": [MyStr("s"), MyInt(7), MyDict(k=MyList([1])), {"k": MyStr("v")}],
    "wide_list": list(range(70_000)),
    "wide_dict": {f"key{i}": [i, str(i)] for i in range(5000)},
    "records": [
        {"id": i, "name": f"user \u00e9{i}", "score": i / 7, "tags": ["a", "\u4e2d"][: i % 3], "ok": i % 2 == 0}
        for i in range(500)
    ],
}


@pytest.mark.parametrize("name", CORPUS)
def test_roundtrip(fmt, name):
    doc = CORPUS[name]
    assert_strict_equal(fmt.decode(fmt.encode(doc)), fmt.plain(doc))


@pytest.mark.parametrize("name", CORPUS)
def test_reads_the_references_output(fmt, name):
    doc = CORPUS[name]
    data = fmt.reference(doc)
    assert_strict_equal(fmt.decode(data), fmt.reference_decode(data))


@pytest.mark.parametrize("name", CORPUS)
def test_the_references_read_our_output(fmt, name):
    doc = CORPUS[name]
    assert_strict_equal(fmt.reference_decode(fmt.encode(doc)), fmt.plain(doc))


@pytest.mark.parametrize("value", INT_BOUNDARIES, ids=str)
def test_int_boundaries_from_the_references(fmt, value):
    assert_strict_equal(fmt.decode(fmt.reference(value)), value)
    assert_strict_equal(fmt.decode(fmt.reference([value])), [value])


def test_msgpack_bytes_roundtrip():
    doc = {"b": b"\x00\xff", "ba": bytearray(b"xy"), "mv": memoryview(b"z" * 300), "e": b""}
    assert_strict_equal(
        orcodec.unpackb(orcodec.packb(doc)), {"b": b"\x00\xff", "ba": b"xy", "mv": b"z" * 300, "e": b""}
    )


def test_non_finite_floats(fmt):
    # JSON has no text for them: null.
    assert_strict_equal(fmt.decode(fmt.encode(NON_FINITE_FLOATS)), fmt.plain(NON_FINITE_FLOATS))
    assert fmt.plain(NON_FINITE_FLOATS) == ([None, None, None] if fmt is JSON else NON_FINITE_FLOATS)


@pytest.mark.parametrize("seed", range(4))
def test_random_doubles_roundtrip(fmt, seed):
    values = random_doubles(2000, 100 + seed)
    assert_strict_equal(fmt.decode(fmt.encode(values)), values)


@pytest.mark.parametrize("value", [-0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e-320])
def test_extreme_floats_roundtrip(fmt, value):
    out = fmt.same_as_reference(value)
    if fmt is MSGPACK:
        assert out == b"\xcb" + struct.pack(">d", value)
    assert struct.pack(">d", fmt.decode(out)) == struct.pack(">d", value)


@pytest.mark.parametrize("seed", range(20))
def test_random_documents(fmt, seed):
    rng = random.Random(seed)
    doc = [_random_document(rng) for _ in range(20)]
    out = fmt.same_as_reference(doc)
    assert_strict_equal(fmt.decode(out), fmt.plain(doc))


def test_naughty_strings_as_keys_and_values_round_trip(fmt):
    strings = [s for _, s in naughty_strings()]
    doc = {s: [s, {s: s}] for s in strings}
    assert fmt.decode(fmt.encode(doc)) == doc
    fmt.same_as_reference(doc)


def test_json_output_is_valid_utf8():
    doc = list(STRING_KINDS.values()) + list(LONG_STRINGS.values())
    orcodec.dumps(doc).decode("utf-8")

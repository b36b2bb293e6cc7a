"""Round trips of builtin documents through both formats, and interoperability with the
reference implementations (orjson, msgpack) in both directions."""

from __future__ import annotations

import random

import msgpack
import orcodec
import orjson
import pytest
from helpers import (
    INT_BOUNDARIES,
    LONG_STRINGS,
    NON_FINITE_FLOATS,
    SPECIAL_FLOATS,
    STRING_KINDS,
    MyDict,
    MyFloat,
    MyInt,
    MyList,
    MyStr,
    assert_strict_equal,
    json_plain,
    nested_lists,
    nested_mixed,
    random_doubles,
    to_plain,
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
    "subclasses": [MyStr("s"), MyInt(7), MyFloat(2.5), MyDict(k=MyList([1])), {"k": MyStr("v")}],
    "wide_list": list(range(70_000)),
    "wide_dict": {f"key{i}": [i, str(i)] for i in range(5000)},
    "records": [
        {"id": i, "name": f"user \u00e9{i}", "score": i / 7, "tags": ["a", "\u4e2d"][: i % 3], "ok": i % 2 == 0}
        for i in range(500)
    ],
}


@pytest.mark.parametrize("name", CORPUS)
def test_json_roundtrip(name):
    doc = CORPUS[name]
    assert_strict_equal(orcodec.loads(orcodec.dumps(doc)), json_plain(doc))


@pytest.mark.parametrize("name", CORPUS)
def test_msgpack_roundtrip(name):
    doc = CORPUS[name]
    assert_strict_equal(orcodec.unpackb(orcodec.packb(doc)), to_plain(doc))


@pytest.mark.parametrize("name", CORPUS)
def test_reads_orjson_output(name):
    doc = CORPUS[name]
    if name == "subclasses":
        doc = to_plain(doc)  # orjson does not serialize float subclasses
    data = orjson.dumps(doc)
    assert_strict_equal(orcodec.loads(data), orjson.loads(data))


@pytest.mark.parametrize("name", CORPUS)
def test_orjson_reads_our_output(name):
    doc = CORPUS[name]
    assert_strict_equal(orjson.loads(orcodec.dumps(doc)), json_plain(doc))


@pytest.mark.parametrize("name", CORPUS)
def test_reads_msgpack_output(name):
    doc = CORPUS[name]
    data = msgpack.packb(doc, use_bin_type=True)
    assert_strict_equal(orcodec.unpackb(data), msgpack.unpackb(data, raw=False))


@pytest.mark.parametrize("name", CORPUS)
def test_msgpack_reads_our_output(name):
    doc = CORPUS[name]
    assert_strict_equal(msgpack.unpackb(orcodec.packb(doc), raw=False), to_plain(doc))


def test_bytes_roundtrip_msgpack():
    doc = {"b": b"\x00\xff", "ba": bytearray(b"xy"), "mv": memoryview(b"z" * 300), "e": b""}
    assert_strict_equal(
        orcodec.unpackb(orcodec.packb(doc)), {"b": b"\x00\xff", "ba": b"xy", "mv": b"z" * 300, "e": b""}
    )


def test_non_finite_floats():
    assert_strict_equal(orcodec.loads(orcodec.dumps(NON_FINITE_FLOATS)), [None, None, None])
    assert_strict_equal(orcodec.unpackb(orcodec.packb(NON_FINITE_FLOATS)), NON_FINITE_FLOATS)


@pytest.mark.parametrize("seed", range(4))
def test_random_doubles_roundtrip(seed):
    values = random_doubles(2000, 100 + seed)
    assert_strict_equal(orcodec.loads(orcodec.dumps(values)), values)
    assert_strict_equal(orcodec.unpackb(orcodec.packb(values)), values)


@pytest.mark.parametrize("seed", range(20))
def test_random_documents(seed):
    rng = random.Random(seed)
    doc = [_random_document(rng) for _ in range(20)]
    json_text = orcodec.dumps(doc)
    assert_strict_equal(orcodec.loads(json_text), json_plain(doc))
    assert json_text == orjson.dumps(doc)
    packed = orcodec.packb(doc)
    assert_strict_equal(orcodec.unpackb(packed), to_plain(doc))
    assert packed == msgpack.packb(doc, use_bin_type=True)


def test_json_output_is_valid_utf8():
    doc = list(STRING_KINDS.values()) + list(LONG_STRINGS.values())
    orcodec.dumps(doc).decode("utf-8")

"""Decoded dicts are ordinary dicts in every respect: on CPython 3.11-3.13 the
decoders write a map's keys table directly (cpython/dict_table.rs), so these tests
check what CPython's own insertion would have guaranteed: every key found,
the dict still mutable and resizable, repeated keys resolved as insertion
resolves them, the same garbage-collector tracking, and the same size as a
dict literal of the same items."""

import ctypes
import gc
import json
import sys

import msgpack
import orcodec
import pytest

SIZES = [1, 2, 5, 6, 7, 10, 11, 16, 85, 86, 87, 170, 171, 1000, 21845, 21846, 100_000]


def both_decoders(d):
    """The dict decoded from JSON and from MessagePack."""
    return orcodec.loads(json.dumps(d)), orcodec.unpackb(msgpack.packb(d))


@pytest.mark.parametrize("n", SIZES)
def test_every_key_is_found_and_the_dict_stays_mutable(n):
    # Around each table size step (one-, two- and four-byte index tables),
    # with ASCII, two-byte and four-byte keys and long keys the key cache skips.
    reference = {
        f"{'é' if i % 3 == 1 else '😀' if i % 3 == 2 else ''}k{i}{'x' * (70 if i % 5 == 0 else 0)}": i for i in range(n)
    }
    for decoded in both_decoders(reference):
        assert decoded == reference
        assert list(decoded) == list(reference)
        assert all(decoded[key] == value for key, value in reference.items())
        assert "absent" not in decoded and decoded.get("k-1") is None
        # Grown past its table, entries deleted and replaced: only a
        # consistent table survives that.
        expected = dict(reference)
        for d in (decoded, expected):
            for i in range(n):
                d[f"new{i}"] = i
            for key in list(reference)[::2]:
                del d[key]
            d[next(iter(reference))] = "again"
        assert decoded == expected and list(decoded) == list(expected)


def test_repeated_keys_keep_the_first_position_and_the_last_value():
    long_key = "k" * 100  # past the key cache: each occurrence is its own str
    doc = f'{{"a": 1, "b": 2, "a": 3, "{long_key}": 4, "é": 5, "{long_key}": 6, "é": 7, "b": 8}}'
    expected = {"a": 3, "b": 8, long_key: 6, "é": 7}
    decoded = orcodec.loads(doc)
    assert decoded == expected and list(decoded) == list(expected) == list(json.loads(doc))
    # The same map as MessagePack (a dict cannot repeat a key, so by hand).
    pairs = [("a", 1), ("b", 2), ("a", 3), (long_key, 4), ("é", 5), (long_key, 6), ("é", 7), ("b", 8)]
    packed = b"\x88" + b"".join(msgpack.packb(k) + msgpack.packb(v) for k, v in pairs)
    decoded = orcodec.unpackb(packed)
    assert decoded == expected and list(decoded) == list(expected)


def test_repeated_keys_release_what_they_replace():
    # The replaced value and the repeated key are not leaked: a str value
    # made once per call would show in the allocated block count.
    doc = '{"a": "' + "v" * 200 + '", "a": "w", "' + "k" * 100 + '": 1, "' + "k" * 100 + '": 2}'
    for _ in range(1000):
        orcodec.loads(doc)
    gc.collect()
    blocks = sys.getallocatedblocks()
    for _ in range(10_000):
        orcodec.loads(doc)
    gc.collect()
    assert sys.getallocatedblocks() - blocks < 50


@pytest.mark.parametrize(
    "doc",
    [
        '{"a": 1}',
        '{"a": "x", "b": null, "c": 1.5, "d": true}',
        '{"a": []}',
        '{"a": {}}',
        '{"a": 1, "b": [1]}',
        '{"a": {"b": 1}}',
        "[{}]",
        "{}",
    ],
)
def test_gc_tracking_matches_insertion(doc):
    # A dict of atoms only stays untracked, as PyDict_SetItem leaves it.
    expected = json.loads(doc)
    for decoded in (orcodec.loads(doc), orcodec.unpackb(msgpack.packb(expected))):
        assert gc.is_tracked(decoded) == gc.is_tracked(expected)
        if isinstance(decoded, dict):
            for key in decoded:
                assert gc.is_tracked(decoded[key]) == gc.is_tracked(expected[key])


@pytest.mark.parametrize("n", range(0, 16))
def test_same_size_as_a_dict_literal(n):
    # A literal of up to 15 items is one BUILD_MAP, which presizes its table;
    # decoded dicts are sized the same way (and hold str keys as compactly).
    literal = eval("{" + ", ".join(f"'k{i}': {i}" for i in range(n)) + "}")
    for decoded in both_decoders(literal):
        assert sys.getsizeof(decoded) == sys.getsizeof(literal)


@pytest.mark.skipif(not (3, 11) <= sys.version_info[:2] <= (3, 13), reason="reads CPython 3.11-3.13's dict layout")
def test_the_shared_empty_table_keeps_its_reference_count():
    # Each map starts as PyDict_New's empty dict, whose shared empty table
    # counts references on 3.11 (swapping in the built table gives one back)
    # and is immortal from 3.12 (nothing to give back).
    def empty_table_refcount():
        table = ctypes.c_void_p.from_address(id({}) + 32).value  # PyDictObject.ma_keys
        return ctypes.c_ssize_t.from_address(table).value  # dk_refcnt

    # Other dicts come and go meanwhile, so the count may move a little;
    # a missed or doubled release would move it by the number of maps.
    before = empty_table_refcount()
    kept = [orcodec.loads('{"a": 1}') for _ in range(5000)] + [orcodec.unpackb(b"\x81\xa1a\x01") for _ in range(5000)]
    assert abs(empty_table_refcount() - before) < 100
    del kept
    assert abs(empty_table_refcount() - before) < 100

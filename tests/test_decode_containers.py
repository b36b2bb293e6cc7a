"""loads and unpackb build lists and dicts the same way (one set of object builders for
both readers): key order and repeated keys, the key cache, dicts that are ordinary dicts
in every respect (on CPython 3.11-3.13 the decoders write a map's keys table directly,
cpython/dict_table.rs), the garbage collector's state, the nesting limit, and decoder state kept
between calls. Each test runs once per format."""

from __future__ import annotations

import ctypes
import dataclasses
import gc
import json
import sys
import typing
import weakref

import msgpack
import orcodec
import pytest
from helpers import (
    JSON,
    assert_strict_equal,
    by_format,
    depth_of,
    fixmap,
    fixstr,
)


def _encoded(fmt, doc) -> bytes:
    """A builtin document as the references write it (orjson; ormsgpack and msgpack)."""
    return fmt.reference(doc)


# --------------------------------------------------------------------------------------
# Maps: order, repeated keys, keys as given
# --------------------------------------------------------------------------------------

JSON_REPEATED = [
    '{"a":1,"a":2}',
    '{"a":1,"b":2,"a":3}',
    '{"a":{"x":1},"a":[2]}',
    '{"a":1,"a":1}',
    '{"a":0,"a":-0}',
    '{"a":1,"b":2,"a":3,"b":4,"c":5}',
    '{"a":1,"b":2,"a":{"x":1},"a":[3]}',
]


class _Pairs(list):
    """A JSON object's members in order, repeats and all."""


def _msgpack_with_repeats(text: str) -> bytes:
    """The same document as MessagePack, repeated keys kept (a dict cannot hold them)."""

    def encode(value) -> bytes:
        if isinstance(value, _Pairs):
            assert len(value) < 16
            return fixmap([(encode(k), encode(v)) for k, v in value])
        if isinstance(value, list):
            return msgpack.packb([]) if not value else bytes([0x90 | len(value)]) + b"".join(map(encode, value))
        return msgpack.packb(value)

    return encode(json.loads(text, object_pairs_hook=_Pairs))


@pytest.mark.parametrize(
    "fmt, data",
    by_format(
        json=[text.encode() for text in JSON_REPEATED],
        msgpack=[_msgpack_with_repeats(text) for text in JSON_REPEATED]
        + [
            fixmap([(fixstr(b"a"), b"\x01"), (fixstr(b"b"), b"\x02"), (fixstr(b"a"), b"\x03")]),
            b"\x83\xa1a\x01\xa1b\x02\xa1a\x91\x03",  # {"a": 1, "b": 2, "a": [3]}
        ],
        ids=lambda data: data.decode() if data[:1] == b"{" else data.hex(),
    ),
)
def test_repeated_keys_last_value_first_position(fmt, data):
    # Like the stdlib and msgpack-python (Python's dict insertion): the first position,
    # the last value.
    expected = json.loads(data) if fmt is JSON else msgpack.unpackb(data)
    result = fmt.decode_every_input(data)
    assert_strict_equal(result, expected)
    assert list(result.items()) == list(expected.items())


def test_repeated_keys_keep_the_first_position_and_the_last_value(fmt):
    long_key = "k" * 100  # past the key cache: each occurrence is its own str
    pairs = [("a", 1), ("b", 2), ("a", 3), (long_key, 4), ("é", 5), (long_key, 6), ("é", 7), ("b", 8)]
    expected = {"a": 3, "b": 8, long_key: 6, "é": 7}
    if fmt is JSON:
        data = ("{" + ", ".join(f'"{k}": {v}' for k, v in pairs) + "}").encode()
        assert list(json.loads(data)) == list(expected)
    else:  # a dict cannot repeat a key: by hand
        data = b"\x88" + b"".join(msgpack.packb(k) + msgpack.packb(v) for k, v in pairs)
    decoded = fmt.decode(data)
    assert decoded == expected and list(decoded) == list(expected)


def test_repeated_keys_release_what_they_replace(fmt):
    # The replaced value and the repeated key are not leaked: a str value
    # made once per call would show in the allocated block count.
    pairs = [("a", "v" * 200), ("a", "w"), ("k" * 100, 1), ("k" * 100, 2)]
    if fmt is JSON:
        data = ("{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}").encode()
    else:
        data = b"\x84" + b"".join(msgpack.packb(k) + msgpack.packb(v) for k, v in pairs)
    assert fmt.decode(data) == dict(pairs)
    for _ in range(1000):
        fmt.decode(data)
    gc.collect()
    blocks = sys.getallocatedblocks()
    for _ in range(10_000):
        fmt.decode(data)
    gc.collect()
    assert sys.getallocatedblocks() - blocks < 50


def test_key_order_preserved(fmt):
    doc = {"z": 1, "a": 2, "m": 3, "\u00e9": 4, "": 5}
    assert list(fmt.decode_every_input(_encoded(fmt, doc))) == ["z", "a", "m", "\u00e9", ""]


def test_keys_are_not_normalized(fmt):
    # NFC "é" and NFD "e\u0301" are different keys.
    doc = {"\u00e9": "NFC", "e\u0301": "NFD"}
    assert_strict_equal(fmt.decode_every_input(_encoded(fmt, doc)), doc)


def test_key_cache_same_object(fmt):
    a, b = fmt.decode(fmt.encode([{"key": 1}, {"key": 2}]))
    (k1,) = a
    (k2,) = b
    assert k1 == "key"
    assert k1 is k2
    a, b = fmt.decode(_encoded(fmt, [{"key": 1}, {"key": 2}]))
    assert next(iter(a)) is next(iter(b))


def test_many_objects_same_keys(fmt):
    doc = [{"id": i, "name": f"n{i}", "tags": []} for i in range(1000)]
    result = fmt.decode(_encoded(fmt, doc))
    assert result == doc
    first_keys = list(result[0])
    for obj in result:
        for k1, k2 in zip(obj, first_keys):
            assert k1 is k2


@pytest.mark.parametrize("n", [15, 16, 65535, 65536, 70000])
def test_long_array_and_map(fmt, n):
    items = list(range(n))
    assert_strict_equal(fmt.decode_every_input(_encoded(fmt, items)), items)
    d = {f"k{i}": i for i in range(n)}
    assert_strict_equal(fmt.decode_every_input(_encoded(fmt, d)), d)


# --------------------------------------------------------------------------------------
# Decoded dicts are ordinary dicts
# --------------------------------------------------------------------------------------

SIZES = [1, 2, 5, 6, 7, 10, 11, 16, 85, 86, 87, 170, 171, 1000, 21845, 21846, 100_000]


@pytest.mark.parametrize("n", SIZES)
def test_every_key_is_found_and_the_dict_stays_mutable(fmt, n):
    # Around each table size step (one-, two- and four-byte index tables),
    # with ASCII, two-byte and four-byte keys and long keys the key cache skips.
    reference = {
        f"{'é' if i % 3 == 1 else '😀' if i % 3 == 2 else ''}k{i}{'x' * (70 if i % 5 == 0 else 0)}": i for i in range(n)
    }
    decoded = fmt.decode(_encoded(fmt, reference))
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
def test_gc_tracking_matches_insertion(fmt, doc):
    # A dict of atoms only stays untracked, as PyDict_SetItem leaves it.
    expected = json.loads(doc)
    decoded = fmt.decode(doc.encode() if fmt is JSON else msgpack.packb(expected))
    assert gc.is_tracked(decoded) == gc.is_tracked(expected)
    if isinstance(decoded, dict):
        for key in decoded:
            assert gc.is_tracked(decoded[key]) == gc.is_tracked(expected[key])


@pytest.mark.parametrize("n", range(0, 16))
def test_same_size_as_a_dict_literal(fmt, n):
    # A literal of up to 15 items is one BUILD_MAP, which presizes its table;
    # decoded dicts are sized the same way (and hold str keys as compactly).
    literal = eval("{" + ", ".join(f"'k{i}': {i}" for i in range(n)) + "}")
    assert sys.getsizeof(fmt.decode(_encoded(fmt, literal))) == sys.getsizeof(literal)


@pytest.mark.skipif(not (3, 11) <= sys.version_info[:2] <= (3, 13), reason="reads CPython 3.11-3.13's dict layout")
def test_the_shared_empty_table_keeps_its_reference_count(fmt):
    # Each map starts as PyDict_New's empty dict, whose shared empty table
    # counts references on 3.11 (swapping in the built table gives one back)
    # and is immortal from 3.12 (nothing to give back).
    def empty_table_refcount():
        table = ctypes.c_void_p.from_address(id({}) + 32).value  # PyDictObject.ma_keys
        return ctypes.c_ssize_t.from_address(table).value  # dk_refcnt

    # Other dicts come and go meanwhile, so the count may move a little;
    # a missed or doubled release would move it by the number of maps.
    data = _encoded(fmt, {"a": 1})
    before = empty_table_refcount()
    kept = [fmt.decode(data) for _ in range(5000)]
    assert abs(empty_table_refcount() - before) < 100
    del kept
    assert abs(empty_table_refcount() - before) < 100


# --------------------------------------------------------------------------------------
# The cyclic GC: large decodes pause it and must always restore its state
# --------------------------------------------------------------------------------------

BIG = [{"k": [i, str(i)], "n": None} for i in range(5000)]


@pytest.fixture
def gc_state():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_gc_state_restored_after_success_and_error(fmt, gc_state, enabled):
    data = _encoded(fmt, BIG)
    (gc.enable if enabled else gc.disable)()
    assert fmt.decode(data) == BIG
    assert gc.isenabled() is enabled
    with pytest.raises(fmt.decode_error):
        fmt.decode(data[:-1])
    assert gc.isenabled() is enabled


def test_decoded_containers_are_tracked(fmt, gc_state):
    gc.enable()
    value = fmt.decode(_encoded(fmt, BIG))
    assert gc.is_tracked(value) and gc.is_tracked(value[0]["k"])
    value.append(value)  # a cycle made later is still collectable
    del value
    gc.collect()


# Python code that a large decode calls runs with the collector as the caller had it:
# the pause is not seen, and a callback that turns the collector off keeps it off.


class _Point:
    pass


@dataclasses.dataclass
class _Seen:
    n: int
    tags: list = dataclasses.field(default_factory=lambda: _SEEN.append(("factory", gc.isenabled())) or [])

    def __post_init__(self):
        _SEEN.append(("post_init", gc.isenabled()))


_SEEN: list = []


def _big_with_exts() -> bytes:
    body = b"".join(b"\xd4\x05" + bytes([i % 256]) for i in range(20_000))  # fixext1, type 5
    return b"\xdd" + (20_000).to_bytes(4, "big") + body


@pytest.mark.parametrize("enabled", [True, False])
def test_callbacks_see_the_callers_collector(gc_state, enabled):
    (gc.enable if enabled else gc.disable)()
    seen = []

    def ext_hook(code, data):
        seen.append(("ext_hook", gc.isenabled()))
        return data[0]

    assert orcodec.unpackb(_big_with_exts(), ext_hook=ext_hook) == [i % 256 for i in range(20_000)]
    assert seen == [("ext_hook", enabled)] * 20_000

    def dec_hook(tp, value):
        seen.append(("dec_hook", gc.isenabled()))
        return _Point()

    seen.clear()
    text = orcodec.dumps([{"x": i} for i in range(5000)])
    assert len(text) >= 16 * 1024
    points = orcodec.loads(text, type=list[_Point], dec_hook=dec_hook)
    assert len(points) == 5000 and seen == [("dec_hook", enabled)] * 5000

    _SEEN.clear()
    text = orcodec.dumps([{"n": i} for i in range(5000)])
    assert [v.n for v in orcodec.loads(text, type=list[_Seen])] == list(range(5000))
    assert _SEEN == [("factory", enabled), ("post_init", enabled)] * 5000
    assert gc.isenabled() is enabled


def test_a_callback_that_turns_the_collector_off_keeps_it_off(gc_state):
    gc.enable()
    calls = []

    def ext_hook(code, data):
        calls.append(gc.isenabled())
        if len(calls) == 100:
            gc.disable()
        return data[0]

    orcodec.unpackb(_big_with_exts(), ext_hook=ext_hook)
    assert calls == [True] * 100 + [False] * 19_900
    assert gc.isenabled() is False


def test_a_decode_inside_a_callback_leaves_the_callers_collector(gc_state):
    gc.enable()
    inner = orcodec.packb(BIG)
    states = []

    def ext_hook(code, data):
        states.append(gc.isenabled())
        assert orcodec.unpackb(inner) == BIG  # itself a large, paused decode
        states.append(gc.isenabled())
        return None

    body = b"".join(b"\xd4\x05\x00" for _ in range(3)) + b"\x00" * (20 * 1024)
    data = b"\xdd" + (3 + 20 * 1024).to_bytes(4, "big") + body
    assert orcodec.unpackb(data, ext_hook=ext_hook) == [None] * 3 + [0] * (20 * 1024)
    assert states == [True] * 6
    assert gc.isenabled() is True


# While it holds the collector, a large untyped decode runs a collection of the youngest
# generation every 4096 containers it builds (with the collector as the caller had it),
# so that a large result is traversed in pieces while they are in cache.

YOUNG_COLLECTION_EVERY = 4096
LISTS = [[i] for i in range(10_000)]  # 10,001 containers


def _collections_during(call):
    """call()'s result and the (generation, collector on) of each collection it ran."""
    seen = []
    inside = [False]

    def callback(phase, info):
        if phase == "start" and inside[0]:
            seen.append((info["generation"], gc.isenabled()))

    gc.callbacks.append(callback)
    try:
        gc.collect()
        inside[0] = True
        result = call()
        inside[0] = False
    finally:
        gc.callbacks.remove(callback)
    return result, seen


def test_a_large_decode_collects_the_young_generation_as_it_builds(fmt, gc_state):
    gc.enable()
    data = _encoded(fmt, LISTS)
    value, seen = _collections_during(lambda: fmt.decode(data))
    assert value == LISTS
    assert seen == [(0, True)] * (10_001 // YOUNG_COLLECTION_EVERY)
    assert gc.isenabled() is True


def test_no_collection_runs_in_a_decode_when_the_collector_is_off(fmt, gc_state):
    gc.disable()
    data = _encoded(fmt, LISTS)
    assert _collections_during(lambda: fmt.decode(data)) == (LISTS, [])
    assert gc.isenabled() is False


def test_typed_decoding_leaves_collections_to_after_the_call(gc_state):
    # Its instances may be half-written when an untyped value is built.
    gc.enable()
    data = orcodec.dumps(LISTS)
    for tp in (list[list[int]], list[typing.Any]):
        orcodec.loads(data, type=tp)  # the type compiled (and its allocations) before
        assert _collections_during(lambda: orcodec.loads(data, type=tp)) == (LISTS, [])  # noqa: B023


def test_a_finalizer_run_by_a_young_collection_may_decode(fmt, gc_state):
    gc.enable()
    inner = _encoded(fmt, LISTS[:5000])  # itself a large decode, with a collection due
    decoded = []

    class Cycle:
        def __del__(self):
            decoded.append((fmt.decode(inner), gc.isenabled()))

    def garbage():
        for _ in range(3):
            c = Cycle()
            c.me = c

    data = _encoded(fmt, LISTS)

    def decode_after_garbage():
        garbage()  # in the youngest generation when the decode's first collection runs
        return fmt.decode(data)

    value, seen = _collections_during(decode_after_garbage)
    assert value == LISTS
    assert decoded == [(LISTS[:5000], True)] * 3
    assert seen[:2] == [(0, True), (0, True)]
    assert gc.isenabled() is True


# --------------------------------------------------------------------------------------
# Nesting: up to 1024 levels
# --------------------------------------------------------------------------------------


def _nested_json(depth: int, kind: str) -> bytes:
    if kind == "array":
        return b"[" * depth + b"]" * depth
    if kind == "object":
        return b'{"a":' * (depth - 1) + b"{}" + b"}" * (depth - 1)
    # mixed: alternate arrays and objects
    opens, closes = [], []
    for i in range(depth):
        if i % 2:
            opens.append(b'{"k":' if i < depth - 1 else b"{")
            closes.append(b"}")
        else:
            opens.append(b"[")
            closes.append(b"]")
    return b"".join(opens) + b"".join(reversed(closes))


def _nested_msgpack(depth: int, kind: str) -> bytes:
    """``depth`` nested one-element containers around an empty one (depth counts all)."""
    if kind == "fixmap":
        return b"\x81\xa1a" * (depth - 1) + b"\x80"
    if kind == "mixed":
        return b"".join(b"\x81\xa1k" if i % 2 else b"\x91" for i in range(depth - 1)) + (
            b"\x80" if (depth - 1) % 2 else b"\x90"
        )
    header = {"fixarray": b"\x91", "array16": b"\xdc\x00\x01", "array32": b"\xdd\x00\x00\x00\x01"}[kind]
    return header * (depth - 1) + b"\x90"


def _nested(fmt, depth: int, kind: str) -> bytes:
    return _nested_json(depth, kind) if fmt is JSON else _nested_msgpack(depth, kind)


NESTING_KINDS = by_format(
    json=["array", "object", "mixed"], msgpack=["fixarray", "array16", "array32", "fixmap", "mixed"], ids=str
)


@pytest.mark.parametrize("fmt, kind", NESTING_KINDS)
@pytest.mark.parametrize("depth", [1, 2, 100, 1023, 1024])
def test_depth_within_limit(fmt, kind, depth):
    assert depth_of(fmt.decode_every_input(_nested(fmt, depth, kind))) == depth


@pytest.mark.parametrize("fmt, kind", NESTING_KINDS)
@pytest.mark.parametrize("depth", [1025, 1026, 5000, 100_000])
def test_depth_beyond_limit(fmt, kind, depth):
    fmt.refuses_every_input(_nested(fmt, depth, kind))


@pytest.mark.parametrize(
    "fmt, ok, too_deep",
    by_format(
        # 1022 arrays around [1,"a",{}]: the {} is the 1024th level.
        json=[("[" * 1022 + '[1,"a",{}]' + "]" * 1022, "[" * 1023 + '[1,"a",{}]' + "]" * 1023)],
        msgpack=[(b"\x91" * 1022 + b"\x93\x01\xa1a\x80", b"\x91" * 1023 + b"\x93\x01\xa1a\x80")],
        ids=lambda _: "",
    ),
)
def test_depth_limit_with_values_inside(fmt, ok, too_deep):
    ok, too_deep = (x.encode() if isinstance(x, str) else x for x in (ok, too_deep))
    result = fmt.decode_every_input(ok)
    for _ in range(1022):
        (result,) = result
    assert_strict_equal(result, [1, "a", {}])
    fmt.refuses_every_input(too_deep)


@pytest.mark.parametrize(
    "fmt, data",
    by_format(
        json=[b"[" * 100_000, b'{"a":' * 100_000, b"[" * 100_000 + b"]" * 100_000],
        msgpack=[b"\x91" * 100_000, b"\xdd\xff\xff\xff\xff" * 100_000, b"\x91" * 100_000 + b"\x90"],
        ids=lambda data: f"{data[:6]!r}x{len(data)}",
    ),
)
def test_100000_open_containers(fmt, data):
    fmt.refuses_every_input(data)


def test_decoder_usable_after_depth_error(fmt):
    kind = "array" if fmt is JSON else "fixarray"
    with pytest.raises(fmt.decode_error):
        fmt.decode(_nested(fmt, 1025, kind))
    assert depth_of(fmt.decode(_nested(fmt, 1024, kind))) == 1024


# --------------------------------------------------------------------------------------
# Decoder state kept between calls
# --------------------------------------------------------------------------------------


class Payload:
    """What the ext_hook returns: a weakly referenceable object."""

    def __init__(self, data):
        self.data = data


def test_kept_stacks_after_errors_nesting_and_large_documents():
    # The decoders keep their stacks between calls (decode/mod.rs): a failed
    # decode must release what its unfinished containers held, a decode run
    # from inside another (ext_hook) must not share them, and a large
    # document must leave nothing behind for the next.
    refs = []

    def hook(tag, data):
        obj = Payload(data)
        refs.append(weakref.ref(obj))
        return obj

    truncated = msgpack.packb([[msgpack.ExtType(1, b"x"), msgpack.ExtType(2, b"y")], "tail"])[:-2]
    for _ in range(3):
        with pytest.raises(orcodec.MsgpackDecodeError):
            orcodec.unpackb(truncated, ext_hook=hook)
        with pytest.raises(orcodec.JSONDecodeError):
            orcodec.loads(b'[[{"a": [1, 2, "x"]}, "y"], [3')
    gc.collect()
    assert refs and all(r() is None for r in refs)

    inner_doc = msgpack.packb({"inner": [1, 2, {"k": "v"}]})

    def nesting_hook(tag, data):
        # Decodes of both formats while the outer one is half done.
        return (orcodec.unpackb(inner_doc), orcodec.loads(b'{"j": [true, null]}'), bytes(data))

    outer = msgpack.packb([1, {"e": msgpack.ExtType(5, b"z")}, [2, 3]])
    expected = [1, {"e": ({"inner": [1, 2, {"k": "v"}]}, {"j": [True, None]}, b"z")}, [2, 3]]
    for _ in range(3):
        assert orcodec.unpackb(outer, ext_hook=nesting_hook) == expected

    big = [[i, str(i)] for i in range(200_000)]
    assert orcodec.unpackb(msgpack.packb(big)) == big
    assert orcodec.loads(orcodec.dumps(big)) == big
    assert orcodec.unpackb(msgpack.packb({"a": [1]})) == {"a": [1]}
    assert orcodec.loads(b'{"a": [1]}') == {"a": [1]}

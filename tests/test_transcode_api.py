"""json_to_msgpack and msgpack_to_json: the bytes of the two-step (packb(loads(x)) and
dumps(unpackb(x), option=...)) on the fixtures and the conformance corpus, and the same
exception, message and position wherever the two-step raises."""

from __future__ import annotations

import datetime as dt
import random

import msgpack
import orcodec
import pytest
from helpers import DOCUMENTS, conformance_params, depth_of, fixture_bytes

FIXTURES = DOCUMENTS


def outcome(call, *args, **kwargs):
    """("ok", bytes) or ("raise", exception class, message, and a JSON error's position)."""
    try:
        return ("ok", call(*args, **kwargs))
    except (TypeError, ValueError) as e:
        where = (e.pos, e.lineno, e.colno, e.doc) if isinstance(e, orcodec.JSONDecodeError) else None
        return ("raise", type(e), str(e), where)


def json_two_step(data):
    return orcodec.packb(orcodec.loads(data))


# The flags of an option that unpackb takes (it refuses the others, as ormsgpack's does).
UNPACKB_FLAGS = orcodec.OPT_NON_STR_KEYS | orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT


def msgpack_two_step(data, option=None):
    read_option = None if option is None else option & UNPACKB_FLAGS
    return orcodec.dumps(orcodec.unpackb(data, ext_hook=orcodec.Ext, option=read_option), option=option)


@pytest.mark.parametrize("name", FIXTURES)
def test_json_to_msgpack_fixtures(name):
    data = fixture_bytes(f"{name}.json")
    out = orcodec.json_to_msgpack(data)
    assert out == json_two_step(data)
    assert orcodec.json_to_msgpack(data.decode()) == out
    assert orcodec.json_to_msgpack(memoryview(data)) == out


@pytest.mark.parametrize("name", FIXTURES)
@pytest.mark.parametrize(
    "option",
    [None, orcodec.OPT_SORT_KEYS, orcodec.OPT_INDENT_2, orcodec.OPT_APPEND_NEWLINE | orcodec.OPT_STRICT_INTEGER],
)
def test_msgpack_to_json_fixtures(name, option):
    packed = orcodec.packb(orcodec.loads(fixture_bytes(f"{name}.json")))
    # twitter's ids pass 2**53: OPT_STRICT_INTEGER refuses them, as dumps does.
    assert outcome(orcodec.msgpack_to_json, packed, option=option) == outcome(msgpack_two_step, packed, option)


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_round_trip_through_both(name):
    data = fixture_bytes(f"{name}.json")
    assert orcodec.msgpack_to_json(orcodec.json_to_msgpack(data)) == orcodec.dumps(orcodec.loads(data))


@pytest.mark.parametrize(
    "path", conformance_params("accept") + conformance_params("reject") + conformance_params("implementation")
)
def test_json_to_msgpack_conformance_corpus_same_as_two_step(path):
    data = path.read_bytes()
    assert outcome(orcodec.json_to_msgpack, data) == outcome(json_two_step, data)


@pytest.mark.parametrize("path", conformance_params("accept"))
def test_msgpack_to_json_conformance_corpus_same_as_two_step(path):
    data = path.read_bytes()
    first = outcome(orcodec.json_to_msgpack, data)
    assert first == outcome(json_two_step, data)
    if first[0] == "raise":
        # JSON may nest 1024 levels, MessagePack's writers 255 (as packb's).
        assert first[1:3] == (orcodec.MsgpackEncodeError, "Recursion limit reached")
        assert depth_of(orcodec.loads(data)) > 255
        return
    packed = first[1]
    for option in [None, orcodec.OPT_SORT_KEYS | orcodec.OPT_INDENT_2]:
        assert outcome(orcodec.msgpack_to_json, packed, option=option) == outcome(msgpack_two_step, packed, option)


@pytest.mark.parametrize("path", conformance_params("canonical"))
def test_roundtrip_files(path):
    data = path.read_bytes()
    packed = orcodec.json_to_msgpack(data)
    assert packed == json_two_step(data)
    assert orcodec.msgpack_to_json(packed) == msgpack_two_step(packed)


@pytest.mark.parametrize(
    "doc",
    [
        b'{"a": 1, "a": 2}',
        b'{"a": 1, "b": 2, "a": [3]}',
        b'{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k3":"x","k9":9}',
        b"[" + b",".join(b"%d" % i for i in range(70000)) + b"]",
        b"{" + b",".join(b'"%d":%d' % (i, i) for i in range(70000)) + b"}",
        b"[" * 255 + b"]" * 255,
        b"[" * 256 + b"]" * 256,
        b"[" * 1025 + b"]" * 1025,
        b"18446744073709551615",
        b"18446744073709551616",
        b"-9223372036854775809",
        b"1e400",
        b'"\\ud800"',
        b'"\\ud83d\\ude00"',
    ],
)
def test_json_to_msgpack_edge_documents(doc):
    assert outcome(orcodec.json_to_msgpack, doc) == outcome(json_two_step, doc)


def random_value(rng, depth=0):
    kind = rng.randrange(9 if depth < 6 else 6)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, 1, -1, 127, 128, -33, 2**63, 2**64 - 1, -(2**63), rng.randrange(-(10**6), 10**6)])
    if kind == 2:
        return rng.choice([0.0, -0.0, 1.5, 1e300, 2.5e-308, rng.random()])
    if kind in (3, 4, 5):
        return "".join(rng.choice('ab"\\\n\x01é😀') for _ in range(rng.randrange(40)))
    if kind in (6, 7):
        return [random_value(rng, depth + 1) for _ in range(rng.choice([0, 1, 3, 17]))]
    return {str(rng.randrange(30)): random_value(rng, depth + 1) for _ in range(5)}


@pytest.mark.parametrize("seed", range(200))
def test_random_documents_both_ways(seed):
    rng = random.Random(seed)
    value = random_value(rng)
    text = orcodec.dumps(value)
    packed = orcodec.json_to_msgpack(text)
    assert packed == json_two_step(text)
    assert orcodec.msgpack_to_json(packed) == msgpack_two_step(packed)
    opt = orcodec.OPT_SORT_KEYS | orcodec.OPT_INDENT_2
    assert orcodec.msgpack_to_json(packed, option=opt) == msgpack_two_step(packed, opt)


def test_msgpack_to_json_bin_and_ext():
    for value in [b"x", {"a": b"\x00"}, orcodec.Ext(3, b"ab")]:
        packed = orcodec.packb(value)
        assert outcome(orcodec.msgpack_to_json, packed) == outcome(msgpack_two_step, packed)
        assert outcome(orcodec.msgpack_to_json, packed)[1] is orcodec.JSONEncodeError
    packed = orcodec.packb({"a": b"x", "e": orcodec.Ext(3, b"yz"), "l": [b""]})
    assert orcodec.msgpack_to_json(packed, base64=True) == b'{"a":"eA==","e":{"tag":3,"data":"eXo="},"l":[""]}'


def test_msgpack_to_json_non_str_keys():
    n = orcodec.OPT_NON_STR_KEYS
    p = msgpack.packb
    # Keys that are one dict key once decoded (1, True, 1.0), and NaN, which is none.
    repeated = b"\x84" + p(1) + p(2) + p(True) + p(5) + p(1.0) + p(6) + p(float("nan")) + p(7)
    for packed in [
        p({1: 2, None: 3, 1.5: 4, "s": 5}),
        p({(1, "a"): 1}),
        p({-5: {2**64 - 1: "x"}}),
        repeated,
    ]:
        for option in [n, n | orcodec.OPT_SORT_KEYS]:
            assert outcome(orcodec.msgpack_to_json, packed, option=option) == outcome(msgpack_two_step, packed, option)
        # Without the option: unpackb's error.
        assert outcome(orcodec.msgpack_to_json, packed) == outcome(msgpack_two_step, packed)


def test_msgpack_to_json_timestamps():
    ts = [
        dt.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=dt.timezone.utc),
        dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc),
        dt.datetime(2300, 1, 1, 0, 0, 0, 1, tzinfo=dt.timezone.utc),
    ]
    packed = orcodec.packb(ts, option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT)
    base = orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT
    for extra in [0, orcodec.OPT_UTC_Z, orcodec.OPT_OMIT_MICROSECONDS]:
        assert orcodec.msgpack_to_json(packed, option=base | extra) == msgpack_two_step(packed, base | extra)
    # Without the flag a timestamp is an Ext: dumps refuses it.
    assert outcome(orcodec.msgpack_to_json, packed) == outcome(msgpack_two_step, packed)


def test_msgpack_to_json_big_and_strict_integers():
    for value in [2**53 + 1, -(2**63), 2**64 - 1, [2**60, 1.0]]:
        packed = orcodec.packb(value)
        for option in [None, orcodec.OPT_STRICT_INTEGER]:
            assert outcome(orcodec.msgpack_to_json, packed, option=option) == outcome(msgpack_two_step, packed, option)


@pytest.mark.parametrize("name", FIXTURES)
def test_msgpack_to_json_truncated_and_corrupted_fixtures_raise_as_unpackb(name):
    packed = orcodec.packb(orcodec.loads(fixture_bytes(f"{name}.json")))
    rng = random.Random(name)
    cases = [packed[:n] for n in rng.sample(range(len(packed)), 30)]
    for _ in range(30):
        b = bytearray(packed[:2000])
        for _ in range(3):
            b[rng.randrange(len(b))] = rng.randrange(256)
        cases.append(bytes(b))
    cases.append(packed + b"\x00")
    for case in cases:
        assert outcome(orcodec.msgpack_to_json, case) == outcome(msgpack_two_step, case)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xc1",
        b"\x92\x01",
        b"\xdb\xff\xff\xff\xff",
        b"\xdd\xff\xff\xff\xff",
        b"\xa2\xff\xfe",
        b"\x91" * 100_000,
        b"\x81\xa1k" * 300 + b"\xc0",
        b"\x91" * 300 + b"\xc0",
    ],
)
def test_msgpack_to_json_hostile_inputs(data):
    assert outcome(orcodec.msgpack_to_json, data) == outcome(msgpack_two_step, data)


def test_argument_errors():
    assert outcome(orcodec.json_to_msgpack, 5) == outcome(json_two_step, 5)
    assert outcome(orcodec.msgpack_to_json, "text") == outcome(msgpack_two_step, "text")
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.msgpack_to_json(b"\x01", option=1 << 40)
    with pytest.raises(TypeError):
        orcodec.json_to_msgpack(b"1", option=0)
    with pytest.raises(orcodec.JSONDecodeError, match="surrogates"):
        orcodec.json_to_msgpack("\ud800")

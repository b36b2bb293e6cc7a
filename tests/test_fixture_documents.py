"""The real-world documents from the shared fixtures (twitter, github, citm_catalog,
canada) through both formats, compared with the stdlib, orjson and msgpack."""

from __future__ import annotations

import functools
import json

import msgpack
import orcodec
import orjson
import pytest
from helpers import assert_strict_equal, fixture_bytes

DOCUMENTS = ["twitter.json", "github.json", "citm_catalog.json", "canada.json"]
# canada.json is mostly floats: its text is compared through a parse, not byte for byte.
FLOAT_HEAVY = {"canada.json"}


@functools.cache
def _load(name: str) -> tuple[bytes, object]:
    data = fixture_bytes(name)
    return data, json.loads(data)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_loads_equals_stdlib(name):
    data, expected = _load(name)
    assert_strict_equal(orcodec.loads(data), expected)


@pytest.mark.parametrize("name", DOCUMENTS)
@pytest.mark.parametrize("kind", ["bytearray", "memoryview", "str"])
def test_loads_other_input_types(name, kind):
    data, expected = _load(name)
    converted = {"bytearray": bytearray, "memoryview": memoryview, "str": lambda b: b.decode("utf-8")}[kind](data)
    assert_strict_equal(orcodec.loads(converted), expected)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_dumps(name):
    _, doc = _load(name)
    out = orcodec.dumps(doc)
    if name in FLOAT_HEAVY:
        assert_strict_equal(orjson.loads(out), doc)
        assert_strict_equal(json.loads(out), doc)
    else:
        assert out == orjson.dumps(doc)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_json_roundtrip(name):
    _, doc = _load(name)
    assert_strict_equal(orcodec.loads(orcodec.dumps(doc)), doc)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_packb_equals_msgpack(name):
    _, doc = _load(name)
    assert orcodec.packb(doc) == msgpack.packb(doc, use_bin_type=True)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_msgpack_roundtrip(name):
    _, doc = _load(name)
    assert_strict_equal(orcodec.unpackb(orcodec.packb(doc)), doc)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_unpackb_of_msgpack_output(name):
    _, doc = _load(name)
    data = msgpack.packb(doc, use_bin_type=True)
    for convert in (bytes, bytearray, memoryview):
        assert_strict_equal(orcodec.unpackb(convert(data)), doc)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_repeated_keys_share_objects(name):
    # Every object in these documents repeats keys from other objects; the decoders
    # give back one str object per distinct short key text.
    data, _ = _load(name)
    for decoded in (orcodec.loads(data), orcodec.unpackb(orcodec.packb(json.loads(data)))):
        seen: dict[str, str] = {}
        stack = [decoded]
        shared = 0
        while stack:
            obj = stack.pop()
            if isinstance(obj, dict):
                for key, value in obj.items():
                    if key in seen and len(key) <= 16:
                        shared += seen[key] is key
                    seen.setdefault(key, key)
                    stack.append(value)
            elif isinstance(obj, list):
                stack.extend(obj)
        assert shared > 0

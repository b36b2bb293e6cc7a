"""The real-world documents (twitter, github, citm_catalog, canada: the repository's
stand-ins, and the shared originals when present) through each format, compared with the
stdlib and the references (orjson; ormsgpack and msgpack-python)."""

from __future__ import annotations

import functools
import json

import pytest
from helpers import DOCUMENT_FILES, JSON, assert_strict_equal, by_format, document_stem, fixture_bytes

DOCUMENTS = DOCUMENT_FILES
# canada.json is mostly floats: its JSON text is compared through a parse, not byte for byte.
FLOAT_HEAVY = {"canada"}


@functools.cache
def _load(name: str) -> tuple[bytes, object]:
    data = fixture_bytes(name)
    return data, json.loads(data)


def _data(fmt, name: str) -> bytes:
    """The document in the format: the file itself, or the references' MessagePack."""
    data, doc = _load(name)
    return data if fmt is JSON else fmt.reference(doc)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_decode_equals_stdlib(fmt, name):
    _, expected = _load(name)
    assert_strict_equal(fmt.decode(_data(fmt, name)), expected)


@pytest.mark.parametrize("name", DOCUMENTS)
@pytest.mark.parametrize(
    "fmt, kind", by_format(json=["bytearray", "memoryview", "str"], msgpack=["bytearray", "memoryview"], ids=str)
)
def test_decode_other_input_types(fmt, name, kind):
    _, expected = _load(name)
    data = _data(fmt, name)
    converted = {"bytearray": bytearray, "memoryview": memoryview, "str": lambda b: b.decode("utf-8")}[kind](data)
    assert_strict_equal(fmt.decode(converted), expected)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_encode_equals_reference(fmt, name):
    _, doc = _load(name)
    out = fmt.encode(doc)
    if fmt is JSON and document_stem(name) in FLOAT_HEAVY:
        assert_strict_equal(fmt.peer_decode(out), doc)
        assert_strict_equal(json.loads(out), doc)
    else:
        assert out == fmt.reference(doc)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_roundtrip(fmt, name):
    _, doc = _load(name)
    assert_strict_equal(fmt.decode(fmt.encode(doc)), doc)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_repeated_keys_share_objects(fmt, name):
    # Every object in these documents repeats keys from other objects; the decoders
    # give back one str object per distinct short key text.
    decoded = fmt.decode(_data(fmt, name))
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

"""The CLI's counting of a document (`stats`, `validate`) by the decoders
themselves, building nothing (`orcodec._orcodec._tally`): the same counts as
a walk of the objects `loads`/`unpackb` build, and the same errors."""

import random

import orcodec
import pytest
from helpers import DOCUMENT_FILES, conformance_params, fixture_bytes
from hypothesis import given, settings
from hypothesis import strategies as st
from orcodec._cli import count_document, tally
from orcodec._orcodec import _tally

NON_STR = orcodec.OPT_NON_STR_KEYS


def walked(value) -> tuple[dict, dict]:
    counts: dict = {}
    seen = {"depth": 0, "keys": 0}
    tally(value, counts, seen)
    return counts, seen


def read(data: bytes, fmt: str):
    if fmt == "json":
        return orcodec.loads(data)
    return orcodec.unpackb(data, ext_hook=orcodec.Ext, option=NON_STR)


def error_of(call):
    try:
        call()
    except (orcodec.JSONDecodeError, orcodec.MsgpackDecodeError) as e:
        where = (e.pos, e.lineno, e.colno) if isinstance(e, orcodec.JSONDecodeError) else None
        return type(e), str(e), getattr(e, "__notes__", None), where
    return None


scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=3), inner, max_size=6),
    max_leaves=40,
)


@pytest.mark.parametrize("name", DOCUMENT_FILES)
def test_fixture_documents_count_as_their_objects(name):
    data = fixture_bytes(name)
    value = orcodec.loads(data)
    assert count_document(data, "json") == walked(value)
    packed = orcodec.packb(value)
    assert count_document(packed, "msgpack") == walked(value)


@settings(max_examples=300, deadline=None)
@given(documents, st.integers(0, 2**32))
def test_random_documents_count_as_their_objects(doc, seed):
    text = orcodec.dumps(doc)
    assert count_document(text, "json") == walked(orcodec.loads(text))
    packed = orcodec.packb(doc)
    assert count_document(packed, "msgpack") == walked(read(packed, "msgpack"))
    # A key given again keeps one entry, with its last value, as a dict does.
    if isinstance(doc, dict) and doc:
        rng = random.Random(seed)
        key = rng.choice(list(doc))
        again = text[:-1] + (b"," if len(doc) else b"") + orcodec.dumps(key) + b":" + orcodec.dumps([doc]) + b"}"
        assert count_document(again, "json") == walked(orcodec.loads(again))


def test_repeated_keys_escaped_or_not_are_one_entry():
    text = b'{"a": [1, [2]], "\\u0061": {"x": null}, "b": 1}'
    assert _tally(text) == (1, 0, 1, 0, 0, 0, 0, 2, 0, 3, 3)
    assert count_document(text, "json") == walked(orcodec.loads(text))
    many = b"{" + b",".join(b'"k%d": [%d]' % (i % 20, i) for i in range(50)) + b"}"
    assert count_document(many, "json") == walked(orcodec.loads(many))


@pytest.mark.parametrize(
    "data",
    [
        b"\x81\x01\x02",  # an int key
        b"\x82\x01\xa1a\xcb\x3f\xf0\x00\x00\x00\x00\x00\x00\xa1b",  # 1 and 1.0: one key
        b"\x82\xc3\x01\x01\x02",  # True and 1: one key
        b"\x81\x92\x01\x02\xc0",  # a tuple key
        b"\x81\xc4\x01k\x01",  # a bytes key
    ],
)
def test_keys_python_compares_are_counted_on_the_objects(data):
    assert _tally(data, option=NON_STR) is None
    assert count_document(data, "msgpack") == walked(read(data, "msgpack"))


def test_msgpack_kinds_and_extensions():
    value = [None, True, -1, 2**64 - 1, 1.5, "s", b"b", orcodec.Ext(5, b"x")]
    # ... and {"k": [a timestamp]}, which is counted as any extension.
    packed = b"\x99" + b"".join(map(orcodec.packb, value)) + b"\x81\xa1k\x91\xd6\xff\x00\x00\x00\x01"
    assert _tally(packed, option=NON_STR) == (1, 1, 2, 1, 1, 1, 2, 1, 2, 1, 4)
    assert count_document(packed, "msgpack") == walked(read(packed, "msgpack"))


@pytest.mark.parametrize("path", conformance_params("reject") + conformance_params("implementation"))
def test_conformance_files_count_or_raise_as_loads(path):
    data = path.read_bytes()
    expected = error_of(lambda: orcodec.loads(data))
    assert error_of(lambda: _tally(data)) == expected
    if expected is None:
        assert count_document(data, "json") == walked(orcodec.loads(data))


@pytest.mark.parametrize("name", DOCUMENT_FILES)
def test_cut_or_damaged_msgpack_raises_what_unpackb_raises(name):
    packed = orcodec.packb(orcodec.loads(fixture_bytes(name)))
    rng = random.Random(name)
    for cut in sorted(rng.sample(range(len(packed)), 40)):
        data = packed[:cut]
        got = error_of(lambda data=data: _tally(data, option=NON_STR))
        assert got == error_of(lambda data=data: read(data, "msgpack"))
    for _ in range(40):
        damaged = bytearray(packed)
        damaged[rng.randrange(len(damaged))] = rng.choice([0xC1, 0xDD, 0xDF, 0xFF, 0xA5])
        data = bytes(damaged)
        expected = error_of(lambda data=data: read(data, "msgpack"))
        # Counting stops at a key that is not a str (the objects are counted
        # then), which may come before the damage.
        assert error_of(lambda data=data: count_document(data, "msgpack")) == expected
        try:
            found = _tally(data, option=NON_STR)
        except orcodec.MsgpackDecodeError:
            found = "raised"
        if found == "raised":
            assert error_of(lambda data=data: _tally(data, option=NON_STR)) == expected
        elif expected is None:
            assert count_document(data, "msgpack") == walked(read(data, "msgpack"))
        else:
            assert found is None


def test_wrong_input_and_depth():
    with pytest.raises(orcodec.JSONDecodeError, match="Input must be bytes"):
        _tally(1)
    assert error_of(lambda: _tally(b"[" * 1025 + b"]" * 1025)) == error_of(
        lambda: orcodec.loads(b"[" * 1025 + b"]" * 1025)
    )
    deep = b"\x91" * 1025 + b"\xc0"
    assert error_of(lambda: _tally(deep, option=0)) == error_of(lambda: orcodec.unpackb(deep))

"""Decoded str objects: every storage kind and length, through both decoders.

The decoders build str objects themselves (ASCII copy, UTF-8 decoded straight
into UCS1/UCS2/UCS4), so check value, kind boundaries and the canonical form
against CPython's own decoding, at many lengths around the SIMD block sizes.
"""

import ctypes
import json
import sys

import msgpack
import pytest

import orcodec

PIECES = ["a", "\x7f", "\x80", "é", "\xff", "\u0100", "\u07ff", "\u0800", "中", "\uffff", "\U00010000", "😀", "\U0010ffff"]


def samples():
    for piece in PIECES:
        for n in (1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100):
            yield piece * n
            yield "x" * n + piece
            yield piece + "y" * n
            yield "ab" * n + piece + "cd" * n + '"'
    yield "café 😀 中文 " * 20
    yield "".join(PIECES) * 3


ALL = list(samples())


def check_same(got, want):
    assert got == want
    assert type(got) is str
    assert storage(got) == storage(want)


def storage(s):
    """(kind, ascii) from the str's PEP 393 state bits: the kind must be the
    canonical (narrowest) one, or str equality and hashing would break."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 14):
        return None
    # PyASCIIObject: refcount, type, length, hash, then the state bit field.
    state = ctypes.c_uint32.from_address(id(s) + 4 * ctypes.sizeof(ctypes.c_ssize_t)).value
    return (state >> 2) & 7, (state >> 6) & 1


@pytest.mark.parametrize("i", range(0, len(ALL), 7))
def test_loads_strings(i):
    for text in ALL[i : i + 7]:
        doc = json.dumps([text, {text: text}], ensure_ascii=False).encode()
        got = orcodec.loads(doc)
        check_same(got[0], text)
        (key,) = got[1]
        check_same(key, text)
        check_same(got[1][key], text)
        # The escaped form decodes to the same text.
        check_same(orcodec.loads(json.dumps(text).encode()), text)


@pytest.mark.parametrize("i", range(0, len(ALL), 7))
def test_unpackb_strings(i):
    for text in ALL[i : i + 7]:
        got = orcodec.unpackb(msgpack.packb([text, {text: text}]))
        check_same(got[0], text)
        (key,) = got[1]
        check_same(key, text)


def test_special_byte_at_every_offset():
    for n in range(40):
        for special, escaped in (('"', '\\"'), ("\\", "\\\\"), ("\n", "\\n"), ("\x00", "\\u0000")):
            text = "é" * (n % 3) + "a" * n + special + "b" * (40 - n)
            assert orcodec.loads(('"' + text.replace(special, escaped) + '"').encode()) == text
        bad = b'"' + b"a" * n + b"\x01" + b'"'
        with pytest.raises(orcodec.JSONDecodeError) as e:
            orcodec.loads(bad)
        assert e.value.pos == n + 1

"""Hostile input to both decoders: every fixture truncated, declared lengths
far beyond the input (with the memory they may cost), deep nesting, every
kind of invalid UTF-8, and extreme numbers.

Truncation is exhaustive for documents up to SMALL_DOC bytes; for the four
large real-world documents it covers the first HEAD offsets, the last TAIL
and SAMPLED_OFFSETS seeded random offsets between (every offset of a 2 MB
document would take hours: each prefix is decoded up to its end).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import msgpack
import orcodec
import orjson
import ormsgpack
import pytest
from helpers import (
    DOCUMENT_FILES,
    JSON,
    MSGPACK,
    assert_strict_equal,
    conformance_files,
    fixture_bytes,
    peer_is_pinned,
)

SMALL_DOC = 4096
HEAD = 1024
TAIL = 16
SAMPLED_OFFSETS = 48
REAL_DOCUMENTS = DOCUMENT_FILES


def _conformance_documents() -> list[Path]:
    """Every conformance document orjson accepts (the own corpus's, and the shared
    corpora's y_ cases, checker passes and round trips when they are there)."""
    found = []
    for kind in ("accept", "reject", "implementation", "canonical"):
        for _, path in conformance_files(kind):
            if path in found:
                continue
            try:
                orjson.loads(path.read_bytes())
            except orjson.JSONDecodeError:
                continue
            found.append(path)
    return found


CONFORMANCE = _conformance_documents()


def _offsets(length: int, seed: int) -> list[int]:
    if length <= SMALL_DOC:
        return list(range(length))
    rng = random.Random(seed)
    sampled = rng.sample(range(HEAD, length - TAIL), SAMPLED_OFFSETS)
    return sorted(set(range(HEAD)) | set(range(length - TAIL, length)) | set(sampled))


def _check_prefixes(fmt, data: bytes, seed: int) -> None:
    """A prefix is rejected exactly when the peer rejects it, and otherwise gives the
    peer's value: never a crash, never a different value. MessagePack is prefix-free:
    there every strict prefix is an error."""
    for end in _offsets(len(data), seed):
        prefix = data[:end]
        if fmt is MSGPACK:
            with pytest.raises(fmt.decode_error):
                fmt.decode(prefix)
            continue
        try:
            expected = fmt.peer_decode(prefix)
        except fmt.peer_decode_error:
            with pytest.raises(fmt.decode_error):
                fmt.decode(prefix)
        else:
            assert_strict_equal(fmt.decode(prefix), expected)


def _as(fmt, json_data: bytes) -> bytes:
    """A JSON document as itself, or as MessagePack (msgpack-python's, which takes any depth)."""
    return json_data if fmt is JSON else msgpack.packb(orjson.loads(json_data), use_bin_type=True)


def test_conformance_corpus_present():
    assert len(CONFORMANCE) >= 150


@pytest.mark.parametrize("name", REAL_DOCUMENTS)
def test_real_document_truncated(fmt, name):
    data = _as(fmt, fixture_bytes(name))
    _check_prefixes(fmt, data, seed=len(data))


def test_conformance_documents_truncated_at_every_offset(fmt):
    for path in CONFORMANCE:
        _check_prefixes(fmt, _as(fmt, path.read_bytes()), seed=0)


def test_seed_corpora_truncated_at_every_offset(fmt):
    seeds = Path(__file__).resolve().parent.parent / "fixtures" / "fuzz" / fmt.name
    paths = sorted(seeds.iterdir())
    assert paths
    for path in paths:
        data = path.read_bytes()
        if fmt is MSGPACK:
            try:
                orcodec.unpackb(data)
            except orcodec.MsgpackDecodeError:
                continue  # extension seeds are for the fuzzers; orcodec rejects them whole
        _check_prefixes(fmt, data, seed=0)


# --------------------------------------------------------------------------------------
# Declared lengths far beyond the input
# --------------------------------------------------------------------------------------

MAX32 = b"\xff\xff\xff\xff"
LENGTH_BOMBS = {
    "array32": (
        b"\xdd" + MAX32 + b"\xc0\xc0\xc0",
        "array declares 4294967295 items but only 3 bytes of input remain at byte 0",
    ),
    "map32": (
        b"\xdf" + MAX32 + b"\xa1a\xc0",
        "map declares 4294967295 entries but only 3 bytes of input remain at byte 0",
    ),
    "str32": (b"\xdb" + MAX32 + b"abc", "str declares 4294967295 bytes but only 3 bytes of input remain at byte 0"),
    "bin32": (b"\xc6" + MAX32 + b"abc", "bin declares 4294967295 bytes but only 3 bytes of input remain at byte 0"),
    "ext32": (b"\xc9" + MAX32 + b"\x05abc", "ext declares 4294967295 bytes but only 3 bytes of input remain at byte 0"),
    "nested": (
        b"\x91\x91\xdd" + MAX32 + b"\xc0",
        "array declares 4294967295 items but only 1 bytes of input remain at byte 2",
    ),
}


def _length_error(info, detail: str) -> None:
    """ormsgpack's message; the offset as pos and a note, and what was declared in a
    note (``detail`` ends with "at byte N")."""
    error = info.value
    described, offset = detail.rsplit(" at byte ", 1)
    assert str(error) == "unexpected end of file"
    assert error.pos == int(offset)
    assert error.__notes__ == [f"at byte {offset}", described]


@pytest.mark.parametrize("name", sorted(LENGTH_BOMBS))
def test_declared_length_fails_at_the_header(name):
    data, message = LENGTH_BOMBS[name]
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(data)
    _length_error(info, message)
    # ormsgpack 1.12 (the newest on Python 3.10) crashes on some of these.
    if peer_is_pinned(ormsgpack):
        with pytest.raises(ValueError, match="(?m)^unexpected end of file$"):
            ormsgpack.unpackb(data)


def test_ext32_length_checked_with_an_ext_hook_too():
    data, message = LENGTH_BOMBS["ext32"]
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(data, ext_hook=lambda tag, payload: pytest.fail("hook called for a truncated ext"))
    _length_error(info, message)


def test_big_array_declaring_more_items_than_it_has():
    # One MB of nil under a header that declares 2**32-1 items.
    data = b"\xdd" + MAX32 + b"\xc0" * 1_000_000
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(data)
    _length_error(info, "array declares 4294967295 items but only 1000000 bytes of input remain at byte 0")


# Run in a child process under an address-space limit, so a decoder that even
# reserved memory for a declared length (without touching it, which RSS would
# not show) dies there; tracemalloc measures the Python objects it builds.
MEMORY_PROBE = r"""
import json, resource, sys, tracemalloc
import orcodec

def vm_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * resource.getpagesize()

limit = vm_bytes() + (256 << 20)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
M = b"\xff\xff\xff\xff"
bombs = [b"\xdd" + M, b"\xdf" + M, b"\xdb" + M, b"\xc6" + M, b"\xc9" + M + b"\x05",
         b"\xdd" + M + b"\xc0" * 100_000, b"\xdf" + M + b"\xa1a\xc0" * 30_000,
         b"\xdc\xff\xff" + b"\x01" * 65_000, b"\x91" * 1000 + b"\xdd" + M,
         b"\xdd\x00\x0f\x42\x40" + b"\xdd" + M,
         b"\xdc\xff\xff" + b"\xa1a" * 65534 + b"\xdb" + M]
report = []
tracemalloc.start()
for data in bombs:
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        orcodec.unpackb(data)
        outcome = "decoded"
    except orcodec.MsgpackDecodeError:
        outcome = "error"
    report.append([len(data), tracemalloc.get_traced_memory()[1] - base, outcome])
print(json.dumps(report))
"""


def test_length_bombs_memory_bounded_by_input():
    done = subprocess.run([sys.executable, "-c", MEMORY_PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for size, peak, outcome in json.loads(done.stdout):
        assert outcome == "error"
        assert peak <= 64 * size + 65536, f"{peak} bytes traced for a {size}-byte input"


# --------------------------------------------------------------------------------------
# Nesting
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, offset",
    # The container that opens level 1025 is blamed: the 1025th '{'; the
    # '{' after the 1024th '['; the '{' after 1024 '['.
    [(b'{"a":' * 100_000, 5120), (b"[{}," * 100_000, 4 * 1023 + 1), (b"[" * 1024 + b'{"a":[' * 100_000, 1024)],
    ids=["objects", "array-of-objects", "mixed"],
)
def test_deep_json_is_the_depth_error(data, offset):
    # orjson's message and position (one past the blamed container's first byte);
    # orcodec's own account in a note.
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(data)
    assert (info.value.msg, info.value.pos) == ("depth limit exceeded", offset + 1)
    assert info.value.__notes__ == [f"nesting deeper than 1024 levels at byte {offset}"]
    with pytest.raises(orjson.JSONDecodeError) as theirs:
        orjson.loads(data)
    assert (theirs.value.msg, theirs.value.pos) == (info.value.msg, info.value.pos)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\x81\xa1a" * 100_000, "nesting deeper than 1024 levels at byte 3072"),
        (b"\xdc\x00\x01" * 100_000, "nesting deeper than 1024 levels at byte 3072"),
        # The empty map after the 1024th array header opens level 1025.
        (b"\x92\x80" * 1025 + b"\x90", "nesting deeper than 1024 levels at byte 2047"),
    ],
    ids=["fixmaps", "array16", "mixed"],
)
def test_deep_msgpack_is_the_depth_error(data, message):
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(data)
    described, offset = message.rsplit(" at byte ", 1)
    assert str(info.value) == "Recursion limit reached"  # ormsgpack's words
    assert info.value.pos == int(offset)
    assert info.value.__notes__ == [f"at byte {offset}", described]
    with pytest.raises(ValueError, match="(?m)^Recursion limit reached$"):
        ormsgpack.unpackb(data)


# --------------------------------------------------------------------------------------
# Invalid UTF-8, every kind: all 1- and 2-byte sequences, and every 3- and
# 4-byte lead byte with the continuation bytes around its limits, agree with
# Python's strict UTF-8 decoder in JSON strings, keys and MessagePack str.
# --------------------------------------------------------------------------------------


def _utf8_candidates() -> list[bytes]:
    out = [bytes([a]) for a in range(0x80, 0x100)]
    out += [bytes([a, b]) for a in range(0x80, 0x100) for b in range(0x100) if b not in (0x22, 0x5C)]
    edges = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
    for lead in range(0xE0, 0x100):
        out += [bytes([lead, b, c]) for b in edges for c in edges if 0x22 not in (b, c) and 0x5C not in (b, c)]
        out += [bytes([lead, b, 0x80, c]) for b in edges for c in edges]
    return out


def _valid_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_invalid_utf8_every_kind_in_json_strings_and_keys():
    checked = 0
    for raw in _utf8_candidates():
        if any(b < 0x20 for b in raw):
            continue  # control characters are errors of their own
        value = b'"' + raw + b'"'
        document = b'{"k' + raw + b'":[' + value + b"]}"
        if _valid_utf8(raw):
            text = raw.decode("utf-8")
            assert orcodec.loads(value) == text
            assert orcodec.loads(document) == {"k" + text: [text]}
        else:
            for data in (value, document):
                # orjson's message, at 0 (it checks the whole input first); where the
                # bad byte is, in a note.
                with pytest.raises(orcodec.JSONDecodeError) as info:
                    orcodec.loads(data)
                assert (info.value.msg, info.value.pos) == ("str is not valid UTF-8: surrogates not allowed", 0)
                assert info.value.__notes__[0].startswith("invalid UTF-8 at byte ")
        checked += 1
    assert checked > 30_000


def test_invalid_utf8_every_kind_in_msgpack_str_and_keys():
    checked = 0
    for raw in _utf8_candidates():
        string = bytes([0xA0 | len(raw)]) + raw
        document = b"\x81" + string + b"\x91" + string
        if _valid_utf8(raw):
            text = raw.decode("utf-8")
            assert orcodec.unpackb(string) == text
            assert orcodec.unpackb(document) == {text: [text]}
        else:
            for data in (string, document):
                with pytest.raises(orcodec.MsgpackDecodeError, match="(?m)^invalid UTF-8 string$"):
                    orcodec.unpackb(data)
        checked += 1
    assert checked > 30_000


@pytest.mark.parametrize("s", ["\ud800", "\udfff", "a\udc00b", "\U0001f600\ud83d", "é\udbff", "中\udc00文"], ids=ascii)
def test_lone_surrogates_on_encode(fmt, s):
    encode, error = fmt.encode, fmt.encode_error
    for obj in (s, [s], {s: 1}, {"k": s}):
        with pytest.raises(error) as info:
            encode(obj)
        assert str(info.value) == fmt.surrogates_message
    replaced = "".join("?" if 0xD800 <= ord(c) < 0xE000 else c for c in s)
    option = orcodec.OPT_REPLACE_SURROGATES
    assert encode([s], option=option) == encode([replaced])
    if fmt.name == "json":
        assert encode({s: [s]}, option=option) == encode({replaced: [replaced]})
    else:
        # As ormsgpack: the flag replaces surrogates in values, not in keys.
        with pytest.raises(error, match=f"(?m)^{fmt.surrogates_message}"):
            encode({s: [s]}, option=option)


# --------------------------------------------------------------------------------------
# Extreme numbers
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1" + "0" * 300, 1e300),
        ("1.7976931348623157e308", 1.7976931348623157e308),
        ("-1.7976931348623157e308", -1.7976931348623157e308),
        ("0." + "0" * 400 + "1", 0.0),
        ("1e-400", 0.0),
        ("-1e-400", -0.0),
        ("-0", 0),
        ("-0.0", -0.0),
        ("4.9e-324", 5e-324),
        ("2.2250738585072011e-308", 2.225073858507201e-308),
        ("1" * 400 + "e-390", float("1" * 400 + "e-390")),
    ],
    ids=lambda v: v[:12] if isinstance(v, str) else None,
)
def test_huge_and_tiny_numbers_decode(text, expected):
    # Correctly rounded, never an error or a crash.
    assert_strict_equal(orcodec.loads(text), expected)
    assert_strict_equal(orcodec.loads(f'{{"n":[{text}]}}'), {"n": [expected]})


@pytest.mark.parametrize(
    "text",
    ["1e400", "-1e400", "1" + "0" * 400, "-" + "9" * 400, "1.8e308", "1" * 400 + ".5", "0.1e310"],
    ids=lambda v: v[:12],
)
def test_numbers_beyond_the_doubles_are_refused_as_orjson_does(text):
    # Not an infinity (the stdlib's reading, which dumps would write back as null):
    # orjson's error at the number's start.
    for document, pos in ((text, 0), (f'{{"n":[{text}]}}', 6)):
        with pytest.raises(orcodec.JSONDecodeError) as ours:
            orcodec.loads(document)
        with pytest.raises(orjson.JSONDecodeError) as theirs:
            orjson.loads(document)
        assert (ours.value.msg, ours.value.pos) == (theirs.value.msg, theirs.value.pos)
        assert (ours.value.msg, ours.value.pos) == ("number is infinity when parsed as double", pos)


@pytest.mark.parametrize("value", [10**400, -(10**400), 2**64, -(2**63) - 1])
def test_huge_ints_on_encode(fmt, value):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error) as info:
        encode({"n": [value]})
    assert str(info.value) == "Integer exceeds 64-bit range"

"""Decoded str objects: every storage kind and length, through both decoders (each test
runs once per format).

The decoders build str objects themselves (ASCII copy, UTF-8 decoded straight
into UCS1/UCS2/UCS4), so check value, kind boundaries and the canonical form
against CPython's own decoding, at many lengths around the SIMD block sizes.
"""

import ctypes
import json
import sys

import msgpack
import orcodec
import pytest
from helpers import JSON, fixarray, str32

PIECES = [
    "a",
    "\x7f",
    "\x80",
    "é",
    "\xff",
    "\u0100",
    "\u07ff",
    "\u0800",
    "中",
    "\uffff",
    "\U00010000",
    "😀",
    "\U0010ffff",
]


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


def encode(fmt, doc) -> bytes:
    """The document as the stdlib's json (unescaped) or msgpack-python writes it."""
    return json.dumps(doc, ensure_ascii=False).encode() if fmt is JSON else msgpack.packb(doc)


@pytest.mark.parametrize("i", range(0, len(ALL), 7))
def test_decoded_strings(fmt, i):
    for text in ALL[i : i + 7]:
        got = fmt.decode(encode(fmt, [text, {text: text}]))
        check_same(got[0], text)
        (key,) = got[1]
        check_same(key, text)
        check_same(got[1][key], text)
        if fmt is JSON:
            # The escaped form decodes to the same text.
            check_same(orcodec.loads(json.dumps(text).encode()), text)


def test_special_byte_at_every_offset():
    for n in range(40):
        for special, escaped in (('"', '\\"'), ("\\", "\\\\"), ("\n", "\\n"), ("\x00", "\\u0000")):
            text = "é" * (n % 3) + "a" * n + special + "b" * (40 - n)
            assert orcodec.loads(('"' + text.replace(special, escaped) + '"').encode()) == text
        bad = b'"' + b"a" * n + b"\x01" + b'"'
        with pytest.raises(orcodec.JSONDecodeError) as e:
            orcodec.loads(bad)
        assert e.value.pos == n + 1


# --- the SIMD UTF-8 decoder: every length, width mix and alignment -------------------

BOUNDARY = ["\x80", "\xff", "\u0100", "\u07ff", "\u0800", "\uffff", "\U00010000", "\U0010ffff"]
MIXES = {
    "latin1": ["a", "b", " ", "é", "\x80", "\xff", "\xe0"],
    "bmp2": ["a", "é", "\u0100", "\u07ff", "Ж", "ß"],
    "bmp3": ["a", "é", "中", "\u0800", "\uffff", "文", " "],
    "cjk": ["中", "文", "字", "\u0800", "\uffff"],
    "astral": ["a", "😀", "\U00010000", "\U0010ffff", " "],
    "all": ["a", "é", "\xff", "\u0100", "\u07ff", "\u0800", "中", "\uffff", "\U00010000", "😀", "\U0010ffff"],
}


def mixed_text(mix, length, seed):
    pieces = MIXES[mix]
    state = seed * 2654435761 + length + 1
    out = []
    for _ in range(length):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
        out.append(pieces[(state >> 33) % len(pieces)])
    return "".join(out)


def decode_aligned(fmt, texts):
    """Decodes `texts`, each text after every padding 0..63 so its bytes start at
    every offset of a 64-byte block."""
    doc = [["x" * pad, text] for text in texts for pad in range(64)]
    got = fmt.decode(encode(fmt, doc))
    assert len(got) == len(doc)
    for (_, text), (_, value) in zip(doc, got):
        check_same(value, text)


@pytest.mark.parametrize("mix", sorted(MIXES))
def test_every_length_and_alignment(fmt, mix):
    for length in range(0, 201):
        texts = [mixed_text(mix, length, seed) for seed in range(2)]
        # Python's own decoding is the reference.
        assert all(t.encode().decode("utf-8") == t for t in texts)
        decode_aligned(fmt, texts)


@pytest.mark.parametrize("piece", BOUNDARY, ids=lambda p: f"U+{ord(p):04X}")
def test_boundary_code_points_at_every_offset(fmt, piece):
    # One boundary code point at every byte offset of the first blocks, in
    # ASCII, Latin-1, CJK and emoji text (4-byte sequences across block edges).
    texts = []
    for filler in ("a", "é", "中", "😀"):
        for before in range(0, 70):
            texts.append(filler * before + piece)
            texts.append(filler * before + piece + filler * 3)
            texts.append(piece * before)
    for text in texts:
        want = text.encode("utf-8").decode("utf-8")
        check_same(fmt.decode(encode(fmt, text)), want)
    decode_aligned(fmt, texts[:: len(texts) // 40])


BAD_UTF8 = [
    b"\xff",
    b"\x80",
    b"\xc3\x28",
    b"\xc0\x80",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xe4\xb8",
    b"\xf0\x9f\x98",
]


@pytest.mark.parametrize("bad", BAD_UTF8, ids=lambda b: b.hex())
def test_invalid_utf8_at_every_offset_rejected(fmt, bad):
    for filler in ("a", "é", "中", "😀"):
        for before in range(0, 140, 1 if filler == "a" else 3):
            raw = (filler * before).encode() + bad
            for data in (raw, raw + filler.encode() * 30):
                if fmt is JSON:
                    value, key = b'"' + data + b'"', b'{"' + data + b'":1}'
                else:
                    value = b"\xdb" + len(data).to_bytes(4, "big") + data
                    key = b"\x81" + value + b"\x01"
                for doc in (value, key):
                    with pytest.raises(fmt.decode_error, match="invalid UTF-8"):
                        fmt.decode(doc)


# Escape-heavy strings: the decoder unescapes runs of simple escapes a block
# (16, 32 or 64 bytes) at a time, so every escape kind is put at every offset
# of strings up to 100 bytes long, with the string ending the input or not.
ESCAPES = ['\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\ud83d\\ude00", "\\u0001", "é", "😀"]


def test_escape_kinds_at_every_offset_match_json():
    for n in range(100):
        dense = '\\n\\"' * (n // 4)
        for escape in ESCAPES:
            for at in range(n + 1):
                body = "a" * at + escape + "b" * (n - at)
                for doc in (f'"{dense}{body}"', f'["{dense}{body}", "\\t\\\\"]', f'{{"{body}{dense}": "{body}"}}'):
                    assert orcodec.loads(doc.encode()) == json.loads(doc), doc


def test_backslash_runs_across_block_edges_match_json():
    for offset in range(140):
        for run in range(1, 9):
            # A run of backslashes, then an escaped quote or a letter.
            for after in ('\\"', "n", '\\\\\\"', "/"):
                body = "x" * offset + "\\" * (2 * run) + after + "\\n" * 20
                doc = f'["{body}", 1]'
                assert orcodec.loads(doc.encode()) == json.loads(doc), doc
                # An odd run: its last backslash escapes the letter after it.
                odd = '["' + "x" * offset + "\\" * (2 * run - 1) + "n" + "\\t" * 20 + '", 1]'
                assert orcodec.loads(odd.encode()) == json.loads(odd), odd


def test_escape_heavy_round_trips():
    texts = ['a"b\\c\n' * 30, "\\" * 131, '"' * 65, "\\/\b\f\n\r\t" * 19, "é\\😀\n中" * 25, "\x00\x1f\x7f" * 40]
    for text in texts:
        for k in range(0, len(text), 3):
            piece = text[k:]
            for encoded in (json.dumps(piece), json.dumps(piece, ensure_ascii=False), orcodec.dumps(piece).decode()):
                check_same(orcodec.loads(encoded.encode()), piece)
                check_same(orcodec.loads(encoded), piece)


def test_errors_in_escape_heavy_strings_keep_their_offsets():
    # Each error after a run of simple escapes, at every offset: the position
    # is the same as when the run is plain text (the character index of the
    # bad escape's backslash, of the control character, or the end).
    bad_escapes = ("\\x", "\\\x01", "\x01", "\\€", "\\\u070f", "\\u12", "\\ud800", "\\ud800\\u0041")
    for n in range(0, 140, 3):
        for prefix in ('\\n\\"' * n, "a" * n, "\\\\" * n + "é"):
            for bad in bad_escapes:
                doc = f'["{prefix}{bad}zz"]'
                with pytest.raises(orcodec.JSONDecodeError) as e:
                    orcodec.loads(doc.encode())
                assert e.value.pos == 2 + len(prefix), (doc, e.value.msg)
            unterminated = f'["{prefix}'
            with pytest.raises(orcodec.JSONDecodeError) as e:
                orcodec.loads(unterminated.encode())
            assert e.value.pos == len(unterminated), unterminated


# Short ASCII values go through a cache keyed by their exact text (up to 16
# bytes held in two words): texts that differ in any one byte, at every
# length, must never come back as each other, within a call or across calls.
def near_twins():
    for n in range(0, 18):
        base = "".join(chr(97 + i % 26) for i in range(n))
        yield base
        for i in range(n):
            yield base[:i] + "Z" + base[i + 1 :]
            yield base[:i] + "\x00" + base[i + 1 :]


TWINS = list(near_twins())


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_short_values_differing_in_one_byte_stay_apart(fmt, order):
    values = TWINS if order == "forward" else TWINS[::-1]
    # Each text three times: recorded, cached, then served from the cache.
    doc = values * 3
    decoded = fmt.decode(encode(fmt, doc))
    for got, want in zip(decoded, doc, strict=True):
        check_same(got, want)


def test_repeated_short_values_share_one_str(fmt):
    # The memory of a decoded document holds a repeated short value once
    # (from its second sighting on), like repeated keys.
    decoded = fmt.decode(encode(fmt, [{"status": "active", "lang": "en"} for _ in range(100)]))
    assert len({id(record["status"]) for record in decoded}) <= 2
    assert len({id(record["lang"]) for record in decoded}) <= 2
    # Long and non-ASCII values are made one by one, as before.
    long_doc = fmt.decode(encode(fmt, ["x" * 17] * 3 + ["é"] * 3))
    assert len({id(v) for v in long_doc[:3]}) == 3 and len({id(v) for v in long_doc[3:]}) == 3


def test_a_value_and_a_key_of_the_same_text(fmt):
    decoded = fmt.decode(encode(fmt, [{"a": "a"}, {"a": "a"}, {"a": "a"}, "a"]))
    assert decoded == [{"a": "a"}] * 3 + ["a"]
    assert hash(decoded[3]) == hash("a")


@pytest.mark.parametrize("length", [63, 64, 65, 127, 128, 129, 200, 1000, 11 * 1024])
def test_long_str_values_every_position_of_one_non_ascii_char(fmt, length):
    # Long str values are built by copying while checking for ASCII; text
    # with a non-ASCII character anywhere must come out the same, and
    # invalid UTF-8 anywhere must still be refused.
    def in_array(*items: bytes) -> bytes:
        if fmt is JSON:
            return b"[" + b",".join(b'"' + item + b'"' for item in items) + b"]"
        return fixarray([str32(item) for item in items])

    base = "".join(chr(0x20 + k % 90) for k in range(length))
    positions = sorted({0, 1, 15, 16, 17, 31, 32, 63, 64, 127, 128, length // 2, length - 2, length - 1})
    for at in (p for p in positions if p < length):
        for ch in ("é", "中", "😀"):
            text = base[:at] + ch + base[at + 1 :]
            assert fmt.decode(fmt.reference([text, {"k": text}])) == [text, {"k": text}]
        raw = base.encode()
        for bad in (b"\xff", b"\xc3\x28", b"\xed\xa0\x80"):
            broken = raw[:at] + bad + raw[at + 1 :]
            for data in (in_array(broken), in_array(broken, b"ok")):
                with pytest.raises(fmt.decode_error):
                    fmt.decode(data)
    assert fmt.decode(fmt.reference(base)) == base
    assert fmt.decode(fmt.reference(base)).isascii()

"""loads of text as Python's json.dumps writes it by default (ensure_ascii=True): every
non-ASCII character a \\uXXXX escape, every astral one a surrogate pair. These strings
go through a loop of their own, 64 input bytes at a time; the decoded text must be the
stdlib's for every escape form and every place an escape can fall, and surrogates that
are not a pair must be refused as everywhere else: at their backslash, with the same message.
"""

from __future__ import annotations

import json
import random
import re

import orcodec
import orjson
import pytest

# Every class of code point: each UTF-8 length's ends, the surrogate range's neighbours,
# what JSON must escape, what only looks special.
CHARS = [
    "a",
    " ",
    "\x00",
    "\x1f",
    '"',
    "\\",
    "/",
    "\x7f",
    "\x80",
    "\u00e9",
    "\u07ff",
    "\u0800",
    "\u4e2d",
    "\ud7ff",
    "\ue000",
    "\ufeff",
    "\uffff",
    "\U00010000",
    "\U0001f600",
    "\U0010ffff",
    "\u2028",
    "u",
]


def _upper_hex(text: str) -> str:
    return re.sub(r"\\u([0-9a-f]{4})", lambda m: "\\u" + m[1].upper(), text)


def _check(text: str) -> None:
    """`text` written by json.dumps (escaped), in lower- and upper-case hex, in a list and as a key."""
    for encoded in (json.dumps(text), _upper_hex(json.dumps(text))):
        for doc in (f"[{encoded},1]", f"{{{encoded}:{encoded}}}", encoded):
            want = json.loads(doc)
            got = orcodec.loads(doc.encode())
            assert got == want, doc
            assert orcodec.loads(doc) == want


def test_every_code_point_class_in_runs_of_escapes():
    for c in CHARS:
        _check(c * 40)
        _check(("caf\u00e9 \U0001f600 " + c + " \u4e2d\u6587 ") * 8)


def test_every_bmp_code_point_and_astral_samples():
    bmp = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c < 0xE000)
    for k in range(0, len(bmp), 4096):
        _check(bmp[k : k + 4096])
    _check("".join(chr(c) for c in range(0x10000, 0x110000, 0x3FF)))


@pytest.mark.parametrize("char", ["\U0001f600", "\U00010000", "\U0010ffff", "\u00e9", "\u4e2d"], ids=ascii)
def test_escapes_at_every_offset_across_blocks(char):
    # Plain bytes before the escape move it (and a pair's halves) across every edge of
    # the 16- and 64-byte blocks; runs after it of every length reach the next window.
    for before in range(0, 140):
        for after in (0, 1, 7, 40, 70):
            _check("\u00e9" + "a" * before + char * 3 + "b" * after)
            _check("x" * before + char + "\u00e9" * after)


def test_random_mixes_agree_with_stdlib():
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(CHARS) * rng.choice((1, 1, 2, 9)) for _ in range(rng.randrange(1, 40)))
        _check(text)


def test_a_document_as_json_dumps_writes_it():
    value = {"t": ["caf\u00e9 \U0001f600 \u4e2d\u6587 " * 20] * 50, "k\u00e9y": {"\U0001f600": [1, 2.5, None]}}
    text = json.dumps(value)
    assert orcodec.loads(text.encode()) == json.loads(text) == value


@pytest.mark.parametrize(
    "bad, at",
    [
        (r"\ud800", 0),
        (r"\udc00", 0),
        (r"\udfff", 0),
        (r"\ude00\ud83d", 0),  # reversed pair
        (r"\ud83d\ud83d\ude00", 0),  # two high halves: the first is lone
        (r"\ud83d\u0041", 0),
        (r"\ud83dx\ude00", 0),
        (r"\ud83d\n\ude00", 0),
        (r"\ud83d", 0),
    ],
    ids=ascii,
)
def test_lone_and_reversed_surrogates_refused_at_their_backslash(bad, at):
    # Amid runs of valid escapes, at every offset of the 64-byte windows.
    for before in range(0, 80):
        prefix = r"\u00e9" * (before % 5) + "a" * before + r"\u4e2d"
        doc = f'["{prefix}{bad}\\u00e9\\u4e2d{"b" * (before % 7)}"]'
        with pytest.raises(orcodec.JSONDecodeError) as excinfo:
            orcodec.loads(doc.encode())
        pos = 2 + len(prefix) + at
        assert excinfo.value.pos == pos, doc
        # orjson's message and position, word for word.
        with pytest.raises(orjson.JSONDecodeError) as theirs:
            orjson.loads(doc.encode())
        assert str(excinfo.value) == str(theirs.value)
        assert excinfo.value.msg.endswith("surrogate in string")
        # The stdlib builds a str holding the lone surrogate (not valid Unicode), which
        # orcodec, like orjson, refuses.
        with pytest.raises(UnicodeEncodeError):
            json.loads(doc)[0].encode("utf-8")


def test_bad_hex_refused_at_its_escape():
    for before in range(0, 70):
        prefix = r"\u00e9" + "a" * before
        for bad, at in ((r"\u12g4", 0), (r"\ud83d\ude0g", 6), (r"\u00", 0)):
            doc = f'["{prefix}{bad}\\u4e2d\\u4e2d\\u4e2d"]'
            with pytest.raises(orcodec.JSONDecodeError) as excinfo:
                orcodec.loads(doc.encode())
            # orjson's message and position: the bad escape, or the high surrogate
            # whose low half it should have been.
            with pytest.raises(orjson.JSONDecodeError) as theirs:
                orjson.loads(doc.encode())
            assert (excinfo.value.msg, excinfo.value.pos) == (theirs.value.msg, theirs.value.pos), doc
            assert excinfo.value.pos == 2 + len(prefix) + (0 if at == 6 else at), doc
            assert excinfo.value.msg.startswith("invalid escape"), doc

"""Non-ASCII strs transcoded from CPython's UCS1/UCS2/UCS4 storage to UTF-8.

orcodec reads a str's code units directly unless CPython has cached its UTF-8
form; these tests build every str fresh (no cache) so the transcoders run,
and compare the bytes with the references (orjson; ormsgpack and msgpack-python).
Lengths cover every block size and tail of the SIMD transcoders (16 or 32 units
per step) and the code point classes at each UTF-8 length boundary, with JSON's
escapes mixed in.
"""

import orcodec
import orjson
import pytest

# Code points at each UTF-8 length boundary, and JSON's escapes.
CLASSES = {
    "ascii": [0x61, 0x20, 0x7E, 0x7F],
    "escape": [0x00, 0x08, 0x0A, 0x1F, 0x22, 0x5C],
    "latin1": [0x80, 0xA9, 0xE9, 0xFF],
    "two": [0x100, 0x3B1, 0x44F, 0x7FF],
    "three": [0x800, 0x4E2D, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF],
    "four": [0x10000, 0x1F600, 0x10FFFF],
}
LENGTHS = list(range(0, 101))


def fresh(code_points):
    """A new str of these code points, with no UTF-8 form cached on it."""
    return "".join(map(chr, code_points))


def check(fmt, code_points):
    """The bytes for a fresh str of ``code_points`` alone, inside containers and as a key
    (the walker's other call sites) equal the references'."""
    assert fmt.encode(fresh(code_points)) == fmt.reference(fresh(code_points)), ascii(fresh(code_points))
    s = fresh(code_points)
    assert fmt.encode({s: [s]}) == fmt.reference({fresh(code_points): [fresh(code_points)]})


def widen(code_points, kind):
    """The same text in a wider storage: one unit of that kind at the end
    (after the part under test, which it must not change)."""
    return code_points + [{"ucs1": 0xE9, "ucs2": 0x4E2D, "ucs4": 0x1F600}[kind]]


@pytest.mark.parametrize("cls", sorted(CLASSES))
@pytest.mark.parametrize("kind", ["ucs1", "ucs2", "ucs4"])
def test_runs_of_one_class_every_length(fmt, cls, kind):
    points = CLASSES[cls]
    for n in LENGTHS:
        base = [points[k % len(points)] for k in range(n)]
        check(fmt, widen(base, kind))


@pytest.mark.parametrize("cls", sorted(CLASSES))
@pytest.mark.parametrize("kind", ["ucs1", "ucs2", "ucs4"])
def test_one_code_point_at_every_position(fmt, cls, kind):
    for n in (1, 7, 15, 16, 17, 31, 32, 33, 47, 48, 49, 64, 65, 100):
        for pos in range(n):
            for c in CLASSES[cls]:
                units = [0x61 + k % 26 for k in range(n)]
                units[pos] = c
                check(fmt, widen(units, kind))


def test_rolling_mix_of_every_class(fmt):
    every = [c for cls in sorted(CLASSES) for c in CLASSES[cls]]
    for n in LENGTHS:
        for shift in range(0, len(every), 5):
            units = [every[(k * 7 + shift + k // 3) % len(every)] for k in range(n)]
            check(fmt, units)
            check(fmt, [c for c in units if c < 0x10000] + [0x4E2D])
            check(fmt, [c for c in units if c < 0x100] + [0xE9])


@pytest.mark.parametrize(
    "phrase",
    [
        "Grüße aus München, schöne Straße. ",
        "Привет, как дела? Всё хорошо. ",
        "東京都の天気は晴れです。明日も晴れ。",
        "RT @user: 今日は良い天気 https://t.co/abc 楽しい! ",
        "great 😀 job 👍 ",
        'tab\there "quoted" back\\slash\nnewline é 中 😀',
    ],
)
def test_natural_text_every_repetition(fmt, phrase):
    for times in range(1, 12):
        check(fmt, [ord(c) for c in phrase * times])


@pytest.mark.parametrize("surrogate", [0xD800, 0xDBFF, 0xDC00, 0xDFFF])
@pytest.mark.parametrize("filler", [0x61, 0x22, 0xE9, 0x4E2D, 0x1F600])
def test_lone_surrogate_at_every_position(fmt, surrogate, filler):
    encode, error = fmt.encode, fmt.encode_error
    for n in (1, 2, 15, 16, 17, 33, 70):
        for pos in range(n):
            units = [filler] * n
            units[pos] = surrogate
            with pytest.raises(error) as info:
                encode(fresh(units))
            assert str(info.value) == fmt.surrogates_message
            replaced = fresh(0x3F if k == pos else c for k, c in enumerate(units))
            assert encode(fresh(units), option=orcodec.OPT_REPLACE_SURROGATES) == encode(replaced)


def test_cached_and_uncached_strs_agree(fmt):
    # A str whose UTF-8 form CPython has cached is copied, not transcoded:
    # both ways give the same bytes.
    for phrase in ("é" * 40, "中" * 40, "😀" * 40, "aé中😀\n" * 9):
        cached = fresh(map(ord, phrase))
        orjson.dumps(cached)  # caches the UTF-8 form on `cached`
        assert fmt.encode(cached) == fmt.encode(fresh(map(ord, phrase)))


class Text(str):
    """A str subclass: never the compact-ASCII fast path's exact type check."""


STORAGES = [
    "",
    "plain",
    'needs "escapes"\n\\',
    "a" * 100,
    "latin-1 é",
    "ucs2 中文",
    "ucs4 😀",
]


@pytest.mark.parametrize("text", STORAGES)
def test_str_values_and_keys_in_every_storage(fmt, text):
    # Compact ASCII goes through the walker's inline path, the other
    # storages and a subclass through the out-of-line one.
    for value in (text, Text(text), text.encode().decode()):
        key = str(value)  # orjson takes exact str keys only
        doc = {key: [value, {key: value}], "k": value}
        before = fmt.encode(doc)
        # orjson caches each str's UTF-8 form in the object; orcodec then
        # copies that instead of transcoding.
        assert before == fmt.reference(doc) == fmt.encode(doc)
        assert fmt.decode(fmt.encode(doc)) == doc

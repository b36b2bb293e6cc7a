"""Writes the seed corpora in fixtures/fuzz/ (run once; the output is committed).

Small documents covering every construct of each format, so the fuzzers
start from valid inputs instead of discovering the grammar byte by byte.
Files not named seed-* are inputs that once failed a target, kept so every
run replays them (msgpack/deep-1024: a valid 1024-deep document that overflowed
the harness's recursive comparison).
"""

import json
import re
import struct
from pathlib import Path

import msgpack

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "fuzz"

DOCUMENTS = [
    None,
    True,
    False,
    0,
    -1,
    2**63 - 1,
    -(2**63),
    2**64 - 1,
    1.5,
    -0.0,
    1e16,
    1e-7,
    5e-324,
    1.7976931348623157e308,
    "",
    "plain",
    "é中😀",
    '"\\/\b\f\n\r\t\x00\x1f\x7f',
    "\u2028\u2029\ufeff",
    [],
    {},
    [[[]]],
    {"a": {"b": {"c": []}}},
    [1, -2, 3.25, "x", None, True, False, [], {}],
    {"id": 1, "name": "naïve", "tags": ["a", "b"], "score": -12.5e-3, "ok": True, "next": None},
    [{"k": i, "v": str(i) * i} for i in range(6)],
    {"x" * 40: "y" * 300, "": ""},
    list(range(20)),
    {f"k{i}": i for i in range(20)},
]

JSON_TEXTS = [
    b" [ 1 , 2 ]\n",
    b'{"a":1,"a":2}',
    b'"\\ud83d\\ude00 \\u00e9 \\u0000"',
    b"1E+2",
    b"-0.0e-0",
    b"123456789012345678901234567890",
    b"1e400",
    b"[" * 20 + b"]" * 20,
    b'\t{\r\n"k" :\t[]\n}',
    # Escapes dense enough for the block decoder, backslash runs across block ends.
    b'["' + b'a\\"b\\\\c\\n' * 12 + b'", "' + b"\\\\" * 9 + b'\\"x' + b"\\\\\\u00e9" * 5 + b'"]',
    b"[1.7976931348623157e308, 2.2250738585072014e-308, 9007199254740993, 0.30000000000000004, 1e23]",
    # Escape runs longer than the widest (64-byte) block, a \u escape and a
    # backslash run across block edges inside them.
    b'{"k\\n": "'
    + b'\\n\\"\\\\\\/' * 30
    + b"\\u00e9"
    + b"\\\\" * 40
    + b"\\t" * 70
    + b'", "z": ['
    + b"1," * 40
    + b"2]}",
    # What Python's json.dumps writes by default (ensure_ascii): runs of \u
    # escapes with surrogate pairs, upper- and lower-case hex, short plain
    # runs between them, a pair across every 16-byte boundary.
    json.dumps({"t": ["café 😀 中文 " * 6, *("x" * k + "😀" * 3 for k in range(17))], "\u00e9": "\U0010ffff"}).encode(),
    re.sub(
        rb"\\u[0-9a-f]{4}",
        lambda m: b"\\u" + m[0][2:].upper(),
        json.dumps(["".join(chr(c) for c in range(0x20, 0x800, 7)), "\ufeff\uffff\u2028\U00010000"]).encode(),
    ),
    # Lone and reversed surrogates, and a pair broken by other escapes, amid runs.
    b'["\\u00e9\\u4e2d\\ud83d", "\\ude00\\ud83d\\u00e9", "\\ud83d\\n\\ude00", "\\u00e9\\ud83d\\u0041x"]',
    # A map of keys that share their first and last 8 bytes or a prefix,
    # repeated: past the transcoders' key filter and into their scan, beside
    # a map large enough for a table.
    (
        "{"
        + ", ".join(f'"abcdefgh{"m" * (i % 5)}{i % 7}stuvwxyz": {i}, "profile_{i % 9}_color": [{i}]' for i in range(40))
        + ', "k": {'
        + ", ".join(f'"k{i % 150}": {i}' for i in range(160))
        + "}}"
    ).encode(),
]

MSGPACK_EXTRA = [
    b"\xd9\x01a",
    b"\xda\x00\x01a",
    b"\xdb\x00\x00\x00\x01a",  # str8/16/32
    b"\xc4\x01\x00",
    b"\xc5\x00\x01\x00",
    b"\xc6\x00\x00\x00\x01\x00",  # bin8/16/32
    b"\xdc\x00\x01\xc0",
    b"\xdd\x00\x00\x00\x01\xc0",  # array16/32
    b"\xde\x00\x01\xa1k\xc0",
    b"\xdf\x00\x00\x00\x01\xa1k\xc0",  # map16/32
    b"\xca\x3f\xc0\x00\x00",
    b"\xcc\xff",
    b"\xcd\xff\xff",
    b"\xce\xff\xff\xff\xff",
    b"\xd0\x80",
    b"\xd1\x80\x00",
    b"\xd2\x80\x00\x00\x00",
    b"\xd4\x01\x00",
    b"\xd6\xff\x00\x00\x00\x00",
    b"\xc7\x01\x05\x00",  # ext
]

NUMBERS = [
    0.0,
    -0.0,
    1.0,
    0.1,
    1e16,
    1e-7,
    5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    float("nan"),
    float("inf"),
    123456789.125,
    -2195313474847423.25,  # an exact decimal tie: ryu rounds it half to even, std half up
    # Short decimals (at most six decimals in [2**-11, 2**32): a path of
    # their own) at the ends of that range and of the decimals.
    12.5,
    -3.99,
    2.0**-11,
    0.000489,
    4294967295.999999,
    52.520008,
    0.1234567,
]
INTEGERS = [0, 127, 128, 255, 256, 65535, 65536, 2**32, 2**63 - 1, 2**64 - 1]

STRINGS = [
    "plain ascii",
    'quote" backslash\\ tab\t nl\n',
    "\x00\x01\x1f\x7f",
    "é ÿ",
    "中文 ü",
    "😀🎉",
    "\u2028\u2029\ufeff",
    "a" * 64,
]


def numpy_payload(flags: int, dtype: str, dims: list[int], data: bytes, pad: int = 0) -> bytes:
    """A numpy extension payload, as doc/numpy.md describes it."""
    head = bytes([flags, len(dims), len(dtype), pad]) + dtype.encode()
    return head + b"".join(struct.pack(">Q", d) for d in dims) + bytes(pad) + data


NUMPY_PAYLOADS = [
    numpy_payload(0, "<f8", [2, 3], struct.pack("<6d", 0.0, -0.0, 1.5, float("nan"), float("inf"), 5e-324), 6),
    numpy_payload(1, "|i1", [], b"\xfe"),
    numpy_payload(0, "|b1", [2, 2], b"\x01\x00\x00\x01"),
    numpy_payload(0, ">i4", [3], struct.pack(">3i", 1, -2, 3)),
    numpy_payload(0, "<c16", [1], struct.pack("<2d", 1.0, -1.0)),
    numpy_payload(0, "<M8[10ms]", [2], struct.pack("<2q", -(2**63), 1)),
    numpy_payload(0, "<m8", [0, 5], b""),
    numpy_payload(0, "<f2", [1] * 10, b"\x00\x3c", 1),
    numpy_payload(1, "<u8", [], struct.pack("<Q", 2**64 - 1)),
]

# msgpack-numpy's maps (OPT_MSGPACK_NUMPY), as msgpack_numpy.encode makes them.
NUMPY_MAPS = [
    {b"nd": True, b"type": "<f8", b"kind": b"", b"shape": [2], b"data": struct.pack("<2d", 1.0, 2.0)},
    {b"nd": False, b"type": "<i2", b"data": b"\x01\x00"},
    {b"complex": True, b"data": "(1+2j)"},
    {b"nd": True, b"type": [["", "|O"]], b"kind": b"O", b"shape": [1], b"data": b"\x80\x05N."},
]


def numpy_documents() -> list[bytes]:
    ext = [msgpack.ExtType(78, p) for p in NUMPY_PAYLOADS]
    docs = [[e] for e in ext] + [{"arrays": ext, "n": 1}] + NUMPY_MAPS + [[NUMPY_MAPS[0], ext[0]]]
    return [msgpack.packb(d, use_bin_type=True) for d in docs]


# Nested lists of numbers for the numpy array targets (fuzz/python/ndarray.py):
# rectangular, empty, ragged, out of range, mixed.
ARRAYS = [
    [[1, 2], [3, 4]],
    [1.5, -0.0, 1e300, 5e-324],
    [[True, False], [False, True]],
    [],
    [[], []],
    [[[1]], [[2]]],
    [[1], [2, 3]],
    [[1, 2], 3],
    [300, -1, 2**64 - 1],
    [1, 2.5, True],
    7,
    [[0.1, 0.2, 0.3]] * 3,
]


def ndarray_documents() -> list[bytes]:
    """A first byte choosing the type (fuzz/python/ndarray.py's DECODERS) and
    the format (its high bit: MessagePack), then the document."""
    import orjson

    out = []
    for i, doc in enumerate(ARRAYS):
        pick = (i * 5) % 30
        out.append(bytes([pick]) + orjson.dumps(doc))
        out.append(bytes([pick | 0x80]) + msgpack.packb(doc))
    return out


# Integer rows for number_format: a base value, how many digits it keeps
# (less one), then each value's signed offset from it (one byte each):
# rows of one width over several chunks, rows crossing a power of ten, a
# sign, and the ends of the 64-bit range.
ROW_SEEDS = [
    struct.pack("<QB", 10_000, 4) + bytes(range(128)) * 3,
    struct.pack("<QB", 99_990, 4) + bytes(range(20)) * 20,
    struct.pack("<QB", 1_000_000_000, 9) + bytes(range(256)) * 2,
    struct.pack("<QB", 0, 0) + bytes(range(256)),
    struct.pack("<QB", 2**63 - 50, 19) + bytes(range(0, 256, 3)),
    struct.pack("<QB", 2**64 - 50, 19) + bytes(range(0, 256, 3)),
]


def float_item(kind: int, value: int) -> bytes:
    """One item of number_format's float arrays: `kind` 0 not a float, 1 a
    decimal (`value` over a power of ten), 2 any double (`value`'s bits)."""
    if kind == 2:
        return struct.pack("<Q", (value & ~3) | 2)
    if kind == 1:
        return struct.pack("<Q", ((value % 2**40) << 8) | (5 << 2) | 1)
    return struct.pack("<Q", 0)


# Float arrays for number_format: coordinate pairs and short lists (one
# step), long runs across the 32-float chunks, runs broken by other items.
FLOAT_ARRAY_SEEDS = [
    float_item(1, 12_345_678) + float_item(2, 0x4050_6745_3A8B_1C2E),
    b"".join(float_item(1 + k % 2, 0x3FF3_3333_3333_3333 + 977 * k) for k in range(8)),
    b"".join(float_item(2, 0x4090_0000_0000_0001 + 7919 * k) for k in range(70)),
    b"".join(float_item(0 if k % 5 == 4 else 1, 4_294_967_295_999 + k) for k in range(40)),
    b"".join(float_item(2, bits) for bits in (0x7FF8_0000_0000_0000, 0x7FF0_0000_0000_0000, 0x8000_0000_0000_0000)),
]


def int_item(kind: int, value: int, digits: int = 9, negative: bool = False) -> bytes:
    """One item of number_format's int arrays: `kind` 0 not an int, 1 `value`
    cut to `digits` (1 to 16) digits, 2 any i64 (`value`'s bits)."""
    if kind == 2:
        return struct.pack("<Q", ((value % 2**64) & ~3) | 2)
    if kind == 1:
        return struct.pack("<Q", ((value % 2**56) << 8) | (64 if negative else 0) | ((digits - 1) << 2) | 1)
    return struct.pack("<Q", 0)


# Int arrays for number_format: runs of one width across the 32-int chunks,
# of every width, of both signs, broken by other items and by large ints.
INT_ARRAY_SEEDS = [
    b"".join(int_item(1, 123_456_789 + 7919 * k, 9) for k in range(70)),
    b"".join(int_item(1, 99_999 + k, 5 + k % 2) for k in range(40)),
    b"".join(int_item(1, 10**15 + 977 * k, 1 + k % 16, negative=k % 3 == 0) for k in range(48)),
    b"".join(int_item(0 if k % 5 == 4 else 1, 4_294_967 + k, 3 + k % 2) for k in range(40)),
    b"".join(int_item(2 if k % 7 == 0 else 1, 2**63 - k, 4) for k in range(35)),
]


# The text forms typed decoding reads: every shape the fast paths take and
# the ones they leave to the general readers.
DURATIONS = [
    b"P1DT7203.5S",
    b"-PT0.000001S",
    b"p1dt1h1m1.5s",
    b"P999999999DT86399.999999S",
    b"P0.123456789012345D",
    b"+PT1.5H",
    b"P0D",
]

TEXT_FORMS = [
    b"2024-01-10T09:01:51.075954+02:00",
    b"2024-01-10t09:01:51z",
    b"2024-01-10 09:01:51.1-00:00",
    b"2019-12-31T23:59:59.9999995Z",
    b"2020-02-28T23:59:59.999999999999+0545",
    b"2024-02-29",
    b"9999-12-31",
    b"10:20:30",
    b"23:59:59.999999",
    b"10:20:30.123456789+01:30",
    b"10:20:30+0130",
    b"6513270e-269e-4d37-b2a7-4de452e6b438",
    b"6513270E-269E-4D37-B2A7-4DE452E6B438",
    b"0123456789abcdefABCDEF0123456789",
    b"2e6b438",
    b"51.075954+02:00",
    # Decimals: plain notation (made in place) at its limits, and forms only
    # Decimal() itself reads.
    b"-012.50",
    b"-0.000",
    b"1E+3",
    b"9999999999999999999",
    b"0.1000000000000000000e-999999999",
    b"12345678901234567890",
    b" 1_000.5 ",
    b"-sNaN",
    # The vector readers' shapes: datetimes of 19 to 32 bytes (and one
    # beyond), both hex cases, decimals at and past 16 bytes.
    b"2024-01-10T09:01:51.123456789Z",
    b"2024-01-10T09:01:51.12345678-23:59",
    b"2024-01-10T09:01:51.1234+14:00",
    b"2024-01-10 09:01:51.999999",
    b"2024-01-10T09:01:51+00:00",
    b"0123456789ABCDEF0123456789abcdef",
    b"123456.78",
    b"-1234567890123.45",
    b"123456789012345.6",
    b"1234567890123456",
    b"-0.5",
    b"1.2.3",
]


def write(subdir: str, items: list[bytes]) -> None:
    directory = ROOT / subdir
    directory.mkdir(parents=True, exist_ok=True)
    for i, data in enumerate(items):
        (directory / f"seed-{i:03d}").write_bytes(data)


def main() -> None:
    import orjson

    write("json", [orjson.dumps(d) for d in DOCUMENTS] + JSON_TEXTS)
    write(
        "msgpack",
        [msgpack.packb(d, use_bin_type=True) for d in DOCUMENTS] + [msgpack.packb(b"\x00\xff" * 20)] + MSGPACK_EXTRA,
    )
    write(
        "number",
        [struct.pack("<d", x) for x in NUMBERS]
        + [struct.pack("<Q", n) for n in INTEGERS]
        + [struct.pack("<q", -(2**63)), struct.pack("<q", -33)]
        + ROW_SEEDS
        + FLOAT_ARRAY_SEEDS
        + INT_ARRAY_SEEDS,
    )
    write(
        "string",
        [s.encode("utf-8") for s in STRINGS]
        + [s.encode("utf-16-le") for s in STRINGS]
        + [s.encode("utf-32-le") for s in STRINGS]
        + [b"\x00\xd8\x00\xdc", b"\x00\xdc", b"\xff\xfe"],
    )
    write("numpy-ext", NUMPY_PAYLOADS)
    write("numpy", numpy_documents())
    write("ndarray", ndarray_documents())
    write("text-forms", TEXT_FORMS)
    write("durations", DURATIONS)


if __name__ == "__main__":
    main()

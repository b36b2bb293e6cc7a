"""dumps and packb on None, bools, ints and floats: exact bytes for both formats, and the
same bytes as the references (orjson; ormsgpack and msgpack-python)."""

from __future__ import annotations

import enum
import math
import random
import struct

import pytest
from helpers import (
    INT_BOUNDARIES,
    INTS_OUT_OF_RANGE,
    JSON,
    NON_FINITE_FLOATS,
    SPECIAL_FLOATS,
    MyInt,
    assert_strict_equal,
    by_format,
    f64,
    msgpack_header,
    msgpack_int,
    random_doubles,
)


def _exact_int(fmt, value: int) -> bytes:
    """An int's bytes, written out independently of any encoder."""
    return str(value).encode() if fmt is JSON else msgpack_int(value)


# --------------------------------------------------------------------------------------
# Ints
# --------------------------------------------------------------------------------------

# MessagePack: the smallest form of each integer boundary, by hand.
INT_ENCODINGS = [
    (0, b"\x00"),
    (127, b"\x7f"),
    (128, b"\xcc\x80"),
    (255, b"\xcc\xff"),
    (256, b"\xcd\x01\x00"),
    (65535, b"\xcd\xff\xff"),
    (65536, b"\xce\x00\x01\x00\x00"),
    (2**32 - 1, b"\xce\xff\xff\xff\xff"),
    (2**32, b"\xcf\x00\x00\x00\x01\x00\x00\x00\x00"),
    (2**63 - 1, b"\xcf\x7f\xff\xff\xff\xff\xff\xff\xff"),
    (2**63, b"\xcf\x80\x00\x00\x00\x00\x00\x00\x00"),
    (2**64 - 1, b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff"),
    (-1, b"\xff"),
    (-32, b"\xe0"),
    (-33, b"\xd0\xdf"),
    (-128, b"\xd0\x80"),
    (-129, b"\xd1\xff\x7f"),
    (-32768, b"\xd1\x80\x00"),
    (-32769, b"\xd2\xff\xff\x7f\xff"),
    (-(2**31), b"\xd2\x80\x00\x00\x00"),
    (-(2**31) - 1, b"\xd3\xff\xff\xff\xff\x7f\xff\xff\xff"),
    (-(2**63), b"\xd3\x80\x00\x00\x00\x00\x00\x00\x00"),
]


@pytest.mark.parametrize(
    "fmt, value, expected",
    by_format(
        json=[(v, str(v).encode()) for v, _ in INT_ENCODINGS],
        msgpack=INT_ENCODINGS,
        ids=lambda case: str(case[0]),
    ),
)
def test_int_exact_bytes(fmt, value, expected):
    assert fmt.encode(value) == expected
    assert fmt.reference(value) == expected
    assert _exact_int(fmt, value) == expected  # the hand-built form agrees


@pytest.mark.parametrize("value", INT_BOUNDARIES, ids=str)
def test_int_boundaries(fmt, value):
    out = fmt.same_as_reference(value)
    assert out == _exact_int(fmt, value)
    fmt.same_as_reference([value, {"k": value}])


def test_every_int_near_small_boundaries(fmt):
    values = list(range(-70000, 70000, 7)) + list(range(-300, 300))
    fmt.same_as_reference(values)


# Around the one-digit fast path (|x| < 2**30, read from the object on CPython
# 3.11-3.13) and the 64-bit limits.
EDGES = [
    0,
    1,
    -1,
    2**30 - 1,
    2**30,
    -(2**30) + 1,
    -(2**30),
    -(2**30) - 1,
    2**31,
    2**53,
    -(2**53),
    2**63 - 1,
    -(2**63),
    2**64 - 1,
    127,
    128,
    -32,
    -33,
    255,
    256,
    65535,
    65536,
]


def test_int_edges_of_the_fast_path(fmt):
    out = fmt.same_as_reference(EDGES)
    if fmt is JSON:
        assert out == str(EDGES).replace(" ", "").encode()
    else:
        assert out == msgpack_header("array", len(EDGES)) + b"".join(map(msgpack_int, EDGES))


def test_int_subclasses_and_computed_ints(fmt):
    class Big(int):
        pass

    class Level(enum.IntEnum):
        LOW = 1
        HIGH = 2**40

    values = [Big(5), Big(-(2**35)), Level.LOW, Level.HIGH, 10**6 * 3, -(10**9) // 7, True, False]
    assert fmt.encode(values) == fmt.reference(values)


@pytest.mark.parametrize("value", INTS_OUT_OF_RANGE, ids=str)
@pytest.mark.parametrize("wrap", ["bare", "list", "dict"])
def test_int_out_of_range(fmt, value, wrap):
    obj = {"bare": value, "list": [1, value], "dict": {"k": value}}[wrap]
    with pytest.raises(fmt.encode_error) as excinfo:
        fmt.encode(obj)
    assert str(excinfo.value) == "Integer exceeds 64-bit range"


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1], ids=str)
def test_int_subclass_out_of_range(fmt, value):
    with pytest.raises(fmt.encode_error) as excinfo:
        fmt.encode(MyInt(value))
    assert str(excinfo.value) == "Integer exceeds 64-bit range"


@pytest.mark.parametrize(
    "fmt, expected", by_format(json=[b"[true,1,false,0]"], msgpack=[b"\x94\xc3\x01\xc2\x00"], ids=lambda _: "")
)
def test_bool_is_not_int(fmt, expected):
    assert fmt.encode([True, 1, False, 0]) == expected == fmt.reference([True, 1, False, 0])


# --------------------------------------------------------------------------------------
# Floats: JSON's shortest round-trip text (orjson's), MessagePack's float64 always
# --------------------------------------------------------------------------------------

FLOAT_TEXT = [
    (0.0, b"0.0"),
    (-0.0, b"-0.0"),
    (1.0, b"1.0"),
    (0.1, b"0.1"),
    (100.0, b"100.0"),
    (1.5, b"1.5"),
    (1e16, b"1e+16"),
    (1e-7, b"1e-7"),
    (5e-324, b"5e-324"),
    (1.7976931348623157e308, b"1.7976931348623157e+308"),
    (-1.7976931348623157e308, b"-1.7976931348623157e+308"),
    (float("nan"), b"null"),
    (float("inf"), b"null"),
    (float("-inf"), b"null"),
]


@pytest.mark.parametrize(
    "fmt, value, expected",
    by_format(
        json=FLOAT_TEXT,
        msgpack=[(v, f64(v)) for v in SPECIAL_FLOATS + NON_FINITE_FLOATS + [v for v, _ in FLOAT_TEXT]],
        ids=lambda case: repr(case[0]),
    ),
)
def test_float_exact_bytes(fmt, value, expected):
    assert fmt.encode(value) == expected
    assert fmt.reference(value) == expected


@pytest.mark.parametrize("value", SPECIAL_FLOATS + NON_FINITE_FLOATS, ids=repr)
def test_special_floats_same_as_reference_and_back(fmt, value):
    out = fmt.same_as_reference(value)
    assert_strict_equal(fmt.decode(out), fmt.plain(value))
    assert_strict_equal(fmt.peer_decode(out), fmt.plain(value))


def test_special_floats_list(fmt):
    values = SPECIAL_FLOATS + [-x for x in SPECIAL_FLOATS]
    out = fmt.same_as_reference(values)
    assert_strict_equal(fmt.decode(out), values)


@pytest.mark.parametrize(
    "fmt, obj, expected",
    by_format(
        json=[
            ([float("nan"), float("inf"), float("-inf"), 1.0], b"[null,null,null,1.0]"),
            ({"nan": float("nan")}, b'{"nan":null}'),
        ],
        msgpack=[
            (
                [float("nan"), float("inf"), float("-inf"), 1.0],
                b"\x94" + f64(float("nan")) + f64(float("inf")) + f64(float("-inf")) + f64(1.0),
            ),
            ({"nan": float("nan")}, b"\x81\xa3nan" + f64(float("nan"))),
        ],
        ids=lambda case: type(case[0]).__name__,
    ),
)
def test_non_finite_floats(fmt, obj, expected):
    # JSON has no text for them: null, as in orjson. MessagePack keeps them.
    assert fmt.encode(obj) == expected == fmt.reference(obj)


FLOAT_PATTERNS = [
    ("7ff8000000000000", b"null"),  # nan
    ("fff8000000000000", b"null"),  # -nan
    ("7ff0000000000000", b"null"),  # inf
    ("fff0000000000000", b"null"),  # -inf
    ("8000000000000000", b"-0.0"),
    ("0000000000000001", b"5e-324"),  # smallest subnormal
    ("800fffffffffffff", b"-2.225073858507201e-308"),
    ("7fefffffffffffff", b"1.7976931348623157e+308"),
]


@pytest.mark.parametrize(
    "fmt, hexbits, expected",
    by_format(
        json=FLOAT_PATTERNS,
        msgpack=[(h, b"\xcb" + bytes.fromhex(h)) for h, _ in FLOAT_PATTERNS],
        ids=lambda case: case[0],
    ),
)
def test_float_bit_patterns(fmt, hexbits, expected):
    # MessagePack keeps every bit (NaN's sign too).
    (value,) = struct.unpack(">d", bytes.fromhex(hexbits))
    assert fmt.encode(value) == expected == fmt.reference(value)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_doubles(fmt, seed):
    values = random_doubles(2000, seed)
    ours = fmt.encode(values)
    if ours != fmt.reference(values):
        for x in values:
            assert fmt.encode(x) == fmt.reference(x), f"{x!r} ({struct.pack('>d', x).hex()})"
    assert ours == fmt.reference(values)
    assert_strict_equal(fmt.decode(ours), values)
    assert_strict_equal(fmt.peer_decode(ours), values)


@pytest.mark.parametrize("seed", [4, 5])
def test_random_short_decimal_doubles(fmt, seed):
    # Doubles that are short decimals (the common case in real data).
    rng = random.Random(seed)
    values = [round(rng.uniform(-1e6, 1e6), rng.randint(0, 8)) for _ in range(2000)]
    values += [rng.randint(-(10**9), 10**9) / 10 ** rng.randint(0, 20) for _ in range(2000)]
    assert fmt.encode(values) == fmt.reference(values)


@pytest.mark.parametrize("seed", [6, 7])
def test_runs_of_short_and_long_floats_against_orjson(seed):
    # Floats of at most six decimals in [2**-11, 2**32) take a path of their
    # own; after a float that is not one, the next fifteen skip it. Runs that
    # switch between the two, in lists and dict values, nested, and the
    # edges of the range and of the decimals: orjson's bytes throughout.
    import orcodec
    import orjson

    rng = random.Random(seed)
    edges = [
        2.0**-11,
        0.000489,
        0.000488,
        4294967295.999999,
        4294967295.0,
        2.0**32,
        4294967296.5,
        0.1234567,
        0.123456,
        12.5,
        3.99,
        3.0,
        1000.98,
        -0.5,
        0.0,
        -0.0,
        5e-324,
        1e16,
    ]
    values: list[float] = []
    for _ in range(300):
        kind = rng.random()
        run = rng.randint(1, 40)
        if kind < 0.4:
            values += [round(rng.uniform(-2000, 2000), rng.randint(0, 6)) for _ in range(run)]
        elif kind < 0.7:
            values += [rng.uniform(-1e3, 1e3) for _ in range(run)]
        elif kind < 0.8:
            values += [rng.choice(edges) * rng.choice([1, -1]) for _ in range(run)]
        elif kind < 0.9:
            values += [rng.randint(0, 2**32 * 10**6) / 10**6 for _ in range(run)]
        else:
            values += [float("nan"), float("inf")][: rng.randint(1, 2)]
    assert orcodec.dumps(values) == orjson.dumps(values)
    document = {"rows": [{"price": v, "pair": [v, -v]} for v in values], "last": values[-1]}
    assert orcodec.dumps(document) == orjson.dumps(document)
    pretty = orcodec.dumps(document, option=orcodec.OPT_INDENT_2)
    assert pretty == orjson.dumps(document, option=orjson.OPT_INDENT_2)


def float_kinds(rng: random.Random) -> float:
    """One float of a kind the JSON writer treats apart: a short decimal, a
    long one, an exponent form, a signed zero, a non-finite value."""
    kind = rng.randrange(6)
    if kind == 0:
        return round(rng.uniform(-2000, 2000), rng.randint(0, 6))
    if kind == 1:
        return rng.uniform(-180, 180)
    if kind == 2:
        return rng.choice([1e16, 1e-7, 5e-324, 1.7976931348623157e308, 2.0**-11, 4294967295.999999])
    if kind == 3:
        return rng.choice([0.0, -0.0, 3.0, -12.5])
    if kind == 4:
        return rng.choice([float("nan"), float("inf"), float("-inf")])
    return struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]


@pytest.mark.parametrize("seed", [8, 9])
def test_lists_of_floats_of_every_length_against_orjson(seed):
    # Lists of floats are written by loops of their own: up to eight floats
    # in one step (coordinate pairs), longer runs a chunk of 32 at a time.
    # Every length across those limits, alone, nested, as pairs in a list,
    # in tuples, and in pretty output: orjson's bytes throughout.
    import orcodec
    import orjson

    rng = random.Random(seed)
    for length in list(range(0, 70)) + [95, 96, 97, 1000]:
        values = [float_kinds(rng) for _ in range(length)]
        for obj in (values, [values, values[:2]], {"k": values}, tuple(values), [tuple(values)]):
            assert orcodec.dumps(obj) == orjson.dumps(obj), (length, obj)
            for option in (orjson.OPT_INDENT_2, orjson.OPT_APPEND_NEWLINE):
                assert orcodec.dumps(obj, option=option) == orjson.dumps(obj, option=option)
    pairs = [[rng.uniform(-180, 180), rng.uniform(-90, 90)] for _ in range(5000)]
    geometry = {"type": "Polygon", "coordinates": [pairs, pairs[:7], [[1.5, 2.5]] * 3]}
    assert orcodec.dumps(geometry) == orjson.dumps(geometry)


@pytest.mark.parametrize("seed", [10, 11])
def test_lists_mixing_floats_and_other_items(seed):
    # A run of floats ends at any other item (an int, a str, None, a bool,
    # a float subclass, a nested list of floats) and the list goes on from
    # there; the general path and orjson write the same bytes.
    import orcodec
    import orjson

    class Sub(float):
        pass

    rng = random.Random(seed)
    others = [1, "x", None, True, [0.5, 1.5], [], {"a": 2.5}, 10**18, 2.5, -0.0]
    for _ in range(300):
        length = rng.randint(1, 80)
        values = [float_kinds(rng) if rng.random() < 0.8 else rng.choice(others) for _ in range(length)]
        assert orcodec.dumps(values) == orjson.dumps(values), values
        assert orcodec.dumps(values, option=orcodec.OPT_INDENT_2) == orjson.dumps(values, option=orjson.OPT_INDENT_2)
        at = rng.randrange(length)
        with_sub = values[:at] + [Sub(1.25)] + values[at:]
        assert orcodec.dumps(with_sub, default=float) == orjson.dumps(with_sub, default=float)
        with pytest.raises(orcodec.JSONEncodeError, match="Type is not JSON serializable: .*Sub"):
            orcodec.dumps(with_sub)


def int_kinds(rng):
    """An int of any width up to 2**64 (either sign), as ids and counts are."""
    kind = rng.randrange(6)
    if kind == 0:
        return rng.randrange(-9, 100)
    if kind == 1:
        return rng.randrange(10**4, 10**8) * rng.choice([1, 1, 1, -1])
    if kind == 2:
        return rng.randrange(10**8, 10**10)
    if kind == 3:
        return rng.choice([2**30 - 1, -(2**30) + 1, 2**30, -(2**30), 10**9, 10**10 - 1, 99_999, 100_000])
    if kind == 4:
        return rng.randrange(-(2**63), 2**63)
    return rng.randrange(2**64)


@pytest.mark.parametrize("seed", [13, 14])
def test_lists_of_ints_of_every_length_against_orjson(seed):
    # Runs of ints below 2**30 in magnitude are written a chunk of 32 at a
    # time; a run ends at a larger int, a bool, an int subclass or any other
    # item, and the list goes on from there. Every length across the chunk,
    # ints of one width and of mixed widths, nested, in tuples and pretty.
    import orcodec
    import orjson

    class Sub(int):
        pass

    rng = random.Random(seed)
    others = [1.5, "x", None, True, False, [1, 2], [], {"a": 2}, 10**18, -(2**40), Sub(7)]
    for length in list(range(0, 70)) + [95, 96, 97, 1000]:
        for values in (
            [int_kinds(rng) for _ in range(length)],
            [rng.randrange(10**8, 10**9) for _ in range(length)],
            [rng.randrange(-99_999, -9_999) for _ in range(length)],
            [int_kinds(rng) if rng.random() < 0.8 else rng.choice(others) for _ in range(length)],
        ):
            for obj in (values, [values, values[:2]], {"k": values}, tuple(values), [tuple(values)]):
                assert orcodec.dumps(obj) == orjson.dumps(obj), (length, obj)
                assert orcodec.dumps(obj, option=orjson.OPT_INDENT_2) == orjson.dumps(obj, option=orjson.OPT_INDENT_2)
    huge = [rng.randrange(-(2**30) + 1, 2**30) for _ in range(200_000)] * 5
    assert orcodec.dumps(huge) == orjson.dumps(huge)


def test_every_int_width_alone_and_in_entries():
    # The digit writer at each width from 1 to 20 digits, at its ends, as a
    # value, a dict value and a dict key (OPT_NON_STR_KEYS).
    import orcodec
    import orjson

    rng = random.Random(15)
    for digits in range(1, 21):
        low, high = (0 if digits == 1 else 10 ** (digits - 1)), min(10**digits - 1, 2**64 - 1)
        values = [low, low + 1, high - 1, high] + [rng.randint(low, high) for _ in range(50)]
        values += [-v for v in values if v <= 2**63]
        for v in values:
            assert orcodec.dumps(v) == orjson.dumps(v) == str(v).encode()
            obj = {"id": v, "n": [v, v]}
            assert orcodec.dumps(obj) == orjson.dumps(obj)
            opt = orjson.OPT_NON_STR_KEYS
            assert orcodec.dumps({v: v}, option=opt) == orjson.dumps({v: v}, option=opt)


def test_huge_list_of_floats_across_every_reservation():
    # A list whose output is tens of MB: the runs reserve a chunk at a time
    # and the output grows many times under them.
    import orcodec
    import orjson

    rng = random.Random(12)
    values = [rng.uniform(-1e3, 1e3) for _ in range(50_000)] + [0.5, float("nan")] * 25_000
    values *= 4
    assert orcodec.dumps(values) == orjson.dumps(values)
    assert orcodec.loads(orcodec.dumps(values[:1000])) == [v if math.isfinite(v) else None for v in values[:1000]]


def test_short_float_lists_nested_at_the_depth_limit(fmt):
    # A list of floats is written without the item loop, but it is a level
    # of nesting like any list: the limit (254 in JSON, 255 in MessagePack)
    # holds at it, with the message the item loop gives for other items.
    limit = 254 if fmt.name == "json" else 255
    for floats in ([1.5], [1.5, -2.25], [0.1] * 8, [0.1] * 9):
        obj = _nest(floats, limit)
        assert fmt.encode(obj) == fmt.reference(obj)
        for innermost in (floats, [1] * len(floats)):
            with pytest.raises(fmt.encode_error) as info:
                fmt.encode([_nest(innermost, limit)])
            assert str(info.value) == "Recursion limit reached"


def _nest(obj, levels):
    """`obj` as the innermost of `levels` nested lists."""
    for _ in range(levels - 1):
        obj = [obj]
    return obj

"""dumps and packb on lists, tuples and dicts (every length form, key order, every
internal dict layout), subclasses of the builtins, what is not serializable, bytes-like
objects, and the output buffer: exact and against the references (orjson; ormsgpack and
msgpack-python)."""

from __future__ import annotations

import ctypes
import struct

import orcodec
import pytest
from helpers import (
    JSON,
    MSGPACK,
    MyDict,
    MyInt,
    MyList,
    MyStr,
    Unsupported,
    by_format,
    msgpack_header,
    msgpack_int,
    msgpack_str,
)

# --------------------------------------------------------------------------------------
# Small documents, byte for byte
# --------------------------------------------------------------------------------------

SMALL = [
    # (object, JSON, MessagePack); None where the format has no such value
    (None, b"null", b"\xc0"),
    (True, b"true", b"\xc3"),
    (False, b"false", b"\xc2"),
    (0, b"0", b"\x00"),
    (-1, b"-1", b"\xff"),
    (1.5, b"1.5", b"\xcb" + struct.pack(">d", 1.5)),
    ("", b'""', b"\xa0"),
    ("a", b'"a"', b"\xa1a"),
    ([], b"[]", b"\x90"),
    ((), b"[]", b"\x90"),
    ({}, b"{}", b"\x80"),
    (b"", None, b"\xc4\x00"),
    ([None, True, False], b"[null,true,false]", b"\x93\xc0\xc3\xc2"),
    ({"a": 1}, b'{"a":1}', b"\x81\xa1a\x01"),
    ({"a": [1, {"b": None}]}, b'{"a":[1,{"b":null}]}', b"\x81\xa1a\x92\x01\x81\xa1b\xc0"),
    ({"a": [1, -1]}, b'{"a":[1,-1]}', b"\x81\xa1a\x92\x01\xff"),
    ((1, (2, 3)), b"[1,[2,3]]", b"\x92\x01\x92\x02\x03"),
    ((1, (2,)), b"[1,[2]]", b"\x92\x01\x91\x02"),
]


@pytest.mark.parametrize(
    "fmt, obj, expected",
    by_format(
        json=[(obj, j) for obj, j, _ in SMALL if j is not None],
        msgpack=[(obj, m) for obj, _, m in SMALL if m is not None],
        ids=lambda case: repr(case[0]),
    ),
)
def test_small_documents_exact_bytes(fmt, obj, expected):
    assert fmt.encode(obj) == expected
    assert fmt.reference(obj) == expected


# --------------------------------------------------------------------------------------
# Arrays and maps
# --------------------------------------------------------------------------------------

CONTAINER_LENGTHS = [0, 1, 15, 16, 17, 100, 255, 256, 65535, 65536, 70000]


def _exact_array(fmt, items: list[bytes]) -> bytes:
    if fmt is JSON:
        return b"[" + b",".join(items) + b"]"
    return msgpack_header("array", len(items)) + b"".join(items)


def _exact_map(fmt, d: dict) -> bytes:
    """A dict of str keys (no escapes) and int values, by hand."""
    if fmt is JSON:
        return b"{" + b",".join(b'"%s":%d' % (k.encode(), v) for k, v in d.items()) + b"}"
    return msgpack_header("map", len(d)) + b"".join(msgpack_str(k) + msgpack_int(v) for k, v in d.items())


@pytest.mark.parametrize("n", CONTAINER_LENGTHS)
@pytest.mark.parametrize("kind", ["list", "tuple"])
def test_array_lengths(fmt, n, kind):
    # MessagePack: fixarray, array16 and array32.
    make = list if kind == "list" else tuple
    nil = b"null" if fmt is JSON else b"\xc0"
    assert fmt.same_as_reference(make([None] * n)) == _exact_array(fmt, [nil] * n)
    ints = make(range(n))
    assert fmt.same_as_reference(ints) == _exact_array(fmt, [_int(fmt, i) for i in ints])


def _int(fmt, i: int) -> bytes:
    return str(i).encode() if fmt is JSON else msgpack_int(i)


@pytest.mark.parametrize("n", CONTAINER_LENGTHS)
def test_map_lengths(fmt, n):
    # MessagePack: fixmap, map16 and map32.
    for d in ({f"{i:05x}": i % 100 for i in range(n)}, {f"k{i}": i for i in range(n)}):
        assert fmt.same_as_reference(d) == _exact_map(fmt, d)


INSERTION_ORDER = [
    (
        {"z": 1, "a": 2, "m": 3, "\u00e9": 4, "": 5},
        b'{"z":1,"a":2,"m":3,"\xc3\xa9":4,"":5}',
        b"\x85\xa1z\x01\xa1a\x02\xa1m\x03\xa2\xc3\xa9\x04\xa0\x05",
    ),
    ({"z": 1, "a": 2, "\u00e9": 3}, b'{"z":1,"a":2,"\xc3\xa9":3}', b"\x83\xa1z\x01\xa1a\x02\xa2\xc3\xa9\x03"),
]


@pytest.mark.parametrize(
    "fmt, d, expected",
    by_format(
        json=[(d, j) for d, j, _ in INSERTION_ORDER],
        msgpack=[(d, m) for d, _, m in INSERTION_ORDER],
        ids=lambda case: str(len(case[0])),
    ),
)
def test_dict_preserves_insertion_order(fmt, d, expected):
    assert fmt.encode(d) == expected
    fmt.same_as_reference(d)


def test_tuple_same_as_list(fmt):
    assert fmt.encode((1, "a", (None,), [()])) == fmt.encode([1, "a", [None], [[]]])


NO_FLOATS = {
    "id": 2**63 - 1,
    "neg": -(2**63),
    "users": [
        {"name": "\u00e9l\u00e8ve", "tags": ["a", "b\n", "\U0001f600"], "active": True, "n": None},
        {"name": "\u4e2d\u6587", "tags": [], "active": False, "n": 0},
    ],
    "empty": {"list": [], "dict": {}, "str": ""},
    "nested": [[[[{"deep": [1, 2, 3]}]]]],
}


def _with_floats_and_bin(bin_values: bool) -> dict:
    blob = {"blob": b"\x00\xff" * 40} if bin_values else {}
    empty_bin = {"bin": b""} if bin_values else {}
    return {
        "id": 2**64 - 1,
        "neg": -(2**63),
        "f": [0.5, -0.0, 1e300, float("inf")],
        "users": [
            {"name": "\u00e9l\u00e8ve", "tags": ("a", "b\n", "\U0001f600"), "active": True, "n": None},
            {"name": "\u4e2d\u6587", "tags": [], "active": False, **blob},
        ],
        "empty": {"list": [], "dict": {}, "str": "", **empty_bin},
        "nested": [[[[{"deep": [1, 2, 3]}]]]],
    }


@pytest.mark.parametrize(
    "fmt, doc",
    by_format(
        json=[NO_FLOATS, _with_floats_and_bin(False)],
        msgpack=[NO_FLOATS, _with_floats_and_bin(True)],
        ids=lambda doc: "floats" if "f" in doc else "no_floats",
    ),
)
def test_nested_documents(fmt, doc):
    fmt.same_as_reference(doc)


# --------------------------------------------------------------------------------------
# Every internal dict layout: the walker reads CPython 3.11's combined tables in place,
# and falls back to PyDict_Next for the rest (split instance dicts, other versions)
# --------------------------------------------------------------------------------------


def test_deleted_entries_are_skipped(fmt):
    d = {f"k{i}": i for i in range(100)}
    for i in range(0, 100, 3):
        del d[f"k{i}"]
    fmt.same_as_reference(d)
    for key in list(d):
        del d[key]
    fmt.same_as_reference(d)


def test_deleted_at_the_start_and_end(fmt):
    d = {"a": 1, "b": 2, "c": 3}
    del d["a"], d["c"]
    fmt.same_as_reference(d)


def test_general_table_with_only_str_keys_left(fmt):
    # A non-str key made the table general (entries carry hashes); it stays
    # general after that key is removed.
    d = {1: 0, "a": 1, "b": [1.5, None]}
    del d[1]
    fmt.same_as_reference(d)


def test_split_instance_dicts(fmt):
    class Point:
        def __init__(self, i):
            self.x = i
            self.y = str(i)
            self.label = "p"

    points = [Point(i) for i in range(5)]
    for p in points:
        fmt.same_as_reference(vars(p))
    del points[0].y
    fmt.same_as_reference(vars(points[0]))


def test_subclass_and_resized_while_built(fmt):
    class D(dict):
        pass

    d = D()
    for i in range(1000):
        d[str(i)] = i
    fmt.same_as_reference(d)
    assert fmt.decode(fmt.encode(d)) == d


def test_dict_grown_by_default_is_an_error_not_a_crash(fmt):
    d = {"a": object(), "b": 1}

    def default(obj):
        for i in range(100):  # forces a resize: the walker must re-read the table
            d[f"new{i}"] = i
        return None

    with pytest.raises(fmt.encode_error, match="dict changed size during serialization"):
        fmt.encode(d, default=default)


def test_dict_emptied_by_default_is_an_error_not_a_crash(fmt):
    d = {"a": object(), "b": "x" * 100, "c": 1}

    def default(obj):
        d.clear()
        return None

    with pytest.raises(fmt.encode_error, match="dict changed size during serialization"):
        fmt.encode(d, default=default)


# --------------------------------------------------------------------------------------
# Subclasses of the builtins are written as their base type
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj, base",
    [
        (MyStr("sub \u00e9"), "sub \u00e9"),
        (MyStr("x" * 40), "x" * 40),
        (MyInt(42), 42),
        (MyInt(2**64 - 1), 2**64 - 1),
        (MyInt(-(2**63)), -(2**63)),
        (MyDict(a=1, b=[2]), {"a": 1, "b": [2]}),
        (MyList([1, "x", None]), [1, "x", None]),
        ([MyStr("a"), MyInt(1), MyDict(k=MyList([2.5]))], ["a", 1, {"k": [2.5]}]),
    ],
    ids=lambda o: type(o).__name__,
)
def test_subclasses_like_base_type(fmt, obj, base):
    # The subclasses both peers write as their base type (float and tuple
    # subclasses go to default: test_encode_options.py).
    assert fmt.encode(obj) == fmt.encode(base) == fmt.reference(base)
    fmt.same_as_peer(obj)


# --------------------------------------------------------------------------------------
# Unsupported types and keys
# --------------------------------------------------------------------------------------

UNSUPPORTED = [
    ({1, 2}, "set"),
    (frozenset(), "frozenset"),
    (1j, "complex"),
    (object(), "object"),
    (Unsupported(), "Unsupported"),
    (Unsupported, "type"),
    (len, "builtin_function_or_method"),
]
NOT_JSON = [(b"bytes", "bytes"), (b"", "bytes"), (bytearray(b"x"), "bytearray"), (memoryview(b"x"), "memoryview")]


@pytest.mark.parametrize(
    "fmt, obj, type_name",
    by_format(json=NOT_JSON + UNSUPPORTED, msgpack=UNSUPPORTED, ids=lambda case: case[1]),
)
@pytest.mark.parametrize("wrap", ["bare", "list", "dict"])
def test_unsupported_type(fmt, obj, type_name, wrap):
    doc = {"bare": obj, "list": [1, obj], "dict": {"k": obj}}[wrap]
    with pytest.raises(fmt.encode_error) as excinfo:
        fmt.encode(doc)
    assert str(excinfo.value) == f"Type is not {fmt.label} serializable: {type_name}"


@pytest.mark.parametrize(
    "key",
    [1, 0, -1, 1.5, None, True, False, b"k", (1, 2), MyInt(3), frozenset()],
    ids=repr,
)
def test_non_str_key(fmt, key):
    with pytest.raises(fmt.encode_error) as excinfo:
        fmt.encode({key: 1})
    assert str(excinfo.value) == "Dict key must be str"
    with pytest.raises(fmt.encode_error) as excinfo:
        fmt.encode([{"ok": {"a": 1, key: 2}}])
    assert str(excinfo.value) == "Dict key must be str"


# --------------------------------------------------------------------------------------
# bytes, bytearray, memoryview: default's business in JSON, bin in MessagePack
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt, expected, asks_default",
    by_format(json=[(b'{"b":"abc"}', True)], msgpack=[(b"\x81\xa1b\xc4\x03abc", False)], ids=lambda _: ""),
)
@pytest.mark.parametrize("obj", [b"abc", bytearray(b"abc"), memoryview(b"abc")], ids=lambda o: type(o).__name__)
def test_bytes_like(fmt, expected, asks_default, obj):
    calls = []

    def default(o):
        calls.append(o)
        return bytes(o).decode()

    assert fmt.encode({"b": obj}, default=default) == expected
    assert calls == ([obj] if asks_default else [])


def test_msgpack_bytes_like_do_not_go_to_default():
    def default(obj):  # pragma: no cover - must not be called
        raise AssertionError(f"default called for {obj!r}")

    assert (
        orcodec.packb([b"a", bytearray(b"b"), memoryview(b"c")], default=default) == b"\x93\xc4\x01a\xc4\x01b\xc4\x01c"
    )


BIN_LENGTHS = [0, 1, 31, 32, 255, 256, 65535, 65536, 70000]


@pytest.mark.parametrize("n", BIN_LENGTHS)
@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview"])
def test_msgpack_bin_length_boundaries(n, kind):
    raw = bytes(i % 251 for i in range(n))
    obj = {"bytes": bytes, "bytearray": bytearray, "memoryview": memoryview}[kind](raw)
    out = MSGPACK.same_as_reference(obj)
    assert out == msgpack_header("bin", n) + raw
    MSGPACK.same_as_reference([obj, {"k": obj}])


def test_msgpack_memoryview_slice():
    view = memoryview(b"0123456789")[2:7]
    assert orcodec.packb(view) == b"\xc4\x0523456" == MSGPACK.reference(view)


def test_msgpack_memoryview_slices_and_bytearray_are_bin():
    assert orcodec.packb([memoryview(b"abcdef")[1:3], bytearray(b"xy")]) == b"\x92\xc4\x02bc\xc4\x02xy"


def test_msgpack_non_contiguous_memoryview_is_an_encode_error():
    view = memoryview(b"abcdef")[::2]
    with pytest.raises(orcodec.MsgpackEncodeError) as info:
        orcodec.packb(view)
    assert isinstance(info.value.__cause__, BufferError)


# --------------------------------------------------------------------------------------
# The output buffer
# --------------------------------------------------------------------------------------

SIZE_HINT_DOCS = [
    {"k": "x" * 40_000},
    1,
    ["é" * 300] * 50,
    {},
    "a" * 2_000_000,
    [1.5] * 10,
    {"k": "x" * 40_000, "n": list(range(5000))},
    ['a"b\\c\n' * 30] * 200,
    {"k": "x" * 40_000},
]


def test_output_size_hint_across_calls(fmt):
    # Each call starts its buffer at the previous output's size (and grows eight-fold):
    # outputs of very different sizes in any order, with and without indentation (which
    # MessagePack ignores), must still be exact and exactly sized.
    docs = SIZE_HINT_DOCS + ([b"\x00" * 600] if fmt is MSGPACK else [])
    for _ in range(2):
        for doc in docs:
            for names in ((), ("OPT_INDENT_2",)):
                expected = fmt.peer_encode(doc, option=fmt.peer_opts(names)) if fmt is JSON else fmt.reference(doc)
                assert fmt.encode(doc, option=fmt.opts(names)) == expected


def test_small_outputs_of_every_size_across_calls(fmt):
    # A small output starts in the pymalloc block the previous one ended in (plus a little
    # headroom): outputs a little larger (grown), a little smaller (trimmed in place or
    # moved) and of the same size, around every block edge, must be exact, end in a NUL and
    # behave as any bytes.
    data_offset = bytes.__basicsize__ - 1
    sizes = list(range(0, 560, 3))
    for n in sizes + sizes[::-1] + [5, 500, 5, 300, 40, 41, 40, 520, 0]:
        for doc in ("x" * n, [n, "y" * n, 1.5], {"k" * (n % 50): "é" * (n // 2)}):
            out, expected = fmt.encode(doc), fmt.reference(doc)
            assert out == expected and hash(out) == hash(bytes(bytearray(expected)))
            assert ctypes.string_at(id(out) + data_offset + len(out), 1) == b"\0"


@pytest.mark.parametrize(
    "doc", [["a" * 20_000] * 200, {"text": "b" * 11_000}, ["c" * 600]], ids=["4MB", "11KB", "600B"]
)
def test_large_output_is_an_ordinary_bytes_object(fmt, doc):
    # Outputs past pymalloc's sizes (512 bytes) keep spare capacity past their end (see
    # BytesSink::finish): the object must still say its length, end in a NUL, hash and
    # compare like any other bytes.
    data_offset = bytes.__basicsize__ - 1  # where ob_sval starts
    for _ in range(3):  # later calls start from the size hint
        out, expected = fmt.encode(doc), fmt.reference(doc)
        assert len(out) == len(expected) > 512
        assert out == expected and hash(out) == hash(bytes(bytearray(expected)))
        assert ctypes.string_at(id(out) + data_offset + len(out), 1) == b"\0"
        assert out + b"x" == expected + b"x"


@pytest.mark.parametrize("length", [513, 600, 4096, 11_000, 70_000])
def test_outputs_of_one_length_again_and_again(fmt, length):
    # Once outputs repeat one length, the next call's buffer is that length plus only
    # what the writes reserved past it (learned by growing once): documents of that
    # length whose last writes reserve more (a long or escaped string, a float, an int
    # in its widest form at the end) must still come out exact, also when they take
    # turns with one another, and end in a NUL.
    data_offset = bytes.__basicsize__ - 1

    def fit(make):
        # The document make(n) whose reference encoding is `length` bytes long (a
        # MessagePack str header grows with n).
        n = length - len(fmt.reference(make(0)))
        while len(fmt.reference(make(n))) > length:
            n -= 1
        assert len(fmt.reference(make(n))) == length
        return make(n)

    docs = [
        fit(lambda n: ["x" * n]),
        fit(lambda n: [1, "x" * n]),
        fit(lambda n: ["x" * n, 1]),
        fit(lambda n: ["x" * n, 1.2345678901234567]),
        fit(lambda n: ["x" * n, -(2**63)]),
        fit(lambda n: ["x" * n, "\n" * 10]),
        fit(lambda n: ["x" * n, "é" * 10]),
        fit(lambda n: ["x" * n, "\U0001f600" * 4]),
    ]
    for order in (docs, docs[::-1], [d for doc in docs for d in (doc, doc, doc)]):
        for doc in order:
            for _ in range(3):
                out, expected = fmt.encode(doc), fmt.reference(doc)
                assert out == expected and hash(out) == hash(bytes(bytearray(expected)))
                assert ctypes.string_at(id(out) + data_offset + len(out), 1) == b"\0"

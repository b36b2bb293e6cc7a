"""The behaviour of the option flags OPT_SORT_KEYS, OPT_INDENT_2, OPT_APPEND_NEWLINE,
OPT_PASSTHROUGH_TUPLE, OPT_PASSTHROUGH_BIG_INT, OPT_STRICT_INTEGER and
OPT_REPLACE_SURROGATES, byte for byte against orjson and ormsgpack.

orjson's, ormsgpack's and orcodec's OPT_ values differ: each library is always given
its own constants (see ``_orjson_opts`` / ``_ormsgpack_opts``).
"""

from __future__ import annotations

import functools
import itertools
import json
import random
import sys

import orcodec
import orjson
import ormsgpack
import pytest
from helpers import (
    INT_BOUNDARIES,
    INTS_OUT_OF_RANGE,
    STRING_KINDS,
    SURROGATE_STRINGS,
    MyDict,
    MyFloat,
    MyInt,
    MyList,
    MyStr,
    fixture_bytes,
    nested_dicts,
    nested_mixed,
)

# Flags under test that orjson / ormsgpack also have, by name.
ORJSON_FLAGS = ["OPT_SORT_KEYS", "OPT_INDENT_2", "OPT_APPEND_NEWLINE", "OPT_STRICT_INTEGER"]
ORMSGPACK_FLAGS = ["OPT_SORT_KEYS", "OPT_PASSTHROUGH_TUPLE", "OPT_PASSTHROUGH_BIG_INT", "OPT_REPLACE_SURROGATES"]
JSON_ONLY_FLAGS = ["OPT_INDENT_2", "OPT_APPEND_NEWLINE", "OPT_STRICT_INTEGER"]


def _opts(module, names) -> int:
    return functools.reduce(lambda acc, name: acc | getattr(module, name), names, 0)


def _orjson_opts(names) -> int:
    return _opts(orjson, names)


def _ormsgpack_opts(names) -> int:
    return _opts(ormsgpack, names)


def _ours(names) -> int:
    return _opts(orcodec, names)


def _subsets(names):
    for r in range(len(names) + 1):
        yield from itertools.combinations(names, r)


def _ids(names) -> str:
    return "|".join(n.removeprefix("OPT_") for n in names) or "none"


ORJSON_COMBINATIONS = list(_subsets(ORJSON_FLAGS))


KEYS = [
    "",
    "a",
    "A",
    "b",
    "aa",
    "ab",
    "a\x00",
    "a ",
    "z",
    "Z",
    "_",
    "0",
    "10",
    "9",
    "~",
    "\x7f",
    "\u00e9",
    "\u00ff",
    "e\u0301",
    "\u0100",
    "\u4e2d",
    "\u4e2d\u6587",
    "\u2028",
    "\uffff",
    "\ufeff",
    "\U0001f600",
    "\U00010000",
    "\U0010ffff",
    '"',
    "\\",
    "key\n",
]

SCALARS = [None, True, False, 0, -1, 2**53 - 1, -(2**53 - 1), 1.5, -0.0, 1e16, "", "s\u00e9\u4e2d\U0001f600"]


def _random_document(rng: random.Random, depth: int = 0):
    """A random tree of dicts (keys from KEYS, shuffled), lists and scalars."""
    roll = rng.random()
    if depth > 4 or roll < 0.35:
        return rng.choice(SCALARS)
    if roll < 0.55:
        return [_random_document(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    keys = rng.sample(KEYS, rng.randint(0, 12))
    return {k: _random_document(rng, depth + 1) for k in keys}


RANDOM_DOCUMENTS = [_random_document(random.Random(seed)) for seed in range(60)]

HAND_DOCUMENTS = [
    None,
    1,
    "x",
    [],
    {},
    [[]],
    [{}],
    {"a": []},
    {"a": {}},
    [[], {}, [[]], {"x": {}}],
    {"b": 1, "a": 2, "c": {"z": [], "y": {}, "x": [1, {"q": None, "p": True}]}},
    [1, [2, [3, [4, []]]], {"k": [{}, {"j": "v"}]}],
    {k: i for i, k in enumerate(reversed(KEYS))},
    {k: {k2: [k, k2] for k2 in KEYS[:5]} for k in KEYS},
    {str(i): i for i in range(1000, 0, -1)},
    {"\u00e9" * n + str(n): n for n in range(40, 0, -1)},
    nested_dicts(200),
    nested_mixed(200),
]

DOCUMENTS = HAND_DOCUMENTS + RANDOM_DOCUMENTS
FIXTURES = ["twitter.json", "github.json", "citm_catalog.json", "canada.json"]


@functools.cache
def _fixture(name: str):
    return json.loads(fixture_bytes(name))


# --------------------------------------------------------------------------------------
# Byte for byte against orjson: SORT_KEYS, INDENT_2, APPEND_NEWLINE, STRICT_INTEGER
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("names", ORJSON_COMBINATIONS, ids=_ids)
def test_dumps_documents_equal_orjson(names):
    for doc in DOCUMENTS:
        assert orcodec.dumps(doc, option=_ours(names)) == orjson.dumps(doc, option=_orjson_opts(names)), doc


def _outcome(encode, *args, **kwargs):
    """The bytes `encode` returns, or the message of the TypeError it raises."""
    try:
        return encode(*args, **kwargs)
    except TypeError as exc:
        return str(exc)


@pytest.mark.parametrize("names", ORJSON_COMBINATIONS, ids=_ids)
@pytest.mark.parametrize("name", FIXTURES)
def test_dumps_fixtures_equal_orjson(name, names):
    # twitter.json has ids beyond 53 bits: both raise with OPT_STRICT_INTEGER.
    doc = _fixture(name)
    ours = _outcome(orcodec.dumps, doc, option=_ours(names))
    assert ours == _outcome(orjson.dumps, doc, option=_orjson_opts(names))
    assert type(ours) is bytes or (name == "twitter.json" and "OPT_STRICT_INTEGER" in names)


@pytest.mark.parametrize("names", ORJSON_COMBINATIONS, ids=_ids)
def test_dumps_string_kinds_equal_orjson(names):
    doc = {v: [v, {v: v}] for v in reversed(STRING_KINDS.values())}
    assert orcodec.dumps(doc, option=_ours(names)) == orjson.dumps(doc, option=_orjson_opts(names))


def test_indent_exact_bytes():
    doc = {"a": [1, {}, [], {"b": [{}]}], "c": {}}
    expected = (
        b'{\n  "a": [\n    1,\n    {},\n    [],\n    {\n      "b": [\n        {}\n      ]\n    }\n  ],\n  "c": {}\n}'
    )
    assert orcodec.dumps(doc, option=orcodec.OPT_INDENT_2) == expected
    assert orcodec.dumps(doc, option=orcodec.OPT_INDENT_2 | orcodec.OPT_APPEND_NEWLINE) == expected + b"\n"


@pytest.mark.parametrize("doc, expected", [(None, b"null\n"), ([], b"[]\n"), ({"a": 1}, b'{"a":1}\n'), ("", b'""\n')])
def test_append_newline_compact(doc, expected):
    assert orcodec.dumps(doc, option=orcodec.OPT_APPEND_NEWLINE) == expected


@pytest.mark.parametrize("depth", [1, 2, 100, 254])
def test_indent_deepest_nesting_equals_orjson(depth):
    for doc in (nested_dicts(depth), nested_mixed(depth)):
        option = orcodec.OPT_INDENT_2 | orcodec.OPT_SORT_KEYS
        assert orcodec.dumps(doc, option=option) == orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)


def test_indent_with_subclasses_and_tuples():
    doc = MyDict(b=MyList([(1, 2), ()]), a=MyStr("s"))
    plain = {"b": [[1, 2], []], "a": "s"}
    for names in ORJSON_COMBINATIONS:
        assert orcodec.dumps(doc, option=_ours(names)) == orjson.dumps(plain, option=_orjson_opts(names))


# --------------------------------------------------------------------------------------
# OPT_SORT_KEYS
# --------------------------------------------------------------------------------------


def test_packb_sort_keys_documents_equal_ormsgpack():
    for doc in DOCUMENTS:
        expected = ormsgpack.packb(doc, option=ormsgpack.OPT_SORT_KEYS)
        assert orcodec.packb(doc, option=orcodec.OPT_SORT_KEYS) == expected, doc


@pytest.mark.parametrize("name", FIXTURES)
def test_packb_sort_keys_fixtures_equal_ormsgpack(name):
    doc = _fixture(name)
    assert orcodec.packb(doc, option=orcodec.OPT_SORT_KEYS) == ormsgpack.packb(doc, option=ormsgpack.OPT_SORT_KEYS)


def test_sort_keys_is_utf8_byte_order():
    doc = {k: None for k in KEYS}
    out = orcodec.loads(orcodec.dumps(doc, option=orcodec.OPT_SORT_KEYS))
    assert list(out) == sorted(KEYS, key=lambda k: k.encode("utf-8")) == sorted(KEYS)
    out = orcodec.unpackb(orcodec.packb(doc, option=orcodec.OPT_SORT_KEYS))
    assert list(out) == sorted(KEYS)


def test_sort_keys_str_subclass_keys(fmt):
    # orjson refuses str subclass keys when sorting; orcodec sorts them like str.
    encode = fmt.encode
    doc = {MyStr("b"): 1, "a": 2, MyStr("\u00e9"): 3, "c": MyDict(z=1, y=2)}
    expected = {"a": 2, "b": 1, "c": {"y": 2, "z": 1}, "\u00e9": 3}
    assert encode(doc, option=orcodec.OPT_SORT_KEYS) == encode(expected)


@pytest.mark.parametrize("doc", [{"a": 1, 1: 2}, {1: 2}, {"a": {None: 1}}, {"b": 1, ("t",): 2}])
def test_sort_keys_non_str_key_raises(fmt, doc):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error, match="^Dict key must be str$"):
        encode(doc, option=orcodec.OPT_SORT_KEYS)


def test_sort_keys_self_reference_raises(fmt):
    encode, error = fmt.encode, fmt.encode_error
    doc: dict = {"b": 1}
    doc["a"] = doc
    with pytest.raises(error, match="^Recursion limit reached$"):
        encode(doc, option=orcodec.OPT_SORT_KEYS)


class _Marker:
    pass


def test_sort_keys_default_that_empties_the_dict(fmt):
    """`default` drops the dict's references to keys and values still to be written."""
    encode, error = fmt.encode, fmt.encode_error
    doc = {"a": _Marker(), "b": "x" * 100 + str(random.random()), "c": [object() for _ in range(3)]}

    def default(obj):
        doc.clear()
        return None

    with pytest.raises(error, match="^dict changed size during serialization$"):
        encode(doc, default=default, option=orcodec.OPT_SORT_KEYS)


def test_sort_keys_errors_inside_nested_dicts_leave_no_leaks(fmt):
    """Every entry held for sorting is released, on success and on errors."""
    encode = fmt.encode
    marker, inner_key, value = _Marker(), "x" + str(random.random()), "v" * 50
    inner = {"q": marker, "r": value}
    doc = {"b": {"y": value, inner_key: inner}, "a": value}
    held = [marker, inner_key, value, inner]
    before = [sys.getrefcount(o) for o in held]
    for _ in range(100):
        with pytest.raises(TypeError):
            encode(doc, option=orcodec.OPT_SORT_KEYS)
        encode(doc, option=orcodec.OPT_SORT_KEYS, default=lambda o: 0)
    assert [sys.getrefcount(o) for o in held] == before
    expected = {"a": value, "b": {inner_key: {"q": 0, "r": value}, "y": value}}
    assert encode(doc, option=orcodec.OPT_SORT_KEYS, default=lambda o: 0) == encode(expected)


# --------------------------------------------------------------------------------------
# JSON-only flags are ignored by packb
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("names", list(_subsets(JSON_ONLY_FLAGS))[1:], ids=_ids)
def test_packb_ignores_json_only_flags(names):
    for doc in DOCUMENTS + [2**64 - 1, -(2**63), [2**53, {"k": -(2**60)}]]:
        assert orcodec.packb(doc, option=_ours(names)) == orcodec.packb(doc)


# --------------------------------------------------------------------------------------
# OPT_STRICT_INTEGER
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", INT_BOUNDARIES + [2**53 - 1, 2**53, -(2**53) + 1, -(2**53) - 1])
def test_strict_integer_boundaries_like_orjson(value):
    for doc in (value, [value], {"k": value}, MyInt(value)):
        expected = _outcome(orjson.dumps, doc, option=orjson.OPT_STRICT_INTEGER)
        if type(expected) is str:
            with pytest.raises(orcodec.JSONEncodeError, match=f"^{expected}$"):
                orcodec.dumps(doc, option=orcodec.OPT_STRICT_INTEGER)
        else:
            assert orcodec.dumps(doc, option=orcodec.OPT_STRICT_INTEGER) == expected


def test_strict_integer_message():
    for value in (2**53, -(2**53), 2**64 - 1):
        with pytest.raises(orcodec.JSONEncodeError, match="^Integer exceeds 53-bit range$"):
            orcodec.dumps(value, option=orcodec.OPT_STRICT_INTEGER)
    with pytest.raises(orcodec.JSONEncodeError, match="^Integer exceeds 64-bit range$"):
        orcodec.dumps(2**64, option=orcodec.OPT_STRICT_INTEGER)


# --------------------------------------------------------------------------------------
# OPT_PASSTHROUGH_TUPLE
# --------------------------------------------------------------------------------------


class MyTuple(tuple):
    pass


TUPLE_DOCUMENTS = [(), (1, 2), [(1, (2, 3)), {"t": ("a",)}], {"a": [(), [()]]}]


def test_passthrough_tuple_to_default():
    option = orcodec.OPT_PASSTHROUGH_TUPLE
    for doc in TUPLE_DOCUMENTS:
        seen = []

        def default(obj, seen=seen):
            seen.append(type(obj))
            return list(obj)

        assert orcodec.dumps(doc, default=default, option=option) == orjson.dumps(doc)
        assert seen and set(seen) == {tuple}
        assert orcodec.packb(doc, default=list, option=option) == ormsgpack.packb(
            doc, default=list, option=ormsgpack.OPT_PASSTHROUGH_TUPLE
        )


def test_passthrough_tuple_subclass_to_default():
    doc = [MyTuple((1, 2)), (3,)]
    out = orcodec.dumps(doc, default=lambda o: type(o).__name__, option=orcodec.OPT_PASSTHROUGH_TUPLE)
    assert out == b'["MyTuple","tuple"]'
    assert orcodec.packb(doc, default=list, option=orcodec.OPT_PASSTHROUGH_TUPLE) == ormsgpack.packb(
        doc, default=list, option=ormsgpack.OPT_PASSTHROUGH_TUPLE
    )


@pytest.mark.parametrize("obj, name", [((1,), "tuple"), ([MyTuple()], "MyTuple")])
def test_passthrough_tuple_without_default_raises(obj, name):
    with pytest.raises(orcodec.JSONEncodeError, match=f"^Type is not JSON serializable: {name}$"):
        orcodec.dumps(obj, option=orcodec.OPT_PASSTHROUGH_TUPLE)
    with pytest.raises(orcodec.MsgpackEncodeError, match=f"^Type is not MessagePack serializable: {name}$"):
        orcodec.packb(obj, option=orcodec.OPT_PASSTHROUGH_TUPLE)


def test_tuples_serialized_without_the_flag():
    assert orcodec.dumps(((1, MyTuple((2,))),)) == b"[[1,[2]]]"
    assert orcodec.packb((1, 2)) == ormsgpack.packb((1, 2))


# --------------------------------------------------------------------------------------
# OPT_PASSTHROUGH_BIG_INT
# --------------------------------------------------------------------------------------


def _big_ints_as_str(doc):
    if isinstance(doc, list):
        return [_big_ints_as_str(x) for x in doc]
    if isinstance(doc, dict):
        return {k: _big_ints_as_str(v) for k, v in doc.items()}
    return doc if -(2**63) <= doc <= 2**64 - 1 else str(doc)


@pytest.mark.parametrize("value", INT_BOUNDARIES + INTS_OUT_OF_RANGE)
def test_passthrough_big_int_like_ormsgpack(value):
    for doc in (value, [value], {"k": [value, 1]}):
        assert orcodec.packb(doc, default=str, option=orcodec.OPT_PASSTHROUGH_BIG_INT) == ormsgpack.packb(
            doc, default=str, option=ormsgpack.OPT_PASSTHROUGH_BIG_INT
        )
        assert orcodec.dumps(doc, default=str, option=orcodec.OPT_PASSTHROUGH_BIG_INT) == orjson.dumps(
            _big_ints_as_str(doc)
        )


@pytest.mark.parametrize("value", INTS_OUT_OF_RANGE)
def test_passthrough_big_int_without_default_raises(value):
    with pytest.raises(orcodec.JSONEncodeError, match="^Type is not JSON serializable: int$"):
        orcodec.dumps(value, option=orcodec.OPT_PASSTHROUGH_BIG_INT)
    with pytest.raises(orcodec.MsgpackEncodeError, match="^Type is not MessagePack serializable: int$"):
        orcodec.packb(value, option=orcodec.OPT_PASSTHROUGH_BIG_INT)
    with pytest.raises(orcodec.MsgpackEncodeError, match="^Type is not MessagePack serializable: MyInt$"):
        orcodec.packb(MyInt(value), option=orcodec.OPT_PASSTHROUGH_BIG_INT)


@pytest.mark.parametrize("value", INTS_OUT_OF_RANGE)
def test_big_int_still_raises_without_the_flag(value):
    with pytest.raises(orcodec.JSONEncodeError, match="^Integer exceeds 64-bit range$"):
        orcodec.dumps(value, default=str)
    with pytest.raises(orcodec.MsgpackEncodeError, match="^Integer exceeds 64-bit range$"):
        orcodec.packb(value, default=str)


def test_passthrough_big_int_with_strict_integer():
    # Beyond 64 bits goes to default; beyond 53 (but within 64) is the strict error.
    option = orcodec.OPT_PASSTHROUGH_BIG_INT | orcodec.OPT_STRICT_INTEGER
    out = orcodec.dumps([2**64, -(2**63) - 1], default=str, option=option)
    assert out == b'["18446744073709551616","-9223372036854775809"]'
    with pytest.raises(orcodec.JSONEncodeError, match="^Integer exceeds 53-bit range$"):
        orcodec.dumps(2**63, default=str, option=option)


def test_passthrough_big_int_default_returning_big_int():
    with pytest.raises(orcodec.JSONEncodeError, match="^default serializer exceeds recursion limit$"):
        orcodec.dumps(2**64, default=lambda o: o, option=orcodec.OPT_PASSTHROUGH_BIG_INT)


# --------------------------------------------------------------------------------------
# OPT_REPLACE_SURROGATES
# --------------------------------------------------------------------------------------


def _replaced(s: str) -> str:
    return "".join("?" if 0xD800 <= ord(c) < 0xE000 else c for c in s)


SURROGATE_VALUES = SURROGATE_STRINGS + [
    "\ud83d\ude00",  # a pair stored as two code points: two lone surrogates to Python
    "\u00e9\ud800",
    "\u4e2d\udc00\u6587",
    "\U0001f600\udfff\U0001f600",
    "\ud800" * 40,
    '"\n\ud800\\\x00',
    "a" * 31 + "\ud800",
]


@pytest.mark.parametrize("s", SURROGATE_VALUES)
def test_replace_surrogates_values_like_ormsgpack(s):
    for doc in (s, [s, "ok"], {"k": s}):
        assert orcodec.packb(doc, option=orcodec.OPT_REPLACE_SURROGATES) == ormsgpack.packb(
            doc, option=ormsgpack.OPT_REPLACE_SURROGATES
        )


@pytest.mark.parametrize("s", SURROGATE_VALUES)
def test_replace_surrogates_in_json(s):
    r = _replaced(s)
    for doc, plain in ((s, r), ([s, MyStr(s)], [r, r]), ({"k": s}, {"k": r})):
        assert orcodec.dumps(doc, option=orcodec.OPT_REPLACE_SURROGATES) == orjson.dumps(plain)


@pytest.mark.parametrize("s", SURROGATE_VALUES)
def test_replace_surrogates_in_keys(fmt, s):
    # ormsgpack raises for surrogates in keys even with the flag; orcodec replaces
    # them in keys as in values.
    encode = fmt.encode
    doc = {s: s, MyStr(s + "x"): 1}
    expected = {_replaced(s): _replaced(s), _replaced(s) + "x": 1}
    assert encode(doc, option=orcodec.OPT_REPLACE_SURROGATES) == encode(expected)


def test_surrogates_still_raise_without_the_flag(fmt):
    encode, error = fmt.encode, fmt.encode_error
    for doc in ("a\ud800", {"k\ud800": 1}, ["ok", {"k": "\udfff"}]):
        with pytest.raises(error, match="surrogates not allowed"):
            encode(doc)


def test_replace_surrogates_with_sort_keys_and_indent():
    doc = {"b\ud800": ["\udfff"], "a": {"\ud83d": 1, "\u00e9": 2}}
    option = orcodec.OPT_REPLACE_SURROGATES | orcodec.OPT_SORT_KEYS | orcodec.OPT_INDENT_2
    expected = {"a": {"\u00e9": 2, "?": 1}, "b?": ["?"]}
    # Keys sort by the text as given (Python's str order), then are replaced.
    assert orcodec.dumps(doc, option=option) == orjson.dumps(expected, option=orjson.OPT_INDENT_2)
    assert orcodec.packb(doc, option=option) == ormsgpack.packb(expected)


# --------------------------------------------------------------------------------------
# Random combinations of every flag here, against both peers
# --------------------------------------------------------------------------------------

ALL_TESTED = sorted(set(ORJSON_FLAGS) | set(ORMSGPACK_FLAGS))


@pytest.mark.parametrize("seed", range(40))
def test_random_flag_combinations(seed):
    rng = random.Random(seed)
    names = [n for n in ALL_TESTED if rng.random() < 0.5]
    ours = _ours(names)
    json_names = [n for n in names if n in ORJSON_FLAGS]
    msgpack_names = [n for n in names if n in ORMSGPACK_FLAGS]
    for doc in RANDOM_DOCUMENTS[seed % 20 :: 20] + HAND_DOCUMENTS[:12]:
        assert orcodec.dumps(doc, option=ours) == orjson.dumps(doc, option=_orjson_opts(json_names))
        assert orcodec.packb(doc, option=ours) == ormsgpack.packb(doc, option=_ormsgpack_opts(msgpack_names))


# --------------------------------------------------------------------------------------
# OPT_PASSTHROUGH_SUBCLASS
# --------------------------------------------------------------------------------------


def test_subclasses_serialize_as_their_base(fmt):
    encode = fmt.encode
    doc = [MyStr("é"), MyInt(5), MyFloat(1.5), MyDict(a=MyList([1])), MyList([MyStr("x")])]
    assert encode(doc) == encode(["é", 5, 1.5, {"a": [1]}, ["x"]])


@pytest.mark.parametrize(
    "value, name",
    [(MyStr("a"), "MyStr"), (MyInt(1), "MyInt"), (MyFloat(1.0), "MyFloat"), (MyDict(), "MyDict"), (MyList(), "MyList")],
)
def test_passthrough_subclass_sends_them_to_default(fmt, value, name):
    encode, error = fmt.encode, fmt.encode_error
    option = orcodec.OPT_PASSTHROUGH_SUBCLASS
    with pytest.raises(error, match=f"serializable: {name}$"):
        encode(value, option=option)
    seen = []

    def default(obj):
        seen.append(type(obj))
        return "d"

    assert encode([value, "plain", 1], default=default, option=option) == encode(["d", "plain", 1])
    assert seen == [type(value)]


def test_passthrough_subclass_leaves_exact_types_alone():
    doc = {"a": [1, 2.5, "x", None, True]}
    option = orcodec.OPT_PASSTHROUGH_SUBCLASS
    assert orcodec.dumps(doc, option=option) == orcodec.dumps(doc)
    assert orcodec.packb(doc, option=option) == orcodec.packb(doc)

"""The option flags that are not about one type, in both formats, byte for byte against
the peers: OPT_SORT_KEYS, the JSON-only OPT_INDENT_2 / OPT_APPEND_NEWLINE /
OPT_STRICT_INTEGER (ignored by packb), and OPT_PASSTHROUGH_TUPLE /
OPT_PASSTHROUGH_BIG_INT / OPT_REPLACE_SURROGATES / OPT_PASSTHROUGH_SUBCLASS, which
orcodec applies to both formats.

orjson's, ormsgpack's and orcodec's OPT_ values differ: each library is always given
its own constants, by name (``fmt.opts`` / ``fmt.peer_opts``).
"""

from __future__ import annotations

import collections
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
    DOCUMENT_FILES,
    INT_BOUNDARIES,
    INTS_OUT_OF_RANGE,
    JSON,
    MSGPACK,
    STRING_KINDS,
    SURROGATE_STRINGS,
    MyByteArray,
    MyBytes,
    MyDict,
    MyFloat,
    MyInt,
    MyList,
    MyStr,
    MyTuple,
    by_format,
    document_stem,
    fixture_bytes,
    nested_dicts,
    nested_mixed,
    outcome,
    replace_surrogates,
)

# Flags under test that orjson / ormsgpack also have, by name.
ORJSON_FLAGS = ["OPT_SORT_KEYS", "OPT_INDENT_2", "OPT_APPEND_NEWLINE", "OPT_STRICT_INTEGER"]
ORMSGPACK_FLAGS = ["OPT_SORT_KEYS", "OPT_PASSTHROUGH_TUPLE", "OPT_PASSTHROUGH_BIG_INT", "OPT_REPLACE_SURROGATES"]
PEER_FLAGS = {"json": ORJSON_FLAGS, "msgpack": ORMSGPACK_FLAGS}
JSON_ONLY_FLAGS = sorted(MSGPACK.ignored)
MSGPACK_ONLY_FLAGS = sorted(JSON.ignored)


def _subsets(names):
    for r in range(len(names) + 1):
        yield from itertools.combinations(names, r)


def _ids(names) -> str:
    return "|".join(n.removeprefix("OPT_") for n in names) or "none"


def _peer_has(fmt, name: str) -> bool:
    return hasattr(fmt.peer, name)


ORJSON_COMBINATIONS = list(_subsets(ORJSON_FLAGS))
ORMSGPACK_COMBINATIONS = list(_subsets(ORMSGPACK_FLAGS))
# Every combination of the flags each peer has.
PEER_COMBINATIONS = by_format(
    json=[(c,) for c in ORJSON_COMBINATIONS], msgpack=[(c,) for c in ORMSGPACK_COMBINATIONS], ids=lambda c: _ids(c[0])
)

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
FIXTURES = DOCUMENT_FILES


@functools.cache
def _fixture(name: str):
    return json.loads(fixture_bytes(name))


ALL_TESTED = sorted(set(ORJSON_FLAGS) | set(ORMSGPACK_FLAGS))


# --------------------------------------------------------------------------------------
# Byte for byte against the peer, under every combination of the flags it has
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt, names", PEER_COMBINATIONS)
def test_documents_equal_peer(fmt, names):
    for doc in DOCUMENTS:
        assert fmt.same_as_peer(doc, names), doc


@pytest.mark.parametrize("fmt, names", PEER_COMBINATIONS)
@pytest.mark.parametrize("name", FIXTURES)
def test_fixtures_equal_peer(fmt, name, names):
    # twitter.json has ids beyond 53 bits: both raise with OPT_STRICT_INTEGER.
    doc = _fixture(name)
    ours = outcome(fmt.encode, doc, option=fmt.opts(names))
    assert ours == outcome(fmt.peer_encode, doc, option=fmt.peer_opts(names))
    assert ours[0] == "ok" or (document_stem(name) == "twitter" and "OPT_STRICT_INTEGER" in names)


@pytest.mark.parametrize("fmt, names", PEER_COMBINATIONS)
def test_string_kinds_equal_peer(fmt, names):
    doc = {v: [v, {v: v}] for v in reversed(STRING_KINDS.values())}
    fmt.same_as_peer(doc, names)


@pytest.mark.parametrize(
    "fmt, names",
    by_format(
        json=[(c,) for c in ORJSON_COMBINATIONS], msgpack=[((),), (("OPT_SORT_KEYS",),)], ids=lambda c: _ids(c[0])
    ),
)
def test_subclasses_and_tuples_equal_peer_on_plain_types(fmt, names):
    doc = MyDict(b=MyList([(1, 2), ()]), a=MyStr("s"))
    plain = {"b": [[1, 2], []], "a": "s"}
    assert fmt.encode(doc, option=fmt.opts(names)) == fmt.peer_encode(plain, option=fmt.peer_opts(names))


@pytest.mark.parametrize("seed", range(40))
def test_random_flag_combinations(fmt, seed):
    # orcodec given every flag tested here, the peer only those it has: the documents have
    # no tuples, big ints or surrogates, so the others change nothing.
    rng = random.Random(seed)
    names = [n for n in ALL_TESTED if rng.random() < 0.5]
    peer_names = [n for n in names if n in PEER_FLAGS[fmt.name]]
    for doc in RANDOM_DOCUMENTS[seed % 20 :: 20] + HAND_DOCUMENTS[:12]:
        assert fmt.encode(doc, option=fmt.opts(names)) == fmt.peer_encode(doc, option=fmt.peer_opts(peer_names))


# --------------------------------------------------------------------------------------
# Flags that mean nothing to a format are ignored by it
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt, names",
    by_format(
        json=[(c,) for c in list(_subsets(MSGPACK_ONLY_FLAGS))[1:]],
        msgpack=[(c,) for c in list(_subsets(JSON_ONLY_FLAGS))[1:]],
        ids=lambda c: _ids(c[0]),
    ),
)
def test_flags_of_the_other_format_are_ignored(fmt, names):
    for doc in DOCUMENTS + [2**64 - 1, -(2**63), [2**53, {"k": -(2**60)}]]:
        assert fmt.encode(doc, option=fmt.opts(names)) == fmt.encode(doc)


# --------------------------------------------------------------------------------------
# OPT_INDENT_2 and OPT_APPEND_NEWLINE (JSON)
# --------------------------------------------------------------------------------------


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
def test_indent_and_sort_keys_at_the_deepest_nesting(fmt, depth):
    # MessagePack ignores OPT_INDENT_2 and sorts like ormsgpack.
    for doc in (nested_dicts(depth), nested_mixed(depth)):
        fmt.same_as_peer(doc, ("OPT_INDENT_2", "OPT_SORT_KEYS"))


# --------------------------------------------------------------------------------------
# OPT_SORT_KEYS
# --------------------------------------------------------------------------------------


def test_sort_keys_is_utf8_byte_order(fmt):
    doc = {k: None for k in KEYS}
    out = fmt.decode(fmt.encode(doc, option=orcodec.OPT_SORT_KEYS))
    assert list(out) == sorted(KEYS, key=lambda k: k.encode("utf-8")) == sorted(KEYS)


def test_sort_keys_str_subclass_keys(fmt):
    # str subclass keys are no str keys for either peer, sorted or not: "Dict key must
    # be str". With OPT_NON_STR_KEYS they are keys: JSON sorts them like str (as
    # orjson); MessagePack refuses the two flags together (as ormsgpack).
    encode = fmt.encode
    doc = {MyStr("b"): 1, "a": 2, MyStr("\u00e9"): 3, "c": MyDict(z=1, y=2)}
    expected = {"a": 2, "b": 1, "c": {"y": 2, "z": 1}, "\u00e9": 3}
    for names in (("OPT_SORT_KEYS",), ()):
        with pytest.raises(fmt.encode_error) as info:
            encode(doc, option=fmt.opts(names))
        with pytest.raises(fmt.peer_encode_error) as peer:
            fmt.peer_encode(doc, option=fmt.peer_opts(names))
        assert str(info.value) == str(peer.value) == "Dict key must be str"
    names = ("OPT_SORT_KEYS", "OPT_NON_STR_KEYS")
    if fmt is JSON:
        assert fmt.same_as_peer(doc, names) == encode(expected)
    else:
        with pytest.raises(fmt.encode_error) as info:
            encode(doc, option=fmt.opts(names))
        with pytest.raises(fmt.peer_encode_error) as peer:
            fmt.peer_encode(doc, option=fmt.peer_opts(names))
        assert str(info.value) == str(peer.value) == "OPT_NON_STR_KEYS is not compatible with OPT_SORT_KEYS"


@pytest.mark.parametrize("doc", [{"a": 1, 1: 2}, {1: 2}, {"a": {None: 1}}, {"b": 1, ("t",): 2}])
def test_sort_keys_non_str_key_raises(fmt, doc):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error, match="(?m)^Dict key must be str$"):
        encode(doc, option=orcodec.OPT_SORT_KEYS)


def test_sort_keys_self_reference_raises(fmt):
    encode, error = fmt.encode, fmt.encode_error
    doc: dict = {"b": 1}
    doc["a"] = doc
    with pytest.raises(error, match="(?m)^Recursion limit reached$"):
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

    with pytest.raises(error, match="(?m)^dict changed size during serialization$"):
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
# OPT_STRICT_INTEGER
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", INT_BOUNDARIES + [2**53 - 1, 2**53, -(2**53) + 1, -(2**53) - 1])
def test_strict_integer_boundaries_like_orjson(value):
    for doc in (value, [value], {"k": value}, MyInt(value)):
        kind, *expected = outcome(JSON.peer_encode, doc, option=JSON.peer_opts(["OPT_STRICT_INTEGER"]))
        if kind == "raise":
            base, message = expected
            assert base is TypeError
            with pytest.raises(orcodec.JSONEncodeError, match=f"(?m)^{message}$"):
                orcodec.dumps(doc, option=orcodec.OPT_STRICT_INTEGER)
        else:
            assert orcodec.dumps(doc, option=orcodec.OPT_STRICT_INTEGER) == expected[0]


def test_strict_integer_message():
    for value in (2**53, -(2**53), 2**64 - 1):
        with pytest.raises(orcodec.JSONEncodeError, match="(?m)^Integer exceeds 53-bit range$"):
            orcodec.dumps(value, option=orcodec.OPT_STRICT_INTEGER)
    with pytest.raises(orcodec.JSONEncodeError, match="(?m)^Integer exceeds 64-bit range$"):
        orcodec.dumps(2**64, option=orcodec.OPT_STRICT_INTEGER)


# --------------------------------------------------------------------------------------
# OPT_PASSTHROUGH_TUPLE
# --------------------------------------------------------------------------------------

TUPLE_DOCUMENTS = [(), (1, 2), [(1, (2, 3)), {"t": ("a",)}], {"a": [(), [()]]}]


@pytest.mark.parametrize("doc", TUPLE_DOCUMENTS, ids=repr)
def test_passthrough_tuple_to_default(fmt, doc):
    seen = []

    def default(obj):
        seen.append(type(obj))
        return list(obj)

    # default's lists are written where the tuples would have been.
    assert fmt.encode(doc, default=default, option=orcodec.OPT_PASSTHROUGH_TUPLE) == fmt.reference(doc)
    assert seen and set(seen) == {tuple}
    if _peer_has(fmt, "OPT_PASSTHROUGH_TUPLE"):
        fmt.same_as_peer(doc, ("OPT_PASSTHROUGH_TUPLE",), default=list)


@pytest.mark.parametrize(
    "fmt, expected", by_format(json=[b'["MyTuple","tuple"]'], msgpack=[b"\x92\xa7MyTuple\xa5tuple"], ids=lambda _: "")
)
def test_passthrough_tuple_subclass_to_default(fmt, expected):
    doc = [MyTuple((1, 2)), (3,)]
    assert fmt.encode(doc, default=lambda o: type(o).__name__, option=orcodec.OPT_PASSTHROUGH_TUPLE) == expected
    if _peer_has(fmt, "OPT_PASSTHROUGH_TUPLE"):
        fmt.same_as_peer(doc, ("OPT_PASSTHROUGH_TUPLE",), default=list)
        fmt.same_as_peer(doc, ("OPT_PASSTHROUGH_TUPLE",), default=lambda o: type(o).__name__)


@pytest.mark.parametrize("obj, name", [((1,), "tuple"), ([MyTuple()], "MyTuple")])
def test_passthrough_tuple_without_default_raises(fmt, obj, name):
    with pytest.raises(fmt.encode_error, match=f"(?m)^Type is not {fmt.label} serializable: {name}$"):
        fmt.encode(obj, option=orcodec.OPT_PASSTHROUGH_TUPLE)


@pytest.mark.parametrize(
    "fmt, expected", by_format(json=[b"[[1,[2]]]"], msgpack=[b"\x91\x92\x01\x91\x02"], ids=lambda _: "")
)
def test_tuples_serialized_without_the_flag(fmt, expected):
    # Exact tuples are arrays; subclasses (namedtuples) go to default, as with the peers.
    assert fmt.encode(((1, MyTuple((2,))),), default=list) == expected
    assert fmt.encode((1, 2)) == fmt.reference((1, 2))
    fmt.same_as_peer(((1, MyTuple((2,))),), default=list)
    with pytest.raises(fmt.encode_error, match=f"(?m)^Type is not {fmt.label} serializable: MyTuple$"):
        fmt.encode(((1, MyTuple((2,))),))


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
def test_passthrough_big_int(fmt, value):
    for doc in (value, [value], {"k": [value, 1]}):
        out = fmt.encode(doc, default=str, option=orcodec.OPT_PASSTHROUGH_BIG_INT)
        assert out == fmt.reference(_big_ints_as_str(doc))
        if _peer_has(fmt, "OPT_PASSTHROUGH_BIG_INT"):
            fmt.same_as_peer(doc, ("OPT_PASSTHROUGH_BIG_INT",), default=str)


@pytest.mark.parametrize("value", INTS_OUT_OF_RANGE)
def test_passthrough_big_int_without_default_raises(fmt, value):
    with pytest.raises(fmt.encode_error, match=f"(?m)^Type is not {fmt.label} serializable: int$"):
        fmt.encode(value, option=orcodec.OPT_PASSTHROUGH_BIG_INT)
    with pytest.raises(fmt.encode_error, match=f"(?m)^Type is not {fmt.label} serializable: MyInt$"):
        fmt.encode(MyInt(value), option=orcodec.OPT_PASSTHROUGH_BIG_INT)


@pytest.mark.parametrize("value", INTS_OUT_OF_RANGE)
def test_big_int_still_raises_without_the_flag(fmt, value):
    with pytest.raises(fmt.encode_error, match="(?m)^Integer exceeds 64-bit range$"):
        fmt.encode(value, default=str)


def test_passthrough_big_int_with_strict_integer():
    # Beyond 64 bits goes to default; beyond 53 (but within 64) is the strict error.
    option = orcodec.OPT_PASSTHROUGH_BIG_INT | orcodec.OPT_STRICT_INTEGER
    out = orcodec.dumps([2**64, -(2**63) - 1], default=str, option=option)
    assert out == b'["18446744073709551616","-9223372036854775809"]'
    with pytest.raises(orcodec.JSONEncodeError, match="(?m)^Integer exceeds 53-bit range$"):
        orcodec.dumps(2**63, default=str, option=option)


def test_passthrough_big_int_default_returning_big_int(fmt):
    with pytest.raises(fmt.encode_error, match=f"(?m)^{fmt.default_recursion_message}$"):
        fmt.encode(2**64, default=lambda o: o, option=orcodec.OPT_PASSTHROUGH_BIG_INT)


# --------------------------------------------------------------------------------------
# OPT_REPLACE_SURROGATES
# --------------------------------------------------------------------------------------

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
def test_replace_surrogates_in_values(fmt, s):
    r = replace_surrogates(s)
    for doc, plain in ((s, r), ([s, "ok"], [r, "ok"]), ([s, MyStr(s)], [r, r]), ({"k": s}, {"k": r})):
        assert fmt.encode(doc, option=orcodec.OPT_REPLACE_SURROGATES) == fmt.reference(plain)
        if _peer_has(fmt, "OPT_REPLACE_SURROGATES"):
            fmt.same_as_peer(doc, ("OPT_REPLACE_SURROGATES",))


@pytest.mark.parametrize("s", SURROGATE_VALUES)
def test_replace_surrogates_in_keys(fmt, s):
    # ormsgpack replaces surrogates in values only and raises for a key, and so does
    # packb; dumps (the flag is ormsgpack's: orjson has none) replaces them in keys too.
    doc = {s: s, "k": {s + "x": 1}}
    r = replace_surrogates(s)
    option = orcodec.OPT_REPLACE_SURROGATES
    if fmt is JSON:
        assert fmt.encode(doc, option=option) == fmt.encode({r: r, "k": {r + "x": 1}})
        return
    with pytest.raises(fmt.encode_error) as info:
        fmt.encode(doc, option=option)
    with pytest.raises(fmt.peer_encode_error) as peer:
        fmt.peer_encode(doc, option=fmt.peer_opts(["OPT_REPLACE_SURROGATES"]))
    assert str(info.value) == str(peer.value) == fmt.surrogates_message


def test_surrogates_still_raise_without_the_flag(fmt):
    for doc in ("a\ud800", {"k\ud800": 1}, ["ok", {"k": "\udfff"}]):
        with pytest.raises(fmt.encode_error) as info:
            fmt.encode(doc)
        assert str(info.value) == fmt.surrogates_message


def test_replace_surrogates_with_sort_keys_and_indent():
    doc = {"b\ud800": ["\udfff"], "a": {"\ud83d": 1, "\u00e9": 2}}
    option = orcodec.OPT_REPLACE_SURROGATES | orcodec.OPT_SORT_KEYS | orcodec.OPT_INDENT_2
    expected = {"a": {"\u00e9": 2, "?": 1}, "b?": ["?"]}
    # Keys sort by the text as given (Python's str order), then are replaced.
    assert orcodec.dumps(doc, option=option) == orjson.dumps(expected, option=orjson.OPT_INDENT_2)
    # MessagePack replaces in values only, sorted or not.
    values = {"b": ["\udfff"], "a": {"z": "\ud83d", "\u00e9": 2}}
    ormsgpack_option = ormsgpack.OPT_REPLACE_SURROGATES | ormsgpack.OPT_SORT_KEYS
    assert orcodec.packb(values, option=option) == ormsgpack.packb(values, option=ormsgpack_option)


# --------------------------------------------------------------------------------------
# OPT_PASSTHROUGH_SUBCLASS
# --------------------------------------------------------------------------------------


def test_subclasses_serialize_as_their_base(fmt):
    doc = [MyStr("é"), MyInt(5), MyDict(a=MyList([1])), MyList([MyStr("x")])]
    assert fmt.encode(doc) == fmt.encode(["é", 5, {"a": [1]}, ["x"]])
    fmt.same_as_peer(doc)


@pytest.mark.parametrize("value", [MyFloat(1.5), MyTuple((1, 2)), collections.namedtuple("P", "x")(1)])
def test_other_subclasses_go_to_default(fmt, value):
    # Neither peer writes float or tuple subclasses (namedtuples): they go to default,
    # which may make a namedtuple a map.
    name = type(value).__name__
    for doc in (value, [value], {"k": value}):
        with pytest.raises(fmt.encode_error) as info:
            fmt.encode(doc)
        with pytest.raises(fmt.peer_encode_error) as peer:
            fmt.peer_encode(doc)
        assert str(info.value) == str(peer.value) == f"Type is not {fmt.label} serializable: {name}"
        out = fmt.same_as_peer(doc, default=lambda o: o._asdict() if hasattr(o, "_asdict") else repr(o))
        assert out == fmt.same_as_peer(
            doc, ("OPT_PASSTHROUGH_SUBCLASS",), default=lambda o: o._asdict() if hasattr(o, "_asdict") else repr(o)
        )


@pytest.mark.parametrize(
    "value, name",
    [(MyStr("a"), "MyStr"), (MyInt(1), "MyInt"), (MyFloat(1.0), "MyFloat"), (MyDict(), "MyDict"), (MyList(), "MyList")],
)
def test_passthrough_subclass_sends_them_to_default(fmt, value, name):
    option = orcodec.OPT_PASSTHROUGH_SUBCLASS
    with pytest.raises(fmt.encode_error, match=f"serializable: {name}$"):
        fmt.encode(value, option=option)
    seen = []

    def default(obj):
        seen.append(type(obj))
        return "d"

    assert fmt.encode([value, "plain", 1], default=default, option=option) == fmt.encode(["d", "plain", 1])
    assert seen == [type(value)]
    fmt.same_as_peer([value, "plain", 1], ("OPT_PASSTHROUGH_SUBCLASS",), default=lambda o: "d")


def test_passthrough_subclass_leaves_exact_types_alone(fmt):
    doc = {"a": [1, 2.5, "x", None, True]}
    assert fmt.encode(doc, option=orcodec.OPT_PASSTHROUGH_SUBCLASS) == fmt.encode(doc)


def test_namedtuples_go_to_default_with_or_without_the_flag(fmt):
    Pair = collections.namedtuple("Pair", "a b")
    obj = [Pair(1, 2), (3, 4)]
    for names in ((), ("OPT_PASSTHROUGH_SUBCLASS",)):
        option = fmt.opts(names)
        assert fmt.encode(obj, default=lambda o: o._asdict(), option=option) == fmt.encode([{"a": 1, "b": 2}, [3, 4]])
        with pytest.raises(fmt.encode_error, match="serializable: Pair"):
            fmt.encode(obj, option=option)
        # As orjson and ormsgpack do.
        fmt.same_as_peer(obj, names, default=lambda o: o._asdict())


@pytest.mark.parametrize("obj", [MyBytes(b"ab"), MyByteArray(b"ab")], ids=lambda o: type(o).__name__)
def test_bytes_subclasses_go_to_default(fmt, obj):
    # Neither peer writes subclasses of bytes or bytearray, with the flag or without.
    for names in ((), ("OPT_PASSTHROUGH_SUBCLASS",)):
        assert fmt.same_as_peer(obj, names, default=lambda o: "d") == fmt.encode("d")
        with pytest.raises(fmt.encode_error, match=f"(?m)^Type is not {fmt.label} serializable: {type(obj).__name__}$"):
            fmt.encode(obj, option=fmt.opts(names))


def test_passthrough_subclass_leaves_exact_bytes_types_alone():
    for obj in (b"ab", bytearray(b"ab"), memoryview(b"ab")):
        assert orcodec.packb(obj, option=orcodec.OPT_PASSTHROUGH_SUBCLASS) == b"\xc4\x02ab"

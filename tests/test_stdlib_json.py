"""orcodec.json against the standard library's json: the same text, values and
exceptions (types and messages), on fixed cases and on random documents x random
option combinations."""

import collections
import decimal
import enum
import io
import json
import math
import sys

import corpora
import orcodec.json as oj
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def outcome(fn, *args, **kwargs):
    """The result of a call, or its exception's type and message."""
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - the comparison is the point
        return ("raised", type(exc), str(exc))


def same_dumps(obj, **kw):
    ours = outcome(oj.dumps, obj, **kw)
    theirs = outcome(json.dumps, obj, **kw)
    assert ours == theirs, (obj, kw)
    return ours


class Color(enum.IntEnum):
    RED = 1
    BIG = 2**70


class Weird(float, enum.Enum):
    NAN = float("nan")
    TAU = 6.283185307179586


class MyStr(str):
    pass


class MyInt(int):
    def __repr__(self):
        return "not used"


class MyFloat(float):
    def __repr__(self):
        return "not used either"


class MyList(list):
    pass


class MyDict(dict):
    pass


# --- fixed cases --------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        1e16,
        1e15,
        1e-5,
        1e-4,
        0.1,
        -0.0,
        0.0,
        5e-324,
        1.7976931348623157e308,
        123456789.123456789,
        1617161771.7650001,
        math.pi**100,
        float("nan"),
        float("inf"),
        float("-inf"),
        2**63,
        -(2**63) - 1,
        2**64,
        10**100,
        -(10**40),
        True,
        False,
        None,
        "",
        "\x00\x1f\x7f\x80\xff\u0100\u07ff\u0800\ud7ff\ue000\uffff\U00010000\U0010ffff",
        "\ud800",
        "\udfff\ud800",
        "\ud83d\ude00",
        '"\\/\b\f\n\r\t',
        "\u2028\u2029",
        Color.RED,
        Color.BIG,
        Weird.NAN,
        Weird.TAU,
        MyStr("sub"),
        MyInt(7),
        MyFloat(2.5),
        MyList([1, MyList()]),
        MyDict(a=MyDict()),
        collections.OrderedDict([("b", 1), ("a", 2)]),
        (1, (2, ())),
        {3: 1, 2.5: 2, True: 3, False: 4, None: 5, "s": 6, MyStr("t"): 7, 2**70: 9},
        {Color.RED: 8, MyInt(5): 1, -7: 2, MyFloat(0.5): 3},
        {float("nan"): 1, float("inf"): 2, float("-inf"): 3, -0.0: 4},
    ],
    ids=repr,
)
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"ensure_ascii": False},
        {"indent": 2},
        {"indent": 0},
        {"indent": -1},
        {"indent": "\t"},
        {"indent": "\u00e9\ud800"},
        {"separators": (",", ":")},
        {"separators": (" ,", " : ")},
        {"separators": ("\u00e9", "\U0001f600")},
        {"sort_keys": True},
        {"allow_nan": False},
        {"allow_nan": False, "indent": 1},
        {"skipkeys": True, "ensure_ascii": False, "indent": 3, "sort_keys": True},
    ],
    ids=repr,
)
def test_text_equals_the_stdlibs(value, kw):
    # Mixed key types do not sort: then both raise the same TypeError.
    same_dumps(value, **kw)
    same_dumps([value, {"k": value}], **kw)


def test_dump_writes_the_same_text():
    doc = {"a": [1, 2.5, "\u00e9"], "b": None}
    for kw in ({}, {"indent": 4}, {"ensure_ascii": False, "sort_keys": True}):
        ours, theirs = io.StringIO(), io.StringIO()
        oj.dump(doc, ours, **kw)
        json.dump(doc, theirs, **kw)
        assert ours.getvalue() == theirs.getvalue()


def test_messages_of_refused_objects():
    assert same_dumps(object())[1] is TypeError
    assert same_dumps(object())[2] == "Object of type object is not JSON serializable"
    assert same_dumps({(1, 2): 3})[2] == "keys must be str, int, float, bool or None, not tuple"
    assert same_dumps({b"k": 3})[2] == "keys must be str, int, float, bool or None, not bytes"
    assert same_dumps({b"k": 3, "v": 1}, skipkeys=True) == ("ok", '{"v": 1}')
    assert same_dumps({b"k": 3}, skipkeys=True, indent=2) == ("ok", "{\n  \n}")
    assert same_dumps(b"bytes")[2] == "Object of type bytes is not JSON serializable"
    assert same_dumps(decimal.Decimal("1.5"))[1] is TypeError
    assert same_dumps({1: 1, "a": 2}, sort_keys=True)[1] is TypeError


def test_out_of_range_floats_messages_follow_the_stdlibs_two_encoders():
    # Before 3.12 its C encoder (one-shot, no indent) says less than its
    # Python one; from 3.12 both name the value.
    c_message = "Out of range float values are not JSON compliant" + (": nan" if sys.version_info >= (3, 12) else "")
    assert same_dumps([float("nan")], allow_nan=False)[2] == c_message
    assert same_dumps([float("inf")], allow_nan=False, indent=2)[2] == (
        "Out of range float values are not JSON compliant: inf"
    )
    assert same_dumps({Weird.NAN: 1}, allow_nan=False, indent=2)[2] == (
        "Out of range float values are not JSON compliant: <Weird.NAN: nan>"
    )
    ours, theirs = io.StringIO(), io.StringIO()
    assert outcome(oj.dump, float("-inf"), ours, allow_nan=False) == outcome(
        json.dump, float("-inf"), theirs, allow_nan=False
    )


def test_circular_references():
    a = []
    a.append(a)
    d = {}
    d["d"] = d
    for obj in (a, d, [d], {"a": a}):
        assert same_dumps(obj) == ("raised", ValueError, "Circular reference detected")
        assert same_dumps(obj, indent=1) == ("raised", ValueError, "Circular reference detected")
    shared = [1]
    assert same_dumps([shared, shared, {"x": shared}])[0] == "ok"
    # default returning the object it was given again.
    assert same_dumps(object(), default=lambda o: [o]) == ("raised", ValueError, "Circular reference detected")


def test_without_circular_check_recursion_error():
    a = []
    a.append(a)
    with pytest.raises(RecursionError):
        oj.dumps(a, check_circular=False)
    with pytest.raises(RecursionError):
        oj.dumps(object(), check_circular=False, default=lambda o: [o])


def test_deep_nesting_raises_recursion_error_even_with_a_high_limit():
    deep = []
    for _ in range(50_000):
        deep = [deep]
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1_000_000)
    try:
        with pytest.raises(RecursionError):
            oj.dumps(deep)
    finally:
        sys.setrecursionlimit(old)
    nested = []
    for _ in range(500):
        nested = [nested]
    same_dumps(nested)


def test_default_is_called_as_the_stdlib_calls_it():
    calls = []

    def default(o):
        calls.append(type(o).__name__)
        return repr(o) if not isinstance(o, complex) else [o.real, o.imag]

    doc = [1j, {"s": {1, 2}.__class__}, frozenset(), bytearray(b"x")]
    ours = oj.dumps(doc, default=default)
    ours_calls, calls[:] = calls[:], []
    assert ours == json.dumps(doc, default=default)
    assert ours_calls == calls


def test_default_may_change_the_list_being_encoded():
    a = [object()] * 10

    def crasher(obj):
        del a[-1]

    assert oj.dumps(a, default=crasher) == "[null, null, null, null, null]"


def test_default_may_empty_the_dict_being_encoded():
    d = {"a": object(), "b": [1, 2]}

    def clear(o):
        d.clear()
        return "cleared"

    # No crash; the text has what was read before the change.
    assert oj.dumps(d, default=clear).startswith('{"a": "cleared"')


def test_default_returning_anything():
    for returned in (None, 1, "x", [object], {"k": object}, b"b", float("nan")):
        same_dumps(object(), default=lambda o, r=returned: r)


def test_hooks_raising_propagate():
    def boom(o):
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        oj.dumps([object()], default=boom)


def test_encoder_subclasses():
    class Default(oj.JSONEncoder):
        def default(self, o):
            return sorted(o) if isinstance(o, set) else super().default(o)

    assert Default(indent=2).encode({"s": {3, 1}}) == json.dumps({"s": [1, 3]}, indent=2)
    assert oj.dumps({"s": {2}}, cls=Default) == '{"s": [2]}'
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        oj.dumps(object(), cls=Default)

    class Chunks(oj.JSONEncoder):
        def iterencode(self, o, _one_shot=False):
            for chunk in super().iterencode(o, _one_shot):
                yield chunk.upper()

    assert oj.dumps({"a": "b"}, cls=Chunks) == '{"A": "B"}'
    assert Chunks().encode(["x"]) == '["X"]'

    class Encode(oj.JSONEncoder):
        def encode(self, o):
            return "custom:" + super().encode(o)

    assert oj.dumps([1], cls=Encode) == "custom:[1]"

    class Stdlib(json.JSONEncoder):
        def default(self, o):
            return "std"

    assert oj.dumps([object()], cls=Stdlib) == '["std"]'
    assert issubclass(oj.JSONEncoder, json.JSONEncoder)
    enc = oj.JSONEncoder(separators=(";", "="), sort_keys=True)
    assert enc.encode({"b": 1, "a": [1, 2]}) == json.JSONEncoder(separators=(";", "="), sort_keys=True).encode(
        {"b": 1, "a": [1, 2]}
    )
    assert list(oj.JSONEncoder().iterencode([1])) == ["[1]"]


def test_illegal_separators_and_indent():
    for seps in ((b", ", ": "), (", ", b": "), (1, 2)):
        assert outcome(oj.dumps, {1: 2}, separators=seps)[1] is TypeError
        assert outcome(json.dumps, {1: 2}, separators=seps)[1] is TypeError
    assert same_dumps([1], indent=1.5)[1] is TypeError


def test_decoding_equals_the_stdlibs():
    cases = [
        "",
        "[",
        '{"a": 1, "a": 2}',
        "NaN",
        "[Infinity, -Infinity]",
        '"\\ud800"',
        '"\x01"',
        "1" * 5000,
        "[1.0, 1E400, -0, -0.0]",
        "\ufeff[]",
        " \t\n\r[1] \n",
        "[1]x",
        "{'a': 1}",
        '{"a" 1}',
        "[1,]",
        "\n  \n\n     !",
    ]
    for text in cases:
        assert repr(outcome(oj.loads, text)) == repr(outcome(json.loads, text)), text
        assert repr(outcome(oj.loads, text, strict=False)) == repr(outcome(json.loads, text, strict=False)), text


def test_decode_errors_are_the_stdlibs_class():
    with pytest.raises(json.JSONDecodeError) as info:
        oj.loads("[42")
    assert (info.value.msg, info.value.pos, info.value.lineno, info.value.colno) == ("Expecting ',' delimiter", 3, 1, 4)
    assert oj.JSONDecodeError is json.JSONDecodeError


def test_decode_hooks():
    text = '{"a": 1.10, "b": [2, NaN], "a": {"c": 3}}'
    hooks = [
        {"object_hook": lambda d: sorted(d.items())},
        {"object_pairs_hook": lambda pairs: pairs},
        {"parse_float": decimal.Decimal},
        {"parse_int": str},
        {"parse_constant": lambda c: "const " + c},
        {"object_pairs_hook": collections.OrderedDict, "object_hook": lambda d: None},
    ]
    for kw in hooks:
        assert repr(oj.loads(text, **kw)) == repr(json.loads(text, **kw))
    assert oj.load(io.StringIO(text)) == json.loads(text)


def test_decode_bytes_in_every_encoding():
    data = ["a\xb5\u20ac\U0001d120"]
    for encoding in ("utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"):
        raw = json.dumps(data).encode(encoding)
        assert oj.loads(raw) == data
        assert oj.loads(bytearray(raw)) == data
    for raw in (b"5\x00", b"\x007", b"57", b'["\x80"]', b"\xed\xa0\x80"):
        assert outcome(oj.loads, raw) == outcome(json.loads, raw)
    for bad in (1, None, [], memoryview(b"1")):
        assert outcome(oj.loads, bad) == outcome(json.loads, bad)


# The repository's stand-ins of the four documents, and the real ones when
# the shared fixtures are there.
DOCUMENTS = [corpora.GENERATED_DIR / f"{stem}.json" for stem in corpora.DOCUMENT_STEMS] + [
    corpora.SHARED_DIR / f"{stem}.json" for stem in corpora.shared_documents()
]


@pytest.mark.parametrize("path", DOCUMENTS, ids=[f"{p.parent.name}/{p.stem}" for p in DOCUMENTS])
def test_fixture_documents(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    for kw in ({}, {"ensure_ascii": False}, {"indent": 2, "sort_keys": True}, {"separators": (",", ":")}):
        assert oj.dumps(doc, **kw) == json.dumps(doc, **kw)


# --- random documents x random options --------------------------------------------

# Every code point, lone surrogates included (a Python str may hold them).
any_text = st.text(
    st.one_of(
        st.characters(),
        st.integers(0xD800, 0xDFFF).map(chr),
        st.sampled_from('"\\\x00\x08\x1f\x7f\u2028'),
    ),
    max_size=12,
)
keys = st.one_of(
    any_text,
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.builds(MyStr, any_text),
    st.sampled_from([Color.RED, Color.BIG]),
)
leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    any_text,
    st.builds(MyInt, st.integers()),
    st.builds(MyFloat, st.floats()),
    st.sampled_from([Color.RED, Weird.TAU, Weird.NAN]),
    st.builds(complex, st.floats(-10, 10), st.floats(-10, 10)),
    st.builds(bytes, st.binary(max_size=3)),
)
documents = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=5).map(tuple),
        st.lists(children, max_size=5).map(MyList),
        st.dictionaries(keys, children, max_size=5),
        st.dictionaries(st.text(max_size=5), children, max_size=5).map(MyDict),
    ),
    max_leaves=30,
)
options = st.fixed_dictionaries(
    {},
    optional={
        "skipkeys": st.booleans(),
        "ensure_ascii": st.booleans(),
        "check_circular": st.booleans(),
        "allow_nan": st.booleans(),
        "sort_keys": st.booleans(),
        "indent": st.one_of(st.none(), st.integers(-2, 4), st.sampled_from(["", "\t", " . ", "\u00e9"])),
        "separators": st.one_of(
            st.none(),
            st.tuples(st.sampled_from([",", ", ", " ,", ";\n", "\u00b7"]), st.sampled_from([":", ": ", " : ", "="])),
        ),
        "default": st.sampled_from([None, repr, str, lambda o: [type(o).__name__]]),
    },
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, options)
def test_random_documents_and_options(doc, kw):
    result = same_dumps(doc, **kw)
    ours, theirs = io.StringIO(), io.StringIO()
    assert outcome(oj.dump, doc, ours, **kw)[:2] == outcome(json.dump, doc, theirs, **kw)[:2]
    if result[0] == "ok":
        assert ours.getvalue() == theirs.getvalue()
        text = result[1]
        # NaN compares unequal to itself: compare the reprs.
        assert repr(outcome(oj.loads, text)) == repr(outcome(json.loads, text))


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from('[]{}",:0123456789.eE+- \t\ntruefalsnNIaiy\\u\ud800'), max_size=30))
def test_random_texts_decode_as_the_stdlibs(text):
    ours, theirs = outcome(oj.loads, text), outcome(json.loads, text)
    # NaN compares unequal to itself: compare the reprs.
    assert repr(ours) == repr(theirs)


# --- what runs in the Rust core ---------------------------------------------------


def test_the_core_reads_what_it_reads_as_the_stdlib_and_declines_the_rest():
    from orcodec._orcodec import _json_loads

    for text in ('{"a": [1, -2, 2.5, "\\u00e9", true, null]}', "18446744073709551615", "-9223372036854775808", " 1 "):
        assert repr(_json_loads(text)) == repr(json.loads(text))
    for text in (
        "18446744073709551616",
        "-9223372036854775809",
        "1" * 5000,
        "[1e400]",
        "NaN",
        "[-Infinity]",
        '"\\ud800"',
        "\ud800",
        "[1,]",
        "",
        "[" * 2000 + "]" * 2000,
    ):
        assert _json_loads(text) is NotImplemented, text
    with pytest.raises(TypeError):
        _json_loads()


def test_keys_are_one_object_per_document_as_the_stdlibs_memo():
    long_key = "k" * 100
    text = json.dumps([{"a": 1, "\u00e9t\u00e9": 2, long_key: 3}] * 3)
    first, *rest = oj.loads(text)
    for other in rest:
        for a, b in zip(first, other):
            assert a is b


def test_big_ints_keep_the_interpreters_digit_limit():
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(5000)
    try:
        assert oj.loads("1" * 5000) == int("1" * 5000)
        with pytest.raises(ValueError, match="Exceeds the limit"):
            oj.loads("1" * 5001)
        with pytest.raises(ValueError, match="Exceeds the limit"):
            oj.dumps(10**6000)
    finally:
        sys.set_int_max_str_digits(old)


def test_utf8_bytes_go_to_the_core_and_what_it_declines_to_the_stdlib():
    from orcodec._orcodec import _json_loads

    assert _json_loads(b'{"a": "\xc3\xa9"}') == {"a": "\u00e9"}
    for raw in (b'"\xed\xa0\x80"', b'["\x80"]', b"[1,]", b"NaN", b"18446744073709551616"):
        assert _json_loads(raw) is NotImplemented, raw
        assert repr(outcome(oj.loads, raw)) == repr(outcome(json.loads, raw)), raw


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=24)
    | st.text(st.sampled_from('[]{}",:01.e-\\u\xe9\ud800'), max_size=20).map(
        lambda t: t.encode("utf-8", "surrogatepass")
    )
)
def test_random_bytes_decode_as_the_stdlibs(raw):
    assert repr(outcome(oj.loads, raw)) == repr(outcome(json.loads, raw))

"""loads(data, partial=...): documents cut off anywhere, read as far as they are complete,
held to pydantic's jiter (jiter.from_json(data, partial_mode=...)) on prefixes of the shared
fixtures and of generated documents, both modes, UTF-8 and \\u-escaped text, cuts inside
escapes and multi-byte characters; typed partial decoding; errors before the cut; hostile
input."""

from __future__ import annotations

import dataclasses
import json
import math
import typing
from typing import Any

import helpers
import jiter
import orcodec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MODES = [True, "trailing-strings"]


def same(a: Any, b: Any) -> bool:
    """Equal values of equal types (1 and 1.0 and True differ), floats by value."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    return bool(a == b)


def outcome(f: Any, data: bytes, mode: Any) -> tuple[str, Any]:
    try:
        return ("value", f(data, mode))
    except ValueError:
        return ("error", None)


def jiter_partial(data: bytes, mode: Any) -> Any:
    return jiter.from_json(data, partial_mode=mode)


def orcodec_partial(data: bytes, mode: Any) -> Any:
    return orcodec.loads(data, partial=mode)


def check_prefix(data: bytes, mode: Any) -> None:
    want = outcome(jiter_partial, data, mode)
    got = outcome(orcodec_partial, data, mode)
    assert got[0] == want[0], (data[-60:], mode, want, got)
    assert same(got[1], want[1]), (data[-60:], mode)


def cut_points(data: bytes, count: int, places: int) -> list[int]:
    """`count` evenly spread cut points, and every cut within 12 bytes after
    `places` backslashes and non-ASCII bytes spread over the document (inside
    escapes and multi-byte characters)."""
    step = max(1, len(data) // count)
    cuts = set(range(0, len(data) + 1, step))
    special = [i for i, b in enumerate(data) if b == 0x5C or b >= 0x80]
    special = special[:: max(1, len(special) // places)][:places]
    for i in special:
        cuts.update(range(i, min(i + 13, len(data) + 1)))
    cuts.add(len(data))
    return sorted(cuts)


def fixture_paths() -> list[Any]:
    shared = [helpers.fixture_file(f"{name}.json") for name in ("twitter", "github", "citm_catalog", "canada")]
    generated = sorted((helpers.REPO_ROOT / "fixtures" / "generated").glob("*.json"))
    assert generated, "the generated fixtures are missing"
    return shared + generated


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", fixture_paths(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_cut_of_the_fixtures_equals_jiter(path: Any, mode: Any) -> None:
    data = path.read_bytes()
    small = len(data) < 100_000
    cuts = cut_points(data, 300 if small else 60, 20 if small else 6)
    assert len(cuts) >= 60
    for cut in cuts:
        check_prefix(data[:cut], mode)


@pytest.mark.parametrize("mode", MODES)
def test_a_whole_document_is_loads(mode: Any) -> None:
    data = helpers.fixture_file("twitter.json").read_bytes()
    assert orcodec.loads(data, partial=mode) == orcodec.loads(data)


# Values jiter and the JSON grammar agree on: ints within 64 bits (orcodec, like orjson,
# reads larger ones as floats), finite floats, text with every kind of character.
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text(st.characters(exclude_categories=("Cs",)), max_size=6), inner, max_size=5)
    ),
    max_leaves=25,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS, st.sampled_from(["utf8", "escaped", "indented"]))
def test_every_cut_of_random_documents_equals_jiter(doc: Any, spelling: str) -> None:
    if spelling == "utf8":
        data = orcodec.dumps(doc)
    elif spelling == "escaped":
        data = json.dumps(doc, ensure_ascii=True).encode()
    else:
        data = json.dumps(doc, ensure_ascii=False, indent=1).encode()
    for cut in range(len(data) + 1):
        for mode in MODES:
            check_prefix(data[:cut], mode)


# (input, partial=True, partial="trailing-strings"): jiter's values, checked against it below.
CASES: list[tuple[bytes, Any, Any]] = [
    (b"[1, 2", [1, 2], [1, 2]),
    (b"[1, 2.", [1], [1]),
    (b"[1, 2e", [1], [1]),
    (b"[1e+", [], []),
    (b"[-0", [0], [0]),
    (b"[1.5E+3", [1500.0], [1500.0]),
    (b"[tr", [], []),
    (b"[true", [True], [True]),
    (b'{"a": nul', {}, {}),
    (b'{"a', {}, {}),
    (b'{"a"', {}, {}),
    (b'{"a":', {}, {}),
    (b'{"a": "b', {}, {"a": "b"}),
    (b'{"a":1,', {"a": 1}, {"a": 1}),
    (b'["ab\\', [], ["ab"]),
    (b'["ab\\u00', [], ["ab"]),
    (b'["a\\u00e9', [], ["a\u00e9"]),
    (b'["ab\\ud83d', [], ["ab"]),
    (b'["ab\\ud83d\\', [], ["ab"]),
    (b'["ab\\ud83d\\ude0', [], ["ab"]),
    (b'["\\ud83d\\ude00', [], ["\U0001f600"]),
    (b'["\xc3', [], [""]),
    (b'["a\xe4\xb8', [], ["a"]),
    (b'["a", "', ["a"], ["a", ""]),
    (b"[[", [[]], [[]]),
    (b'{"a": [1, {"b": "c', {"a": [1, {}]}, {"a": [1, {"b": "c"}]}),
    (b'"abc', None, "abc"),
    (b"12", 12, 12),
    (b"[1 ", [1], [1]),
]


@pytest.mark.parametrize(("data", "on", "trailing"), CASES, ids=[repr(c[0]) for c in CASES])
def test_cases(data: bytes, on: Any, trailing: Any) -> None:
    for mode, want in ((True, on), ("on", on), ("trailing-strings", trailing)):
        if want is None:
            with pytest.raises(orcodec.JSONDecodeError):
                orcodec.loads(data, partial=mode)
        else:
            assert same(orcodec.loads(data, partial=mode), want)
        check_prefix(data, True if mode == "on" else mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("data", [b"", b"  ", b"-", b"1.", b"tr", b"nul", b"[1,]", b"{1", b"[,", b"x"])
def test_nothing_to_return_is_an_error_as_in_jiter(data: bytes, mode: Any) -> None:
    with pytest.raises(orcodec.JSONDecodeError):
        orcodec.loads(data, partial=mode)
    with pytest.raises(ValueError):
        jiter.from_json(data, partial_mode=mode)


# Text that no continuation makes valid: the error it is without partial, at its
# position. jiter returns a value for some of these (it reads an error after a value as
# the end); orcodec keeps loads' answer.
INVALID_BEFORE_THE_CUT = [
    (b"[1, x", "unexpected character", 4),
    (b'[1, "a\\x', "invalid escaped sequence", 6),
    (b'["a\x01', "control character", 3),
    (b"[1x]", "unexpected character", 2),
    (b"[1, 2]x", "unexpected content after document", 6),
    (b'["a\\u12"', "invalid escaped sequence", 3),
    (b'["a\\u1g', "invalid escaped sequence", 3),
    (b'["a\\ud83d\\u0041', "invalid low surrogate", 3),
    (b'["a\\ud83dx', "no low surrogate", 3),
    (b'{"a" x', "expected ':'", 5),
    (b"[1.x", "no digit after decimal point", 3),
    (b"[01", "leading zero", 1),
    (b"[tx", "invalid literal", 1),
    (b"[\xff", "utf-8", 0),
    (b"[1]\xc3", "utf-8", 0),
    (b"[1 \xc3", "utf-8", 0),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("data", "words", "pos"), INVALID_BEFORE_THE_CUT, ids=[repr(c[0]) for c in INVALID_BEFORE_THE_CUT]
)
def test_invalid_before_the_cut_raises_at_its_position(data: bytes, words: str, pos: int, mode: Any) -> None:
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(data, partial=mode)
    assert words in str(info.value).lower(), str(info.value)
    assert info.value.pos == pos
    # The error loads raises without partial, message and position.
    with pytest.raises(orcodec.JSONDecodeError) as whole:
        orcodec.loads(data)
    assert (str(info.value), info.value.pos) == (str(whole.value), whole.value.pos)


def test_deviations_from_jiter_still_deviate() -> None:
    # jiter reads these as documents ending early; they are invalid whatever follows.
    assert jiter.from_json(b"[1x]", partial_mode=True) == [1]
    assert jiter.from_json(b'["a\\u12"', partial_mode="trailing-strings") == ["a"]
    assert jiter.from_json(b"[1, 2]x", partial_mode=True) == [1, 2]


def test_partial_false_or_none_is_loads() -> None:
    for off in (False, None, "off"):
        assert orcodec.loads(b'{"a": [1]}', partial=off) == {"a": [1]}
        with pytest.raises(orcodec.JSONDecodeError) as info:
            orcodec.loads(b'{"a": [1', partial=off)
        assert info.value.pos == 8


def test_str_input_and_positions_in_characters() -> None:
    assert orcodec.loads('{"\u00e9": "\u4e2d\u6587', partial="trailing-strings") == {"\u00e9": "\u4e2d\u6587"}
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads('["\u4e2d", x', partial=True)
    assert info.value.pos == 6


@pytest.mark.parametrize("bad", [1, 0, "yes", b"on", 1.0, []])
def test_a_bad_partial_argument(bad: Any) -> None:
    with pytest.raises(ValueError, match="partial must be True, False, None, 'on', 'off' or 'trailing-strings'"):
        orcodec.loads(b"[1", partial=bad)


def test_hostile_input() -> None:
    # Nesting past the limit is an error, not a closed document; up to it, closed.
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(b"[" * 100_000, partial=True)
    with pytest.raises(orcodec.JSONDecodeError) as whole:
        orcodec.loads(b"[" * 100_000)
    assert (str(info.value), info.value.pos) == (str(whole.value), whole.value.pos)
    deep = orcodec.loads(b"[" * 1024, partial=True)
    for _ in range(1023):
        deep = deep[0]
    assert deep == []
    assert orcodec.loads(b'{"a":' * 200, partial=True) == jiter.from_json(b'{"a":' * 200, partial_mode=True)
    nested = orcodec.loads(b'{"a":' * 1000, partial=True)
    for _ in range(998):
        nested = nested["a"]
    assert nested == {"a": {}}
    # A long string cut anywhere, with escapes throughout.
    text = ("x\\n\\u00e9\\ud83d\\ude00" * 20_000).encode()
    for cut in (1, 2, 3, 7, 9, 12, 15, 100_001):
        got = orcodec.loads(b'["' + text[:cut], partial="trailing-strings")
        assert got == jiter.from_json(b'["' + text[:cut], partial_mode="trailing-strings")


class Open(typing.TypedDict, total=False):
    name: str
    tags: list[str]
    count: int


@dataclasses.dataclass
class Record:
    name: str
    count: int = 0


def test_typed_partial_validates_what_was_read() -> None:
    data = b'{"name": "Ada", "tags": ["x", "yz'
    assert orcodec.loads(data, type=Open, partial=True) == {"name": "Ada", "tags": ["x"]}
    assert orcodec.loads(data, type=Open, partial="trailing-strings") == {"name": "Ada", "tags": ["x", "yz"]}
    assert orcodec.loads(data, type=dict[str, Any], partial=True) == {"name": "Ada", "tags": ["x"]}
    assert orcodec.loads(b'{"count": 1', type=Open, partial=True) == {"count": 1}
    # Every prefix of a TypedDict with total=False decodes (what LLM clients stream).
    whole = orcodec.dumps({"name": "Ada L.", "tags": ["a", "b\u00e9"], "count": 12})
    for cut in range(1, len(whole) + 1):
        for mode in MODES:
            got = orcodec.loads(whole[:cut], type=Open, partial=mode)
            assert got == orcodec.loads(whole[:cut], partial=mode)


def test_typed_partial_required_fields_of_open_objects_are_required() -> None:
    # A dataclass is built only when its required fields have arrived.
    with pytest.raises(orcodec.ValidationError, match="Object missing required field `name`") as info:
        orcodec.loads(b'{"name": "Ad', type=Record, partial=True)
    # From loads, also a JSONDecodeError, as without partial.
    assert isinstance(info.value, orcodec.JSONDecodeError)
    assert orcodec.loads(b'{"name": "Ad', type=Record, partial="trailing-strings") == Record("Ad")
    assert orcodec.loads(b'{"name": "Ada", "count": 4', type=Record, partial=True) == Record("Ada", 4)
    with pytest.raises(orcodec.ValidationError, match=r"Expected `int`, got `str` - at `\$.count`"):
        orcodec.loads(b'{"count": "x"', type=Open, partial=True)
    # A syntax error before the cut is the JSONDecodeError it is without a type.
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(b'{"name": x', type=Open, partial=True)
    assert info.value.pos == 9


def error_fields(e: Any) -> tuple[Any, ...]:
    """What a JSON validation error says: class, text, and where (everything but `doc`)."""
    return (type(e).__name__, str(e), e.msg, e.path, e.pos, e.lineno, e.colno)


def typed_outcome(data: bytes, tp: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        return ("value", orcodec.loads(data, type=tp, **kwargs))
    except orcodec.ValidationError as e:
        return ("invalid", error_fields(e))
    except orcodec.JSONDecodeError as e:
        return ("syntax", (str(e), e.pos))


# (document, type, the text of the value at fault): the whole document does not fit the type.
TYPED_ERRORS = [
    (b'{"name": "Ada", "count": "4", "tags": ["x"]}', Record, b'"4"'),
    (b'[{"name": "a"}, {"name": 2}, {"name": "c"}]', list[Record], b"2"),
    (b'{"name": "Ada", "tags": ["x", 3, "y"]}', Open, b"3"),
    (b'\n  {"name": "Ad\\u00e9 \xc3\xa9\xe4\xb8\xad",\n   "count": 1.5, "tags": []}', Record, b"1.5"),
    (b'{"a": [1, 2, "three", 4], "b": []}', dict[str, list[int]], b'"three"'),
    (b'[{"name": "x"}, {"count": 1}, {"name": "z"}]', list[Record], b'{"count": 1}'),
    (b'{"n": [1, 2]}', dict[str, tuple[int, int, int]], b"[1, 2]"),
    (b"[[true], [false, null], [true]]", list[list[bool]], b"null"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("data", "tp", "fault"), TYPED_ERRORS, ids=[repr(c[0][:30]) for c in TYPED_ERRORS])
def test_typed_partial_errors_are_where_the_value_is(data: bytes, tp: Any, fault: bytes, mode: Any) -> None:
    with pytest.raises(orcodec.ValidationError) as whole:
        orcodec.loads(data, type=tp)
    want = error_fields(whole.value)
    text = data.decode()
    at = data.index(fault)
    # pos is a character index, as in every JSONDecodeError.
    assert whole.value.pos == len(data[:at].decode()) > 0
    # A whole document gives the same error with partial as without.
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.loads(data, type=tp, partial=mode)
    assert error_fields(info.value) == want
    assert info.value.doc == text
    assert isinstance(info.value, orcodec.JSONDecodeError)
    # So does every cut after the value at fault: the same message, path and position.
    for cut in range(at + len(fault), len(data)):
        with pytest.raises(orcodec.ValidationError) as info:
            orcodec.loads(data[:cut], type=tp, partial=mode)
        assert error_fields(info.value) == want, data[:cut]
        assert info.value.doc == data[:cut].decode()


def test_typed_partial_error_in_an_object_the_cut_closed() -> None:
    # The object the cut closed misses a required field: reported at the object.
    data = b'[{"name": "x"},\n {"count": 1, "name": "y'
    with pytest.raises(orcodec.ValidationError) as info:
        orcodec.loads(data, type=list[Record], partial=True)
    assert error_fields(info.value) == (
        "JSONValidationError",
        "Object missing required field `name` - at `$[1]`",
        "Object missing required field `name` - at `$[1]`",
        "$[1]",
        17,
        2,
        2,
    )
    assert orcodec.loads(data, type=list[Record], partial="trailing-strings") == [Record("x"), Record("y", 1)]
    # A syntax error before the cut is untyped decoding's, with its position.
    with pytest.raises(orcodec.JSONDecodeError) as syntax:
        orcodec.loads(b'[{"name": "x"}, {"count": 1,, "name"', type=list[Record], partial=True)
    with pytest.raises(orcodec.JSONDecodeError) as untyped:
        orcodec.loads(b'[{"name": "x"}, {"count": 1,, "name"', partial=True)
    assert not isinstance(syntax.value, orcodec.ValidationError)
    assert (str(syntax.value), syntax.value.pos) == (str(untyped.value), untyped.value.pos)
    assert syntax.value.pos == 28


class Item(typing.TypedDict, total=False):
    id: int
    tags: list[str]
    score: float | None


TYPES: list[Any] = [Item, list[Item], dict[str, Item], list[int | str], dict[str, list[bool | None]], list[Record]]
ITEM_LIKE = st.recursive(
    SCALARS | st.fixed_dictionaries({}, optional={"id": SCALARS, "name": SCALARS, "count": SCALARS}),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.fixed_dictionaries({}, optional={"id": inner, "tags": inner, "score": inner, "name": inner})
    ),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ITEM_LIKE, st.sampled_from(TYPES), st.booleans())
def test_typed_partial_agrees_with_the_whole_document(doc: Any, tp: Any, indent: bool) -> None:
    data = json.dumps(doc, ensure_ascii=False, indent=1 if indent else None).encode()
    whole = typed_outcome(data, tp)
    for mode in MODES:
        # A whole document: what loads gives without partial, errors and all.
        assert typed_outcome(data, tp, partial=mode) == whole
        for cut in range(1, len(data)):
            got = typed_outcome(data[:cut], tp, partial=mode)
            # What was read is validated as convert validates the untyped partial value.
            untyped = outcome(orcodec_partial, data[:cut], mode)
            if untyped[0] == "error":
                assert got[0] == "syntax", (data[:cut], got)
                continue
            try:
                converted = ("value", orcodec.convert(untyped[1], tp))
            except orcodec.ValidationError as e:
                converted = ("invalid", (str(e), e.path))
            if got[0] == "value":
                assert converted == got, data[:cut]
                continue
            assert got[0] == "invalid" and converted[0] == "invalid", (data[:cut], got, converted)
            assert got[1][1:2] + got[1][3:4] == converted[1], data[:cut]
            # The same fault as the whole document's is at the same place.
            if whole[0] == "invalid" and got[1][1:4] == whole[1][1:4]:
                assert got[1][4:] == whole[1][4:], data[:cut]
            assert got[1][4] <= len(data[:cut].decode(errors="ignore")), data[:cut]


@pytest.mark.parametrize("tp", [*TYPES, Record, Any], ids=str)
def test_a_decoder_reads_partial_documents_as_loads(tp: Any) -> None:
    # Decoder(T).loads(data, partial=...) against loads(data, type=T, partial=...) on every
    # cut of documents that fit, do not fit, and are invalid before the cut.
    decoder = orcodec.Decoder(tp)
    documents = [d for d, _, _ in TYPED_ERRORS] + [
        orcodec.dumps([{"id": 1, "tags": ["a", "b\u00e9"], "score": 0.5}, {"id": 2, "name": "x", "count": 3}]),
        orcodec.dumps({"k": {"id": 3, "score": None}, "j": {"tags": []}}),
        b'{"id": 1, "tags": ["a",, "b"]}',
    ]
    for data in documents:
        for cut in range(len(data) + 1):
            for mode in [*MODES, False, None, "off"]:
                want = typed_outcome(data[:cut], tp, partial=mode)
                try:
                    got: tuple[str, Any] = ("value", decoder.loads(data[:cut], partial=mode))
                except orcodec.ValidationError as e:
                    got = ("invalid", error_fields(e))
                except orcodec.JSONDecodeError as e:
                    got = ("syntax", (str(e), e.pos))
                assert got == want, (data[:cut], mode)
    with pytest.raises(ValueError, match="partial must be True, False, None"):
        decoder.loads(b"{}", partial="yes")

"""JSON conformance: the repository's own corpus (fixtures/conformance, written by
tools/conformance_corpus.py) always, and the shared corpora (JSONTestSuite, json.org's
JSON_checker, nativejson-benchmark round trips) in addition when they are present.

Every file is accepted with the standard library's value, rejected from every input type,
or, where RFC 8259 leaves the outcome to the implementation, held to the outcome
orcodec's documentation gives (doc/json.md).
"""

from __future__ import annotations

import importlib.util
import json

import corpora
import orcodec
import orjson
import pytest
from helpers import JSON, assert_strict_equal, conformance_files, conformance_params

REJECT = object()
LIKE_STDLIB = object()


def _expected(data: bytes):
    """The standard library's value; orjson's where the stdlib runs out of recursion
    (nesting up to orcodec's limit of 1024 is deeper than its default limit)."""
    try:
        return json.loads(data)
    except RecursionError:
        return orjson.loads(data)


def _expect_like_stdlib(data: bytes) -> None:
    """Parses from every input type, and gives what json.loads gives (ints beyond 64 bits
    as float)."""
    assert_strict_equal(JSON.decode_every_input(data), _expected(data), big_int_as_float=True)


def _expect_rejected(data: bytes) -> None:
    JSON.refuses_every_input(data)


# --------------------------------------------------------------------------------------
# The corpus itself: what the script writes, and complete enough to mean something.
# --------------------------------------------------------------------------------------


def _corpus_script():
    spec = importlib.util.spec_from_file_location(
        "conformance_corpus", corpora.REPO_ROOT / "tools/conformance_corpus.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_own_corpus_is_what_the_script_writes():
    written = _corpus_script().corpus()
    present = {p.name: p.read_bytes() for p in corpora.CONFORMANCE_DIR.iterdir()}
    assert sorted(present) == sorted(written), "run tools/conformance_corpus.py"
    stale = [name for name, data in written.items() if present[name] != data]
    assert not stale, f"run tools/conformance_corpus.py: {stale}"


@pytest.mark.parametrize(
    "pattern, minimum",
    [("y_*.json", 170), ("y_canonical_*.json", 20), ("n_*.json", 280), ("i_*.json", 8)],
)
def test_own_corpus_present(pattern, minimum):
    found = len(list(corpora.CONFORMANCE_DIR.glob(pattern)))
    assert found >= minimum, f"only {found} {pattern} files in {corpora.CONFORMANCE_DIR}"


# Each kind of input the corpus must cover, by a part of the file names.
COVERAGE = {
    "y": [
        "top_",
        "array_",
        "object_",
        "whitespace_",
        "literals_",
        "string_u_escape",
        "string_surrogate_pair",
        "string_raw_utf8",
        "_at_every_offset",
        "number_int_i64",
        "number_int_u64",
        "number_float_min_subnormal",
        "number_float_max",
        "nesting_",
        "canonical_",
    ],
    "n": [
        "document_",
        "whitespace_",
        "array_",
        "object_",
        "literal_",
        "number_",
        "string_escape",
        "string_raw_control_",
        "surrogate_lone",
        "surrogate_low_then_high",
        "utf8_overlong",
        "utf8_surrogate",
        "utf8_above_10ffff",
        "utf8_lead_f0",
        "utf8_bad_byte_at",
        "nesting_",
    ],
}


@pytest.mark.parametrize("prefix", sorted(COVERAGE))
def test_own_corpus_covers_every_kind(prefix):
    names = [p.name for p in corpora.CONFORMANCE_DIR.glob(f"{prefix}_*.json")]
    missing = [part for part in COVERAGE[prefix] if not any(part in name for name in names)]
    assert not missing


def test_nesting_limit_is_the_readers():
    # The corpus's nesting cases sit exactly at and one past the readers' limit.
    at = (corpora.CONFORMANCE_DIR / "y_nesting_arrays_at_limit.json").read_bytes()
    assert at.count(b"[") == 1024
    orcodec.loads(at)
    with pytest.raises(orcodec.JSONDecodeError, match="depth limit exceeded"):
        orcodec.loads(b"[" + at + b"]")


# --------------------------------------------------------------------------------------
# Accepted, rejected, and implementation-defined
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", conformance_params("accept"))
def test_accepted(path):
    _expect_like_stdlib(path.read_bytes())


@pytest.mark.parametrize("path", conformance_params("reject"))
def test_rejected(path):
    _expect_rejected(path.read_bytes())


# Where the RFC leaves the outcome open, orcodec's is orjson's: numbers beyond the doubles
# are an error, one that rounds to zero is 0.0, a byte order mark is refused; lone
# surrogate escapes and invalid UTF-8 are rejected, integers beyond 64 bits become floats,
# nesting up to 1024 is accepted; duplicate keys: the last wins.
IMPLEMENTATION_EXPECTED = {
    "own/i_number_overflow_positive.json": REJECT,
    "own/i_number_overflow_negative.json": REJECT,
    "own/i_number_overflow_just_past_max.json": REJECT,
    "own/i_number_overflow_400_digits.json": REJECT,
    "own/i_number_overflow_big_exponent.json": REJECT,
    "own/i_number_underflow_huge_negative_exponent.json": [0.0],
    "own/i_bom_utf8.json": REJECT,
    "own/i_string_escaped_nul_in_text.json": ["a\x00b"],
    # JSONTestSuite's parsing cases whose outcome the contract fixes.
    "shared/parsing/i_object_key_lone_2nd_surrogate.json": REJECT,
    "shared/parsing/i_string_1st_surrogate_but_2nd_missing.json": REJECT,
    "shared/parsing/i_string_1st_valid_surrogate_2nd_invalid.json": REJECT,
    "shared/parsing/i_string_incomplete_surrogate_and_escape_valid.json": REJECT,
    "shared/parsing/i_string_incomplete_surrogate_pair.json": REJECT,
    "shared/parsing/i_string_incomplete_surrogates_escape_valid.json": REJECT,
    "shared/parsing/i_string_invalid_lonely_surrogate.json": REJECT,
    "shared/parsing/i_string_invalid_surrogate.json": REJECT,
    "shared/parsing/i_string_inverted_surrogates_U+1D11E.json": REJECT,
    "shared/parsing/i_string_lone_second_surrogate.json": REJECT,
    "shared/parsing/i_string_UTF-8_invalid_sequence.json": REJECT,
    "shared/parsing/i_string_UTF8_surrogate_U+D800.json": REJECT,
    "shared/parsing/i_string_invalid_utf-8.json": REJECT,
    "shared/parsing/i_string_iso_latin_1.json": REJECT,
    "shared/parsing/i_string_lone_utf8_continuation_byte.json": REJECT,
    "shared/parsing/i_string_not_in_unicode_range.json": REJECT,
    "shared/parsing/i_string_overlong_sequence_2_bytes.json": REJECT,
    "shared/parsing/i_string_overlong_sequence_6_bytes.json": REJECT,
    "shared/parsing/i_string_overlong_sequence_6_bytes_null.json": REJECT,
    "shared/parsing/i_string_truncated-utf-8.json": REJECT,
    # UTF-16 is not UTF-8 (0xff 0xfe is invalid UTF-8; NUL bytes are not whitespace)
    "shared/parsing/i_string_UTF-16LE_with_BOM.json": REJECT,
    "shared/parsing/i_string_utf16BE_no_BOM.json": REJECT,
    "shared/parsing/i_string_utf16LE_no_BOM.json": REJECT,
    "shared/parsing/i_number_too_big_neg_int.json": LIKE_STDLIB,
    "shared/parsing/i_number_too_big_pos_int.json": LIKE_STDLIB,
    "shared/parsing/i_number_very_big_negative_int.json": LIKE_STDLIB,
    "shared/parsing/i_structure_500_nested_arrays.json": LIKE_STDLIB,
    # JSONTestSuite's transform cases.
    "shared/transform/number_1.0.json": [1.0],
    "shared/transform/number_1.000000000000000005.json": [1.0],
    "shared/transform/number_1000000000000000.json": [1000000000000000],
    "shared/transform/number_10000000000000000999.json": [10000000000000000999],  # fits in 64 bits unsigned
    "shared/transform/number_1e6.json": [1000000.0],
    "shared/transform/object_key_nfc_nfd.json": {"\u00e9": "NFC", "e\u0301": "NFD"},
    "shared/transform/object_key_nfd_nfc.json": {"e\u0301": "NFD", "\u00e9": "NFC"},
    "shared/transform/object_same_key_different_values.json": {"a": 2},
    "shared/transform/object_same_key_same_value.json": {"a": 1},
    "shared/transform/object_same_key_unclear_values.json": {"a": 0},
    "shared/transform/string_1_escaped_invalid_codepoint.json": REJECT,
    "shared/transform/string_1_invalid_codepoint.json": REJECT,
    "shared/transform/string_2_escaped_invalid_codepoints.json": REJECT,
    "shared/transform/string_2_invalid_codepoints.json": REJECT,
    "shared/transform/string_3_escaped_invalid_codepoints.json": REJECT,
    "shared/transform/string_3_invalid_codepoints.json": REJECT,
    "shared/transform/string_with_escaped_NULL.json": ["A\x00B"],
}


@pytest.mark.parametrize("path", conformance_params("implementation"))
def test_implementation_defined(request, path):
    ident = request.node.callspec.id
    data = path.read_bytes()
    expected = IMPLEMENTATION_EXPECTED.get(ident)
    if expected is REJECT:
        _expect_rejected(data)
    elif expected is LIKE_STDLIB:
        _expect_like_stdlib(data)
    elif expected is not None:
        assert_strict_equal(JSON.decode_every_input(data), expected)
    else:
        # Not fixed by the contract: parses to a container, or raises the decode error.
        try:
            result = orcodec.loads(data)
        except orcodec.JSONDecodeError:
            return
        assert type(result) in (list, dict)


def test_every_own_implementation_case_has_its_outcome():
    own = [ident for ident, _ in conformance_files("implementation") if ident.startswith("own/")]
    assert own and all(ident in IMPLEMENTATION_EXPECTED for ident in own)


def test_big_ints_become_floats():
    data = (corpora.CONFORMANCE_DIR / "y_number_int_u64_max_plus_1.json").read_bytes()
    assert data == b"[18446744073709551616]"
    result = orcodec.loads(data)
    assert result == [1.8446744073709552e19]
    assert type(result[0]) is float
    assert orcodec.loads(b"[18446744073709551615]") == [2**64 - 1]


# --------------------------------------------------------------------------------------
# Canonical documents: back byte for byte
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", conformance_params("canonical"))
def test_canonical_round_trip(path):
    data = path.read_bytes()
    value = orcodec.loads(data)
    assert_strict_equal(value, json.loads(data))
    out = orcodec.dumps(value)
    assert_strict_equal(orcodec.loads(out), value)
    # Same text as orjson; for these documents that is also the file's own text except
    # for the exponent sign orjson writes ("1.7976931348623157e+308").
    assert out == orjson.dumps(value)
    assert out.replace(b"e+", b"e") == data.strip()

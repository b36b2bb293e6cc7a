"""JSON conformance corpus from the shared fixtures (JSONTestSuite, json.org checker,
nativejson-benchmark round trips).

The corpus lives in ``$ORCODEC_FIXTURES/json-conformance``; if it is missing these tests
fail (they never skip).
"""

from __future__ import annotations

import json

import orcodec
import orjson
import pytest
from helpers import (
    JSON,
    assert_strict_equal,
    fixture_bytes,
    fixture_params,
    missing_fixtures,
    read_param,
)

CORPUS = "json-conformance"


def _expect_like_stdlib(data: bytes) -> None:
    """Parses from every input type, and gives what json.loads gives (ints beyond 64 bits
    as float)."""
    assert_strict_equal(JSON.decode_every_input(data), json.loads(data), big_int_as_float=True)


def _expect_rejected(data: bytes) -> None:
    JSON.refuses_every_input(data)


# --------------------------------------------------------------------------------------
# Presence: a missing or emptied corpus must not pass silently.
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "subdir, pattern, minimum",
    [
        ("parsing", "y_*.json", 90),
        ("parsing", "n_*.json", 180),
        ("parsing", "i_*.json", 30),
        ("jsonchecker", "pass*.json", 3),
        ("jsonchecker", "fail*.json", 33),
        ("roundtrip", "*.json", 27),
        ("transform", "*.json", 18),
    ],
)
def test_corpus_present(fixtures_dir, subdir, pattern, minimum):
    directory = fixtures_dir / CORPUS / subdir
    if not directory.is_dir():
        missing_fixtures(f"{CORPUS}/{subdir}")
    found = len(list(directory.glob(pattern)))
    assert found >= minimum, f"only {found} {pattern} files in {directory}"


# --------------------------------------------------------------------------------------
# JSONTestSuite parsing cases
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", fixture_params(f"{CORPUS}/parsing", "y_*.json"))
def test_parsing_y(path):
    _expect_like_stdlib(read_param(path))


@pytest.mark.parametrize("path", fixture_params(f"{CORPUS}/parsing", "n_*.json"))
def test_parsing_n(path):
    _expect_rejected(read_param(path))


@pytest.mark.parametrize("path", fixture_params(f"{CORPUS}/parsing", "i_*.json"))
def test_parsing_i_parses_or_raises_decode_error(path):
    data = read_param(path)
    try:
        result = orcodec.loads(data)
    except orcodec.JSONDecodeError:
        return
    # Every i_ file is an array or an object at the top level.
    assert type(result) in (list, dict)


# Implementation-defined cases whose outcome this project's contract does fix:
# lone surrogate escapes and invalid UTF-8 are rejected, integers beyond 64 bits become
# floats, and depth up to 1024 is accepted.
I_REJECTED = [
    # lone or mismatched surrogate escapes
    "i_object_key_lone_2nd_surrogate.json",
    "i_string_1st_surrogate_but_2nd_missing.json",
    "i_string_1st_valid_surrogate_2nd_invalid.json",
    "i_string_incomplete_surrogate_and_escape_valid.json",
    "i_string_incomplete_surrogate_pair.json",
    "i_string_incomplete_surrogates_escape_valid.json",
    "i_string_invalid_lonely_surrogate.json",
    "i_string_invalid_surrogate.json",
    "i_string_inverted_surrogates_U+1D11E.json",
    "i_string_lone_second_surrogate.json",
    # invalid UTF-8
    "i_string_UTF-8_invalid_sequence.json",
    "i_string_UTF8_surrogate_U+D800.json",
    "i_string_invalid_utf-8.json",
    "i_string_iso_latin_1.json",
    "i_string_lone_utf8_continuation_byte.json",
    "i_string_not_in_unicode_range.json",
    "i_string_overlong_sequence_2_bytes.json",
    "i_string_overlong_sequence_6_bytes.json",
    "i_string_overlong_sequence_6_bytes_null.json",
    "i_string_truncated-utf-8.json",
    # UTF-16 is not UTF-8 (0xff 0xfe is invalid UTF-8; NUL bytes are not whitespace)
    "i_string_UTF-16LE_with_BOM.json",
    "i_string_utf16BE_no_BOM.json",
    "i_string_utf16LE_no_BOM.json",
]
I_PARSED_LIKE_STDLIB = [
    "i_number_too_big_neg_int.json",
    "i_number_too_big_pos_int.json",
    "i_number_very_big_negative_int.json",
    "i_structure_500_nested_arrays.json",
]


@pytest.mark.parametrize("name", I_REJECTED)
def test_parsing_i_rejected_by_contract(name):
    _expect_rejected(fixture_bytes(CORPUS, "parsing", name))


@pytest.mark.parametrize("name", I_PARSED_LIKE_STDLIB)
def test_parsing_i_accepted_by_contract(name):
    _expect_like_stdlib(fixture_bytes(CORPUS, "parsing", name))


def test_big_ints_become_floats():
    result = orcodec.loads(fixture_bytes(CORPUS, "parsing", "i_number_too_big_pos_int.json"))
    assert result == [1e20]
    assert type(result[0]) is float


# --------------------------------------------------------------------------------------
# json.org JSON_checker
# --------------------------------------------------------------------------------------

# fail01.json is a bare string at the top level and fail18.json is 20 nested arrays: the
# old JSON_checker rejected them, but both are legal under RFC 8259 (any value may be the
# top-level value, and 20 levels is far below orcodec's 1024 limit), so orcodec parses
# them, like the stdlib and orjson.
JSONCHECKER_RFC_LEGAL = {"fail01.json", "fail18.json"}


@pytest.mark.parametrize("path", fixture_params(f"{CORPUS}/jsonchecker", "pass*.json"))
def test_jsonchecker_pass(path):
    _expect_like_stdlib(read_param(path))


@pytest.mark.parametrize("path", fixture_params(f"{CORPUS}/jsonchecker", "fail*.json"))
def test_jsonchecker_fail(path):
    data = read_param(path)
    if path.name in JSONCHECKER_RFC_LEGAL:
        _expect_like_stdlib(data)
    else:
        _expect_rejected(data)


@pytest.mark.parametrize("name", sorted(JSONCHECKER_RFC_LEGAL))
def test_jsonchecker_rfc_legal_files_present(name):
    fixture_bytes(CORPUS, "jsonchecker", name)


# --------------------------------------------------------------------------------------
# nativejson-benchmark round trips
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", fixture_params(f"{CORPUS}/roundtrip", "*.json"))
def test_roundtrip(path):
    data = read_param(path)
    value = orcodec.loads(data)
    assert_strict_equal(value, json.loads(data))
    out = orcodec.dumps(value)
    assert_strict_equal(orcodec.loads(out), value)
    # Same text as orjson; for these documents that is also the file's own text except
    # for the exponent sign orjson writes ("1.7976931348623157e+308").
    assert out == orjson.dumps(value)
    assert out.replace(b"e+", b"e") == data.strip()


# --------------------------------------------------------------------------------------
# JSONTestSuite "transform" cases
# --------------------------------------------------------------------------------------

# Expected results where the contract fixes them (None = not fixed by the contract; then
# the file must parse or raise JSONDecodeError, nothing else).
REJECT = object()
TRANSFORM_EXPECTED = {
    "number_1.0.json": [1.0],
    "number_1.000000000000000005.json": [1.0],
    "number_1000000000000000.json": [1000000000000000],
    "number_10000000000000000999.json": [10000000000000000999],  # fits in 64 bits unsigned
    "number_1e-999.json": None,  # underflow: implementation-defined
    "number_1e6.json": [1000000.0],
    "object_key_nfc_nfd.json": {"\u00e9": "NFC", "e\u0301": "NFD"},
    "object_key_nfd_nfc.json": {"e\u0301": "NFD", "\u00e9": "NFC"},
    "object_same_key_different_values.json": {"a": 2},
    "object_same_key_same_value.json": {"a": 1},
    "object_same_key_unclear_values.json": {"a": 0},
    "string_1_escaped_invalid_codepoint.json": REJECT,
    "string_1_invalid_codepoint.json": REJECT,
    "string_2_escaped_invalid_codepoints.json": REJECT,
    "string_2_invalid_codepoints.json": REJECT,
    "string_3_escaped_invalid_codepoints.json": REJECT,
    "string_3_invalid_codepoints.json": REJECT,
    "string_with_escaped_NULL.json": ["A\x00B"],
}


@pytest.mark.parametrize("name", sorted(TRANSFORM_EXPECTED))
def test_transform(name):
    data = fixture_bytes(CORPUS, "transform", name)
    expected = TRANSFORM_EXPECTED[name]
    if expected is REJECT:
        _expect_rejected(data)
    elif expected is None:
        try:
            result = orcodec.loads(data)
        except orcodec.JSONDecodeError:
            return
        assert type(result) is list and len(result) == 1 and type(result[0]) is float
    else:
        assert_strict_equal(orcodec.loads(data), expected)

"""Write orcodec's own JSON conformance corpus to fixtures/conformance/.

    python tools/conformance_corpus.py [--out DIR] [--check]

Every file is one JSON document (or one thing that is not one), named by what
a strict RFC 8259 reader must do with it:

* ``y_*.json``: must be accepted (every production of the grammar, every
  escape, UTF-8 of every length at its boundaries, numbers at every boundary
  of the integer and float ranges, nesting up to the limit); the tests compare
  the value with the standard library's;
* ``y_canonical_*.json``: accepted, and already in the form ``dumps`` writes,
  so they must come back byte for byte;
* ``n_*.json``: must be rejected (every kind of syntax error, invalid UTF-8:
  overlong forms, surrogates encoded in UTF-8, truncated sequences, code
  points past U+10FFFF; lone and reversed ``\\u`` surrogates; nesting past the
  limit);
* ``i_*.json``: the RFC leaves the outcome to the implementation (numbers
  beyond the doubles, a byte order mark); the tests hold orcodec to the
  outcome its documentation gives.

``strings.txt`` beside them holds hostile strings (one per line, ``#``
comments), written as text through both formats by the tests.

The corpus is written by this script alone and is byte-for-byte stable; the
test suite checks that the files in the repository are exactly what it
writes (``--check`` does the same from the command line). Only the standard
library is used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "fixtures" / "conformance"

# Nesting: the readers accept this many open containers and refuse one more.
MAX_DEPTH = 1024


def _u(s: str) -> bytes:
    return s.encode("utf-8")


def accepted() -> dict[str, bytes]:
    y: dict[str, bytes] = {}

    # ---- Values at the top level, each alone and surrounded by whitespace.
    for name, text in [
        ("null", "null"),
        ("true", "true"),
        ("false", "false"),
        ("zero", "0"),
        ("negative_int", "-12"),
        ("float", "1.25"),
        ("string", '"top"'),
        ("empty_string", '""'),
        ("empty_array", "[]"),
        ("empty_object", "{}"),
    ]:
        y[f"top_{name}"] = _u(text)
        y[f"top_{name}_in_whitespace"] = _u(f" \t\r\n{text}\n\r\t ")

    # ---- Structures.
    y["array_of_every_kind"] = b'[null,true,false,0,-1,1.5,"s",[],{}]'
    y["array_nested_empty"] = b"[[],[[]],[[[]]]]"
    y["array_one_element"] = b"[1]"
    y["array_many_elements"] = _u("[" + ",".join(str(i) for i in range(300)) + "]")
    y["object_one_member"] = b'{"a":1}'
    y["object_many_members"] = _u("{" + ",".join(f'"k{i}":{i}' for i in range(300)) + "}")
    y["object_of_every_kind"] = b'{"n":null,"t":true,"f":false,"i":-7,"d":0.5,"s":"x","a":[1],"o":{"p":{}}}'
    y["object_empty_key"] = b'{"":0}'
    y["object_escaped_key"] = b'{"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9":1}'
    y["object_non_ascii_key"] = _u('{"clé":1,"键":2,"🔑":3}')
    y["object_duplicate_key_last_wins"] = b'{"a":1,"b":2,"a":3}'
    y["object_duplicate_key_same_value"] = b'{"a":1,"a":1}'
    y["object_keys_nfc_and_nfd_distinct"] = _u('{"\u00e9":"nfc","e\u0301":"nfd"}')
    y["object_key_with_nul_escape"] = b'{"a\\u0000b":1}'
    y["object_nested_in_array"] = b'[{"a":[{"b":[{}]}]}]'

    # Whitespace: each of the four characters in every place it may go.
    for ws_name, ws in [("space", " "), ("tab", "\t"), ("lf", "\n"), ("cr", "\r"), ("all", " \t\n\r")]:
        y[f"whitespace_{ws_name}_everywhere"] = _u(
            f'{ws}[{ws}1{ws},{ws}{{{ws}"a"{ws}:{ws}[{ws}]{ws},{ws}"b"{ws}:{ws}{{{ws}}}{ws}}}{ws},{ws}"s"{ws}]{ws}'
        )
    y["whitespace_long_runs"] = _u("[" + " " * 100 + "1" + "\n" * 100 + "," + "\t" * 100 + "2" + "\r\n" * 50 + "]")

    # ---- Literals.
    y["literals_in_array"] = b"[true,false,null,true]"
    y["literals_as_values"] = b'{"t":true,"f":false,"n":null}'

    # ---- Strings: every escape, raw UTF-8 of every length at its boundaries.
    y["string_escape_quote"] = b'["\\""]'
    y["string_escape_backslash"] = b'["\\\\"]'
    y["string_escape_slash"] = b'["\\/"]'
    y["string_unescaped_slash"] = b'["/"]'
    y["string_escape_b_f_n_r_t"] = b'["\\b\\f\\n\\r\\t"]'
    y["string_all_short_escapes"] = b'["\\"\\\\\\/\\b\\f\\n\\r\\t"]'
    y["string_u_escape_nul"] = b'["\\u0000"]'
    y["string_u_escape_control_chars"] = _u("[" + ",".join(f'"\\u{c:04x}"' for c in range(0x20)) + "]")
    y["string_u_escape_ascii"] = b'["\\u0041\\u007a\\u007f"]'
    y["string_u_escape_upper_and_lower_hex"] = b'["\\u00E9\\u00e9\\uABCD\\uabcd\\uAbCd"]'
    y["string_u_escape_two_bytes"] = b'["\\u0080\\u07ff"]'
    y["string_u_escape_three_bytes"] = b'["\\u0800\\ud7ff\\ue000\\uffff"]'
    y["string_u_escape_noncharacters"] = b'["\\ufffe\\uffff\\ufdd0\\ufdef"]'
    y["string_u_escape_bom"] = b'["\\ufeff"]'
    y["string_u_escape_line_separators"] = b'["\\u2028\\u2029"]'
    y["string_surrogate_pair_smallest"] = b'["\\ud800\\udc00"]'
    y["string_surrogate_pair_largest"] = b'["\\udbff\\udfff"]'
    y["string_surrogate_pair_emoji"] = b'["\\ud83d\\ude00"]'
    y["string_surrogate_pair_upper_hex"] = b'["\\uD834\\uDD1E"]'
    y["string_surrogate_pairs_in_a_row"] = b'["\\ud83d\\ude00\\ud83d\\ude01\\ud83d\\ude02"]'
    y["string_surrogate_pair_then_text"] = b'["\\ud83d\\ude00x\\ud83d\\ude00"]'
    y["string_raw_del"] = b'["\x7f"]'
    y["string_raw_utf8_two_bytes_bounds"] = b'["\xc2\x80\xdf\xbf"]'
    y["string_raw_utf8_three_bytes_bounds"] = b'["\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf"]'
    y["string_raw_utf8_four_bytes_bounds"] = b'["\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"]'
    y["string_raw_utf8_noncharacters"] = _u('["\ufffe\uffff\U0001fffe\U0010ffff"]')
    y["string_raw_bom_inside"] = b'["\xef\xbb\xbf"]'
    y["string_raw_line_separators"] = _u('["\u2028\u2029"]')
    y["string_raw_nbsp"] = _u('["\u00a0"]')
    y["string_raw_combining_marks"] = _u('["e\u0301\u0302\u0303"]')
    y["string_raw_mixed_scripts"] = _u('["aé中😀Ωж"]')
    y["string_escapes_mixed_with_raw"] = _u('["é\\u00e9\\n中\\u4e2d😀\\ud83d\\ude00"]')
    y["string_backslash_before_quote_chain"] = b'["\\\\\\\\\\"\\\\"]'
    y["string_long_ascii"] = _u('["' + "abcdefghij" * 1000 + '"]')
    y["string_long_escaped"] = _u('["' + "\\n\\u00e9\\ud83d\\ude00" * 300 + '"]')
    # The readers work in blocks of 8, 16, 32 and 64 bytes: an escape, a
    # multi-byte character and a surrogate pair at every offset of a block.
    for what, piece in [
        ("escape", "\\n"),
        ("u_escape", "\\u00e9"),
        ("pair", "\\ud83d\\ude00"),
        ("two_byte", "é"),
        ("three_byte", "中"),
        ("four_byte", "😀"),
    ]:
        strings = ['"' + "a" * i + piece + "b" * (70 - i) + '"' for i in range(70)]
        y[f"string_{what}_at_every_offset"] = _u("[" + ",".join(strings) + "]")
    y["string_lengths_0_to_130"] = _u("[" + ",".join('"' + "x" * n + '"' for n in range(131)) + "]")

    # ---- Numbers.
    for name, text in [
        ("zero", "0"),
        ("negative_zero", "-0"),
        ("one_digit", "7"),
        ("negative_one_digit", "-7"),
        ("zero_fraction", "0.0"),
        ("negative_zero_fraction", "-0.0"),
        ("fraction", "0.5"),
        ("fraction_many_digits", "3.14159265358979323846264338327950288"),
        ("exponent_lower", "1e2"),
        ("exponent_upper", "1E2"),
        ("exponent_plus", "1e+2"),
        ("exponent_minus", "1e-2"),
        ("exponent_upper_plus", "1E+2"),
        ("exponent_upper_minus", "1E-2"),
        ("exponent_zero", "1e0"),
        ("exponent_leading_zeros", "1e007"),
        ("zero_exponent", "0e0"),
        ("zero_big_exponent", "0e999999"),
        ("negative_zero_exponent", "-0e-5"),
        ("fraction_and_exponent", "12.5e-3"),
        ("negative_fraction_and_exponent", "-12.5E+3"),
        ("int_max_one_digit_pair", "99"),
        ("int_2_pow_31", "2147483648"),
        ("int_2_pow_32", "4294967296"),
        ("int_2_pow_53", "9007199254740992"),
        ("int_2_pow_53_plus_1", "9007199254740993"),
        ("int_i64_max", "9223372036854775807"),
        ("int_i64_min", "-9223372036854775808"),
        ("int_2_pow_63", "9223372036854775808"),
        ("int_u64_max", "18446744073709551615"),
        ("int_19_digits", "1234567890123456789"),
        ("int_20_digits_in_u64", "10000000000000000000"),
        # Beyond 64 bits: a float (the standard library's value, as a float).
        ("int_u64_max_plus_1", "18446744073709551616"),
        ("int_i64_min_minus_1", "-9223372036854775809"),
        ("int_30_digits", "123456789012345678901234567890"),
        ("int_negative_30_digits", "-123456789012345678901234567890"),
        ("int_100_digits", "1" * 100),
        ("float_max", "1.7976931348623157e308"),
        ("float_max_rounded_down", "1.7976931348623158e308"),
        ("float_min_normal", "2.2250738585072014e-308"),
        ("float_max_subnormal", "2.2250738585072009e-308"),
        ("float_min_subnormal", "5e-324"),
        ("float_min_subnormal_long", "4.9406564584124654e-324"),
        ("float_half_min_subnormal_rounds_up", "2.4703282292062328e-324"),
        ("float_below_half_min_subnormal_is_zero", "2.4703282292062327e-324"),
        ("float_underflow_to_zero", "1e-400"),
        ("float_negative_underflow_to_negative_zero", "-1e-400"),
        ("float_2_pow_53_plus_1_rounds_to_even", "9007199254740993.0"),
        ("float_halfway_many_digits", "9007199254740993.000000000000000000000000000001"),
        ("float_point_one", "0.1"),
        ("float_point_one_exact_digits", "0.1000000000000000055511151231257827021181583404541015625"),
        ("float_17_significant_digits", "0.30000000000000004"),
        ("float_integer_valued", "1.0"),
        ("float_exponent_of_integer_digits", "123456789012345678901234567890e-10"),
        ("float_many_leading_zeros", "0.000000000000000000000000000000000000001"),
        ("float_many_trailing_zeros", "1.000000000000000000000000000000000000000"),
        ("float_big_exponent_small_mantissa", "0.00000001e316"),
        ("float_1e22_exact", "1e22"),
        ("float_1e23_inexact", "1e23"),
        ("float_clinger_boundary", "9007199254740991e22"),
        ("float_six_decimals", "1234.567891"),
    ]:
        y[f"number_{name}"] = _u(f"[{text}]")
    y["number_every_digit_count"] = _u(
        "[" + ",".join(["1" * n for n in range(1, 40)] + ["-" + "9" * n for n in range(1, 40)]) + "]"
    )
    y["number_every_fraction_length"] = _u("[" + ",".join("0." + "7" * n for n in range(1, 40)) + "]")
    y["number_exponents_across_the_range"] = _u("[" + ",".join(f"1e{e}" for e in range(-330, 309, 7)) + "]")
    y["number_powers_of_two"] = _u("[" + ",".join(str(2**k) for k in range(64)) + "]")
    y["number_negative_powers_of_two"] = _u("[" + ",".join(str(-(2**k)) for k in range(64)) + "]")
    y["number_followed_by_every_delimiter"] = b'[1,2 ,3\t,4\n,5\r,[6],{"a":7},{"b":8 }]'
    y["number_top_level_with_whitespace"] = b" -1.5e-3 "

    # ---- Nesting up to the limit.
    y["nesting_arrays_at_limit"] = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    y["nesting_objects_at_limit"] = b'{"a":' * (MAX_DEPTH - 1) + b"{}" + b"}" * (MAX_DEPTH - 1)
    y["nesting_mixed_at_limit"] = b'[{"a":' * (MAX_DEPTH // 2) + b"null" + b"}]" * (MAX_DEPTH // 2)
    y["nesting_wide_and_deep"] = _u("[" + ",".join("[" * 50 + str(i) + "]" * 50 for i in range(50)) + "]")

    # ---- A document using every production at once.
    y["everything"] = _u(
        '{\n  "null": null, "true": true, "false": false,\n'
        '  "numbers": [0, -0, 1, -1, 0.5, -0.5e-3, 1E+2, 9223372036854775807, -9223372036854775808,'
        " 18446744073709551615, 1.7976931348623157e308, 5e-324],\n"
        '  "strings": ["", "plain", "\\"\\\\\\/\\b\\f\\n\\r\\t", "\\u0000\\u001f\\u00e9\\ud83d\\ude00", "é中😀"],\n'
        '  "nested": {"array": [[], [{}], {"": [null]}], "object": {"a": {"b": {"c": {}}}}},\n'
        '  "whitespace" :\t[ 1 ,\r\n 2 ]\n}\n'
    )

    # ---- Canonical: the exact text dumps writes.
    for name, text in [
        ("empty_array", "[]"),
        ("empty_object", "{}"),
        ("null", "[null]"),
        ("true", "[true]"),
        ("false", "[false]"),
        ("zero", "[0]"),
        ("negative_int", "[-1]"),
        ("i64_min", "[-9223372036854775808]"),
        ("u64_max", "[18446744073709551615]"),
        ("float", "[1.5]"),
        ("negative_float", "[-0.001]"),
        ("negative_zero", "[-0.0]"),
        ("float_max", "[1.7976931348623157e308]"),
        ("float_min_subnormal", "[5e-324]"),
        ("float_small", "[1e-7]"),
        ("float_large", "[1e16]"),
        ("string", '["foo"]'),
        ("string_escapes", '["\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f"]'),
        ("string_non_ascii", '["é中😀\u2028"]'),
        ("object", '{"a":null,"foo":"bar"}'),
        ("nested", '{"a":[1,{"b":[]}],"c":{"d":{}}}'),
        ("array", "[0,1,2]"),
    ]:
        y[f"canonical_{name}"] = _u(text)
    return y


def rejected() -> dict[str, bytes]:
    n: dict[str, bytes] = {}

    # ---- The document as a whole.
    n["document_empty"] = b""
    n["document_only_whitespace"] = b" \t\r\n"
    n["document_two_values"] = b"1 2"
    n["document_two_arrays"] = b"[][]"
    n["document_trailing_garbage"] = b"[] x"
    n["document_trailing_comma"] = b"[],"
    n["document_trailing_close"] = b"[]]"
    n["document_trailing_nul"] = b"[1]\x00"
    n["document_leading_nul"] = b"\x00[1]"
    n["document_only_comma"] = b","
    n["document_only_colon"] = b":"
    n["document_only_close_bracket"] = b"]"
    n["document_only_close_brace"] = b"}"
    n["document_comment_line"] = b"[1] // comment"
    n["document_comment_block"] = b"/* c */ [1]"
    n["document_utf16le"] = "[1]".encode("utf-16-le")
    n["document_utf16be"] = "[1]".encode("utf-16-be")
    n["document_utf16le_bom"] = b"\xff\xfe" + "[1]".encode("utf-16-le")
    n["document_utf32"] = "[1]".encode("utf-32-le")

    # ---- Whitespace JSON does not have.
    for name, ch in [
        ("form_feed", "\x0c"),
        ("vertical_tab", "\x0b"),
        ("nul", "\x00"),
        ("nbsp", "\u00a0"),
        ("line_separator", "\u2028"),
        ("ideographic_space", "\u3000"),
        ("zero_width_space", "\u200b"),
        ("nel", "\u0085"),
    ]:
        n[f"whitespace_{name}"] = _u(f"[1,{ch}2]")

    # ---- Arrays.
    for name, text in [
        ("unclosed", "["),
        ("unclosed_after_value", "[1"),
        ("unclosed_after_comma", "[1,"),
        ("trailing_comma", "[1,]"),
        ("trailing_comma_nested", "[[],]"),
        ("leading_comma", "[,1]"),
        ("only_comma", "[,]"),
        ("double_comma", "[1,,2]"),
        ("missing_comma", "[1 2]"),
        ("missing_comma_strings", '["a" "b"]'),
        ("colon", "[1:2]"),
        ("closed_by_brace", "[1}"),
        ("extra_close", "[1]]"),
        ("unclosed_nested", "[[1]"),
        ("bare_word", "[abc]"),
    ]:
        n[f"array_{name}"] = _u(text)

    # ---- Objects.
    for name, text in [
        ("unclosed", "{"),
        ("unclosed_after_key", '{"a"'),
        ("unclosed_after_colon", '{"a":'),
        ("unclosed_after_value", '{"a":1'),
        ("unclosed_after_comma", '{"a":1,'),
        ("trailing_comma", '{"a":1,}'),
        ("leading_comma", '{,"a":1}'),
        ("only_comma", "{,}"),
        ("double_comma", '{"a":1,,"b":2}'),
        ("missing_comma", '{"a":1 "b":2}'),
        ("missing_colon", '{"a" 1}'),
        ("double_colon", '{"a"::1}'),
        ("missing_value", '{"a":}'),
        ("missing_key", "{:1}"),
        ("key_without_value", '{"a"}'),
        ("number_key", "{1:1}"),
        ("literal_key", "{null:1}"),
        ("true_key", "{true:1}"),
        ("bare_key", "{a:1}"),
        ("single_quoted_key", "{'a':1}"),
        ("array_key", "{[]:1}"),
        ("object_key", "{{}:1}"),
        ("comma_instead_of_colon", '{"a",1}'),
        ("colon_instead_of_comma", '{"a":1:"b":2}'),
        ("closed_by_bracket", '{"a":1]'),
        ("extra_close", '{"a":1}}'),
    ]:
        n[f"object_{name}"] = _u(text)

    # ---- Literals.
    for name, text in [
        ("true_truncated", "tru"),
        ("false_truncated", "fals"),
        ("null_truncated", "nul"),
        ("true_capitalised", "True"),
        ("false_capitalised", "False"),
        ("null_upper", "NULL"),
        ("none", "None"),
        ("undefined", "undefined"),
        ("true_extended", "truex"),
        ("null_extended", "nulll"),
        ("nan", "NaN"),
        ("nan_lower", "nan"),
        ("negative_nan", "-NaN"),
        ("infinity", "Infinity"),
        ("negative_infinity", "-Infinity"),
        ("inf", "inf"),
        ("true_in_array_extended", "[truex]"),
        ("false_with_space", "[f alse]"),
    ]:
        n[f"literal_{name}"] = _u(text)

    # ---- Numbers.
    for name, text in [
        ("leading_zero", "01"),
        ("negative_leading_zero", "-01"),
        ("double_zero", "00"),
        ("leading_zero_fraction", "00.5"),
        ("plus_sign", "+1"),
        ("plus_zero", "+0"),
        ("minus_only", "-"),
        ("minus_space", "- 1"),
        ("double_minus", "--1"),
        ("fraction_without_int", ".5"),
        ("negative_fraction_without_int", "-.5"),
        ("dot_without_fraction", "1."),
        ("dot_then_exponent", "1.e5"),
        ("zero_dot_then_exponent", "0.e1"),
        ("exponent_without_digits", "1e"),
        ("exponent_sign_without_digits", "1e+"),
        ("exponent_minus_without_digits", "1E-"),
        ("exponent_double_sign", "1e+-1"),
        ("exponent_dot", "1e1.5"),
        ("double_exponent", "1e1e1"),
        ("exponent_only", "e1"),
        ("two_dots", "1.0.0"),
        ("hex", "0x10"),
        ("octal_prefix", "0o7"),
        ("binary_prefix", "0b1"),
        ("underscore", "1_000"),
        ("comma_decimal", "[1,5.]"),
        ("fullwidth_digit", "\uff11"),
        ("arabic_indic_digit", "\u0661"),
        ("superscript_digit", "\u00b9"),
        ("trailing_letter", "1a"),
        ("trailing_dot_in_array", "[1.]"),
        ("leading_zero_in_array", "[012]"),
        ("plus_in_array", "[+5]"),
    ]:
        n[f"number_{name}"] = _u(text)

    # ---- Strings.
    for name, text in [
        ("unterminated", '"abc'),
        ("only_quote", '"'),
        ("unterminated_in_array", '["abc]'),
        ("single_quoted", "'abc'"),
        ("single_quoted_in_array", "['a']"),
        ("unquoted", "[abc]"),
        ("escape_unknown_letter", '["\\a"]'),
        ("escape_x", '["\\x41"]'),
        ("escape_upper_u", '["\\U0041"]'),
        ("escape_zero", '["\\0"]'),
        ("escape_single_quote", '["\\\'"]'),
        ("escape_space", '["\\ "]'),
        ("escape_non_ascii", '["\\é"]'),
        ("escape_raw_newline", '["\\\n"]'),
        ("escape_u_no_digits", '["\\u"]'),
        ("escape_u_one_digit", '["\\u1"]'),
        ("escape_u_two_digits", '["\\u12"]'),
        ("escape_u_three_digits", '["\\u123"]'),
        ("escape_u_bad_digit", '["\\u123g"]'),
        ("escape_u_letters", '["\\uGGGG"]'),
        ("escape_u_plus_sign", '["\\u+123"]'),
        ("escape_u_braces", '["\\u{41}"]'),
        ("escape_at_end", '["\\'),
        ("escaped_closing_quote", '["\\"]'),
        ("backslash_unterminated", '"\\'),
        ("escape_u_truncated_at_end", '"\\u00'),
    ]:
        n[f"string_{name}"] = _u(text)
    # Every control character raw in a string (they must be escaped).
    for c in range(0x20):
        n[f"string_raw_control_{c:02x}"] = b'["a' + bytes([c]) + b'b"]'
    n["string_raw_control_in_key"] = b'{"a\nb":1}'
    n["string_raw_tab_long"] = _u('["' + "x" * 40 + "\t" + '"]')

    # ---- Lone, reversed and broken surrogate escapes.
    for name, text in [
        ("lone_high_first", '["\\ud800"]'),
        ("lone_high_last", '["\\udbff"]'),
        ("lone_low_first", '["\\udc00"]'),
        ("lone_low_last", '["\\udfff"]'),
        ("lone_high_then_text", '["\\ud800abc"]'),
        ("lone_high_at_end_of_text", '["abc\\ud83d"]'),
        ("lone_low_after_text", '["abc\\ude00"]'),
        ("high_then_ascii_escape", '["\\ud800\\u0041"]'),
        ("high_then_bmp_escape", '["\\ud800\\ue000"]'),
        ("high_then_short_escape", '["\\ud800\\n"]'),
        ("high_then_high", '["\\ud800\\ud800"]'),
        ("low_then_high", '["\\udc00\\ud800"]'),
        ("low_then_low", '["\\udc00\\udc00"]'),
        ("high_then_incomplete_escape", '["\\ud800\\u"]'),
        ("high_then_short_u_escape", '["\\ud800\\udc0"]'),
        ("high_then_backslash", '["\\ud800\\"]'),
        ("pair_split_by_space", '["\\ud83d \\ude00"]'),
        ("pair_then_lone_high", '["\\ud83d\\ude00\\ud83d"]'),
        ("lone_high_in_key", '{"\\ud800":1}'),
        ("lone_low_in_key", '{"\\udfff":1}'),
        ("lone_high_upper_hex", '["\\uD800"]'),
        ("lone_high_long_text", '["' + "a" * 100 + "\\ud834" + "b" * 100 + '"]'),
    ]:
        n[f"surrogate_{name}"] = _u(text)

    # ---- Invalid UTF-8, in a string (and once outside one).
    for name, raw in [
        ("lone_continuation_80", b"\x80"),
        ("lone_continuation_bf", b"\xbf"),
        ("two_continuations", b"\x80\x80"),
        ("lead_c2_at_end", b"\xc2"),
        ("lead_c2_then_ascii", b"\xc2A"),
        ("lead_e2_then_one_continuation", b"\xe2\x82"),
        ("lead_e2_then_ascii", b"\xe2\x82A"),
        ("lead_f0_then_two_continuations", b"\xf0\x9f\x98"),
        ("lead_f0_then_one_continuation", b"\xf0\x9f"),
        ("lead_f0_alone", b"\xf0"),
        ("overlong_2_bytes_nul", b"\xc0\x80"),
        ("overlong_2_bytes_slash", b"\xc0\xaf"),
        ("overlong_2_bytes_max", b"\xc1\xbf"),
        ("overlong_3_bytes_nul", b"\xe0\x80\x80"),
        ("overlong_3_bytes_max", b"\xe0\x9f\xbf"),
        ("overlong_4_bytes_nul", b"\xf0\x80\x80\x80"),
        ("overlong_4_bytes_max", b"\xf0\x8f\xbf\xbf"),
        ("overlong_5_bytes", b"\xf8\x80\x80\x80\xaf"),
        ("overlong_6_bytes", b"\xfc\x80\x80\x80\x80\xaf"),
        ("surrogate_d800_encoded", b"\xed\xa0\x80"),
        ("surrogate_dbff_encoded", b"\xed\xaf\xbf"),
        ("surrogate_dc00_encoded", b"\xed\xb0\x80"),
        ("surrogate_dfff_encoded", b"\xed\xbf\xbf"),
        ("surrogate_pair_encoded_cesu", b"\xed\xa0\xbd\xed\xb8\x80"),
        ("above_10ffff_f4_90", b"\xf4\x90\x80\x80"),
        ("above_10ffff_f4_bf", b"\xf4\xbf\xbf\xbf"),
        ("lead_f5", b"\xf5\x80\x80\x80"),
        ("lead_f7", b"\xf7\xbf\xbf\xbf"),
        ("lead_f8", b"\xf8\x88\x80\x80\x80"),
        ("lead_fc", b"\xfc\x84\x80\x80\x80\x80"),
        ("byte_fe", b"\xfe"),
        ("byte_ff", b"\xff"),
        ("latin1_e_acute", b"caf\xe9"),
        ("continuation_after_complete_char", b"\xc3\xa9\xa9"),
        ("three_byte_lead_then_four_byte_lead", b"\xe2\xf0\x9f\x98\x80"),
    ]:
        n[f"utf8_{name}"] = b'["' + raw + b'"]'
    n["utf8_invalid_in_key"] = b'{"\xff":1}'
    n["utf8_invalid_outside_string"] = b"[\xff]"
    n["utf8_invalid_after_document"] = b"[1] \xc3"
    n["utf8_truncated_at_end_of_document"] = b'["\xe4\xb8'
    n["utf8_invalid_in_whitespace"] = b"[1,\xc2\xa0 2]"
    # Past every block size the validators use: the bad byte at offsets
    # around 8, 16, 32 and 64 in a long string.
    for offset in (7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128):
        n[f"utf8_bad_byte_at_{offset:03}"] = b'["' + b"a" * offset + b"\xff" + b"b" * 80 + b'"]'
        n[f"utf8_truncated_char_at_{offset:03}"] = b'["' + b"a" * offset + b"\xe4\xb8" + b"b" * 80 + b'"]'
        n[f"utf8_surrogate_at_{offset:03}"] = b'["' + "é".encode() * (offset // 2) + b"\xed\xa0\x80" + b"b" * 80 + b'"]'

    # ---- Nesting past the limit, and never closed.
    n["nesting_arrays_past_limit"] = b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1)
    n["nesting_objects_past_limit"] = b'{"a":' * MAX_DEPTH + b"{}" + b"}" * MAX_DEPTH
    n["nesting_mixed_past_limit"] = b'[{"a":' * (MAX_DEPTH // 2) + b"[]" + b"}]" * (MAX_DEPTH // 2)
    n["nesting_arrays_never_closed"] = b"[" * 100_000
    n["nesting_objects_never_closed"] = b'{"a":' * 50_000
    n["nesting_closed_one_short"] = b"[" * 100 + b"]" * 99
    n["nesting_mismatched_deep"] = b"[" * 50 + b"{" + b"]" * 51
    return n


def implementation_defined() -> dict[str, bytes]:
    """Cases RFC 8259 leaves to the implementation; the tests say what orcodec does."""
    return {
        "number_overflow_positive": b"[1e400]",
        "number_overflow_negative": b"[-1e400]",
        "number_overflow_just_past_max": b"[1.7976931348623159e308]",
        "number_overflow_400_digits": b"[" + b"9" * 400 + b"]",
        "number_overflow_big_exponent": b"[1e99999999999999999999]",
        "number_underflow_huge_negative_exponent": b"[1e-99999999999999999999]",
        "bom_utf8": b"\xef\xbb\xbf[1]",
        "string_escaped_nul_in_text": b'["a\\u0000b"]',
    }


# Hostile strings, written through both formats by the tests: every line is
# one string (after the "#" comments and blank lines are dropped).
STRINGS = [
    "# Hostile strings for orcodec's tests: one per line; lines starting with # are comments.",
    "# Written by tools/conformance_corpus.py.",
    "",
    "# Reserved words and values of other languages",
    "undefined",
    "null",
    "NULL",
    "None",
    "nil",
    "true",
    "False",
    "NaN",
    "-Infinity",
    "0",
    "-0",
    "0.0",
    "1e309",
    "0x7fffffff",
    "9223372036854775808",
    "-9223372036854775809",
    "1,000.5",
    "1/0",
    "",
    "# JSON and MessagePack syntax inside text",
    '{"key": "value"}',
    "[1, 2, 3]",
    '"quoted"',
    "\\",
    "\\\\",
    '\\"',
    "\\u0000",
    "\\ud800",
    "\\n\\r\\t",
    "}{][",
    "\x7f",
    "\xc0\xc1\xf5",
    "",
    "# Markup and injection",
    "<script>alert(1)</script>",
    "</script><!--",
    "'; DROP TABLE users; --",
    "' OR '1'='1",
    "${jndi:ldap://x}",
    "{{7*7}}",
    "$(rm -rf /)",
    "`id`",
    "%s%s%s%n",
    "../../../../etc/passwd",
    "C:\\Windows\\System32",
    "file:///dev/null",
    "",
    "# Spaces, invisible and direction-changing characters",
    " ",
    "\t",
    "\u00a0",
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a",
    "\u200b\u200c\u200d",
    "\u2060\ufeff",
    "\u2028",
    "\u2029",
    "\u0085",
    "\u180e",
    "\u3000",
    "\u202e",
    "abc\u202edef",
    "\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069",
    "\u061c",
    "\u00ad",
    "",
    "# Combining marks and normalisation",
    "e\u0301",
    "\u00e9",
    "a\u0300\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308\u0309\u030a\u030b\u030c",
    "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034d",
    "\ufb01",
    "\u212b",
    "\u1e9b\u0323",
    "",
    "# Scripts of every UTF-8 length",
    "\u00ff\u0100\u07ff",
    "\u0800\u4e2d\u6587\ud7ff",
    "\ue000\uf8ff\ufffd\ufffe\uffff",
    "\U00010000\U0001f600\U0001f4a9\U0010ffff",
    "\u0645\u0631\u062d\u0628\u0627",
    "\u05e9\u05dc\u05d5\u05dd",
    "\u0928\u092e\u0938\u094d\u0924\u0947",
    "\u3053\u3093\u306b\u3061\u306f",
    "\ud55c\uad6d\uc5b4",
    "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35",
    "\u1f00\u03b1\u03b2\u03b3",
    "\u0416\u0436\u0429\u0449",
    "",
    "# Emoji sequences",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "\U0001f3f3\ufe0f\u200d\U0001f308",
    "\U0001f44d\U0001f3fd",
    "\U0001f1fa\U0001f1f8\U0001f1ef\U0001f1f5",
    "1\ufe0f\u20e3",
    "\u2764\ufe0f",
    "",
    "# Mixed storage: ASCII next to 1-, 2- and 4-byte characters",
    "ascii then \u00e9",
    "ascii then \u4e2d",
    "ascii then \U0001f600",
    "\u00e9\u4e2d\U0001f600 all three",
    "\u00ff" * 40,
    "\uffff" * 40,
    "\U0010ffff" * 40,
    "",
    "# Long runs (SIMD block boundaries)",
    "a" * 15 + '"',
    "a" * 16 + "\\",
    "a" * 31 + "\x01",
    "a" * 32 + "\u00e9",
    "a" * 63 + "\u4e2d",
    "a" * 64 + "\U0001f600",
    "x" * 1000,
    "\u00e9" * 500,
    '"\\' * 200,
    "",
    "# Every control character but line feed (which ends a line here)",
    "".join(chr(c) for c in range(0x20) if c not in (0x0A, 0x0D)),
    "\x00",
    "a\x00b",
    "\x1b[31mred\x1b[0m",
    "\x08\x0c\x09",
]


def strings_file() -> bytes:
    return ("\n".join(STRINGS) + "\n").encode("utf-8")


def corpus() -> dict[str, bytes]:
    """Every file of the corpus, by name."""
    files: dict[str, bytes] = {}
    for prefix, cases in [("y", accepted()), ("n", rejected()), ("i", implementation_defined())]:
        for name, data in cases.items():
            filename = f"{prefix}_{name}.json"
            assert filename not in files, filename
            files[filename] = data
    files["strings.txt"] = strings_file()
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="compare with the files in --out, write nothing")
    args = parser.parse_args(argv)
    files = corpus()
    if args.check:
        present = {p.name for p in args.out.iterdir()} if args.out.is_dir() else set()
        stale = sorted(n for n in files if not (args.out / n).is_file() or (args.out / n).read_bytes() != files[n])
        extra = sorted(present - set(files))
        for name in stale:
            print(f"differs or missing: {name}", file=sys.stderr)
        for name in extra:
            print(f"not written by this script: {name}", file=sys.stderr)
        return 1 if stale or extra else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.iterdir():
        if old.name not in files:
            old.unlink()
    for name, data in files.items():
        (args.out / name).write_bytes(data)
    print(f"wrote {len(files)} files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

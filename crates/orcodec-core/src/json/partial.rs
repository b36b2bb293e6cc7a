//! Partial documents: JSON cut off at any byte (a stream that is still
//! arriving), read as far as it is complete, with the semantics of pydantic's
//! jiter (`partial_mode`).
//!
//! The push decoder ([`scanner::parse_partial_with`](super::scanner::parse_partial_with))
//! reads the input as usual; when it stops at the end of the input, the
//! containers still open are closed and what was cut is decided here:
//!
//! * an entry whose key, colon or value is incomplete is dropped whole;
//! * an incomplete string value is dropped, or with [`PartialMode::TrailingStrings`]
//!   kept as far as it goes (an escape or a UTF-8 sequence cut in the middle
//!   left out);
//! * a number or literal running to the end is kept when it is complete
//!   (`[1, 2` is `[1, 2]`), dropped when it is not (`[1, 2.`, `[tr`);
//! * a value cut at the top level (no container open) is an error, except a
//!   string with `TrailingStrings`.
//!
//! Anything that no continuation could make valid (a bad escape, a byte no
//! value starts with, a control character in a string) is the error it is
//! without the partial mode, at its offset.

use super::unescape::ESCAPES;
use crate::error::{DecodeError, DecodeErrorKind as Kind};

/// How a cut-off document is read (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialMode {
    /// Incomplete strings are dropped, as jiter's `partial_mode=True`.
    On,
    /// Incomplete strings are kept as far as they go, as jiter's
    /// `partial_mode="trailing-strings"`.
    TrailingStrings,
}

/// The length of `input` without a UTF-8 sequence cut at its very end (the
/// one kind of invalid UTF-8 a cut makes); `input.len()` when there is none
/// or when the input is invalid in another way (the decoder then reports it).
pub(super) fn without_cut_character(input: &[u8]) -> usize {
    // A cut sequence is at most 3 bytes: look at the last few only.
    let from = input.len().saturating_sub(4);
    let mut start = input.len();
    for i in (from..input.len()).rev() {
        if input[i] & 0xc0 != 0x80 {
            start = i;
            break;
        }
    }
    if start == input.len() {
        return input.len();
    }
    let lead = input[start];
    let need = match lead {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return input.len(),
    };
    let have = input.len() - start;
    if have >= need {
        return input.len();
    }
    // The bytes present must be a valid start of the sequence (the second
    // byte's range depends on the lead), else it is not a cut character.
    if have >= 2 {
        let second = input[start + 1];
        let ok = match lead {
            0xe0 => (0xa0..=0xbf).contains(&second),
            0xed => (0x80..=0x9f).contains(&second),
            0xf0 => (0x90..=0xbf).contains(&second),
            0xf4 => (0x80..=0x8f).contains(&second),
            _ => true,
        };
        if !ok {
            return input.len();
        }
    }
    start
}

/// Whether `tail` (running to the end of the input) is the start of a JSON
/// number that is not complete yet: `-`, `1.`, `1e`, `1e+`.
pub(super) fn is_number_start(tail: &[u8]) -> bool {
    let mut i = 0;
    if tail.first() == Some(&b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let from = *i;
        while tail.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - from
    };
    match tail.get(i) {
        None => return true,
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        Some(_) => return false,
    }
    if tail.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 && i != tail.len() {
            return false;
        }
    }
    if matches!(tail.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(tail.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        digits(&mut i);
    }
    i == tail.len()
}

/// Whether `tail` (running to the end of the input) is the start of
/// `true`, `false` or `null`, not the whole word.
pub(super) fn is_literal_start(tail: &[u8]) -> bool {
    [&b"true"[..], b"false", b"null"].iter().any(|word| tail.len() < word.len() && word.starts_with(tail))
}

fn hex(c: u8) -> Option<u32> {
    (c as char).to_digit(16)
}

/// Checks the body of a string that runs to the end of `input` (from
/// `start`, just past its opening quote) as the start of a string, with the
/// errors and offsets of the lexer for what is invalid whatever follows.
/// Returns where its complete part ends: before an escape cut in the middle
/// (`\`, `\u00`, a high surrogate without its pair yet).
pub(super) fn string_start(input: &[u8], start: usize) -> Result<usize, DecodeError> {
    let end = input.len();
    let mut i = start;
    while i < end {
        let c = input[i];
        if c == b'"' {
            // Only reachable after an escape the lexer read as cut (its
            // digits are fewer than four before the end): the quote is
            // where a digit should be.
            return Err(DecodeError::new(Kind::InvalidEscape, i));
        }
        if c < 0x20 {
            return Err(DecodeError::new(Kind::ControlCharacterInString, i));
        }
        if c != b'\\' {
            i += 1;
            continue;
        }
        let Some(&e) = input.get(i + 1) else { return Ok(i) };
        if ESCAPES[e as usize] > 1 {
            i += 2;
            continue;
        }
        if e != b'u' {
            return Err(DecodeError::new(Kind::InvalidEscape, i));
        }
        let Some(first) = hex_unit(input, i + 2, i)? else { return Ok(i) };
        match first {
            0xD800..=0xDBFF => {
                let j = i + 6;
                match input.get(j..(j + 2).min(end)) {
                    Some([]) | Some([b'\\']) => return Ok(i),
                    Some([b'\\', b'u']) => {}
                    _ => return Err(DecodeError::new(Kind::LoneSurrogate, i)),
                }
                let Some(second) = hex_unit(input, j + 2, j)? else { return Ok(i) };
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(DecodeError::new(Kind::LoneSurrogate, i));
                }
                i += 12;
            }
            0xDC00..=0xDFFF => return Err(DecodeError::new(Kind::LoneSurrogate, i)),
            _ => i += 6,
        }
    }
    Ok(end)
}

/// The four hex digits at `at` (of the escape at `backslash`): their value,
/// None when the input ends among them, `InvalidEscape` at the backslash for
/// a byte that is no hex digit.
fn hex_unit(input: &[u8], at: usize, backslash: usize) -> Result<Option<u32>, DecodeError> {
    let mut v = 0;
    for k in at..at + 4 {
        let Some(&d) = input.get(k) else { return Ok(None) };
        let Some(n) = hex(d) else { return Err(DecodeError::new(Kind::InvalidEscape, backslash)) };
        v = v << 4 | n;
    }
    Ok(Some(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_starts() {
        for yes in ["-", "1.", "0.", "1e", "1E+", "1.5e-", "-0.", "12e"] {
            assert!(is_number_start(yes.as_bytes()), "{yes}");
        }
        for no in ["-x", "1.x", "01x", "1e+x", "1.5.", "--", "+1", "1ee"] {
            assert!(!is_number_start(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn literal_starts() {
        for yes in ["t", "tr", "tru", "f", "fals", "n", "nul"] {
            assert!(is_literal_start(yes.as_bytes()), "{yes}");
        }
        for no in ["true", "tx", "nulx", "x", "fa1"] {
            assert!(!is_literal_start(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn string_starts() {
        let ok = |s: &str| string_start(s.as_bytes(), 0);
        assert_eq!(ok("abc"), Ok(3));
        assert_eq!(ok("ab\\"), Ok(2));
        assert_eq!(ok("ab\\n"), Ok(4));
        assert_eq!(ok("ab\\u00"), Ok(2));
        assert_eq!(ok("ab\\u00e9"), Ok(8));
        assert_eq!(ok("ab\\ud83d"), Ok(2));
        assert_eq!(ok("ab\\ud83d\\"), Ok(2));
        assert_eq!(ok("ab\\ud83d\\u"), Ok(2));
        assert_eq!(ok("ab\\ud83d\\ude0"), Ok(2));
        assert_eq!(ok("ab\\ud83d\\ude00"), Ok(14));
        assert_eq!(ok("a\\x").unwrap_err().kind, Kind::InvalidEscape);
        assert_eq!(ok("a\\u1g").unwrap_err(), DecodeError::new(Kind::InvalidEscape, 1));
        assert_eq!(ok("a\\u12\"").unwrap_err(), DecodeError::new(Kind::InvalidEscape, 1));
        assert_eq!(ok("a\\ud83dx").unwrap_err(), DecodeError::new(Kind::LoneSurrogate, 1));
        assert_eq!(ok("a\\ud83d\\u0041").unwrap_err(), DecodeError::new(Kind::LoneSurrogate, 1));
        assert_eq!(ok("a\\ud83d\\u00g").unwrap_err(), DecodeError::new(Kind::InvalidEscape, 7));
        assert_eq!(ok("a\\udc00").unwrap_err(), DecodeError::new(Kind::LoneSurrogate, 1));
        assert_eq!(ok("a\x01").unwrap_err(), DecodeError::new(Kind::ControlCharacterInString, 1));
    }

    #[test]
    fn cut_characters() {
        assert_eq!(without_cut_character(b"ab"), 2);
        assert_eq!(without_cut_character("aé".as_bytes()), 3);
        assert_eq!(without_cut_character(b"a\xc3"), 1);
        assert_eq!(without_cut_character(b"a\xe4\xb8"), 1);
        assert_eq!(without_cut_character(b"a\xf0\x9f\x98"), 1);
        assert_eq!(without_cut_character(b"a\xff"), 2);
        assert_eq!(without_cut_character(b"a\xe0\x80"), 3);
        assert_eq!(without_cut_character(b"a\x80"), 2);
    }
}

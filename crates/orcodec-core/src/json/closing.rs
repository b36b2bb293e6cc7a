//! A cut-off document written whole: the text whose ordinary decoding is
//! what the partial mode reads from the cut one (see [`partial`](super::partial)).
//!
//! Typed decoding reads a partial document through this: the text kept is
//! the input's own up to the end of the last complete item of the innermost
//! open container (or, with [`PartialMode::TrailingStrings`], up to the
//! complete part of the string that was cut, then a closing quote), followed
//! by the brackets that close every container still open. Every byte kept is
//! where it was in the input, so a value that does not fit the type is
//! reported at its own offset, and the validators read the document as they
//! read any other (`$` paths, messages, positions all as without the cut).

use super::partial::{self, PartialMode};
use super::scanner::{parse_partial_with, ScanStacks};
use crate::builder::Builder;
use crate::error::{DecodeError, DecodeErrorKind as Kind, Failure};
use crate::fallible;

/// How a cut-off document closes: `input[..keep]`, then `"` if `quote`,
/// then `closers` (the innermost container's bracket first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Closed {
    pub keep: usize,
    pub quote: bool,
    pub closers: Vec<u8>,
}

impl Closed {
    /// The whole document's text.
    pub fn text(&self, input: &[u8]) -> Result<Vec<u8>, DecodeError> {
        let mut out = Vec::new();
        let oom = |_| DecodeError::new(Kind::NoMemory, self.keep);
        fallible::reserve(&mut out, self.keep + 1 + self.closers.len()).map_err(oom)?;
        fallible::extend(&mut out, &input[..self.keep]).map_err(oom)?;
        if self.quote {
            fallible::push(&mut out, b'"').map_err(oom)?;
        }
        fallible::extend(&mut out, &self.closers).map_err(oom)?;
        Ok(out)
    }
}

/// A builder that builds nothing: the partial decoder run only for its errors.
struct Discard;

impl Builder for Discard {
    type Value = ();
    type Error = ();
    fn null(&mut self) -> Result<(), ()> {
        Ok(())
    }
    fn bool(&mut self, _: bool) -> Result<(), ()> {
        Ok(())
    }
    fn i64(&mut self, _: i64) -> Result<(), ()> {
        Ok(())
    }
    fn u64(&mut self, _: u64) -> Result<(), ()> {
        Ok(())
    }
    fn f64(&mut self, _: f64) -> Result<(), ()> {
        Ok(())
    }
    fn str(&mut self, _: &str) -> Result<(), ()> {
        Ok(())
    }
    fn key(&mut self, _: &str) -> Result<(), ()> {
        Ok(())
    }
    fn bytes(&mut self, _: &[u8]) -> Result<(), ()> {
        Ok(())
    }
    fn timestamp(&mut self, _: i64, _: u32) -> Result<(), ()> {
        Ok(())
    }
    fn array(&mut self, items: &mut Vec<()>, start: usize) -> Result<(), ()> {
        items.truncate(start);
        Ok(())
    }
    fn map(&mut self, items: &mut Vec<()>, start: usize) -> Result<(), ()> {
        items.truncate(start);
        Ok(())
    }
}

/// How `input`, which may be cut off anywhere, closes in `mode`:
/// * `Ok(None)`: it needs no closing (its containers all close, or it is a
///   value or text with none open): decode it as it is, as without the
///   partial mode;
/// * `Ok(Some(closed))`: [`Closed::text`] is the document the partial mode
///   reads from it (the input is valid as far as it goes);
/// * `Err(e)`: the error the partial mode raises for it (invalid before the
///   cut, nothing to return, out of memory).
pub fn close(input: &[u8], mode: PartialMode) -> Result<Option<Closed>, DecodeError> {
    let Some(closed) = scan(input, mode)? else { return Ok(None) };
    match parse_partial_with(input, &mut Discard, &mut ScanStacks::new(), mode) {
        Ok(()) => Ok(Some(closed)),
        Err(Failure::Syntax(e)) => Err(e),
        // Discard never fails.
        Err(Failure::Build(())) => Ok(Some(closed)),
    }
}

/// An open container in [`scan`].
struct Open {
    is_map: bool,
    /// In a map: the next string is a key.
    expect_key: bool,
    /// Where the last complete item (entry) ends, or just past the bracket.
    item_end: usize,
}

/// Whether `c` ends a number or literal.
fn ends_scalar(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' | b'[' | b']' | b'{' | b'}' | b'"')
}

/// The structure of `input` alone (brackets, strings, where items end),
/// assuming it is valid as far as it goes; [`close`] checks that with the
/// decoder. Any input is scanned safely; nesting past the decoder's limit
/// is left to the decoder to refuse.
fn scan(input: &[u8], mode: PartialMode) -> Result<Option<Closed>, DecodeError> {
    let input = &input[..partial::without_cut_character(input)];
    let end = input.len();
    let mut open: Vec<Open> = Vec::new();
    let mut i = 0;
    // Where the kept text ends, and whether a cut string is kept.
    let (keep, quote) = loop {
        let Some(&c) = input.get(i) else {
            // The input ends between tokens.
            match open.last() {
                None => return Ok(None),
                Some(frame) => break (frame.item_end, false),
            }
        };
        match c {
            b',' => {
                if let Some(frame) = open.last_mut() {
                    frame.expect_key = frame.is_map;
                }
                i += 1;
            }
            b'{' | b'[' => {
                if open.len() >= crate::MAX_DECODE_DEPTH {
                    // Too deep: the decoder says so.
                    return Ok(Some(Closed { keep: end, quote: false, closers: Vec::new() }));
                }
                let is_map = c == b'{';
                fallible::push(&mut open, Open { is_map, expect_key: is_map, item_end: i + 1 })
                    .map_err(|_| DecodeError::new(Kind::NoMemory, i))?;
                i += 1;
            }
            b'}' | b']' => {
                open.pop();
                i += 1;
                match open.last_mut() {
                    Some(frame) => frame.item_end = i,
                    None => return Ok(None),
                }
            }
            b'"' => {
                let is_key = open.last().is_some_and(|f| f.expect_key);
                let Some(close) = string_end(input, i + 1) else {
                    // The input ends in this string.
                    if !is_key && mode == PartialMode::TrailingStrings {
                        break (partial::string_start(input, i + 1).unwrap_or(i + 1), true);
                    }
                    match open.last() {
                        None => return Ok(None),
                        Some(frame) => break (frame.item_end, false),
                    }
                };
                i = close + 1;
                match open.last_mut() {
                    Some(frame) if is_key => frame.expect_key = false,
                    Some(frame) => frame.item_end = i,
                    None => return Ok(None),
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' | b':' => i += 1,
            _ => {
                // A number or literal.
                let stop = input[i..].iter().position(|&b| ends_scalar(b)).map_or(end, |k| i + k);
                let Some(frame) = open.last_mut() else { return Ok(None) };
                if stop == end {
                    // It runs to the end: kept if it is complete.
                    let complete = is_whole_scalar(&input[i..]);
                    break (if complete { end } else { frame.item_end }, false);
                }
                frame.item_end = stop;
                i = stop;
            }
        }
    };
    let mut closers = Vec::new();
    fallible::reserve(&mut closers, open.len()).map_err(|_| DecodeError::new(Kind::NoMemory, keep))?;
    closers.extend(open.iter().rev().map(|f| if f.is_map { b'}' } else { b']' }));
    Ok(Some(Closed { keep, quote, closers }))
}

/// The offset of the quote that ends the string whose body starts at
/// `from`, None if the input ends first.
fn string_end(input: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        i += input.get(i..)?.iter().position(|&c| c == b'"' || c == b'\\')?;
        if input[i] == b'"' {
            return Some(i);
        }
        // The byte after a backslash is escaped.
        i += 2;
    }
}

/// Whether `text` is a whole JSON number or `true`/`false`/`null` (not
/// the start of one that the cut may have ended).
fn is_whole_scalar(text: &[u8]) -> bool {
    matches!(text, b"true" | b"false" | b"null") || is_whole_number(text)
}

fn is_whole_number(text: &[u8]) -> bool {
    let mut i = usize::from(text.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let from = *i;
        while text.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > from
    };
    match text.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if text.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(text.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(text.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == text.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::scanner::parse;
    use crate::testing::{Echo, Rng};

    fn closed_text(input: &[u8], mode: PartialMode) -> Option<Vec<u8>> {
        close(input, mode).unwrap().map(|c| c.text(input).unwrap())
    }

    #[test]
    fn closings() {
        use PartialMode::{On, TrailingStrings as Trailing};
        let cases: &[(&str, &str, &str)] = &[
            ("[1, 2", "[1, 2]", "[1, 2]"),
            ("[1, 2.", "[1]", "[1]"),
            ("[1, 2 ", "[1, 2]", "[1, 2]"),
            ("[1e+", "[]", "[]"),
            ("[tr", "[]", "[]"),
            (r#"{"a": nul"#, "{}", "{}"),
            (r#"{"a": null"#, r#"{"a": null}"#, r#"{"a": null}"#),
            (r#"{"a"#, "{}", "{}"),
            (r#"{"a":"#, "{}", "{}"),
            (r#"{"a": "b"#, "{}", r#"{"a": "b"}"#),
            (r#"{"a":1,"#, r#"{"a":1}"#, r#"{"a":1}"#),
            (r#"{"a":1, "b"#, r#"{"a":1}"#, r#"{"a":1}"#),
            (r#"["ab\u00e"#, "[]", r#"["ab"]"#),
            (r#"["a\"b", "c\"d"#, r#"["a\"b"]"#, r#"["a\"b", "c\"d"]"#),
            ("[[", "[[]]", "[[]]"),
            (r#"{"a": [1, {"b": "c"#, r#"{"a": [1, {}]}"#, r#"{"a": [1, {"b": "c"}]}"#),
            (r#"{"a": [1, {"b": 2}, 3"#, r#"{"a": [1, {"b": 2}, 3]}"#, r#"{"a": [1, {"b": 2}, 3]}"#),
            (r#"{"a": {"b": [], "c": {}"#, r#"{"a": {"b": [], "c": {}}}"#, r#"{"a": {"b": [], "c": {}}}"#),
        ];
        for &(input, on, trailing) in cases {
            assert_eq!(closed_text(input.as_bytes(), On).as_deref(), Some(on.as_bytes()), "{input}");
            assert_eq!(closed_text(input.as_bytes(), Trailing).as_deref(), Some(trailing.as_bytes()), "{input}");
        }
        // Nothing to close: decoded as it is.
        for input in ["[1, 2]", "12", "  ", "", "[1] [", r#""abc"#, "tr", "[1]]"] {
            assert_eq!(close(input.as_bytes(), On), Ok(None), "{input}");
        }
        assert_eq!(closed_text(br#""abc"#, Trailing).as_deref(), Some(&br#""abc""#[..]));
        // Invalid before the cut: the partial decoder's error.
        assert!(close(b"[1, x", On).is_err());
        assert!(close(br#"["a\u12", "#, On).is_err());
        assert!(close(b"[\xff", On).is_err());
        assert!(close("[".repeat(2000).as_bytes(), On).is_err());
    }

    /// A random document (no whitespace inside strings' escapes to get wrong).
    fn document(rng: &mut Rng, depth: usize, out: &mut String) {
        let pick = if depth > 4 { rng.below(6) } else { rng.below(9) };
        match pick {
            0 => out.push_str("null"),
            1 => out.push_str(["true", "false"][rng.below(2) as usize]),
            2 => out.push_str(["0", "-12", "3.25", "1e5", "-0.5E-3", "12345678901234567890123"][rng.below(6) as usize]),
            3..=5 => {
                let words = ["", "a", "caf\u{e9}", "\\\"q\\\\", "\\u00e9\\ud83d\\ude00", "\u{4e2d}\u{6587}", "x y"];
                out.push('"');
                out.push_str(words[rng.below(words.len() as u64) as usize]);
                out.push('"');
            }
            6 | 7 => {
                out.push('[');
                for k in 0..rng.below(4) {
                    out.push_str(if k > 0 { ", " } else { "" });
                    document(rng, depth + 1, out);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                for k in 0..rng.below(4) {
                    out.push_str(if k > 0 { ", " } else { "" });
                    out.push_str(&format!("\"k{k}\": "));
                    document(rng, depth + 1, out);
                }
                out.push('}');
            }
        }
    }

    #[test]
    fn every_cut_closes_to_the_partial_value() {
        let mut rng = Rng::new(37);
        let mut closed_cuts = 0;
        for _ in 0..600 {
            let mut doc = String::new();
            document(&mut rng, 0, &mut doc);
            let doc = doc.as_bytes();
            for cut in 0..=doc.len() {
                let input = &doc[..cut];
                for mode in [PartialMode::On, PartialMode::TrailingStrings] {
                    let partial = parse_partial_with(input, &mut Echo, &mut ScanStacks::new(), mode);
                    match close(input, mode) {
                        Ok(None) => {
                            let whole = parse(input, &mut Echo);
                            if let Ok(v) = &partial {
                                assert_eq!(whole.as_ref().ok(), Some(v), "{:?}", String::from_utf8_lossy(input));
                            }
                        }
                        Ok(Some(closed)) => {
                            closed_cuts += 1;
                            let text = closed.text(input).unwrap();
                            assert_eq!(&text[..closed.keep], &input[..closed.keep]);
                            assert_eq!(
                                parse(&text, &mut Echo).ok(),
                                partial.ok(),
                                "{:?} -> {:?}",
                                String::from_utf8_lossy(input),
                                String::from_utf8_lossy(&text)
                            );
                        }
                        Err(e) => match partial {
                            Err(Failure::Syntax(p)) => assert_eq!(p, e),
                            other => panic!("{:?}: {e:?} but {other:?}", String::from_utf8_lossy(input)),
                        },
                    }
                }
            }
        }
        assert!(closed_cuts > 8_000, "{closed_cuts}");
    }
}

//! The JSON pull reader: the caller asks for one token at a time, so it
//! knows what it expects before a container is read (typed decoding,
//! transcoding, streaming).
//!
//! It reads through the same [`lex`](super::lex) as the push decoder
//! ([`scanner::parse`](super::scanner::parse)), so for any input a caller that
//! walks the document with it accepts what `parse` accepts and fails with the
//! same [`DecodeError`] (kind and byte offset); `testing::json_pull_build`
//! is that walk, and the tests and the `json_pull` fuzz target hold it to
//! `parse`.
//!
//! ```text
//! JsonPull::new(input)?                     UTF-8 of the whole input checked first
//! peek()      -> JsonKind                   whitespace skipped, nothing consumed
//! null() / bool() / number() / str()        one scalar
//! begin_array(), then next_item(first)      true: an item follows; false: `]` consumed
//! begin_object(), then next_key(first)      Some(key): `"key":` consumed; None: `}` consumed
//! skip() / skip_at_depth(depth)             one whole value, validated, nothing built
//! finish()                                  only whitespace may remain
//! ```
//!
//! Final signatures (against the interface first proposed):
//! * `str()` and `next_key()` return text borrowed from the reader: from the
//!   input when the string has no escape, else from the reader's unescape
//!   buffer, so it lives until the next call on the reader (`&mut self`).
//! * `number()` gives [`JsonNumber`] with the text as written (borrowed
//!   from the input for `'a`); [`number_text`](JsonPull::number_text) checks
//!   the grammar and gives the text alone, computing no value.
//! * Nesting: the reader does not count containers; a caller that recurses
//!   raises [`DepthLimit`](crate::error::DecodeErrorKind::DepthLimit) at the
//!   bracket (`pos()` after `peek()`) when `depth >= MAX_DECODE_DEPTH`
//!   containers are already open, before `begin_array`/`begin_object`, as
//!   `parse` does. [`skip_at_depth`](JsonPull::skip_at_depth) takes the
//!   number of containers open around the value so that the cap is the
//!   document's, like `parse`'s; [`skip`](JsonPull::skip) counts from the
//!   value itself.
//! * A scalar accessor called where another kind of value is fails with
//!   `UnexpectedByte` (expected "a string", "a number", ...), never panics.
//! * An input that is empty or only whitespace fails with `EmptyDocument`
//!   at its end wherever a value is asked for, as `parse` does.
//! * [`replace_scratch`](JsonPull::replace_scratch) lets a caller that reads
//!   many documents keep one unescape buffer.

use core::convert::Infallible;

pub use super::lex::Quick;
use super::lex::{check_utf8, is_whitespace, quick_number, Lex, NumberSink};
use crate::error::{DecodeError, DecodeErrorKind as Kind, Failure};

/// What the next value is, from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonKind {
    Null,
    True,
    False,
    Number,
    String,
    Array,
    Object,
}

/// A number's value, as [`scanner::parse`](super::scanner::parse) gives it:
/// an integer without fraction or exponent that fits 64 bits is `U64` (or
/// `I64` when negative); anything else, including integers beyond 64 bits,
/// is `F64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JsonNumberValue {
    I64(i64),
    U64(u64),
    F64(f64),
}

/// A number: its value, its text exactly as written (for `Decimal` and
/// integers beyond 64 bits), and whether it has neither fraction nor exponent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JsonNumber<'a> {
    pub value: JsonNumberValue,
    pub text: &'a str,
    pub is_integer: bool,
}

/// How [`JsonPull::number_run`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberRun {
    /// The array ended (its `]` consumed).
    End,
    /// An item that is no number follows (`pos` at it; its `,` consumed).
    Other,
    /// The callback returned false (`pos` after the number it was given).
    Stopped,
}

/// The bytes a number starts with: `-` and the digits.
static NUMBER_START: [bool; 256] = {
    let mut table = [false; 256];
    table[b'-' as usize] = true;
    let mut d = b'0';
    while d <= b'9' {
        table[d as usize] = true;
        d += 1;
    }
    table
};

/// A number of a run, as [`JsonPull::quick_number_run`] hands it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunNumber<'a> {
    /// The value alone, of a number in a common shape.
    Quick(Quick),
    /// The number, and the offset it starts at.
    Full(JsonNumber<'a>, usize),
}

/// A key as JSON text writes it without escapes: between double quotes,
/// for [`JsonPull::next_key_expecting`].
pub struct JsonKey {
    quoted: Box<[u8]>,
}

impl JsonKey {
    /// `"key"`, or None for a key whose JSON form needs an escape (it holds
    /// a quote, a backslash or a control character), which is then only
    /// ever read by scanning.
    pub fn new(key: &str) -> Option<JsonKey> {
        if key.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
            return None;
        }
        Some(JsonKey { quoted: [b"\"", key.as_bytes(), b"\""].concat().into_boxed_slice() })
    }
}

/// What [`JsonPull::next_key_expecting`] read.
pub enum Key<'k> {
    /// The expected key.
    Expected,
    /// Another key (or the expected one written with escapes), unescaped.
    Other(&'k str),
}

/// A reader of one JSON document, token by token. See the module docs.
pub struct JsonPull<'a> {
    lex: Lexer<'a>,
}

/// The state the lexing reads and moves.
struct Lexer<'a> {
    input: &'a [u8],
    pos: usize,
    scratch: Vec<u8>,
    /// See [`Lex::short_numbers`].
    short_numbers: bool,
}

impl<'a> Lex<'a> for Lexer<'a> {
    #[inline(always)]
    fn input(&self) -> &'a [u8] {
        self.input
    }
    #[inline(always)]
    fn pos(&self) -> usize {
        self.pos
    }
    #[inline(always)]
    fn pos_mut(&mut self) -> &mut usize {
        &mut self.pos
    }
    #[inline(always)]
    fn scratch(&self) -> &[u8] {
        &self.scratch
    }
    #[inline(always)]
    fn scratch_mut(&mut self) -> &mut Vec<u8> {
        &mut self.scratch
    }
    #[inline(always)]
    fn short_numbers(&mut self) -> &mut bool {
        &mut self.short_numbers
    }
}

/// Open containers [`JsonPull::skip`] tracks, one bit each (set: object).
const SKIP_WORDS: usize = crate::MAX_DECODE_DEPTH.div_ceil(64);

/// The syntax error of a lexer step that builds nothing.
#[inline(always)]
fn syntax(f: Failure<Infallible>) -> DecodeError {
    match f {
        Failure::Syntax(e) => e,
        Failure::Build(never) => match never {},
    }
}

/// Numbers as the pull reader's values: the value, and whether it is an
/// integer (no fraction, no exponent).
struct Values;

impl NumberSink for Values {
    type Value = (JsonNumberValue, bool);
    type Error = Infallible;
    #[inline(always)]
    fn u64(&mut self, v: u64) -> Result<(JsonNumberValue, bool), Infallible> {
        Ok((JsonNumberValue::U64(v), true))
    }
    #[inline(always)]
    fn i64(&mut self, v: i64) -> Result<(JsonNumberValue, bool), Infallible> {
        Ok((JsonNumberValue::I64(v), true))
    }
    #[inline(always)]
    fn f64(&mut self, v: f64, is_float: bool) -> Result<(JsonNumberValue, bool), Infallible> {
        Ok((JsonNumberValue::F64(v), !is_float))
    }
}

/// Numbers checked and passed over: whether each is an integer.
struct Grammar;

#[expect(clippy::unreachable, reason = "lex_number asks a sink whose VALUE is false for no value")]
impl NumberSink for Grammar {
    type Value = bool;
    type Error = Infallible;
    const VALUE: bool = false;
    fn u64(&mut self, _: u64) -> Result<bool, Infallible> {
        unreachable!("VALUE is false")
    }
    fn i64(&mut self, _: i64) -> Result<bool, Infallible> {
        unreachable!("VALUE is false")
    }
    fn f64(&mut self, _: f64, _: bool) -> Result<bool, Infallible> {
        unreachable!("VALUE is false")
    }
    #[inline(always)]
    fn unvalued(&mut self, is_float: bool) -> Result<bool, Infallible> {
        Ok(!is_float)
    }
}

impl<'a> JsonPull<'a> {
    /// A reader at the start of `input`. The whole input is checked as UTF-8
    /// first (`InvalidUtf8` at the first byte that is not), as `parse` does.
    pub fn new(input: &'a [u8]) -> Result<Self, DecodeError> {
        check_utf8(input)?;
        Ok(JsonPull { lex: Lexer { input, pos: 0, scratch: Vec::new(), short_numbers: true } })
    }

    /// Swaps in `scratch` as the buffer escaped strings are unescaped into
    /// and returns the one in use: a caller reading many documents keeps one
    /// buffer (its contents do not matter).
    pub fn replace_scratch(&mut self, scratch: Vec<u8>) -> Vec<u8> {
        core::mem::replace(&mut self.lex.scratch, scratch)
    }

    /// The input being read.
    pub fn input(&self) -> &'a [u8] {
        self.lex.input
    }

    /// Offset of the next unread byte.
    #[inline(always)]
    pub fn pos(&self) -> usize {
        self.lex.pos
    }

    /// Goes back to `pos`, an offset [`pos`](Self::pos) gave earlier,
    /// to read the input from there again (a caller that looked ahead
    /// without building anything). The reader keeps nothing else of where
    /// it is: the containers open there are the caller's to count, as they
    /// were the first time.
    #[inline(always)]
    pub fn rewind(&mut self, pos: usize) {
        debug_assert!(pos <= self.lex.pos);
        self.lex.pos = pos.min(self.lex.pos);
    }

    /// The error for a value missing at the end of the input:
    /// `EmptyDocument` when the input holds no value at all, as `parse` says.
    #[cold]
    fn end(&self) -> DecodeError {
        let kind =
            if self.lex.input.iter().all(|&c| is_whitespace(c)) { Kind::EmptyDocument } else { Kind::UnexpectedEnd };
        DecodeError::new(kind, self.lex.pos)
    }

    /// The error for a value of another kind than an accessor reads.
    #[cold]
    fn wrong(&self, expected: &'static str) -> DecodeError {
        match self.lex.peek() {
            Some(found) => DecodeError::new(Kind::UnexpectedByte { found, expected }, self.lex.pos),
            None => self.end(),
        }
    }

    /// Skips whitespace and tells what the next value is, without consuming
    /// it: `UnexpectedEnd` (or `EmptyDocument`) at the end of the input,
    /// `UnexpectedByte` ("a JSON value") at a byte no value starts with.
    #[inline(always)]
    pub fn peek(&mut self) -> Result<JsonKind, DecodeError> {
        self.lex.skip_whitespace();
        Ok(match self.lex.peek() {
            Some(b'"') => JsonKind::String,
            Some(b'-' | b'0'..=b'9') => JsonKind::Number,
            Some(b'{') => JsonKind::Object,
            Some(b'[') => JsonKind::Array,
            Some(b't') => JsonKind::True,
            Some(b'f') => JsonKind::False,
            Some(b'n') => JsonKind::Null,
            Some(found) => {
                return Err(DecodeError::new(Kind::UnexpectedByte { found, expected: "a JSON value" }, self.lex.pos))
            }
            None => return Err(self.end()),
        })
    }

    /// Reads `null` (`InvalidLiteral` if the word is not spelled out).
    #[inline]
    pub fn null(&mut self) -> Result<(), DecodeError> {
        self.lex.skip_whitespace();
        if self.lex.peek() != Some(b'n') {
            return Err(self.wrong("null"));
        }
        self.lex.literal(b"null").map_err(syntax)
    }

    /// Reads `true` or `false` (`InvalidLiteral` if the word is not spelled out).
    #[inline]
    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        self.lex.skip_whitespace();
        let value = match self.lex.peek() {
            Some(b't') => true,
            Some(b'f') => false,
            _ => return Err(self.wrong("true or false")),
        };
        self.lex.literal(if value { b"true" } else { b"false" }).map_err(syntax)?;
        Ok(value)
    }

    /// The number at `pos` (whitespace before it skipped), handed to `sink`,
    /// and its text.
    #[inline(always)]
    fn lex_number<S: NumberSink<Error = Infallible>>(
        &mut self,
        sink: &mut S,
    ) -> Result<(S::Value, &'a str), DecodeError> {
        self.lex.skip_whitespace();
        if !matches!(self.lex.peek(), Some(b'-' | b'0'..=b'9')) {
            return Err(self.wrong("a number"));
        }
        let start = self.lex.pos;
        let value = self.lex.lex_number(sink)?;
        let input: &'a [u8] = self.lex.input;
        // SAFETY: `Lex::lex_number` matched these bytes against the ASCII
        // number grammar.
        let text = unsafe { core::str::from_utf8_unchecked(&input[start..self.lex.pos]) };
        Ok((value, text))
    }

    /// Reads a number: its value as `parse` computes it, and its text.
    #[inline]
    pub fn number(&mut self) -> Result<JsonNumber<'a>, DecodeError> {
        let ((value, is_integer), text) = self.lex_number(&mut Values)?;
        Ok(JsonNumber { value, text, is_integer })
    }

    /// Reads a number, checked like [`number`](Self::number), without
    /// computing its value: its text, and whether it has neither fraction
    /// nor exponent.
    #[inline]
    pub fn number_text(&mut self) -> Result<(&'a str, bool), DecodeError> {
        let (is_integer, text) = self.lex_number(&mut Grammar)?;
        Ok((text, is_integer))
    }

    /// Reads a string and returns its text, unescaped: borrowed from the
    /// input when it has no escape, else from the reader's buffer (until the
    /// next call on the reader).
    #[inline(always)]
    pub fn str(&mut self) -> Result<&str, DecodeError> {
        self.lex.skip_whitespace();
        if self.lex.peek() != Some(b'"') {
            return Err(self.wrong("a string"));
        }
        self.lex.pos += 1;
        let span = self.lex.string().map_err(syntax)?;
        Ok(self.lex.text(span))
    }

    /// Consumes the `[` of an array; then [`next_item`](Self::next_item).
    #[inline(always)]
    pub fn begin_array(&mut self) -> Result<(), DecodeError> {
        self.lex.skip_whitespace();
        if self.lex.peek() != Some(b'[') {
            return Err(self.wrong("'['"));
        }
        self.lex.pos += 1;
        Ok(())
    }

    /// Whether the array goes on: `true` when an item follows (`pos` before
    /// it, to read with any reader call), `false` when the `]` was consumed.
    /// `first`: no item was read since [`begin_array`](Self::begin_array).
    /// Errors as `parse`'s: `TrailingComma` (at the byte before the `]`),
    /// `UnexpectedByte` ("',' or ']'"), `UnexpectedEnd`.
    #[inline(always)]
    pub fn next_item(&mut self, first: bool) -> Result<bool, DecodeError> {
        if first {
            self.lex.skip_whitespace();
            if self.lex.peek() == Some(b']') {
                self.lex.pos += 1;
                return Ok(false);
            }
            return Ok(true);
        }
        self.separator(false)
    }

    /// Reads the items of an open array for as long as they are numbers,
    /// handing each (and the offset it starts at) to `f`, which returns
    /// whether to go on. `first`: no item was read since
    /// [`begin_array`](Self::begin_array). The same as calling
    /// [`next_item`](Self::next_item) and [`number`](Self::number) in turn
    /// (same values, same errors), without the checks in between, for arrays
    /// of numbers read into a buffer.
    #[inline(always)]
    pub fn number_run(
        &mut self,
        first: bool,
        mut f: impl FnMut(JsonNumber<'a>, usize) -> bool,
    ) -> Result<NumberRun, DecodeError> {
        self.run::<false>(first, |n| match n {
            RunNumber::Full(n, at) => f(n, at),
            RunNumber::Quick(_) => false,
        })
    }

    /// [`number_run`](Self::number_run) for callers that want only values:
    /// a number in the shapes nearly all have (see [`Quick`]) is handed to
    /// `f` as [`RunNumber::Quick`], its value alone; every other one as
    /// [`RunNumber::Full`], as `number_run` hands it. `f` returning false
    /// for a quick number declines it: the number is handed again, as a
    /// full one (so failures need only the full form); for a full number it
    /// stops the run. Values and errors are `number_run`'s.
    #[inline(always)]
    pub fn quick_number_run(
        &mut self,
        first: bool,
        f: impl FnMut(RunNumber<'a>) -> bool,
    ) -> Result<NumberRun, DecodeError> {
        self.run::<true>(first, f)
    }

    #[inline(always)]
    fn run<const QUICK: bool>(
        &mut self,
        first: bool,
        mut f: impl FnMut(RunNumber<'a>) -> bool,
    ) -> Result<NumberRun, DecodeError> {
        if !self.next_item(first)? {
            return Ok(NumberRun::End);
        }
        // `pos` is at an item: `next_item` and `separator` skip the
        // whitespace before it.
        if !matches!(self.lex.peek(), Some(b'-' | b'0'..=b'9')) {
            return Ok(NumberRun::Other);
        }
        let input: &'a [u8] = self.lex.input;
        loop {
            // `pos` is at a number.
            let start = self.lex.pos;
            let quick = if QUICK { quick_number(input, start) } else { None };
            let end = match quick {
                Some((value, end)) if f(RunNumber::Quick(value)) => {
                    debug_assert!(end + 2 <= input.len());
                    // SAFETY: `quick_number` ends a number at most 21 bytes
                    // after its start, and only where 64 bytes remain from it.
                    let (comma, next) = unsafe { (*input.get_unchecked(end), *input.get_unchecked(end + 1)) };
                    if comma == b',' && NUMBER_START[next as usize] {
                        self.lex.pos = end + 1;
                        continue;
                    }
                    end
                }
                _ => {
                    let (value, is_integer) = self.lex.lex_number(&mut Values)?;
                    let end = self.lex.pos;
                    // SAFETY: `Lex::lex_number` matched these bytes against the
                    // ASCII number grammar.
                    let text = unsafe { core::str::from_utf8_unchecked(&input[start..end]) };
                    if !f(RunNumber::Full(JsonNumber { value, text, is_integer }, start)) {
                        return Ok(NumberRun::Stopped);
                    }
                    end
                }
            };
            // A comma and a number right after it (arrays as writers write
            // them): one test for what `separator` and the test above find.
            if let Some(&[b',', b'-' | b'0'..=b'9']) = input.get(end..end + 2) {
                self.lex.pos = end + 1;
                continue;
            }
            self.lex.pos = end;
            if !self.separator(false)? {
                return Ok(NumberRun::End);
            }
            if !matches!(self.lex.peek(), Some(b'-' | b'0'..=b'9')) {
                return Ok(NumberRun::Other);
            }
        }
    }

    /// Consumes the `{` of an object; then [`next_key`](Self::next_key).
    #[inline(always)]
    pub fn begin_object(&mut self) -> Result<(), DecodeError> {
        self.lex.skip_whitespace();
        if self.lex.peek() != Some(b'{') {
            return Err(self.wrong("'{'"));
        }
        self.lex.pos += 1;
        Ok(())
    }

    /// The next key of the object, unescaped, with its `:` consumed (`pos`
    /// before the value), or `None` when the `}` was consumed. `first`: no
    /// entry was read since [`begin_object`](Self::begin_object). The key is
    /// borrowed as [`str`](Self::str)'s text is. Errors as `parse`'s.
    #[inline(always)]
    pub fn next_key(&mut self, first: bool) -> Result<Option<&str>, DecodeError> {
        if !self.entry_follows(first)? {
            return Ok(None);
        }
        let span = self.lex.key_string().map_err(syntax)?;
        self.lex.colon().map_err(syntax)?;
        Ok(Some(self.lex.text(span)))
    }

    /// Whether another entry of the open object follows (positioned at its
    /// key, whitespace skipped, the key not checked yet), or its `}` was
    /// consumed. `first`: as in `next_key`. Then the key: with
    /// [`key`](Self::key), or read by the caller (see
    /// [`skip_to`](Self::skip_to)) and then [`colon`](Self::colon).
    #[inline(always)]
    pub(crate) fn entry_follows(&mut self, first: bool) -> Result<bool, DecodeError> {
        if first {
            self.lex.skip_whitespace();
            if self.lex.peek() == Some(b'}') {
                self.lex.pos += 1;
                return Ok(false);
            }
            return Ok(true);
        }
        self.separator(true)
    }

    /// The key of an entry that [`entry_follows`](Self::entry_follows) said
    /// is there, unescaped, and its `:`: what [`next_key`](Self::next_key)
    /// reads after it (same text, same errors).
    #[inline(always)]
    pub(crate) fn key(&mut self) -> Result<&str, DecodeError> {
        let span = self.lex.key_string().map_err(syntax)?;
        self.lex.colon().map_err(syntax)?;
        Ok(self.lex.text(span))
    }

    /// The `:` after a key the caller read itself (whitespace before it
    /// allowed), with `next_key`'s errors.
    #[inline(always)]
    pub(crate) fn colon(&mut self) -> Result<(), DecodeError> {
        self.lex.colon().map_err(syntax)
    }

    /// Moves past a token the caller read itself from [`input`](Self::input):
    /// `pos` must be where the reader would be after reading it (a string
    /// whose every byte the caller checked as the reader checks them, up to
    /// and with its closing quote).
    #[inline(always)]
    pub(crate) fn skip_to(&mut self, pos: usize) {
        debug_assert!(self.lex.pos <= pos && pos <= self.lex.input.len());
        self.lex.pos = pos;
    }

    /// [`next_key`](Self::next_key) when the key is likely `expected` (a
    /// class's next field): a key written exactly as `expected`'s quoted
    /// form is taken with one comparison, without scanning it
    /// ([`Key::Expected`]); any other key is read as `next_key` reads it
    /// ([`Key::Other`], which may still equal `expected` if written with
    /// escapes). Errors as `next_key`'s.
    #[inline(always)]
    pub fn next_key_expecting(&mut self, first: bool, expected: &JsonKey) -> Result<Option<Key<'_>>, DecodeError> {
        if !self.entry_follows(first)? {
            return Ok(None);
        }
        let quoted = &*expected.quoted;
        let here = self.lex.input.get(self.lex.pos..self.lex.pos + quoted.len());
        if here.is_some_and(|here| crate::text::short_eq(here, quoted)) {
            // The quoted form holds no quote, backslash or control byte
            // (`JsonKey::new`), so matching bytes are that very key, whole.
            self.lex.pos += quoted.len();
            self.lex.colon().map_err(syntax)?;
            return Ok(Some(Key::Expected));
        }
        let span = self.lex.key_string().map_err(syntax)?;
        self.lex.colon().map_err(syntax)?;
        Ok(Some(Key::Other(self.lex.text(span))))
    }

    /// After an item of an open array or object: `true` past a `,` (and the
    /// whitespace after it), `false` past the closing bracket.
    #[inline(always)]
    fn separator(&mut self, is_map: bool) -> Result<bool, DecodeError> {
        self.lex.skip_whitespace();
        let close = if is_map { b'}' } else { b']' };
        match self.lex.peek() {
            Some(b',') => {
                self.lex.pos += 1;
                self.lex.skip_whitespace();
                if self.lex.peek() == Some(close) {
                    return Err(DecodeError::new(Kind::TrailingComma, self.lex.pos - 1));
                }
                Ok(true)
            }
            Some(c) if c == close => {
                self.lex.pos += 1;
                Ok(false)
            }
            Some(found) => {
                let expected = if is_map { "',' or '}'" } else { "',' or ']'" };
                Err(DecodeError::new(Kind::UnexpectedByte { found, expected }, self.lex.pos))
            }
            None => Err(DecodeError::new(Kind::UnexpectedEnd, self.lex.pos)),
        }
    }

    /// Skips one whole value, checked as `parse` checks it (strings, escapes,
    /// numbers, literals, nesting up to `MAX_DECODE_DEPTH` levels counted
    /// from this value), building nothing: no value is computed, and the
    /// only memory touched is the unescape buffer (escaped strings go
    /// through it, which is how their escapes are checked) and a 128-byte
    /// bit stack of the open containers. Without recursion.
    #[inline]
    pub fn skip(&mut self) -> Result<(), DecodeError> {
        self.skip_at_depth(0)
    }

    /// [`skip`](Self::skip) for a value inside `depth` open containers:
    /// opening a container fails with `DepthLimit` where `parse` would, when
    /// `depth` plus the containers the value opened reach `MAX_DECODE_DEPTH`.
    pub fn skip_at_depth(&mut self, depth: usize) -> Result<(), DecodeError> {
        // The open containers (bit set: object), innermost at `open - 1`.
        let mut kinds = [0u64; SKIP_WORDS];
        let mut open = 0usize;
        loop {
            // A value starts here.
            self.lex.skip_whitespace();
            let at = self.lex.pos;
            match self.lex.peek() {
                None => return Err(self.end()),
                Some(bracket @ (b'[' | b'{')) => {
                    let is_map = bracket == b'{';
                    if depth.saturating_add(open) >= crate::MAX_DECODE_DEPTH {
                        return Err(DecodeError::new(Kind::DepthLimit, at));
                    }
                    self.lex.pos += 1;
                    self.lex.skip_whitespace();
                    if self.lex.peek() == Some(if is_map { b'}' } else { b']' }) {
                        self.lex.pos += 1;
                    } else {
                        let (word, bit) = (open / 64, 1u64 << (open % 64));
                        kinds[word] = if is_map { kinds[word] | bit } else { kinds[word] & !bit };
                        open += 1;
                        if is_map {
                            self.lex.key_string().map_err(syntax)?;
                            self.lex.colon().map_err(syntax)?;
                        }
                        continue;
                    }
                }
                Some(b'"') => {
                    self.lex.pos += 1;
                    self.lex.string().map_err(syntax)?;
                }
                Some(b't') => self.lex.literal(b"true").map_err(syntax)?,
                Some(b'f') => self.lex.literal(b"false").map_err(syntax)?,
                Some(b'n') => self.lex.literal(b"null").map_err(syntax)?,
                Some(b'-' | b'0'..=b'9') => {
                    self.lex.lex_number(&mut Grammar)?;
                }
                Some(found) => {
                    return Err(DecodeError::new(Kind::UnexpectedByte { found, expected: "a JSON value" }, at))
                }
            }
            // Close every container this value completes, then find the next value.
            loop {
                if open == 0 {
                    return Ok(());
                }
                let is_map = kinds[(open - 1) / 64] & (1 << ((open - 1) % 64)) != 0;
                if self.separator(is_map)? {
                    if is_map {
                        self.lex.key_string().map_err(syntax)?;
                        self.lex.colon().map_err(syntax)?;
                    }
                    break;
                }
                open -= 1;
            }
        }
    }

    /// Ends the document: only whitespace may remain (`TrailingData` at the
    /// first other byte).
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        self.lex.skip_whitespace();
        if self.lex.pos != self.lex.input.len() {
            return Err(DecodeError::new(Kind::TrailingData, self.lex.pos));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::scanner::parse;
    use crate::testing::{
        conformance_files, fixture_documents, json_all_ways, msgpack_all_ways, with_each_unescape_variant,
        MsgpackBytes, Rng,
    };

    /// Looking ahead in an object (keys read, values skipped) and rewinding
    /// to its start reads the same entries again.
    #[test]
    fn rewind_reads_an_object_again() {
        let mut pull = JsonPull::new(br#"{"a": [1, {"b": "\u00e9"}], "kind": "x"}"#).unwrap();
        pull.begin_object().unwrap();
        let start = pull.pos();
        let read = |pull: &mut JsonPull| {
            let mut keys = Vec::new();
            let mut first = true;
            while let Some(key) = pull.next_key(first).unwrap() {
                first = false;
                keys.push(key.to_owned());
                pull.skip_at_depth(1).unwrap();
            }
            keys
        };
        let ahead = read(&mut pull);
        pull.rewind(start);
        assert_eq!(read(&mut pull), ahead);
        assert_eq!(ahead, ["a", "kind"]);
        pull.finish().unwrap();
    }

    /// Numbers of the shapes the quick path reads and of those it leaves to
    /// the full one, in runs (depth 2, where `json_pull_build` reads through
    /// `quick_number_run`) whose numbers fall before, across and inside the
    /// last 64 bytes of the input, and with the comma checks' other cases
    /// (spaces, a string after a number, the end of the array).
    #[test]
    fn quick_number_runs_agree_with_parse() {
        let numbers = [
            "0.5488135039273248",
            "-1.0316569150323788",
            "0.12345678901234567",
            "-0.000123456789012345",
            "9.999999999999999",
            "1.5",
            "-0.0",
            "0.0",
            "7.0000000000000000001",
            "1.00000000000000000000000001",
            "3.141592653589793238462643383",
            "2.2250738585072014",
            "1.7976931348623157",
            "4.9406564584124654",
            "1.5e3",
            "2.0E-7",
            "12.5",
            "123456.789",
            "0",
            "-7",
            "42",
            "9223372036854775807",
            "-9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775809",
            "1234567890123.4567",
            "1.",
            "01.5",
            "-.5",
            "1.e5",
            "1.5x",
        ];
        for (k, number) in numbers.iter().enumerate() {
            for tail in 0..72 {
                let others = numbers[(k + 1) % numbers.len()];
                let runs = [
                    format!("[[[{number},{number},{others},{number}]]]"),
                    format!("[[[{number}, {number} ,{others},\"s\",{number}]]]"),
                    format!("[[[{number},{number}],[{others},{number}],[]]]"),
                ];
                for run in runs {
                    let text = format!("{run}{}", " ".repeat(tail));
                    // A value or an error (the malformed shapes), the same
                    // every way: asserted inside.
                    let _ = json_all_ways(text.as_bytes());
                }
            }
        }
        // Long runs: the quick path ends 64 bytes before the input does.
        let mut rng = Rng::new(18);
        for _ in 0..50 {
            let mut text = String::from("[[[");
            for i in 0..200 {
                if i > 0 {
                    text.push(',');
                }
                let v = f64::from_bits(rng.next_u64());
                let v = if v.is_finite() { v } else { rng.next_u64() as f64 };
                match rng.next_u64() % 4 {
                    0 => text.push_str(&format!("{v:e}")),
                    1 => text.push_str(&format!("{}", (rng.next_u64() % 10_000_000_000_000_000) as f64 / 1e16)),
                    2 => text.push_str(&format!("{}", -((rng.next_u64() >> 11) as f64) / 9007199254740992.0)),
                    _ => text.push_str(&format!("{}", rng.next_u64() as i64 >> (rng.next_u64() % 64))),
                }
            }
            text.push_str("]]]");
            assert!(json_all_ways(text.as_bytes()).is_ok(), "{text}");
        }
    }

    /// `quick_number_run` hands a declined number over again in full, with
    /// its offset, and stops where `f` says so, after that number.
    #[test]
    fn quick_number_run_declines_and_stops() {
        let text = format!("[0.5488135039273248,-2,18446744073709551616,1.5e3,4.25]{}", " ".repeat(64));
        let mut p = JsonPull::new(text.as_bytes()).unwrap();
        p.begin_array().unwrap();
        let mut seen = Vec::new();
        let run = p
            .quick_number_run(true, |n| {
                match n {
                    RunNumber::Quick(Quick::F64(v)) if v >= 1.0 => seen.push(format!("quick {v}")),
                    RunNumber::Quick(Quick::F64(v)) => {
                        // Declined: comes back in full.
                        seen.push(format!("declined {v}"));
                        return false;
                    }
                    RunNumber::Quick(q) => seen.push(format!("quick {q:?}")),
                    RunNumber::Full(n, at) => {
                        seen.push(format!("full {} at {at}", n.text));
                        return n.text != "1.5e3";
                    }
                }
                true
            })
            .unwrap();
        assert_eq!(run, NumberRun::Stopped);
        assert_eq!(
            seen,
            [
                "declined 0.5488135039273248",
                "full 0.5488135039273248 at 1",
                "quick I64(-2)",
                "full 18446744073709551616 at 23",
                "full 1.5e3 at 44",
            ]
        );
        assert_eq!(p.pos(), 49);
        assert_eq!(p.quick_number_run(false, |_| true).unwrap(), NumberRun::End);
    }

    /// `input` with a few random edits: bytes replaced (by grammar bytes
    /// mostly), inserted, deleted, ranges duplicated, the end cut.
    fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
        const BYTES: &[u8] =
            b"{}[],:\"\\ \t\n0123456789-+.eEtrufalsn/bu\x00\x1f\x7f\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xff";
        let mut out = input.to_vec();
        for _ in 0..=rng.below(3) {
            let at = if out.is_empty() { 0 } else { rng.below(out.len() as u64 + 1) as usize };
            let byte =
                if rng.below(4) == 0 { rng.next_u64() as u8 } else { BYTES[rng.below(BYTES.len() as u64) as usize] };
            match rng.below(6) {
                0 | 1 if at < out.len() => out[at] = byte,
                2 => out.insert(at, byte),
                3 if at < out.len() => {
                    out.remove(at);
                }
                4 if at < out.len() => {
                    let end = (at + 1 + rng.below(16) as usize).min(out.len());
                    let copy = out[at..end].to_vec();
                    out.splice(at..at, copy);
                }
                _ => out.truncate(at),
            }
        }
        out
    }

    #[test]
    fn conformance_corpus_all_ways() {
        with_each_unescape_variant(|| {
            for path in conformance_files() {
                let input = std::fs::read(&path).unwrap();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let got = json_all_ways(&input);
                if name.starts_with("y_") {
                    assert!(got.is_ok(), "{name}: {got:?}");
                } else if name.starts_with("n_") {
                    assert!(got.is_err(), "{name}: {got:?}");
                }
            }
        });
    }

    #[test]
    fn conformance_corpus_mutated() {
        let files = conformance_files();
        let inputs: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).filter(|i| i.len() < 4096).collect();
        let mut rng = Rng::new(0x005e_ed0f_9a11);
        let mut accepted = 0;
        for round in 0..40_000 {
            let input = &inputs[round % inputs.len()];
            accepted += json_all_ways(&mutate(&mut rng, input)).is_ok() as usize;
        }
        // Both outcomes are well represented.
        assert!((1_000..39_000).contains(&accepted), "{accepted} of 40000 accepted");
    }

    #[test]
    fn fixtures_all_ways_and_as_msgpack() {
        use crate::msgpack::reader::ReadOptions;
        for (name, json) in fixture_documents() {
            let want = json_all_ways(&json).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            // The same document as MessagePack reads back to the same values.
            let packed = parse(&json, &mut MsgpackBytes).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            for opts in [
                ReadOptions::default(),
                ReadOptions { non_str_keys: true, timestamps: true, bin_keys: false, plain_keys: false },
            ] {
                assert_eq!(msgpack_all_ways(&packed, opts).as_ref(), Ok(&want), "{name} as msgpack");
            }
        }
    }

    #[test]
    fn fixtures_mutated() {
        use crate::msgpack::reader::ReadOptions;
        let mut rng = Rng::new(0x0f1c_70e5);
        for (_, json) in fixture_documents() {
            let packed = parse(&json, &mut MsgpackBytes).unwrap();
            // Whole documents a few times, windows of them many times.
            let rounds = if json.len() < 100_000 { 20 } else { 3 };
            for _ in 0..rounds {
                let _ = json_all_ways(&mutate(&mut rng, &json));
                let _ = msgpack_all_ways(&mutate(&mut rng, &packed), ReadOptions::default());
            }
            for _ in 0..3_000 {
                let start = rng.below(json.len() as u64) as usize;
                let end = (start + 1 + rng.below(2048) as usize).min(json.len());
                let _ = json_all_ways(&mutate(&mut rng, &json[start..end]));
                let start = rng.below(packed.len() as u64) as usize;
                let end = (start + 1 + rng.below(2048) as usize).min(packed.len());
                let window = mutate(&mut rng, &packed[start..end]);
                let _ = msgpack_all_ways(&window, ReadOptions::default());
                let _ = msgpack_all_ways(
                    &window,
                    ReadOptions { non_str_keys: true, timestamps: true, bin_keys: false, plain_keys: false },
                );
            }
        }
    }

    #[test]
    fn random_documents_all_ways() {
        // Documents built from grammar pieces, valid and broken alike.
        const PIECES: &[&str] = &[
            "[",
            "]",
            "{",
            "}",
            ",",
            ":",
            " ",
            "\n",
            "\"a\"",
            "\"\\u00e9\\n\"",
            "\"\\ud83d\\ude00\"",
            "\"\\ud800\"",
            "\"k\":",
            "1",
            "-0",
            "0.5e-3",
            "12345678901234567890123",
            "1.",
            "-",
            "true",
            "fals",
            "null",
            "\"\\x\"",
            "\"é\"",
            "\t",
        ];
        let mut rng = Rng::new(0x0dd_ba11);
        for _ in 0..50_000 {
            let n = rng.below(24) as usize;
            let doc: String = (0..n).map(|_| PIECES[rng.below(PIECES.len() as u64) as usize]).collect();
            let _ = json_all_ways(doc.as_bytes());
        }
    }

    #[test]
    fn strings_borrow_the_input_unless_escaped() {
        let input = br#"["plain", "esc\naped", "\u00e9"]"#;
        let mut p = JsonPull::new(input).unwrap();
        p.begin_array().unwrap();
        assert!(p.next_item(true).unwrap());
        let s = p.str().unwrap();
        assert_eq!(s, "plain");
        assert!(input.as_ptr_range().contains(&s.as_ptr()), "no escape: borrowed from the input");
        assert!(p.next_item(false).unwrap());
        assert_eq!(p.str().unwrap(), "esc\naped");
        assert!(p.next_item(false).unwrap());
        assert_eq!(p.str().unwrap(), "é");
        assert!(!p.next_item(false).unwrap());
        p.finish().unwrap();
        // Keys the same.
        let input = br#" { "k" : 1 , "\u006b2": [] } "#;
        let mut p = JsonPull::new(input).unwrap();
        assert_eq!(p.peek().unwrap(), JsonKind::Object);
        p.begin_object().unwrap();
        let k = p.next_key(true).unwrap().unwrap();
        assert_eq!(k, "k");
        assert!(input.as_ptr_range().contains(&k.as_ptr()));
        assert_eq!(p.number().unwrap().value, JsonNumberValue::U64(1));
        assert_eq!(p.next_key(false).unwrap(), Some("k2"));
        p.skip().unwrap();
        assert_eq!(p.next_key(false).unwrap(), None);
        p.finish().unwrap();
    }

    /// What `next_key_expecting` read, as text: `=name` for the expected key.
    fn expecting(p: &mut JsonPull, first: bool, key: &JsonKey) -> Result<Option<String>, DecodeError> {
        Ok(p.next_key_expecting(first, key)?.map(|k| match k {
            Key::Expected => "=".to_owned(),
            Key::Other(k) => k.to_owned(),
        }))
    }

    #[test]
    fn keys_matched_in_place() {
        assert!(JsonKey::new("a\"b").is_none());
        assert!(JsonKey::new("a\\").is_none());
        assert!(JsonKey::new("tab\there").is_none());
        let name = JsonKey::new("name").unwrap();
        let e = JsonKey::new("é").unwrap();
        // The expected key written plainly, with escapes, a longer or shorter
        // key sharing its start, another key, whitespace before the colon.
        let input = r#"{"name":1, "name" : 2,"n\u0061me":3,"names":4,"nam":5,"é":6,"\u00e9":7,"x":8}"#.as_bytes();
        let mut p = JsonPull::new(input).unwrap();
        p.begin_object().unwrap();
        let mut got = Vec::new();
        let mut first = true;
        let keys = [&name, &name, &name, &name, &name, &e, &e, &name];
        for key in keys {
            let k = expecting(&mut p, first, key).unwrap().unwrap();
            first = false;
            got.push(format!("{k}{}", p.number().unwrap().text));
        }
        assert_eq!(got, ["=1", "=2", "name3", "names4", "nam5", "=6", "é7", "x8"]);
        assert_eq!(expecting(&mut p, false, &name).unwrap(), None);
        p.finish().unwrap();
        // Empty objects, and the expected key cut off by the end of the input
        // (an input ending inside a key: the error `next_key` gives).
        let mut p = JsonPull::new(b" { } ").unwrap();
        p.begin_object().unwrap();
        assert_eq!(expecting(&mut p, true, &name).unwrap(), None);
        for input in [&br#"{"name""#[..], br#"{"nam"#, br#"{"name" 1}"#, br#"{"a":1 "name":2}"#, br#"{"a":1,}"#] {
            let mut p = JsonPull::new(input).unwrap();
            p.begin_object().unwrap();
            let mut q = JsonPull::new(input).unwrap();
            q.begin_object().unwrap();
            let mut first = true;
            loop {
                let a =
                    expecting(&mut p, first, &name).map(|k| k.map(|k| if k == "=" { "name".to_owned() } else { k }));
                let b = q.next_key(first).map(|k| k.map(str::to_owned));
                first = false;
                assert_eq!(a, b, "{input:?}");
                if a.is_err() || a.as_ref().is_ok_and(Option::is_none) {
                    break;
                }
                p.skip().unwrap();
                q.skip().unwrap();
            }
        }
    }

    #[test]
    fn numbers_with_their_text() {
        let cases: &[(&str, JsonNumberValue, bool)] = &[
            ("0", JsonNumberValue::U64(0), true),
            ("-0", JsonNumberValue::I64(0), true),
            ("18446744073709551615", JsonNumberValue::U64(u64::MAX), true),
            ("-9223372036854775808", JsonNumberValue::I64(i64::MIN), true),
            ("18446744073709551616", JsonNumberValue::F64(18446744073709551616.0), true),
            ("-9223372036854775809", JsonNumberValue::F64(-9223372036854775809.0), true),
            ("123456789012345678901234567890", JsonNumberValue::F64(1.2345678901234568e29), true),
            ("1.50", JsonNumberValue::F64(1.5), false),
            ("1E+2", JsonNumberValue::F64(100.0), false),
            ("-0.0", JsonNumberValue::F64(-0.0), false),
            ("1e400", JsonNumberValue::F64(f64::INFINITY), false),
        ];
        for &(text, value, is_integer) in cases {
            let input = format!(" {text} ");
            let mut p = JsonPull::new(input.as_bytes()).unwrap();
            assert_eq!(p.peek().unwrap(), JsonKind::Number);
            let n = p.number().unwrap();
            assert_eq!(n, JsonNumber { value, text, is_integer }, "{text}");
            if let JsonNumberValue::F64(v) = value {
                assert_eq!(
                    v.to_bits(),
                    match n.value {
                        JsonNumberValue::F64(got) => got.to_bits(),
                        other => panic!("{other:?}"),
                    }
                );
            }
            p.finish().unwrap();
            let mut p = JsonPull::new(input.as_bytes()).unwrap();
            assert_eq!(p.number_text().unwrap(), (text, is_integer));
            assert_eq!(p.pos(), input.len() - 1);
        }
        // Grammar errors at the number's start, as `parse`.
        for bad in ["-", "1.", "1e", "-x", "1.e5", "01x"] {
            let mut p = JsonPull::new(bad.as_bytes()).unwrap();
            let got = p.number().and_then(|_| p.finish()).map_err(|e| (e.kind, e.offset));
            assert_eq!(Err(got.unwrap_err()), json_all_ways(bad.as_bytes()).map(|_| ()), "{bad}");
        }
    }

    #[test]
    fn accessors_on_the_wrong_kind_fail_cleanly() {
        let wrong = |input: &str, f: fn(&mut JsonPull<'_>) -> Result<(), DecodeError>| {
            let mut p = JsonPull::new(input.as_bytes()).unwrap();
            f(&mut p).unwrap_err()
        };
        let e = wrong(" 1", |p| p.str().map(drop));
        assert_eq!((e.kind, e.offset), (Kind::UnexpectedByte { found: b'1', expected: "a string" }, 1));
        let e = wrong("\"a\"", |p| p.number().map(drop));
        assert_eq!(e.kind, Kind::UnexpectedByte { found: b'"', expected: "a number" });
        assert_eq!(wrong("[", |p| p.null()).kind, Kind::UnexpectedByte { found: b'[', expected: "null" });
        assert_eq!(
            wrong("n", |p| p.bool().map(drop)).kind,
            Kind::UnexpectedByte { found: b'n', expected: "true or false" }
        );
        assert_eq!(wrong("{", |p| p.begin_array()).kind, Kind::UnexpectedByte { found: b'{', expected: "'['" });
        assert_eq!(wrong("[", |p| p.begin_object()).kind, Kind::UnexpectedByte { found: b'[', expected: "'{'" });
        assert_eq!(wrong("nul", |p| p.null()).kind, Kind::InvalidLiteral);
        assert_eq!(
            wrong("[1", |p| p
                .begin_array()
                .and_then(|()| p.number().map(drop))
                .and_then(|()| p.next_item(false).map(drop)))
            .kind,
            Kind::UnexpectedEnd
        );
        // An input with no value at all: EmptyDocument at its end from any accessor.
        for input in ["", "  \n"] {
            let empty = (Kind::EmptyDocument, input.len());
            let e = wrong(input, |p| p.peek().map(drop));
            assert_eq!((e.kind, e.offset), empty);
            let e = wrong(input, |p| p.str().map(drop));
            assert_eq!((e.kind, e.offset), empty);
            let e = wrong(input, |p| p.skip());
            assert_eq!((e.kind, e.offset), empty);
        }
        let e = wrong("[", |p| p.begin_array().and_then(|()| p.peek().map(drop)));
        assert_eq!((e.kind, e.offset), (Kind::UnexpectedEnd, 1));
        assert_eq!(JsonPull::new(b"[\"\xff\"]").err().map(|e| (e.kind, e.offset)), Some((Kind::InvalidUtf8, 2)));
    }

    #[test]
    fn skip_counts_the_depth_it_is_given() {
        let nested = |n: usize| "[".repeat(n) + &"]".repeat(n);
        let deepest = nested(1024);
        let mut p = JsonPull::new(deepest.as_bytes()).unwrap();
        p.skip().unwrap();
        p.finish().unwrap();
        let e = JsonPull::new(nested(1025).as_bytes()).unwrap().skip().unwrap_err();
        assert_eq!((e.kind, e.offset), (Kind::DepthLimit, 1024));
        // Inside 10 containers, 1014 more levels are allowed.
        let inside = nested(1014);
        let mut p = JsonPull::new(inside.as_bytes()).unwrap();
        p.skip_at_depth(10).unwrap();
        let e = JsonPull::new(nested(1015).as_bytes()).unwrap().skip_at_depth(10).unwrap_err();
        assert_eq!((e.kind, e.offset), (Kind::DepthLimit, 1014));
        let e = JsonPull::new(b"{}").unwrap().skip_at_depth(crate::MAX_DECODE_DEPTH).unwrap_err();
        assert_eq!((e.kind, e.offset), (Kind::DepthLimit, 0));
        // Objects and arrays interleaved past 64 levels (the kind bits' word edges).
        let doc = "{\"a\":[".repeat(300) + &"]}".repeat(300);
        let mut p = JsonPull::new(doc.as_bytes()).unwrap();
        p.skip().unwrap();
        p.finish().unwrap();
        let broken = format!("{}x", &doc[..1200]);
        assert_eq!(
            json_all_ways(broken.as_bytes()),
            Err((Kind::UnexpectedByte { found: b'x', expected: "a JSON value" }, 1200))
        );
        let broken = format!("{}1}}", &doc[..1200]);
        assert_eq!(
            json_all_ways(broken.as_bytes()),
            Err((Kind::UnexpectedByte { found: b'}', expected: "',' or ']'" }, 1201))
        );
    }

    #[test]
    fn skip_leaves_the_reader_after_the_value() {
        let input = br#"{"skip": {"a": [1, "x\"y", {"b": null}], "c": -2.5e3}, "keep": true}"#;
        let mut p = JsonPull::new(input).unwrap();
        p.begin_object().unwrap();
        assert_eq!(p.next_key(true).unwrap(), Some("skip"));
        p.skip().unwrap();
        assert_eq!(p.next_key(false).unwrap(), Some("keep"));
        assert!(p.bool().unwrap());
        assert_eq!(p.next_key(false).unwrap(), None);
        p.finish().unwrap();
    }

    #[test]
    fn a_kept_scratch_buffer_is_used() {
        let mut p = JsonPull::new(br#""a\nb""#).unwrap();
        let kept = Vec::with_capacity(64);
        let ptr = kept.as_ptr();
        drop(p.replace_scratch(kept));
        assert_eq!(p.str().unwrap().as_ptr(), ptr);
        let back = p.replace_scratch(Vec::new());
        assert_eq!(back.as_ptr(), ptr);
    }
}

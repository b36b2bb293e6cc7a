//! The JSON decoder: strict RFC 8259 over UTF-8 input, in one pass, without
//! recursion (nesting lives in an explicit frame stack, capped at
//! [`MAX_DECODE_DEPTH`](crate::MAX_DECODE_DEPTH)).

use super::unescape::{self, ESCAPES};
use crate::builder::Builder;
use crate::error::{DecodeError, DecodeErrorKind as Kind, Failure};
use crate::number::float_parse::decimal_to_f64;
use crate::text::put_code_point;
use crate::text::swar::special_bytes;

/// An open array or object: where its items start on the value stack.
#[derive(Clone, Copy)]
struct Frame {
    is_map: bool,
    start: usize,
}

/// Where a decoded string's bytes are: still in the input, or unescaped into
/// the scratch buffer.
enum Span {
    Input(usize, usize),
    Scratch,
}

struct Scanner<'a, V> {
    input: &'a [u8],
    pos: usize,
    stack: Vec<V>,
    frames: Vec<Frame>,
    scratch: Vec<u8>,
}

/// String values at least this long try the one-pass ASCII check and copy.
const LONG_STR: usize = 64;

/// Starting capacities of the value and frame stacks.
const INITIAL_STACK: usize = 32;
const INITIAL_FRAMES: usize = 16;

fn err<T, E>(kind: Kind, offset: usize) -> Result<T, Failure<E>> {
    Err(Failure::Syntax(DecodeError::new(kind, offset)))
}

/// The value and frame stacks and the unescape buffer a decode works in. A
/// caller that decodes often keeps one and passes it to [`parse_with`], so
/// that a small document allocates nothing of its own; it is empty between
/// calls.
pub struct ScanStacks<V> {
    stack: Vec<V>,
    frames: Vec<Frame>,
    scratch: Vec<u8>,
}

impl<V> ScanStacks<V> {
    pub fn new() -> Self {
        // One allocation each up front instead of regrowing from nothing:
        // most documents fit.
        ScanStacks {
            stack: Vec::with_capacity(INITIAL_STACK),
            frames: Vec::with_capacity(INITIAL_FRAMES),
            scratch: Vec::new(),
        }
    }

    /// Bytes the stacks and buffer hold room for (a caller may drop large ones).
    pub fn capacity_bytes(&self) -> usize {
        self.stack.capacity() * core::mem::size_of::<V>()
            + self.frames.capacity() * core::mem::size_of::<Frame>()
            + self.scratch.capacity()
    }
}

impl<V> Default for ScanStacks<V> {
    fn default() -> Self {
        Self::new()
    }
}

/// Decodes one JSON document from `input`; anything but whitespace after it is an error.
pub fn parse<B: Builder>(input: &[u8], builder: &mut B) -> Result<B::Value, Failure<B::Error>> {
    parse_with(input, builder, &mut ScanStacks::new())
}

/// [`parse`] in the stacks of `stacks`, which it leaves empty.
pub fn parse_with<B: Builder>(
    input: &[u8],
    builder: &mut B,
    stacks: &mut ScanStacks<B::Value>,
) -> Result<B::Value, Failure<B::Error>> {
    if !crate::text::decode::is_valid(input) {
        let valid = match simdutf8::compat::from_utf8(input) {
            Err(e) => e.valid_up_to(),
            Ok(_) => input.len(),
        };
        return err(Kind::InvalidUtf8, valid);
    }
    debug_assert!(stacks.stack.is_empty() && stacks.frames.is_empty());
    let mut s = Scanner {
        input,
        pos: 0,
        stack: core::mem::take(&mut stacks.stack),
        frames: core::mem::take(&mut stacks.frames),
        scratch: core::mem::take(&mut stacks.scratch),
    };
    s.skip_whitespace();
    let result = if s.pos == input.len() { err(Kind::EmptyDocument, s.pos) } else { s.run(builder) };
    // After an error, values of unfinished containers are still there.
    s.stack.clear();
    s.frames.clear();
    s.scratch.clear();
    (stacks.stack, stacks.frames, stacks.scratch) = (s.stack, s.frames, s.scratch);
    result
}

impl<'a, V> Scanner<'a, V> {
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    #[inline(always)]
    fn skip_whitespace(&mut self) {
        // Most values follow no whitespace or one space; indentation runs go
        // to the block scan.
        if !matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            return;
        }
        self.pos += 1;
        if matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.pos = skip_whitespace_run(self.input, self.pos + 1);
        }
    }

    fn run<B: Builder<Value = V>>(&mut self, b: &mut B) -> Result<V, Failure<B::Error>> {
        loop {
            // A value starts here.
            self.skip_whitespace();
            let at = self.pos;
            let value = match self.peek() {
                None => return err(Kind::UnexpectedEnd, at),
                Some(open @ (b'[' | b'{')) => {
                    let is_map = open == b'{';
                    let close = if is_map { b'}' } else { b']' };
                    if self.frames.len() >= crate::MAX_DECODE_DEPTH {
                        return err(Kind::DepthLimit, at);
                    }
                    self.pos += 1;
                    self.skip_whitespace();
                    let start = self.stack.len();
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        if is_map { b.map(&mut self.stack, start) } else { b.array(&mut self.stack, start) }
                            .map_err(Failure::Build)?
                    } else {
                        self.frames.push(Frame { is_map, start });
                        if is_map {
                            self.key(b)?;
                        }
                        continue;
                    }
                }
                Some(b'"') => {
                    self.pos += 1;
                    let span = self.string()?;
                    self.str_value(b, span).map_err(Failure::Build)?
                }
                Some(b't') => {
                    self.literal(b"true")?;
                    b.bool(true).map_err(Failure::Build)?
                }
                Some(b'f') => {
                    self.literal(b"false")?;
                    b.bool(false).map_err(Failure::Build)?
                }
                Some(b'n') => {
                    self.literal(b"null")?;
                    b.null().map_err(Failure::Build)?
                }
                Some(b'-' | b'0'..=b'9') => self.numbers(b)?,
                Some(found) => return err(Kind::UnexpectedByte { found, expected: "a JSON value" }, at),
            };
            self.stack.push(value);

            // Close every container this value completes, then find the next value.
            loop {
                self.skip_whitespace();
                let Some(frame) = self.frames.last().copied() else {
                    if self.pos != self.input.len() {
                        return err(Kind::TrailingData, self.pos);
                    }
                    return match self.stack.pop() {
                        Some(v) => Ok(v),
                        None => unreachable!("a complete document leaves its value on the stack"),
                    };
                };
                let close = if frame.is_map { b'}' } else { b']' };
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_whitespace();
                        if self.peek() == Some(close) {
                            return err(Kind::TrailingComma, self.pos - 1);
                        }
                        if frame.is_map {
                            self.key(b)?;
                        }
                        break;
                    }
                    Some(c) if c == close => {
                        self.pos += 1;
                        self.frames.pop();
                        let container = if frame.is_map {
                            b.map(&mut self.stack, frame.start)
                        } else {
                            b.array(&mut self.stack, frame.start)
                        }
                        .map_err(Failure::Build)?;
                        self.stack.push(container);
                    }
                    Some(found) => {
                        let expected = if frame.is_map { "',' or '}'" } else { "',' or ']'" };
                        return err(Kind::UnexpectedByte { found, expected }, self.pos);
                    }
                    None => return err(Kind::UnexpectedEnd, self.pos),
                }
            }
        }
    }

    /// Reads `"key":` and pushes the key; leaves `pos` at the value.
    #[inline(always)]
    fn key<B: Builder<Value = V>>(&mut self, b: &mut B) -> Result<(), Failure<B::Error>> {
        match self.peek() {
            Some(b'"') => self.pos += 1,
            Some(found) => {
                return err(Kind::UnexpectedByte { found, expected: "a string key in double quotes" }, self.pos)
            }
            None => return err(Kind::UnexpectedEnd, self.pos),
        }
        let span = self.string()?;
        let key = b.key(self.text(span)).map_err(Failure::Build)?;
        self.stack.push(key);
        self.skip_whitespace();
        match self.peek() {
            Some(b':') => self.pos += 1,
            Some(found) => return err(Kind::UnexpectedByte { found, expected: "':' after the key" }, self.pos),
            None => return err(Kind::UnexpectedEnd, self.pos),
        }
        Ok(())
    }

    fn literal<E>(&mut self, word: &[u8]) -> Result<(), Failure<E>> {
        if self.input[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            err(Kind::InvalidLiteral, self.pos)
        }
    }

    #[inline(always)]
    fn text(&self, span: Span) -> &str {
        let bytes = match span {
            Span::Input(start, end) => &self.input[start..end],
            Span::Scratch => &self.scratch[..],
        };
        // SAFETY: the whole input was validated as UTF-8 before scanning; spans
        // start and end next to ASCII quote bytes, so they are char boundaries;
        // the scratch buffer holds input runs cut at ASCII bytes plus code points
        // written by `put_code_point`, which are valid UTF-8.
        unsafe { core::str::from_utf8_unchecked(bytes) }
    }

    /// A string value. Long text that starts with ASCII is checked and
    /// copied into the value in one pass ([`Builder::try_ascii_str`]; the
    /// 16-byte peek keeps text that is not ASCII from building a value that
    /// is thrown away), the rest goes to [`Builder::str`].
    #[inline(always)]
    fn str_value<B: Builder<Value = V>>(&self, b: &mut B, span: Span) -> Result<V, B::Error> {
        let text = self.text(span);
        if text.len() >= LONG_STR && crate::text::ascii::is_ascii(&text.as_bytes()[..16]) {
            if let Some(value) = b.try_ascii_str(text.as_bytes())? {
                return Ok(value);
            }
        }
        b.str(text)
    }

    /// Index of the next `"`, `\` or control byte at or after `i`, if any.
    #[inline(always)]
    fn next_special(&self, i: usize) -> Option<usize> {
        find_special(self.input, i)
    }

    /// Reads a string body; `pos` is just past the opening quote.
    ///
    /// Inlined into its callers: most strings end at their first special
    /// byte, a quote, and that case is a scan and a span; everything else
    /// (escapes, errors) is out of line.
    #[inline(always)]
    fn string<E>(&mut self) -> Result<Span, Failure<E>> {
        let start = self.pos;
        let special = self.next_special(start);
        if let Some(i) = special {
            if self.input[i] == b'"' {
                self.pos = i + 1;
                return Ok(Span::Input(start, i));
            }
        }
        self.string_slow(start, special)
    }

    /// `string` past its first special byte `special`, which is no quote (or missing).
    #[inline(never)]
    fn string_slow<E>(&mut self, start: usize, special: Option<usize>) -> Result<Span, Failure<E>> {
        let Some(i) = special else {
            return err(Kind::UnexpectedEnd, self.input.len());
        };
        match self.input[i] {
            b'\\' => {
                self.scratch.clear();
                self.scratch.extend_from_slice(&self.input[start..i]);
                self.escaped_string(i)
            }
            _ => err(Kind::ControlCharacterInString, i),
        }
    }

    /// Continues a string with escapes into `scratch`; `i` is at a backslash.
    fn escaped_string<E>(&mut self, mut i: usize) -> Result<Span, Failure<E>> {
        let input = self.input;
        loop {
            // `i` is at a special byte.
            match input[i] {
                b'"' => {
                    self.pos = i + 1;
                    return Ok(Span::Scratch);
                }
                b'\\' => {}
                _ => return err(Kind::ControlCharacterInString, i),
            }
            // Runs of simple escapes go a block at a time; anything else
            // (and what the blocks leave near the end of the input) one
            // escape at a time.
            let simple = input.get(i + 1).is_some_and(|&c| ESCAPES[c as usize] > 1);
            let after = if simple { unescape::simple_escapes(input, i, &mut self.scratch) } else { i };
            i = if after != i { after } else { self.escape(i)? };
            let Some(next) = find_special(input, i) else {
                return err(Kind::UnexpectedEnd, input.len());
            };
            self.scratch.extend_from_slice(&input[i..next]);
            i = next;
        }
    }

    /// Decodes the escape at `i` (a backslash) into `scratch`; returns the index after it.
    #[inline(always)]
    fn escape<E>(&mut self, i: usize) -> Result<usize, Failure<E>> {
        let Some(&c) = self.input.get(i + 1) else {
            return err(Kind::UnexpectedEnd, self.input.len());
        };
        // A table instead of a match: the escapes of a string vary from one to
        // the next, and one predictable branch beats an indirect jump.
        let simple = ESCAPES[c as usize];
        if simple <= 1 {
            if simple == 1 {
                return self.unicode_escape(i);
            }
            return err(Kind::InvalidEscape, i);
        }
        self.scratch.push(simple);
        Ok(i + 2)
    }

    fn hex4<E>(&self, at: usize) -> Result<u32, Failure<E>> {
        let Some(digits) = self.input.get(at..at + 4) else {
            return err(Kind::UnexpectedEnd, self.input.len());
        };
        let mut v = 0u32;
        for &d in digits {
            let n = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return err(Kind::InvalidEscape, at - 2),
            };
            v = v << 4 | n as u32;
        }
        Ok(v)
    }

    /// `\uXXXX` at `i`, with a following `\uXXXX` when it is a high surrogate.
    fn unicode_escape<E>(&mut self, i: usize) -> Result<usize, Failure<E>> {
        let first = self.hex4(i + 2)?;
        let (code_point, end) = match first {
            0xD800..=0xDBFF => {
                if self.input.get(i + 6..i + 8) != Some(b"\\u") {
                    return err(Kind::LoneSurrogate, i);
                }
                let second = self.hex4(i + 8)?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return err(Kind::LoneSurrogate, i);
                }
                (0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00), i + 12)
            }
            0xDC00..=0xDFFF => return err(Kind::LoneSurrogate, i),
            c => (c, i + 6),
        };
        self.scratch.reserve(4);
        // SAFETY: 4 bytes reserved; `code_point` is a scalar value below 0x110000.
        unsafe {
            let len = self.scratch.len();
            let tail = self.scratch.as_mut_ptr().add(len);
            let end_ptr = put_code_point(tail, code_point);
            self.scratch.set_len(len + end_ptr.offset_from(tail) as usize);
        }
        Ok(end)
    }

    /// The number at `pos` and, in an array, the numbers that follow it
    /// (`,` then a number, whitespace allowed after the comma). When the
    /// array ends right after them (`]`), the array is built and returned;
    /// otherwise the last number is, all before it pushed, and `run` goes on
    /// from the byte after it.
    ///
    /// Out of line, so that this loop keeps the input, the position and the
    /// number's state in registers instead of competing for them with the
    /// rest of `run`: arrays of numbers (coordinates, vectors, ids) then cost
    /// one call, not one trip through `run` per item.
    #[inline(never)]
    fn numbers<B: Builder<Value = V>>(&mut self, b: &mut B) -> Result<V, Failure<B::Error>> {
        let array_start = match self.frames.last() {
            Some(&Frame { is_map: false, start }) => Some(start),
            _ => None,
        };
        let input = self.input;
        loop {
            let value = self.number(b)?;
            let Some(start) = array_start else {
                return Ok(value);
            };
            match input.get(self.pos) {
                Some(b',') => {
                    let mut next = self.pos + 1;
                    if matches!(input.get(next), Some(b' ' | b'\n' | b'\r' | b'\t')) {
                        next = skip_whitespace_run(input, next + 1);
                    }
                    // Anything but a number (or an error) is `run`'s, from the comma.
                    if matches!(input.get(next), Some(b'-' | b'0'..=b'9')) {
                        self.stack.push(value);
                        self.pos = next;
                        continue;
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    self.frames.pop();
                    self.stack.push(value);
                    return b.array(&mut self.stack, start).map_err(Failure::Build);
                }
                _ => {}
            }
            return Ok(value);
        }
    }

    /// A number: an int when it has no fraction or exponent and fits 64 bits,
    /// otherwise a float (so integers beyond 64 bits become floats, as in orjson).
    ///
    /// Digits are accumulated while the grammar is checked, so an int needs no
    /// second pass, and a float of up to 19 digits is computed from the
    /// accumulated mantissa and exponent (`float_parse`: Clinger's exact
    /// path, then Eisel-Lemire). The rare float neither decides (longer
    /// mantissas, subnormal or overflowing results, ambiguous products) goes
    /// to the standard library's correctly rounded parser.
    #[inline(always)]
    fn number<B: Builder<Value = V>>(&mut self, b: &mut B) -> Result<V, Failure<B::Error>> {
        let input = self.input;
        let start = self.pos;
        let mut i = start;
        let negative = input[i] == b'-';
        if negative {
            i += 1;
        }
        let digits_start = i;
        // Wraps past 19 digits; only used when the digit count says it did not.
        let mut mantissa: u64 = 0;
        match input.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                (mantissa, i) = digits::<false>(input, i, 0);
            }
            _ => return err(Kind::InvalidNumber, start),
        }
        let digits_end = i;
        let mut fraction_digits = 0usize;
        let mut exponent: i64 = 0;
        let mut is_float = false;
        if input.get(i) == Some(&b'.') {
            i += 1;
            let fraction_start = i;
            (mantissa, i) = digits::<true>(input, i, mantissa);
            if i == fraction_start {
                return err(Kind::InvalidNumber, start);
            }
            fraction_digits = i - fraction_start;
            is_float = true;
        }
        if let Some(b'e' | b'E') = input.get(i) {
            i += 1;
            let exponent_negative = input.get(i) == Some(&b'-');
            if let Some(b'+' | b'-') = input.get(i) {
                i += 1;
            }
            let exponent_start = i;
            while let Some(&d @ b'0'..=b'9') = input.get(i) {
                // Capped: an exponent this large goes to the slow path anyway.
                if exponent < 1_000_000 {
                    exponent = exponent * 10 + (d - b'0') as i64;
                }
                i += 1;
            }
            if i == exponent_start {
                return err(Kind::InvalidNumber, start);
            }
            if exponent_negative {
                exponent = -exponent;
            }
            is_float = true;
        }
        self.pos = i;
        let int_digits = digits_end - digits_start;
        if !is_float {
            // 19 digits never overflow u64; longer ones are checked.
            let magnitude = if int_digits <= 19 { Some(mantissa) } else { parse_u64(&input[digits_start..digits_end]) };
            if let Some(magnitude) = magnitude {
                return if !negative {
                    b.u64(magnitude)
                } else if magnitude <= 1 << 63 {
                    b.i64((magnitude as i64).wrapping_neg())
                } else {
                    b.f64(-(magnitude as f64))
                }
                .map_err(Failure::Build);
            }
        } else if int_digits + fraction_digits <= 19 {
            // The mantissa did not wrap (leading zeros count as digits above,
            // which only makes the test stricter): the fast paths decide
            // nearly every float from it without reading the digits again.
            if let Some(v) = decimal_to_f64(mantissa, exponent - fraction_digits as i64) {
                return b.f64(if negative { -v } else { v }).map_err(Failure::Build);
            }
        }
        // SAFETY: the bytes matched the ASCII number grammar above.
        let text = unsafe { core::str::from_utf8_unchecked(&input[start..i]) };
        match text.parse::<f64>() {
            Ok(v) => b.f64(v).map_err(Failure::Build),
            Err(_) => err(Kind::InvalidNumber, start),
        }
    }
}

/// Reads the run of decimal digits at `i`, appending them to `acc` (wrapping:
/// callers use the value only when they know it did not). Returns the new
/// value and the index after the digits. Eight digits per step where the
/// input has them, which also breaks the multiply-add chain of long fractions;
/// with `TAIL_WORD` (fractions, whose tails are long) a last run of 3 to 7
/// digits is one step too, while integer parts (short tails) go byte by byte.
#[inline(always)]
fn digits<const TAIL_WORD: bool>(input: &[u8], mut i: usize, mut acc: u64) -> (u64, usize) {
    while i + 8 <= input.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&input[i..i + 8]);
        let w = u64::from_le_bytes(w);
        if eight_digits(w) {
            acc = acc.wrapping_mul(100_000_000).wrapping_add(parse_eight_digits(w));
            i += 8;
            continue;
        }
        let n = leading_digits(w);
        if TAIL_WORD && n >= 3 {
            // The last digits of a run (a float's fraction tail): moved to
            // the top of the word with '0's below, they are one 8-digit value.
            let shift = 8 * (8 - n) as u32;
            let padded = w << shift | 0x3030_3030_3030_3030u64 >> (64 - shift);
            acc = acc.wrapping_mul(POW10_U64[n]).wrapping_add(parse_eight_digits(padded));
            return (acc, i + n);
        }
        break;
    }
    while let Some(&d @ b'0'..=b'9') = input.get(i) {
        acc = acc.wrapping_mul(10).wrapping_add((d - b'0') as u64);
        i += 1;
    }
    (acc, i)
}

/// 10^n for n < 8.
const POW10_U64: [u64; 8] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];

/// How many of the bytes of little-endian `w`, from the first, are ASCII
/// digits (8 when all are). A byte is a digit when its high nibble is 3 and
/// still is after adding 6; only bytes after the first non-digit can be
/// disturbed by a carry, so the first non-digit is found exactly.
#[inline(always)]
fn leading_digits(w: u64) -> usize {
    const HIGH: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    const THREES: u64 = 0x3030_3030_3030_3030;
    let other = ((w & HIGH) ^ THREES) | ((w.wrapping_add(0x0606_0606_0606_0606) & HIGH) ^ THREES);
    (other.trailing_zeros() / 8) as usize
}

/// Whether all eight bytes of little-endian `w` are ASCII digits: each has
/// high nibble 3, and still has after adding 6 (which moves 0x3A-0x3F out and
/// cannot carry into the next byte).
#[inline(always)]
fn eight_digits(w: u64) -> bool {
    const HIGH: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    const THREES: u64 = 0x3030_3030_3030_3030;
    (w & HIGH) == THREES && (w.wrapping_add(0x0606_0606_0606_0606) & HIGH) == THREES
}

/// The value of eight ASCII digits read little-endian (first digit in the
/// lowest byte), by merging neighbours: digit pairs, then 4-digit groups, then
/// the whole, each step one multiply on all lanes at once.
#[inline(always)]
fn parse_eight_digits(w: u64) -> u64 {
    let v = w - 0x3030_3030_3030_3030;
    // Even bytes: 10 * digit + next digit (0..99; no carries between bytes).
    let pairs = (v.wrapping_mul(10) + (v >> 8)) & 0x00ff_00ff_00ff_00ff;
    // Even 16-bit lanes shifted down: 100 * pair + next pair (0..9999).
    let quads = (pairs.wrapping_mul(1 + (100 << 16)) >> 16) & 0x0000_ffff_0000_ffff;
    // High 32 bits: 10000 * first group + second group.
    quads.wrapping_mul(1 + (10_000 << 32)) >> 32
}

/// Index of the next `"`, `\\` or control byte (< 0x20) in `input` at or
/// after `i`, if any.
///
/// Inlined where strings are read: most strings end within their first 16
/// bytes, which one SSE2 block (x86-64 baseline) checks here. Longer ones
/// go on out of line ([`find_special_after_block`]).
#[inline(always)]
fn find_special(input: &[u8], i: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if i + 16 <= input.len() {
        // SAFETY: 16 bytes at `i` are inside `input`.
        let mask = unsafe { special_mask_16(input.as_ptr().add(i)) };
        if mask != 0 {
            return Some(i + mask.trailing_zeros() as usize);
        }
        return find_special_after_block(input, i + 16);
    }
    find_special_by_word(input, i)
}

/// `find_special` past a first block without one: 64 bytes per step with
/// AVX2 where the CPU has it, else 16 with SSE2, then the last few bytes.
/// Out of line, so the long-string loops neither bloat the scanner's hot
/// loop nor move with it.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn find_special_after_block(input: &[u8], i: usize) -> Option<usize> {
    if crate::cpu::avx2() {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { find_special_avx2(input, i) };
    }
    find_special_sse2(input, i)
}

/// The mask of `"`, `\\` and control bytes among the 16 bytes at `p` (bit k
/// for byte k).
///
/// # Safety
/// 16 bytes must be readable at `p`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn special_mask_16(p: *const u8) -> u32 {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline; one load of 16 bytes the
    // caller guarantees.
    unsafe {
        let v = _mm_loadu_si128(p as *const __m128i);
        // A byte is a control byte when min(byte, 0x1f) == byte (unsigned).
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        let quote_or_backslash =
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)), _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)));
        _mm_movemask_epi8(_mm_or_si128(quote_or_backslash, control)) as u32
    }
}

/// `find_special` 16 bytes per step with SSE2, then the last few bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn find_special_sse2(input: &[u8], mut i: usize) -> Option<usize> {
    while i + 16 <= input.len() {
        // SAFETY: 16 bytes at `i` are inside `input`.
        let mask = unsafe { special_mask_16(input.as_ptr().add(i)) };
        if mask != 0 {
            return Some(i + mask.trailing_zeros() as usize);
        }
        i += 16;
    }
    find_special_by_word(input, i)
}

/// `find_special` 64 bytes per step with AVX2 (two 32-byte blocks, one
/// test), then 16 with SSE2 and the last few bytes.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn find_special_avx2(input: &[u8], mut i: usize) -> Option<usize> {
    use core::arch::x86_64::*;
    // SAFETY: each load reads 32 bytes at `i` or `i + 32`, with
    // `i + 64 <= input.len()`.
    unsafe {
        let quote = _mm256_set1_epi8(b'"' as i8);
        let backslash = _mm256_set1_epi8(b'\\' as i8);
        let below_space = _mm256_set1_epi8(0x1f);
        let special = |p: *const u8| {
            let v = _mm256_loadu_si256(p as *const __m256i);
            let control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, below_space), v);
            _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash)), control)
        };
        while i + 64 <= input.len() {
            let first = special(input.as_ptr().add(i));
            let second = special(input.as_ptr().add(i + 32));
            if _mm256_testz_si256(_mm256_or_si256(first, second), _mm256_or_si256(first, second)) == 0 {
                let mask =
                    _mm256_movemask_epi8(first) as u32 as u64 | (_mm256_movemask_epi8(second) as u32 as u64) << 32;
                return Some(i + mask.trailing_zeros() as usize);
            }
            i += 64;
        }
    }
    find_special_sse2(input, i)
}

/// `find_special` 8 bytes per step with a word-at-a-time test, then byte by byte.
#[inline(always)]
fn find_special_by_word(input: &[u8], mut i: usize) -> Option<usize> {
    while i + 8 <= input.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&input[i..i + 8]);
        let mask = special_bytes(u64::from_le_bytes(word), false);
        if mask != 0 {
            return Some(i + (mask.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    while let Some(&c) = input.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Index of the first non-whitespace byte of `input` at or after `i` (or the
/// end), 16 bytes per step with SSE2.
///
/// Runs are mostly spaces (indentation after a newline), so each block is
/// compared with the space only; a newline, return or tab where that stops
/// is stepped over and the scan goes on from the byte after it.
#[inline(never)]
fn skip_whitespace_run(input: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 baseline; each load reads
        // `i..i + 16`, inside `input` by the loop condition.
        unsafe {
            while i + 16 <= input.len() {
                let v = _mm_loadu_si128(input.as_ptr().add(i) as *const __m128i);
                let other = !(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8))) as u32) & 0xffff;
                if other != 0 {
                    i += other.trailing_zeros() as usize;
                    if !matches!(input[i], b'\n' | b'\r' | b'\t') {
                        return i;
                    }
                    i += 1;
                } else {
                    i += 16;
                }
            }
        }
    }
    while let Some(b' ' | b'\n' | b'\r' | b'\t') = input.get(i) {
        i += 1;
    }
    i
}

/// Decimal digits to u64, or None when they overflow it.
#[inline(always)]
fn parse_u64(digits: &[u8]) -> Option<u64> {
    if digits.len() <= 19 {
        // 19 digits never overflow u64.
        Some(digits.iter().fold(0u64, |v, &d| v * 10 + (d - b'0') as u64))
    } else {
        digits.iter().try_fold(0u64, |v, &d| v.checked_mul(10)?.checked_add((d - b'0') as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Echo, Rng};

    fn ok(s: &str) -> String {
        parse(s.as_bytes(), &mut Echo).unwrap_or_else(|e| panic!("{s:?}: {e:?}"))
    }

    fn fail(s: &[u8]) -> (Kind, usize) {
        match parse(s, &mut Echo) {
            Err(Failure::Syntax(e)) => (e.kind, e.offset),
            other => panic!("{s:?} gave {other:?}"),
        }
    }

    #[test]
    fn values() {
        assert_eq!(ok(" [1, -2, 3.5, true, false, null, \"a\"] "), r#"[u1,i-2,f3.5,true,false,null,"a"]"#);
        assert_eq!(ok(r#"{"a": {"b": []}, "c": {}}"#), r#"{k"a":{k"b":[]},k"c":{}}"#);
        assert_eq!(ok("18446744073709551615"), "u18446744073709551615");
        assert_eq!(ok("18446744073709551616"), "f1.8446744073709552e19");
        assert_eq!(ok("-9223372036854775808"), "i-9223372036854775808");
        assert_eq!(ok("-9223372036854775809"), "f-9.223372036854776e18");
        assert_eq!(ok("-0"), "i0");
        assert_eq!(ok("-0.0"), "f-0.0");
        assert_eq!(ok("1E+2"), "f100.0");
        assert_eq!(ok("1e400"), "finf");
    }

    #[test]
    fn escapes() {
        assert_eq!(ok(r#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00z""#), format!("{:?}", "a\"\\/\u{8}\u{c}\n\r\té😀z"));
        assert_eq!(
            ok(r#""long text before the escape \n and after it""#),
            format!("{:?}", "long text before the escape \n and after it")
        );
    }

    #[test]
    fn escape_runs_of_every_shape() {
        for v in unescape::Variant::available() {
            unescape::FORCED.with(|f| f.set(Some(v)));
            escape_runs_of_every_shape_with_blocks();
        }
    }

    fn escape_runs_of_every_shape_with_blocks() {
        // Random texts dense and sparse in escapes, at every offset from the
        // string's start and the input's end, spelled with short and \u
        // escapes; decoding gives the text back.
        let alphabet = ['a', 'b', '"', '\\', '\n', '\t', '/', '\u{1}', '\u{1f}', 'é', '中', '😀', ' '];
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        for round in 0..20_000 {
            let len = rng.below(if round % 4 == 0 { 200 } else { 40 }) as usize;
            let sparse = rng.below(3) == 0;
            let text: String = (0..len)
                .map(|_| {
                    if sparse && rng.below(8) != 0 {
                        'x'
                    } else {
                        alphabet[rng.below(alphabet.len() as u64) as usize]
                    }
                })
                .collect();
            let mut json = String::from("\"");
            for c in text.chars() {
                match (c, rng.below(6)) {
                    ('"', _) => json.push_str("\\\""),
                    ('\\', _) => json.push_str("\\\\"),
                    ('\n', 0) => json.push_str("\\u000a"),
                    ('\n', _) => json.push_str("\\n"),
                    ('\t', _) => json.push_str("\\t"),
                    ('/', 0) => json.push_str("\\/"),
                    (c, _) if (c as u32) < 0x20 => json.push_str(&format!("\\u{:04x}", c as u32)),
                    ('😀', 0) => json.push_str("\\ud83d\\ude00"),
                    (c, _) => json.push(c),
                }
            }
            json.push('"');
            let pad = " ".repeat(rng.below(40) as usize);
            let tail = " ".repeat(rng.below(40) as usize);
            assert_eq!(ok(&format!("{pad}[{json}]{tail}")), format!("[{text:?}]"), "{json}");
            // Cut anywhere inside, or broken by a raw control byte or a bad escape: an error.
            let cut = rng.below(json.len() as u64) as usize;
            if json.is_char_boundary(cut) && cut > 0 {
                let broken = format!("[{}", &json[..cut]);
                assert!(parse(broken.as_bytes(), &mut Echo).is_err(), "{broken}");
                // A raw control byte inserted anywhere is refused, at its
                // place or at the escape it splits.
                for bad in ["\u{1}", "\u{1f}", "\n"] {
                    let s = format!("[{}{bad}{}]{tail}", &json[..cut], &json[cut..]);
                    match parse(s.as_bytes(), &mut Echo) {
                        Err(Failure::Syntax(e)) => assert!(e.offset <= cut + 1 && e.offset + 12 >= cut, "{s:?}: {e:?}"),
                        other => panic!("{s:?} gave {other:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn errors_with_offsets() {
        assert_eq!(fail(b""), (Kind::EmptyDocument, 0));
        assert_eq!(fail(b"  "), (Kind::EmptyDocument, 2));
        assert_eq!(fail(b"1 2"), (Kind::TrailingData, 2));
        assert_eq!(fail(b"[1,x]").1, 3);
        assert_eq!(fail(b"[1"), (Kind::UnexpectedEnd, 2));
        assert_eq!(fail(br#"{"a" 1}"#).1, 5);
        assert_eq!(fail(b"[1,]"), (Kind::TrailingComma, 2));
        assert_eq!(fail(br#"{"a":1,}"#), (Kind::TrailingComma, 6));
        assert_eq!(fail(b"01"), (Kind::TrailingData, 1));
        assert_eq!(fail(b"-"), (Kind::InvalidNumber, 0));
        assert_eq!(fail(b"1."), (Kind::InvalidNumber, 0));
        assert_eq!(fail(b"1e"), (Kind::InvalidNumber, 0));
        assert_eq!(fail(b"tru"), (Kind::InvalidLiteral, 0));
        assert_eq!(fail(b"\"a\x01\""), (Kind::ControlCharacterInString, 2));
        assert_eq!(fail(br#""\x""#), (Kind::InvalidEscape, 1));
        assert_eq!(fail(br#""\ud800""#), (Kind::LoneSurrogate, 1));
        assert_eq!(fail(br#""\udc00""#), (Kind::LoneSurrogate, 1));
        assert_eq!(fail(br#""\ud800\u0041""#), (Kind::LoneSurrogate, 1));
        assert_eq!(fail(b"\"abc"), (Kind::UnexpectedEnd, 4));
        assert_eq!(fail(b"[\"\xff\"]"), (Kind::InvalidUtf8, 2));
        assert_eq!(fail(b"NaN").0, Kind::UnexpectedByte { found: b'N', expected: "a JSON value" });
    }

    #[test]
    fn floats_match_the_standard_parser() {
        let mut texts: Vec<String> = [
            "0.1",
            "0.0",
            "1e22",
            "1e23",
            "9007199254740993.0",
            "9007199254740992e-22",
            "123456789012345678.5",
            "0.000000000000000000001",
            "1.7976931348623157e308",
            "5e-324",
            "2.2250738585072014e-308",
            "1E-22",
            "43.474709000000132",
            "65.613616999999977",
            "1e0000000000000000000001",
            "1e-400",
            "2e308",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20000 {
            let x = rng.next_u64();
            let digits = (x % 18) as u32 + 1;
            let mut t = (x % 10u64.pow(digits)).to_string();
            let frac = ((x >> 20) % (t.len() as u64 + 1)) as usize;
            if frac > 0 && frac < t.len() {
                t.insert(t.len() - frac, '.');
            } else {
                t.push_str(".5");
            }
            if x & 2 == 0 {
                t = format!("{t}e{}", ((x >> 40) % 60) as i64 - 30);
            }
            texts.push(t);
        }
        for t in &texts {
            let want: f64 = t.parse().unwrap();
            assert_eq!(ok(t), format!("f{want:?}"), "{t}");
            assert_eq!(ok(&format!("-{t}")), format!("f{:?}", -want), "-{t}");
        }
    }

    #[test]
    fn whitespace_runs_of_every_length() {
        for n in 0..70 {
            for ws in [" ", "\n", "\r", "\t", "\n  "] {
                let pad = ws.repeat(n);
                assert_eq!(ok(&format!("{pad}[{pad}1{pad},{pad}2{pad}]{pad}")), "[u1,u2]");
                assert_eq!(ok(&format!("{pad}{{{pad}\"a\"{pad}:{pad}1{pad}}}{pad}")), "{k\"a\":u1}");
            }
            assert_eq!(fail(format!("[1{}x]", " ".repeat(n)).as_bytes()).1, n + 2);
        }
    }

    #[test]
    fn eight_digit_words() {
        let mut rng = Rng::new(12345);
        for k in 0..100_000u64 {
            let x = rng.next_u64();
            let n = if k < 10 {
                [0, 99_999_999, 10_000_000, 1, 12_345_678, 87_654_321, 9, 90, 900, 9_000][k as usize]
            } else {
                (x >> 20) % 100_000_000
            };
            let text = format!("{n:08}");
            let w = u64::from_le_bytes(text.as_bytes().try_into().unwrap());
            assert!(eight_digits(w), "{text}");
            assert_eq!(parse_eight_digits(w), n, "{text}");
            // One non-digit byte anywhere is refused.
            let mut bytes: [u8; 8] = text.as_bytes().try_into().unwrap();
            bytes[(x % 8) as usize] = [b'/', b':', b'.', b'e', b' ', 0x06, 0xb0, b'?'][((x >> 8) % 8) as usize];
            assert!(!eight_digits(u64::from_le_bytes(bytes)), "{bytes:?}");
            let first_other = bytes.iter().position(|b| !b.is_ascii_digit()).unwrap();
            assert_eq!(leading_digits(u64::from_le_bytes(bytes)), first_other, "{bytes:?}");
        }
        assert_eq!(ok("12345678901234567890"), "u12345678901234567890");
        assert_eq!(ok("123456789012345678901"), "f1.2345678901234568e20");
        assert_eq!(ok("0.12345678"), "f0.12345678");
        // Fraction and integer runs of every length, cut by every kind of byte.
        for len in 1..=40usize {
            let run: String = (0..len).map(|k| char::from(b'0' + ((k * 7 + 3) % 10) as u8)).collect();
            for tail in ["]", ",1]", " ]", "e5]", "\n]"] {
                let text = format!("[1.{run}{tail}");
                let want: f64 = format!("1.{run}{}", if tail.starts_with('e') { "e5" } else { "" }).parse().unwrap();
                assert!(ok(&text).starts_with(&format!("[f{want:?}")), "{text}: {}", ok(&text));
                let digits = run.trim_start_matches('0');
                if !digits.is_empty() && !tail.starts_with('e') {
                    let int = format!("[{digits}{tail}");
                    let want = match digits.parse::<u64>() {
                        Ok(v) => format!("[u{v}"),
                        Err(_) => format!("[f{:?}", digits.parse::<f64>().unwrap()),
                    };
                    assert!(ok(&int).starts_with(&want), "{int}: {}", ok(&int));
                }
            }
        }
    }

    #[test]
    fn find_special_matches_a_plain_loop() {
        let naive = |input: &[u8], i: usize| (i..input.len()).find(|&j| matches!(input[j], b'"' | b'\\' | 0..=0x1f));
        for len in 0..200 {
            for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                for at in 0..=len {
                    // Non-special bytes around it, including 0x20, 0x7f and non-ASCII.
                    let mut input: Vec<u8> = (0..len).map(|k| [b'a', 0x20, 0x7f, 0xe9, b'!', 0xff][k % 6]).collect();
                    if at < len {
                        input[at] = special;
                    }
                    for start in [0, 1, 7, 15, 16, 17, 33, 64].into_iter().filter(|&s| s <= len) {
                        let want = naive(&input, start);
                        assert_eq!(find_special(&input, start), want, "{input:?} from {start}");
                        #[cfg(target_arch = "x86_64")]
                        assert_eq!(find_special_sse2(&input, start), want, "{input:?} from {start}");
                    }
                }
            }
        }
    }

    #[test]
    fn depth_limit() {
        let ok_depth = "[".repeat(1024) + &"]".repeat(1024);
        assert!(parse(ok_depth.as_bytes(), &mut Echo).is_ok());
        let too_deep = "[".repeat(1025) + &"]".repeat(1025);
        assert_eq!(fail(too_deep.as_bytes()), (Kind::DepthLimit, 1024));
        assert_eq!(fail("[".repeat(100_000).as_bytes()), (Kind::DepthLimit, 1024));
    }
}

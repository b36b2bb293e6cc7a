//! The lexing both JSON drivers share: the push decoder
//! ([`scanner`](super::scanner)) and the pull reader ([`pull`](super::pull))
//! read whitespace, literals, strings (with their escapes) and numbers
//! through the one [`Lex`] here, so they accept, refuse and locate errors
//! alike by construction.
//!
//! [`Lex`] is a trait over each driver's own state (its input, position and
//! unescape buffer are fields of the driver's struct, read through inlined
//! accessors), so the push decoder's hot loop keeps its own layout and the
//! lexing is monomorphized into it. A driver lexes only input already
//! checked as UTF-8 ([`check_utf8`]): string bodies need no second check.

use super::unescape::{self, ESCAPES};
use super::unicode;
use crate::error::{no_memory, DecodeError, DecodeErrorKind as Kind, Failure};
use crate::fallible;
use crate::number::float_parse::{decimal_to_f64, parse_text, EXACT_POW10};
use crate::text::put_code_point;
use crate::text::swar::special_bytes;

/// Where a decoded string's bytes are: still in the input, or unescaped into
/// the scratch buffer.
#[derive(Clone, Copy)]
pub(super) enum Span {
    Input(usize, usize),
    Scratch,
}

pub(super) fn err<T, E>(kind: Kind, offset: usize) -> Result<T, Failure<E>> {
    Err(Failure::Syntax(DecodeError::new(kind, offset)))
}

/// Checks that `input` is UTF-8, as both decoders do before anything else;
/// the error is at the first byte that is not.
pub(super) fn check_utf8(input: &[u8]) -> Result<(), DecodeError> {
    if !crate::text::decode::is_valid(input) {
        let valid = match simdutf8::compat::from_utf8(input) {
            Err(e) => e.valid_up_to(),
            Ok(_) => input.len(),
        };
        return Err(DecodeError::new(Kind::InvalidUtf8, valid));
    }
    Ok(())
}

/// Whether `c` is JSON whitespace.
#[inline(always)]
pub(super) fn is_whitespace(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\r' | b'\t')
}

/// What a number's value is handed to: the push decoder's builder, or the
/// pull reader's value.
pub(super) trait NumberSink {
    type Value;
    type Error;
    /// Whether the value is wanted; without it, [`unvalued`](Self::unvalued).
    const VALUE: bool = true;
    /// Whether a number beyond the doubles is `NumberOutOfRange` rather than
    /// an infinity.
    const FINITE: bool = false;
    fn u64(&mut self, v: u64) -> Result<Self::Value, Self::Error>;
    fn i64(&mut self, v: i64) -> Result<Self::Value, Self::Error>;
    /// `is_float`: the number has a fraction or an exponent (else it is an
    /// integer beyond 64 bits).
    fn f64(&mut self, v: f64, is_float: bool) -> Result<Self::Value, Self::Error>;
    /// A number whose value is not wanted, and whether it has a fraction or
    /// an exponent.
    #[expect(clippy::unreachable, reason = "lex_number calls it only for sinks whose VALUE is false, which define it")]
    fn unvalued(&mut self, _is_float: bool) -> Result<Self::Value, Self::Error> {
        unreachable!("asked only when VALUE is false")
    }
}

/// The lexing, over a driver's input, position and unescape buffer.
pub(super) trait Lex<'a> {
    /// The input, checked as UTF-8 before any lexing (see [`check_utf8`]).
    fn input(&self) -> &'a [u8];
    /// Offset of the next unread byte.
    fn pos(&self) -> usize;
    fn pos_mut(&mut self) -> &mut usize;
    /// The buffer escaped strings are unescaped into.
    fn scratch(&self) -> &[u8];
    fn scratch_mut(&mut self) -> &mut Vec<u8>;
    /// Whether the last number ended within 8 bytes of its digits, so
    /// that the next is read as a short number first ([`short_number`]):
    /// documents of long numbers (coordinates) skip that attempt.
    fn short_numbers(&mut self) -> &mut bool;

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.input().get(self.pos()).copied()
    }

    #[inline(always)]
    fn skip_whitespace(&mut self) {
        // Most values follow no whitespace or one space; indentation runs go
        // to the block scan.
        if !matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            return;
        }
        *self.pos_mut() += 1;
        if matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            *self.pos_mut() = skip_whitespace_run(self.input(), self.pos() + 1);
        }
    }

    fn literal<E>(&mut self, word: &[u8]) -> Result<(), Failure<E>> {
        if self.input()[self.pos()..].starts_with(word) {
            *self.pos_mut() += word.len();
            Ok(())
        } else {
            err(Kind::InvalidLiteral, self.pos())
        }
    }

    /// The opening quote and text of an object key, at `pos` (whitespace
    /// before it already skipped).
    #[inline(always)]
    fn key_string<E>(&mut self) -> Result<Span, Failure<E>> {
        match self.peek() {
            Some(b'"') => *self.pos_mut() += 1,
            Some(found) => {
                return err(Kind::UnexpectedByte { found, expected: "a string key in double quotes" }, self.pos())
            }
            None => return err(Kind::UnexpectedEnd, self.pos()),
        }
        self.string()
    }

    /// The `:` after a key, whitespace before it allowed.
    #[inline(always)]
    fn colon<E>(&mut self) -> Result<(), Failure<E>> {
        self.skip_whitespace();
        match self.peek() {
            Some(b':') => *self.pos_mut() += 1,
            Some(found) => return err(Kind::UnexpectedByte { found, expected: "':' after the key" }, self.pos()),
            None => return err(Kind::UnexpectedEnd, self.pos()),
        }
        Ok(())
    }

    #[inline(always)]
    fn text<'s>(&'s self, span: Span) -> &'s str
    where
        'a: 's,
    {
        let bytes = match span {
            Span::Input(start, end) => &self.input()[start..end],
            Span::Scratch => self.scratch(),
        };
        // SAFETY: the whole input was validated as UTF-8 before scanning; spans
        // start and end next to ASCII quote bytes, so they are char boundaries;
        // the scratch buffer holds input runs cut at ASCII bytes plus code points
        // written by `put_code_point`, which are valid UTF-8.
        unsafe { core::str::from_utf8_unchecked(bytes) }
    }

    /// Index of the next `"`, `\` or control byte at or after `i`, if any.
    #[inline(always)]
    fn next_special(&self, i: usize) -> Option<usize> {
        find_special(self.input(), i)
    }

    /// Reads a string body; `pos` is just past the opening quote.
    ///
    /// Inlined into its callers: most strings end at their first special
    /// byte, a quote, and that case is a scan and a span; everything else
    /// (escapes, errors) is out of line.
    #[inline(always)]
    fn string<E>(&mut self) -> Result<Span, Failure<E>> {
        let start = self.pos();
        let special = self.next_special(start);
        if let Some(i) = special {
            if self.input()[i] == b'"' {
                *self.pos_mut() = i + 1;
                return Ok(Span::Input(start, i));
            }
        }
        self.string_slow(start, special)
    }

    /// `string` past its first special byte `special`, which is no quote (or missing).
    #[inline(never)]
    fn string_slow<E>(&mut self, start: usize, special: Option<usize>) -> Result<Span, Failure<E>> {
        let Some(i) = special else {
            return err(Kind::UnexpectedEnd, self.input().len());
        };
        match self.input()[i] {
            b'\\' => {
                let input = self.input();
                self.scratch_mut().clear();
                fallible::extend(self.scratch_mut(), &input[start..i]).map_err(|_| no_memory(i))?;
                self.escaped_string(i)
            }
            _ => err(Kind::ControlCharacterInString, i),
        }
    }

    /// Continues a string with escapes into `scratch`; `i` is at a backslash.
    fn escaped_string<E>(&mut self, mut i: usize) -> Result<Span, Failure<E>> {
        let input = self.input();
        loop {
            // `i` is at a special byte.
            match input[i] {
                b'"' => {
                    *self.pos_mut() = i + 1;
                    return Ok(Span::Scratch);
                }
                b'\\' => {}
                _ => return err(Kind::ControlCharacterInString, i),
            }
            // Runs of simple escapes go a block at a time, runs of `\u`
            // escapes through their own loop; anything else (and what those
            // leave near the end of the input, or refuse) one escape at a time.
            let after = match input.get(i + 1) {
                Some(&c) if ESCAPES[c as usize] > 1 => unescape::simple_escapes(input, i, self.scratch_mut()),
                Some(b'u') => unicode::unicode_escapes(input, i, self.scratch_mut()),
                _ => i,
            };
            i = if after != i { after } else { self.escape(i)? };
            let Some(next) = find_special(input, i) else {
                return err(Kind::UnexpectedEnd, input.len());
            };
            fallible::extend(self.scratch_mut(), &input[i..next]).map_err(|_| no_memory(i))?;
            i = next;
        }
    }

    /// Decodes the escape at `i` (a backslash) into `scratch`; returns the index after it.
    #[inline(always)]
    fn escape<E>(&mut self, i: usize) -> Result<usize, Failure<E>> {
        let Some(&c) = self.input().get(i + 1) else {
            return err(Kind::UnexpectedEnd, self.input().len());
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
        fallible::push(self.scratch_mut(), simple).map_err(|_| no_memory(i))?;
        Ok(i + 2)
    }

    fn hex4<E>(&self, at: usize) -> Result<u32, Failure<E>> {
        let Some(digits) = self.input().get(at..at + 4) else {
            return err(Kind::UnexpectedEnd, self.input().len());
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
                if self.input().get(i + 6..i + 8) != Some(b"\\u") {
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
        fallible::reserve(self.scratch_mut(), 4).map_err(|_| no_memory(i))?;
        // SAFETY: 4 bytes reserved; `code_point` is a scalar value below 0x110000.
        unsafe {
            let len = self.scratch_mut().len();
            let tail = self.scratch_mut().as_mut_ptr().add(len);
            let end_ptr = put_code_point(tail, code_point);
            self.scratch_mut().set_len(len + end_ptr.offset_from(tail) as usize);
        }
        Ok(end)
    }

    /// A number, handed to `sink`: an int when it has no fraction or
    /// exponent and fits 64 bits, otherwise a float (so integers beyond 64
    /// bits become floats, as in orjson). A sink that wants no value
    /// (`NumberSink::VALUE` false) gets the grammar checked and `pos` moved
    /// past the number, and nothing computed.
    ///
    /// Digits are accumulated while the grammar is checked, so an int needs no
    /// second pass, and a float of up to 19 digits is computed from the
    /// accumulated mantissa and exponent (`float_parse`: Clinger's exact
    /// path, then Eisel-Lemire). The rare float neither decides (longer
    /// mantissas, subnormal or overflowing results, ambiguous products) goes
    /// to [`parse_text`], correctly rounded at any length.
    #[inline(always)]
    fn lex_number<S: NumberSink>(&mut self, sink: &mut S) -> Result<S::Value, Failure<S::Error>> {
        let input = self.input();
        let start = self.pos();
        #[cfg(target_arch = "x86_64")]
        if start + FAST_TAIL <= input.len() && fast_numbers() {
            match fast_number(input, start) {
                Fast::Int(negative, value, end) => {
                    *self.pos_mut() = end;
                    if !S::VALUE {
                        return sink.unvalued(false).map_err(Failure::Build);
                    }
                    return if negative { sink.i64((value as i64).wrapping_neg()) } else { sink.u64(value) }
                        .map_err(Failure::Build);
                }
                Fast::Short(negative, mantissa, fraction_digits, end) => {
                    *self.pos_mut() = end;
                    if !S::VALUE {
                        return sink.unvalued(true).map_err(Failure::Build);
                    }
                    // As for `Short::Fraction` below.
                    let v = mantissa as i64 as f64 / EXACT_POW10[fraction_digits];
                    return sink.f64(if negative { -v } else { v }, true).map_err(Failure::Build);
                }
                Fast::Fraction(negative, mantissa, fraction_digits, end) => {
                    if !S::VALUE {
                        *self.pos_mut() = end;
                        return sink.unvalued(true).map_err(Failure::Build);
                    }
                    // As below for 19 digits at most; a float the fast
                    // paths leave undecided is read again there.
                    if let Some(v) = decimal_to_f64(mantissa, -(fraction_digits as i64)) {
                        *self.pos_mut() = end;
                        return sink.f64(if negative { -v } else { v }, true).map_err(Failure::Build);
                    }
                }
                Fast::No => {}
            }
        }
        let mut i = start;
        let negative = input[i] == b'-';
        if negative {
            i += 1;
        }
        let digits_start = i;
        // Wraps past 19 digits; only used when the digit count says it did not.
        let mut mantissa: u64 = 0;
        // A short number read from one word (see `short_number`), where the
        // last number was short too.
        let short = if *self.short_numbers() { short_number(input, i) } else { Short::No };
        match short {
            Short::Int(value, end) => {
                *self.pos_mut() = end;
                if !S::VALUE {
                    return sink.unvalued(false).map_err(Failure::Build);
                }
                let signed = if negative { (value as i64).wrapping_neg() } else { value as i64 };
                return if negative { sink.i64(signed) } else { sink.u64(value) }.map_err(Failure::Build);
            }
            Short::Fraction(mantissa, fraction_digits, end) => {
                *self.pos_mut() = end;
                if !S::VALUE {
                    return sink.unvalued(true).map_err(Failure::Build);
                }
                // Clinger's path: the mantissa is below 10**6 and the power
                // of ten at most 6.
                let v = mantissa as i64 as f64 / EXACT_POW10[fraction_digits];
                return sink.f64(if negative { -v } else { v }, true).map_err(Failure::Build);
            }
            Short::IntPart(value, end) => {
                mantissa = value;
                i = end;
            }
            Short::No => match input.get(i) {
                Some(b'0') => i += 1,
                Some(b'1'..=b'9') => {
                    (mantissa, i) = digits::<false>(input, i, 0);
                }
                _ => return err(Kind::InvalidNumber, start),
            },
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
        *self.pos_mut() = i;
        *self.short_numbers() = i - digits_start < 8;
        if !S::VALUE {
            return sink.unvalued(is_float).map_err(Failure::Build);
        }
        let int_digits = digits_end - digits_start;
        if !is_float {
            // 19 digits never overflow u64; longer ones are checked.
            let magnitude = if int_digits <= 19 { Some(mantissa) } else { parse_u64(&input[digits_start..digits_end]) };
            if let Some(magnitude) = magnitude {
                return if !negative {
                    sink.u64(magnitude)
                } else if magnitude <= 1 << 63 {
                    sink.i64((magnitude as i64).wrapping_neg())
                } else {
                    sink.f64(-(magnitude as f64), false)
                }
                .map_err(Failure::Build);
            }
        } else if int_digits + fraction_digits <= 19 {
            // The mantissa did not wrap (leading zeros count as digits above,
            // which only makes the test stricter): the fast paths decide
            // nearly every float from it without reading the digits again.
            // Never an infinity (an overflowing result goes to the slow path).
            if let Some(v) = decimal_to_f64(mantissa, exponent - fraction_digits as i64) {
                return sink.f64(if negative { -v } else { v }, true).map_err(Failure::Build);
            }
        }
        match parse_text(&input[start..i]) {
            Some(v) if S::FINITE && v.is_infinite() => err(Kind::NumberOutOfRange, start),
            Some(v) => sink.f64(v, is_float).map_err(Failure::Build),
            None => err(Kind::InvalidNumber, start),
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
    #[cfg(target_arch = "x86_64")]
    if TAIL_WORD {
        // Sixteen bytes per step where the input has them.
        if i + 16 <= input.len() {
            match sixteen_digits(input, i) {
                Sixteen::All(value) => {
                    acc = acc.wrapping_mul(10_000_000_000_000_000).wrapping_add(value);
                    i += 16;
                    // A few more digits are common (17 significant digits):
                    // byte by byte; a long run goes on a word at a time.
                    for _ in 0..3 {
                        match input.get(i) {
                            Some(&d @ b'0'..=b'9') => {
                                acc = acc.wrapping_mul(10).wrapping_add((d - b'0') as u64);
                                i += 1;
                            }
                            _ => return (acc, i),
                        }
                    }
                }
                Sixteen::Run(n, value) => return (acc.wrapping_mul(POW10_U64_16[n]).wrapping_add(value), i + n),
                Sixteen::Unread => {}
            }
        }
    }
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

/// 10^n for n < 16.
#[cfg(target_arch = "x86_64")]
const POW10_U64_16: [u64; 16] = {
    let mut out = [1u64; 16];
    let mut n = 1;
    while n < 16 {
        out[n] = out[n - 1] * 10;
        n += 1;
    }
    out
};

/// What [`sixteen_digits`] found at `i`.
#[cfg(target_arch = "x86_64")]
enum Sixteen {
    /// Sixteen digits, and their value.
    All(u64),
    /// A run of fewer than sixteen digits (possibly none), and its value.
    Run(usize, u64),
    /// A run too close to the start of the input to be read this way: left
    /// to the word-at-a-time loop.
    Unread,
}

/// The run of digits at `i` (`i + 16 <= input.len()`), read sixteen bytes
/// at a time with SSE2 (x86-64 baseline): the digits' mask gives the run's
/// length; a run shorter than sixteen is read again as the last bytes of
/// the sixteen that end where it ends, the bytes before it cleared, so its
/// value needs no division.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn sixteen_digits(input: &[u8], i: usize) -> Sixteen {
    use core::arch::x86_64::*;
    debug_assert!(i + 16 <= input.len());
    // SAFETY: SSE2 is part of the x86-64 baseline; the first load reads
    // `i..i + 16`, inside `input` (the caller's loop condition); the second
    // reads `i + n - 16..i + n`, inside it too since `16 <= i + n` and
    // `n < 16`.
    unsafe {
        let zero_char = _mm_set1_epi8(b'0' as i8);
        let v = _mm_sub_epi8(_mm_loadu_si128(input.as_ptr().add(i) as *const __m128i), zero_char);
        // A digit's byte is now 0..=9: saturating 9 off leaves zero.
        let digits = _mm_cmpeq_epi8(_mm_subs_epu8(v, _mm_set1_epi8(9)), _mm_setzero_si128());
        let mask = _mm_movemask_epi8(digits) as u32;
        let n = (!mask).trailing_zeros() as usize;
        if n == 16 {
            return Sixteen::All(sixteen_value(v));
        }
        if n == 0 {
            return Sixteen::Run(0, 0);
        }
        if i + n < 16 {
            return Sixteen::Unread;
        }
        let w = _mm_sub_epi8(_mm_loadu_si128(input.as_ptr().add(i + n - 16) as *const __m128i), zero_char);
        // Keep the last `n` bytes (the run), clear the `16 - n` before them.
        let keep = _mm_loadu_si128(KEEP_LAST.as_ptr().add(n) as *const __m128i);
        Sixteen::Run(n, sixteen_value(_mm_and_si128(w, keep)))
    }
}

/// `KEEP_LAST[n..n + 16]` keeps the last `n` of sixteen bytes.
#[cfg(target_arch = "x86_64")]
pub(crate) static KEEP_LAST: [u8; 32] = {
    let mut out = [0u8; 32];
    let mut k = 16;
    while k < 32 {
        out[k] = 0xff;
        k += 1;
    }
    out
};

/// The value of sixteen decimal digits, one per byte (0..=9, the first in
/// the lowest byte): neighbours merged into pairs, fours and eights, each
/// step one multiply-add on all lanes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn sixteen_value(v: core::arch::x86_64::__m128i) -> u64 {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
    unsafe {
        // 16-bit lanes: 10 * first digit + second (0..=99).
        let first = _mm_and_si128(v, _mm_set1_epi16(0x00ff));
        let pairs = _mm_add_epi16(_mm_mullo_epi16(first, _mm_set1_epi16(10)), _mm_srli_epi16(v, 8));
        // 32-bit lanes: 100 * first pair + second (0..=9999).
        let fours = _mm_madd_epi16(pairs, _mm_set1_epi32((1 << 16) | 100));
        // Back to 16-bit lanes (they fit), then 10000 * first four + second.
        let eights = _mm_madd_epi16(_mm_packs_epi32(fours, fours), _mm_set1_epi32((1 << 16) | 10_000));
        let high = _mm_cvtsi128_si32(eights) as u32 as u64;
        let low = _mm_cvtsi128_si32(_mm_srli_si128(eights, 4)) as u32 as u64;
        high * 100_000_000 + low
    }
}

/// Bytes that must remain in the input from a number's first byte for
/// [`fast_number`] to read it: its reads end at most 33 bytes after that
/// byte (see there), so no check is needed on the way.
#[cfg(target_arch = "x86_64")]
const FAST_TAIL: usize = 64;

#[cfg(any(test, fuzzing))]
thread_local! {
    /// Set by the tests (and fuzz targets) to read every number by the
    /// checked path on their thread, so that [`fast_number`]'s results can
    /// be held to it.
    pub(crate) static CHECKED_NUMBERS: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Whether [`fast_number`] may be tried (always, outside tests).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fast_numbers() -> bool {
    #[cfg(any(test, fuzzing))]
    if CHECKED_NUMBERS.with(|c| c.get()) {
        return false;
    }
    true
}

/// What [`fast_number`] read: the number's sign, its end, and its value.
#[cfg(target_arch = "x86_64")]
enum Fast {
    /// An integer of at most 19 digits (a negative one at most 2^63).
    Int(bool, u64, usize),
    /// A fraction of at most 6 digits in all, as [`Short::Fraction`].
    Short(bool, u64, usize, usize),
    /// Digits, a point and digits, at most 19 digits in all: the digits as
    /// an integer and how many are after the point.
    Fraction(bool, u64, usize, usize),
    /// Anything else: for the checked path, from the number's start.
    No,
}

/// The number at `start` (a `-` or a digit), read by pointer without a
/// bounds check per byte, when `FAST_TAIL` bytes remain from `start`: the
/// shapes nearly all numbers have, an integer or digits, a point and
/// digits, 19 digits in all at most, without an exponent. Anything else,
/// including every malformed number, is [`Fast::No`], and the caller reads
/// the number again with the checked path from its start: values and
/// errors are that path's.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fast_number(input: &[u8], start: usize) -> Fast {
    debug_assert!(start + FAST_TAIL <= input.len());
    // Reads, relative to `start`: the word at the sign (0..8); the words of
    // an integer part of at most 19 digits at `i <= 1`, `i + 8`, `i + 16`
    // (to 25); the byte after it (at most 20); after a point at `q <= 21`,
    // sixteen bytes at `q` (to 37), then a byte among them, or, when they
    // are all digits (then `q <= 5`), the four bytes after them (to 25); and
    // `sixteen_digits`' reread of the sixteen bytes that end where a
    // shorter run ends, from `q + n - 16 >= 0`. All below `FAST_TAIL`.
    let at = |k: usize| -> u64 {
        debug_assert!(k + 8 <= input.len());
        // SAFETY: `k + 8 <= start + FAST_TAIL <= input.len()` at every call
        // (see above); an unaligned read of bytes inside `input`.
        u64::from_le(unsafe { core::ptr::read_unaligned(input.as_ptr().add(k) as *const u64) })
    };
    let byte = |k: usize| -> u8 {
        debug_assert!(k < input.len());
        // SAFETY: `k < start + FAST_TAIL <= input.len()` at every call (see above).
        unsafe { *input.get_unchecked(k) }
    };
    let first = at(start);
    let negative = first as u8 == b'-';
    let i = start + negative as usize;
    let w = if negative { at(i) } else { first };
    // As in `short_word`: non-zero in each byte that is no digit, exactly
    // up to the first one after the integer part and a point.
    const HIGH: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    const THREES: u64 = 0x3030_3030_3030_3030;
    let (value, end) = if (w >> 8) as u8 == b'.' && (w as u8).wrapping_sub(b'0') < 10 {
        // One digit and a point (doubles in [-10, 10) as writers print
        // them, with their 15 to 17 digits): straight to the digits after
        // the point, read sixteen at a time below.
        ((w as u8 - b'0') as u64, i + 1)
    } else {
        let other = ((w & HIGH) ^ THREES) | ((w.wrapping_add(0x0606_0606_0606_0606) & HIGH) ^ THREES);
        let int_digits = (other.trailing_zeros() / 8) as usize;
        if int_digits < 8 {
            if int_digits == 0 || (int_digits > 1 && w as u8 == b'0') {
                return Fast::No;
            }
            let next = (w >> (8 * int_digits)) as u8;
            if next != b'.' {
                if next | 0x20 == b'e' {
                    return Fast::No;
                }
                return Fast::Int(negative, digits_value(w, int_digits), i + int_digits);
            }
            // Digits after the point inside the word (8 when they fill it).
            let fraction = ((other >> (8 * int_digits) >> 8).trailing_zeros() / 8) as usize;
            if int_digits + 1 + fraction < 8 {
                // The number ends inside the word (prices: `12.5`).
                let after = (w >> (8 * (int_digits + 1 + fraction))) as u8;
                if fraction == 0 || after | 0x20 == b'e' {
                    return Fast::No;
                }
                let int_part = w & (u64::MAX >> (64 - 8 * int_digits));
                let fraction_part = (w >> (8 * (int_digits + 1))) & (u64::MAX >> (64 - 8 * fraction));
                let mantissa = digits_value(int_part | fraction_part << (8 * int_digits), int_digits + fraction);
                return Fast::Short(negative, mantissa, fraction, i + int_digits + 1 + fraction);
            }
            // (One digit before the point took the lane above.)
            (digits_value(w, int_digits), i + int_digits)
        } else {
            // Eight digits or more (ids, counts).
            if w as u8 == b'0' {
                return Fast::No;
            }
            let second = at(i + 8);
            let n = leading_digits(second);
            let (value, end) = if n < 8 {
                (parse_eight_digits(w) * POW10_U64[n] + digits_value(second, n), i + 8 + n)
            } else {
                let third = at(i + 16);
                let n = leading_digits(third);
                if n > 3 {
                    return Fast::No;
                }
                let sixteen = parse_eight_digits(w) * 100_000_000 + parse_eight_digits(second);
                (sixteen * POW10_U64[n] + digits_value(third, n), i + 16 + n)
            };
            let next = byte(end);
            if next != b'.' {
                if next | 0x20 == b'e' || (negative && value > 1 << 63) {
                    return Fast::No;
                }
                return Fast::Int(negative, value, end);
            }
            (value, end)
        }
    };
    // `end` is at a point.
    let int_digits = end - i;
    let q = end + 1;
    let (mantissa, fraction_digits, after) = match sixteen_digits(input, q) {
        Sixteen::Run(n, digits) if n > 0 && int_digits + n <= 19 => (value * POW10_U64_16[n] + digits, n, byte(q + n)),
        Sixteen::All(digits) => {
            // Up to three more digits (17 significant digits are common),
            // byte by byte.
            if int_digits > 3 {
                return Fast::No;
            }
            let mut mantissa = value * 10_000_000_000_000_000 + digits;
            let mut k = q + 16;
            loop {
                let d = byte(k).wrapping_sub(b'0');
                if d > 9 {
                    break;
                }
                if int_digits + (k - q) >= 19 {
                    return Fast::No;
                }
                mantissa = mantissa * 10 + d as u64;
                k += 1;
            }
            (mantissa, k - q, byte(k))
        }
        _ => return Fast::No,
    };
    if after | 0x20 == b'e' {
        return Fast::No;
    }
    Fast::Fraction(negative, mantissa, fraction_digits, q + fraction_digits)
}

/// A number [`quick_number`] read whole, with its value as
/// [`Lex::lex_number`] gives it (an integer fits 64 bits; a float is the
/// correctly rounded double of text without an exponent, so finite).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quick {
    /// A negative integer.
    I64(i64),
    /// A non-negative integer.
    U64(u64),
    /// Digits, a point and digits.
    F64(f64),
}

/// The number at `start` (a `-` or a digit) and the index after it, when
/// [`fast_number`] reads it (`FAST_TAIL` bytes remain, the common shapes)
/// and its value is decided without the checked path; else None, and
/// nothing is consumed: [`Lex::lex_number`] reads it then, with that
/// path's values and errors. Where None is rare, the caller saves
/// `lex_number`'s sink and the text of the number. The index after the
/// number is at most `start + 21` (a sign, 19 digits and a point), so the
/// two bytes after it are inside `input`.
#[inline(always)]
pub(super) fn quick_number(input: &[u8], start: usize) -> Option<(Quick, usize)> {
    #[cfg(target_arch = "x86_64")]
    if start + FAST_TAIL <= input.len() && fast_numbers() {
        return match fast_number(input, start) {
            Fast::Int(negative, value, end) => {
                Some((if negative { Quick::I64((value as i64).wrapping_neg()) } else { Quick::U64(value) }, end))
            }
            Fast::Short(negative, mantissa, fraction_digits, end) => {
                // As `lex_number` computes it (Clinger's exact path).
                let v = mantissa as i64 as f64 / EXACT_POW10[fraction_digits];
                Some((Quick::F64(if negative { -v } else { v }), end))
            }
            Fast::Fraction(negative, mantissa, fraction_digits, end) => {
                // Eisel-Lemire alone, without `decimal_to_f64`'s exact path
                // first: both give the correctly rounded double when they
                // decide, and doubles printed in full (17 digits) fall on
                // either side of that path's 2^53 at random, a branch no
                // predictor learns.
                let v = crate::number::float_parse::eisel_lemire(mantissa, -(fraction_digits as i64))?;
                Some((Quick::F64(if negative { -v } else { v }), end))
            }
            Fast::No => None,
        };
    }
    let _ = (input, start);
    None
}

/// The value of the first `n < 8` bytes of little-endian `w`, digits:
/// moved to the top of a word with '0's below, one [`parse_eight_digits`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn digits_value(w: u64, n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    let shift = 8 * (8 - n) as u32;
    parse_eight_digits(w << shift | 0x3030_3030_3030_3030u64 >> (64 - shift))
}

/// What [`short_number`] made of the bytes at a number's digits.
enum Short {
    /// An integer of at most 7 digits, and the index after it.
    Int(u64, usize),
    /// A fraction of at most 6 digits in all: the digits as an integer,
    /// how many are after the point, and the index after the number.
    Fraction(u64, usize, usize),
    /// The integer part (at most 7 digits, no leading zero) and the index
    /// after it, where a point or an exponent follows that the word does
    /// not hold whole.
    IntPart(u64, usize),
    /// Anything else (a longer integer part, a leading zero, no digit): the
    /// general path.
    No,
}

/// The number whose digits start at `i` (after any `-`), when the number
/// ends inside the eight bytes from `i`: an integer (counts, ids), or
/// digits, a point and digits (prices: `12.5`, `3.99`) without an exponent.
/// One word read, the point and the end found from its digit mask, and the
/// digits' value in one [`parse_eight_digits`], instead of the loops over
/// the integer and fraction parts. Leading zeros (`01`), a point without
/// digits on either side, and an exponent are left to the general path
/// (from after the integer part where that is known), which reports or
/// reads them.
#[inline(always)]
fn short_number(input: &[u8], i: usize) -> Short {
    const HIGH: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    const THREES: u64 = 0x3030_3030_3030_3030;
    let Some(bytes) = input.get(i..i + 8) else {
        return Short::No;
    };
    let mut word = [0u8; 8];
    word.copy_from_slice(bytes);
    let w = u64::from_le_bytes(word);
    // Non-zero in each byte that is no digit, exactly up to the first such
    // byte after a run of digits and a point (see `leading_digits`).
    let other = ((w & HIGH) ^ THREES) | ((w.wrapping_add(0x0606_0606_0606_0606) & HIGH) ^ THREES);
    let int_digits = (other.trailing_zeros() / 8) as usize;
    if int_digits == 0 || int_digits == 8 || (int_digits > 1 && w as u8 == b'0') {
        return Short::No;
    }
    // The digits, moved to the top of a word with '0's below: one value.
    let value_of = |digits: u64, n: usize| {
        let shift = 8 * (8 - n) as u32;
        parse_eight_digits(digits << shift | THREES >> (64 - shift))
    };
    let next = (w >> (8 * int_digits)) as u8;
    if next != b'.' {
        if next | 0x20 == b'e' {
            return Short::IntPart(value_of(w, int_digits), i + int_digits);
        }
        return Short::Int(value_of(w, int_digits), i + int_digits);
    }
    // After the point: the end of the fraction's digits, if in the word.
    let after = other & u64::MAX.checked_shl(8 * (int_digits as u32 + 1)).unwrap_or(0);
    let end = (after.trailing_zeros() / 8) as usize;
    let fraction_digits = end.saturating_sub(int_digits + 1);
    if end >= 8 || fraction_digits == 0 || (w >> (8 * end)) as u8 | 0x20 == b'e' {
        return Short::IntPart(value_of(w, int_digits), i + int_digits);
    }
    let int_part = w & (u64::MAX >> (64 - 8 * int_digits));
    let fraction = (w >> (8 * (int_digits + 1))) & (u64::MAX >> (64 - 8 * fraction_digits));
    Short::Fraction(
        value_of(int_part | fraction << (8 * int_digits), int_digits + fraction_digits),
        fraction_digits,
        i + end,
    )
}

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
pub(crate) fn find_special_after_block(input: &[u8], i: usize) -> Option<usize> {
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
pub(super) fn skip_whitespace_run(input: &[u8], mut i: usize) -> usize {
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
    use crate::testing::{json_all_ways, Rng};

    #[test]
    fn digit_runs_read_every_way_alike() {
        // Runs of 0 to 40 digits at every offset near the start and the end
        // of the input (where the sixteen-byte and eight-byte steps cannot
        // read), followed by any byte: the same value (wrapping) and end as
        // a digit-by-digit reading.
        let mut rng = Rng::new(0x5eed);
        for _ in 0..20_000 {
            let before = rng.below(24) as usize;
            let run = rng.below(41) as usize;
            let after = rng.below(20) as usize;
            let mut input: Vec<u8> = (0..before).map(|_| b"0123456789-.e"[rng.below(13) as usize]).collect();
            input.extend((0..run).map(|_| b'0' + rng.below(10) as u8));
            input.extend((0..after).map(|_| rng.below(256) as u8));
            let start = rng.below(1000);
            let mut expected = (start, before);
            while let Some(&d @ b'0'..=b'9') = input.get(expected.1) {
                expected = (expected.0.wrapping_mul(10).wrapping_add((d - b'0') as u64), expected.1 + 1);
            }
            assert_eq!(digits::<true>(&input, before, start), expected, "{input:?} at {before}");
            assert_eq!(digits::<false>(&input, before, start), expected, "{input:?} at {before}");
        }
    }

    fn ok(s: &str) -> String {
        json_all_ways(s.as_bytes()).unwrap_or_else(|e| panic!("{s:?}: {e:?}"))
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
}

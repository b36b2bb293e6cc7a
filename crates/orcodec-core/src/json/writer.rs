//! The JSON backend: RFC 8259 text, byte for byte what orjson writes.

use super::rows::{
    decimal_width, put_byte, put_f64, put_i64_digits, put_i64_pairs, put_u64_digits, put_u64_pairs, write_bool_items,
    write_int_items, write_items, F64_ITEM_RESERVE, I8_TEXT, U8_TEXT,
};
use crate::emit::{f64_run_one_by_one, i64_run_one_by_one, items_one_by_one, Emitter};
use crate::number::float::{f64_in_run_in_place, write_f32, write_f64_in_run, F64_IN_PLACE_MAX};
use crate::number::int;
use crate::sink::{Sink, CHUNK};
use crate::text::encode::{copy_clean_prefix, escape_text, escape_utf8_from, MAX_ESCAPED_PER_UNIT, SLACK};
use crate::text::{SurrogateError, Text};

/// Writes UTF-8 (or ASCII) text as a quoted JSON string. Text with nothing to
/// escape (nearly all of it) is one reserve, a block copy and two quotes,
/// inlined at the call; the rest continues out of line from the first
/// character that needs an escape.
#[inline(always)]
fn write_utf8<S: Sink>(out: &mut S, src: &[u8]) {
    let n = src.len();
    if !out.reserve(n + 2 + 16) {
        return;
    }
    // SAFETY: `n + 18` bytes reserved just above: the quotes, the text and
    // the 16-byte block stores of `copy_clean_prefix`.
    let clean = unsafe {
        let start = out.tail();
        *start = b'"';
        let clean = copy_clean_prefix(src, start.add(1));
        if clean == n {
            *start.add(n + 1) = b'"';
            out.advance(n + 2);
            return;
        }
        // The quote and the clean prefix stay; the rest needs escaping.
        out.advance(clean + 1);
        clean
    };
    write_escaped_utf8(out, src, clean);
}

/// The part of [`write_utf8`] from byte `i`, the first that needs escaping, to
/// the closing quote. A long text is escaped [`CHUNK`] bytes at a time, so
/// the room asked for is bounded by a chunk's worst case, not the text's.
#[inline(never)]
fn write_escaped_utf8<S: Sink>(out: &mut S, src: &[u8], i: usize) {
    write_escaped_utf8_chunked(out, src, i, CHUNK)
}

#[inline(always)]
fn write_escaped_utf8_chunked<S: Sink>(out: &mut S, src: &[u8], mut i: usize, chunk: usize) {
    while src.len() - i > chunk {
        // UTF-8 is escaped byte by byte (bytes from 0x80 are copied as they
        // are), so a chunk may end inside a character.
        let end = i + chunk;
        if !out.reserve(chunk * MAX_ESCAPED_PER_UNIT + SLACK) {
            return;
        }
        // SAFETY: room for every byte of the chunk escaped and the slack.
        unsafe {
            let start = out.tail();
            let written = escape_utf8_from(&src[..end], i, start);
            out.advance(written.offset_from(start) as usize);
        }
        i = end;
    }
    if !out.reserve((src.len() - i) * MAX_ESCAPED_PER_UNIT + 1 + SLACK) {
        return;
    }
    // SAFETY: room for every remaining byte escaped, the quote and the slack.
    unsafe {
        let start = out.tail();
        let end = escape_utf8_from(src, i, start);
        *end = b'"';
        out.advance(end.offset_from(start) as usize + 1);
    }
}

/// Writes `text` as a quoted, escaped JSON string.
#[inline(always)]
pub fn write_str<S: Sink>(out: &mut S, text: Text<'_>) -> Result<(), SurrogateError> {
    match text {
        Text::Utf8(s) => {
            write_utf8(out, s);
            Ok(())
        }
        _ => write_str_transcoded(out, text),
    }
}

/// [`write_str`] for text stored as Latin-1, UCS2 or UCS4 code units:
/// transcoded to UTF-8 while escaping.
#[inline(never)]
fn write_str_transcoded<S: Sink>(out: &mut S, text: Text<'_>) -> Result<(), SurrogateError> {
    if text.units() > CHUNK {
        return write_long_transcoded(out, text, CHUNK);
    }
    if !out.reserve(text.units() * MAX_ESCAPED_PER_UNIT + 2 + SLACK) {
        return Ok(());
    }
    // SAFETY: room for the worst case (every unit escaped, plus quotes) and
    // the escapers' whole-word slack was reserved above; each escape function
    // writes at most 6 bytes per unit, plus up to SLACK past its end.
    unsafe {
        let start = out.tail();
        *start = b'"';
        let end = escape_text(text, start.add(1))?;
        *end = b'"';
        out.advance(end.offset_from(start) as usize + 1);
    }
    Ok(())
}

/// [`write_str_transcoded`] for a text of more than `chunk` units: escaped
/// a chunk at a time, so the room asked for is a chunk's worst case, not the
/// text's. A lone surrogate takes back what was written.
#[cold]
fn write_long_transcoded<S: Sink>(out: &mut S, text: Text<'_>, chunk: usize) -> Result<(), SurrogateError> {
    let before = out.len();
    out.push(b'"');
    let mut start = 0;
    while start < text.units() {
        let piece = text.slice(start, text.units().min(start + chunk));
        if !out.reserve(piece.units() * MAX_ESCAPED_PER_UNIT + SLACK) {
            return Ok(());
        }
        // SAFETY: room for every unit of the piece escaped, and the slack.
        unsafe {
            let at = out.tail();
            match escape_text(piece, at) {
                Ok(end) => out.advance(end.offset_from(at) as usize),
                Err(error) => {
                    out.truncate(before);
                    return Err(error);
                }
            }
        }
        start += piece.units();
    }
    out.push(b'"');
    Ok(())
}

/// Writes ASCII text that needs no escaping, quoted.
#[inline]
pub fn write_ascii<S: Sink>(out: &mut S, text: &[u8]) {
    debug_assert!(text.iter().all(|&b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\'));
    if !out.reserve(text.len() + 2) {
        return;
    }
    // SAFETY: `len + 2` bytes reserved just above.
    unsafe {
        let at = out.tail();
        *at = b'"';
        core::ptr::copy_nonoverlapping(text.as_ptr(), at.add(1), text.len());
        *at.add(text.len() + 1) = b'"';
        out.advance(text.len() + 2);
    }
}

#[inline(always)]
pub fn write_i64<S: Sink>(out: &mut S, value: i64) {
    if !out.reserve(int::MAX_LEN) {
        return;
    }
    // SAFETY: MAX_LEN bytes reserved just above.
    unsafe {
        let n = int::write_i64(out.tail(), value);
        out.advance(n);
    }
}

#[inline(always)]
pub fn write_u64<S: Sink>(out: &mut S, value: u64) {
    if !out.reserve(int::MAX_LEN) {
        return;
    }
    // SAFETY: MAX_LEN bytes reserved just above.
    unsafe {
        let n = int::write_u64(out.tail(), value);
        out.advance(n);
    }
}

/// The JSON backend, writing into a [`Sink`]: compact, or with `PRETTY`
/// indented like orjson's `OPT_INDENT_2` (two spaces per level, `": "` after
/// keys, empty containers kept as `[]`/`{}`). `PRETTY` is a const parameter so
/// the compact writer carries no indentation branches at all.
/// Most floats [`JsonWriter::f64_run`] reserves room for at once: the
/// reservation (a comma and [`F64_IN_PLACE_MAX`] per float, about 1 KiB)
/// stays small next to the output even when the run turns out shorter.
const F64_RUN_CHUNK: usize = 32;
/// Most integers [`JsonWriter::i64_run`] reserves room for at once (a comma
/// and `int::MAX_LEN` each, under 1 KiB).
const I64_RUN_CHUNK: usize = 32;

pub struct JsonWriter<S: Sink, const PRETTY: bool> {
    pub out: S,
    /// Open containers; only maintained when `PRETTY`.
    depth: usize,
    /// Floats left to write without trying the short path
    /// ([`write_f64_in_run`]).
    short_pause: u8,
}

pub type CompactJsonWriter<S> = JsonWriter<S, false>;

pub type PrettyJsonWriter<S> = JsonWriter<S, true>;

impl<S: Sink, const PRETTY: bool> JsonWriter<S, PRETTY> {
    pub fn new(out: S) -> Self {
        JsonWriter { out, depth: 0, short_pause: 0 }
    }

    /// A newline and the indentation of the current depth.
    #[inline(always)]
    fn newline(&mut self) {
        let n = 1 + 2 * self.depth;
        if !self.out.reserve(n) {
            return;
        }
        // SAFETY: `n` bytes reserved just above.
        unsafe {
            let at = self.out.tail();
            *at = b'\n';
            core::ptr::write_bytes(at.add(1), b' ', n - 1);
            self.out.advance(n);
        }
    }

    #[inline(always)]
    fn open(&mut self, bracket: u8) {
        self.out.push(bracket);
        if PRETTY {
            self.depth += 1;
        }
    }

    /// Before each item: a comma after the first, and in `PRETTY` a new line.
    #[inline(always)]
    fn item(&mut self, index: usize) {
        if index != 0 {
            self.out.push(b',');
        }
        if PRETTY {
            self.newline();
        }
    }

    #[inline(always)]
    fn close(&mut self, bracket: u8, len: usize) {
        if PRETTY {
            self.depth -= 1;
            if len != 0 {
                self.newline();
            }
        }
        self.out.push(bracket);
    }
}

impl<S: Sink, const PRETTY: bool> Emitter for JsonWriter<S, PRETTY> {
    const HAS_BIN: bool = false;
    const NATIVE_KEYS: bool = false;

    #[inline(always)]
    fn failed(&self) -> bool {
        self.out.failed()
    }

    #[inline(always)]
    fn null(&mut self) {
        self.out.extend(b"null");
    }
    #[inline(always)]
    fn bool(&mut self, value: bool) {
        self.out.extend(if value { b"true" } else { b"false" });
    }
    #[inline(always)]
    fn i64(&mut self, value: i64) {
        write_i64(&mut self.out, value)
    }
    #[inline(always)]
    fn u64(&mut self, value: u64) {
        write_u64(&mut self.out, value)
    }
    #[inline(always)]
    fn f64(&mut self, value: f64) {
        write_f64_in_run(&mut self.out, value, &mut self.short_pause)
    }
    #[inline(always)]
    fn str(&mut self, value: Text<'_>) -> Result<(), SurrogateError> {
        write_str(&mut self.out, value)
    }
    #[inline(always)]
    fn utf8(&mut self, value: &[u8]) {
        write_utf8(&mut self.out, value)
    }
    /// The comma, the quoted key and the colon with one reservation and one
    /// update of the output's length: each update is a store that the next
    /// piece's load of the length waits for.
    #[inline(always)]
    fn utf8_entry_key(&mut self, index: usize, value: &[u8]) {
        if PRETTY {
            self.map_key(index);
            self.utf8_key(value);
            self.map_value();
            return;
        }
        let n = value.len();
        // A comma, the quotes and colon, the text, and the 16-byte block
        // stores of `copy_clean_prefix` past the text.
        if !self.out.reserve(n + 4 + 16) {
            return;
        }
        // SAFETY: `n + 20` bytes reserved just above: at most a comma and a
        // quote before the text, then the text with the block stores' 16
        // bytes past it, which cover the closing quote and the colon.
        let clean = unsafe {
            let start = self.out.tail();
            *start = b',';
            let quote = start.add((index != 0) as usize);
            *quote = b'"';
            let clean = copy_clean_prefix(value, quote.add(1));
            if clean == n {
                *quote.add(n + 1) = b'"';
                *quote.add(n + 2) = b':';
                self.out.advance(quote.offset_from(start) as usize + n + 3);
                return;
            }
            // The separator, the quote and the clean prefix stay; the rest
            // needs escaping.
            self.out.advance(quote.offset_from(start) as usize + 1 + clean);
            clean
        };
        write_escaped_utf8(&mut self.out, value, clean);
        self.out.push(b':');
    }
    #[inline(always)]
    fn f32(&mut self, value: f32) {
        write_f32(&mut self.out, value)
    }
    #[inline(always)]
    fn ascii(&mut self, value: &[u8]) {
        write_ascii(&mut self.out, value)
    }
    #[inline(always)]
    fn ascii_in_place<const MAX: usize>(&mut self, fill: impl FnOnce(*mut u8) -> usize) {
        if !self.out.reserve(MAX + 2) {
            return;
        }
        // SAFETY: `MAX + 2` bytes reserved just above: the quotes and at most
        // MAX bytes from `fill`.
        unsafe {
            let at = self.out.tail();
            *at = b'"';
            let len = fill(at.add(1));
            debug_assert!(len <= MAX);
            *at.add(1 + len) = b'"';
            self.out.advance(len + 2);
        }
    }
    #[inline(always)]
    fn raw(&mut self, value: &[u8]) {
        self.out.extend(value)
    }
    #[expect(clippy::unreachable, reason = "the walker checks HAS_BIN, false for JSON")]
    fn ext(&mut self, _tag: i8, _data: &[u8]) {
        unreachable!("the walker sends extension types to default in JSON")
    }
    #[expect(clippy::unreachable, reason = "the walker checks HAS_BIN, false for JSON")]
    fn bin(&mut self, _value: &[u8]) {
        unreachable!("JSON has no binary type; the walker checks HAS_BIN")
    }
    #[expect(clippy::unreachable, reason = "the walker checks HAS_BIN, false for JSON")]
    fn ext_header(&mut self, _tag: i8, _len: usize) {
        unreachable!("the walker sends extension types to default in JSON")
    }
    #[expect(clippy::unreachable, reason = "the walker checks HAS_BIN, false for JSON")]
    fn bin_header(&mut self, _len: usize) {
        unreachable!("JSON has no binary type; the walker checks HAS_BIN")
    }
    #[expect(clippy::unreachable, reason = "the walker checks HAS_BIN, false for JSON")]
    fn raw_in_place(&mut self, _len: usize, _fill: impl FnOnce(*mut u8)) {
        unreachable!("only binary formats write payloads in place; the walker checks HAS_BIN")
    }
    #[inline(always)]
    fn position(&self) -> usize {
        self.out.len()
    }
    #[inline(always)]
    fn begin_array(&mut self, _len: usize) {
        self.open(b'[');
    }
    #[inline(always)]
    fn array_item(&mut self, index: usize) {
        self.item(index);
    }
    #[inline(always)]
    fn end_array(&mut self, len: usize) {
        self.close(b']', len);
    }
    #[inline(always)]
    fn begin_map(&mut self, _len: usize) {
        self.open(b'{');
    }
    #[inline(always)]
    fn map_key(&mut self, index: usize) {
        self.item(index);
    }
    #[inline(always)]
    fn map_value(&mut self) {
        if PRETTY {
            self.out.extend(b": ");
        } else {
            self.out.push(b':');
        }
    }
    #[inline(always)]
    fn end_map(&mut self, len: usize) {
        self.close(b'}', len);
    }
    #[inline(always)]
    fn empty_array(&mut self) {
        self.out.extend(b"[]");
    }
    #[inline(always)]
    fn empty_map(&mut self) {
        self.out.extend(b"{}");
    }
    #[inline]
    fn i64_items<T: Copy + Ord + Into<i64>>(&mut self, values: &[T]) {
        if PRETTY {
            return items_one_by_one(self, values, |w, v| w.i64(v.into()));
        }
        let width = decimal_width(core::mem::size_of::<T>()) + 1;
        if core::mem::size_of::<T>() == 1 {
            write_items(&mut self.out, values, width, |r, v| put_byte(r, &I8_TEXT, v.into() as u8));
        } else {
            let magnitude = |v: T| v.into().unsigned_abs();
            // A negative value as a number of 19 or 20 digits.
            let plain = |v: T| v.into() as u64;
            // The item writers as closures marked `inline(always)`: each chunk's
            // loop is a function of its own, into which they must be inlined
            // (a function item's call there stays a call when it is large).
            write_int_items(
                &mut self.out,
                values,
                width,
                magnitude,
                plain,
                #[inline(always)]
                |r, v| put_i64_pairs(r, v),
                #[inline(always)]
                |r, v| put_i64_digits(r, v),
            );
        }
    }
    #[inline]
    fn u64_items<T: Copy + Ord + Into<u64>>(&mut self, values: &[T]) {
        if PRETTY {
            return items_one_by_one(self, values, |w, v| w.u64(v.into()));
        }
        // One spare byte: `put_byte` stores four at a time.
        let width = decimal_width(core::mem::size_of::<T>()) + 1;
        if core::mem::size_of::<T>() == 1 {
            write_items(&mut self.out, values, width, |r, v| put_byte(r, &U8_TEXT, v.into() as u8));
        } else {
            let magnitude = |v: T| v.into();
            write_int_items(
                &mut self.out,
                values,
                width,
                magnitude,
                magnitude,
                #[inline(always)]
                |r, v| put_u64_pairs(r, v),
                #[inline(always)]
                |r, v| put_u64_digits(r, v),
            );
        }
    }
    #[inline]
    fn f64_items(&mut self, values: &[f64]) {
        if PRETTY {
            return items_one_by_one(self, values, |w, v| w.f64(v));
        }
        write_items(&mut self.out, values, F64_ITEM_RESERVE, put_f64);
    }
    /// One reservation for the brackets and every float (callers pass a
    /// few: see [`F64_RUN_CHUNK`] for long runs).
    #[inline(never)]
    fn f64_array(&mut self, values: &[f64]) {
        if PRETTY {
            self.begin_array(values.len());
            for (i, &v) in values.iter().enumerate() {
                self.array_item(i);
                self.f64(v);
            }
            self.end_array(values.len());
            return;
        }
        let need = 2 + values.len() * (1 + F64_IN_PLACE_MAX);
        if !self.out.reserve(need) {
            return;
        }
        let mut pause = self.short_pause;
        // SAFETY: `need` bytes reserved just above: the brackets, and for
        // each float at most a comma and F64_IN_PLACE_MAX bytes.
        unsafe {
            let start = self.out.tail();
            *start = b'[';
            let mut at = start.add(1);
            for (i, &v) in values.iter().enumerate() {
                // A comma before every float but the first.
                *at = b',';
                at = at.add((i != 0) as usize);
                at = at.add(f64_in_run_in_place(v, at, &mut pause));
            }
            *at = b']';
            self.out.advance(at.offset_from(start) as usize + 1);
        }
        self.short_pause = pause;
    }
    /// One reservation per [`F64_RUN_CHUNK`] floats instead of one for each
    /// float and each comma; the short path's pause stays in a register.
    #[inline(never)]
    fn f64_run(&mut self, index: usize, end: usize, value: impl Fn(usize) -> Option<f64>) -> usize {
        if PRETTY {
            return f64_run_one_by_one(self, index, end, value);
        }
        let mut pause = self.short_pause;
        let mut i = index;
        while i < end {
            let chunk_end = end.min(i + F64_RUN_CHUNK);
            let need = (chunk_end - i) * (1 + F64_IN_PLACE_MAX);
            if !self.out.reserve(need) {
                // The output has failed (the walker raises MemoryError at
                // the end of the array): nothing more can be written.
                return end;
            }
            // SAFETY: `need` bytes reserved just above: each float of the
            // chunk takes at most a comma and F64_IN_PLACE_MAX bytes.
            unsafe {
                let start = self.out.tail();
                let mut at = start;
                while i < chunk_end {
                    let Some(v) = value(i) else {
                        self.out.advance(at.offset_from(start) as usize);
                        self.short_pause = pause;
                        return i;
                    };
                    // A comma before every item but the array's first.
                    *at = b',';
                    at = at.add((i != 0) as usize);
                    at = at.add(f64_in_run_in_place(v, at, &mut pause));
                    i += 1;
                }
                self.out.advance(at.offset_from(start) as usize);
            }
        }
        self.short_pause = pause;
        i
    }
    /// As `f64_run`: one reservation per [`I64_RUN_CHUNK`] integers.
    #[inline(never)]
    fn i64_run(&mut self, index: usize, end: usize, value: impl Fn(usize) -> Option<i64>) -> usize {
        if PRETTY {
            return i64_run_one_by_one(self, index, end, value);
        }
        let mut i = index;
        while i < end {
            let chunk_end = end.min(i + I64_RUN_CHUNK);
            let need = (chunk_end - i) * (1 + int::MAX_LEN);
            if !self.out.reserve(need) {
                return end;
            }
            // SAFETY: `need` bytes reserved just above: each integer of the
            // chunk takes at most a comma and MAX_LEN bytes (the digit
            // writer's stores past its digits stay inside them).
            unsafe {
                let start = self.out.tail();
                let mut at = start;
                while i < chunk_end {
                    let Some(v) = value(i) else {
                        self.out.advance(at.offset_from(start) as usize);
                        return i;
                    };
                    *at = b',';
                    at = at.add((i != 0) as usize);
                    at = at.add(int::write_i64(at, v));
                    i += 1;
                }
                self.out.advance(at.offset_from(start) as usize);
            }
        }
        i
    }
    #[inline]
    fn bool_items(&mut self, values: &[u8]) {
        if PRETTY {
            return items_one_by_one(self, values, |w, v| w.bool(v != 0));
        }
        write_bool_items(&mut self.out, values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::{escaped_each_way, json_string as reference};

    fn json_str(t: Text) -> String {
        let mut v = Vec::new();
        write_str(&mut v, t).unwrap();
        let s = String::from_utf8(v).unwrap();
        assert_eq!(s, format!("\"{}\"", String::from_utf8(escaped_all_ways(t).unwrap()).unwrap()));
        s
    }

    /// `t`'s escaped UTF-8 (no quotes) through every transcoder, all agreeing.
    fn escaped_all_ways(t: Text) -> Result<Vec<u8>, SurrogateError> {
        let results = escaped_each_way(t);
        for w in results.windows(2) {
            assert_eq!(w[0].1, w[1].1, "{} and {} disagree on {t:?}", w[0].0, w[1].0);
        }
        results.into_iter().last().unwrap().1
    }

    #[test]
    fn escapes_like_orjson() {
        let s = "a\u{7f}\u{0}\u{1f}\"\\/\u{2028}é😀\u{8}\u{9}\u{a}\u{c}\u{d}";
        let expected = "\"a\u{7f}\\u0000\\u001f\\\"\\\\/\u{2028}é😀\\b\\t\\n\\f\\r\"";
        assert_eq!(json_str(Text::Utf8(s.as_bytes())), expected);
        let ucs4: Vec<u32> = s.chars().map(|c| c as u32).collect();
        assert_eq!(json_str(Text::Ucs4(&ucs4)), expected);
    }

    #[test]
    fn every_ascii_byte_at_every_offset() {
        // Each byte once inside a long clean run, so the 8-byte path meets it at every lane.
        for c in 0u8..0x80 {
            for pad in 0..17 {
                let mut s = "x".repeat(pad);
                s.push(c as char);
                s.push_str(&"y".repeat(20));
                let got = json_str(Text::Utf8(s.as_bytes()));
                let mut expected = String::from("\"");
                expected.push_str(&"x".repeat(pad));
                match c {
                    b'"' => expected.push_str("\\\""),
                    b'\\' => expected.push_str("\\\\"),
                    0x08 => expected.push_str("\\b"),
                    0x09 => expected.push_str("\\t"),
                    0x0a => expected.push_str("\\n"),
                    0x0c => expected.push_str("\\f"),
                    0x0d => expected.push_str("\\r"),
                    c if c < 0x20 => expected.push_str(&format!("\\u{:04x}", c)),
                    c => expected.push(c as char),
                }
                expected.push_str(&"y".repeat(20));
                expected.push('"');
                assert_eq!(got, expected, "byte {c:#x} after {pad}");
            }
        }
    }

    #[test]
    fn latin1_and_wide_widths() {
        let latin: Vec<u8> = "caf\u{e9} \u{ff}\"\n".chars().map(|c| c as u8).collect();
        assert_eq!(json_str(Text::Ucs1(&latin)), "\"café ÿ\\\"\\n\"");
        let long: Vec<u8> = std::iter::repeat_n(b"abcdefg\xe9".iter().copied(), 10).flatten().collect();
        let expected: String = "abcdefgé".repeat(10);
        assert_eq!(json_str(Text::Ucs1(&long)), format!("\"{expected}\""));
        let ucs2: Vec<u16> = "中文\t".encode_utf16().collect();
        assert_eq!(json_str(Text::Ucs2(&ucs2)), "\"中文\\t\"");
    }

    #[test]
    fn every_length_width_and_position() {
        // Strings of every length up to 70 (all block and tail sizes), with one
        // special or non-ASCII char at each position, in every storage width.
        let fillers = ['x', 'é', '中', '😀'];
        let specials = ['"', '\\', '\n', '\u{1}', '\u{1f}', ' ', '\u{7f}', 'é', '\u{ff}', '中', '\u{ffff}', '😀'];
        for len in 0..70 {
            for &filler in &fillers {
                for pos in 0..len.max(1) {
                    for &special in &specials {
                        let s: String = (0..len)
                            .map(|k| {
                                if k == pos {
                                    special
                                } else if k % 3 == 0 {
                                    filler
                                } else {
                                    'a'
                                }
                            })
                            .collect();
                        let expected = reference(&s);
                        assert_eq!(json_str(Text::Utf8(s.as_bytes())), expected, "utf8 {s:?}");
                        let ucs4: Vec<u32> = s.chars().map(|c| c as u32).collect();
                        assert_eq!(json_str(Text::Ucs4(&ucs4)), expected, "ucs4 {s:?}");
                        if s.chars().all(|c| (c as u32) < 0x10000) {
                            let ucs2: Vec<u16> = s.chars().map(|c| c as u16).collect();
                            assert_eq!(json_str(Text::Ucs2(&ucs2)), expected, "ucs2 {s:?}");
                        }
                        if s.chars().all(|c| (c as u32) < 0x100) {
                            let ucs1: Vec<u8> = s.chars().map(|c| c as u8).collect();
                            assert_eq!(json_str(Text::Ucs1(&ucs1)), expected, "ucs1 {s:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn dense_escapes_in_every_storage() {
        // Blocks where most bytes are escapes, of every kind, at every offset.
        let unit = "a\"b\\c\n\u{1}é\u{7f}\t";
        for pad in 0..20 {
            let s = format!("{}{}", "x".repeat(pad), unit.repeat(9));
            let expected = reference(&s);
            assert_eq!(json_str(Text::Utf8(s.as_bytes())), expected);
            let ucs1: Vec<u8> = s.chars().map(|c| c as u8).collect();
            assert_eq!(json_str(Text::Ucs1(&ucs1)), expected);
            let ucs2: Vec<u16> = s.chars().map(|c| c as u16).collect();
            assert_eq!(json_str(Text::Ucs2(&ucs2)), expected);
        }
    }

    #[test]
    fn output_fits_the_reservation_exactly() {
        // Escape-heavy text fills the worst case; the slack keeps whole-word
        // stores inside the buffer (a Vec checks nothing, so compare capacity).
        for len in 0..40 {
            let s = "\u{1}".repeat(len);
            let mut v: Vec<u8> = Vec::new();
            write_str(&mut v, Text::Utf8(s.as_bytes())).unwrap();
            assert_eq!(v.len(), 6 * len + 2);
            assert!(v.capacity() >= v.len());
        }
    }

    /// Long texts of each storage kind: escapes, non-ASCII and plain runs.
    fn long_texts(units: usize) -> Vec<Vec<u32>> {
        let pieces: [&[u32]; 4] =
            [&[0x61, 0x62, 0x22, 0x63], &[0xE9, 0x0A, 0x7A], &[0x4E2D, 0x5C, 0x01], &[0x1F600, 0x41]];
        (0..4)
            .map(|kind| (0..units).map(|k| pieces[k / 7 % (kind + 1)][k % pieces[k / 7 % (kind + 1)].len()]).collect())
            .collect()
    }

    fn as_text<'a>(units: &'a [u32], narrow: &'a mut (Vec<u8>, Vec<u16>)) -> Text<'a> {
        if units.iter().all(|&c| c < 0x100) {
            narrow.0 = units.iter().map(|&c| c as u8).collect();
            Text::Ucs1(&narrow.0)
        } else if units.iter().all(|&c| c < 0x10000) {
            narrow.1 = units.iter().map(|&c| c as u16).collect();
            Text::Ucs2(&narrow.1)
        } else {
            Text::Ucs4(units)
        }
    }

    #[test]
    fn long_texts_in_chunks_equal_whole() {
        for units in long_texts(300) {
            let mut narrow = Default::default();
            let text = as_text(&units, &mut narrow);
            let s: String = units.iter().map(|&c| char::from_u32(c).unwrap()).collect();
            let whole = reference(&s);
            for chunk in [1, 2, 3, 5, 16, 17, 64, 299, 300, 301] {
                let mut v = Vec::new();
                write_long_transcoded(&mut v, text, chunk).unwrap();
                assert_eq!(String::from_utf8(v).unwrap(), whole, "chunk {chunk}");
                let mut v = b"\"".to_vec();
                write_escaped_utf8_chunked(&mut v, s.as_bytes(), 0, chunk);
                assert_eq!(String::from_utf8(v).unwrap(), whole, "utf-8, chunk {chunk}");
            }
        }
    }

    #[test]
    fn long_text_with_a_late_surrogate_takes_back_what_it_wrote() {
        let mut units: Vec<u16> = (0..300).map(|k| [0x61, 0x4E2D, 0x0A][k % 3]).collect();
        units[250] = 0xDC00;
        for chunk in [1, 7, 64] {
            let mut v = b"[1,".to_vec();
            assert_eq!(write_long_transcoded(&mut v, Text::Ucs2(&units), chunk), Err(SurrogateError));
            assert_eq!(v, b"[1,");
        }
    }

    #[test]
    fn long_texts_reserve_a_chunk_at_a_time() {
        // Escape-heavy texts much longer than a chunk: the most asked for at
        // once is a chunk's worst case, not the text's.
        for units in long_texts(5 * CHUNK) {
            let mut narrow = Default::default();
            let text = as_text(&units, &mut narrow);
            let mut sink = crate::testing::LimitedSink::new(usize::MAX);
            write_str(&mut sink, text).unwrap();
            sink.check_guard();
            assert!(sink.max_reserve <= CHUNK * MAX_ESCAPED_PER_UNIT + SLACK + 2, "{}", sink.max_reserve);
            let mut v = Vec::new();
            write_str(&mut v, text).unwrap();
            assert_eq!(sink.out, v);
        }
        let utf8 = "\n".repeat(3 * CHUNK);
        let mut sink = crate::testing::LimitedSink::new(usize::MAX);
        write_str(&mut sink, Text::Utf8(utf8.as_bytes())).unwrap();
        assert!(sink.max_reserve <= CHUNK * MAX_ESCAPED_PER_UNIT + SLACK + 2 + 16);
        assert_eq!(sink.out.len(), 2 * 3 * CHUNK + 2);
    }

    #[test]
    fn out_of_room_writes_nothing_past_it() {
        // Every budget up to the whole output: a write either fits, or the
        // sink fails and nothing is written past what was reserved; when it
        // does not fail the output is the usual one.
        let long: Vec<u16> = (0..3000).map(|k| [0x61, 0x4E2D, 0x0A, 0x22][k % 4]).collect();
        let run = |w: &mut CompactJsonWriter<crate::testing::LimitedSink>| {
            sample_events(w);
            w.begin_array(4);
            w.array_item(0);
            w.str(Text::Ucs2(&long)).unwrap();
            w.array_item(1);
            w.utf8("x\n".repeat(500).as_bytes());
            w.array_item(2);
            w.f64_items(&[1.5; 700]);
            w.array_item(3);
            w.ascii_in_place::<40>(|at| {
                // SAFETY: 40 writable bytes.
                unsafe { core::ptr::write_bytes(at, b'7', 40) };
                40
            });
            w.end_array(4);
            w.f64_array(&[-65.61361699999998, 1e300, f64::NAN]);
            w.begin_array(100);
            let end = w.f64_run(0, 100, |i| Some(i as f64 * -1.1e-7));
            assert_eq!(end, 100);
            w.end_array(100);
            w.begin_map(2);
            w.utf8_entry_key(0, b"key");
            w.null();
            w.utf8_entry_key(1, "k\u{e9}\n".as_bytes());
            w.null();
            w.end_map(2);
        };
        let mut full = CompactJsonWriter::new(crate::testing::LimitedSink::new(usize::MAX));
        run(&mut full);
        assert!(!full.out.failed());
        for budget in (0..full.out.out.len() + 64).step_by(37) {
            let mut w = CompactJsonWriter::new(crate::testing::LimitedSink::new(budget));
            run(&mut w);
            w.out.check_guard();
            if !w.failed() {
                assert_eq!(w.out.out, full.out.out, "budget {budget}");
            }
            assert!(w.out.out.len() <= budget);
        }
    }

    #[test]
    fn surrogates_are_errors() {
        let mut v = Vec::new();
        assert_eq!(write_str(&mut v, Text::Ucs2(&[0x61, 0xDC00])), Err(SurrogateError));
    }

    /// Code points at each UTF-8 length boundary, escapes among them.
    const CLASSES: [u32; 24] = [
        0x00, 0x01, 0x08, 0x1F, 0x20, 0x22, 0x5C, 0x61, 0x7E, 0x7F, 0x80, 0xA9, 0xFF, 0x100, 0x7FF, 0x800, 0x4E2D,
        0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF, 0x3B1,
    ];

    /// `units` in every storage width it fits, against the reference and
    /// through every transcoder.
    fn check_every_width(units: &[u32]) {
        let s: String = units.iter().map(|&c| char::from_u32(c).unwrap()).collect();
        let expected = reference(&s);
        assert_eq!(json_str(Text::Ucs4(units)), expected, "ucs4 {s:?}");
        if units.iter().all(|&c| c < 0x10000) {
            let ucs2: Vec<u16> = units.iter().map(|&c| c as u16).collect();
            assert_eq!(json_str(Text::Ucs2(&ucs2)), expected, "ucs2 {s:?}");
        }
        if units.iter().all(|&c| c < 0x100) {
            let ucs1: Vec<u8> = units.iter().map(|&c| c as u8).collect();
            assert_eq!(json_str(Text::Ucs1(&ucs1)), expected, "ucs1 {s:?}");
        }
    }

    #[test]
    fn transcoders_every_class_and_length() {
        // Every length to 100 (each block size, tail and overlap of the
        // transcoders): runs of one class, one class among ASCII at every
        // position, and a rolling mix of all classes.
        for len in 0..100usize {
            for (j, &c) in CLASSES.iter().enumerate() {
                check_every_width(&vec![c; len]);
                for pos in (0..len).step_by(1 + len / 40) {
                    let units: Vec<u32> =
                        (0..len).map(|k| if k == pos { c } else { b'a' as u32 + (k % 26) as u32 }).collect();
                    check_every_width(&units);
                }
                let mixed: Vec<u32> = (0..len).map(|k| CLASSES[(k * 7 + j + k / 5) % CLASSES.len()]).collect();
                check_every_width(&mixed);
                let narrow: Vec<u32> = mixed.iter().map(|&c| if c < 0x100 { c } else { c & 0xFF }).collect();
                check_every_width(&narrow);
            }
        }
    }

    #[test]
    fn transcoders_refuse_lone_surrogates_everywhere() {
        for len in 1..70usize {
            for pos in 0..len {
                for surrogate in [0xD800u32, 0xDBFF, 0xDC00, 0xDFFF] {
                    for filler in [0x61u32, 0x22, 0xE9, 0x4E2D, 0x1F600] {
                        let units: Vec<u32> = (0..len).map(|k| if k == pos { surrogate } else { filler }).collect();
                        assert_eq!(escaped_all_ways(Text::Ucs4(&units)), Err(SurrogateError), "{units:x?}");
                        if filler < 0x10000 {
                            let ucs2: Vec<u16> = units.iter().map(|&c| c as u16).collect();
                            assert_eq!(escaped_all_ways(Text::Ucs2(&ucs2)), Err(SurrogateError), "{ucs2:x?}");
                            let mut v = Vec::new();
                            assert_eq!(write_str(&mut v, Text::Ucs2(&ucs2)), Err(SurrogateError));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn integers() {
        let mut v = Vec::new();
        write_i64(&mut v, i64::MIN);
        v.push(b' ');
        write_u64(&mut v, u64::MAX);
        assert_eq!(v, b"-9223372036854775808 18446744073709551615");
    }

    #[test]
    fn emitter_events_make_compact_json() {
        let mut w = CompactJsonWriter::new(Vec::new());
        w.begin_map(2);
        w.map_key(0);
        w.key(Text::Utf8(b"a")).unwrap();
        w.map_value();
        w.begin_array(2);
        w.array_item(0);
        w.null();
        w.array_item(1);
        w.bool(true);
        w.end_array(2);
        w.map_key(1);
        w.key(Text::Utf8(b"b")).unwrap();
        w.map_value();
        w.f64(2.5);
        w.end_map(2);
        assert_eq!(w.out, br#"{"a":[null,true],"b":2.5}"#);
    }

    /// `{"a": [null, true, []], "b": {}, "c": 2.5}` through the emitter events.
    fn sample_events<E: Emitter>(w: &mut E) {
        w.begin_map(3);
        w.map_key(0);
        w.key(Text::Utf8(b"a")).unwrap();
        w.map_value();
        w.begin_array(3);
        w.array_item(0);
        w.null();
        w.array_item(1);
        w.bool(true);
        w.array_item(2);
        w.begin_array(0);
        w.end_array(0);
        w.end_array(3);
        w.map_key(1);
        w.key(Text::Utf8(b"b")).unwrap();
        w.map_value();
        w.begin_map(0);
        w.end_map(0);
        w.map_key(2);
        w.key(Text::Utf8(b"c")).unwrap();
        w.map_value();
        w.f64(2.5);
        w.end_map(3);
    }

    #[test]
    fn pretty_events_indent_like_orjson() {
        let mut w = PrettyJsonWriter::new(Vec::new());
        sample_events(&mut w);
        let expected = "{\n  \"a\": [\n    null,\n    true,\n    []\n  ],\n  \"b\": {},\n  \"c\": 2.5\n}";
        assert_eq!(String::from_utf8(w.out).unwrap(), expected);
    }

    #[test]
    fn compact_and_pretty_differ_only_in_whitespace() {
        let mut compact = CompactJsonWriter::new(Vec::new());
        sample_events(&mut compact);
        assert_eq!(compact.out, br#"{"a":[null,true,[]],"b":{},"c":2.5}"#);
        let mut pretty = PrettyJsonWriter::new(Vec::new());
        sample_events(&mut pretty);
        let mut stripped = pretty.out.clone();
        stripped.retain(|&b| b != b' ' && b != b'\n');
        assert_eq!(stripped, compact.out);
    }

    /// Floats of every kind the writers tell apart: short decimals (the
    /// exact path), long ones (zmij), both ends of the short range, the
    /// exponent forms, signed zeros and the non-finite ones (`null`).
    fn float_sample(rng: &mut crate::testing::Rng) -> f64 {
        match rng.below(8) {
            0 | 1 => (rng.below(2_000_000_000) as f64 - 1e9) / 10f64.powi(rng.below(7) as i32),
            2 | 3 => f64::from_bits(rng.next_u64()),
            4 => (rng.below(1 << 40) as f64 - (1u64 << 39) as f64) / 7.0,
            5 => {
                [0.0, -0.0, 2f64.powi(-11), 4294967295.999999, 2f64.powi(32), 1e16, 1e-7, 5e-324][rng.below(8) as usize]
            }
            6 => [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][rng.below(3) as usize],
            _ => -65.61361699999998 + rng.below(1000) as f64,
        }
    }

    /// What a writer makes of an array of `values` event by event, with
    /// `None` standing for an item that is not a float (written as `0`).
    fn one_by_one<E: Emitter>(w: &mut E, values: &[Option<f64>]) {
        w.begin_array(values.len());
        for (i, v) in values.iter().enumerate() {
            w.array_item(i);
            match v {
                Some(x) => w.f64(*x),
                None => w.i64(0),
            }
        }
        w.end_array(values.len());
    }

    /// The same array through `f64_run` for its runs of floats.
    fn by_runs<E: Emitter>(w: &mut E, values: &[Option<f64>]) {
        w.begin_array(values.len());
        let mut i = 0;
        while i < values.len() {
            if values[i].is_some() {
                let end = w.f64_run(i, values.len(), |j| values[j]);
                assert!(end > i && (end == values.len() || values[end].is_none()));
                i = end;
                continue;
            }
            w.array_item(i);
            w.i64(0);
            i += 1;
        }
        w.end_array(values.len());
    }

    #[test]
    fn float_arrays_and_runs_equal_floats_one_by_one() {
        // Arrays of every length up to past two chunks of a run, floats of
        // every kind, some with items that are not floats; one writer for
        // many arrays, so the short path's pause carries over from one to
        // the next as it does one float at a time.
        let mut rng = crate::testing::Rng::new(0x5EED_F10A);
        let (mut a, mut b, mut c) = (
            CompactJsonWriter::new(Vec::new()),
            CompactJsonWriter::new(Vec::new()),
            CompactJsonWriter::new(Vec::new()),
        );
        let (mut pa, mut pb) = (PrettyJsonWriter::new(Vec::new()), PrettyJsonWriter::new(Vec::new()));
        for round in 0..400 {
            let len = if round < 3 * F64_RUN_CHUNK { round } else { rng.below(3 * F64_RUN_CHUNK as u64 + 2) as usize };
            let mixed = round % 3 == 2;
            let values: Vec<Option<f64>> =
                (0..len).map(|_| (!mixed || rng.below(4) != 0).then(|| float_sample(&mut rng))).collect();
            one_by_one(&mut a, &values);
            by_runs(&mut b, &values);
            one_by_one(&mut pa, &values);
            by_runs(&mut pb, &values);
            if !mixed && (1..=8).contains(&len) {
                let floats: Vec<f64> = values.iter().map(|v| v.unwrap()).collect();
                c.f64_array(&floats);
                pa.f64_array(&floats);
                one_by_one(&mut pb, &values);
            } else {
                one_by_one(&mut c, &values);
            }
            assert_eq!(a.out, b.out, "round {round}: {values:?}");
            assert_eq!(a.out, c.out, "round {round}: {values:?}");
            assert_eq!(pa.out, pb.out, "round {round}: {values:?}");
        }
        // Every kind was met: the exact path's text, zmij's and null.
        let text = String::from_utf8(a.out).unwrap();
        assert!(text.contains(",4294967295.999999") && text.contains("e+") && text.contains("null"));
    }

    #[test]
    fn entry_keys_in_one_step_equal_the_events() {
        // Clean keys of every length around the block sizes, and keys with
        // something to escape at every place, first and later in a map.
        let mut keys: Vec<String> = (0..70).map(|n| "k".repeat(n)).collect();
        for n in 0..40 {
            for piece in ["\"", "\\", "\n", "\u{1}", "\u{e9}", "\u{1F600}"] {
                keys.push(format!("{}{piece}{}", "a".repeat(n), "b".repeat(n % 7)));
            }
        }
        for key in &keys {
            let (mut a, mut b) = (CompactJsonWriter::new(Vec::new()), CompactJsonWriter::new(Vec::new()));
            let (mut pa, mut pb) = (PrettyJsonWriter::new(Vec::new()), PrettyJsonWriter::new(Vec::new()));
            a.begin_map(2);
            b.begin_map(2);
            pa.begin_map(2);
            pb.begin_map(2);
            for index in 0..2 {
                a.map_key(index);
                a.utf8_key(key.as_bytes());
                a.map_value();
                a.null();
                b.utf8_entry_key(index, key.as_bytes());
                b.null();
                pa.map_key(index);
                pa.utf8_key(key.as_bytes());
                pa.map_value();
                pa.null();
                pb.utf8_entry_key(index, key.as_bytes());
                pb.null();
            }
            a.end_map(2);
            b.end_map(2);
            pa.end_map(2);
            pb.end_map(2);
            assert_eq!(a.out, b.out, "{key:?}");
            assert_eq!(pa.out, pb.out, "{key:?}");
        }
    }

    #[test]
    fn pretty_scalars_and_deep_nesting() {
        let mut w = PrettyJsonWriter::new(Vec::new());
        w.i64(-3);
        assert_eq!(w.out, b"-3");
        let mut w = PrettyJsonWriter::new(Vec::new());
        for _ in 0..300 {
            w.begin_array(1);
            w.array_item(0);
        }
        w.null();
        for _ in 0..300 {
            w.end_array(1);
        }
        let text = String::from_utf8(w.out).unwrap();
        assert!(text.contains(&format!("\n{}null\n{}]", " ".repeat(600), " ".repeat(598))));
        assert!(text.ends_with("\n  ]\n]"));
    }
}

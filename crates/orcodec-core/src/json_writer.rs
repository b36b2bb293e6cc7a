//! The JSON backend: RFC 8259 text, byte for byte what orjson writes.

use crate::emit::Emitter;
use crate::sink::Sink;
use crate::text::{is_surrogate, put_code_point, SurrogateError, Text};

/// For each byte below 0x80: 0 if it stands as it is in a JSON string, else the
/// letter after the backslash (`u` meaning `\u00XX`).
static ESCAPE: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut i = 0;
    while i < 0x20 {
        table[i] = b'u';
        i += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0A] = b'n';
    table[0x0C] = b'f';
    table[0x0D] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

static HEX: &[u8; 16] = b"0123456789abcdef";

/// Most bytes one code unit can become: `\u00XX` is six.
const MAX_ESCAPED_PER_UNIT: usize = 6;

/// Writes the escape for ASCII byte `c`, which needs one, at `out`.
///
/// # Safety
/// `out` must have room for 6 bytes.
#[inline(always)]
unsafe fn put_escape(out: *mut u8, c: u8) -> *mut u8 {
    let e = ESCAPE[c as usize];
    *out = b'\\';
    *out.add(1) = e;
    if e != b'u' {
        return out.add(2);
    }
    *out.add(2) = b'0';
    *out.add(3) = b'0';
    *out.add(4) = HEX[(c >> 4) as usize];
    *out.add(5) = HEX[(c & 0xF) as usize];
    out.add(6)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of the result is set where `word` has a byte that needs
/// escaping (< 0x20, `"` or `\`) or, with `stop_at_non_ascii`, a byte >= 0x80.
/// Bits above the first set one may be false positives; the first is exact.
#[inline(always)]
pub(crate) fn special_bytes(word: u64, stop_at_non_ascii: bool) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = (word ^ (ONES * b'"' as u64)).wrapping_sub(ONES) & !(word ^ (ONES * b'"' as u64));
    let backslash =
        (word ^ (ONES * b'\\' as u64)).wrapping_sub(ONES) & !(word ^ (ONES * b'\\' as u64));
    let mut mask = control | quote | backslash;
    if stop_at_non_ascii {
        mask |= word;
    }
    mask & HIGHS
}

/// Escapes UTF-8 (or ASCII) text. Returns the new end.
///
/// # Safety
/// `out` must have room for `6 * src.len()` bytes.
#[inline]
unsafe fn escape_utf8(src: &[u8], mut out: *mut u8) -> *mut u8 {
    let mut i = 0;
    let n = src.len();
    let p = src.as_ptr();
    while i < n {
        // Eight bytes at a time while none of them needs escaping.
        while i + 8 <= n {
            let word = u64::from_le_bytes(*(p.add(i) as *const [u8; 8]));
            core::ptr::copy_nonoverlapping(p.add(i), out, 8);
            let mask = special_bytes(word, false);
            if mask == 0 {
                i += 8;
                out = out.add(8);
            } else {
                let clean = (mask.trailing_zeros() / 8) as usize;
                i += clean;
                out = out.add(clean);
                break;
            }
        }
        if i >= n {
            break;
        }
        let c = *p.add(i);
        if c < 0x80 && ESCAPE[c as usize] != 0 {
            out = put_escape(out, c);
        } else {
            *out = c;
            out = out.add(1);
        }
        i += 1;
    }
    out
}

/// Escapes Latin-1 text (at least one byte >= 0x80) into UTF-8.
///
/// # Safety
/// `out` must have room for `6 * src.len()` bytes.
#[inline]
unsafe fn escape_ucs1(src: &[u8], mut out: *mut u8) -> *mut u8 {
    let mut i = 0;
    let n = src.len();
    let p = src.as_ptr();
    while i < n {
        while i + 8 <= n {
            let word = u64::from_le_bytes(*(p.add(i) as *const [u8; 8]));
            core::ptr::copy_nonoverlapping(p.add(i), out, 8);
            let mask = special_bytes(word, true);
            if mask == 0 {
                i += 8;
                out = out.add(8);
            } else {
                let clean = (mask.trailing_zeros() / 8) as usize;
                i += clean;
                out = out.add(clean);
                break;
            }
        }
        if i >= n {
            break;
        }
        let c = *p.add(i);
        if c >= 0x80 {
            *out = 0xC0 | (c >> 6);
            *out.add(1) = 0x80 | (c & 0x3F);
            out = out.add(2);
        } else if ESCAPE[c as usize] != 0 {
            out = put_escape(out, c);
        } else {
            *out = c;
            out = out.add(1);
        }
        i += 1;
    }
    out
}

/// Escapes UCS2 or UCS4 code units into UTF-8.
///
/// # Safety
/// `out` must have room for `6 * src.len()` bytes.
#[inline]
unsafe fn escape_wide<T: Copy + Into<u32>>(
    src: &[T],
    mut out: *mut u8,
) -> Result<*mut u8, SurrogateError> {
    for &unit in src {
        let c: u32 = unit.into();
        if c < 0x80 {
            let b = c as u8;
            if ESCAPE[b as usize] != 0 {
                out = put_escape(out, b);
            } else {
                *out = b;
                out = out.add(1);
            }
        } else if is_surrogate(c) {
            return Err(SurrogateError);
        } else {
            out = put_code_point(out, c);
        }
    }
    Ok(out)
}

/// Writes `text` as a quoted, escaped JSON string.
#[inline]
pub fn write_str<S: Sink>(out: &mut S, text: Text<'_>) -> Result<(), SurrogateError> {
    out.reserve(text.units() * MAX_ESCAPED_PER_UNIT + 2);
    // SAFETY: room for the worst case (every unit escaped, plus quotes) was
    // reserved above; each escape function writes at most 6 bytes per unit.
    unsafe {
        let start = out.tail();
        *start = b'"';
        let body = start.add(1);
        let end = match text {
            Text::Utf8(s) => escape_utf8(s, body),
            Text::Ucs1(s) => escape_ucs1(s, body),
            Text::Ucs2(s) => escape_wide(s, body)?,
            Text::Ucs4(s) => escape_wide(s, body)?,
        };
        *end = b'"';
        out.advance(end.offset_from(start) as usize + 1);
    }
    Ok(())
}

/// Writes ASCII text that needs no escaping, quoted.
#[inline]
pub fn write_ascii<S: Sink>(out: &mut S, text: &[u8]) {
    debug_assert!(text.iter().all(|&b| b >= 0x20 && b < 0x80 && b != b'"' && b != b'\\'));
    out.reserve(text.len() + 2);
    // SAFETY: `len + 2` bytes reserved just above.
    unsafe {
        let at = out.tail();
        *at = b'"';
        core::ptr::copy_nonoverlapping(text.as_ptr(), at.add(1), text.len());
        *at.add(text.len() + 1) = b'"';
        out.advance(text.len() + 2);
    }
}

#[inline]
pub fn write_i64<S: Sink>(out: &mut S, value: i64) {
    out.extend(itoa::Buffer::new().format(value).as_bytes());
}

#[inline]
pub fn write_u64<S: Sink>(out: &mut S, value: u64) {
    out.extend(itoa::Buffer::new().format(value).as_bytes());
}

/// Shortest text that parses back to `value`; NaN and infinities become `null`
/// (JSON has no spelling for them, and orjson writes null). Positive exponents
/// carry a `+` (`1e+16`), as orjson writes them.
#[inline]
pub fn write_f64<S: Sink>(out: &mut S, value: f64) {
    if !value.is_finite() {
        out.extend(b"null");
        return;
    }
    let mut buf = ryu::Buffer::new();
    extend_with_signed_exponent(out, buf.format_finite(value).as_bytes());
}

/// As [`write_f64`], for single precision: the shortest text that parses back
/// to the same `f32` (numpy float32), like orjson.
#[inline]
pub fn write_f32<S: Sink>(out: &mut S, value: f32) {
    if !value.is_finite() {
        out.extend(b"null");
        return;
    }
    let mut buf = ryu::Buffer::new();
    extend_with_signed_exponent(out, buf.format_finite(value).as_bytes());
}

/// Appends ryu's `text`, with a `+` after an `e` not followed by `-`.
#[inline(always)]
fn extend_with_signed_exponent<S: Sink>(out: &mut S, text: &[u8]) {
    match text.iter().position(|&b| b == b'e') {
        Some(e) if text.get(e + 1) != Some(&b'-') => {
            out.extend(&text[..=e]);
            out.push(b'+');
            out.extend(&text[e + 1..]);
        }
        _ => out.extend(text),
    }
}

/// The JSON backend, writing into a [`Sink`]: compact, or with `PRETTY`
/// indented like orjson's `OPT_INDENT_2` (two spaces per level, `": "` after
/// keys, empty containers kept as `[]`/`{}`). `PRETTY` is a const parameter so
/// the compact writer carries no indentation branches at all.
pub struct JsonWriter<S: Sink, const PRETTY: bool> {
    pub out: S,
    /// Open containers; only maintained when `PRETTY`.
    depth: usize,
}

pub type CompactJsonWriter<S> = JsonWriter<S, false>;
pub type PrettyJsonWriter<S> = JsonWriter<S, true>;

impl<S: Sink, const PRETTY: bool> JsonWriter<S, PRETTY> {
    pub fn new(out: S) -> Self {
        JsonWriter { out, depth: 0 }
    }

    /// A newline and the indentation of the current depth.
    #[inline(always)]
    fn newline(&mut self) {
        let n = 1 + 2 * self.depth;
        self.out.reserve(n);
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
        write_f64(&mut self.out, value)
    }
    #[inline(always)]
    fn str(&mut self, value: Text<'_>) -> Result<(), SurrogateError> {
        write_str(&mut self.out, value)
    }
    #[inline(always)]
    fn key(&mut self, value: Text<'_>) -> Result<(), SurrogateError> {
        write_str(&mut self.out, value)
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
    fn ascii_key(&mut self, value: &[u8]) {
        write_ascii(&mut self.out, value)
    }
    #[inline(always)]
    fn raw(&mut self, value: &[u8]) {
        self.out.extend(value)
    }
    fn ext(&mut self, _tag: i8, _data: &[u8]) {
        unreachable!("the walker sends extension types to default in JSON")
    }
    fn bin(&mut self, _value: &[u8]) {
        unreachable!("JSON has no binary type; the walker checks HAS_BIN")
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_str(t: Text) -> String {
        let mut v = Vec::new();
        write_str(&mut v, t).unwrap();
        String::from_utf8(v).unwrap()
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
        let long: Vec<u8> = std::iter::repeat(b"abcdefg\xe9".iter().copied()).take(10).flatten().collect();
        let expected: String = std::iter::repeat("abcdefgé").take(10).collect();
        assert_eq!(json_str(Text::Ucs1(&long)), format!("\"{expected}\""));
        let ucs2: Vec<u16> = "中文\t".encode_utf16().collect();
        assert_eq!(json_str(Text::Ucs2(&ucs2)), "\"中文\\t\"");
    }

    #[test]
    fn surrogates_are_errors() {
        let mut v = Vec::new();
        assert_eq!(write_str(&mut v, Text::Ucs2(&[0x61, 0xDC00])), Err(SurrogateError));
    }

    fn float(x: f64) -> String {
        let mut v = Vec::new();
        write_f64(&mut v, x);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn floats() {
        assert_eq!(float(1.0), "1.0");
        assert_eq!(float(0.1), "0.1");
        assert_eq!(float(-0.0), "-0.0");
        assert_eq!(float(1e16), "1e+16");
        assert_eq!(float(1e-7), "1e-7");
        assert_eq!(float(5e-324), "5e-324");
        assert_eq!(float(f64::MAX), "1.7976931348623157e+308");
        assert_eq!(float(f64::NAN), "null");
        assert_eq!(float(f64::NEG_INFINITY), "null");
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

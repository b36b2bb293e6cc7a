//! The MessagePack backend: the smallest encoding of each value, byte for byte
//! what `msgpack.packb(obj, use_bin_type=True)` writes (floats as float64).

use crate::emit::Emitter;
use crate::json::rows::write_rows;
use crate::sink::{Sink, CHUNK};
use crate::text::{copy_bytes, SurrogateError, Text, WRITE_SLACK};

#[inline(always)]
fn put<S: Sink, const N: usize>(out: &mut S, bytes: [u8; N]) {
    out.extend(&bytes);
}

#[inline(always)]
fn marker_be16(marker: u8, n: u16) -> [u8; 3] {
    let b = n.to_be_bytes();
    [marker, b[0], b[1]]
}

#[inline(always)]
fn marker_be32(marker: u8, n: u32) -> [u8; 5] {
    let b = n.to_be_bytes();
    [marker, b[0], b[1], b[2], b[3]]
}

#[inline]
pub fn write_u64<S: Sink>(out: &mut S, v: u64) {
    if v < 0x80 {
        out.push(v as u8);
    } else if v <= u8::MAX as u64 {
        put(out, [0xcc, v as u8]);
    } else if v <= u16::MAX as u64 {
        put(out, marker_be16(0xcd, v as u16));
    } else if v <= u32::MAX as u64 {
        put(out, marker_be32(0xce, v as u32));
    } else {
        let b = v.to_be_bytes();
        put(out, [0xcf, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    }
}

/// Non-negative values take the unsigned forms, as msgpack-python does.
#[inline]
pub fn write_i64<S: Sink>(out: &mut S, v: i64) {
    if v >= 0 {
        write_u64(out, v as u64);
    } else if v >= -32 {
        out.push(v as u8);
    } else if v >= i8::MIN as i64 {
        put(out, [0xd0, v as u8]);
    } else if v >= i16::MIN as i64 {
        put(out, marker_be16(0xd1, v as u16));
    } else if v >= i32::MIN as i64 {
        put(out, marker_be32(0xd2, v as u32));
    } else {
        let b = v.to_be_bytes();
        put(out, [0xd3, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    }
}

#[inline]
pub fn write_f64<S: Sink>(out: &mut S, v: f64) {
    let b = v.to_be_bytes();
    put(out, [0xcb, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
}

/// Header bytes a str of `len` UTF-8 bytes needs.
#[inline(always)]
fn str_header_len(len: usize) -> usize {
    match len {
        0..=31 => 1,
        32..=0xff => 2,
        0x100..=0xffff => 3,
        _ => 5,
    }
}

/// Writes a str header for `len` bytes at `at`, which has room for it.
///
/// # Safety
/// `at` must have room for `str_header_len(len)` bytes.
#[inline(always)]
unsafe fn put_str_header(at: *mut u8, len: usize) {
    match len {
        0..=31 => *at = 0xa0 | len as u8,
        32..=0xff => {
            *at = 0xd9;
            *at.add(1) = len as u8;
        }
        0x100..=0xffff => {
            let b = (len as u16).to_be_bytes();
            *at = 0xda;
            *at.add(1) = b[0];
            *at.add(2) = b[1];
        }
        _ => {
            let b = (len as u32).to_be_bytes();
            *at = 0xdb;
            core::ptr::copy_nonoverlapping(b.as_ptr(), at.add(1), 4);
        }
    }
}

/// Writes `text` as str. Strings too long for str32 are the caller's concern
/// (a Python str is never 4 GiB in practice; the walker checks).
///
/// Text already in UTF-8 (ASCII strs, and strs whose UTF-8 form CPython has
/// cached) is the common case and is inlined into the walker: a header and a
/// copy. The other widths are transcoded out of line.
#[inline(always)]
pub fn write_str<S: Sink>(out: &mut S, text: Text<'_>) -> Result<(), SurrogateError> {
    match text {
        Text::Utf8(bytes) => {
            write_utf8(out, bytes);
            Ok(())
        }
        _ => write_transcoded(out, text),
    }
}

/// Writes UTF-8 `bytes` (shorter than 2**32) as str.
#[inline(always)]
pub fn write_utf8<S: Sink>(out: &mut S, bytes: &[u8]) {
    let len = bytes.len();
    if len < 32 {
        // fixstr, the usual map key: one byte of header, and a copy made of
        // at most two overlapping loads and stores instead of a memcpy call.
        if !out.reserve(1 + len) {
            return;
        }
        // SAFETY: `1 + len` bytes reserved just above.
        unsafe {
            let at = out.tail();
            *at = 0xa0 | len as u8;
            copy_bytes(bytes, at.add(1));
            out.advance(1 + len);
        }
    } else {
        write_ascii(out, bytes);
    }
}

/// Writes UCS1/UCS2/UCS4 text as str, transcoding it to UTF-8.
#[inline(never)]
fn write_transcoded<S: Sink>(out: &mut S, text: Text<'_>) -> Result<(), SurrogateError> {
    if text.units() > CHUNK {
        return write_long_transcoded(out, text, CHUNK);
    }
    let (min, max) = text.utf8_len_bounds();
    let guessed = str_header_len(max);
    if !out.reserve(guessed + max + WRITE_SLACK) {
        return Ok(());
    }
    // SAFETY: `guessed + max + WRITE_SLACK` bytes are reserved; the UTF-8 form
    // is at most `max` bytes (the transcoders may scribble up to WRITE_SLACK
    // past it) and its header at most `guessed` (the header only grows with
    // length).
    unsafe {
        let start = out.tail();
        let len = text.write_utf8(start.add(guessed))?;
        let header = str_header_len(len);
        if header != guessed {
            // The text came out shorter than its bound and needs a smaller header:
            // slide it down. Only when min and max straddle a header size.
            debug_assert!(str_header_len(min) <= header);
            core::ptr::copy(start.add(guessed), start.add(header), len);
        }
        put_str_header(start, len);
        out.advance(header + len);
    }
    Ok(())
}

/// [`write_transcoded`] for a text of more than `chunk` (at least 2**16)
/// units: its UTF-8 form is then longer than 0xffff bytes, so its header is
/// a str32's five bytes, filled in once the length is known. Transcoded a
/// chunk at a time, so the room asked for is a chunk's worst case, not the
/// text's. A lone surrogate takes back what was written.
#[cold]
fn write_long_transcoded<S: Sink>(out: &mut S, text: Text<'_>, chunk: usize) -> Result<(), SurrogateError> {
    debug_assert!(text.units() > 0xffff);
    let before = out.len();
    out.extend(&[0xdb, 0, 0, 0, 0]);
    let mut start = 0;
    while start < text.units() {
        let piece = text.slice(start, text.units().min(start + chunk));
        if !out.reserve(piece.utf8_len_bounds().1 + WRITE_SLACK) {
            return Ok(());
        }
        // SAFETY: room for the piece's longest UTF-8 form and the slack.
        match unsafe { piece.write_utf8(out.tail()) } {
            // SAFETY: the transcoder wrote `n` bytes into the room.
            Ok(n) => unsafe { out.advance(n) },
            Err(error) => {
                out.truncate(before);
                return Err(error);
            }
        }
        start += piece.units();
    }
    let len = out.len() - before - 5;
    // SAFETY: the header's five bytes were written at `before`, and the
    // bytes written so far are contiguous and end at `tail()`.
    unsafe { put_str_header(out.tail().sub(len + 5), len) };
    Ok(())
}

/// Writes ASCII (or any UTF-8) text, shorter than 2**32 bytes, as str.
#[inline]
pub fn write_ascii<S: Sink>(out: &mut S, text: &[u8]) {
    let len = text.len();
    let header = str_header_len(len);
    if !out.reserve(header + len) {
        return;
    }
    if len >= crate::sink::BULK {
        out.bulk(header + len);
    }
    // SAFETY: `header + len` bytes reserved just above.
    unsafe {
        let at = out.tail();
        put_str_header(at, len);
        core::ptr::copy_nonoverlapping(text.as_ptr(), at.add(header), len);
        out.advance(header + len);
    }
}

/// Bytes of the header of an extension value with a payload of `len` bytes.
#[inline]
pub fn ext_header_len(len: usize) -> usize {
    match len {
        1 | 2 | 4 | 8 | 16 => 2,
        0..=0xff => 3,
        0x100..=0xffff => 4,
        _ => 6,
    }
}

/// Writes the header of an extension value whose `len` payload bytes follow:
/// fixext for payloads of 1, 2, 4, 8 and 16 bytes, else ext8/16/32, as
/// msgpack-python does. `len` is below 2**32.
#[inline]
pub fn write_ext_header<S: Sink>(out: &mut S, tag: i8, len: usize) {
    let tag = tag as u8;
    match len {
        1 => put(out, [0xd4, tag]),
        2 => put(out, [0xd5, tag]),
        4 => put(out, [0xd6, tag]),
        8 => put(out, [0xd7, tag]),
        16 => put(out, [0xd8, tag]),
        0..=0xff => put(out, [0xc7, len as u8, tag]),
        0x100..=0xffff => {
            let b = (len as u16).to_be_bytes();
            put(out, [0xc8, b[0], b[1], tag])
        }
        _ => {
            let b = (len as u32).to_be_bytes();
            put(out, [0xc9, b[0], b[1], b[2], b[3], tag])
        }
    }
}

/// Writes an extension value (`data` shorter than 2**32 bytes).
#[inline]
pub fn write_ext<S: Sink>(out: &mut S, tag: i8, data: &[u8]) {
    write_ext_header(out, tag, data.len());
    extend_bulk(out, data);
}

/// Appends `data`, announcing it to the sink first if it is large.
#[inline(always)]
fn extend_bulk<S: Sink>(out: &mut S, data: &[u8]) {
    // A failed reservation leaves the sink failed: `extend` then writes nothing.
    if data.len() >= crate::sink::BULK && out.reserve(data.len()) {
        out.bulk(data.len());
    }
    out.extend(data);
}

/// Writes the header of a bin value whose `len` bytes follow.
#[inline]
pub fn write_bin_header<S: Sink>(out: &mut S, len: usize) {
    if len <= 0xff {
        put(out, [0xc4, len as u8]);
    } else if len <= 0xffff {
        put(out, marker_be16(0xc5, len as u16));
    } else {
        put(out, marker_be32(0xc6, len as u32));
    }
}

#[inline]
pub fn write_bin<S: Sink>(out: &mut S, data: &[u8]) {
    write_bin_header(out, data.len());
    extend_bulk(out, data);
}

#[inline]
pub fn write_array_header<S: Sink>(out: &mut S, len: usize) {
    if len < 16 {
        out.push(0x90 | len as u8);
    } else if len <= 0xffff {
        put(out, marker_be16(0xdc, len as u16));
    } else {
        put(out, marker_be32(0xdd, len as u32));
    }
}

#[inline]
pub fn write_map_header<S: Sink>(out: &mut S, len: usize) {
    if len < 16 {
        out.push(0x80 | len as u8);
    } else if len <= 0xffff {
        put(out, marker_be16(0xde, len as u16));
    } else {
        put(out, marker_be32(0xdf, len as u32));
    }
}

/// Largest length a str, bin, array or map can declare.
pub const MAX_LEN: usize = u32::MAX as usize;

/// The MessagePack backend, writing into a [`Sink`].
pub struct MsgpackWriter<S: Sink> {
    pub out: S,
}

impl<S: Sink> MsgpackWriter<S> {
    pub fn new(out: S) -> Self {
        MsgpackWriter { out }
    }
}

impl<S: Sink> Emitter for MsgpackWriter<S> {
    const HAS_BIN: bool = true;
    const NATIVE_KEYS: bool = true;

    #[inline(always)]
    fn failed(&self) -> bool {
        self.out.failed()
    }

    #[inline(always)]
    fn null(&mut self) {
        self.out.push(0xc0);
    }
    #[inline(always)]
    fn bool(&mut self, value: bool) {
        self.out.push(if value { 0xc3 } else { 0xc2 });
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
    fn f32(&mut self, value: f32) {
        let b = value.to_be_bytes();
        put(&mut self.out, [0xca, b[0], b[1], b[2], b[3]]);
    }
    #[inline(always)]
    fn str(&mut self, value: Text<'_>) -> Result<(), SurrogateError> {
        write_str(&mut self.out, value)
    }
    #[inline(always)]
    fn utf8(&mut self, value: &[u8]) {
        write_utf8(&mut self.out, value)
    }
    #[inline(always)]
    fn bin(&mut self, value: &[u8]) {
        write_bin(&mut self.out, value)
    }
    #[inline(always)]
    fn ascii(&mut self, value: &[u8]) {
        write_ascii(&mut self.out, value)
    }
    #[inline(always)]
    fn ascii_in_place<const MAX: usize>(&mut self, fill: impl FnOnce(*mut u8) -> usize) {
        const { assert!(MAX < 256) };
        if !self.out.reserve(MAX + 2) {
            return;
        }
        // SAFETY: `MAX + 2` bytes reserved just above: a header of at most
        // two bytes and at most MAX bytes from `fill`.
        unsafe {
            let at = self.out.tail();
            // Written after a one-byte header, the usual fixstr; text of 32
            // bytes or more moves one place on for its two-byte header.
            let len = fill(at.add(1));
            debug_assert!(len <= MAX);
            if len < 32 {
                *at = 0xa0 | len as u8;
                self.out.advance(1 + len);
            } else {
                core::ptr::copy(at.add(1), at.add(2), len);
                *at = 0xd9;
                *at.add(1) = len as u8;
                self.out.advance(2 + len);
            }
        }
    }
    #[inline(always)]
    fn raw(&mut self, value: &[u8]) {
        self.out.extend(value)
    }
    #[inline]
    fn ext(&mut self, tag: i8, data: &[u8]) {
        write_ext(&mut self.out, tag, data)
    }
    #[inline]
    fn ext_header(&mut self, tag: i8, len: usize) {
        write_ext_header(&mut self.out, tag, len)
    }
    #[inline]
    fn bin_header(&mut self, len: usize) {
        write_bin_header(&mut self.out, len)
    }
    #[inline(always)]
    fn position(&self) -> usize {
        self.out.len()
    }
    #[inline]
    fn raw_in_place(&mut self, len: usize, fill: impl FnOnce(*mut u8)) {
        if !self.out.reserve(len) {
            return;
        }
        if len >= crate::sink::BULK {
            self.out.bulk(len);
        }
        // SAFETY: `len` bytes reserved just above, all initialized by `fill`
        // (its contract) before they are marked written.
        unsafe {
            fill(self.out.tail());
            self.out.advance(len);
        }
    }
    #[inline(always)]
    fn begin_array(&mut self, len: usize) {
        write_array_header(&mut self.out, len)
    }
    #[inline(always)]
    fn array_item(&mut self, _index: usize) {}
    #[inline(always)]
    fn end_array(&mut self, _len: usize) {}
    #[inline(always)]
    fn begin_map(&mut self, len: usize) {
        write_map_header(&mut self.out, len)
    }
    #[inline(always)]
    fn map_key(&mut self, _index: usize) {}
    #[inline(always)]
    fn map_value(&mut self) {}
    #[inline(always)]
    fn end_map(&mut self, _len: usize) {}
    /// Numeric rows (numpy): one reservation per chunk of items, each item's
    /// worst case (nine bytes), so the loop keeps its position in a register
    /// instead of checking the buffer at every item.
    #[inline]
    fn i64_items<T: Copy + Ord + Into<i64>>(&mut self, values: &[T]) {
        write_rows(&mut self.out, values, 9, |r, v| write_i64(r, v.into()));
    }
    #[inline]
    fn u64_items<T: Copy + Ord + Into<u64>>(&mut self, values: &[T]) {
        write_rows(&mut self.out, values, 9, |r, v| write_u64(r, v.into()));
    }
    #[inline]
    fn f64_items(&mut self, values: &[f64]) {
        write_rows(&mut self.out, values, 9, write_f64);
    }
    /// One reserve for the row, then a byte per bool with no branch (random
    /// data would mispredict half of them): `0xc2 | 1` is true.
    #[inline]
    fn bool_items(&mut self, values: &[u8]) {
        if !self.out.reserve(values.len()) {
            return;
        }
        // SAFETY: `values.len()` bytes reserved just above, one written per value.
        unsafe {
            let at = self.out.tail();
            for (i, &value) in values.iter().enumerate() {
                *at.add(i) = 0xc2 | (value != 0) as u8;
            }
            self.out.advance(values.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i64) -> Vec<u8> {
        let mut out = Vec::new();
        write_i64(&mut out, v);
        out
    }

    #[test]
    fn bool_rows_equal_events() {
        let values: Vec<u8> = (0..300u32).map(|i| [0u8, 1, 2, 255, 0, 0, 7][i as usize % 7]).collect();
        for n in [0, 1, 2, 299, 300] {
            let mut rows = MsgpackWriter::new(Vec::new());
            rows.bool_items(&values[..n]);
            let mut events = MsgpackWriter::new(Vec::new());
            for &v in &values[..n] {
                events.bool(v != 0);
            }
            assert_eq!(rows.out, events.out);
        }
    }

    #[test]
    fn integer_boundaries() {
        assert_eq!(int(0), [0x00]);
        assert_eq!(int(127), [0x7f]);
        assert_eq!(int(128), [0xcc, 0x80]);
        assert_eq!(int(255), [0xcc, 0xff]);
        assert_eq!(int(256), [0xcd, 0x01, 0x00]);
        assert_eq!(int(65535), [0xcd, 0xff, 0xff]);
        assert_eq!(int(65536), [0xce, 0, 1, 0, 0]);
        assert_eq!(int(u32::MAX as i64), [0xce, 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(int(1 << 32), [0xcf, 0, 0, 0, 1, 0, 0, 0, 0]);
        assert_eq!(int(-1), [0xff]);
        assert_eq!(int(-32), [0xe0]);
        assert_eq!(int(-33), [0xd0, 0xdf]);
        assert_eq!(int(-128), [0xd0, 0x80]);
        assert_eq!(int(-129), [0xd1, 0xff, 0x7f]);
        assert_eq!(int(-32768), [0xd1, 0x80, 0x00]);
        assert_eq!(int(-32769), [0xd2, 0xff, 0xff, 0x7f, 0xff]);
        assert_eq!(int(i32::MIN as i64 - 1), [0xd3, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff]);
        let mut out = Vec::new();
        write_u64(&mut out, u64::MAX);
        assert_eq!(out, [0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    }

    fn str_bytes(t: Text) -> Vec<u8> {
        let mut out = Vec::new();
        write_str(&mut out, t).unwrap();
        out
    }

    /// UTF-8 text written as a str, its header included, by the Vec sink.
    fn plain_str(units: &[u32]) -> Vec<u8> {
        let s: String = units.iter().map(|&c| char::from_u32(c).unwrap()).collect();
        let mut v = Vec::new();
        write_ascii(&mut v, s.as_bytes());
        v
    }

    #[test]
    fn numeric_rows_equal_events() {
        // Every integer family's edges, and floats, over several chunks.
        let mut ints: Vec<i64> = vec![0, 1, -1, 31, -32, -33, 127, 128, 255, 256, 65_535, 65_536, i64::MIN, i64::MAX];
        for shift in [7, 8, 15, 16, 31, 32, 63] {
            let p = 1i64.wrapping_shl(shift);
            ints.extend([p.wrapping_sub(1), p, p.wrapping_add(1), p.wrapping_neg(), p.wrapping_neg().wrapping_sub(1)]);
        }
        for n in [0, 1, 255, 256, 257, 1000] {
            let v: Vec<i64> = (0..n).map(|i| ints[i % ints.len()]).collect();
            let by_events = |each: &dyn Fn(&mut MsgpackWriter<Vec<u8>>, usize)| {
                let mut w = MsgpackWriter::new(Vec::new());
                (0..n).for_each(|i| each(&mut w, i));
                w.out
            };
            let mut w = MsgpackWriter::new(Vec::new());
            w.i64_items(&v);
            assert_eq!(w.out, by_events(&|w, i| w.i64(v[i])));
            let u: Vec<u64> = v.iter().map(|&x| x as u64).collect();
            let mut w = MsgpackWriter::new(Vec::new());
            w.u64_items(&u);
            assert_eq!(w.out, by_events(&|w, i| w.u64(u[i])));
            let f: Vec<f64> = v.iter().map(|&x| x as f64 / 3.0).collect();
            let mut w = MsgpackWriter::new(Vec::new());
            w.f64_items(&f);
            assert_eq!(w.out, by_events(&|w, i| w.f64(f[i])));
            let small: Vec<i8> = (0..n).map(|i| i as i8).collect();
            let mut w = MsgpackWriter::new(Vec::new());
            w.i64_items(&small);
            assert_eq!(w.out, by_events(&|w, i| w.i64(small[i] as i64)));
        }
    }

    #[test]
    fn long_texts_in_chunks_equal_whole() {
        // Past 2**16 units (a str32 for sure), each storage kind, cut in
        // chunks of every size: the same bytes as the text in one piece.
        let n = 0x10000 + 37;
        let kinds: [Vec<u32>; 3] = [
            (0..n).map(|k| if k % 5 == 0 { 0xE9 } else { 0x61 }).collect(),
            (0..n).map(|k| [0x61, 0x4E2D, 0x3B1][k % 3]).collect(),
            (0..n).map(|k| [0x61, 0x1F600][k % 2]).collect(),
        ];
        for units in &kinds {
            let expected = plain_str(units);
            let ucs1: Vec<u8> = units.iter().map(|&c| c as u8).collect();
            let ucs2: Vec<u16> = units.iter().map(|&c| c as u16).collect();
            let text = if units.iter().all(|&c| c < 0x100) {
                Text::Ucs1(&ucs1)
            } else if units.iter().all(|&c| c < 0x10000) {
                Text::Ucs2(&ucs2)
            } else {
                Text::Ucs4(units)
            };
            for chunk in [1000, 4096, 0x10000, n - 1, n] {
                let mut v = vec![0x91];
                write_long_transcoded(&mut v, text, chunk).unwrap();
                assert_eq!(v[1..], expected[..], "chunk {chunk}");
            }
            let mut sink = crate::testing::LimitedSink::new(usize::MAX);
            write_str(&mut sink, text).unwrap();
            sink.check_guard();
            assert_eq!(sink.out, expected);
            assert!(sink.max_reserve <= 4 * CHUNK + WRITE_SLACK, "{}", sink.max_reserve);
        }
    }

    #[test]
    fn long_text_with_a_late_surrogate_takes_back_what_it_wrote() {
        let mut units: Vec<u16> = (0..0x10100).map(|k| [0x61, 0x4E2D][k % 2]).collect();
        units[0x10050] = 0xD800;
        for chunk in [4096, CHUNK] {
            let mut v = vec![0x92, 0x01];
            assert_eq!(write_long_transcoded(&mut v, Text::Ucs2(&units), chunk), Err(SurrogateError));
            assert_eq!(v, [0x92, 0x01]);
        }
    }

    #[test]
    fn out_of_room_writes_nothing_past_it() {
        let long: Vec<u16> = (0..3000).map(|k| [0x61, 0x4E2D][k % 2]).collect();
        let bin = vec![7u8; 700];
        let run = |w: &mut MsgpackWriter<crate::testing::LimitedSink>| {
            w.begin_map(3);
            w.str(Text::Utf8(b"key")).unwrap();
            w.str(Text::Ucs2(&long)).unwrap();
            w.i64(-5_000_000_000);
            w.bin(&bin);
            w.ext(5, &bin[..300]);
            w.begin_array(3);
            w.bool_items(&bin[..100]);
            w.f64(1.5);
            w.ascii_in_place::<40>(|at| {
                // SAFETY: 40 writable bytes.
                unsafe { core::ptr::write_bytes(at, b'7', 40) };
                40
            });
        };
        let mut full = MsgpackWriter::new(crate::testing::LimitedSink::new(usize::MAX));
        run(&mut full);
        for budget in 0..full.out.out.len() + 16 {
            let mut w = MsgpackWriter::new(crate::testing::LimitedSink::new(budget));
            run(&mut w);
            w.out.check_guard();
            if !w.failed() {
                assert_eq!(w.out.out, full.out.out, "budget {budget}");
            }
        }
    }

    #[test]
    fn str_headers_at_every_boundary_and_width() {
        for len in [0usize, 1, 31, 32, 255, 256, 65535, 65536] {
            let ascii = "a".repeat(len);
            let expected_header: Vec<u8> = match len {
                0..=31 => vec![0xa0 | len as u8],
                32..=255 => vec![0xd9, len as u8],
                256..=65535 => [vec![0xda], (len as u16).to_be_bytes().to_vec()].concat(),
                _ => [vec![0xdb], (len as u32).to_be_bytes().to_vec()].concat(),
            };
            let got = str_bytes(Text::Utf8(ascii.as_bytes()));
            assert_eq!(&got[..expected_header.len()], &expected_header[..]);
            assert_eq!(&got[expected_header.len()..], ascii.as_bytes());
        }
        // Bounds that straddle a header size: 20 Latin-1 'é' is 40 bytes (str8),
        // 20 'a' + 1 'é' is 22 bytes (fixstr) though its bound was 42.
        for s in ["é".repeat(20), format!("{}é", "a".repeat(20)), "中".repeat(100), "😀".repeat(70)] {
            let ucs4: Vec<u32> = s.chars().map(|c| c as u32).collect();
            let got = str_bytes(Text::Ucs4(&ucs4));
            let n = s.len();
            let header = str_header_len(n);
            assert_eq!(got.len(), header + n);
            assert_eq!(&got[header..], s.as_bytes());
            if s.chars().all(|c| (c as u32) < 256) {
                let latin: Vec<u8> = s.chars().map(|c| c as u8).collect();
                assert_eq!(str_bytes(Text::Ucs1(&latin)), got);
            }
        }
    }

    #[test]
    fn utf8_str_every_short_length() {
        // The inlined fixstr path (inline copy) and its neighbours, with
        // non-ASCII UTF-8 too, written after other output.
        for len in 0..70 {
            let text: String = "aé中😀"
                .chars()
                .cycle()
                .scan(0, |n, c| {
                    *n += c.len_utf8();
                    (*n <= len).then_some(c)
                })
                .collect();
            let mut out = vec![0x11];
            write_str(&mut out, Text::Utf8(text.as_bytes())).unwrap();
            let n = text.len();
            let header: Vec<u8> = if n < 32 { vec![0xa0 | n as u8] } else { vec![0xd9, n as u8] };
            assert_eq!(out, [&[0x11][..], &header, text.as_bytes()].concat(), "{len}");
        }
    }

    #[test]
    fn ext_forms_like_msgpack_python() {
        let ext = |n: usize| {
            let mut out = Vec::new();
            write_ext(&mut out, 5, &vec![b'x'; n]);
            out
        };
        for (n, head) in [
            (0, &[0xc7, 0, 5][..]),
            (1, &[0xd4, 5]),
            (2, &[0xd5, 5]),
            (3, &[0xc7, 3, 5]),
            (4, &[0xd6, 5]),
            (8, &[0xd7, 5]),
            (16, &[0xd8, 5]),
            (17, &[0xc7, 17, 5]),
            (255, &[0xc7, 255, 5]),
            (256, &[0xc8, 1, 0, 5]),
            (65536, &[0xc9, 0, 1, 0, 0, 5]),
        ] {
            let out = ext(n);
            assert_eq!(&out[..head.len()], head, "{n}");
            assert_eq!(out.len(), head.len() + n);
        }
        let mut out = Vec::new();
        write_ext(&mut out, -1, &[1, 2, 3, 4]);
        assert_eq!(out, [0xd6, 0xff, 1, 2, 3, 4]);
    }

    /// A Vec that records the pieces announced as bulk, and what room was
    /// reserved for them when they were.
    struct Recording {
        out: Vec<u8>,
        bulk: Vec<(usize, usize)>,
    }

    // SAFETY: delegates to Vec's Sink.
    unsafe impl Sink for Recording {
        fn len(&self) -> usize {
            self.out.len()
        }
        fn reserve(&mut self, additional: usize) -> bool {
            Sink::reserve(&mut self.out, additional)
        }
        fn failed(&self) -> bool {
            false
        }
        fn truncate(&mut self, len: usize) {
            self.out.truncate(len)
        }
        fn tail(&mut self) -> *mut u8 {
            Sink::tail(&mut self.out)
        }
        unsafe fn advance(&mut self, n: usize) {
            Sink::advance(&mut self.out, n)
        }
        fn bulk(&mut self, len: usize) {
            self.bulk.push((len, self.out.capacity() - self.out.len()));
        }
    }

    #[test]
    fn large_pieces_are_announced_after_their_room_is_reserved() {
        let big = vec![7u8; crate::sink::BULK];
        let mut w = MsgpackWriter::new(Recording { out: Vec::new(), bulk: Vec::new() });
        w.bin(&big[..100]);
        w.ext(3, &big[..crate::sink::BULK - 1]);
        assert!(w.out.bulk.is_empty());
        w.bin(&big);
        w.ext(3, &big);
        w.raw_in_place(big.len(), |at| {
            // SAFETY: `big.len()` writable bytes.
            unsafe { core::ptr::copy_nonoverlapping(big.as_ptr(), at, big.len()) }
        });
        let n = crate::sink::BULK;
        assert_eq!(w.out.bulk.len(), 3);
        assert!(w.out.bulk.iter().all(|&(len, room)| len == n && room >= n));
        let ext_header = ext_header_len(n - 1);
        assert_eq!(w.out.out.len(), 102 + (n - 1 + ext_header) + (n + 5) + (n + 6) + n);
        assert!(w.out.out.ends_with(&big));
        // A long str is announced with its header, which comes first.
        let text = vec![b'a'; n];
        w.ascii(&text[..n - 1]);
        assert_eq!(w.out.bulk.len(), 3);
        let before = w.out.out.len();
        w.ascii(&text);
        assert_eq!(w.out.bulk.len(), 4);
        assert_eq!(w.out.bulk[3].0, n + 5);
        assert!(w.out.bulk[3].1 >= n + 5);
        let mut header = vec![0xdb];
        header.extend_from_slice(&(n as u32).to_be_bytes());
        assert_eq!(&w.out.out[before..before + 5], &header[..]);
        assert!(w.out.out.ends_with(&text));
    }

    #[test]
    fn ascii_uses_the_smallest_str_header() {
        for (n, head) in [(0, &[0xa0][..]), (31, &[0xbf]), (32, &[0xd9, 32]), (256, &[0xda, 1, 0])] {
            let mut out = Vec::new();
            write_ascii(&mut out, &vec![b'a'; n]);
            assert_eq!(&out[..head.len()], head);
            assert_eq!(out.len(), head.len() + n);
        }
    }

    #[test]
    fn containers_and_bin() {
        let mut out = Vec::new();
        write_array_header(&mut out, 15);
        write_array_header(&mut out, 16);
        write_array_header(&mut out, 65536);
        write_map_header(&mut out, 0);
        write_map_header(&mut out, 65535);
        assert_eq!(out, [0x9f, 0xdc, 0, 16, 0xdd, 0, 1, 0, 0, 0x80, 0xde, 0xff, 0xff]);
        let mut out = Vec::new();
        write_bin(&mut out, &[1, 2]);
        write_bin(&mut out, &[0; 256][..]);
        assert_eq!(&out[..6], &[0xc4, 2, 1, 2, 0xc5, 1]);
        assert_eq!(out.len(), 4 + 3 + 256);
    }
}

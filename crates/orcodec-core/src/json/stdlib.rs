//! The text of Python's standard library `json` module, byte for byte: its
//! separators (`", "` and `": "` by default, any text the caller chooses),
//! its indentation (a newline and the indent text once per level), its
//! `ensure_ascii` escaping (`\uXXXX` in lowercase hex, surrogate pairs above
//! the BMP, DEL escaped too), Python's `repr(float)` (`1e+16`, `1e-05`,
//! `0.1`, `1000000000000000.0`) and `NaN` / `Infinity` / `-Infinity`.
//!
//! The orjson-compatible writer (`writer.rs`) is untouched by any of this:
//! the stdlib's text differs from orjson's in almost every respect, so it is
//! a writer of its own, into a `Vec<u8>`, that the caller turns into a `str`.
//!
//! Strings arrive as CPython stores them (see [`Text`]): UTF-8 for ASCII or
//! when a UTF-8 form is cached, else 1, 2 or 4 byte code units. Lone
//! surrogates (possible in a Python `str`) are written as themselves when
//! `ensure_ascii` is off, in the 3-byte form UTF-8 would give them (the
//! caller decodes the output with `surrogatepass`); [`StdlibWriter::surrogates`]
//! tells that it happened.

use crate::fallible::{extend, push, reserve, NoMemory};
use crate::text::Text;

/// A write that may run out of memory.
pub type Written = Result<(), NoMemory>;

/// Lowercase hex digits, as the stdlib writes `\uXXXX`.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// What a byte below 0x80 becomes inside a string: 0 stays as it is, `u`
/// takes `\u00XX`, any other is the letter after the backslash.
const ESCAPE: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut i = 0;
    while i < 0x20 {
        table[i] = b'u';
        i += 1;
    }
    table[b'\x08' as usize] = b'b';
    table[b'\x0c' as usize] = b'f';
    table[b'\n' as usize] = b'n';
    table[b'\r' as usize] = b'r';
    table[b'\t' as usize] = b't';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// The layout options of the standard library's encoder.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Between the items of an array or object (`", "`, or `","` with indent).
    pub item_separator: Vec<u8>,
    /// Between a key and its value (`": "`).
    pub key_separator: Vec<u8>,
    /// Written once per level after a newline; None writes no newlines.
    pub indent: Option<Vec<u8>>,
    /// Escape every character outside printable ASCII as `\uXXXX`.
    pub ensure_ascii: bool,
}

/// A writer of the standard library's JSON text.
pub struct StdlibWriter {
    pub out: Vec<u8>,
    layout: Layout,
    level: usize,
    /// A lone surrogate was written in its 3-byte form.
    pub surrogates: bool,
}

impl StdlibWriter {
    pub fn new(layout: Layout) -> StdlibWriter {
        StdlibWriter { out: Vec::new(), layout, level: 0, surrogates: false }
    }

    /// True when every byte of the output is ASCII by construction:
    /// `ensure_ascii` and ASCII separators and indent.
    pub fn is_ascii_only(&self) -> bool {
        let l = &self.layout;
        l.ensure_ascii
            && l.item_separator.is_ascii()
            && l.key_separator.is_ascii()
            && l.indent.as_ref().is_none_or(|i| i.is_ascii())
    }

    #[inline]
    pub fn raw(&mut self, bytes: &[u8]) -> Written {
        extend(&mut self.out, bytes)
    }

    fn newline_indent(&mut self) -> Written {
        if let Some(indent) = &self.layout.indent {
            push(&mut self.out, b'\n')?;
            for _ in 0..self.level {
                extend(&mut self.out, indent)?;
            }
        }
        Ok(())
    }

    /// Opens a non-empty array (`[`) or object (`{`).
    pub fn open(&mut self, bracket: u8) -> Written {
        push(&mut self.out, bracket)?;
        if self.layout.indent.is_some() {
            self.level += 1;
            self.newline_indent()?;
        }
        Ok(())
    }

    /// Between two items of the innermost container.
    pub fn item_separator(&mut self) -> Written {
        extend(&mut self.out, &self.layout.item_separator)?;
        self.newline_indent()
    }

    pub fn key_separator(&mut self) -> Written {
        extend(&mut self.out, &self.layout.key_separator)
    }

    /// Closes what [`open`](Self::open) opened.
    pub fn close(&mut self, bracket: u8) -> Written {
        if self.layout.indent.is_some() {
            self.level -= 1;
            self.newline_indent()?;
        }
        push(&mut self.out, bracket)
    }

    pub fn i64(&mut self, v: i64) -> Written {
        let mut buf = [0u8; 24];
        // SAFETY: 20 bytes hold any i64 in decimal.
        let n = unsafe { crate::number::int::write_i64(buf.as_mut_ptr(), v) };
        extend(&mut self.out, &buf[..n])
    }

    /// A finite float as Python's `repr` writes it; the non-finite ones as
    /// `NaN`, `Infinity`, `-Infinity` (the caller decides if they are allowed).
    pub fn f64(&mut self, v: f64) -> Written {
        write_float_repr(&mut self.out, v)
    }

    /// A string value or key, quoted and escaped. Room for the worst case
    /// is reserved once (six bytes per code unit under `ensure_ascii`, twelve
    /// per UCS-4 character, else the UTF-8 length or six per escaped byte),
    /// then the text is written without further checks.
    pub fn str(&mut self, text: Text<'_>) -> Written {
        let ascii = self.layout.ensure_ascii;
        let per_unit = if ascii && matches!(text, Text::Ucs4(_)) { 12 } else { 6 };
        // Two quotes, and the 16 bytes past the text the SIMD copy may store.
        let bound = text.units().checked_mul(per_unit).and_then(|n| n.checked_add(2 + 16)).ok_or(NoMemory)?;
        reserve(&mut self.out, bound)?;
        let len = self.out.len();
        // SAFETY: `bound` bytes are reserved past `len`, and no path writes
        // more than `per_unit` bytes per code unit plus the two quotes.
        unsafe {
            let start = self.out.as_mut_ptr().add(len);
            let mut dst = start;
            *dst = b'"';
            dst = dst.add(1);
            dst = match (text, ascii) {
                (Text::Utf8(b), true) => escape_utf8_ascii(dst, b),
                (Text::Utf8(b), false) => escape_utf8(dst, b),
                (Text::Ucs1(u), true) => escape_units_ascii(dst, u.iter().map(|&c| c as u32)),
                (Text::Ucs2(u), true) => escape_ucs2_ascii(dst, u),
                (Text::Ucs4(u), true) => escape_units_ascii(dst, u.iter().copied()),
                (Text::Ucs1(u), false) => escape_units(dst, u.iter().map(|&c| c as u32)).0,
                (Text::Ucs2(u), false) => {
                    let (end, surrogates) = escape_units(dst, u.iter().map(|&c| c as u32));
                    self.surrogates |= surrogates;
                    end
                }
                (Text::Ucs4(u), false) => {
                    let (end, surrogates) = escape_units(dst, u.iter().copied());
                    self.surrogates |= surrogates;
                    end
                }
            };
            *dst = b'"';
            dst = dst.add(1);
            self.out.set_len(len + dst.offset_from(start) as usize);
        }
        Ok(())
    }
}

/// Writes `bytes` at `dst`; returns the end.
///
/// # Safety
/// `dst` must be writable for `bytes.len()` bytes.
#[inline(always)]
unsafe fn put(dst: *mut u8, bytes: &[u8]) -> *mut u8 {
    core::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
    dst.add(bytes.len())
}

/// Two lowercase hex digits per byte value, in memory order.
const HEX2: [[u8; 2]; 256] = {
    let mut table = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = [HEX[i >> 4], HEX[i & 0xf]];
        i += 1;
    }
    table
};

/// `\uXXXX` for `c` below 0x10000. Safety: 6 bytes writable at `dst`.
#[inline(always)]
unsafe fn u_escape(dst: *mut u8, c: u32) -> *mut u8 {
    let [a, b] = HEX2[(c >> 8 & 0xff) as usize];
    let [d, e] = HEX2[(c & 0xff) as usize];
    put(dst, &[b'\\', b'u', a, b, d, e])
}

/// An ASCII character that needs escaping (`ensure_ascii` adds DEL).
/// Safety: 6 bytes writable at `dst`.
#[inline(always)]
unsafe fn ascii_escape(dst: *mut u8, c: u8) -> *mut u8 {
    match ESCAPE[c as usize] {
        b'u' | 0 => u_escape(dst, c as u32), // 0: DEL under ensure_ascii
        letter => put(dst, &[b'\\', letter]),
    }
}

/// Any code point under `ensure_ascii`. Safety: 12 bytes writable at `dst`
/// (6 below 0x10000).
#[inline(always)]
unsafe fn code_point_ascii(dst: *mut u8, c: u32) -> *mut u8 {
    if c < 0x80 {
        if plain_ascii(c as u8) {
            *dst = c as u8;
            dst.add(1)
        } else {
            ascii_escape(dst, c as u8)
        }
    } else if c < 0x10000 {
        u_escape(dst, c)
    } else {
        let v = c - 0x10000;
        let dst = u_escape(dst, 0xd800 | (v >> 10));
        u_escape(dst, 0xdc00 | (v & 0x3ff))
    }
}

/// True for a byte that `ensure_ascii` writes as it is.
#[inline(always)]
fn plain_ascii(b: u8) -> bool {
    (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\'
}

/// True for a byte written as it is without `ensure_ascii`.
#[inline(always)]
fn plain_utf8(b: u8) -> bool {
    b >= 0x20 && b != b'"' && b != b'\\'
}

/// How many leading bytes of `b` are below 0x7f, eight at a time.
#[inline(always)]
fn below_del(b: &[u8]) -> usize {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while i + 8 <= b.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&b[i..i + 8]);
        let w = u64::from_le_bytes(word);
        // A byte's top bit ends up set if it is >= 0x80, or 0x7f (+1 carries
        // into bit 7, never out of the byte).
        let stop = (w | ((w & LOW7) + 0x0101_0101_0101_0101)) & HIGH;
        if stop != 0 {
            return i + (stop.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i] < 0x7f {
        i += 1;
    }
    i
}

/// UTF-8 `b` under `ensure_ascii`. Runs that need no escaping go through
/// the SIMD copy of the orjson writer (which stops at controls, `"` and `\`),
/// cut at the first byte it lets through that `ensure_ascii` escapes (DEL
/// and beyond ASCII). Safety: `6 * b.len() + 16` bytes writable.
unsafe fn escape_utf8_ascii(mut dst: *mut u8, b: &[u8]) -> *mut u8 {
    let mut i = 0;
    while i < b.len() {
        let clean = crate::text::encode::copy_clean_prefix(&b[i..], dst);
        // The copy stored `clean` bytes (and maybe more, overwritten below).
        let run = below_del(&b[i..i + clean]);
        dst = dst.add(run);
        i += run;
        if i >= b.len() {
            break;
        }
        let c = b[i];
        if c < 0x80 {
            dst = ascii_escape(dst, c);
            i += 1;
        } else {
            // Valid UTF-8 (a `str`'s cached form): one code point of `len`
            // bytes, at most 12 bytes out for 4 in (6 for 2 or 3).
            let (cp, len) = decode_utf8(&b[i..]);
            dst = code_point_ascii(dst, cp);
            i += len;
        }
    }
    dst
}

/// UTF-8 `b` without `ensure_ascii`: the orjson writer's SIMD copy finds the
/// bytes to escape, which are the same. Safety: `6 * b.len() + 16` bytes
/// writable.
unsafe fn escape_utf8(mut dst: *mut u8, b: &[u8]) -> *mut u8 {
    let mut i = 0;
    while i < b.len() {
        let run = crate::text::encode::copy_clean_prefix(&b[i..], dst);
        dst = dst.add(run);
        i += run;
        if i >= b.len() {
            break;
        }
        dst = ascii_escape(dst, b[i]);
        i += 1;
    }
    dst
}

/// One code point of valid UTF-8 starting at a non-ASCII lead byte.
#[inline]
fn decode_utf8(b: &[u8]) -> (u32, usize) {
    let lead = b[0] as u32;
    let cont = |k: usize| (b.get(k).copied().unwrap_or(0x80) & 0x3f) as u32;
    if lead < 0xe0 {
        (((lead & 0x1f) << 6) | cont(1), 2)
    } else if lead < 0xf0 {
        (((lead & 0x0f) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (((lead & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3), 4)
    }
}

/// Code units under `ensure_ascii`. Safety: 6 bytes per unit writable (12
/// per UCS-4 unit).
#[inline(always)]
unsafe fn escape_units_ascii(mut dst: *mut u8, units: impl Iterator<Item = u32>) -> *mut u8 {
    for c in units {
        dst = code_point_ascii(dst, c);
    }
    dst
}

/// UCS-2 text under `ensure_ascii`, the common case of non-Latin text (CJK,
/// Cyrillic, Greek...): nearly every unit becomes `\uXXXX`, and runs of four
/// plain ASCII units (the spaces, digits and punctuation between) are
/// checked and narrowed a word at a time. Lone surrogates are units like any
/// other here. Safety: 6 bytes per unit writable.
unsafe fn escape_ucs2_ascii(dst: *mut u8, units: &[u16]) -> *mut u8 {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::avx2() {
            return ucs2_ssse3::escape_avx2(dst, units);
        }
        if crate::cpu::ssse3() {
            return ucs2_ssse3::escape(dst, units);
        }
    }
    escape_ucs2_ascii_words(dst, units, 0)
}

/// [`escape_ucs2_ascii`] from unit `i` on, without SIMD.
///
/// # Safety
/// As [`escape_ucs2_ascii`], for `units[i..]`.
unsafe fn escape_ucs2_ascii_words(mut dst: *mut u8, units: &[u16], mut i: usize) -> *mut u8 {
    const ONES: u64 = 0x0001_0001_0001_0001;
    const HIGH: u64 = 0x8000_8000_8000_8000;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    while i < units.len() {
        if i + 4 <= units.len() {
            let w = (units[i] as u64)
                | (units[i + 1] as u64) << 16
                | (units[i + 2] as u64) << 32
                | (units[i + 3] as u64) << 48;
            // All four below 0x80, none below 0x20, none DEL, '"' or '\\'.
            let special = (w & 0xff80_ff80_ff80_ff80)
                | (w.wrapping_sub(ONES * 0x20) & !w & HIGH)
                | has_zero(w ^ (ONES * 0x7f))
                | has_zero(w ^ (ONES * b'"' as u64))
                | has_zero(w ^ (ONES * b'\\' as u64));
            if special == 0 {
                dst = put(dst, &[units[i] as u8, units[i + 1] as u8, units[i + 2] as u8, units[i + 3] as u8]);
                i += 4;
                continue;
            }
        }
        dst = code_point_ascii(dst, units[i] as u32);
        i += 1;
    }
    dst
}

/// UCS-2 under `ensure_ascii`, eight units a step with SSSE3 (sixteen with
/// AVX2): a block of non-ASCII units (CJK text) becomes its `\uXXXX` in
/// 16-byte stores, three per eight units, the hex digits looked up with
/// `pshufb`; other blocks take the word loop.
#[cfg(target_arch = "x86_64")]
mod ucs2_ssse3 {
    use core::arch::x86_64::*;

    const Z: i8 = -128; // pshufb: a zero byte
    const BS: i8 = b'\\' as i8;
    const U: i8 = b'u' as i8;

    /// The constants of [`escape8`]: the hex digits, then per output vector
    /// its shuffle(s) and the `\u` bytes around them.
    struct Tables([__m128i; 8]);

    impl Tables {
        /// # Safety
        /// The caller is compiled for SSE2 (always on x86-64).
        #[inline(always)]
        unsafe fn new() -> Tables {
            Tables([
                _mm_setr_epi8(
                    b'0' as i8, b'1' as i8, b'2' as i8, b'3' as i8, b'4' as i8, b'5' as i8, b'6' as i8, b'7' as i8,
                    b'8' as i8, b'9' as i8, b'a' as i8, b'b' as i8, b'c' as i8, b'd' as i8, b'e' as i8, b'f' as i8,
                ),
                // Per unit k of a half (four units, 16 bytes: [n1, n0, n3, n2]
                // each), the output wants `\`, `u`, n3, n2, n1, n0.
                _mm_setr_epi8(Z, Z, 2, 3, 0, 1, Z, Z, 6, 7, 4, 5, Z, Z, 10, 11),
                _mm_setr_epi8(BS, U, 0, 0, 0, 0, BS, U, 0, 0, 0, 0, BS, U, 0, 0),
                _mm_setr_epi8(8, 9, Z, Z, 14, 15, 12, 13, Z, Z, Z, Z, Z, Z, Z, Z),
                _mm_setr_epi8(Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, 2, 3, 0, 1, Z, Z),
                _mm_setr_epi8(0, 0, BS, U, 0, 0, 0, 0, BS, U, 0, 0, 0, 0, BS, U),
                _mm_setr_epi8(6, 7, 4, 5, Z, Z, 10, 11, 8, 9, Z, Z, 14, 15, 12, 13),
                _mm_setr_epi8(0, 0, 0, 0, BS, U, 0, 0, 0, 0, BS, U, 0, 0, 0, 0),
            ])
        }
    }

    /// The 48 bytes of `\uXXXX` of the eight units of `v` (none ASCII), in
    /// three vectors. Written once for SSSE3 and, through [`Widths`], for
    /// both halves of an AVX2 vector at once.
    #[inline(always)]
    unsafe fn escape8<V: Widths>(v: V::Vector, t: &[V::Vector; 8]) -> [V::Vector; 3] {
        let high = V::and(V::srli4(v), V::nibbles());
        let low = V::and(v, V::nibbles());
        let a = V::shuffle(t[0], V::unpacklo(high, low));
        let b = V::shuffle(t[0], V::unpackhi(high, low));
        [
            V::or(V::shuffle(a, t[1]), t[2]),
            V::or(V::or(V::shuffle(a, t[3]), V::shuffle(b, t[4])), t[5]),
            V::or(V::shuffle(b, t[6]), t[7]),
        ]
    }

    /// The vector operations of [`escape8`], 128-bit (SSSE3) or per half
    /// of 256 bits (AVX2).
    trait Widths {
        type Vector: Copy;
        unsafe fn and(a: Self::Vector, b: Self::Vector) -> Self::Vector;
        unsafe fn or(a: Self::Vector, b: Self::Vector) -> Self::Vector;
        unsafe fn srli4(a: Self::Vector) -> Self::Vector;
        unsafe fn nibbles() -> Self::Vector;
        unsafe fn shuffle(a: Self::Vector, b: Self::Vector) -> Self::Vector;
        unsafe fn unpacklo(a: Self::Vector, b: Self::Vector) -> Self::Vector;
        unsafe fn unpackhi(a: Self::Vector, b: Self::Vector) -> Self::Vector;
    }

    /// A [`Widths`] from the intrinsics of one vector width.
    macro_rules! widths {
        ($name:ident, $vector:ty, $and:ident, $or:ident, $srli:ident, $set1:ident, $shuffle:ident, $lo:ident, $hi:ident) => {
            struct $name;

            impl Widths for $name {
                type Vector = $vector;
                #[inline(always)]
                unsafe fn and(a: $vector, b: $vector) -> $vector {
                    $and(a, b)
                }
                #[inline(always)]
                unsafe fn or(a: $vector, b: $vector) -> $vector {
                    $or(a, b)
                }
                #[inline(always)]
                unsafe fn srli4(a: $vector) -> $vector {
                    $srli::<4>(a)
                }
                #[inline(always)]
                unsafe fn nibbles() -> $vector {
                    $set1(0x0f)
                }
                #[inline(always)]
                unsafe fn shuffle(a: $vector, b: $vector) -> $vector {
                    $shuffle(a, b)
                }
                #[inline(always)]
                unsafe fn unpacklo(a: $vector, b: $vector) -> $vector {
                    $lo(a, b)
                }
                #[inline(always)]
                unsafe fn unpackhi(a: $vector, b: $vector) -> $vector {
                    $hi(a, b)
                }
            }
        };
    }

    widths!(
        Ssse3,
        __m128i,
        _mm_and_si128,
        _mm_or_si128,
        _mm_srli_epi16,
        _mm_set1_epi8,
        _mm_shuffle_epi8,
        _mm_unpacklo_epi8,
        _mm_unpackhi_epi8
    );
    widths!(
        Avx2,
        __m256i,
        _mm256_and_si256,
        _mm256_or_si256,
        _mm256_srli_epi16,
        _mm256_set1_epi8,
        _mm256_shuffle_epi8,
        _mm256_unpacklo_epi8,
        _mm256_unpackhi_epi8
    );

    /// # Safety
    /// The CPU has SSSE3; `dst` has room for 6 bytes per unit.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn escape(dst: *mut u8, units: &[u16]) -> *mut u8 {
        escape_from(dst, units, 0)
    }

    /// [`escape`] from unit `i` on.
    ///
    /// # Safety
    /// As [`escape`], for `units[i..]`.
    #[inline(always)]
    unsafe fn escape_from(mut dst: *mut u8, units: &[u16], mut i: usize) -> *mut u8 {
        let t = Tables::new().0;
        let ascii_bits = _mm_set1_epi16(0xff80u16 as i16);
        let n = units.len();
        let p = units.as_ptr();
        while i + 8 <= n {
            // SAFETY: units i..i + 8 are in bounds.
            let v = _mm_loadu_si128(p.add(i) as *const __m128i);
            let ascii = _mm_cmpeq_epi16(_mm_and_si128(v, ascii_bits), _mm_setzero_si128());
            if _mm_movemask_epi8(ascii) != 0 {
                // Some unit is ASCII: these eight go the word way.
                dst = super::escape_ucs2_ascii_words(dst, &units[..i + 8], i);
                i += 8;
                continue;
            }
            // SAFETY: 48 bytes of room for these eight units.
            for (k, part) in escape8::<Ssse3>(v, &t).into_iter().enumerate() {
                _mm_storeu_si128(dst.add(16 * k) as *mut __m128i, part);
            }
            dst = dst.add(48);
            i += 8;
        }
        super::escape_ucs2_ascii_words(dst, units, i)
    }

    /// [`escape`] sixteen units a step, the rest as [`escape`].
    ///
    /// # Safety
    /// The CPU has AVX2; `dst` has room for 6 bytes per unit.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn escape_avx2(mut dst: *mut u8, units: &[u16]) -> *mut u8 {
        let narrow = Tables::new().0;
        let mut t = [_mm256_setzero_si256(); 8];
        for (wide, part) in t.iter_mut().zip(narrow) {
            *wide = _mm256_broadcastsi128_si256(part);
        }
        let ascii_bits = _mm256_set1_epi16(0xff80u16 as i16);
        let n = units.len();
        let p = units.as_ptr();
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: units i..i + 16 are in bounds.
            let v = _mm256_loadu_si256(p.add(i) as *const __m256i);
            let ascii = _mm256_cmpeq_epi16(_mm256_and_si256(v, ascii_bits), _mm256_setzero_si256());
            if _mm256_movemask_epi8(ascii) != 0 {
                // Some unit is ASCII: the SSSE3 steps take these sixteen.
                dst = escape_from(dst, &units[..i + 16], i);
                i += 16;
                continue;
            }
            // Each half's 48 bytes from its three vectors' halves.
            let parts = escape8::<Avx2>(v, &t);
            // SAFETY: 96 bytes of room for these sixteen units.
            for (k, part) in parts.into_iter().enumerate() {
                _mm_storeu_si128(dst.add(16 * k) as *mut __m128i, _mm256_castsi256_si128(part));
                _mm_storeu_si128(dst.add(48 + 16 * k) as *mut __m128i, _mm256_extracti128_si256::<1>(part));
            }
            dst = dst.add(96);
            i += 16;
        }
        escape_from(dst, units, i)
    }
}

/// Code units to UTF-8, escaping only what JSON requires. Returns the end
/// and whether a lone surrogate was written (in its 3-byte form). Safety: 6
/// bytes per unit writable.
#[inline(always)]
unsafe fn escape_units(mut dst: *mut u8, units: impl Iterator<Item = u32>) -> (*mut u8, bool) {
    let mut surrogates = false;
    for c in units {
        dst = if c < 0x80 {
            if plain_utf8(c as u8) {
                *dst = c as u8;
                dst.add(1)
            } else {
                ascii_escape(dst, c as u8)
            }
        } else if c < 0x800 {
            put(dst, &[0xc0 | (c >> 6) as u8, 0x80 | (c & 0x3f) as u8])
        } else if c < 0x10000 {
            surrogates |= (0xd800..0xe000).contains(&c);
            put(dst, &[0xe0 | (c >> 12) as u8, 0x80 | (c >> 6 & 0x3f) as u8, 0x80 | (c & 0x3f) as u8])
        } else {
            put(
                dst,
                &[
                    0xf0 | (c >> 18) as u8,
                    0x80 | (c >> 12 & 0x3f) as u8,
                    0x80 | (c >> 6 & 0x3f) as u8,
                    0x80 | (c & 0x3f) as u8,
                ],
            )
        };
    }
    (dst, surrogates)
}

/// `repr(float)` of CPython: the shortest digits that read back to `v`, in
/// fixed notation when the decimal exponent is from -4 to 16 (`0.0001`,
/// `1e+16` is the first in exponent form, `1e-05` the last below), with at
/// least one digit after the point (`1.0`) and at least two exponent digits.
pub fn write_float_repr(out: &mut Vec<u8>, v: f64) -> Written {
    if v.is_nan() {
        return extend(out, b"NaN");
    }
    if v.is_infinite() {
        return extend(out, if v > 0.0 { b"Infinity" } else { b"-Infinity" });
    }
    if v.is_sign_negative() {
        push(out, b'-')?;
    }
    if v == 0.0 {
        return extend(out, b"0.0");
    }
    let mut buf = zmij::Buffer::new();
    let text = buf.format_finite(v.abs()).as_bytes();
    // Digits and the position of the decimal point among them.
    let (mantissa, exp) = match text.iter().position(|&b| b == b'e' || b == b'E') {
        Some(e) => (&text[..e], parse_exp(&text[e + 1..])),
        None => (text, 0i32),
    };
    let mut digits = [0u8; 32];
    let mut n = 0usize;
    let mut int_len = 0i32;
    let mut seen_point = false;
    for &b in mantissa {
        if b == b'.' {
            seen_point = true;
        } else {
            if !seen_point {
                int_len += 1;
            }
            digits[n] = b;
            n += 1;
        }
    }
    let mut point = int_len + exp;
    let mut start = 0;
    while start < n && digits[start] == b'0' {
        start += 1;
        point -= 1;
    }
    let mut end = n;
    while end > start && digits[end - 1] == b'0' {
        end -= 1;
    }
    let d = &digits[start..end];
    let len = d.len() as i32;
    if !(-4 < point && point <= 16) {
        push(out, d[0])?;
        if d.len() > 1 {
            push(out, b'.')?;
            extend(out, &d[1..])?;
        }
        let e = point - 1;
        push(out, b'e')?;
        push(out, if e < 0 { b'-' } else { b'+' })?;
        let e = e.unsigned_abs();
        if e < 10 {
            push(out, b'0')?;
        }
        let mut tmp = [0u8; 4];
        let mut k = tmp.len();
        let mut x = e;
        loop {
            k -= 1;
            tmp[k] = b'0' + (x % 10) as u8;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        extend(out, &tmp[k..])
    } else if point <= 0 {
        // -point is at most 3 here.
        extend(out, b"0.")?;
        extend(out, &ZEROS[..(-point) as usize])?;
        extend(out, d)
    } else if point >= len {
        // point - len is at most 16 here.
        extend(out, d)?;
        extend(out, &ZEROS[..(point - len) as usize])?;
        extend(out, b".0")
    } else {
        extend(out, &d[..point as usize])?;
        push(out, b'.')?;
        extend(out, &d[point as usize..])
    }
}

const ZEROS: [u8; 16] = [b'0'; 16];

fn parse_exp(b: &[u8]) -> i32 {
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    let mut e = 0i32;
    for &c in digits {
        e = e * 10 + (c - b'0') as i32;
    }
    if neg {
        -e
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(v: f64) -> String {
        let mut out = Vec::new();
        write_float_repr(&mut out, v).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn float_repr_is_pythons() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (1e100, "1e+100"),
            (123.456, "123.456"),
            (-2.5, "-2.5"),
            (100.0, "100.0"),
            (1_617_161_771.765, "1617161771.765"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for &(v, want) in cases {
            assert_eq!(repr(v), want, "{v:e}");
        }
    }

    fn write(text: Text<'_>, ensure_ascii: bool) -> Vec<u8> {
        let mut w = StdlibWriter::new(Layout { ensure_ascii, ..Layout::default() });
        w.str(text).unwrap();
        w.out
    }

    #[test]
    fn strings_escape_as_the_stdlib_does() {
        let s = "a\"b\\c\n\t\x08\x0c\r\x01\x1f\x7f\u{e9}\u{3b1}\u{1d120}";
        assert_eq!(
            write(Text::Utf8(s.as_bytes()), true),
            br#""a\"b\\c\n\t\b\f\r\u0001\u001f\u007f\u00e9\u03b1\ud834\udd20""#.to_vec()
        );
        let plain = write(Text::Utf8(s.as_bytes()), false);
        assert_eq!(plain, "\"a\\\"b\\\\c\\n\\t\\b\\f\\r\\u0001\\u001f\x7f\u{e9}\u{3b1}\u{1d120}\"".as_bytes());
        let units: Vec<u32> = s.chars().map(|c| c as u32).collect();
        assert_eq!(write(Text::Ucs4(&units), true), write(Text::Utf8(s.as_bytes()), true));
        assert_eq!(write(Text::Ucs4(&units), false), plain);
        let lone = [0x61u16, 0xd800, 0x62];
        assert_eq!(write(Text::Ucs2(&lone), true), br#""a\ud800b""#.to_vec());
        let mut w = StdlibWriter::new(Layout::default());
        w.str(Text::Ucs2(&lone)).unwrap();
        assert!(w.surrogates);
        assert_eq!(w.out, b"\"a\xed\xa0\x80b\"".to_vec());
    }

    #[test]
    fn long_plain_runs_stop_at_every_special_byte() {
        for special in [b'"', b'\\', 0x7f, 0x00, 0x1f, 0xc3] {
            for at in 0..90 {
                let mut s = vec![b'x'; 90];
                s[at] = special;
                if special == 0xc3 {
                    s.insert(at + 1, 0xa9);
                }
                let text = Text::Utf8(&s);
                let got = write(text, true);
                let plain = write(text, false);
                let want: String = core::str::from_utf8(&s)
                    .unwrap()
                    .chars()
                    .map(|c| match c {
                        '"' => "\\\"".to_string(),
                        '\\' => "\\\\".to_string(),
                        c if (c as u32) < 0x20 || (c as u32) >= 0x7f => format!("\\u{:04x}", c as u32),
                        c => c.to_string(),
                    })
                    .collect();
                assert_eq!(got, format!("\"{want}\"").into_bytes());
                let want_plain: String = core::str::from_utf8(&s)
                    .unwrap()
                    .chars()
                    .map(|c| match c {
                        '"' => "\\\"".to_string(),
                        '\\' => "\\\\".to_string(),
                        c if (c as u32) < 0x20 => format!("\\u{:04x}", c as u32),
                        c => c.to_string(),
                    })
                    .collect();
                assert_eq!(plain, format!("\"{want_plain}\"").into_bytes());
            }
        }
    }

    #[test]
    fn ucs2_blocks_agree_with_one_unit_at_a_time() {
        // Mixed, then nearly all non-ASCII (the eight-unit SIMD blocks).
        let mixed: [u16; 12] = [
            b'a' as u16,
            b' ' as u16,
            b'"' as u16,
            b'\\' as u16,
            0x1f,
            0x7f,
            0x80,
            0x3042,
            0xd800,
            0xdc00,
            0xffff,
            0x20,
        ];
        let cjk: [u16; 12] =
            [0x3042, 0x80, 0xff, 0x100, 0x7ff, 0x800, 0xabcd, 0xd83d, 0xde00, 0xfedc, 0x4e00, b'x' as u16];
        let wide: [u16; 12] = [0x3042, 0x80, 0xff, 0x100, 0x7ff, 0x800, 0xabcd, 0xd83d, 0xde00, 0xfedc, 0x4e00, 0xffff];
        for alphabet in [mixed, cjk, wide] {
            let mut state = 0x2545_f491_4f6c_dd1du64;
            for len in 0..70 {
                for _ in 0..50 {
                    let units: Vec<u16> = (0..len)
                        .map(|_| {
                            state ^= state << 13;
                            state ^= state >> 7;
                            state ^= state << 17;
                            alphabet[(state % alphabet.len() as u64) as usize]
                        })
                        .collect();
                    let mut want = vec![b'"'];
                    for &c in &units {
                        let mut buf = [0u8; 12];
                        // SAFETY: 12 bytes for one unit.
                        let n =
                            unsafe { code_point_ascii(buf.as_mut_ptr(), c as u32).offset_from(buf.as_ptr()) } as usize;
                        want.extend_from_slice(&buf[..n]);
                    }
                    want.push(b'"');
                    assert_eq!(write(Text::Ucs2(&units), true), want, "{units:x?}");
                    // Each way on its own, whichever the dispatch picks here.
                    type Way = unsafe fn(*mut u8, &[u16]) -> *mut u8;
                    let mut ways: Vec<(&str, Way)> = vec![(
                        "words",
                        // SAFETY: the caller's room, 6 bytes per unit.
                        |dst, u| unsafe { escape_ucs2_ascii_words(dst, u, 0) },
                    )];
                    #[cfg(target_arch = "x86_64")]
                    {
                        if crate::cpu::ssse3() {
                            ways.push(("ssse3", ucs2_ssse3::escape));
                        }
                        if crate::cpu::avx2() {
                            ways.push(("avx2", ucs2_ssse3::escape_avx2));
                        }
                    }
                    for (name, way) in ways {
                        let mut out = vec![0u8; 6 * units.len() + 16];
                        // SAFETY: 6 bytes per unit; each SIMD way only where the CPU has it.
                        let n = unsafe { way(out.as_mut_ptr(), &units).offset_from(out.as_ptr()) } as usize;
                        assert_eq!(out[..n], want[1..want.len() - 1], "{name} {units:x?}");
                    }
                }
            }
        }
    }
}

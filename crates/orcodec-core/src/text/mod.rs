//! Text as CPython stores it, and its conversion to and from UTF-8.
//!
//! A compact `str` holds its code points in one of three widths (PEP 393). The
//! writers take that storage as it is, so no UTF-8 copy is ever cached on the
//! Python object.
//!
//! * [`ascii`]: is a byte string all ASCII (and copy it if so).
//! * `encode`: str storage to UTF-8, plain (MessagePack) or escaped as
//!   the inside of a JSON string: the scalar loops and the SSE2, SSSE3,
//!   AVX2 and AVX-512 kernels, and what picks among them.
//! * [`decode`]: UTF-8 to str storage (and UTF-8 validation), for both
//!   decoders.
//! * `swar`: byte tests on a 64-bit word, shared by the JSON writer and
//!   scanner.

use crate::fallible::NoMemory;
use encode::scalar;
#[cfg(target_arch = "x86_64")]
use encode::{avx512_vbmi2, ssse3, PlainUtf8};

pub mod ascii;
pub mod decode;
pub(crate) mod encode;
pub(crate) mod swar;

/// `a == b` inline, for short byte strings (keys, field names): a call to
/// `memcmp` per comparison costs more than comparing them a word at a time.
#[inline(always)]
pub fn short_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if a[i..i + 8] != b[i..i + 8] {
                return false;
            }
            i += 8;
        }
        return a[n - 8..] == b[n - 8..];
    }
    if n >= 4 {
        return a[..4] == b[..4] && a[n - 4..] == b[n - 4..];
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

/// A borrowed view of a string's storage.
#[derive(Clone, Copy, Debug)]
pub enum Text<'a> {
    /// Valid UTF-8 (ASCII-only `str`, or a cached UTF-8 form).
    Utf8(&'a [u8]),
    /// One byte per code point, some of them >= 0x80 (Latin-1).
    Ucs1(&'a [u8]),
    /// Two bytes per code point. Any surrogate here is a lone one.
    Ucs2(&'a [u16]),
    /// Four bytes per code point.
    Ucs4(&'a [u32]),
}

/// Bytes past a string's UTF-8 bound that [`Text::write_utf8`] may write
/// over (the SSSE3 steps store whole 16-byte words).
pub const WRITE_SLACK: usize = 8;

/// A string that cannot become UTF-8 because it holds a lone surrogate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurrogateError;

impl<'a> Text<'a> {
    /// Number of code units (an upper bound on nothing; just the length).
    pub fn units(&self) -> usize {
        match self {
            Text::Utf8(s) | Text::Ucs1(s) => s.len(),
            Text::Ucs2(s) => s.len(),
            Text::Ucs4(s) => s.len(),
        }
    }

    /// Code units `start..end` of the text, of the same kind. Storage is cut
    /// per unit: a UTF-8 slice may end inside a character (the writers treat
    /// its bytes one by one), a UCS2 one between two surrogates (in a str
    /// they are lone code points, never a pair).
    pub fn slice(&self, start: usize, end: usize) -> Text<'a> {
        match *self {
            Text::Utf8(s) => Text::Utf8(&s[start..end]),
            Text::Ucs1(s) => Text::Ucs1(&s[start..end]),
            Text::Ucs2(s) => Text::Ucs2(&s[start..end]),
            Text::Ucs4(s) => Text::Ucs4(&s[start..end]),
        }
    }

    /// The fewest and most UTF-8 bytes this text can take.
    pub fn utf8_len_bounds(&self) -> (usize, usize) {
        match self {
            Text::Utf8(s) => (s.len(), s.len()),
            Text::Ucs1(s) => (s.len(), s.len() * 2),
            Text::Ucs2(s) => (s.len(), s.len() * 3),
            Text::Ucs4(s) => (s.len(), s.len() * 4),
        }
    }

    /// Writes the UTF-8 form to `dst`, returning the bytes written. Bytes
    /// past those written, within the room, may be overwritten.
    ///
    /// # Safety
    /// `dst` must have room for `utf8_len_bounds().1 + WRITE_SLACK` bytes.
    #[inline]
    pub unsafe fn write_utf8(&self, dst: *mut u8) -> Result<usize, SurrogateError> {
        match *self {
            Text::Utf8(s) => {
                copy_bytes(s, dst);
                Ok(s.len())
            }
            #[cfg(target_arch = "x86_64")]
            _ if crate::cpu::avx512_vbmi2() => {
                // SAFETY: the CPU has what the AVX-512 transcoder needs
                // (checked just above); the room is the caller's promise.
                let end = match *self {
                    Text::Ucs1(s) => avx512_vbmi2::ucs1::<PlainUtf8>(s, dst)?,
                    Text::Ucs2(s) => avx512_vbmi2::wide::<u16, PlainUtf8>(s, dst)?,
                    // Short UCS4 (an emoji and a word) costs less through
                    // the loop than through the vector step's setup.
                    Text::Ucs4(s) if s.len() < 16 => return scalar::ucs4_to_utf8(s, dst),
                    Text::Ucs4(s) => avx512_vbmi2::wide::<u32, PlainUtf8>(s, dst)?,
                    #[expect(clippy::unreachable, reason = "UTF-8 text took the first arm")]
                    Text::Utf8(_) => unreachable!(),
                };
                Ok(end.offset_from(dst) as usize)
            }
            #[cfg(target_arch = "x86_64")]
            _ if crate::cpu::avx2_popcnt() => {
                // SAFETY: the CPU has what the AVX2 blocks need (checked
                // just above, and for the masked tails here); the room is
                // the caller's promise.
                let masked = crate::cpu::avx512_bw_vl_bmi2();
                let end = match *self {
                    Text::Ucs1(s) => encode::blocks_avx2::<u8, PlainUtf8>(s, dst, masked)?,
                    Text::Ucs2(s) => encode::blocks_avx2::<u16, PlainUtf8>(s, dst, masked)?,
                    Text::Ucs4(s) => encode::blocks_avx2::<u32, PlainUtf8>(s, dst, masked)?,
                    #[expect(clippy::unreachable, reason = "UTF-8 text took the first arm")]
                    Text::Utf8(_) => unreachable!(),
                };
                Ok(end.offset_from(dst) as usize)
            }
            #[cfg(target_arch = "x86_64")]
            _ => {
                // SAFETY: the SSSE3 steps where the CPU has them (SSE2, for
                // Latin-1, is part of x86-64); the room, with the slack
                // their whole-word stores need, is the caller's promise.
                // (UCS4 stays on the loop: its usual text, English with the
                // odd emoji, costs less there than through the SSSE3 steps.)
                let end = match *self {
                    Text::Ucs1(s) => encode::utf8_ucs1_plain(s, dst),
                    Text::Ucs2(s) if crate::cpu::ssse3() => ssse3::utf8_wide_ssse3(s, dst)?,
                    Text::Ucs2(s) => dst.add(scalar::ucs2_to_utf8(s, dst)?),
                    Text::Ucs4(s) => dst.add(scalar::ucs4_to_utf8(s, dst)?),
                    #[expect(clippy::unreachable, reason = "UTF-8 text took the first arm")]
                    Text::Utf8(_) => unreachable!(),
                };
                Ok(end.offset_from(dst) as usize)
            }
            #[cfg(not(target_arch = "x86_64"))]
            Text::Ucs1(s) => Ok(scalar::ucs1_to_utf8(s, dst)),
            #[cfg(not(target_arch = "x86_64"))]
            Text::Ucs2(s) => scalar::ucs2_to_utf8(s, dst),
            #[cfg(not(target_arch = "x86_64"))]
            Text::Ucs4(s) => scalar::ucs4_to_utf8(s, dst),
        }
    }

    /// The text with each lone surrogate replaced by `?`, which is what
    /// ormsgpack's `OPT_REPLACE_SURROGATES` writes. Only needed after a
    /// [`SurrogateError`], so it favours simplicity over speed; its memory
    /// is asked for once, and not getting it is an error.
    pub fn replace_surrogates(&self) -> Result<String, NoMemory> {
        fn collect<T: Copy + Into<u32>>(units: &[T], max: usize) -> Result<String, NoMemory> {
            let mut text = String::new();
            text.try_reserve_exact(max).map_err(|_| NoMemory)?;
            text.extend(units.iter().map(|&u| char::from_u32(u.into()).unwrap_or('?')));
            Ok(text)
        }
        let max = self.utf8_len_bounds().1;
        match *self {
            // Valid UTF-8 by construction, so nothing is replaced.
            Text::Utf8(s) => {
                let bytes = crate::fallible::copy(s)?;
                Ok(String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
            }
            Text::Ucs1(s) => collect(s, max),
            Text::Ucs2(s) => collect(s, max),
            Text::Ucs4(s) => collect(s, max),
        }
    }
}

/// Copies `src` to `dst` (not overlapping, room for `src.len()` bytes).
/// Most strings are short, and a call to memcpy costs more than copying
/// them: up to 32 bytes are copied with two overlapping loads and stores of
/// the largest width that fits, reading and writing only within both areas.
///
/// # Safety
/// `dst` must be valid for writing `src.len()` bytes and not overlap `src`.
#[inline(always)]
pub unsafe fn copy_bytes(src: &[u8], dst: *mut u8) {
    let n = src.len();
    let p = src.as_ptr();
    unsafe fn two<T: Copy>(p: *const u8, dst: *mut u8, n: usize) {
        let w = core::mem::size_of::<T>();
        let head = (p as *const T).read_unaligned();
        let tail = (p.add(n - w) as *const T).read_unaligned();
        (dst as *mut T).write_unaligned(head);
        (dst.add(n - w) as *mut T).write_unaligned(tail);
    }
    if n >= 16 {
        if n <= 32 {
            two::<u128>(p, dst, n);
        } else {
            core::ptr::copy_nonoverlapping(p, dst, n);
        }
    } else if n >= 8 {
        two::<u64>(p, dst, n);
    } else if n >= 4 {
        two::<u32>(p, dst, n);
    } else if n >= 2 {
        two::<u16>(p, dst, n);
    } else if n == 1 {
        *dst = *p;
    }
}

/// Writes one code point (not a surrogate, < 0x110000) and returns the new end.
///
/// # Safety
/// `out` must have room for 4 bytes.
#[inline(always)]
pub unsafe fn put_code_point(out: *mut u8, c: u32) -> *mut u8 {
    if c < 0x80 {
        *out = c as u8;
        out.add(1)
    } else if c < 0x800 {
        *out = 0xC0 | (c >> 6) as u8;
        *out.add(1) = 0x80 | (c & 0x3F) as u8;
        out.add(2)
    } else if c < 0x10000 {
        *out = 0xE0 | (c >> 12) as u8;
        *out.add(1) = 0x80 | ((c >> 6) & 0x3F) as u8;
        *out.add(2) = 0x80 | (c & 0x3F) as u8;
        out.add(3)
    } else {
        *out = 0xF0 | (c >> 18) as u8;
        *out.add(1) = 0x80 | ((c >> 12) & 0x3F) as u8;
        *out.add(2) = 0x80 | ((c >> 6) & 0x3F) as u8;
        *out.add(3) = 0x80 | (c & 0x3F) as u8;
        out.add(4)
    }
}

#[inline(always)]
pub fn is_surrogate(c: u32) -> bool {
    (0xD800..0xE000).contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::utf8_each_way;

    /// `t` as UTF-8 through every transcoder, all agreeing.
    fn utf8(t: Text) -> Result<Vec<u8>, SurrogateError> {
        let results = utf8_each_way(t);
        for w in results.windows(2) {
            assert_eq!(w[0].1, w[1].1, "{} and {} disagree on {t:?}", w[0].0, w[1].0);
        }
        results.into_iter().last().unwrap().1
    }

    /// `short_eq` against `==`: every length to 40, equal, differing at
    /// each position (by one bit, high or low), and lengths differing by one.
    #[test]
    fn short_eq_agrees_with_eq() {
        for n in 0..=40usize {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(short_eq(&a, &a.clone()), "{n}");
            for i in 0..n {
                for bit in [0x01u8, 0x80] {
                    let mut b = a.clone();
                    b[i] ^= bit;
                    assert!(!short_eq(&a, &b), "{n} {i} {bit}");
                    assert!(!short_eq(&b, &a), "{n} {i} {bit}");
                }
            }
            let mut longer = a.clone();
            longer.push(b'z');
            assert!(!short_eq(&a, &longer) && !short_eq(&longer, &a), "{n}");
            assert!(!short_eq(&a, &longer[1..]) || a[..] == longer[1..], "{n}");
        }
    }

    /// Code points at each UTF-8 length boundary.
    const CLASSES: [u32; 20] = [
        0x00, 0x01, 0x22, 0x5C, 0x61, 0x7F, 0x80, 0xA9, 0xFF, 0x100, 0x3B1, 0x7FF, 0x800, 0x4E2D, 0xD7FF, 0xE000,
        0xFFFF, 0x10000, 0x1F600, 0x10FFFF,
    ];

    /// `units` in every storage width it fits, against `char::encode_utf8`.
    fn check_every_width(units: &[u32]) {
        let s: String = units.iter().map(|&c| char::from_u32(c).unwrap()).collect();
        assert_eq!(utf8(Text::Ucs4(units)).unwrap(), s.as_bytes(), "ucs4 {s:?}");
        if units.iter().all(|&c| c < 0x10000) {
            let ucs2: Vec<u16> = units.iter().map(|&c| c as u16).collect();
            assert_eq!(utf8(Text::Ucs2(&ucs2)).unwrap(), s.as_bytes(), "ucs2 {s:?}");
        }
        if units.iter().all(|&c| c < 0x100) {
            let ucs1: Vec<u8> = units.iter().map(|&c| c as u8).collect();
            assert_eq!(utf8(Text::Ucs1(&ucs1)).unwrap(), s.as_bytes(), "ucs1 {s:?}");
        }
    }

    #[test]
    fn every_class_length_and_position() {
        for len in 0..100usize {
            for (j, &c) in CLASSES.iter().enumerate() {
                check_every_width(&vec![c; len]);
                for pos in 0..len {
                    let units: Vec<u32> =
                        (0..len).map(|k| if k == pos { c } else { b'a' as u32 + (k % 26) as u32 }).collect();
                    check_every_width(&units);
                }
                let mixed: Vec<u32> = (0..len).map(|k| CLASSES[(k * 7 + j + k / 5) % CLASSES.len()]).collect();
                check_every_width(&mixed);
                let narrow: Vec<u32> = mixed.iter().map(|&c| c & 0xFF).collect();
                check_every_width(&narrow);
            }
        }
    }

    #[test]
    fn lone_surrogates_refused_at_every_position() {
        for len in 1..70usize {
            for pos in 0..len {
                for surrogate in [0xD800u32, 0xDBFF, 0xDC00, 0xDFFF] {
                    for filler in [0x61u32, 0xE9, 0x4E2D, 0x1F600] {
                        let units: Vec<u32> = (0..len).map(|k| if k == pos { surrogate } else { filler }).collect();
                        assert_eq!(utf8(Text::Ucs4(&units)), Err(SurrogateError));
                        if filler < 0x10000 {
                            let ucs2: Vec<u16> = units.iter().map(|&c| c as u16).collect();
                            assert_eq!(utf8(Text::Ucs2(&ucs2)), Err(SurrogateError));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_width_matches_std() {
        let s = "aé中😀\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}";
        let ucs4: Vec<u32> = s.chars().map(|c| c as u32).collect();
        assert_eq!(utf8(Text::Ucs4(&ucs4)).unwrap(), s.as_bytes());
        let bmp = "aé中\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}";
        let ucs2: Vec<u16> = bmp.chars().map(|c| c as u16).collect();
        assert_eq!(utf8(Text::Ucs2(&ucs2)).unwrap(), bmp.as_bytes());
        let latin: Vec<u8> = (0u32..256).map(|c| c as u8).collect();
        let expected: String = (0u32..256).map(|c| char::from_u32(c).unwrap()).collect();
        assert_eq!(utf8(Text::Ucs1(&latin)).unwrap(), expected.as_bytes());
    }

    #[test]
    fn copy_bytes_every_length() {
        for n in 0..80 {
            let src: Vec<u8> = (0..n as u8).map(|b| b.wrapping_mul(7).wrapping_add(1)).collect();
            let mut dst = vec![0xAAu8; n + 8];
            // SAFETY: `dst` has room for the `n` bytes of `src`; they do not overlap.
            unsafe { copy_bytes(&src, dst.as_mut_ptr()) };
            assert_eq!(&dst[..n], &src[..]);
            assert!(dst[n..].iter().all(|&b| b == 0xAA), "wrote past {n}");
        }
    }

    #[test]
    fn narrow_and_wide_runs_at_every_offset() {
        for len in 0..50 {
            for pos in 0..len {
                for special in ['é', '\u{ff}', '中', '\u{7ff}', '\u{800}', '\u{ffff}'] {
                    let s: String =
                        (0..len).map(|k| if k == pos || (k > pos + 9 && k % 2 == 0) { special } else { 'a' }).collect();
                    let ucs2: Vec<u16> = s.chars().map(|c| c as u16).collect();
                    assert_eq!(utf8(Text::Ucs2(&ucs2)).unwrap(), s.as_bytes(), "{s:?}");
                    if (special as u32) < 0x100 {
                        let ucs1: Vec<u8> = s.chars().map(|c| c as u8).collect();
                        assert_eq!(utf8(Text::Ucs1(&ucs1)).unwrap(), s.as_bytes(), "{s:?}");
                    }
                }
            }
            let mut ucs2: Vec<u16> = "a".repeat(len).encode_utf16().collect();
            if len > 0 {
                ucs2[len - 1] = 0xD800;
                assert_eq!(utf8(Text::Ucs2(&ucs2)), Err(SurrogateError));
            }
        }
    }

    #[test]
    fn lone_surrogates_are_refused() {
        assert_eq!(utf8(Text::Ucs2(&[0x61, 0xD800])), Err(SurrogateError));
        assert_eq!(utf8(Text::Ucs4(&[0xDFFF, 0x1F600])), Err(SurrogateError));
    }

    #[test]
    fn surrogates_replaced_by_question_marks() {
        assert_eq!(Text::Ucs2(&[0x61, 0xD800, 0x4E2D]).replace_surrogates().unwrap(), "a?中");
        // A pair stored as two code points is two lone surrogates, as in Python.
        assert_eq!(Text::Ucs4(&[0xD83D, 0xDE00, 0x1F600]).replace_surrogates().unwrap(), "??😀");
        assert_eq!(Text::Ucs1(&[0x63, 0xE9]).replace_surrogates().unwrap(), "cé");
        assert_eq!(Text::Utf8("ok😀".as_bytes()).replace_surrogates().unwrap(), "ok😀");
    }
}

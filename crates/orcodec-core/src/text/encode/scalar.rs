//! One code unit (or one byte) at a time: the plain UTF-8 loops (with an
//! SSE2 step over ASCII runs on x86-64), the byte tables of the JSON escape
//! loop, and the prefix copy for other architectures. Also the reference
//! the SIMD kernels are tested against.

use super::{put_escape, ESCAPE};
#[cfg(any(test, not(target_arch = "x86_64")))]
use crate::text::swar::special_bytes;
use crate::text::{is_surrogate, put_code_point, SurrogateError};

/// # Safety
/// `dst` must have room for `2 * src.len()` bytes.
#[cfg(any(test, fuzzing, not(target_arch = "x86_64")))]
#[inline]
pub(crate) unsafe fn ucs1_to_utf8(src: &[u8], dst: *mut u8) -> usize {
    let mut out = dst;
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    while i < n {
        // Sixteen ASCII bytes at a time are copied as they are (room: 2 bytes
        // per unit, so at least 32 are left); a block with a Latin-1 byte is
        // done one byte at a time.
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::*;
            while n - i >= 16 {
                let v = _mm_loadu_si128(p.add(i) as *const __m128i);
                if _mm_movemask_epi8(v) != 0 {
                    break;
                }
                _mm_storeu_si128(out as *mut __m128i, v);
                i += 16;
                out = out.add(16);
            }
        }
        let end = n.min(i + 16);
        while i < end {
            let c = *p.add(i);
            if c < 0x80 {
                *out = c;
                out = out.add(1);
            } else {
                *out = 0xC0 | (c >> 6);
                *out.add(1) = 0x80 | (c & 0x3F);
                out = out.add(2);
            }
            i += 1;
        }
    }
    out.offset_from(dst) as usize
}

/// # Safety
/// `dst` must have room for `3 * src.len()` bytes.
#[inline]
pub(crate) unsafe fn ucs2_to_utf8(src: &[u16], dst: *mut u8) -> Result<usize, SurrogateError> {
    let mut out = dst;
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    while i < n {
        // Eight ASCII units at a time are narrowed to bytes (room: 3 bytes per
        // unit, so at least 24 are left); a block with any other unit is done
        // one unit at a time, so CJK runs pay one failed check per 8 units.
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::*;
            while n - i >= 8 {
                let v = _mm_loadu_si128(p.add(i) as *const __m128i);
                let high = _mm_and_si128(v, _mm_set1_epi16(0xFF80u16 as i16));
                if _mm_movemask_epi8(_mm_cmpeq_epi16(high, _mm_setzero_si128())) != 0xFFFF {
                    break;
                }
                _mm_storel_epi64(out as *mut __m128i, _mm_packus_epi16(v, v));
                i += 8;
                out = out.add(8);
            }
        }
        let end = n.min(i + 8);
        while i < end {
            let c = *p.add(i) as u32;
            if is_surrogate(c) {
                return Err(SurrogateError);
            }
            out = put_code_point(out, c);
            i += 1;
        }
    }
    Ok(out.offset_from(dst) as usize)
}

/// # Safety
/// `dst` must have room for `4 * src.len()` bytes.
#[inline]
pub(crate) unsafe fn ucs4_to_utf8(src: &[u32], dst: *mut u8) -> Result<usize, SurrogateError> {
    let mut out = dst;
    for &c in src {
        if is_surrogate(c) {
            return Err(SurrogateError);
        }
        out = put_code_point(out, c);
    }
    Ok(out.offset_from(dst) as usize)
}

/// What each byte becomes inside a JSON string, for the byte loop of
/// [`escape_bytes`]: up to two output bytes (little-endian) in bits 0..16 and
/// their count in bits 16..; a count of 0 marks the six-byte `\u00XX`.
/// `UCS1` is for Latin-1 code units, whose bytes >= 0x80 become two UTF-8
/// bytes; otherwise they are UTF-8 already and stay as they are.
const fn escape_table<const UCS1: bool, const ESC: bool>() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut c = 0;
    while c < 256 {
        table[c] = if c >= 0x80 {
            if UCS1 {
                (2 << 16) | ((0x80 | (c as u32 & 0x3F)) << 8) | (0xC0 | (c as u32 >> 6))
            } else {
                (1 << 16) | c as u32
            }
        } else {
            match if ESC { ESCAPE[c] } else { 0 } {
                0 => (1 << 16) | c as u32,
                b'u' => 0,
                e => (2 << 16) | ((e as u32) << 8) | b'\\' as u32,
            }
        };
        c += 1;
    }
    table
}

pub(super) static UTF8_ESCAPED: [u32; 256] = escape_table::<false, true>();
pub(super) static UCS1_ESCAPED: [u32; 256] = escape_table::<true, true>();
/// Latin-1 to plain UTF-8, nothing escaped (MessagePack's fallback).
pub(super) static UCS1_PLAIN: [u32; 256] = escape_table::<true, false>();

/// Escapes `p[i..end]` one byte at a time through `table`: a load, a two-byte
/// store and an add per byte, with no branch but for the rare `\u00XX`, so
/// text dense with escapes costs no mispredictions.
///
/// # Safety
/// `p[i..end]` readable; `out` has room for `6 * (end - i) + 1` bytes.
#[inline(always)]
pub(super) unsafe fn escape_bytes(
    p: *const u8,
    mut i: usize,
    end: usize,
    mut out: *mut u8,
    table: &[u32; 256],
) -> *mut u8 {
    while i < end {
        let c = *p.add(i);
        let e = table[c as usize];
        if e == 0 {
            out = put_escape(out, c);
        } else {
            (out as *mut u16).write_unaligned(e as u16);
            out = out.add((e >> 16) as usize);
        }
        i += 1;
    }
    out
}

/// [`copy_clean_prefix`](super::copy_clean_prefix) without SIMD: eight bytes at a time, then one by one.
/// Also built for the tests, which hold it to the SSE2 version.
///
/// # Safety
/// `out` must have room for `src.len() + 8` bytes.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
pub(super) unsafe fn copy_clean_prefix(src: &[u8], out: *mut u8) -> usize {
    let (n, p) = (src.len(), src.as_ptr());
    let mut i = 0;
    while n - i >= 8 {
        let word = u64::from_le_bytes(*(p.add(i) as *const [u8; 8]));
        (out.add(i) as *mut [u8; 8]).write_unaligned(word.to_le_bytes());
        let mask = special_bytes(word, false);
        if mask != 0 {
            return i + (mask.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n {
        let c = *p.add(i);
        if c < 0x80 && ESCAPE[c as usize] != 0 {
            break;
        }
        *out.add(i) = c;
        i += 1;
    }
    i
}

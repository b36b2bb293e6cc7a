//! CPython's str storage to UTF-8: plain, for MessagePack, or escaped as
//! the inside of a JSON string (`"`, `\\` and controls below 0x20 escaped as
//! orjson does, lone surrogates refused). Plain and escaped output come out
//! of the same kernels, switched by a const parameter or a [`Specials`] type.
//!
//! * [`scalar`]: one unit at a time; the reference.
//! * [`sse2`]: 16 bytes a step (the x86-64 baseline).
//! * [`wide`] and [`ssse3`]: UCS2/UCS4 a unit at a time with eight-unit
//!   steps, and the SSSE3 kernel that encodes four units side by side.
//! * [`avx2`] and [`avx512_bw`]: the copy of a UTF-8 string up to its first
//!   byte to escape, 32 or 64 bytes a step.
//! * [`avx512_vbmi2`]: UCS1/UCS2/UCS4 to UTF-8 a vector of units a step,
//!   for both formats.
//! * [`avx2_blocks`], [`avx2_wide`] and [`avx512_bw_wide`]: UCS1/UCS2/UCS4
//!   to UTF-8 a block of 8 or 16 units a step with AVX2, for both formats,
//!   short tails staged by byte copies or (AVX-512 BW) masked moves.
//!
//! [`copy_clean_prefix`] and [`escape_text`] here pick the kernel for JSON
//! by what the CPU has ([`crate::cpu`]); [`Text::write_utf8`] for plain UTF-8.
//!
//! [`Text::write_utf8`]: crate::text::Text::write_utf8

use crate::text::{put_code_point, SurrogateError, Text};
use scalar::{escape_bytes, UCS1_ESCAPED, UCS1_PLAIN, UTF8_ESCAPED};
use wide::escape_wide_best;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx2_blocks;
#[cfg(target_arch = "x86_64")]
mod avx2_wide;
#[cfg(target_arch = "x86_64")]
mod avx512_bw;
#[cfg(target_arch = "x86_64")]
mod avx512_bw_wide;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512_vbmi2;
pub(crate) mod scalar;
#[cfg(target_arch = "x86_64")]
mod sse2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod ssse3;
mod unit;
mod wide;

/// What the transcoder does besides plain UTF-8: which code units it must
/// hand back to the caller, and how they are written. MessagePack refuses
/// lone surrogates only ([`PlainUtf8`]); JSON also escapes `"`, `\` and the
/// controls below 0x20.
pub(crate) trait Specials {
    /// Whether `"`, `\` and code points below 0x20 are special too.
    const JSON: bool;
    /// The room the caller has per code unit, if more than its UTF-8 needs
    /// (JSON: an escape's six bytes); 0 otherwise.
    const ROOM: usize;
    /// Writes special code unit `c` (an escape, or the surrogate error).
    ///
    /// # Safety
    /// `out` has room for what one code unit may take in this format.
    unsafe fn put(c: u32, out: *mut u8) -> Result<*mut u8, SurrogateError>;
}

/// Plain UTF-8: only lone surrogates are special, and they are refused.
pub(crate) struct PlainUtf8;

impl Specials for PlainUtf8 {
    const JSON: bool = false;
    const ROOM: usize = 0;
    #[inline(always)]
    unsafe fn put(_c: u32, _out: *mut u8) -> Result<*mut u8, SurrogateError> {
        Err(SurrogateError)
    }
}

/// JSON's special code units for the shared transcoder: the ASCII that needs
/// an escape, and lone surrogates (refused).
struct JsonEscapes;

impl Specials for JsonEscapes {
    const JSON: bool = true;
    const ROOM: usize = MAX_ESCAPED_PER_UNIT;
    #[inline(always)]
    unsafe fn put(c: u32, out: *mut u8) -> Result<*mut u8, SurrogateError> {
        escape_unit::<true>(c, out)
    }
}

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
pub(crate) const MAX_ESCAPED_PER_UNIT: usize = 6;

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

/// One code unit as JSON string content: escaped, or as its UTF-8.
///
/// # Safety
/// `out` must have room for 6 bytes.
#[inline(always)]
unsafe fn escape_unit<const ESC: bool>(c: u32, out: *mut u8) -> Result<*mut u8, SurrogateError> {
    if c < 0x80 {
        if ESC && ESCAPE[c as usize] != 0 {
            return Ok(put_escape(out, c as u8));
        }
        *out = c as u8;
        return Ok(out.add(1));
    }
    if c.wrapping_sub(0xD800) < 0x800 {
        return Err(SurrogateError);
    }
    Ok(put_code_point(out, c))
}

/// Bytes past the escaped text that the escapers may scribble on: they store
/// whole 8- and 16-byte words and then advance by the bytes that count.
pub(crate) const SLACK: usize = 8;

/// Escapes text from byte `i` on (`out` is where byte `i` goes): blocks of 16
/// bytes with nothing special are copied whole; a block with one special
/// byte is copied up to it, which is escaped, and the next block starts
/// after it; in a block with more, the rest goes through the byte loop.
/// `table` and `STOP_AT_NON_ASCII` go together: UTF-8 input copies its bytes
/// >= 0x80, Latin-1 input transcodes them. Returns the new end.
///
/// # Safety
/// `i <= src.len()`; `out` must have room for `6 * (src.len() - i) + SLACK` bytes.
#[inline(always)]
unsafe fn escape_blocks<const STOP_AT_NON_ASCII: bool>(
    src: &[u8],
    mut i: usize,
    mut out: *mut u8,
    table: &[u32; 256],
) -> *mut u8 {
    let n = src.len();
    let p = src.as_ptr();
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        while n - i >= 16 {
            let v = _mm_loadu_si128(p.add(i) as *const __m128i);
            _mm_storeu_si128(out as *mut __m128i, v);
            let mask = sse2::special::<STOP_AT_NON_ASCII>(v);
            if mask == 0 {
                i += 16;
                out = out.add(16);
                continue;
            }
            let k = mask.trailing_zeros() as usize;
            if mask & (mask - 1) == 0 {
                // Just one: escape it and go on with the next block from
                // the byte after it (sparse escapes stay on the fast path).
                out = escape_bytes(p, i + k, i + k + 1, out.add(k), table);
                i += k + 1;
                continue;
            }
            out = escape_bytes(p, i + k, i + 16, out.add(k), table);
            i += 16;
        }
    }
    escape_bytes(p, i, n, out, table)
}

/// Escapes UTF-8 (or ASCII) text from byte `i` on. Returns the new end.
///
/// # Safety
/// As [`escape_blocks`].
#[inline]
pub(crate) unsafe fn escape_utf8_from(src: &[u8], i: usize, out: *mut u8) -> *mut u8 {
    escape_blocks::<false>(src, i, out, &UTF8_ESCAPED)
}

/// Escapes Latin-1 text (at least one byte >= 0x80) into UTF-8.
///
/// # Safety
/// `out` must have room for `6 * src.len() + SLACK` bytes.
#[inline]
unsafe fn escape_ucs1(src: &[u8], out: *mut u8) -> *mut u8 {
    escape_blocks::<true>(src, 0, out, &UCS1_ESCAPED)
}

/// Latin-1 to plain UTF-8 (nothing escaped) through the blocks and byte
/// table of [`escape_ucs1`]: MessagePack's transcoder where the CPU lacks
/// AVX-512 VBMI2. Returns the new end.
///
/// # Safety
/// `out` has room for 2 bytes per unit.
pub(crate) unsafe fn utf8_ucs1_plain(src: &[u8], out: *mut u8) -> *mut u8 {
    escape_blocks::<true>(src, 0, out, &UCS1_PLAIN)
}

/// Copies `src` to `out` up to its first byte that needs escaping and returns
/// that byte's position (`src.len()` if there is none). The hot part of
/// every string written: text of 32 bytes or more goes 32 or 64 bytes at a
/// time where the CPU has AVX2 (checked at run time; std caches the answer),
/// the rest 16 at a time with SSE2, the last block overlapping the one
/// before, a short text in one block built from overlapping loads.
///
/// # Safety
/// `out` must have room for `src.len() + 16` bytes (whole blocks are stored).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn copy_clean_prefix(src: &[u8], out: *mut u8) -> usize {
    if crate::cpu::avx512_bw_vl_bmi2() {
        return avx512_bw::copy_clean_prefix(src, out);
    }
    if src.len() >= 32 && crate::cpu::avx2() {
        return avx2::copy_clean_prefix(src, out);
    }
    sse2::copy_clean_prefix(src, out)
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) unsafe fn copy_clean_prefix(src: &[u8], out: *mut u8) -> usize {
    scalar::copy_clean_prefix(src, out)
}

/// Escapes `text` into UTF-8 at `out` with the best transcoder the CPU has:
/// the AVX-512 VBMI2 one shared with MessagePack, else the AVX2 blocks (their
/// tails masked with AVX-512 BW), else SSSE3 blocks or a loop. Returns the
/// new end.
///
/// # Safety
/// `out` must have room for `6 * text.units() + SLACK` bytes.
#[inline(always)]
pub(crate) unsafe fn escape_text(text: Text<'_>, out: *mut u8) -> Result<*mut u8, SurrogateError> {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::avx512_vbmi2() {
            return escape_text_avx512(text, out);
        }
        if crate::cpu::avx2_popcnt() {
            return escape_text_avx2(text, out, crate::cpu::avx512_bw_vl_bmi2());
        }
    }
    escape_text_fallback(text, out)
}

/// Latin-1, UCS2 or UCS4 units to UTF-8 through the AVX2 block transcoder
/// for the format `S`, its tails masked where `masked`. Returns the new end.
///
/// # Safety
/// `out` has room for `T::MAX_UTF8` bytes per unit, or `S::ROOM` if that is
/// more, plus [`SLACK`]; the CPU has AVX2 and POPCNT
/// ([`crate::cpu::avx2_popcnt`]), and with `masked` also AVX-512 BW/VL and
/// BMI2 ([`crate::cpu::avx512_bw_vl_bmi2`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn blocks_avx2<T: avx2_blocks::BlockUnit, S: Specials>(
    src: &[T],
    out: *mut u8,
    masked: bool,
) -> Result<*mut u8, SurrogateError> {
    if masked {
        avx512_bw_wide::avx512_bw::<T, S>(src, out)
    } else {
        avx2_wide::avx2::<T, S>(src, out)
    }
}

/// [`escape_text`] through the AVX2 block transcoder ([`blocks_avx2`]).
///
/// # Safety
/// As [`escape_text`], and the CPU has what [`blocks_avx2`] needs.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn escape_text_avx2(text: Text<'_>, out: *mut u8, masked: bool) -> Result<*mut u8, SurrogateError> {
    // SAFETY: 6 bytes per unit, the most that UTF-8 or an escape takes.
    Ok(match text {
        Text::Utf8(s) => escape_utf8_from(s, 0, out),
        // As for AVX-512: short Latin-1 through the byte table.
        Text::Ucs1(s) if s.len() < 16 => escape_ucs1(s, out),
        Text::Ucs1(s) => blocks_avx2::<u8, JsonEscapes>(s, out, masked)?,
        Text::Ucs2(s) => blocks_avx2::<u16, JsonEscapes>(s, out, masked)?,
        Text::Ucs4(s) => blocks_avx2::<u32, JsonEscapes>(s, out, masked)?,
    })
}

/// [`escape_text`] through the AVX-512 transcoder.
///
/// # Safety
/// As [`escape_text`], and the CPU has what the transcoder needs
/// ([`crate::cpu::avx512_vbmi2`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn escape_text_avx512(text: Text<'_>, out: *mut u8) -> Result<*mut u8, SurrogateError> {
    // SAFETY: 6 bytes per unit, the most that UTF-8 or an escape takes.
    Ok(match text {
        Text::Utf8(s) => escape_utf8_from(s, 0, out),
        // Short Latin-1 (names, words) costs less through the byte table
        // than through the vector step's setup.
        Text::Ucs1(s) if s.len() < 16 => escape_ucs1(s, out),
        Text::Ucs1(s) => avx512_vbmi2::ucs1::<JsonEscapes>(s, out)?,
        Text::Ucs2(s) => avx512_vbmi2::wide::<u16, JsonEscapes>(s, out)?,
        Text::Ucs4(s) => avx512_vbmi2::wide::<u32, JsonEscapes>(s, out)?,
    })
}

/// [`escape_text`] for CPUs without AVX-512 VBMI2.
///
/// # Safety
/// As [`escape_text`].
#[inline(always)]
pub(crate) unsafe fn escape_text_fallback(text: Text<'_>, out: *mut u8) -> Result<*mut u8, SurrogateError> {
    Ok(match text {
        Text::Utf8(s) => escape_utf8_from(s, 0, out),
        Text::Ucs1(s) => escape_ucs1(s, out),
        Text::Ucs2(s) => escape_wide_best(s, out)?,
        Text::Ucs4(s) => escape_wide_best(s, out)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_prefix_of_long_texts_at_every_output_offset() {
        // From 64 KiB, AVX-512 aligns its stores after a first step: at each
        // of the 64 offsets the output can start at, a special byte in that
        // step, where it overlaps the aligned steps, after them, near the
        // end and nowhere (the other kernels take the same texts).
        let len = (64 << 10) + 77;
        let specials = [b'"', b'\\', 0x00, 0x1f];
        let positions: Vec<Option<usize>> =
            (0..140).chain((len - 140..len).step_by(3)).chain([len / 2]).map(Some).chain([None]).collect();
        let mut out = vec![0u8; len + 128];
        for (k, &pos) in positions.iter().enumerate() {
            let mut src: Vec<u8> = (0..len).map(|k| b'a' + (k % 26) as u8).collect();
            if let Some(pos) = pos {
                src[pos] = specials[k % specials.len()];
            }
            for offset in 0..64 {
                let at = offset + (64 - out.as_ptr() as usize % 64) % 64;
                // SAFETY: `out` has room for `len` bytes from `at` (< 128).
                let got = unsafe { copy_clean_prefix(&src, out.as_mut_ptr().add(at)) };
                assert_eq!(got, pos.unwrap_or(len), "offset {offset}, special at {pos:?}");
                assert!(out[at..at + got] == src[..got], "offset {offset}, special at {pos:?}");
            }
        }
    }

    #[test]
    fn clean_prefix_portable_matches_simd() {
        // The portable prefix copy (other architectures) against the one in
        // use, for every length (past two 64-byte AVX2 steps), special byte
        // and position; then lengths around AVX-512's long-text path (from
        // 256 bytes, 64 per step, the rest by the short path).
        let specials = [b'"', b'\\', b'\n', 0x00, 0x1f, b'a', 0x7f, 0x80, 0xff];
        for len in (0..200).chain([255, 256, 257, 287, 288, 319, 320, 321, 383, 384, 385, 447, 448, 449, 500]) {
            for pos in 0..len.max(1) {
                for &special in &specials {
                    let mut src: Vec<u8> = (0..len).map(|k| b'a' + (k % 26) as u8).collect();
                    if len > 0 {
                        src[pos] = special;
                    }
                    let (mut a, mut b) = (vec![0u8; len + 16], vec![0u8; len + 16]);
                    // SAFETY: both outputs have room for len + 16 bytes.
                    let (x, y) = unsafe {
                        (copy_clean_prefix(&src, a.as_mut_ptr()), scalar::copy_clean_prefix(&src, b.as_mut_ptr()))
                    };
                    assert_eq!(x, y, "{src:?}");
                    assert_eq!(a[..x], src[..x]);
                    assert_eq!(b[..y], src[..y]);
                    // Each x86 path on its own, whichever the dispatch picks here.
                    #[cfg(target_arch = "x86_64")]
                    {
                        let mut c = vec![0u8; len + 16];
                        // SAFETY: room for len + 16 bytes; AVX2 only if the CPU has it.
                        unsafe {
                            assert_eq!(sse2::copy_clean_prefix(&src, c.as_mut_ptr()), y, "sse2 {src:?}");
                            if len >= 32 && crate::cpu::avx2() {
                                assert_eq!(avx2::copy_clean_prefix(&src, c.as_mut_ptr()), y, "avx2 {src:?}");
                            }
                        }
                        assert_eq!(c[..y], src[..y]);
                        if crate::cpu::avx512_bw_vl_bmi2() {
                            // Masked tails: nothing is written past the text.
                            let mut d = vec![0xeeu8; len + 32];
                            assert_eq!(
                                // SAFETY: room for len bytes; the CPU has AVX-512 BW/VL.
                                unsafe { avx512_bw::copy_clean_prefix(&src, d.as_mut_ptr()) },
                                y,
                                "avx512 {src:?}"
                            );
                            assert_eq!(d[..y], src[..y]);
                            assert!(d[len..].iter().all(|&b| b == 0xee), "avx512 wrote past {len}");
                        }
                    }
                }
            }
        }
    }
}

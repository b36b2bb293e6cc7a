//! The JSON backend: RFC 8259 text, byte for byte what orjson writes.

use crate::decimal;
use crate::emit::{items_one_by_one, Emitter};
use crate::sink::Sink;
#[cfg(target_arch = "x86_64")]
use crate::text::utf8_avx512;
use crate::text::{Specials, SurrogateError, Text};

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

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of the result is set where `word` has a byte that needs
/// escaping (< 0x20, `"` or `\`) or, with `stop_at_non_ascii`, a byte >= 0x80.
/// Bits above the first set one may be false positives; the first is exact.
#[inline(always)]
pub(crate) fn special_bytes(word: u64, stop_at_non_ascii: bool) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = (word ^ (ONES * b'"' as u64)).wrapping_sub(ONES) & !(word ^ (ONES * b'"' as u64));
    let backslash = (word ^ (ONES * b'\\' as u64)).wrapping_sub(ONES) & !(word ^ (ONES * b'\\' as u64));
    let mut mask = control | quote | backslash;
    if stop_at_non_ascii {
        mask |= word;
    }
    mask & HIGHS
}

/// Bytes past the escaped text that the escapers may scribble on: they store
/// whole 8- and 16-byte words and then advance by the bytes that count.
pub(crate) const SLACK: usize = 8;

#[cfg(target_arch = "x86_64")]
mod sse2 {
    //! 16 bytes at a time. SSE2 is part of x86_64, so no detection is needed.
    use core::arch::x86_64::*;

    /// A bit per byte of `v` that needs escaping (< 0x20, `"`, `\`) or, with
    /// `STOP_AT_NON_ASCII`, is >= 0x80. Exact in every lane.
    #[inline(always)]
    pub unsafe fn special<const STOP_AT_NON_ASCII: bool>(v: __m128i) -> u32 {
        let below_space = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        let mut mask = _mm_or_si128(_mm_or_si128(below_space, quote), backslash);
        if STOP_AT_NON_ASCII {
            mask = _mm_or_si128(mask, v);
        }
        _mm_movemask_epi8(mask) as u32
    }
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

static UTF8_ESCAPED: [u32; 256] = escape_table::<false, true>();
static UCS1_ESCAPED: [u32; 256] = escape_table::<true, true>();
/// Latin-1 to plain UTF-8, nothing escaped (MessagePack's fallback).
static UCS1_PLAIN: [u32; 256] = escape_table::<true, false>();

/// Escapes `p[i..end]` one byte at a time through `table`: a load, a two-byte
/// store and an add per byte, with no branch but for the rare `\u00XX`, so
/// text dense with escapes costs no mispredictions.
///
/// # Safety
/// `p[i..end]` readable; `out` has room for `6 * (end - i) + 1` bytes.
#[inline(always)]
unsafe fn escape_bytes(p: *const u8, mut i: usize, end: usize, mut out: *mut u8, table: &[u32; 256]) -> *mut u8 {
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
unsafe fn escape_utf8_from(src: &[u8], i: usize, out: *mut u8) -> *mut u8 {
    escape_blocks::<false>(src, i, out, &UTF8_ESCAPED)
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
unsafe fn copy_clean_prefix(src: &[u8], out: *mut u8) -> usize {
    if crate::cpu::avx512_bw_vl_bmi2() {
        return avx512::copy_clean_prefix(src, out);
    }
    if src.len() >= 32 && crate::cpu::avx2() {
        return avx2::copy_clean_prefix(src, out);
    }
    copy_clean_prefix_sse2(src, out)
}

/// [`copy_clean_prefix`] with SSE2 only.
///
/// # Safety
/// As [`copy_clean_prefix`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn copy_clean_prefix_sse2(src: &[u8], out: *mut u8) -> usize {
    use core::arch::x86_64::*;
    let n = src.len();
    let p = src.as_ptr();
    if n < 16 {
        // Lanes n.. hold copies of other bytes or zeros; they are masked out
        // of the check, and storing them only writes into the slack.
        let v = if n > 8 {
            let lo = (p as *const u64).read_unaligned();
            let hi = (p.add(n - 8) as *const u64).read_unaligned() >> ((16 - n) * 8);
            _mm_set_epi64x(hi as i64, lo as i64)
        } else if n >= 4 {
            // Four to eight bytes (the shift above would be by 64 for eight).
            let lo = (p as *const u32).read_unaligned() as u64;
            let hi = (p.add(n - 4) as *const u32).read_unaligned() as u64;
            _mm_cvtsi64_si128((lo | (hi << ((n - 4) * 8))) as i64)
        } else if n > 0 {
            // One, two or three bytes: first, middle and last.
            let w = *p as u64 | (*p.add(n / 2) as u64) << ((n / 2) * 8) | (*p.add(n - 1) as u64) << ((n - 1) * 8);
            _mm_cvtsi64_si128(w as i64)
        } else {
            return 0;
        };
        _mm_storeu_si128(out as *mut __m128i, v);
        let mask = sse2::special::<false>(v) & ((1u32 << n) - 1);
        return if mask == 0 { n } else { mask.trailing_zeros() as usize };
    }
    let mut i = 0;
    while n - i > 16 {
        let v = _mm_loadu_si128(p.add(i) as *const __m128i);
        _mm_storeu_si128(out.add(i) as *mut __m128i, v);
        let mask = sse2::special::<false>(v);
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    // The last 16 bytes; those before `i` in it were already found clean, so
    // the first special byte of this block is past them.
    let last = n - 16;
    let v = _mm_loadu_si128(p.add(last) as *const __m128i);
    _mm_storeu_si128(out.add(last) as *mut __m128i, v);
    let mask = sse2::special::<false>(v);
    if mask == 0 {
        n
    } else {
        last + mask.trailing_zeros() as usize
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn copy_clean_prefix(src: &[u8], out: *mut u8) -> usize {
    copy_clean_prefix_portable(src, out)
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! 32 bytes at a time, for CPUs that have AVX2 (the caller checks).
    use core::arch::x86_64::*;

    /// A bit per byte of `v` that needs escaping: < 0x20, `"` or `\`.
    #[inline(always)]
    unsafe fn special(v: __m256i) -> __m256i {
        let below_space = _mm256_cmpeq_epi8(_mm256_max_epu8(v, _mm256_set1_epi8(0x1f)), _mm256_set1_epi8(0x1f));
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        _mm256_or_si256(_mm256_or_si256(below_space, quote), backslash)
    }

    /// `copy_clean_prefix` for 32 bytes or more: 64 bytes per step, then 32,
    /// the last block overlapping the one before.
    ///
    /// # Safety
    /// `src.len() >= 32`, the CPU has AVX2, and `out` has room for
    /// `src.len()` bytes: every 32-byte load and store starts at an offset
    /// `o` with `o + 32 <= src.len()`.
    #[target_feature(enable = "avx2")]
    pub unsafe fn copy_clean_prefix(src: &[u8], out: *mut u8) -> usize {
        let n = src.len();
        let p = src.as_ptr();
        debug_assert!(n >= 32);
        let mut i = 0;
        while n - i >= 64 {
            let a = _mm256_loadu_si256(p.add(i) as *const __m256i);
            let b = _mm256_loadu_si256(p.add(i + 32) as *const __m256i);
            _mm256_storeu_si256(out.add(i) as *mut __m256i, a);
            _mm256_storeu_si256(out.add(i + 32) as *mut __m256i, b);
            let (sa, sb) = (special(a), special(b));
            if _mm256_movemask_epi8(_mm256_or_si256(sa, sb)) != 0 {
                let mask = _mm256_movemask_epi8(sa) as u32 as u64 | (_mm256_movemask_epi8(sb) as u32 as u64) << 32;
                return i + mask.trailing_zeros() as usize;
            }
            i += 64;
        }
        while n - i > 32 {
            let a = _mm256_loadu_si256(p.add(i) as *const __m256i);
            _mm256_storeu_si256(out.add(i) as *mut __m256i, a);
            let mask = _mm256_movemask_epi8(special(a)) as u32;
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 32;
        }
        if i == n {
            return n;
        }
        // The last 32 bytes; those before `i` in it were already found
        // clean, so the first special byte of this block is past them.
        let last = n - 32;
        let a = _mm256_loadu_si256(p.add(last) as *const __m256i);
        _mm256_storeu_si256(out.add(last) as *mut __m256i, a);
        let mask = _mm256_movemask_epi8(special(a)) as u32;
        if mask == 0 {
            n
        } else {
            last + mask.trailing_zeros() as usize
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    //! 32 bytes at a time with AVX-512 masks: the tail of a text (and every
    //! short text) is one masked load and store, with no branch on its length.
    use core::arch::x86_64::*;

    /// A bit per byte of `v` that needs escaping: < 0x20, `"` or `\`.
    #[inline(always)]
    unsafe fn special(v: __m256i) -> u32 {
        _mm256_cmplt_epu8_mask(v, _mm256_set1_epi8(0x20))
            | _mm256_cmpeq_epu8_mask(v, _mm256_set1_epi8(b'"' as i8))
            | _mm256_cmpeq_epu8_mask(v, _mm256_set1_epi8(b'\\' as i8))
    }

    /// `copy_clean_prefix` for any length.
    ///
    /// # Safety
    /// The CPU has AVX-512 BW and VL and BMI2, and `out` has room for
    /// `src.len()` bytes: whole 32-byte loads and stores start at `i` with
    /// `i + 32 <= src.len()`, the last (masked) ones touch only the bytes
    /// below `src.len()`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,bmi2")]
    pub unsafe fn copy_clean_prefix(src: &[u8], out: *mut u8) -> usize {
        let n = src.len();
        if n >= LONG {
            return copy_clean_prefix_long(src, out);
        }
        let p = src.as_ptr();
        let mut i = 0;
        while n - i >= 32 {
            let v = _mm256_loadu_si256(p.add(i) as *const __m256i);
            _mm256_storeu_si256(out.add(i) as *mut __m256i, v);
            let mask = special(v);
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 32;
        }
        let lanes = _bzhi_u32(u32::MAX, (n - i) as u32);
        let v = _mm256_maskz_loadu_epi8(lanes, p.add(i) as *const i8);
        _mm256_mask_storeu_epi8(out.add(i) as *mut i8, lanes, v);
        let mask = special(v) & lanes;
        if mask == 0 {
            n
        } else {
            i + mask.trailing_zeros() as usize
        }
    }

    /// Texts at least this long take [`copy_clean_prefix_long`].
    const LONG: usize = 256;

    /// `copy_clean_prefix` for texts of at least `LONG` bytes, out of line
    /// (so the short-text path inlined into every string write stays small):
    /// two vectors and one branch per step, the rest as `copy_clean_prefix`.
    /// The same steps as `avx2::copy_clean_prefix`, but with mask compares:
    /// calling that one instead made text_11kb.dumps 1.2-1.35x slower.
    ///
    /// # Safety
    /// As `copy_clean_prefix`.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,bmi2")]
    unsafe fn copy_clean_prefix_long(src: &[u8], out: *mut u8) -> usize {
        let n = src.len();
        let p = src.as_ptr();
        let mut i = 0;
        while n - i >= 64 {
            let a = _mm256_loadu_si256(p.add(i) as *const __m256i);
            let b = _mm256_loadu_si256(p.add(i + 32) as *const __m256i);
            _mm256_storeu_si256(out.add(i) as *mut __m256i, a);
            _mm256_storeu_si256(out.add(i + 32) as *mut __m256i, b);
            let mask = special(a) as u64 | (special(b) as u64) << 32;
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 64;
        }
        // Under 64 bytes left: the short path, from here.
        i + copy_clean_prefix(&src[i..], out.add(i))
    }
}

/// [`copy_clean_prefix`] without SIMD: eight bytes at a time, then one by one.
/// Also built for the tests, which hold it to the SSE2 version.
///
/// # Safety
/// `out` must have room for `src.len() + 8` bytes.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
unsafe fn copy_clean_prefix_portable(src: &[u8], out: *mut u8) -> usize {
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

/// Writes UTF-8 (or ASCII) text as a quoted JSON string. Text with nothing to
/// escape (nearly all of it) is one reserve, a block copy and two quotes,
/// inlined at the call; the rest continues out of line from the first
/// character that needs an escape.
#[inline(always)]
fn write_utf8<S: Sink>(out: &mut S, src: &[u8]) {
    let n = src.len();
    out.reserve(n + 2 + 16);
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
/// the closing quote.
#[inline(never)]
fn write_escaped_utf8<S: Sink>(out: &mut S, src: &[u8], i: usize) {
    out.reserve((src.len() - i) * MAX_ESCAPED_PER_UNIT + 1 + SLACK);
    // SAFETY: room for every remaining byte escaped, the quote and the slack.
    unsafe {
        let start = out.tail();
        let end = escape_utf8_from(src, i, start);
        *end = b'"';
        out.advance(end.offset_from(start) as usize + 1);
    }
}

/// Escapes Latin-1 text (at least one byte >= 0x80) into UTF-8.
///
/// # Safety
/// `out` must have room for `6 * src.len() + SLACK` bytes.
#[inline]
unsafe fn escape_ucs1(src: &[u8], out: *mut u8) -> *mut u8 {
    escape_blocks::<true>(src, 0, out, &UCS1_ESCAPED)
}

/// Escapes UCS2 or UCS4 code units into UTF-8.
///
/// One unit per step, branching on its UTF-8 length, which stays the same
/// along a run of text in one script (CJK: three bytes, Cyrillic: two), so
/// the branch predicts well; each sequence is one unaligned word store
/// (into the slack past it). Only an ASCII unit tries the eight-at-a-time
/// copy, so text without ASCII runs never pays for a failed attempt.
///
/// # Safety
/// `out` must have room for `6 * src.len() + SLACK` bytes.
#[inline(always)]
unsafe fn escape_wide<T: WideUnit, const SSSE3: bool>(src: &[T], mut out: *mut u8) -> Result<*mut u8, SurrogateError> {
    #[cfg(target_arch = "x86_64")]
    if SSSE3 {
        return escape_wide_ssse3::<T, true>(src, out);
    }
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    // Where the next eight-unit block may be tried: after a failed try, the
    // units it covered go one by one (mixed text pays once per eight).
    let mut blocks_from = 0;
    while i < n {
        let c: u32 = (*p.add(i)).to_u32();
        if c >= 0x80 && i >= blocks_from && n - i >= 8 {
            // Eight units that all take two (or, with SSSE3, all three)
            // bytes: a whole run of Cyrillic or CJK text goes eight at a time.
            let written = T::multibyte8::<SSSE3, true>(p.add(i), out);
            if written != 0 {
                i += 8;
                out = out.add(written);
                continue;
            }
            blocks_from = i + 8;
        }
        if c < 0x80 {
            if n - i >= 8 {
                let k = T::clean_ascii8::<true>(p.add(i), out);
                if k > 0 {
                    i += k;
                    out = out.add(k);
                    continue;
                }
            }
            let b = c as u8;
            if ESCAPE[b as usize] != 0 {
                out = put_escape(out, b);
            } else {
                *out = b;
                out = out.add(1);
            }
        } else if c < 0x800 {
            let pair = (0xC0 | c >> 6) | (0x80 | (c & 0x3F)) << 8;
            (out as *mut [u8; 2]).write_unaligned((pair as u16).to_le_bytes());
            out = out.add(2);
        } else if c < 0x10000 {
            if c & 0xF800 == 0xD800 {
                return Err(SurrogateError);
            }
            let triple = (0xE0 | c >> 12) | (0x80 | (c >> 6 & 0x3F)) << 8 | (0x80 | (c & 0x3F)) << 16;
            (out as *mut [u8; 4]).write_unaligned(triple.to_le_bytes());
            out = out.add(3);
        } else {
            let quad = (0xF0 | c >> 18)
                | (0x80 | (c >> 12 & 0x3F)) << 8
                | (0x80 | (c >> 6 & 0x3F)) << 16
                | (0x80 | (c & 0x3F)) << 24;
            (out as *mut [u8; 4]).write_unaligned(quad.to_le_bytes());
            out = out.add(4);
        }
        i += 1;
    }
    Ok(out)
}

/// [`escape_wide`] with SSSE3. From a non-ASCII unit on, eight units go at
/// once if they are all two-byte with clean ASCII between (Cyrillic, Greek,
/// accented Latin words and spaces) or all three-byte (CJK); otherwise four,
/// whatever their mix of one- to four-byte forms. Natural text switches
/// between ASCII and its own script every few characters, and a branch per
/// unit on its length mispredicts at each switch; here each unit's encoding
/// is computed in its lane and the used bytes gathered by one `pshufb` from
/// a table indexed by the lengths. A run of three-byte text then goes on
/// eight at a time. From an ASCII unit on, as much of the next eight as is
/// clean is copied. Escapes and surrogates go one by one.
///
/// callgrind, instructions + 15 x mispredictions, per dumps of 200 strings
/// of each kind, unit-by-unit loop -> this: Russian 682K -> 209K, Japanese
/// with ASCII 423K -> 333K, CJK 99K -> 86K, English with emoji 141K -> 190K.
///
/// # Safety
/// As [`escape_wide`], and the caller is compiled for SSSE3.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn escape_wide_ssse3<T: WideUnit, const ESC: bool>(
    src: &[T],
    mut out: *mut u8,
) -> Result<*mut u8, SurrogateError> {
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    while i < n {
        let c = (*p.add(i)).to_u32();
        if c < 0x80 && n - i >= 8 {
            // ASCII: as much of the next eight as is clean, then on.
            let clean = T::clean_ascii8::<ESC>(p.add(i), out);
            if clean > 0 {
                i += clean;
                out = out.add(clean);
                continue;
            }
        } else if c >= 0x80 && n - i >= 4 {
            if n - i >= 8 {
                // Eight units of two bytes with ASCII between, or of three.
                let written = T::multibyte8::<true, ESC>(p.add(i), out);
                if written != 0 {
                    i += 8;
                    out = out.add(written);
                    continue;
                }
            }
            match encode4::<T, ESC>(T::load4(p.add(i)), out) {
                Ok((written, lengths)) => {
                    i += 4;
                    out = out.add(written);
                    // A run of three-byte text goes on eight units at a time.
                    if lengths == ALL_THREE_BYTE {
                        while n - i >= 8 {
                            let written = T::multibyte8::<true, ESC>(p.add(i), out);
                            if written == 0 {
                                break;
                            }
                            i += 8;
                            out = out.add(written);
                        }
                    }
                    continue;
                }
                Err(refused) => {
                    // The units before the first refused one, and it, one
                    // by one, so the next try starts past it.
                    for k in 0..=refused {
                        out = escape_unit::<ESC>((*p.add(i + k)).to_u32(), out)?;
                    }
                    i += refused + 1;
                    continue;
                }
            }
        }
        out = escape_unit::<ESC>(c, out)?;
        i += 1;
    }
    Ok(out)
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
    Ok(crate::text::put_code_point(out, c))
}

/// The four code points in the 32-bit lanes of `c` as UTF-8 at `out`, if
/// none needs an escape or is a surrogate; returns the bytes written and the
/// lengths code (bit k: lane k's length less one is odd; bit 4 + k: it is 2
/// or 3). Otherwise the first such lane, writing nothing.
///
/// # Safety
/// `out` writable for 16 bytes; the caller is compiled for SSSE3.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn encode4<T: WideUnit, const ESC: bool>(
    c: core::arch::x86_64::__m128i,
    out: *mut u8,
) -> Result<(usize, usize), usize> {
    use core::arch::x86_64::*;
    let splat = _mm_set1_epi32;
    let mut refused = _mm_cmpeq_epi32(_mm_and_si128(c, splat(0x1F_F800)), splat(0xD800));
    if ESC {
        refused = _mm_or_si128(
            _mm_or_si128(_mm_cmplt_epi32(c, splat(0x20)), _mm_cmpeq_epi32(c, splat(b'"' as i32))),
            _mm_or_si128(_mm_cmpeq_epi32(c, splat(b'\\' as i32)), refused),
        );
    }
    let refused = _mm_movemask_ps(_mm_castsi128_ps(refused));
    if refused != 0 {
        return Err(refused.trailing_zeros() as usize);
    }
    let two_or_more = _mm_cmpgt_epi32(c, splat(0x7F));
    let three_or_more = _mm_cmpgt_epi32(c, splat(0x7FF));
    // UCS2 units are never beyond U+FFFF: no four-byte lanes to make.
    let four = if T::ASTRAL { _mm_cmpgt_epi32(c, splat(0xFFFF)) } else { _mm_setzero_si128() };
    // Continuation bytes: 10xxxxxx from bits 0-5, 6-11 and 12-17.
    let cont = |shift: i32| {
        let bits = _mm_and_si128(_mm_srl_epi32(c, _mm_cvtsi32_si128(shift)), splat(0x3F));
        _mm_or_si128(bits, splat(0x80))
    };
    let (c0, c6, c12) = (cont(0), cont(6), cont(12));
    // Each form's bytes, the first lowest.
    let two = _mm_or_si128(_mm_or_si128(_mm_srli_epi32(c, 6), splat(0xC0)), _mm_slli_epi32(c0, 8));
    let three = _mm_or_si128(
        _mm_or_si128(_mm_srli_epi32(c, 12), splat(0xE0)),
        _mm_or_si128(_mm_slli_epi32(c6, 8), _mm_slli_epi32(c0, 16)),
    );
    let four_bytes = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(_mm_srli_epi32(c, 18), splat(0xF0)), _mm_slli_epi32(c12, 8)),
        _mm_or_si128(_mm_slli_epi32(c6, 16), _mm_slli_epi32(c0, 24)),
    );
    let select = |mask, a, b| _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b));
    let mut encoded = select(three_or_more, three, select(two_or_more, two, c));
    if T::ASTRAL {
        encoded = select(four, four_bytes, encoded);
    }
    // Length less one per lane (the masks are -1 where set), as two bits.
    let extra = _mm_sub_epi32(_mm_setzero_si128(), _mm_add_epi32(_mm_add_epi32(two_or_more, three_or_more), four));
    let low = _mm_movemask_ps(_mm_castsi128_ps(_mm_slli_epi32(extra, 31)));
    let high = _mm_movemask_ps(_mm_castsi128_ps(_mm_slli_epi32(extra, 30)));
    let lengths = (low | high << 4) as usize;
    let gather = _mm_loadu_si128(GATHER_UTF8[lengths].as_ptr() as *const __m128i);
    _mm_storeu_si128(out as *mut __m128i, _mm_shuffle_epi8(encoded, gather));
    Ok((4 + (low.count_ones() + 2 * high.count_ones()) as usize, lengths))
}

/// `pshufb` tables for eight UCS2 units of one or two UTF-8 bytes: for each
/// mask of ASCII lanes, lane k's low byte (2k) and, unless it is ASCII, its
/// high byte (2k + 1), one after the other; 0x80 (zero) after them.
const GATHER_ONE_OR_TWO: [[u8; 16]; 256] = {
    let mut tables = [[0x80u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut at = 0;
        let mut lane = 0;
        while lane < 8 {
            tables[mask][at] = (2 * lane) as u8;
            at += 1;
            if mask >> lane & 1 == 0 {
                tables[mask][at] = (2 * lane + 1) as u8;
                at += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    tables
};

/// All four lanes three bytes long, in [`encode4`]'s code.
#[cfg(target_arch = "x86_64")]
const ALL_THREE_BYTE: usize = 0xF0;

/// `pshufb` tables for [`encode4`]: for each lengths code, the bytes of
/// each lane's encoding that are used (lane k's at 4k..), one after the
/// other; 0x80 (zero) after them.
const GATHER_UTF8: [[u8; 16]; 256] = {
    let mut tables = [[0x80u8; 16]; 256];
    let mut code = 0;
    while code < 256 {
        let mut at = 0;
        let mut lane = 0;
        while lane < 4 {
            let len = 1 + (code >> lane & 1) + 2 * (code >> (4 + lane) & 1);
            let mut b = 0;
            while b < len {
                tables[code][at] = (4 * lane + b) as u8;
                at += 1;
                b += 1;
            }
            lane += 1;
        }
        code += 1;
    }
    tables
};

/// [`escape_wide`] with its SSSE3 steps where the CPU has them.
///
/// # Safety
/// As [`escape_wide`].
#[inline(always)]
unsafe fn escape_wide_best<T: WideUnit>(src: &[T], out: *mut u8) -> Result<*mut u8, SurrogateError> {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::ssse3() {
        return escape_wide_with_ssse3(src, out);
    }
    escape_wide::<T, false>(src, out)
}

/// [`escape_wide`] compiled for SSSE3.
///
/// # Safety
/// As [`escape_wide`], and the CPU has SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn escape_wide_with_ssse3<T: WideUnit>(src: &[T], out: *mut u8) -> Result<*mut u8, SurrogateError> {
    escape_wide::<T, true>(src, out)
}

/// UCS2/UCS4 units to plain UTF-8 (nothing escaped, lone surrogates
/// refused) through the SSSE3 steps of [`escape_wide`]: MessagePack's
/// transcoder where the CPU lacks AVX-512 VBMI2.
///
/// # Safety
/// `out` has room for 3 (UCS2) or 4 (UCS4) bytes per unit plus
/// [`crate::text::WRITE_SLACK`]; the CPU has SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
pub(crate) unsafe fn utf8_wide_ssse3<T: WideUnit>(src: &[T], out: *mut u8) -> Result<*mut u8, SurrogateError> {
    escape_wide_ssse3::<T, false>(src, out)
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

/// A UCS2 or UCS4 code unit.
pub(crate) trait WideUnit: Copy {
    /// Whether a unit can be beyond U+FFFF.
    const ASTRAL: bool;
    fn to_u32(self) -> u32;
    /// Writes the eight units at `p` to `out` as bytes (all eight bytes are
    /// written) and returns how many leading ones are ASCII needing no escape.
    ///
    /// # Safety
    /// `p` readable for eight units, `out` writable for eight bytes.
    unsafe fn clean_ascii8<const ESC: bool>(p: *const Self, out: *mut u8) -> usize;
    /// The four units at `p` in 32-bit lanes.
    ///
    /// # Safety
    /// `p` readable for four units.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load4(p: *const Self) -> core::arch::x86_64::__m128i;
    /// If the eight units at `p` all take two UTF-8 bytes, or with `SSSE3`
    /// one or two (none of the ASCII needing an escape), or all three (no
    /// surrogate among them), writes their UTF-8 to `out` and returns its
    /// length; otherwise returns 0. May write up to 32 bytes either way.
    ///
    /// # Safety
    /// `p` readable for eight units, `out` writable for 32 bytes, and
    /// `SSSE3` only where the CPU has it (and the caller is compiled for it).
    #[inline(always)]
    unsafe fn multibyte8<const SSSE3: bool, const ESC: bool>(_p: *const Self, _out: *mut u8) -> usize {
        0
    }
}

impl WideUnit for u16 {
    const ASTRAL: bool = false;
    #[inline(always)]
    fn to_u32(self) -> u32 {
        self as u32
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load4(p: *const u16) -> core::arch::x86_64::__m128i {
        use core::arch::x86_64::*;
        _mm_unpacklo_epi16(_mm_loadl_epi64(p as *const __m128i), _mm_setzero_si128())
    }
    #[inline(always)]
    unsafe fn multibyte8<const SSSE3: bool, const ESC: bool>(p: *const u16, out: *mut u8) -> usize {
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::*;
            let v = _mm_loadu_si128(p as *const __m128i);
            let zero = _mm_setzero_si128();
            // Lanes at most 0x7F, at most 0x7FF (a saturating subtract is
            // zero exactly there), and surrogates; two mask bits per lane.
            let ascii = _mm_movemask_epi8(_mm_cmpeq_epi16(_mm_subs_epu16(v, _mm_set1_epi16(0x7F)), zero));
            let short = _mm_movemask_epi8(_mm_cmpeq_epi16(_mm_subs_epu16(v, _mm_set1_epi16(0x7FF)), zero));
            let low6 = _mm_and_si128(v, _mm_set1_epi16(0x3F));
            if short == 0xFFFF {
                // 110xxxxx 10xxxxxx: each lane's two bytes, in order.
                let lead = _mm_or_si128(_mm_srli_epi16(v, 6), _mm_set1_epi16(0xC0));
                let tail = _mm_slli_epi16(_mm_or_si128(low6, _mm_set1_epi16(0x80)), 8);
                let pairs = _mm_or_si128(lead, tail);
                if ascii == 0 {
                    _mm_storeu_si128(out as *mut __m128i, pairs);
                    return 16;
                }
                if SSSE3 && ascii != 0xFFFF {
                    // ASCII mixed in (Cyrillic, Greek, accented Latin text):
                    // if none of it needs escaping, each ASCII lane keeps
                    // its low byte and a shuffle drops the high ones.
                    let escaped = _mm_or_si128(
                        _mm_cmplt_epi16(v, _mm_set1_epi16(0x20)),
                        _mm_or_si128(
                            _mm_cmpeq_epi16(v, _mm_set1_epi16(b'"' as i16)),
                            _mm_cmpeq_epi16(v, _mm_set1_epi16(b'\\' as i16)),
                        ),
                    );
                    if ESC && _mm_movemask_epi8(escaped) != 0 {
                        return 0;
                    }
                    let ascii_lanes = _mm_cmpeq_epi16(_mm_subs_epu16(v, _mm_set1_epi16(0x7F)), zero);
                    let units = _mm_or_si128(_mm_and_si128(ascii_lanes, v), _mm_andnot_si128(ascii_lanes, pairs));
                    let mask = _mm_movemask_epi8(_mm_packs_epi16(ascii_lanes, zero)) as usize;
                    let gather = _mm_loadu_si128(GATHER_ONE_OR_TWO[mask].as_ptr() as *const __m128i);
                    _mm_storeu_si128(out as *mut __m128i, _mm_shuffle_epi8(units, gather));
                    return 16 - mask.count_ones() as usize;
                }
                return 0;
            }
            if SSSE3 && short == 0 {
                let surrogate = _mm_cmpeq_epi16(
                    _mm_and_si128(v, _mm_set1_epi16(0xF800u16 as i16)),
                    _mm_set1_epi16(0xD800u16 as i16),
                );
                if _mm_movemask_epi8(surrogate) != 0 {
                    return 0;
                }
                // 1110xxxx 10xxxxxx 10xxxxxx: the three bytes of every lane
                // packed into byte vectors, then interleaved by shuffles.
                let first = _mm_or_si128(_mm_srli_epi16(v, 12), _mm_set1_epi16(0xE0));
                let second =
                    _mm_or_si128(_mm_and_si128(_mm_srli_epi16(v, 6), _mm_set1_epi16(0x3F)), _mm_set1_epi16(0x80));
                let third = _mm_or_si128(low6, _mm_set1_epi16(0x80));
                let leads = _mm_packus_epi16(first, second);
                let thirds = _mm_packus_epi16(third, third);
                let shuffle = |table: &[u8; 16]| _mm_loadu_si128(table.as_ptr() as *const __m128i);
                let lo = _mm_or_si128(
                    _mm_shuffle_epi8(leads, shuffle(&THREE_BYTE_SHUFFLES[0])),
                    _mm_shuffle_epi8(thirds, shuffle(&THREE_BYTE_SHUFFLES[1])),
                );
                let hi = _mm_or_si128(
                    _mm_shuffle_epi8(leads, shuffle(&THREE_BYTE_SHUFFLES[2])),
                    _mm_shuffle_epi8(thirds, shuffle(&THREE_BYTE_SHUFFLES[3])),
                );
                _mm_storeu_si128(out as *mut __m128i, lo);
                _mm_storeu_si128(out.add(16) as *mut __m128i, hi);
                return 24;
            }
        }
        let _ = (p, out);
        0
    }
    #[inline(always)]
    unsafe fn clean_ascii8<const ESC: bool>(p: *const u16, out: *mut u8) -> usize {
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::*;
            let v = _mm_loadu_si128(p as *const __m128i);
            // Saturating pack: units >= 0x100 become 0xFF, so every non-ASCII
            // unit still has its top bit set in its byte.
            let bytes = _mm_packus_epi16(v, v);
            _mm_storel_epi64(out as *mut __m128i, bytes);
            // (The pack is signed: units from 0x8000 become 0, which the
            // escape check stops at as a control; without it, test the
            // units themselves.)
            let mask = if ESC {
                sse2::special::<true>(bytes)
            } else {
                let ascii = _mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16(0xFF80u16 as i16)), _mm_setzero_si128());
                !(_mm_movemask_epi8(_mm_packs_epi16(ascii, ascii)) as u32)
            } & 0xFF;
            if mask == 0 {
                8
            } else {
                mask.trailing_zeros() as usize
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            clean_ascii8_scalar::<_, ESC>(p, out)
        }
    }
}

impl WideUnit for u32 {
    const ASTRAL: bool = true;
    #[inline(always)]
    fn to_u32(self) -> u32 {
        self
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load4(p: *const u32) -> core::arch::x86_64::__m128i {
        core::arch::x86_64::_mm_loadu_si128(p as *const core::arch::x86_64::__m128i)
    }
    #[inline(always)]
    unsafe fn clean_ascii8<const ESC: bool>(p: *const u32, out: *mut u8) -> usize {
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::*;
            let a = _mm_loadu_si128(p as *const __m128i);
            let b = _mm_loadu_si128(p.add(4) as *const __m128i);
            // Code points are below 2**31, so the signed pack saturates
            // large ones to 0x7FFF, and the unsigned one then to 0xFF.
            let halves = _mm_packs_epi32(a, b);
            let bytes = _mm_packus_epi16(halves, halves);
            _mm_storel_epi64(out as *mut __m128i, bytes);
            let mask = if ESC { sse2::special::<true>(bytes) } else { _mm_movemask_epi8(bytes) as u32 } & 0xFF;
            if mask == 0 {
                8
            } else {
                mask.trailing_zeros() as usize
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            clean_ascii8_scalar::<_, ESC>(p, out)
        }
    }
}

/// `pshufb` tables that interleave eight three-byte sequences: output byte
/// `j` is byte `j % 3` of lane `j / 3`, taken from `leads` (first bytes at
/// 0-7, second bytes at 8-15) or `thirds` (third bytes at 0-7); 0x80 picks
/// a zero. Rows: output bytes 0-15 from leads, from thirds; 16-31 likewise.
const THREE_BYTE_SHUFFLES: [[u8; 16]; 4] = {
    let mut tables = [[0x80u8; 16]; 4];
    let mut j = 0;
    while j < 24 {
        let (lane, byte) = ((j / 3) as u8, j % 3);
        let half = j / 16;
        match byte {
            0 => tables[2 * half][j % 16] = lane,
            1 => tables[2 * half][j % 16] = 8 + lane,
            _ => tables[2 * half + 1][j % 16] = lane,
        }
        j += 1;
    }
    tables
};

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn clean_ascii8_scalar<T: WideUnit, const ESC: bool>(p: *const T, out: *mut u8) -> usize {
    for k in 0..8 {
        let c = (*p.add(k)).to_u32();
        if c >= 0x80 || (ESC && ESCAPE[c as usize] != 0) {
            return k;
        }
        *out.add(k) = c as u8;
    }
    8
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
    out.reserve(text.units() * MAX_ESCAPED_PER_UNIT + 2 + SLACK);
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

/// Escapes `text` into UTF-8 at `out` with the best transcoder the CPU has:
/// the AVX-512 one shared with MessagePack, else SSSE3 blocks or a loop.
/// Returns the new end.
///
/// # Safety
/// `out` must have room for `6 * text.units() + SLACK` bytes.
#[inline(always)]
pub(crate) unsafe fn escape_text(text: Text<'_>, out: *mut u8) -> Result<*mut u8, SurrogateError> {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx512_vbmi2() {
        return escape_text_avx512(text, out);
    }
    escape_text_fallback(text, out)
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
        // than through the vector step's setup (interleaved A/B: 8%).
        Text::Ucs1(s) if s.len() < 16 => escape_ucs1(s, out),
        Text::Ucs1(s) => utf8_avx512::ucs1::<JsonEscapes>(s, out)?,
        Text::Ucs2(s) => utf8_avx512::wide::<u16, JsonEscapes>(s, out)?,
        Text::Ucs4(s) => utf8_avx512::wide::<u32, JsonEscapes>(s, out)?,
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

#[inline(always)]
pub fn write_i64<S: Sink>(out: &mut S, value: i64) {
    out.reserve(decimal::MAX_LEN);
    // SAFETY: MAX_LEN bytes reserved just above.
    unsafe {
        let n = decimal::write_i64(out.tail(), value);
        out.advance(n);
    }
}

#[inline(always)]
pub fn write_u64<S: Sink>(out: &mut S, value: u64) {
    out.reserve(decimal::MAX_LEN);
    // SAFETY: MAX_LEN bytes reserved just above.
    unsafe {
        let n = decimal::write_u64(out.tail(), value);
        out.advance(n);
    }
}

/// Shortest text that parses back to `value`; NaN and infinities become `null`
/// (JSON has no spelling for them, and orjson writes null). Positive exponents
/// carry a `+` (`1e+16`), as orjson writes them. zmij (Schubfach/yy) writes
/// exactly ryu's digits in that form, at a fraction of ryu's cost; the tests
/// hold it to ryu on random doubles.
///
/// Not inlined: in the walker's dict and list loops the inlined body costs
/// registers that the other item kinds pay for (twitter.dumps +3.5%
/// instructions), for a saving of ~6 instructions per float.
#[inline(never)]
pub fn write_f64<S: Sink>(out: &mut S, value: f64) {
    if !value.is_finite() {
        out.extend(b"null");
        return;
    }
    out.reserve(32);
    // SAFETY: 32 bytes reserved just above.
    unsafe {
        let n = zmij_in_place(value, out.tail());
        out.advance(n);
    }
}

/// zmij's text for `value`, formatted straight into the output (as orjson
/// does) instead of into a `zmij::Buffer` on the stack and then copied.
/// Returns its length.
///
/// # Safety
/// `dst` must be writable for 32 bytes.
#[inline(always)]
unsafe fn zmij_in_place<F: zmij::Float>(value: F, dst: *mut u8) -> usize {
    // A `zmij::Buffer` is its bytes (24 of them): no alignment, no other
    // field, so the reserved bytes can serve as one.
    const _: () = assert!(core::mem::size_of::<zmij::Buffer>() <= 32 && core::mem::align_of::<zmij::Buffer>() == 1);
    // SAFETY: `dst` has room for a Buffer (checked above), which needs no
    // initialisation and no alignment.
    let text = (*(dst as *mut zmij::Buffer)).format_finite(value);
    let (start, len) = (text.as_ptr(), text.len());
    // zmij writes from the start of its bytes; should a later version not,
    // move the text there (never taken today, and predicted so).
    if start != dst as *const u8 {
        // SAFETY: both ranges lie in the 32 reserved bytes; `copy` allows overlap.
        core::ptr::copy(start, dst, len);
    }
    len
}

/// As [`write_f64`], for single precision: the shortest text that parses back
/// to the same `f32` (numpy float32), like orjson.
#[inline]
pub fn write_f32<S: Sink>(out: &mut S, value: f32) {
    if !value.is_finite() {
        out.extend(b"null");
        return;
    }
    out.reserve(32);
    // SAFETY: 32 bytes reserved just above.
    unsafe {
        let n = zmij_in_place(value, out.tail());
        out.advance(n);
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
    fn utf8(&mut self, value: &[u8]) {
        write_utf8(&mut self.out, value)
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
        self.out.reserve(MAX + 2);
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
    #[inline(always)]
    fn empty_array(&mut self) {
        self.out.extend(b"[]");
    }
    #[inline(always)]
    fn empty_map(&mut self) {
        self.out.extend(b"{}");
    }
    #[inline]
    fn i64_items<T: Copy + Into<i64>>(&mut self, values: &[T]) {
        if PRETTY {
            return items_one_by_one(self, values, |w, v| w.i64(v.into()));
        }
        let width = decimal_width(core::mem::size_of::<T>()) + 1;
        if core::mem::size_of::<T>() == 1 {
            write_items(&mut self.out, values, width, |r, v| put_byte(r, &I8_TEXT, v.into() as u8));
        } else {
            write_items(&mut self.out, values, width, |r, v| put_i64(r, v.into()));
        }
    }
    #[inline]
    fn u64_items<T: Copy + Into<u64>>(&mut self, values: &[T]) {
        if PRETTY {
            return items_one_by_one(self, values, |w, v| w.u64(v.into()));
        }
        // One spare byte: `put_byte` stores four at a time.
        let width = decimal_width(core::mem::size_of::<T>()) + 1;
        if core::mem::size_of::<T>() == 1 {
            write_items(&mut self.out, values, width, |r, v| put_byte(r, &U8_TEXT, v.into() as u8));
        } else {
            write_items(&mut self.out, values, width, |r, v| put_u64(r, v.into()));
        }
    }
    #[inline]
    fn f64_items(&mut self, values: &[f64]) {
        if PRETTY {
            return items_one_by_one(self, values, |w, v| w.f64(v));
        }
        write_items(&mut self.out, values, F64_ITEM_RESERVE, put_f64);
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
    use crate::testing::{escaped_each_way, json_string as reference, Rng};

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

    /// Wide text as `escape_wide` writes it with and without SSSE3 blocks
    /// (both checked to agree), or None for a lone surrogate.
    fn wide_json<T: WideUnit>(units: &[T]) -> Option<Vec<u8>> {
        let mut results = Vec::new();
        for ssse3 in [false, true] {
            if ssse3 && !cfg!(target_arch = "x86_64") {
                continue;
            }
            let mut out = vec![0u8; units.len() * MAX_ESCAPED_PER_UNIT + SLACK];
            // SAFETY: room for every unit escaped plus the slack; the SSSE3
            // variant only where the CPU has it.
            let end = unsafe {
                let body = out.as_mut_ptr();
                match ssse3 {
                    #[cfg(target_arch = "x86_64")]
                    true if crate::cpu::ssse3() => escape_wide_with_ssse3(units, body),
                    true => continue,
                    false => escape_wide::<T, false>(units, body),
                }
            };
            results.push(end.ok().map(|end| {
                // SAFETY: `end` points into `out`, at or after its start.
                let n = unsafe { end.offset_from(out.as_ptr()) } as usize;
                out[..n].to_vec()
            }));
        }
        assert!(results.windows(2).all(|w| w[0] == w[1]), "variants disagree");
        results.pop().unwrap()
    }

    #[test]
    fn wide_runs_of_every_utf8_length() {
        // Random text in runs of one UTF-8 length (so eight-unit blocks of
        // two- and three-byte units occur at every offset), against std.
        let classes: [&[u32]; 5] = [
            &[0x61, 0x20, 0x22, 0x5C, 0x0A, 0x01, 0x7F],
            &[0x80, 0xE9, 0xFF, 0x100, 0x430, 0x7FF],
            &[0x800, 0x3042, 0x4E2D, 0xD7FF, 0xE000, 0xFFFF],
            &[0x10000, 0x1F600, 0x10FFFF],
            &[0xD800, 0xDBFF, 0xDC00, 0xDFFF],
        ];
        let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
        for round in 0..30_000 {
            let len = rng.below(70) as usize;
            let mut class = rng.below(4) as usize;
            // A third of the strings interleave ASCII with one other length
            // unit by unit, as words and spaces do.
            let interleave = [None, Some(1), Some(2)][round % 3];
            let units: Vec<u32> = (0..len)
                .map(|_| {
                    if let Some(other) = interleave {
                        class = if rng.below(3) == 0 { 0 } else { other };
                    } else if rng.below(10) == 0 {
                        // A lone surrogate in one string in about four.
                        class = if round % 4 == 0 && rng.below(8) == 0 { 4 } else { rng.below(4) as usize };
                    }
                    let c = classes[class];
                    let unit = c[rng.below(c.len() as u64) as usize];
                    if class == 4 {
                        class = 2;
                    }
                    unit
                })
                .collect();
            let text: Option<String> = units.iter().map(|&u| char::from_u32(u)).collect();
            let expected = text.as_ref().map(|t| {
                let quoted = reference(t);
                quoted.as_bytes()[1..quoted.len() - 1].to_vec()
            });
            assert_eq!(wide_json(&units), expected, "ucs4 {units:x?}");
            if units.iter().all(|&u| u < 0x10000) {
                let narrow: Vec<u16> = units.iter().map(|&u| u as u16).collect();
                assert_eq!(wide_json(&narrow), expected, "ucs2 {units:x?}");
            }
        }
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
                        (copy_clean_prefix(&src, a.as_mut_ptr()), copy_clean_prefix_portable(&src, b.as_mut_ptr()))
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
                            assert_eq!(copy_clean_prefix_sse2(&src, c.as_mut_ptr()), y, "sse2 {src:?}");
                            if len >= 32 && crate::cpu::avx2() {
                                assert_eq!(avx2::copy_clean_prefix(&src, c.as_mut_ptr()), y, "avx2 {src:?}");
                            }
                        }
                        assert_eq!(c[..y], src[..y]);
                        if crate::cpu::avx512_bw_vl_bmi2() {
                            // Masked tails: nothing is written past the text.
                            let mut d = vec![0xeeu8; len + 32];
                            // SAFETY: room for len bytes; the CPU has AVX-512 BW/VL.
                            assert_eq!(unsafe { avx512::copy_clean_prefix(&src, d.as_mut_ptr()) }, y, "avx512 {src:?}");
                            assert_eq!(d[..y], src[..y]);
                            assert!(d[len..].iter().all(|&b| b == 0xee), "avx512 wrote past {len}");
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

    /// ryu's text with orjson's exponent form.
    fn ryu_reference(x: f64) -> String {
        let text = ryu::Buffer::new().format_finite(x).to_string();
        match text.find('e') {
            Some(e) if !text[e + 1..].starts_with('-') => format!("{}e+{}", &text[..e], &text[e + 1..]),
            _ => text,
        }
    }

    #[test]
    fn zmij_writes_ryus_digits_in_orjsons_form() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..2_000_000 {
            let x = rng.next_u64();
            let f = f64::from_bits(x);
            if f.is_finite() {
                assert_eq!(zmij::Buffer::new().format_finite(f), ryu_reference(f), "{:#x}", f.to_bits());
            }
            let g = f32::from_bits(x as u32);
            if g.is_finite() {
                let r = ryu::Buffer::new().format_finite(g).to_string();
                let r = match r.find('e') {
                    Some(e) if !r[e + 1..].starts_with('-') => format!("{}+{}", &r[..=e], &r[e + 1..]),
                    _ => r,
                };
                assert_eq!(zmij::Buffer::new().format_finite(g), r, "{:#x}", g.to_bits());
            }
        }
    }

    #[test]
    fn floats_match_ryu() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        let check = |x: f64| assert_eq!(float(x), ryu_reference(x), "{x:e} ({:#x})", x.to_bits());
        for x in [
            0.001,
            0.00123,
            0.0009999,
            1e-3,
            999999999999999.0,
            1e15,
            123456789012345.6,
            0.1,
            0.3,
            2.675,
            98.5,
            -98.5,
            3.0,
            -0.5,
        ] {
            check(x);
        }
        for _ in 0..300_000 {
            let r = rng.next_u64();
            // Short decimals of every scale: m / 10**d for small m.
            let m = (r >> 11) % [10, 1000, 100_000, 10_000_000, 1_000_000_000_000_000][(r % 5) as usize];
            let d = ((r >> 5) % 12) as i32;
            let x = m as f64 / 10f64.powi(d);
            check(x);
            check(-x);
            // Their neighbours, with all 17 digits.
            check(f64::from_bits(x.to_bits().wrapping_add(1)));
            // Arbitrary doubles.
            check(f64::from_bits(rng.next_u64()).abs().min(1e300));
            check(f64::from_bits((rng.next_u64() & 0x3FFF_FFFF_FFFF_FFFF) | 0x3F00_0000_0000_0000));
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

// --- Rows of numbers (numpy): one reservation per chunk, then plain stores ----------

/// Items written per reservation: bounds how far ahead space is reserved.
const ROW_CHUNK: usize = 256;

/// Most decimal digits of an unsigned integer of `size` bytes.
const fn decimal_width(size: usize) -> usize {
    match size {
        1 => 3,
        2 => 5,
        4 => 10,
        _ => 20,
    }
}

/// What [`put_f64`] may reserve for one item (zmij writes at most 24 bytes).
const F64_ITEM_RESERVE: usize = 32;

/// A [`Sink`] over space already reserved in another one, so a row's loop
/// keeps its write position in a register. `reserve` only checks (it
/// cannot grow); the row writers reserve each item's worst case up front.
struct Reserved {
    at: *mut u8,
    len: usize,
    cap: usize,
}

#[cold]
#[inline(never)]
fn reserved_too_little() -> ! {
    panic!("orcodec: a row writer reserved too little space")
}

// SAFETY: `reserve` never returns unless `cap - len >= additional`, and the
// constructor's contract is that `at` points at `cap` writable bytes.
unsafe impl Sink for Reserved {
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }
    #[inline(always)]
    fn reserve(&mut self, additional: usize) {
        if self.cap - self.len < additional {
            reserved_too_little();
        }
    }
    #[inline(always)]
    fn tail(&mut self) -> *mut u8 {
        // SAFETY: `len <= cap`: inside (or one past) the reserved space.
        unsafe { self.at.add(self.len) }
    }
    #[inline(always)]
    unsafe fn advance(&mut self, n: usize) {
        self.len += n;
    }
}

/// Writes `values` as the items of an array (commas between): `put`
/// writes one, and may write at most `width` bytes.
#[inline(always)]
fn write_items<S: Sink, T: Copy>(out: &mut S, values: &[T], width: usize, put: impl Fn(&mut Reserved, T)) {
    for (c, chunk) in values.chunks(ROW_CHUNK).enumerate() {
        let need = chunk.len() * (width + 1);
        out.reserve(need);
        // SAFETY: `need` bytes reserved just above.
        let mut r = Reserved { at: out.tail(), len: 0, cap: need };
        let (first, rest) = chunk.split_first().expect("chunks are never empty");
        if c != 0 {
            r.push(b',');
        }
        put(&mut r, *first);
        for &value in rest {
            r.push(b',');
            put(&mut r, value);
        }
        // SAFETY: `r.len` bytes were written into the reserved space.
        unsafe { out.advance(r.len) };
    }
}

/// `v` in decimal, straight into the reserved space (at most 20 bytes).
#[inline(always)]
fn put_u64(r: &mut Reserved, v: u64) {
    let n = decimal::digit_count(v);
    r.reserve(n);
    // SAFETY: `n` bytes reserved just above, which the digits fill exactly.
    unsafe {
        decimal::write_digits(r.tail(), v, n);
        r.advance(n);
    }
}

#[inline(always)]
fn put_i64(r: &mut Reserved, v: i64) {
    // The sign of array data is often random: a `-` is always written and
    // kept only for a negative value, instead of a branch that mispredicts
    // on half of them (numpy int32 rows: one misprediction per value).
    r.reserve(1);
    // SAFETY: one byte reserved just above.
    unsafe {
        *r.tail() = b'-';
        r.advance((v < 0) as usize);
    }
    put_u64(r, v.unsigned_abs());
}

/// The text of each byte value as an int8 (`SIGNED`) or uint8, indexed by
/// the byte: up to four characters, then the length in the last byte.
const fn byte_texts(signed: bool) -> [[u8; 5]; 256] {
    let mut table = [[0u8; 5]; 256];
    let mut b = 0;
    while b < 256 {
        let value: i32 = if signed && b >= 128 { b as i32 - 256 } else { b as i32 };
        let mut text = [0u8; 5];
        let mut n = 0;
        if value < 0 {
            text[0] = b'-';
            n = 1;
        }
        let abs = if value < 0 { -value } else { value };
        let digits = if abs >= 100 {
            3
        } else if abs >= 10 {
            2
        } else {
            1
        };
        let mut i = digits;
        let mut rest = abs;
        while i > 0 {
            text[n + i - 1] = b'0' + (rest % 10) as u8;
            rest /= 10;
            i -= 1;
        }
        text[4] = (n + digits) as u8;
        table[b] = text;
        b += 1;
    }
    table
}

static I8_TEXT: [[u8; 5]; 256] = byte_texts(true);
static U8_TEXT: [[u8; 5]; 256] = byte_texts(false);

/// A one-byte integer from its table: one 4-byte store, no branches.
#[inline(always)]
fn put_byte(r: &mut Reserved, table: &[[u8; 5]; 256], byte: u8) {
    let text = &table[byte as usize];
    r.reserve(4);
    // SAFETY: 4 bytes reserved just above; `text[4]` (at most 4) of them are the text.
    unsafe {
        (r.tail() as *mut [u8; 4]).write_unaligned([text[0], text[1], text[2], text[3]]);
        r.advance(text[4] as usize);
    }
}

/// One double as [`write_f64`] writes it, formatted in place.
#[inline(always)]
fn put_f64(r: &mut Reserved, value: f64) {
    if !value.is_finite() {
        r.extend(b"null");
        return;
    }
    r.reserve(F64_ITEM_RESERVE);
    // SAFETY: F64_ITEM_RESERVE (32) bytes reserved just above.
    unsafe {
        let n = zmij_in_place(value, r.tail());
        r.advance(n);
    }
}

/// Bools (one per byte, non-zero true) as the items of an array: each one
/// an 8-byte store of `,true` or `,false` picked without a branch (random
/// data would mispredict it half the time), advancing by 5 or 6.
fn write_bool_items<S: Sink>(out: &mut S, values: &[u8]) {
    const TRUE: u64 = u64::from_le_bytes(*b",true\0\0\0");
    const FALSE: u64 = u64::from_le_bytes(*b",false\0\0");
    let Some((&first, rest)) = values.split_first() else {
        return;
    };
    out.extend(if first != 0 { b"true" } else { b"false" });
    for chunk in rest.chunks(ROW_CHUNK) {
        // Item k ends its 8-byte store at most at 6 * k + 8.
        let need = chunk.len() * 6 + 2;
        out.reserve(need);
        // SAFETY: `need` bytes reserved just above; every store lies within
        // them (see above), and `at` ends at most at `6 * len`.
        unsafe {
            let start = out.tail();
            let mut at = start;
            for &value in chunk {
                let t = (value != 0) as u64;
                let word = FALSE ^ ((TRUE ^ FALSE) & t.wrapping_neg());
                (at as *mut u64).write_unaligned(word.to_le());
                at = at.add(6 - t as usize);
            }
            out.advance(at.offset_from(start) as usize);
        }
    }
}

#[cfg(test)]
mod row_tests {
    use super::*;
    use crate::testing::Rng;

    fn by_events<T: Copy>(values: &[T], event: impl Fn(&mut CompactJsonWriter<Vec<u8>>, T)) -> Vec<u8> {
        let mut w = CompactJsonWriter::new(Vec::new());
        w.begin_array(values.len());
        for (i, &v) in values.iter().enumerate() {
            w.array_item(i);
            event(&mut w, v);
        }
        w.end_array(values.len());
        w.out
    }

    fn by_rows<T: Copy>(values: &[T], rows: impl Fn(&mut CompactJsonWriter<Vec<u8>>, &[T])) -> Vec<u8> {
        let mut w = CompactJsonWriter::new(Vec::new());
        w.begin_array(values.len());
        rows(&mut w, values);
        w.end_array(values.len());
        w.out
    }

    #[test]
    fn integer_rows_equal_events() {
        let mut ints: Vec<i64> = vec![0, 1, -1, 9, 10, -10, 99, 100, i64::MIN, i64::MAX, i64::MIN + 1];
        for &p in &decimal::POWERS_OF_TEN[..19] {
            let p = p as i64;
            ints.extend([p - 1, p, p + 1, -p + 1, -p, -p - 1]);
        }
        // Longer than a chunk, so the chunk boundary is crossed.
        for n in [0, 1, 2, ROW_CHUNK - 1, ROW_CHUNK, ROW_CHUNK + 1, 3 * ROW_CHUNK + 5] {
            let v: Vec<i64> = (0..n).map(|i| ints[i % ints.len()]).collect();
            assert_eq!(by_rows(&v, |w, v| w.i64_items(v)), by_events(&v, |w, x| w.i64(x)));
            let u: Vec<u64> = v.iter().map(|&x| x as u64).collect();
            assert_eq!(by_rows(&u, |w, v| w.u64_items(v)), by_events(&u, |w, x| w.u64(x)));
        }
        for v in [i8::MIN, -1, 0, 1, 9, 10, 99, 100, i8::MAX] {
            assert_eq!(by_rows(&[v, v], |w, v| w.i64_items(v)), by_events(&[v, v], |w, x| w.i64(x as i64)));
        }
        let all_i8: Vec<i8> = (i8::MIN..=i8::MAX).collect();
        assert_eq!(by_rows(&all_i8, |w, v| w.i64_items(v)), by_events(&all_i8, |w, x| w.i64(x as i64)));
        // Widest texts only, over several chunks: the reservations must hold.
        for v in [u8::MAX, 100] {
            let row = vec![v; 3 * ROW_CHUNK + 1];
            assert_eq!(by_rows(&row, |w, v| w.u64_items(v)), by_events(&row, |w, x| w.u64(x as u64)));
        }
        let row = vec![i8::MIN; 3 * ROW_CHUNK + 1];
        assert_eq!(by_rows(&row, |w, v| w.i64_items(v)), by_events(&row, |w, x| w.i64(x as i64)));
        for v in [u16::MAX, 10_000] {
            let row = vec![v; 3 * ROW_CHUNK + 1];
            assert_eq!(by_rows(&row, |w, v| w.u64_items(v)), by_events(&row, |w, x| w.u64(x as u64)));
        }
        let row = vec![i64::MIN; 3 * ROW_CHUNK + 1];
        assert_eq!(by_rows(&row, |w, v| w.i64_items(v)), by_events(&row, |w, x| w.i64(x)));
        let row = vec![-1.2345678901234567e-300f64; 3 * ROW_CHUNK + 1];
        assert_eq!(by_rows(&row, |w, v| w.f64_items(v)), by_events(&row, |w, x| w.f64(x)));
        let all_u8: Vec<u8> = (0..=u8::MAX).collect();
        assert_eq!(by_rows(&all_u8, |w, v| w.u64_items(v)), by_events(&all_u8, |w, x| w.u64(x as u64)));
        let i32s = [i32::MIN, i32::MAX, -1_000_000_000, 999_999_999, 0];
        assert_eq!(by_rows(&i32s, |w, v| w.i64_items(v)), by_events(&i32s, |w, x| w.i64(x as i64)));
        let u32s = [u32::MAX, 4_000_000_000, 0];
        assert_eq!(by_rows(&u32s, |w, v| w.u64_items(v)), by_events(&u32s, |w, x| w.u64(x as u64)));
    }

    #[test]
    fn float_rows_equal_events() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        let mut floats = vec![
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.1,
            1e-7,
            1e15,
            1e16,
            1e22,
            1e300,
            -1e-300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            123456.789,
            0.001,
            0.000999,
        ];
        for _ in 0..5000 {
            let state = rng.next_u64();
            floats.push(f64::from_bits(state));
            floats.push((state >> 11) as f64 / (1u64 << 40) as f64 - 4000.0);
        }
        assert_eq!(by_rows(&floats, |w, v| w.f64_items(v)), by_events(&floats, |w, x| w.f64(x)));
    }

    #[test]
    fn bool_rows_equal_events() {
        for n in [0, 1, 2, 7, ROW_CHUNK, ROW_CHUNK + 1, ROW_CHUNK + 2, 1000] {
            let v: Vec<u8> = (0..n).map(|i| [0u8, 1, 1, 0, 0, 0, 1, 255, 2][i % 9]).collect();
            assert_eq!(by_rows(&v, |w, v| w.bool_items(v)), by_events(&v, |w, x| w.bool(x != 0)));
        }
        for v in [[0u8; 3], [1; 3]] {
            assert_eq!(by_rows(&v, |w, v| w.bool_items(v)), by_events(&v, |w, x| w.bool(x != 0)));
        }
    }

    #[test]
    fn pretty_rows_equal_events() {
        let mut w = PrettyJsonWriter::new(Vec::new());
        w.begin_array(3);
        w.i64_items(&[1i32, -2, 3]);
        w.end_array(3);
        let mut e = PrettyJsonWriter::new(Vec::new());
        e.begin_array(3);
        for (i, v) in [1i64, -2, 3].into_iter().enumerate() {
            e.array_item(i);
            e.i64(v);
        }
        e.end_array(3);
        assert_eq!(w.out, e.out);
    }
}

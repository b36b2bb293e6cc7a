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

/// [`copy_clean_prefix`](super::copy_clean_prefix) with SSE2 only.
///
/// # Safety
/// As [`copy_clean_prefix`](super::copy_clean_prefix).
#[inline(always)]
pub(super) unsafe fn copy_clean_prefix(src: &[u8], out: *mut u8) -> usize {
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
        let mask = special::<false>(v) & ((1u32 << n) - 1);
        return if mask == 0 { n } else { mask.trailing_zeros() as usize };
    }
    let mut i = 0;
    while n - i > 16 {
        let v = _mm_loadu_si128(p.add(i) as *const __m128i);
        _mm_storeu_si128(out.add(i) as *mut __m128i, v);
        let mask = special::<false>(v);
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
    let mask = special::<false>(v);
    if mask == 0 {
        n
    } else {
        last + mask.trailing_zeros() as usize
    }
}

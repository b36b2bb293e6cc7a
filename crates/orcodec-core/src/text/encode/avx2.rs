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

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

/// Texts at least this long are copied with 64-byte aligned stores. Below,
/// the copy runs from the first cache levels, where aligning the stores
/// (and so misaligning the loads, in general) helps one text and slows the
/// next, as the two buffers' offsets fall.
const ALIGN_OUTPUT_FROM: usize = 64 << 10;

/// Copies the 64 bytes at `p + i` to `out + i`; a bit per byte that needs
/// escaping.
///
/// # Safety
/// As `copy_clean_prefix`, with 64 bytes readable at `p + i` and room for
/// them at `out + i`.
#[inline(always)]
unsafe fn copy_step(p: *const u8, out: *mut u8, i: usize) -> u64 {
    let a = _mm256_loadu_si256(p.add(i) as *const __m256i);
    let b = _mm256_loadu_si256(p.add(i + 32) as *const __m256i);
    _mm256_storeu_si256(out.add(i) as *mut __m256i, a);
    _mm256_storeu_si256(out.add(i + 32) as *mut __m256i, b);
    special(a) as u64 | (special(b) as u64) << 32
}

/// `copy_clean_prefix` for texts of at least `LONG` bytes, out of line
/// (so the short-text path inlined into every string write stays small):
/// two vectors and one branch per step, the rest as `copy_clean_prefix`.
/// The same steps as `avx2::copy_clean_prefix`, but with mask compares:
/// calling that one instead is clearly slower on long text.
///
/// # Safety
/// As `copy_clean_prefix`.
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,bmi2")]
unsafe fn copy_clean_prefix_long(src: &[u8], out: *mut u8) -> usize {
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    if n >= ALIGN_OUTPUT_FROM {
        // One step from the start, then on from where the output is 64-byte
        // aligned (1 to 64 bytes on, the step's bytes written and checked
        // again where they overlap): a store that straddles two cache lines
        // costs both lines, and the output rarely starts on a line.
        let mask = copy_step(p, out, 0);
        if mask != 0 {
            return mask.trailing_zeros() as usize;
        }
        i = 64 - (out as usize & 63);
    }
    while n - i >= 64 {
        let mask = copy_step(p, out, i);
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 64;
    }
    // Under 64 bytes left: the short path, from here.
    i + copy_clean_prefix(&src[i..], out.add(i))
}

//! A fast "is this all ASCII?" for the short-to-medium byte strings decoders
//! see (keys, names, sentences): whole blocks with overlapping tail reads, so
//! no length is handled a byte at a time; and [`copy_if_ascii`], the same
//! check with the copy in one pass.

use super::copy_bytes;

/// Whether every byte of `bytes` is below 0x80.
#[inline(always)]
pub fn is_ascii(bytes: &[u8]) -> bool {
    let n = bytes.len();
    let p = bytes.as_ptr();
    // SAFETY: each unaligned read of k bytes starts at an offset `o` with
    // `o + k <= n`, checked by the branch it is in.
    unsafe {
        if n >= 16 {
            #[cfg(target_arch = "x86_64")]
            {
                use core::arch::x86_64::*;
                // SSE2 is part of the x86-64 baseline. OR the blocks together,
                // the last one overlapping, and test the high bits once per 64 bytes.
                let mut acc = _mm_setzero_si128();
                let mut i = 0;
                while i + 16 <= n {
                    acc = _mm_or_si128(acc, _mm_loadu_si128(p.add(i) as *const __m128i));
                    i += 16;
                    if i & 63 == 0 && _mm_movemask_epi8(acc) != 0 {
                        return false;
                    }
                }
                acc = _mm_or_si128(acc, _mm_loadu_si128(p.add(n - 16) as *const __m128i));
                return _mm_movemask_epi8(acc) == 0;
            }
            #[cfg(not(target_arch = "x86_64"))]
            return bytes.is_ascii();
        }
        if n >= 8 {
            let a = (p as *const u64).read_unaligned();
            let b = (p.add(n - 8) as *const u64).read_unaligned();
            return (a | b) & 0x8080_8080_8080_8080 == 0;
        }
        if n >= 4 {
            let a = (p as *const u32).read_unaligned();
            let b = (p.add(n - 4) as *const u32).read_unaligned();
            return (a | b) & 0x8080_8080 == 0;
        }
        let mut all = 0u8;
        for k in 0..n {
            all |= *p.add(k);
        }
        all < 0x80
    }
}

/// Copies `src` to `dst` if it is all ASCII, checking and copying in one
/// pass (the decoders' long strings: a separate check would read them twice).
/// Returns false if any byte is not ASCII; `dst` then holds a partial copy.
///
/// # Safety
/// `dst` must be valid for writing `src.len()` bytes and not overlap `src`.
#[inline]
pub unsafe fn copy_if_ascii(src: &[u8], dst: *mut u8) -> bool {
    let n = src.len();
    if n < 16 {
        if !is_ascii(src) {
            return false;
        }
        copy_bytes(src, dst);
        return true;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::avx2() {
            // SAFETY: the CPU has AVX2 (checked just above).
            return copy_if_ascii_avx2(src, dst);
        }
        copy_if_ascii_sse2(src, dst)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        if !src.is_ascii() {
            return false;
        }
        core::ptr::copy_nonoverlapping(src.as_ptr(), dst, n);
        true
    }
}

/// `copy_if_ascii` for at least 16 bytes, 64 per step with SSE2 (baseline on
/// x86-64); the last block overlaps the one before it.
///
/// # Safety
/// As `copy_if_ascii`, and `src.len() >= 16`.
#[cfg(target_arch = "x86_64")]
#[inline]
unsafe fn copy_if_ascii_sse2(src: &[u8], dst: *mut u8) -> bool {
    use core::arch::x86_64::*;
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    // SAFETY (all loads and stores): each 16-byte access starts at an offset
    // `o` with `o + 16 <= n`, inside both `src` and `dst`.
    while i + 64 <= n {
        let a = _mm_loadu_si128(p.add(i) as *const __m128i);
        let b = _mm_loadu_si128(p.add(i + 16) as *const __m128i);
        let c = _mm_loadu_si128(p.add(i + 32) as *const __m128i);
        let d = _mm_loadu_si128(p.add(i + 48) as *const __m128i);
        if _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) != 0 {
            return false;
        }
        _mm_storeu_si128(dst.add(i) as *mut __m128i, a);
        _mm_storeu_si128(dst.add(i + 16) as *mut __m128i, b);
        _mm_storeu_si128(dst.add(i + 32) as *mut __m128i, c);
        _mm_storeu_si128(dst.add(i + 48) as *mut __m128i, d);
        i += 64;
    }
    while i + 16 <= n {
        let a = _mm_loadu_si128(p.add(i) as *const __m128i);
        if _mm_movemask_epi8(a) != 0 {
            return false;
        }
        _mm_storeu_si128(dst.add(i) as *mut __m128i, a);
        i += 16;
    }
    if i < n {
        let a = _mm_loadu_si128(p.add(n - 16) as *const __m128i);
        if _mm_movemask_epi8(a) != 0 {
            return false;
        }
        _mm_storeu_si128(dst.add(n - 16) as *mut __m128i, a);
    }
    true
}

/// `copy_if_ascii` for at least 16 bytes, 128 per step with AVX2.
///
/// # Safety
/// As `copy_if_ascii_sse2`, and the CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn copy_if_ascii_avx2(src: &[u8], dst: *mut u8) -> bool {
    use core::arch::x86_64::*;
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    // SAFETY (all loads and stores): each 32-byte access starts at an offset
    // `o` with `o + 32 <= n`, inside both `src` and `dst`.
    while i + 128 <= n {
        let a = _mm256_loadu_si256(p.add(i) as *const __m256i);
        let b = _mm256_loadu_si256(p.add(i + 32) as *const __m256i);
        let c = _mm256_loadu_si256(p.add(i + 64) as *const __m256i);
        let d = _mm256_loadu_si256(p.add(i + 96) as *const __m256i);
        if _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d))) != 0 {
            return false;
        }
        _mm256_storeu_si256(dst.add(i) as *mut __m256i, a);
        _mm256_storeu_si256(dst.add(i + 32) as *mut __m256i, b);
        _mm256_storeu_si256(dst.add(i + 64) as *mut __m256i, c);
        _mm256_storeu_si256(dst.add(i + 96) as *mut __m256i, d);
        i += 128;
    }
    while i + 32 <= n {
        let a = _mm256_loadu_si256(p.add(i) as *const __m256i);
        if _mm256_movemask_epi8(a) != 0 {
            return false;
        }
        _mm256_storeu_si256(dst.add(i) as *mut __m256i, a);
        i += 32;
    }
    if i < n {
        // Fewer than 32 bytes are left: the SSE2 loop does them, from `i`,
        // or from the last 16 bytes (overlapping) when fewer than 16 are left.
        // SAFETY: `n >= 16`, so the slice holds at least 16 bytes.
        return copy_if_ascii_sse2(&src[i.min(n - 16)..], dst.add(i.min(n - 16)));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_length_and_position() {
        for n in 0..200 {
            let clean = vec![b'a'; n];
            assert!(is_ascii(&clean), "{n}");
            for at in 0..n {
                for high in [0x80u8, 0xff, 0xc3] {
                    let mut bytes = clean.clone();
                    bytes[at] = high;
                    assert!(!is_ascii(&bytes), "{n} {at}");
                }
            }
        }
    }

    #[test]
    fn copy_if_ascii_every_length_and_position() {
        for n in 0..400 {
            let src: Vec<u8> = (0..n).map(|k| b' ' + (k * 7 % 90) as u8).collect();
            let mut dst = vec![0xAAu8; n + 40];
            // SAFETY: `dst` has room for the `n` bytes of `src`.
            assert!(unsafe { copy_if_ascii(&src, dst.as_mut_ptr()) }, "{n}");
            assert_eq!(&dst[..n], &src[..], "{n}");
            assert!(dst[n..].iter().all(|&b| b == 0xAA), "wrote past {n}");
            for at in 0..n {
                for high in [0x80u8, 0xc3, 0xff] {
                    let mut bad = src.clone();
                    bad[at] = high;
                    let mut dst = vec![0xAAu8; n + 40];
                    // SAFETY: as above.
                    assert!(!unsafe { copy_if_ascii(&bad, dst.as_mut_ptr()) }, "{n} {at}");
                    assert!(dst[n..].iter().all(|&b| b == 0xAA), "wrote past {n}");
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        for n in 16..300 {
            // The SSE2 path too, whatever this CPU has.
            let src = vec![b'x'; n];
            let mut dst = vec![0u8; n];
            // SAFETY: room for `n >= 16` bytes; SSE2 is part of x86-64.
            assert!(unsafe { copy_if_ascii_sse2(&src, dst.as_mut_ptr()) });
            assert_eq!(dst, src);
            let mut bad = src.clone();
            bad[n - 1] = 0x80;
            // SAFETY: as above.
            assert!(!unsafe { copy_if_ascii_sse2(&bad, dst.as_mut_ptr()) });
        }
    }
}

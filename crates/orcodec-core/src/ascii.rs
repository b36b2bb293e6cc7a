//! A fast "is this all ASCII?" for the short-to-medium byte strings decoders
//! see (keys, names, sentences): whole blocks with overlapping tail reads, so
//! no length is handled a byte at a time.

/// Whether every byte of `bytes` is below 0x80.
#[inline(always)]
pub fn is_ascii(bytes: &[u8]) -> bool {
    let n = bytes.len();
    let p = bytes.as_ptr();
    // SAFETY (all reads): each unaligned read of k bytes starts at an offset
    // `o` with `o + k <= n`, checked by the branch it is in.
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

#[cfg(test)]
mod tests {
    use super::is_ascii;

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
}

//! The portable versions, also the reference the SIMD paths are tested against.

use super::Unit;

/// [`super::measure`], a byte at a time after SSE2 blocks.
#[allow(unused_assignments, unused_mut)]
pub fn measure(bytes: &[u8]) -> (usize, u32) {
    let n = bytes.len();
    let mut continuations = 0usize;
    let mut max = 0u8;
    let mut i = 0;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of the x86-64 baseline; loads stay inside `bytes`.
    unsafe {
        use core::arch::x86_64::*;
        let mut maxv = _mm_setzero_si128();
        // Continuation bytes 0x80-0xBF are the signed bytes below -64; a
        // compare gives -1 for each, subtracted into byte counters that are
        // summed (psadbw) before they can wrap, every 255 blocks.
        let limit = _mm_set1_epi8(-64);
        while i + 16 <= n {
            let mut counts = _mm_setzero_si128();
            let mut blocks = 0;
            while blocks < 255 && i + 16 <= n {
                let v = _mm_loadu_si128(bytes.as_ptr().add(i) as *const __m128i);
                counts = _mm_sub_epi8(counts, _mm_cmplt_epi8(v, limit));
                maxv = _mm_max_epu8(maxv, v);
                i += 16;
                blocks += 1;
            }
            let sums = _mm_sad_epu8(counts, _mm_setzero_si128());
            continuations += (_mm_cvtsi128_si64(sums) + _mm_extract_epi16::<4>(sums) as i64) as usize;
        }
        let mut lanes = [0u8; 16];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, maxv);
        max = lanes.iter().copied().fold(0, u8::max);
    }
    for &b in &bytes[i..] {
        continuations += ((b as i8) < -0x40) as usize;
        max = max.max(b);
    }
    (n - continuations, max_char(max))
}

/// The kind's largest code point for the largest byte of valid UTF-8.
#[inline(always)]
pub(super) fn max_char(max_byte: u8) -> u32 {
    match max_byte {
        0..=0x7f => 0x7f,
        0x80..=0xc3 => 0xff,
        0xc4..=0xef => 0xffff,
        _ => 0x10ffff,
    }
}

/// [`super::decode`], one code point at a time (ASCII runs 8 bytes at a time).
///
/// # Safety
/// As [`super::decode`].
#[inline]
pub unsafe fn decode<T: Unit>(bytes: &[u8], mut out: *mut T, units: usize) {
    let end = out.add(units);
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let n = bytes.len();
    let p = bytes.as_ptr();
    let mut i = 0;
    // SAFETY (reads): `i < n` at each lead byte, valid UTF-8 puts all of a lead
    // byte's continuation bytes inside `bytes`, and word reads check `i + 8 <= n`.
    // (writes): one unit per code point, which is the room `out` has.
    while i < n {
        let b0 = *p.add(i) as u32;
        if b0 < 0x80 {
            // An ASCII run: up to 8 bytes per step, stopping at the first
            // non-ASCII byte of the word (at least one, this one, is ASCII).
            // With room for 8 units, all 8 bytes are widened at once and
            // the units past the run are overwritten by what follows (every
            // unit up to `end` is written in order, so none is left stale).
            let run = if i + 8 <= n {
                let word = u64::from_le_bytes(*(p.add(i) as *const [u8; 8]));
                let high = word & HIGHS;
                let run = if high == 0 { 8 } else { (high.trailing_zeros() / 8) as usize };
                if end.offset_from(out) >= 8 {
                    T::widen8(word, out);
                    out = out.add(run);
                    i += run;
                    continue;
                }
                run
            } else {
                1
            };
            for k in 0..run {
                *out.add(k) = T::from_code_point(*p.add(i + k) as u32);
            }
            out = out.add(run);
            i += run;
            continue;
        }
        let c = if b0 < 0xe0 {
            i += 2;
            (b0 & 0x1f) << 6 | (*p.add(i - 1) as u32 & 0x3f)
        } else if b0 < 0xf0 {
            i += 3;
            (b0 & 0x0f) << 12 | (*p.add(i - 2) as u32 & 0x3f) << 6 | (*p.add(i - 1) as u32 & 0x3f)
        } else {
            i += 4;
            (b0 & 0x07) << 18
                | (*p.add(i - 3) as u32 & 0x3f) << 12
                | (*p.add(i - 2) as u32 & 0x3f) << 6
                | (*p.add(i - 1) as u32 & 0x3f)
        };
        *out = T::from_code_point(c);
        out = out.add(1);
    }
}

//! [`decode`](super::decode) with AVX2, where AVX-512 VBMI2 is missing: 16 bytes a step, as
//! two 8-byte halves. A half's lead bytes (the first may be inside a
//! sequence from the half before: it is then not a lead) pick, by their
//! 8-bit mask, a `vpshufb` control from a table of 256 that gathers each lead
//! and the three bytes after it into a 32-bit lane, up to 8 lanes; the lanes
//! are then assembled as in the AVX-512 path. Halves start every 8 bytes
//! whatever they hold, so no step waits for the one before it.

use super::Unit;
use core::arch::x86_64::*;

/// By the lead mask of an 8-byte half: the `vpshufb` control that puts
/// lead `k` (from the 16 bytes at the half, in both 128-bit lanes) in
/// byte 3 of 32-bit lane `k` and the three bytes after it in bytes 2, 1,
/// 0; lanes past the last lead zero.
static GATHER: [[u8; 32]; 256] = {
    let mut t = [[0x80u8; 32]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut lane = 0;
        let mut pos = 0;
        while pos < 8 {
            if mask & (1 << pos) != 0 {
                let mut k = 0;
                while k < 4 {
                    t[mask][lane * 4 + k] = (pos + 3 - k) as u8;
                    k += 1;
                }
                lane += 1;
            }
            pos += 1;
        }
        mask += 1;
    }
    t
};
/// By a lead's high nibble (0-7 ASCII, C-D two bytes, E three, F four;
/// 8-B never lead): how far right the assembled lane goes, dropping the
/// groups after the sequence, and 32 less the code point's bit count.
static SHIFT: [u8; 16] = [18, 18, 18, 18, 18, 18, 18, 18, 0, 0, 0, 0, 12, 12, 6, 0];
static KEEP_SHIFT: [u8; 16] = [25, 25, 25, 25, 25, 25, 25, 25, 32, 32, 32, 32, 21, 21, 16, 11];

#[inline(always)]
unsafe fn table16(t: &[u8; 16]) -> __m256i {
    _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr() as *const __m128i))
}

/// The code points of up to 8 leads among the 8 bytes at `p` whose lead
/// mask is `leads`, written as 8 units at `out` (those past the last
/// lead are junk, to be overwritten).
///
/// # Safety
/// 16 bytes readable at `p`; room for 8 units at `out`.
#[inline(always)]
unsafe fn half<T: Unit>(p: *const u8, leads: u32, out: *mut T, shift: __m256i, keep: __m256i) {
    let window = _mm256_broadcastsi128_si256(_mm_loadu_si128(p as *const __m128i));
    let control = _mm256_loadu_si256(GATHER[leads as usize].as_ptr() as *const __m256i);
    let x = _mm256_shuffle_epi8(window, control);
    // The lead's high nibble in byte 0 as the look-up index, the other
    // bytes' indices with the high bit set (so looked up as zero).
    let nibble = _mm256_or_si256(_mm256_srli_epi32::<28>(x), _mm256_set1_epi32(0x8080_8000u32 as i32));
    let y = _mm256_and_si256(x, _mm256_set1_epi32(0x7f3f_3f3f));
    let pairs = _mm256_maddubs_epi16(y, _mm256_set1_epi16(0x4001));
    let groups = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x1000_0001));
    let c = _mm256_srlv_epi32(groups, _mm256_shuffle_epi8(shift, nibble));
    let c = _mm256_and_si256(c, _mm256_srlv_epi32(_mm256_set1_epi32(-1), _mm256_shuffle_epi8(keep, nibble)));
    match core::mem::size_of::<T>() {
        1 => {
            let w = _mm256_packus_epi32(c, c);
            let b = _mm256_packus_epi16(w, w);
            let lo = _mm256_castsi256_si128(b);
            let hi = _mm256_extracti128_si256::<1>(b);
            let v = _mm_unpacklo_epi32(lo, hi);
            _mm_storel_epi64(out as *mut __m128i, v);
        }
        2 => {
            let w = _mm256_permute4x64_epi64::<0b1000>(_mm256_packus_epi32(c, c));
            _mm_storeu_si128(out as *mut __m128i, _mm256_castsi256_si128(w));
        }
        _ => _mm256_storeu_si256(out as *mut __m256i, c),
    }
}

/// [`super::decode`] with AVX2.
///
/// # Safety
/// As [`super::decode`], and the CPU has AVX2.
#[target_feature(enable = "avx2,popcnt")]
pub unsafe fn decode<T: Unit>(bytes: &[u8], out: *mut T, chars: usize) {
    let n = bytes.len();
    let p = bytes.as_ptr();
    let end = out.add(chars);
    let shift = table16(&SHIFT);
    let keep = table16(&KEEP_SHIFT);
    let lead_min = _mm_set1_epi8(-65);
    let mut o = out;
    let mut i = 0;
    // SAFETY (reads): 16-byte loads at `i` and `i + 8` with `i + 24 <= n`.
    // (writes): 8 or 16 units at `o` with that much room left before
    // `end`; units past the code points decoded are overwritten later.
    while i + 24 <= n && end.offset_from(o) >= 16 {
        let v = _mm_loadu_si128(p.add(i) as *const __m128i);
        let ascii = _mm_movemask_epi8(v) as u32;
        if ascii == 0 {
            // 16 ASCII bytes (so 16 code points): widen.
            T::widen8(u64::from_le_bytes(*(p.add(i) as *const [u8; 8])), o);
            T::widen8(u64::from_le_bytes(*(p.add(i + 8) as *const [u8; 8])), o.add(8));
            o = o.add(16);
            i += 16;
            continue;
        }
        // Lead bytes: signed from -64 (0xC0) up, and ASCII.
        let leads = _mm_movemask_epi8(_mm_cmpgt_epi8(v, lead_min)) as u32;
        let (lo, hi) = (leads & 0xff, leads >> 8);
        half(p.add(i), lo, o, shift, keep);
        let o2 = o.add(lo.count_ones() as usize);
        half(p.add(i + 8), hi, o2, shift, keep);
        o = o2.add(hi.count_ones() as usize);
        i += 16;
    }
    // The rest: from the first lead at or after `i` (bytes before it
    // continue a sequence already decoded).
    while i < n && (*p.add(i) as i8) < -64 {
        i += 1;
    }
    super::scalar::decode(bytes.get_unchecked(i..), o, end.offset_from(o) as usize);
}

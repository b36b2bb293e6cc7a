//! The UCS2 and UCS4 code units of CPython's str storage, as the wide
//! transcoders (`wide.rs`, `ssse3.rs`) read them.

#[cfg(target_arch = "x86_64")]
use super::sse2;
#[cfg(not(target_arch = "x86_64"))]
use super::ESCAPE;

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

/// `pshufb` tables for eight UCS2 units of one or two UTF-8 bytes: for each
/// mask of ASCII lanes, lane k's low byte (2k) and, unless it is ASCII, its
/// high byte (2k + 1), one after the other; 0x80 (zero) after them.
pub(super) const GATHER_ONE_OR_TWO: [[u8; 16]; 256] = {
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

/// `pshufb` tables that interleave eight three-byte sequences: output byte
/// `j` is byte `j % 3` of lane `j / 3`, taken from `leads` (first bytes at
/// 0-7, second bytes at 8-15) or `thirds` (third bytes at 0-7); 0x80 picks
/// a zero. Rows: output bytes 0-15 from leads, from thirds; 16-31 likewise.
pub(super) const THREE_BYTE_SHUFFLES: [[u8; 16]; 4] = {
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

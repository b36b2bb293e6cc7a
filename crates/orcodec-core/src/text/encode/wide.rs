//! UCS2 and UCS4 text to JSON string content, one code unit at a time
//! with eight-unit steps over runs of one kind (SSE2, or SSSE3 where the CPU
//! has it); [`escape_wide_best`] picks the SSSE3 kernel when it can.

use super::{put_escape, ESCAPE};
#[cfg(target_arch = "x86_64")]
use super::{sse2, ssse3};
use crate::text::SurrogateError;

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
pub(super) unsafe fn escape_wide<T: WideUnit, const SSSE3: bool>(
    src: &[T],
    mut out: *mut u8,
) -> Result<*mut u8, SurrogateError> {
    #[cfg(target_arch = "x86_64")]
    if SSSE3 {
        return ssse3::escape_wide_ssse3::<T, true>(src, out);
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

/// [`escape_wide`] with its SSSE3 steps where the CPU has them.
///
/// # Safety
/// As [`escape_wide`].
#[inline(always)]
pub(super) unsafe fn escape_wide_best<T: WideUnit>(src: &[T], out: *mut u8) -> Result<*mut u8, SurrogateError> {
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

#[cfg(test)]
mod tests {
    use super::super::{MAX_ESCAPED_PER_UNIT, SLACK};
    use super::*;
    use crate::testing::{json_string as reference, Rng};

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
}

//! One block of Latin-1, UCS2 or UCS4 code units to UTF-8 with AVX2: the
//! step the AVX2 and AVX-512 BW transcoders ([`super::avx2_wide`]) repeat.
//!
//! A block is classified by a few compares: all ASCII (narrowed and
//! stored), all below U+0800 (each unit's one or two bytes made in its
//! 16-bit lane and gathered by a `vpshufb` from a table indexed by the
//! ASCII lanes), all three-byte (interleaved by fixed shuffles: CJK), or a
//! mix, where each unit is encoded in a 32-bit lane and four lanes are
//! gathered at once by a table indexed by their lengths. The whole block
//! is always encoded; a unit the format must write itself (a lone
//! surrogate, or for JSON a byte to escape) is found by the same compares,
//! and the step reports the bytes of the units before it, which are a
//! prefix of what it stored.

use super::ssse3::GATHER_UTF8;
use super::unit::{GATHER_ONE_OR_TWO, THREE_BYTE_SHUFFLES};
use super::Specials;
use core::arch::x86_64::*;

/// What one block step wrote.
pub(crate) struct Step {
    /// Bytes that count at `out`: the UTF-8 of the whole block, or of the
    /// units before the first special one.
    pub len: usize,
    /// The first unit the format writes itself, if any.
    pub special: Option<usize>,
}

/// A Latin-1, UCS2 or UCS4 code unit, as the AVX2 block step takes it.
pub(crate) trait BlockUnit: Copy + Into<u32> {
    /// Units in a block.
    const BLOCK: usize;
    /// Most UTF-8 bytes one unit takes.
    const MAX_UTF8: usize;
    /// The furthest byte past `out` a step stores (whole vectors): within
    /// `MAX_UTF8` bytes per unit of the block and [`super::SLACK`].
    const STORES: usize;
    /// Four bytes of units of plain ASCII (`a`), to pad a short tail to a
    /// whole block.
    const PAD: u32;
    /// Encodes the `BLOCK` units at `p` to UTF-8 at `out`.
    ///
    /// # Safety
    /// `p` readable for `BLOCK` units, `out` writable for `STORES` bytes;
    /// the caller is compiled for AVX2 and POPCNT.
    unsafe fn step<S: Specials>(p: *const Self, out: *mut u8) -> Step;
}

/// The first special unit of a block from a movemask of its special lanes
/// (`bits` mask bits per unit), if any.
#[inline(always)]
fn first_special(mask: u32, bits: u32) -> Option<usize> {
    (mask != 0).then(|| (mask.trailing_zeros() / bits) as usize)
}

/// The mask bits below unit `k`'s (`bits` per unit; `k` below `32 / bits`).
#[inline(always)]
fn below(k: usize, bits: u32) -> u32 {
    (1u32 << (k as u32 * bits)) - 1
}

/// Lanes of `v` (16-bit) at most `max`, all bits set.
#[inline(always)]
unsafe fn at_most16(v: __m256i, max: u16) -> __m256i {
    _mm256_cmpeq_epi16(_mm256_subs_epu16(v, _mm256_set1_epi16(max as i16)), _mm256_setzero_si256())
}

/// The UTF-8 of 16 units below U+0800 in the 16-bit lanes of `v` (one
/// or two bytes each), stored in two parts; returns its length. Stores
/// at most 32 bytes.
///
/// # Safety
/// 32 bytes writable at `out`; the caller is compiled for AVX2 and POPCNT.
#[inline(always)]
unsafe fn one_or_two_bytes(v: __m256i, out: *mut u8) -> usize {
    let splat = _mm256_set1_epi16;
    // 110xxxxx 10xxxxxx, first byte lowest, where above 0x7F.
    let lead = _mm256_or_si256(_mm256_srli_epi16::<6>(v), splat(0xC0));
    let tail = _mm256_slli_epi16::<8>(_mm256_or_si256(_mm256_and_si256(v, splat(0x3F)), splat(0x80)));
    let ascii = at_most16(v, 0x7F);
    let units = _mm256_blendv_epi8(_mm256_or_si256(lead, tail), v, ascii);
    // A bit per ASCII unit, eight per half: bits 0-7 and 16-23.
    let mask = _mm256_movemask_epi8(_mm256_packs_epi16(ascii, _mm256_setzero_si256())) as u32;
    let (low, high) = ((mask & 0xFF) as usize, (mask >> 16 & 0xFF) as usize);
    let gather = _mm256_loadu2_m128i(
        GATHER_ONE_OR_TWO[high].as_ptr() as *const __m128i,
        GATHER_ONE_OR_TWO[low].as_ptr() as *const __m128i,
    );
    let packed = _mm256_shuffle_epi8(units, gather);
    let first = 16 - low.count_ones() as usize;
    // SAFETY: 16 bytes at `out` and at `out + first` (at most 16 on).
    _mm_storeu_si128(out as *mut __m128i, _mm256_castsi256_si128(packed));
    _mm_storeu_si128(out.add(first) as *mut __m128i, _mm256_extracti128_si256::<1>(packed));
    first + 16 - high.count_ones() as usize
}

/// The UTF-8 of 16 units from U+0800 to U+FFFF in the 16-bit lanes of
/// `v`: 48 bytes, four stores reaching 56 bytes past `out`.
///
/// # Safety
/// 56 bytes writable at `out`; the caller is compiled for AVX2.
#[inline(always)]
unsafe fn three_bytes(v: __m256i, out: *mut u8) -> usize {
    let splat = _mm256_set1_epi16;
    // 1110xxxx 10xxxxxx 10xxxxxx: per half, the first and second bytes of
    // its eight units packed into one vector, the third into another, then
    // interleaved by the SSSE3 kernel's tables, in both halves at once.
    let first = _mm256_or_si256(_mm256_srli_epi16::<12>(v), splat(0xE0));
    let second = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16::<6>(v), splat(0x3F)), splat(0x80));
    let third = _mm256_or_si256(_mm256_and_si256(v, splat(0x3F)), splat(0x80));
    let leads = _mm256_packus_epi16(first, second);
    let thirds = _mm256_packus_epi16(third, third);
    #[inline(always)]
    unsafe fn table(k: usize) -> __m256i {
        _mm256_broadcastsi128_si256(_mm_loadu_si128(THREE_BYTE_SHUFFLES[k].as_ptr() as *const __m128i))
    }
    let lo = _mm256_or_si256(_mm256_shuffle_epi8(leads, table(0)), _mm256_shuffle_epi8(thirds, table(1)));
    let hi = _mm256_or_si256(_mm256_shuffle_epi8(leads, table(2)), _mm256_shuffle_epi8(thirds, table(3)));
    // SAFETY: each half's 24 bytes (16, then 8 of a 16-byte store), in
    // order, so each store's bytes past its part are overwritten next.
    _mm_storeu_si128(out as *mut __m128i, _mm256_castsi256_si128(lo));
    _mm_storeu_si128(out.add(16) as *mut __m128i, _mm256_castsi256_si128(hi));
    _mm_storeu_si128(out.add(24) as *mut __m128i, _mm256_extracti128_si256::<1>(lo));
    _mm_storeu_si128(out.add(40) as *mut __m128i, _mm256_extracti128_si256::<1>(hi));
    48
}

/// The UTF-8 of the eight code points (no surrogate) in the 32-bit lanes
/// of `c`, each encoded in its lane and four gathered at once; returns its
/// length. Stores at most `MAX_UTF8 * 4 + 16` bytes.
///
/// # Safety
/// That many bytes writable at `out`; the caller is compiled for AVX2 and
/// POPCNT.
#[inline(always)]
unsafe fn any_lengths<const ASTRAL: bool>(c: __m256i, out: *mut u8) -> usize {
    let splat = _mm256_set1_epi32;
    let two_or_more = _mm256_cmpgt_epi32(c, splat(0x7F));
    let three_or_more = _mm256_cmpgt_epi32(c, splat(0x7FF));
    let four = if ASTRAL { _mm256_cmpgt_epi32(c, splat(0xFFFF)) } else { _mm256_setzero_si256() };
    // Continuation bytes 10xxxxxx from bits 0-5, 6-11 and 12-17.
    #[inline(always)]
    unsafe fn cont(bits: __m256i) -> __m256i {
        _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x3F)), _mm256_set1_epi32(0x80))
    }
    let (c0, c6) = (cont(c), cont(_mm256_srli_epi32::<6>(c)));
    let two = _mm256_or_si256(_mm256_or_si256(_mm256_srli_epi32::<6>(c), splat(0xC0)), _mm256_slli_epi32::<8>(c0));
    let three = _mm256_or_si256(
        _mm256_or_si256(_mm256_srli_epi32::<12>(c), splat(0xE0)),
        _mm256_or_si256(_mm256_slli_epi32::<8>(c6), _mm256_slli_epi32::<16>(c0)),
    );
    let mut encoded = _mm256_blendv_epi8(_mm256_blendv_epi8(c, two, two_or_more), three, three_or_more);
    if ASTRAL {
        let c12 = cont(_mm256_srli_epi32::<12>(c));
        let four_bytes = _mm256_or_si256(
            _mm256_or_si256(_mm256_or_si256(_mm256_srli_epi32::<18>(c), splat(0xF0)), _mm256_slli_epi32::<8>(c12)),
            _mm256_or_si256(_mm256_slli_epi32::<16>(c6), _mm256_slli_epi32::<24>(c0)),
        );
        encoded = _mm256_blendv_epi8(encoded, four_bytes, four);
    }
    // Each lane's length less one as two mask bits, in the SSSE3 kernel's
    // code for its table: bit k odd length less one, bit 4 + k two or three.
    let extra =
        _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_add_epi32(_mm256_add_epi32(two_or_more, three_or_more), four));
    let odd = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32::<31>(extra))) as usize;
    let high = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32::<30>(extra))) as usize;
    let (code0, code1) = ((odd & 0xF) | (high & 0xF) << 4, odd >> 4 | (high >> 4) << 4);
    let gather = _mm256_loadu2_m128i(
        GATHER_UTF8[code1].as_ptr() as *const __m128i,
        GATHER_UTF8[code0].as_ptr() as *const __m128i,
    );
    let packed = _mm256_shuffle_epi8(encoded, gather);
    let first = 4 + (code0 & 0xF).count_ones() as usize + 2 * (code0 >> 4).count_ones() as usize;
    // SAFETY: 16 bytes at `out` and at `out + first` (at most 16 on).
    _mm_storeu_si128(out as *mut __m128i, _mm256_castsi256_si128(packed));
    _mm_storeu_si128(out.add(first) as *mut __m128i, _mm256_extracti128_si256::<1>(packed));
    first + 4 + (code1 & 0xF).count_ones() as usize + 2 * (code1 >> 4).count_ones() as usize
}

/// Eight of a mixed block's UCS2 units at `p`, on their own: all ASCII (the
/// spaces, digits and links between words) narrowed, else any lengths;
/// `ascii` holds their two mask bits each from bit 0. Returns the length
/// written; stores at most 28 bytes.
///
/// # Safety
/// Eight units readable at `p`, 28 bytes writable at `out`; the caller is
/// compiled for AVX2 and POPCNT.
#[inline(always)]
unsafe fn mixed_half(p: *const u16, ascii: u32, out: *mut u8) -> usize {
    let units = _mm_loadu_si128(p as *const __m128i);
    if ascii & 0xFFFF == 0xFFFF {
        _mm_storel_epi64(out as *mut __m128i, _mm_packus_epi16(units, units));
        8
    } else {
        any_lengths::<false>(_mm256_cvtepu16_epi32(units), out)
    }
}

impl BlockUnit for u16 {
    const BLOCK: usize = 16;
    const MAX_UTF8: usize = 3;
    const STORES: usize = 56;
    const PAD: u32 = 0x0061_0061;
    #[inline(always)]
    unsafe fn step<S: Specials>(p: *const u16, out: *mut u8) -> Step {
        let splat = _mm256_set1_epi16;
        // SAFETY: the caller's promise: 16 units readable at `p`.
        let v = _mm256_loadu_si256(p as *const __m256i);
        let mut special = _mm256_cmpeq_epi16(_mm256_and_si256(v, splat(0xF800u16 as i16)), splat(0xD800u16 as i16));
        if S::JSON {
            special = _mm256_or_si256(
                _mm256_or_si256(special, at_most16(v, 0x1F)),
                _mm256_or_si256(_mm256_cmpeq_epi16(v, splat(b'"' as i16)), _mm256_cmpeq_epi16(v, splat(b'\\' as i16))),
            );
        }
        // Two mask bits per unit.
        let ascii = _mm256_movemask_epi8(at_most16(v, 0x7F)) as u32;
        let short = _mm256_movemask_epi8(at_most16(v, 0x7FF)) as u32;
        // SAFETY (each path): what it stores is within `STORES` bytes.
        let len = if ascii == !0 {
            let bytes = _mm_packus_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
            _mm_storeu_si128(out as *mut __m128i, bytes);
            16
        } else if short == !0 {
            one_or_two_bytes(v, out)
        } else if short == 0 {
            three_bytes(v, out)
        } else {
            let first = mixed_half(p, ascii, out);
            first + mixed_half(p.add(8), ascii >> 16, out.add(first))
        };
        let special = first_special(_mm256_movemask_epi8(special) as u32, 2);
        match special {
            None => Step { len, special },
            Some(k) => {
                // One byte per unit before it, one more for each past 0x7F,
                // another for each past 0x7FF (two mask bits per unit).
                let before = below(k, 2);
                let extra = (!ascii & before).count_ones() + (!short & before).count_ones();
                Step { len: k + extra as usize / 2, special }
            }
        }
    }
}

impl BlockUnit for u32 {
    const BLOCK: usize = 8;
    const MAX_UTF8: usize = 4;
    const STORES: usize = 32;
    const PAD: u32 = 0x61;
    #[inline(always)]
    unsafe fn step<S: Specials>(p: *const u32, out: *mut u8) -> Step {
        let splat = _mm256_set1_epi32;
        // SAFETY: the caller's promise: 8 units readable at `p`.
        let c = _mm256_loadu_si256(p as *const __m256i);
        // Code points are below 2**31, so signed compares order them.
        let mut special = _mm256_cmpeq_epi32(_mm256_and_si256(c, splat(!0x7FF)), splat(0xD800));
        if S::JSON {
            special = _mm256_or_si256(
                _mm256_or_si256(special, _mm256_cmpgt_epi32(splat(0x20), c)),
                _mm256_or_si256(_mm256_cmpeq_epi32(c, splat(b'"' as i32)), _mm256_cmpeq_epi32(c, splat(b'\\' as i32))),
            );
        }
        #[inline(always)]
        unsafe fn lane_mask(m: __m256i) -> u32 {
            _mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32
        }
        let long = lane_mask(_mm256_cmpgt_epi32(c, splat(0x7F)));
        // SAFETY (each path): what it stores is within `STORES` bytes.
        let len = if long == 0 {
            let halves = _mm_packs_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256::<1>(c));
            _mm_storel_epi64(out as *mut __m128i, _mm_packus_epi16(halves, halves));
            8
        } else {
            any_lengths::<true>(c, out)
        };
        let special = first_special(lane_mask(special), 1);
        match special {
            None => Step { len, special },
            Some(k) => {
                let before = below(k, 1);
                let extra = (long & before).count_ones()
                    + (lane_mask(_mm256_cmpgt_epi32(c, splat(0x7FF))) & before).count_ones()
                    + (lane_mask(_mm256_cmpgt_epi32(c, splat(0xFFFF))) & before).count_ones();
                Step { len: k + extra as usize, special }
            }
        }
    }
}

impl BlockUnit for u8 {
    const BLOCK: usize = 16;
    const MAX_UTF8: usize = 2;
    const STORES: usize = 32;
    const PAD: u32 = 0x6161_6161;
    #[inline(always)]
    unsafe fn step<S: Specials>(p: *const u8, out: *mut u8) -> Step {
        let splat = _mm_set1_epi8;
        // SAFETY: the caller's promise: 16 bytes readable at `p`.
        let b = _mm_loadu_si128(p as *const __m128i);
        let high = _mm_movemask_epi8(b) as u32;
        // SAFETY (each path): what it stores is within `STORES` bytes.
        let len = if high == 0 {
            _mm_storeu_si128(out as *mut __m128i, b);
            16
        } else {
            one_or_two_bytes(_mm256_cvtepu8_epi16(b), out)
        };
        if !S::JSON {
            return Step { len, special: None };
        }
        let special = _mm_or_si128(
            _mm_cmpeq_epi8(_mm_max_epu8(b, splat(0x1F)), splat(0x1F)),
            _mm_or_si128(_mm_cmpeq_epi8(b, splat(b'"' as i8)), _mm_cmpeq_epi8(b, splat(b'\\' as i8))),
        );
        let special = first_special(_mm_movemask_epi8(special) as u32, 1);
        match special {
            None => Step { len, special },
            Some(k) => Step { len: k + (high & below(k, 1)).count_ones() as usize, special },
        }
    }
}

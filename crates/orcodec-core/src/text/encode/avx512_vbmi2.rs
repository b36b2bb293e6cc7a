//! UCS1, UCS2 and UCS4 to UTF-8 with AVX-512, for both formats.
//!
//! Every code unit is encoded in its own vector lane, whatever its length,
//! so text that switches between ASCII and other scripts costs no branch
//! mispredictions: a 16- (UCS1: 32-) bit lane per Latin-1 unit, a 32-bit
//! lane per UCS2/UCS4 unit, with the UTF-8 bytes first-lowest; the bytes that
//! count are then packed together by one `vpcompressb`. Whole blocks with
//! nothing special store all 64 bytes, which the room for the units left
//! always holds (the bytes past the packed ones are overwritten next); the
//! tail, and a block with a special unit (a surrogate, or for JSON a byte to
//! escape), go through the same step on a masked load, stop before the
//! special unit and store under a byte mask; [`Specials::put`] writes the
//! special unit and the next step starts after it.
//!
//! Port 5 (mask compares, `vpmultishiftqb`, `vpcompressb`, zero-extension)
//! bounds the speed: a whole UCS2 block costs about 8 of its micro-ops.

use super::Specials;
use crate::text::SurrogateError;
use core::arch::x86_64::*;

/// A UCS2 or UCS4 code unit.
pub(crate) trait Wide: Copy + Into<u32> {
    /// Whether a unit can be beyond U+FFFF (and take four bytes).
    const ASTRAL: bool;
    /// The most UTF-8 bytes a unit takes.
    const MAX_UTF8: usize;
    /// The units of `lanes` (a bit per unit) at `p` in 32-bit lanes, the
    /// others zero.
    ///
    /// # Safety
    /// `p` readable for the units in `lanes`; the CPU has AVX-512 BW, VL.
    unsafe fn load16(p: *const Self, lanes: __mmask16) -> __m512i;
    /// Units [`whole_block`](Wide::whole_block) takes: 16 or 32.
    const BLOCK: usize;
    /// If none of the `BLOCK` units at `p` is special to `S`, writes
    /// their UTF-8 at `out` and returns its length; else writes nothing.
    /// May store up to `BLOCK * 4` bytes at `out` (fewer for UCS2, see
    /// [`wide`]).
    ///
    /// # Safety
    /// `p` readable for `BLOCK` units, room at `out` for what it stores;
    /// the caller is compiled for what [`wide`] needs.
    #[inline(always)]
    unsafe fn whole_block<S: Specials>(p: *const Self, out: *mut u8) -> Option<usize> {
        let c = Self::load16(p, 0xFFFF);
        if special16::<S>(c, 0xFFFF) != 0 {
            return None;
        }
        Some(pack16::<Self>(c, out))
    }
}

impl Wide for u16 {
    const ASTRAL: bool = false;
    const MAX_UTF8: usize = 3;
    #[inline(always)]
    unsafe fn load16(p: *const u16, lanes: __mmask16) -> __m512i {
        // SAFETY: a masked load touches only the units in `lanes`.
        _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(lanes, p as *const i16))
    }
    const BLOCK: usize = 32;
    /// The 32 units in 16-bit lanes: one check for specials (half the
    /// mask compares of checking them in 32-bit lanes); a block of
    /// units all below U+0800 (Cyrillic, Greek, Hebrew, Arabic... with
    /// ASCII) is encoded in those lanes and packed by one `vpcompressb`,
    /// a block all of three bytes (CJK) is interleaved by two fixed
    /// `vpermt2b`, and any other goes as two blocks of 16 in 32-bit
    /// lanes. Stores at most 96 bytes (the three-byte case, exactly).
    #[inline(always)]
    unsafe fn whole_block<S: Specials>(p: *const u16, out: *mut u8) -> Option<usize> {
        let splat = _mm512_set1_epi16;
        // SAFETY: the caller's promise: 32 units readable at `p`.
        let v = _mm512_loadu_si512(p as *const __m512i);
        let mut special =
            _mm512_cmpeq_epi16_mask(_mm512_and_si512(v, splat(0xF800u16 as i16)), splat(0xD800u16 as i16));
        if S::JSON {
            special |= _mm512_cmplt_epu16_mask(v, splat(0x20))
                | _mm512_cmpeq_epi16_mask(v, splat(b'"' as i16))
                | _mm512_cmpeq_epi16_mask(v, splat(b'\\' as i16));
        }
        if special != 0 {
            return None;
        }
        let long = _mm512_cmpgt_epu16_mask(v, splat(0x7FF));
        let low6 = _mm512_and_si512(v, splat(0x3F));
        if long == 0 {
            // One or two bytes each: 110xxxxx 10xxxxxx first-lowest
            // where above 0x7F, the unit itself elsewhere.
            let high = _mm512_cmpgt_epu16_mask(v, splat(0x7F));
            let pair = _mm512_or_si512(
                _mm512_or_si512(_mm512_srli_epi16::<6>(v), _mm512_slli_epi16::<8>(low6)),
                splat(0x80C0u16 as i16),
            );
            let utf8 = _mm512_mask_mov_epi16(v, high, pair);
            let bytes = 0x5555_5555_5555_5555 | _pdep_u64(high as u64, 0xAAAA_AAAA_AAAA_AAAA);
            // SAFETY: at most 64 bytes, within the caller's room.
            _mm512_storeu_si512(out as *mut __m512i, _mm512_maskz_compress_epi8(bytes, utf8));
            return Some(32 + high.count_ones() as usize);
        }
        // 1110xxxx 10xxxxxx of each unit in its 16-bit lane, and the
        // last byte 10xxxxxx in another vector.
        let lead = _mm512_or_si512(
            _mm512_or_si512(_mm512_srli_epi16::<12>(v), _mm512_and_si512(_mm512_slli_epi16::<2>(v), splat(0x3F00))),
            splat(0x80E0u16 as i16),
        );
        let last = _mm512_or_si512(low6, splat(0x80));
        let table = |k: usize| _mm512_loadu_si512(THREE_BYTE_PERMUTES[k].as_ptr() as *const __m512i);
        if long == !0 {
            // Three bytes each: interleaved by fixed tables.
            // SAFETY: 96 bytes, the UTF-8 of the 32 units, within the
            // caller's room.
            _mm512_storeu_si512(out as *mut __m512i, _mm512_permutex2var_epi8(lead, table(0), last));
            _mm256_storeu_si256(
                out.add(64) as *mut __m256i,
                _mm512_castsi512_si256(_mm512_permutex2var_epi8(lead, table(1), last)),
            );
            return Some(96);
        }
        if _mm512_cmpgt_epu16_mask(v, splat(0x7F)) == long {
            // ASCII and three-byte units only (Japanese, Chinese with
            // ASCII): the same interleave, an ASCII unit's lane holding
            // the unit itself, then the bytes of its three that count
            // (the first; all three of a long unit) packed in two parts.
            let first = _mm512_mask_mov_epi16(v, long, lead);
            let low = _mm512_permutex2var_epi8(first, table(0), last);
            let high = _mm512_permutex2var_epi8(first, table(1), last);
            let long = long as u64;
            let [m0, m1, m2] = THREE_BYTE_KEEP;
            let keep_low = m0[0] | _pdep_u64(long, m1[0]) | _pdep_u64(long, m2[0]);
            let keep_high = m0[1] | _pdep_u64(long >> 21, m1[1]) | _pdep_u64(long >> 21, m2[1]);
            let len = keep_low.count_ones() as usize;
            // SAFETY: at most 64 + 32 bytes (the second part is at most
            // 32), within the caller's room.
            _mm512_storeu_si512(out as *mut __m512i, _mm512_maskz_compress_epi8(keep_low, low));
            _mm256_storeu_si256(
                out.add(len) as *mut __m256i,
                _mm512_castsi512_si256(_mm512_maskz_compress_epi8(keep_high, high)),
            );
            return Some(len + keep_high.count_ones() as usize);
        }
        // (Zero-extended from memory again: cheaper than extracting the
        // upper half.)
        let len = pack16::<u16>(Self::load16(p, 0xFFFF), out);
        Some(len + pack16::<u16>(Self::load16(p.add(16), 0xFFFF), out.add(len)))
    }
}

/// Which of the 96 bytes interleaved by [`THREE_BYTE_PERMUTES`] belong
/// to each byte position of a unit: `[first, second, third]`, each as the
/// bits of the first 64 and of the last 32 bytes. A unit's first byte is
/// always kept; its second and third only if it is long, so those masks
/// are `pdep` targets (units 0-20 in the first part, 21-31 in the second).
const THREE_BYTE_KEEP: [[u64; 2]; 3] = {
    let mut masks = [[0u64; 2]; 3];
    let mut j = 0;
    while j < 96 {
        masks[j % 3][j / 64] |= 1 << (j % 64);
        j += 1;
    }
    masks
};

/// `vpermt2b` tables interleaving 32 three-byte sequences: output byte
/// `j` (64 per table) is byte `j % 3` of unit `j / 3`: its first two
/// from the lead vector (bytes `2u`, `2u + 1`), its last from the other
/// (byte `2u`, bit 6 of the index choosing it).
static THREE_BYTE_PERMUTES: [[u8; 64]; 2] = {
    let mut tables = [[0u8; 64]; 2];
    let mut j = 0;
    while j < 96 {
        let (unit, byte) = (j / 3, j % 3);
        tables[j / 64][j % 64] = match byte {
            0 => 2 * unit,
            1 => 2 * unit + 1,
            _ => 64 + 2 * unit,
        } as u8;
        j += 1;
    }
    tables
};

impl Wide for u32 {
    const ASTRAL: bool = true;
    const MAX_UTF8: usize = 4;
    #[inline(always)]
    unsafe fn load16(p: *const u32, lanes: __mmask16) -> __m512i {
        // SAFETY: a masked load touches only the units in `lanes`.
        _mm512_maskz_loadu_epi32(lanes, p as *const i32)
    }
    const BLOCK: usize = 16;
}

/// The mask of the first `n` (at most `bits`) of `bits` lanes.
#[inline(always)]
unsafe fn first(n: usize, bits: u32) -> u64 {
    _bzhi_u64(u64::MAX, n.min(bits as usize) as u32)
}

/// The UTF-8 of the code points in the 32-bit lanes of `c` (none a
/// surrogate), first byte lowest, the rest of each lane zero.
#[inline(always)]
unsafe fn encode16<T: Wide>(c: __m512i) -> __m512i {
    let splat = _mm512_set1_epi32;
    // vpmultishiftqb picks, for each byte of a 64-bit word, the eight
    // bits from a given offset: in each 32-bit lane, bits 18.., 12..,
    // 6.. and 0.. of the code point, the payloads of a four-byte form,
    // first-lowest; masked to six bits each. The shorter forms are its
    // last three or two bytes, with their length's marks.
    let spread = _mm512_set1_epi64(0x2026_2c32_0006_0c12);
    let payload = _mm512_and_si512(_mm512_multishift_epi64_epi8(spread, c), splat(0x3F3F_3F3F));
    let mut utf8 = _mm512_mask_or_epi32(
        c,
        _mm512_cmpgt_epu32_mask(c, splat(0x7F)),
        _mm512_srli_epi32::<16>(payload),
        splat(0x80C0),
    );
    utf8 = _mm512_mask_or_epi32(
        utf8,
        _mm512_cmpgt_epu32_mask(c, splat(0x7FF)),
        _mm512_srli_epi32::<8>(payload),
        splat(0x80_80E0),
    );
    if T::ASTRAL {
        utf8 = _mm512_mask_or_epi32(
            utf8,
            _mm512_cmpgt_epu32_mask(c, splat(0xFFFF)),
            payload,
            splat(0x8080_80F0u32 as i32),
        );
    }
    utf8
}

/// Writes the UTF-8 of the code points in the 32-bit lanes of `c` (no
/// surrogate among them) at `out`, storing all 64 bytes of the packed
/// vector; returns the length that counts.
///
/// # Safety
/// 64 bytes writable at `out`; the caller is compiled for what [`wide`]
/// needs.
#[inline(always)]
unsafe fn pack16<T: Wide>(c: __m512i, out: *mut u8) -> usize {
    let utf8 = encode16::<T>(c);
    // Every used byte is nonzero but an ASCII NUL: with bit 0 of each
    // lane set, a byte test finds them all.
    let marked = _mm512_or_si512(utf8, _mm512_set1_epi32(1));
    let bytes = _mm512_test_epi8_mask(marked, marked);
    _mm512_storeu_si512(out as *mut __m512i, _mm512_maskz_compress_epi8(bytes, utf8));
    bytes.count_ones() as usize
}

/// The lanes of `lanes` whose code point `S` must write itself: lone
/// surrogates, and for JSON the ASCII to escape.
#[inline(always)]
unsafe fn special16<S: Specials>(c: __m512i, lanes: __mmask16) -> __mmask16 {
    let splat = _mm512_set1_epi32;
    let mut special = _mm512_mask_cmpeq_epi32_mask(lanes, _mm512_and_si512(c, splat(!0x7FF)), splat(0xD800));
    if S::JSON {
        special |= _mm512_mask_cmplt_epu32_mask(lanes, c, splat(0x20))
            | _mm512_mask_cmpeq_epi32_mask(lanes, c, splat(b'"' as i32))
            | _mm512_mask_cmpeq_epi32_mask(lanes, c, splat(b'\\' as i32));
    }
    special
}

/// UCS2/UCS4 units to UTF-8 at `out`, 16 at a time; returns the new end.
///
/// # Safety
/// `out` has room for `T::MAX_UTF8` bytes per unit, or `S::ROOM` if that
/// is more; the CPU has AVX-512 F, BW, VL, VBMI, VBMI2, BMI2 and POPCNT
/// ([`crate::cpu::avx512_vbmi2`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
pub(crate) unsafe fn wide<T: Wide, S: Specials>(src: &[T], mut out: *mut u8) -> Result<*mut u8, SurrogateError> {
    let n = src.len();
    let p = src.as_ptr();
    let ones = _mm512_set1_epi32(1);
    // Units left from which a whole 64-byte store fits the room left
    // (at least `room` per unit left, as at most that much was written
    // per unit so far).
    let room = if S::ROOM > T::MAX_UTF8 { S::ROOM } else { T::MAX_UTF8 };
    let whole = 64usize.div_ceil(room);
    let whole = if whole > 16 { whole } else { 16 };
    let mut i = 0;
    while i < n {
        // Whole blocks without a special unit: no lane masks, and the
        // packed bytes stored whole (the ones past them are scribbles
        // in the room, overwritten next). A UCS2 block is 32 units and
        // needs `whole` units left from its second half's start.
        while n - i >= T::BLOCK - 16 + whole {
            // SAFETY: units `i..i + T::BLOCK` are in `src`; what it
            // stores fits the room left (see `whole`, and 96 bytes for
            // 32 UCS2 units, within 3 per unit).
            match T::whole_block::<S>(p.add(i), out) {
                Some(len) => out = out.add(len),
                None => break,
            }
            i += T::BLOCK;
        }
        while n - i >= whole {
            // SAFETY: units `i..i + 16` are in `src`.
            let c = T::load16(p.add(i), 0xFFFF);
            if special16::<S>(c, 0xFFFF) != 0 {
                break;
            }
            // SAFETY: 64 bytes fit the room left (see `whole`).
            out = out.add(pack16::<T>(c, out));
            i += 16;
        }
        if i == n {
            break;
        }
        // The tail, or a block with a special unit: up to 16 units on a
        // masked load, stopping before the first special one, which
        // `S::put` writes; the bytes are stored under a mask.
        let lanes = first(n - i, 16) as __mmask16;
        // SAFETY: the units of `lanes` are `i..min(n, i + 16)`.
        let c = T::load16(p.add(i), lanes);
        let special = special16::<S>(c, lanes);
        // The lanes before the first special one (all of them if none).
        let take = lanes & special.wrapping_sub(1) & !special;
        let utf8 = encode16::<T>(c);
        let marked = _mm512_maskz_or_epi32(take, utf8, ones);
        let bytes = _mm512_test_epi8_mask(marked, marked);
        let len = bytes.count_ones() as usize;
        // SAFETY: `len` bytes, the UTF-8 of the taken units, within the
        // room the caller promised for them.
        _mm512_mask_storeu_epi8(out as *mut i8, first(len, 64), _mm512_maskz_compress_epi8(bytes, utf8));
        out = out.add(len);
        if special == 0 {
            i += 16;
            continue;
        }
        let k = special.trailing_zeros() as usize;
        out = S::put((*p.add(i + k)).into(), out)?;
        i += k + 1;
    }
    Ok(out)
}

/// Latin-1 units to UTF-8 at `out`, 32 at a time; returns the new end.
///
/// # Safety
/// `out` has room for 2 bytes per unit, or `S::ROOM` if that is more;
/// the CPU has what [`wide`] needs.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
pub(crate) unsafe fn ucs1<S: Specials>(src: &[u8], mut out: *mut u8) -> Result<*mut u8, SurrogateError> {
    let n = src.len();
    let p = src.as_ptr();
    // The lanes of `lanes` holding a byte JSON escapes.
    #[inline(always)]
    unsafe fn special32<S: Specials>(c: __m256i, lanes: __mmask32) -> __mmask32 {
        if !S::JSON {
            return 0;
        }
        let splat = _mm256_set1_epi8;
        _mm256_mask_cmplt_epu8_mask(lanes, c, splat(0x20))
            | _mm256_mask_cmpeq_epi8_mask(lanes, c, splat(b'"' as i8))
            | _mm256_mask_cmpeq_epi8_mask(lanes, c, splat(b'\\' as i8))
    }
    // Each unit in a 16-bit lane as its UTF-8, first byte lowest:
    // 0x80..0xFF become 110000xx 10xxxxxx.
    #[inline(always)]
    unsafe fn encode32(c: __m256i) -> __m512i {
        let splat = _mm512_set1_epi16;
        let wide = _mm512_cvtepu8_epi16(c);
        let pair = _mm512_or_si512(
            _mm512_or_si512(_mm512_srli_epi16::<6>(wide), _mm512_slli_epi16::<8>(_mm512_and_si512(wide, splat(0x3F)))),
            splat(0x80C0u16 as i16),
        );
        _mm512_mask_mov_epi16(wide, _mm256_movepi8_mask(c), pair)
    }
    let mut i = 0;
    while i < n {
        // Whole blocks without a byte to escape, stored whole (the bytes
        // past the packed ones are scribbles in the room).
        while n - i >= 32 {
            // SAFETY: bytes `i..i + 32` are in `src`.
            let c = _mm256_loadu_si256(p.add(i) as *const __m256i);
            if special32::<S>(c, !0) != 0 {
                break;
            }
            // Each lane's first byte, and its second where it is high.
            let high = _mm256_movemask_epi8(c) as u32 as u64;
            let bytes = 0x5555_5555_5555_5555 | _pdep_u64(high, 0xAAAA_AAAA_AAAA_AAAA);
            // SAFETY: 64 bytes fit: at least 2 per unit left, 32 left.
            _mm512_storeu_si512(out as *mut __m512i, _mm512_maskz_compress_epi8(bytes, encode32(c)));
            out = out.add(32 + high.count_ones() as usize);
            i += 32;
        }
        if i == n {
            break;
        }
        // The tail, or a block with a byte to escape: as in `wide`.
        let lanes = first(n - i, 32) as __mmask32;
        // SAFETY: a masked load touches only bytes `i..min(n, i + 32)`.
        let c = _mm256_maskz_loadu_epi8(lanes, p.add(i) as *const i8);
        let special = special32::<S>(c, lanes);
        let take = lanes & special.wrapping_sub(1) & !special;
        let high = _mm256_movemask_epi8(c) as u32;
        let bytes =
            _pdep_u64(take as u64, 0x5555_5555_5555_5555) | _pdep_u64((take & high) as u64, 0xAAAA_AAAA_AAAA_AAAA);
        let len = bytes.count_ones() as usize;
        // SAFETY: `len` bytes, the UTF-8 of the taken units, within the
        // room the caller promised for them.
        _mm512_mask_storeu_epi8(out as *mut i8, first(len, 64), _mm512_maskz_compress_epi8(bytes, encode32(c)));
        out = out.add(len);
        if special == 0 {
            i += 32;
            continue;
        }
        let k = special.trailing_zeros() as usize;
        out = S::put(*p.add(i + k) as u32, out)?;
        i += k + 1;
    }
    Ok(out)
}

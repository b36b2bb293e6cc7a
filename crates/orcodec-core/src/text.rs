//! Text as CPython stores it, and its conversion to UTF-8.
//!
//! A compact `str` holds its code points in one of three widths (PEP 393). The
//! writers take that storage as it is, so no UTF-8 copy is ever cached on the
//! Python object.

/// A borrowed view of a string's storage.
#[derive(Clone, Copy, Debug)]
pub enum Text<'a> {
    /// Valid UTF-8 (ASCII-only `str`, or a cached UTF-8 form).
    Utf8(&'a [u8]),
    /// One byte per code point, some of them >= 0x80 (Latin-1).
    Ucs1(&'a [u8]),
    /// Two bytes per code point. Any surrogate here is a lone one.
    Ucs2(&'a [u16]),
    /// Four bytes per code point.
    Ucs4(&'a [u32]),
}

/// Bytes past a string's UTF-8 bound that [`Text::write_utf8`] may write
/// over (the SSSE3 steps store whole 16-byte words).
pub const WRITE_SLACK: usize = 8;

/// A string that cannot become UTF-8 because it holds a lone surrogate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurrogateError;

impl<'a> Text<'a> {
    /// Number of code units (an upper bound on nothing; just the length).
    pub fn units(&self) -> usize {
        match self {
            Text::Utf8(s) | Text::Ucs1(s) => s.len(),
            Text::Ucs2(s) => s.len(),
            Text::Ucs4(s) => s.len(),
        }
    }

    /// The fewest and most UTF-8 bytes this text can take.
    pub fn utf8_len_bounds(&self) -> (usize, usize) {
        match self {
            Text::Utf8(s) => (s.len(), s.len()),
            Text::Ucs1(s) => (s.len(), s.len() * 2),
            Text::Ucs2(s) => (s.len(), s.len() * 3),
            Text::Ucs4(s) => (s.len(), s.len() * 4),
        }
    }

    /// Writes the UTF-8 form to `dst`, returning the bytes written. Bytes
    /// past those written, within the room, may be overwritten.
    ///
    /// # Safety
    /// `dst` must have room for `utf8_len_bounds().1 + WRITE_SLACK` bytes.
    #[inline]
    pub unsafe fn write_utf8(&self, dst: *mut u8) -> Result<usize, SurrogateError> {
        match *self {
            Text::Utf8(s) => {
                copy_bytes(s, dst);
                Ok(s.len())
            }
            #[cfg(target_arch = "x86_64")]
            _ if crate::cpu::avx512_vbmi2() => {
                // SAFETY: the CPU has what the AVX-512 transcoder needs
                // (checked just above); the room is the caller's promise.
                let end = match *self {
                    Text::Ucs1(s) => utf8_avx512::ucs1::<PlainUtf8>(s, dst)?,
                    Text::Ucs2(s) => utf8_avx512::wide::<u16, PlainUtf8>(s, dst)?,
                    // Short UCS4 (an emoji and a word) costs less through
                    // the loop than through the vector step's setup.
                    Text::Ucs4(s) if s.len() < 16 => return ucs4_to_utf8(s, dst),
                    Text::Ucs4(s) => utf8_avx512::wide::<u32, PlainUtf8>(s, dst)?,
                    Text::Utf8(_) => unreachable!(),
                };
                Ok(end.offset_from(dst) as usize)
            }
            #[cfg(target_arch = "x86_64")]
            _ => {
                // SAFETY: the SSSE3 steps where the CPU has them (SSE2, for
                // Latin-1, is part of x86-64); the room, with the slack
                // their whole-word stores need, is the caller's promise.
                // (UCS4 stays on the loop: for English with emoji it
                // measured 454K callgrind instructions + 15 x mispredictions
                // per 200 strs against 496K through the SSSE3 steps.)
                let end = match *self {
                    Text::Ucs1(s) => crate::json_writer::utf8_ucs1_plain(s, dst),
                    Text::Ucs2(s) if crate::cpu::ssse3() => crate::json_writer::utf8_wide_ssse3(s, dst)?,
                    Text::Ucs2(s) => dst.add(ucs2_to_utf8(s, dst)?),
                    Text::Ucs4(s) => dst.add(ucs4_to_utf8(s, dst)?),
                    Text::Utf8(_) => unreachable!(),
                };
                Ok(end.offset_from(dst) as usize)
            }
            #[cfg(not(target_arch = "x86_64"))]
            Text::Ucs1(s) => Ok(ucs1_to_utf8(s, dst)),
            #[cfg(not(target_arch = "x86_64"))]
            Text::Ucs2(s) => ucs2_to_utf8(s, dst),
            #[cfg(not(target_arch = "x86_64"))]
            Text::Ucs4(s) => ucs4_to_utf8(s, dst),
        }
    }

    /// The text with each lone surrogate replaced by `?`, which is what
    /// ormsgpack's `OPT_REPLACE_SURROGATES` writes. Only needed after a
    /// [`SurrogateError`], so it favours simplicity over speed.
    pub fn replace_surrogates(&self) -> String {
        fn collect<T: Copy + Into<u32>>(units: &[T]) -> String {
            units.iter().map(|&u| char::from_u32(u.into()).unwrap_or('?')).collect()
        }
        match *self {
            // Valid UTF-8 by construction, so nothing is replaced.
            Text::Utf8(s) => String::from_utf8_lossy(s).into_owned(),
            Text::Ucs1(s) => collect(s),
            Text::Ucs2(s) => collect(s),
            Text::Ucs4(s) => collect(s),
        }
    }
}

/// Copies `src` to `dst` (not overlapping, room for `src.len()` bytes).
/// Most strings are short, and a call to memcpy costs more than copying
/// them: up to 32 bytes are copied with two overlapping loads and stores of
/// the largest width that fits, reading and writing only within both areas.
///
/// # Safety
/// `dst` must be valid for writing `src.len()` bytes and not overlap `src`.
#[inline(always)]
pub unsafe fn copy_bytes(src: &[u8], dst: *mut u8) {
    let n = src.len();
    let p = src.as_ptr();
    unsafe fn two<T: Copy>(p: *const u8, dst: *mut u8, n: usize) {
        let w = core::mem::size_of::<T>();
        let head = (p as *const T).read_unaligned();
        let tail = (p.add(n - w) as *const T).read_unaligned();
        (dst as *mut T).write_unaligned(head);
        (dst.add(n - w) as *mut T).write_unaligned(tail);
    }
    if n >= 16 {
        if n <= 32 {
            two::<u128>(p, dst, n);
        } else {
            core::ptr::copy_nonoverlapping(p, dst, n);
        }
    } else if n >= 8 {
        two::<u64>(p, dst, n);
    } else if n >= 4 {
        two::<u32>(p, dst, n);
    } else if n >= 2 {
        two::<u16>(p, dst, n);
    } else if n == 1 {
        *dst = *p;
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
        if !crate::ascii::is_ascii(src) {
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

/// # Safety
/// `dst` must have room for `2 * src.len()` bytes.
#[cfg(any(test, fuzzing, not(target_arch = "x86_64")))]
#[inline]
pub(crate) unsafe fn ucs1_to_utf8(src: &[u8], dst: *mut u8) -> usize {
    let mut out = dst;
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    while i < n {
        // Sixteen ASCII bytes at a time are copied as they are (room: 2 bytes
        // per unit, so at least 32 are left); a block with a Latin-1 byte is
        // done one byte at a time.
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::*;
            while n - i >= 16 {
                let v = _mm_loadu_si128(p.add(i) as *const __m128i);
                if _mm_movemask_epi8(v) != 0 {
                    break;
                }
                _mm_storeu_si128(out as *mut __m128i, v);
                i += 16;
                out = out.add(16);
            }
        }
        let end = n.min(i + 16);
        while i < end {
            let c = *p.add(i);
            if c < 0x80 {
                *out = c;
                out = out.add(1);
            } else {
                *out = 0xC0 | (c >> 6);
                *out.add(1) = 0x80 | (c & 0x3F);
                out = out.add(2);
            }
            i += 1;
        }
    }
    out.offset_from(dst) as usize
}

/// Writes one code point (not a surrogate, < 0x110000) and returns the new end.
///
/// # Safety
/// `out` must have room for 4 bytes.
#[inline(always)]
pub unsafe fn put_code_point(out: *mut u8, c: u32) -> *mut u8 {
    if c < 0x80 {
        *out = c as u8;
        out.add(1)
    } else if c < 0x800 {
        *out = 0xC0 | (c >> 6) as u8;
        *out.add(1) = 0x80 | (c & 0x3F) as u8;
        out.add(2)
    } else if c < 0x10000 {
        *out = 0xE0 | (c >> 12) as u8;
        *out.add(1) = 0x80 | ((c >> 6) & 0x3F) as u8;
        *out.add(2) = 0x80 | (c & 0x3F) as u8;
        out.add(3)
    } else {
        *out = 0xF0 | (c >> 18) as u8;
        *out.add(1) = 0x80 | ((c >> 12) & 0x3F) as u8;
        *out.add(2) = 0x80 | ((c >> 6) & 0x3F) as u8;
        *out.add(3) = 0x80 | (c & 0x3F) as u8;
        out.add(4)
    }
}

#[inline(always)]
pub fn is_surrogate(c: u32) -> bool {
    (0xD800..0xE000).contains(&c)
}

/// # Safety
/// `dst` must have room for `3 * src.len()` bytes.
#[inline]
pub(crate) unsafe fn ucs2_to_utf8(src: &[u16], dst: *mut u8) -> Result<usize, SurrogateError> {
    let mut out = dst;
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    while i < n {
        // Eight ASCII units at a time are narrowed to bytes (room: 3 bytes per
        // unit, so at least 24 are left); a block with any other unit is done
        // one unit at a time, so CJK runs pay one failed check per 8 units.
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::*;
            while n - i >= 8 {
                let v = _mm_loadu_si128(p.add(i) as *const __m128i);
                let high = _mm_and_si128(v, _mm_set1_epi16(0xFF80u16 as i16));
                if _mm_movemask_epi8(_mm_cmpeq_epi16(high, _mm_setzero_si128())) != 0xFFFF {
                    break;
                }
                _mm_storel_epi64(out as *mut __m128i, _mm_packus_epi16(v, v));
                i += 8;
                out = out.add(8);
            }
        }
        let end = n.min(i + 8);
        while i < end {
            let c = *p.add(i) as u32;
            if is_surrogate(c) {
                return Err(SurrogateError);
            }
            out = put_code_point(out, c);
            i += 1;
        }
    }
    Ok(out.offset_from(dst) as usize)
}

/// # Safety
/// `dst` must have room for `4 * src.len()` bytes.
#[inline]
pub(crate) unsafe fn ucs4_to_utf8(src: &[u32], dst: *mut u8) -> Result<usize, SurrogateError> {
    let mut out = dst;
    for &c in src {
        if is_surrogate(c) {
            return Err(SurrogateError);
        }
        out = put_code_point(out, c);
    }
    Ok(out.offset_from(dst) as usize)
}

/// What the transcoder does besides plain UTF-8: which code units it must
/// hand back to the caller, and how they are written. MessagePack refuses
/// lone surrogates only ([`PlainUtf8`]); JSON also escapes `"`, `\` and the
/// controls below 0x20.
pub(crate) trait Specials {
    /// Whether `"`, `\` and code points below 0x20 are special too.
    const JSON: bool;
    /// The room the caller has per code unit, if more than its UTF-8 needs
    /// (JSON: an escape's six bytes); 0 otherwise.
    const ROOM: usize;
    /// Writes special code unit `c` (an escape, or the surrogate error).
    ///
    /// # Safety
    /// `out` has room for what one code unit may take in this format.
    unsafe fn put(c: u32, out: *mut u8) -> Result<*mut u8, SurrogateError>;
}

/// Plain UTF-8: only lone surrogates are special, and they are refused.
pub(crate) struct PlainUtf8;

impl Specials for PlainUtf8 {
    const JSON: bool = false;
    const ROOM: usize = 0;
    #[inline(always)]
    unsafe fn put(_c: u32, _out: *mut u8) -> Result<*mut u8, SurrogateError> {
        Err(SurrogateError)
    }
}

/// UCS1, UCS2 and UCS4 to UTF-8 with AVX-512, for both formats.
///
/// Every code unit is encoded in its own vector lane, whatever its length,
/// so text that switches between ASCII and other scripts costs no branch
/// mispredictions: a 16- (UCS1: 32-) bit lane per Latin-1 unit, a 32-bit
/// lane per UCS2/UCS4 unit, with the UTF-8 bytes first-lowest; the bytes that
/// count are then packed together by one `vpcompressb`. Whole blocks with
/// nothing special store all 64 bytes, which the room for the units left
/// always holds (the bytes past the packed ones are overwritten next); the
/// tail, and a block with a special unit (a surrogate, or for JSON a byte to
/// escape), go through the same step on a masked load, stop before the
/// special unit and store under a byte mask; [`Specials::put`] writes the
/// special unit and the next step starts after it.
///
/// Port 5 (mask compares, `vpmultishiftqb`, `vpcompressb`, zero-extension)
/// bounds the speed: a whole UCS2 block costs about 8 of its micro-ops.
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf8_avx512 {
    use super::{Specials, SurrogateError};
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
                _mm512_or_si512(
                    _mm512_srli_epi16::<6>(wide),
                    _mm512_slli_epi16::<8>(_mm512_and_si512(wide, splat(0x3F))),
                ),
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::utf8_each_way;

    /// `t` as UTF-8 through every transcoder, all agreeing.
    fn utf8(t: Text) -> Result<Vec<u8>, SurrogateError> {
        let results = utf8_each_way(t);
        for w in results.windows(2) {
            assert_eq!(w[0].1, w[1].1, "{} and {} disagree on {t:?}", w[0].0, w[1].0);
        }
        results.into_iter().last().unwrap().1
    }

    /// Code points at each UTF-8 length boundary.
    const CLASSES: [u32; 20] = [
        0x00, 0x01, 0x22, 0x5C, 0x61, 0x7F, 0x80, 0xA9, 0xFF, 0x100, 0x3B1, 0x7FF, 0x800, 0x4E2D, 0xD7FF, 0xE000,
        0xFFFF, 0x10000, 0x1F600, 0x10FFFF,
    ];

    /// `units` in every storage width it fits, against `char::encode_utf8`.
    fn check_every_width(units: &[u32]) {
        let s: String = units.iter().map(|&c| char::from_u32(c).unwrap()).collect();
        assert_eq!(utf8(Text::Ucs4(units)).unwrap(), s.as_bytes(), "ucs4 {s:?}");
        if units.iter().all(|&c| c < 0x10000) {
            let ucs2: Vec<u16> = units.iter().map(|&c| c as u16).collect();
            assert_eq!(utf8(Text::Ucs2(&ucs2)).unwrap(), s.as_bytes(), "ucs2 {s:?}");
        }
        if units.iter().all(|&c| c < 0x100) {
            let ucs1: Vec<u8> = units.iter().map(|&c| c as u8).collect();
            assert_eq!(utf8(Text::Ucs1(&ucs1)).unwrap(), s.as_bytes(), "ucs1 {s:?}");
        }
    }

    #[test]
    fn every_class_length_and_position() {
        for len in 0..100usize {
            for (j, &c) in CLASSES.iter().enumerate() {
                check_every_width(&vec![c; len]);
                for pos in 0..len {
                    let units: Vec<u32> =
                        (0..len).map(|k| if k == pos { c } else { b'a' as u32 + (k % 26) as u32 }).collect();
                    check_every_width(&units);
                }
                let mixed: Vec<u32> = (0..len).map(|k| CLASSES[(k * 7 + j + k / 5) % CLASSES.len()]).collect();
                check_every_width(&mixed);
                let narrow: Vec<u32> = mixed.iter().map(|&c| c & 0xFF).collect();
                check_every_width(&narrow);
            }
        }
    }

    #[test]
    fn lone_surrogates_refused_at_every_position() {
        for len in 1..70usize {
            for pos in 0..len {
                for surrogate in [0xD800u32, 0xDBFF, 0xDC00, 0xDFFF] {
                    for filler in [0x61u32, 0xE9, 0x4E2D, 0x1F600] {
                        let units: Vec<u32> = (0..len).map(|k| if k == pos { surrogate } else { filler }).collect();
                        assert_eq!(utf8(Text::Ucs4(&units)), Err(SurrogateError));
                        if filler < 0x10000 {
                            let ucs2: Vec<u16> = units.iter().map(|&c| c as u16).collect();
                            assert_eq!(utf8(Text::Ucs2(&ucs2)), Err(SurrogateError));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_width_matches_std() {
        let s = "aé中😀\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}";
        let ucs4: Vec<u32> = s.chars().map(|c| c as u32).collect();
        assert_eq!(utf8(Text::Ucs4(&ucs4)).unwrap(), s.as_bytes());
        let bmp = "aé中\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}";
        let ucs2: Vec<u16> = bmp.chars().map(|c| c as u16).collect();
        assert_eq!(utf8(Text::Ucs2(&ucs2)).unwrap(), bmp.as_bytes());
        let latin: Vec<u8> = (0u32..256).map(|c| c as u8).collect();
        let expected: String = (0u32..256).map(|c| char::from_u32(c).unwrap()).collect();
        assert_eq!(utf8(Text::Ucs1(&latin)).unwrap(), expected.as_bytes());
    }

    #[test]
    fn copy_bytes_every_length() {
        for n in 0..80 {
            let src: Vec<u8> = (0..n as u8).map(|b| b.wrapping_mul(7).wrapping_add(1)).collect();
            let mut dst = vec![0xAAu8; n + 8];
            unsafe { copy_bytes(&src, dst.as_mut_ptr()) };
            assert_eq!(&dst[..n], &src[..]);
            assert!(dst[n..].iter().all(|&b| b == 0xAA), "wrote past {n}");
        }
    }

    #[test]
    fn narrow_and_wide_runs_at_every_offset() {
        for len in 0..50 {
            for pos in 0..len {
                for special in ['é', '\u{ff}', '中', '\u{7ff}', '\u{800}', '\u{ffff}'] {
                    let s: String =
                        (0..len).map(|k| if k == pos || (k > pos + 9 && k % 2 == 0) { special } else { 'a' }).collect();
                    let ucs2: Vec<u16> = s.chars().map(|c| c as u16).collect();
                    assert_eq!(utf8(Text::Ucs2(&ucs2)).unwrap(), s.as_bytes(), "{s:?}");
                    if (special as u32) < 0x100 {
                        let ucs1: Vec<u8> = s.chars().map(|c| c as u8).collect();
                        assert_eq!(utf8(Text::Ucs1(&ucs1)).unwrap(), s.as_bytes(), "{s:?}");
                    }
                }
            }
            let mut ucs2: Vec<u16> = "a".repeat(len).encode_utf16().collect();
            if len > 0 {
                ucs2[len - 1] = 0xD800;
                assert_eq!(utf8(Text::Ucs2(&ucs2)), Err(SurrogateError));
            }
        }
    }

    #[test]
    fn copy_if_ascii_every_length_and_position() {
        for n in 0..400 {
            let src: Vec<u8> = (0..n).map(|k| b' ' + (k * 7 % 90) as u8).collect();
            let mut dst = vec![0xAAu8; n + 40];
            assert!(unsafe { copy_if_ascii(&src, dst.as_mut_ptr()) }, "{n}");
            assert_eq!(&dst[..n], &src[..], "{n}");
            assert!(dst[n..].iter().all(|&b| b == 0xAA), "wrote past {n}");
            for at in 0..n {
                for high in [0x80u8, 0xc3, 0xff] {
                    let mut bad = src.clone();
                    bad[at] = high;
                    let mut dst = vec![0xAAu8; n + 40];
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
            assert!(unsafe { copy_if_ascii_sse2(&src, dst.as_mut_ptr()) });
            assert_eq!(dst, src);
            let mut bad = src.clone();
            bad[n - 1] = 0x80;
            assert!(!unsafe { copy_if_ascii_sse2(&bad, dst.as_mut_ptr()) });
        }
    }

    #[test]
    fn lone_surrogates_are_refused() {
        assert_eq!(utf8(Text::Ucs2(&[0x61, 0xD800])), Err(SurrogateError));
        assert_eq!(utf8(Text::Ucs4(&[0xDFFF, 0x1F600])), Err(SurrogateError));
    }

    #[test]
    fn surrogates_replaced_by_question_marks() {
        assert_eq!(Text::Ucs2(&[0x61, 0xD800, 0x4E2D]).replace_surrogates(), "a?中");
        // A pair stored as two code points is two lone surrogates, as in Python.
        assert_eq!(Text::Ucs4(&[0xD83D, 0xDE00, 0x1F600]).replace_surrogates(), "??😀");
        assert_eq!(Text::Ucs1(&[0x63, 0xE9]).replace_surrogates(), "cé");
        assert_eq!(Text::Utf8("ok😀".as_bytes()).replace_surrogates(), "ok😀");
    }
}

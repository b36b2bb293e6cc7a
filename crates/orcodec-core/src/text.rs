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

    /// Writes the UTF-8 form to `dst`, returning the bytes written.
    ///
    /// # Safety
    /// `dst` must have room for `utf8_len_bounds().1` bytes.
    #[inline]
    pub unsafe fn write_utf8(&self, dst: *mut u8) -> Result<usize, SurrogateError> {
        match *self {
            Text::Utf8(s) => {
                copy_bytes(s, dst);
                Ok(s.len())
            }
            Text::Ucs1(s) => Ok(ucs1_to_utf8(s, dst)),
            Text::Ucs2(s) => ucs2_to_utf8(s, dst),
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
        if avx2_available() {
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

/// Whether the CPU has AVX2, detected once (std caches the answer).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn avx2_available() -> bool {
    std::is_x86_feature_detected!("avx2")
}

/// Whether the CPU has SSSE3 (byte shuffles), detected once (std caches it).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn ssse3_available() -> bool {
    std::is_x86_feature_detected!("ssse3")
}

/// Whether the CPU has AVX-512 BW and VL with BMI2 (masked byte loads and
/// stores on 32-byte vectors), detected once into one flag so the hot check
/// is a single load.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn avx512_available() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    const UNKNOWN: u8 = 0;
    const YES: u8 = 2;
    static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);
    match STATE.load(Ordering::Relaxed) {
        UNKNOWN => {
            let yes = std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("avx512vl")
                && std::is_x86_feature_detected!("bmi2");
            STATE.store(if yes { YES } else { 1 }, Ordering::Relaxed);
            yes
        }
        state => state == YES,
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
#[inline]
unsafe fn ucs1_to_utf8(src: &[u8], dst: *mut u8) -> usize {
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
unsafe fn ucs2_to_utf8(src: &[u16], dst: *mut u8) -> Result<usize, SurrogateError> {
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
unsafe fn ucs4_to_utf8(src: &[u32], dst: *mut u8) -> Result<usize, SurrogateError> {
    let mut out = dst;
    for &c in src {
        if is_surrogate(c) {
            return Err(SurrogateError);
        }
        out = put_code_point(out, c);
    }
    Ok(out.offset_from(dst) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf8(t: Text) -> Result<Vec<u8>, SurrogateError> {
        let mut v = vec![0u8; t.utf8_len_bounds().1];
        let n = unsafe { t.write_utf8(v.as_mut_ptr())? };
        v.truncate(n);
        Ok(v)
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
                    let s: String = (0..len).map(|k| if k == pos || (k > pos + 9 && k % 2 == 0) { special } else { 'a' }).collect();
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

//! UTF-8 to CPython's compact str storage (PEP 393): one unit per code
//! point, of 1 (UCS1), 2 (UCS2) or 4 (UCS4) bytes.
//!
//! Both decoders hand a non-ASCII str value here. [`measure`] (for text known
//! to be valid, as the JSON scanner's is) or [`measure_checked`] (validating
//! in the same pass, for MessagePack) gives the number of code points and the
//! narrowest kind that holds them (what `PyUnicode_New` needs); [`decode`]
//! then writes the units into the new object's storage. [`is_valid`] is the
//! JSON scanner's check of its whole input.
//!
//! On x86-64 CPUs with AVX-512 VBMI2 (Ice Lake and later, Zen 4 and later)
//! all of them run on 64-byte blocks. Decoding compresses a block's lead
//! bytes (the bytes that are not `10xxxxxx` continuations) into a list of
//! positions, gathers each lead and the three bytes after it into a 32-bit
//! lane with one byte permutation, and assembles every lane's code point with
//! the same few shifts and masks, whatever its length: up to 48 code points a
//! step. Validation is the lookup algorithm of Keiser and Lemire. With AVX2
//! only, decoding does the same on 8-byte halves with `vpshufb` controls from
//! a table; elsewhere a scalar loop decodes one code point at a time, and
//! validation is `simdutf8`'s.

/// The number of code points in valid UTF-8 `bytes` and the largest code
/// point of the narrowest storage kind holding them all: 0x7F (ASCII), 0xFF
/// (UCS1), 0xFFFF (UCS2) or 0x10FFFF (UCS4), as `PyUnicode_New` wants it.
///
/// The kind comes from the largest byte: any byte from 0xF0 starts a code
/// point beyond U+FFFF; any from 0xC4 (up to 0xEF) one beyond U+00FF; 0xC2 and
/// 0xC3 lead U+0080 to U+00FF. In valid UTF-8 the largest byte is a lead byte
/// whenever it is 0xC2 or above, so the kind is the canonical one.
#[inline]
pub fn measure(bytes: &[u8]) -> (usize, u32) {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::avx512_vbmi2() {
            // SAFETY: the CPU has the features (checked just above).
            return unsafe { avx512::measure(bytes) };
        }
    }
    scalar::measure(bytes)
}

/// [`measure`] for bytes that may not be UTF-8: None if they are not valid
/// UTF-8 (as `core::str::from_utf8` judges), checked in the same pass.
#[inline]
pub fn measure_checked(bytes: &[u8]) -> Option<(usize, u32)> {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::avx512_vbmi2() {
            // SAFETY: the CPU has the features (checked just above).
            return unsafe { avx512::measure_checked(bytes) };
        }
    }
    simdutf8::basic::from_utf8(bytes).ok()?;
    Some(scalar::measure(bytes))
}

/// Whether `bytes` is valid UTF-8 (as `core::str::from_utf8` judges).
#[inline]
pub fn is_valid(bytes: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::avx512_vbmi2() {
            // SAFETY: the CPU has the features (checked just above).
            return unsafe { avx512::is_valid(bytes) };
        }
    }
    simdutf8::basic::from_utf8(bytes).is_ok()
}

/// Writes the code points of valid UTF-8 `bytes` to `out`, one `T` each.
///
/// # Safety
/// `bytes` is valid UTF-8 holding exactly `chars` code points (as [`measure`]
/// counted them), each of which fits a `T` (the kind [`measure`] gave), and
/// `out` is valid for writing `chars` units.
#[inline]
pub unsafe fn decode<T: Unit>(bytes: &[u8], out: *mut T, chars: usize) {
    #[cfg(target_arch = "x86_64")]
    if bytes.len() >= SHORT {
        if crate::cpu::avx512_vbmi2() {
            // SAFETY: the CPU has the features; the rest is the caller's.
            return T::decode_avx512(bytes, out, chars);
        }
        if crate::cpu::avx2_popcnt() {
            // SAFETY: the CPU has AVX2; the rest is the caller's.
            return avx2::decode(bytes, out, chars);
        }
    }
    scalar::decode(bytes, out, chars)
}

/// Shorter text is decoded by the scalar loop: too few bytes for the vector
/// set-up to pay off.
const SHORT: usize = 8;

/// A code unit of one of CPython's compact str kinds.
pub trait Unit: Copy + sealed::Sealed {
    #[doc(hidden)]
    fn from_code_point(c: u32) -> Self;
    /// Writes the 8 bytes of little-endian `word` as 8 units at `out`.
    ///
    /// # Safety
    /// `out` has room for 8 units.
    #[doc(hidden)]
    unsafe fn widen8(word: u64, out: *mut Self);
    #[doc(hidden)]
    #[cfg(target_arch = "x86_64")]
    unsafe fn decode_avx512(bytes: &[u8], out: *mut Self, chars: usize);
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
}

impl Unit for u8 {
    #[inline(always)]
    fn from_code_point(c: u32) -> u8 {
        c as u8
    }
    #[inline(always)]
    unsafe fn widen8(word: u64, out: *mut u8) {
        // SAFETY: 8 bytes of room, as the caller guarantees.
        unsafe { core::ptr::write_unaligned(out as *mut u64, word.to_le()) }
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn decode_avx512(bytes: &[u8], out: *mut u8, chars: usize) {
        avx512::decode::<1>(bytes, out, chars)
    }
}

impl Unit for u16 {
    #[inline(always)]
    fn from_code_point(c: u32) -> u16 {
        c as u16
    }
    #[inline(always)]
    unsafe fn widen8(word: u64, out: *mut u16) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is x86-64 baseline; one 16-byte store into the 8
        // units of room the caller guarantees.
        unsafe {
            use core::arch::x86_64::*;
            let v = _mm_unpacklo_epi8(_mm_cvtsi64_si128(word as i64), _mm_setzero_si128());
            _mm_storeu_si128(out as *mut __m128i, v);
        }
        #[cfg(not(target_arch = "x86_64"))]
        for k in 0..8 {
            unsafe { *out.add(k) = (word >> (8 * k)) as u8 as u16 };
        }
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn decode_avx512(bytes: &[u8], out: *mut u16, chars: usize) {
        avx512::decode::<2>(bytes, out as *mut u8, chars)
    }
}

impl Unit for u32 {
    #[inline(always)]
    fn from_code_point(c: u32) -> u32 {
        c
    }
    #[inline(always)]
    unsafe fn widen8(word: u64, out: *mut u32) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is x86-64 baseline; two 16-byte stores into the 8
        // units (32 bytes) of room the caller guarantees.
        unsafe {
            use core::arch::x86_64::*;
            let zero = _mm_setzero_si128();
            let v = _mm_unpacklo_epi8(_mm_cvtsi64_si128(word as i64), zero);
            _mm_storeu_si128(out as *mut __m128i, _mm_unpacklo_epi16(v, zero));
            _mm_storeu_si128(out.add(4) as *mut __m128i, _mm_unpackhi_epi16(v, zero));
        }
        #[cfg(not(target_arch = "x86_64"))]
        for k in 0..8 {
            unsafe { *out.add(k) = (word >> (8 * k)) as u8 as u32 };
        }
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn decode_avx512(bytes: &[u8], out: *mut u32, chars: usize) {
        avx512::decode::<4>(bytes, out as *mut u8, chars)
    }
}

/// The portable versions, also the reference the SIMD paths are tested against.
pub mod scalar {
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
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use core::arch::x86_64::*;

    /// Byte `k` is `k`: compressed by a lead mask, the leads' positions.
    static IOTA: [u8; 64] = {
        let mut t = [0u8; 64];
        let mut k = 0;
        while k < 64 {
            t[k] = k as u8;
            k += 1;
        }
        t
    };
    /// Byte `k` is `BASE + k / 4`: spreads 16 positions one to a 32-bit lane.
    const fn spread(base: u8) -> [u8; 64] {
        let mut t = [0u8; 64];
        let mut k = 0;
        while k < 64 {
            t[k] = base + (k / 4) as u8;
            k += 1;
        }
        t
    }
    static SPREAD: [[u8; 64]; 3] = [spread(0), spread(16), spread(32)];
    /// By a lead byte's high nibble: how far right the assembled lane is
    /// shifted (dropping the bytes after the code point), and what is kept.
    /// Nibbles 8-B are continuation bytes, never a lane's lead.
    static SHIFT: [u32; 16] = [18, 18, 18, 18, 18, 18, 18, 18, 0, 0, 0, 0, 12, 12, 6, 0];
    static KEEP: [u32; 16] =
        [0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0, 0, 0, 0, 0x7ff, 0x7ff, 0xffff, 0x1f_ffff];

    /// [`super::measure`] on 64-byte blocks (the last one a masked load).
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    pub(super) unsafe fn measure(bytes: &[u8]) -> (usize, u32) {
        let n = bytes.len();
        let p = bytes.as_ptr();
        let limit = _mm512_set1_epi8(-64);
        let mut maxv = _mm512_setzero_si512();
        let mut continuations = 0usize;
        let mut i = 0;
        // SAFETY: full loads end at `i + 64 <= n`; the last is masked to the
        // `n - i` bytes left (masked-off bytes are not read and are zero).
        while i + 64 <= n {
            let v = _mm512_loadu_si512(p.add(i) as *const _);
            continuations += _mm512_cmplt_epi8_mask(v, limit).count_ones() as usize;
            maxv = _mm512_max_epu8(maxv, v);
            i += 64;
        }
        if i < n {
            let v = _mm512_maskz_loadu_epi8(u64::MAX >> (64 - (n - i)), p.add(i) as *const i8);
            continuations += _mm512_cmplt_epi8_mask(v, limit).count_ones() as usize;
            maxv = _mm512_max_epu8(maxv, v);
        }
        (n - continuations, max_char(maxv))
    }

    // The lookup validation of Keiser and Lemire ("Validating UTF-8 in less
    // than one instruction per byte", 2021), as simdjson and simdutf8 do it:
    // three table look-ups by the nibbles of each byte and the byte before it
    // flag every error of a two-byte window; the bytes two and three before
    // say where a third or fourth byte must be a continuation.
    const TOO_SHORT: u8 = 1 << 0;
    const TOO_LONG: u8 = 1 << 1;
    const OVERLONG_3: u8 = 1 << 2;
    const TOO_LARGE: u8 = 1 << 3;
    const SURROGATE: u8 = 1 << 4;
    const OVERLONG_2: u8 = 1 << 5;
    const TOO_LARGE_1000: u8 = 1 << 6;
    const OVERLONG_4: u8 = 1 << 6;
    const TWO_CONTS: u8 = 1 << 7;
    const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;
    /// By the high nibble of the byte before.
    static BYTE_1_HIGH: [u8; 16] = [
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TOO_SHORT | OVERLONG_2,
        TOO_SHORT,
        TOO_SHORT | OVERLONG_3 | SURROGATE,
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
    ];
    /// By the low nibble of the byte before.
    static BYTE_1_LOW: [u8; 16] = [
        CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
        CARRY | OVERLONG_2,
        CARRY,
        CARRY,
        CARRY | TOO_LARGE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
    ];
    /// By the high nibble of the byte itself.
    static BYTE_2_HIGH: [u8; 16] = [
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
    ];

    /// The largest byte that does not start a sequence running past the
    /// block: any at the last byte, below 0xE0 at the one before, below 0xF0
    /// two before.
    static LAST_BYTES_MAX: [u8; 64] = {
        let mut t = [0xffu8; 64];
        t[61] = 0xef;
        t[62] = 0xdf;
        t[63] = 0xbf;
        t
    };

    /// What [`measure_checked`] keeps across blocks.
    struct Checked {
        errors: __m512i,
        max: __m512i,
        continuations: u64,
        tables: [__m512i; 3],
    }

    impl Checked {
        /// No errors, nothing counted yet.
        #[inline(always)]
        unsafe fn new() -> Self {
            Checked {
                errors: _mm512_setzero_si512(),
                max: _mm512_setzero_si512(),
                continuations: 0,
                tables: [table16(&BYTE_1_HIGH), table16(&BYTE_1_LOW), table16(&BYTE_2_HIGH)],
            }
        }

        /// Checks block `v` (bytes past the end zero) with `prev1`, `prev2`
        /// and `prev3`, the blocks starting one, two and three bytes earlier
        /// (bytes before the start zero).
        #[inline(always)]
        unsafe fn check(&mut self, v: __m512i, prev1: __m512i, prev2: __m512i, prev3: __m512i) {
            let nibble = _mm512_set1_epi8(0x0f);
            let b1h = _mm512_shuffle_epi8(self.tables[0], _mm512_and_si512(_mm512_srli_epi16::<4>(prev1), nibble));
            let b1l = _mm512_shuffle_epi8(self.tables[1], _mm512_and_si512(prev1, nibble));
            let b2h = _mm512_shuffle_epi8(self.tables[2], _mm512_and_si512(_mm512_srli_epi16::<4>(v), nibble));
            // a & b & c
            let special = _mm512_ternarylogic_epi32::<0x80>(b1h, b1l, b2h);
            // Where the byte two before leads three bytes or more, or the byte
            // three before leads four: the high bit set.
            let must23 = _mm512_or_si512(
                _mm512_subs_epu8(prev2, _mm512_set1_epi8(0xe0u8 as i8 - 0x80u8 as i8)),
                _mm512_subs_epu8(prev3, _mm512_set1_epi8(0xf0u8 as i8 - 0x80u8 as i8)),
            );
            // (a & b) ^ c: a continuation where none may be (TWO_CONTS
            // without must23) or none where one must be.
            let e = _mm512_ternarylogic_epi32::<0x6a>(must23, _mm512_set1_epi8(0x80u8 as i8), special);
            self.errors = _mm512_or_si512(self.errors, e);
        }

        /// [`is_valid`]'s step: block `v` loaded from `at` (at least 3 bytes
        /// into the input) checked, or if it is ASCII, the block before it
        /// checked for a sequence it leaves unfinished (`incomplete`).
        #[inline(always)]
        unsafe fn aligned_block(&mut self, v: __m512i, at: *const u8, incomplete: &mut __m512i, limits: __m512i) {
            if _mm512_movepi8_mask(v) == 0 {
                self.errors = _mm512_or_si512(self.errors, *incomplete);
                *incomplete = _mm512_setzero_si512();
            } else {
                self.check(v, load(at.sub(1)), load(at.sub(2)), load(at.sub(3)));
                *incomplete = _mm512_subs_epu8(v, limits);
            }
        }

        /// [`Checked::check`], and counts and measures block `v`.
        #[inline(always)]
        unsafe fn block(&mut self, v: __m512i, prev1: __m512i, prev2: __m512i, prev3: __m512i) {
            self.check(v, prev1, prev2, prev3);
            self.continuations += _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(-64)).count_ones() as u64;
            self.max = _mm512_max_epu8(self.max, v);
        }
    }

    /// [`super::measure_checked`] on 64-byte blocks; each block's bytes before
    /// it are read with loads 1, 2 and 3 bytes earlier (masked in the first
    /// block and the last).
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    pub(super) unsafe fn measure_checked(bytes: &[u8]) -> Option<(usize, u32)> {
        let n = bytes.len();
        let p = bytes.as_ptr();
        let mut c = Checked::new();
        // SAFETY (all loads): plain loads cover `i - 3 .. i + 64` with
        // `3 <= i` and `i + 64 <= n`; masked loads enable only bytes inside
        // `bytes` (their addresses are formed with wrapping arithmetic, and
        // masked-off bytes are never accessed).
        let mut i = 0;
        if n >= 64 {
            c.block(load(p), masked(!0 << 1, p, 1), masked(!0 << 2, p, 2), masked(!0 << 3, p, 3));
            i = 64;
            while i + 64 <= n {
                c.block(load(p.add(i)), load(p.add(i - 1)), load(p.add(i - 2)), load(p.add(i - 3)));
                i += 64;
            }
        }
        // The last bytes (none if `n` is a multiple of 64): zeros past the
        // end, so a sequence cut short there is an error like any other.
        let [b0, b1, b2, b3] = tail_blocks(p, i, n);
        c.block(b0, b1, b2, b3);
        if _mm512_test_epi8_mask(c.errors, c.errors) != 0 {
            return None;
        }
        Some((n - c.continuations as usize, max_char(c.max)))
    }

    /// [`super::is_valid`]: as [`measure_checked`] without the measuring,
    /// and blocks that are ASCII, as are the three bytes before them, skipped.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn is_valid(bytes: &[u8]) -> bool {
        let n = bytes.len();
        let p = bytes.as_ptr();
        let mut c = Checked::new();
        // SAFETY (all loads): as in `measure_checked`; aligned loads are
        // plain loads at a 64-byte boundary.
        let mut i = 0;
        if n >= 64 {
            c.check(load(p), masked(!0 << 1, p, 1), masked(!0 << 2, p, 2), masked(!0 << 3, p, 3));
            i = 64;
        }
        if n >= 192 {
            // On from the first 64-byte boundary at least 3 bytes in (blocks
            // checked twice are no harm), so that blocks load without line
            // splits; a boundary at 65 or 66 leaves 1 or 2 bytes after the
            // first block, which one more block covers.
            let a = p.align_offset(64);
            i = if a >= 3 { a } else { a + 64 };
            if a == 1 || a == 2 {
                c.check(load(p.add(64)), load(p.add(63)), load(p.add(62)), load(p.add(61)));
            }
            let limits = _mm512_loadu_si512(LAST_BYTES_MAX.as_ptr() as *const _);
            let v = _mm512_load_si512(p.add(i) as *const _);
            c.check(v, load(p.add(i - 1)), load(p.add(i - 2)), load(p.add(i - 3)));
            // Whether the block before may end inside a sequence (its last
            // three bytes lead more bytes than they have): set only by blocks
            // that were checked, and an error if the next block is ASCII.
            let mut incomplete = _mm512_subs_epu8(v, limits);
            i += 64;
            // Four blocks at a time while they are ASCII (one test for 256 bytes).
            while i + 256 <= n {
                let a = _mm512_load_si512(p.add(i) as *const _);
                let b = _mm512_load_si512(p.add(i + 64) as *const _);
                let d = _mm512_load_si512(p.add(i + 128) as *const _);
                let e = _mm512_load_si512(p.add(i + 192) as *const _);
                if _mm512_movepi8_mask(_mm512_or_si512(_mm512_or_si512(a, b), _mm512_or_si512(d, e))) == 0 {
                    c.errors = _mm512_or_si512(c.errors, incomplete);
                    incomplete = _mm512_setzero_si512();
                } else {
                    for (k, v) in [a, b, d, e].into_iter().enumerate() {
                        c.aligned_block(v, p.add(i + 64 * k), &mut incomplete, limits);
                    }
                }
                i += 256;
            }
            while i + 64 <= n {
                c.aligned_block(_mm512_load_si512(p.add(i) as *const _), p.add(i), &mut incomplete, limits);
                i += 64;
            }
            // (The tail below reads the last block's bytes again as its bytes
            // before, so a sequence cut short there is found.)
        } else {
            while i + 64 <= n {
                c.check(load(p.add(i)), load(p.add(i - 1)), load(p.add(i - 2)), load(p.add(i - 3)));
                i += 64;
            }
        }
        let [b0, b1, b2, b3] = tail_blocks(p, i, n);
        c.check(b0, b1, b2, b3);
        _mm512_test_epi8_mask(c.errors, c.errors) == 0
    }

    #[inline(always)]
    unsafe fn table16(t: &[u8; 16]) -> __m512i {
        _mm512_broadcast_i32x4(_mm_loadu_si128(t.as_ptr() as *const __m128i))
    }

    #[inline(always)]
    unsafe fn load(at: *const u8) -> __m512i {
        _mm512_loadu_si512(at as *const _)
    }

    /// The 64 bytes from `at - back` that `mask` enables, zero elsewhere.
    #[inline(always)]
    unsafe fn masked(mask: u64, at: *const u8, back: usize) -> __m512i {
        _mm512_maskz_loadu_epi8(mask, at.wrapping_sub(back) as *const i8)
    }

    /// The block at `i` of the `n` bytes at `p` (`n - i < 64`) and the same
    /// block seen from one, two and three bytes back, as the block steps
    /// load them: zeros past the end, and before the start when `i` is 0.
    #[inline(always)]
    unsafe fn tail_blocks(p: *const u8, i: usize, n: usize) -> [__m512i; 4] {
        let left = n - i;
        let upto = |k: usize| match left + k {
            0 => 0,
            m @ 1..=63 => u64::MAX >> (64 - m),
            _ => u64::MAX,
        };
        let from = |k: usize| if i == 0 { u64::MAX << k } else { u64::MAX };
        let at = p.wrapping_add(i);
        [
            masked(upto(0), at, 0),
            masked(upto(1) & from(1), at, 1),
            masked(upto(2) & from(2), at, 2),
            masked(upto(3) & from(3), at, 3),
        ]
    }

    /// The kind's largest code point for the byte-wise maximum of valid UTF-8.
    #[inline(always)]
    unsafe fn max_char(maxv: __m512i) -> u32 {
        if _mm512_cmpge_epu8_mask(maxv, _mm512_set1_epi8(0xf0u8 as i8)) != 0 {
            0x10ffff
        } else if _mm512_cmpge_epu8_mask(maxv, _mm512_set1_epi8(0xc4u8 as i8)) != 0 {
            0xffff
        } else if _mm512_movepi8_mask(maxv) != 0 {
            0xff
        } else {
            0x7f
        }
    }

    /// Stores the low `count` (at most 16) code points of `c` as units of
    /// `W` bytes at `out`.
    #[inline(always)]
    unsafe fn store16<const W: usize>(out: *mut u8, c: __m512i, count: usize) {
        let mask = ((1u32 << count) - 1) as u16;
        match W {
            1 => _mm512_mask_cvtepi32_storeu_epi8(out as *mut i8, mask, c),
            2 => _mm512_mask_cvtepi32_storeu_epi16(out as *mut i16, mask, c),
            _ => _mm512_mask_storeu_epi32(out as *mut i32, mask, c),
        }
    }

    /// The code point in each 32-bit lane holding a sequence's bytes from its
    /// lead down (lead in the top byte, later bytes below it, then whatever
    /// follows the sequence).
    #[inline(always)]
    unsafe fn code_points(x: __m512i, shift: __m512i, keep: __m512i) -> __m512i {
        let nibble = _mm512_srli_epi32::<28>(x);
        // Lead to 7 bits, continuations to their 6 payload bits; then the four
        // groups side by side: b0 << 18 | b1 << 12 | b2 << 6 | b3.
        let y = _mm512_and_si512(x, _mm512_set1_epi32(0x7f3f_3f3f));
        let pairs = _mm512_maddubs_epi16(y, _mm512_set1_epi16(0x4001));
        let z = _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x1000_0001));
        // Drop the groups past the sequence's length and the lead's length bits.
        let c = _mm512_srlv_epi32(z, _mm512_permutexvar_epi32(nibble, shift));
        _mm512_and_si512(c, _mm512_permutexvar_epi32(nibble, keep))
    }

    /// Code points decoded per 64-byte load: those whose lead byte is among
    /// the first `STEP` bytes, which all end inside the block (a lead at
    /// byte 47 ends by byte 50). The next load starts `STEP` bytes on, and
    /// continuation bytes at its start are simply not leads: so where each
    /// load starts does not wait for the one before (no loop-carried chain
    /// through the bytes), and each step decodes at most 48 code points.
    const STEP: usize = 48;

    /// Decodes the code points whose leads are set in `leads` (bits below
    /// [`STEP`]) of block `v` to `out`; returns how many.
    #[inline(always)]
    unsafe fn step<const W: usize>(v: __m512i, leads: u64, out: *mut u8, t: &Tables) -> usize {
        let count = leads.count_ones() as usize;
        let positions = _mm512_maskz_compress_epi8(leads, t.iota);
        store16::<W>(out, group(v, positions, t.spread[0], t), count.min(16));
        if count > 16 {
            store16::<W>(out.add(16 * W), group(v, positions, t.spread[1], t), (count - 16).min(16));
            if count > 32 {
                store16::<W>(out.add(32 * W), group(v, positions, t.spread[2], t), count - 32);
            }
        }
        count
    }

    /// The code points of the 16 leads at `positions` that `spread` picks.
    #[inline(always)]
    unsafe fn group(v: __m512i, positions: __m512i, spread: __m512i, t: &Tables) -> __m512i {
        let gather = _mm512_add_epi8(_mm512_permutexvar_epi8(spread, positions), t.order);
        code_points(_mm512_permutexvar_epi8(gather, v), t.shift, t.keep)
    }

    struct Tables {
        iota: __m512i,
        spread: [__m512i; 3],
        order: __m512i,
        shift: __m512i,
        keep: __m512i,
    }

    /// Widens the bytes of all-ASCII block `v` that `in_block` selects (the
    /// low ones) to units of `W` bytes.
    #[inline(always)]
    unsafe fn widen<const W: usize>(v: __m512i, out: *mut u8, in_block: u64) {
        match W {
            1 => _mm512_mask_storeu_epi8(out as *mut i8, in_block, v),
            2 => {
                let lo = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v));
                let hi = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(v));
                _mm512_mask_storeu_epi16(out as *mut i16, in_block as u32, lo);
                _mm512_mask_storeu_epi16(out.add(64) as *mut i16, (in_block >> 32) as u32, hi);
            }
            _ => {
                let q0 = _mm512_cvtepu8_epi32(_mm512_castsi512_si128(v));
                let q1 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<1>(v));
                let q2 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<2>(v));
                let q3 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<3>(v));
                _mm512_mask_storeu_epi32(out as *mut i32, in_block as u16, q0);
                _mm512_mask_storeu_epi32(out.add(64) as *mut i32, (in_block >> 16) as u16, q1);
                _mm512_mask_storeu_epi32(out.add(128) as *mut i32, (in_block >> 32) as u16, q2);
                _mm512_mask_storeu_epi32(out.add(192) as *mut i32, (in_block >> 48) as u16, q3);
            }
        }
    }

    /// [`super::decode`] into units of `W` bytes.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
    pub(super) unsafe fn decode<const W: usize>(bytes: &[u8], out: *mut u8, chars: usize) {
        let _ = chars;
        let n = bytes.len();
        let p = bytes.as_ptr();
        let t = Tables {
            iota: _mm512_loadu_si512(IOTA.as_ptr() as *const _),
            spread: [
                _mm512_loadu_si512(SPREAD[0].as_ptr() as *const _),
                _mm512_loadu_si512(SPREAD[1].as_ptr() as *const _),
                _mm512_loadu_si512(SPREAD[2].as_ptr() as *const _),
            ],
            // Lane byte 3 takes the lead, bytes 2, 1, 0 the three after it.
            order: _mm512_set1_epi32(0x0001_0203),
            shift: _mm512_loadu_si512(SHIFT.as_ptr() as *const _),
            keep: _mm512_loadu_si512(KEEP.as_ptr() as *const _),
        };
        // Lead bytes are the signed bytes from -64 (0xC0) up, and ASCII.
        let lead_min = _mm512_set1_epi8(-64);
        let window = u64::MAX >> (64 - STEP);
        let mut o = out;
        let mut i = 0;
        // SAFETY (reads): whole blocks end at `i + 64 <= n`, the last ones are
        // masked loads of the bytes left. (writes): every store is masked to
        // the code points decoded from this block, and there are `chars`.
        while i + 64 <= n {
            let v = _mm512_loadu_si512(p.add(i) as *const _);
            if _mm512_movepi8_mask(v) == 0 {
                // All ASCII (so starting and ending on code points): widen.
                widen::<W>(v, o, u64::MAX);
                o = o.add(64 * W);
                i += 64;
                continue;
            }
            let leads = _mm512_cmpge_epi8_mask(v, lead_min) & window;
            o = o.add(step::<W>(v, leads, o, &t) * W);
            i += STEP;
        }
        // The last bytes: every lead's sequence is complete (valid UTF-8 does
        // not end inside one), so all of them are decoded, 48 at most a step.
        while i < n {
            let left = n - i;
            let in_block = u64::MAX >> (64 - left);
            let v = _mm512_maskz_loadu_epi8(in_block, p.add(i) as *const i8);
            let leads = _mm512_cmpge_epi8_mask(v, lead_min) & in_block & window;
            o = o.add(step::<W>(v, leads, o, &t) * W);
            i += STEP;
        }
    }
}

/// [`decode`] with AVX2, where AVX-512 VBMI2 is missing: 16 bytes a step, as
/// two 8-byte halves. A half's lead bytes (the first may be inside a
/// sequence from the half before: it is then not a lead) pick, by their
/// 8-bit mask, a `vpshufb` control from a table of 256 that gathers each lead
/// and the three bytes after it into a 32-bit lane, up to 8 lanes; the lanes
/// are then assembled as in the AVX-512 path. Halves start every 8 bytes
/// whatever they hold, so no step waits for the one before it.
#[cfg(target_arch = "x86_64")]
#[doc(hidden)]
pub mod avx2 {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    fn reference(s: &str) -> (usize, u32) {
        let max = s.chars().map(|c| c as u32).max().unwrap_or(0);
        let kind = if max < 0x80 {
            0x7f
        } else if max < 0x100 {
            0xff
        } else if max < 0x10000 {
            0xffff
        } else {
            0x10ffff
        };
        (s.chars().count(), kind)
    }

    fn decoded<T: Unit + Default>(s: &str, f: unsafe fn(&[u8], *mut T, usize)) -> Vec<T> {
        let chars = s.chars().count();
        // A guard unit past the end catches a write beyond the room.
        let mut out = vec![T::default(); chars + 1];
        unsafe { f(s.as_bytes(), out.as_mut_ptr(), chars) };
        out
    }

    fn check(s: &str) {
        let (chars, kind) = reference(s);
        assert_eq!(scalar::measure(s.as_bytes()), (chars, kind), "{s:?}");
        assert_eq!(measure(s.as_bytes()), (chars, kind), "{s:?}");
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::avx512_vbmi2() {
            assert_eq!(unsafe { avx512::measure(s.as_bytes()) }, (chars, kind), "{s:?}");
        }
        let want: Vec<u32> = s.chars().map(|c| c as u32).chain([0]).collect();
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::avx2_popcnt() {
            if kind <= 0xff {
                let got = decoded::<u8>(s, avx2::decode::<u8>);
                assert_eq!(got.iter().map(|&u| u as u32).collect::<Vec<_>>(), want, "avx2 ucs1 {s:?}");
            }
            if kind <= 0xffff {
                let got = decoded::<u16>(s, avx2::decode::<u16>);
                assert_eq!(got.iter().map(|&u| u as u32).collect::<Vec<_>>(), want, "avx2 ucs2 {s:?}");
            }
            assert_eq!(decoded::<u32>(s, avx2::decode::<u32>), want, "avx2 ucs4 {s:?}");
        }
        let paths: &[(&str, bool)] = &[("scalar", false), ("dispatch", true)];
        for &(name, simd) in paths {
            if kind <= 0xff {
                let got = if simd { decoded::<u8>(s, decode::<u8>) } else { decoded::<u8>(s, scalar::decode::<u8>) };
                assert_eq!(got.iter().map(|&u| u as u32).collect::<Vec<_>>(), want, "{name} ucs1 {s:?}");
            }
            if kind <= 0xffff {
                let got =
                    if simd { decoded::<u16>(s, decode::<u16>) } else { decoded::<u16>(s, scalar::decode::<u16>) };
                assert_eq!(got.iter().map(|&u| u as u32).collect::<Vec<_>>(), want, "{name} ucs2 {s:?}");
            }
            let got = if simd { decoded::<u32>(s, decode::<u32>) } else { decoded::<u32>(s, scalar::decode::<u32>) };
            assert_eq!(got, want, "{name} ucs4 {s:?}");
        }
    }

    const PIECES: [&str; 14] = [
        "a",
        "\x7f",
        "\u{80}",
        "é",
        "\u{ff}",
        "\u{100}",
        "\u{7ff}",
        "\u{800}",
        "中",
        "\u{ffff}",
        "\u{10000}",
        "😀",
        "\u{10ffff}",
        "\u{fffd}",
    ];

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn says_which_path_runs() {
        // Not an assertion: the SIMD path is only tested where the CPU has it.
        eprintln!("utf8_decode: AVX-512 VBMI2 path available: {}", crate::cpu::avx512_vbmi2());
    }

    #[test]
    fn every_piece_length_and_offset() {
        for piece in PIECES {
            for n in 0..200 {
                let run = piece.repeat(n);
                check(&run);
                for pad in 0..4 {
                    check(&("x".repeat(pad) + &run));
                    check(&("é".repeat(pad) + &run + "z"));
                }
            }
        }
    }

    #[test]
    fn a_piece_at_every_byte_offset() {
        for piece in PIECES {
            for n in 0..200 {
                for filler in ["a", "é", "中"] {
                    let mut s = String::new();
                    while s.len() < n {
                        s.push_str(filler);
                    }
                    s.push_str(piece);
                    check(&s);
                    s.push_str("tail");
                    check(&s);
                    let t = s.clone() + &filler.repeat(70);
                    check(&t);
                }
            }
        }
    }

    #[test]
    fn mixed_widths_pseudo_random() {
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        for _ in 0..4000 {
            let len = (rng.next_u64() % 300) as usize;
            let mut s = String::new();
            let mix = rng.next_u64() % 8;
            for _ in 0..len {
                let r = rng.next_u64();
                let c = match (r % 16).min(if mix < 2 {
                    3
                } else if mix < 5 {
                    11
                } else {
                    15
                }) {
                    0..=3 => (b'a' + (r >> 8) as u8 % 26) as char,
                    4..=5 => char::from_u32(0x80 + (r >> 8) as u32 % 0x80).unwrap(),
                    6..=7 => char::from_u32(0x100 + (r >> 8) as u32 % 0x700).unwrap(),
                    8..=11 => char::from_u32(0x800 + (r >> 8) as u32 % 0xd000).unwrap(),
                    _ => char::from_u32(0x10000 + (r >> 8) as u32 % 0x100000).unwrap(),
                };
                s.push(c);
            }
            check(&s);
        }
    }

    /// `measure_checked` (every path this CPU has) against `core::str::from_utf8`.
    fn check_bytes(b: &[u8]) {
        let want = core::str::from_utf8(b).ok().map(reference);
        assert_eq!(measure_checked(b), want, "{b:x?}");
        assert_eq!(is_valid(b), want.is_some(), "{b:x?}");
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::avx512_vbmi2() {
            assert_eq!(unsafe { avx512::measure_checked(b) }, want, "{b:x?}");
            assert_eq!(unsafe { avx512::is_valid(b) }, want.is_some(), "{b:x?}");
        }
    }

    #[test]
    fn checked_every_short_sequence() {
        // Every one- and two-byte input, and every three-byte input whose first
        // byte is not ASCII, alone and after 61-63 bytes (ending at the first
        // block's edge or crossing it).
        for a in 0..=255u8 {
            check_bytes(&[a]);
            for b in 0..=255u8 {
                check_bytes(&[a, b]);
                for pad in [0usize, 61, 62, 63] {
                    let mut v = vec![b'x'; pad];
                    v.extend([a, b]);
                    check_bytes(&v);
                }
                if a >= 0x80 {
                    for c in 0..=255u8 {
                        check_bytes(&[a, b, c]);
                    }
                }
            }
        }
        // Four-byte leads with every second byte and a few third and fourth.
        for a in 0xf0..=0xffu8 {
            for b in 0..=255u8 {
                for (c, d) in [(0x80, 0x80), (0xbf, 0xbf), (0x41, 0x80), (0x80, 0x41), (0xc0, 0x80), (0x80, 0xc0)] {
                    check_bytes(&[a, b, c, d]);
                    check_bytes(&[b'a', a, b, c, d]);
                }
            }
        }
    }

    #[test]
    fn checked_errors_at_every_offset() {
        let bad: [&[u8]; 14] = [
            b"\xff",
            b"\x80",
            b"\xc3\x28",
            b"\xc0\x80",
            b"\xc1\xbf",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xe4\xb8",
            b"\xf0\x9f\x98",
            b"\xe0\x80\x80",
            b"\xf0\x80\x80\x80",
            b"\xf5\x80\x80\x80",
            b"\xc3",
            b"\xf0\x9f",
        ];
        for filler in ["a", "é", "中", "😀"] {
            for n in 0..200 {
                let mut base = String::new();
                while base.len() < n {
                    base.push_str(filler);
                }
                for b in bad {
                    let mut v = base.as_bytes().to_vec();
                    v.extend_from_slice(b);
                    check_bytes(&v);
                    let mut w = v.clone();
                    w.extend_from_slice(filler.repeat(40).as_bytes());
                    check_bytes(&w);
                    // A valid sequence cut at every point.
                    let full = (base.clone() + "😀中é").into_bytes();
                    for cut in base.len()..full.len() {
                        check_bytes(&full[..cut]);
                    }
                }
                check_bytes(base.as_bytes());
            }
        }
    }

    #[test]
    fn checked_in_ascii_at_every_offset() {
        // One sequence, whole or cut short, inside ASCII: at every offset of
        // the first blocks, so the blocks around it may be skipped as ASCII.
        let seqs: [&[u8]; 9] = [
            b"\xc3\xa9",
            b"\xc3",
            b"\xe4\xb8\xad",
            b"\xe4\xb8",
            b"\xe4",
            b"\xf0\x9f\x98\x80",
            b"\xf0\x9f\x98",
            b"\xf0",
            b"\x80",
        ];
        for len in [200usize, 256] {
            for at in 0..len - 4 {
                for seq in seqs {
                    let mut v = vec![b'q'; len];
                    v[at..at + seq.len()].copy_from_slice(seq);
                    check_bytes(&v);
                    check_bytes(&v[..at + seq.len()]);
                }
            }
        }
    }

    #[test]
    fn valid_long_inputs_at_every_alignment() {
        // is_valid's long path: blocks aligned in memory from a boundary that
        // depends on where the input starts; ASCII blocks skipped.
        let seqs: [&[u8]; 6] = [b"\xc3\xa9", b"\xc3", b"\xe4\xb8", b"\xf0\x9f\x98\x80", b"\xf0\x9f\x98", b"\x80"];
        let buf = vec![b'q'; 1200];
        for start in 0..64 {
            for len in [192usize, 250, 256, 300, 400, 700, 1100] {
                let mut at = 0;
                while at + 4 < len {
                    for seq in seqs {
                        let mut v = buf.clone();
                        v[start + at..start + at + seq.len()].copy_from_slice(seq);
                        check_bytes(&v[start..start + len]);
                    }
                    at += if at < 140 {
                        1
                    } else if len < 500 {
                        7
                    } else {
                        13
                    };
                }
                check_bytes(&buf[start..start + len]);
            }
        }
    }

    #[test]
    fn checked_random_mutations() {
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        let text = "a é 中 😀 \u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff} xyz ".repeat(12);
        let bytes = text.as_bytes();
        for _ in 0..100_000 {
            let start = (rng.next_u64() % 100) as usize;
            let len = (rng.next_u64() % 250) as usize;
            let mut v = bytes[start..(start + len).min(bytes.len())].to_vec();
            for _ in 0..(rng.next_u64() % 3) {
                if !v.is_empty() {
                    let at = (rng.next_u64() % v.len() as u64) as usize;
                    v[at] = rng.next_u64() as u8;
                }
            }
            check_bytes(&v);
        }
    }

    #[test]
    fn the_benchmark_string() {
        check(&"café 😀 中文 ".repeat(20));
        check(&"ascii only and long enough to fill more than one block of 64 bytes".repeat(3));
    }
}

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

#[cfg(target_arch = "x86_64")]
#[doc(hidden)]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
pub mod scalar;

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
            // SAFETY: unit `k` of the 8 units of room the caller guarantees.
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
            // SAFETY: unit `k` of the 8 units of room the caller guarantees.
            unsafe { *out.add(k) = (word >> (8 * k)) as u8 as u32 };
        }
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn decode_avx512(bytes: &[u8], out: *mut u32, chars: usize) {
        avx512::decode::<4>(bytes, out as *mut u8, chars)
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
        // SAFETY: `s` is valid UTF-8 of `chars` code points, each fitting a
        // `T` (the callers pick `T` from the kind measured), with room for
        // them in `out`; the SIMD paths only where the CPU has them.
        unsafe { f(s.as_bytes(), out.as_mut_ptr(), chars) };
        out
    }

    fn check(s: &str) {
        let (chars, kind) = reference(s);
        assert_eq!(scalar::measure(s.as_bytes()), (chars, kind), "{s:?}");
        assert_eq!(measure(s.as_bytes()), (chars, kind), "{s:?}");
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::avx512_vbmi2() {
            // SAFETY: the CPU has what the AVX-512 path needs (checked just above).
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
            // SAFETY: the CPU has what the AVX-512 path needs (checked just above).
            assert_eq!(unsafe { avx512::measure_checked(b) }, want, "{b:x?}");
            // SAFETY: as above.
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

//! Latin-1, UCS2 and UCS4 to UTF-8 with AVX2, for both formats: the block
//! step of [`super::avx2_blocks`] over the text, a unit the format writes
//! itself handed to [`Specials::put`] and the next block started after it.
//! A tail shorter than a block is padded with `a` to a whole block on the
//! stack and its UTF-8 copied out, so short strings (names, words) take
//! the vector step too. How the tail is moved is the one thing the AVX-512
//! BW variant ([`super::avx512_bw_wide`]) does differently.

use super::avx2_blocks::BlockUnit;
use super::Specials;
use crate::text::{copy_bytes, SurrogateError};

/// How a tail shorter than a block is staged and its UTF-8 copied out.
pub(super) trait Tail {
    /// Copies the `k` units (`k * size_of::<T>()` bytes) at `p` into
    /// `stage`, the rest of which holds `a` units.
    ///
    /// # Safety
    /// `p` readable for `k` units, `k < T::BLOCK`; the caller is compiled
    /// for what the implementation needs.
    unsafe fn stage<T: BlockUnit>(p: *const T, k: usize, stage: &mut Stage);
    /// Copies `len` bytes (at most 64) from `from` to `out`.
    ///
    /// # Safety
    /// `out` writable for `len` bytes; as [`Tail::stage`].
    unsafe fn copy_out(from: &Stage, len: usize, out: *mut u8);
}

/// 64 bytes on the stack for a tail's units or its UTF-8.
#[repr(C, align(64))]
pub(super) struct Stage(pub [u8; 64]);

impl Stage {
    /// Filled with copies of a four-byte pattern.
    #[inline(always)]
    pub fn filled(pattern: u32) -> Stage {
        let mut bytes = [0u8; 64];
        for chunk in bytes.chunks_exact_mut(4) {
            chunk.copy_from_slice(&pattern.to_le_bytes());
        }
        Stage(bytes)
    }
}

/// The AVX2 way: byte copies.
pub(super) struct Copied;

impl Tail for Copied {
    #[inline(always)]
    unsafe fn stage<T: BlockUnit>(p: *const T, k: usize, stage: &mut Stage) {
        let bytes = k * core::mem::size_of::<T>();
        // SAFETY: `bytes` readable at `p` (the caller's promise), and the
        // stage holds a whole block (at most 64 bytes).
        copy_bytes(core::slice::from_raw_parts(p as *const u8, bytes), stage.0.as_mut_ptr());
    }
    #[inline(always)]
    unsafe fn copy_out(from: &Stage, len: usize, out: *mut u8) {
        // SAFETY: `len` writable at `out` (the caller's promise).
        copy_bytes(&from.0[..len], out);
    }
}

/// Units to UTF-8 at `out` a block at a time; returns the new end.
///
/// # Safety
/// `out` has room for `T::MAX_UTF8` bytes per unit, or `S::ROOM` if that
/// is more, plus [`super::SLACK`]; the caller is compiled for AVX2 and
/// POPCNT and what `L` needs.
#[inline(always)]
pub(super) unsafe fn transcode<T: BlockUnit, S: Specials, L: Tail>(
    src: &[T],
    mut out: *mut u8,
) -> Result<*mut u8, SurrogateError> {
    // A step's stores fit the room of a block's units, and a stage.
    const { assert!(T::STORES <= T::MAX_UTF8 * T::BLOCK + super::SLACK && T::STORES <= 64) };
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    // Whole blocks. The room left is at least the room per unit for the
    // units left (no unit took more so far) plus the slack, which covers
    // what a step stores (`T::STORES`).
    while n - i >= T::BLOCK {
        // SAFETY: units `i..i + BLOCK` are in `src`; see above for `out`.
        let step = T::step::<S>(p.add(i), out);
        out = out.add(step.len);
        match step.special {
            None => i += T::BLOCK,
            Some(k) => {
                // SAFETY: room for the unit's bytes, as above.
                out = S::put((*p.add(i + k)).into(), out)?;
                i += k + 1;
            }
        }
    }
    // The tail, padded with `a` (never special, one byte each) to a block.
    while i < n {
        let left = n - i;
        let mut units = Stage::filled(T::PAD);
        // SAFETY: `left` units from `i` are in `src`, fewer than a block.
        L::stage(p.add(i), left, &mut units);
        let mut utf8 = Stage([0; 64]);
        // SAFETY: the stage holds a block; `STORES` is at most 64.
        let step = T::step::<S>(units.0.as_ptr() as *const T, utf8.0.as_mut_ptr());
        let (taken, len) = match step.special {
            Some(k) => (k, step.len),
            None => (left, step.len - (T::BLOCK - left)),
        };
        // SAFETY: `len` bytes are the UTF-8 of the `taken` units, within
        // the room for them.
        L::copy_out(&utf8, len, out);
        out = out.add(len);
        i += taken;
        if step.special.is_some() {
            // SAFETY: room for the unit's bytes, as above.
            out = S::put((*p.add(i)).into(), out)?;
            i += 1;
        }
    }
    Ok(out)
}

/// [`transcode`] compiled for AVX2.
///
/// # Safety
/// As [`transcode`]; the CPU has AVX2 and POPCNT ([`crate::cpu::avx2_popcnt`]).
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn avx2<T: BlockUnit, S: Specials>(src: &[T], out: *mut u8) -> Result<*mut u8, SurrogateError> {
    transcode::<T, S, Copied>(src, out)
}

#[cfg(test)]
mod tests {
    use crate::testing::{escaped_each_way, json_string, utf8_each_way, Rng};
    use crate::text::{SurrogateError, Text};

    /// `units` through every transcoder this CPU has, both formats, against
    /// std's UTF-8 and orjson's escaping (or the surrogate error).
    fn check(text: Text<'_>, units: &[u32]) {
        let s: Option<String> = units.iter().map(|&u| char::from_u32(u)).collect();
        let plain = s.as_ref().map(|s| s.as_bytes().to_vec()).ok_or(SurrogateError);
        let escaped = s
            .as_ref()
            .map(|s| {
                let quoted = json_string(s);
                quoted.as_bytes()[1..quoted.len() - 1].to_vec()
            })
            .ok_or(SurrogateError);
        for (name, got) in utf8_each_way(text) {
            assert_eq!(got, plain, "plain, {name}, {units:x?}");
        }
        for (name, got) in escaped_each_way(text) {
            assert_eq!(got, escaped, "json, {name}, {units:x?}");
        }
    }

    /// `units` in every storage width they fit.
    fn check_widths(units: &[u32]) {
        check(Text::Ucs4(units), units);
        if units.iter().all(|&u| u < 0x10000) {
            let ucs2: Vec<u16> = units.iter().map(|&u| u as u16).collect();
            check(Text::Ucs2(&ucs2), units);
        }
        if units.iter().all(|&u| u < 0x100) {
            let ucs1: Vec<u8> = units.iter().map(|&u| u as u8).collect();
            check(Text::Ucs1(&ucs1), units);
        }
    }

    #[test]
    fn each_variant_this_cpu_has_is_checked() {
        let utf8: Vec<&str> = utf8_each_way(Text::Ucs2(&[])).into_iter().map(|(name, _)| name).collect();
        let json: Vec<&str> = escaped_each_way(Text::Ucs2(&[])).into_iter().map(|(name, _)| name).collect();
        for ways in [utf8, json] {
            assert_eq!(ways.contains(&"avx2"), crate::cpu::avx2_popcnt());
            assert_eq!(ways.contains(&"avx512bw"), crate::cpu::avx2_popcnt() && crate::cpu::avx512_bw_vl_bmi2());
        }
    }

    #[test]
    fn every_ucs2_unit_in_every_lane() {
        // All 2**16 values, each in a block of 48 units of one filler class
        // at lane `value % 48`: every unit meets every block path, and every
        // surrogate is refused wherever it stands.
        for filler in [0x61u32, 0xE9, 0x4E2D] {
            for value in 0..0x1_0000u32 {
                let mut units = vec![filler; 48];
                units[value as usize % 48] = value;
                let ucs2: Vec<u16> = units.iter().map(|&u| u as u16).collect();
                check(Text::Ucs2(&ucs2), &units);
            }
        }
    }

    #[test]
    fn every_length_and_special_position() {
        // Lengths 0..=130 (every tail, block and block boundary of both
        // block sizes), a special or class-boundary unit at each position,
        // in runs of each UTF-8 length.
        let fillers = [0x61u32, 0xFF, 0x7FF, 0x800, 0xFFFF, 0x1F600];
        let specials = [
            0x22u32, 0x5C, 0x0A, 0x00, 0x1F, 0x20, 0x7F, 0x80, 0xFF, 0x100, 0x7FF, 0x800, 0xD800, 0xDFFF, 0xE000,
            0xFFFF, 0x10000, 0x10FFFF,
        ];
        for len in 0..=130usize {
            for &filler in &fillers {
                check_widths(&vec![filler; len]);
                for pos in 0..len {
                    for &special in &specials {
                        let mut units = vec![filler; len];
                        units[pos] = special;
                        check_widths(&units);
                    }
                }
            }
        }
    }

    #[test]
    fn random_mixes_of_every_class() {
        // Units drawn from every class, switching often (as words and
        // spaces do) or in runs; lone surrogates in some strings.
        let classes: [&[u32]; 6] = [
            &[0x61, 0x20, 0x7E, 0x7F],
            &[0x22, 0x5C, 0x0A, 0x00, 0x1F],
            &[0x80, 0xE9, 0xFF, 0x100, 0x430, 0x7FF],
            &[0x800, 0x3042, 0x4E2D, 0xD7FF, 0xE000, 0xFFFF],
            &[0x10000, 0x1F600, 0x10FFFF],
            &[0xD800, 0xDBFF, 0xDC00, 0xDFFF],
        ];
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        for round in 0..20_000 {
            let len = rng.below(140) as usize;
            let switch = [2, 8, 40][round % 3];
            let mut class = 0;
            let units: Vec<u32> = (0..len)
                .map(|_| {
                    if rng.below(switch) == 0 {
                        class = rng.below(5) as usize;
                        if round % 5 == 0 && rng.below(20) == 0 {
                            class = 5;
                        }
                    }
                    let c = classes[class];
                    c[rng.below(c.len() as u64) as usize]
                })
                .collect();
            check_widths(&units);
            let narrow: Vec<u32> = units.iter().map(|&u| u & 0xFF).collect();
            check_widths(&narrow);
        }
    }
}

/// Times each JSON and plain transcoder this CPU has, rounds interleaved,
/// on the benchmark's string documents (200 strings each of UCS4, UCS2 and
/// Latin-1 text) and, if the file `ORCODEC_UCS2_STRINGS` names exists, its
/// UCS2 strings (each a little-endian u32 unit count, then the units):
/// `cargo test --release -p orcodec-core --lib -- --ignored
/// time_transcoders --nocapture`.
#[cfg(test)]
#[test]
#[ignore = "a timing run, on request"]
#[allow(clippy::disallowed_methods, clippy::unwrap_used, clippy::expect_used)]
fn time_transcoders() {
    use super::{blocks_avx2, escape_text_avx2, escape_text_avx512, escape_text_fallback, PlainUtf8, SLACK};
    use crate::text::Text;
    use std::time::Instant;
    let repeat = |s: &str, n: usize| -> Vec<Vec<u32>> { vec![s.repeat(n).chars().map(|c| c as u32).collect(); 200] };
    let mut documents = vec![
        ("strings_non_ascii", repeat("café 😀 中文 ", 20)),
        ("strings_ucs2", repeat("日本語のテキストを、そのまま書き出します。", 10)),
        ("strings_latin1", repeat("déjà vu, café crème à la française; ", 6)),
    ];
    if let Ok(bytes) = std::env::var("ORCODEC_UCS2_STRINGS").map(std::fs::read) {
        let (bytes, mut strings, mut at) = (bytes.unwrap(), Vec::new(), 0);
        while at < bytes.len() {
            let n = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
            let units = bytes[at + 4..at + 4 + 2 * n].chunks_exact(2);
            strings.push(units.map(|c| u16::from_le_bytes([c[0], c[1]]) as u32).collect());
            at += 4 + 2 * n;
        }
        documents.push(("file (UCS2)", strings));
    }
    type Way = unsafe fn(Text<'_>, *mut u8) -> *mut u8;
    let ways: [(&str, bool, Way); 8] = [
        // SAFETY: room for the text; the kernel runs only where the CPU has it.
        ("json ssse3", true, |t, o| unsafe { escape_text_fallback(t, o).unwrap() }),
        // SAFETY: room for the text; the kernel runs only where the CPU has it.
        ("json avx2", crate::cpu::avx2_popcnt(), |t, o| unsafe { escape_text_avx2(t, o, false).unwrap() }),
        // SAFETY: room for the text; the kernel runs only where the CPU has it.
        ("json avx512bw", crate::cpu::avx512_bw_vl_bmi2(), |t, o| unsafe { escape_text_avx2(t, o, true).unwrap() }),
        // SAFETY: room for the text; the kernel runs only where the CPU has it.
        ("json vbmi2", crate::cpu::avx512_vbmi2(), |t, o| unsafe { escape_text_avx512(t, o).unwrap() }),
        // SAFETY: room for the text; the kernel runs only where the CPU has it.
        ("utf8 before", true, |t, o| unsafe {
            match t {
                Text::Ucs1(s) => super::utf8_ucs1_plain(s, o),
                Text::Ucs2(s) => super::ssse3::utf8_wide_ssse3(s, o).unwrap(),
                Text::Ucs4(s) => o.add(super::scalar::ucs4_to_utf8(s, o).unwrap()),
                Text::Utf8(_) => o,
            }
        }),
        // SAFETY: room for the text; the kernel runs only where the CPU has it.
        ("utf8 avx2", crate::cpu::avx2_popcnt(), |t, o| unsafe { plain(t, o, false) }),
        // SAFETY: room for the text; the kernel runs only where the CPU has it.
        ("utf8 avx512bw", crate::cpu::avx512_bw_vl_bmi2(), |t, o| unsafe { plain(t, o, true) }),
        // SAFETY: room for the text; the kernel runs only where the CPU has it.
        ("utf8 vbmi2", crate::cpu::avx512_vbmi2(), |t, o| unsafe {
            match t {
                Text::Ucs1(s) => super::avx512_vbmi2::ucs1::<PlainUtf8>(s, o).unwrap(),
                Text::Ucs2(s) => super::avx512_vbmi2::wide::<u16, PlainUtf8>(s, o).unwrap(),
                Text::Ucs4(s) => super::avx512_vbmi2::wide::<u32, PlainUtf8>(s, o).unwrap(),
                Text::Utf8(_) => o,
            }
        }),
    ];
    unsafe fn plain(t: Text<'_>, o: *mut u8, masked: bool) -> *mut u8 {
        match t {
            Text::Ucs1(s) => blocks_avx2::<u8, PlainUtf8>(s, o, masked).unwrap(),
            Text::Ucs2(s) => blocks_avx2::<u16, PlainUtf8>(s, o, masked).unwrap(),
            Text::Ucs4(s) => blocks_avx2::<u32, PlainUtf8>(s, o, masked).unwrap(),
            Text::Utf8(_) => o,
        }
    }
    for (name, strings) in documents {
        let units: usize = strings.iter().map(Vec::len).sum();
        let max = strings.iter().flatten().copied().max().unwrap_or(0);
        let narrow: Vec<Vec<u16>> = strings.iter().map(|s| s.iter().map(|&c| c as u16).collect()).collect();
        let bytes: Vec<Vec<u8>> = strings.iter().map(|s| s.iter().map(|&c| c as u8).collect()).collect();
        let texts: Vec<Text<'_>> = (0..strings.len())
            .map(|k| match max {
                0x1_0000.. => Text::Ucs4(&strings[k]),
                0x100.. => Text::Ucs2(&narrow[k]),
                _ => Text::Ucs1(&bytes[k]),
            })
            .collect();
        let mut out = vec![0u8; units * 6 + SLACK];
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); ways.len()];
        for _ in 0..31 {
            for (k, &(_, available, way)) in ways.iter().enumerate() {
                if !available {
                    continue;
                }
                let start = Instant::now();
                for _ in 0..10 {
                    let mut o = out.as_mut_ptr();
                    for &t in &texts {
                        // SAFETY: room for every text escaped, one after another.
                        o = unsafe { way(t, o) };
                    }
                    std::hint::black_box(o);
                }
                times[k].push(start.elapsed().as_secs_f64() / 10.0);
            }
        }
        println!("{name}: {} strings, {units} units", texts.len());
        for (k, (way, _, _)) in ways.iter().enumerate() {
            times[k].sort_by(f64::total_cmp);
            if let Some(&median) = times[k].get(times[k].len() / 2) {
                println!("  {way:14} {:8.1} us  {:.2} ns/unit", median * 1e6, median * 1e9 / units as f64);
            }
        }
    }
}

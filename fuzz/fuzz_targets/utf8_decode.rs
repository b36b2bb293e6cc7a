//! The UTF-8 checks and the decoder to CPython's str kinds against the
//! standard library: `is_valid` and `measure_checked` judge every input as
//! `str::from_utf8` does, and valid text decodes to its code points, through
//! the dispatching entry point (AVX-512 where the CPU has it), the AVX2 path
//! and the scalar loop, each into every kind wide enough.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::text::decode::{self, Unit};

fn decoded<T: Unit + Default + Into<u32>>(text: &[u8], chars: usize, f: unsafe fn(&[u8], *mut T, usize)) -> Vec<u32> {
    // One more unit than the text needs, which no path may write.
    let mut out = vec![T::default(); chars + 1];
    // SAFETY: `text` is valid UTF-8 of `chars` code points, each fitting `T`
    // (the callers pick `T` from the kind measured).
    unsafe { f(text, out.as_mut_ptr(), chars) };
    out.into_iter().map(Into::into).collect()
}

fuzz_target!(|data: &[u8]| {
    let valid = std::str::from_utf8(data).ok();
    assert_eq!(decode::is_valid(data), valid.is_some());
    let checked = decode::measure_checked(data);
    assert_eq!(checked.is_some(), valid.is_some());
    let Some(text) = valid else { return };
    let (chars, kind) = decode::measure(data);
    assert_eq!(checked, Some((chars, kind)));
    let mut want: Vec<u32> = text.chars().map(|c| c as u32).collect();
    assert_eq!(chars, want.len());
    let max = want.iter().copied().max().unwrap_or(0);
    let canonical = match max {
        0..=0x7f => 0x7f,
        0x80..=0xff => 0xff,
        0x100..=0xffff => 0xffff,
        _ => 0x10ffff,
    };
    assert_eq!(kind, canonical);
    want.push(0);
    let mut paths: Vec<(&str, unsafe fn(&[u8], *mut u32, usize))> =
        vec![("dispatch", decode::decode::<u32>), ("scalar", decode::scalar::decode::<u32>)];
    #[cfg(target_arch = "x86_64")]
    if orcodec_core::cpu::avx2_popcnt() {
        paths.push(("avx2", decode::avx2::decode::<u32>));
    }
    for (name, f) in paths {
        assert_eq!(decoded(data, chars, f), want, "{name} ucs4");
    }
    if kind <= 0xffff {
        let mut paths: Vec<(&str, unsafe fn(&[u8], *mut u16, usize))> =
            vec![("dispatch", decode::decode::<u16>), ("scalar", decode::scalar::decode::<u16>)];
        #[cfg(target_arch = "x86_64")]
        if orcodec_core::cpu::avx2_popcnt() {
            paths.push(("avx2", decode::avx2::decode::<u16>));
        }
        for (name, f) in paths {
            assert_eq!(decoded(data, chars, f), want, "{name} ucs2");
        }
    }
    if kind <= 0xff {
        let mut paths: Vec<(&str, unsafe fn(&[u8], *mut u8, usize))> =
            vec![("dispatch", decode::decode::<u8>), ("scalar", decode::scalar::decode::<u8>)];
        #[cfg(target_arch = "x86_64")]
        if orcodec_core::cpu::avx2_popcnt() {
            paths.push(("avx2", decode::avx2::decode::<u8>));
        }
        for (name, f) in paths {
            assert_eq!(decoded(data, chars, f), want, "{name} ucs1");
        }
    }
});

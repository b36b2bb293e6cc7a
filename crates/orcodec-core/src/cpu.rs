//! Which SIMD paths this CPU can run: the one place the crate asks the CPU.
//!
//! Every feature any path needs is detected on first use, all at once, and
//! kept in one word; each check after that is a load and a mask test (std's
//! own cache is looked up feature by feature). A feature the build already
//! targets (`-C target-feature`, `-C target-cpu`) is known at compile time
//! and never looked up.
//!
//! Each function names one set of features and checks exactly that set: a
//! path compiled with `#[target_feature(enable = ...)]` runs only after the
//! function whose set covers what it enables said yes. `avx512_*` names
//! imply AVX-512 F, the foundation every other AVX-512 extension needs.
//!
//! The environment variable `ORCODEC_DISABLE_CPU_FEATURES` (names as std
//! spells them, separated by commas or spaces, e.g. `avx512vbmi2,avx512bw`)
//! turns detected features off, so each narrower path can be tested and
//! timed on a wide CPU; features the build targets stay on.

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

const SSSE3: u32 = 1 << 0;
const POPCNT: u32 = 1 << 1;
const AVX2: u32 = 1 << 2;
const BMI2: u32 = 1 << 3;
const AVX512F: u32 = 1 << 4;
const AVX512BW: u32 = 1 << 5;
const AVX512VL: u32 = 1 << 6;
const AVX512VBMI: u32 = 1 << 7;
const AVX512VBMI2: u32 = 1 << 8;
/// Set once the features were detected, so a detected word is never 0.
const DETECTED: u32 = 1 << 31;

/// SSSE3 (byte shuffles).
#[inline(always)]
pub fn ssse3() -> bool {
    has(SSSE3)
}

/// SSSE3 and POPCNT.
#[inline(always)]
pub fn ssse3_popcnt() -> bool {
    has(SSSE3 | POPCNT)
}

/// AVX2.
#[inline(always)]
pub fn avx2() -> bool {
    has(AVX2)
}

/// AVX2 and POPCNT.
#[inline(always)]
pub fn avx2_popcnt() -> bool {
    has(AVX2 | POPCNT)
}

/// AVX-512 F, BW and VL, and BMI2: masked byte loads, stores and compares
/// on 32-byte vectors.
#[inline(always)]
pub fn avx512_bw_vl_bmi2() -> bool {
    has(AVX512F | AVX512BW | AVX512VL | BMI2)
}

/// AVX-512 F, BW, VL, VBMI (`vpermb`, `vpmultishiftqb`) and VBMI2
/// (`vpcompressb`), BMI2 and POPCNT: the byte-permuting paths (transcoding
/// to and from UTF-8, validating it, unescaping).
#[inline(always)]
pub fn avx512_vbmi2() -> bool {
    has(AVX512F | AVX512BW | AVX512VL | AVX512VBMI | AVX512VBMI2 | BMI2 | POPCNT)
}

/// What the build targets, so needs no run-time check.
const STATIC: u32 = (if cfg!(target_feature = "ssse3") { SSSE3 } else { 0 })
    | (if cfg!(target_feature = "popcnt") { POPCNT } else { 0 })
    | (if cfg!(target_feature = "avx2") { AVX2 } else { 0 })
    | (if cfg!(target_feature = "bmi2") { BMI2 } else { 0 })
    | (if cfg!(target_feature = "avx512f") { AVX512F } else { 0 })
    | (if cfg!(target_feature = "avx512bw") { AVX512BW } else { 0 })
    | (if cfg!(target_feature = "avx512vl") { AVX512VL } else { 0 })
    | (if cfg!(target_feature = "avx512vbmi") { AVX512VBMI } else { 0 })
    | (if cfg!(target_feature = "avx512vbmi2") { AVX512VBMI2 } else { 0 });

/// The detected features (0 until the first check).
static FEATURES: AtomicU32 = AtomicU32::new(0);

/// Whether the CPU has every feature of `set`.
#[inline(always)]
fn has(set: u32) -> bool {
    if STATIC & set == set {
        return true;
    }
    let mut features = FEATURES.load(Relaxed);
    if features == 0 {
        features = detect();
    }
    features & set == set
}

/// Detects every feature of the sets above and keeps the answer. Threads
/// that race here all store the same word.
#[cold]
#[inline(never)]
fn detect() -> u32 {
    use std::is_x86_feature_detected as has;
    let mut features = DETECTED;
    let disabled = std::env::var("ORCODEC_DISABLE_CPU_FEATURES").unwrap_or_default();
    for (yes, name, bit) in [
        (has!("ssse3"), "ssse3", SSSE3),
        (has!("popcnt"), "popcnt", POPCNT),
        (has!("avx2"), "avx2", AVX2),
        (has!("bmi2"), "bmi2", BMI2),
        (has!("avx512f"), "avx512f", AVX512F),
        (has!("avx512bw"), "avx512bw", AVX512BW),
        (has!("avx512vl"), "avx512vl", AVX512VL),
        (has!("avx512vbmi"), "avx512vbmi", AVX512VBMI),
        (has!("avx512vbmi2"), "avx512vbmi2", AVX512VBMI2),
    ] {
        if yes && !names_feature(&disabled, name) {
            features |= bit;
        }
    }
    FEATURES.store(features, Relaxed);
    features
}

/// Whether `list` (names separated by commas or spaces) holds `name`.
fn names_feature(list: &str, name: &str) -> bool {
    list.split([',', ' ']).any(|item| item.trim().eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_set_is_what_std_detects() {
        // What std detects, less what the environment turns off.
        let disabled = std::env::var("ORCODEC_DISABLE_CPU_FEATURES").unwrap_or_default();
        macro_rules! has {
            ($name:tt) => {
                std::is_x86_feature_detected!($name) && !names_feature(&disabled, $name)
            };
        }
        // Twice: the first call detects, the second reads the kept word.
        for _ in 0..2 {
            assert_eq!(ssse3(), has!("ssse3"));
            assert_eq!(ssse3_popcnt(), has!("ssse3") && has!("popcnt"));
            assert_eq!(avx2(), has!("avx2"));
            assert_eq!(avx2_popcnt(), has!("avx2") && has!("popcnt"));
            assert_eq!(avx512_bw_vl_bmi2(), has!("avx512f") && has!("avx512bw") && has!("avx512vl") && has!("bmi2"));
            assert_eq!(
                avx512_vbmi2(),
                has!("avx512f")
                    && has!("avx512bw")
                    && has!("avx512vl")
                    && has!("avx512vbmi")
                    && has!("avx512vbmi2")
                    && has!("bmi2")
                    && has!("popcnt")
            );
        }
        assert_ne!(FEATURES.load(Relaxed), 0);
    }

    #[test]
    fn disabled_features_are_named_exactly() {
        assert!(names_feature("avx512vbmi2,avx512bw", "avx512bw"));
        assert!(names_feature(" AVX2 , ssse3", "avx2"));
        assert!(names_feature("avx2 ssse3", "ssse3"));
        assert!(!names_feature("avx512vbmi2", "avx512vbmi"));
        assert!(!names_feature("", "avx2"));
    }
}

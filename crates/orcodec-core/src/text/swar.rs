//! Byte tests on a whole 64-bit word at once (SWAR), for where a vector
//! step is not worth it or not there: the JSON scanner's and writer's short
//! runs, and other architectures.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of the result is set where `word` has a byte that needs
/// escaping (< 0x20, `"` or `\`) or, with `stop_at_non_ascii`, a byte >= 0x80.
/// Bits above the first set one may be false positives; the first is exact.
#[inline(always)]
pub(crate) fn special_bytes(word: u64, stop_at_non_ascii: bool) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = (word ^ (ONES * b'"' as u64)).wrapping_sub(ONES) & !(word ^ (ONES * b'"' as u64));
    let backslash = (word ^ (ONES * b'\\' as u64)).wrapping_sub(ONES) & !(word ^ (ONES * b'\\' as u64));
    let mut mask = control | quote | backslash;
    if stop_at_non_ascii {
        mask |= word;
    }
    mask & HIGHS
}

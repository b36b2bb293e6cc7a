//! Integers as decimal text, written straight into reserved output: no
//! intermediate buffer and no variable-length copy (a call to memcpy) after.

/// "00" to "99": the two digits of `n` at `2 * n`.
pub const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Most bytes [`write_i64`] and [`write_u64`] write: `-9223372036854775808`
/// and `18446744073709551615` are both 20.
pub const MAX_LEN: usize = 20;

/// 10**i for i in 0..20.
pub const POWERS_OF_TEN: [u64; 20] = {
    let mut p = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// How many decimal digits `v` has (1 for 0).
#[inline(always)]
pub fn digit_count(v: u64) -> usize {
    // floor(log10(2) * bits) is the count or one less; one compare decides.
    let bits = 64 - (v | 1).leading_zeros() as usize;
    let guess = (bits * 1233) >> 12;
    // `| 1` makes 0 count as one digit and changes nothing else (powers of ten are even).
    guess + ((v | 1) >= POWERS_OF_TEN[guess]) as usize
}

/// Writes the `len` digits of `v`, which has exactly `len` ([`digit_count`]),
/// at `out`: four digits per division while there are more than four, then
/// two, from the end.
///
/// # Safety
/// `out` must be writable for `len` bytes.
#[inline(always)]
pub unsafe fn write_digits(out: *mut u8, mut v: u64, len: usize) {
    debug_assert_eq!(len, digit_count(v));
    let pairs = DIGIT_PAIRS.as_ptr();
    let mut end = out.add(len);
    while v >= 10_000 {
        let rest = (v % 10_000) as usize;
        v /= 10_000;
        end = end.sub(4);
        core::ptr::copy_nonoverlapping(pairs.add(rest / 100 * 2), end, 2);
        core::ptr::copy_nonoverlapping(pairs.add(rest % 100 * 2), end.add(2), 2);
    }
    if v >= 100 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        end = end.sub(2);
        core::ptr::copy_nonoverlapping(pairs.add(pair), end, 2);
    }
    if v >= 10 {
        core::ptr::copy_nonoverlapping(pairs.add(v as usize * 2), out, 2);
    } else {
        *out = b'0' + v as u8;
    }
}

/// The eight digits of `v` (below 10**8), zero-padded, as ASCII in a
/// little-endian word (the first digit in the lowest byte): the halves, then
/// the pairs, then the digits of all lanes at once, each split one multiply
/// by a reciprocal (exact for the lanes' ranges: below 10**4, then 10**2).
#[inline(always)]
pub fn eight_digits(v: u32) -> u64 {
    debug_assert!(v < 100_000_000);
    // 32-bit lanes: the first four digits, the last four.
    let x = (v / 10_000) as u64 | ((v % 10_000) as u64) << 32;
    // 16-bit lanes: pairs (lane / 100, then lane % 100 above it).
    let hundreds = ((x * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let x = hundreds | (x - hundreds * 100) << 16;
    // Bytes: digits (lane / 10, then lane % 10 above it).
    let tens = ((x * 103) >> 10) & 0x000f_000f_000f_000f;
    (tens | (x - tens * 10) << 8) | 0x3030_3030_3030_3030
}

/// Writes `v` (below 10**10: every 32-bit integer) at `out` and returns how
/// many bytes that took, without a branch on its length: all ten digits,
/// zero-padded, shifted down past the leading zeros and stored whole, so
/// rows of values of mixed lengths (numpy arrays of ids, counts,
/// timestamps) cost no misprediction per value.
///
/// # Safety
/// `out` must be writable for 16 bytes.
#[inline(always)]
pub unsafe fn write_below_1e10(out: *mut u8, v: u64) -> usize {
    debug_assert!(v < 10_000_000_000);
    let n = digit_count(v);
    let high = (v / 100_000_000) as usize;
    let pair = u16::from_le_bytes([DIGIT_PAIRS[2 * high], DIGIT_PAIRS[2 * high + 1]]) as u128;
    let padded = pair | (eight_digits((v % 100_000_000) as u32) as u128) << 16;
    // SAFETY: the caller guarantees 16 writable bytes.
    unsafe { core::ptr::write_unaligned(out as *mut [u8; 16], (padded >> (8 * (10 - n))).to_le_bytes()) };
    n
}

/// Writes `v` at `out` and returns how many bytes that took.
///
/// # Safety
/// `out` must be writable for [`MAX_LEN`] bytes.
#[inline(always)]
pub unsafe fn write_u64(out: *mut u8, v: u64) -> usize {
    if v < 100 {
        // One or two digits, the commonest: a byte, or a pair from the table.
        if v < 10 {
            *out = b'0' + v as u8;
            return 1;
        }
        core::ptr::copy_nonoverlapping(DIGIT_PAIRS.as_ptr().add(v as usize * 2), out, 2);
        return 2;
    }
    if v < 10_000 {
        // Three or four digits (ids, counts, years): two pairs, the first
        // cut to its last digit when below 10, with no digit count.
        let (high, low) = ((v / 100) as usize, (v % 100) as usize);
        let three = (high < 10) as usize;
        core::ptr::copy_nonoverlapping(DIGIT_PAIRS.as_ptr().add(high * 2 + three), out, 2);
        core::ptr::copy_nonoverlapping(DIGIT_PAIRS.as_ptr().add(low * 2), out.add(2 - three), 2);
        return 4 - three;
    }
    let len = digit_count(v);
    write_digits(out, v, len);
    len
}

/// Writes the last `width` decimal digits of `v` at `out`, with leading zeros.
///
/// # Safety
/// `out` must be writable for `width` bytes.
#[inline(always)]
pub unsafe fn write_fixed(out: *mut u8, mut v: u64, width: usize) {
    let mut at = width;
    while at >= 2 {
        at -= 2;
        core::ptr::copy_nonoverlapping(DIGIT_PAIRS.as_ptr().add((v % 100) as usize * 2), out.add(at), 2);
        v /= 100;
    }
    if at == 1 {
        *out = b'0' + (v % 10) as u8;
    }
}

/// Writes `v` at `out` and returns how many bytes that took.
///
/// # Safety
/// `out` must be writable for [`MAX_LEN`] bytes.
#[inline(always)]
pub unsafe fn write_i64(out: *mut u8, v: i64) -> usize {
    // A `-` always written, kept only for a negative value: no branch on a
    // sign that may be random.
    *out = b'-';
    let sign = (v < 0) as usize;
    sign + write_u64(out.add(sign), v.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    fn text_u64(v: u64) -> String {
        let mut buf = [0u8; MAX_LEN];
        // SAFETY: the buffer holds MAX_LEN bytes.
        let n = unsafe { write_u64(buf.as_mut_ptr(), v) };
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    fn text_i64(v: i64) -> String {
        let mut buf = [0u8; MAX_LEN];
        // SAFETY: the buffer holds MAX_LEN bytes.
        let n = unsafe { write_i64(buf.as_mut_ptr(), v) };
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    fn text_below_1e10(v: u64) -> String {
        let mut buf = [b'#'; 32];
        // SAFETY: the buffer holds 32 bytes.
        let n = unsafe { write_below_1e10(buf.as_mut_ptr(), v) };
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn below_1e10_without_a_branch_on_the_length() {
        let mut p: u64 = 1;
        while p <= 10_000_000_000 {
            for v in [p - 1, p, p + 1, p * 5, p * 9 + p - 1] {
                if v < 10_000_000_000 {
                    assert_eq!(text_below_1e10(v), v.to_string());
                }
            }
            p *= 10;
        }
        for v in [0, 9, 10, 99, 100, u32::MAX as u64, 9_999_999_999, 12_345_678, 1_234_567_890] {
            assert_eq!(text_below_1e10(v), v.to_string());
        }
        let mut rng = Rng::new(10);
        for _ in 0..200_000 {
            let v = rng.next_u64() % 10u64.pow(1 + rng.below(10) as u32);
            assert_eq!(text_below_1e10(v), v.to_string());
        }
        // Every value of each 4-digit lane, and a stride across the rest.
        for v in (0..10_000).chain((0..10_000).map(|k| k * 10_000)).chain((0..100_000_000).step_by(997)) {
            let want = format!("{v:08}");
            assert_eq!(eight_digits(v).to_le_bytes(), want.as_bytes(), "{v}");
        }
    }

    #[test]
    fn every_power_of_ten_and_its_neighbours() {
        let mut p: u64 = 1;
        loop {
            for v in [p - 1, p, p + 1, p.wrapping_mul(5)] {
                assert_eq!(text_u64(v), v.to_string());
                assert_eq!(digit_count(v), v.to_string().len());
            }
            match p.checked_mul(10) {
                Some(next) => p = next,
                None => break,
            }
        }
    }

    #[test]
    fn extremes_and_small_values() {
        for v in (0..100_000).chain([u64::MAX, u64::MAX - 1, 1 << 63, (1 << 53) - 1]) {
            assert_eq!(text_u64(v), v.to_string());
        }
        for v in (-100_000..100_000).chain([i64::MIN, i64::MIN + 1, i64::MAX, -(1 << 53) + 1]) {
            assert_eq!(text_i64(v), v.to_string());
        }
    }

    #[test]
    fn fixed_width_digits() {
        for width in 0..=19 {
            for v in [0u64, 1, 7, 42, 99, 100, 12_345, 99_999_999, 123_456_789_012, u64::MAX] {
                let mut buf = [0u8; 19];
                // SAFETY: the buffer holds 19 >= width bytes.
                unsafe { write_fixed(buf.as_mut_ptr(), v, width) };
                let full = format!("{v:020}");
                assert_eq!(&buf[..width], &full.as_bytes()[20 - width..], "{v} in {width}");
            }
        }
    }

    #[test]
    fn random_values_of_every_width() {
        // Every bit width, both signs.
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..1_000_000 {
            let x = rng.next_u64();
            let v = x >> (x % 64);
            assert_eq!(text_u64(v), v.to_string());
            assert_eq!(text_i64(v as i64), (v as i64).to_string());
        }
    }
}

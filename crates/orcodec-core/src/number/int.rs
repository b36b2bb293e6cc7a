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
    // 32-bit lanes: the first four digits, the last four. Each step puts
    // quotient q in the low lane and x - d * q above it, computed as
    // (x << k) - q * ((d << k) - 1): one multiply, no separate remainder.
    let v = v as u64;
    let x = (v << 32) - (v / 10_000) * ((10_000 << 32) - 1);
    four_digit_lanes(x)
}

/// [`eight_digits`] after its first split: `x` holds numbers below 10**4 in
/// its two 32-bit lanes (the first in the low one); each becomes its four
/// ASCII digits.
#[inline(always)]
fn four_digit_lanes(x: u64) -> u64 {
    // 16-bit lanes: pairs (lane / 100, then lane % 100 above it).
    let hundreds = ((x * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let x = (x << 16) - hundreds * ((100 << 16) - 1);
    // Bytes: digits (lane / 10, then lane % 10 above it).
    let tens = ((x * 103) >> 10) & 0x000f_000f_000f_000f;
    ((x << 8) - tens * ((10 << 8) - 1)) | 0x3030_3030_3030_3030
}

/// The four digits of `v` (below 10**4), zero-padded, as ASCII in the low
/// four bytes of a little-endian word: [`eight_digits`]'s last two steps.
#[inline(always)]
pub fn four_digits(v: u32) -> u64 {
    debug_assert!(v < 10_000);
    four_digit_lanes(v as u64) & 0xffff_ffff
}

/// `v`, which has exactly `N` digits (1 to 10), followed by `tail`: the
/// text in the low `N + 1` bytes of the little-endian result, the rest zero.
/// No branch on `v`: rows whose values all have the same length (`arange`,
/// ids of one width) are written at a fixed stride.
#[inline(always)]
pub fn exact_digits<const N: usize>(v: u64, tail: u8) -> u128 {
    debug_assert_eq!(digit_count(v), N);
    let tail = tail as u128;
    if N <= 4 {
        ((four_digits(v as u32) >> (8 * (4 - N))) as u128) | tail << (8 * N)
    } else if N <= 8 {
        ((eight_digits(v as u32) >> (8 * (8 - N))) as u128) | tail << (8 * N)
    } else {
        let high = (v / 100_000_000) as usize;
        let pair = u16::from_le_bytes([DIGIT_PAIRS[2 * high], DIGIT_PAIRS[2 * high + 1]]) as u128;
        let padded = pair | (eight_digits((v % 100_000_000) as u32) as u128) << 16;
        (padded >> (8 * (10 - N))) | tail << (8 * N)
    }
}

/// [`exact_digits`] of two values at once, each as that function returns
/// it. Up to six digits, both values' last four share one
/// [`four_digit_lanes`] (half the multiplies per value).
#[inline(always)]
pub fn exact_digits_pair<const N: usize>(a: u64, b: u64, tail: u8) -> (u128, u128) {
    if N > 6 {
        return (exact_digits::<N>(a, tail), exact_digits::<N>(b, tail));
    }
    debug_assert!(digit_count(a) == N && digit_count(b) == N);
    let tail = (tail as u64) << (8 * N);
    if N <= 4 {
        let lanes = four_digit_lanes(a | b << 32) >> (8 * (4 - N));
        let low = (lanes & (u32::MAX >> (8 * (4 - N))) as u64) | tail;
        return (low as u128, ((lanes >> 32) | tail) as u128);
    }
    let (qa, qb) = (a / 10_000, b / 10_000);
    let lanes = four_digit_lanes((a - qa * 10_000) | (b - qb * 10_000) << 32);
    let head = |q: u64| {
        if N == 5 {
            b'0' as u64 + q
        } else {
            u16::from_le_bytes([DIGIT_PAIRS[2 * q as usize], DIGIT_PAIRS[2 * q as usize + 1]]) as u64
        }
    };
    let shift = 8 * (N - 4);
    let word_a = head(qa) | (lanes & 0xffff_ffff) << shift | tail;
    let word_b = head(qb) | (lanes >> 32) << shift | tail;
    (word_a as u128, word_b as u128)
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

/// Writes `v` at `out` and returns how many bytes that took; the bytes
/// after those, up to the tenth from `out`, may be overwritten.
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
        // cut to its last digit when below 10. The length by a branch, as
        // below.
        let (high, low) = ((v / 100) as usize, (v % 100) as usize);
        if high < 10 {
            *out = b'0' + high as u8;
            core::ptr::copy_nonoverlapping(DIGIT_PAIRS.as_ptr().add(low * 2), out.add(1), 2);
            return 3;
        }
        core::ptr::copy_nonoverlapping(DIGIT_PAIRS.as_ptr().add(high * 2), out, 2);
        core::ptr::copy_nonoverlapping(DIGIT_PAIRS.as_ptr().add(low * 2), out.add(2), 2);
        return 4;
    }
    if v < 100_000_000 {
        // Five to eight digits: all eight at once, zero-padded, shifted down
        // past the leading zeros and stored whole. The length is found by
        // branches rather than computed: predicted (values of one width, as
        // ids and amounts are), the next write's position does not wait
        // for loads and arithmetic on the value.
        let len = if v < 1_000_000 {
            if v < 100_000 {
                5
            } else {
                6
            }
        } else if v < 10_000_000 {
            7
        } else {
            8
        };
        let text = eight_digits(v as u32);
        core::ptr::write_unaligned(out as *mut u64, (text >> (8 * (8 - len))).to_le());
        return len;
    }
    if v < 10_000_000_000 {
        // Nine or ten digits (ids, Unix timestamps): the first one or two,
        // then the other eight at once.
        let high = v / 100_000_000;
        let low = eight_digits((v - high * 100_000_000) as u32).to_le();
        if high < 10 {
            *out = b'0' + high as u8;
            core::ptr::write_unaligned(out.add(1) as *mut u64, low);
            return 9;
        }
        core::ptr::copy_nonoverlapping(DIGIT_PAIRS.as_ptr().add(high as usize * 2), out, 2);
        core::ptr::write_unaligned(out.add(2) as *mut u64, low);
        return 10;
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
    // A branch on the sign, not a `-` kept or not by arithmetic: values of
    // one sign (nearly all data) predict it, and the position of the next
    // write then does not wait for the value to be loaded.
    if v < 0 {
        *out = b'-';
        return 1 + write_u64(out.add(1), v.unsigned_abs());
    }
    write_u64(out, v as u64)
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

    fn text_exact<const N: usize>(v: u64) -> String {
        let bytes = exact_digits::<N>(v, b',').to_le_bytes();
        assert!(bytes[N + 1..].iter().all(|&b| b == 0), "{v}: {bytes:?}");
        assert_eq!(bytes[N], b',', "{v}");
        String::from_utf8(bytes[..N].to_vec()).unwrap()
    }

    fn exact_digits_of_width<const N: usize>(rng: &mut Rng) {
        let (low, high) = (POWERS_OF_TEN[N - 1] * (N > 1) as u64, POWERS_OF_TEN[N] - 1);
        for v in [low, low + 1, high - 1, high, (low + high) / 2] {
            assert_eq!(text_exact::<N>(v), v.to_string());
        }
        for _ in 0..20_000 {
            let v = low + rng.next_u64() % (high - low + 1);
            assert_eq!(text_exact::<N>(v), v.to_string());
        }
    }

    fn exact_pairs_of_width<const N: usize>(rng: &mut Rng) {
        let (low, high) = (POWERS_OF_TEN[N - 1] * (N > 1) as u64, POWERS_OF_TEN[N] - 1);
        let mut values = vec![low, low + 1, high - 1, high, (low + high) / 2];
        values.extend((0..20_000).map(|_| low + rng.next_u64() % (high - low + 1)));
        for pair in values.windows(2) {
            let (a, b) = exact_digits_pair::<N>(pair[0], pair[1], b',');
            assert_eq!(a, exact_digits::<N>(pair[0], b','), "{pair:?}");
            assert_eq!(b, exact_digits::<N>(pair[1], b','), "{pair:?}");
        }
    }

    #[test]
    fn exact_digit_pairs_of_every_width() {
        let mut rng = Rng::new(12);
        exact_pairs_of_width::<1>(&mut rng);
        exact_pairs_of_width::<2>(&mut rng);
        exact_pairs_of_width::<3>(&mut rng);
        exact_pairs_of_width::<4>(&mut rng);
        exact_pairs_of_width::<5>(&mut rng);
        exact_pairs_of_width::<6>(&mut rng);
        exact_pairs_of_width::<7>(&mut rng);
        exact_pairs_of_width::<8>(&mut rng);
        exact_pairs_of_width::<9>(&mut rng);
        exact_pairs_of_width::<10>(&mut rng);
        for v in 10_000..100_000 {
            assert_eq!(
                exact_digits_pair::<5>(v, 99_999 - v + 10_000, b','),
                (exact_digits::<5>(v, b','), exact_digits::<5>(99_999 - v + 10_000, b','))
            );
        }
    }

    #[test]
    fn exact_digits_of_every_width() {
        let mut rng = Rng::new(11);
        exact_digits_of_width::<1>(&mut rng);
        exact_digits_of_width::<2>(&mut rng);
        exact_digits_of_width::<3>(&mut rng);
        exact_digits_of_width::<4>(&mut rng);
        exact_digits_of_width::<5>(&mut rng);
        exact_digits_of_width::<6>(&mut rng);
        exact_digits_of_width::<7>(&mut rng);
        exact_digits_of_width::<8>(&mut rng);
        exact_digits_of_width::<9>(&mut rng);
        exact_digits_of_width::<10>(&mut rng);
        // Every value of the four-digit step, and every five-digit value.
        for v in 0..10_000u32 {
            assert_eq!(four_digits(v).to_le_bytes()[..4], *format!("{v:04}").as_bytes(), "{v}");
            assert_eq!(four_digits(v) >> 32, 0, "{v}");
        }
        for v in 10_000..100_000 {
            assert_eq!(text_exact::<5>(v), v.to_string());
        }
        assert_eq!(text_exact::<10>(u32::MAX as u64), u32::MAX.to_string());
        assert_eq!(text_exact::<10>(9_999_999_999), "9999999999");
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
    fn every_digit_count_in_place_touching_at_most_ten_bytes() {
        // Each count from 1 to 20 digits, its ends and random values: the
        // text, and nothing written from the tenth byte on past it.
        let mut rng = Rng::new(77);
        for digits in 1..=20u32 {
            let low = if digits == 1 { 0 } else { 10u64.pow(digits - 1) };
            let high = if digits == 20 { u64::MAX } else { 10u64.pow(digits) - 1 };
            let span = high - low;
            let values =
                [low, low + 1, high - 1, high].into_iter().chain((0..20_000).map(|_| low + rng.next_u64() % span));
            for v in values {
                let mut buf = [b'#'; 32];
                // SAFETY: the buffer holds 32 >= MAX_LEN bytes.
                let n = unsafe { write_u64(buf.as_mut_ptr(), v) };
                assert_eq!(&buf[..n], v.to_string().as_bytes());
                assert!(buf[n.max(10)..].iter().all(|&b| b == b'#'), "{v}");
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

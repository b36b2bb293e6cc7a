//! Decimal to double, correctly rounded, from a mantissa and a power of ten
//! the JSON scanner already accumulated while it checked the grammar (so the
//! digits are read once).
//!
//! Two fast paths, each exact or declining:
//! * Clinger's: a mantissa of at most 53 bits and a power of ten up to 22
//!   are both exact doubles, so one correctly rounded multiply or divide is
//!   the correctly rounded result.
//! * Eisel and Lemire's: multiply the normalized mantissa by a 128-bit
//!   approximation of 5^q (table in `pow5_table`); the top bits of
//!   the product are the result's mantissa unless the truncated low bits
//!   could carry into them, which the algorithm detects (then we decline).
//!
//! A decline (`None`) sends the caller to the standard library's parser,
//! which is correct on everything; subnormal and overflowing results also go
//! there, being rare.

use super::pow5_table::{POW5_128, POW5_MAX_Q, POW5_MIN_Q};

/// Powers of ten that doubles hold exactly.
pub(crate) const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// Bits of a double's stored mantissa.
const MANTISSA_BITS: u32 = 52;
/// Product bits below the 52 + hidden + rounding bits (and one for the
/// product's possibly clear top bit): 64 - 52 - 3.
const DROPPED_BITS: u32 = 64 - MANTISSA_BITS - 3;

/// `w * 10^q` rounded to the nearest double (ties to even), or `None` when
/// no fast path decides it. `w` must be the exact decimal mantissa. Never an
/// infinity: a result beyond the doubles is `None` (the JSON lexer relies on
/// it to look for infinities on the slow path only).
#[inline(always)]
pub fn decimal_to_f64(w: u64, q: i64) -> Option<f64> {
    if w <= 1 << 53 && (-22..=22).contains(&q) {
        let m = w as f64;
        return Some(if q >= 0 { m * EXACT_POW10[q as usize] } else { m / EXACT_POW10[(-q) as usize] });
    }
    eisel_lemire(w, q)
}

/// The Eisel-Lemire step; see the module comment.
#[inline(always)]
pub fn eisel_lemire(w: u64, q: i64) -> Option<f64> {
    if w == 0 {
        return Some(0.0);
    }
    if !(POW5_MIN_Q..=POW5_MAX_Q).contains(&q) {
        return None;
    }
    let zeros = w.leading_zeros();
    let w = w << zeros;
    let (t_high, t_low) = POW5_128[(q - POW5_MIN_Q) as usize];
    let first = w as u128 * t_high as u128;
    let mut high = (first >> 64) as u64;
    let mut low = first as u64;
    // Only when the bits below the kept ones are all ones can the product
    // with the table's low half carry into them: compute it then.
    const DROPPED_MASK: u64 = (1 << DROPPED_BITS) - 1;
    if high & DROPPED_MASK == DROPPED_MASK {
        let second = w as u128 * t_low as u128;
        let (sum, carry) = low.overflowing_add((second >> 64) as u64);
        low = sum;
        high += carry as u64;
    }
    // Still all ones: the ignored rest of the product might carry. (The
    // product is exact for 5^-27..5^55, but declining there too is cheap.)
    if low == u64::MAX {
        return None;
    }
    // `w` >= 2^63 and the table entry >= 2^127, so `high` >= 2^62: its top
    // bit says which of the two positions the leading one is in.
    let top = (high >> 63) as u32;
    let shift = top + DROPPED_BITS;
    let mut mantissa = high >> shift;
    // floor(q * log2(10)) by a fixed-point multiply (exact over the table's range).
    let log2_pow10 = ((q as i32).wrapping_mul(217_706)) >> 16;
    let mut biased_exp = log2_pow10 + 63 + top as i32 - zeros as i32 + 1023;
    if biased_exp <= 0 {
        // Subnormal (or zero) result.
        return None;
    }
    // Exactly halfway between two doubles is only possible for small |q|
    // (the product is exact there); ties go to even.
    if low <= 1 && (-4..=23).contains(&q) && mantissa & 3 == 1 && mantissa << shift == high {
        mantissa &= !1;
    }
    mantissa += mantissa & 1;
    mantissa >>= 1;
    if mantissa >= 2 << MANTISSA_BITS {
        mantissa = 1 << MANTISSA_BITS;
        biased_exp += 1;
    }
    if biased_exp >= 0x7ff {
        // Overflows to infinity.
        return None;
    }
    mantissa &= !(1 << MANTISSA_BITS);
    Some(f64::from_bits(mantissa | (biased_exp as u64) << MANTISSA_BITS))
}

/// Texts up to this long go to the standard library's parser as they are.
/// Its decimal exponent stops counting at 65 536, which is no error while
/// the digits cannot outweigh it; a longer text (hundreds of thousands of
/// digits) is normalized first.
const STD_PARSES_UP_TO: usize = 4096;

/// Significant digits kept from a longer mantissa, past the 767 that can
/// decide a double's rounding: the digits after them only matter as "some
/// are not zero", which one more `1` says.
const KEPT_DIGITS: usize = 800;

/// A JSON number's text (`-?int(.frac)?([eE][+-]?exp)?`, checked by the
/// caller) as the nearest double, whatever its length: correctly rounded
/// like Python's `float()`, where the standard library's parser alone gives
/// `inf` for `1` followed by a million zeros and `e-1000000`. None if the
/// text is no number. Cold: the fast paths decide nearly every number, and
/// the scanner's number loop keeps its registers when this call is out of
/// its way.
#[cold]
#[inline(never)]
pub fn parse_text(text: &[u8]) -> Option<f64> {
    if text.len() <= STD_PARSES_UP_TO {
        return core::str::from_utf8(text).ok()?.parse().ok();
    }
    let (negative, rest) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let mantissa_end = rest.iter().position(|&c| c == b'e' || c == b'E').unwrap_or(rest.len());
    let (mantissa, exponent_text) = rest.split_at(mantissa_end);
    let exponent = parse_exponent(exponent_text.get(1..).unwrap_or_default())?;
    let (int, frac) = match mantissa.iter().position(|&c| c == b'.') {
        Some(dot) => (&mantissa[..dot], &mantissa[dot + 1..]),
        None => (mantissa, &[][..]),
    };
    // The value is 0.DIGITS * 10^(int.len() + exponent) with DIGITS the int
    // and fraction digits: drop leading zeros (each moves the point left)
    // and trailing ones.
    let digits = || int.iter().chain(frac.iter()).copied();
    let leading = digits().take_while(|&d| d == b'0').count();
    let total = int.len() + frac.len();
    let trailing = digits().rev().take_while(|&d| d == b'0').count();
    let sign = if negative { -1.0 } else { 1.0 };
    if leading == total {
        return Some(sign * 0.0);
    }
    let significant = total - leading - trailing;
    let point = (int.len() as i64 - leading as i64).saturating_add(exponent);
    // 0.1e311 overflows; 0.99..e-324 is below half the least subnormal.
    if point > 311 {
        return Some(sign * f64::INFINITY);
    }
    if point < -324 {
        return Some(sign * 0.0);
    }
    // "0." + the kept digits + the sticky `1` + "e" + the point: at most
    // 2 + 801 + 1 + 4 bytes, parsed by the standard library, which rounds
    // that correctly.
    let mut buffer = [0u8; KEPT_DIGITS + 16];
    buffer[..2].copy_from_slice(b"0.");
    let mut len = 2;
    for d in digits().skip(leading).take(significant.min(KEPT_DIGITS)) {
        buffer[len] = d;
        len += 1;
    }
    if significant > KEPT_DIGITS {
        buffer[len] = b'1';
        len += 1;
    }
    buffer[len] = b'e';
    len += 1;
    let mut exp = itoa_i64(point);
    let exp = exp.text();
    buffer[len..len + exp.len()].copy_from_slice(exp);
    len += exp.len();
    let magnitude: f64 = core::str::from_utf8(&buffer[..len]).ok()?.parse().ok()?;
    Some(sign * magnitude)
}

/// An exponent's digits (with their optional sign), saturating far beyond
/// any input's length.
fn parse_exponent(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    if digits.is_empty() {
        return Some(0);
    }
    let mut value: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        value = value.saturating_mul(10).saturating_add((d - b'0') as i64);
    }
    Some(if negative { -value } else { value })
}

/// A small integer's decimal text, on the stack.
struct SmallInt {
    bytes: [u8; 24],
    start: usize,
}

impl SmallInt {
    fn text(&mut self) -> &[u8] {
        &self.bytes[self.start..]
    }
}

fn itoa_i64(value: i64) -> SmallInt {
    let mut out = SmallInt { bytes: [0; 24], start: 24 };
    let mut rest = value.unsigned_abs();
    loop {
        out.start -= 1;
        out.bytes[out.start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if value < 0 {
        out.start -= 1;
        out.bytes[out.start] = b'-';
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    /// Our result for decimal text `t` (digits, optional point, optional
    /// exponent; no sign), next to std's; `None` from us means "declined".
    fn ours(t: &str) -> Option<f64> {
        let (mant, exp) = match t.find(['e', 'E']) {
            Some(k) => (&t[..k], t[k + 1..].parse::<i64>().unwrap()),
            None => (t, 0),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let digits = format!("{int}{frac}");
        let w: u64 = digits.parse().ok()?;
        decimal_to_f64(w, exp - frac.len() as i64)
    }

    fn check(t: &str) -> bool {
        let want: f64 = t.parse().unwrap();
        match ours(t) {
            Some(v) => {
                assert_eq!(v.to_bits(), want.to_bits(), "{t}: got {v:e}, std {want:e}");
                true
            }
            None => false,
        }
    }

    #[test]
    fn never_an_infinity() {
        // Every mantissa width at the top of the range: the largest double
        // and its neighbours are values, anything rounding past it declined.
        assert_eq!(ours("1.7976931348623157e308"), Some(f64::MAX));
        for t in ["1.7976931348623159e308", "1.8e308", "1e309", "9999999999999999999e290", "1e400"] {
            assert_eq!(ours(t), None, "{t}");
        }
        for w in [1u64, 9, 12345, 1 << 53, u64::MAX / 10] {
            for q in 280..=330 {
                if let Some(v) = decimal_to_f64(w, q) {
                    assert!(v.is_finite(), "{w}e{q}");
                }
            }
        }
    }

    #[test]
    fn table_matches_exact_powers() {
        // Spot-check the generated table against exact arithmetic where u128 holds 5^q.
        for q in 0..=55i64 {
            let p = 5u128.pow(q as u32);
            let norm = p << p.leading_zeros();
            let (h, l) = POW5_128[(q - POW5_MIN_Q) as usize];
            assert_eq!((h as u128) << 64 | l as u128, norm, "5^{q}");
        }
        // Negative powers down to 5^-27: entry = floor(2^k / 5^-q) + 1 with
        // k = 127 + ceil(log2(5^-q)), i.e. (entry - 1) * d <= 2^k < entry * d.
        let times = |e: u128, d: u64| -> (u128, u128) {
            // e * d as (high, low) 128-bit halves.
            let lo = (e as u64 as u128) * d as u128;
            let hi = (e >> 64) * d as u128 + (lo >> 64);
            (hi >> 64, hi << 64 | (lo as u64 as u128))
        };
        for q in -27..0i64 {
            let d = 5u64.pow((-q) as u32);
            let (h, l) = POW5_128[(q - POW5_MIN_Q) as usize];
            let e = (h as u128) << 64 | l as u128;
            let k = 127 + (64 - (d - 1).leading_zeros());
            let two_k = if k >= 128 { (1u128 << (k - 128), 0u128) } else { (0, 1u128 << k) };
            assert!(times(e - 1, d) <= two_k && two_k < times(e, d), "5^{q}");
        }
        assert_eq!(POW5_128.len() as i64, POW5_MAX_Q - POW5_MIN_Q + 1);
    }

    #[test]
    fn hard_cases() {
        let must_decide = [
            "1e23",
            "9007199254740993",
            "9007199254740992",
            "9007199254740994",
            "9007199254740995",
            "1.7976931348623157e308",
            "2.2250738585072014e-308",
            "0.1",
            "0.3",
            "43.474709000000132",
            "65.613616999999977",
            "123456789012345678",
            "18446744073709551615",
            "7.2057594037927933e16",
            "1e22",
            "8.98846567431158e307",
            "4.9406564584124654e-300",
            "1e-300",
            "3.0000000000000004",
            "0.30000000000000004",
            "2.718281828459045",
            "1.4142135623730951",
            "1.7976931348623157e308",
            "1e308",
        ];
        for t in must_decide {
            assert!(check(t), "{t} declined");
        }
        // Decided or declined, never wrong: subnormals, limits, ties, overflow.
        for t in [
            "5e-324",
            "2.2250738585072011e-308",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "2.2250738585072009e-308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e309",
            "1e-400",
            "9007199254740993e0",
            "9007199254740993e1",
            "900719925474099.3e1",
            "1.00000000000000011102230246251565404",
            "1e-342",
            "1e-343",
            "1e308",
            "1e-324",
            "18446744073709551615e-20",
            "18446744073709551615e300",
            "4503599627370496.5",
            "4503599627370497.5",
            "2.5e-324",
            "8.5e-324",
        ] {
            check(t);
        }
        // Ties in the round-to-even window: 2^53 + 1 and 2^54 + 2 times small powers.
        for w in [9007199254740993u64, 9007199254740995, 18014398509481986, 18014398509481990] {
            for q in -4..=4 {
                check(&format!("{w}e{q}"));
            }
        }
    }

    #[test]
    fn random_decimals_match_std() {
        let mut rng = Rng::new(0x1234_5678_9abc_def1);
        let mut decided = 0usize;
        let total = 2_000_000;
        for k in 0..total {
            let r = rng.next_u64();
            // Mantissas of 1..=19 digits, some with trailing zeros or runs of 9s.
            let digits = (r % 19) as u32 + 1;
            let mut w = rng.next_u64() % 10u64.pow(digits);
            match (r >> 8) % 8 {
                0 => w = w / 1000 * 1000,
                1 => w = 10u64.pow(digits) - 1 - (w % 7),
                2 => w |= 1,
                _ => {}
            }
            // Exponents: mostly small, some across the whole range.
            let q = match (r >> 12) % 4 {
                0 => ((r >> 16) % 700) as i64 - 360,
                1 => ((r >> 16) % 60) as i64 - 30,
                _ => ((r >> 16) % 20) as i64 - 17,
            };
            let t = if k % 2 == 0 { format!("{w}e{q}") } else { format!("{w}.0e{q}") };
            decided += check(&t) as usize;
        }
        // Nearly everything is decided here; a regression to "always declines" fails.
        assert!(decided > total * 9 / 10, "{decided} of {total}");
    }

    /// What `parse_text` gives for `text`, which must equal std's on text
    /// std reads right (short enough, or checked here by other means).
    fn long(text: &str) -> f64 {
        parse_text(text.as_bytes()).unwrap()
    }

    #[test]
    fn long_numbers_are_correctly_rounded() {
        let zeros = "0".repeat(1_000_000);
        // 1 followed by a million zeros, times 10^-1000000; and 0.000..01e1000001: both exactly 1.
        assert_eq!(long(&format!("1{zeros}e-1000000")), 1.0);
        assert_eq!(long(&format!("0.{zeros}1e1000001")), 1.0);
        assert_eq!(long(&format!("-0.{zeros}1e1000001")), -1.0);
        assert_eq!(long(&format!("1{zeros}")), f64::INFINITY);
        assert_eq!(long(&format!("-1{zeros}")), f64::NEG_INFINITY);
        assert_eq!(long(&format!("0.{zeros}1")), 0.0);
        assert_eq!(long(&format!("-0.{zeros}1")).to_bits(), (-0.0f64).to_bits());
        assert_eq!(long(&format!("0.{zeros}")), 0.0);
        assert_eq!(long(&format!("-0.{zeros}e5")).to_bits(), (-0.0f64).to_bits());
        // Exponents far past any count, with leading zeros.
        assert_eq!(long(&format!("1{zeros}e-99999999999999999999999")), 0.0);
        assert_eq!(long(&format!("1{zeros}e+0000000000000000000000000000001")), f64::INFINITY);
        assert_eq!(long(&format!("12.5{zeros}e-{}", "0".repeat(5000) + "1")), 1.25);
        // A mantissa whose rounding is decided by a digit past the kept ones:
        // 2^53 + 1 (a tie, rounds to even) and just above it.
        let tie = format!("9007199254740993.{zeros}");
        assert_eq!(long(&tie), 9007199254740992.0);
        let above = format!("9007199254740993.{zeros}1");
        assert_eq!(long(&above), 9007199254740994.0);
        let below = format!("9007199254740992.{}", "9".repeat(5000));
        assert_eq!(long(&below), 9007199254740992.0);
    }

    #[test]
    fn long_numbers_equal_short_ones() {
        // The same value with and without a long run of zeros around it,
        // over random digits and exponents, including subnormals and the
        // edges of the range.
        let mut rng = Rng::new(0x0123_4567_89ab_cdef);
        let pad = "0".repeat(5000);
        for _ in 0..3000 {
            let digits: String = (0..1 + rng.below(40)).map(|_| (b'0' + rng.below(10) as u8) as char).collect();
            let e = rng.below(700) as i64 - 350;
            let short = format!("{digits}e{e}");
            let want: f64 = short.parse().unwrap();
            let shifted = format!("{pad}{digits}{pad}e{}", e - 5000);
            assert_eq!(long(&shifted).to_bits(), want.to_bits(), "{short}");
            let fraction = format!("0.{pad}{digits}e{}", e + 5000 + digits.len() as i64);
            assert_eq!(long(&fraction).to_bits(), want.to_bits(), "{short}");
        }
    }

    #[test]
    fn random_doubles_round_trip() {
        // Shortest and 17-digit renderings of random doubles parse back exactly.
        let mut rng = Rng::new(0xdead_beef_cafe_f00d);
        for _ in 0..1_000_000 {
            let v = f64::from_bits(rng.next_u64() & 0x7fff_ffff_ffff_ffff);
            if !v.is_finite() {
                continue;
            }
            for t in [format!("{v:e}"), format!("{v:.16e}")] {
                if check(&t) {
                    assert_eq!(ours(&t).unwrap().to_bits(), v.to_bits(), "{t}");
                }
            }
        }
    }
}

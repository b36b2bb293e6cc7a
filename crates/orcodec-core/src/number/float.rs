//! Floats as the shortest text that parses back to the same value, written
//! straight into the output: zmij's digits, in the form orjson writes.

use crate::number::int;
use crate::sink::Sink;

/// Shortest text that parses back to `value`; NaN and infinities become `null`
/// (JSON has no spelling for them, and orjson writes null). Positive exponents
/// carry a `+` (`1e+16`), as orjson writes them. zmij (Schubfach/yy) writes
/// exactly ryu's digits in that form, at a fraction of ryu's cost; the tests
/// hold it to ryu on random doubles.
///
/// Not inlined: in the walker's dict and list loops the inlined body costs
/// registers that the other item kinds pay for, more than the few
/// instructions per float that the call costs.
#[inline(never)]
pub fn write_f64<S: Sink>(out: &mut S, value: f64) {
    if !value.is_finite() {
        out.extend(b"null");
        return;
    }
    if !out.reserve(32) {
        return;
    }
    // SAFETY: 32 bytes reserved just above.
    unsafe {
        let n = f64_in_place(value, out.tail());
        out.advance(n);
    }
}

/// The text of finite `value` written at `dst`; returns its length. A value
/// with at most [`SHORT_DECIMALS`] decimals (prices, measurements, rounded
/// coordinates) is written by [`write_short`], the rest by zmij.
///
/// # Safety
/// `dst` must be writable for 32 bytes.
#[inline(always)]
unsafe fn f64_in_place(value: f64, dst: *mut u8) -> usize {
    let n = write_short(value, dst);
    if n != 0 {
        return n;
    }
    zmij_in_place(value, dst)
}

/// How many floats [`write_f64_in_run`] sends straight to zmij after one
/// that the short path could not take.
const SHORT_PAUSE: u8 = 15;

/// [`write_f64`] for the floats of one document, `pause` carried from one to
/// the next (start it at 0). Documents of long floats (coordinates of 17
/// digits, measured values) would pay the short path's failed check on every
/// float, a tenth of zmij's time: after a float that is not short, the next
/// [`SHORT_PAUSE`] are written by zmij alone, so such documents pay it on
/// one float in sixteen, and documents of short floats on none.
#[inline(never)]
pub fn write_f64_in_run<S: Sink>(out: &mut S, value: f64, pause: &mut u8) {
    if !value.is_finite() {
        out.extend(b"null");
        return;
    }
    if !out.reserve(32) {
        return;
    }
    // SAFETY: 32 bytes reserved just above.
    unsafe {
        let n = finite_in_run(value, out.tail(), pause);
        out.advance(n);
    }
}

/// [`write_f64_in_run`]'s text for any `value` (`null` for NaN and the
/// infinities) written at `dst`, which the caller has reserved; returns its
/// length. For loops that reserve room for many floats at once.
///
/// # Safety
/// `dst` must be writable for [`F64_IN_PLACE_MAX`] bytes.
#[inline(always)]
pub unsafe fn f64_in_run_in_place(value: f64, dst: *mut u8, pause: &mut u8) -> usize {
    if !value.is_finite() {
        core::ptr::copy_nonoverlapping(b"null".as_ptr(), dst, 4);
        return 4;
    }
    finite_in_run(value, dst, pause)
}

/// Room the in-place float writers need at their destination: zmij's
/// buffer (24 bytes) and [`write_short`]'s widest stores, rounded up.
pub const F64_IN_PLACE_MAX: usize = 32;

/// The finite case of [`f64_in_run_in_place`].
///
/// # Safety
/// `dst` must be writable for [`F64_IN_PLACE_MAX`] bytes.
#[inline(always)]
unsafe fn finite_in_run(value: f64, dst: *mut u8, pause: &mut u8) -> usize {
    if *pause == 0 {
        let n = short_out_of_line(value, dst);
        if n != 0 {
            return n;
        }
        *pause = SHORT_PAUSE;
    } else {
        *pause -= 1;
    }
    zmij_in_place(value, dst)
}

/// [`write_short`] as a call of its own, so that the registers it needs are
/// not saved on the way to zmij for every long float.
///
/// # Safety
/// As [`write_short`].
#[inline(never)]
unsafe fn short_out_of_line(value: f64, dst: *mut u8) -> usize {
    write_short(value, dst)
}

/// Most decimals a value takes [`write_short`]'s path with.
pub const SHORT_DECIMALS: u32 = 6;
const SHORT_SCALE: u64 = 1_000_000;
/// Bits of the least and of the first magnitude past the short path's range,
/// [2**-11, 2**32). Below 2**32 a double's rounding interval (one ulp wide at
/// most) is narrower than 10**-6, so it holds one multiple of 10**-6 at most;
/// from 2**-11 up, the scaled difference below fits in an i64.
const SHORT_LOW: u64 = (1023 - 11) << 52;
const SHORT_END: u64 = (1023 + 32) << 52;

/// Writes `value` at `dst` when it is `n / 10**6` correctly rounded for some
/// integer `n` and its magnitude is in [2**-11, 2**32); returns the length,
/// or 0 (nothing meaningful written) for any other value.
///
/// The text is then exactly zmij's (ryu's): the shortest decimal that reads
/// back as `value` lies in its rounding interval, and a decimal shorter than
/// `n`'s digits (trailing zeros dropped) would be another multiple of
/// 10**-6 in that interval, which holds only `n / 10**6`. In this range zmij
/// writes fixed notation (`12.5`, `0.0005`, `3.0`), as done here: the
/// integer part, a point, the decimals without trailing zeros (at least one).
///
/// Whether `n` is found without a division: `value` is `m * 2**-s` with `m`
/// its 53-bit significand, and `n / 10**6` reads back as `value` exactly
/// when `n * 2**s - m * 10**6` lies within the interval's half widths scaled
/// the same way (10**6 / 2 above; below too, but half that when `m` is a
/// power of two, whose lower neighbour is nearer), the ends included only
/// for an even `m` (reading rounds a tie to even).
///
/// # Safety
/// `dst` must be writable for 32 bytes.
#[inline(always)]
pub(crate) unsafe fn write_short(value: f64, dst: *mut u8) -> usize {
    let magnitude = value.to_bits() & !(1 << 63);
    if magnitude.wrapping_sub(SHORT_LOW) >= SHORT_END - SHORT_LOW {
        return 0;
    }
    let x = f64::from_bits(magnitude);
    // The integer nearest x * 10**6, the only candidate (one off at worst
    // near 2**32, where the product's rounding counts: then the check below
    // fails and zmij writes the value).
    // SAFETY: below 2**32 * 10**6 + 1, far inside i64 (one truncating
    // conversion, without the saturation of `as`).
    let n = unsafe { (x * SHORT_SCALE as f64 + 0.5).to_int_unchecked::<i64>() } as u64;
    let m = (magnitude & ((1 << 52) - 1)) | (1 << 52);
    // In 21..=63: the exponent is in [-11, 32).
    let s = 1075 - (magnitude >> 52) as u32;
    // |n * 2**s - m * 10**6| is below 2**63 for this `n` and `s`: exact in
    // wrapping arithmetic.
    let diff = (n << s).wrapping_sub(m.wrapping_mul(SHORT_SCALE)) as i64;
    let even = (m & 1 == 0) as i64;
    let above = (SHORT_SCALE / 2) as i64;
    let below = if m == 1 << 52 { above / 2 } else { above };
    if diff >= above + even || diff <= -below - even {
        return 0;
    }
    let (whole, decimals) = (n / SHORT_SCALE, (n % SHORT_SCALE) as u32);
    // A `-` always written, kept only for a negative value.
    *dst = b'-';
    let mut at = dst.add((value.to_bits() >> 63) as usize);
    at = at.add(int::write_u64(at, whole));
    *at = b'.';
    // The six decimals, zero-padded, in bytes 0-5 (eight digits of a value
    // below 10**6 start with two zeros); those up to the last non-zero one
    // are kept, at least one.
    let digits = int::eight_digits(decimals) >> 16;
    core::ptr::write_unaligned(at.add(1) as *mut u64, digits.to_le());
    let significant = (64 - (digits ^ 0x3030_3030_3030).leading_zeros() as usize).div_ceil(8);
    at.add(1 + significant.max(1)).offset_from(dst) as usize
}

/// zmij's text for `value`, formatted straight into the output (as orjson
/// does) instead of into a `zmij::Buffer` on the stack and then copied.
/// Returns its length.
///
/// # Safety
/// `dst` must be writable for 32 bytes.
#[inline(always)]
pub(crate) unsafe fn zmij_in_place<F: zmij::Float>(value: F, dst: *mut u8) -> usize {
    // A `zmij::Buffer` is its bytes (24 of them): no alignment, no other
    // field, so the reserved bytes can serve as one.
    const _: () = assert!(core::mem::size_of::<zmij::Buffer>() <= 32 && core::mem::align_of::<zmij::Buffer>() == 1);
    // SAFETY: `dst` has room for a Buffer (checked above), which needs no
    // initialisation and no alignment.
    let text = (*(dst as *mut zmij::Buffer)).format_finite(value);
    let (start, len) = (text.as_ptr(), text.len());
    // zmij writes from the start of its bytes; should a later version not,
    // move the text there (never taken today, and predicted so).
    if !core::ptr::eq(start, dst) {
        // SAFETY: both ranges lie in the 32 reserved bytes; `copy` allows overlap.
        core::ptr::copy(start, dst, len);
    }
    len
}

/// As [`write_f64`], for single precision: the shortest text that parses back
/// to the same `f32` (numpy float32), like orjson.
#[inline]
pub fn write_f32<S: Sink>(out: &mut S, value: f32) {
    if !value.is_finite() {
        out.extend(b"null");
        return;
    }
    if !out.reserve(32) {
        return;
    }
    // SAFETY: 32 bytes reserved just above.
    unsafe {
        let n = zmij_in_place(value, out.tail());
        out.advance(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    fn float(x: f64) -> String {
        let mut v = Vec::new();
        write_f64(&mut v, x);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn floats() {
        assert_eq!(float(1.0), "1.0");
        assert_eq!(float(0.1), "0.1");
        assert_eq!(float(-0.0), "-0.0");
        assert_eq!(float(1e16), "1e+16");
        assert_eq!(float(1e-7), "1e-7");
        assert_eq!(float(5e-324), "5e-324");
        assert_eq!(float(f64::MAX), "1.7976931348623157e+308");
        assert_eq!(float(f64::NAN), "null");
        assert_eq!(float(f64::NEG_INFINITY), "null");
    }

    /// ryu's text with orjson's exponent form.
    fn ryu_reference(x: f64) -> String {
        let text = ryu::Buffer::new().format_finite(x).to_string();
        match text.find('e') {
            Some(e) if !text[e + 1..].starts_with('-') => format!("{}e+{}", &text[..e], &text[e + 1..]),
            _ => text,
        }
    }

    #[test]
    fn zmij_writes_ryus_digits_in_orjsons_form() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..2_000_000 {
            let x = rng.next_u64();
            let f = f64::from_bits(x);
            if f.is_finite() {
                assert_eq!(zmij::Buffer::new().format_finite(f), ryu_reference(f), "{:#x}", f.to_bits());
            }
            let g = f32::from_bits(x as u32);
            if g.is_finite() {
                let r = ryu::Buffer::new().format_finite(g).to_string();
                let r = match r.find('e') {
                    Some(e) if !r[e + 1..].starts_with('-') => format!("{}+{}", &r[..=e], &r[e + 1..]),
                    _ => r,
                };
                assert_eq!(zmij::Buffer::new().format_finite(g), r, "{:#x}", g.to_bits());
            }
        }
    }

    /// `write_short`'s text, or None where it leaves the value to zmij.
    fn short(x: f64) -> Option<String> {
        let mut buf = [0u8; 32];
        // SAFETY: 32 bytes.
        let n = unsafe { write_short(x, buf.as_mut_ptr()) };
        (n != 0).then(|| String::from_utf8(buf[..n].to_vec()).unwrap())
    }

    /// The short path gives zmij's bytes, and takes every value it should:
    /// `x` must be short when it is k / 10**d (d <= 6) in the range.
    fn check_short(x: f64, must_take: bool) {
        if !x.is_finite() {
            return;
        }
        let zmij = zmij::Buffer::new().format_finite(x).to_string();
        match short(x) {
            Some(text) => assert_eq!(text, zmij, "{x:e} ({:#x})", x.to_bits()),
            None => assert!(!must_take, "{x:e} ({:#x}) not taken: {zmij}", x.to_bits()),
        }
        assert_eq!(float(x), zmij);
    }

    #[test]
    fn short_decimals_are_written_as_zmij_writes_them() {
        for (x, text) in [
            (12.5, "12.5"),
            (3.99, "3.99"),
            (-3.99, "-3.99"),
            (3.0, "3.0"),
            (0.1, "0.1"),
            (0.0005, "0.0005"),
            (0.000489, "0.000489"),
            (0.123456, "0.123456"),
            (1000.98, "1000.98"),
            (4294967295.999999, "4294967295.999999"),
            (4294967295.0, "4294967295.0"),
            (52.520008, "52.520008"),
        ] {
            assert_eq!(short(x).as_deref(), Some(text), "{x}");
            assert_eq!(float(x), text);
        }
        // Outside the range, or more than six decimals: zmij's.
        for x in [0.0, -0.0, 0.000488, 1e-7, 4294967296.5, 1e15, 0.1234567, 0.30000000000000004, 5e-324] {
            assert_eq!(short(x), None, "{x}");
        }
        assert_eq!(float(0.0004), "0.0004");
        assert_eq!(float(4294967296.5), "4294967296.5");
    }

    #[test]
    fn short_path_agrees_with_zmij() {
        let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
        let range = |x: f64| (2f64.powi(-11)..2f64.powi(32)).contains(&x);
        for _ in 0..1_000_000 {
            let r = rng.next_u64();
            // k / 10**d with d <= 6 decimals: every one in the range must be taken.
            let d = (r % 7) as i32;
            let k =
                (r >> 8) % [1_000, 100_000, 10_000_000, 10_000_000_000, 1_000_000_000_000_000][((r >> 4) % 5) as usize];
            let x = k as f64 / 10f64.powi(d);
            check_short(x, range(x));
            check_short(-x, range(x));
            // Neighbours: short only where the rounding interval still holds
            // the decimal (never for small values, sometimes near 2**32).
            check_short(f64::from_bits(x.to_bits().wrapping_add(1)), false);
            check_short(f64::from_bits(x.to_bits().wrapping_sub(1)), false);
            // Seven decimals: the last digit is never dropped.
            let y = (k | 1) as f64 / 1e7;
            check_short(y, false);
            // Any double near the range.
            let z = f64::from_bits((rng.next_u64() & 0x000F_FFFF_FFFF_FFFF) | ((1000 + rng.next_u64() % 60) << 52));
            check_short(z, false);
        }
        // Powers of two (a nearer lower neighbour) and the ends of the range,
        // with their neighbours.
        for e in -14..36 {
            let p = 2f64.powi(e);
            for x in [p, f64::from_bits(p.to_bits() - 1), f64::from_bits(p.to_bits() + 1)] {
                check_short(x, false);
                check_short(-x, false);
            }
        }
        // Every multiple of 10**-6 around powers of two and ten, and the
        // decimals of the tie cases (an even significand keeps its ends).
        for base in [1.0, 2.0, 8.0, 1024.0, 65536.0, 1e6, 1e9, 2147483648.0, 4294967295.0] {
            for i in -2000i64..2000 {
                // Sums not always correctly rounded decimals: whichever path.
                check_short(base + i as f64 / 1e6, false);
                let x = (base * 1e6 + i as f64) / 1e6;
                check_short(x, range(x));
            }
        }
    }

    #[test]
    fn runs_pause_the_short_path_and_write_the_same_text() {
        // Long floats pause the short path for SHORT_PAUSE floats; the text
        // never depends on which path wrote it.
        let mut rng = Rng::new(0x1234_5678_9ABC_DEF1);
        let mut values = Vec::new();
        for _ in 0..20_000 {
            let r = rng.next_u64();
            let run = 1 + (r % 40) as usize;
            for _ in 0..run {
                let k = rng.next_u64();
                values.push(match r >> 60 {
                    0..=5 => (k % 100_000_000) as f64 / 10f64.powi((k >> 40) as i32 % 7),
                    6..=11 => f64::from_bits((k & 0x000F_FFFF_FFFF_FFFF) | (1030 << 52)),
                    12 => [f64::NAN, f64::INFINITY, -0.0, 0.0][(k % 4) as usize],
                    _ => -((k % 1_000_000) as f64) / 100.0,
                });
            }
        }
        let (mut run_text, mut one_by_one, mut pause) = (Vec::new(), Vec::new(), 0u8);
        let mut paused = 0;
        for &x in &values {
            let before = pause;
            write_f64_in_run(&mut run_text, x, &mut pause);
            write_f64(&mut one_by_one, x);
            run_text.push(b',');
            one_by_one.push(b',');
            if !x.is_finite() {
                // `null`, with the pause left as it was.
                assert_eq!(pause, before);
            } else if before != 0 {
                paused += 1;
                assert_eq!(pause, before - 1);
            } else {
                let mut buf = [0u8; 32];
                // SAFETY: 32 bytes.
                let short = unsafe { write_short(x, buf.as_mut_ptr()) } != 0;
                assert_eq!(pause, if short { 0 } else { SHORT_PAUSE });
            }
        }
        assert!(paused > 10_000, "{paused}");
        assert_eq!(String::from_utf8(run_text).unwrap(), String::from_utf8(one_by_one).unwrap());
    }

    #[test]
    fn floats_match_ryu() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        let check = |x: f64| assert_eq!(float(x), ryu_reference(x), "{x:e} ({:#x})", x.to_bits());
        for x in [
            0.001,
            0.00123,
            0.0009999,
            1e-3,
            999999999999999.0,
            1e15,
            123456789012345.6,
            0.1,
            0.3,
            2.675,
            98.5,
            -98.5,
            3.0,
            -0.5,
        ] {
            check(x);
        }
        for _ in 0..300_000 {
            let r = rng.next_u64();
            // Short decimals of every scale: m / 10**d for small m.
            let m = (r >> 11) % [10, 1000, 100_000, 10_000_000, 1_000_000_000_000_000][(r % 5) as usize];
            let d = ((r >> 5) % 12) as i32;
            let x = m as f64 / 10f64.powi(d);
            check(x);
            check(-x);
            // Their neighbours, with all 17 digits.
            check(f64::from_bits(x.to_bits().wrapping_add(1)));
            // Arbitrary doubles.
            check(f64::from_bits(rng.next_u64()).abs().min(1e300));
            check(f64::from_bits((rng.next_u64() & 0x3FFF_FFFF_FFFF_FFFF) | 0x3F00_0000_0000_0000));
        }
    }
}

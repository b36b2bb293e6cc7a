//! Floats as the shortest text that parses back to the same value, written
//! straight into the output: zmij's digits, in the form orjson writes.

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
        let n = zmij_in_place(value, out.tail());
        out.advance(n);
    }
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

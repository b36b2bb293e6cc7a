//! ISO 8601 durations, the text form of `datetime.timedelta` that msgspec
//! writes and reads: `[+-]P[nD][T[nH][nM][nS]]`.
//!
//! The grammar is msgspec's, so that a text gives the same timedelta in
//! both libraries:
//! - letters in either case; a leading `-` or `+`;
//! - at least one component; those present in the order D, H, M, S, the
//!   time ones after a `T`, which must be followed by one;
//! - leading zeros allowed; a fraction (`.` and digits on both sides) only
//!   on the last component (`PT1.5H`, not `PT1.5H1S`);
//! - Y, W and a month M (before the `T`) are refused as "unsupported":
//!   their length in seconds is not fixed;
//! - the value must be within `timedelta`'s range.
//!
//! A fraction is rounded to the nearest microsecond, half up, from its
//! exact decimal value. msgspec reads 11 of its digits; every text whose
//! fraction has no more than that gives the same value in both. Digits past
//! the 18th are checked and then ignored: a half microsecond of a day
//! (the finest rounding boundary) has 14 decimals, so they can never move
//! the result.

/// `timedelta.max` in whole seconds (its microseconds are 999999 on top).
pub const MAX_SECONDS: i64 = 999_999_999 * 86_400 + 86_399;
/// `timedelta.min` in seconds.
pub const MIN_SECONDS: i64 = -999_999_999 * 86_400;

/// A duration: `seconds` (rounded down) plus `micros` (0 to 999999).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Duration {
    pub seconds: i64,
    pub micros: u32,
}

impl Duration {
    /// `datetime.timedelta`'s normalized fields: days, seconds of the day
    /// (0 to 86399), microseconds.
    pub fn days_seconds_micros(self) -> (i64, u32, u32) {
        (self.seconds.div_euclid(86_400), self.seconds.rem_euclid(86_400) as u32, self.micros)
    }

    /// A number of seconds as msgspec's lax mode reads one: the integral
    /// part, then the fraction rounded to microseconds half away from zero;
    /// None when it is not finite or outside `timedelta`'s range.
    pub fn from_seconds(x: f64) -> Option<Duration> {
        if !x.is_finite() || x > MAX_SECONDS as f64 || x < MIN_SECONDS as f64 {
            return None;
        }
        let whole = x.trunc();
        let micros = ((x - whole) * 1e6).round() as i128;
        Duration::from_micros(whole as i128 * 1_000_000 + micros)
    }

    /// A whole number of seconds, None outside `timedelta`'s range.
    pub fn from_whole_seconds(seconds: i128) -> Option<Duration> {
        Duration::from_micros(seconds.checked_mul(1_000_000)?)
    }

    fn from_micros(total: i128) -> Option<Duration> {
        let seconds = total.div_euclid(1_000_000);
        if seconds > MAX_SECONDS as i128 || seconds < MIN_SECONDS as i128 {
            return None;
        }
        Some(Duration { seconds: seconds as i64, micros: total.rem_euclid(1_000_000) as u32 })
    }
}

/// Why a text is no duration (msgspec's three messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DurationError {
    Invalid,
    OutOfRange,
    /// A Y, W or month component.
    Unsupported,
}

impl DurationError {
    pub fn message(self) -> &'static str {
        match self {
            DurationError::Invalid => "Invalid ISO8601 duration",
            DurationError::OutOfRange => "Duration is out of range",
            DurationError::Unsupported => {
                "Only units 'D', 'H', 'M', and 'S' are supported when parsing ISO8601 durations"
            }
        }
    }
}

/// Where the parse is: the last component read (or the `T`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Last {
    Start,
    D,
    T,
    H,
    M,
    S,
}

/// Fraction digits kept exactly (see the module docs).
const KEPT_FRACTION_DIGITS: u32 = 18;

/// Reads a duration (see the module docs). Errors come in msgspec's order:
/// an integral part too large for any duration is out of range as soon as
/// it is read, a total past the range once its component is read.
pub fn parse_duration(text: &[u8]) -> Result<Duration, DurationError> {
    use DurationError::{Invalid, OutOfRange, Unsupported};
    let end = text.len();
    let mut p = 0;
    let negative = text.first() == Some(&b'-');
    if matches!(text.first(), Some(b'-' | b'+')) {
        p += 1;
    }
    if !matches!(text.get(p), Some(b'P' | b'p')) {
        return Err(Invalid);
    }
    p += 1;
    if p == end {
        return Err(Invalid);
    }
    // Up to MAX_SECONDS, within u64 at every step (each part is checked).
    let mut seconds: u64 = 0;
    let mut micros: u64 = 0;
    let mut last = Last::Start;
    loop {
        let Some(&c) = text.get(p) else { return Err(Invalid) };
        if c == b'T' || c == b't' {
            if last >= Last::T {
                return Err(Invalid);
            }
            last = Last::T;
            p += 1;
            continue;
        }
        if !c.is_ascii_digit() {
            return Err(Invalid);
        }
        let mut x: u64 = 0;
        while let Some(&d) = text.get(p).filter(|d| d.is_ascii_digit()) {
            x = x * 10 + u64::from(d - b'0');
            // Past any duration in any unit (and far from overflowing).
            if x > 1 << 47 {
                return Err(OutOfRange);
            }
            p += 1;
        }
        // The fraction's digits as an integer over 10^digits.
        let mut fraction: Option<(u64, u32)> = None;
        if text.get(p) == Some(&b'.') {
            p += 1;
            if !text.get(p).is_some_and(u8::is_ascii_digit) {
                return Err(Invalid);
            }
            let (mut num, mut digits) = (0u64, 0u32);
            while let Some(&d) = text.get(p).filter(|d| d.is_ascii_digit()) {
                if digits < KEPT_FRACTION_DIGITS {
                    num = num * 10 + u64::from(d - b'0');
                    digits += 1;
                }
                p += 1;
            }
            fraction = Some((num, digits));
        }
        let Some(&unit) = text.get(p) else { return Err(Invalid) };
        p += 1;
        let (this, scale) = match unit {
            b'D' | b'd' => (Last::D, 86_400),
            b'H' | b'h' => (Last::H, 3_600),
            b'M' | b'm' if last < Last::T => return Err(Unsupported),
            b'M' | b'm' => (Last::M, 60),
            b'S' | b's' => (Last::S, 1),
            b'W' | b'w' | b'Y' | b'y' => return Err(Unsupported),
            _ => return Err(Invalid),
        };
        // D before the `T`, the others after it, each once and in order.
        if last >= this || (this != Last::D && last < Last::T) {
            return Err(Invalid);
        }
        last = this;
        // x <= 2^47 and scale <= 86400: the product fits in u64.
        seconds = seconds.checked_add(x * scale).ok_or(OutOfRange)?;
        if let Some((num, digits)) = fraction {
            let den = 10u128.pow(digits);
            // Half up: the exact value in microseconds plus a half, floored.
            let scaled = (u128::from(num) * u128::from(scale) * 1_000_000 + den / 2) / den;
            seconds = seconds.checked_add((scaled / 1_000_000) as u64).ok_or(OutOfRange)?;
            micros = (scaled % 1_000_000) as u64;
        }
        if seconds > MAX_SECONDS as u64 {
            return Err(OutOfRange);
        }
        if p == end {
            break;
        }
        if fraction.is_some() {
            // A fraction is on the last component only.
            return Err(Invalid);
        }
    }
    let total = i128::from(seconds) * 1_000_000 + i128::from(micros);
    Duration::from_micros(if negative { -total } else { total }).ok_or(OutOfRange)
}

/// A duration as msgspec writes it: `P`, the days, `T`, the seconds with
/// the microseconds' digits (trailing zeros dropped), `S`; `P0D` for zero,
/// a `-` before a negative one. For tests and fuzzing (the extension
/// writes no durations).
#[cfg(any(test, fuzzing))]
pub fn format_duration(d: Duration) -> String {
    let total = i128::from(d.seconds) * 1_000_000 + i128::from(d.micros);
    let magnitude = total.unsigned_abs();
    let (seconds, micros) = (magnitude / 1_000_000, (magnitude % 1_000_000) as u32);
    let (days, seconds) = (seconds / 86_400, seconds % 86_400);
    let mut out = String::from(if total < 0 { "-P" } else { "P" });
    if days != 0 {
        out += &format!("{days}D");
    }
    if seconds != 0 || micros != 0 {
        out += &format!("T{seconds}");
        if micros != 0 {
            out += format!(".{micros:06}").trim_end_matches('0');
        }
        out.push('S');
    } else if days == 0 {
        out += "0D";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    type Fields = Result<(i64, u32, u32), DurationError>;

    fn parsed(text: &str) -> Fields {
        parse_duration(text.as_bytes()).map(Duration::days_seconds_micros)
    }

    #[test]
    fn texts_and_values() {
        use DurationError::*;
        let cases: &[(&str, Fields)] = &[
            ("P1D", Ok((1, 0, 0))),
            ("P0D", Ok((0, 0, 0))),
            ("-P0D", Ok((0, 0, 0))),
            ("PT1H", Ok((0, 3600, 0))),
            ("PT36H", Ok((1, 43200, 0))),
            ("P1DT2H3.5S", Ok((1, 7203, 500_000))),
            ("p1dt1h1m1.5s", Ok((1, 3661, 500_000))),
            ("+P1D", Ok((1, 0, 0))),
            ("-P1D", Ok((-1, 0, 0))),
            ("-PT0.000001S", Ok((-1, 86399, 999_999))),
            ("PT0.000001S", Ok((0, 0, 1))),
            ("PT0.0000005S", Ok((0, 0, 1))),
            ("PT0.00000049999999999999999S", Ok((0, 0, 0))),
            ("PT1.9999995S", Ok((0, 2, 0))),
            ("PT1.5H", Ok((0, 5400, 0))),
            ("P0.5D", Ok((0, 43200, 0))),
            ("P001D", Ok((1, 0, 0))),
            // Exact, where msgspec's 11 digits give 666570.
            ("P0.123456789012345D", Ok((0, 10666, 666_571))),
            ("P999999999DT86399.999999S", Ok((999_999_999, 86399, 999_999))),
            ("-P999999999D", Ok((-999_999_999, 0, 0))),
            ("PT86399999999999S", Ok((999_999_999, 86399, 0))),
            ("P999999999DT86399.9999995S", Err(OutOfRange)),
            ("-P999999999DT0.5S", Err(OutOfRange)),
            ("P1000000000D", Err(OutOfRange)),
            ("P140737488355328D", Err(OutOfRange)),
            ("PT140737488355329S", Err(OutOfRange)),
            ("PT99999999999999999999S", Err(OutOfRange)),
            ("P1W", Err(Unsupported)),
            ("P1Y", Err(Unsupported)),
            ("P1M", Err(Unsupported)),
            ("P1W1D", Err(Unsupported)),
            ("", Err(Invalid)),
            ("-", Err(Invalid)),
            ("P", Err(Invalid)),
            ("PT", Err(Invalid)),
            ("P1DT", Err(Invalid)),
            ("P1", Err(Invalid)),
            ("P1.", Err(Invalid)),
            ("PT1.S", Err(Invalid)),
            ("PT.5S", Err(Invalid)),
            ("PT1,5S", Err(Invalid)),
            ("PT1e3S", Err(Invalid)),
            ("P-1D", Err(Invalid)),
            ("PT-1S", Err(Invalid)),
            ("P1D1D", Err(Invalid)),
            ("PT1M1H", Err(Invalid)),
            ("PT1H1H", Err(Invalid)),
            ("PT1S1M", Err(Invalid)),
            ("P1.5DT1H", Err(Invalid)),
            ("PT1.5H1S", Err(Invalid)),
            ("P1H", Err(Invalid)),
            ("P1S", Err(Invalid)),
            ("PTT1S", Err(Invalid)),
            ("P1DT1HT1S", Err(Invalid)),
            (" PT1S", Err(Invalid)),
            ("PT1S ", Err(Invalid)),
            ("PT1S\n", Err(Invalid)),
            ("--P1D", Err(Invalid)),
            ("1", Err(Invalid)),
        ];
        for (text, expected) in cases {
            assert_eq!(parsed(text), *expected, "{text:?}");
        }
    }

    #[test]
    fn seconds_as_the_lax_mode_reads_them() {
        let d = |x: f64| Duration::from_seconds(x).map(Duration::days_seconds_micros);
        assert_eq!(d(1.5), Some((0, 1, 500_000)));
        assert_eq!(d(-1.0), Some((-1, 86399, 0)));
        assert_eq!(d(-0.0000015), Some((-1, 86399, 999_998)));
        assert_eq!(d(86_399_999_999_999.0), Some((999_999_999, 86399, 0)));
        assert_eq!(d(86_399_999_999_999.5), None);
        assert_eq!(d(-86_399_999_913_600.0), Some((-999_999_999, 0, 0)));
        assert_eq!(d(f64::NAN), None);
        assert_eq!(d(f64::INFINITY), None);
        assert_eq!(Duration::from_whole_seconds(i128::from(MAX_SECONDS) + 1), None);
        assert_eq!(Duration::from_whole_seconds(i128::from(u64::MAX)), None);
    }

    #[test]
    fn written_durations_read_back() {
        let mut rng = Rng::new(7);
        for _ in 0..20_000 {
            let span = (i128::from(MAX_SECONDS) - i128::from(MIN_SECONDS)) * 1_000_000;
            let total = i128::from(MIN_SECONDS) * 1_000_000 + (u128::from(rng.next_u64()) << 40) as i128 % span;
            let d = Duration::from_micros(total).unwrap();
            assert_eq!(parse_duration(format_duration(d).as_bytes()), Ok(d), "{d:?}");
        }
        let zero = Duration { seconds: 0, micros: 0 };
        assert_eq!(format_duration(zero), "P0D");
        assert_eq!(format_duration(Duration { seconds: -1, micros: 999_999 }), "-PT0.000001S");
        assert_eq!(format_duration(Duration { seconds: 93_603, micros: 500_000 }), "P1DT7203.5S");
    }
}

//! Text forms read back by typed decoding: RFC 3339 dates, times and
//! datetimes (the forms the writers produce, and the rest of RFC 3339), UUIDs
//! in canonical or 32-digit hex form, and standard base64. Each parser takes
//! the whole text and accepts nothing around it.

use crate::datetime::{civil_from_days, days_from_civil};

/// A calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Date {
    pub year: i32,
    pub month: u8,
    pub day: u8,
}

/// A time of day; `offset` is the UTC offset in seconds when one was given
/// (`Z` and `-00:00` give `Some(0)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Time {
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub microsecond: u32,
    pub offset: Option<i32>,
}

#[inline(always)]
fn digit(b: u8) -> Option<u32> {
    let d = b.wrapping_sub(b'0');
    (d < 10).then_some(d as u32)
}

#[inline(always)]
fn two(text: &[u8], at: usize) -> Option<u32> {
    Some(digit(*text.get(at)?)? * 10 + digit(*text.get(at + 1)?)?)
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `YYYY-MM-DD` at the start of `text`; the date and the rest.
fn date_prefix(text: &[u8]) -> Option<(Date, &[u8])> {
    if text.len() < 10 || text[4] != b'-' || text[7] != b'-' {
        return None;
    }
    let year = (two(text, 0)? * 100 + two(text, 2)?) as i32;
    let month = two(text, 5)?;
    let day = two(text, 8)?;
    if year == 0 || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    Some((Date { year, month: month as u8, day: day as u8 }, &text[10..]))
}

/// `HH:MM:SS[.fraction][Z|±HH:MM]`, the whole of `text`. A fraction of any
/// length is rounded to microseconds (half up); `carry` is set when that
/// rounds up to the next second (23:59:59.9999996 and the like), which only
/// a datetime can absorb.
fn time_all(text: &[u8]) -> Option<(Time, bool)> {
    if text.len() < 8 || text[2] != b':' || text[5] != b':' {
        return None;
    }
    let hour = two(text, 0)?;
    let minute = two(text, 3)?;
    let second = two(text, 6)?;
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut rest = &text[8..];
    let mut microsecond = 0u32;
    let mut carry = false;
    if let [b'.', tail @ ..] = rest {
        let digits = tail.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        for &d in tail[..digits.min(6)].iter() {
            microsecond = microsecond * 10 + (d - b'0') as u32;
        }
        for _ in digits..6 {
            microsecond *= 10;
        }
        if digits > 6 && tail[6] >= b'5' {
            microsecond += 1;
            if microsecond == 1_000_000 {
                microsecond = 0;
                carry = true;
            }
        }
        rest = &tail[digits..];
    }
    let offset = match rest {
        [] => None,
        [b'Z' | b'z'] => Some(0),
        // `±HH:MM`, and `±HHMM` as msgspec also reads it.
        [sign @ (b'+' | b'-'), ..] if rest.len() == 6 && rest[3] == b':' || rest.len() == 5 => {
            let h = two(rest, 1)?;
            let m = two(rest, rest.len() - 2)?;
            if h > 23 || m > 59 {
                return None;
            }
            let seconds = (h * 3600 + m * 60) as i32;
            Some(if *sign == b'-' { -seconds } else { seconds })
        }
        _ => return None,
    };
    Some((Time { hour: hour as u8, minute: minute as u8, second: second as u8, microsecond, offset }, carry))
}

/// An RFC 3339 full date, `YYYY-MM-DD`.
pub fn parse_date(text: &[u8]) -> Option<Date> {
    match date_prefix(text)? {
        (date, []) => Some(date),
        _ => None,
    }
}

/// An RFC 3339 time, `HH:MM:SS[.fraction][Z|±HH:MM]` (no leap seconds); a
/// fraction rounding up to a whole second is refused (a time cannot carry).
pub fn parse_time(text: &[u8]) -> Option<Time> {
    match time_all(text)? {
        (time, false) => Some(time),
        (_, true) => None,
    }
}

/// An RFC 3339 datetime, `YYYY-MM-DD(T|t| )HH:MM:SS[.fraction][Z|±HH:MM]`;
/// the offset may be left out (a naive datetime). A fraction rounding up to
/// the next second carries into the date.
pub fn parse_datetime(text: &[u8]) -> Option<(Date, Time)> {
    let (date, rest) = date_prefix(text)?;
    let (sep, rest) = rest.split_first()?;
    if !matches!(sep, b'T' | b't' | b' ') {
        return None;
    }
    let (mut time, carry) = time_all(rest)?;
    if !carry {
        return Some((date, time));
    }
    let mut seconds = time.hour as i64 * 3600 + time.minute as i64 * 60 + time.second as i64 + 1;
    let mut days = days_from_civil(date.year, date.month as u32, date.day as u32);
    if seconds == 86_400 {
        seconds = 0;
        days += 1;
    }
    let (year, month, day) = civil_from_days(days);
    if year > 9999 {
        return None;
    }
    time.hour = (seconds / 3600) as u8;
    time.minute = (seconds / 60 % 60) as u8;
    time.second = (seconds % 60) as u8;
    Some((Date { year: year as i32, month: month as u8, day: day as u8 }, time))
}

/// Hex digit values, 0xFF for every other byte.
const HEX: [u8; 256] = {
    let mut t = [0xFFu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// A UUID's 128-bit value from its canonical text (8-4-4-4-12 hex digits and
/// hyphens) or 32 hex digits; either case. The digits are gathered first and
/// converted without a branch per digit.
pub fn parse_uuid(text: &[u8]) -> Option<u128> {
    let mut digits = [0u8; 32];
    match text.len() {
        36 => {
            if text[8] != b'-' || text[13] != b'-' || text[18] != b'-' || text[23] != b'-' {
                return None;
            }
            digits[..8].copy_from_slice(&text[..8]);
            digits[8..12].copy_from_slice(&text[9..13]);
            digits[12..16].copy_from_slice(&text[14..18]);
            digits[16..20].copy_from_slice(&text[19..23]);
            digits[20..].copy_from_slice(&text[24..]);
        }
        32 => digits.copy_from_slice(text),
        _ => return None,
    }
    let (mut hi, mut lo, mut bad) = (0u64, 0u64, 0u8);
    for i in 0..16 {
        let (h, l) = (HEX[digits[i] as usize], HEX[digits[i + 16] as usize]);
        bad |= h | l;
        hi = hi << 4 | h as u64;
        lo = lo << 4 | l as u64;
    }
    (bad & 0xF0 == 0).then_some((hi as u128) << 64 | lo as u128)
}

/// How many bytes the standard base64 `text` decodes to, or None when it
/// is no valid base64 (length a multiple of 4, padding only at the end).
pub fn base64_len(text: &[u8]) -> Option<usize> {
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let pad = text.iter().rev().take(2).take_while(|&&b| b == b'=').count();
    Some(text.len() / 4 * 3 - pad)
}

#[inline(always)]
fn b64(b: u8) -> Option<u32> {
    Some(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// Decodes standard base64 `text` (with its `=` padding) into `out`, which
/// holds exactly [`base64_len`] bytes; false if `text` is not valid base64.
/// Bits left over by the padding are ignored, as Python's decoder does.
pub fn base64_decode(text: &[u8], out: &mut [u8]) -> bool {
    if base64_len(text) != Some(out.len()) {
        return false;
    }
    let mut o = 0;
    for chunk in text.chunks_exact(4) {
        let pad = if o + 3 > out.len() { o + 3 - out.len() } else { 0 };
        let mut word = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            let v = if i >= 4 - pad {
                if b != b'=' {
                    return false;
                }
                0
            } else {
                match b64(b) {
                    Some(v) => v,
                    None => return false,
                }
            };
            word = word << 6 | v;
        }
        let bytes = word.to_be_bytes();
        let n = 3 - pad;
        out[o..o + n].copy_from_slice(&bytes[1..1 + n]);
        o += n;
    }
    true
}

/// Whether `text` is a number as JSON spells it (`-?int(.frac)?(e[+-]?exp)?`),
/// and whether it is an integer (no fraction, no exponent).
pub fn json_number_form(text: &[u8]) -> Option<bool> {
    let mut i = 0;
    if text.first() == Some(&b'-') {
        i += 1;
    }
    let int_start = i;
    while i < text.len() && text[i].is_ascii_digit() {
        i += 1;
    }
    let int_len = i - int_start;
    if int_len == 0 || (int_len > 1 && text[int_start] == b'0') {
        return None;
    }
    let mut integer = true;
    if i < text.len() && text[i] == b'.' {
        i += 1;
        let start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
        integer = false;
    }
    if i < text.len() && (text[i] == b'e' || text[i] == b'E') {
        i += 1;
        if i < text.len() && (text[i] == b'+' || text[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
        integer = false;
    }
    (i == text.len()).then_some(integer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(h: u8, m: u8, s: u8, us: u32, offset: Option<i32>) -> Time {
        Time { hour: h, minute: m, second: s, microsecond: us, offset }
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date(b"2024-02-29"), Some(Date { year: 2024, month: 2, day: 29 }));
        assert_eq!(parse_date(b"0001-01-01"), Some(Date { year: 1, month: 1, day: 1 }));
        assert_eq!(parse_date(b"9999-12-31"), Some(Date { year: 9999, month: 12, day: 31 }));
        for bad in [
            &b"2023-02-29"[..],
            b"1900-02-29",
            b"0000-01-01",
            b"2024-13-01",
            b"2024-00-01",
            b"2024-01-32",
            b"2024-04-31",
            b"2024-1-01",
            b"2024-01-01T",
            b"2024/01/01",
            b"",
            b"20240101",
            b"+2024-01-01",
        ] {
            assert_eq!(parse_date(bad), None, "{:?}", core::str::from_utf8(bad));
        }
    }

    #[test]
    fn times() {
        assert_eq!(parse_time(b"10:20:30"), Some(t(10, 20, 30, 0, None)));
        assert_eq!(parse_time(b"10:20:30.5"), Some(t(10, 20, 30, 500_000, None)));
        assert_eq!(parse_time(b"10:20:30.123456Z"), Some(t(10, 20, 30, 123_456, Some(0))));
        assert_eq!(parse_time(b"10:20:30.1234565+01:30"), Some(t(10, 20, 30, 123_457, Some(5400))));
        assert_eq!(parse_time(b"10:20:30.1234564-01:30"), Some(t(10, 20, 30, 123_456, Some(-5400))));
        assert_eq!(parse_time(b"23:59:59.999999"), Some(t(23, 59, 59, 999_999, None)));
        assert_eq!(parse_time(b"10:20:30-00:00"), Some(t(10, 20, 30, 0, Some(0))));
        assert_eq!(parse_time(b"10:20:30+0130"), Some(t(10, 20, 30, 0, Some(5400))));
        for bad in [
            &b"24:00:00"[..],
            b"10:60:00",
            b"10:00:60",
            b"10:00",
            b"10:00:00.",
            b"10:00:00.Z",
            b"10:00:00+24:00",
            b"10:00:00+01:60",
            b"10:00:00+01",
            b"10:00:00+01:0",
            b"10:00:00+1:00",
            b"10:00:00 ",
            b"23:59:59.9999996",
        ] {
            assert_eq!(parse_time(bad), None, "{:?}", core::str::from_utf8(bad));
        }
    }

    #[test]
    fn datetimes() {
        let d = Date { year: 2020, month: 1, day: 1 };
        assert_eq!(parse_datetime(b"2020-01-01T00:00:00"), Some((d, t(0, 0, 0, 0, None))));
        assert_eq!(parse_datetime(b"2020-01-01t00:00:00z"), Some((d, t(0, 0, 0, 0, Some(0)))));
        assert_eq!(parse_datetime(b"2020-01-01 00:00:00+05:45"), Some((d, t(0, 0, 0, 0, Some(20700)))));
        assert_eq!(
            parse_datetime(b"2019-12-31T23:59:59.9999995Z"),
            Some((d, t(0, 0, 0, 0, Some(0)))),
            "a rounded fraction carries into the next year"
        );
        assert_eq!(parse_datetime(b"9999-12-31T23:59:59.9999999Z"), None);
        for bad in [&b"2020-01-01"[..], b"2020-01-01T00:00", b"2020-01-01X00:00:00", b"2020-01-01T00:00:00ZZ"] {
            assert_eq!(parse_datetime(bad), None);
        }
    }

    #[test]
    fn uuids() {
        let v = 0x0123_4567_89ab_cdef_0123_4567_89ab_cdef_u128;
        assert_eq!(parse_uuid(b"01234567-89ab-cdef-0123-456789abcdef"), Some(v));
        assert_eq!(parse_uuid(b"01234567-89AB-CDEF-0123-456789ABCDEF"), Some(v));
        assert_eq!(parse_uuid(b"0123456789abcdef0123456789abcdef"), Some(v));
        for bad in [
            &b"01234567-89ab-cdef-0123-456789abcde"[..],
            b"01234567-89ab-cdef-0123_456789abcdef",
            b"0123456789abcdef0123456789abcdeg",
            b"{01234567-89ab-cdef-0123-456789abcdef}",
            b"",
        ] {
            assert_eq!(parse_uuid(bad), None);
        }
    }

    fn b64_decode(text: &str) -> Option<Vec<u8>> {
        let mut out = vec![0; base64_len(text.as_bytes())?];
        base64_decode(text.as_bytes(), &mut out).then_some(out)
    }

    #[test]
    fn base64() {
        assert_eq!(b64_decode(""), Some(vec![]));
        assert_eq!(b64_decode("YWJj"), Some(b"abc".to_vec()));
        assert_eq!(b64_decode("YWJjZA=="), Some(b"abcd".to_vec()));
        assert_eq!(b64_decode("YWJjZGU="), Some(b"abcde".to_vec()));
        assert_eq!(b64_decode("+/+/"), Some(vec![0xfb, 0xff, 0xbf]));
        for bad in ["YWJ", "YW Jj", "YWJjZA", "_-8=", "Y===", "YW=j", "=AAA"] {
            assert_eq!(b64_decode(bad), None, "{bad}");
        }
        // Every length and byte value round trips against a reference encoder.
        const ALPHA: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for n in 0..40usize {
            let data: Vec<u8> = (0..n).map(|i| (i * 37 + n) as u8).collect();
            let mut text = String::new();
            for chunk in data.chunks(3) {
                let w = (chunk[0] as u32) << 16
                    | (*chunk.get(1).unwrap_or(&0) as u32) << 8
                    | *chunk.get(2).unwrap_or(&0) as u32;
                for i in 0..4 {
                    if i <= chunk.len() {
                        text.push(ALPHA[(w >> (18 - 6 * i) & 63) as usize] as char);
                    } else {
                        text.push('=');
                    }
                }
            }
            assert_eq!(b64_decode(&text), Some(data), "{text}");
        }
    }

    #[test]
    fn json_numbers() {
        assert_eq!(json_number_form(b"0"), Some(true));
        assert_eq!(json_number_form(b"-12"), Some(true));
        assert_eq!(json_number_form(b"1.5"), Some(false));
        assert_eq!(json_number_form(b"1e3"), Some(false));
        assert_eq!(json_number_form(b"-1.5E-3"), Some(false));
        for bad in [&b""[..], b"-", b"01", b"1.", b".5", b"1e", b"+1", b" 1", b"1 ", b"0x10", b"1_000", b"nan"] {
            assert_eq!(json_number_form(bad), None);
        }
    }
}

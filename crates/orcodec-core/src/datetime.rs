//! Dates and times as bytes: RFC 3339 text like orjson's, calendar arithmetic,
//! and the MessagePack timestamp extension's payload. Pure functions of the
//! fields; reading them from Python objects is the extension's business.

use crate::number::int::DIGIT_PAIRS;

/// How to spell times and offsets (the datetime options).
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    /// Leave out the fraction of a second.
    pub omit_microseconds: bool,
    /// Write a zero offset as `Z` rather than `+00:00`.
    pub utc_z: bool,
}

/// Longest text: `YYYY-MM-DDTHH:MM:SS.ffffff+HH:MM`.
pub const MAX_TEXT: usize = 32;

/// Writes RFC 3339 text where it is to end up (the output buffer itself), a
/// fixed-size piece per store: text assembled elsewhere and copied over is
/// read back right after its byte stores, which the store buffer cannot
/// forward, and stalls.
pub struct DateWriter {
    start: *mut u8,
    len: usize,
}

impl DateWriter {
    /// # Safety
    /// `start` must be writable for [`MAX_TEXT`] bytes while the writer is used.
    #[inline(always)]
    pub unsafe fn new(start: *mut u8) -> Self {
        DateWriter { start, len: 0 }
    }

    /// Bytes written so far.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was written yet.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn push(&mut self, b: u8) {
        self.put([b]);
    }

    /// Appends `N` bytes in one store.
    #[inline(always)]
    fn put<const N: usize>(&mut self, bytes: [u8; N]) {
        // A date, `T`, a time with its fraction and an offset are exactly
        // MAX_TEXT; any other sequence of calls that would pass it stops here.
        assert!(self.len + N <= MAX_TEXT);
        // SAFETY: `start` is writable for MAX_TEXT bytes (see `new`), and
        // `len + N <= MAX_TEXT` was checked just above.
        unsafe { (self.start.add(self.len) as *mut [u8; N]).write_unaligned(bytes) };
        self.len += N;
    }

    #[inline(always)]
    pub fn date(&mut self, year: i32, month: i32, day: i32) {
        let y = year as u32;
        let [y0, y1] = pair(y / 100);
        let [y2, y3] = pair(y);
        let [m0, m1] = pair(month as u32);
        let [d0, d1] = pair(day as u32);
        self.put([y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1]);
    }

    #[inline(always)]
    pub fn time(&mut self, hour: i32, minute: i32, second: i32, microsecond: i32, style: Style) {
        let [h0, h1] = pair(hour as u32);
        let [m0, m1] = pair(minute as u32);
        let [s0, s1] = pair(second as u32);
        self.put([h0, h1, b':', m0, m1, b':', s0, s1]);
        if microsecond != 0 && !style.omit_microseconds {
            let us = microsecond as u32;
            let [a0, a1] = pair(us / 10_000);
            let [b0, b1] = pair(us / 100);
            let [c0, c1] = pair(us);
            self.put([b'.', a0, a1, b0, b1, c0, c1]);
        }
    }

    /// `+HH:MM` / `-HH:MM`, or `Z` for a zero offset with `OPT_UTC_Z`.
    /// RFC 3339 offsets have no seconds, so an offset with a seconds part
    /// (local mean time in old zoneinfo data, say) is rounded to the nearest
    /// minute, 30 s up, as orjson and ormsgpack round it, but carrying into
    /// the hours: 3599 s is `+01:00` where they write `+00:60`. The few
    /// offsets of 23:59:30 or more are written `+23:59`: RFC 3339 hours end
    /// at 23.
    #[inline(always)]
    pub fn offset(&mut self, seconds: i32, style: Style) {
        if seconds == 0 && style.utc_z {
            self.push(b'Z');
            return;
        }
        let minutes = ((seconds.unsigned_abs() + 30) / 60).min(MAX_OFFSET_MINUTES);
        let [h0, h1] = pair(minutes / 60);
        let [m0, m1] = pair(minutes % 60);
        self.put([if seconds < 0 { b'-' } else { b'+' }, h0, h1, b':', m0, m1]);
    }
}

/// The largest offset RFC 3339 can write, in minutes: `23:59`.
const MAX_OFFSET_MINUTES: u32 = 23 * 60 + 59;

/// A formatted date/time in a buffer of its own (for map keys, which need
/// the text as a value): ASCII with nothing to escape.
pub struct DateText {
    bytes: [u8; MAX_TEXT],
    len: usize,
}

impl DateText {
    /// The text `write` produces.
    pub fn build(write: impl FnOnce(&mut DateWriter)) -> Self {
        let mut bytes = [0u8; MAX_TEXT];
        // SAFETY: `bytes` holds MAX_TEXT bytes and outlives the writer.
        let mut writer = unsafe { DateWriter::new(bytes.as_mut_ptr()) };
        write(&mut writer);
        let len = writer.len();
        DateText { bytes, len }
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The last two decimal digits of `value`.
#[inline(always)]
fn pair(value: u32) -> [u8; 2] {
    let at = (value % 100) as usize * 2;
    [DIGIT_PAIRS[at], DIGIT_PAIRS[at + 1]]
}

/// Days from 1970-01-01 to the given proleptic Gregorian date.
pub fn days_from_civil(year: i32, month: u32, day: u32) -> i64 {
    // Years start in March so the leap day is the last day of a year.
    let y = year as i64 - (month <= 2) as i64;
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let m = month as i64;
    let day_of_year = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date `days` after 1970-01-01: (year, month, day).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (year_of_era + era * 400 + (month <= 2) as i64, month, day)
}

/// The timestamp extension payload for `seconds` and `nanoseconds`, in the
/// smallest of the three forms that holds them (as the spec lays out).
pub fn timestamp_payload(seconds: i64, nanoseconds: u32, out: &mut [u8; 12]) -> &[u8] {
    if seconds >> 34 == 0 {
        if nanoseconds == 0 && seconds <= u32::MAX as i64 {
            out[..4].copy_from_slice(&(seconds as u32).to_be_bytes());
            return &out[..4];
        }
        let packed = ((nanoseconds as u64) << 34) | seconds as u64;
        out[..8].copy_from_slice(&packed.to_be_bytes());
        return &out[..8];
    }
    out[..4].copy_from_slice(&nanoseconds.to_be_bytes());
    out[4..].copy_from_slice(&seconds.to_be_bytes());
    &out[..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_like_orjson() {
        let style = Style::default();
        let t = DateText::build(|t| {
            t.date(5, 1, 2);
            t.push(b'T');
            t.time(3, 4, 5, 60, style);
            t.offset(-(5 * 3600 + 30 * 60), style);
        });
        assert_eq!(t.as_bytes(), b"0005-01-02T03:04:05.000060-05:30");
        let z = Style { omit_microseconds: true, utc_z: true };
        let t = DateText::build(|t| {
            t.time(23, 59, 59, 999_999, z);
            t.offset(0, z);
        });
        assert_eq!(t.as_bytes(), b"23:59:59Z");
        // Seconds of an offset round to the nearest minute, 30 s up,
        // carrying into the hours (orjson writes `+00:60` for 3599 s); the
        // sign stays; RFC 3339's hours end at 23.
        let t = DateText::build(|t| {
            t.offset(-1, style);
            t.offset(3661, style);
            t.offset(-30, style);
            t.offset(18_029, style);
            t.offset(3599, style);
        });
        assert_eq!(t.as_bytes(), b"-00:00+01:01-00:01+05:00+01:00");
        let t = DateText::build(|t| {
            t.offset(3569, style);
            t.offset(3570, style);
            t.offset(-7199, style);
            t.offset(86_369, style);
            t.offset(86_370, style);
        });
        assert_eq!(t.as_bytes(), b"+00:59+01:00-02:00+23:59+23:59");
        let t = DateText::build(|t| t.offset(-86_399, style));
        assert_eq!(t.as_bytes(), b"-23:59");
        // Every offset Python allows comes out as a valid RFC 3339 offset
        // within 30 s of it.
        for seconds in -86_399..=86_399 {
            let t = DateText::build(|t| t.offset(seconds, style));
            let b = t.as_bytes();
            let (hours, minutes) =
                ((b[1] - b'0') as i32 * 10 + (b[2] - b'0') as i32, (b[4] - b'0') as i32 * 10 + (b[5] - b'0') as i32);
            assert!(hours <= 23 && minutes <= 59 && b[3] == b':', "{seconds}: {b:?}");
            let written = (hours * 3600 + minutes * 60) * if b[0] == b'-' { -1 } else { 1 };
            assert!((written - seconds).abs() <= 30 || seconds.abs() > 86_340, "{seconds}: {b:?}");
        }
        let t = DateText::build(|t| {
            t.date(9999, 12, 31);
            t.push(b'T');
            t.time(23, 59, 59, 999_999, style);
            t.offset(-(23 * 3600 + 59 * 60 + 59), style);
        });
        assert_eq!(t.len, MAX_TEXT);
    }

    #[test]
    #[should_panic]
    fn writing_past_the_longest_text_stops() {
        DateText::build(|t| {
            t.date(2024, 1, 1);
            t.date(2024, 1, 1);
            t.date(2024, 1, 1);
            t.date(2024, 1, 1);
        });
    }

    #[test]
    fn civil_days_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1, 1, 1), -719_162);
        assert_eq!(days_from_civil(9999, 12, 31), 2_932_896);
        for days in (-719_162..=2_932_896).step_by(7) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y as i32, m, d), days);
        }
    }

    #[test]
    fn timestamp_forms() {
        let mut buf = [0u8; 12];
        assert_eq!(timestamp_payload(1, 0, &mut buf), &[0, 0, 0, 1]);
        assert_eq!(timestamp_payload(u32::MAX as i64 + 1, 0, &mut buf).len(), 8);
        assert_eq!(timestamp_payload(0, 5, &mut buf).len(), 8);
        assert_eq!(timestamp_payload(-1, 0, &mut buf).len(), 12);
        assert_eq!(timestamp_payload(1 << 34, 0, &mut buf).len(), 12);
    }
}

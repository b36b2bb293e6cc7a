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

impl Date {
    /// A date `datetime.date` accepts: years 1 to 9999, a real day of the month.
    #[inline(always)]
    pub fn in_range(&self) -> bool {
        // Each range as one unsigned compare, combined without branches;
        // the calendar only for days past 28, which every month has.
        let year = (self.year as u32).wrapping_sub(1) < 9999;
        let month = self.month.wrapping_sub(1) < 12;
        let day = self.day.wrapping_sub(1) < 28
            || self.day >= 1 && self.day as u32 <= days_in_month(self.year, self.month as u32);
        year & month & day
    }
}

impl Time {
    /// A time of day `datetime.time` accepts (no leap second), its offset aside.
    #[inline(always)]
    pub fn in_range(&self) -> bool {
        (self.hour < 24) & (self.minute < 60) & (self.second < 60) & (self.microsecond < 1_000_000)
    }
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

/// The general readers: every form RFC 3339 allows (and `±HHMM`), one byte
/// at a time. The public parsers try a fixed-layout reading of the common
/// shapes first and fall back to these for the rest; these also stand as the
/// reference the fast paths are tested and fuzzed against.
pub mod general {
    use super::*;

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
}

const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of each byte.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Eight bytes from `at`, the first in the low byte.
#[inline(always)]
fn le8(text: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&text[at..at + 8]);
    u64::from_le_bytes(word)
}

/// Four bytes from `at`, the first in the low byte.
#[inline(always)]
fn le4(text: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&text[at..at + 4]);
    u32::from_le_bytes(word)
}

/// The layout of 8 bytes of a date or time: `0` where a digit goes, the
/// byte itself elsewhere. Subtracting it from the text's word leaves each
/// digit's value and 0 for each separator that matched.
struct Layout {
    bytes: u64,
    /// Added to that difference, sets a byte's high bit when the byte is
    /// above 9 (a digit position) or above 0 (a separator).
    slack: u64,
}

impl Layout {
    const fn new(layout: &[u8; 8]) -> Layout {
        let mut slack = [0u8; 8];
        let mut i = 0;
        while i < 8 {
            slack[i] = if layout[i] == b'0' { 0x80 - 10 } else { 0x80 - 1 };
            i += 1;
        }
        Layout { bytes: u64::from_le_bytes(*layout), slack: u64::from_le_bytes(slack) }
    }

    /// The digits' values (separators 0) of `word` (little-endian), or None
    /// when a byte does not fit. A byte below its layout's byte borrows and
    /// leaves its own high bit set; only a byte of at least 0x8A can carry
    /// when the slack is added, and its high bit is set too.
    #[inline(always)]
    fn read(&self, word: u64) -> Option<u64> {
        let v = word.wrapping_sub(self.bytes);
        ((v | v.wrapping_add(self.slack)) & HIGH == 0).then_some(v)
    }
}

const YEAR_MONTH: Layout = Layout::new(b"0000-00-");
const MONTH_DAY: Layout = Layout::new(b"00-00-00");
const DAY_HOUR_MINUTE: Layout = Layout::new(b"00T00:00");
const TIME: Layout = Layout::new(b"00:00:00");
const FRACTION: Layout = Layout::new(b"0.000000");
const OFFSET: Layout = Layout::new(b"00000:00");

/// Byte `i` of the result is the two-digit number of digit values `i` and
/// `i + 1` of `v` (each at most 9, so no byte overflows).
#[inline(always)]
fn pairs(v: u64) -> u64 {
    v * 10 + (v >> 8)
}

#[inline(always)]
fn byte(v: u64, i: u32) -> u32 {
    (v >> (8 * i)) as u32 & 0xFF
}

/// The checks of the general reader, for fields already read as numbers.
#[inline(always)]
fn valid_date(year: u32, month: u32, day: u32) -> Option<Date> {
    let year = year as i32;
    // Days up to 28 exist in every month: no calendar needed.
    if year == 0 || !(1..=12).contains(&month) || day == 0 || day > 28 && day > days_in_month(year, month) {
        return None;
    }
    Some(Date { year, month: month as u8, day: day as u8 })
}

/// `YYYY-MM-DD`, the whole of `text` (10 bytes here), from two overlapping
/// words: `YYYY-MM-` and `YY-MM-DD`.
#[inline(always)]
fn fast_date(text: &[u8]) -> Option<Date> {
    let a = pairs(YEAR_MONTH.read(le8(text, 0))?);
    let b = pairs(MONTH_DAY.read(le8(text, 2))?);
    valid_date(byte(a, 0) * 100 + byte(a, 2), byte(a, 5), byte(b, 6))
}

/// What follows a time's seconds at `text[at..]`, in its common shapes: a
/// fraction of 1 to 9 digits (6 read in one word), then nothing, `Z`/`z` or
/// `±HH:MM`. None for anything else, and for a fraction that rounds up to
/// the next second: the general reader decides those. `at` is at least 8,
/// and `text` at least 8 bytes long.
#[inline(always)]
fn fast_rest(text: &[u8], at: usize) -> Option<(u32, Option<i32>)> {
    /// 10 to the power of the digits a fraction lacks to microseconds.
    const SCALE: [u32; 7] = [1_000_000, 100_000, 10_000, 1_000, 100, 10, 1];
    let mut end = at;
    let mut microsecond = 0;
    if text.get(at) == Some(&b'.') {
        // Six digits and no seventh, the shape the writers produce: the
        // last digit of the seconds, the point and the digits in one word,
        // its first two bytes cleared, then combined in pairs, fours and
        // eight.
        let six = if text.len() >= at + 7 && text.get(at + 7).is_none_or(|b| !b.is_ascii_digit()) {
            FRACTION.read(le8(text, at - 1))
        } else {
            None
        };
        if let Some(v) = six {
            let v = pairs(v & !0xFFFF) & 0x00FF_00FF_00FF_00FF;
            let v = (v * 100 + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
            microsecond = ((v * 10_000 + (v >> 32)) & 0xFFFF_FFFF) as u32;
            end = at + 7;
        } else {
            let tail = &text[at + 1..];
            let digits = tail.iter().take(10).take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 || digits > 9 {
                return None;
            }
            for &d in &tail[..digits.min(6)] {
                microsecond = microsecond * 10 + (d - b'0') as u32;
            }
            microsecond *= SCALE[digits.min(6)];
            if digits > 6 && tail[6] >= b'5' {
                microsecond += 1;
                if microsecond == 1_000_000 {
                    return None;
                }
            }
            end = at + 1 + digits;
        }
    }
    let offset = match text.len() - end {
        0 => None,
        1 if text[end] | 0x20 == b'z' => Some(0),
        6 if matches!(text[end], b'+' | b'-') => {
            // The last 8 bytes, the two before the sign and the sign made
            // digits: `??±HH:MM`.
            let v = pairs(OFFSET.read(le8(text, text.len() - 8) & !0xFF_FFFF | 0x30_3030)?);
            let (h, m) = (byte(v, 3), byte(v, 6));
            if h > 23 || m > 59 {
                return None;
            }
            let seconds = (h * 3600 + m * 60) as i32;
            Some(if text[end] == b'-' { -seconds } else { seconds })
        }
        _ => return None,
    };
    Some((microsecond, offset))
}

/// A time from `HH:MM:SS` at `text[at..at + 8]` (`pairs` of its digits) and
/// what follows it.
#[inline(always)]
fn fast_time_from(text: &[u8], at: usize, v: u64) -> Option<Time> {
    let (hour, minute, second) = (byte(v, 0), byte(v, 3), byte(v, 6));
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let (microsecond, offset) = fast_rest(text, at + 8)?;
    Some(Time { hour: hour as u8, minute: minute as u8, second: second as u8, microsecond, offset })
}

/// An RFC 3339 full date, `YYYY-MM-DD`.
#[inline]
pub fn parse_date(text: &[u8]) -> Option<Date> {
    if text.len() == 10 {
        if let Some(date) = fast_date(text) {
            return Some(date);
        }
    }
    general::parse_date(text)
}

/// An RFC 3339 time, `HH:MM:SS[.fraction][Z|±HH:MM]` (no leap seconds); a
/// fraction rounding up to a whole second is refused (a time cannot carry).
/// Also `±HHMM` offsets.
#[inline]
pub fn parse_time(text: &[u8]) -> Option<Time> {
    if text.len() >= 8 {
        if let Some(time) = TIME.read(le8(text, 0)).and_then(|v| fast_time_from(text, 0, pairs(v))) {
            return Some(time);
        }
    }
    general::parse_time(text)
}

/// An RFC 3339 datetime, `YYYY-MM-DD(T|t| )HH:MM:SS[.fraction][Z|±HH:MM]`;
/// the offset may be left out (a naive datetime), `±HHMM` is read too. A
/// fraction rounding up to the next second carries into the date.
#[inline(always)]
pub fn parse_datetime(text: &[u8]) -> Option<(Date, Time)> {
    #[cfg(target_arch = "x86_64")]
    if (19..=32).contains(&text.len()) && matches!(text[10], b'T' | b't' | b' ') {
        if let Some(found) = datetime_sse2(text) {
            return Some(found);
        }
    }
    datetime_words(text)
}

/// [`parse_datetime`] a 64-bit word at a time for the common shapes, by
/// the general reader for the rest (out of line: on x86-64 it reads the
/// texts the vector reader leaves).
#[inline(never)]
fn datetime_words(text: &[u8]) -> Option<(Date, Time)> {
    if text.len() >= 19 && matches!(text[10], b'T' | b't' | b' ') {
        if let Some(found) = fast_datetime(text) {
            return Some(found);
        }
    }
    general::parse_datetime(text)
}

/// What may follow `HH:MM:SS` in [`datetime_sse2`]: nothing, `Z`, `±HH:MM`.
#[cfg(target_arch = "x86_64")]
const ZONE_SHAPES: usize = 3;
/// The lengths of a datetime's part between its seconds and its zone that
/// [`datetime_sse2`] reads: none, or a point and 1 to 9 digits (1, a point
/// alone, has a layout no text fits).
#[cfg(target_arch = "x86_64")]
const FRACTION_SHAPES: usize = 11;

/// 16 bytes of a datetime's fixed layout, as vectors: `text - layout` leaves
/// a digit's value or 0 for a matching separator, and saturating `limit`
/// (9 for a digit, 0 for a separator, 255 for a byte checked elsewhere) off
/// that leaves 0 where the byte fits. `keep` clears the bytes checked
/// elsewhere; `10 * digit + next digit` at each byte is then at most `max`
/// and at least `min` there (the ranges of the two-digit fields, at their
/// first digit).
#[cfg(target_arch = "x86_64")]
#[repr(C, align(16))]
struct Layout16 {
    layout: [u8; 16],
    limit: [u8; 16],
    keep: [u8; 16],
    max: [u8; 16],
    min: [u8; 16],
}

#[cfg(target_arch = "x86_64")]
impl Layout16 {
    /// The layout of a datetime of every shape [`datetime_sse2`] reads:
    /// `'0'` a digit, `'?'` a byte checked elsewhere (the date-time
    /// separator, `Z` and the offset's sign), each field's range at its
    /// first digit. The text's first 16 bytes and, by zone shape and
    /// fraction part length, its last 16 bytes.
    const fn shape(zone: usize, rest: usize) -> ([u8; 35], [u8; 35], [u8; 35], usize) {
        let mut layout = [0u8; 35];
        let (mut max, mut min) = ([0xFFu8; 35], [0u8; 35]);
        let head = b"0000-00-00?00:00:00";
        let mut n = 0;
        while n < head.len() {
            layout[n] = head[n];
            n += 1;
        }
        (max[5], min[5], max[8], min[8], max[11], max[14], max[17]) = (12, 1, 31, 1, 23, 59, 59);
        if rest == 1 {
            // A point and no digit, which no text fits: a pair at least
            // 255 and at most 0.
            (max[n], min[n]) = (0, 0xFF);
        }
        if rest > 0 {
            layout[n] = b'.';
            n += 1;
            let mut i = 1;
            while i < rest {
                layout[n] = b'0';
                n += 1;
                i += 1;
            }
        }
        let zone_layout: &[u8] = match zone {
            0 => b"",
            1 => b"?",
            _ => b"?00:00",
        };
        if zone == 2 {
            (max[n + 1], max[n + 4]) = (23, 59);
        }
        let mut i = 0;
        while i < zone_layout.len() {
            layout[n] = zone_layout[i];
            n += 1;
            i += 1;
        }
        (layout, max, min, n)
    }

    /// 16 bytes from `at` of [`Layout16::shape`]'s layout.
    const fn new(zone: usize, rest: usize, last: bool) -> Layout16 {
        let (bytes, max, min, n) = Layout16::shape(zone, rest);
        let at = if last { n - 16 } else { 0 };
        let mut out = Layout16 { layout: [0; 16], limit: [0; 16], keep: [0; 16], max: [0; 16], min: [0; 16] };
        let mut i = 0;
        while i < 16 {
            (out.layout[i], out.limit[i], out.keep[i]) = match bytes[at + i] {
                b'0' => (b'0', 9, 0xFF),
                b'?' => (0, 0xFF, 0),
                b => (b, 0, 0xFF),
            };
            (out.max[i], out.min[i]) = (max[at + i], min[at + i]);
            i += 1;
        }
        out
    }
}

/// The layout of a datetime's first 16 bytes, `YYYY-MM-DD?HH:MM`.
#[cfg(target_arch = "x86_64")]
static HEAD16: Layout16 = Layout16::new(0, 0, false);
/// The layouts of a datetime's last 16 bytes, by zone and fraction shape.
#[cfg(target_arch = "x86_64")]
static TAIL16: [[Layout16; FRACTION_SHAPES]; ZONE_SHAPES] = {
    const EMPTY: Layout16 = Layout16 { layout: [0; 16], limit: [0; 16], keep: [0; 16], max: [0; 16], min: [0; 16] };
    let mut out = [const { [EMPTY; FRACTION_SHAPES] }; ZONE_SHAPES];
    let mut zone = 0;
    while zone < ZONE_SHAPES {
        let mut rest = 0;
        while rest < FRACTION_SHAPES {
            out[zone][rest] = Layout16::new(zone, rest, true);
            rest += 1;
        }
        zone += 1;
    }
    out
};

/// [`parse_datetime`] for texts of 19 to 32 bytes in the common shapes (a
/// fraction of up to 9 digits, then nothing, `Z`/`z` or `±HH:MM`), with SSE2
/// (x86-64 baseline): the first and the last 16 bytes checked against their
/// layouts and the two-digit fields against their ranges in one step, the
/// fields then read from the digit pairs. None for anything else, and for a
/// fraction that rounds up to the next second: the general reader decides
/// those. The date-time separator at 10 is checked by the caller.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn datetime_sse2(text: &[u8]) -> Option<(Date, Time)> {
    use crate::json::lex::{sixteen_value, KEEP_LAST};
    use core::arch::x86_64::*;
    /// 10 to the power of the digits a fraction lacks to microseconds.
    const SCALE: [u32; 7] = [1_000_000, 100_000, 10_000, 1_000, 100, 10, 1];
    let n = text.len();
    debug_assert!((19..=32).contains(&n));
    let (zone, zone_len) = if text[n - 1] | 0x20 == b'z' {
        (1, 1)
    } else if matches!(text[n - 6], b'+' | b'-') {
        (2, 6)
    } else {
        (0, 0)
    };
    let rest = (n - 19).checked_sub(zone_len)?;
    if rest >= FRACTION_SHAPES {
        return None;
    }
    let tail = &TAIL16[zone][rest];
    let p = text.as_ptr();
    // SAFETY: SSE2 is part of the x86-64 baseline. The loads from `text` read
    // 16 bytes at 0, at `n - 16` and at `end - 16` (`end`, the fraction's
    // end, at least 20): all inside its `n` bytes, 19 to 32. The layouts are
    // 16-byte aligned statics; `KEEP_LAST` (32 bytes) is read from `digits`,
    // at most 9.
    unsafe {
        let at = |v: &[u8; 16]| _mm_load_si128(v.as_ptr() as *const __m128i);
        // The fields' misfits: nonzero bytes.
        let check = |v: __m128i, l: &Layout16| {
            let d = _mm_sub_epi8(v, at(&l.layout));
            let digits = _mm_and_si128(d, at(&l.keep));
            let pairs = _mm_add_epi8(_mm_mullo_epi16(digits, _mm_set1_epi16(10)), _mm_srli_si128(digits, 1));
            let over = _mm_or_si128(_mm_subs_epu8(d, at(&l.limit)), _mm_subs_epu8(pairs, at(&l.max)));
            (_mm_or_si128(over, _mm_subs_epu8(at(&l.min), pairs)), pairs)
        };
        let (over0, head) = check(_mm_loadu_si128(p as *const __m128i), &HEAD16);
        let (over1, last) = check(_mm_loadu_si128(p.add(n - 16) as *const __m128i), tail);
        if _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(over0, over1), _mm_setzero_si128())) != 0xFFFF {
            return None;
        }
        // `YYYY-MM-` and `DD?HH:MM` as digit pairs.
        let a = _mm_cvtsi128_si64(head) as u64;
        let b = _mm_cvtsi128_si64(_mm_unpackhi_epi64(head, head)) as u64;
        let (year, month, day) = (byte(a, 0) * 100 + byte(a, 2), byte(a, 5), byte(b, 0));
        if year == 0 || day > 28 && day > days_in_month(year as i32, month) {
            return None;
        }
        let second = text[17] as u32 * 10 + text[18] as u32 - b'0' as u32 * 11;
        let mut microsecond = 0;
        if rest > 0 {
            let digits = rest - 1;
            let end = n - zone_len;
            let keep = _mm_loadu_si128(KEEP_LAST.as_ptr().add(digits) as *const __m128i);
            let v = _mm_sub_epi8(_mm_loadu_si128(p.add(end - 16) as *const __m128i), _mm_set1_epi8(b'0' as i8));
            let value = sixteen_value(_mm_and_si128(v, keep));
            microsecond = if digits <= 6 {
                value as u32 * SCALE[digits]
            } else {
                // Rounded half up by the seventh digit.
                let (kept, seventh) = match digits {
                    7 => (value / 10, value % 10),
                    8 => (value / 100, value / 10 % 10),
                    _ => (value / 1000, value / 100 % 10),
                };
                let rounded = kept as u32 + (seventh >= 5) as u32;
                if rounded == 1_000_000 {
                    return None;
                }
                rounded
            };
        }
        let offset = match zone {
            0 => None,
            1 => Some(0),
            _ => {
                // `HH` and `MM` at bytes 11 and 14 of the last 16.
                let v = _mm_cvtsi128_si64(_mm_unpackhi_epi64(last, last)) as u64;
                let seconds = (byte(v, 3) * 3600 + byte(v, 6) * 60) as i32;
                Some(if text[n - 6] == b'-' { -seconds } else { seconds })
            }
        };
        let date = Date { year: year as i32, month: month as u8, day: day as u8 };
        let (hour, minute) = (byte(b, 3) as u8, byte(b, 6) as u8);
        Some((date, Time { hour, minute, second: second as u8, microsecond, offset }))
    }
}

/// `YYYY-MM-DD?HH:MM:SS` and the common shapes of what follows, from three
/// words: `YYYY-MM-`, `DD?HH:MM` (the separator, checked by the caller, made
/// `T`) and `HH:MM:SS`.
#[inline(always)]
fn fast_datetime(text: &[u8]) -> Option<(Date, Time)> {
    let a = pairs(YEAR_MONTH.read(le8(text, 0))?);
    let b = pairs(DAY_HOUR_MINUTE.read(le8(text, 8) & !0xFF_0000 | (b'T' as u64) << 16)?);
    let c = pairs(TIME.read(le8(text, 11))?);
    let date = valid_date(byte(a, 0) * 100 + byte(a, 2), byte(a, 5), byte(b, 0))?;
    Some((date, fast_time_from(text, 11, c)?))
}

/// The value of 8 hex digits (either case) in `x`, the first digit in the
/// high byte; the second value is nonzero when a byte is no hex digit.
#[inline(always)]
fn hex8(x: u64) -> (u64, u64) {
    // Per byte below 0x80, whether it exceeds `c`: adding 0x7F - c sets the
    // byte's high bit exactly then, and never carries into the next byte.
    let above = |v: u64, c: u64| v.wrapping_add((0x7F - c) * ONES) & HIGH;
    let digit = above(x, b'/' as u64) & !above(x, b'9' as u64);
    let lower = x | 0x2020_2020_2020_2020;
    let letter = above(lower, b'`' as u64) & !above(lower, b'f' as u64);
    let bad = x & HIGH | (digit | letter) ^ HIGH;
    // A digit's value is its low nibble, plus 9 for a letter (bit 0x40).
    let mut v = (x & 0x0F0F_0F0F_0F0F_0F0F) + (x >> 6 & ONES) * 9;
    v = (v | v >> 4) & 0x00FF_00FF_00FF_00FF;
    v = (v | v >> 8) & 0x0000_FFFF_0000_FFFF;
    v = (v | v >> 16) & 0xFFFF_FFFF;
    (v, bad)
}

/// Eight bytes from `at`, the first in the high byte.
#[inline(always)]
fn be8(text: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&text[at..at + 8]);
    u64::from_be_bytes(word)
}

/// Four bytes from `at`, the first in the high byte.
#[inline(always)]
fn be4(text: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&text[at..at + 4]);
    u32::from_be_bytes(word) as u64
}

/// A UUID's 128-bit value from its canonical text (8-4-4-4-12 hex digits and
/// hyphens) or 32 hex digits; either case.
#[inline]
pub fn parse_uuid(text: &[u8]) -> Option<u128> {
    #[cfg(target_arch = "x86_64")]
    {
        uuid_sse2(text)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        uuid_words(text)
    }
}

/// [`parse_uuid`] with SSE2 (x86-64 baseline): the 32 digits gathered into
/// two 16-byte vectors by unaligned loads and byte masks, checked by
/// compares and turned into the 16 value bytes by shifts and one pack.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn uuid_sse2(text: &[u8]) -> Option<u128> {
    use core::arch::x86_64::*;
    /// Keeps the first 4 bytes of a vector.
    #[repr(align(16))]
    struct Mask([u8; 16]);
    static FIRST4: Mask = Mask([0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let p = text.as_ptr();
    // SAFETY: SSE2 is part of the x86-64 baseline. Each load reads 16
    // bytes at an offset that leaves them inside `text`: with 36 bytes, the
    // loads at 0, 8, 9, 10, 19 and 20 end at 36 at most; with 32, those at
    // 0 and 16 end at 32. `FIRST4` is 16 bytes, aligned.
    unsafe {
        let load = |at: usize| _mm_loadu_si128(p.add(at) as *const __m128i);
        let (a, b, hyphens_ok) = match text.len() {
            36 => {
                // Hyphens at 8, 13, 18 and 23: bytes 0, 5, 10 and 15 of the
                // 16 from 8.
                let hyphens = _mm_movemask_epi8(_mm_cmpeq_epi8(load(8), _mm_set1_epi8(b'-' as i8))) as u32;
                let first4 = _mm_load_si128(FIRST4.0.as_ptr() as *const __m128i);
                // Bytes 9..13 then 14..: the first four from the load at
                // 9, the rest from the load at 10 (whose fourth byte is the
                // hyphen at 13). The same for 19..23 then 24..36.
                let join = |x: __m128i, y: __m128i| _mm_or_si128(_mm_and_si128(first4, x), _mm_andnot_si128(first4, y));
                let a = _mm_unpacklo_epi64(load(0), join(load(9), load(10)));
                let b = join(load(19), load(20));
                (a, b, hyphens & 0x8421 == 0x8421)
            }
            32 => (load(0), load(16), true),
            _ => return None,
        };
        // A digit is 0x30..=0x39, a letter 0x61..=0x66 with 0x20 set; each
        // range moved to the bottom of the signed bytes, where one signed
        // compare tells it.
        let below = |v: __m128i, from: u8, n: i8| {
            _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(0x80u8.wrapping_sub(from) as i8)), _mm_set1_epi8(-128 + n))
        };
        let letter_a = below(_mm_or_si128(a, _mm_set1_epi8(0x20)), b'a', 6);
        let letter_b = below(_mm_or_si128(b, _mm_set1_epi8(0x20)), b'a', 6);
        let ok = _mm_and_si128(_mm_or_si128(below(a, b'0', 10), letter_a), _mm_or_si128(below(b, b'0', 10), letter_b));
        if _mm_movemask_epi8(ok) != 0xFFFF || !hyphens_ok {
            return None;
        }
        // A digit's value is its low nibble, plus 9 for a letter.
        let low = _mm_set1_epi8(0x0F);
        let nine = _mm_set1_epi8(9);
        let na = _mm_add_epi8(_mm_and_si128(a, low), _mm_and_si128(letter_a, nine));
        let nb = _mm_add_epi8(_mm_and_si128(b, low), _mm_and_si128(letter_b, nine));
        // Each 16-bit lane holds a digit pair, the first in its low byte:
        // first << 4 | second in the low byte, then the lanes packed to bytes.
        let byte =
            |n: __m128i| _mm_and_si128(_mm_or_si128(_mm_slli_epi16(n, 4), _mm_srli_epi16(n, 8)), _mm_set1_epi16(0xFF));
        let bytes = _mm_packus_epi16(byte(na), byte(nb));
        let high = _mm_cvtsi128_si64(bytes) as u64;
        let low = _mm_cvtsi128_si64(_mm_unpackhi_epi64(bytes, bytes)) as u64;
        Some((high.swap_bytes() as u128) << 64 | low.swap_bytes() as u128)
    }
}

/// [`parse_uuid`] a 64-bit word at a time: eight digits checked and
/// converted per word.
#[cfg_attr(all(target_arch = "x86_64", not(any(test, fuzzing))), allow(dead_code))]
pub(crate) fn uuid_words(text: &[u8]) -> Option<u128> {
    let words = match text.len() {
        36 => {
            if text[8] != b'-' || text[13] != b'-' || text[18] != b'-' || text[23] != b'-' {
                return None;
            }
            [be8(text, 0), be4(text, 9) << 32 | be4(text, 14), be4(text, 19) << 32 | be4(text, 24), be8(text, 28)]
        }
        32 => [be8(text, 0), be8(text, 8), be8(text, 16), be8(text, 24)],
        _ => return None,
    };
    let (mut value, mut bad) = (0u128, 0u64);
    for word in words {
        let (v, b) = hex8(word);
        value = value << 32 | v as u128;
        bad |= b;
    }
    (bad == 0).then_some(value)
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

/// A decimal number in plain notation: its sign, its coefficient without
/// leading zeros and its exponent (`-012.50` is `-1250` times 10**-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlainDecimal {
    pub negative: bool,
    pub coefficient: u64,
    pub exponent: i64,
}

/// Most significant digits a [`PlainDecimal`] holds: a coefficient below
/// 10**19, one word of `Decimal`'s own base-10**19 storage.
pub const PLAIN_DECIMAL_DIGITS: usize = 19;

/// Most digits of a [`PlainDecimal`]'s written exponent.
const PLAIN_DECIMAL_EXPONENT_DIGITS: usize = 9;

/// `text` as a [`PlainDecimal`] when it is `-?digits(.digits)?([eE][+-]?digits)?`
/// (leading zeros allowed, as `Decimal()` allows them) with at most
/// [`PLAIN_DECIMAL_DIGITS`] significant digits and an exponent of at most
/// nine digits. None for anything else, including every other text
/// `Decimal()` accepts (a `+`, `.5`, `5.`, spaces, underscores, `NaN`,
/// `Infinity`, longer coefficients): the caller leaves those to `Decimal()`.
#[inline]
pub fn plain_decimal(text: &[u8]) -> Option<PlainDecimal> {
    #[cfg(target_arch = "x86_64")]
    if let Some(found) = short_plain_decimal(text) {
        return Some(found);
    }
    general_decimal::plain_decimal(text)
}

/// The bytes of `text` (4 to 16 of them) as the last bytes of 16, the first
/// ones zero, as the low and high 8: two overlapping loads of the widest
/// size that fits.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn right_aligned16(text: &[u8]) -> (u64, u64) {
    let n = text.len();
    debug_assert!((4..=16).contains(&n));
    // The loads overlap where both hold the same bytes.
    if n >= 8 {
        let low = le8(text, 0).checked_shl(8 * (16 - n) as u32).unwrap_or(0);
        (low, le8(text, n - 8))
    } else {
        (0, (le4(text, n - 4) as u64) << 32 | (le4(text, 0) as u64) << (8 * (8 - n)))
    }
}

/// [`plain_decimal`] for texts of 5 to 16 bytes without an exponent, with
/// SSE2 (x86-64 baseline): the text as the last bytes of a vector, checked
/// by compares, the point taken out by a shift of the digits before it, the
/// coefficient read as sixteen digits. None for anything else (the general
/// reader then decides; it is as quick for up to 4 bytes).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn short_plain_decimal(text: &[u8]) -> Option<PlainDecimal> {
    use crate::json::lex::{sixteen_value, KEEP_LAST};
    use core::arch::x86_64::*;
    if !(5..=16).contains(&text.len()) {
        return None;
    }
    let negative = text[0] == b'-';
    // The digits and the point: the last `n` of the 16 bytes.
    let n = text.len() - negative as usize;
    let body = 0xFFFF_u32 << (16 - n) & 0xFFFF;
    let (low, high) = right_aligned16(text);
    // SAFETY: SSE2 is part of the x86-64 baseline; the loads from
    // `KEEP_LAST` (32 bytes) start at `n` (at most 16) and at `15 - p`
    // (`p`, the point's place, at least 1), so they end inside it.
    unsafe {
        let x = _mm_set_epi64x(high as i64, low as i64);
        let d = _mm_sub_epi8(x, _mm_set1_epi8(b'0' as i8));
        let digits = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_subs_epu8(d, _mm_set1_epi8(9)), _mm_setzero_si128())) as u32;
        let point = _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(b'.' as i8))) as u32;
        // Every byte a digit or the point; one point at most, neither the
        // first nor the last byte.
        if (digits | point) & body != body
            || point & point.wrapping_sub(1) != 0
            || point & (body & !(body << 1) | 1 << 15) != 0
        {
            return None;
        }
        // The sign and the bytes before the text cleared: leading zeros.
        let d = _mm_and_si128(d, _mm_loadu_si128(KEEP_LAST.as_ptr().add(n) as *const __m128i));
        let (v, fraction) = if point == 0 {
            (d, 0)
        } else {
            // The digits before the point moved one byte on, over it.
            let p = point.trailing_zeros() as usize;
            let after = _mm_loadu_si128(KEEP_LAST.as_ptr().add(15 - p) as *const __m128i);
            (_mm_or_si128(_mm_and_si128(after, d), _mm_andnot_si128(after, _mm_slli_si128(d, 1))), 15 - p)
        };
        Some(PlainDecimal { negative, coefficient: sixteen_value(v), exponent: -(fraction as i64) })
    }
}

/// The general reader of plain decimals, one byte at a time: every form
/// [`plain_decimal`] takes, and the reference its fast path is tested against.
pub mod general_decimal {
    use super::{PlainDecimal, PLAIN_DECIMAL_DIGITS, PLAIN_DECIMAL_EXPONENT_DIGITS};

    /// `text` as a [`PlainDecimal`] when it is `-?digits(.digits)?([eE][+-]?digits)?`
    /// (leading zeros allowed, as `Decimal()` allows them) with at most
    /// [`PLAIN_DECIMAL_DIGITS`] significant digits and an exponent of at most
    /// nine digits. None for anything else, including every other text
    /// `Decimal()` accepts (a `+`, `.5`, `5.`, spaces, underscores, `NaN`,
    /// `Infinity`, longer coefficients): the caller leaves those to `Decimal()`.
    #[inline(never)]
    pub fn plain_decimal(text: &[u8]) -> Option<PlainDecimal> {
        /// Takes the digits from `*i` on into `coefficient` (wrapping: the caller
        /// checks their count) and returns how many there were.
        #[inline(always)]
        fn digits(text: &[u8], i: &mut usize, coefficient: &mut u64) -> usize {
            let start = *i;
            while let Some(&b) = text.get(*i) {
                let d = b.wrapping_sub(b'0');
                if d > 9 {
                    break;
                }
                *coefficient = coefficient.wrapping_mul(10).wrapping_add(d as u64);
                *i += 1;
            }
            *i - start
        }
        let negative = text.first() == Some(&b'-');
        let int_start = negative as usize;
        let mut i = int_start;
        let mut coefficient = 0u64;
        let integer = digits(text, &mut i, &mut coefficient);
        if integer == 0 {
            return None;
        }
        let mut fraction = 0;
        if text.get(i) == Some(&b'.') {
            i += 1;
            fraction = digits(text, &mut i, &mut coefficient);
            if fraction == 0 {
                return None;
            }
        }
        // At most 19 digits in all fit whatever they are; more fit only when
        // leading zeros (`000012`, `0.000012`) leave at most 19 significant ones.
        if integer + fraction > PLAIN_DECIMAL_DIGITS {
            let int_end = int_start + integer;
            let fraction_digits = &text[(int_end + 1).min(i)..i];
            let all = text[int_start..int_end].iter().chain(fraction_digits);
            if all.skip_while(|&&b| b == b'0').count() > PLAIN_DECIMAL_DIGITS {
                return None;
            }
        }
        let mut exponent = 0i64;
        if matches!(text.get(i), Some(b'e' | b'E')) {
            i += 1;
            let minus = text.get(i) == Some(&b'-');
            i += matches!(text.get(i), Some(b'+' | b'-')) as usize;
            let start = i;
            while let Some(&b) = text.get(i) {
                if !b.is_ascii_digit() || i - start == PLAIN_DECIMAL_EXPONENT_DIGITS {
                    break;
                }
                exponent = exponent * 10 + (b - b'0') as i64;
                i += 1;
            }
            if i == start {
                return None;
            }
            if minus {
                exponent = -exponent;
            }
        }
        if i != text.len() {
            return None;
        }
        Some(PlainDecimal { negative, coefficient, exponent: exponent - fraction as i64 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(h: u8, m: u8, s: u8, us: u32, offset: Option<i32>) -> Time {
        Time { hour: h, minute: m, second: s, microsecond: us, offset }
    }

    #[test]
    fn ranges_of_the_datetime_types() {
        let date = |year, month, day| Date { year, month, day };
        for ok in [date(1, 1, 1), date(9999, 12, 31), date(2024, 2, 29), date(2000, 2, 29), date(2023, 4, 30)] {
            assert!(ok.in_range(), "{ok:?}");
        }
        for bad in [date(0, 1, 1), date(10000, 1, 1), date(2023, 2, 29), date(1900, 2, 29), date(2023, 4, 31)] {
            assert!(!bad.in_range(), "{bad:?}");
        }
        for bad in [date(2024, 0, 1), date(2024, 13, 1), date(2024, 1, 0), date(-1, 1, 1)] {
            assert!(!bad.in_range(), "{bad:?}");
        }
        let time = |hour, minute, second, microsecond| Time { hour, minute, second, microsecond, offset: None };
        assert!(time(0, 0, 0, 0).in_range() && time(23, 59, 59, 999_999).in_range());
        for bad in [time(24, 0, 0, 0), time(0, 60, 0, 0), time(0, 0, 60, 0), time(0, 0, 0, 1_000_000)] {
            assert!(!bad.in_range(), "{bad:?}");
        }
    }

    #[test]
    fn ranges_at_every_boundary() {
        // Against the ranges written out, for every month and day byte and
        // years around each limit and leap rule.
        for year in [i32::MIN, -1, 0, 1, 2, 4, 100, 400, 1900, 2000, 2023, 2024, 9998, 9999, 10_000, i32::MAX] {
            for month in 0..=255u8 {
                for day in 0..=255u8 {
                    let want = (1..=9999).contains(&year)
                        && (1..=12).contains(&month)
                        && day >= 1
                        && day as u32 <= days_in_month(year, month as u32);
                    assert_eq!(Date { year, month, day }.in_range(), want, "{year}-{month}-{day}");
                }
            }
        }
        let edges = [0u8, 1, 22, 23, 24, 58, 59, 60, 127, 128, 255];
        for hour in edges {
            for minute in edges {
                for second in edges {
                    for microsecond in [0, 999_999, 1_000_000, u32::MAX] {
                        let want = hour < 24 && minute < 60 && second < 60 && microsecond < 1_000_000;
                        let time = Time { hour, minute, second, microsecond, offset: None };
                        assert_eq!(time.in_range(), want, "{time:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn plain_decimals() {
        let d = |negative, coefficient, exponent| Some(PlainDecimal { negative, coefficient, exponent });
        assert_eq!(plain_decimal(b"0"), d(false, 0, 0));
        assert_eq!(plain_decimal(b"-0"), d(true, 0, 0));
        assert_eq!(plain_decimal(b"-012.50"), d(true, 1250, -2));
        assert_eq!(plain_decimal(b"0.000"), d(false, 0, -3));
        assert_eq!(plain_decimal(b"0.00012"), d(false, 12, -5));
        assert_eq!(plain_decimal(b"1E+3"), d(false, 1, 3));
        assert_eq!(plain_decimal(b"1.5e-7"), d(false, 15, -8));
        assert_eq!(plain_decimal(b"25e0"), d(false, 25, 0));
        assert_eq!(plain_decimal(b"7e-000000001"), d(false, 7, -1));
        assert_eq!(plain_decimal(b"1e999999999"), d(false, 1, 999_999_999));
        assert_eq!(plain_decimal(b"9999999999999999999"), d(false, 9_999_999_999_999_999_999, 0));
        assert_eq!(
            plain_decimal(b"-000000000000000000000099999999999999.99999"),
            d(true, 9_999_999_999_999_999_999, -5)
        );
        assert_eq!(plain_decimal(b"1000000000000000000.0"), None, "20 significant digits");
        assert_eq!(plain_decimal(b"0.1000000000000000000"), d(false, 1_000_000_000_000_000_000, -19));
        for other in [
            &b""[..],
            b"-",
            b"+1",
            b".5",
            b"5.",
            b"1.e5",
            b"1e",
            b"1e+",
            b"e5",
            b"1e1000000000",
            b" 1",
            b"1 ",
            b"1_000",
            b"NaN",
            b"Infinity",
            b"--1",
            b"1.2.3",
            b"12345678901234567890",
            b"\xd9\xa1",
        ] {
            assert_eq!(plain_decimal(other), None, "{:?}", String::from_utf8_lossy(other));
        }
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

    /// Texts of every shape the fast paths read, and some they leave to the
    /// general readers.
    const VALID: &[&[u8]] = &[
        b"2024-02-29",
        b"0001-01-01",
        b"9999-12-31",
        b"1900-02-28",
        b"10:20:30",
        b"23:59:59.999999",
        b"00:00:00.5Z",
        b"10:20:30.123456789+01:30",
        b"10:20:30.1234565-23:59",
        b"10:20:30+0130",
        b"2024-01-10T09:01:51.075954+02:00",
        b"2024-01-10t09:01:51z",
        b"2024-01-10 09:01:51.1-00:00",
        b"2019-12-31T23:59:59.9999995Z",
        b"2019-12-31T23:59:59.999999999999Z",
        b"2020-02-28T23:59:59.99999951+05:45",
        b"2020-01-01T00:00:00.000000001",
        b"6513270e-269e-4d37-b2a7-4de452e6b438",
        b"6513270E-269E-4D37-B2A7-4DE452E6B438",
        b"0123456789abcdefABCDEF0123456789",
        b"ffffffff-ffff-ffff-ffff-ffffffffffff",
        b"00000000000000000000000000000000",
        b"2024-01-10T09:01:51.123456789Z",
        b"2024-01-10T09:01:51.12345678-23:59",
        b"2024-01-10T09:01:51+14:00",
        b"2024-01-10 09:01:51.999999",
        b"0123456789ABCDEF0123456789abcdef",
        b"123456.78",
        b"-1234567890123.45",
        b"1234567890123456",
        b"-0.5",
        b"7",
    ];

    #[test]
    fn common_shapes_take_the_fast_paths() {
        // Exact values from the fast readers themselves, so a shape that
        // silently fell back to the general reader would fail here.
        let d = Date { year: 2024, month: 1, day: 10 };
        for (text, us, offset) in [
            (&b"2024-01-10T09:01:51"[..], 0, None),
            (b"2024-01-10t09:01:51.075954+02:00", 75_954, Some(7200)),
            (b"2024-01-10 09:01:51.000001Z", 1, Some(0)),
            (b"2024-01-10T09:01:51.5z", 500_000, Some(0)),
            (b"2024-01-10T09:01:51.123456789-23:59", 123_457, Some(-86_340)),
            (b"2024-01-10T09:01:51.999999-00:00", 999_999, Some(0)),
        ] {
            assert_eq!(fast_datetime(text), Some((d, t(9, 1, 51, us, offset))), "{:?}", core::str::from_utf8(text));
            let time = &text[11..];
            assert_eq!(
                TIME.read(le8(time, 0)).and_then(|v| fast_time_from(time, 0, pairs(v))),
                Some(t(9, 1, 51, us, offset))
            );
        }
        #[cfg(target_arch = "x86_64")]
        for (text, us, offset) in [
            (&b"2024-01-10T09:01:51"[..], 0, None),
            (b"2024-01-10t09:01:51.075954+02:00", 75_954, Some(7200)),
            (b"2024-01-10 09:01:51.000001Z", 1, Some(0)),
            (b"2024-01-10T09:01:51.5z", 500_000, Some(0)),
            (b"2024-01-10T09:01:51.12345678z", 123_457, Some(0)),
            (b"2024-01-10T09:01:51.123456789Z", 123_457, Some(0)),
            (b"2024-01-10T09:01:51.123456789", 123_457, None),
            (b"2024-01-10T09:01:51.1234564", 123_456, None),
            (b"2024-01-10T09:01:51.999999-00:00", 999_999, Some(0)),
            (b"2024-01-10T09:01:51+14:00", 0, Some(50_400)),
            (b"2024-01-10T09:01:51.9-14:00", 900_000, Some(-50_400)),
        ] {
            assert_eq!(datetime_sse2(text), Some((d, t(9, 1, 51, us, offset))), "{:?}", core::str::from_utf8(text));
        }
        assert_eq!(fast_date(b"2024-02-29"), Some(Date { year: 2024, month: 2, day: 29 }));
        assert_eq!(fast_date(b"0001-12-31"), Some(Date { year: 1, month: 12, day: 31 }));
        // Left to the general reader: a carry, `±HHMM`, ten fraction digits.
        assert_eq!(fast_datetime(b"2024-01-10T09:01:59.9999999Z"), None);
        assert_eq!(fast_datetime(b"2024-01-10T09:01:59+0200"), None);
        assert_eq!(fast_datetime(b"2024-01-10T09:01:59.1234567890"), None);
        assert_eq!(parse_datetime(b"2024-01-10T09:01:59+0200"), Some((d, t(9, 1, 59, 0, Some(7200)))));
    }

    #[test]
    fn fast_paths_match_general_for_every_single_byte_change() {
        for &text in VALID {
            crate::testing::text_forms_agree(text);
            let mut t = text.to_vec();
            for i in 0..t.len() {
                for b in 0..=255u8 {
                    t[i] = b;
                    crate::testing::text_forms_agree(&t);
                }
                t[i] = text[i];
            }
            // Cut short and run on at every length.
            for n in 0..=text.len() + 2 {
                let mut t = text[..n.min(text.len())].to_vec();
                t.resize(n, b'0');
                crate::testing::text_forms_agree(&t);
            }
        }
    }

    #[test]
    fn fast_paths_match_general_on_random_texts() {
        let mut rng = crate::testing::Rng::new(0x5eed_7e57);
        const ALPHABET: &[u8] = b"0123456789012345678901234567895969-:.+-TtZz abcdefABCDEFgG\xff";
        for len in 0..=40usize {
            for _ in 0..20_000 {
                let t: Vec<u8> = (0..len).map(|_| ALPHABET[rng.below(ALPHABET.len() as u64) as usize]).collect();
                crate::testing::text_forms_agree(&t);
            }
        }
        // Well-formed shapes with random fields, which reach the range checks.
        for _ in 0..200_000 {
            let mut t = format!(
                "{:04}-{:02}-{:02}{}{:02}:{:02}:{:02}",
                rng.below(10_000),
                rng.below(14),
                rng.below(33),
                ["T", "t", " ", "x"][rng.below(4) as usize],
                rng.below(26),
                rng.below(62),
                rng.below(62)
            );
            let digits = rng.below(13);
            if digits > 0 || rng.below(8) == 0 {
                t.push('.');
                for _ in 0..digits {
                    t.push(if rng.below(3) == 0 { '9' } else { (b'0' + rng.below(10) as u8) as char });
                }
            }
            t.push_str(
                &[
                    String::new(),
                    "Z".into(),
                    "z".into(),
                    format!("+{:02}:{:02}", rng.below(25), rng.below(61)),
                    format!("-{:02}:{:02}", rng.below(25), rng.below(61)),
                    format!("+{:02}{:02}", rng.below(25), rng.below(61)),
                ][rng.below(6) as usize],
            );
            crate::testing::text_forms_agree(t.as_bytes());
            crate::testing::text_forms_agree(&t.as_bytes()[11..]);
            crate::testing::text_forms_agree(&t.as_bytes()[..10]);
        }
        // UUIDs: random values in both forms and both cases, then one byte
        // anywhere swapped for a random one.
        for _ in 0..100_000 {
            let v = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
            let hex = format!("{v:032x}");
            let canonical = format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]);
            for text in [hex.clone(), hex.to_uppercase(), canonical.clone(), canonical.to_uppercase()] {
                assert_eq!(parse_uuid(text.as_bytes()), Some(v), "{text}");
                let mut t = text.into_bytes();
                let i = rng.below(t.len() as u64) as usize;
                t[i] = rng.below(256) as u8;
                crate::testing::text_forms_agree(&t);
            }
        }
    }

    #[test]
    fn fractions_of_every_length_round_as_before() {
        // 1 to 12 digits, with the carry into the second, the day, the year.
        for base in ["2019-12-31T23:59:59", "2024-02-28T23:59:59", "2024-03-10T10:20:30", "23:59:59"] {
            for digits in 1..=12 {
                for fill in [b'0', b'4', b'5', b'9'] {
                    for last in [b'0', b'4', b'5', b'9'] {
                        for zone in ["", "Z", "+01:00", "-0130"] {
                            let mut t = format!("{base}.").into_bytes();
                            t.extend(std::iter::repeat_n(fill, digits - 1));
                            t.push(last);
                            t.extend_from_slice(zone.as_bytes());
                            crate::testing::text_forms_agree(&t);
                        }
                    }
                }
            }
        }
        assert_eq!(
            parse_datetime(b"2024-01-10T09:01:51.075954+02:00"),
            Some((Date { year: 2024, month: 1, day: 10 }, t(9, 1, 51, 75_954, Some(7200))))
        );
        assert_eq!(parse_time(b"09:01:51.0759545"), Some(t(9, 1, 51, 75_955, None)));
        assert_eq!(parse_time(b"09:01:51.075954499"), Some(t(9, 1, 51, 75_954, None)));
        assert_eq!(parse_time(b"09:01:51.1234567890"), Some(t(9, 1, 51, 123_457, None)));
        assert_eq!(parse_time(b"23:59:59.999999500"), None);
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

    #[test]
    fn uuids_every_digit_and_every_bad_byte() {
        // Each digit value at each of the 32 places, both cases, both forms,
        // by the vector reader, the word reader and the general one.
        type Reader = fn(&[u8]) -> Option<u128>;
        let readers: [Reader; 3] = [parse_uuid, uuid_words, general::parse_uuid];
        for place in 0..32 {
            for digit in 0..16u128 {
                let v = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210_u128 & !(0xF << (4 * (31 - place)))
                    | digit << (4 * (31 - place));
                let hex = format!("{v:032x}");
                let canonical =
                    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]);
                for text in [hex.clone(), hex.to_uppercase(), canonical.clone(), canonical.to_uppercase()] {
                    for read in readers {
                        assert_eq!(read(text.as_bytes()), Some(v), "{text}");
                    }
                }
            }
        }
        // A byte no hex digit (or a digit where a hyphen goes) at each place.
        let hex = b"0123456789abcdefABCDEF0123456789";
        let canonical = b"01234567-89ab-cdef-ABCD-EF0123456789";
        for text in [&hex[..], &canonical[..]] {
            for i in 0..text.len() {
                for b in
                    [b'/', b':', b'@', b'G', b'`', b'g', b' ', b'-', b'0', b'a', 0, 0x7F, 0x80, 0xB0, 0xC1, 0xE1, 0xFF]
                {
                    let mut t = text.to_vec();
                    t[i] = b;
                    let fits = if text.len() == 36 && [8, 13, 18, 23].contains(&i) {
                        b == b'-'
                    } else {
                        b.is_ascii_hexdigit()
                    };
                    for read in readers {
                        assert_eq!(read(&t).is_some(), fits, "{:?}", String::from_utf8_lossy(&t));
                    }
                }
            }
        }
        for len in 0..40 {
            if len != 32 && len != 36 {
                let t = vec![b'a'; len];
                assert_eq!(parse_uuid(&t), None);
            }
        }
    }

    #[test]
    fn plain_decimals_at_every_length_and_point() {
        // Every length from 1 to 20 bytes, the point at every place, with
        // and without a sign: the values computed here from the digits.
        const DIGITS: &[u8] = b"98765432109876543210";
        for len in 1..=20usize {
            for point in 0..=len {
                for negative in [false, true] {
                    let mut text = Vec::new();
                    if negative {
                        text.push(b'-');
                    }
                    let digits = &DIGITS[20 - len..];
                    text.extend_from_slice(&digits[..point]);
                    if point < len {
                        text.push(b'.');
                    }
                    text.extend_from_slice(&digits[point..]);
                    let want = if point == 0 || len > 19 {
                        None
                    } else {
                        let coefficient: u64 = core::str::from_utf8(digits).unwrap().parse().unwrap();
                        let exponent = -((len - point) as i64);
                        Some(PlainDecimal { negative, coefficient, exponent })
                    };
                    let shown = String::from_utf8_lossy(&text);
                    assert_eq!(plain_decimal(&text), want, "{shown}");
                    assert_eq!(general_decimal::plain_decimal(&text), want, "{shown}");
                    // One byte anywhere made no digit.
                    for i in 0..text.len() {
                        for b in [b'/', b':', b'x', b' ', b'+', 0, 0x80, 0xB0, 0xFF] {
                            let mut t = text.clone();
                            t[i] = b;
                            assert_eq!(plain_decimal(&t), None, "{:?}", String::from_utf8_lossy(&t));
                        }
                        crate::testing::text_forms_agree(&text[..i]);
                    }
                }
            }
        }
        // Leading zeros, a second point, the sign alone, an exponent after a
        // short form.
        let d = |negative, coefficient, exponent| Some(PlainDecimal { negative, coefficient, exponent });
        assert_eq!(plain_decimal(b"0000000000000001"), d(false, 1, 0));
        assert_eq!(plain_decimal(b"-000000000000.001"), d(true, 1, -3));
        assert_eq!(plain_decimal(b"-0.5"), d(true, 5, -1));
        assert_eq!(plain_decimal(b"123456.78"), d(false, 12_345_678, -2));
        assert_eq!(plain_decimal(b"9999999999999999"), d(false, 9_999_999_999_999_999, 0));
        assert_eq!(plain_decimal(b"1.5e3"), d(false, 15, 2));
        for bad in [&b"1..2"[..], b"1.2.3", b".", b"-", b"-.", b"--1", b"1-", b"-1.", b"-.1", b"1e", b"1.5e+"] {
            assert_eq!(plain_decimal(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn datetimes_of_every_vector_shape() {
        // Each zone after a fraction of each length, read by the vector
        // reader itself: exact values, rounded half up past six digits.
        let d = Date { year: 2024, month: 2, day: 29 };
        for digits in 0..=9usize {
            for (zone, offset) in
                [("", None), ("Z", Some(0)), ("z", Some(0)), ("+05:30", Some(19_800)), ("-23:59", Some(-86_340))]
            {
                for fill in [b'0', b'4', b'5', b'9'] {
                    let mut text = b"2024-02-29T23:59:58".to_vec();
                    let mut fraction = Vec::new();
                    if digits > 0 {
                        text.push(b'.');
                        fraction = (0..digits).map(|i| if i == 0 { b'1' } else { fill }).collect();
                        text.extend_from_slice(&fraction);
                    }
                    text.extend_from_slice(zone.as_bytes());
                    let mut us: u32 = 0;
                    for i in 0..6 {
                        us = us * 10 + fraction.get(i).map_or(0, |&b| (b - b'0') as u32);
                    }
                    if fraction.get(6).is_some_and(|&b| b >= b'5') {
                        us += 1;
                    }
                    let want = Some((d, t(23, 59, 58, us, offset)));
                    let shown = String::from_utf8_lossy(&text).into_owned();
                    if text.len() <= 32 {
                        assert_eq!(datetime_sse2(&text), want, "{shown}");
                    }
                    assert_eq!(parse_datetime(&text), want, "{shown}");
                    assert_eq!(general::parse_datetime(&text), want, "{shown}");
                }
            }
        }
        // The fields at their limits; each one past them falls to the
        // general reader, which refuses it.
        assert_eq!(
            datetime_sse2(b"0001-01-01T00:00:00+00:00"),
            Some((Date { year: 1, month: 1, day: 1 }, t(0, 0, 0, 0, Some(0))))
        );
        assert_eq!(
            datetime_sse2(b"9999-12-31 23:59:59.999999-23:59"),
            Some((Date { year: 9999, month: 12, day: 31 }, t(23, 59, 59, 999_999, Some(-86_340))))
        );
        for bad in [
            &b"0000-01-01T00:00:00"[..],
            b"2024-00-01T00:00:00",
            b"2024-13-01T00:00:00",
            b"2024-01-00T00:00:00",
            b"2024-01-32T00:00:00",
            b"2023-02-29T00:00:00",
            b"2024-04-31T00:00:00",
            b"2024-01-01T24:00:00",
            b"2024-01-01T00:60:00",
            b"2024-01-01T00:00:60",
            b"2024-01-01T00:00:00+24:00",
            b"2024-01-01T00:00:00+00:60",
            b"2024-01-01T00:00:00.",
            b"2024-01-01T00:00:00.Z",
            b"2024-01-01T00:00:00.+01:00",
            b"2024-01-01T00:00:00,5",
            b"2024-01-01T00:00:00*01:00",
            b"2024-01-01T00:00:00+01:00Z",
        ] {
            assert_eq!(datetime_sse2(bad), None, "{:?}", core::str::from_utf8(bad));
            assert_eq!(parse_datetime(bad), None, "{:?}", core::str::from_utf8(bad));
        }
        // Ten fraction digits and a carry into the next second are the
        // general reader's.
        let jan1 = Date { year: 2024, month: 1, day: 1 };
        assert_eq!(datetime_sse2(b"2024-01-01T00:00:00.1234567890Z"), None);
        assert_eq!(parse_datetime(b"2024-01-01T00:00:00.1234567890Z"), Some((jan1, t(0, 0, 0, 123_457, Some(0)))));
        assert_eq!(datetime_sse2(b"2024-01-01T00:00:00.9999995Z"), None);
        assert_eq!(parse_datetime(b"2024-01-01T00:00:00.9999995Z"), Some((jan1, t(0, 0, 1, 0, Some(0)))));
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

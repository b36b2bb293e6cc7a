//! Runs of `\uXXXX` escapes, decoded in one loop.
//!
//! Python's `json.dumps` writes every non-ASCII character as a `\uXXXX`
//! escape by default (`ensure_ascii=True`), and every character beyond the
//! Basic Multilingual Plane as a surrogate pair (`\ud83d\ude00`): text in
//! most languages arrives as escape after escape with short plain runs
//! between them. [`unicode_escapes`] starts at the backslash of a `\u`
//! escape and goes on through escapes and plain runs, 64 input bytes at a
//! time: the masks of a window's backslashes, quotes and control bytes give
//! every escape's place at once, so no escape waits on the one before it
//! (only the output offset runs from one to the next), and each code
//! point's UTF-8 goes straight into the scratch buffer.
//!
//! It never fails: whatever it cannot decode with certainty (hex digits that
//! are not, a lone or reversed surrogate, the end of the input near) it
//! leaves at its backslash, for the one-escape-at-a-time path
//! (`Lex::escape`), which reports it exactly as it would without this loop.
//! It also stops at the closing quote, a control byte, any other escape,
//! and a window without an escape (a long plain run, which the string loop
//! scans a block at a time).

use super::unescape::block_masks;

/// For each of an escape's four digit places, every byte's value as that
/// place's hex digit, already shifted to the place (the first digit is the
/// top nibble); every other byte is `NOT_HEX`, which sets a bit no digit
/// sets. Four loads and three ors give the code unit and its validity, with
/// no shift or check per digit.
static HEX_PLACES: [[u32; 256]; 4] = {
    let mut t = [[NOT_HEX; 256]; 4];
    let mut place = 0;
    while place < 4 {
        let shift = 4 * (3 - place);
        let mut k = 0;
        while k < 16 {
            let v = (k as u32) << shift;
            if k < 10 {
                t[place][b'0' as usize + k] = v;
            } else {
                t[place][b'a' as usize + k - 10] = v;
                t[place][b'A' as usize + k - 10] = v;
            }
            k += 1;
        }
        place += 1;
    }
    t
};

/// What [`HEX_PLACES`] holds for a byte that is not a hex digit: above every
/// four-digit value.
const NOT_HEX: u32 = 0x1_0000;

/// `\u` read as a little-endian 16-bit word.
const BACKSLASH_U: u16 = u16::from_le_bytes(*b"\\u");

/// Bytes of input per window.
const WINDOW: usize = 64;

/// Input the loop needs from a window's start: the window, then what is read
/// from its last byte: the 16-byte copy of a run that starts there, or a
/// surrogate pair (12 bytes).
const NEED: usize = WINDOW - 1 + 16;

/// Spare scratch capacity one window may write into: its bytes, the pair
/// that may run past its end, and a 16-byte store past the end of a run
/// (a code point's 4-byte store reaches less far).
const ROOM: usize = WINDOW + 12 + 16;

#[cfg(any(test, fuzzing))]
thread_local! {
    /// Set by the tests (and fuzz targets) to turn the loop off on their
    /// thread, so that its results can be held to the one-at-a-time path's.
    pub(crate) static OFF: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// The value of the four hex digits at `at`, or `None` when one is not a
/// hex digit. Each digit is a load of its own: cheaper than one word's
/// loads and the shifts that take its bytes apart.
///
/// # Safety
/// `at + 4 <= input.len()`.
#[inline(always)]
unsafe fn hex4(input: &[u8], at: usize) -> Option<u32> {
    // SAFETY: the caller guarantees 4 readable bytes at `at`.
    let d = |place: usize| HEX_PLACES[place][unsafe { *input.get_unchecked(at + place) } as usize];
    let v = d(0) | d(1) | d(2) | d(3);
    if v >= NOT_HEX {
        return None;
    }
    Some(v)
}

/// Whether the two bytes at `at` are `\u`.
///
/// # Safety
/// `at + 2 <= input.len()`.
#[inline(always)]
unsafe fn backslash_u(input: &[u8], at: usize) -> bool {
    // SAFETY: the caller guarantees 2 readable bytes at `at`.
    u16::from_le_bytes(unsafe { core::ptr::read_unaligned(input.as_ptr().add(at) as *const [u8; 2]) }) == BACKSLASH_U
}

/// The code point of the `\u` escape (or surrogate pair) at `p` and the
/// index after it, or `None` for anything else: another escape, hex digits
/// that are not, a surrogate that is not the high half of a pair.
///
/// # Safety
/// `p + 12 <= input.len()`.
#[inline(always)]
unsafe fn escape_at(input: &[u8], p: usize) -> Option<(u32, usize)> {
    // SAFETY: 2 bytes at `p`, below `p + 12 <= input.len()`.
    if !unsafe { backslash_u(input, p) } {
        return None;
    }
    // SAFETY: 4 bytes at `p + 2`, below `p + 12`.
    let first = unsafe { hex4(input, p + 2) }?;
    if first & 0xf800 != 0xd800 {
        return Some((first, p + 6));
    }
    // A surrogate: only a high one followed by `\u` and a low one is a
    // character; anything else is the slow path's to refuse.
    // SAFETY: 2 bytes at `p + 6`, below `p + 12`.
    if first >= 0xdc00 || !unsafe { backslash_u(input, p + 6) } {
        return None;
    }
    // SAFETY: 4 bytes at `p + 8`, below `p + 12`.
    let second = unsafe { hex4(input, p + 8) }?;
    if second & 0xfc00 != 0xdc00 {
        return None;
    }
    Some((0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00), p + 12))
}

/// Writes the UTF-8 of code point `c` (not a surrogate, < 0x110000) at
/// `out` as one store of 1, 2 or 4 bytes, and returns its length: a 3-byte
/// character's store writes one byte more, which the next write covers or
/// the scratch's length leaves out. (`text::put_code_point` writes only
/// the character's bytes: its callers that turn UCS-2 into UTF-8 have room
/// for three bytes a character, not four.)
///
/// # Safety
/// `out` has room for 4 bytes.
#[inline(always)]
unsafe fn put_escaped(out: *mut u8, c: u32) -> usize {
    // SAFETY: the caller guarantees 4 writable bytes at `out`.
    unsafe {
        if c >= 0x800 {
            let (n, w) = if c >= 0x1_0000 {
                (4, 0x8080_80F0 | c >> 18 | (c >> 12 & 0x3F) << 8 | (c >> 6 & 0x3F) << 16 | (c & 0x3F) << 24)
            } else {
                (3, 0x0080_80E0 | c >> 12 | (c >> 6 & 0x3F) << 8 | (c & 0x3F) << 16)
            };
            core::ptr::write_unaligned(out as *mut [u8; 4], w.to_le_bytes());
            n
        } else if c >= 0x80 {
            let w = (0x80C0 | c >> 6 | (c & 0x3F) << 8) as u16;
            core::ptr::write_unaligned(out as *mut [u8; 2], w.to_le_bytes());
            2
        } else {
            *out = c as u8;
            1
        }
    }
}

/// Decodes `\uXXXX` escapes and the plain runs between them from the
/// backslash at `input[i]` (followed by `u`) into `scratch` (appending).
/// Returns where it stopped: the backslash of an escape it left (any other
/// kind, or a `\u` it could not decode with certainty), the closing quote
/// or a control byte, or the end of an escape followed by a window without
/// one; never inside an escape. Returns `i` itself when it did nothing.
#[inline(always)]
pub(super) fn unicode_escapes(input: &[u8], i: usize, scratch: &mut Vec<u8>) -> usize {
    #[cfg(any(test, fuzzing))]
    if OFF.with(|off| off.get()) {
        return i;
    }
    let src = input.as_ptr();
    // `pos`: the first input byte not yet in the scratch; `o`: the scratch's end.
    let mut pos = i;
    let mut o = scratch.len();
    // Each window starts where the last one's output ended.
    'windows: while pos + NEED <= input.len() {
        if scratch.capacity() - o < ROOM {
            // SAFETY: the bytes below `o` are written (below, or before).
            unsafe { scratch.set_len(o) };
            if crate::fallible::reserve(scratch, 4 * ROOM).is_err() {
                // Stopped as before a long run: the caller's own growth
                // then fails with the error.
                return pos;
            }
        }
        let b = pos;
        // SAFETY: `b + NEED <= input.len()`: the window's four 16-byte
        // blocks, each escape's reads (`escape_at` at `p < b + 64`, below
        // `p + 12 < b + NEED`) and each run's 16-byte copy (from `pos <= p`,
        // below `p + 16 <= b + NEED`) are inside the input. Writes stay
        // below `o + ROOM <= capacity`: the window's output is at most its
        // input (a code point is shorter than its escape) with a pair
        // running at most 12 bytes past its end, and each run's 16-byte
        // store and each code point's 4-byte store start before the
        // window's output ends. What is kept is UTF-8: code points, and
        // input runs cut at ASCII bytes (a backslash, an escape's last
        // digit, a quote or control byte).
        unsafe {
            let (mut backslash, mut stop) = (0u64, 0u64);
            for k in 0..4 {
                let (bs, quote, control) = block_masks(src.add(b + 16 * k));
                backslash |= bs << (16 * k);
                stop |= (quote | control) << (16 * k);
            }
            // The escapes before the window's first quote or control byte.
            let mut todo = backslash & stop.wrapping_sub(1) & !stop;
            if todo == 0 {
                // A plain run (then maybe the string's end): the string loop's.
                break;
            }
            let out = scratch.as_mut_ptr();
            while todo != 0 {
                let p = b + todo.trailing_zeros() as usize;
                todo &= todo - 1;
                if p < pos {
                    // The second half of a pair already decoded. (Clearing
                    // its bit instead would make the next escape's place
                    // wait on this one's digits.)
                    continue;
                }
                // The plain run before the escape.
                let run = p - pos;
                if run <= 16 {
                    core::ptr::copy_nonoverlapping(src.add(pos), out.add(o), 16);
                } else {
                    core::ptr::copy_nonoverlapping(src.add(pos), out.add(o), run);
                }
                o += run;
                pos = p;
                let Some((code_point, after)) = escape_at(input, p) else {
                    break 'windows;
                };
                o += put_escaped(out.add(o), code_point);
                pos = after;
            }
            if stop != 0 {
                // The run up to the quote or control byte, which the caller
                // handles, unless an escape ran past it (it cannot: an
                // escape's bytes are neither).
                let at = b + stop.trailing_zeros() as usize;
                if at >= pos {
                    let run = at - pos;
                    core::ptr::copy_nonoverlapping(src.add(pos), out.add(o), run);
                    o += run;
                    pos = at;
                }
                break;
            }
        }
    }
    // SAFETY: the bytes below `o` are written.
    unsafe { scratch.set_len(o) };
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Failure;
    use crate::json::scanner::parse;
    use crate::testing::{with_each_unescape_variant, Echo, Rng};

    type Outcome = Result<String, (String, usize)>;

    fn outcome(json: &[u8]) -> Outcome {
        match parse(json, &mut Echo) {
            Ok(s) => Ok(s),
            Err(Failure::Syntax(e)) => Err((format!("{:?}", e.kind), e.offset)),
            Err(Failure::Build(())) => unreachable!(),
        }
    }

    /// Decodes `json` with the loop off, then on (with every block unescape
    /// variant): all must agree, value or error and offset, with the
    /// one-escape-at-a-time reading.
    fn both_ways(json: &[u8]) -> Outcome {
        OFF.with(|off| off.set(true));
        let want = outcome(json);
        OFF.with(|off| off.set(false));
        assert_eq!(outcome(json), want, "on {:?}", String::from_utf8_lossy(json));
        with_each_unescape_variant(|| {
            assert_eq!(outcome(json), want, "on {:?}", String::from_utf8_lossy(json));
        });
        want
    }

    /// `c` as a `\u` escape (a surrogate pair beyond the BMP), lower- or
    /// upper-case hex.
    fn escaped(c: char, upper: bool) -> String {
        let mut units = [0u16; 2];
        c.encode_utf16(&mut units)
            .iter()
            .map(|u| if upper { format!("\\u{u:04X}") } else { format!("\\u{u:04x}") })
            .collect()
    }

    /// Every class of code point: each UTF-8 length's ends, the surrogate
    /// range's neighbours, what must be escaped in JSON, what only looks special.
    const CHARS: [char; 22] = [
        'a',
        ' ',
        '\0',
        '\u{1f}',
        '"',
        '\\',
        '/',
        '\u{7f}',
        '\u{80}',
        'é',
        '\u{7ff}',
        '\u{800}',
        '中',
        '\u{d7ff}',
        '\u{e000}',
        '\u{feff}',
        '\u{ffff}',
        '\u{10000}',
        '😀',
        '\u{10ffff}',
        '\u{2028}',
        'u',
    ];

    #[test]
    fn every_code_point_class_at_every_offset() {
        for len in 0..72 {
            for &c in &CHARS {
                for at in [0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65] {
                    if at > len {
                        continue;
                    }
                    // Plain text, then the character escaped amid a run of
                    // other escapes, then plain text; strings that end the
                    // input and strings followed by more document.
                    let mut text = String::new();
                    let mut json = String::new();
                    for k in 0..at {
                        let p = (b'a' + (k % 26) as u8) as char;
                        text.push(p);
                        json.push(p);
                    }
                    for (k, d) in [c, 'é', '😀', c, '中', c].into_iter().enumerate() {
                        text.push(d);
                        json.push_str(&escaped(d, k % 2 == 1));
                        if k == 2 {
                            text.push_str(" x");
                            json.push_str(" x");
                        }
                    }
                    for k in at..len {
                        let p = (b'A' + (k % 26) as u8) as char;
                        text.push(p);
                        json.push(p);
                    }
                    for (before, after) in [("[\"", "\"]"), ("{\"k\":\"", "\",\"z\":[1,2,3,4,5,6,7,8,9,10,11,12,13]}")]
                    {
                        let doc = format!("{before}{json}{after}");
                        let got = both_ways(doc.as_bytes());
                        let got = got.unwrap_or_else(|e| panic!("{e:?} on {doc}"));
                        assert!(got.contains(&format!("{text:?}")), "{got} for {text:?} from {doc}");
                    }
                }
            }
        }
    }

    #[test]
    fn pairs_and_bad_surrogates_at_every_offset_of_a_window() {
        // The window starts at the first escape; the pair (or what is not
        // one) starts k bytes into it, across the window's edge for some k,
        // and in the next window for others.
        let pieces = [
            ("\\ud83d\\ude00", Ok("😀")),
            ("\\uDBFF\\uDFFF", Ok("\u{10ffff}")),
            ("\\ud800\\udc00\\ud83d\\ude00", Ok("\u{10000}😀")),
            ("\\ud83d", Err(("LoneSurrogate", 0))),
            ("\\ude00", Err(("LoneSurrogate", 0))),
            ("\\ude00\\ud83d", Err(("LoneSurrogate", 0))),
            ("\\ud83d\\ud83d\\ude00", Err(("LoneSurrogate", 0))),
            ("\\ud83d\\u0041", Err(("LoneSurrogate", 0))),
            ("\\ud83d\\ude0g", Err(("InvalidEscape", 6))),
        ];
        for (piece, text) in pieces {
            for k in 0..2 * WINDOW + 8 {
                for tail in [0, 5, 20, 90] {
                    let plain = "a".repeat(k);
                    let after = "b".repeat(tail);
                    let json = format!("[\"\\u00e9{plain}{piece}{after}\",1]");
                    let got = both_ways(json.as_bytes());
                    // Refused where the one-at-a-time path refuses it: a
                    // surrogate at its backslash, a bad digit at its escape's.
                    let want = text
                        .map(|t| format!("[{:?},u1]", format!("é{plain}{t}{after}")))
                        .map_err(|(kind, at)| (kind.to_string(), 8 + k + at));
                    assert_eq!(got, want, "{json}");
                }
            }
        }
    }

    #[test]
    fn random_mixes_of_escapes_and_plain_text() {
        let mut rng = Rng::new(0x5eed_0f0f);
        for round in 0..20_000 {
            let n = 1 + rng.below(60) as usize;
            let (mut text, mut json) = (String::new(), String::from("\""));
            for _ in 0..n {
                let c = CHARS[rng.below(CHARS.len() as u64) as usize];
                text.push(c);
                match rng.below(8) {
                    // Raw where JSON allows it.
                    0..=2 if !matches!(c, '\0'..='\u{1f}' | '"' | '\\') => json.push(c),
                    // A short escape where the character has one.
                    3 if matches!(c, '"' | '\\' | '/') => {
                        json.push('\\');
                        json.push(c);
                    }
                    k => json.push_str(&escaped(c, k == 7)),
                }
            }
            json.push('"');
            json.extend(std::iter::repeat_n(' ', round % 40));
            assert_eq!(both_ways(json.as_bytes()), Ok(format!("{text:?}")), "{json}");
        }
    }

    /// Surrogate escapes that are not a pair, and escapes that are not hex:
    /// refused as the one-at-a-time path refuses them, at every offset.
    #[test]
    fn bad_escapes_are_refused_as_before() {
        let bad: [&str; 14] = [
            "\\ud800",
            "\\udc00",
            "\\udfff",
            "\\ude00\\ud83d",
            "\\ud83d\\ud83d",
            "\\ud83d\\u0041",
            "\\ud83dx\\ude00",
            "\\ud83d\\n",
            "\\ud83d\\",
            "\\ud83d\\U de00",
            "\\u12g4",
            "\\u00e",
            "\\u-001",
            "\\ud83d\\udg00",
        ];
        for piece in bad {
            for at in 0..40 {
                for tail in [0, 3, 12, 40] {
                    let mut json = String::from("[\"");
                    json.extend((0..at).map(|k| if k % 3 == 0 { "\\u00e9" } else { "a" }));
                    json.push_str(piece);
                    json.push_str("\\u4e2d");
                    json.extend(std::iter::repeat_n('b', tail));
                    json.push_str("\"]");
                    let got = both_ways(json.as_bytes());
                    let (kind, offset) = got.expect_err(&json);
                    let backslash = json.find(piece).unwrap();
                    assert!(
                        kind == "LoneSurrogate" && offset == backslash
                            || kind == "InvalidEscape" && offset >= backslash
                            || kind == "UnexpectedEnd",
                        "{kind} at {offset} for {json}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_loop_takes_whole_runs() {
        // What json.dumps writes for "café 😀 中文 " * 20: one call decodes it
        // all, up to the closing quote.
        let text = "café 😀 中文 ".repeat(20);
        let json: String = text.chars().map(|c| if c.is_ascii() { c.to_string() } else { escaped(c, false) }).collect();
        let input = format!("{}\"{}", &json[3..], " ".repeat(NEED));
        let first = input.find('\\').unwrap();
        let mut scratch = b"caf".to_vec();
        scratch.extend_from_slice(&input.as_bytes()[..first]);
        let end = unicode_escapes(input.as_bytes(), first, &mut scratch);
        assert_eq!(&input[end..end + 1], "\"");
        assert_eq!(String::from_utf8(scratch).unwrap(), text);
        // A plain run through a whole window is left at its start; a simple
        // escape at its backslash; a lone surrogate at its backslash.
        let long = format!("\\u00e9{}\\u00e9\"", "a".repeat(WINDOW));
        let cases = [
            (long.as_str(), 6),
            ("\\u00e9abcdefghijklmnopq\"", 23),
            ("\\u00e9ab\\n\"", 8),
            ("\\u00e9\\ud800\"", 6),
            ("\\u00e9\\ude00\\ud800\"", 6),
            ("\\u00e9\\\\u00e9\"", 6),
        ];
        for (json, stop) in cases {
            let input = format!("{json}{}", " ".repeat(NEED));
            let mut scratch = Vec::new();
            assert_eq!(unicode_escapes(input.as_bytes(), 0, &mut scratch), stop, "{json}");
        }
        // Too near the end: nothing done.
        let mut scratch = Vec::new();
        assert_eq!(unicode_escapes(b"\\u00e9\"", 0, &mut scratch), 0);
        assert!(scratch.is_empty());
    }

    #[test]
    fn hex_digits() {
        // SAFETY: every call below passes four bytes.
        let hex = |digits: &[u8]| unsafe { hex4(digits, 0) };
        for w in 0..=0xffff_u32 {
            assert_eq!(hex(format!("{w:04x}").as_bytes()), Some(w));
            assert_eq!(hex(format!("{w:04X}").as_bytes()), Some(w));
        }
        for bad in [*b"000g", *b"g000", *b"00 0", *b"0x00", *b"/000", *b":000", *b"@000", *b"G000", *b"`000"] {
            assert_eq!(hex(&bad), None, "{:?}", std::str::from_utf8(&bad));
        }
        for place in 0..4 {
            for b in 0..=255u8 {
                let mut digits = *b"0000";
                digits[place] = b;
                let want = (b as char).to_digit(16).map(|d| d << (4 * (3 - place)));
                assert_eq!(hex(&digits), want, "{b} at {place}");
            }
        }
    }

    #[test]
    fn code_points_written_as_the_standard_library_writes_them() {
        // Every code point but the surrogates, each over bytes that were
        // not zero (the 3-byte store writes one byte more).
        for c in (0..0xd800_u32).chain(0xe000..0x11_0000) {
            let mut out = [0xAA_u8; 4];
            // SAFETY: four bytes of room.
            let n = unsafe { put_escaped(out.as_mut_ptr(), c) };
            let mut want = [0u8; 4];
            let want = char::from_u32(c).unwrap().encode_utf8(&mut want).as_bytes();
            assert_eq!(&out[..n], want, "U+{c:04X}");
        }
    }
}

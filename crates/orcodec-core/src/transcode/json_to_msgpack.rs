//! JSON text to MessagePack: the bytes `packb(loads(data))` gives, with no
//! value built. See the module docs of [`transcode`](super) for how counts
//! and repeated keys are handled.

use super::keys::{Entry, Keys, MapKeys};
use super::{check, grow, no_memory, push, splice_repeat, Output, TranscodeError, Unsupported, MAX_ENCODE_DEPTH};
use crate::json::pull::{JsonKind, JsonNumberValue, JsonPull};
use crate::msgpack::writer::{write_ascii, write_f64, write_i64, write_str, write_u64, MAX_LEN};
use crate::text::Text;

/// An open array or map.
struct Frame {
    is_map: bool,
    /// Offset of its header's place, `reserved` bytes.
    header: usize,
    reserved: u8,
    /// Its slot in the header size hints.
    hint: usize,
    /// Items (or distinct entries) so far.
    count: usize,
    /// Where its patches start in the patch list.
    patches: usize,
    keys: MapKeys,
    /// For the entry being read: the earlier entry (index in the map) whose
    /// key it repeats, and where it starts; and a word of its key, which
    /// tells the hint slot of a container that is its value (its head
    /// word and length).
    repeats: Option<usize>,
    entry_start: usize,
    value_start: usize,
    key_word: u64,
}

/// A container whose header did not fit the place reserved for it: written
/// at the end, when the bytes after it move.
#[derive(Clone, Copy, Debug)]
struct Patch {
    /// Offset of its place, `reserved` bytes.
    at: usize,
    reserved: u8,
    count: usize,
    is_map: bool,
}

/// Slots in the table of header size hints.
const HINTS: usize = 1024;

/// The working memory of [`json_to_msgpack`], which a caller that
/// transcodes often keeps between calls. It also learns the header sizes
/// containers had (by depth and the key they are the value of), which
/// guesses the next document's.
pub struct JsonToMsgpack {
    frames: Vec<Frame>,
    keys: Keys,
    patches: Vec<Patch>,
    shifts: Vec<isize>,
    tmp: Vec<u8>,
    unescape: Vec<u8>,
    hints: Vec<u8>,
}

impl Default for JsonToMsgpack {
    fn default() -> Self {
        JsonToMsgpack {
            frames: Vec::new(),
            keys: Keys::default(),
            patches: Vec::new(),
            shifts: Vec::new(),
            tmp: Vec::new(),
            unescape: Vec::new(),
            hints: vec![1; HINTS],
        }
    }
}

impl JsonToMsgpack {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes of memory held (a caller may drop a large one).
    pub fn capacity_bytes(&self) -> usize {
        self.frames.capacity() * core::mem::size_of::<Frame>()
            + self.keys.entries.capacity() * core::mem::size_of::<Entry>()
            + self.patches.capacity() * core::mem::size_of::<Patch>()
            + self.shifts.capacity() * core::mem::size_of::<isize>()
            + self.tmp.capacity()
            + self.unescape.capacity()
            + self.hints.len()
    }
}

/// Header bytes of a container of `count` items.
#[inline(always)]
fn header_len(count: usize) -> usize {
    match count {
        0..=15 => 1,
        16..=0xffff => 3,
        _ => 5,
    }
}

/// Writes the header of a container of `count` items in `len` bytes at `at`.
#[inline(always)]
fn put_header(bytes: &mut [u8], at: usize, len: usize, count: usize, is_map: bool) {
    match len {
        1 => bytes[at] = if is_map { 0x80 } else { 0x90 } | count as u8,
        3 => {
            bytes[at] = if is_map { 0xde } else { 0xdc };
            bytes[at + 1..at + 3].copy_from_slice(&(count as u16).to_be_bytes());
        }
        _ => {
            bytes[at] = if is_map { 0xdf } else { 0xdd };
            bytes[at + 1..at + 5].copy_from_slice(&(count as u32).to_be_bytes());
        }
    }
}

/// The hint slot of a container at `depth` that is the value of a key
/// (`key_word`) or an array item (`key_word` 0): containers in the same
/// place of like documents tend to have like sizes.
#[inline(always)]
fn hint_slot(depth: usize, key_word: u64) -> usize {
    let h = (key_word ^ depth as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> 54) as usize & (HINTS - 1)
}

/// Writes JSON text `input` as MessagePack to `out`: the bytes
/// `packb(loads(input))` gives. `state` is working memory (any, kept or new).
pub fn json_to_msgpack<O: Output>(input: &[u8], out: &mut O, state: &mut JsonToMsgpack) -> Result<(), TranscodeError> {
    state.frames.clear();
    state.keys.clear();
    state.keys.texts_in_input = false;
    state.patches.clear();
    let mut p = JsonPull::new(input)?;
    let unescape = core::mem::take(&mut state.unescape);
    p.replace_scratch(unescape);
    let result = run(&mut p, out, state);
    state.unescape = p.replace_scratch(Vec::new());
    result
}

fn run<O: Output>(p: &mut JsonPull<'_>, out: &mut O, s: &mut JsonToMsgpack) -> Result<(), TranscodeError> {
    let JsonToMsgpack { frames, keys, patches, shifts, tmp, hints, .. } = s;
    'value: loop {
        // A value starts here.
        match p.peek()? {
            JsonKind::String => {
                let at = p.pos();
                if let Some(end) = short_str(p.input(), at + 1, out) {
                    p.skip_to(end + 1);
                } else {
                    let text = p.str()?;
                    if text.len() > MAX_LEN {
                        return Err(TranscodeError::Unsupported(Unsupported::TooLong, at));
                    }
                    utf8(out, text.as_bytes());
                }
            }
            JsonKind::Number => {
                let at = p.pos();
                match p.number()?.value {
                    JsonNumberValue::U64(v) => write_u64(out, v),
                    JsonNumberValue::I64(v) => write_i64(out, v),
                    // `loads` refuses a number beyond the doubles (as orjson).
                    JsonNumberValue::F64(v) if v.is_infinite() => {
                        return Err(TranscodeError::Decode(crate::error::DecodeError::new(
                            crate::error::DecodeErrorKind::NumberOutOfRange,
                            at,
                        )));
                    }
                    JsonNumberValue::F64(v) => write_f64(out, v),
                }
            }
            JsonKind::Null => {
                p.null()?;
                out.push(0xc0);
            }
            JsonKind::True | JsonKind::False => {
                let v = p.bool()?;
                out.push(0xc2 | v as u8);
            }
            kind @ (JsonKind::Array | JsonKind::Object) => {
                let depth = frames.len();
                if depth >= MAX_ENCODE_DEPTH {
                    return Err(TranscodeError::Unsupported(Unsupported::Depth, p.pos()));
                }
                let is_map = kind == JsonKind::Object;
                let header = out.len();
                let any = if is_map {
                    p.begin_object()?;
                    p.entry_follows(true)?
                } else {
                    p.begin_array()?;
                    p.next_item(true)?
                };
                if !any {
                    // Empty.
                    out.push(if is_map { 0x80 } else { 0x90 });
                    end_value(frames, p, out, patches, keys, tmp, hints)?;
                    if frames.is_empty() {
                        p.finish()?;
                        return finish(out, patches, shifts);
                    }
                    continue 'value;
                }
                let parent_word = frames.last().map_or(0, |f| if f.is_map { f.key_word } else { 0 });
                let hint = hint_slot(depth, parent_word);
                let reserved = hints[hint];
                for _ in 0..reserved {
                    out.push(0);
                }
                push(
                    frames,
                    Frame {
                        is_map,
                        header,
                        reserved,
                        hint,
                        count: 0,
                        patches: patches.len(),
                        keys: keys.open(),
                        repeats: None,
                        entry_start: 0,
                        value_start: 0,
                        key_word: 0,
                    },
                )?;
                if is_map {
                    if let Some(frame) = frames.last_mut() {
                        start_entry(frame, keys, p, out)?;
                    }
                }
                continue 'value;
            }
        }
        end_value(frames, p, out, patches, keys, tmp, hints)?;
        if frames.is_empty() {
            p.finish()?;
            return finish(out, patches, shifts);
        }
    }
}

/// A value ended: goes on with its container (past the separator, or the
/// next key), closing those it completes, until a value is to be read or
/// the document ended (no frame left).
#[inline(always)]
fn end_value<O: Output>(
    frames: &mut Vec<Frame>,
    p: &mut JsonPull<'_>,
    out: &mut O,
    patches: &mut Vec<Patch>,
    keys: &mut Keys,
    tmp: &mut Vec<u8>,
    hints: &mut [u8],
) -> Result<(), TranscodeError> {
    loop {
        let Some(frame) = frames.last_mut() else {
            return Ok(());
        };
        if frame.is_map {
            end_entry(frame, keys, patches, tmp, out)?;
            if p.entry_follows(false)? {
                return start_entry(frame, keys, p, out);
            }
        } else {
            frame.count += 1;
            if p.next_item(false)? {
                return Ok(());
            }
        }
        // `]` or `}`: the header, in its place if the guess was right.
        let (header, reserved, hint, count, is_map, map) =
            (frame.header, frame.reserved, frame.hint, frame.count, frame.is_map, frame.keys);
        frames.pop();
        keys.close(map);
        if count > MAX_LEN {
            return Err(TranscodeError::Unsupported(Unsupported::TooLong, p.pos() - 1));
        }
        check(out)?;
        let len = header_len(count);
        hints[hint] = len as u8;
        if len == reserved as usize {
            put_header(out.written(), header, len, count, is_map);
        } else {
            crate::fallible::push(patches, Patch { at: header, reserved, count, is_map }).map_err(|_| no_memory())?;
        }
    }
}

/// The string lane: a string (`start` just past its opening quote) with no
/// escape is written as str in one pass, its blocks stored whole after the
/// header while they are checked (the bytes past its end are overwritten by
/// what follows, or lie past the output's end): one of fewer than 32 bytes
/// (fixstr) from two 16-byte blocks, a longer one by [`long_str`]. Returns
/// where its closing quote is; None (and nothing written) at an escape or a
/// control byte, when a block would run past the input, or when the output
/// has too little room (it is not grown for this): the reader's own path
/// then reads the string. The input is UTF-8 already (checked whole first),
/// so a string with no escape and no control byte is its own text.
#[inline(always)]
fn short_str<O: Output>(input: &[u8], start: usize, out: &mut O) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        if start + 32 > input.len() || out.room() < 33 {
            return None;
        }
        // SAFETY: SSE2 is part of the x86-64 baseline. The loads read
        // `start..start + 32`, inside `input` (checked above); the stores
        // write 32 bytes at `tail() + 1`, and the header one at `tail()`,
        // within the 33 bytes of room (checked above); `advance` marks
        // `1 + len <= 32` of them, all written.
        unsafe {
            let p = input.as_ptr().add(start);
            let v0 = _mm_loadu_si128(p as *const __m128i);
            let v1 = _mm_loadu_si128(p.add(16) as *const __m128i);
            let (s0, q0) = special_and_quotes(v0);
            let (s1, q1) = special_and_quotes(v1);
            let special = s0 | s1 << 16;
            let quotes = q0 | q1 << 16;
            if special == 0 {
                return long_str(input, start, out, v0, v1);
            }
            // The length from the quotes alone, so that where the next
            // token starts waits on no more than their compare; checked
            // apart: no other special byte before that quote.
            let len = quotes.trailing_zeros() as usize;
            if quotes == 0 || special & ((1 << len) - 1) != 0 {
                return None;
            }
            let at = out.tail();
            _mm_storeu_si128(at.add(1) as *mut __m128i, v0);
            _mm_storeu_si128(at.add(17) as *mut __m128i, v1);
            *at = 0xa0 | len as u8;
            out.advance(1 + len);
            Some(start + len)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (input, start, out);
        None
    }
}

/// The masks (bit k for byte k) of the special bytes of a block (a quote, a
/// backslash or a control byte) and of its quotes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn special_and_quotes(v: core::arch::x86_64::__m128i) -> (u32, u32) {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
    unsafe {
        let quotes = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        // A control byte is one with min(byte, 0x1f) == byte (unsigned).
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        let special = _mm_or_si128(_mm_or_si128(quotes, _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8))), control);
        (_mm_movemask_epi8(special) as u32, _mm_movemask_epi8(quotes) as u32)
    }
}

/// Strings of str8 length (under 256 bytes, their first 32 bytes `v0`,
/// `v1` with no special byte) are scanned on 16 bytes at a time and each
/// block stored after a 2-byte header as it is checked (the lane needs 256
/// bytes of input from `start` and of room). Longer ones, or where there is
/// not that much, are scanned on by the reader's scan and copied after.
/// Returns and writes as [`short_str`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn long_str<O: Output>(
    input: &[u8],
    start: usize,
    out: &mut O,
    v0: core::arch::x86_64::__m128i,
    v1: core::arch::x86_64::__m128i,
) -> Option<usize> {
    use core::arch::x86_64::*;
    /// The bytes the lane reads and stores past the header.
    const LANE: usize = 256;
    if start + LANE <= input.len() && out.room() >= 2 + LANE {
        // SAFETY: SSE2 is part of the x86-64 baseline. The loads read
        // 16 bytes at `start + i` for `i + 16 <= LANE`, inside `input`
        // (checked above); the stores write 16 bytes at `tail() + 2 + i`
        // for `i + 16 <= LANE`, and the header the 2 bytes at `tail()`,
        // within the `2 + LANE` bytes of room (checked above); `advance`
        // marks `2 + len <= 2 + LANE` of them, all written.
        unsafe {
            let p = input.as_ptr().add(start);
            let at = out.tail();
            _mm_storeu_si128(at.add(2) as *mut __m128i, v0);
            _mm_storeu_si128(at.add(18) as *mut __m128i, v1);
            let mut i = 32;
            while i < LANE {
                let v = _mm_loadu_si128(p.add(i) as *const __m128i);
                _mm_storeu_si128(at.add(2 + i) as *mut __m128i, v);
                let (special, quotes) = special_and_quotes(v);
                if special != 0 {
                    let k = special.trailing_zeros();
                    if quotes & (1 << k) == 0 {
                        return None;
                    }
                    let len = i + k as usize;
                    *at = 0xd9;
                    *at.add(1) = len as u8;
                    out.advance(2 + len);
                    return Some(start + len);
                }
                i += 16;
            }
        }
    }
    let end = crate::json::lex::find_special_after_block(input, start + 32)?;
    if input[end] != b'"' || end - start > MAX_LEN {
        return None;
    }
    write_ascii(out, &input[start..end]);
    Some(end)
}

/// Writes UTF-8 text as str (short ones with no call to copy them).
#[inline(always)]
fn utf8<O: Output>(out: &mut O, text: &[u8]) {
    // Text that is UTF-8 already has nothing to refuse.
    let _ = write_str(out, Text::Utf8(text));
}

/// Reads the key of a map entry (`p` at it) and its colon, writes the key
/// and looks it up among the map's keys.
#[inline(always)]
fn start_entry<O: Output>(
    frame: &mut Frame,
    keys: &mut Keys,
    p: &mut JsonPull<'_>,
    out: &mut O,
) -> Result<(), TranscodeError> {
    let entry_start = out.len();
    let input = p.input();
    let at = p.pos();
    let short = match input.get(at) {
        Some(b'"') => short_str(input, at + 1, out),
        _ => None,
    };
    let key = match short {
        Some(end) => {
            p.skip_to(end + 1);
            p.colon()?;
            &input[at + 1..end]
        }
        None => {
            let key = p.key()?.as_bytes();
            if key.len() > MAX_LEN {
                return Err(TranscodeError::Unsupported(Unsupported::TooLong, at));
            }
            utf8(out, key);
            key
        }
    };
    check(out)?;
    let value_start = out.len();
    let start = value_start - key.len();
    frame.entry_start = entry_start;
    frame.value_start = value_start;
    let head = super::keys::head_word(key);
    frame.key_word = head ^ (key.len() as u64) << 56;
    frame.repeats =
        keys.find_or_add_head(&mut frame.keys, start, key, head, entry_start, entry_start, value_start, out.written())?;
    Ok(())
}

/// The value of a map entry ended: a new key counts; a repeated one puts
/// its value in place of the earlier one's.
#[inline(always)]
fn end_entry<O: Output>(
    frame: &mut Frame,
    keys: &mut Keys,
    patches: &mut Vec<Patch>,
    tmp: &mut Vec<u8>,
    out: &mut O,
) -> Result<(), TranscodeError> {
    let Some(j) = frame.repeats else {
        frame.count += 1;
        return Ok(());
    };
    let (entry_start, value_start) = (frame.entry_start, frame.value_start);
    let (old, delta) = splice_repeat(keys, frame.keys, j, entry_start, value_start, tmp, out)?;
    // Patches of containers in the replaced value go, those after it move,
    // and those of the new value move with it.
    let mut i = frame.patches;
    while i < patches.len() {
        let at = patches[i].at;
        if old.contains(&at) {
            patches.swap_remove(i);
            continue;
        }
        if at >= value_start {
            patches[i].at = at - value_start + old.start;
        } else if at >= old.end {
            debug_assert!(at < entry_start);
            patches[i].at = at.wrapping_add_signed(delta);
        }
        i += 1;
    }
    Ok(())
}

/// Writes the headers that did not fit their place: the output grows (or
/// shrinks) by the difference, and the bytes after each such header move,
/// each byte once: those that move down first, front to back, then those
/// that move up, back to front (neither run overwrites bytes still to move:
/// their new places keep their order).
fn finish<O: Output>(out: &mut O, patches: &mut [Patch], shifts: &mut Vec<isize>) -> Result<(), TranscodeError> {
    check(out)?;
    if patches.is_empty() {
        return Ok(());
    }
    patches.sort_unstable_by_key(|p| p.at);
    // shifts[k]: how far segment k moves (segment 0 is before the first
    // patch, segment k after patch k-1).
    shifts.clear();
    crate::fallible::reserve(shifts, patches.len() + 1).map_err(|_| no_memory())?;
    crate::fallible::push(shifts, 0).map_err(|_| no_memory())?;
    let mut total = 0isize;
    for p in patches.iter() {
        total += header_len(p.count) as isize - p.reserved as isize;
        crate::fallible::push(shifts, total).map_err(|_| no_memory())?;
    }
    let old_len = out.len();
    if total > 0 {
        grow(out, total as usize)?;
    }
    let bytes = out.written();
    let segment = |k: usize| -> core::ops::Range<usize> {
        let start = if k == 0 { 0 } else { patches[k - 1].at + patches[k - 1].reserved as usize };
        let end = if k == patches.len() { old_len } else { patches[k].at };
        start..end
    };
    for (k, &shift) in shifts.iter().enumerate().skip(1) {
        if shift < 0 {
            let range = segment(k);
            let to = range.start.wrapping_add_signed(shift);
            bytes.copy_within(range, to);
        }
    }
    for (k, &shift) in shifts.iter().enumerate().skip(1).rev() {
        if shift > 0 {
            let range = segment(k);
            let to = range.start.wrapping_add_signed(shift);
            bytes.copy_within(range, to);
        }
    }
    for (k, p) in patches.iter().enumerate() {
        let at = p.at.wrapping_add_signed(shifts[k]);
        put_header(bytes, at, header_len(p.count), p.count, p.is_map);
    }
    if total < 0 {
        out.truncate(old_len - total.unsigned_abs());
    }
    Ok(())
}

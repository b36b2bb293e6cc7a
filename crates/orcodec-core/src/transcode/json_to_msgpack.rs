//! JSON text to MessagePack: the bytes `packb(loads(data))` gives, with no
//! value built. See the module docs of [`transcode`](super) for how counts
//! and repeated keys are handled.

use super::keys::{Entry, Keys, MapKeys};
use super::{check, grow, no_memory, push, splice_repeat, Output, TranscodeError, Unsupported, MAX_ENCODE_DEPTH};
use crate::json::pull::{JsonKind, JsonNumberValue, JsonPull};
use crate::msgpack::writer::{write_f64, write_i64, write_str, write_u64, MAX_LEN};
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
    /// tells the hint slot of a container that is its value.
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
                let text = p.str()?;
                if text.len() > MAX_LEN {
                    return Err(TranscodeError::Unsupported(Unsupported::TooLong, at));
                }
                utf8(out, text.as_bytes());
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
                let at = p.pos();
                let first = if is_map {
                    p.begin_object()?;
                    p.next_key(true)?
                } else {
                    p.begin_array()?;
                    p.next_item(true)?.then_some("")
                };
                let Some(key) = first else {
                    // Empty.
                    out.push(if is_map { 0x80 } else { 0x90 });
                    end_value(frames, p, out, patches, keys, tmp, hints)?;
                    if frames.is_empty() {
                        p.finish()?;
                        return finish(out, patches, shifts);
                    }
                    continue 'value;
                };
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
                        start_entry(frame, keys, key.as_bytes(), out, at)?;
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
            let at = p.pos();
            if let Some(key) = p.next_key(false)? {
                return start_entry(frame, keys, key.as_bytes(), out, at);
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

/// Writes UTF-8 text as str (short ones with no call to copy them).
#[inline(always)]
fn utf8<O: Output>(out: &mut O, text: &[u8]) {
    // Text that is UTF-8 already has nothing to refuse.
    let _ = write_str(out, Text::Utf8(text));
}

/// Writes the key of a map entry and looks it up among the map's keys.
#[inline(always)]
fn start_entry<O: Output>(
    frame: &mut Frame,
    keys: &mut Keys,
    key: &[u8],
    out: &mut O,
    at: usize,
) -> Result<(), TranscodeError> {
    if key.len() > MAX_LEN {
        return Err(TranscodeError::Unsupported(Unsupported::TooLong, at));
    }
    let entry_start = out.len();
    utf8(out, key);
    check(out)?;
    let value_start = out.len();
    let start = value_start - key.len();
    frame.entry_start = entry_start;
    frame.value_start = value_start;
    frame.key_word = key_word(key);
    frame.repeats =
        keys.find_or_add_text(&mut frame.keys, start, key, entry_start, entry_start, value_start, out.written())?;
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

/// A word of a key, for its hint slot.
#[inline(always)]
fn key_word(key: &[u8]) -> u64 {
    super::keys::head_word(key) ^ (key.len() as u64) << 56
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

//! JSON text to MessagePack: the bytes `packb(loads(data))` gives, with no
//! value built. See the module docs of [`transcode`](super) for how counts
//! and repeated keys are handled.

use super::keys::{Entry, KeyId, Keys, MapKeys};
use super::{check, grow, replace_value, Output, TranscodeError, Unsupported, MAX_ENCODE_DEPTH};
use crate::json::pull::{JsonKind, JsonNumberValue, JsonPull};
use crate::msgpack::writer::{write_ascii, write_f64, write_i64, write_u64, MAX_LEN};

/// An open array or map.
struct Frame {
    is_map: bool,
    /// Offset of its one-byte header placeholder.
    header: usize,
    /// Items (or distinct entries) so far.
    count: usize,
    /// Where its patches start in the patch list.
    patches: usize,
    keys: MapKeys,
    /// For the entry being read: the earlier entry (index in the map) whose
    /// key it repeats, and where it starts.
    repeats: Option<usize>,
    entry_start: usize,
    value_start: usize,
}

/// A container of 16 items or more, whose header is written at the end.
#[derive(Clone, Copy, Debug)]
struct Patch {
    /// Offset of its placeholder byte.
    at: usize,
    count: usize,
    is_map: bool,
}

/// The working memory of [`json_to_msgpack`], which a caller that
/// transcodes often keeps between calls.
#[derive(Default)]
pub struct JsonToMsgpack {
    frames: Vec<Frame>,
    keys: Keys,
    patches: Vec<Patch>,
    tmp: Vec<u8>,
    unescape: Vec<u8>,
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
            + self.tmp.capacity()
            + self.unescape.capacity()
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

/// Writes JSON text `input` as MessagePack to `out`: the bytes
/// `packb(loads(input))` gives. `state` is working memory (any, kept or new).
pub fn json_to_msgpack<O: Output>(input: &[u8], out: &mut O, state: &mut JsonToMsgpack) -> Result<(), TranscodeError> {
    state.frames.clear();
    state.keys.clear();
    state.patches.clear();
    let mut p = JsonPull::new(input)?;
    let unescape = core::mem::take(&mut state.unescape);
    p.replace_scratch(unescape);
    let result = run(&mut p, out, state);
    state.unescape = p.replace_scratch(Vec::new());
    result
}

fn run<O: Output>(p: &mut JsonPull<'_>, out: &mut O, s: &mut JsonToMsgpack) -> Result<(), TranscodeError> {
    let JsonToMsgpack { frames, keys, patches, tmp, .. } = s;
    'value: loop {
        // A value starts here.
        match p.peek()? {
            JsonKind::String => {
                let at = p.pos();
                let text = p.str()?;
                if text.len() > MAX_LEN {
                    return Err(TranscodeError::Unsupported(Unsupported::TooLong, at));
                }
                write_ascii(out, text.as_bytes());
            }
            JsonKind::Number => match p.number()?.value {
                JsonNumberValue::U64(v) => write_u64(out, v),
                JsonNumberValue::I64(v) => write_i64(out, v),
                JsonNumberValue::F64(v) => write_f64(out, v),
            },
            JsonKind::Null => {
                p.null()?;
                out.push(0xc0);
            }
            JsonKind::True | JsonKind::False => {
                let v = p.bool()?;
                out.push(0xc2 | v as u8);
            }
            kind @ (JsonKind::Array | JsonKind::Object) => {
                if frames.len() >= MAX_ENCODE_DEPTH {
                    return Err(TranscodeError::Unsupported(Unsupported::Depth, p.pos()));
                }
                let is_map = kind == JsonKind::Object;
                let header = out.len();
                if is_map {
                    p.begin_object()?;
                    let at = p.pos();
                    if let Some(key) = p.next_key(true)? {
                        out.push(0);
                        let mut frame = Frame {
                            is_map,
                            header,
                            count: 0,
                            patches: patches.len(),
                            keys: keys.open(),
                            repeats: None,
                            entry_start: 0,
                            value_start: 0,
                        };
                        start_entry(&mut frame, keys, key.as_bytes(), out, at)?;
                        frames.push(frame);
                        continue 'value;
                    }
                    out.push(0x80);
                } else {
                    p.begin_array()?;
                    if p.next_item(true)? {
                        out.push(0);
                        frames.push(Frame {
                            is_map,
                            header,
                            count: 0,
                            patches: patches.len(),
                            keys: keys.open(),
                            repeats: None,
                            entry_start: 0,
                            value_start: 0,
                        });
                        continue 'value;
                    }
                    out.push(0x90);
                }
            }
        }
        // A value ended: go on with its container, closing those it completes.
        loop {
            let Some(frame) = frames.last_mut() else {
                p.finish()?;
                return finish(out, patches);
            };
            if frame.is_map {
                end_entry(frame, keys, patches, tmp, out)?;
                let at = p.pos();
                if let Some(key) = p.next_key(false)? {
                    start_entry(frame, keys, key.as_bytes(), out, at)?;
                    continue 'value;
                }
            } else {
                frame.count += 1;
                if p.next_item(false)? {
                    continue 'value;
                }
            }
            // `]` or `}`: the header.
            let (header, count, is_map, map) = (frame.header, frame.count, frame.is_map, frame.keys);
            frames.pop();
            keys.close(map);
            if count > MAX_LEN {
                return Err(TranscodeError::Unsupported(Unsupported::TooLong, p.pos() - 1));
            }
            check(out)?;
            if count < 16 {
                out.written()[header] = if is_map { 0x80 } else { 0x90 } | count as u8;
            } else {
                patches.push(Patch { at: header, count, is_map });
            }
        }
    }
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
    write_ascii(out, key);
    check(out)?;
    let value_start = out.len();
    let id = KeyId::Text { start: value_start - key.len(), len: key.len() };
    frame.entry_start = entry_start;
    frame.value_start = value_start;
    frame.repeats =
        keys.find_or_add(&mut frame.keys, Entry::new(entry_start, entry_start, value_start, id), out.written());
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
    let end = out.len();
    let entries = keys.of(frame.keys);
    let Some(j) = frame.repeats else {
        if let Some(last) = entries.last_mut() {
            last.value_end = end;
        }
        frame.count += 1;
        return Ok(());
    };
    let old = entries[j].value_start..entries[j].value_end;
    let delta = replace_value(out, tmp, old.clone(), frame.entry_start, frame.value_start)?;
    entries[j].value_end = old.start + (end - frame.value_start);
    for e in &mut entries[j + 1..] {
        e.shift(delta);
    }
    // Patches of containers in the replaced value go, those after it move,
    // and those of the new value move with it.
    let (entry_start, value_start) = (frame.entry_start, frame.value_start);
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

/// Writes the headers of the containers of 16 items or more: the output
/// grows by what they need beyond their placeholder byte, and is moved up
/// from the back, each byte once.
fn finish<O: Output>(out: &mut O, patches: &mut [Patch]) -> Result<(), TranscodeError> {
    check(out)?;
    if patches.is_empty() {
        return Ok(());
    }
    patches.sort_unstable_by_key(|p| p.at);
    let extra: usize = patches.iter().map(|p| header_len(p.count) - 1).sum();
    let old_len = out.len();
    grow(out, extra)?;
    let bytes = out.written();
    let mut shift = extra;
    let mut end = old_len;
    for patch in patches.iter().rev() {
        // What follows the placeholder moves up by `shift`.
        bytes.copy_within(patch.at + 1..end, patch.at + 1 + shift);
        let len = header_len(patch.count);
        shift -= len - 1;
        let at = patch.at + shift;
        let (marker16, marker32) = if patch.is_map { (0xde, 0xdf) } else { (0xdc, 0xdd) };
        if len == 3 {
            bytes[at] = marker16;
            bytes[at + 1..at + 3].copy_from_slice(&(patch.count as u16).to_be_bytes());
        } else {
            bytes[at] = marker32;
            bytes[at + 1..at + 5].copy_from_slice(&(patch.count as u32).to_be_bytes());
        }
        end = patch.at;
    }
    debug_assert_eq!(shift, 0);
    Ok(())
}

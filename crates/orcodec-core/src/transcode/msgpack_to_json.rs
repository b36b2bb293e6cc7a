//! MessagePack to JSON text: the bytes `dumps(unpackb(data), option)`
//! gives, with no value built. See the module docs of
//! [`transcode`](super) for repeated keys and sorting.

use super::keys::{Entry, KeyId, Keys, MapKeys};
use super::{base64, check, no_memory, push, splice_repeat, Output, TranscodeError, Unsupported, MAX_ENCODE_DEPTH};
use crate::datetime::{civil_from_days, DateText, Style};
use crate::emit::Emitter;
use crate::json::writer::JsonWriter;
use crate::msgpack::pull::{decode_timestamp, MsgpackItem, MsgpackPull};
use crate::msgpack::reader::ReadOptions;
use crate::sink::Sink;

/// What `dumps` and `unpackb` were asked for, as far as a transcode can
/// tell: each field is the flag of the same name.
#[derive(Clone, Copy, Debug, Default)]
pub struct ToJsonOptions {
    /// `OPT_NON_STR_KEYS`: map keys of any type but map are read, and
    /// written as JSON text as `dumps` writes such keys.
    pub non_str_keys: bool,
    /// `OPT_DATETIME_AS_TIMESTAMP_EXT`: timestamps are read as UTC datetimes
    /// and written as RFC 3339 text (in `style`).
    pub timestamps: bool,
    /// `OPT_SORT_KEYS`.
    pub sort_keys: bool,
    /// `OPT_STRICT_INTEGER`: integers beyond 53 bits are unsupported.
    pub strict_integer: bool,
    /// bin values as base64 text, extension values as `{"tag": t, "data":
    /// base64}` (else both are unsupported).
    pub base64: bool,
    /// `OPT_UTC_Z`, `OPT_OMIT_MICROSECONDS`.
    pub style: Style,
}

/// An open array or map.
struct Frame {
    is_map: bool,
    /// Items (entries) declared, and read so far.
    len: usize,
    read: usize,
    /// Distinct entries so far.
    count: usize,
    keys: MapKeys,
    /// For the entry being read: the earlier entry (index in the map) whose
    /// key it repeats, and then where it starts.
    repeats: Option<usize>,
    entry_start: usize,
    value_start: usize,
}

/// The working memory of [`msgpack_to_json`], which a caller that
/// transcodes often keeps between calls.
#[derive(Default)]
pub struct MsgpackToJson {
    frames: Vec<Frame>,
    keys: Keys,
    tmp: Vec<u8>,
    order: Vec<usize>,
    key_text: Vec<u8>,
}

impl MsgpackToJson {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes of memory held (a caller may drop a large one).
    pub fn capacity_bytes(&self) -> usize {
        self.frames.capacity() * core::mem::size_of::<Frame>()
            + self.keys.entries.capacity() * core::mem::size_of::<Entry>()
            + self.tmp.capacity()
            + self.order.capacity() * core::mem::size_of::<usize>()
    }
}

/// Largest integer `OPT_STRICT_INTEGER` lets through (2**53-1).
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Writes MessagePack `input` as JSON with `w`: the bytes
/// `dumps(unpackb(input), option)` gives for the flags `opts` stands for
/// (the writer's `PRETTY` for `OPT_INDENT_2`). `state` is working memory.
pub fn msgpack_to_json<O: Output, const PRETTY: bool>(
    input: &[u8],
    w: &mut JsonWriter<O, PRETTY>,
    opts: ToJsonOptions,
    state: &mut MsgpackToJson,
) -> Result<(), TranscodeError> {
    state.frames.clear();
    state.keys.clear();
    state.keys.texts_in_input = true;
    let read = ReadOptions {
        non_str_keys: opts.non_str_keys,
        timestamps: opts.timestamps,
        bin_keys: false,
        plain_keys: false,
    };
    let mut p = MsgpackPull::with_options(input, read);
    let MsgpackToJson { frames, keys, tmp, order, key_text } = state;
    'value: loop {
        let at = p.pos();
        let opened = match p.next()? {
            MsgpackItem::Str(s) => {
                w.utf8(s.as_bytes());
                None
            }
            MsgpackItem::U64(v) => {
                if opts.strict_integer && v > MAX_SAFE_INTEGER as u64 {
                    return Err(TranscodeError::Unsupported(Unsupported::Integer53, at));
                }
                w.u64(v);
                None
            }
            MsgpackItem::I64(v) => {
                if opts.strict_integer && !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&v) {
                    return Err(TranscodeError::Unsupported(Unsupported::Integer53, at));
                }
                w.i64(v);
                None
            }
            MsgpackItem::F64(v) => {
                w.f64(v);
                None
            }
            MsgpackItem::F32(v) => {
                w.f64(v as f64);
                None
            }
            MsgpackItem::Nil => {
                w.null();
                None
            }
            MsgpackItem::Bool(v) => {
                w.bool(v);
                None
            }
            MsgpackItem::Bin(data) => {
                if !opts.base64 {
                    return Err(TranscodeError::Unsupported(Unsupported::Bin, at));
                }
                base64_str(&mut w.out, data);
                None
            }
            MsgpackItem::Ext(tag, data) => {
                if tag == -1 && opts.timestamps {
                    let text = timestamp_text(data, opts.style)
                        .ok_or(TranscodeError::Unsupported(Unsupported::Timestamp, at))?;
                    w.ascii(text.as_bytes());
                } else if !opts.base64 {
                    return Err(TranscodeError::Unsupported(Unsupported::Ext(tag), at));
                } else {
                    // A dict of two entries: a container like any other.
                    if frames.len() >= MAX_ENCODE_DEPTH {
                        return Err(TranscodeError::Unsupported(Unsupported::Depth, at));
                    }
                    ext_map(w, tag, data, opts.sort_keys);
                }
                None
            }
            MsgpackItem::Array(n) => Some((false, n)),
            MsgpackItem::Map(n) => Some((true, n)),
        };
        if let Some((is_map, len)) = opened {
            if frames.len() >= MAX_ENCODE_DEPTH {
                return Err(TranscodeError::Unsupported(Unsupported::Depth, at));
            }
            if len == 0 {
                if is_map {
                    w.empty_map();
                } else {
                    w.empty_array();
                }
            } else {
                let mut frame = Frame {
                    is_map,
                    len,
                    read: 0,
                    count: 0,
                    keys: keys.open(),
                    repeats: None,
                    entry_start: 0,
                    value_start: 0,
                };
                if is_map {
                    w.begin_map(len);
                    start_entry(&mut frame, keys, &mut p, w, opts, key_text)?;
                } else {
                    w.begin_array(len);
                    w.array_item(0);
                }
                push(frames, frame)?;
                continue 'value;
            }
        }
        // A value ended: go on with its container, closing those it completes.
        loop {
            let Some(frame) = frames.last_mut() else {
                p.finish()?;
                return check(&w.out);
            };
            frame.read += 1;
            if frame.is_map {
                end_entry(frame, keys, tmp, &mut w.out)?;
                if frame.read < frame.len {
                    start_entry(frame, keys, &mut p, w, opts, key_text)?;
                    continue 'value;
                }
                let count = frame.count;
                if opts.sort_keys && count > 1 {
                    check(&w.out)?;
                    sort_entries(w.out.written(), keys, frame.keys, count, input, order, tmp)?;
                }
                w.end_map(count);
            } else {
                if frame.read < frame.len {
                    w.array_item(frame.read);
                    continue 'value;
                }
                w.end_array(frame.len);
            }
            keys.close(frame.keys);
            frames.pop();
        }
    }
}

/// Writes the next map key (its separator, the key and the colon) and
/// looks it up among the map's keys.
#[inline(always)]
fn start_entry<O: Output, const PRETTY: bool>(
    frame: &mut Frame,
    keys: &mut Keys,
    p: &mut MsgpackPull<'_>,
    w: &mut JsonWriter<O, PRETTY>,
    opts: ToJsonOptions,
    text: &mut Vec<u8>,
) -> Result<(), TranscodeError> {
    let entry_start = w.out.len();
    w.map_key(frame.count);
    let key_start = w.out.len();
    let at = p.pos();
    let item = p.next_key()?;
    if let MsgpackItem::Str(s) = item {
        w.utf8_key(s.as_bytes());
        w.map_value();
        check(&w.out)?;
        let value_start = w.out.len();
        // The key's bytes in the input, compared there (the text written
        // for them is the same for the same bytes).
        let at = p.pos() - s.len();
        let repeats =
            keys.find_or_add_text(&mut frame.keys, at, s.as_bytes(), entry_start, key_start, value_start, p.input())?;
        // Where the entry is matters only when it repeats a key (it goes then).
        if repeats.is_some() {
            frame.entry_start = entry_start;
            frame.value_start = value_start;
        }
        frame.repeats = repeats;
        return Ok(());
    }
    text.clear();
    let id = match item {
        MsgpackItem::U64(v) => {
            crate::json::writer::write_u64(text, v);
            KeyId::int(v as i128)
        }
        MsgpackItem::I64(v) => {
            crate::json::writer::write_i64(text, v);
            KeyId::int(v as i128)
        }
        MsgpackItem::F64(v) => {
            crate::number::float::write_f64(text, v);
            KeyId::float(v)
        }
        MsgpackItem::F32(v) => {
            crate::number::float::write_f64(text, v as f64);
            KeyId::float(v as f64)
        }
        MsgpackItem::Bool(v) => {
            crate::fallible::extend(text, if v { b"true" } else { b"false" }).map_err(|_| no_memory())?;
            KeyId::int(v as i128)
        }
        MsgpackItem::Nil => {
            crate::fallible::extend(text, b"null").map_err(|_| no_memory())?;
            KeyId::Null
        }
        MsgpackItem::Ext(-1, data) if opts.timestamps => {
            let unsupported = TranscodeError::Unsupported(Unsupported::Timestamp, at);
            // The reader checked the payload already.
            let (seconds, nanoseconds) = decode_timestamp(data).ok_or(unsupported.clone())?;
            let t = timestamp_text(data, opts.style).ok_or(unsupported)?;
            crate::fallible::extend(text, t.as_bytes()).map_err(|_| no_memory())?;
            KeyId::Time(seconds, nanoseconds / 1000)
        }
        _ => return Err(TranscodeError::Unsupported(Unsupported::Key, at)),
    };
    w.ascii_key(text);
    w.map_value();
    check(&w.out)?;
    let value_start = w.out.len();
    frame.entry_start = entry_start;
    frame.value_start = value_start;
    frame.repeats = keys.find_or_add(&mut frame.keys, id, entry_start, key_start, value_start, w.out.written())?;
    Ok(())
}

/// The value of a map entry ended: a new key counts; a repeated one puts
/// its value in place of the earlier one's.
#[inline(always)]
fn end_entry<O: Output>(
    frame: &mut Frame,
    keys: &mut Keys,
    tmp: &mut Vec<u8>,
    out: &mut O,
) -> Result<(), TranscodeError> {
    let Some(j) = frame.repeats else {
        frame.count += 1;
        return Ok(());
    };
    splice_repeat(keys, frame.keys, j, frame.entry_start, frame.value_start, tmp, out)?;
    Ok(())
}

/// Puts the entries of a map (`count` of them, at least two) in the order
/// of their keys' text, as `OPT_SORT_KEYS` does (stable: keys of equal text,
/// which only non-str keys can have, keep their order).
fn sort_entries(
    bytes: &mut [u8],
    keys: &Keys,
    map: MapKeys,
    count: usize,
    input: &[u8],
    order: &mut Vec<usize>,
    tmp: &mut Vec<u8>,
) -> Result<(), TranscodeError> {
    order.clear();
    crate::fallible::reserve(order, count).map_err(|_| no_memory())?;
    // Within the room just reserved: no allocation.
    order.extend(0..count);
    let sorted_already =
        (1..count).all(|i| keys.sort_text(map, i - 1, input, bytes) <= keys.sort_text(map, i, input, bytes));
    if sorted_already {
        return Ok(());
    }
    // Each key's text once (the output is rewritten below).
    let mut texts: Vec<Vec<u8>> = Vec::new();
    crate::fallible::reserve(&mut texts, count).map_err(|_| no_memory())?;
    for i in 0..count {
        let text = crate::fallible::copy(keys.sort_text(map, i, input, bytes)).map_err(|_| no_memory())?;
        crate::fallible::push(&mut texts, text).map_err(|_| no_memory())?;
    }
    order.sort_by(|&a, &b| texts[a].cmp(&texts[b]));
    let (first, second) = (keys.entry(map, 0), keys.entry(map, 1));
    let end = bytes.len();
    tmp.clear();
    for (rank, &i) in order.iter().enumerate() {
        let separator = if rank == 0 { first } else { second };
        let e = keys.entry(map, i);
        crate::fallible::extend(tmp, &bytes[separator.entry_start..separator.key_start]).map_err(|_| no_memory())?;
        crate::fallible::extend(tmp, &bytes[e.key_start..keys.value_end(map, i, end)]).map_err(|_| no_memory())?;
    }
    let start = first.entry_start;
    debug_assert_eq!(start + tmp.len(), end);
    bytes[start..start + tmp.len()].copy_from_slice(tmp);
    Ok(())
}

/// The RFC 3339 text of a timestamp payload (checked by the reader) as a
/// UTC datetime, as `dumps` writes it; None outside years 1 to 9999.
fn timestamp_text(data: &[u8], style: Style) -> Option<DateText> {
    let (seconds, nanoseconds) = decode_timestamp(data)?;
    let days = seconds.div_euclid(86_400);
    let second_of_day = seconds.rem_euclid(86_400) as i32;
    let (year, month, day) = civil_from_days(days);
    if !(1..=9999).contains(&year) {
        return None;
    }
    Some(DateText::build(|t| {
        t.date(year as i32, month as i32, day as i32);
        t.push(b'T');
        // Nanoseconds below a microsecond are dropped, as the datetime does.
        t.time(second_of_day / 3600, second_of_day / 60 % 60, second_of_day % 60, (nanoseconds / 1000) as i32, style);
        t.offset(0, style);
    }))
}

/// `data` as a JSON string of its base64 text (nothing in it to escape).
fn base64_str<S: Sink>(out: &mut S, data: &[u8]) {
    out.push(b'"');
    base64::encode(out, data);
    out.push(b'"');
}

/// An extension value as `{"tag": tag, "data": base64}` (`data` first when
/// keys are sorted).
fn ext_map<O: Output, const PRETTY: bool>(w: &mut JsonWriter<O, PRETTY>, tag: i8, data: &[u8], sorted: bool) {
    w.begin_map(2);
    for i in 0..2 {
        w.map_key(i);
        if (i == 0) != sorted {
            w.ascii_key(b"tag");
            w.map_value();
            w.i64(tag as i64);
        } else {
            w.ascii_key(b"data");
            w.map_value();
            base64_str(&mut w.out, data);
        }
    }
    w.end_map(2);
}

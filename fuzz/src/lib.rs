//! Shared pieces of the orcodec-core fuzz targets: a value tree the decoders
//! build, a way to feed it back through the writers, and an allocator that
//! records the peak heap use of one decode.

use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::alloc::{GlobalAlloc, Layout, System};

use orcodec_core::builder::Builder;
use orcodec_core::emit::Emitter;
use orcodec_core::msgpack::reader::ReadOptions;
use orcodec_core::text::{SurrogateError, Text};

/// A decoded value. Floats are kept as bits so equality is exact (NaN, -0.0).
/// Integers are one variant: JSON gives u64 for non-negative and i64 for
/// negative numbers, MessagePack keeps its own families, the value is the same.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(u64),
    Str(String),
    Bytes(Vec<u8>),
    Array(Vec<Value>),
    Map(Vec<(String, Value)>),
    /// A MessagePack extension (tag, payload).
    Ext(i8, Vec<u8>),
    /// A MessagePack timestamp: seconds, nanoseconds.
    Timestamp(i64, u32),
}

/// How the targets read MessagePack: str keys only (the tree's maps have str
/// keys), timestamps decoded, every other extension kept as it is.
pub const READ: ReadOptions = ReadOptions { non_str_keys: false, timestamps: true, bin_keys: false, plain_keys: false };

/// Builds [`Value`]s; never fails.
pub struct Tree;

impl Builder for Tree {
    type Value = Value;
    type Error = ();

    fn null(&mut self) -> Result<Value, ()> {
        Ok(Value::Null)
    }
    fn bool(&mut self, v: bool) -> Result<Value, ()> {
        Ok(Value::Bool(v))
    }
    fn i64(&mut self, v: i64) -> Result<Value, ()> {
        Ok(Value::Int(v as i128))
    }
    fn u64(&mut self, v: u64) -> Result<Value, ()> {
        Ok(Value::Int(v as i128))
    }
    fn f64(&mut self, v: f64) -> Result<Value, ()> {
        Ok(Value::Float(v.to_bits()))
    }
    fn str(&mut self, v: &str) -> Result<Value, ()> {
        Ok(Value::Str(v.to_owned()))
    }
    fn key(&mut self, v: &str) -> Result<Value, ()> {
        Ok(Value::Str(v.to_owned()))
    }
    fn bytes(&mut self, v: &[u8]) -> Result<Value, ()> {
        Ok(Value::Bytes(v.to_vec()))
    }
    fn ext(&mut self, tag: i8, data: &[u8]) -> Result<Option<Value>, ()> {
        Ok(Some(Value::Ext(tag, data.to_vec())))
    }
    fn timestamp(&mut self, seconds: i64, nanoseconds: u32) -> Result<Value, ()> {
        Ok(Value::Timestamp(seconds, nanoseconds))
    }
    fn array(&mut self, items: &mut Vec<Value>, start: usize) -> Result<Value, ()> {
        Ok(Value::Array(items.drain(start..).collect()))
    }
    fn map(&mut self, items: &mut Vec<Value>, start: usize) -> Result<Value, ()> {
        let mut flat = items.drain(start..);
        let mut pairs = Vec::new();
        while let (Some(k), Some(v)) = (flat.next(), flat.next()) {
            let Value::Str(k) = k else { panic!("decoder handed a non-str key: {k:?}") };
            pairs.push((k, v));
        }
        Ok(Value::Map(pairs))
    }
}

/// Calls `f` with `s` stored the way CPython would store it (PEP 393): ASCII
/// as UTF-8, else the narrowest of UCS1/UCS2/UCS4 that holds every char.
pub fn with_text<R>(s: &str, f: impl FnOnce(Text<'_>) -> R) -> R {
    let max = s.chars().map(|c| c as u32).max().unwrap_or(0);
    if max < 0x80 {
        f(Text::Utf8(s.as_bytes()))
    } else if max < 0x100 {
        let units: Vec<u8> = s.chars().map(|c| c as u8).collect();
        f(Text::Ucs1(&units))
    } else if max < 0x10000 {
        let units: Vec<u16> = s.chars().map(|c| c as u16).collect();
        f(Text::Ucs2(&units))
    } else {
        let units: Vec<u32> = s.chars().map(|c| c as u32).collect();
        f(Text::Ucs4(&units))
    }
}

/// Drives `e` with `v`, the way the Python walker would.
pub fn emit<E: Emitter>(e: &mut E, v: &Value) -> Result<(), SurrogateError> {
    match v {
        Value::Null => e.null(),
        Value::Bool(b) => e.bool(*b),
        Value::Int(i) if *i < 0 => e.i64(*i as i64),
        Value::Int(i) => e.u64(*i as u64),
        Value::Float(bits) => e.f64(f64::from_bits(*bits)),
        Value::Str(s) => with_text(s, |t| e.str(t))?,
        Value::Bytes(b) => e.bin(b),
        Value::Ext(tag, data) => e.ext(*tag, data),
        Value::Timestamp(seconds, nanoseconds) => {
            let mut buf = [0u8; 12];
            e.ext(-1, orcodec_core::datetime::timestamp_payload(*seconds, *nanoseconds, &mut buf));
        }
        Value::Array(items) => {
            e.begin_array(items.len());
            for (i, item) in items.iter().enumerate() {
                e.array_item(i);
                emit(e, item)?;
            }
            e.end_array(items.len());
        }
        Value::Map(pairs) => {
            e.begin_map(pairs.len());
            for (i, (k, item)) in pairs.iter().enumerate() {
                e.map_key(i);
                with_text(k, |t| e.key(t))?;
                e.map_value();
                emit(e, item)?;
            }
            e.end_map(pairs.len());
        }
    }
    Ok(())
}

/// The heap bytes a decode may use beyond its input: a value tree costs a few
/// dozen bytes per input byte at worst (one-byte MessagePack values become
/// 32-byte `Value`s, held on the stack and then in their container), plus
/// fixed overhead. A decoder allocating for a declared length it never reads
/// breaks this at once.
pub fn heap_budget(input_len: usize) -> usize {
    160 * input_len + (64 << 10)
}

/// The system allocator, counting live bytes and their peak.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; the counters are
// bookkeeping only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            let live = LIVE.fetch_add(new_size, Relaxed) + new_size;
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }
}

/// Runs `f` and returns its result with the most heap it held at once,
/// beyond what was live before. Targets install [`Counting`] as their
/// global allocator for this to count anything.
pub fn peak_heap<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let r = f();
    (r, PEAK.load(Relaxed).saturating_sub(before))
}

/// `v` as compact (or, with `pretty`, indented) JSON text.
pub fn to_json(v: &Value, pretty: bool) -> Vec<u8> {
    use orcodec_core::json::writer::{CompactJsonWriter, PrettyJsonWriter};
    let result = if pretty {
        let mut w = PrettyJsonWriter::new(Vec::new());
        emit(&mut w, v).map(|()| w.out)
    } else {
        let mut w = CompactJsonWriter::new(Vec::new());
        emit(&mut w, v).map(|()| w.out)
    };
    result.expect("a Rust String holds no lone surrogate")
}

/// `v` as MessagePack.
pub fn to_msgpack(v: &Value) -> Vec<u8> {
    let mut w = orcodec_core::msgpack::writer::MsgpackWriter::new(Vec::new());
    emit(&mut w, v).expect("a Rust String holds no lone surrogate");
    w.out
}

/// What `v` reads back as after a trip through JSON, which spells NaN and
/// the infinities `null`.
pub fn json_view(v: &Value) -> Value {
    match v {
        Value::Float(bits) if !f64::from_bits(*bits).is_finite() => Value::Null,
        Value::Array(items) => Value::Array(items.iter().map(json_view).collect()),
        Value::Map(pairs) => Value::Map(pairs.iter().map(|(k, v)| (k.clone(), json_view(v))).collect()),
        other => other.clone(),
    }
}

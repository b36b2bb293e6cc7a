//! The two-step the transcoders are held to, in Rust (tests and fuzzing
//! only): the input decoded into values that behave as the Python objects
//! would (a map is a dict: a repeated key keeps its place and takes the last
//! value; `1`, `1.0` and `True` are one key), then those values written as
//! `packb` or `dumps` writes them.

use core::cell::Cell;

use crate::builder::Builder;
use crate::datetime::{civil_from_days, DateText, Style};
use crate::emit::Emitter;
use crate::error::Failure;
use crate::json::writer::JsonWriter;
use crate::msgpack::reader::{read, ReadOptions};
use crate::msgpack::writer::MsgpackWriter;
use crate::transcode::{ToJsonOptions, MAX_ENCODE_DEPTH};

/// A decoded value, as the Python object it would be.
#[derive(Clone, Debug)]
pub enum Py {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Py>),
    Tuple(Vec<Py>),
    Dict(Vec<(Py, Py)>),
    Ext(i8, Vec<u8>),
    /// A UTC datetime: seconds since the epoch, microseconds.
    Datetime(i64, u32),
}

impl Py {
    /// Python's `==` for dict keys.
    fn key_eq(&self, other: &Py) -> bool {
        use Py::*;
        let number = |v: &Py| -> Option<Result<i128, f64>> {
            match *v {
                Bool(b) => Some(Ok(b as i128)),
                Int(i) => Some(Ok(i)),
                Float(f) if f.fract() == 0.0 && f.abs() < 1.7e38 => Some(Ok(f as i128)),
                Float(f) => Some(Err(f)),
                _ => Option::None,
            }
        };
        if let (Some(a), Some(b)) = (number(self), number(other)) {
            return match (a, b) {
                (Ok(x), Ok(y)) => x == y,
                // NaN is never equal (and a new object each time).
                (Err(x), Err(y)) => x == y,
                _ => false,
            };
        }
        match (self, other) {
            (None, None) => true,
            (Str(a), Str(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            (Tuple(a), Tuple(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.key_eq(y)),
            (Ext(t1, d1), Ext(t2, d2)) => t1 == t2 && d1 == d2,
            (Datetime(s1, u1), Datetime(s2, u2)) => s1 == s2 && u1 == u2,
            _ => false,
        }
    }
}

/// Builds [`Py`] values; fails (as the extension raises) for a timestamp
/// outside `datetime`'s years. Counts the dict entries that replaced an
/// earlier value of their key.
#[derive(Default)]
pub struct PyTree {
    pub replaced: Cell<usize>,
}

impl Builder for PyTree {
    type Value = Py;
    type Error = ();
    // As `loads` (orjson): a number beyond the doubles is an error.
    const FINITE_NUMBERS: bool = true;
    fn null(&mut self) -> Result<Py, ()> {
        Ok(Py::None)
    }
    fn bool(&mut self, v: bool) -> Result<Py, ()> {
        Ok(Py::Bool(v))
    }
    fn i64(&mut self, v: i64) -> Result<Py, ()> {
        Ok(Py::Int(v as i128))
    }
    fn u64(&mut self, v: u64) -> Result<Py, ()> {
        Ok(Py::Int(v as i128))
    }
    fn f64(&mut self, v: f64) -> Result<Py, ()> {
        Ok(Py::Float(v))
    }
    fn str(&mut self, v: &str) -> Result<Py, ()> {
        Ok(Py::Str(v.to_owned()))
    }
    fn key(&mut self, v: &str) -> Result<Py, ()> {
        self.str(v)
    }
    fn bytes(&mut self, v: &[u8]) -> Result<Py, ()> {
        Ok(Py::Bytes(v.to_vec()))
    }
    fn ext(&mut self, tag: i8, data: &[u8]) -> Result<Option<Py>, ()> {
        Ok(Some(Py::Ext(tag, data.to_vec())))
    }
    fn timestamp(&mut self, seconds: i64, nanoseconds: u32) -> Result<Py, ()> {
        let (year, _, _) = civil_from_days(seconds.div_euclid(86_400));
        if !(1..=9999).contains(&year) {
            return Err(());
        }
        Ok(Py::Datetime(seconds, nanoseconds / 1000))
    }
    fn array(&mut self, items: &mut Vec<Py>, start: usize) -> Result<Py, ()> {
        Ok(Py::List(items.drain(start..).collect()))
    }
    fn tuple(&mut self, items: &mut Vec<Py>, start: usize) -> Result<Py, ()> {
        Ok(Py::Tuple(items.drain(start..).collect()))
    }
    fn map(&mut self, items: &mut Vec<Py>, start: usize) -> Result<Py, ()> {
        let mut entries: Vec<(Py, Py)> = Vec::new();
        // str keys equal only str keys: found by their text; others by a scan.
        let mut by_text: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut others: Vec<usize> = Vec::new();
        let mut flat = items.drain(start..);
        while let (Some(k), Some(v)) = (flat.next(), flat.next()) {
            let found = match &k {
                Py::Str(text) => by_text.get(text).copied(),
                _ => others.iter().copied().find(|&i| entries[i].0.key_eq(&k)),
            };
            match found {
                Some(i) => {
                    entries[i].1 = v;
                    self.replaced.set(self.replaced.get() + 1);
                }
                None => {
                    match &k {
                        Py::Str(text) => by_text.insert(text.clone(), entries.len()),
                        _ => {
                            others.push(entries.len());
                            Option::None
                        }
                    };
                    entries.push((k, v));
                }
            }
        }
        Ok(Py::Dict(entries))
    }
}

/// What the reference gives: the output, or why there is none.
#[derive(Debug, PartialEq, Eq)]
pub enum Two {
    Ok(Vec<u8>),
    /// The decoder rejected the input (kind and offset).
    Decode(crate::error::DecodeError),
    /// The decoder's builder failed (a timestamp out of range).
    Build,
    /// The writer refused a value.
    Encode,
}

/// `packb(loads(input))`; the second value: whether a dict entry replaced
/// an earlier one.
pub fn json_to_msgpack(input: &[u8]) -> (Two, bool) {
    let mut tree = PyTree::default();
    let value = match crate::json::scanner::parse(input, &mut tree) {
        Ok(v) => v,
        Err(Failure::Syntax(e)) => return (Two::Decode(e), tree.replaced.get() > 0),
        Err(Failure::Build(())) => return (Two::Build, tree.replaced.get() > 0),
    };
    let mut w = MsgpackWriter::new(Vec::new());
    let out = match pack(&mut w, &value, 0) {
        Ok(()) => Two::Ok(w.out),
        Err(()) => Two::Encode,
    };
    (out, tree.replaced.get() > 0)
}

fn pack(w: &mut MsgpackWriter<Vec<u8>>, v: &Py, depth: usize) -> Result<(), ()> {
    match v {
        Py::None => w.null(),
        Py::Bool(b) => w.bool(*b),
        Py::Int(i) => match i64::try_from(*i) {
            Ok(i) => w.i64(i),
            Err(_) => w.u64(u64::try_from(*i).map_err(|_| ())?),
        },
        Py::Float(f) => w.f64(*f),
        Py::Str(s) => w.utf8(s.as_bytes()),
        Py::Bytes(b) => w.bin(b),
        Py::Ext(t, d) => w.ext(*t, d),
        Py::Datetime(..) => return Err(()),
        Py::List(items) | Py::Tuple(items) => {
            if depth >= MAX_ENCODE_DEPTH {
                return Err(());
            }
            w.begin_array(items.len());
            for (i, item) in items.iter().enumerate() {
                w.array_item(i);
                pack(w, item, depth + 1)?;
            }
            w.end_array(items.len());
        }
        Py::Dict(entries) => {
            if depth >= MAX_ENCODE_DEPTH {
                return Err(());
            }
            w.begin_map(entries.len());
            for (i, (k, v)) in entries.iter().enumerate() {
                w.map_key(i);
                pack(w, k, depth + 1)?;
                w.map_value();
                pack(w, v, depth + 1)?;
            }
            w.end_map(entries.len());
        }
    }
    Ok(())
}

/// `dumps(unpackb(input, ext_hook=Ext), default=..., option)` for the flags
/// `opts` stands for (`default` writes bytes and Ext as base64 when
/// `opts.base64`); the second value: whether a dict entry replaced an
/// earlier one.
pub fn msgpack_to_json(input: &[u8], opts: ToJsonOptions, pretty: bool) -> (Two, bool) {
    let mut tree = PyTree::default();
    let read_opts = ReadOptions {
        non_str_keys: opts.non_str_keys,
        timestamps: opts.timestamps,
        bin_keys: false,
        plain_keys: false,
    };
    let value = match read(input, &mut tree, read_opts) {
        Ok(v) => v,
        Err(Failure::Syntax(e)) => return (Two::Decode(e), tree.replaced.get() > 0),
        Err(Failure::Build(())) => return (Two::Build, tree.replaced.get() > 0),
    };
    let out = if pretty {
        let mut w = JsonWriter::<Vec<u8>, true>::new(Vec::new());
        dump(&mut w, &value, opts, 0).map(|()| w.out)
    } else {
        let mut w = JsonWriter::<Vec<u8>, false>::new(Vec::new());
        dump(&mut w, &value, opts, 0).map(|()| w.out)
    };
    (out.map_or(Two::Encode, Two::Ok), tree.replaced.get() > 0)
}

fn datetime_text(seconds: i64, micro: u32, style: Style) -> DateText {
    let days = seconds.div_euclid(86_400);
    let sod = seconds.rem_euclid(86_400) as i32;
    let (y, m, d) = civil_from_days(days);
    DateText::build(|t| {
        t.date(y as i32, m as i32, d as i32);
        t.push(b'T');
        t.time(sod / 3600, sod / 60 % 60, sod % 60, micro as i32, style);
        t.offset(0, style);
    })
}

fn base64(data: &[u8]) -> Vec<u8> {
    let mut text = Vec::new();
    super::base64::encode(&mut text, data);
    text
}

/// A dict key's JSON text (`OPT_NON_STR_KEYS`), and the text it sorts by.
fn key_text(k: &Py, opts: ToJsonOptions) -> Result<Vec<u8>, ()> {
    let mut text = Vec::new();
    match k {
        Py::Str(s) => text.extend_from_slice(s.as_bytes()),
        _ if !opts.non_str_keys => return Err(()),
        Py::None => text.extend_from_slice(b"null"),
        Py::Bool(b) => text.extend_from_slice(if *b { b"true" } else { b"false" }),
        Py::Int(i) => text.extend_from_slice(i.to_string().as_bytes()),
        Py::Float(f) => crate::number::float::write_f64(&mut text, *f),
        Py::Datetime(s, us) => text.extend_from_slice(datetime_text(*s, *us, opts.style).as_bytes()),
        _ => return Err(()),
    }
    Ok(text)
}

fn dump<const PRETTY: bool>(
    w: &mut JsonWriter<Vec<u8>, PRETTY>,
    v: &Py,
    opts: ToJsonOptions,
    depth: usize,
) -> Result<(), ()> {
    match v {
        Py::None => w.null(),
        Py::Bool(b) => w.bool(*b),
        Py::Int(i) => {
            if opts.strict_integer && i.unsigned_abs() > (1 << 53) - 1 {
                return Err(());
            }
            match i64::try_from(*i) {
                Ok(i) => w.i64(i),
                Err(_) => w.u64(u64::try_from(*i).map_err(|_| ())?),
            }
        }
        Py::Float(f) => w.f64(*f),
        Py::Str(s) => w.utf8(s.as_bytes()),
        Py::Datetime(s, us) => w.ascii(datetime_text(*s, *us, opts.style).as_bytes()),
        Py::Bytes(b) => {
            if !opts.base64 {
                return Err(());
            }
            w.ascii(&base64(b));
        }
        Py::Ext(tag, data) => {
            if !opts.base64 {
                return Err(());
            }
            // default returns {"tag": tag, "data": base64}, walked like any dict.
            let dict = Py::Dict(vec![
                (Py::Str("tag".into()), Py::Int(*tag as i128)),
                (Py::Str("data".into()), Py::Bytes(data.clone())),
            ]);
            return dump(w, &dict, opts, depth);
        }
        Py::List(items) | Py::Tuple(items) => {
            if depth >= MAX_ENCODE_DEPTH {
                return Err(());
            }
            if items.is_empty() {
                w.empty_array();
                return Ok(());
            }
            w.begin_array(items.len());
            for (i, item) in items.iter().enumerate() {
                w.array_item(i);
                dump(w, item, opts, depth + 1)?;
            }
            w.end_array(items.len());
        }
        Py::Dict(entries) => {
            if depth >= MAX_ENCODE_DEPTH {
                return Err(());
            }
            if entries.is_empty() {
                w.empty_map();
                return Ok(());
            }
            let mut keyed = Vec::new();
            for (k, v) in entries {
                keyed.push((key_text(k, opts)?, v));
            }
            if opts.sort_keys {
                keyed.sort_by(|a, b| a.0.cmp(&b.0));
            }
            w.begin_map(keyed.len());
            for (i, (text, v)) in keyed.iter().enumerate() {
                w.map_key(i);
                w.utf8_key(text);
                w.map_value();
                dump(w, v, opts, depth + 1)?;
            }
            w.end_map(keyed.len());
        }
    }
    Ok(())
}

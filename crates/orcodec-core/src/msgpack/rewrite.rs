//! MessagePack to MessagePack in another dialect: every float as a float
//! 32, and strs and bins in the original format's raw type (the spec before
//! bin and str8 existed: fixstr, str16, str32). msgpack-python's packer
//! options `use_single_float` and `use_bin_type=False`, applied to what the
//! writer produced, item by item through the pull reader and written with
//! the writer's own functions.

use super::pull::{MsgpackItem, MsgpackPull};
use super::reader::ReadOptions;
use super::writer::{write_array_header, write_ext, write_i64, write_map_header, write_u64};
use crate::error::DecodeError;
use crate::sink::Sink;

/// What to change.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dialect {
    /// Floats as float 32 (a finite double beyond its range is an error).
    pub single_float: bool,
    /// Strs and bins as the old raw type.
    pub old_raw: bool,
}

/// Why a rewrite failed.
#[derive(Debug, PartialEq)]
pub enum RewriteError {
    /// The input is no MessagePack value (the reader's error).
    Decode(DecodeError),
    /// A finite double too large for a float 32.
    FloatRange,
    /// No memory for the nesting.
    NoMemory,
}

/// Writes a raw (old-format str) header for `len` bytes.
pub fn write_raw_header<S: Sink>(out: &mut S, len: usize) {
    if len < 32 {
        out.push(0xa0 | len as u8);
    } else if len <= u16::MAX as usize {
        let b = (len as u16).to_be_bytes();
        out.extend(&[0xda, b[0], b[1]]);
    } else {
        let b = (len as u32).to_be_bytes();
        out.extend(&[0xdb, b[0], b[1], b[2], b[3]]);
    }
}

/// Writes a str header for `len` bytes, the smallest form (as the writer's
/// strs have): for text the caller encoded itself (an error handler's
/// bytes, which may not be UTF-8).
pub fn write_str_header<S: Sink>(out: &mut S, len: usize) {
    if len < 32 {
        out.push(0xa0 | len as u8);
    } else if len <= u8::MAX as usize {
        out.extend(&[0xd9, len as u8]);
    } else {
        write_raw_header(out, len);
    }
}

/// Rewrites the single value `input` into `out` in `dialect`.
pub fn rewrite<S: Sink>(input: &[u8], dialect: Dialect, out: &mut S) -> Result<(), RewriteError> {
    let opts = ReadOptions { plain_keys: true, ..ReadOptions::default() };
    let mut p = MsgpackPull::with_options(input, opts);
    // Items still to read in each open container; the reader checked the
    // input and its nesting when it was written.
    let mut left: Vec<usize> = Vec::new();
    loop {
        let item = p.next().map_err(RewriteError::Decode)?;
        match item {
            MsgpackItem::Nil => out.push(0xc0),
            MsgpackItem::Bool(v) => out.push(if v { 0xc3 } else { 0xc2 }),
            MsgpackItem::I64(v) => write_i64(out, v),
            MsgpackItem::U64(v) => write_u64(out, v),
            MsgpackItem::F32(v) => write_float(out, v as f64, dialect)?,
            MsgpackItem::F64(v) => write_float(out, v, dialect)?,
            MsgpackItem::Str(text) => write_text(out, text.as_bytes(), false, dialect),
            MsgpackItem::Bin(bytes) => write_text(out, bytes, true, dialect),
            MsgpackItem::Ext(tag, data) => write_ext(out, tag, data),
            MsgpackItem::Array(n) | MsgpackItem::Map(n) => {
                let is_map = matches!(item, MsgpackItem::Map(_));
                if is_map {
                    write_map_header(out, n)
                } else {
                    write_array_header(out, n)
                }
                if n != 0 {
                    let items = if is_map { 2 * n } else { n };
                    crate::fallible::push(&mut left, items).map_err(|_| RewriteError::NoMemory)?;
                    continue;
                }
            }
        }
        loop {
            let Some(top) = left.last_mut() else {
                return p.finish().map_err(RewriteError::Decode);
            };
            *top -= 1;
            if *top != 0 {
                break;
            }
            left.pop();
        }
    }
}

fn write_float<S: Sink>(out: &mut S, v: f64, dialect: Dialect) -> Result<(), RewriteError> {
    if dialect.single_float {
        let single = v as f32;
        if single.is_infinite() && v.is_finite() {
            return Err(RewriteError::FloatRange);
        }
        let b = single.to_be_bytes();
        out.extend(&[0xca, b[0], b[1], b[2], b[3]]);
    } else {
        super::writer::write_f64(out, v);
    }
    Ok(())
}

fn write_text<S: Sink>(out: &mut S, bytes: &[u8], is_bin: bool, dialect: Dialect) {
    if dialect.old_raw {
        write_raw_header(out, bytes.len());
        out.extend(bytes);
    } else if is_bin {
        super::writer::write_bin(out, bytes);
    } else {
        // The pull reader checked it as UTF-8.
        super::writer::write_utf8(out, bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(input: &[u8], dialect: Dialect) -> Result<Vec<u8>, RewriteError> {
        let mut out = Vec::new();
        rewrite(input, dialect, &mut out).map(|()| out)
    }

    #[test]
    fn str_header_is_the_writers() {
        for len in [0usize, 31, 32, 255, 256, 65535, 65536] {
            let text = vec![b'a'; len];
            let mut written = Vec::new();
            super::super::writer::write_utf8(&mut written, &text);
            let mut header = Vec::new();
            write_str_header(&mut header, len);
            assert_eq!(header[..], written[..written.len() - len], "{len}");
        }
    }

    #[test]
    fn floats_and_raw() {
        let single = Dialect { single_float: true, old_raw: false };
        let mut one = vec![0xcb];
        one.extend_from_slice(&1.0f64.to_be_bytes());
        let mut want = vec![0xca];
        want.extend_from_slice(&1.0f32.to_be_bytes());
        assert_eq!(rw(&one, single).unwrap(), want);
        let mut big = vec![0xcb];
        big.extend_from_slice(&1e300f64.to_be_bytes());
        assert_eq!(rw(&big, single), Err(RewriteError::FloatRange));
        let mut inf = vec![0xcb];
        inf.extend_from_slice(&f64::INFINITY.to_be_bytes());
        assert!(rw(&inf, single).is_ok());
        let raw = Dialect { single_float: false, old_raw: true };
        // str8 and bin8 become fixstr / raw16.
        let mut s = vec![0x92, 0xd9, 40];
        s.extend_from_slice(&[b'a'; 40]);
        s.extend_from_slice(&[0xc4, 1, 7]);
        let mut want = vec![0x92, 0xda, 0, 40];
        want.extend_from_slice(&[b'a'; 40]);
        want.extend_from_slice(&[0xa1, 7]);
        assert_eq!(rw(&s, raw).unwrap(), want);
        // Nothing asked: the same bytes.
        let doc = [0x82, 0xa1, b'k', 0x01, 0x02, 0xd4, 5, 0];
        assert_eq!(rw(&doc, Dialect::default()).unwrap(), doc);
    }
}

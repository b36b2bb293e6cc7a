//! The lexing both MessagePack drivers share: the push decoder
//! ([`reader`](super::reader)) and the pull reader ([`pull`](super::pull))
//! decode every header through [`match_header`], check declared lengths
//! against the input with [`Reader::body`] and [`container_len`], and
//! timestamps with [`timestamp`], so they accept, refuse and locate errors
//! alike by construction. What a driver does with each kind of item (build
//! it, hand it out, skip it) is its own.

use crate::error::{DecodeError, DecodeErrorKind as Kind, Failure};

pub(super) fn err<T, E>(kind: Kind, offset: usize) -> Result<T, Failure<E>> {
    Err(Failure::Syntax(DecodeError::new(kind, offset)))
}

/// The input and the position of the next unread byte.
pub(super) struct Reader<'a> {
    pub(super) input: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Reader<'a> {
    /// The next `N` bytes; `header` is the offset blamed when they are missing.
    #[inline(always)]
    pub(super) fn take<const N: usize, E>(&mut self, header: usize) -> Result<[u8; N], Failure<E>> {
        match self.input.get(self.pos..self.pos + N) {
            Some(bytes) => {
                self.pos += N;
                let mut out = [0u8; N];
                out.copy_from_slice(bytes);
                Ok(out)
            }
            None => err(Kind::UnexpectedEnd, header),
        }
    }

    /// The next `len` bytes, for a str/bin/ext body declared at `header`.
    #[inline(always)]
    pub(super) fn body<E>(&mut self, len: usize, what: &'static str, header: usize) -> Result<&'a [u8], Failure<E>> {
        let available = self.input.len() - self.pos;
        if len > available {
            return err(Kind::LengthBeyondInput { what, declared: len as u64, available: available as u64 }, header);
        }
        let bytes = &self.input[self.pos..self.pos + len];
        self.pos += len;
        Ok(bytes)
    }

    /// A length field of 1, 2 or 4 bytes, big-endian.
    #[inline(always)]
    pub(super) fn len<E>(&mut self, width: u8, header: usize) -> Result<usize, Failure<E>> {
        Ok(match width {
            1 => self.take::<1, E>(header)?[0] as usize,
            2 => u16::from_be_bytes(self.take(header)?) as usize,
            _ => u32::from_be_bytes(self.take(header)?) as usize,
        })
    }
}

/// The header bytes of a str (fixstr, str8, str16, str32), as a pattern:
/// `matches!(marker, str_marker!())`.
macro_rules! str_marker {
    () => {
        0xa0..=0xbf | 0xd9..=0xdb
    };
}
pub(super) use str_marker;

/// How many more bytes of input a container of `len` items declared at
/// `header` needs at least (one per item, a map's two per entry), checked
/// against the `available` bytes before anything is allocated for it.
#[inline(always)]
pub(super) fn container_len<E>(is_map: bool, len: usize, available: usize, header: usize) -> Result<usize, Failure<E>> {
    let needed = if is_map { len.saturating_mul(2) } else { len };
    if needed > available {
        let what = if is_map { "map" } else { "array" };
        return err(Kind::LengthBeyondInput { what, declared: len as u64, available: available as u64 }, header);
    }
    Ok(needed)
}

/// Seconds and nanoseconds of a timestamp extension payload (4, 8 or 12 bytes).
pub fn decode_timestamp(data: &[u8]) -> Option<(i64, u32)> {
    let (seconds, nanoseconds) = match data.len() {
        4 => (u32::from_be_bytes(data.try_into().ok()?) as i64, 0),
        8 => {
            let packed = u64::from_be_bytes(data.try_into().ok()?);
            ((packed & ((1 << 34) - 1)) as i64, (packed >> 34) as u32)
        }
        12 => (i64::from_be_bytes(data[4..].try_into().ok()?), u32::from_be_bytes(data[..4].try_into().ok()?)),
        _ => return None,
    };
    (nanoseconds < 1_000_000_000).then_some((seconds, nanoseconds))
}

/// The timestamp in the payload `data` of an extension -1 declared at
/// `header` (`InvalidTimestamp` when it is none of the three forms).
#[inline(always)]
pub(super) fn timestamp<E>(data: &[u8], header: usize) -> Result<(i64, u32), Failure<E>> {
    match decode_timestamp(data) {
        Some(ts) => Ok(ts),
        None => err(Kind::InvalidTimestamp { len: data.len() }, header),
    }
}

/// Decodes the item whose header byte `$marker` is at `$at` (`$r.pos`
/// just past it, `$r` a `&mut Reader`): reads its length field and body,
/// each checked against the input, binds the parts to the patterns of the
/// arm for its kind and evaluates that arm. Errors propagate with `?` as
/// `Failure<$E>`. Integers come as the family was written: `U64` for
/// positive fixints and uint 8-64, `I64` for negative fixints and int 8-64.
/// Strs come as bytes not yet checked as UTF-8 (each driver does, its own
/// way); containers come with their declared length, not yet checked
/// ([`container_len`]).
///
/// A macro, not a function handing a driver a decoded header or calling a
/// visitor: each driver's arms are spliced into the one `match`, so the
/// push decoder's hot loop keeps a single flat dispatch on the header byte
/// (an intermediate value or a call per kind changed how LLVM lowered and
/// inlined that loop).
macro_rules! match_header {
    ($r:expr, $marker:expr, $at:expr, $E:ty, {
        U64($u64:pat) => $on_u64:expr,
        I64($i64:pat) => $on_i64:expr,
        Nil => $on_nil:expr,
        Bool($bool:pat) => $on_bool:expr,
        F32($f32:pat) => $on_f32:expr,
        F64($f64:pat) => $on_f64:expr,
        Str($str:pat) => $on_str:expr,
        Bin($bin:pat) => $on_bin:expr,
        Ext($tag:pat, $data:pat) => $on_ext:expr,
        Array($array:pat) => $on_array:expr,
        Map($map:pat) => $on_map:expr $(,)?
    }) => {{
        let r: &mut $crate::msgpack::lex::Reader<'_> = $r;
        let marker: u8 = $marker;
        let at: usize = $at;
        match marker {
            0x00..=0x7f => {
                let $u64 = marker as u64;
                $on_u64
            }
            0x80..=0x8f => {
                let $map = (marker & 0x0f) as usize;
                $on_map
            }
            0x90..=0x9f => {
                let $array = (marker & 0x0f) as usize;
                $on_array
            }
            $crate::msgpack::lex::str_marker!() => {
                let len = match marker {
                    0xd9 => r.len(1, at)?,
                    0xda => r.len(2, at)?,
                    0xdb => r.len(4, at)?,
                    _ => (marker & 0x1f) as usize,
                };
                let $str = r.body(len, "str", at)?;
                $on_str
            }
            0xc0 => $on_nil,
            0xc1 => return $crate::msgpack::lex::err($crate::error::DecodeErrorKind::ReservedType(marker), at),
            0xc2 => {
                let $bool = false;
                $on_bool
            }
            0xc3 => {
                let $bool = true;
                $on_bool
            }
            0xc4..=0xc6 => {
                let len = r.len(1 << (marker - 0xc4), at)?;
                let $bin = r.body(len, "bin", at)?;
                $on_bin
            }
            0xc7..=0xc9 | 0xd4..=0xd8 => {
                let len = match marker {
                    0xc7..=0xc9 => r.len(1 << (marker - 0xc7), at)?,
                    _ => 1 << (marker - 0xd4),
                };
                let $tag = r.take::<1, $E>(at)?[0] as i8;
                let $data = r.body(len, "ext", at)?;
                $on_ext
            }
            0xca => {
                let $f32 = f32::from_be_bytes(r.take(at)?);
                $on_f32
            }
            0xcb => {
                let $f64 = f64::from_be_bytes(r.take(at)?);
                $on_f64
            }
            0xcc => {
                let $u64 = r.take::<1, $E>(at)?[0] as u64;
                $on_u64
            }
            0xcd => {
                let $u64 = u16::from_be_bytes(r.take(at)?) as u64;
                $on_u64
            }
            0xce => {
                let $u64 = u32::from_be_bytes(r.take(at)?) as u64;
                $on_u64
            }
            0xcf => {
                let $u64 = u64::from_be_bytes(r.take(at)?);
                $on_u64
            }
            0xd0 => {
                let $i64 = r.take::<1, $E>(at)?[0] as i8 as i64;
                $on_i64
            }
            0xd1 => {
                let $i64 = i16::from_be_bytes(r.take(at)?) as i64;
                $on_i64
            }
            0xd2 => {
                let $i64 = i32::from_be_bytes(r.take(at)?) as i64;
                $on_i64
            }
            0xd3 => {
                let $i64 = i64::from_be_bytes(r.take(at)?);
                $on_i64
            }
            0xdc => {
                let $array = r.len(2, at)?;
                $on_array
            }
            0xdd => {
                let $array = r.len(4, at)?;
                $on_array
            }
            0xde => {
                let $map = r.len(2, at)?;
                $on_map
            }
            0xdf => {
                let $map = r.len(4, at)?;
                $on_map
            }
            0xe0..=0xff => {
                let $i64 = marker as i8 as i64;
                $on_i64
            }
        }
    }};
}
pub(super) use match_header;

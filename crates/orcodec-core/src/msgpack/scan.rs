//! Where the value at the front of a stream ends, and how much of it a
//! resumable reader has consumed when it does not end yet: the model of
//! msgpack-python's streaming `Unpacker`, whose position (`tell()`) counts
//! every header, length field and body it has read of an incomplete value.
//!
//! A reader that resumes consumes a header byte as soon as it is there, then
//! a length field or a fixed-width number once all of its bytes are there,
//! then a str, bin or extension body once it is whole (an extension's type
//! byte belongs to its body). [`scan`] reports that count for a value that
//! does not end within the input, so the caller can decode the value in one
//! pass once it is whole (nothing is built here) and still report
//! msgpack-python's position meanwhile.
//!
//! Like msgpack-python it checks the declared item counts of arrays and maps
//! against limits at their headers, and the lengths of strs, bins and
//! extensions once their bodies are in; a non-empty container opened inside
//! [`MAX_DECODE_DEPTH`](crate::MAX_DECODE_DEPTH) open ones is a depth error.

use crate::error::{DecodeError, DecodeErrorKind as Kind};

/// The largest declared length of each kind a scan accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub str: usize,
    pub bin: usize,
    pub array: usize,
    pub map: usize,
    pub ext: usize,
}

impl Limits {
    /// No limit at all.
    pub const NONE: Limits =
        Limits { str: usize::MAX, bin: usize::MAX, array: usize::MAX, map: usize::MAX, ext: usize::MAX };
}

/// Where a scan stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scanned {
    /// The value is whole: its length in bytes.
    Whole(usize),
    /// The input ends inside the value: the bytes a resumable reader has
    /// consumed of it (0 for an empty input).
    Partial(usize),
}

/// Why a scan failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScanError {
    /// A reserved header byte, nesting too deep, or no memory for the
    /// nesting (kind and offset).
    Decode(DecodeError),
    /// A declared length over its limit: `what` is "str", "bin", "array",
    /// "map" or "ext", `len` the length as msgpack-python reports it (an
    /// extension's counts its type byte), `offset` the header.
    Limit { what: &'static str, len: usize, max: usize, offset: usize },
}

/// What a header byte announces: the width of the field after it and what
/// that field is.
enum Header {
    /// A value with nothing after the header byte.
    Done,
    /// A fixed-width number of `n` bytes.
    Fixed(usize),
    /// A str/bin/ext whose body length is a field of `width` bytes.
    Sized { what: &'static str, width: usize },
    /// A str/bin/ext whose body length is in the header byte itself.
    Body { what: &'static str, len: usize },
    /// An array or map whose count is a field of `width` bytes (0: in the header byte, `len`).
    Container { is_map: bool, width: usize, len: usize },
}

fn header(marker: u8) -> Option<Header> {
    Some(match marker {
        0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => Header::Done,
        0x80..=0x8f => Header::Container { is_map: true, width: 0, len: (marker & 0x0f) as usize },
        0x90..=0x9f => Header::Container { is_map: false, width: 0, len: (marker & 0x0f) as usize },
        0xa0..=0xbf => Header::Body { what: "str", len: (marker & 0x1f) as usize },
        0xc1 => return None,
        0xc4..=0xc6 => Header::Sized { what: "bin", width: 1 << (marker - 0xc4) },
        0xc7..=0xc9 => Header::Sized { what: "ext", width: 1 << (marker - 0xc7) },
        0xca | 0xce | 0xd2 => Header::Fixed(4),
        0xcb | 0xcf | 0xd3 => Header::Fixed(8),
        0xcc | 0xd0 => Header::Fixed(1),
        0xcd | 0xd1 => Header::Fixed(2),
        // fixext 1-16: the type byte and the data are one body.
        0xd4..=0xd8 => Header::Body { what: "ext", len: 1 + (1usize << (marker - 0xd4)) },
        0xd9..=0xdb => Header::Sized { what: "str", width: 1 << (marker - 0xd9) },
        0xdc | 0xdd => Header::Container { is_map: false, width: 2 << (marker - 0xdc), len: 0 },
        0xde | 0xdf => Header::Container { is_map: true, width: 2 << (marker - 0xde), len: 0 },
    })
}

fn be(bytes: &[u8]) -> usize {
    bytes.iter().fold(0usize, |acc, &b| (acc << 8) | b as usize)
}

/// Scans the value at the start of `input` (see the module docs). `frames`
/// is scratch space (the items left in each open container), kept by a
/// caller that scans often; it is left empty.
pub fn scan(input: &[u8], limits: &Limits, frames: &mut Vec<usize>) -> Result<Scanned, ScanError> {
    frames.clear();
    let result = scan_in(input, limits, frames, &mut 0);
    frames.clear();
    result
}

/// A [`scan`] that keeps its place between calls, for a value whose bytes
/// arrive in pieces: each call reads on from the item the last one stopped
/// in, so a value fed a byte at a time is read once in all, not once per
/// piece. After a whole value or an error it starts over.
#[derive(Default)]
pub struct Resumable {
    /// Offset of the item the last scan stopped in (0: not started).
    at: usize,
    /// The items left in each open container, as the last scan left them.
    frames: Vec<usize>,
}

impl Resumable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts over, for the next value.
    pub fn reset(&mut self) {
        self.at = 0;
        self.frames.clear();
    }

    /// Whether an earlier call stopped inside the value.
    pub fn started(&self) -> bool {
        self.at != 0 || !self.frames.is_empty()
    }

    /// Scans on in `input`, the bytes of the value received so far from its
    /// first (each call gives at least those of the last one, and the same
    /// `limits`): as [`scan`].
    pub fn scan(&mut self, input: &[u8], limits: &Limits) -> Result<Scanned, ScanError> {
        let result = scan_in(input, limits, &mut self.frames, &mut self.at);
        if !matches!(result, Ok(Scanned::Partial(_))) {
            self.reset();
        }
        result
    }
}

/// Scans from the item at `*resume` with the containers `frames` holds open,
/// leaving in `*resume` the item it stopped in.
fn scan_in(input: &[u8], limits: &Limits, frames: &mut Vec<usize>, resume: &mut usize) -> Result<Scanned, ScanError> {
    let mut pos = *resume;
    let limit = |what: &'static str, len: usize, max: usize, offset: usize| {
        if len > max {
            Err(ScanError::Limit { what, len, max, offset })
        } else {
            Ok(())
        }
    };
    loop {
        let at = pos;
        *resume = at;
        let Some(&marker) = input.get(at) else {
            return Ok(Scanned::Partial(at));
        };
        let Some(head) = header(marker) else {
            return Err(ScanError::Decode(DecodeError::new(Kind::ReservedType(marker), at)));
        };
        pos += 1;
        let rest = input.len() - pos;
        match head {
            Header::Done => {}
            Header::Fixed(n) => {
                if rest < n {
                    return Ok(Scanned::Partial(pos));
                }
                pos += n;
            }
            Header::Sized { what, width } | Header::Body { what, len: width } => {
                let len = if let Header::Sized { .. } = head {
                    if rest < width {
                        return Ok(Scanned::Partial(pos));
                    }
                    let len = be(&input[pos..pos + width]);
                    pos += width;
                    // The extension's type byte comes with its body.
                    if what == "ext" {
                        len + 1
                    } else {
                        len
                    }
                } else {
                    width
                };
                if input.len() - pos < len {
                    return Ok(Scanned::Partial(pos));
                }
                pos += len;
                match what {
                    "str" => limit(what, len, limits.str, at)?,
                    "bin" => limit(what, len, limits.bin, at)?,
                    _ => {
                        // msgpack-python compares the data's length with the
                        // limit and reports it with the type byte counted.
                        if len - 1 > limits.ext {
                            return Err(ScanError::Limit { what, len, max: limits.ext, offset: at });
                        }
                    }
                }
            }
            Header::Container { is_map, width, len } => {
                let len = if width == 0 {
                    len
                } else {
                    if rest < width {
                        return Ok(Scanned::Partial(pos));
                    }
                    let len = be(&input[pos..pos + width]);
                    pos += width;
                    len
                };
                if is_map {
                    limit("map", len, limits.map, at)?;
                } else {
                    limit("array", len, limits.array, at)?;
                }
                if len != 0 {
                    if frames.len() >= crate::MAX_DECODE_DEPTH {
                        return Err(ScanError::Decode(DecodeError::new(Kind::DepthLimit, at)));
                    }
                    let items = if is_map { len.saturating_mul(2) } else { len };
                    if crate::fallible::push(frames, items).is_err() {
                        return Err(ScanError::Decode(DecodeError::new(Kind::NoMemory, at)));
                    }
                    continue;
                }
            }
        }
        // An item is complete: close the containers it completes.
        loop {
            let Some(top) = frames.last_mut() else {
                return Ok(Scanned::Whole(pos));
            };
            *top -= 1;
            if *top != 0 {
                break;
            }
            frames.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(input: &[u8]) -> Result<Scanned, ScanError> {
        scan(input, &Limits::NONE, &mut Vec::new())
    }

    #[test]
    fn whole_values_end_where_the_reader_ends() {
        use crate::testing::AnyExt;
        let values: [&[u8]; 9] = [
            &[0x01],
            &[0x92, 0xa1, b'x', 0xc0],
            &[0x81, 0xa1, b'k', 0x93, 0x01, 0x02, 0xcb, 0, 0, 0, 0, 0, 0, 0, 0],
            &[0xd9, 0x03, b'a', b'b', b'c'],
            &[0xc4, 0x02, 0xff, 0x00],
            &[0xc7, 0x01, 0x05, 0xaa],
            &[0xd6, 0xff, 0, 0, 0, 1],
            &[0x90],
            &[0xdc, 0x00, 0x01, 0x80],
        ];
        for v in values {
            let mut stream = v.to_vec();
            stream.extend_from_slice(&[0x01, 0x02]);
            assert_eq!(s(&stream), Ok(Scanned::Whole(v.len())), "{v:x?}");
            let opts = crate::msgpack::reader::ReadOptions { plain_keys: true, ..Default::default() };
            let read = crate::msgpack::reader::read_prefix_with(
                &stream,
                &mut AnyExt,
                opts,
                &mut crate::msgpack::reader::ReadStacks::new(),
            );
            assert_eq!(read.map(|(_, len)| len).ok(), Some(v.len()), "{v:x?}");
            // Cut anywhere inside, the value is partial and what was
            // consumed never goes back as bytes arrive.
            let mut last = 0;
            for cut in 0..v.len() {
                match s(&v[..cut]) {
                    Ok(Scanned::Partial(n)) => {
                        assert!(n <= cut && n >= last, "{v:x?} cut at {cut}: {n}");
                        last = n;
                    }
                    other => panic!("{v:x?} cut at {cut}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn partial_counts_as_msgpack_python_does() {
        assert_eq!(s(&[]), Ok(Scanned::Partial(0)));
        assert_eq!(s(&[0x92]), Ok(Scanned::Partial(1)));
        assert_eq!(s(&[0x92, 0x01]), Ok(Scanned::Partial(2)));
        // A number waits for all of its bytes, its header is consumed.
        assert_eq!(s(&[0xcd, 0x01]), Ok(Scanned::Partial(1)));
        // A str8: header, then its length, then the whole body.
        assert_eq!(s(&[0xd9]), Ok(Scanned::Partial(1)));
        assert_eq!(s(&[0xd9, 0x05, b'a', b'b']), Ok(Scanned::Partial(2)));
        assert_eq!(s(&[0xa3, b'a']), Ok(Scanned::Partial(1)));
        // An extension's type byte is part of its body.
        assert_eq!(s(&[0xc7, 0x02, 0x05]), Ok(Scanned::Partial(2)));
        assert_eq!(s(&[0xd4, 0x05]), Ok(Scanned::Partial(1)));
        assert_eq!(s(&[0xde, 0x00]), Ok(Scanned::Partial(1)));
        assert_eq!(s(&[0x91, 0x92, 0xc0]), Ok(Scanned::Partial(3)));
    }

    #[test]
    fn a_resumed_scan_agrees_with_a_fresh_one_on_every_cut() {
        let mut value = vec![0x93, 0xcd, 0x01, 0x02, 0x82, 0xa1, b'k', 0xc7, 0x02, 0x05, 0xaa, 0xbb];
        value.extend_from_slice(&[0xa1, b'j', 0x91, 0x90, 0xd9, 0x03, b'a', b'b', b'c']);
        let limits = Limits::NONE;
        for step in 1..4 {
            let mut resumable = Resumable::new();
            let mut cut = 0;
            loop {
                let got = resumable.scan(&value[..cut], &limits);
                assert_eq!(got, s(&value[..cut]), "cut {cut}");
                if cut == value.len() {
                    assert_eq!(got, Ok(Scanned::Whole(value.len())));
                    assert!(!resumable.started());
                    break;
                }
                cut = (cut + step).min(value.len());
            }
        }
        // An error starts it over.
        let mut resumable = Resumable::new();
        assert_eq!(resumable.scan(&[0x92, 0x01], &limits), Ok(Scanned::Partial(2)));
        assert!(resumable.started());
        assert!(resumable.scan(&[0x92, 0x01, 0xc1], &limits).is_err());
        assert!(!resumable.started());
    }

    #[test]
    fn errors_and_limits() {
        let reserved = DecodeError::new(Kind::ReservedType(0xc1), 1);
        assert_eq!(s(&[0x92, 0xc1]), Err(ScanError::Decode(reserved)));
        let limits = Limits { str: 2, bin: 1, array: 3, map: 1, ext: 1 };
        let l = |b: &[u8]| scan(b, &limits, &mut Vec::new());
        assert_eq!(l(&[0xa2, b'a', b'b']), Ok(Scanned::Whole(3)));
        assert_eq!(l(&[0xa3, b'a', b'b', b'c']), Err(ScanError::Limit { what: "str", len: 3, max: 2, offset: 0 }));
        // A str is checked once its body is in, a container at its header.
        assert_eq!(l(&[0xa3, b'a']), Ok(Scanned::Partial(1)));
        assert_eq!(l(&[0x94]), Err(ScanError::Limit { what: "array", len: 4, max: 3, offset: 0 }));
        assert_eq!(l(&[0x91, 0x82]), Err(ScanError::Limit { what: "map", len: 2, max: 1, offset: 1 }));
        assert_eq!(l(&[0xc4, 0x02, 0, 0]), Err(ScanError::Limit { what: "bin", len: 2, max: 1, offset: 0 }));
        assert_eq!(l(&[0xd4, 0x01, 0x00]), Ok(Scanned::Whole(3)));
        assert_eq!(l(&[0xd5, 0x01, 0, 0]), Err(ScanError::Limit { what: "ext", len: 3, max: 1, offset: 0 }));
        let mut deep = vec![0x91; 1024];
        deep.push(0xc0);
        assert_eq!(s(&deep), Ok(Scanned::Whole(1025)));
        let mut too_deep = vec![0x91; 1025];
        too_deep.push(0xc0);
        assert_eq!(s(&too_deep), Err(ScanError::Decode(DecodeError::new(Kind::DepthLimit, 1024))));
    }
}

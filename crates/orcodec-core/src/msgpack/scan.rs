//! Where the value at the front of a stream ends, and how much of it a
//! resumable reader has consumed when it does not end yet: what both
//! streaming unpackers read the bytes they hold by, before they decode a
//! value from exactly its bytes (with the push decoder).
//!
//! Only headers are read: lengths and counts, not bodies (a str's UTF-8 and
//! everything else the decoder checks is checked then). [`Resumable`] keeps
//! its place between calls, so a value split across any number of pieces has
//! each header read once and a long body is passed over without reading it.
//!
//! The consumed count models msgpack-python's streaming `Unpacker`, whose
//! position (`tell()`) counts every header, length field and body it has
//! read of an incomplete value: a reader that resumes consumes a header byte
//! as soon as it is there, then a length field or a fixed-width number once
//! all of its bytes are there, then a str, bin or extension body once it is
//! whole (an extension's type byte belongs to its body).
//!
//! Refused, because the value could never be decoded or is over a limit:
//! - a header no value has (`0xc1`), at once;
//! - nesting deeper than [`MAX_DECODE_DEPTH`](crate::MAX_DECODE_DEPTH), at
//!   the header that opens the level too many (empty or not), as the decoder
//!   fails there;
//! - a value that could never fit in the bytes the caller can hold
//!   ([`Limits::value`]: a str of 4 GiB declared in a 16-byte message), at
//!   the header that says so;
//! - msgpack-python's `max_*_len` limits ([`Limits`]' others): the declared
//!   item counts of arrays and maps at their headers, the lengths of strs,
//!   bins and extensions once their bodies are in, as msgpack-python checks
//!   them.

use crate::error::{DecodeError, DecodeErrorKind as Kind};

/// The largest declared length of each kind a scan accepts, and the most
/// bytes the whole value may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub str: usize,
    pub bin: usize,
    pub array: usize,
    pub map: usize,
    pub ext: usize,
    pub value: usize,
}

impl Limits {
    /// No limit at all.
    pub const NONE: Limits = Limits {
        str: usize::MAX,
        bin: usize::MAX,
        array: usize::MAX,
        map: usize::MAX,
        ext: usize::MAX,
        value: usize::MAX,
    };
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
    /// The header at `offset` declares a body or a number of items that
    /// would take the value to at least `needed` bytes, beyond
    /// [`Limits::value`]; `what` is "value" for a number.
    TooLarge { what: &'static str, declared: u64, needed: u64, offset: usize },
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
    // The value reaches at least `needed` bytes (`declared`: what the header
    // at `offset` says): refused past `limits.value`.
    let fits = |what: &'static str, declared: usize, needed: u64, offset: usize| {
        if needed > limits.value as u64 {
            Err(ScanError::TooLarge { what, declared: declared as u64, needed, offset })
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
            Header::Done => fits("value", 0, pos as u64, at)?,
            Header::Fixed(n) => {
                fits("value", 0, (pos + n) as u64, at)?;
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
                let declared = if what == "ext" { len - 1 } else { len };
                fits(what, declared, pos as u64 + len as u64, at)?;
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
                        if declared > limits.ext {
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
                // Each item takes a byte at least (a map's entry two).
                let what = if is_map { "map" } else { "array" };
                fits(what, len, pos as u64 + ((len as u64) << is_map as u32), at)?;
                // Counted like the decoder: a level too many fails, even empty.
                if frames.len() >= crate::MAX_DECODE_DEPTH {
                    return Err(ScanError::Decode(DecodeError::new(Kind::DepthLimit, at)));
                }
                if len != 0 {
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
    use crate::testing::Rng;

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

    /// Scans `value` fed in the pieces `cuts` makes, checking that nothing
    /// completes early and the end is found once the last byte is there.
    fn scan_in_pieces(value: &[u8], cuts: &[usize]) -> Result<Scanned, ScanError> {
        let mut resumable = Resumable::new();
        for &cut in cuts {
            match resumable.scan(&value[..cut], &Limits::NONE)? {
                Scanned::Partial(_) => {}
                done => return Ok(done),
            }
        }
        resumable.scan(value, &Limits::NONE)
    }

    fn whole_values() -> Vec<Vec<u8>> {
        use crate::msgpack::writer as w;
        let mut values: Vec<Vec<u8>> = vec![
            vec![0x01],
            vec![0xe0],
            vec![0xc0],
            vec![0xcb, 0, 0, 0, 0, 0, 0, 0, 0],
            vec![0xca, 0, 0, 0, 0],
            vec![0xd3, 1, 2, 3, 4, 5, 6, 7, 8],
            vec![0x90],
            vec![0x80],
            vec![0x92, 0x90, 0x81, 0xa1, b'k', 0x91, 0xc0],
            vec![0xd4, 1, 0],
            vec![0xd8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            vec![0xc7, 0, 5],
        ];
        for len in [0usize, 31, 32, 255, 256, 65535, 65536] {
            let mut v = Vec::new();
            w::write_ascii(&mut v, &vec![b'x'; len]);
            values.push(v);
            let mut v = Vec::new();
            w::write_bin(&mut v, &vec![7; len]);
            values.push(v);
            let mut v = Vec::new();
            w::write_ext(&mut v, 3, &vec![7; len]);
            values.push(v);
        }
        for n in [15usize, 16, 65535, 65536] {
            let mut v = Vec::new();
            w::write_array_header(&mut v, n);
            v.extend_from_slice(&vec![0x01; n]);
            values.push(v);
            let mut v = Vec::new();
            w::write_map_header(&mut v, n);
            for _ in 0..n {
                v.extend_from_slice(&[0xa1, b'k', 0x90]);
            }
            values.push(v);
        }
        values
    }

    #[test]
    fn finds_the_end_of_every_kind_of_value_in_any_pieces() {
        let mut rng = Rng::new(0x0571_2ea4);
        for value in whole_values() {
            // Whole, with bytes of the next value after it.
            let mut more = value.clone();
            more.extend_from_slice(&[0x01, 0x02]);
            assert_eq!(s(&more), Ok(Scanned::Whole(value.len())), "{:x?}", &value[..1]);
            // One byte at a time (small ones), and random pieces.
            if value.len() < 300 {
                let cuts: Vec<usize> = (0..value.len()).collect();
                assert_eq!(scan_in_pieces(&value, &cuts), Ok(Scanned::Whole(value.len())));
            }
            for _ in 0..20 {
                let mut cuts: Vec<usize> = (0..rng.below(6)).map(|_| rng.below(value.len() as u64) as usize).collect();
                cuts.sort();
                assert_eq!(scan_in_pieces(&value, &cuts), Ok(Scanned::Whole(value.len())));
            }
        }
    }

    #[test]
    fn headers_are_read_once() {
        // A container of many items split into many pieces: each call reads
        // on from where the last stopped.
        let mut value = vec![0xdc, 0x03, 0xe8];
        value.extend_from_slice(&[0x01; 1000]);
        let mut resumable = Resumable::new();
        for cut in 1..value.len() {
            assert!(matches!(resumable.scan(&value[..cut], &Limits::NONE), Ok(Scanned::Partial(_))));
            assert_eq!(resumable.at, if cut < 3 { 0 } else { cut });
        }
        assert_eq!(resumable.scan(&value, &Limits::NONE), Ok(Scanned::Whole(value.len())));
    }

    #[test]
    fn agrees_with_the_decoder_on_random_values() {
        use crate::msgpack::reader::{read, ReadOptions};
        use crate::testing::AnyExt;
        let mut rng = Rng::new(0x0bad_5eed);
        let mut checked = 0;
        for _ in 0..20_000 {
            let len = rng.below(24) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8 >> (rng.below(3) * 2)).collect();
            match s(&bytes) {
                // Whatever the decoder says of those bytes alone, it does not
                // stop short of them or read past them.
                Ok(Scanned::Whole(n)) => {
                    let opts =
                        ReadOptions { non_str_keys: true, timestamps: false, bin_keys: false, plain_keys: false };
                    if let Err(crate::error::Failure::Syntax(e)) = read(&bytes[..n], &mut AnyExt, opts) {
                        assert!(
                            !matches!(
                                e.kind,
                                Kind::UnexpectedEnd | Kind::LengthBeyondInput { .. } | Kind::TrailingData
                            ),
                            "{bytes:x?}: {e:?}"
                        );
                    }
                    checked += 1;
                }
                // Incomplete: the decoder finds the end of the input too soon.
                Ok(Scanned::Partial(_)) => {
                    if let Err(crate::error::Failure::Syntax(e)) = read(
                        &bytes,
                        &mut AnyExt,
                        ReadOptions { non_str_keys: true, timestamps: false, bin_keys: false, plain_keys: false },
                    ) {
                        assert!(
                            !matches!(e.kind, Kind::TrailingData),
                            "{bytes:x?}: the decoder found a whole value: {e:?}"
                        );
                    } else {
                        panic!("{bytes:x?}: decoded, but the scan wants more");
                    }
                }
                Err(_) => {}
            }
        }
        assert!(checked > 5_000, "{checked}");
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
        let limits = Limits { str: 2, bin: 1, array: 3, map: 1, ext: 1, value: usize::MAX };
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
        // As the decoder counts it: an empty container a level too deep too.
        let mut deep_empty = vec![0x91; 1024];
        deep_empty.push(0x90);
        assert_eq!(s(&deep_empty), Err(ScanError::Decode(DecodeError::new(Kind::DepthLimit, 1024))));
        // 100,000 levels arriving: refused at the first level too many, the
        // open levels held stay at the limit.
        let mut resumable = Resumable::new();
        assert_eq!(resumable.scan(&[0x91; 500], &Limits::NONE), Ok(Scanned::Partial(500)));
        assert_eq!(
            resumable.scan(&[0x91; 100_000], &Limits::NONE),
            Err(ScanError::Decode(DecodeError::new(Kind::DepthLimit, 1024)))
        );
    }

    #[test]
    fn refuses_a_value_that_could_never_fit() {
        let fit = |input: &[u8], value: usize| scan(input, &Limits { value, ..Limits::NONE }, &mut Vec::new());
        // A 4 GiB str declared in a message: refused at its header.
        assert_eq!(
            fit(&[0x91, 0xdb, 0xff, 0xff, 0xff, 0xff, b'a'], 1 << 20),
            Err(ScanError::TooLarge { what: "str", declared: u32::MAX as u64, needed: 6 + u32::MAX as u64, offset: 1 })
        );
        // Maps need two bytes an entry; an extension's length is its data's.
        assert!(matches!(
            fit(&[0xde, 0x00, 0x10], 34),
            Err(ScanError::TooLarge { what: "map", declared: 16, needed: 35, .. })
        ));
        assert_eq!(fit(&[0xde, 0x00, 0x10], 35), Ok(Scanned::Partial(3)));
        assert!(matches!(
            fit(&[0xc7, 0x09, 0x01], 11),
            Err(ScanError::TooLarge { what: "ext", declared: 9, needed: 12, .. })
        ));
        assert!(matches!(fit(&[0xd5], 3), Err(ScanError::TooLarge { what: "ext", declared: 2, needed: 4, .. })));
        // Exactly the limit fits; a number is a "value".
        assert_eq!(fit(&[0xa3, b'a', b'b', b'c'], 4), Ok(Scanned::Whole(4)));
        assert_eq!(fit(&[0xcb], 8), Err(ScanError::TooLarge { what: "value", declared: 0, needed: 9, offset: 0 }));
        assert!(matches!(fit(&[0x92, 0x01, 0x02], 2), Err(ScanError::TooLarge { what: "array", .. })));
    }
}

//! Where a MessagePack value ends, in a stream that arrives in pieces.
//!
//! A streaming reader keeps the bytes received so far and must know when
//! they hold a whole value before it decodes one (with the push decoder,
//! [`reader::read`](super::reader::read), on exactly those bytes). [`Extent`]
//! finds out by reading headers only: lengths and counts, not bodies (a
//! str's UTF-8 and everything else the decoder checks is checked then). It
//! keeps its place between calls, so a value split across any number of
//! pieces has each header read once, and a long body is passed over
//! without reading its bytes.
//!
//! Two things are refused as soon as the header says so, because the value
//! could never be decoded: a header no value has (`0xc1`), and a value that
//! could never fit in the bytes the caller can hold (`limit`: a str of 4 GiB
//! declared in a 16-byte message). Nesting deeper than
//! [`MAX_DECODE_DEPTH`](crate::MAX_DECODE_DEPTH) fails at the header that
//! opens the level too many, as the decoder would fail when it got there,
//! without waiting for the rest; the decoder of the complete value reports
//! the first of its errors in reading order, which may be an earlier one.

use crate::error::{DecodeError, DecodeErrorKind as Kind};

/// Why a value can never be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtentError {
    /// A reserved header byte or nesting past the limit, as the decoder says it.
    Decode(DecodeError),
    /// The header at `offset` declares a body or a number of items that
    /// would take the value to at least `needed` bytes, beyond the limit.
    TooLarge { what: &'static str, declared: u64, needed: u64, offset: usize },
}

/// The scan of one value, resumable: see the module docs.
#[derive(Default)]
pub struct Extent {
    /// Offset (from the value's first byte) of the next header to read.
    pos: usize,
    /// Items still to come in each open container (a map counts keys and
    /// values), innermost last.
    open: Vec<u64>,
}

impl Extent {
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts over, for the next value.
    pub fn reset(&mut self) {
        self.pos = 0;
        self.open.clear();
    }

    /// Bytes of the value already scanned.
    pub fn scanned(&self) -> usize {
        self.pos
    }

    /// Reads on in `buf`, the bytes of the value received so far (from its
    /// first byte; each call gives at least those of the last one). `Some(n)`:
    /// the value is the first `n` bytes; `None`: more are needed; an error:
    /// the value can never be decoded. `limit`: the most bytes the value may
    /// take.
    pub fn scan(&mut self, buf: &[u8], limit: usize) -> Result<Option<usize>, ExtentError> {
        loop {
            let at = self.pos;
            let Some(&marker) = buf.get(at) else {
                return Ok(None);
            };
            // Header bytes (marker included) and what the header says of
            // the item: body length, or a container's kind and items.
            let (head, body, items, what): (usize, u64, Option<(bool, u64)>, &'static str) = match marker {
                0x00..=0x7f | 0xc0 | 0xc2 | 0xc3 | 0xe0..=0xff => (1, 0, None, ""),
                0x80..=0x8f => (1, 0, Some((true, (marker & 0x0f) as u64)), "map"),
                0x90..=0x9f => (1, 0, Some((false, (marker & 0x0f) as u64)), "array"),
                0xa0..=0xbf => (1, (marker & 0x1f) as u64, None, "str"),
                0xc1 => return Err(ExtentError::Decode(DecodeError::new(Kind::ReservedType(marker), at))),
                0xc4..=0xc6 | 0xc7..=0xc9 | 0xd9..=0xdb | 0xdc..=0xdf => {
                    let (width, what) = match marker {
                        0xc4..=0xc6 => (1 << (marker - 0xc4), "bin"),
                        0xc7..=0xc9 => (1 << (marker - 0xc7), "ext"),
                        0xd9..=0xdb => (1 << (marker - 0xd9), "str"),
                        0xdc | 0xdd => (2 << (marker - 0xdc), "array"),
                        _ => (2 << (marker - 0xde), "map"),
                    };
                    let Some(field) = buf.get(at + 1..at + 1 + width) else {
                        return Ok(None);
                    };
                    let n = field.iter().fold(0u64, |n, &b| n << 8 | b as u64);
                    match what {
                        "array" => (1 + width, 0, Some((false, n)), what),
                        "map" => (1 + width, 0, Some((true, n)), what),
                        // An ext's type byte follows its length.
                        "ext" => (2 + width, n, None, what),
                        _ => (1 + width, n, None, what),
                    }
                }
                0xca => (5, 0, None, ""),
                0xcb => (9, 0, None, ""),
                0xcc..=0xcf => (1 + (1 << (marker - 0xcc)), 0, None, ""),
                0xd0..=0xd3 => (1 + (1 << (marker - 0xd0)), 0, None, ""),
                // fixext 1..16: the type byte, then the payload.
                0xd4..=0xd8 => (2, 1 << (marker - 0xd4), None, "ext"),
            };
            // Each item of a container takes a byte at least (a map's two).
            let least = match items {
                Some((is_map, n)) => n << is_map as u32,
                None => body,
            };
            let needed = (at + head) as u64 + least;
            if needed > limit as u64 {
                let declared = items.map_or(body, |(_, n)| n);
                let what = if what.is_empty() { "value" } else { what };
                return Err(ExtentError::TooLarge { what, declared, needed, offset: at });
            }
            let end = at + head + if items.is_some() { 0 } else { body as usize };
            if end > buf.len() {
                return Ok(None);
            }
            self.pos = end;
            if let Some((is_map, n)) = items {
                // Counted like the decoder: a level too many fails, even empty.
                if self.open.len() >= crate::MAX_DECODE_DEPTH {
                    return Err(ExtentError::Decode(DecodeError::new(Kind::DepthLimit, at)));
                }
                if n != 0 {
                    crate::fallible::push(&mut self.open, n << is_map as u32)
                        .map_err(|_| ExtentError::Decode(DecodeError::new(Kind::NoMemory, at)))?;
                    continue;
                }
            }
            // An item ended: the containers it completes end too.
            loop {
                let Some(remaining) = self.open.last_mut() else {
                    return Ok(Some(self.pos));
                };
                *remaining -= 1;
                if *remaining != 0 {
                    break;
                }
                self.open.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    /// Scans `value` fed in the pieces `cuts` makes, checking that nothing
    /// completes early and the end is found once the last byte is there.
    fn scan_in_pieces(value: &[u8], cuts: &[usize]) -> Result<Option<usize>, ExtentError> {
        let mut extent = Extent::new();
        for &cut in cuts {
            match extent.scan(&value[..cut], usize::MAX)? {
                None => {}
                done => return Ok(done),
            }
        }
        extent.scan(value, usize::MAX)
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
            assert_eq!(Extent::new().scan(&more, usize::MAX), Ok(Some(value.len())), "{:x?}", &value[..1]);
            // One byte at a time (small ones), and random pieces.
            if value.len() < 300 {
                let cuts: Vec<usize> = (0..value.len()).collect();
                assert_eq!(scan_in_pieces(&value, &cuts), Ok(Some(value.len())));
            }
            for _ in 0..20 {
                let mut cuts: Vec<usize> = (0..rng.below(6)).map(|_| rng.below(value.len() as u64) as usize).collect();
                cuts.sort();
                assert_eq!(scan_in_pieces(&value, &cuts), Ok(Some(value.len())));
            }
        }
    }

    #[test]
    fn headers_are_read_once() {
        // A container of many items split into many pieces: each call reads
        // on from where the last stopped.
        let mut value = vec![0xdc, 0x03, 0xe8];
        value.extend_from_slice(&[0x01; 1000]);
        let mut extent = Extent::new();
        for cut in 1..value.len() {
            assert_eq!(extent.scan(&value[..cut], usize::MAX), Ok(None));
            assert_eq!(extent.scanned(), if cut < 3 { 0 } else { cut });
        }
        assert_eq!(extent.scan(&value, usize::MAX), Ok(Some(value.len())));
    }

    #[test]
    fn refuses_what_could_never_be_decoded() {
        let mut extent = Extent::new();
        assert_eq!(
            extent.scan(&[0x92, 0x01, 0xc1], 100),
            Err(ExtentError::Decode(DecodeError::new(Kind::ReservedType(0xc1), 2)))
        );
        // A 4 GiB str declared in a message: refused at its header.
        let bomb = [0x91, 0xdb, 0xff, 0xff, 0xff, 0xff, b'a'];
        assert_eq!(
            Extent::new().scan(&bomb, 1 << 20),
            Err(ExtentError::TooLarge {
                what: "str",
                declared: u32::MAX as u64,
                needed: 6 + u32::MAX as u64,
                offset: 1
            })
        );
        // Maps need two bytes an entry.
        assert!(matches!(
            Extent::new().scan(&[0xde, 0x00, 0x10], 34),
            Err(ExtentError::TooLarge { what: "map", declared: 16, needed: 35, .. })
        ));
        assert_eq!(Extent::new().scan(&[0xde, 0x00, 0x10], 35), Ok(None));
        // Exactly the limit fits.
        assert_eq!(Extent::new().scan(&[0xa3, b'a', b'b', b'c'], 4), Ok(Some(4)));
        assert!(Extent::new().scan(&[0xcb], 8).is_err());
        // Depth: as the decoder counts it.
        let mut deep = vec![0x91; 1024];
        deep.push(0x90);
        assert_eq!(
            Extent::new().scan(&deep, usize::MAX),
            Err(ExtentError::Decode(DecodeError::new(Kind::DepthLimit, 1024)))
        );
        let mut ok = vec![0x91; 1023];
        ok.push(0x90);
        assert_eq!(Extent::new().scan(&ok, usize::MAX), Ok(Some(1024)));
        // 100,000 levels arriving: refused at the first level too many, the
        // open levels held stay at the limit.
        let mut extent = Extent::new();
        let bomb = vec![0x91; 100_000];
        assert_eq!(extent.scan(&bomb, usize::MAX), Err(ExtentError::Decode(DecodeError::new(Kind::DepthLimit, 1024))));
        assert!(extent.open.len() <= crate::MAX_DECODE_DEPTH);
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
            match Extent::new().scan(&bytes, usize::MAX) {
                // Whatever the decoder says of those bytes alone, it does not
                // stop short of them or read past them.
                Ok(Some(n)) => {
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
                Ok(None) => {
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
}

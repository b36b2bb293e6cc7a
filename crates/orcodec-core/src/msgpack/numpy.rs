//! The numpy extension payload: one ndarray or numpy scalar as a single
//! MessagePack extension value, a small header followed by the raw elements.
//! `doc/numpy.md` describes it byte by byte for readers in other languages.
//!
//! ```text
//! offset        size      field
//! 0             1         flags: bit 0 set for a numpy scalar, the other bits 0
//! 1             1         ndim: number of dimensions, 0 to 64 (0 for a scalar)
//! 2             1         L: length of the dtype string, 1 to 32
//! 3             1         P: bytes of padding before the data
//! 4             L         dtype string, ASCII: numpy's `dtype.str` ("<f8", "|b1", "<M8[ns]")
//! 4+L           8*ndim    the dimensions, each an unsigned 64-bit big-endian integer
//! 4+L+8*ndim    P         padding (written as zeros, ignored when read)
//! 4+L+8*ndim+P  the rest  the elements in C order, in the dtype's byte order
//! ```
//!
//! The writer picks P so that the data starts at a multiple of the element
//! size (at most 8) from the start of the output, so an array read in place
//! from a buffer that starts aligned is aligned too.
//!
//! [`parse`] checks everything before a reader allocates anything: the flags,
//! the dtype string against the closed list of element types, every length
//! against the payload, each dimension against numpy's limit, and that the
//! product of the dimensions times the element size is exactly the length of
//! the data, without overflow.

use core::fmt;

/// The extension type written unless the caller picks another.
pub const DEFAULT_CODE: i8 = 78;
/// The most dimensions a payload may declare (numpy 2's limit).
pub const MAX_NDIM: usize = 64;
/// The longest dtype string a payload may hold; the longest valid one,
/// `<M8[2147483647as]`, has 17 bytes.
pub const MAX_DTYPE_LEN: usize = 32;
/// Bytes before the dtype string.
pub const FIXED_HEADER: usize = 4;
/// Flag bit: the payload is a numpy scalar, not an array.
pub const FLAG_SCALAR: u8 = 1;
/// numpy's largest size of anything (`NPY_MAX_INTP` on 64-bit machines).
const MAX_SIZE: u64 = i64::MAX as u64;

/// What the elements are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bool,
    Int,
    UInt,
    Float,
    Complex,
    DateTime,
    TimeDelta,
}

/// A dtype string that passed the closed list: what it is and how wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DType<'a> {
    pub text: &'a str,
    pub kind: Kind,
    pub itemsize: usize,
}

/// The datetime64/timedelta64 units numpy knows.
const UNITS: [&[u8]; 13] = [b"Y", b"M", b"W", b"D", b"h", b"m", b"s", b"ms", b"us", b"ns", b"ps", b"fs", b"as"];

/// A unit in brackets: `[ns]`, `[10ms]` (a multiple from 1 to 2**31-1, no
/// leading zero).
fn valid_unit(bracketed: &[u8]) -> bool {
    let Some(inner) = bracketed.strip_prefix(b"[").and_then(|b| b.strip_suffix(b"]")) else {
        return false;
    };
    let digits = inner.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 {
        if inner[0] == b'0' || digits > 10 {
            return false;
        }
        let count = inner[..digits].iter().fold(0u64, |n, &d| n * 10 + (d - b'0') as u64);
        if count > i32::MAX as u64 {
            return false;
        }
    }
    UNITS.contains(&&inner[digits..])
}

/// `text` as a dtype the extension carries, or None. Only numpy's own
/// spelling (`dtype.str`) is accepted: `|` for one-byte types, `<` or `>`
/// for the others; bool, int and uint of 1 to 8 bytes, float16/32/64,
/// complex64/128, and datetime64/timedelta64 with or without a unit.
pub fn parse_dtype(text: &[u8]) -> Option<DType<'_>> {
    let [order, kind, rest @ ..] = text else {
        return None;
    };
    let kind = match kind {
        b'b' => Kind::Bool,
        b'i' => Kind::Int,
        b'u' => Kind::UInt,
        b'f' => Kind::Float,
        b'c' => Kind::Complex,
        b'M' => Kind::DateTime,
        b'm' => Kind::TimeDelta,
        _ => return None,
    };
    let (itemsize, rest) = match rest {
        [b'1', b'6', rest @ ..] => (16, rest),
        [digit @ b'1'..=b'8', rest @ ..] => ((digit - b'0') as usize, rest),
        _ => return None,
    };
    let size_ok = match kind {
        Kind::Bool => itemsize == 1,
        Kind::Int | Kind::UInt => matches!(itemsize, 1 | 2 | 4 | 8),
        Kind::Float => matches!(itemsize, 2 | 4 | 8),
        Kind::Complex => matches!(itemsize, 8 | 16),
        Kind::DateTime | Kind::TimeDelta => itemsize == 8,
    };
    let order_ok = if itemsize == 1 { *order == b'|' } else { matches!(order, b'<' | b'>') };
    let rest_ok = match kind {
        Kind::DateTime | Kind::TimeDelta => rest.is_empty() || valid_unit(rest),
        _ => rest.is_empty(),
    };
    if !(size_ok && order_ok && rest_ok) {
        return None;
    }
    // Every byte checked above is ASCII.
    let text = core::str::from_utf8(text).ok()?;
    Some(DType { text, kind, itemsize })
}

/// Why a payload is not a numpy array or scalar. The `Display` text is the
/// message users see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NumpyExtError {
    /// The payload ends inside its header.
    Truncated {
        header: usize,
        len: usize,
    },
    Flags(u8),
    TooManyDimensions(u8),
    ScalarWithDimensions(u8),
    DTypeLength(u8),
    /// The dtype string, as found (not necessarily text).
    UnknownDType(Vec<u8>),
    DimensionTooLarge {
        index: usize,
        value: u64,
    },
    /// The dimensions times the element size overflow numpy's sizes.
    TooLarge,
    DataLength {
        expected: u64,
        actual: usize,
    },
}

impl fmt::Display for NumpyExtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NumpyExtError::Truncated { header, len } => {
                write!(f, "payload of {len} bytes ends inside its {header}-byte header")
            }
            NumpyExtError::Flags(flags) => write!(f, "unknown flags 0x{flags:02x}"),
            NumpyExtError::TooManyDimensions(n) => write!(f, "{n} dimensions (at most {MAX_NDIM})"),
            NumpyExtError::ScalarWithDimensions(n) => write!(f, "a scalar with {n} dimensions"),
            NumpyExtError::DTypeLength(n) => write!(f, "dtype string of {n} bytes (1 to {MAX_DTYPE_LEN})"),
            NumpyExtError::UnknownDType(text) => {
                write!(f, "unsupported dtype {:?}", String::from_utf8_lossy(text))
            }
            NumpyExtError::DimensionTooLarge { index, value } => {
                write!(f, "dimension {index} is {value} (at most 2**63-1)")
            }
            NumpyExtError::TooLarge => write!(f, "the shape is too large"),
            NumpyExtError::DataLength { expected, actual } => {
                write!(f, "the shape and dtype need {expected} bytes of data, the payload has {actual}")
            }
        }
    }
}

/// A checked payload.
#[derive(Clone, Copy, Debug)]
pub struct Header<'a> {
    pub scalar: bool,
    pub dtype: DType<'a>,
    /// The dimensions as stored: 8 big-endian bytes each.
    dims: &'a [u8],
    /// The elements: exactly the product of the dimensions times the element size.
    pub data: &'a [u8],
}

impl<'a> Header<'a> {
    pub fn ndim(&self) -> usize {
        self.dims.len() / 8
    }

    /// The dimensions, each at most 2**63-1.
    pub fn dims(&self) -> impl ExactSizeIterator<Item = u64> + 'a {
        self.dims.chunks_exact(8).map(|d| u64::from_be_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]]))
    }
}

/// Reads and checks a payload (see the module's description).
pub fn parse(payload: &[u8]) -> Result<Header<'_>, NumpyExtError> {
    let [flags, ndim, dtype_len, pad, ..] = *payload else {
        return Err(NumpyExtError::Truncated { header: FIXED_HEADER, len: payload.len() });
    };
    if flags & !FLAG_SCALAR != 0 {
        return Err(NumpyExtError::Flags(flags));
    }
    let scalar = flags & FLAG_SCALAR != 0;
    if ndim as usize > MAX_NDIM {
        return Err(NumpyExtError::TooManyDimensions(ndim));
    }
    if scalar && ndim != 0 {
        return Err(NumpyExtError::ScalarWithDimensions(ndim));
    }
    if dtype_len == 0 || dtype_len as usize > MAX_DTYPE_LEN {
        return Err(NumpyExtError::DTypeLength(dtype_len));
    }
    let (dtype_len, ndim, pad) = (dtype_len as usize, ndim as usize, pad as usize);
    let header = header_len(dtype_len, ndim, pad);
    if payload.len() < header {
        return Err(NumpyExtError::Truncated { header, len: payload.len() });
    }
    let dtype_text = &payload[FIXED_HEADER..FIXED_HEADER + dtype_len];
    let dtype = parse_dtype(dtype_text).ok_or_else(|| NumpyExtError::UnknownDType(dtype_text.to_vec()))?;
    let dims_at = FIXED_HEADER + dtype_len;
    let dims = &payload[dims_at..dims_at + 8 * ndim];
    let data = &payload[header..];
    let parsed = Header { scalar, dtype, dims, data };
    let expected = checked_size(parsed.dims(), dtype.itemsize)?;
    if expected != data.len() as u64 {
        return Err(NumpyExtError::DataLength { expected, actual: data.len() });
    }
    Ok(parsed)
}

/// Bytes of data an array of `dims` with elements of `itemsize` bytes holds,
/// checked as numpy checks a new array: no dimension beyond 2**63-1, and the
/// product of the dimensions that are not zero, times the item size, at most
/// that too (so an empty array's other dimensions cannot overflow either).
pub fn checked_size(dims: impl Iterator<Item = u64>, itemsize: usize) -> Result<u64, NumpyExtError> {
    let mut nonzero = itemsize as u64;
    let mut empty = false;
    for (index, value) in dims.enumerate() {
        if value > MAX_SIZE {
            return Err(NumpyExtError::DimensionTooLarge { index, value });
        }
        if value == 0 {
            empty = true;
            continue;
        }
        nonzero = nonzero.checked_mul(value).filter(|&n| n <= MAX_SIZE).ok_or(NumpyExtError::TooLarge)?;
    }
    Ok(if empty { 0 } else { nonzero })
}

/// Bytes of a header with a dtype string of `dtype_len` bytes, `ndim`
/// dimensions and `pad` bytes of padding.
pub const fn header_len(dtype_len: usize, ndim: usize, pad: usize) -> usize {
    FIXED_HEADER + dtype_len + 8 * ndim + pad
}

/// Writes a header into `out`, which is exactly `header_len` bytes long.
pub fn write_header(out: &mut [u8], scalar: bool, dtype: &str, dims: impl ExactSizeIterator<Item = u64>, pad: usize) {
    let ndim = dims.len();
    debug_assert!(dtype.len() <= MAX_DTYPE_LEN && ndim <= MAX_NDIM && pad <= u8::MAX as usize);
    debug_assert_eq!(out.len(), header_len(dtype.len(), ndim, pad));
    out[0] = if scalar { FLAG_SCALAR } else { 0 };
    out[1] = ndim as u8;
    out[2] = dtype.len() as u8;
    out[3] = pad as u8;
    let mut at = FIXED_HEADER;
    out[at..at + dtype.len()].copy_from_slice(dtype.as_bytes());
    at += dtype.len();
    for dim in dims {
        out[at..at + 8].copy_from_slice(&dim.to_be_bytes());
        at += 8;
    }
    out[at..].fill(0);
}

/// The padding to put before the data so that it starts at a multiple of
/// `align` (a power of two up to 8) in the output, when the extension value
/// is written at `at`, its header without padding is `header` bytes and its
/// data `data_len` bytes. The extension's own header is 2 to 6 bytes
/// depending on the payload length, which the padding changes (and not
/// monotonically: fixext forms are shorter than ext8); trying every padding
/// up to four times the alignment always finds one.
pub fn padding(at: usize, header: usize, data_len: usize, align: usize) -> usize {
    debug_assert!(align.is_power_of_two() && align <= 8);
    (0..4 * align)
        .find(|&pad| {
            let payload = header + pad + data_len;
            (at + super::writer::ext_header_len(payload) + header + pad).is_multiple_of(align)
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(flags: u8, dtype: &str, dims: &[u64], pad: usize, data: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; header_len(dtype.len(), dims.len(), pad)];
        write_header(&mut out, flags & FLAG_SCALAR != 0, dtype, dims.iter().copied(), pad);
        out[0] = flags;
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn every_dtype_numpy_writes() {
        for (text, kind, size) in [
            ("|b1", Kind::Bool, 1),
            ("|i1", Kind::Int, 1),
            ("<i2", Kind::Int, 2),
            (">i4", Kind::Int, 4),
            ("<i8", Kind::Int, 8),
            ("|u1", Kind::UInt, 1),
            ("<u2", Kind::UInt, 2),
            ("<u4", Kind::UInt, 4),
            (">u8", Kind::UInt, 8),
            ("<f2", Kind::Float, 2),
            ("<f4", Kind::Float, 4),
            (">f8", Kind::Float, 8),
            ("<c8", Kind::Complex, 8),
            (">c16", Kind::Complex, 16),
            ("<M8", Kind::DateTime, 8),
            ("<M8[ns]", Kind::DateTime, 8),
            (">M8[10ms]", Kind::DateTime, 8),
            ("<M8[2147483647as]", Kind::DateTime, 8),
            ("<m8[Y]", Kind::TimeDelta, 8),
            ("<m8[us]", Kind::TimeDelta, 8),
        ] {
            assert_eq!(parse_dtype(text.as_bytes()), Some(DType { text, kind, itemsize: size }), "{text}");
        }
    }

    #[test]
    fn everything_else_is_refused() {
        for text in [
            "",
            "<",
            "f8",
            "=f8",
            "<f8 ",
            "|O",
            "<O8",
            "|V8",
            "|S5",
            "<U3",
            "<f16",
            "<c32",
            "<f1",
            "<i3",
            "<i16",
            "<b1",
            "|b2",
            "<i1",
            "|i2",
            "<M4",
            "<M8[",
            "<M8[]",
            "<M8[ns",
            "<M8[0ms]",
            "<M8[01ms]",
            "<M8[B]",
            "<M8[2147483648s]",
            "<M8[99999999999s]",
            "<M8[ns]x",
            "<f8[ns]",
            "<T",
            "<M8[μs]",
            "\u{0}f8",
        ] {
            assert_eq!(parse_dtype(text.as_bytes()), None, "{text:?}");
        }
        assert_eq!(parse_dtype(&[b'<', b'f', b'8', 0xff]), None);
    }

    #[test]
    fn headers_round_trip() {
        let data: Vec<u8> = (0..48).collect();
        for pad in [0, 3, 7, 15] {
            let p = payload(0, "<f8", &[2, 3], pad, &data);
            assert_eq!(p.len(), 4 + 3 + 16 + pad + 48);
            let h = parse(&p).unwrap();
            assert!(!h.scalar);
            assert_eq!(h.dtype.text, "<f8");
            assert_eq!(h.dims().collect::<Vec<_>>(), [2, 3]);
            assert_eq!(h.ndim(), 2);
            assert_eq!(h.data, &data[..]);
        }
        let p = payload(FLAG_SCALAR, "<c16", &[], 0, &[7; 16]);
        assert_eq!(&p[..4], &[1, 0, 4, 0]);
        let h = parse(&p).unwrap();
        assert!(h.scalar && h.ndim() == 0 && h.data == [7; 16]);
        // Zero-size dimensions: no data, the other dimensions still checked.
        let empty = payload(0, "<i4", &[0, 5, 1 << 40], 0, &[]);
        let h = parse(&empty).unwrap();
        assert_eq!(h.dims().collect::<Vec<_>>(), [0, 5, 1 << 40]);
        // 64 dimensions of 1.
        assert!(parse(&payload(0, "|u1", &[1; 64], 0, &[9])).is_ok());
    }

    #[test]
    fn hostile_headers() {
        use NumpyExtError as E;
        let fail = |p: &[u8]| parse(p).unwrap_err();
        for short in 0..4 {
            assert_eq!(fail(&[0, 0, 3, 0][..short]), E::Truncated { header: 4, len: short });
        }
        assert_eq!(fail(&payload(2, "<f8", &[], 0, &[0; 8])), E::Flags(2));
        assert_eq!(fail(&payload(0x80, "<f8", &[], 0, &[0; 8])), E::Flags(0x80));
        assert_eq!(fail(&payload(1, "<f8", &[1], 0, &[0; 8])), E::ScalarWithDimensions(1));
        let mut many = payload(0, "|u1", &[1; 64], 0, &[9]);
        many[1] = 65;
        assert_eq!(fail(&many), E::TooManyDimensions(65));
        assert_eq!(fail(&[0, 0, 0, 0]), E::DTypeLength(0));
        assert_eq!(fail(&[0, 0, 33, 0]), E::DTypeLength(33));
        // Each length field pointing past the end.
        assert_eq!(fail(&[0, 0, 3, 0, b'<', b'f']), E::Truncated { header: 7, len: 6 });
        assert_eq!(fail(&payload(0, "<f8", &[1], 0, &[0; 8])[..14]), E::Truncated { header: 15, len: 14 });
        let mut padded = payload(0, "<f8", &[], 0, &[]);
        padded[3] = 200;
        assert_eq!(fail(&padded), E::Truncated { header: 207, len: 7 });
        assert_eq!(fail(&payload(0, "|O", &[1], 0, &[0; 8])), E::UnknownDType(b"|O".to_vec()));
        // Data length disagreeing with the shape, either way.
        let expected = E::DataLength { expected: 48, actual: 40 };
        assert_eq!(fail(&payload(0, "<f8", &[2, 3], 0, &[0; 40])), expected);
        assert_eq!(fail(&payload(0, "<f8", &[2, 3], 0, &[0; 56])), E::DataLength { expected: 48, actual: 56 });
        assert_eq!(fail(&payload(0, "<f8", &[0, 3], 0, &[0; 8])), E::DataLength { expected: 0, actual: 8 });
        // A dimension that would be negative as numpy's signed size, and products that overflow.
        let negative = 1u64 << 63;
        assert_eq!(fail(&payload(0, "<f8", &[negative], 0, &[])), E::DimensionTooLarge { index: 0, value: negative });
        assert_eq!(
            fail(&payload(0, "<f8", &[0, u64::MAX], 0, &[])),
            E::DimensionTooLarge { index: 1, value: u64::MAX }
        );
        assert_eq!(fail(&payload(0, "<f8", &[1 << 31, 1 << 31], 0, &[])), E::TooLarge);
        assert_eq!(fail(&payload(0, "<f8", &[0, 1 << 32, 1 << 31], 0, &[])), E::TooLarge);
        // 2**61 elements of 8 bytes is 2**64: overflows u64 itself.
        assert_eq!(fail(&payload(0, "<f8", &[1 << 61], 0, &[])), E::TooLarge);
        assert_eq!(fail(&payload(0, "|u1", &[1 << 62, 2], 0, &[])), E::TooLarge);
    }

    #[test]
    fn padding_aligns_the_data() {
        for at in 0..40 {
            for header in [7, 15, 30] {
                for data_len in [0, 1, 8, 9, 100, 240, 250, 255, 65_520, 65_535, 70_000] {
                    for align in [1, 2, 4, 8] {
                        let pad = padding(at, header, data_len, align);
                        assert!(pad < 4 * align);
                        let payload = header + pad + data_len;
                        let start = at + crate::msgpack::writer::ext_header_len(payload) + header + pad;
                        assert_eq!(start % align, 0, "{at} {header} {data_len} {align}");
                    }
                }
            }
        }
    }
}

//! Decode errors: what went wrong and at which byte offset of the input.

use core::fmt;

/// What a decoder rejected. The `Display` text is the message users see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeErrorKind {
    EmptyDocument,
    UnexpectedEnd,
    UnexpectedByte {
        found: u8,
        expected: &'static str,
    },
    TrailingData,
    TrailingComma,
    DepthLimit,
    InvalidUtf8,
    InvalidNumber,
    /// A JSON number beyond the doubles (`1e400`), refused by builders that
    /// ask for finite numbers ([`Builder::FINITE_NUMBERS`](crate::builder::Builder::FINITE_NUMBERS)).
    NumberOutOfRange,
    InvalidEscape,
    ControlCharacterInString,
    LoneSurrogate,
    InvalidLiteral,
    // MessagePack only
    ReservedType(u8),
    LengthBeyondInput {
        what: &'static str,
        declared: u64,
        available: u64,
    },
    NonStrKey,
    /// A map used as a map key (with non-str keys allowed): not hashable.
    MapKey,
    /// An extension used as a map key (with non-str keys allowed), other
    /// than a timestamp read as a datetime.
    ExtKey,
    ExtensionType(i8),
    /// An extension -1 whose payload is not one of the timestamp forms.
    InvalidTimestamp {
        len: usize,
    },
    /// Memory for the decoder's own work (its value stack, an unescaped
    /// string) could not be had. Not the input's fault: the extension
    /// raises `MemoryError` for it, not the format's error.
    NoMemory,
}

/// A decoder failure at `offset` bytes into the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub kind: DecodeErrorKind,
    pub offset: usize,
}

impl DecodeError {
    pub fn new(kind: DecodeErrorKind, offset: usize) -> Self {
        DecodeError { kind, offset }
    }
}

fn describe_byte(f: &mut fmt::Formatter<'_>, b: u8) -> fmt::Result {
    if b.is_ascii_graphic() || b == b' ' {
        write!(f, "'{}'", b as char)
    } else {
        write!(f, "byte 0x{b:02x}")
    }
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use DecodeErrorKind::*;
        match self {
            EmptyDocument => f.write_str("empty document: expected a value"),
            UnexpectedEnd => f.write_str("unexpected end of input"),
            UnexpectedByte { found, expected } => {
                f.write_str("unexpected ")?;
                describe_byte(f, *found)?;
                write!(f, ", expected {expected}")
            }
            TrailingData => f.write_str("trailing data after the value"),
            TrailingComma => f.write_str("trailing comma is not allowed"),
            DepthLimit => write!(f, "nesting deeper than {} levels", crate::MAX_DECODE_DEPTH),
            InvalidUtf8 => f.write_str("invalid UTF-8"),
            InvalidNumber => f.write_str("invalid number"),
            NumberOutOfRange => f.write_str("number beyond the range of a double (about 1.8e308)"),
            InvalidEscape => f.write_str("invalid escape sequence in string"),
            ControlCharacterInString => {
                f.write_str("unescaped control character in string (must be escaped as \\u00XX)")
            }
            LoneSurrogate => f.write_str("lone surrogate in \\u escape (not valid Unicode)"),
            InvalidLiteral => f.write_str("invalid literal, expected true, false or null"),
            ReservedType(b) => write!(f, "reserved type byte 0x{b:02x} (never used by MessagePack)"),
            LengthBeyondInput { what, declared, available } => {
                let unit = match *what {
                    "array" => "items",
                    "map" => "entries",
                    _ => "bytes",
                };
                write!(f, "{what} declares {declared} {unit} but only {available} bytes of input remain")
            }
            NonStrKey => f.write_str("map key must be str (pass OPT_NON_STR_KEYS to allow other keys)"),
            MapKey => f.write_str("map key must not be a map"),
            ExtKey => f.write_str("map key must not be an extension (a timestamp read as a datetime may be)"),
            InvalidTimestamp { len } => write!(
                f,
                "invalid timestamp extension: {len} bytes of payload (must be 4, 8 or 12, with nanoseconds below 10**9)"
            ),
            ExtensionType(tag) => write!(f, "extension type {tag} is not supported (pass ext_hook to decode it)"),
            NoMemory => f.write_str("out of memory"),
        }
    }
}

/// A decode that stopped: either the input was bad, or the builder failed
/// (for the extension, a Python exception is then already set).
#[derive(Debug)]
pub enum Failure<E> {
    Syntax(DecodeError),
    Build(E),
}

/// A decode stopped at `offset` for want of memory ([`DecodeErrorKind::NoMemory`]).
#[cold]
#[inline(never)]
pub fn no_memory<E>(offset: usize) -> Failure<E> {
    Failure::Syntax(DecodeError::new(DecodeErrorKind::NoMemory, offset))
}

impl<E> From<DecodeError> for Failure<E> {
    fn from(e: DecodeError) -> Self {
        Failure::Syntax(e)
    }
}

/// A decode with nothing to build (a pull reader's step, a skip) can only
/// have stopped at bad input.
impl From<Failure<core::convert::Infallible>> for DecodeError {
    #[inline(always)]
    fn from(f: Failure<core::convert::Infallible>) -> Self {
        match f {
            Failure::Syntax(e) => e,
            Failure::Build(never) => match never {},
        }
    }
}

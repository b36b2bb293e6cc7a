//! Why encoding stops (`EncodeError`, two words wide), and why a numpy
//! array is not written. Raising it is `raise.rs`'s.

use pyo3_ffi::*;

use crate::module::errors::Raised;

/// Why encoding stopped. Messages match orjson's where orjson has one.
#[derive(Debug)]
pub enum EncodeError {
    /// A Python exception is already set (MemoryError, or from `default`).
    Raised,
    /// Memory for the encoder's own work (not the output) could not be had.
    NoMemory,
    /// `default` raised; that exception is set and becomes the `__cause__`.
    DefaultRaised(*mut PyTypeObject),
    Unsupported(*mut PyTypeObject),
    IntegerRange,
    /// Outside -(2**53-1)..2**53-1 with `OPT_STRICT_INTEGER`.
    StrictIntegerRange,
    DictKeyNotStr,
    Surrogates,
    RecursionLimit,
    DefaultRecursionLimit,
    /// A list or dict changed size while it was walked (Python code run by
    /// `default` or a property can do that).
    ListChangedSize,
    DictChangedSize,
    TooLong,
    /// A tzinfo's `utcoffset()` raised; that exception becomes the `__cause__`.
    TimezoneRaised,
    BadUtcOffset,
    TimeWithTzinfo,
    /// With `OPT_NON_STR_KEYS`, a key of a type that has no key form.
    DictKeyType(*mut PyTypeObject),
    DictIntegerKeyRange,
    ExtTagRange,
    /// A `Fragment` of str content in `packb` (MessagePack is binary).
    FragmentNotBytes,
    /// A `Fragment` whose content is neither bytes nor str.
    FragmentContent,
    /// A `Fragment` in `packb` whose bytes are not exactly one MessagePack value.
    FragmentNotOneValue,
    /// A numpy array orcodec does not write, and no `default`.
    Numpy(crate::encode::error::NotSupported),
    /// A numpy array not in native byte order.
    NumpyByteOrder,
    /// A datetime64 of a unit with no text (finer than nanoseconds, generic);
    /// the unit's name.
    NumpyDateTimeUnit(&'static &'static str),
    /// A datetime64 value with no RFC 3339 text (NaT, out of range); the
    /// message is in the error context.
    NumpyDateTime,
    /// `OPT_NON_STR_KEYS | OPT_SORT_KEYS` in `packb` met a dict.
    SortedNonStrKeys,
    /// In `packb`, a datetime whose tzinfo's `utcoffset()` returned None.
    UnsupportedTimezone,
    /// A dataclass's wire policy could not be made (`orcodec._wire` raised
    /// the `TypeError` saying why, which becomes the `__cause__`).
    WirePolicy,
}

impl From<Raised> for EncodeError {
    fn from(_: Raised) -> Self {
        EncodeError::Raised
    }
}

/// Why an array is handed to `default`, worded for the error without one.
///
/// Pointer-sized so that every payload of `EncodeError` is one word: the
/// walker's `Result<(), EncodeError>` is then a register pair, returned in
/// RAX:RDX instead of through memory by every container call.
#[derive(Clone, Copy, Debug)]
#[repr(usize)]
pub enum NotSupported {
    NotContiguous,
    /// An element type orcodec does not write, or a 0-d array.
    DataType,
    /// With `OPT_NUMPY_EXT` or `OPT_MSGPACK_NUMPY`: a dtype with no binary form.
    BinaryDataType,
}

impl NotSupported {
    /// The peer's message (ormsgpack says "not C contiguous" for every array
    /// it does not write; a note gives the dtype).
    pub fn message(self, msgpack: bool) -> &'static str {
        match self {
            NotSupported::DataType if !msgpack => "unsupported datatype in numpy array",
            // orcodec's own binary forms: no peer has them.
            NotSupported::BinaryDataType => {
                "numpy dtype has no binary form: only bool, int, uint, float16/32/64, complex64/128, datetime64 \
                 and timedelta64 elements are written (object, string, void and structured dtypes are refused, \
                 never pickled); convert it in default"
            }
            _ => "numpy array is not C contiguous; use ndarray.tolist() in default",
        }
    }
}

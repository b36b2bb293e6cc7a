//! Why encoding stops, and the message each reason raises the format's
//! encode error with.

use pyo3_ffi::*;

use crate::module::errors::{raise, raise_from_current, Raised};

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
    FragmentNotBytes,
    /// A numpy array orcodec does not write, and no `default`.
    Numpy(crate::encode::types::numpy::NotSupported),
    /// NaT, or a datetime64 outside years 1 to 9999.
    NumpyDateTime,
}

impl From<Raised> for EncodeError {
    fn from(_: Raised) -> Self {
        EncodeError::Raised
    }
}

/// How each format names itself in messages, and its exception type.
pub struct Format {
    pub name: &'static str,
    pub error: *mut PyObject,
}

unsafe fn type_name(ty: *mut PyTypeObject) -> String {
    core::ffi::CStr::from_ptr((*ty).tp_name).to_string_lossy().into_owned()
}

/// Raises the encode error for `err` (or keeps the exception already set).
#[cold]
pub unsafe fn raise_encode_error(err: EncodeError, format: &Format) {
    let kind = format.error;
    let message = match err {
        EncodeError::Raised => {
            // MemoryError stays what it is; anything else becomes the cause.
            if PyErr_ExceptionMatches(PyExc_MemoryError) == 0 {
                raise_from_current(kind, &format!("{} encoding failed", format.name));
            }
            return;
        }
        EncodeError::NoMemory => {
            PyErr_NoMemory();
            return;
        }
        EncodeError::DefaultRaised(ty) => {
            raise_from_current(kind, &format!("Type is not {} serializable: {}", format.name, type_name(ty)));
            return;
        }
        EncodeError::Unsupported(ty) => format!("Type is not {} serializable: {}", format.name, type_name(ty)),
        EncodeError::IntegerRange => "Integer exceeds 64-bit range".into(),
        EncodeError::StrictIntegerRange => "Integer exceeds 53-bit range".into(),
        EncodeError::DictKeyNotStr => "Dict key must be str".into(),
        EncodeError::Surrogates => "str is not valid UTF-8: surrogates not allowed".into(),
        EncodeError::RecursionLimit => "Recursion limit reached".into(),
        EncodeError::DefaultRecursionLimit => "default serializer exceeds recursion limit".into(),
        EncodeError::ListChangedSize => "list changed size during serialization".into(),
        EncodeError::DictChangedSize => "dict changed size during serialization".into(),
        EncodeError::TooLong => "object is too large for MessagePack (more than 2**32-1 items or bytes)".into(),
        EncodeError::TimezoneRaised => {
            raise_from_current(kind, "datetime's tzinfo.utcoffset() raised");
            return;
        }
        EncodeError::BadUtcOffset => "datetime's tzinfo.utcoffset() did not return a timedelta or None".into(),
        EncodeError::TimeWithTzinfo => "datetime.time must not have tzinfo set".into(),
        EncodeError::DictKeyType(ty) => {
            format!("Dict key must be a type serializable with OPT_NON_STR_KEYS, not {}", type_name(ty))
        }
        EncodeError::DictIntegerKeyRange => "Dict integer key must be within 64-bit range".into(),
        EncodeError::ExtTagRange => "Extension type out of range (Ext tags are 0 to 127)".into(),
        EncodeError::Numpy(reason) => reason.message().into(),
        EncodeError::NumpyDateTime => "numpy.datetime64 is NaT or outside years 1 to 9999 (no RFC 3339 text)".into(),
        EncodeError::FragmentNotBytes => "Fragment contents must be bytes for MessagePack (str is JSON text)".into(),
    };
    raise(kind, &message);
}

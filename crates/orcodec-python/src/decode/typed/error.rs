//! How typed decoding fails, and the exceptions it raises.
//!
//! `ValidationError` (a `ValueError`) is what well-formed data that does not
//! fit the type raises. From `loads` the exception is an instance of a
//! subclass that is also the format's `JSONDecodeError`, from `unpackb` one
//! that is also `MsgpackDecodeError`, so existing handlers keep catching
//! every failure of a decode. `str(e)` is the message with its location;
//! `e.path` is the `$` path; a JSON error also has `JSONDecodeError`'s
//! `msg`, `doc`, `pos`, `lineno` and `colno` (`pos` a character index like
//! every `JSONDecodeError`'s).

use core::ffi::c_char;
use orcodec_core::error::DecodeError;
use pyo3_ffi::*;

use crate::decode::typed::path::Path;
use crate::module::errors::take_exception;
use crate::state::State;

/// Data that does not fit the type: the message with its location, the path.
pub struct Invalid {
    pub message: String,
    pub path: String,
    /// Byte offset of the offending value (stream inputs; 0 for `convert`).
    pub offset: usize,
    /// An exception to chain as `__cause__` (owned), or NULL.
    pub cause: *mut PyObject,
}

impl Drop for Invalid {
    fn drop(&mut self) {
        // SAFETY: an owned reference or NULL.
        unsafe { Py_XDECREF(self.cause) }
    }
}

/// Why a typed decode stopped.
pub enum Fail {
    /// Malformed input: the format's decode error, as untyped decoding raises it.
    Syntax(DecodeError),
    /// Well-formed input that does not fit the type.
    Invalid(Box<Invalid>),
    /// A Python exception is set (from a hook, an allocation, `__post_init__`).
    Raised,
}

impl From<DecodeError> for Fail {
    #[inline(always)]
    fn from(e: DecodeError) -> Fail {
        Fail::Syntax(e)
    }
}

impl From<()> for Fail {
    #[inline(always)]
    fn from((): ()) -> Fail {
        Fail::Raised
    }
}

impl From<crate::module::errors::Raised> for Fail {
    #[inline(always)]
    fn from(_: crate::module::errors::Raised) -> Fail {
        Fail::Raised
    }
}

/// MemoryError: an allocation the input drove failed.
#[cold]
#[inline(never)]
pub fn no_memory() -> Fail {
    // SAFETY: sets an exception; the GIL is held.
    unsafe { PyErr_NoMemory() };
    Fail::Raised
}

/// A validation failure with `message` at `path`, value at byte `offset`.
#[cold]
#[inline(never)]
pub fn invalid(message: &str, path: &Path, offset: usize) -> Fail {
    let (message, path) = path.message(message);
    Fail::Invalid(Box::new(Invalid { message, path, offset, cause: core::ptr::null_mut() }))
}

/// A failure from the exception currently set: a `ValueError` or
/// `TypeError` (what a `dec_hook` or `__post_init__` raises to reject a
/// value) becomes a validation failure with its text as the message and the
/// exception as `__cause__`; anything else propagates as it is.
#[cold]
#[inline(never)]
pub fn from_current(path: &Path, offset: usize) -> Fail {
    // SAFETY: checks and takes the current exception.
    unsafe {
        if PyErr_ExceptionMatches(PyExc_ValueError) == 0 && PyErr_ExceptionMatches(PyExc_TypeError) == 0 {
            return Fail::Raised;
        }
        let cause = take_exception();
        let text = if cause.is_null() { String::new() } else { str_of(cause) };
        let (message, path) = path.message(&text);
        Fail::Invalid(Box::new(Invalid { message, path, offset, cause }))
    }
}

/// `str(obj)`, for messages ("?" if that fails).
pub unsafe fn str_of(obj: *mut PyObject) -> String {
    let s = PyObject_Str(obj);
    if s.is_null() {
        PyErr_Clear();
        return "?".into();
    }
    let mut len: Py_ssize_t = 0;
    let data = PyUnicode_AsUTF8AndSize(s, &mut len);
    let out = if data.is_null() {
        PyErr_Clear();
        "?".into()
    } else {
        String::from_utf8_lossy(core::slice::from_raw_parts(data as *const u8, len as usize)).into_owned()
    };
    Py_DECREF(s);
    out
}

/// Which exception class a validation failure raises.
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// `loads`: the JSON subclass, with the document for `doc` and positions.
    /// Offsets from `kept` on are the input's end: a cut-off document's
    /// closing brackets, which the input does not have (`input.len()` for
    /// any other document).
    Json {
        input: &'a [u8],
        original: *mut PyObject,
        kept: usize,
    },
    Msgpack,
    Python,
}

unsafe fn set(obj: *mut PyObject, name: &core::ffi::CStr, value: *mut PyObject) -> bool {
    if value.is_null() {
        return false;
    }
    let ok = PyObject_SetAttrString(obj, name.as_ptr(), value) == 0;
    Py_DECREF(value);
    ok
}

unsafe fn new_str(text: &str) -> *mut PyObject {
    PyUnicode_FromStringAndSize(text.as_ptr() as *const c_char, text.len() as Py_ssize_t)
}

/// Raises the ValidationError (of the class `source` calls for) of `inv`.
#[cold]
pub unsafe fn raise_invalid(st: &State, inv: Box<Invalid>, source: Source) {
    let s = st;
    let cls = match source {
        Source::Json { .. } => s.json_validation_error,
        Source::Msgpack => s.msgpack_validation_error,
        Source::Python => s.validation_error,
    };
    let message = new_str(&inv.message);
    if message.is_null() {
        return;
    }
    let args = PyTuple_Pack(1, message);
    Py_DECREF(message);
    if args.is_null() {
        return;
    }
    // BaseException.__new__ sets `args` (so `str(e)` is the message) without
    // running JSONDecodeError's __init__, whose signature is (msg, doc, pos).
    #[expect(clippy::expect_used, reason = "BaseException defines tp_new")]
    let new = (*(PyExc_BaseException as *mut PyTypeObject)).tp_new.expect("exceptions have tp_new");
    let exc = new(cls as *mut PyTypeObject, args, core::ptr::null_mut());
    Py_DECREF(args);
    if exc.is_null() {
        return;
    }
    let mut ok = set(exc, c"path", new_str(&inv.path));
    if let Source::Json { input, original, kept } = source {
        let offset = if inv.offset >= kept { input.len() } else { inv.offset };
        ok = ok && json_fields(exc, &inv.message, offset, input, original);
    }
    if !ok {
        Py_DECREF(exc);
        return;
    }
    let inv = inv;
    if !inv.cause.is_null() {
        Py_INCREF(inv.cause);
        // Steals the reference.
        PyException_SetCause(exc, inv.cause);
    }
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
}

/// `msg`, `doc`, `pos`, `lineno`, `colno` as `json.JSONDecodeError` has them.
unsafe fn json_fields(exc: *mut PyObject, message: &str, offset: usize, input: &[u8], original: *mut PyObject) -> bool {
    let doc = if PyUnicode_Check(original) != 0 {
        Py_INCREF(original);
        original
    } else {
        PyUnicode_DecodeUTF8(input.as_ptr() as *const c_char, input.len() as Py_ssize_t, c"replace".as_ptr())
    };
    if !set(exc, c"doc", doc) {
        return false;
    }
    let prefix = &input[..offset.min(input.len())];
    let pos = prefix.iter().filter(|&&b| b & 0xC0 != 0x80).count();
    let lineno = prefix.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = prefix.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let colno = prefix[line_start..].iter().filter(|&&b| b & 0xC0 != 0x80).count() + 1;
    set(exc, c"msg", new_str(message))
        && set(exc, c"pos", PyLong_FromSize_t(pos))
        && set(exc, c"lineno", PyLong_FromSize_t(lineno))
        && set(exc, c"colno", PyLong_FromSize_t(colno))
}

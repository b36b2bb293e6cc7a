//! Raising the decoders' errors: the stdlib-compatible `JSONDecodeError`
//! (message, document, character position) and the decode error that
//! replaces a failed buffer export.

use core::ffi::c_char;
use orcodec_core::error::{DecodeError, DecodeErrorKind};
use pyo3_ffi::*;

use crate::module::errors::{take_exception, Raised};
use crate::module::state::state;

/// Raises what a reader's `DecodeError` means: `MemoryError` when the
/// reader ran out of memory (`DecodeErrorKind::NoMemory`, not the input's
/// fault), else the format's decode error, which `format_error` raises.
/// Every entry point that runs a core reader (the push decoders, the pull
/// readers, typed decoding, streams, transcoding) raises through this.
#[cold]
pub unsafe fn raise_decode_error(e: DecodeError, format_error: impl FnOnce(DecodeError) -> Raised) -> Raised {
    if e.kind == DecodeErrorKind::NoMemory {
        PyErr_NoMemory();
        return Raised;
    }
    format_error(e)
}

/// Characters in UTF-8 `prefix` (bytes that do not continue a sequence).
pub(crate) fn char_count(prefix: &[u8]) -> usize {
    prefix.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// Raises `JSONDecodeError(msg, doc, pos)` like the stdlib's: `doc` is the
/// input as str, `pos` a character index into it.
#[cold]
pub unsafe fn raise_json_error(msg: &str, input: &[u8], original: *mut PyObject, byte_offset: usize) -> Raised {
    let doc = if PyUnicode_Check(original) != 0 {
        Py_INCREF(original);
        original
    } else {
        PyUnicode_DecodeUTF8(input.as_ptr() as *const c_char, input.len() as Py_ssize_t, c"replace".as_ptr())
    };
    if doc.is_null() {
        return Raised;
    }
    let pos = char_count(&input[..byte_offset.min(input.len())]);
    let msg = PyUnicode_FromStringAndSize(msg.as_ptr() as *const c_char, msg.len() as Py_ssize_t);
    let pos = PyLong_FromSize_t(pos);
    if !msg.is_null() && !pos.is_null() {
        let args = PyTuple_Pack(3, msg, doc, pos);
        if !args.is_null() {
            let kind = state().json_decode_error;
            let exc = PyObject_Call(kind, args, core::ptr::null_mut());
            if !exc.is_null() {
                PyErr_SetObject(kind, exc);
                Py_DECREF(exc);
            }
            Py_DECREF(args);
        }
    }
    Py_XDECREF(msg);
    Py_XDECREF(pos);
    Py_DECREF(doc);
    Raised
}

/// `JSONDecodeError(msg, "", 0)`, for input that is no text at all.
#[cold]
pub fn raise_json_error_without_doc(msg: &str) {
    // SAFETY: `empty` is a live str while it is used, then released.
    unsafe {
        let empty = PyUnicode_FromStringAndSize(core::ptr::null(), 0);
        if !empty.is_null() {
            raise_json_error(msg, &[], empty, 0);
            Py_DECREF(empty);
        }
    }
}

/// What a memoryview that cannot be read (not C-contiguous, released) is told.
pub const UNREADABLE_BUFFER: &str = "Input memoryview cannot be read: it must be C-contiguous and not released";

/// Replaces the exception a failed buffer export set (BufferError,
/// ValueError) with the format's decode error raised by `raise_new`,
/// keeping the original as its `__cause__`.
#[cold]
pub fn decode_error_from_current(raise_new: impl FnOnce()) {
    let cause = take_exception();
    raise_new();
    let exc = take_exception();
    // SAFETY: `cause` and `exc` are owned references or NULL, each given
    // away or released once.
    unsafe {
        if exc.is_null() {
            Py_XDECREF(cause);
            return;
        }
        if !cause.is_null() {
            // Steals the reference to `cause`.
            PyException_SetCause(exc, cause);
        }
        PyErr_SetObject(Py_TYPE(exc) as *mut PyObject, exc);
        Py_DECREF(exc);
    }
}

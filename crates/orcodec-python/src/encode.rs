//! `dumps` and `packb`: parse arguments, run the walker with a backend that
//! writes into the returned bytes object, and turn failures into the format's
//! encode error.

use orcodec_core::emit::Emitter;
use orcodec_core::json_writer::JsonWriter;
use orcodec_core::msgpack_writer::MsgpackWriter;
use pyo3_ffi::*;

use crate::args::{none_to_null, parse_opts, Call};
use crate::errors::{raise, raise_from_current};
use crate::output::BytesSink;
use crate::state::state;
use crate::walk::{EncodeError, Walker};

/// How each format names itself in messages, and its exception type.
struct Format {
    name: &'static str,
    error: *mut PyObject,
}

unsafe fn type_name(ty: *mut PyTypeObject) -> String {
    core::ffi::CStr::from_ptr((*ty).tp_name).to_string_lossy().into_owned()
}

/// Raises the encode error for `err` (or keeps the exception already set).
#[cold]
unsafe fn raise_encode_error(err: EncodeError, format: &Format) {
    let kind = format.error;
    let message = match err {
        EncodeError::Raised => {
            // MemoryError stays what it is; anything else becomes the cause.
            if PyErr_ExceptionMatches(PyExc_MemoryError) == 0 {
                raise_from_current(kind, &format!("{} encoding failed", format.name));
            }
            return;
        }
        EncodeError::DefaultRaised(ty) => {
            raise_from_current(kind, &format!("Type is not {} serializable: {}", format.name, type_name(ty)));
            return;
        }
        EncodeError::Unsupported(ty) => format!("Type is not {} serializable: {}", format.name, type_name(ty)),
        EncodeError::IntegerRange => "Integer exceeds 64-bit range".into(),
        EncodeError::DictKeyNotStr => "Dict key must be str".into(),
        EncodeError::Surrogates => "str is not valid UTF-8: surrogates not allowed".into(),
        EncodeError::RecursionLimit => "Recursion limit reached".into(),
        EncodeError::DefaultRecursionLimit => "default serializer exceeds recursion limit".into(),
        EncodeError::ChangedSize(what) => format!("{what} changed size during serialization"),
        EncodeError::TooLong => "object is too large for MessagePack (more than 2**32-1 items or bytes)".into(),
    };
    raise(kind, &message);
}

/// Walks `obj` into a fresh bytes object with the backend `make` builds.
#[inline(always)]
unsafe fn encode<E: Emitter>(
    call: &Call,
    function: &str,
    format: &Format,
    make: impl FnOnce(BytesSink) -> E,
    finish: impl FnOnce(E) -> BytesSink,
) -> *mut PyObject {
    let s = state();
    let Ok([obj, default, option]) = call.parse(function, [core::ptr::null_mut(), s.kw_default, s.kw_option], 3)
    else {
        return core::ptr::null_mut();
    };
    let Ok(opts) = parse_opts(option, format.error) else {
        return core::ptr::null_mut();
    };
    let Some(sink) = BytesSink::new() else {
        return core::ptr::null_mut();
    };
    let mut walker = Walker::new(make(sink), none_to_null(default), opts);
    let result = walker.walk(obj);
    let sink = finish(walker.emitter);
    match result {
        Ok(()) if !sink.failed() => sink.finish(),
        Ok(()) => core::ptr::null_mut(),
        Err(err) => {
            if !sink.failed() {
                raise_encode_error(err, format);
            }
            core::ptr::null_mut()
        }
    }
}

pub unsafe extern "C" fn dumps(
    _module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let call = Call { args, nargs: nargs as usize, kwnames };
    let format = Format { name: "JSON", error: state().json_encode_error };
    encode(&call, "dumps", &format, JsonWriter::new, |w| w.out)
}

pub unsafe extern "C" fn packb(
    _module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let call = Call { args, nargs: nargs as usize, kwnames };
    let format = Format { name: "MessagePack", error: state().msgpack_encode_error };
    encode(&call, "packb", &format, MsgpackWriter::new, |w| w.out)
}

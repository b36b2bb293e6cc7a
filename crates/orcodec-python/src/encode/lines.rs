//! `dumps_lines`: JSON Lines, every item of an iterable as one compact
//! document and a newline, walked into one bytes object.

use orcodec_core::json::writer::CompactJsonWriter;
use orcodec_core::sink::Sink;
use pyo3_ffi::*;

use crate::encode::error::EncodeError;
use crate::encode::out_of_memory;
use crate::encode::output::BytesSink;
use crate::encode::raise::{raise_encode_error, Format};
use crate::encode::walker::Walker;
use crate::module::args::{none_to_null, parse_opts, Call};
use crate::module::options;
use crate::state::State;

/// `dumps_lines(iterable, *, default=None, option=None)`.
pub unsafe extern "C" fn dumps_lines(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let s = State::of_module(module);
    let call = Call { args, nargs: nargs as usize, kwnames };
    let Ok([iterable, default, option]) =
        call.parse("dumps_lines", [core::ptr::null_mut(), s.kw_default, s.kw_option], 1)
    else {
        return core::ptr::null_mut();
    };
    let format = Format::json(s);
    let Ok(opts) = parse_opts(option, format.error, options::ENCODE_MASK) else {
        return core::ptr::null_mut();
    };
    let default = none_to_null(default);
    // One document per line: never indented, always a newline after it.
    let opts = opts & !(options::INDENT_2 | options::APPEND_NEWLINE);
    let iter = PyObject_GetIter(iterable);
    if iter.is_null() {
        return core::ptr::null_mut();
    }
    let Some(sink) = BytesSink::with_capacity(0) else {
        Py_DECREF(iter);
        return core::ptr::null_mut();
    };
    let mut walker = Walker::new(s, CompactJsonWriter::new(sink), default, opts);
    let mut failed: Option<EncodeError> = None;
    let mut iteration_failed = false;
    loop {
        // The iterator may run Python code; nothing is held across it.
        let item = PyIter_Next(iter);
        if item.is_null() {
            // Its exception, if any, is the caller's to see as it is.
            iteration_failed = !PyErr_Occurred().is_null();
            break;
        }
        let result = walker.walk(item);
        Py_DECREF(item);
        if let Err(e) = result {
            failed = Some(e);
            break;
        }
        walker.emitter.out.push(b'\n');
        if walker.emitter.out.failed() {
            // The output is lost: the rest of the iterable is not asked for.
            break;
        }
    }
    Py_DECREF(iter);
    let Walker { emitter, ctx, .. } = walker;
    let sink = emitter.out;
    if iteration_failed {
        return core::ptr::null_mut();
    }
    if sink.failed() {
        out_of_memory();
        return core::ptr::null_mut();
    }
    match failed {
        None => sink.finish(),
        Some(e) => {
            raise_encode_error(e, &format, &ctx.unwrap_or_default(), opts);
            core::ptr::null_mut()
        }
    }
}

//! `_tally(data, option=None)`: the values of a document counted by kind
//! without building them (the CLI's `stats` and `validate`), by the decoder
//! `loads` runs (no option) or the one `unpackb(data, ext_hook=...,
//! option=option)` runs, so a bad document raises what they raise.

use orcodec_core::error::Failure;
use orcodec_core::tally::{tally_json, tally_msgpack, Stop, Tally};
use pyo3_ffi::*;

use super::error::{raise_decode_error, raise_json_syntax_error, raise_msgpack_error};
use super::{input, json_input, msgpack_input, msgpack_options};
use crate::module::args::Call;
use crate::module::gil::{released, without_gil};
use crate::state::State;

/// The counts as a tuple: the nine kinds of `orcodec_core::tally::KINDS`,
/// then map entries and depth.
unsafe fn as_tuple(t: &Tally) -> *mut PyObject {
    let numbers = t.counts.iter().chain([&t.keys, &t.depth]);
    let tuple = PyTuple_New(11);
    if tuple.is_null() {
        return tuple;
    }
    for (i, &n) in numbers.enumerate() {
        let item = PyLong_FromUnsignedLongLong(n);
        if item.is_null() {
            Py_DECREF(tuple);
            return core::ptr::null_mut();
        }
        PyTuple_SET_ITEM(tuple, i as Py_ssize_t, item);
    }
    tuple
}

/// The counts (see [`as_tuple`]); None where they depend on Python's rules
/// (map keys that are not strs, timestamps), for the caller to count the
/// built objects. Every extension counts as one value, as with an
/// `ext_hook`. Inputs of `bytes` or `str` from 16 KiB are read without the
/// GIL.
pub unsafe extern "C" fn tally(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let st = State::of_module(module);
    let call = Call { args, nargs: nargs as usize, kwnames };
    let Ok([obj, option]) = call.parse("_tally", [core::ptr::null_mut(), st.kw_option], 1) else {
        return core::ptr::null_mut();
    };
    let mut view = input::ViewSlot::new();
    let result = if !option.is_null() && option != Py_None() {
        let Some((_, read_opts, _)) = msgpack_options(st, core::ptr::null_mut(), option) else {
            return core::ptr::null_mut();
        };
        let Some(input) = msgpack_input(st, obj, &mut view) else {
            return core::ptr::null_mut();
        };
        let bytes = input.bytes();
        match released(without_gil(st, obj, bytes.len()), || tally_msgpack(bytes, read_opts)) {
            Err(Failure::Syntax(e)) => {
                raise_decode_error(e, |e| raise_msgpack_error(st, &e.kind, e.offset, bytes));
                return core::ptr::null_mut();
            }
            counted => counted,
        }
    } else {
        let Some(input) = json_input(st, obj, &mut view) else {
            return core::ptr::null_mut();
        };
        let bytes = input.bytes();
        match released(without_gil(st, obj, bytes.len()), || tally_json(bytes)) {
            Err(Failure::Syntax(e)) => {
                raise_decode_error(e, |e| raise_json_syntax_error(st, &e, bytes, obj));
                return core::ptr::null_mut();
            }
            counted => counted,
        }
    };
    match result {
        Ok(t) => as_tuple(&t),
        Err(Failure::Build(Stop::NeedsObjects)) => {
            Py_INCREF(Py_None());
            Py_None()
        }
        Err(_) => {
            PyErr_NoMemory();
            core::ptr::null_mut()
        }
    }
}

//! JSON Lines: `loads_lines` (every line of a document in memory), and the
//! line decoding and line errors that `iter_lines` (`classes/lines.rs`)
//! shares with it.
//!
//! A line is what ends at a `\n` (or at the end of the input); a `\r`
//! before the `\n` and lines of only whitespace are ignored. A line that is
//! no JSON document raises `JSONDecodeError` about that line: `doc` is the
//! line, `pos` the character in it, `lineno` the line's number in the input
//! (from 1) and `colno` its column.

use core::ffi::c_char;
use orcodec_core::error::{DecodeError, Failure};
use orcodec_core::json::lines::{find_newline, is_blank, strip_cr};
use orcodec_core::json::pull::JsonPull;
use orcodec_core::json::scanner::{parse_with, ScanStacks};
use pyo3_ffi::*;
use std::rc::Rc;

use crate::cpython::object::Owned;
use crate::decode::builder::PyBuilder;
use crate::decode::error::{char_count, raise_decode_error};
use crate::decode::input::{Input, ViewSlot};
use crate::decode::typed::error::Source;
use crate::decode::typed::json_input::JsonInput;
use crate::decode::typed::node::Compiled;
use crate::decode::typed::run::{compiled_type, parse_options, run, Options};
use crate::decode::GcPause;
use crate::module::args::Call;
use crate::module::errors::{take_exception, Raised};
use crate::state::State;

/// The input of a JSON decode, borrowed as `loads` borrows it, or None with
/// `loads`'s exception raised.
pub unsafe fn borrow_json_input<'a>(st: &State, obj: *mut PyObject, slot: &'a mut ViewSlot) -> Option<Input<'a>> {
    crate::decode::json_input(st, obj, slot)
}

/// Raises `JSONDecodeError` for line `number`, `line` (its text without the
/// line end), at byte `offset` of it.
#[cold]
pub unsafe fn raise_line_error(st: &State, msg: &str, line: &[u8], number: u64, offset: usize) -> Raised {
    let pos = char_count(&line[..offset.min(line.len())]);
    let text = format!("{msg}: line {number} column {} (char {pos})", pos + 1);
    let doc = PyUnicode_DecodeUTF8(line.as_ptr() as *const c_char, line.len() as Py_ssize_t, c"replace".as_ptr());
    if doc.is_null() {
        return Raised;
    }
    let kind = st.json_decode_error;
    let new_str = |t: &str| PyUnicode_FromStringAndSize(t.as_ptr() as *const c_char, t.len() as Py_ssize_t);
    let (msg, pos, lineno, message) =
        (new_str(msg), PyLong_FromSize_t(pos), PyLong_FromUnsignedLongLong(number), new_str(&text));
    if !msg.is_null() && !pos.is_null() && !lineno.is_null() && !message.is_null() {
        let exc = PyObject_CallFunctionObjArgs(kind, msg, doc, pos, core::ptr::null_mut::<PyObject>());
        if !exc.is_null() {
            // The stdlib's __init__ counted lines in `doc`, the one line: the
            // number and the message say where it is in the input.
            let args = PyTuple_Pack(1, message);
            if !args.is_null()
                && PyObject_SetAttrString(exc, c"lineno".as_ptr(), lineno) == 0
                && PyObject_SetAttrString(exc, c"args".as_ptr(), args) == 0
            {
                PyErr_SetObject(kind, exc);
            }
            Py_XDECREF(args);
            Py_DECREF(exc);
        }
    }
    Py_DECREF(doc);
    for obj in [msg, pos, lineno, message] {
        Py_XDECREF(obj);
    }
    Raised
}

/// The `type=` of a JSON Lines call, compiled, with its options (None: untyped).
pub type Typed = Option<(Rc<Compiled>, Options)>;

/// The `type`, `strict` and `dec_hook` arguments of a JSON Lines call.
pub unsafe fn typed_args(
    st: &State,
    tp: *mut PyObject,
    strict: *mut PyObject,
    dec_hook: *mut PyObject,
) -> Result<Typed, Raised> {
    if tp.is_null() || tp == Py_None() {
        if !strict.is_null() || !dec_hook.is_null() {
            // Checked all the same, so a mistake does not pass unnoticed.
            parse_options(st, strict, dec_hook)?;
        }
        return Ok(None);
    }
    let opts = parse_options(st, strict, dec_hook)?;
    Ok(Some((compiled_type(st, tp)?, opts)))
}

/// Raises what decode error `e` in line `number` means: MemoryError when
/// the reader ran out of memory, else the line's `JSONDecodeError`.
#[cold]
unsafe fn line_error(st: &State, e: DecodeError, line: &[u8], number: u64) -> Raised {
    raise_decode_error(e, |e| {
        // loads's words and position (orjson's) within the line.
        let (message, offset, _) = crate::decode::error::json_message(&e.kind, e.offset, line);
        raise_line_error(st, &message, line, number, offset)
    })
}

/// Decodes line `number` (not blank, without its line end), or raises.
#[inline]
pub unsafe fn decode_line(
    st: &'static State,
    line: &[u8],
    number: u64,
    stacks: &mut ScanStacks<Owned>,
    typed: &Typed,
) -> Result<Owned, Raised> {
    if let Some((compiled, opts)) = typed {
        return typed_line(st, line, number, compiled, opts);
    }
    let pause = GcPause::new(line.len());
    let result = parse_with(line, &mut PyBuilder::new(st, core::ptr::null_mut()).collecting_young(), stacks);
    drop(pause);
    match result {
        Ok(value) => Ok(value),
        Err(Failure::Syntax(e)) => Err(line_error(st, e, line, number)),
        Err(Failure::Build(())) => Err(Raised),
    }
}

/// A line decoded into the `type=`: a syntax error as [`decode_line`]
/// raises it, a mismatch as `ValidationError` whose `doc` is the line and
/// whose `lineno` is its number.
#[inline(never)]
unsafe fn typed_line(
    st: &'static State,
    line: &[u8],
    number: u64,
    compiled: &Compiled,
    opts: &Options,
) -> Result<Owned, Raised> {
    let pull = match JsonPull::new(line) {
        Ok(pull) => pull,
        Err(e) => return Err(line_error(st, e, line, number)),
    };
    let mut input = JsonInput::new(pull);
    let pause = GcPause::new(line.len());
    let value = run(
        st,
        compiled,
        opts,
        &mut input,
        // None: `doc` is made from the line's bytes.
        Source::Json { input: line, original: Py_None(), kept: line.len() },
        |_| {},
        |i| Ok(i.pull.finish()?),
        |e| {
            line_error(st, e, line, number);
        },
    );
    drop(pause);
    if value.is_null() {
        let validation = st.json_validation_error;
        if PyErr_ExceptionMatches(validation) != 0 {
            // The line's number in the input, not in `doc` (always 1).
            let exc = take_exception();
            let lineno = PyLong_FromUnsignedLongLong(number);
            if lineno.is_null() || PyObject_SetAttrString(exc, c"lineno".as_ptr(), lineno) != 0 {
                Py_XDECREF(lineno);
                Py_DECREF(exc);
                return Err(Raised);
            }
            Py_DECREF(lineno);
            PyErr_SetObject(Py_TYPE(exc) as *mut PyObject, exc);
            Py_DECREF(exc);
        }
        return Err(Raised);
    }
    Owned::new(value).map_err(|()| Raised)
}

/// `loads_lines(data)`: a list of the documents of the lines of `data`.
pub unsafe extern "C" fn loads_lines(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let call = Call { args, nargs: nargs as usize, kwnames };
    let s = State::of_module(module);
    let Ok([obj, tp, strict, dec_hook]) =
        call.parse("loads_lines", [core::ptr::null_mut(), s.kw_type, s.kw_strict, s.kw_dec_hook], 1)
    else {
        return core::ptr::null_mut();
    };
    let Ok(typed) = typed_args(s, tp, strict, dec_hook) else {
        return core::ptr::null_mut();
    };
    let mut view = ViewSlot::new();
    let Some(input) = borrow_json_input(s, obj, &mut view) else {
        return core::ptr::null_mut();
    };
    let bytes = input.bytes();
    let Ok(list) = Owned::new(PyList_New(0)) else {
        return core::ptr::null_mut();
    };
    let mut stacks = ScanStacks::new();
    let mut pos = 0;
    let mut number = 0u64;
    while pos < bytes.len() {
        number += 1;
        let end = find_newline(bytes, pos).unwrap_or(bytes.len());
        let line = strip_cr(&bytes[pos..end]);
        pos = end + 1;
        if is_blank(line) {
            continue;
        }
        let Ok(value) = decode_line(s, line, number, &mut stacks, &typed) else {
            return core::ptr::null_mut();
        };
        if PyList_Append(list.as_ptr(), value.as_ptr()) != 0 {
            return core::ptr::null_mut();
        }
    }
    list.into_raw()
}

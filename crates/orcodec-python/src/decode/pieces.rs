//! `loads` with `partial=` or `pointer=`, and `unpackb` with `pointer=`:
//! documents read in part. Kept apart from the entry points so that a call
//! without these arguments runs exactly as before.

use pyo3_ffi::*;

use orcodec_core::error::Failure;
use orcodec_core::json::partial::PartialMode;
use orcodec_core::json::scanner::ScanStacks;

use crate::cpython::object::Owned;
use crate::decode::builder::PyBuilder;
use crate::decode::error::{raise_decode_error, raise_json_syntax_error};
use crate::decode::typed::error::Source;
use crate::decode::typed::py_input::PyInput;
use crate::decode::{input, json_input, typed, GcPause};
use crate::module::errors::{raise, Raised};
use crate::module::state::State;

/// The `partial` argument: absent, None, False or "off" for none; True or
/// "on", or "trailing-strings" (jiter's values); anything else raises ValueError.
pub(crate) unsafe fn parse_partial(partial: *mut PyObject) -> Result<Option<PartialMode>, Raised> {
    if partial.is_null() || partial == Py_False() || partial == Py_None() {
        return Ok(None);
    }
    if partial == Py_True() {
        return Ok(Some(PartialMode::On));
    }
    if PyUnicode_Check(partial) != 0 {
        for (name, mode) in
            [(c"off", None), (c"on", Some(PartialMode::On)), (c"trailing-strings", Some(PartialMode::TrailingStrings))]
        {
            if PyUnicode_CompareWithASCIIString(partial, name.as_ptr()) == 0 {
                return Ok(mode);
            }
        }
    }
    Err(raise(PyExc_ValueError, "partial must be True, False, None, 'on', 'off' or 'trailing-strings'"))
}

/// The typed arguments of a `loads` call, compiled (None: untyped).
type Typed = Option<(std::rc::Rc<typed::node::Compiled>, typed::run::Options)>;

/// `loads` with `partial` or `pointer` given (the other arguments as
/// `loads` parsed them).
#[inline(never)]
pub(crate) unsafe fn loads(
    st: &State,
    obj: *mut PyObject,
    tp: *mut PyObject,
    strict: *mut PyObject,
    dec_hook: *mut PyObject,
    partial: *mut PyObject,
) -> *mut PyObject {
    let _ = st;
    let Ok(mode) = parse_partial(partial) else {
        return core::ptr::null_mut();
    };
    let typed: Typed = match crate::decode::typed_call(tp, strict, dec_hook) {
        None => None,
        Some(Ok(parts)) => Some(parts),
        Some(Err(Raised)) => return core::ptr::null_mut(),
    };
    let mut view = input::ViewSlot::new();
    let Some(input) = json_input(obj, &mut view) else {
        return core::ptr::null_mut();
    };
    let bytes = input.bytes();
    let Some(mode) = mode else {
        // partial=False: loads as without it.
        return match &typed {
            Some((compiled, opts)) => typed::run::loads_with(compiled, opts, bytes, obj),
            None => untyped(bytes, obj),
        };
    };
    let value = partial_value(bytes, obj, mode);
    match (&typed, value) {
        (_, None) => core::ptr::null_mut(),
        (None, Some(value)) => value.into_raw(),
        (Some((compiled, opts)), Some(value)) => {
            // What was read is validated as the type, as a whole document
            // would be: the closed containers are complete values.
            let mut input = PyInput::new(value.as_ptr());
            typed::run::run(
                compiled,
                opts,
                &mut input,
                Source::Json { input: bytes, original: obj },
                |_| {},
                |_| Ok(()),
                |e| {
                    raise_json_syntax_error(&e, bytes, obj);
                },
            )
        }
    }
}

/// `loads(bytes)` without a type.
unsafe fn untyped(bytes: &[u8], obj: *mut PyObject) -> *mut PyObject {
    let pause = GcPause::new(bytes.len());
    let result = orcodec_core::json::scanner::parse_with(
        bytes,
        &mut PyBuilder::new(core::ptr::null_mut()),
        &mut ScanStacks::new(),
    );
    drop(pause);
    finish(result, bytes, obj).map_or(core::ptr::null_mut(), Owned::into_raw)
}

/// The value of the cut-off document `bytes`, or None with the error raised.
unsafe fn partial_value(bytes: &[u8], obj: *mut PyObject, mode: PartialMode) -> Option<Owned> {
    let pause = GcPause::new(bytes.len());
    let result = orcodec_core::json::scanner::parse_partial_with(
        bytes,
        &mut PyBuilder::new(core::ptr::null_mut()),
        &mut ScanStacks::new(),
        mode,
    );
    drop(pause);
    finish(result, bytes, obj)
}

/// The value, or None with the JSON error raised (builder failures have one set).
unsafe fn finish(result: Result<Owned, Failure<()>>, bytes: &[u8], obj: *mut PyObject) -> Option<Owned> {
    match result {
        Ok(value) => Some(value),
        Err(Failure::Syntax(e)) => {
            raise_decode_error(e, |e| raise_json_syntax_error(&e, bytes, obj));
            None
        }
        Err(Failure::Build(())) => None,
    }
}

//! `loads` with `partial=` or `pointer=`, and `unpackb` with `pointer=`:
//! documents read in part. Kept apart from the entry points so that a call
//! without these arguments runs exactly as before.

use pyo3_ffi::*;

use orcodec_core::error::Failure;
use orcodec_core::json::closing;
use orcodec_core::json::partial::PartialMode;
use orcodec_core::json::scanner::ScanStacks;

use crate::cpython::object::Owned;
use crate::decode::builder::PyBuilder;
use crate::decode::error::{
    new_msgpack_error, raise_decode_error, raise_json_error, raise_json_syntax_error, raise_msgpack_error,
};
use crate::decode::numpy::NumpyRead;
use crate::decode::typed::error::Source;
use crate::decode::{input, json_input, typed, GcPause};
use crate::decode::{msgpack_input, numpy_read};
use crate::module::errors::{raise, Raised};
use crate::module::options::Opt;
use crate::state::State;
use orcodec_core::msgpack::reader::{ReadOptions, ReadStacks};
use orcodec_core::pointer::{self, LookupError};

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

/// The typed arguments of a call, compiled (None: untyped).
type TypedArgs = Option<(std::rc::Rc<typed::node::Compiled>, typed::run::Options)>;

/// A compiled type with its options, borrowed (from the call or a `Decoder`).
pub(crate) type Typed<'a> = Option<(&'a typed::node::Compiled, &'a typed::run::Options)>;

/// `type`, `strict` and `dec_hook` as a module-level call gives them.
unsafe fn typed_args(
    st: &'static State,
    tp: *mut PyObject,
    strict: *mut PyObject,
    dec_hook: *mut PyObject,
) -> Result<TypedArgs, Raised> {
    crate::decode::typed_call(st, tp, strict, dec_hook).transpose()
}

fn borrowed(typed: &TypedArgs) -> Typed<'_> {
    typed.as_ref().map(|(compiled, opts)| (&**compiled, opts))
}

/// How a JSON document is to be read in part: `partial` and `pointer` parsed.
pub(crate) struct JsonPieces {
    mode: Option<PartialMode>,
    tokens: Option<(String, Vec<String>)>,
}

/// `partial` and `pointer` (NULL when absent), which cannot both be given.
pub(crate) unsafe fn parse_json_pieces(partial: *mut PyObject, pointer: *mut PyObject) -> Result<JsonPieces, Raised> {
    let mode = parse_partial(partial)?;
    let tokens = parse_pointer(pointer)?;
    if mode.is_some() && tokens.is_some() {
        return Err(raise(PyExc_ValueError, "partial and pointer cannot be combined"));
    }
    Ok(JsonPieces { mode, tokens })
}

/// `loads` with `partial` or `pointer` given (the other arguments as
/// `loads` parsed them).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn loads(
    st: &'static State,
    obj: *mut PyObject,
    tp: *mut PyObject,
    strict: *mut PyObject,
    dec_hook: *mut PyObject,
    partial: *mut PyObject,
    pointer: *mut PyObject,
) -> *mut PyObject {
    let Ok(pieces) = parse_json_pieces(partial, pointer) else {
        return core::ptr::null_mut();
    };
    let Ok(typed) = typed_args(st, tp, strict, dec_hook) else {
        return core::ptr::null_mut();
    };
    loads_pieces(st, obj, borrowed(&typed), &pieces)
}

/// `obj` read as `pieces` says, into `typed` if given (`loads` and `Decoder.loads`).
pub(crate) unsafe fn loads_pieces(
    st: &'static State,
    obj: *mut PyObject,
    typed: Typed,
    pieces: &JsonPieces,
) -> *mut PyObject {
    let mut view = input::ViewSlot::new();
    let Some(input) = json_input(st, obj, &mut view) else {
        return core::ptr::null_mut();
    };
    let bytes = input.bytes();
    if let Some((text, tokens)) = &pieces.tokens {
        let (start, end) = match pointer::find_json(bytes, tokens) {
            Ok(range) => range,
            Err(LookupError::Syntax(e)) => {
                raise_decode_error(e, |e| raise_json_syntax_error(st, &e, bytes, obj));
                return core::ptr::null_mut();
            }
            Err(LookupError::Pointer(e)) => {
                raise_json_error(st, &e.message(text, tokens), bytes, obj, e.offset);
                return core::ptr::null_mut();
            }
        };
        let target = &bytes[start..end];
        return match typed {
            Some((compiled, opts)) => typed::run::loads_with(st, compiled, opts, target, obj),
            None => untyped(st, target, obj),
        };
    }
    match (pieces.mode, typed) {
        // partial=False: loads as without it.
        (None, Some((compiled, opts))) => typed::run::loads_with(st, compiled, opts, bytes, obj),
        (None, None) => untyped(st, bytes, obj),
        (Some(mode), None) => partial_value(st, bytes, obj, mode).map_or(core::ptr::null_mut(), Owned::into_raw),
        (Some(mode), Some((compiled, opts))) => typed_partial(st, compiled, opts, bytes, obj, mode),
    }
}

/// `loads(bytes, partial=mode, type=...)`: the document the cut one stands
/// for (`orcodec_core::json::closing`) decoded into the type as any
/// document is, so its errors have their positions in `bytes`, the `$`
/// path and the messages of a whole document. A document that needs no
/// closing is decoded as without `partial`.
unsafe fn typed_partial(
    st: &'static State,
    compiled: &typed::node::Compiled,
    opts: &typed::run::Options,
    bytes: &[u8],
    obj: *mut PyObject,
    mode: PartialMode,
) -> *mut PyObject {
    let fail = |e| {
        raise_decode_error(e, |e| raise_json_syntax_error(st, &e, bytes, obj));
        core::ptr::null_mut()
    };
    let closed = match closing::close(bytes, mode) {
        Ok(None) => return typed::run::loads_with(st, compiled, opts, bytes, obj),
        Ok(Some(closed)) => closed,
        Err(e) => return fail(e),
    };
    let text = match closed.text(bytes) {
        Ok(text) => text,
        Err(e) => return fail(e),
    };
    let keep = closed.keep;
    typed::run::loads_text(st, compiled, opts, &text, Source::Json { input: bytes, original: obj, kept: keep })
}

/// The `pointer` argument: None when absent, None or empty (the whole
/// document); else its text and tokens. A pointer that is no str raises
/// TypeError, one that is no JSON Pointer ValueError.
pub(crate) unsafe fn parse_pointer(pointer: *mut PyObject) -> Result<Option<(String, Vec<String>)>, Raised> {
    if pointer.is_null() || pointer == Py_None() {
        return Ok(None);
    }
    if PyUnicode_Check(pointer) == 0 {
        return Err(raise(PyExc_TypeError, "pointer must be a str (a JSON Pointer such as '/items/0/name')"));
    }
    let mut len: Py_ssize_t = 0;
    let data = PyUnicode_AsUTF8AndSize(pointer, &mut len);
    if data.is_null() {
        return Err(Raised);
    }
    // SAFETY: CPython's UTF-8 form of the str, `len` bytes, valid while `pointer` lives.
    let text = unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(data as *const u8, len as usize)) };
    if text.is_empty() {
        return Ok(None);
    }
    match pointer::tokens(text) {
        Ok(tokens) => Ok(Some((text.to_string(), tokens))),
        Err(e) => Err(raise(PyExc_ValueError, &e.message(text, &[]))),
    }
}

/// `unpackb` with `pointer` given (the other arguments as `unpackb` parsed them).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn unpackb(
    st: &'static State,
    obj: *mut PyObject,
    pointer: *mut PyObject,
    ext_hook: *mut PyObject,
    read_opts: ReadOptions,
    flags: Opt,
    numpy_code: i8,
    tp: *mut PyObject,
    strict: *mut PyObject,
    dec_hook: *mut PyObject,
) -> *mut PyObject {
    let Ok(tokens) = parse_pointer(pointer) else {
        return core::ptr::null_mut();
    };
    let Ok(typed) = typed_args(st, tp, strict, dec_hook) else {
        return core::ptr::null_mut();
    };
    unpackb_pointer(st, obj, tokens.as_ref(), ext_hook, read_opts, flags, numpy_code, borrowed(&typed))
}

/// The value `tokens` leads to in the MessagePack `obj` (the whole of it
/// for None), into `typed` if given (`unpackb` and `Decoder.unpackb`).
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn unpackb_pointer(
    st: &'static State,
    obj: *mut PyObject,
    tokens: Option<&(String, Vec<String>)>,
    ext_hook: *mut PyObject,
    read_opts: ReadOptions,
    flags: Opt,
    numpy_code: i8,
    typed: Typed,
) -> *mut PyObject {
    let mut view = input::ViewSlot::new();
    let Some(input) = msgpack_input(st, obj, &mut view) else {
        return core::ptr::null_mut();
    };
    let bytes = input.bytes();
    let (start, end) = match tokens {
        None => (0, bytes.len()),
        Some((text, tokens)) => match pointer::find_msgpack(bytes, tokens, read_opts) {
            Ok(range) => range,
            Err(LookupError::Syntax(e)) => {
                raise_decode_error(e, |e| raise_msgpack_error(st, &e.kind, e.offset, bytes));
                return core::ptr::null_mut();
            }
            Err(LookupError::Pointer(e)) => {
                let exc = new_msgpack_error(st, &e.message(text, tokens), e.offset as isize);
                if !exc.is_null() {
                    PyErr_SetObject(Py_TYPE(exc) as *mut PyObject, exc);
                    Py_DECREF(exc);
                }
                return core::ptr::null_mut();
            }
        },
    };
    let target = &bytes[start..end];
    let mut numpy = numpy_read(st, flags, numpy_code, obj, bytes);
    let numpy = numpy.as_mut().map_or(core::ptr::null_mut(), |n| n as *mut NumpyRead);
    if let Some((compiled, opts)) = typed {
        return typed::run::unpackb_with(st, compiled, opts, target, ext_hook, read_opts, numpy);
    }
    let pause = GcPause::new(target.len());
    let result = orcodec_core::msgpack::reader::read_with(
        target,
        &mut PyBuilder::with_numpy(st, ext_hook, numpy),
        read_opts,
        &mut ReadStacks::default(),
    );
    drop(pause);
    match result {
        Ok(value) => value.into_raw(),
        Err(Failure::Syntax(e)) => {
            raise_decode_error(e, |e| raise_msgpack_error(st, &e.kind, start + e.offset, bytes));
            core::ptr::null_mut()
        }
        Err(Failure::Build(())) => core::ptr::null_mut(),
    }
}

/// `loads(bytes)` without a type.
unsafe fn untyped(st: &'static State, bytes: &[u8], obj: *mut PyObject) -> *mut PyObject {
    let pause = GcPause::new(bytes.len());
    let result = orcodec_core::json::scanner::parse_with(
        bytes,
        &mut PyBuilder::new(st, core::ptr::null_mut()),
        &mut ScanStacks::new(),
    );
    drop(pause);
    finish(st, result, bytes, obj).map_or(core::ptr::null_mut(), Owned::into_raw)
}

/// The value of the cut-off document `bytes`, or None with the error raised.
unsafe fn partial_value(st: &'static State, bytes: &[u8], obj: *mut PyObject, mode: PartialMode) -> Option<Owned> {
    let pause = GcPause::new(bytes.len());
    let result = orcodec_core::json::scanner::parse_partial_with(
        bytes,
        &mut PyBuilder::new(st, core::ptr::null_mut()),
        &mut ScanStacks::new(),
        mode,
    );
    drop(pause);
    finish(st, result, bytes, obj)
}

/// The value, or None with the JSON error raised (builder failures have one set).
unsafe fn finish(st: &State, result: Result<Owned, Failure<()>>, bytes: &[u8], obj: *mut PyObject) -> Option<Owned> {
    match result {
        Ok(value) => Some(value),
        Err(Failure::Syntax(e)) => {
            raise_decode_error(e, |e| raise_json_syntax_error(st, &e, bytes, obj));
            None
        }
        Err(Failure::Build(())) => None,
    }
}

//! Running a typed decode: the options every entry point shares (`type`,
//! `strict`, `dec_hook`), and turning the outcome into a result or the
//! right exception. `loads`, `unpackb` and `Decoder` come here once their
//! input is borrowed; `convert` is defined here.

use pyo3_ffi::*;
use std::rc::Rc;

use orcodec_core::msgpack::reader::ReadOptions;

use crate::cpython::object::Owned;
use crate::decode::builder::PyBuilder;
use crate::decode::error::{raise_json_syntax_error, raise_msgpack_error};
use crate::decode::typed::cache;
use crate::decode::typed::error::{raise_invalid, Fail, Source};
use crate::decode::typed::input::Input;
use crate::decode::typed::json_input::JsonInput;
use crate::decode::typed::msgpack_input::MsgpackInput;
use crate::decode::typed::node::Compiled;
use crate::decode::typed::path::Path;
use crate::decode::typed::py_input::PyInput;
use crate::decode::typed::{validate, Ctx};
use crate::decode::GcPause;
use crate::module::args::{none_to_null, Call};
use crate::module::errors::{raise, Raised};
use crate::state::scratch::{slot, Slot};
use crate::state::{Kept, State};

/// The item stack kept between typed decodes, so a small document makes no
/// allocation of its own (as the untyped decoders keep theirs). A decode
/// takes it out and puts it back, empty; a nested decode (from a hook)
/// finds none and makes its own. Stacks grown past `KEPT_STACK_ITEMS` are
/// not kept: the untyped decoders' limit (see `decode::with_stacks`).
const KEPT_STACK: Slot<Kept<Vec<Owned>>> = Slot::at(slot::TYPED_STACK);

const KEPT_STACK_ITEMS: usize = crate::decode::KEPT_STACK_BYTES / core::mem::size_of::<Owned>();

/// The typed-decoding options of one call.
pub struct Options {
    pub strict: bool,
    /// Borrowed from the call's arguments (or the Decoder); NULL for none.
    pub dec_hook: *mut PyObject,
    pub forbid_unknown: bool,
}

/// `strict` and `dec_hook` as given (absent: the defaults).
pub unsafe fn parse_options(_st: &State, strict: *mut PyObject, dec_hook: *mut PyObject) -> Result<Options, Raised> {
    let strict = if strict.is_null() {
        true
    } else {
        match PyObject_IsTrue(strict) {
            -1 => return Err(Raised),
            v => v == 1,
        }
    };
    let dec_hook = if dec_hook.is_null() { dec_hook } else { none_to_null(dec_hook) };
    if !dec_hook.is_null() && PyCallable_Check(dec_hook) == 0 {
        return Err(raise(PyExc_TypeError, "dec_hook must be callable"));
    }
    Ok(Options { strict, dec_hook, forbid_unknown: false })
}

/// Validates the whole of `input` as `compiled`; `finish` checks nothing is
/// left after the value (streams). Raises as `source` says on failure.
#[allow(clippy::too_many_arguments)]
pub unsafe fn run<I: Input>(
    st: &'static State,
    compiled: &Compiled,
    opts: &Options,
    input: &mut I,
    source: Source,
    configure: impl FnOnce(&mut Ctx),
    finish: impl FnOnce(&mut I) -> Result<(), Fail>,
    on_syntax: impl FnOnce(orcodec_core::error::DecodeError),
) -> *mut PyObject {
    let mut ctx = Ctx::new(st, compiled, opts.strict, opts.dec_hook, opts.forbid_unknown);
    if let Some(stack) = st.scratch.get(KEPT_STACK).take() {
        ctx.stack = stack;
    }
    configure(&mut ctx);
    let result = validate(&mut ctx, compiled.root, input, &Path::ROOT).and_then(|v| finish(input).map(|()| v));
    let mut stack = core::mem::take(&mut ctx.stack);
    drop(ctx);
    // Releasing what a failed decode left can run finalizers: done before
    // the stack is kept again.
    stack.clear();
    if stack.capacity() <= KEPT_STACK_ITEMS {
        // A nested decode's stack may be replaced (it is empty).
        st.scratch.get(KEPT_STACK).put(stack);
    }
    match result {
        Ok(v) => v.into_raw(),
        Err(Fail::Raised) => core::ptr::null_mut(),
        Err(Fail::Invalid(inv)) => {
            raise_invalid(st, inv, source);
            core::ptr::null_mut()
        }
        Err(Fail::Syntax(e)) => {
            // A reader that ran out of memory raises MemoryError, not the
            // format's error.
            crate::decode::error::raise_decode_error(e, |e| {
                on_syntax(e);
                Raised
            });
            core::ptr::null_mut()
        }
    }
}

/// `obj` validated as `compiled` (the `convert` of a type or a Decoder).
pub unsafe fn convert_with(
    st: &'static State,
    compiled: &Compiled,
    opts: &Options,
    obj: *mut PyObject,
) -> *mut PyObject {
    let mut input = PyInput::new(obj);
    // Held: the validation may run code that drops the caller's references.
    let _hold = {
        Py_INCREF(obj);
        Owned::new(obj)
    };
    run(
        st,
        compiled,
        opts,
        &mut input,
        Source::Python,
        |_| {},
        |_| Ok(()),
        |e| {
            // Only the nesting limit is a "syntax" failure for Python objects.
            raise(st.validation_error, &e.kind.to_string());
        },
    )
}

/// The compiled form of the `type` argument.
pub unsafe fn compiled_type(st: &State, tp: *mut PyObject) -> Result<Rc<Compiled>, Raised> {
    cache::compiled(st, tp)
}

/// `convert(obj, type, *, strict=True, dec_hook=None)`.
pub unsafe extern "C" fn convert(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let st = State::of_module(module);
    let s = st;
    let call = Call { args, nargs: nargs as usize, kwnames };
    let Ok([obj, tp, strict, dec_hook]) =
        call.parse("convert", [core::ptr::null_mut(), s.kw_type, s.kw_strict, s.kw_dec_hook], 2)
    else {
        return core::ptr::null_mut();
    };
    if tp.is_null() {
        raise(PyExc_TypeError, "convert() missing required argument: 'type'");
        return core::ptr::null_mut();
    }
    let Ok(opts) = parse_options(st, strict, dec_hook) else {
        return core::ptr::null_mut();
    };
    let Ok(compiled) = compiled_type(st, tp) else {
        return core::ptr::null_mut();
    };
    convert_with(st, &compiled, &opts, obj)
}

/// A JSON decode into `compiled`: `input` is the document, `original` the
/// argument it was borrowed from (for the error's `doc`).
pub unsafe fn loads_with(
    st: &'static State,
    compiled: &Compiled,
    opts: &Options,
    bytes: &[u8],
    original: *mut PyObject,
) -> *mut PyObject {
    loads_text(st, compiled, opts, bytes, Source::Json { input: bytes, original, kept: bytes.len() })
}

/// A JSON decode of `text` into `compiled`, its validation errors placed in
/// the document `source` names (`text` itself, or the cut-off document
/// `text` closes: see `orcodec_core::json::closing`).
pub unsafe fn loads_text(
    st: &'static State,
    compiled: &Compiled,
    opts: &Options,
    text: &[u8],
    source: Source,
) -> *mut PyObject {
    let original = match source {
        Source::Json { original, .. } => original,
        _ => core::ptr::null_mut(),
    };
    let raise_syntax = |e: orcodec_core::error::DecodeError| {
        // The same error (orjson's words and position) as without a type.
        raise_json_syntax_error(st, &e, text, original);
    };
    let pull = match orcodec_core::json::pull::JsonPull::new(text) {
        Ok(pull) => pull,
        Err(e) => {
            crate::decode::error::raise_decode_error(e, |e| {
                raise_syntax(e);
                Raised
            });
            return core::ptr::null_mut();
        }
    };
    let mut input = JsonInput::new(pull);
    let pause = GcPause::new(text.len());
    let result = run(st, compiled, opts, &mut input, source, |_| {}, |i| Ok(i.pull.finish()?), raise_syntax);
    drop(pause);
    result
}

/// A MessagePack decode into `compiled`.
pub unsafe fn unpackb_with(
    st: &'static State,
    compiled: &Compiled,
    opts: &Options,
    bytes: &[u8],
    ext_hook: *mut PyObject,
    read_opts: ReadOptions,
    numpy: *mut crate::decode::numpy::NumpyRead,
) -> *mut PyObject {
    let mut input = MsgpackInput::new(bytes, read_opts);
    let pause = GcPause::new(bytes.len());
    let result = run(
        st,
        compiled,
        opts,
        &mut input,
        Source::Msgpack,
        |ctx| ctx.builder = PyBuilder::with_numpy(st, ext_hook, numpy),
        |i| Ok(i.pull.finish()?),
        |e| {
            // The same error (ormsgpack's words, `pos`) as without a type.
            raise_msgpack_error(st, &e.kind, e.offset, bytes);
        },
    );
    drop(pause);
    result
}

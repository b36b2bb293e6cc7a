//! `loads` and `unpackb`: borrow the input's bytes, run the format's decoder
//! with the shared object builder, and raise the format's decode error with
//! the position of the problem.
//!
//! - `input.rs`: what a decode reads (bytes, bytearray, buffers, JSON's str)
//! - `builder.rs`: the Python objects both decoders build (`PyBuilder`),
//!   with `key_cache.rs` (one str object per repeated key or short value)
//!   and `dict.rs` (a map's dict in one step)
//! - `datetime.rs`: MessagePack timestamps back to datetimes
//! - `numpy.rs`: numpy arrays and scalars back from their binary forms
//! - `error.rs`: the decode errors
//!
//! - `typed/`: decoding into declared types (`type=`), `convert` and
//!   `Decoder`, reusing the input, the builders and the caches.
//!
//! The streaming readers belong beside these.

pub mod builder;
pub mod datetime;
pub mod dict;
pub(crate) mod error;
pub(crate) mod input;
pub mod key_cache;
pub mod lines;
pub(crate) mod numpy;
pub(crate) mod pieces;
pub(crate) mod pydatetime;
pub mod stdlib;
pub(crate) mod strs;
pub(crate) mod tally;
pub mod typed;

use orcodec_core::error::{DecodeError, Failure};
use pyo3_ffi::*;

use crate::cpython::object::Owned;
use crate::decode::builder::PyBuilder;
use crate::decode::error::{
    decode_error_from_current, file_note, raise_decode_error, raise_json_error_at, raise_json_error_without_doc,
    raise_json_syntax_error, raise_msgpack_error, raise_with_note, UNREADABLE_BUFFER,
};
use crate::decode::input::borrow_input;
use crate::decode::numpy::NumpyRead;
use crate::module::args::{none_to_null, parse_numpy_ext_code, parse_opts, ArgErrors, Call};
use crate::module::errors::{raise, Raised};
use crate::module::options::{self, Opt};
use crate::state::{Kept, State};
use orcodec_core::json::scanner::ScanStacks;
use orcodec_core::msgpack::reader::ReadOptions;

/// Decoder stacks kept between calls, one set per format, so a small
/// document allocates none (its few allocations would be a noticeable part
/// of the call). A call takes its format's set out and
/// puts it back when done; a nested call (from an `ext_hook`, say) finds
/// none and makes its own. Stacks grown past `KEPT_STACK_BYTES` by a large
/// document are dropped rather than kept.
///
/// The limit is 1 MiB (128 Ki pending values) per format. A lower one
/// cost documents with many values pending at once (a list of 10,000
/// floats): their stack, doubled past 64 KiB to 128 KiB, is one glibc
/// hands out by `mmap`, so dropping it made every call fault its pages in
/// afresh.
pub(crate) const KEPT_STACK_BYTES: usize = 1 << 20;

/// Runs `decode` with the kept stacks of `kept` (or new ones), keeping them
/// again afterwards if they are not too large (`size` says how large).
#[inline(always)]
pub(crate) fn with_stacks<T: Default, R>(
    kept: &Kept<T>,
    size: impl Fn(&T) -> usize,
    decode: impl FnOnce(&mut T) -> R,
) -> R {
    // The slot is empty while `decode` runs; the stacks come back empty
    // (the decoders leave them so), so replacing a nested call's set frees
    // no Python object.
    let mut stacks = kept.take().unwrap_or_default();
    let result = decode(&mut stacks);
    if size(&stacks) <= KEPT_STACK_BYTES {
        kept.put(stacks);
    }
    result
}

/// Inputs at least this long decode with the cyclic garbage collector paused
/// (3.10 and newer: `PyGC_Disable` is new in 3.10).
#[cfg_attr(not(Py_3_10), allow(dead_code))]
const PAUSE_GC_FROM: usize = 16 * 1024;

/// Pauses automatic garbage collection for one large decode.
///
/// A decode allocates containers by the thousand, and each 700 of them would
/// start a collection, every tenth of those over the last 7,000 or so, all
/// finding nothing: a freshly decoded tree holds no reference cycles.
/// Objects stay tracked, so once collection resumes the tree is handled as
/// usual. The untyped decoders still run one young collection per
/// [`YOUNG_COLLECTION_EVERY`] containers they build ([`collect_young`]), so
/// that a large result is traversed while its newest part is in cache, not
/// all at once by the first collection after the call. Python code that a
/// decode calls (an `ext_hook`, a `dec_hook`, `__post_init__`, a default
/// factory) runs through [`unpaused`], with the collector as the caller had
/// it, so the pause is never seen and a callback that turns the collector off
/// keeps it off. Restored on drop, so
/// an error path resumes it too; never re-enables a collector that was off.
pub(crate) struct GcPause {
    /// Whether this pause turned the collector off.
    #[cfg_attr(not(Py_3_10), allow(dead_code))]
    active: bool,
    /// What [`HOLDING`] was before it (a decode called from a callback).
    #[cfg_attr(not(Py_3_10), allow(dead_code))]
    outer: bool,
}

#[cfg(Py_3_10)]
thread_local! {
    /// Whether a [`GcPause`] of this thread holds the collector off at the
    /// moment: false while a callback runs, or after one turned it off.
    static HOLDING: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

impl GcPause {
    #[inline(always)]
    pub(crate) unsafe fn new(input_len: usize) -> GcPause {
        // `PyGC_Disable` returns whether the collector was on before.
        #[cfg(Py_3_10)]
        if input_len >= PAUSE_GC_FROM && PyGC_Disable() == 1 {
            return GcPause { active: true, outer: HOLDING.replace(true) };
        }
        let _ = input_len;
        GcPause { active: false, outer: false }
    }
}

impl Drop for GcPause {
    #[inline(always)]
    fn drop(&mut self) {
        #[cfg(Py_3_10)]
        if self.active {
            if HOLDING.get() {
                // SAFETY: turns back on what `new` turned off.
                unsafe { PyGC_Enable() };
            }
            HOLDING.set(self.outer);
        }
    }
}

/// Containers an untyped decode builds, under a [`GcPause`], between two of
/// its young collections. Below it a result is left whole to the first
/// collection after the call, which finds it in cache (a document of a few
/// thousand containers, twitter.json's 2,300); above it, one collection over
/// tens of thousands of containers after the call cost canada.json (56,000)
/// more than the peers' collections during theirs, and one every 2,000 to
/// 7,000 cost less than either.
pub(crate) const YOUNG_COLLECTION_EVERY: u32 = 4096;

/// Collects the youngest generation, if a [`GcPause`] holds the collector
/// off (so the decode's caller had it on), as the caller would have it:
/// through [`unpaused`], since finalizers and `gc.callbacks` run in it. The
/// builder calls this between containers, when every object made so far is
/// whole and held by the value stack or a container on it.
pub(crate) unsafe fn collect_young(st: &State) {
    #[cfg(Py_3_10)]
    if HOLDING.get() {
        unpaused(|| {
            // Generation 0, by a vectorcall: nothing is allocated on the way
            // that could start an automatic collection (of an older
            // generation) first. Inside a collection already running (a
            // decode in a finalizer) `gc.collect` does nothing. It fails only
            // if its result cannot be made; a collection the decode could not
            // run is not the decode's error.
            let generation = PyLong_FromLong(0);
            if generation.is_null() {
                PyErr_Clear();
                return;
            }
            let args = [generation];
            let collected = PyObject_Vectorcall(st.gc_collect, args.as_ptr(), 1, core::ptr::null_mut());
            Py_DECREF(generation);
            if collected.is_null() {
                PyErr_Clear();
            } else {
                Py_DECREF(collected);
            }
        });
    }
}

/// Runs `call` (Python code a decode calls) with the collector as the
/// decode's caller had it, if a [`GcPause`] is holding it off, and pauses it
/// again afterwards unless the callback turned it off itself.
#[inline]
pub(crate) unsafe fn unpaused<R>(call: impl FnOnce() -> R) -> R {
    #[cfg(Py_3_10)]
    if HOLDING.get() {
        PyGC_Enable();
        HOLDING.set(false);
        let result = call();
        // Was it still on? Then the pause takes it again; if the callback
        // turned it off, it stays off and the pause's drop leaves it so.
        HOLDING.set(PyGC_Disable() == 1);
        return result;
    }
    call()
}

/// Turns a failed decode into the format's exception (builder failures have
/// one set already).
#[inline(always)]
fn finish(result: Result<Owned, Failure<()>>, on_syntax: impl FnOnce(DecodeError) -> Raised) -> *mut PyObject {
    match result {
        Ok(value) => value.into_raw(),
        Err(Failure::Syntax(e)) => {
            // SAFETY: raising an exception, with the GIL held.
            unsafe { raise_decode_error(e, on_syntax) };
            core::ptr::null_mut()
        }
        Err(Failure::Build(())) => core::ptr::null_mut(),
    }
}

/// The input of `loads` (bytes, bytearray, memoryview, str), or None with
/// the decode error raised.
#[inline(always)]
pub(crate) unsafe fn json_input<'a>(
    st: &State,
    obj: *mut PyObject,
    slot: &'a mut input::ViewSlot,
) -> Option<input::Input<'a>> {
    match borrow_input(obj, true, slot) {
        Ok(Some(input)) => Some(input),
        Ok(None) => {
            wrong_input_type(st, obj, "loads");
            None
        }
        Err(Raised) => {
            // A str with lone surrogates has no UTF-8 form, so it is no JSON text.
            if PyErr_ExceptionMatches(PyExc_UnicodeEncodeError) != 0 {
                surrogates_in_str(st, obj);
            } else {
                decode_error_from_current(|| raise_json_error_without_doc(st.json_decode_error, UNREADABLE_BUFFER));
            }
            None
        }
    }
}

/// `unpackb`'s `ext_hook` (NULL for none) and options, or None with the
/// decode error raised.
#[inline(always)]
pub(crate) unsafe fn msgpack_options(
    st: &State,
    ext_hook: *mut PyObject,
    option: *mut PyObject,
) -> Option<(*mut PyObject, ReadOptions, Opt)> {
    let s = st;
    let opts = parse_opts(option, s.msgpack_decode_error, options::UNPACKB_MASK).ok()?;
    if opts & options::NUMPY_ZERO_COPY != 0 && opts & (options::NUMPY_EXT | options::MSGPACK_NUMPY) == 0 {
        raise(s.msgpack_decode_error, numpy::ZERO_COPY_NEEDS);
        return None;
    }
    // Not checked to be callable here: as with ormsgpack, a hook that cannot
    // be called is "ext_hook failed" once an extension needs it.
    let ext_hook = none_to_null(ext_hook);
    let read_opts = ReadOptions {
        non_str_keys: opts & options::NON_STR_KEYS != 0,
        timestamps: opts & options::DATETIME_AS_TIMESTAMP_EXT != 0,
        bin_keys: opts & options::MSGPACK_NUMPY != 0,
        plain_keys: false,
    };
    Some((ext_hook, read_opts, opts))
}

/// The input of `unpackb` (bytes, bytearray, memoryview), or None with the
/// decode error raised.
#[inline(always)]
pub(crate) unsafe fn msgpack_input<'a>(
    st: &State,
    obj: *mut PyObject,
    slot: &'a mut input::ViewSlot,
) -> Option<input::Input<'a>> {
    let s = st;
    match borrow_input(obj, false, slot) {
        Ok(Some(input)) => Some(input),
        Ok(None) => {
            wrong_input_type(st, obj, "unpackb");
            None
        }
        Err(Raised) => {
            decode_error_from_current(|| {
                raise(s.msgpack_decode_error, UNREADABLE_BUFFER);
            });
            None
        }
    }
}

/// `loads` with a type: the result (NULL with an exception set), or None
/// when `type` is None (untyped decoding). Kept out of line so the untyped
/// path stays as it was.
#[inline(never)]
unsafe fn typed_loads(
    st: &'static State,
    obj: *mut PyObject,
    tp: *mut PyObject,
    strict: *mut PyObject,
    dec_hook: *mut PyObject,
) -> Option<*mut PyObject> {
    let Ok((compiled, opts)) = typed_call(st, tp, strict, dec_hook)? else {
        return Some(core::ptr::null_mut());
    };
    let mut view = input::ViewSlot::new();
    let Some(input) = json_input(st, obj, &mut view) else {
        return Some(core::ptr::null_mut());
    };
    Some(typed::run::loads_with(st, &compiled, &opts, input.bytes(), obj))
}

/// `unpackb` with a type, as [`typed_loads`].
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn typed_unpackb(
    st: &'static State,
    obj: *mut PyObject,
    tp: *mut PyObject,
    strict: *mut PyObject,
    dec_hook: *mut PyObject,
    ext_hook: *mut PyObject,
    read_opts: ReadOptions,
    flags: Opt,
    numpy_code: i8,
) -> Option<*mut PyObject> {
    let Ok((compiled, opts)) = typed_call(st, tp, strict, dec_hook)? else {
        return Some(core::ptr::null_mut());
    };
    let mut view = input::ViewSlot::new();
    let Some(input) = msgpack_input(st, obj, &mut view) else {
        return Some(core::ptr::null_mut());
    };
    let mut numpy = numpy_read(st, flags, numpy_code, obj, input.bytes());
    let numpy = numpy.as_mut().map_or(core::ptr::null_mut(), |n| n as *mut NumpyRead);
    Some(typed::run::unpackb_with(st, &compiled, &opts, input.bytes(), ext_hook, read_opts, numpy))
}

/// How numpy values are read under the flags `flags` (None: they are not),
/// from the input object `obj` whose bytes are `bytes`.
pub(crate) fn numpy_read(
    st: &'static State,
    flags: Opt,
    code: i8,
    obj: *mut PyObject,
    bytes: &[u8],
) -> Option<NumpyRead> {
    if flags & (options::NUMPY_EXT | options::MSGPACK_NUMPY) == 0 {
        return None;
    }
    Some(NumpyRead::new(
        st,
        (flags & options::NUMPY_EXT != 0).then_some(code),
        flags & options::MSGPACK_NUMPY != 0,
        flags & options::NUMPY_ZERO_COPY != 0,
        obj,
        bytes.as_ptr(),
    ))
}

/// The typed decoding arguments of a call, when `type` is given (not None).
#[inline(always)]
pub(crate) unsafe fn typed_call(
    st: &'static State,
    tp: *mut PyObject,
    strict: *mut PyObject,
    dec_hook: *mut PyObject,
) -> Option<Result<(std::rc::Rc<typed::node::Compiled>, typed::run::Options), Raised>> {
    if tp.is_null() || tp == Py_None() {
        if !strict.is_null() || !dec_hook.is_null() {
            // Checked all the same, so a mistake does not pass unnoticed.
            if let Err(e) = typed::run::parse_options(st, strict, dec_hook) {
                return Some(Err(e));
            }
        }
        return None;
    }
    Some(
        typed::run::parse_options(st, strict, dec_hook).and_then(|opts| Ok((typed::run::compiled_type(st, tp)?, opts))),
    )
}

pub unsafe extern "C" fn loads(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let st = State::of_module(module);
    let call = Call { args, nargs: nargs as usize, kwnames };
    // orjson's words for a wrong argument count.
    let errors = ArgErrors { kind: core::ptr::null_mut(), orjson: false, exactly_one: true };
    // Without keywords the call is parsed as before typed decoding existed,
    // so `loads(data)` costs what it did.
    let obj = if kwnames.is_null() {
        let Ok([obj]) = call.parse_with("loads", [core::ptr::null_mut()], 1, &errors) else {
            return core::ptr::null_mut();
        };
        obj
    } else {
        let s = st;
        let names = [core::ptr::null_mut(), s.kw_type, s.kw_strict, s.kw_dec_hook, s.kw_partial, s.kw_pointer];
        let Ok([obj, tp, strict, dec_hook, partial, pointer]) = call.parse_with("loads", names, 1, &errors) else {
            return core::ptr::null_mut();
        };
        if !partial.is_null() || !pointer.is_null() {
            return pieces::loads(st, obj, tp, strict, dec_hook, partial, pointer);
        }
        if !tp.is_null() || !strict.is_null() || !dec_hook.is_null() {
            if let Some(result) = typed_loads(st, obj, tp, strict, dec_hook) {
                return result;
            }
        }
        obj
    };
    let mut view = input::ViewSlot::new();
    let Some(input) = json_input(st, obj, &mut view) else {
        return core::ptr::null_mut();
    };
    let bytes = input.bytes();
    let pause = GcPause::new(bytes.len());
    let result = with_stacks(&st.json_stacks, ScanStacks::capacity_bytes, |stacks| {
        orcodec_core::json::scanner::parse_with(
            bytes,
            &mut PyBuilder::new(st, core::ptr::null_mut()).collecting_young(),
            stacks,
        )
    });
    drop(pause);
    finish(result, |e| raise_json_syntax_error(st, &e, bytes, obj))
}

pub unsafe extern "C" fn unpackb(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let st = State::of_module(module);
    let s = st;
    let call = Call { args, nargs: nargs as usize, kwnames };
    let names = [
        core::ptr::null_mut(),
        s.kw_ext_hook,
        s.kw_option,
        s.kw_numpy_ext_code,
        s.kw_type,
        s.kw_strict,
        s.kw_dec_hook,
        s.kw_pointer,
    ];
    let Ok([obj, ext_hook, option, numpy_ext_code, tp, strict, dec_hook, pointer]) = call.parse("unpackb", names, 1)
    else {
        return core::ptr::null_mut();
    };
    let Some((ext_hook, read_opts, opts)) = msgpack_options(st, ext_hook, option) else {
        return core::ptr::null_mut();
    };
    let Ok(numpy_code) = parse_numpy_ext_code(numpy_ext_code, s.msgpack_decode_error) else {
        return core::ptr::null_mut();
    };
    if !pointer.is_null() {
        return pieces::unpackb(st, obj, pointer, ext_hook, read_opts, opts, numpy_code, tp, strict, dec_hook);
    }
    if !kwnames.is_null() && (!tp.is_null() || !strict.is_null() || !dec_hook.is_null()) {
        if let Some(result) = typed_unpackb(st, obj, tp, strict, dec_hook, ext_hook, read_opts, opts, numpy_code) {
            return result;
        }
    }
    let mut view = input::ViewSlot::new();
    let Some(input) = msgpack_input(st, obj, &mut view) else {
        return core::ptr::null_mut();
    };
    let mut numpy = numpy_read(st, opts, numpy_code, obj, input.bytes());
    let numpy = numpy.as_mut().map_or(core::ptr::null_mut(), |n| n as *mut NumpyRead);
    let pause = GcPause::new(input.len);
    let result = with_stacks(
        &st.msgpack_stacks,
        |stacks| stacks.capacity() * core::mem::size_of::<Owned>(),
        |stacks| {
            let mut builder = PyBuilder::with_numpy(st, ext_hook, numpy).collecting_young();
            orcodec_core::msgpack::reader::read_with(input.bytes(), &mut builder, read_opts, stacks)
        },
    );
    drop(pause);
    finish(result, |e| raise_msgpack_error(st, &e.kind, e.offset, input.bytes()))
}

/// Input of a type the decoder does not read: the peer's decode error (a
/// ValueError), of a class that is a TypeError too, and for a file object a
/// note saying to read it first.
#[cold]
unsafe fn wrong_input_type(st: &State, obj: *mut PyObject, function: &str) {
    let s = st;
    let note = file_note(obj, function);
    if function == "loads" {
        raise_json_error_without_doc(s.json_input_error, "Input must be bytes, bytearray, memoryview, or str");
        if let Some(note) = note {
            crate::module::errors::add_note_to_current(&note);
        }
    } else {
        raise_with_note(s.msgpack_input_error, "Input must be bytes, bytearray, memoryview", note.as_deref());
    }
}

/// A str with a lone surrogate (the UnicodeEncodeError encoding it raised is
/// set): orjson's message, at the index of the first lone surrogate.
#[cold]
unsafe fn surrogates_in_str(st: &State, obj: *mut PyObject) {
    let error = crate::module::errors::take_exception();
    let mut start: Py_ssize_t = 0;
    if error.is_null() || PyUnicodeEncodeError_GetStart(error, &mut start) != 0 {
        PyErr_Clear();
        start = 0;
    }
    Py_XDECREF(error);
    raise_json_error_at(st.json_decode_error, "str is not valid UTF-8: surrogates not allowed", obj, start as usize);
}

//! `dumps` and `packb`: parse arguments, run the walker with a backend that
//! writes into the returned bytes object, and turn failures into the format's
//! encode error.

pub mod context;
pub mod error;
mod keys;
pub mod lines;
pub mod notes;
pub mod output;
pub mod raise;
pub mod stdlib;
pub mod types;
pub mod walker;

use core::sync::atomic::Ordering;
use orcodec_core::emit::Emitter;
use orcodec_core::json::writer::{CompactJsonWriter, PrettyJsonWriter};
use orcodec_core::msgpack::writer::MsgpackWriter;
use orcodec_core::sink::Sink;
use pyo3_ffi::*;

use crate::module::args::{none_to_null, parse_numpy_ext_code, parse_opts, ArgErrors, Call};
use crate::module::options::{self, Opt};
use crate::state::{SizeHint, State};
use output::BytesSink;
use raise::{raise_encode_error, Format};
use walker::Walker;

/// The arguments of `dumps`/`packb`.
struct Args {
    obj: *mut PyObject,
    /// NULL when there is no hook.
    default: *mut PyObject,
    opts: Opt,
    /// The extension type of numpy arrays (`packb`'s `numpy_ext_code`).
    numpy_code: i8,
}

/// Parses the arguments of `dumps`, or returns None with the exception set.
/// Argument errors are the format's encode error (a TypeError), as with both
/// peers, whose encode errors are TypeError itself; `dumps` words them as
/// orjson.
#[inline(always)]
unsafe fn parse_args(call: &Call, function: &str, format: &Format, orjson: bool) -> Option<Args> {
    let s = format.st;
    let errors = ArgErrors { kind: format.error, orjson, exactly_one: false };
    let [obj, default, option] =
        call.parse_with(function, [core::ptr::null_mut(), s.kw_default, s.kw_option], 3, &errors).ok()?;
    let opts = parse_opts(option, format.error, options::ENCODE_MASK).ok()?;
    // orjson calls a `default=None` given explicitly like any default (what it
    // cannot write becomes "Type is not JSON serializable", calling None the
    // cause); ormsgpack takes None as no default.
    let default = if orjson && default == Py_None() { default } else { none_to_null(default) };
    Some(Args { obj, default, opts, numpy_code: orcodec_core::msgpack::numpy::DEFAULT_CODE })
}

/// Parses the arguments of `packb` (`dumps`'s and `numpy_ext_code`), or
/// returns None with the exception set; argument errors in CPython's words,
/// as ormsgpack's.
#[inline(always)]
unsafe fn parse_packb_args(call: &Call, format: &Format) -> Option<Args> {
    let s = format.st;
    let errors = ArgErrors { kind: format.error, orjson: false, exactly_one: false };
    let names = [core::ptr::null_mut(), s.kw_default, s.kw_option, s.kw_numpy_ext_code];
    let [obj, default, option, code] = call.parse_with("packb", names, 3, &errors).ok()?;
    let opts = parse_opts(option, format.error, options::ENCODE_MASK).ok()?;
    let numpy_code = parse_numpy_ext_code(code, format.error).ok()?;
    Some(Args { obj, default: none_to_null(default), opts, numpy_code })
}

/// Walks `obj` into a fresh bytes object with the backend `make` builds.
#[inline(always)]
unsafe fn encode<E: Emitter>(
    args: &Args,
    format: &Format,
    hint: &SizeHint,
    make: impl FnOnce(BytesSink) -> E,
    finish: impl FnOnce(E) -> BytesSink,
) -> *mut PyObject {
    // A small output starts in the pymalloc block the previous one ended in.
    let guess = hint.get();
    let sink = match guess {
        0 => BytesSink::with_capacity(0),
        1..=512 => BytesSink::for_small_output(guess),
        _ => BytesSink::with_capacity(guess),
    };
    let Some(sink) = sink else {
        return core::ptr::null_mut();
    };
    let mut walker = Walker::new(format.st, make(sink), args.default, args.opts);
    walker.numpy_code = args.numpy_code;
    let result = walker.walk(args.obj);
    let Walker { emitter, ctx, .. } = walker;
    let sink = finish(emitter);
    record(hint, sink.len(), sink.reserved_past_end());
    if sink.failed() {
        out_of_memory();
        return core::ptr::null_mut();
    }
    match result {
        Ok(()) => sink.finish(),
        Err(err) => {
            raise_encode_error(err, format, &ctx.unwrap_or_default(), args.opts);
            core::ptr::null_mut()
        }
    }
}

/// The output could not be grown: MemoryError. The walk stopped at the
/// next container, so whatever else went wrong meanwhile (an exception from
/// Python code run before it stopped) came after the output was lost and
/// gives way, unless it is no `Exception` (KeyboardInterrupt, SystemExit).
#[cold]
#[inline(never)]
pub(crate) unsafe fn out_of_memory() {
    if !PyErr_Occurred().is_null() {
        if PyErr_ExceptionMatches(PyExc_Exception) == 0 {
            return;
        }
        PyErr_Clear();
    }
    PyErr_NoMemory();
}

/// The JSON output, with the newline `OPT_APPEND_NEWLINE` asks for.
#[inline(always)]
fn json_output(mut out: BytesSink, append_newline: bool) -> BytesSink {
    if append_newline {
        out.push(b'\n');
    }
    out
}

pub unsafe extern "C" fn dumps(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let call = Call { args, nargs: nargs as usize, kwnames };
    let st = State::of_module(module);
    let format = Format::json(st);
    let Some(args) = parse_args(&call, "dumps", &format, true) else {
        return core::ptr::null_mut();
    };
    let newline = args.opts & options::APPEND_NEWLINE != 0;
    // Indentation is chosen once here: each writer is its own monomorphized walk.
    if args.opts & options::INDENT_2 != 0 {
        encode(&args, &format, &st.dumps_size, PrettyJsonWriter::new, |w| json_output(w.out, newline))
    } else {
        encode(&args, &format, &st.dumps_size, CompactJsonWriter::new, |w| json_output(w.out, newline))
    }
}

pub unsafe extern "C" fn packb(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let call = Call { args, nargs: nargs as usize, kwnames };
    let st = State::of_module(module);
    let format = Format::msgpack(st);
    let Some(args) = parse_packb_args(&call, &format) else {
        return core::ptr::null_mut();
    };
    pack_object(st, args.obj, args.default, args.opts, args.numpy_code)
}

/// `_mp_walk(obj, default=None, option=None)`: `packb` with msgpack-python's
/// rule for map keys (`KEYS_AS_VALUES`), what `orcodec.msgpack` packs with.
pub unsafe extern "C" fn packb_keys_as_values(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let call = Call { args, nargs: nargs as usize, kwnames };
    let st = State::of_module(module);
    let Some(args) = parse_packb_args(&call, &Format::msgpack(st)) else {
        return core::ptr::null_mut();
    };
    pack_object(st, args.obj, args.default, args.opts | options::KEYS_AS_VALUES, args.numpy_code)
}

/// `packb(obj, default, option, numpy_ext_code)` with the arguments already
/// checked (`default` NULL for none): what `Packer.pack` calls.
pub unsafe fn pack_object(
    st: &'static State,
    obj: *mut PyObject,
    default: *mut PyObject,
    opts: Opt,
    numpy_code: i8,
) -> *mut PyObject {
    let format = Format::msgpack(st);
    let args = Args { obj, default, opts: opts & !options::JSON_ONLY, numpy_code };
    encode(&args, &format, &st.packb_size, MsgpackWriter::new, |w| w.out)
}

/// Records an output of `len` bytes in `hint`, whose writes reserved up to
/// `past_end` bytes beyond it when they grew the area: the next call's
/// first size guess. Programs tend to encode documents of similar size over
/// and over, and a buffer that starts small and grows copies everything
/// written so far at each step, a large part of the time of a document
/// made of long strings.
///
/// The next capacity is the output's size with the slack `finish` keeps,
/// so an output that varies a bit from call to call still fits; but
/// while outputs repeat one length (the same document again), that
/// length and only what its writes reserve beyond it: learned when a
/// call so sized has to grow (once), at least `EXTRA`, at most the
/// slack. The slack is never written, but it spaces the blocks of
/// outputs that are kept alive: the pages between two of them are
/// touched by both, so a program that keeps its outputs would fault in
/// a sixteenth more pages than it writes. Small outputs keep the
/// pymalloc blocks their hint picks (`BytesSink::for_small_output`).
#[inline(always)]
fn record(hint: &SizeHint, len: usize, past_end: usize) {
    /// The least a repeated output is given beyond its length: the
    /// reservation of one more short write.
    const EXTRA: usize = 32;
    /// Most a call reserves up front: one huge document does not make the
    /// next small call map a huge block (beyond glibc's largest threshold,
    /// 32 MiB, every block is a fresh mapping anyway).
    const MAX: usize = 64 << 20;
    let slack = output::output_with_slack(len) - len;
    let repeated = len > output::TRIM_UP_TO && hint.last_len.load(Ordering::Relaxed) == len;
    hint.last_len.store(len, Ordering::Relaxed);
    let extra = if repeated { hint.extra.load(Ordering::Relaxed).max(past_end).max(EXTRA).min(slack) } else { 0 };
    hint.extra.store(extra, Ordering::Relaxed);
    let capacity = if repeated { len + extra } else { len + slack };
    hint.capacity.store(capacity.min(MAX), Ordering::Relaxed)
}

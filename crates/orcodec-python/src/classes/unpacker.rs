//! `Unpacker`: msgpack-python's streaming reader (its common subset, same
//! names and behaviour): bytes fed in pieces, or read from a file-like in
//! `read_size` chunks, come out as one object per MessagePack value.
//!
//! The bytes not consumed yet are kept in a buffer. A resumable scan
//! (`orcodec_core::msgpack::scan::Resumable`) reads the headers of the value
//! at its front as they arrive, keeping its place between feeds, and once
//! the value is whole the push decoder decodes exactly its bytes, as
//! `unpackb` would. So a value split across many feeds has each header read
//! once and is decoded once, and memory is the buffer: at most
//! `max_buffer_size` bytes (`BufferFull` past it), plus the largest value
//! being decoded.
//!
//! A value that fails to decode is consumed (its extent was known) and the
//! next call goes on after it. One that can never be decoded (a reserved
//! byte, nesting past 1024 levels, a length larger than `max_buffer_size`)
//! leaves the stream unreadable from there: every later call raises again.

use core::cell::Cell;
use core::ffi::{c_char, c_int, c_void};
use core::ptr::null_mut;
use orcodec_core::error::{DecodeError, Failure};
use orcodec_core::msgpack::pull::MsgpackPull;
use orcodec_core::msgpack::reader::{read_prefix_with, read_with, ReadOptions, ReadStacks};
use orcodec_core::msgpack::scan::{Limits, Resumable, ScanError, Scanned};
use pyo3_ffi::*;
use std::rc::Rc;

use crate::classes::method;
use crate::cpython::object::Owned;
use crate::decode::builder::PyBuilder;
use crate::decode::error::raise_decode_error;
use crate::decode::msgpack_options;
use crate::decode::numpy::NumpyRead;
use crate::decode::typed::error::Source;
use crate::decode::typed::msgpack_input::MsgpackInput;
use crate::decode::typed::node::Compiled;
use crate::decode::typed::run::{compiled_type, parse_options, run, Options as TypedOptions};
use crate::decode::GcPause;
use crate::module::args::parse_numpy_ext_code;
use crate::module::docs;
use crate::module::errors::{raise, Raised};
use crate::module::options;
use crate::module::options::Opt;
use crate::module::streams::{constructor_args, read_method, size_arg, try_extend, StreamBuffer};
use crate::state::State;

/// msgpack-python's default `max_buffer_size` (100 MiB), and the most
/// bytes a `read_size` of 0 reads at a time.
const DEFAULT_MAX_BUFFER_SIZE: usize = 100 * 1024 * 1024;
const DEFAULT_READ_SIZE: usize = 16 * 1024;
/// What `max_buffer_size=0` stands for (msgpack-python's).
const UNLIMITED: usize = i32::MAX as usize;

#[repr(C)]
pub struct Unpacker {
    ob_base: PyObject,
    /// The state of the module whose class made it.
    st: *const State,
    /// The file-like and its bound `read` (NULL when fed).
    file_like: *mut PyObject,
    read: *mut PyObject,
    /// NULL for no hook.
    ext_hook: *mut PyObject,
    /// The typed decoding's `dec_hook` (NULL for none), held for `typed`.
    dec_hook: *mut PyObject,
    /// Set while a call runs: Python code it runs (`read()`, `ext_hook`)
    /// must not call back into this unpacker, whose buffer is being read.
    busy: Cell<bool>,
    inner: Inner,
}

/// The Rust state, never touched by the GC's slots.
struct Inner {
    /// The bytes held; the scan's offsets count from its `head`.
    buf: StreamBuffer,
    /// The scan of the value at `head`.
    extent: Resumable,
    /// Stream offset of `buf[head]` (`tell()`).
    consumed: u64,
    read_size: usize,
    max_buffer_size: usize,
    opts: ReadOptions,
    /// The numpy forms read (`OPT_NUMPY_EXT`, `OPT_MSGPACK_NUMPY`,
    /// `OPT_NUMPY_ZERO_COPY` bits of the option), and numpy's extension type.
    numpy_opts: Opt,
    numpy_code: i8,
    /// The compiled `type=` and its options (None: untyped).
    typed: Option<(Rc<Compiled>, TypedOptions)>,
    stacks: ReadStacks<Owned>,
}

/// The state of the module whose class made `obj` (a live, constructed Unpacker).
#[inline(always)]
unsafe fn state_of(obj: *mut Unpacker) -> &'static State {
    &*(*obj).st
}

/// What a step of the unpacker gave.
enum Step {
    Value(*mut PyObject),
    Skipped,
    /// No whole value buffered (and, reading a file, none at its end).
    Nothing,
}

/// Raises `MsgpackDecodeError` at stream offset `offset`.
#[cold]
unsafe fn decode_error(st: &State, message: &str, offset: u64) -> Raised {
    raise(st.msgpack_decode_error, &format!("{message} at byte {offset}"))
}

/// Raises what decode error `e` of the value at stream offset `base` means:
/// MemoryError when the reader ran out of memory, else `MsgpackDecodeError`
/// at its offset in the stream.
#[cold]
unsafe fn stream_error(st: &State, e: DecodeError, base: u64, bytes: &[u8]) -> Raised {
    raise_decode_error(e, |e| crate::decode::error::raise_msgpack_error_in_stream(st, &e.kind, e.offset, bytes, base))
}

/// Decodes (or with `build` false, validates) the next value.
unsafe fn step(obj: *mut Unpacker, build: bool) -> Result<Step, Raised> {
    let u = &*obj;
    if u.busy.get() {
        return Err(raise(PyExc_RuntimeError, "Unpacker is already in use (called again from read() or ext_hook)"));
    }
    u.busy.set(true);
    let result = step_in(obj, &mut (*obj).inner, build);
    (*obj).busy.set(false);
    result
}

unsafe fn step_in(obj: *mut Unpacker, inner: &mut Inner, build: bool) -> Result<Step, Raised> {
    let st = state_of(obj);
    // A value whose scan has not started is decoded straight from the
    // buffer when it is whole there (the usual case: many values a feed),
    // so its bytes are read once, not scanned and then decoded. Only where
    // decoding runs no Python code but the objects' own (no ext_hook, no
    // type, no numpy): an incomplete value is then dropped without a trace,
    // and decoded again once its bytes are in. An incomplete or invalid
    // value goes the scanned way below, which decides what it is.
    let plain = (*obj).ext_hook.is_null()
        && inner.typed.is_none()
        && inner.numpy_opts & (options::NUMPY_EXT | options::MSGPACK_NUMPY) == 0;
    if build && plain && !inner.extent.started() && inner.buf.head < inner.buf.bytes.len() {
        let rest = &inner.buf.bytes[inner.buf.head..];
        let pause = GcPause::new(rest.len());
        let result = read_prefix_with(
            rest,
            &mut PyBuilder::new(st, null_mut()).collecting_young(),
            inner.opts,
            &mut inner.stacks,
        );
        drop(pause);
        match result {
            Ok((value, len)) => {
                inner.buf.head += len;
                inner.consumed += len as u64;
                return Ok(Step::Value(value.into_raw()));
            }
            Err(Failure::Build(())) => return Err(Raised),
            Err(Failure::Syntax(_)) => {}
        }
    }
    loop {
        let limits = Limits { value: inner.max_buffer_size, ..Limits::NONE };
        let scanned = inner.extent.scan(&inner.buf.bytes[inner.buf.head..], &limits);
        let len = match scanned {
            Ok(Scanned::Whole(len)) => len,
            Ok(Scanned::Partial(_)) => {
                if (*obj).read.is_null() || !fill(obj, inner)? {
                    return Ok(Step::Nothing);
                }
                continue;
            }
            Err(ScanError::Decode(e)) => {
                return Err(stream_error(st, e, inner.consumed, &inner.buf.bytes[inner.buf.head..]))
            }
            // Not met: only `value` is limited here.
            Err(ScanError::Limit { what, len, max, offset }) => {
                return Err(decode_error(st, &format!("{what} of {len} over {max}"), inner.consumed + offset as u64))
            }
            Err(ScanError::TooLarge { what, declared, needed, offset }) => {
                let unit = match what {
                    "array" => "items",
                    "map" => "entries",
                    _ => "bytes",
                };
                let message = if what == "value" {
                    format!("a value of {needed} bytes is larger than max_buffer_size ({})", inner.max_buffer_size)
                } else {
                    format!(
                        "{what} declares {declared} {unit}, which cannot fit in max_buffer_size ({} bytes)",
                        inner.max_buffer_size
                    )
                };
                return Err(decode_error(st, &message, inner.consumed + offset as u64));
            }
        };
        // The value is consumed whether or not it decodes.
        let (start, at) = (inner.buf.head, inner.consumed);
        inner.buf.head += len;
        inner.consumed += len as u64;
        inner.extent.reset();
        let bytes = &inner.buf.bytes[start..start + len];
        if !build {
            let mut p = MsgpackPull::with_options(bytes, inner.opts);
            return match p.skip().and_then(|()| p.finish()) {
                Ok(()) => Ok(Step::Skipped),
                Err(e) => Err(stream_error(st, e, at, bytes)),
            };
        }
        if let Some((compiled, opts)) = &inner.typed {
            let value = typed_value(st, compiled, opts, bytes, (*obj).ext_hook, inner.opts, at);
            return if value.is_null() { Err(Raised) } else { Ok(Step::Value(value)) };
        }
        if inner.numpy_opts & (options::NUMPY_EXT | options::MSGPACK_NUMPY) != 0 {
            return numpy_value(obj, bytes, inner.numpy_opts, inner.numpy_code, inner.opts, &mut inner.stacks, at)
                .map(Step::Value);
        }
        let pause = GcPause::new(len);
        let result = read_with(
            bytes,
            &mut PyBuilder::new(st, (*obj).ext_hook).collecting_young(),
            inner.opts,
            &mut inner.stacks,
        );
        drop(pause);
        return match result {
            Ok(value) => Ok(Step::Value(value.into_raw())),
            Err(Failure::Syntax(e)) => Err(stream_error(st, e, at, bytes)),
            Err(Failure::Build(())) => Err(Raised),
        };
    }
}

/// A value decoded into the `type=` (NULL with the exception set): syntax
/// errors carry the stream offset, mismatches are `ValidationError`.
unsafe fn typed_value(
    st: &'static State,
    compiled: &Compiled,
    opts: &TypedOptions,
    bytes: &[u8],
    ext_hook: *mut PyObject,
    read_opts: ReadOptions,
    at: u64,
) -> *mut PyObject {
    let mut input = MsgpackInput::new(bytes, read_opts);
    let pause = GcPause::new(bytes.len());
    let result = run(
        st,
        compiled,
        opts,
        &mut input,
        Source::Msgpack,
        |ctx| ctx.builder = PyBuilder::new(st, ext_hook),
        |i| Ok(i.pull.finish()?),
        |e| {
            stream_error(st, e, at, bytes);
        },
    );
    drop(pause);
    result
}

/// A value read with numpy's forms, as `unpackb` reads them: from a bytes
/// object of its own, which zero-copy arrays can keep alive (the buffer is
/// reused for later values).
unsafe fn numpy_value(
    obj: *mut Unpacker,
    bytes: &[u8],
    opts: Opt,
    numpy_code: i8,
    read_opts: ReadOptions,
    stacks: &mut ReadStacks<Owned>,
    at: u64,
) -> Result<*mut PyObject, Raised> {
    let st = state_of(obj);
    let copy = Owned::new(PyBytes_FromStringAndSize(bytes.as_ptr() as *const c_char, bytes.len() as Py_ssize_t))
        .map_err(|()| Raised)?;
    let data = crate::cpython::bytes::bytes_data(copy.as_ptr());
    let mut numpy = NumpyRead::new(
        st,
        (opts & options::NUMPY_EXT != 0).then_some(numpy_code),
        opts & options::MSGPACK_NUMPY != 0,
        opts & options::NUMPY_ZERO_COPY != 0,
        copy.as_ptr(),
        data.as_ptr(),
    );
    let pause = GcPause::new(data.len());
    let mut builder = PyBuilder::with_numpy(st, (*obj).ext_hook, &mut numpy).collecting_young();
    let result = read_with(data, &mut builder, read_opts, stacks);
    drop(pause);
    match result {
        Ok(value) => Ok(value.into_raw()),
        Err(Failure::Syntax(e)) => Err(stream_error(st, e, at, data)),
        Err(Failure::Build(())) => Err(Raised),
    }
}

/// Reads the next chunk from the file-like; false at its end.
unsafe fn fill(obj: *mut Unpacker, inner: &mut Inner) -> Result<bool, Raised> {
    let room = inner.max_buffer_size.saturating_sub(inner.buf.buffered());
    if room == 0 {
        // With no arguments, as msgpack.BufferFull() is raised.
        PyErr_SetNone(state_of(obj).buffer_full);
        return Err(Raised);
    }
    let want = inner.read_size.min(room);
    inner.buf.compact(want);
    let size = PyLong_FromSize_t(want);
    if size.is_null() {
        return Err(Raised);
    }
    let data = PyObject_CallOneArg((*obj).read, size);
    Py_DECREF(size);
    if data.is_null() {
        return Err(Raised);
    }
    let got = if PyBytes_Check(data) != 0 {
        let bytes = crate::cpython::bytes::bytes_data(data);
        try_extend(&mut inner.buf.bytes, bytes).map(|()| bytes.len())
    } else {
        crate::module::streams::append_buffer(&mut inner.buf.bytes, data, "file_like.read() must return bytes")
    };
    Py_DECREF(data);
    Ok(got? != 0)
}

unsafe extern "C" fn unpacker_new(ty: *mut PyTypeObject, args: *mut PyObject, kwargs: *mut PyObject) -> *mut PyObject {
    let Some(st) = State::of_type(ty) else {
        return null_mut();
    };
    let names = [
        c"file_like",
        c"read_size",
        c"max_buffer_size",
        c"ext_hook",
        c"option",
        c"numpy_ext_code",
        c"type",
        c"strict",
        c"dec_hook",
    ];
    let Ok([file_like, read_size, max_buffer_size, ext_hook, option, numpy_ext_code, tp, strict, dec_hook]) =
        constructor_args("Unpacker", names, 1, args, kwargs)
    else {
        return null_mut();
    };
    let Ok(max_buffer_size) = size_arg(max_buffer_size, "max_buffer_size", DEFAULT_MAX_BUFFER_SIZE) else {
        return null_mut();
    };
    let max_buffer_size = if max_buffer_size == 0 { UNLIMITED } else { max_buffer_size };
    let Ok(read_size) = size_arg(read_size, "read_size", 0) else {
        return null_mut();
    };
    if read_size > max_buffer_size {
        raise(PyExc_ValueError, "read_size must be smaller than max_buffer_size");
        return null_mut();
    }
    let read_size = if read_size == 0 { DEFAULT_READ_SIZE.min(max_buffer_size) } else { read_size };
    // msgpack.Unpacker's exception for a hook that cannot be called.
    if !ext_hook.is_null() && ext_hook != Py_None() && PyCallable_Check(ext_hook) == 0 {
        raise(PyExc_TypeError, "`ext_hook` is not callable");
        return null_mut();
    }
    let Some((ext_hook, read_opts, opts)) = msgpack_options(st, ext_hook, option) else {
        return null_mut();
    };
    let Ok(numpy_code) = parse_numpy_ext_code(numpy_ext_code, st.msgpack_decode_error) else {
        return null_mut();
    };
    let typed = if tp.is_null() || tp == Py_None() {
        if (!strict.is_null() || !dec_hook.is_null()) && parse_options(st, strict, dec_hook).is_err() {
            return null_mut();
        }
        None
    } else {
        let Ok(topts) = parse_options(st, strict, dec_hook) else {
            return null_mut();
        };
        let Ok(compiled) = compiled_type(st, tp) else {
            return null_mut();
        };
        Some((compiled, topts))
    };
    let dec_hook = typed.as_ref().map_or(null_mut(), |(_, o)| o.dec_hook);
    let file_like = if file_like.is_null() || file_like == Py_None() { null_mut() } else { file_like };
    let read = if file_like.is_null() {
        null_mut()
    } else {
        match read_method(file_like, "file_like") {
            Ok(read) => read,
            Err(Raised) => return null_mut(),
        }
    };
    let alloc = (*ty).tp_alloc.unwrap_or(PyType_GenericAlloc);
    let obj = alloc(ty, 0) as *mut Unpacker;
    if obj.is_null() {
        Py_XDECREF(read);
        return null_mut();
    }
    Py_XINCREF(file_like);
    Py_XINCREF(ext_hook);
    Py_XINCREF(dec_hook);
    (*obj).st = st;
    (*obj).file_like = file_like;
    (*obj).read = read;
    (*obj).ext_hook = ext_hook;
    (*obj).dec_hook = dec_hook;
    core::ptr::write(&mut (*obj).busy, Cell::new(false));
    core::ptr::write(
        &mut (*obj).inner,
        Inner {
            buf: StreamBuffer::default(),
            extent: Resumable::new(),
            consumed: 0,
            read_size,
            max_buffer_size,
            opts: read_opts,
            numpy_opts: opts & (options::NUMPY_EXT | options::MSGPACK_NUMPY | options::NUMPY_ZERO_COPY),
            numpy_code,
            typed,
            stacks: ReadStacks::new(),
        },
    );
    obj as *mut PyObject
}

unsafe extern "C" fn unpacker_traverse(obj: *mut PyObject, visit: visitproc, arg: *mut c_void) -> c_int {
    let u = &*(obj as *mut Unpacker);
    crate::classes::traverse(obj, [u.file_like, u.read, u.ext_hook, u.dec_hook], visit, arg)
}

unsafe extern "C" fn unpacker_clear(obj: *mut PyObject) -> c_int {
    let u = &mut *(obj as *mut Unpacker);
    crate::classes::clear([&mut u.file_like, &mut u.read, &mut u.ext_hook, &mut u.dec_hook]);
    0
}

unsafe extern "C" fn unpacker_dealloc(obj: *mut PyObject) {
    PyObject_GC_UnTrack(obj as *mut c_void);
    unpacker_clear(obj);
    core::ptr::drop_in_place(&mut (*(obj as *mut Unpacker)).inner);
    crate::classes::free_instance(obj);
}

unsafe extern "C" fn unpacker_next(obj: *mut PyObject) -> *mut PyObject {
    match step(obj as *mut Unpacker, true) {
        Ok(Step::Value(value)) => value,
        // No exception: the iteration stops (a later feed may start it again).
        Ok(_) | Err(Raised) => null_mut(),
    }
}

unsafe extern "C" fn unpacker_unpack(obj: *mut PyObject, _: *mut PyObject) -> *mut PyObject {
    match step(obj as *mut Unpacker, true) {
        Ok(Step::Value(value)) => value,
        Ok(_) => {
            raise(state_of(obj as *mut Unpacker).out_of_data, "No more data to unpack.");
            null_mut()
        }
        Err(Raised) => null_mut(),
    }
}

unsafe extern "C" fn unpacker_skip(obj: *mut PyObject, _: *mut PyObject) -> *mut PyObject {
    match step(obj as *mut Unpacker, false) {
        Ok(Step::Skipped) => {
            let none = Py_None();
            Py_INCREF(none);
            none
        }
        Ok(_) => {
            raise(state_of(obj as *mut Unpacker).out_of_data, "No more data to unpack.");
            null_mut()
        }
        Err(Raised) => null_mut(),
    }
}

unsafe extern "C" fn unpacker_tell(obj: *mut PyObject, _: *mut PyObject) -> *mut PyObject {
    let u = &*(obj as *mut Unpacker);
    if u.busy.get() {
        // The count is being moved; what it was before the call is as good.
        raise(PyExc_RuntimeError, "Unpacker is already in use (called again from read() or ext_hook)");
        return null_mut();
    }
    PyLong_FromUnsignedLongLong(u.inner.consumed)
}

unsafe extern "C" fn unpacker_feed(obj: *mut PyObject, data: *mut PyObject) -> *mut PyObject {
    let u = obj as *mut Unpacker;
    if (*u).busy.get() {
        raise(PyExc_RuntimeError, "Unpacker is already in use (called again from read() or ext_hook)");
        return null_mut();
    }
    if !(*u).file_like.is_null() {
        // msgpack-python's exception, for code that relies on it.
        raise(PyExc_AssertionError, "unpacker.feed() cannot be used with file_like");
        return null_mut();
    }
    let inner = &mut (*u).inner;
    if inner.buf.append_within(data, inner.max_buffer_size, state_of(u).buffer_full).is_err() {
        return null_mut();
    }
    let none = Py_None();
    Py_INCREF(none);
    none
}

static mut UNPACKER_METHODS: [PyMethodDef; 5] = [
    method(c"feed", unpacker_feed, METH_O, docs::UNPACKER_FEED),
    method(c"unpack", unpacker_unpack, METH_NOARGS, docs::UNPACKER_UNPACK),
    method(c"skip", unpacker_skip, METH_NOARGS, docs::UNPACKER_SKIP),
    method(c"tell", unpacker_tell, METH_NOARGS, docs::UNPACKER_TELL),
    PyMethodDef::zeroed(),
];

/// Creates the `Unpacker` type (called once, at module init).
pub unsafe fn new_unpacker_type(module: *mut PyObject) -> *mut PyTypeObject {
    let slots = crate::classes::ReaderSlots {
        new: unpacker_new,
        dealloc: unpacker_dealloc,
        traverse: unpacker_traverse,
        clear: unpacker_clear,
        next: unpacker_next,
        methods: core::ptr::addr_of_mut!(UNPACKER_METHODS) as *mut PyMethodDef,
        doc: docs::UNPACKER,
    };
    crate::classes::new_reader_type(module, c"orcodec.Unpacker", core::mem::size_of::<Unpacker>(), slots)
}

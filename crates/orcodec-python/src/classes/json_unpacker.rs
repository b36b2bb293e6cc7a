//! `JSONUnpacker`: the JSON twin of `Unpacker`. JSON values one after
//! another (JSON Lines, values separated by whitespace, or by nothing where
//! they delimit themselves: `{}[]"x"`), fed in pieces of any size or read
//! from a file-like `read_size` bytes at a time, come out one object each.
//!
//! The bytes not consumed yet are kept in a buffer. An extent scan
//! (`orcodec_core::json::stream::JsonExtent`) finds where the value at its
//! front ends, keeping its place between feeds, so each byte is scanned
//! once however the stream is cut; the value's bytes are then decoded whole
//! by the push decoder (or the typed one), exactly as `loads` decodes them.
//! Memory is the buffer, at most `max_buffer_size` bytes (`BufferFull` past
//! it), plus the value being decoded.
//!
//! A number or literal at the end of the bytes so far may continue, so it
//! waits for more; the end of `file_like` (a `read` that returns `b""`)
//! ends it. A value that fails to decode is consumed, and the next call
//! goes on after it.

use core::cell::Cell;
use core::ffi::{c_int, c_void};
use core::ptr::null_mut;
use orcodec_core::error::{DecodeError, Failure};
use orcodec_core::json::scanner::{parse_prefix_with, parse_with, ScanStacks};
use orcodec_core::json::stream::{ends_scalar, JsonExtent};
use pyo3_ffi::*;
use std::rc::Rc;

use crate::cpython::object::Owned;
use crate::decode::builder::PyBuilder;
use crate::decode::error::{raise_decode_error, raise_json_syntax_error};
use crate::decode::typed::node::Compiled;
use crate::decode::typed::run::{loads_with, Options as TypedOptions};
use crate::decode::GcPause;
use crate::module::docs;
use crate::module::errors::{add_note_to_current, raise, Raised};
use crate::module::streams::{constructor_args, read_method, size_arg, StreamBuffer};
use crate::state::State;

const DEFAULT_MAX_BUFFER_SIZE: usize = 100 * 1024 * 1024;
const DEFAULT_READ_SIZE: usize = 16 * 1024;
/// What `max_buffer_size=0` stands for (as for `Unpacker`).
const UNLIMITED: usize = i32::MAX as usize;

#[repr(C)]
pub struct JsonUnpacker {
    ob_base: PyObject,
    /// The state of the module whose class made it.
    st: *const State,
    /// The file-like and its bound `read` (NULL when fed).
    file_like: *mut PyObject,
    read: *mut PyObject,
    /// The typed decoding's `dec_hook` (NULL for none), held for `typed`.
    dec_hook: *mut PyObject,
    /// Set while a call runs: Python code it runs (`read()`, hooks) must
    /// not call back into this reader, whose buffer is being read.
    busy: Cell<bool>,
    inner: Inner,
}

/// The Rust state, never touched by the GC's slots.
struct Inner {
    /// The bytes held; the scan's offsets count from its `head`.
    buf: StreamBuffer,
    /// The scan of the value at `head`.
    extent: JsonExtent,
    /// Stream offset of `buf[head]` (`tell()`).
    consumed: u64,
    /// `file_like`'s read returned `b""`: no more bytes will come.
    eof: bool,
    /// `buf[head..text_end]` is known to be valid UTF-8 (checked as bytes
    /// arrive, for values decoded straight from the buffer).
    text_end: usize,
    /// Checking stopped at `text_end`: the byte there is no UTF-8 (its
    /// value will fail to decode; checking starts again after it).
    text_stuck: bool,
    read_size: usize,
    max_buffer_size: usize,
    /// The compiled `type=` and its options (None: untyped).
    typed: Option<(Rc<Compiled>, TypedOptions)>,
    stacks: ScanStacks<Owned>,
}

impl Inner {
    /// Extends `text_end` over the bytes checked as UTF-8 so far (a
    /// character cut at the end of the buffer waits for its other bytes).
    fn check_text(&mut self) {
        if self.text_end < self.buf.head {
            // The value with the invalid byte was consumed.
            self.text_end = self.buf.head;
            self.text_stuck = false;
        }
        if self.text_stuck || self.text_end == self.buf.bytes.len() {
            return;
        }
        match core::str::from_utf8(&self.buf.bytes[self.text_end..]) {
            Ok(_) => self.text_end = self.buf.bytes.len(),
            Err(e) => {
                self.text_end += e.valid_up_to();
                self.text_stuck = e.error_len().is_some();
            }
        }
    }

    /// The value at the front decoded straight from the buffer, when it is
    /// whole there and known to end where the scan would end it (untyped
    /// values: decoding runs no Python code of the caller's, so a value that
    /// is not whole yet is dropped without a trace and read again later).
    /// None: the scan decides (the value is cut, or is not valid JSON).
    unsafe fn direct(&mut self, st: &'static State) -> Result<Option<Owned>, Raised> {
        self.check_text();
        // Whitespace the scan has passed over is skipped.
        let from = self.buf.head + self.extent.pos;
        if from >= self.text_end {
            return Ok(None);
        }
        // SAFETY: `buf[head..text_end]` was checked as UTF-8, and `from` is
        // `head` (the end of a value) or after ASCII whitespace: a
        // character boundary.
        let text = core::str::from_utf8_unchecked(&self.buf.bytes[from..self.text_end]);
        let pause = GcPause::new(text.len());
        let result = parse_prefix_with(text, &mut PyBuilder::new(st, null_mut()).collecting_young(), &mut self.stacks);
        drop(pause);
        let (value, len) = match result {
            Ok(done) => done,
            Err(Failure::Syntax(_)) => return Ok(None),
            Err(Failure::Build(())) => return Err(Raised),
        };
        let end = from + len;
        let first = text.bytes().find(|c| !c.is_ascii_whitespace()).unwrap_or(b'"');
        if !matches!(first, b'[' | b'{' | b'"') {
            // A number or literal ends at a byte the scan ends it at (or
            // the end of the file); else it may go on.
            let ends = match self.buf.bytes.get(end) {
                Some(&c) => ends_scalar(c),
                None => self.eof,
            };
            if !ends {
                return Ok(None);
            }
        }
        self.consumed += (end - self.buf.head) as u64;
        self.buf.head = end;
        self.extent = JsonExtent::new();
        Ok(Some(value))
    }

    /// Appends the bytes of buffer `data`, or raises `BufferFull`
    /// (appending nothing) when the bytes held would pass
    /// `max_buffer_size`; how many were appended.
    unsafe fn append(&mut self, st: &State, data: *mut PyObject) -> Result<usize, Raised> {
        let (dropped, len) = self.buf.append_within(data, self.max_buffer_size, st.buffer_full)?;
        self.text_end = self.text_end.saturating_sub(dropped);
        Ok(len)
    }
}

/// The state of the module whose class made `obj` (a live, constructed reader).
#[inline(always)]
unsafe fn state_of(obj: *mut JsonUnpacker) -> &'static State {
    &*(*obj).st
}

const IN_USE: &str = "JSONUnpacker is already in use (called again from read() or a hook)";

/// The next value (NULL with an exception set), or None when no whole
/// value is held (and, reading a file, none is left in it).
unsafe fn next_value(obj: *mut JsonUnpacker) -> Result<Option<*mut PyObject>, Raised> {
    if (*obj).busy.get() {
        return Err(raise(PyExc_RuntimeError, IN_USE));
    }
    (*obj).busy.set(true);
    let result = next_in(obj, &mut (*obj).inner);
    (*obj).busy.set(false);
    result
}

unsafe fn next_in(obj: *mut JsonUnpacker, inner: &mut Inner) -> Result<Option<*mut PyObject>, Raised> {
    let st = state_of(obj);
    if inner.typed.is_none() && inner.extent.start.is_none() {
        if let Some(value) = inner.direct(st)? {
            return Ok(Some(value.into_raw()));
        }
    }
    loop {
        let Some((start, end)) = inner.extent.next(&inner.buf.bytes[inner.buf.head..], inner.eof) else {
            if (*obj).read.is_null() || inner.eof {
                return Ok(None);
            }
            fill(obj, inner)?;
            continue;
        };
        // The value is consumed whether or not it decodes.
        let from = inner.buf.head;
        let at = inner.consumed + start as u64;
        inner.buf.head += end;
        inner.consumed += end as u64;
        inner.extent = JsonExtent::new();
        let bytes = &inner.buf.bytes[from + start..from + end];
        let value = match &inner.typed {
            Some((compiled, opts)) => Owned::new(loads_with(st, compiled, opts, bytes, Py_None())).map_err(|()| Raised),
            None => {
                let pause = GcPause::new(bytes.len());
                let result =
                    parse_with(bytes, &mut PyBuilder::new(st, null_mut()).collecting_young(), &mut inner.stacks);
                drop(pause);
                match result {
                    Ok(value) => Ok(value),
                    Err(Failure::Syntax(e)) => Err(syntax_error(st, e, bytes)),
                    Err(Failure::Build(())) => Err(Raised),
                }
            }
        };
        if value.is_err() && PyErr_ExceptionMatches(st.json_decode_error) != 0 {
            // The error is about the value alone (its `doc` and `pos`): say
            // where it is in the stream.
            let to = at + bytes.len() as u64;
            add_note_to_current(&format!("in the value at bytes {at} to {to} of the stream"));
        }
        return value.map(|v| Some(v.into_raw()));
    }
}

/// Raises what decode error `e` of the value `bytes` means: MemoryError
/// when the decoder ran out of memory, else `loads`'s `JSONDecodeError`.
#[cold]
unsafe fn syntax_error(st: &State, e: DecodeError, bytes: &[u8]) -> Raised {
    raise_decode_error(e, |e| raise_json_syntax_error(st, &e, bytes, Py_None()))
}

/// Reads the next chunk from the file-like (`eof` set at its end).
unsafe fn fill(obj: *mut JsonUnpacker, inner: &mut Inner) -> Result<(), Raised> {
    let st = state_of(obj);
    let room = inner.max_buffer_size.saturating_sub(inner.buf.buffered());
    if room == 0 {
        PyErr_SetNone(st.buffer_full);
        return Err(Raised);
    }
    let size = PyLong_FromSize_t(inner.read_size.min(room));
    if size.is_null() {
        return Err(Raised);
    }
    let data = Owned::new(PyObject_CallOneArg((*obj).read, size)).map_err(|()| Raised);
    Py_DECREF(size);
    let data = data?;
    let data = data.as_ptr();
    if PyBytes_Check(data) == 0 && PyByteArray_Check(data) == 0 && PyMemoryView_Check(data) == 0 {
        let name = crate::decode::typed::input::py_type_name(data);
        return Err(raise(PyExc_TypeError, &format!("file_like.read() must return bytes, not {name}")));
    }
    inner.eof = inner.append(st, data)? == 0;
    Ok(())
}

/// A size argument (an int, not a bool): 0 or absent gives `default`.
unsafe fn size(obj: *mut PyObject, name: &str, default: usize) -> Result<usize, Raised> {
    if !obj.is_null() && PyBool_Check(obj) != 0 {
        return Err(raise(PyExc_TypeError, &format!("{name} must be an int")));
    }
    let value = size_arg(obj, name, 0)?;
    Ok(if value == 0 { default } else { value })
}

unsafe extern "C" fn json_unpacker_new(
    ty: *mut PyTypeObject,
    args: *mut PyObject,
    kwargs: *mut PyObject,
) -> *mut PyObject {
    let Some(st) = State::of_type(ty) else {
        return null_mut();
    };
    let names = [c"file_like", c"read_size", c"max_buffer_size", c"type", c"strict", c"dec_hook"];
    let Ok([file_like, read_size, max_buffer_size, tp, strict, dec_hook]) =
        constructor_args("JSONUnpacker", names, 1, args, kwargs)
    else {
        return null_mut();
    };
    let max_buffer_size = if max_buffer_size.is_null() {
        Ok(DEFAULT_MAX_BUFFER_SIZE)
    } else {
        size(max_buffer_size, "max_buffer_size", UNLIMITED)
    };
    let Ok(max_buffer_size) = max_buffer_size else {
        return null_mut();
    };
    let Ok(read_size) = size(read_size, "read_size", DEFAULT_READ_SIZE) else {
        return null_mut();
    };
    // Compiled now, so that a type orcodec cannot decode fails here.
    let Ok(typed) = crate::decode::typed_call(st, tp, strict, dec_hook).transpose() else {
        return null_mut();
    };
    let file_like = if file_like.is_null() || file_like == Py_None() { null_mut() } else { file_like };
    let read = if file_like.is_null() {
        null_mut()
    } else {
        match read_method(file_like, "file_like") {
            Ok(read) => read,
            Err(Raised) => return null_mut(),
        }
    };
    let read_size = read_size.min(max_buffer_size);
    let dec_hook = typed.as_ref().map_or(null_mut(), |(_, o)| o.dec_hook);
    let alloc = (*ty).tp_alloc.unwrap_or(PyType_GenericAlloc);
    let obj = alloc(ty, 0) as *mut JsonUnpacker;
    if obj.is_null() {
        Py_XDECREF(read);
        return null_mut();
    }
    Py_XINCREF(file_like);
    Py_XINCREF(dec_hook);
    (*obj).st = st;
    (*obj).file_like = file_like;
    (*obj).read = read;
    (*obj).dec_hook = dec_hook;
    core::ptr::write(&mut (*obj).busy, Cell::new(false));
    core::ptr::write(
        &mut (*obj).inner,
        Inner {
            buf: StreamBuffer::default(),
            extent: JsonExtent::new(),
            consumed: 0,
            eof: false,
            text_end: 0,
            text_stuck: false,
            read_size,
            max_buffer_size,
            typed,
            stacks: ScanStacks::new(),
        },
    );
    obj as *mut PyObject
}

unsafe extern "C" fn json_unpacker_traverse(obj: *mut PyObject, visit: visitproc, arg: *mut c_void) -> c_int {
    let u = &*(obj as *mut JsonUnpacker);
    crate::classes::traverse(obj, [u.file_like, u.read, u.dec_hook], visit, arg)
}

unsafe extern "C" fn json_unpacker_clear(obj: *mut PyObject) -> c_int {
    let u = &mut *(obj as *mut JsonUnpacker);
    crate::classes::clear([&mut u.file_like, &mut u.read, &mut u.dec_hook]);
    0
}

unsafe extern "C" fn json_unpacker_dealloc(obj: *mut PyObject) {
    PyObject_GC_UnTrack(obj as *mut c_void);
    json_unpacker_clear(obj);
    core::ptr::drop_in_place(&mut (*(obj as *mut JsonUnpacker)).inner);
    crate::classes::free_instance(obj);
}

unsafe extern "C" fn json_unpacker_next(obj: *mut PyObject) -> *mut PyObject {
    match next_value(obj as *mut JsonUnpacker) {
        Ok(Some(value)) => value,
        // No exception: the iteration stops (a later feed may start it again).
        Ok(None) | Err(Raised) => null_mut(),
    }
}

unsafe extern "C" fn json_unpacker_unpack(obj: *mut PyObject, _: *mut PyObject) -> *mut PyObject {
    match next_value(obj as *mut JsonUnpacker) {
        Ok(Some(value)) => value,
        Ok(None) => {
            raise(state_of(obj as *mut JsonUnpacker).out_of_data, "No more data to unpack.");
            null_mut()
        }
        Err(Raised) => null_mut(),
    }
}

unsafe extern "C" fn json_unpacker_tell(obj: *mut PyObject, _: *mut PyObject) -> *mut PyObject {
    let u = &*(obj as *mut JsonUnpacker);
    if u.busy.get() {
        raise(PyExc_RuntimeError, IN_USE);
        return null_mut();
    }
    PyLong_FromUnsignedLongLong(u.inner.consumed)
}

unsafe extern "C" fn json_unpacker_feed(obj: *mut PyObject, data: *mut PyObject) -> *mut PyObject {
    let u = obj as *mut JsonUnpacker;
    if (*u).busy.get() {
        raise(PyExc_RuntimeError, IN_USE);
        return null_mut();
    }
    if !(*u).file_like.is_null() {
        raise(PyExc_TypeError, "feed() cannot be used with file_like");
        return null_mut();
    }
    if (*u).inner.append(state_of(u), data).is_err() {
        return null_mut();
    }
    let none = Py_None();
    Py_INCREF(none);
    none
}

static mut JSON_UNPACKER_METHODS: [PyMethodDef; 4] = [
    crate::classes::method(c"feed", json_unpacker_feed, METH_O, docs::JSON_UNPACKER_FEED),
    crate::classes::method(c"unpack", json_unpacker_unpack, METH_NOARGS, docs::JSON_UNPACKER_UNPACK),
    crate::classes::method(c"tell", json_unpacker_tell, METH_NOARGS, docs::JSON_UNPACKER_TELL),
    PyMethodDef::zeroed(),
];

/// Creates the `JSONUnpacker` type (called once, at module init).
pub unsafe fn new_json_unpacker_type(module: *mut PyObject) -> *mut PyTypeObject {
    let slots = crate::classes::ReaderSlots {
        new: json_unpacker_new,
        dealloc: json_unpacker_dealloc,
        traverse: json_unpacker_traverse,
        clear: json_unpacker_clear,
        next: json_unpacker_next,
        methods: core::ptr::addr_of_mut!(JSON_UNPACKER_METHODS) as *mut PyMethodDef,
        doc: docs::JSON_UNPACKER,
    };
    crate::classes::new_reader_type(module, c"orcodec.JSONUnpacker", core::mem::size_of::<JsonUnpacker>(), slots)
}

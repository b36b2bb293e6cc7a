//! `orcodec.msgpack.Unpacker`'s class: msgpack-python's streaming unpacker,
//! whose buffer and methods are all here. The Python class derives from it
//! and only checks the constructor's arguments, which it hands over once,
//! as the config tuple `unpackb` takes too (`_setup`).
//!
//! The bytes not consumed yet are kept in a buffer, the value at its front
//! from its first byte. Where no user code runs while a value is built (no
//! hook, the default `ext_hook`), a value is first decoded straight from the
//! buffer: the usual case, a whole value, is read once. An incomplete value
//! is then scanned (`orcodec_core::msgpack::scan::Resumable`), keeping the
//! scan's place between feeds, so a value arriving a byte at a time is read
//! once in all; the scan also counts what msgpack-python's resumable parser
//! has consumed of it (`tell()`) and checks the `max_*_len` limits where
//! msgpack-python does. Once the scan says the value is whole, it is
//! decoded from exactly its bytes, running the hooks.
//!
//! While a value is read, code the hooks or `read()` run may call the
//! unpacker again: every method but `tell()` then raises RuntimeError (the
//! buffer is being read), as msgpack-python's do.

use core::cell::Cell;
use core::ffi::{c_char, c_int, c_void};
use core::ptr::{addr_of_mut, null_mut};
use orcodec_core::error::{DecodeErrorKind as Kind, Failure};
use orcodec_core::msgpack::scan::{scan, Limits, Resumable, ScanError, Scanned};
use pyo3_ffi::*;

use super::{config, decode_prefix, decode_prefix_raw, over_limit, syntax_error, Config};
use crate::classes::method;
use crate::cpython::object::Owned;
use crate::module::errors::{raise, Raised};
use crate::module::streams::{compact, try_extend};
use crate::state::State;

#[repr(C)]
pub struct MpUnpacker {
    ob_base: PyObject,
    /// The state of the module whose class made it.
    st: *const State,
    /// The config tuple `_setup` was given (NULL before): `inner.cfg`
    /// borrows its items.
    config: *mut PyObject,
    /// `file_like.read` (NULL when fed, and once the file has ended).
    read: *mut PyObject,
    /// Set while a value is read (hooks and `read()` may run meanwhile).
    unpacking: Cell<bool>,
    inner: Inner,
}

/// What a read step is after.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Construct,
    Skip,
    ArrayHeader,
    MapHeader,
}

/// The Rust state, never touched by the collector's slots.
struct Inner {
    /// The options, read from `config` (None before `_setup`).
    cfg: Option<Config>,
    buf: Vec<u8>,
    /// Start of the bytes not consumed yet.
    head: usize,
    /// Stream offset of `buf[head]`.
    offset: u64,
    /// What msgpack-python would have consumed of the incomplete value at
    /// `head` (`tell()` counts it; `max_buffer_size` does not).
    partial: usize,
    /// The step that left the value at `head` incomplete: another one may
    /// not start until it is done (msgpack-python's rule).
    pending: Option<Mode>,
    /// The scan of the incomplete value at `head`.
    scan: Resumable,
    max_buffer_size: usize,
    read_size: usize,
}

impl Inner {
    /// The bytes held that count against `max_buffer_size`.
    fn held(&self) -> usize {
        self.buf.len() - self.head - self.partial
    }

    fn consume(&mut self, len: usize) {
        self.head += len;
        self.offset += len as u64;
        self.partial = 0;
        self.pending = None;
        self.scan.reset();
    }

    /// After a step failed: the failed value is consumed as far as its end is
    /// known (one that cannot be delimited stays, and fails again); a header
    /// of the wrong type is not consumed.
    fn failed(&mut self, mode: Mode) {
        self.pending = None;
        self.partial = 0;
        self.scan.reset();
        if matches!(mode, Mode::ArrayHeader | Mode::MapHeader) {
            return;
        }
        if let Ok(Scanned::Whole(len)) = scan(&self.buf[self.head..], &Limits::NONE, &mut Vec::new()) {
            self.consume(len);
        }
    }
}

/// What a step found at the front of the buffer.
enum Stepped {
    /// The value (None for a skip, the count for a header) and its length.
    Whole(Owned, usize),
    /// The value is incomplete: what msgpack-python has consumed of it.
    Partial(usize),
}

#[cold]
unsafe fn in_progress(what: &str) -> Raised {
    raise(PyExc_RuntimeError, &format!("{what} cannot be called while unpacking is in progress"))
}

/// One step of `mode` over `bytes`, the buffer from the value's first byte.
unsafe fn step_over(cfg: &Config, bytes: &[u8], mode: Mode, resumable: &mut Resumable) -> Result<Stepped, Raised> {
    if let Mode::ArrayHeader | Mode::MapHeader = mode {
        return container_header(bytes, mode == Mode::MapHeader);
    }
    if mode == Mode::Construct && cfg.no_user_code && !resumable.started() {
        // Built straight from the buffer when the value is whole there. Only
        // where building runs no user code: an incomplete value is dropped
        // without a trace, and the scan below says what it is.
        match decode_prefix_raw(cfg, bytes) {
            Ok((value, len)) => return Ok(Stepped::Whole(value, len)),
            Err(Failure::Build(())) => return Err(Raised),
            Err(Failure::Syntax(e)) => {
                if !matches!(e.kind, Kind::UnexpectedEnd | Kind::LengthBeyondInput { .. }) {
                    return Err(syntax_error(cfg, &e));
                }
            }
        }
    }
    let limits = if mode == Mode::Skip { Limits::NONE } else { cfg.limits };
    let len = match resumable.scan(bytes, &limits) {
        Ok(Scanned::Whole(len)) => len,
        Ok(Scanned::Partial(consumed)) => return Ok(Stepped::Partial(consumed)),
        Err(ScanError::Decode(e)) => return Err(syntax_error(cfg, &e)),
        Err(ScanError::Limit { what, len, max, .. }) => return Err(over_limit(what, len, max)),
        // Not met: the config sets no `value` limit (msgpack-python's
        // buffer limit is BufferFull when bytes are fed).
        Err(ScanError::TooLarge { what, .. }) => return Err(raise(PyExc_ValueError, &format!("{what} too large"))),
    };
    if mode == Mode::Skip {
        return Ok(Stepped::Whole(Owned::new(Py_NewRef(Py_None())).map_err(|()| Raised)?, len));
    }
    let (value, used) = decode_prefix(cfg, &bytes[..len])?;
    debug_assert_eq!(used, len);
    Ok(Stepped::Whole(value, len))
}

/// `read_array_header`'s and `read_map_header`'s step: the count.
unsafe fn container_header(bytes: &[u8], map: bool) -> Result<Stepped, Raised> {
    let Some(&marker) = bytes.first() else {
        return Ok(Stepped::Partial(0));
    };
    let (fixed, wide) = if map { (0x80u8, 0xdeu8) } else { (0x90, 0xdc) };
    let (n, len) = if marker & 0xf0 == fixed {
        ((marker & 0x0f) as usize, 1)
    } else if marker == wide || marker == wide + 1 {
        let width = if marker == wide { 2 } else { 4 };
        let Some(field) = bytes.get(1..1 + width) else {
            return Ok(Stepped::Partial(0));
        };
        (field.iter().fold(0usize, |acc, &b| (acc << 8) | b as usize), 1 + width)
    } else {
        return Err(raise(PyExc_ValueError, "Unexpected type header on stream"));
    };
    Ok(Stepped::Whole(Owned::new(PyLong_FromSize_t(n)).map_err(|()| Raised)?, len))
}

/// The next value (or count) of `mode`; None when the buffer (and the file)
/// hold no whole one.
unsafe fn unpack(obj: *mut MpUnpacker, mode: Mode) -> Result<Option<Owned>, Raised> {
    if (*obj).unpacking.get() {
        return Err(raise(PyExc_RuntimeError, "Unpacker cannot be called recursively while unpacking is in progress"));
    }
    let inner = addr_of_mut!((*obj).inner);
    // SAFETY (of the borrows below): `cfg` is replaced only by `_setup` and
    // `tp_clear`, neither of which runs while unpacking; the hooks that run
    // during `step_over` reach only `tell()`, which reads `offset` and
    // `partial`, fields no borrow below holds across a hook.
    let cfg = cfg_of(obj)?;
    if (*inner).pending.is_some_and(|p| p != mode) {
        return Err(raise(PyExc_ValueError, "Cannot switch unpacking methods while an object is incomplete"));
    }
    (*obj).unpacking.set(true);
    let result = loop {
        if (*inner).head < (*inner).buf.len() {
            (*inner).pending = Some(mode);
            let bytes = &(&(*inner).buf)[(*inner).head..];
            match step_over(cfg, bytes, mode, &mut (*inner).scan) {
                Ok(Stepped::Whole(value, len)) => {
                    (*inner).consume(len);
                    break Ok(Some(value));
                }
                Ok(Stepped::Partial(consumed)) => (*inner).partial = consumed,
                Err(Raised) => {
                    (*inner).failed(mode);
                    break Err(Raised);
                }
            }
        }
        if (*obj).read.is_null() {
            break Ok(None);
        }
        if let Err(Raised) = read_from_file(obj) {
            break Err(Raised);
        }
    };
    (*obj).unpacking.set(false);
    result
}

/// Appends `bytes` to the buffer, or raises BufferFull.
unsafe fn append(obj: *mut MpUnpacker, bytes: &[u8]) -> Result<(), Raised> {
    let inner = &mut (*obj).inner;
    if inner.held().saturating_add(bytes.len()) > inner.max_buffer_size {
        return Err(buffer_full(obj));
    }
    compact(&mut inner.buf, &mut inner.head, bytes.len());
    try_extend(&mut inner.buf, bytes)
}

/// The options; TypeError when `_setup` has not run.
unsafe fn cfg_of<'a>(obj: *mut MpUnpacker) -> Result<&'a Config, Raised> {
    match (*obj).inner.cfg.as_ref() {
        Some(cfg) => Ok(cfg),
        None => Err(raise(PyExc_TypeError, "Unpacker.__init__() was not called")),
    }
}

#[cold]
unsafe fn buffer_full(obj: *mut MpUnpacker) -> Raised {
    // With no arguments, as msgpack-python raises it.
    if let Ok(cfg) = cfg_of(obj) {
        PyErr_SetNone(cfg.buffer_full);
    }
    Raised
}

/// The bytes of `data` (any contiguous buffer) given to `f`.
unsafe fn with_buffer<T>(data: *mut PyObject, f: impl FnOnce(&[u8]) -> Result<T, Raised>) -> Result<T, Raised> {
    if PyBytes_CheckExact(data) != 0 {
        return f(crate::cpython::bytes::bytes_data(data));
    }
    let mut view: Py_buffer = core::mem::zeroed();
    if PyObject_GetBuffer(data, &mut view, PyBUF_SIMPLE) != 0 {
        return Err(Raised);
    }
    // SAFETY: the export keeps `view.buf` readable for `view.len` bytes until released.
    let result = f(core::slice::from_raw_parts(view.buf as *const u8, view.len as usize));
    PyBuffer_Release(&mut view);
    result
}

/// `read(n)` of the file-like, as a new reference.
unsafe fn call_read(read: *mut PyObject, n: usize) -> Result<Owned, Raised> {
    let size = Owned::new(PyLong_FromSize_t(n)).map_err(|()| Raised)?;
    Owned::new(PyObject_CallOneArg(read, size.as_ptr())).map_err(|()| Raised)
}

/// Reads the next chunk from the file-like into the buffer; at its end the
/// unpacker is fed from then on, as msgpack-python's.
unsafe fn read_from_file(obj: *mut MpUnpacker) -> Result<(), Raised> {
    let inner = &(*obj).inner;
    let room = inner.max_buffer_size.saturating_sub(inner.held());
    if room == 0 {
        return Err(buffer_full(obj));
    }
    let data = call_read((*obj).read, inner.read_size.min(room))?;
    if data.as_ptr() != Py_None() {
        let appended =
            with_buffer(
                data.as_ptr(),
                |bytes| if bytes.is_empty() { Ok(false) } else { append(obj, bytes).map(|()| true) },
            );
        if appended? {
            return Ok(());
        }
    }
    let read = core::mem::replace(&mut (*obj).read, null_mut());
    Py_XDECREF(read);
    Ok(())
}

unsafe fn value_or_out_of_data(obj: *mut PyObject, mode: Mode) -> *mut PyObject {
    match unpack(obj as *mut MpUnpacker, mode) {
        Ok(Some(value)) => value.into_raw(),
        Ok(None) => {
            if let Ok(cfg) = cfg_of(obj as *mut MpUnpacker) {
                raise(cfg.out_of_data, "No more data to unpack.");
            }
            null_mut()
        }
        Err(Raised) => null_mut(),
    }
}

unsafe extern "C" fn mp_unpacker_unpack(obj: *mut PyObject, _: *mut PyObject) -> *mut PyObject {
    value_or_out_of_data(obj, Mode::Construct)
}

unsafe extern "C" fn mp_unpacker_skip(obj: *mut PyObject, _: *mut PyObject) -> *mut PyObject {
    value_or_out_of_data(obj, Mode::Skip)
}

unsafe extern "C" fn mp_unpacker_read_array_header(obj: *mut PyObject, _: *mut PyObject) -> *mut PyObject {
    value_or_out_of_data(obj, Mode::ArrayHeader)
}

unsafe extern "C" fn mp_unpacker_read_map_header(obj: *mut PyObject, _: *mut PyObject) -> *mut PyObject {
    value_or_out_of_data(obj, Mode::MapHeader)
}

unsafe extern "C" fn mp_unpacker_next(obj: *mut PyObject) -> *mut PyObject {
    match unpack(obj as *mut MpUnpacker, Mode::Construct) {
        Ok(Some(value)) => value.into_raw(),
        // No exception set: the iteration stops (a loop that feeds and
        // iterates ends each round so, and a StopIteration made each time
        // would cost more than the values of a small feed).
        Ok(None) | Err(Raised) => null_mut(),
    }
}

unsafe extern "C" fn mp_unpacker_iter(obj: *mut PyObject) -> *mut PyObject {
    Py_NewRef(obj)
}

unsafe extern "C" fn mp_unpacker_tell(obj: *mut PyObject, _: *mut PyObject) -> *mut PyObject {
    let u = obj as *mut MpUnpacker;
    // Read through the fields alone: a hook of a value being read may ask.
    let offset = (*u).inner.offset;
    let partial = (*u).inner.partial;
    PyLong_FromUnsignedLongLong(offset + partial as u64)
}

unsafe extern "C" fn mp_unpacker_feed(obj: *mut PyObject, data: *mut PyObject) -> *mut PyObject {
    let u = obj as *mut MpUnpacker;
    if (*u).unpacking.get() {
        in_progress("Unpacker.feed()");
        return null_mut();
    }
    if !(*u).read.is_null() {
        raise(PyExc_AssertionError, "unpacker.feed() is not be able to use with `file_like`.");
        return null_mut();
    }
    match with_buffer(data, |bytes| append(u, bytes)) {
        Ok(()) => Py_NewRef(Py_None()),
        Err(Raised) => null_mut(),
    }
}

unsafe extern "C" fn mp_unpacker_read_bytes(obj: *mut PyObject, arg: *mut PyObject) -> *mut PyObject {
    let u = obj as *mut MpUnpacker;
    if (*u).unpacking.get() {
        in_progress("Unpacker.read_bytes()");
        return null_mut();
    }
    if (*u).inner.pending.is_some() {
        raise(PyExc_ValueError, "Cannot switch unpacking methods while an object is incomplete");
        return null_mut();
    }
    let n = PyLong_AsSsize_t(arg);
    if n == -1 && !PyErr_Occurred().is_null() {
        return null_mut();
    }
    let wanted = n.max(0) as usize;
    let inner = &mut (*u).inner;
    let take = wanted.min(inner.buf.len() - inner.head);
    let head = &inner.buf[inner.head..inner.head + take];
    let Ok(mut ret) = Owned::new(PyBytes_FromStringAndSize(head.as_ptr() as *const c_char, take as Py_ssize_t)) else {
        return null_mut();
    };
    inner.consume(take);
    if take < wanted && !(*u).read.is_null() {
        // The rest straight from the file (its bytes are consumed too).
        let Ok(more) = call_read((*u).read, wanted - take) else {
            return null_mut();
        };
        let Ok(joined) = Owned::new(PySequence_Concat(ret.as_ptr(), more.as_ptr())) else {
            return null_mut();
        };
        ret = joined;
        (*u).inner.offset += (PyObject_Length(ret.as_ptr()) as usize - take) as u64;
    }
    ret.into_raw()
}

/// `_setup(read, config, max_buffer_size, read_size)`: (re)starts the
/// unpacker with the arguments the Python constructor checked: `read` is
/// `file_like.read` or None, `config` the tuple `unpackb` takes.
unsafe extern "C" fn mp_unpacker_setup(
    obj: *mut PyObject,
    args: *mut *mut PyObject,
    nargs: Py_ssize_t,
) -> *mut PyObject {
    let u = obj as *mut MpUnpacker;
    if (*u).unpacking.get() {
        in_progress("Unpacker.__init__()");
        return null_mut();
    }
    if nargs != 4 {
        raise(PyExc_TypeError, "_setup() takes 4 positional arguments");
        return null_mut();
    }
    let [read, tuple, max_buffer_size, read_size] = core::array::from_fn(|i| *args.add(i));
    let Ok(cfg) = config(&*(*u).st, tuple) else {
        return null_mut();
    };
    let max_buffer_size = PyLong_AsSize_t(max_buffer_size);
    let read_size = PyLong_AsSize_t(read_size);
    if !PyErr_Occurred().is_null() {
        return null_mut();
    }
    // The new tuple is held before the old one goes, and the old options
    // (which borrow from it) go before it.
    let inner = &mut (*u).inner;
    inner.cfg = Some(cfg);
    let old_config = core::mem::replace(&mut (*u).config, Py_NewRef(tuple));
    let new_read = if read == Py_None() { null_mut() } else { Py_NewRef(read) };
    let old_read = core::mem::replace(&mut (*u).read, new_read);
    let inner = &mut (*u).inner;
    inner.buf = Vec::new();
    inner.head = 0;
    inner.offset = 0;
    inner.partial = 0;
    inner.pending = None;
    inner.scan.reset();
    inner.max_buffer_size = max_buffer_size;
    inner.read_size = read_size;
    Py_XDECREF(old_config);
    Py_XDECREF(old_read);
    Py_NewRef(Py_None())
}

unsafe extern "C" fn mp_unpacker_new(
    ty: *mut PyTypeObject,
    _args: *mut PyObject,
    _kwargs: *mut PyObject,
) -> *mut PyObject {
    let Some(st) = State::of_type(ty) else {
        return null_mut();
    };
    let alloc = (*ty).tp_alloc.unwrap_or(PyType_GenericAlloc);
    let obj = alloc(ty, 0) as *mut MpUnpacker;
    if obj.is_null() {
        return null_mut();
    }
    (*obj).st = st;
    (*obj).config = null_mut();
    (*obj).read = null_mut();
    core::ptr::write(&mut (*obj).unpacking, Cell::new(false));
    core::ptr::write(
        &mut (*obj).inner,
        Inner {
            cfg: None,
            buf: Vec::new(),
            head: 0,
            offset: 0,
            partial: 0,
            pending: None,
            scan: Resumable::new(),
            max_buffer_size: 0,
            read_size: 0,
        },
    );
    obj as *mut PyObject
}

unsafe extern "C" fn mp_unpacker_traverse(obj: *mut PyObject, visit: visitproc, arg: *mut c_void) -> c_int {
    let u = &*(obj as *mut MpUnpacker);
    crate::classes::traverse(obj, [u.config, u.read], visit, arg)
}

unsafe extern "C" fn mp_unpacker_clear(obj: *mut PyObject) -> c_int {
    let u = &mut *(obj as *mut MpUnpacker);
    // The options borrow from the tuple: they go first.
    u.inner.cfg = None;
    crate::classes::clear([&mut u.config, &mut u.read]);
    0
}

unsafe extern "C" fn mp_unpacker_dealloc(obj: *mut PyObject) {
    PyObject_GC_UnTrack(obj as *mut c_void);
    mp_unpacker_clear(obj);
    core::ptr::drop_in_place(&mut (*(obj as *mut MpUnpacker)).inner);
    crate::classes::free_instance(obj);
}

static mut MP_UNPACKER_METHODS: [PyMethodDef; 9] = [
    method(c"feed", mp_unpacker_feed, METH_O, c"feed($self, next_bytes, /)\n--\n\nAppend `next_bytes` (any bytes-like object) to the buffer."),
    method(c"unpack", mp_unpacker_unpack, METH_NOARGS, c"unpack($self, /)\n--\n\nThe next value; OutOfData when the buffer holds no whole value."),
    method(c"skip", mp_unpacker_skip, METH_NOARGS, c"skip($self, /)\n--\n\nReads and drops the next value; OutOfData as ``unpack``."),
    method(c"read_array_header", mp_unpacker_read_array_header, METH_NOARGS, c"read_array_header($self, /)\n--\n\nThe length n of the array that comes next; the next n values are its items."),
    method(c"read_map_header", mp_unpacker_read_map_header, METH_NOARGS, c"read_map_header($self, /)\n--\n\nThe length n of the map that comes next; the next 2n values are its keys and values."),
    method(c"read_bytes", mp_unpacker_read_bytes, METH_O, c"read_bytes($self, nbytes, /)\n--\n\nThe next `nbytes` bytes of the stream, raw (fewer at its end)."),
    method(c"tell", mp_unpacker_tell, METH_NOARGS, c"tell($self, /)\n--\n\nThe stream position: bytes consumed so far, an incomplete value's too."),
    PyMethodDef {
        ml_name: c"_setup".as_ptr(),
        ml_meth: PyMethodDefPointer { PyCFunctionFast: mp_unpacker_setup },
        ml_flags: METH_FASTCALL,
        ml_doc: null_mut(),
    },
    PyMethodDef::zeroed(),
];

/// Creates the class `orcodec.msgpack.Unpacker` derives from (called once,
/// at module init).
pub unsafe fn new_mp_unpacker_type(module: *mut PyObject) -> *mut PyTypeObject {
    let mut slots = [
        crate::classes::slot(Py_tp_new, mp_unpacker_new as *mut c_void),
        crate::classes::slot(Py_tp_dealloc, mp_unpacker_dealloc as *mut c_void),
        crate::classes::slot(Py_tp_traverse, mp_unpacker_traverse as *mut c_void),
        crate::classes::slot(Py_tp_clear, mp_unpacker_clear as *mut c_void),
        crate::classes::slot(Py_tp_iter, mp_unpacker_iter as *mut c_void),
        crate::classes::slot(Py_tp_iternext, mp_unpacker_next as *mut c_void),
        crate::classes::slot(Py_tp_methods, core::ptr::addr_of_mut!(MP_UNPACKER_METHODS) as *mut c_void),
        crate::classes::slot(0, null_mut()),
    ];
    crate::classes::new_gc_type(
        module,
        c"orcodec._MsgpackUnpacker",
        core::mem::size_of::<MpUnpacker>(),
        true,
        &mut slots,
    )
}

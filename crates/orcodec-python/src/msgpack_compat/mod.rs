//! The extension's half of `orcodec.msgpack` (msgpack-python's API): the
//! push decoder driving a builder with msgpack-python's options, its
//! `Unpacker`'s class ([`unpacker`]), its packer's dialects and headers. The
//! Python package (`python/orcodec/msgpack/`) checks the arguments and keeps
//! the packer's state; `unpackb` and the `Unpacker` take a config tuple it
//! builds once per call or per `Unpacker`:
//!
//! ```text
//! (flags, object_hook, object_pairs_hook, list_hook, ext_hook, timestamp_factory,
//!  unicode_errors, max_str_len, max_bin_len, max_array_len, max_map_len, max_ext_len,
//!  FormatError, StackError, ExtraData, OutOfData, BufferFull, stacks)
//! flags: 1 use_list, 2 raw, 4 strict_map_key, 8 no user code (no hook, the
//!        default ext_hook: a value may be built before it is known whole);
//!        a limit < 0 is none; hooks None or callables
//! stacks: None, or a capsule from `_mp_stacks()`: the decoder's stacks, kept
//!         between the calls that share the tuple (a small document then
//!         allocates nothing of its own)
//! ```

use core::ffi::{c_char, CStr};
use core::ptr::null_mut;
use orcodec_core::builder::Builder;
use orcodec_core::error::{DecodeError, DecodeErrorKind as Kind, Failure};
use orcodec_core::msgpack::reader::{read_prefix_with, ReadOptions, ReadStacks};
use orcodec_core::msgpack::rewrite::{rewrite, write_raw_header, write_str_header, Dialect, RewriteError};
use orcodec_core::msgpack::scan::Limits;
use orcodec_core::msgpack::writer::{write_array_header, write_ext_header, write_map_header};
use pyo3_ffi::*;

use crate::cpython::object::Owned;
use crate::decode::builder::PyBuilder;
use crate::decode::input::{borrow_input, ViewSlot};
use crate::decode::{unpaused, GcPause};
use crate::encode::output::BytesSink;
use crate::module::errors::{raise, Raised};
use crate::state::State;
use orcodec_core::sink::Sink;

const USE_LIST: i64 = 1;
const RAW: i64 = 2;
const STRICT_MAP_KEY: i64 = 4;
const NO_USER_CODE: i64 = 8;
const CONFIG_LEN: Py_ssize_t = 18;

pub mod unpacker;

/// The decode options of one call, borrowed from the config tuple (which
/// the caller holds for the call, the `Unpacker` for its life).
struct Config {
    /// The state of the module whose function was called.
    st: &'static State,
    use_list: bool,
    raw: bool,
    strict_map_key: bool,
    no_user_code: bool,
    object_hook: *mut PyObject,
    pairs_hook: *mut PyObject,
    list_hook: *mut PyObject,
    ext_hook: *mut PyObject,
    timestamp: *mut PyObject,
    /// NULL: strict.
    unicode_errors: *const c_char,
    limits: Limits,
    format_error: *mut PyObject,
    stack_error: *mut PyObject,
    extra_data: *mut PyObject,
    out_of_data: *mut PyObject,
    buffer_full: *mut PyObject,
    /// The kept stacks (NULL: none kept).
    stacks: *mut Kept,
}

/// Stacks kept in a capsule: taken out while a decode runs (a decode that
/// a hook starts meanwhile makes its own), put back after.
struct Kept(Option<ReadStacks<Owned>>);

const CAPSULE: &CStr = c"orcodec.msgpack stacks";

unsafe extern "C" fn free_kept(capsule: *mut PyObject) {
    let ptr = PyCapsule_GetPointer(capsule, CAPSULE.as_ptr()) as *mut Kept;
    if !ptr.is_null() {
        // SAFETY: made by `Box::into_raw` in `mp_stacks`, freed once here.
        drop(Box::from_raw(ptr));
    }
}

/// `_mp_stacks()`: a capsule of empty stacks for a config tuple.
pub unsafe extern "C" fn mp_stacks(
    _module: *mut PyObject,
    _args: *const *mut PyObject,
    _nargs: Py_ssize_t,
    _kwnames: *mut PyObject,
) -> *mut PyObject {
    let kept = Box::into_raw(Box::new(Kept(Some(ReadStacks::new()))));
    let capsule = PyCapsule_New(kept as *mut core::ffi::c_void, CAPSULE.as_ptr(), Some(free_kept));
    if capsule.is_null() {
        // SAFETY: not handed to the capsule.
        drop(Box::from_raw(kept));
    }
    capsule
}

unsafe fn none_null(obj: *mut PyObject) -> *mut PyObject {
    if obj == Py_None() {
        null_mut()
    } else {
        obj
    }
}

unsafe fn limit(obj: *mut PyObject) -> Result<usize, Raised> {
    let v = PyLong_AsLongLong(obj);
    if v == -1 && !PyErr_Occurred().is_null() {
        return Err(Raised);
    }
    Ok(if v < 0 { usize::MAX } else { v as usize })
}

/// Reads the config tuple (see the module docs).
unsafe fn config(st: &'static State, cfg: *mut PyObject) -> Result<Config, Raised> {
    if PyTuple_Check(cfg) == 0 || PyTuple_GET_SIZE(cfg) != CONFIG_LEN {
        return Err(raise(PyExc_TypeError, "config must be the tuple orcodec.msgpack builds"));
    }
    let item = |i: Py_ssize_t| PyTuple_GET_ITEM(cfg, i);
    let flags = PyLong_AsLongLong(item(0));
    if flags == -1 && !PyErr_Occurred().is_null() {
        return Err(Raised);
    }
    let errors = item(6);
    let unicode_errors = if errors == Py_None() {
        core::ptr::null()
    } else {
        let text = PyUnicode_AsUTF8(errors);
        if text.is_null() {
            return Err(Raised);
        }
        text
    };
    let ext_hook = item(4);
    let timestamp = item(5);
    if PyCallable_Check(ext_hook) == 0 || PyCallable_Check(timestamp) == 0 {
        return Err(raise(PyExc_TypeError, "ext_hook must be a callable."));
    }
    Ok(Config {
        st,
        use_list: flags & USE_LIST != 0,
        raw: flags & RAW != 0,
        strict_map_key: flags & STRICT_MAP_KEY != 0,
        no_user_code: flags & NO_USER_CODE != 0,
        object_hook: none_null(item(1)),
        pairs_hook: none_null(item(2)),
        list_hook: none_null(item(3)),
        ext_hook,
        timestamp,
        unicode_errors,
        limits: Limits {
            str: limit(item(7))?,
            bin: limit(item(8))?,
            array: limit(item(9))?,
            map: limit(item(10))?,
            ext: limit(item(11))?,
            value: usize::MAX,
        },
        format_error: item(12),
        stack_error: item(13),
        extra_data: item(14),
        out_of_data: item(15),
        buffer_full: item(16),
        stacks: if item(17) == Py_None() {
            null_mut()
        } else {
            let ptr = PyCapsule_GetPointer(item(17), CAPSULE.as_ptr());
            if ptr.is_null() {
                return Err(Raised);
            }
            ptr as *mut Kept
        },
    })
}

/// msgpack-python's message for a declared length over its limit.
#[cold]
unsafe fn over_limit(what: &str, len: usize, max: usize) -> Raised {
    raise(PyExc_ValueError, &format!("{len} exceeds max_{what}_len({max})"))
}

/// `hook(arg)`, run with the collector as the caller has it.
unsafe fn call1(hook: *mut PyObject, arg: Owned) -> Result<Owned, ()> {
    let args = [arg.as_ptr()];
    Owned::new(unpaused(|| PyObject_Vectorcall(hook, args.as_ptr(), 1, null_mut())))
}

unsafe fn call2(hook: *mut PyObject, a: Owned, b: Owned) -> Result<Owned, ()> {
    let args = [a.as_ptr(), b.as_ptr()];
    Owned::new(unpaused(|| PyObject_Vectorcall(hook, args.as_ptr(), 2, null_mut())))
}

/// Builds objects as msgpack-python does, over [`PyBuilder`] for what
/// they share (numbers, str and key caches, lists, dicts). Errors are the
/// Python exceptions msgpack-python raises, set.
struct MpBuilder<'c> {
    inner: PyBuilder,
    cfg: &'c Config,
}

impl MpBuilder<'_> {
    #[inline(always)]
    fn check_str(&self, len: usize) -> Result<(), ()> {
        if len > self.cfg.limits.str {
            // SAFETY: the GIL is held while a decode runs.
            unsafe { over_limit("str", len, self.cfg.limits.str) };
            return Err(());
        }
        Ok(())
    }

    /// Text that is not valid UTF-8 (or to be decoded with a handler):
    /// `PyUnicode_DecodeUTF8` with the config's handler raises or builds
    /// what msgpack-python does.
    #[cold]
    fn decode_with_handler(&self, bytes: &[u8]) -> Result<Owned, ()> {
        // SAFETY: `bytes` is readable for its length; a new reference or NULL.
        unsafe {
            Owned::new(PyUnicode_DecodeUTF8(
                bytes.as_ptr() as *const c_char,
                bytes.len() as Py_ssize_t,
                self.cfg.unicode_errors,
            ))
        }
    }

    fn timestamp_value(&mut self, data: &[u8]) -> Result<Owned, ()> {
        let Some((seconds, nanoseconds)) = orcodec_core::msgpack::reader::decode_timestamp(data) else {
            // SAFETY: the GIL is held.
            unsafe {
                if matches!(data.len(), 4 | 8 | 12) {
                    raise(PyExc_ValueError, "nanoseconds must be a non-negative integer not greater than 999999999.");
                } else {
                    raise(PyExc_ValueError, &format!("invalid timestamp data (length {})", data.len()));
                }
            }
            return Err(());
        };
        // SAFETY: new references or NULL; the factory is a live callable.
        unsafe {
            let s = Owned::new(PyLong_FromLongLong(seconds))?;
            let ns = Owned::new(PyLong_FromUnsignedLong(nanoseconds as _))?;
            call2(self.cfg.timestamp, s, ns)
        }
    }

    fn container(&mut self, value: Owned, hook: *mut PyObject) -> Result<Owned, ()> {
        if hook.is_null() {
            return Ok(value);
        }
        // SAFETY: the hook is a live callable the config holds.
        unsafe { call1(hook, value) }
    }
}

impl Builder for MpBuilder<'_> {
    type Value = Owned;
    type Error = ();

    fn null(&mut self) -> Result<Owned, ()> {
        self.inner.null()
    }
    fn bool(&mut self, value: bool) -> Result<Owned, ()> {
        self.inner.bool(value)
    }
    fn i64(&mut self, value: i64) -> Result<Owned, ()> {
        self.inner.i64(value)
    }
    fn u64(&mut self, value: u64) -> Result<Owned, ()> {
        self.inner.u64(value)
    }
    fn f64(&mut self, value: f64) -> Result<Owned, ()> {
        self.inner.f64(value)
    }
    fn str(&mut self, value: &str) -> Result<Owned, ()> {
        self.check_str(value.len())?;
        if self.cfg.raw {
            return self.inner.bytes(value.as_bytes());
        }
        self.inner.str(value)
    }
    fn ascii_str(&mut self, value: &str) -> Result<Owned, ()> {
        self.check_str(value.len())?;
        if self.cfg.raw {
            return self.inner.bytes(value.as_bytes());
        }
        self.inner.ascii_str(value)
    }
    fn non_ascii_str(&mut self, value: &str) -> Result<Owned, ()> {
        self.check_str(value.len())?;
        if self.cfg.raw {
            return self.inner.bytes(value.as_bytes());
        }
        self.inner.non_ascii_str(value)
    }
    fn checked_non_ascii_str(&mut self, bytes: &[u8]) -> Result<Option<Owned>, ()> {
        self.check_str(bytes.len())?;
        if self.cfg.raw {
            return self.inner.bytes(bytes).map(Some);
        }
        match self.inner.checked_non_ascii_str(bytes)? {
            Some(value) => Ok(Some(value)),
            None => self.decode_with_handler(bytes).map(Some),
        }
    }
    fn try_ascii_str(&mut self, bytes: &[u8]) -> Result<Option<Owned>, ()> {
        self.check_str(bytes.len())?;
        if self.cfg.raw {
            return self.inner.bytes(bytes).map(Some);
        }
        self.inner.try_ascii_str(bytes)
    }
    fn key(&mut self, value: &str) -> Result<Owned, ()> {
        self.check_str(value.len())?;
        if self.cfg.raw {
            return self.inner.bytes(value.as_bytes());
        }
        self.inner.key(value)
    }
    fn checked_key(&mut self, bytes: &[u8]) -> Result<Option<Owned>, ()> {
        self.check_str(bytes.len())?;
        if self.cfg.raw {
            return self.inner.bytes(bytes).map(Some);
        }
        if orcodec_core::text::decode::is_valid(bytes) {
            // SAFETY: just validated.
            self.inner.key(unsafe { core::str::from_utf8_unchecked(bytes) }).map(Some)
        } else {
            self.decode_with_handler(bytes).map(Some)
        }
    }
    fn bytes(&mut self, value: &[u8]) -> Result<Owned, ()> {
        if value.len() > self.cfg.limits.bin {
            // SAFETY: the GIL is held.
            unsafe { over_limit("bin", value.len(), self.cfg.limits.bin) };
            return Err(());
        }
        self.inner.bytes(value)
    }
    fn ext(&mut self, tag: i8, data: &[u8]) -> Result<Option<Owned>, ()> {
        if data.len() > self.cfg.limits.ext {
            // msgpack-python reports the length with the type byte.
            // SAFETY: the GIL is held.
            unsafe { over_limit("ext", data.len() + 1, self.cfg.limits.ext) };
            return Err(());
        }
        if tag == -1 {
            return self.timestamp_value(data).map(Some);
        }
        // SAFETY: new references or NULL; the hook is a live callable.
        unsafe {
            let code = Owned::new(PyLong_FromLong(tag as _))?;
            let bytes =
                Owned::new(PyBytes_FromStringAndSize(data.as_ptr() as *const c_char, data.len() as Py_ssize_t))?;
            call2(self.cfg.ext_hook, code, bytes).map(Some)
        }
    }
    fn timestamp(&mut self, seconds: i64, nanoseconds: u32) -> Result<Owned, ()> {
        // Not asked for (the reader hands extension -1 to `ext`); kept whole.
        // SAFETY: new references or NULL.
        unsafe {
            let s = Owned::new(PyLong_FromLongLong(seconds))?;
            let ns = Owned::new(PyLong_FromUnsignedLong(nanoseconds as _))?;
            call2(self.cfg.timestamp, s, ns)
        }
    }
    fn array(&mut self, items: &mut Vec<Owned>, start: usize) -> Result<Owned, ()> {
        let n = items.len() - start;
        if n > self.cfg.limits.array {
            items.truncate(start);
            // SAFETY: the GIL is held.
            unsafe { over_limit("array", n, self.cfg.limits.array) };
            return Err(());
        }
        let value = if self.cfg.use_list { self.inner.array(items, start)? } else { self.inner.tuple(items, start)? };
        self.container(value, self.cfg.list_hook)
    }
    fn map(&mut self, items: &mut Vec<Owned>, start: usize) -> Result<Owned, ()> {
        let n = (items.len() - start) / 2;
        if n > self.cfg.limits.map {
            items.truncate(start);
            // SAFETY: the GIL is held.
            unsafe { over_limit("map", n, self.cfg.limits.map) };
            return Err(());
        }
        if self.cfg.strict_map_key {
            for pair in items[start..].chunks_exact(2) {
                // SAFETY: live objects; exact type checks.
                unsafe {
                    let key = pair[0].as_ptr();
                    if PyUnicode_CheckExact(key) == 0 && PyBytes_CheckExact(key) == 0 {
                        let name = CStr::from_ptr((*Py_TYPE(key)).tp_name).to_string_lossy();
                        let message = format!("{name} is not allowed for map key when strict_map_key=True");
                        items.truncate(start);
                        raise(PyExc_ValueError, &message);
                        return Err(());
                    }
                }
            }
        }
        self.inner.count_container();
        if !self.cfg.pairs_hook.is_null() {
            // SAFETY: a new list of `n` slots, each filled once with a new
            // (key, value) tuple that takes the pair's references.
            let list = unsafe {
                let list = Owned::new(PyList_New(n as Py_ssize_t))?;
                let mut drained = items.drain(start..);
                let mut i = 0;
                while let (Some(k), Some(v)) = (drained.next(), drained.next()) {
                    let pair = Owned::new(PyTuple_New(2))?;
                    PyTuple_SET_ITEM(pair.as_ptr(), 0, k.into_raw());
                    PyTuple_SET_ITEM(pair.as_ptr(), 1, v.into_raw());
                    PyList_SET_ITEM(list.as_ptr(), i, pair.into_raw());
                    i += 1;
                }
                list
            };
            return self.container(list, self.cfg.pairs_hook);
        }
        // SAFETY: the items alternate key and value; an unhashable key is
        // the TypeError `PyDict_SetItem` raised, as msgpack-python leaves it.
        let dict = unsafe { Owned::new(crate::decode::dict::dict_from_pairs(items, start))? };
        self.container(dict, self.cfg.object_hook)
    }
}

/// Raises what a syntax error of the reader means to msgpack-python.
#[cold]
unsafe fn syntax_error(cfg: &Config, e: &DecodeError) -> Raised {
    match e.kind {
        Kind::ReservedType(_) => {
            PyErr_SetNone(cfg.format_error);
            Raised
        }
        Kind::DepthLimit => {
            PyErr_SetNone(cfg.stack_error);
            Raised
        }
        Kind::NoMemory => {
            PyErr_NoMemory();
            Raised
        }
        Kind::UnexpectedEnd | Kind::LengthBeyondInput { .. } | Kind::EmptyDocument => {
            raise(PyExc_ValueError, "Unpack failed: incomplete input")
        }
        _ => raise(PyExc_ValueError, &format!("Unpack failed: {:?} at byte {}", e.kind, e.offset)),
    }
}

/// The reader's options for msgpack-python's model: keys as values,
/// extension -1 handed to the builder (which reads the timestamp).
const READ: ReadOptions = ReadOptions { non_str_keys: true, timestamps: false, bin_keys: false, plain_keys: true };

/// Decodes the value at the start of `bytes`: it and its length.
unsafe fn decode_prefix(cfg: &Config, bytes: &[u8]) -> Result<(Owned, usize), Raised> {
    match decode_prefix_raw(cfg, bytes) {
        Ok(done) => Ok(done),
        Err(Failure::Syntax(e)) => Err(syntax_error(cfg, &e)),
        Err(Failure::Build(())) => Err(Raised),
    }
}

/// [`decode_prefix`] with the reader's error not raised yet.
unsafe fn decode_prefix_raw(cfg: &Config, bytes: &[u8]) -> Result<(Owned, usize), Failure<()>> {
    let mut builder = MpBuilder { inner: PyBuilder::new(cfg.st, null_mut()).collecting_young(), cfg };
    // SAFETY: the capsule lives as long as the config tuple the caller
    // holds; the GIL is held between taking and putting back.
    let kept = cfg.stacks.as_mut();
    let mut stacks = kept.and_then(|k| k.0.take()).unwrap_or_default();
    let pause = GcPause::new(bytes.len());
    let result = read_prefix_with(bytes, &mut builder, READ, &mut stacks);
    drop(pause);
    if let Some(kept) = cfg.stacks.as_mut() {
        // Large stacks are not kept: one big document should not hold its
        // memory for the small ones after it.
        if stacks.capacity() <= 1 << 12 {
            kept.0 = Some(stacks);
        }
    }
    result
}

unsafe fn arg(args: *const *mut PyObject, nargs: Py_ssize_t, want: Py_ssize_t, name: &str) -> Result<(), Raised> {
    if nargs != want || args.is_null() {
        return Err(raise(PyExc_TypeError, &format!("{name}() takes {want} positional arguments")));
    }
    Ok(())
}

/// `_mp_unpackb(data, config)`: msgpack-python's `unpackb`.
pub unsafe extern "C" fn mp_unpackb(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    _kwnames: *mut PyObject,
) -> *mut PyObject {
    if arg(args, nargs, 2, "_mp_unpackb").is_err() {
        return null_mut();
    }
    unpackb_with(State::of_module(module), *args, *args.add(1))
}

/// `unpackb` of `data` with the options of config tuple `tuple`.
unsafe fn unpackb_with(st: &'static State, data: *mut PyObject, tuple: *mut PyObject) -> *mut PyObject {
    match config(st, tuple) {
        Ok(cfg) => unpackb_cfg(&cfg, data),
        Err(Raised) => null_mut(),
    }
}

unsafe fn unpackb_cfg(cfg: &Config, data: *mut PyObject) -> *mut PyObject {
    let mut data = data;
    // Any contiguous buffer, as msgpack-python reads (array.array too),
    // through a memoryview of it.
    let mut view_owner = None;
    if PyBytes_Check(data) == 0 && PyByteArray_Check(data) == 0 && PyMemoryView_Check(data) == 0 {
        let Ok(view) = Owned::new(PyMemoryView_FromObject(data)) else {
            return null_mut();
        };
        data = view.as_ptr();
        view_owner = Some(view);
    }
    let mut slot = ViewSlot::new();
    let input = match borrow_input(data, false, &mut slot) {
        Ok(Some(input)) => input,
        Ok(None) => {
            raise(PyExc_TypeError, "a bytes-like object is required");
            return null_mut();
        }
        Err(Raised) => return null_mut(),
    };
    let bytes = input.bytes();
    let result = match decode_prefix(cfg, bytes) {
        Ok((value, len)) if len == bytes.len() => value.into_raw(),
        Ok((value, len)) => {
            let rest = &bytes[len..];
            let extra = PyBytes_FromStringAndSize(rest.as_ptr() as *const c_char, rest.len() as Py_ssize_t);
            if !extra.is_null() {
                let args = [value.as_ptr(), extra];
                let exc = PyObject_Vectorcall(cfg.extra_data, args.as_ptr(), 2, null_mut());
                Py_DECREF(extra);
                if !exc.is_null() {
                    PyErr_SetObject(cfg.extra_data, exc);
                    Py_DECREF(exc);
                }
            }
            null_mut()
        }
        Err(Raised) => null_mut(),
    };
    drop(input);
    drop(view_owner);
    result
}

/// `unpackb` as `_mp_fast_unpackb` makes it: its `self` is the tuple
/// `(options, full unpackb, config tuple)`, the options a capsule of the
/// config tuple read once (it borrows from the tuple, which the same tuple
/// holds). One bytes object and no keyword is decoded here with those
/// options, with no Python frame between the caller and the decoder; any
/// other call goes to the full `unpackb`.
unsafe extern "C" fn fast_unpackb(
    own: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    if nargs == 1 && kwnames.is_null() && PyBytes_CheckExact(*args) != 0 {
        let cfg = PyCapsule_GetPointer(PyTuple_GET_ITEM(own, 0), OPTIONS.as_ptr()) as *const Config;
        if cfg.is_null() {
            return null_mut();
        }
        // SAFETY: made from a live config tuple `own` holds; read-only.
        return unpackb_cfg(&*cfg, *args);
    }
    PyObject_Vectorcall(PyTuple_GET_ITEM(own, 1), args, nargs as usize, kwnames)
}

const OPTIONS: &CStr = c"orcodec.msgpack options";

unsafe extern "C" fn free_options(capsule: *mut PyObject) {
    let ptr = PyCapsule_GetPointer(capsule, OPTIONS.as_ptr()) as *mut Config;
    if !ptr.is_null() {
        // SAFETY: made by `Box::into_raw` in `mp_fast_unpackb`, freed once
        // here; a `Config` holds no reference of its own.
        drop(Box::from_raw(ptr));
    }
}

static mut FAST_UNPACKB: PyMethodDef = PyMethodDef {
    ml_name: c"unpackb".as_ptr(),
    ml_meth: PyMethodDefPointer { PyCFunctionFastWithKeywords: fast_unpackb },
    ml_flags: METH_FASTCALL | METH_KEYWORDS,
    ml_doc: c"unpackb(packed, /, **kwargs)\n--\n\nUnpack the single value `packed` (any bytes-like object).\n\nRaises ``ExtraData`` when bytes follow it, ``ValueError`` when it is\nincomplete, ``FormatError`` for invalid MessagePack, ``StackError`` when\nnested too deep; other exceptions (a hook's) propagate. The options are\n``Unpacker``'s (but ``file_like``, ``read_size`` and ``max_buffer_size``);\nthe ``max_*_len`` limits default to none.".as_ptr(),
};

/// `_mp_fast_unpackb(config, unpackb)`: msgpack-python's `unpackb` as a
/// function of the extension, decoding with the options of `config` (the
/// defaults' tuple) when called with one bytes object, and calling
/// `unpackb` (the Python function, which takes every option) otherwise.
pub unsafe extern "C" fn mp_fast_unpackb(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    _kwnames: *mut PyObject,
) -> *mut PyObject {
    if arg(args, nargs, 2, "_mp_fast_unpackb").is_err() {
        return null_mut();
    }
    let Ok(cfg) = config(State::of_module(module), *args) else {
        return null_mut();
    };
    if PyCallable_Check(*args.add(1)) == 0 {
        raise(PyExc_TypeError, "unpackb must be callable");
        return null_mut();
    }
    let cfg = Box::into_raw(Box::new(cfg));
    let capsule = PyCapsule_New(cfg as *mut core::ffi::c_void, OPTIONS.as_ptr(), Some(free_options));
    if capsule.is_null() {
        // SAFETY: not handed to the capsule.
        drop(Box::from_raw(cfg));
        return null_mut();
    }
    let own = PyTuple_Pack(3, capsule, *args.add(1), *args);
    Py_DECREF(capsule);
    function_of(core::ptr::addr_of_mut!(FAST_UNPACKB), own)
}

/// A function of `orcodec.msgpack` made from `def`, whose `self` is `own`
/// (a new reference, released here; NULL: an exception is set).
unsafe fn function_of(def: *mut PyMethodDef, own: *mut PyObject) -> *mut PyObject {
    if own.is_null() {
        return null_mut();
    }
    let name = PyUnicode_FromString(c"orcodec.msgpack".as_ptr());
    if name.is_null() {
        Py_DECREF(own);
        return null_mut();
    }
    let function = PyCFunction_NewEx(def, own, name);
    Py_DECREF(own);
    Py_DECREF(name);
    function
}

/// `packb` as `_mp_fast_packb` makes it: its `self` is the tuple `(module,
/// default, option, full packb, fallback)`. One object and no keyword goes
/// straight to the walker with msgpack-python's `default` and flags; what
/// the walker refuses goes to `fallback(obj)` (which packs what it can in
/// Python and raises msgpack-python's exceptions); any other call goes to
/// the full `packb`.
unsafe extern "C" fn fast_packb(
    own: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let item = |i: Py_ssize_t| PyTuple_GET_ITEM(own, i);
    if nargs != 1 || !kwnames.is_null() {
        return PyObject_Vectorcall(item(3), args, nargs as usize, kwnames);
    }
    let module = item(0);
    let call = [*args, item(1), item(2)];
    let packed = crate::encode::packb_keys_as_values(module, call.as_ptr(), 3, null_mut());
    if !packed.is_null() || PyErr_ExceptionMatches(State::of_module(module).msgpack_encode_error) == 0 {
        return packed;
    }
    PyErr_Clear();
    PyObject_CallOneArg(item(4), *args)
}

static mut FAST_PACKB: PyMethodDef = PyMethodDef {
    ml_name: c"packb".as_ptr(),
    ml_meth: PyMethodDefPointer { PyCFunctionFastWithKeywords: fast_packb },
    ml_flags: METH_FASTCALL | METH_KEYWORDS,
    ml_doc: c"packb(o, /, **kwargs)\n--\n\nPack `o` and return the bytes (see ``Packer`` for the options).".as_ptr(),
};

/// `_mp_fast_packb(default, option, packb, fallback)`: msgpack-python's
/// `packb` as a function of the extension (see `fast_packb`).
pub unsafe extern "C" fn mp_fast_packb(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    _kwnames: *mut PyObject,
) -> *mut PyObject {
    if arg(args, nargs, 4, "_mp_fast_packb").is_err() {
        return null_mut();
    }
    if PyCallable_Check(*args.add(2)) == 0 || PyCallable_Check(*args.add(3)) == 0 {
        raise(PyExc_TypeError, "packb and fallback must be callable");
        return null_mut();
    }
    let own = PyTuple_Pack(5, module, *args, *args.add(1), *args.add(2), *args.add(3));
    function_of(core::ptr::addr_of_mut!(FAST_PACKB), own)
}

/// `_mp_rewrite(packed, single_float, old_raw)`: `packed` (one value) in
/// msgpack-python's older dialects; OverflowError for a double beyond a
/// float 32.
pub unsafe extern "C" fn mp_rewrite(
    _module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    _kwnames: *mut PyObject,
) -> *mut PyObject {
    if arg(args, nargs, 3, "_mp_rewrite").is_err() {
        return null_mut();
    }
    if PyBytes_Check(*args) == 0 {
        raise(PyExc_TypeError, "packed must be bytes");
        return null_mut();
    }
    let input = crate::cpython::bytes::bytes_data(*args);
    let dialect =
        Dialect { single_float: PyObject_IsTrue(*args.add(1)) == 1, old_raw: PyObject_IsTrue(*args.add(2)) == 1 };
    // Written straight into the bytes object returned.
    let Some(mut out) = BytesSink::with_capacity(input.len() + input.len() / 8) else {
        return null_mut();
    };
    match rewrite(input, dialect, &mut out) {
        Ok(()) if out.failed() => {
            drop(out);
            crate::encode::out_of_memory();
            null_mut()
        }
        Ok(()) => out.finish(),
        Err(RewriteError::NoMemory) => PyErr_NoMemory(),
        Err(RewriteError::FloatRange) => {
            raise(PyExc_OverflowError, "float too large to pack with float format");
            null_mut()
        }
        Err(RewriteError::Decode(e)) => {
            raise(PyExc_ValueError, &format!("not one MessagePack value: {:?} at byte {}", e.kind, e.offset));
            null_mut()
        }
    }
}

/// `_mp_header(kind, n, tag)`: the header of an array (0), map (1), ext
/// of `tag` and `n` data bytes (2), raw str (3) or str (4).
pub unsafe extern "C" fn mp_header(
    _module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    _kwnames: *mut PyObject,
) -> *mut PyObject {
    if arg(args, nargs, 3, "_mp_header").is_err() {
        return null_mut();
    }
    let kind = PyLong_AsLongLong(*args);
    let n = PyLong_AsLongLong(*args.add(1));
    let tag = PyLong_AsLongLong(*args.add(2));
    if !PyErr_Occurred().is_null() {
        return null_mut();
    }
    if !(0..=u32::MAX as i64).contains(&n) || !(-128..=127).contains(&tag) {
        raise(PyExc_ValueError, "header length or type out of range");
        return null_mut();
    }
    let n = n as usize;
    let mut out: Vec<u8> = Vec::new();
    match kind {
        0 => write_array_header(&mut out, n),
        1 => write_map_header(&mut out, n),
        2 => write_ext_header(&mut out, tag as i8, n),
        3 => write_raw_header(&mut out, n),
        _ => write_str_header(&mut out, n),
    }
    PyBytes_FromStringAndSize(out.as_ptr() as *const c_char, out.len() as Py_ssize_t)
}

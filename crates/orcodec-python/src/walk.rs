//! The object walker: one traversal of Python objects, generic over the
//! format backend (`Emitter`) and monomorphized for each, so a type taught here
//! is serialized by both formats.

use core::ptr::addr_of_mut;
use orcodec_core::emit::Emitter;
use pyo3_ffi::*;

use crate::errors::Raised;
use crate::ffi::{bytearray_data, bytes_data, dict_len};
use crate::options::{self, Opt};
use crate::pystr::text_of;

/// Deepest container nesting the encoders accept (one past orjson's 254,
/// ormsgpack's 255). Also what stops a container that contains itself.
pub const MAX_DEPTH: u32 = 255;
/// Most nested `default` calls: a `default` that keeps returning objects it
/// must be called on again stops here.
pub const MAX_DEFAULT_CALLS: u32 = 254;

/// Why encoding stopped. Messages match orjson's where orjson has one.
#[derive(Debug)]
pub enum EncodeError {
    /// A Python exception is already set (MemoryError, or from `default`).
    Raised,
    /// `default` raised; that exception is set and becomes the `__cause__`.
    DefaultRaised(*mut PyTypeObject),
    Unsupported(*mut PyTypeObject),
    IntegerRange,
    DictKeyNotStr,
    Surrogates,
    RecursionLimit,
    DefaultRecursionLimit,
    ChangedSize(&'static str),
    TooLong,
}

impl From<Raised> for EncodeError {
    fn from(_: Raised) -> Self {
        EncodeError::Raised
    }
}

type Result<T = ()> = core::result::Result<T, EncodeError>;

pub struct Walker<E: Emitter> {
    pub emitter: E,
    default: *mut PyObject,
    opts: Opt,
    depth: u32,
    default_calls: u32,
}


#[inline(always)]
unsafe fn is_type(obj: *mut PyObject, ty: *mut PyTypeObject) -> bool {
    Py_TYPE(obj) == ty
}

impl<E: Emitter> Walker<E> {
    /// `default` may be NULL (no hook).
    pub fn new(emitter: E, default: *mut PyObject, opts: Opt) -> Self {
        Walker { emitter, default, opts, depth: 0, default_calls: 0 }
    }

    /// Serializes `obj`, which the caller keeps alive.
    pub unsafe fn walk(&mut self, obj: *mut PyObject) -> Result {
        // Exact types first: one pointer compare each, most common first.
        if is_type(obj, addr_of_mut!(PyUnicode_Type)) {
            return self.str(obj);
        }
        if is_type(obj, addr_of_mut!(PyLong_Type)) {
            return self.int(obj);
        }
        if is_type(obj, addr_of_mut!(PyFloat_Type)) {
            self.emitter.f64(PyFloat_AS_DOUBLE(obj));
            return Ok(());
        }
        if is_type(obj, addr_of_mut!(PyDict_Type)) {
            return self.dict(obj);
        }
        if is_type(obj, addr_of_mut!(PyList_Type)) {
            return self.list(obj);
        }
        if is_type(obj, addr_of_mut!(PyBool_Type)) {
            self.emitter.bool(obj == Py_True());
            return Ok(());
        }
        if obj == Py_None() {
            self.emitter.null();
            return Ok(());
        }
        if is_type(obj, addr_of_mut!(PyTuple_Type)) {
            return self.tuple(obj);
        }
        if E::HAS_BIN && is_type(obj, addr_of_mut!(PyBytes_Type)) {
            return self.bin(bytes_data(obj));
        }
        self.walk_other(obj)
    }

    /// Subclasses and everything that is not an exact builtin type.
    #[inline(never)]
    unsafe fn walk_other(&mut self, obj: *mut PyObject) -> Result {
        if self.opts & options::PASSTHROUGH_SUBCLASS == 0 {
            if PyUnicode_Check(obj) != 0 {
                return self.str(obj);
            }
            if PyLong_Check(obj) != 0 {
                return self.int(obj);
            }
            if PyFloat_Check(obj) != 0 {
                self.emitter.f64(PyFloat_AS_DOUBLE(obj));
                return Ok(());
            }
            if PyDict_Check(obj) != 0 {
                return self.dict(obj);
            }
            if PyList_Check(obj) != 0 {
                return self.list(obj);
            }
        }
        if PyTuple_Check(obj) != 0 {
            return self.tuple(obj);
        }
        if E::HAS_BIN {
            if PyBytes_Check(obj) != 0 {
                return self.bin(bytes_data(obj));
            }
            if PyByteArray_Check(obj) != 0 {
                return self.bin(bytearray_data(obj));
            }
            if PyMemoryView_Check(obj) != 0 {
                return self.memoryview(obj);
            }
        }
        self.call_default(obj)
    }

    #[inline(always)]
    unsafe fn str(&mut self, obj: *mut PyObject) -> Result {
        let text = text_of(obj).ok_or(EncodeError::Raised)?;
        self.emitter.str(text).map_err(|_| EncodeError::Surrogates)
    }

    #[inline(always)]
    unsafe fn int(&mut self, obj: *mut PyObject) -> Result {
        let mut overflow = 0;
        let value = PyLong_AsLongLongAndOverflow(obj, &mut overflow);
        if overflow == 0 {
            if value == -1 && !PyErr_Occurred().is_null() {
                return Err(EncodeError::Raised);
            }
            self.emitter.i64(value);
            return Ok(());
        }
        if overflow > 0 {
            let value = PyLong_AsUnsignedLongLong(obj);
            if value != u64::MAX || PyErr_Occurred().is_null() {
                self.emitter.u64(value);
                return Ok(());
            }
            PyErr_Clear();
        }
        Err(EncodeError::IntegerRange)
    }

    #[inline(always)]
    unsafe fn bin(&mut self, data: &[u8]) -> Result {
        if data.len() > orcodec_core::msgpack_writer::MAX_LEN {
            return Err(EncodeError::TooLong);
        }
        self.emitter.bin(data);
        Ok(())
    }

    unsafe fn memoryview(&mut self, obj: *mut PyObject) -> Result {
        let mut view: Py_buffer = core::mem::zeroed();
        if PyObject_GetBuffer(obj, &mut view, PyBUF_CONTIG_RO) != 0 {
            return Err(EncodeError::Raised);
        }
        let data = core::slice::from_raw_parts(view.buf as *const u8, view.len as usize);
        let result = self.bin(data);
        PyBuffer_Release(&mut view);
        result
    }

    #[inline(always)]
    fn enter(&mut self) -> Result {
        if self.depth >= MAX_DEPTH {
            return Err(EncodeError::RecursionLimit);
        }
        self.depth += 1;
        Ok(())
    }

    /// Walks a borrowed item of a container. When a `default` hook exists it can
    /// run arbitrary code that drops the container's last reference to the
    /// item, so the item is held for the duration.
    #[inline(always)]
    unsafe fn walk_item(&mut self, item: *mut PyObject) -> Result {
        if self.default.is_null() {
            return self.walk(item);
        }
        Py_INCREF(item);
        let result = self.walk(item);
        Py_DECREF(item);
        result
    }

    unsafe fn list(&mut self, obj: *mut PyObject) -> Result {
        let len = PyList_GET_SIZE(obj) as usize;
        self.sequence(obj, len, |obj, i| {
            // `default` may shrink the list while it is walked; check every time.
            if i < PyList_GET_SIZE(obj) as usize { Some(PyList_GET_ITEM(obj, i as Py_ssize_t)) } else { None }
        })?;
        if PyList_GET_SIZE(obj) as usize != len {
            return Err(EncodeError::ChangedSize("list"));
        }
        Ok(())
    }

    unsafe fn tuple(&mut self, obj: *mut PyObject) -> Result {
        let len = PyTuple_GET_SIZE(obj) as usize;
        self.sequence(obj, len, |obj, i| Some(PyTuple_GET_ITEM(obj, i as Py_ssize_t)))
    }

    #[inline(always)]
    unsafe fn sequence(
        &mut self,
        obj: *mut PyObject,
        len: usize,
        get: impl Fn(*mut PyObject, usize) -> Option<*mut PyObject>,
    ) -> Result {
        if len > orcodec_core::msgpack_writer::MAX_LEN {
            return Err(EncodeError::TooLong);
        }
        self.enter()?;
        self.emitter.begin_array(len);
        for i in 0..len {
            let item = get(obj, i).ok_or(EncodeError::ChangedSize("list"))?;
            self.emitter.array_item(i);
            self.walk_item(item)?;
        }
        self.emitter.end_array(len);
        self.depth -= 1;
        Ok(())
    }

    unsafe fn dict(&mut self, obj: *mut PyObject) -> Result {
        let len = dict_len(obj);
        if len > orcodec_core::msgpack_writer::MAX_LEN {
            return Err(EncodeError::TooLong);
        }
        self.enter()?;
        self.emitter.begin_map(len);
        let mut pos: Py_ssize_t = 0;
        let mut key: *mut PyObject = core::ptr::null_mut();
        let mut value: *mut PyObject = core::ptr::null_mut();
        let mut i = 0;
        while PyDict_Next(obj, &mut pos, &mut key, &mut value) != 0 {
            if i == len {
                return Err(EncodeError::ChangedSize("dict"));
            }
            self.emitter.map_key(i);
            self.key(key)?;
            self.emitter.map_value();
            self.walk_item(value)?;
            i += 1;
        }
        if i != len || dict_len(obj) != len {
            return Err(EncodeError::ChangedSize("dict"));
        }
        self.emitter.end_map(len);
        self.depth -= 1;
        Ok(())
    }

    #[inline(always)]
    unsafe fn key(&mut self, key: *mut PyObject) -> Result {
        if is_type(key, addr_of_mut!(PyUnicode_Type)) || PyUnicode_Check(key) != 0 {
            let text = text_of(key).ok_or(EncodeError::Raised)?;
            return self.emitter.key(text).map_err(|_| EncodeError::Surrogates);
        }
        Err(EncodeError::DictKeyNotStr)
    }

    #[cold]
    unsafe fn call_default(&mut self, obj: *mut PyObject) -> Result {
        if self.default.is_null() {
            return Err(EncodeError::Unsupported(Py_TYPE(obj)));
        }
        if self.default_calls >= MAX_DEFAULT_CALLS {
            return Err(EncodeError::DefaultRecursionLimit);
        }
        let replacement = PyObject_CallOneArg(self.default, obj);
        if replacement.is_null() {
            return Err(EncodeError::DefaultRaised(Py_TYPE(obj)));
        }
        self.default_calls += 1;
        let result = self.walk(replacement);
        self.default_calls -= 1;
        Py_DECREF(replacement);
        result
    }
}

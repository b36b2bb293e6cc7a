//! Python objects already in memory as an input (`convert`): lists, tuples,
//! sets and frozensets read as arrays, dicts as maps, everything else handed
//! to the validators as it is (`Value::Py`), so a value that already has the
//! target type is kept, not rebuilt.
//!
//! Python code can run during a validation (a `dec_hook`, `__post_init__`, a
//! `Decimal` constructor) and change the objects being read: every
//! container being read and every item being validated is held (a strong
//! reference in its `Cursor`), and list and tuple lengths are read afresh
//! at each item.

use pyo3_ffi::*;

use crate::cpython::object::Owned;
use crate::decode::typed::error::Fail;
use crate::decode::typed::input::{Cursor, Format, Head, Input, Value};
use crate::decode::typed::Ctx;

pub struct PyInput {
    /// The value to be read next (borrowed: held by its container's cursor,
    /// or by the caller of `convert` for the root).
    current: *mut PyObject,
}

impl PyInput {
    pub fn new(root: *mut PyObject) -> PyInput {
        PyInput { current: root }
    }

    /// The head of `current`.
    #[inline(always)]
    fn value(&self) -> Value<'static> {
        let obj = self.current;
        // SAFETY: `current` is alive (see the field).
        unsafe {
            if PyList_Check(obj) != 0 {
                return Value::Array(Some(PyList_GET_SIZE(obj) as usize));
            }
            if PyDict_Check(obj) != 0 {
                return Value::Map(Some(PyDict_Size(obj) as usize));
            }
            if PyTuple_Check(obj) != 0 {
                return Value::Array(Some(PyTuple_GET_SIZE(obj) as usize));
            }
            if PyAnySet_Check(obj) != 0 {
                return Value::Array(Some(PySet_Size(obj) as usize));
            }
        }
        Value::Py(obj)
    }
}

impl Input for PyInput {
    const FORMAT: Format = Format::Python;

    #[inline(always)]
    fn next(&mut self) -> Result<Head<'_>, Fail> {
        Ok(Head::new(self.value(), 0))
    }

    #[inline(always)]
    fn open(&mut self, len: Option<usize>) -> Cursor {
        let mut cursor = Cursor::new(len.unwrap_or(0));
        // SAFETY: `current` is the container `next` described.
        unsafe {
            Py_INCREF(self.current);
            cursor.container = self.current;
        }
        cursor
    }

    #[inline(always)]
    fn next_item(&mut self, cursor: &mut Cursor) -> Result<bool, Fail> {
        let c = cursor.container;
        // SAFETY: the cursor holds its container; each item is held before
        // it is handed on, the previous one released after.
        unsafe {
            let item = if PyList_Check(c) != 0 {
                if cursor.index >= PyList_GET_SIZE(c) as usize {
                    return Ok(false);
                }
                let item = PyList_GET_ITEM(c, cursor.index as Py_ssize_t);
                Py_INCREF(item);
                item
            } else if PyTuple_Check(c) != 0 {
                if cursor.index >= PyTuple_GET_SIZE(c) as usize {
                    return Ok(false);
                }
                let item = PyTuple_GET_ITEM(c, cursor.index as Py_ssize_t);
                Py_INCREF(item);
                item
            } else {
                if cursor.iter.is_null() {
                    cursor.iter = PyObject_GetIter(c);
                    if cursor.iter.is_null() {
                        return Err(Fail::Raised);
                    }
                }
                let item = PyIter_Next(cursor.iter);
                if item.is_null() {
                    return if PyErr_Occurred().is_null() { Ok(false) } else { Err(Fail::Raised) };
                }
                item
            };
            cursor.index += 1;
            let old = core::mem::replace(&mut cursor.held[0], item);
            Py_XDECREF(old);
            self.current = item;
        }
        Ok(true)
    }

    #[inline(always)]
    fn next_key(&mut self, cursor: &mut Cursor) -> Result<Option<Head<'_>>, Fail> {
        let (mut key, mut value) = (core::ptr::null_mut(), core::ptr::null_mut());
        let mut pos = cursor.index as Py_ssize_t;
        // SAFETY: the cursor holds the dict; the key and value are held
        // before they are handed on.
        unsafe {
            if PyDict_Next(cursor.container, &mut pos, &mut key, &mut value) == 0 {
                return Ok(None);
            }
            cursor.index = pos as usize;
            Py_INCREF(key);
            Py_INCREF(value);
            let old = core::mem::replace(&mut cursor.held, [key, value]);
            Py_XDECREF(old[0]);
            Py_XDECREF(old[1]);
        }
        self.current = value;
        Ok(Some(Head::new(Value::Py(key), 0)))
    }

    fn skip(&mut self, _depth: usize) -> Result<(), Fail> {
        Ok(())
    }

    fn any(&mut self, _ctx: &mut Ctx) -> Result<Owned, Fail> {
        // SAFETY: a new reference to a live object.
        unsafe {
            Py_INCREF(self.current);
            Ok(Owned::new(self.current)?)
        }
    }

    #[inline(always)]
    fn current(&self) -> *mut PyObject {
        self.current
    }
}

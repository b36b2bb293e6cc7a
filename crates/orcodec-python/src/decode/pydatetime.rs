//! `datetime`, `date` and `time` objects of the pure-Python `datetime`
//! module, made by calling its classes: what an interpreter without the C
//! module has (CPython 3.12's isolated subinterpreters). The C types are
//! made in place (`cpython/datetime.rs`) or through the C API everywhere
//! else.

use core::ffi::CStr;
use pyo3_ffi::*;

use crate::state::State;

/// `datetime.<name>` of the interpreter's `datetime` module (a new
/// reference), importing it; NULL with an exception set.
unsafe fn attr(name: &CStr) -> *mut PyObject {
    let module = PyImport_ImportModule(c"datetime".as_ptr());
    if module.is_null() {
        return module;
    }
    let value = PyObject_GetAttrString(module, name.as_ptr());
    Py_DECREF(module);
    value
}

/// The `tzinfo` for `offset` seconds (a new reference): `timezone.utc`,
/// `timezone(timedelta(seconds=offset))`, or None.
unsafe fn zone(offset: Option<i32>) -> *mut PyObject {
    let Some(seconds) = offset else {
        Py_INCREF(Py_None());
        return Py_None();
    };
    let timezone = attr(c"timezone");
    if timezone.is_null() || seconds == 0 {
        let utc = if timezone.is_null() { timezone } else { PyObject_GetAttrString(timezone, c"utc".as_ptr()) };
        Py_XDECREF(timezone);
        return utc;
    }
    let timedelta = attr(c"timedelta");
    let delta = if timedelta.is_null() {
        timedelta
    } else {
        let args = PyTuple_New(0);
        let kwargs = PyDict_New();
        let value = PyLong_FromLong(seconds as _);
        let delta = if args.is_null()
            || kwargs.is_null()
            || value.is_null()
            || PyDict_SetItemString(kwargs, c"seconds".as_ptr(), value) != 0
        {
            core::ptr::null_mut()
        } else {
            PyObject_Call(timedelta, args, kwargs)
        };
        Py_XDECREF(args);
        Py_XDECREF(kwargs);
        Py_XDECREF(value);
        Py_DECREF(timedelta);
        delta
    };
    let tz = if delta.is_null() { delta } else { PyObject_CallOneArg(timezone, delta) };
    Py_XDECREF(delta);
    Py_DECREF(timezone);
    tz
}

/// `datetime.<class_name>(*fields, tzinfo)` (no tzinfo for a date); a new
/// reference, or NULL with an exception set (a field out of range raises
/// the class's own ValueError).
pub unsafe fn make(_st: &State, class_name: &CStr, fields: &[i32], offset: Option<Option<i32>>) -> *mut PyObject {
    let class = attr(class_name);
    if class.is_null() {
        return class;
    }
    let tz = match offset {
        Some(offset) => zone(offset),
        None => core::ptr::null_mut(),
    };
    if offset.is_some() && tz.is_null() {
        Py_DECREF(class);
        return tz;
    }
    let n = fields.len() + offset.is_some() as usize;
    let args = PyTuple_New(n as Py_ssize_t);
    if args.is_null() {
        Py_DECREF(class);
        Py_XDECREF(tz);
        return args;
    }
    for (i, &v) in fields.iter().enumerate() {
        // A failed int leaves a NULL item: the tuple is then dropped.
        PyTuple_SET_ITEM(args, i as Py_ssize_t, PyLong_FromLong(v as _));
    }
    if !tz.is_null() {
        PyTuple_SET_ITEM(args, fields.len() as Py_ssize_t, tz);
    }
    let complete = (0..n).all(|i| !PyTuple_GET_ITEM(args, i as Py_ssize_t).is_null());
    let made = if complete {
        crate::decode::unpaused(|| PyObject_Call(class, args, core::ptr::null_mut()))
    } else {
        core::ptr::null_mut()
    };
    Py_DECREF(args);
    Py_DECREF(class);
    made
}

/// Whether `obj` is an instance of the pure-Python `datetime.<class_name>`.
pub unsafe fn is_instance(class_name: &CStr, obj: *mut PyObject) -> bool {
    let class = attr(class_name);
    if class.is_null() {
        PyErr_Clear();
        return false;
    }
    let found = PyObject_IsInstance(obj, class);
    Py_DECREF(class);
    if found < 0 {
        PyErr_Clear();
    }
    found == 1
}

//! A dataclass's wire policy for the encoders: the names its fields are
//! written under and whether defaults and `None` are left out
//! (`orcodec.Name`, `@orcodec.options`), and its fields' defaults for
//! `OPT_OMIT_DEFAULTS`.
//!
//! Both are worked out by `orcodec._wire` (its `encode_plan` and
//! `field_defaults`), once per class: the dataclass cache
//! (`dataclass.rs`) keeps them with the class's field names, so no instance
//! asks again, and a class without any of it keeps no policy at all.

use orcodec_core::fallible;
use pyo3_ffi::*;

use crate::encode::error::EncodeError;
use crate::state::State;

/// How a class with wire metadata is written.
pub struct Wire {
    /// The wire name of each serialized field, in the field order (strong
    /// references to exact strs).
    pub keys: Vec<*mut PyObject>,
    pub omit_defaults: bool,
    pub omit_none: bool,
}

impl Drop for Wire {
    fn drop(&mut self) {
        // SAFETY: each key was increfed when stored.
        unsafe { self.keys.iter().for_each(|&key| Py_DECREF(key)) }
    }
}

/// A field's default, to leave out a value equal to it.
pub enum FieldDefault {
    None,
    /// The default value (strong reference).
    Value(*mut PyObject),
    /// The `default_factory` (strong reference), called to compare.
    Factory(*mut PyObject),
}

/// The defaults of a class's serialized fields, in the field order.
pub struct Defaults(pub Vec<FieldDefault>);

impl Drop for Defaults {
    fn drop(&mut self) {
        for default in &self.0 {
            if let FieldDefault::Value(obj) | FieldDefault::Factory(obj) = *default {
                // SAFETY: increfed when stored.
                unsafe { Py_DECREF(obj) }
            }
        }
    }
}

/// What `read` makes of `orcodec._wire.<function>(cls, names)`, where
/// `names` are the serialized field names.
unsafe fn call_wire<T>(
    st: &State,
    function: &core::ffi::CStr,
    cls: *mut PyTypeObject,
    names: &[*mut PyObject],
    read: impl FnOnce(*mut PyObject) -> Result<T, EncodeError>,
) -> Result<T, EncodeError> {
    let mut module = st.found.wire_module.found();
    if module.is_null() {
        let imported = PyImport_ImportModule(c"orcodec._wire".as_ptr());
        if imported.is_null() {
            return Err(EncodeError::Raised);
        }
        module = st.found.wire_module.keep(imported);
    }
    let tuple = names_tuple(names)?;
    let out = PyObject_CallMethod(module, function.as_ptr(), c"OO".as_ptr(), cls as *mut PyObject, tuple);
    Py_DECREF(tuple);
    if out.is_null() {
        return Err(EncodeError::Raised);
    }
    let result = read(out);
    Py_DECREF(out);
    result
}

/// `names` (borrowed strs) as a new tuple.
unsafe fn names_tuple(names: &[*mut PyObject]) -> Result<*mut PyObject, EncodeError> {
    let tuple = PyTuple_New(names.len() as Py_ssize_t);
    if tuple.is_null() {
        return Err(EncodeError::Raised);
    }
    for (i, &name) in names.iter().enumerate() {
        Py_INCREF(name);
        // SAFETY: a new tuple of that size; the reference is given to it.
        PyTuple_SET_ITEM(tuple, i as Py_ssize_t, name);
    }
    Ok(tuple)
}

/// The wire policy of dataclass `cls`, whose serialized fields are `names`:
/// None when it has none. A policy that cannot be made (two fields with one
/// wire name, a rename callable that fails) is the `TypeError` raised.
pub unsafe fn plan(st: &State, cls: *mut PyTypeObject, names: &[*mut PyObject]) -> Result<Option<Wire>, EncodeError> {
    call_wire(st, c"encode_plan", cls, names, |plan| read_plan(plan, names.len())).map_err(|e| {
        if matches!(e, EncodeError::Raised) && PyErr_ExceptionMatches(PyExc_TypeError) != 0 {
            EncodeError::WirePolicy
        } else {
            e
        }
    })
}

unsafe fn read_plan(plan: *mut PyObject, n: usize) -> Result<Option<Wire>, EncodeError> {
    if plan == Py_None() {
        return Ok(None);
    }
    let bad = || {
        PyErr_SetString(PyExc_TypeError, c"orcodec._wire.encode_plan gave no plan".as_ptr());
        EncodeError::Raised
    };
    if PyTuple_Check(plan) == 0 || PyTuple_GET_SIZE(plan) != 3 {
        return Err(bad());
    }
    let keys = PyTuple_GET_ITEM(plan, 0);
    if PyTuple_Check(keys) == 0 || PyTuple_GET_SIZE(keys) as usize != n {
        return Err(bad());
    }
    let mut wire = Wire {
        keys: Vec::new(),
        omit_defaults: PyTuple_GET_ITEM(plan, 1) == Py_True(),
        omit_none: PyTuple_GET_ITEM(plan, 2) == Py_True(),
    };
    fallible::reserve(&mut wire.keys, n).map_err(|_| EncodeError::NoMemory)?;
    for i in 0..n {
        let key = PyTuple_GET_ITEM(keys, i as Py_ssize_t);
        // Exact strs: the walker writes them as any str key.
        if PyUnicode_CheckExact(key) == 0 {
            return Err(bad());
        }
        fallible::push(&mut wire.keys, key).map_err(|_| EncodeError::NoMemory)?;
        Py_INCREF(key);
    }
    Ok(Some(wire))
}

/// The defaults of dataclass `cls`'s serialized fields `names`.
pub unsafe fn defaults(st: &State, cls: *mut PyTypeObject, names: &[*mut PyObject]) -> Result<Defaults, EncodeError> {
    call_wire(st, c"field_defaults", cls, names, |found| read_defaults(found, names.len()))
}

unsafe fn read_defaults(found: *mut PyObject, n: usize) -> Result<Defaults, EncodeError> {
    let bad = || {
        PyErr_SetString(PyExc_TypeError, c"orcodec._wire.field_defaults gave no defaults".as_ptr());
        EncodeError::Raised
    };
    if PyTuple_Check(found) == 0 || PyTuple_GET_SIZE(found) as usize != n {
        return Err(bad());
    }
    let mut out = Defaults(Vec::new());
    fallible::reserve(&mut out.0, n).map_err(|_| EncodeError::NoMemory)?;
    for i in 0..n {
        let pair = PyTuple_GET_ITEM(found, i as Py_ssize_t);
        if PyTuple_Check(pair) == 0 || PyTuple_GET_SIZE(pair) != 2 {
            return Err(bad());
        }
        let obj = PyTuple_GET_ITEM(pair, 1);
        let kind = PyLong_AsLong(PyTuple_GET_ITEM(pair, 0));
        if kind == -1 {
            PyErr_Clear();
        }
        let default = match kind {
            1 => FieldDefault::Value(obj),
            2 => FieldDefault::Factory(obj),
            _ => FieldDefault::None,
        };
        let held = !matches!(default, FieldDefault::None);
        fallible::push(&mut out.0, default).map_err(|_| EncodeError::NoMemory)?;
        if held {
            Py_INCREF(obj);
        }
    }
    Ok(out)
}

/// Whether `value` (held by the caller) is left out of the output: `None`
/// under `omit_none`, equal to its default under `defaults` (compared with
/// `==`, which may run Python code and raise).
#[inline]
pub unsafe fn omitted(
    value: *mut PyObject,
    omit_none: bool,
    default: Option<&FieldDefault>,
) -> Result<bool, EncodeError> {
    if omit_none && value == Py_None() {
        return Ok(true);
    }
    let equal = match default {
        None | Some(FieldDefault::None) => return Ok(false),
        // A `None` default is compared by identity (the usual optional
        // field): asking another value's `__eq__` about `None` is slow, and
        // only a value that claims to equal `None` would say yes.
        Some(&FieldDefault::Value(default)) if default == Py_None() => return Ok(value == default),
        Some(&FieldDefault::Value(default)) => PyObject_RichCompareBool(value, default, Py_EQ),
        Some(&FieldDefault::Factory(factory)) => {
            let made = PyObject_CallNoArgs(factory);
            if made.is_null() {
                return Err(EncodeError::Raised);
            }
            let equal = PyObject_RichCompareBool(value, made, Py_EQ);
            Py_DECREF(made);
            equal
        }
    };
    if equal < 0 {
        return Err(EncodeError::Raised);
    }
    Ok(equal == 1)
}

//! Dataclass instances as maps of their fields, in definition order.
//!
//! Which fields: those `dataclasses.fields()` lists (ClassVar and InitVar
//! pseudo-fields excluded) whose names do not start with `_`, as orjson and
//! ormsgpack both do. Each value is read with `getattr`, so `__slots__`,
//! frozen, inherited and `field()` fields all behave like Python code sees
//! them, and attributes added outside the fields never appear.
//!
//! The field list is worked out once per dataclass and cached, keyed by the
//! class's `__dataclass_fields__` dict (held, so its address is not reused).

use core::cell::UnsafeCell;
use orcodec_core::emit::Emitter;
use pyo3_ffi::*;
use std::collections::HashMap;
use std::rc::Rc;

use crate::ffi::_PyType_Lookup;
use crate::pytypes::dataclass_field_marker;
use crate::state::state;
use crate::walk::{EncodeError, Walker};

/// Most dataclasses cached; past it the cache starts over, so classes made
/// in a loop cannot grow it without bound.
const MAX_CACHED: usize = 1024;

/// The names of a dataclass's serialized fields (strong references).
pub struct FieldNames {
    names: Vec<*mut PyObject>,
}

impl Drop for FieldNames {
    fn drop(&mut self) {
        // SAFETY: each name was increfed when stored; the GIL is held
        // whenever the cache (and so a FieldNames) is dropped.
        unsafe { self.names.iter().for_each(|&name| Py_DECREF(name)) }
    }
}

struct Entry {
    /// The class's `__dataclass_fields__` (strong reference).
    fields: *mut PyObject,
    /// Its size when the names were worked out: a changed dict is looked at again.
    size: Py_ssize_t,
    names: Rc<FieldNames>,
}

impl Drop for Entry {
    fn drop(&mut self) {
        // SAFETY: as for FieldNames.
        unsafe { Py_DECREF(self.fields) }
    }
}

struct Cache(UnsafeCell<Option<HashMap<usize, Entry>>>);

// SAFETY: only used with the GIL held, never concurrently.
unsafe impl Sync for Cache {}

static CACHE: Cache = Cache(UnsafeCell::new(None));

/// The `__dataclass_fields__` dict of `obj`'s class (borrowed), or None when
/// it is no dataclass instance.
#[inline]
pub unsafe fn dataclass_fields(obj: *mut PyObject) -> Option<*mut PyObject> {
    let fields = _PyType_Lookup(Py_TYPE(obj), state().str_dataclass_fields);
    (!fields.is_null() && PyDict_Check(fields) != 0).then_some(fields)
}

/// The serialized field names for a `__dataclass_fields__` dict.
unsafe fn field_names(fields: *mut PyObject) -> Result<Rc<FieldNames>, EncodeError> {
    // SAFETY: the GIL is held; no reference into the map outlives this call
    // (the Rc is cloned out), and nothing below re-enters this function.
    let cache = (*CACHE.0.get()).get_or_insert_with(HashMap::new);
    let size = PyDict_Size(fields);
    if let Some(entry) = cache.get(&(fields as usize)) {
        if entry.size == size {
            return Ok(entry.names.clone());
        }
    }
    let names = Rc::new(read_field_names(fields)?);
    // Reading the names ran Python code (getattr on Field objects), which
    // cannot reach this cache, but look it up afresh all the same.
    let cache = (*CACHE.0.get()).get_or_insert_with(HashMap::new);
    if cache.len() >= MAX_CACHED {
        cache.clear();
    }
    Py_INCREF(fields);
    cache.insert(fields as usize, Entry { fields, size, names: names.clone() });
    Ok(names)
}

unsafe fn read_field_names(fields: *mut PyObject) -> Result<FieldNames, EncodeError> {
    let marker = dataclass_field_marker();
    let mut out = FieldNames { names: Vec::new() };
    let (mut pos, mut name, mut field): (Py_ssize_t, *mut PyObject, *mut PyObject) =
        (0, core::ptr::null_mut(), core::ptr::null_mut());
    while PyDict_Next(fields, &mut pos, &mut name, &mut field) != 0 {
        if PyUnicode_Check(name) == 0
            || (PyUnicode_GET_LENGTH(name) > 0 && PyUnicode_ReadChar(name, 0) == '_' as Py_UCS4)
        {
            continue;
        }
        let kind = PyObject_GetAttr(field, state().str_field_type);
        if kind.is_null() {
            return Err(EncodeError::Raised);
        }
        Py_DECREF(kind);
        if kind == marker {
            Py_INCREF(name);
            out.names.push(name);
        }
    }
    Ok(out)
}

impl<E: Emitter> Walker<E> {
    /// A dataclass instance whose class has `fields` as `__dataclass_fields__`.
    pub(crate) unsafe fn dataclass(&mut self, obj: *mut PyObject, fields: *mut PyObject) -> Result<(), EncodeError> {
        let names = field_names(fields)?;
        let len = names.names.len();
        self.enter()?;
        self.emitter.begin_map(len);
        for (i, &name) in names.names.iter().enumerate() {
            self.emitter.map_key(i);
            self.key(name)?;
            self.emitter.map_value();
            let value = PyObject_GetAttr(obj, name);
            if value.is_null() {
                return Err(EncodeError::Raised);
            }
            let result = self.walk(value);
            Py_DECREF(value);
            result?;
        }
        self.emitter.end_map(len);
        self.leave();
        Ok(())
    }
}

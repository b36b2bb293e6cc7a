//! pydantic (v2) models, with `OPT_SERIALIZE_PYDANTIC`: a map of the
//! instance's `__dict__` (its fields, by name, in definition order) followed
//! by `__pydantic_extra__` (extra fields of `extra="allow"` models), as
//! ormsgpack writes them. Aliases and computed fields are not applied:
//! that is `model_dump()`'s job, which `default` can call.

use orcodec_core::emit::Emitter;
use pyo3_ffi::*;

use crate::cpython::dict::dict_len;
use crate::cpython::ffi::_PyType_Lookup;
use crate::encode::error::EncodeError;
use crate::encode::walker::Walker;
use crate::state::State;

/// Whether `obj`'s class is a pydantic model.
#[inline]
pub unsafe fn is_pydantic_model(st: &State, obj: *mut PyObject) -> bool {
    is_pydantic_type(st, Py_TYPE(obj))
}

/// Whether `ty` is a pydantic model class: a v2 model has
/// `__pydantic_fields__`; a v1 model (`pydantic.v1.BaseModel`, shipped with
/// pydantic 2) has `__fields__` in its own class dict, which is what
/// ormsgpack looks for.
pub unsafe fn is_pydantic_type(st: &State, ty: *mut PyTypeObject) -> bool {
    let s = st;
    if !_PyType_Lookup(ty, s.str_pydantic_fields).is_null() {
        return true;
    }
    let dict = (*ty).tp_dict;
    !dict.is_null() && PyDict_Check(dict) != 0 && !PyDict_GetItem(dict, s.str_fields).is_null()
}

/// `obj.name` if it is a dict (new reference), NULL otherwise.
unsafe fn dict_attr(obj: *mut PyObject, name: *mut PyObject) -> *mut PyObject {
    let value = PyObject_GetAttr(obj, name);
    if value.is_null() {
        PyErr_Clear();
        return core::ptr::null_mut();
    }
    if PyDict_Check(value) == 0 {
        Py_DECREF(value);
        return core::ptr::null_mut();
    }
    value
}

impl<E: Emitter> Walker<E> {
    #[cold]
    pub(crate) unsafe fn pydantic_model(&mut self, obj: *mut PyObject) -> Result<(), EncodeError> {
        let s = self.st;
        let fields = dict_attr(obj, s.str_dict);
        if fields.is_null() {
            return self.call_default(obj);
        }
        let extra = dict_attr(obj, s.str_pydantic_extra);
        let result = if self.opts & crate::module::options::SORT_KEYS != 0 {
            self.sorted_model(fields, extra)
        } else {
            self.model_entries(fields, extra)
        };
        Py_DECREF(fields);
        Py_XDECREF(extra);
        result
    }

    /// With `OPT_SORT_KEYS`: fields and extra fields sorted together, as
    /// ormsgpack does, by walking one merged dict (a new one: the model's own
    /// dicts are not touched).
    #[cold]
    unsafe fn sorted_model(&mut self, fields: *mut PyObject, extra: *mut PyObject) -> Result<(), EncodeError> {
        let merged = PyDict_Copy(fields);
        if merged.is_null() {
            return Err(EncodeError::Raised);
        }
        let result = if !extra.is_null() && PyDict_Update(merged, extra) != 0 {
            Err(EncodeError::Raised)
        } else {
            self.dict(merged)
        };
        Py_DECREF(merged);
        result
    }

    unsafe fn model_entries(&mut self, fields: *mut PyObject, extra: *mut PyObject) -> Result<(), EncodeError> {
        let n_fields = dict_len(fields);
        let n_extra = if extra.is_null() { 0 } else { dict_len(extra) };
        let len = n_fields + n_extra;
        self.enter()?;
        self.emitter.begin_map(len);
        self.model_dict(fields, n_fields, 0)?;
        if !extra.is_null() {
            self.model_dict(extra, n_extra, n_fields)?;
        }
        self.emitter.end_map(len);
        self.leave();
        Ok(())
    }

    /// The `len` entries of `dict`, numbered from `first` in the map.
    unsafe fn model_dict(&mut self, dict: *mut PyObject, len: usize, first: usize) -> Result<(), EncodeError> {
        let (mut pos, mut key, mut value): (Py_ssize_t, *mut PyObject, *mut PyObject) =
            (0, core::ptr::null_mut(), core::ptr::null_mut());
        let mut i = 0;
        while PyDict_Next(dict, &mut pos, &mut key, &mut value) != 0 {
            if i == len {
                return Err(EncodeError::DictChangedSize);
            }
            self.dict_entry(dict, first + i, key, value)?;
            i += 1;
        }
        if i != len {
            return Err(EncodeError::DictChangedSize);
        }
        Ok(())
    }
}

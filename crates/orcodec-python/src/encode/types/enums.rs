//! `enum.Enum` members (`IntEnum`, `StrEnum`, `Flag` and the rest): written
//! as their value, which goes through the walker like any other object.

use core::ptr::null_mut;
use orcodec_core::emit::Emitter;
use pyo3_ffi::*;

use crate::cpython::types::{has_generic_getattr, is_data_descriptor};
use crate::encode::error::EncodeError;
use crate::encode::walker::Walker;
use crate::module::options;
use crate::state::State;

/// Whether `ty` is an enum class (its metaclass is `enum.EnumMeta` or a subclass).
#[inline(always)]
pub unsafe fn is_enum_type(st: &State, ty: *mut PyTypeObject) -> bool {
    let meta = Py_TYPE(ty as *mut PyObject);
    if meta == core::ptr::addr_of_mut!(PyType_Type) {
        return false;
    }
    let enum_meta = st.found.enum_meta.get(st.str_enum, c"EnumMeta") as *mut PyTypeObject;
    !enum_meta.is_null() && (meta == enum_meta || PyType_IsSubtype(meta, enum_meta) != 0)
}

/// `member._value_` of an enum member, as `getattr` gives it: a new
/// reference, or NULL with an exception set. Read straight from the
/// member's `__dict__` when `getattr` would find it there first: the class
/// uses the generic `getattr` and has no data descriptor named `_value_`.
#[inline]
pub unsafe fn enum_value(st: &State, obj: *mut PyObject) -> *mut PyObject {
    let name = st.str_value;
    let ty = Py_TYPE(obj);
    if has_generic_getattr(ty) && !is_data_descriptor(ty, name) {
        let dict = PyObject_GenericGetDict(obj, null_mut());
        if dict.is_null() {
            PyErr_Clear();
        } else {
            // `name` is an exact, interned str with its hash set: the
            // lookup runs no Python code and cannot fail (so no
            // exception to look for when it finds nothing).
            let value = PyDict_GetItemWithError(dict, name);
            Py_XINCREF(value);
            Py_DECREF(dict);
            if !value.is_null() {
                return value;
            }
        }
    }
    PyObject_GetAttr(obj, name)
}

impl<E: Emitter> Walker<E> {
    /// An enum member: its value (`_value_`, where `Enum.value` reads it from,
    /// without the property call), walked like any other object (so options
    /// apply to it), or `default`'s with `OPT_PASSTHROUGH_ENUM`.
    #[cold]
    pub(crate) unsafe fn enum_member(&mut self, obj: *mut PyObject) -> Result<(), EncodeError> {
        if self.opts & options::PASSTHROUGH_ENUM != 0 {
            return self.call_default(obj);
        }
        let value = enum_value(self.st, obj);
        if value.is_null() {
            return Err(EncodeError::Raised);
        }
        // Counted as a level: a `_value_` that is the member itself stops
        // at the depth limit instead of recursing forever.
        let result = self.enter().and_then(|()| self.walk(value));
        Py_DECREF(value);
        result?;
        self.leave();
        Ok(())
    }
}

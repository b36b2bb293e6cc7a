//! Types from the standard library that the walker recognizes, looked up
//! lazily: a module that was never imported can have no instances, so
//! orcodec imports nothing for them and asks `sys.modules` on first sight.

use core::cell::UnsafeCell;
use core::ptr::null_mut;
use pyo3_ffi::*;

use crate::cpython::types::{has_generic_getattr, is_data_descriptor};
use crate::module::state::state;

struct Types {
    uuid: *mut PyTypeObject,
    enum_meta: *mut PyTypeObject,
    /// `dataclasses._FIELD`: the marker of fields that are neither ClassVar nor InitVar.
    dataclass_field: *mut PyObject,
}

struct Cell(UnsafeCell<Types>);

// SAFETY: only touched with the GIL held (the extension does not declare
// free-threading support), so there is never concurrent access.
unsafe impl Sync for Cell {}

static TYPES: Cell =
    Cell(UnsafeCell::new(Types { uuid: null_mut(), enum_meta: null_mut(), dataclass_field: null_mut() }));

/// `sys.modules[module].attr` as a new reference, or NULL (with no exception
/// set) when the module is not imported or lacks the attribute.
unsafe fn imported_attr(module: *mut PyObject, attr: &core::ffi::CStr) -> *mut PyObject {
    let m = PyImport_GetModule(module);
    if m.is_null() {
        PyErr_Clear();
        return null_mut();
    }
    let value = PyObject_GetAttrString(m, attr.as_ptr());
    Py_DECREF(m);
    if value.is_null() {
        PyErr_Clear();
    }
    value
}

/// Fills `slot` from `module.attr` the first time it is found; the reference
/// is kept for the life of the process (types are never unloaded).
unsafe fn lazy(slot: *mut *mut PyObject, module: *mut PyObject, attr: &core::ffi::CStr) -> *mut PyObject {
    if (*slot).is_null() {
        *slot = imported_attr(module, attr);
    }
    *slot
}

/// Whether `ty` is `uuid.UUID` (exactly, as the peers have it).
#[inline]
pub unsafe fn is_uuid_type(ty: *mut PyTypeObject) -> bool {
    let t = TYPES.0.get();
    // Once found, one compare.
    if !(*t).uuid.is_null() {
        return ty == (*t).uuid;
    }
    // The name first: it keeps `sys.modules` out of the way of every other
    // type while `uuid` is not imported.
    if core::ffi::CStr::from_ptr((*ty).tp_name).to_bytes() != b"UUID" {
        return false;
    }
    ty == lazy(core::ptr::addr_of_mut!((*t).uuid) as *mut *mut PyObject, state().str_uuid, c"UUID") as *mut PyTypeObject
}

/// Whether `ty` is an enum class (its metaclass is `enum.EnumMeta` or a subclass).
#[inline(always)]
pub unsafe fn is_enum_type(ty: *mut PyTypeObject) -> bool {
    let meta = Py_TYPE(ty as *mut PyObject);
    if meta == core::ptr::addr_of_mut!(PyType_Type) {
        return false;
    }
    let t = TYPES.0.get();
    let enum_meta = lazy(core::ptr::addr_of_mut!((*t).enum_meta) as *mut *mut PyObject, state().str_enum, c"EnumMeta")
        as *mut PyTypeObject;
    !enum_meta.is_null() && (meta == enum_meta || PyType_IsSubtype(meta, enum_meta) != 0)
}

/// `dataclasses._FIELD`, or NULL while `dataclasses` is not imported.
pub unsafe fn dataclass_field_marker() -> *mut PyObject {
    let t = TYPES.0.get();
    lazy(core::ptr::addr_of_mut!((*t).dataclass_field), state().str_dataclasses, c"_FIELD")
}

/// `member._value_` of an enum member, as `getattr` gives it: a new
/// reference, or NULL with an exception set. Read straight from the
/// member's `__dict__` when `getattr` would find it there first: the class
/// uses the generic `getattr` and has no data descriptor named `_value_`.
#[inline]
pub unsafe fn enum_value(obj: *mut PyObject) -> *mut PyObject {
    let name = state().str_value;
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

//! Attribute lookups that skip the attribute machinery where CPython's own
//! rules give the same answer: the class's generic `getattr`, its data
//! descriptors, and `__slots__` members read in place.

use pyo3_ffi::*;

use crate::cpython::ffi::_PyType_Lookup;

/// Whether instances of `ty` get their attributes through the generic
/// `getattr` (`PyObject_GenericGetAttr`), whose lookup order the fast paths
/// here and in the walker follow.
///
/// # Safety
/// `ty` is a live type.
#[inline(always)]
pub unsafe fn has_generic_getattr(ty: *mut PyTypeObject) -> bool {
    (*ty).tp_getattro.is_some_and(|f| core::ptr::fn_addr_eq(f, PyObject_GenericGetAttr as getattrofunc))
}

/// Whether `name` on class `ty` is a data descriptor (a property, a slot),
/// which the generic `getattr` of an instance finds before the instance's
/// `__dict__`. Looked up along the MRO through CPython's attribute cache;
/// runs no Python code.
///
/// # Safety
/// `ty` is a live type, `name` a str.
#[inline(always)]
pub unsafe fn is_data_descriptor(ty: *mut PyTypeObject, name: *mut PyObject) -> bool {
    let attr = _PyType_Lookup(ty, name);
    !attr.is_null() && (*Py_TYPE(attr)).tp_descr_set.is_some()
}

/// What `getattr(obj, name)` returns (borrowed), read from the instance's
/// slot without the attribute machinery, when that is certainly the same:
/// the class's `getattr` is the generic one and `name` on it is the member
/// descriptor of that very class's slot (as `__slots__` make it), which is
/// set. None otherwise (the caller calls `getattr`).
///
/// # Safety
/// `obj` is a live object, `name` a str.
#[inline]
pub unsafe fn slot_value(obj: *mut PyObject, name: *mut PyObject) -> Option<*mut PyObject> {
    let ty = Py_TYPE(obj);
    if !has_generic_getattr(ty) {
        return None;
    }
    // Borrowed, through CPython's attribute cache; the class keeps it alive.
    let descr = _PyType_Lookup(ty, name);
    if descr.is_null() || Py_TYPE(descr) != core::ptr::addr_of_mut!(PyMemberDescr_Type) {
        return None;
    }
    // SAFETY: `descr` is a member descriptor (type checked just above).
    let descr = &*(descr as *const PyMemberDescrObject);
    // A descriptor of another class describes another layout.
    if descr.d_common.d_type != ty {
        return None;
    }
    // CPython stores a `PyMemberDef` here on every version (pyo3-ffi
    // declares another type before 3.11).
    let member = &*(descr.d_member as *const PyMemberDef);
    // Py_AUDIT_READ (2) members raise an audit event when read: leave those to getattr.
    if member.type_code != Py_T_OBJECT_EX || member.flags & 2 != 0 {
        return None;
    }
    // SAFETY: a T_OBJECT_EX member of `ty` stores an object pointer (or
    // NULL when unset) at `offset` in every instance of `ty`, which `obj` is.
    let value = *((obj as *const u8).add(member.offset as usize) as *const *mut PyObject);
    (!value.is_null()).then_some(value)
}

/// The class's version tag: CPython sets it to 0 whenever the class or one
/// of its bases is modified (an attribute set or deleted, `__bases__`
/// changed) and gives it a fresh number, never handed out before, at the
/// next attribute lookup through its cache (`_PyType_Lookup`). So a
/// non-zero tag read right after such a lookup names one state of the
/// class. 0 when there is none (tags exhausted) or on interpreters without
/// one: then nothing may be cached against it.
///
/// # Safety
/// `ty` is a live type.
#[inline(always)]
pub unsafe fn version_tag(ty: *mut PyTypeObject) -> u32 {
    #[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy)))]
    {
        return (*ty).tp_version_tag;
    }
    #[allow(unreachable_code)]
    {
        let _ = ty;
        0
    }
}

/// The module, among those `ours` accepts by their definition, whose class
/// `ty` is or derives from (borrowed), or None with a TypeError set: how an
/// instance's constructor finds the state of the module that made its class
/// (`PyType_GetModuleByDef`'s walk of the MRO).
///
/// # Safety
/// `ty` is a live type.
pub unsafe fn module_of_class(ty: *mut PyTypeObject, ours: impl Fn(*mut PyModuleDef) -> bool) -> Option<*mut PyObject> {
    let mro = (*ty).tp_mro;
    if !mro.is_null() {
        for i in 0..PyTuple_GET_SIZE(mro) {
            let base = PyTuple_GET_ITEM(mro, i) as *mut PyTypeObject;
            if PyType_HasFeature(base, Py_TPFLAGS_HEAPTYPE) == 0 {
                continue;
            }
            let module = PyType_GetModule(base);
            if module.is_null() {
                PyErr_Clear();
                continue;
            }
            let def = PyModule_GetDef(module);
            if !def.is_null() && ours(def) {
                return Some(module);
            }
        }
    }
    PyErr_SetString(PyExc_TypeError, c"not a class of orcodec's".as_ptr());
    None
}

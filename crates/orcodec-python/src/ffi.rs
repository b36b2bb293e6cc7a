//! CPython API that pyo3-ffi does not expose, declared in one place.

use pyo3_ffi::*;

extern "C" {
    /// Resizes a bytes object nobody else references yet; on failure frees
    /// it, sets `*bytes` to NULL and raises MemoryError.
    pub fn _PyBytes_Resize(bytes: *mut *mut PyObject, newsize: Py_ssize_t) -> core::ffi::c_int;
    /// A dict allocated for `minused` entries, so filling it never resizes.
    /// Private, but stable across the CPython versions we build for.
    pub fn _PyDict_NewPresized(minused: Py_ssize_t) -> *mut PyObject;
    /// `name` looked up along the type's MRO through CPython's attribute
    /// cache: a borrowed reference or NULL, never an exception.
    pub fn _PyType_Lookup(ty: *mut PyTypeObject, name: *mut PyObject) -> *mut PyObject;
}

/// The contents of a `bytes` object (or subclass), borrowed from it.
#[inline(always)]
pub unsafe fn bytes_data<'a>(obj: *mut PyObject) -> &'a [u8] {
    core::slice::from_raw_parts(PyBytes_AS_STRING(obj) as *const u8, Py_SIZE(obj) as usize)
}

/// The contents of a `bytearray`, borrowed; valid until it is resized.
#[inline(always)]
pub unsafe fn bytearray_data<'a>(obj: *mut PyObject) -> &'a [u8] {
    core::slice::from_raw_parts(PyByteArray_AS_STRING(obj) as *const u8, PyByteArray_GET_SIZE(obj) as usize)
}

/// Length of a dict without a call (`ma_used`).
#[inline(always)]
pub unsafe fn dict_len(obj: *mut PyObject) -> usize {
    (*(obj as *mut PyDictObject)).ma_used as usize
}

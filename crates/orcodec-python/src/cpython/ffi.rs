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

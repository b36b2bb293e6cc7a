//! C API calls whose function is newer than the oldest CPython orcodec
//! supports (3.9), each with the same meaning on every version.

use core::ffi::CStr;
use pyo3_ffi::*;

/// Adds `value` to `module` as `name`, taking a reference of its own (the
/// caller's is left as it was): `PyModule_AddObjectRef`, which is 3.10+.
/// `false` with an exception set when it fails.
///
/// # Safety
/// The GIL is held, `module` is a module and `value` a live object.
pub unsafe fn add_object_ref(module: *mut PyObject, name: &CStr, value: *mut PyObject) -> bool {
    #[cfg(Py_3_10)]
    {
        PyModule_AddObjectRef(module, name.as_ptr(), value) == 0
    }
    #[cfg(not(Py_3_10))]
    {
        // PyModule_AddObject steals the reference only when it succeeds:
        // give it one of its own, and take it back if it fails.
        Py_INCREF(value);
        if PyModule_AddObject(module, name.as_ptr(), value) != 0 {
            Py_DECREF(value);
            return false;
        }
        true
    }
}

//! A module object's state pointer, read in place.

use core::ffi::c_void;
use pyo3_ffi::*;

/// `PyModuleObject` of CPython 3.9 to 3.13 (`Include/internal/pycore_moduleobject.h`,
/// the same first fields in all of them).
#[cfg(all(not(Py_3_14), not(Py_LIMITED_API), not(PyPy), not(GraalPy)))]
#[repr(C)]
struct ModuleObject {
    ob_base: PyObject,
    md_dict: *mut PyObject,
    md_def: *mut PyModuleDef,
    md_state: *mut c_void,
}

/// The state memory of `module` (what `PyModule_GetState` returns), read
/// without the call: module functions run this on every call.
///
/// # Safety
/// `module` is a live module object made from a definition with state.
#[inline(always)]
pub unsafe fn module_state(module: *mut PyObject) -> *mut c_void {
    #[cfg(all(not(Py_3_14), not(Py_LIMITED_API), not(PyPy), not(GraalPy)))]
    {
        // SAFETY: `module` is a module object, laid out as declared above
        // on these versions.
        (*(module as *mut ModuleObject)).md_state
    }
    #[cfg(not(all(not(Py_3_14), not(Py_LIMITED_API), not(PyPy), not(GraalPy))))]
    {
        PyModule_GetState(module)
    }
}

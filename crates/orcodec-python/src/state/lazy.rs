//! Objects of other modules, found the first time they are needed.

use core::cell::Cell;
use core::ffi::CStr;
use core::ptr::null_mut;
use pyo3_ffi::*;

/// A strong reference found lazily (NULL until then), owned by its state.
/// A type found in `sys.modules` is never looked for again: types are not
/// unloaded while their interpreter lives.
pub struct Lazy(Cell<*mut PyObject>);

impl Default for Lazy {
    fn default() -> Self {
        Lazy(Cell::new(null_mut()))
    }
}

impl Lazy {
    /// What was found so far: NULL until then (borrowed).
    #[inline(always)]
    pub fn found(&self) -> *mut PyObject {
        self.0.get()
    }

    /// Keeps `obj` (a new reference, consumed) unless something was found
    /// meanwhile (Python code ran while it was looked for); returns what is
    /// kept, borrowed.
    pub unsafe fn keep(&self, obj: *mut PyObject) -> *mut PyObject {
        if self.0.get().is_null() {
            self.0.set(obj);
        } else {
            Py_XDECREF(obj);
        }
        self.0.get()
    }

    /// `module.attr` (borrowed), looked up in `sys.modules` until it is
    /// found; NULL (with no exception set) while it is not.
    pub unsafe fn get(&self, module: *mut PyObject, attr: &CStr) -> *mut PyObject {
        let found = self.0.get();
        if !found.is_null() {
            return found;
        }
        let value = imported_attr(module, attr);
        if value.is_null() {
            return value;
        }
        self.keep(value)
    }

    /// Drops the reference (the state is being freed).
    pub unsafe fn release(&self) {
        let old = self.0.replace(null_mut());
        Py_XDECREF(old);
    }
}

/// `sys.modules[module].attr` as a new reference, or NULL (with no exception
/// set) when the module is not imported or lacks the attribute.
unsafe fn imported_attr(module: *mut PyObject, attr: &CStr) -> *mut PyObject {
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

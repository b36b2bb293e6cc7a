//! The Python types the walker knows beyond the builtins, one file each:
//! how a type is recognized and how it is written, for both formats (the
//! walker is generic over the format's `Emitter`).
//!
//! `walker.rs` decides the order they are tried in; each file adds its
//! methods to `Walker` (`numpy_ext.rs` is numpy's binary forms, for
//! MessagePack). Types from the standard library ([`LazyAttr`]) and
//! numpy (`numpy.rs`) are found lazily: a module that was never imported can
//! have no instances, so orcodec imports nothing for them and asks
//! `sys.modules` on first sight.

pub mod dataclass;
pub mod datetime;
pub mod enums;
pub mod ext;
pub mod fragment;
pub mod numpy;
pub mod numpy_ext;
pub mod pydantic;
pub mod uuid;

use core::cell::UnsafeCell;
use core::ptr::null_mut;
use pyo3_ffi::*;

/// An attribute of a module (a type, a marker object), found in
/// `sys.modules` the first time it is looked for after its module was
/// imported; the reference is kept for the life of the process (types are
/// never unloaded).
pub struct LazyAttr(UnsafeCell<*mut PyObject>);

// SAFETY: the GIL contract (crate root): never accessed concurrently, and no
// reference into the cell is held while Python code runs.
unsafe impl Sync for LazyAttr {}

impl LazyAttr {
    pub const fn new() -> LazyAttr {
        LazyAttr(UnsafeCell::new(null_mut()))
    }

    /// What was found so far: NULL until then.
    #[inline(always)]
    pub fn found(&self) -> *mut PyObject {
        // SAFETY: a plain read of the slot (see `Sync`).
        unsafe { *self.0.get() }
    }

    /// `module.attr` (borrowed), looked up in `sys.modules` until it is
    /// found; NULL (with no exception set) while it is not.
    pub unsafe fn get(&self, module: *mut PyObject, attr: &core::ffi::CStr) -> *mut PyObject {
        let slot = self.0.get();
        if (*slot).is_null() {
            *slot = imported_attr(module, attr);
        }
        *slot
    }
}

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

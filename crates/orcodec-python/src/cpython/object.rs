//! Owned references.

use core::ptr::NonNull;
use pyo3_ffi::*;

/// An owned reference to a new Python object, released if dropped (so a
/// decoder that stops half way leaks nothing).
pub struct Owned(NonNull<PyObject>);

impl Owned {
    /// Takes ownership of a new reference; None (with an exception set) for NULL.
    #[inline(always)]
    pub unsafe fn new(ptr: *mut PyObject) -> Result<Owned, ()> {
        NonNull::new(ptr).map(Owned).ok_or(())
    }

    /// Gives the reference away.
    #[inline(always)]
    pub fn into_raw(self) -> *mut PyObject {
        let ptr = self.0.as_ptr();
        core::mem::forget(self);
        ptr
    }

    #[inline(always)]
    pub fn as_ptr(&self) -> *mut PyObject {
        self.0.as_ptr()
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: we own one reference.
        unsafe { Py_DECREF(self.0.as_ptr()) }
    }
}

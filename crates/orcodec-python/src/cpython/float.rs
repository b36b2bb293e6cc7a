//! Floats made in place.
//!
//! `PyFloat_FromDouble` takes a float from the interpreter's free list or
//! from `PyObject_Malloc`, then calls `_Py_NewReference`, which on CPython
//! 3.11 and 3.12 sets the reference count to 1 and, under tracemalloc,
//! records the block's traceback (the one its allocation just recorded).
//! A decoder making thousands of floats pays those two calls for each;
//! [`new_float`] allocates and writes the object itself on those versions
//! (GIL builds, full API, without reference-count debugging: the
//! `float_layout` cfg), which frees it as any float, to the free list or to
//! the allocator. Every other version calls `PyFloat_FromDouble`: from 3.13
//! on, `_Py_NewReference` also reports each new object to a reference
//! tracer (`PyRefTracer_SetTracer`) when one is set.

use pyo3_ffi::*;

/// A new float holding `value`, or NULL with `MemoryError` set.
///
/// # Safety
/// The GIL must be held.
#[inline(always)]
pub unsafe fn new_float(value: f64) -> *mut PyObject {
    #[cfg(float_layout)]
    {
        let op = PyObject_Malloc(core::mem::size_of::<PyFloatObject>()) as *mut PyFloatObject;
        if op.is_null() {
            return PyErr_NoMemory();
        }
        // SAFETY: `op` is a fresh block of a float's size from the object
        // allocator, which `float_dealloc` frees (or keeps on its free
        // list); `PyFloat_Type` is static, so its instances hold no
        // reference to it.
        op.write(PyFloatObject {
            ob_base: PyObject { ob_type: &raw mut PyFloat_Type, ..PyObject_HEAD_INIT },
            ob_fval: value,
        });
        op.cast()
    }
    #[cfg(not(float_layout))]
    PyFloat_FromDouble(value)
}

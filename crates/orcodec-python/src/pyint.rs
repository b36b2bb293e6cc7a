//! Reading small ints without a call.
//!
//! On CPython 3.11 (the layout this was written against and is tested on) an
//! int whose magnitude fits one 30-bit digit is read straight from the
//! object; everything else returns None and the caller uses the C API.

use pyo3_ffi::*;

/// `PyLongObject` of CPython 3.11: `ob_size` is the number of 30-bit digits,
/// negative for negative values, 0 for zero.
#[cfg(all(Py_3_11, not(Py_3_12), not(Py_LIMITED_API), not(PyPy)))]
#[repr(C)]
struct Long {
    ob_base: PyVarObject,
    ob_digit: [u32; 1],
}

/// The value of int `obj` (exact int or subclass) if it has at most one
/// digit, i.e. |value| < 2**30.
///
/// # Safety
/// `obj` must be a live int.
#[inline(always)]
pub unsafe fn small_value(obj: *mut PyObject) -> Option<i64> {
    #[cfg(all(Py_3_11, not(Py_3_12), not(Py_LIMITED_API), not(PyPy)))]
    {
        // SAFETY: on 3.11 every int is a PyLongObject with at least one
        // digit allocated (zero included), and `ob_size` in -1..=1 means the
        // first digit is the whole magnitude (PyLong_SHIFT is 30 on every
        // 64-bit build). This is CPython's own fast path in
        // PyLong_AsLongLongAndOverflow / _PyLong_CompactValue.
        let long = obj as *const Long;
        let size = (*long).ob_base.ob_size;
        if (-1..=1).contains(&size) {
            return Some(size as i64 * (*long).ob_digit[0] as i64);
        }
        return None;
    }
    #[allow(unreachable_code)]
    {
        let _ = obj; // other versions: the caller takes the C API path
        None
    }
}

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

/// The value of non-negative int `obj` if it is below 2**128 (a UUID's
/// `int`), read from its 30-bit digits; None otherwise, and always on
/// versions other than 3.11 (the caller then uses the C API).
///
/// # Safety
/// `obj` must be a live int (exact or subclass).
#[inline]
pub unsafe fn u128_value(obj: *mut PyObject) -> Option<u128> {
    #[cfg(all(Py_3_11, not(Py_3_12), not(Py_LIMITED_API), not(PyPy)))]
    {
        let long = obj as *const Long;
        let size = (*long).ob_base.ob_size;
        // 2**128 needs 5 digits (150 bits), the top one below 2**8.
        if !(0..=5).contains(&size) {
            return None;
        }
        // SAFETY: a 3.11 int (subclasses included) stores |ob_size| digits
        // inline from `ob_digit`; `size` is in 0..=5, so digits 0..size are
        // allocated. Each digit is below 2**30 (PyLong_SHIFT on 64-bit builds).
        let digits = core::ptr::addr_of!((*long).ob_digit) as *const u32;
        let mut value: u128 = 0;
        for i in (0..size as usize).rev() {
            let digit = *digits.add(i);
            if i == 4 && digit >> 8 != 0 {
                return None;
            }
            value = value << 30 | digit as u128;
        }
        return Some(value);
    }
    #[allow(unreachable_code)]
    {
        let _ = obj;
        None
    }
}

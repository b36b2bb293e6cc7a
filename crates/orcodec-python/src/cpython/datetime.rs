//! `datetime` objects read in place.

use pyo3_ffi::*;

/// `datetime.timezone` of CPython 3.11 to 3.13 (`PyDateTime_TimeZone` in
/// `_datetimemodule.c`, not in a public header; the same in all three).
#[cfg(all(Py_3_11, not(Py_3_14), not(Py_LIMITED_API), not(PyPy)))]
#[repr(C)]
struct TimeZone {
    ob_base: PyObject,
    /// A `timedelta`, strictly between -24 h and 24 h (the constructor checks).
    offset: *mut PyObject,
    name: *mut PyObject,
}

/// The offset in whole seconds of a `datetime.timezone` (exactly that type,
/// which cannot be subclassed anyway), read without calling `utcoffset()`:
/// `timezone.utcoffset(dt)` returns its stored `offset` whatever `dt` is, and
/// `datetime.utcoffset()` passes that on unchanged. None for any other
/// tzinfo, and on other CPython versions (the caller then calls).
#[inline(always)]
pub unsafe fn fixed_offset(tzinfo: *mut PyObject) -> Option<i32> {
    #[cfg(all(Py_3_11, not(Py_3_14), not(Py_LIMITED_API), not(PyPy)))]
    {
        // The UTC singleton is a `datetime.timezone`: its type is the type.
        if Py_TYPE(tzinfo) != Py_TYPE(PyDateTime_TimeZone_UTC()) {
            return None;
        }
        // SAFETY: `tzinfo` is a live `datetime.timezone` (exact type checked
        // above), whose layout `TimeZone` declares; `offset` is set by
        // its constructor and never changed, and is kept alive by `tzinfo`.
        let delta = (*(tzinfo as *mut TimeZone)).offset;
        if delta.is_null() || PyDelta_CheckExact(delta) == 0 {
            return None;
        }
        return Some(PyDateTime_DELTA_GET_DAYS(delta) * 86_400 + PyDateTime_DELTA_GET_SECONDS(delta));
    }
    #[allow(unreachable_code)]
    {
        let _ = tzinfo;
        None
    }
}

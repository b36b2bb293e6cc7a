//! `datetime` objects read in place, and dates and datetimes made in place.

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

/// A new `datetime.datetime` of `date` and `time` with `tzinfo` (borrowed:
/// `None` or a tzinfo object), written as the type's constructor writes it,
/// without its argument checks (the fields are checked here, once, by range).
/// None when a field is out of `datetime`'s range or on other interpreters
/// (the caller then lets the C API construct it, and report the error);
/// Some(NULL) with an exception set when allocation failed.
///
/// The fields are the public `PyDateTime_DateTime` of `datetime.h`; a naive
/// datetime is allocated without the `tzinfo` member, as CPython allocates it.
#[inline(always)]
pub unsafe fn new_datetime(
    date: orcodec_core::parse::Date,
    time: orcodec_core::parse::Time,
    tzinfo: *mut PyObject,
) -> Option<*mut PyObject> {
    #[cfg(all(Py_3_11, not(Py_3_14), not(Py_LIMITED_API), not(PyPy)))]
    {
        if !date.in_range() || !time.in_range() {
            return None;
        }
        let ty = (*PyDateTimeAPI()).DateTimeType;
        let aware = tzinfo != Py_None();
        let alloc = (*ty).tp_alloc?;
        let obj = alloc(ty, aware as Py_ssize_t);
        if obj.is_null() {
            return Some(obj);
        }
        let dt = obj as *mut PyDateTime_DateTime;
        let us = time.microsecond;
        // SAFETY: `obj` is a new datetime, allocated with the `tzinfo` member
        // when `aware`; every field is written before it is shared.
        unsafe {
            (*dt).hashcode = -1;
            (*dt).hastzinfo = aware as core::ffi::c_char;
            (*dt).data = [
                (date.year >> 8) as u8,
                date.year as u8,
                date.month,
                date.day,
                time.hour,
                time.minute,
                time.second,
                (us >> 16) as u8,
                (us >> 8) as u8,
                us as u8,
            ];
            (*dt).fold = 0;
            if aware {
                Py_INCREF(tzinfo);
                (*dt).tzinfo = tzinfo;
            }
        }
        return Some(obj);
    }
    #[allow(unreachable_code)]
    {
        let _ = (date, time, tzinfo);
        None
    }
}

/// A new `datetime.date`, as [`new_datetime`] makes a datetime.
#[inline(always)]
pub unsafe fn new_date(date: orcodec_core::parse::Date) -> Option<*mut PyObject> {
    #[cfg(all(Py_3_11, not(Py_3_14), not(Py_LIMITED_API), not(PyPy)))]
    {
        if !date.in_range() {
            return None;
        }
        let ty = (*PyDateTimeAPI()).DateType;
        let alloc = (*ty).tp_alloc?;
        let obj = alloc(ty, 0);
        if obj.is_null() {
            return Some(obj);
        }
        let d = obj as *mut PyDateTime_Date;
        // SAFETY: `obj` is a new date; every field is written before it is shared.
        unsafe {
            (*d).hashcode = -1;
            (*d).hastzinfo = 0;
            (*d).data = [(date.year >> 8) as u8, date.year as u8, date.month, date.day];
        }
        return Some(obj);
    }
    #[allow(unreachable_code)]
    {
        let _ = date;
        None
    }
}

//! `datetime` objects recognized, read in place, and dates and datetimes
//! made in place, through the C API of the interpreter's own `datetime`
//! (its capsule, kept in the module state: `capi` below). A NULL `capi`
//! means the interpreter has no C `datetime` (CPython 3.12's isolated
//! subinterpreters), where none of its objects can be met: every check
//! says no.

use pyo3_ffi::*;

/// The C API of `datetime`, or NULL.
pub type Capi = *const PyDateTime_CAPI;

/// Whether `obj` is exactly a `datetime.datetime`.
#[inline(always)]
pub unsafe fn is_datetime_exact(capi: Capi, obj: *mut PyObject) -> bool {
    !capi.is_null() && Py_TYPE(obj) == (*capi).DateTimeType
}

/// Whether `obj` is exactly a `datetime.date`.
#[inline(always)]
pub unsafe fn is_date_exact(capi: Capi, obj: *mut PyObject) -> bool {
    !capi.is_null() && Py_TYPE(obj) == (*capi).DateType
}

/// Whether `obj` is exactly a `datetime.time`.
#[inline(always)]
pub unsafe fn is_time_exact(capi: Capi, obj: *mut PyObject) -> bool {
    !capi.is_null() && Py_TYPE(obj) == (*capi).TimeType
}

unsafe fn is_instance(obj: *mut PyObject, ty: *mut PyTypeObject) -> bool {
    Py_TYPE(obj) == ty || PyType_IsSubtype(Py_TYPE(obj), ty) != 0
}

/// Whether `obj` is a `datetime.datetime` or an instance of a subclass.
#[inline(always)]
pub unsafe fn is_datetime(capi: Capi, obj: *mut PyObject) -> bool {
    !capi.is_null() && is_instance(obj, (*capi).DateTimeType)
}

/// Whether `obj` is a `datetime.date` (a datetime is one too) or a subclass's.
#[inline(always)]
pub unsafe fn is_date(capi: Capi, obj: *mut PyObject) -> bool {
    !capi.is_null() && is_instance(obj, (*capi).DateType)
}

/// Whether `obj` is a `datetime.time` or a subclass's.
#[inline(always)]
pub unsafe fn is_time(capi: Capi, obj: *mut PyObject) -> bool {
    !capi.is_null() && is_instance(obj, (*capi).TimeType)
}

/// Whether `obj` is a `datetime.timedelta` or a subclass's.
#[inline(always)]
pub unsafe fn is_delta(capi: Capi, obj: *mut PyObject) -> bool {
    !capi.is_null() && is_instance(obj, (*capi).DeltaType)
}

/// Raises what making a datetime raises in an interpreter without the C
/// `datetime` (see the module's doc); returns NULL.
#[cold]
pub unsafe fn no_capi() -> *mut PyObject {
    PyErr_SetString(
        PyExc_TypeError,
        c"datetime objects cannot be made here: this interpreter has no C datetime module (CPython 3.12 subinterpreters with their own GIL)".as_ptr(),
    );
    core::ptr::null_mut()
}

/// `datetime.timezone.utc` (borrowed); `capi` is not NULL.
#[inline(always)]
pub unsafe fn utc(capi: Capi) -> *mut PyObject {
    (*capi).TimeZone_UTC
}

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
pub unsafe fn fixed_offset(capi: Capi, tzinfo: *mut PyObject) -> Option<i32> {
    #[cfg(all(Py_3_11, not(Py_3_14), not(Py_LIMITED_API), not(PyPy)))]
    {
        // The UTC singleton is a `datetime.timezone`: its type is the type.
        if capi.is_null() || Py_TYPE(tzinfo) != Py_TYPE(utc(capi)) {
            return None;
        }
        // SAFETY: `tzinfo` is a live `datetime.timezone` (exact type checked
        // above), whose layout `TimeZone` declares; `offset` is set by
        // its constructor and never changed, and is kept alive by `tzinfo`.
        let delta = (*(tzinfo as *mut TimeZone)).offset;
        if delta.is_null() || Py_TYPE(delta) != (*capi).DeltaType {
            return None;
        }
        return Some(PyDateTime_DELTA_GET_DAYS(delta) * 86_400 + PyDateTime_DELTA_GET_SECONDS(delta));
    }
    #[allow(unreachable_code)]
    {
        let _ = (capi, tzinfo);
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
    capi: Capi,
    date: orcodec_core::parse::Date,
    time: orcodec_core::parse::Time,
    tzinfo: *mut PyObject,
) -> Option<*mut PyObject> {
    #[cfg(all(Py_3_11, not(Py_3_14), not(Py_LIMITED_API), not(PyPy)))]
    {
        if capi.is_null() || !date.in_range() || !time.in_range() {
            return None;
        }
        let ty = (*capi).DateTimeType;
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
        let _ = (capi, date, time, tzinfo);
        None
    }
}

/// A new `datetime.date`, as [`new_datetime`] makes a datetime.
#[inline(always)]
pub unsafe fn new_date(capi: Capi, date: orcodec_core::parse::Date) -> Option<*mut PyObject> {
    #[cfg(all(Py_3_11, not(Py_3_14), not(Py_LIMITED_API), not(PyPy)))]
    {
        if capi.is_null() || !date.in_range() {
            return None;
        }
        let ty = (*capi).DateType;
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
        let _ = (capi, date);
        None
    }
}

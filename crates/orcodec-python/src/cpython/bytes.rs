//! `bytes` and `bytearray` storage: borrowed views of their contents, and
//! the raw operations that let the encoders' output (`encode/output.rs`) be
//! a bytes object filled in place and resized while nobody else holds it.

use pyo3_ffi::*;

/// The contents of a `bytes` object (or subclass), borrowed from it.
#[inline(always)]
pub unsafe fn bytes_data<'a>(obj: *mut PyObject) -> &'a [u8] {
    core::slice::from_raw_parts(PyBytes_AS_STRING(obj) as *const u8, Py_SIZE(obj) as usize)
}

/// The contents of a `bytearray`, borrowed; valid until it is resized.
#[inline(always)]
pub unsafe fn bytearray_data<'a>(obj: *mut PyObject) -> &'a [u8] {
    core::slice::from_raw_parts(PyByteArray_AS_STRING(obj) as *const u8, PyByteArray_GET_SIZE(obj) as usize)
}

/// Offset of the first data byte inside a bytes object.
const DATA_OFFSET: usize = core::mem::offset_of!(PyBytesObject, ob_sval);

/// A new bytes object of `capacity` data bytes left uninitialised, or NULL
/// with MemoryError set.
pub fn new_bytes(capacity: usize) -> *mut PyObject {
    // SAFETY: a NULL source asks CPython for an uninitialised bytes object;
    // nothing is read.
    unsafe { PyBytes_FromStringAndSize(core::ptr::null(), capacity as Py_ssize_t) }
}

/// The first data byte of bytes object `obj`.
///
/// # Safety
/// `obj` is a live bytes object.
#[inline(always)]
pub unsafe fn data_of(obj: *mut PyObject) -> *mut u8 {
    (obj as *mut u8).add(DATA_OFFSET)
}

/// Grows (or moves) bytes object `obj`, which nobody else references, to hold
/// `capacity` data bytes; NULL (with `obj` untouched and still valid) if the
/// memory cannot be had. No exception is set.
///
/// # Safety
/// `obj` came from [`new_bytes`] (so from `PyObject_Malloc`) and is ours
/// alone: never handed out, not tracked by the GC, no cached hash. Its
/// length then says `capacity`; [`set_len`] gives it the real one.
pub unsafe fn realloc_bytes(obj: *mut PyObject, capacity: usize) -> *mut PyObject {
    let Some(size) = capacity.checked_add(DATA_OFFSET + 1).filter(|&n| n <= isize::MAX as usize) else {
        return core::ptr::null_mut();
    };
    let fresh = PyObject_Realloc(obj as *mut core::ffi::c_void, size) as *mut PyObject;
    if !fresh.is_null() {
        (*(fresh as *mut PyVarObject)).ob_size = capacity as Py_ssize_t;
    }
    fresh
}

/// Makes bytes object `obj` say `len` bytes and ends them with the NUL.
///
/// # Safety
/// As for [`realloc_bytes`], and `obj` has room for `len` data bytes and the NUL.
#[inline(always)]
pub unsafe fn set_len(obj: *mut PyObject, len: usize) {
    (*(obj as *mut PyVarObject)).ob_size = len as Py_ssize_t;
    *data_of(obj).add(len) = 0;
}

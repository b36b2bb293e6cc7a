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
    // nothing is read. Its data area is `capacity` bytes.
    unsafe {
        let obj = PyBytes_FromStringAndSize(core::ptr::null(), capacity as Py_ssize_t);
        if !obj.is_null() {
            advise_huge_pages(data_of(obj), capacity);
        }
        obj
    }
}

/// Outputs from this size on ask for transparent huge pages.
const HUGE_PAGES_FROM: usize = 4 << 20;

/// Asks Linux to back `len` bytes at `data`, a block of a large output, with
/// transparent huge pages where it can, as numpy does for its large arrays:
/// a fresh multi-megabyte output is then faulted in 2 MiB at a time rather
/// than 4 KiB, and the page faults, not the copying, are most of the cost of
/// writing a large array's bytes into a fresh buffer. A hint only: without
/// THP (or set to `never`) nothing changes; on other systems it is not made.
#[inline(always)]
unsafe fn advise_huge_pages(data: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    if len >= HUGE_PAGES_FROM {
        extern "C" {
            fn madvise(addr: *mut core::ffi::c_void, len: usize, advice: core::ffi::c_int) -> core::ffi::c_int;
        }
        const MADV_HUGEPAGE: core::ffi::c_int = 14;
        const PAGE: usize = 4096;
        // madvise wants a page-aligned start; the kernel uses huge pages for
        // the 2 MiB-aligned parts of the range.
        let start = (data as usize).next_multiple_of(PAGE);
        let end = (data as usize + len) & !(PAGE - 1);
        if end > start {
            madvise(start as *mut core::ffi::c_void, end - start, MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (data, len);
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
        advise_huge_pages(data_of(fresh), capacity);
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

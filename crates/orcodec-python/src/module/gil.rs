//! When a call runs without the GIL: work on an input that cannot change
//! underneath (`bytes`, `str`) that touches no Python object (transcoding,
//! counting) and is long enough to pay for releasing and taking back the
//! GIL.

use pyo3_ffi::*;

/// Inputs at least this long are worked on with the GIL released (other
/// threads of the interpreter run meanwhile), when they cannot change
/// underneath: `bytes` and `str` are immutable. A bytearray or another
/// writable buffer could be changed in place by another thread while it is
/// read (a buffer export stops only resizing), so it keeps the GIL; pass
/// `bytes(data)` to have it worked on without. Below the threshold the
/// release and reacquisition (a few hundred nanoseconds, more when other
/// threads wait for the GIL) would be a noticeable part of the call.
pub const GIL_FREE_FROM: usize = 64 << 10;

/// Whether the input `obj`, `len` bytes long, is worked on without the GIL.
///
/// # Safety
/// The GIL is held and `obj` is a live object.
pub unsafe fn without_gil(obj: *mut PyObject, len: usize) -> bool {
    len >= GIL_FREE_FROM && (PyBytes_Check(obj) != 0 || PyUnicode_Check(obj) != 0)
}

/// `work()`, with the GIL released when `release`.
///
/// # Safety
/// The GIL is held, and `work` touches no Python object and calls nothing
/// that needs the GIL.
pub unsafe fn released<R>(release: bool, work: impl FnOnce() -> R) -> R {
    if !release {
        return work();
    }
    let detached = PyEval_SaveThread();
    let result = work();
    PyEval_RestoreThread(detached);
    result
}

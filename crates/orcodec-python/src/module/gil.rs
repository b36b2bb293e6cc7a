//! When a call runs without the GIL: work on an input that cannot change
//! underneath (`bytes`, `str`) that touches no Python object (transcoding,
//! counting) and is long enough to pay for releasing and taking back the
//! GIL (`state::GIL_FREE_FROM`).

use pyo3_ffi::*;

use crate::module::args::Call;
use crate::state::State;

/// Whether the input `obj`, `len` bytes long, is worked on without the GIL:
/// from the interpreter's threshold on, and only `bytes` and `str`, which
/// are immutable. A bytearray or another writable buffer could be changed
/// in place by another thread while it is read (a buffer export stops only
/// resizing), so it keeps the GIL; pass `bytes(data)` to have it worked on
/// without.
///
/// # Safety
/// The GIL is held and `obj` is a live object.
pub unsafe fn without_gil(st: &State, obj: *mut PyObject, len: usize) -> bool {
    len >= st.gil_free_from.get() && (PyBytes_Check(obj) != 0 || PyUnicode_Check(obj) != 0)
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

/// `_gil_free_from(n)`: the interpreter's threshold, set to `n` bytes
/// unless it is None (the threshold benchmark's knob; not an API).
pub unsafe extern "C" fn gil_free_from(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let st = State::of_module(module);
    let call = Call { args, nargs: nargs as usize, kwnames };
    let Ok([n]) = call.parse("_gil_free_from", [core::ptr::null_mut()], 1) else {
        return core::ptr::null_mut();
    };
    let old = st.gil_free_from.get();
    if !n.is_null() && n != Py_None() {
        let value = PyLong_AsSize_t(n);
        if value == usize::MAX && !PyErr_Occurred().is_null() {
            return core::ptr::null_mut();
        }
        st.gil_free_from.set(value);
    }
    PyLong_FromSize_t(old)
}

//! orcodec's CPython extension (`orcodec._orcodec`): the object walker with
//! its two backends, the decoders' object builder, options and errors.
//!
//! The module is written against the raw C API (pyo3-ffi): entry points are
//! METH_FASTCALL functions, so a call costs no argument tuple or dict.

mod classes;
mod cpython;
mod decode;
mod encode;
mod module;

use core::ptr::null_mut;
use pyo3_ffi::PyObject;

/// Module entry point, called by the import system with the GIL held.
#[allow(non_snake_case)]
#[no_mangle]
pub unsafe extern "C" fn PyInit__orcodec() -> *mut PyObject {
    module::init_module().unwrap_or(null_mut())
}

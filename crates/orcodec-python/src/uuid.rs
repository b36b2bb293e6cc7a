//! `uuid.UUID` as its canonical text: 36 lowercase hex digits and hyphens.

use pyo3_ffi::*;

use crate::state::state;
use crate::walk::EncodeError;

/// The canonical text of a UUID object (read from its `int` attribute).
pub unsafe fn uuid_text(obj: *mut PyObject) -> Result<[u8; 36], EncodeError> {
    let int = PyObject_GetAttr(obj, state().str_int);
    if int.is_null() {
        return Err(EncodeError::Raised);
    }
    let mut bytes = [0u8; 16];
    let status = if PyLong_Check(int) != 0 {
        int_to_be_bytes(int, &mut bytes)
    } else {
        PyErr_SetString(PyExc_TypeError, c"UUID.int is not an int".as_ptr());
        -1
    };
    Py_DECREF(int);
    if status != 0 {
        return Err(EncodeError::Raised);
    }
    Ok(format_uuid(&bytes))
}

/// The 16 big-endian bytes of a non-negative int below 2**128: 0, or -1
/// with an exception set.
#[cfg(not(Py_3_13))]
unsafe fn int_to_be_bytes(int: *mut PyObject, bytes: &mut [u8; 16]) -> core::ffi::c_int {
    _PyLong_AsByteArray(int as *mut PyLongObject, bytes.as_mut_ptr(), 16, 0, 0)
}

/// As above, through the public API CPython 3.13 added for it.
#[cfg(Py_3_13)]
unsafe fn int_to_be_bytes(int: *mut PyObject, bytes: &mut [u8; 16]) -> core::ffi::c_int {
    // Big-endian (0), unsigned buffer (4), negative values refused (8).
    let needed = PyLong_AsNativeBytes(int, bytes.as_mut_ptr() as *mut core::ffi::c_void, 16, 0 | 4 | 8);
    if needed < 0 {
        return -1;
    }
    if needed > 16 {
        PyErr_SetString(PyExc_OverflowError, c"UUID.int does not fit in 128 bits".as_ptr());
        return -1;
    }
    0
}

/// 8-4-4-4-12 lowercase hex groups.
pub fn format_uuid(bytes: &[u8; 16]) -> [u8; 36] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // Where each byte's two digits go; the hyphens sit between the groups.
    const AT: [usize; 16] = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
    let mut out = [b'-'; 36];
    for (&b, &at) in bytes.iter().zip(AT.iter()) {
        out[at] = HEX[(b >> 4) as usize];
        out[at + 1] = HEX[(b & 15) as usize];
    }
    out
}

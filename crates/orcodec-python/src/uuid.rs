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
        // Big-endian and unsigned: the UUID's 16 bytes in order.
        _PyLong_AsByteArray(int as *mut PyLongObject, bytes.as_mut_ptr(), 16, 0, 0)
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

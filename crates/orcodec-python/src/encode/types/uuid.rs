//! `uuid.UUID` as its canonical text: 36 lowercase hex digits and hyphens.

use pyo3_ffi::*;

use crate::cpython::types::slot_value;
use crate::encode::error::EncodeError;
use crate::state::State;

/// Whether `ty` is `uuid.UUID` (exactly, as the peers have it).
#[inline]
pub unsafe fn is_uuid_type(st: &State, ty: *mut PyTypeObject) -> bool {
    // Once found, one compare.
    let uuid = st.found.uuid_type.found();
    if !uuid.is_null() {
        return ty == uuid as *mut PyTypeObject;
    }
    // The name first: it keeps `sys.modules` out of the way of every other
    // type while `uuid` is not imported. Compared byte by byte up to its
    // NUL, so no type name is measured (every dataclass instance, enum
    // member... passes here while no UUID has been seen).
    if !is_named_uuid((*ty).tp_name) {
        return false;
    }
    ty == st.found.uuid_type.get(st.str_uuid, c"UUID") as *mut PyTypeObject
}

/// Whether the NUL-terminated `name` is `UUID`, reading no byte past its NUL.
#[inline(always)]
unsafe fn is_named_uuid(name: *const core::ffi::c_char) -> bool {
    let name = name as *const u8;
    // `&&` stops at the first byte that differs, so a shorter name's NUL is
    // the last byte read.
    *name == b'U' && *name.add(1) == b'U' && *name.add(2) == b'I' && *name.add(3) == b'D' && *name.add(4) == 0
}

/// The canonical text of a UUID object (from its `int` attribute).
pub unsafe fn uuid_text(st: &State, obj: *mut PyObject) -> Result<[u8; 36], EncodeError> {
    if let Some(value) = int_slot(st, obj).and_then(|int| crate::cpython::int::u128_value(int)) {
        return Ok(format_uuid_u128(value));
    }
    let int = PyObject_GetAttr(obj, st.str_int);
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

/// What `getattr(obj, "int")` returns (borrowed), read from the instance's
/// slot (`uuid.UUID` has `__slots__`) when that is certainly the same (see
/// [`slot_value`]) and it holds an int. None otherwise (the caller calls
/// `getattr`).
#[inline]
unsafe fn int_slot(st: &State, obj: *mut PyObject) -> Option<*mut PyObject> {
    slot_value(obj, st.str_int).filter(|&value| PyLong_Check(value) != 0)
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
    #[allow(clippy::identity_op)]
    let needed = PyLong_AsNativeBytes(int, bytes.as_mut_ptr() as *mut core::ffi::c_void, 16, 0 | 4 | 8);
    if needed < 0 {
        // A negative int is a ValueError here, an OverflowError (with this
        // message) through `_PyLong_AsByteArray` before 3.13: one error on every version.
        if PyErr_ExceptionMatches(PyExc_ValueError) != 0 {
            PyErr_SetString(PyExc_OverflowError, c"can't convert negative int to unsigned".as_ptr());
        }
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

/// The canonical text of the UUID whose 128-bit value is `value`: the same
/// as `format_uuid(&value.to_be_bytes())`, eight hex digits at a time.
pub fn format_uuid_u128(value: u128) -> [u8; 36] {
    let hex = [hex8((value >> 96) as u32), hex8((value >> 64) as u32), hex8((value >> 32) as u32), hex8(value as u32)];
    let mut out = [b'-'; 36];
    out[0..8].copy_from_slice(&hex[0]);
    out[9..13].copy_from_slice(&hex[1][..4]);
    out[14..18].copy_from_slice(&hex[1][4..]);
    out[19..23].copy_from_slice(&hex[2][..4]);
    out[24..28].copy_from_slice(&hex[2][4..]);
    out[28..36].copy_from_slice(&hex[3]);
    out
}

/// `v` as eight lowercase hex digits, most significant first, computed in
/// one 64-bit word (each nibble spread into a byte of its own).
#[inline(always)]
fn hex8(v: u32) -> [u8; 8] {
    let mut x = v as u64;
    // Nibble k (from the least significant) ends up in byte k.
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF;
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF;
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F;
    // Per byte: 1 where the nibble is 10 or more (adding 6 carries into bit 4).
    let letters = ((x + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    // '0' + n, and 'a' - '0' - 10 = 39 more for letters; no byte carries.
    let ascii = x + 0x3030_3030_3030_3030 + letters * 39;
    // Byte 7 holds the most significant nibble: big-endian order puts it first.
    ascii.to_be_bytes()
}

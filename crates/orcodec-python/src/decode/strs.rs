//! New `str` objects from UTF-8 text, made at their final kind (ASCII,
//! UCS1, UCS2, UCS4) and decoded straight into CPython's storage (`text/`
//! of the core), never through `PyUnicode_DecodeUTF8`.

use pyo3_ffi::*;

use crate::cpython::object::Owned;

/// A new `str` from UTF-8 text.
#[inline(always)]
pub unsafe fn new_str(text: &str) -> *mut PyObject {
    let bytes = text.as_bytes();
    if orcodec_core::text::ascii::is_ascii(bytes) {
        new_ascii_str(bytes)
    } else {
        new_non_ascii_str(bytes)
    }
}

/// A new `str` from ASCII bytes: allocate the compact object and copy.
///
/// # Safety
/// `bytes` must be all ASCII (an ASCII-kind str holding other bytes is corrupt).
#[inline(always)]
pub unsafe fn new_ascii_str(bytes: &[u8]) -> *mut PyObject {
    let obj = PyUnicode_New(bytes.len() as Py_ssize_t, 127);
    if !obj.is_null() {
        core::ptr::copy_nonoverlapping(bytes.as_ptr(), PyUnicode_DATA(obj) as *mut u8, bytes.len());
    }
    obj
}

/// A new `str` from valid UTF-8 holding at least one non-ASCII character,
/// decoded straight into the narrowest kind CPython requires (no
/// `PyUnicode_DecodeUTF8`, which would validate and measure again).
#[inline(never)]
pub(crate) unsafe fn new_non_ascii_str(bytes: &[u8]) -> *mut PyObject {
    let (chars, maxchar) = orcodec_core::text::decode::measure(bytes);
    new_measured_str(bytes, chars, maxchar)
}

/// A new `str` of valid UTF-8 `bytes`, of `chars` code points, the largest at
/// most `maxchar`, the narrowest kind's bound (as `measure` gives them).
#[inline(always)]
unsafe fn new_measured_str(bytes: &[u8], chars: usize, maxchar: u32) -> *mut PyObject {
    use orcodec_core::text::decode::decode;
    let obj = PyUnicode_New(chars as Py_ssize_t, maxchar);
    if obj.is_null() {
        return obj;
    }
    // SAFETY: `obj` is a fresh compact str of `chars` units of the kind
    // `maxchar` selects (the narrowest holding every code point), and
    // `bytes` is valid UTF-8 of `chars` code points.
    let data = PyUnicode_DATA(obj);
    match maxchar {
        0x7f | 0xff => decode(bytes, data as *mut u8, chars),
        0xffff => decode(bytes, data as *mut u16, chars),
        _ => decode(bytes, data as *mut u32, chars),
    }
    obj
}

/// [`new_non_ascii_str`] for bytes not yet validated: Ok(None) if they are
/// not UTF-8, checked in the pass that counts the characters.
#[inline(never)]
pub(crate) unsafe fn new_checked_non_ascii_str(bytes: &[u8]) -> Result<Option<Owned>, ()> {
    let Some((chars, maxchar)) = orcodec_core::text::decode::measure_checked(bytes) else {
        return Ok(None);
    };
    // SAFETY: `bytes` is valid UTF-8 of `chars` code points of at most `maxchar`.
    Owned::new(new_measured_str(bytes, chars, maxchar)).map(Some)
}

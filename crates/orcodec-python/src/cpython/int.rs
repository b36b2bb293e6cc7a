//! Reading small ints without a call, and writing a UUID's `int`.
//!
//! On CPython 3.11 to 3.13 (the layouts this was written against and is
//! tested on) an int whose magnitude fits one 30-bit digit is read straight
//! from the object, as are the up to five digits of a UUID's `int`;
//! everything else, and every other version, returns None and the caller
//! uses the C API. On the same versions a 65- to 128-bit int is made by
//! writing its digits into a new int.

use pyo3_ffi::*;

/// `PyLongObject` of CPython 3.11: `ob_size` is the number of 30-bit digits,
/// negative for negative values, 0 for zero.
#[cfg(all(int_layout, not(Py_3_12)))]
#[repr(C)]
struct Long {
    ob_base: PyVarObject,
    ob_digit: [u32; 1],
}

/// `PyLongObject` of CPython 3.12 and 3.13: `lv_tag` holds the number of
/// 30-bit digits from bit 3 up and the sign in bits 0-1 (0 positive, 1 zero,
/// 2 negative); at least one digit is always allocated.
#[cfg(all(int_layout, Py_3_12))]
#[repr(C)]
struct Long {
    ob_base: PyObject,
    lv_tag: usize,
    ob_digit: [u32; 1],
}

/// The number of digits and whether the value is negative, from the layout
/// of this version (None on versions whose layout is not known here).
///
/// # Safety
/// `obj` must be a live int (exact or subclass).
#[inline(always)]
#[cfg_attr(not(int_layout), allow(dead_code))]
unsafe fn digits_and_sign(obj: *mut PyObject) -> Option<(usize, bool)> {
    #[cfg(all(int_layout, not(Py_3_12)))]
    {
        let size = (*(obj as *const Long)).ob_base.ob_size;
        return Some((size.unsigned_abs(), size < 0));
    }
    #[cfg(all(int_layout, Py_3_12))]
    {
        let tag = (*(obj as *const Long)).lv_tag;
        return Some((tag >> 3, tag & 3 == 2));
    }
    #[allow(unreachable_code)]
    {
        let _ = obj;
        None
    }
}

/// The digits of int `obj`, stored inline after its header.
#[cfg(int_layout)]
#[inline(always)]
unsafe fn digits(obj: *mut PyObject) -> *const u32 {
    core::ptr::addr_of!((*(obj as *const Long)).ob_digit) as *const u32
}

/// The value of int `obj` (exact int or subclass) if it has at most one
/// digit, i.e. |value| < 2**30.
///
/// # Safety
/// `obj` must be a live int.
#[inline(always)]
pub unsafe fn small_value(obj: *mut PyObject) -> Option<i64> {
    #[cfg(int_layout)]
    {
        // SAFETY: every int of these versions has at least one digit
        // allocated (zero included, whose digit is 0); at most one digit
        // means the first is the whole magnitude (PyLong_SHIFT is 30 on every
        // 64-bit build). This is CPython's own fast path in
        // PyLong_AsLongLongAndOverflow / _PyLong_CompactValue.
        let (count, negative) = digits_and_sign(obj)?;
        if count > 1 {
            return None;
        }
        let magnitude = *digits(obj) as i64;
        return Some(if negative { -magnitude } else { magnitude });
    }
    #[allow(unreachable_code)]
    {
        let _ = obj; // other versions: the caller takes the C API path
        None
    }
}

/// The value of non-negative int `obj` if it is below 2**128 (a UUID's
/// `int`), read from its 30-bit digits; None otherwise, and always on
/// versions whose layout is not known here (the caller then uses the C API).
///
/// # Safety
/// `obj` must be a live int (exact or subclass).
#[inline]
pub unsafe fn u128_value(obj: *mut PyObject) -> Option<u128> {
    #[cfg(int_layout)]
    {
        let (count, negative) = digits_and_sign(obj)?;
        // 2**128 needs 5 digits (150 bits), the top one below 2**8.
        if negative || count > 5 {
            return None;
        }
        // SAFETY: the int stores `count` digits inline from `ob_digit`;
        // `count` is at most 5, so digits 0..count are allocated. Each digit
        // is below 2**30 (PyLong_SHIFT on 64-bit builds).
        let digits = digits(obj);
        let mut value: u128 = 0;
        for i in (0..count).rev() {
            let digit = *digits.add(i);
            if i == 4 && digit >> 8 != 0 {
                return None;
            }
            value = value << 30 | digit as u128;
        }
        return Some(value);
    }
    #[allow(unreachable_code)]
    {
        let _ = obj;
        None
    }
}

#[cfg(int_layout)]
extern "C" {
    /// A new int of `size` digits, positive, the digits left to the caller
    /// (exported by CPython 3.11 to 3.13, declared in `longintrepr.h`).
    fn _PyLong_New(size: Py_ssize_t) -> *mut PyObject;
}

/// A new int of the 128-bit unsigned `value`, or NULL with an exception set.
///
/// On the versions whose layout is known here, a value of more than 64 bits
/// (a UUID's `int`, almost always) is written straight into a new int's
/// 30-bit digits, instead of going through the C API's general byte-array
/// conversion; smaller values take `PyLong_FromUnsignedLongLong`, which also
/// returns the cached small ints.
pub unsafe fn int_from_u128(value: u128) -> *mut PyObject {
    #[cfg(int_layout)]
    {
        if value >> 64 == 0 {
            return PyLong_FromUnsignedLongLong(value as u64);
        }
        // 65 to 128 significant bits: 3 to 5 digits, the top one nonzero
        // (an int's digits are normalized: no leading zero digit).
        let count = (128 - value.leading_zeros() as usize).div_ceil(30);
        let obj = _PyLong_New(count as Py_ssize_t);
        if obj.is_null() {
            return obj;
        }
        // SAFETY: `_PyLong_New(count)` allocated `count` digits inline from
        // `ob_digit` and recorded `count` digits, positive (3.11: `ob_size`;
        // 3.12 and 3.13: `lv_tag`); every one is written here, each below
        // 2**30, the most significant nonzero.
        let digits = digits(obj) as *mut u32;
        for i in 0..count {
            *digits.add(i) = (value >> (30 * i)) as u32 & 0x3FFF_FFFF;
        }
        return obj;
    }
    #[allow(unreachable_code)]
    {
        let bytes = value.to_le_bytes();
        #[cfg(Py_3_13)]
        {
            // Little-endian (1), an unsigned buffer (4).
            PyLong_FromUnsignedNativeBytes(bytes.as_ptr() as *const core::ffi::c_void, 16, 1 | 4)
        }
        #[cfg(not(Py_3_13))]
        {
            _PyLong_FromByteArray(bytes.as_ptr(), 16, 1, 0)
        }
    }
}

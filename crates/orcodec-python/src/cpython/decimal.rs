//! `decimal.Decimal` objects made in place.
//!
//! `Decimal(text)` spends most of its time around the number, not on it:
//! argument parsing, a lookup of the thread's context, a copy of the text
//! into a C string and libmpdec's general reader. A number in plain notation
//! with at most 19 significant digits is one word of the object's inline
//! coefficient storage, so typed decoding writes such a Decimal's fields
//! directly, by the layout of `_decimal`'s objects in CPython 3.11 to 3.13
//! (`PyDecObject` and libmpdec's `mpd_t`, the same in all three, with
//! 64-bit words). That layout is private to `_decimal`, so it is checked
//! before the first use against Decimals the type makes itself; any
//! difference (a build with 32-bit words, the pure-Python `_pydecimal`, a
//! later change) leaves every Decimal to the type's own constructor.

use core::cell::Cell;
use pyo3_ffi::*;

/// The Decimal type of an interpreter whose layout was checked and found as
/// declared here, and one that was not (checked again only if another type
/// comes). Kept per interpreter: a type's address may be reused by another
/// interpreter's type once the first is freed.
#[derive(Default)]
pub struct Checked {
    known: Cell<*mut PyTypeObject>,
    refused: Cell<*mut PyTypeObject>,
}

/// Makes `Decimal(text)` for a `text` that [`orcodec_core::parse::plain_decimal`]
/// reads, when `decimal_type` (which must be `decimal.Decimal`) has the layout
/// this module knows. None when it does not apply (the caller then calls the
/// type); Some(NULL) with an exception set when allocation failed.
///
/// # Safety
/// The GIL is held and `decimal_type` is a live type object.
#[inline]
pub unsafe fn from_plain_text(checked: &Checked, decimal_type: *mut PyObject, text: &[u8]) -> Option<*mut PyObject> {
    #[cfg(all(Py_3_11, not(Py_3_14), not(Py_LIMITED_API), not(PyPy), target_pointer_width = "64"))]
    {
        let number = orcodec_core::parse::plain_decimal(text)?;
        let ty = decimal_type as *mut PyTypeObject;
        if !layout::known(checked, ty) {
            return None;
        }
        // SAFETY: the layout of `ty`'s instances was checked just above.
        return Some(unsafe { layout::make(ty, number) });
    }
    #[allow(unreachable_code)]
    {
        let _ = (checked, decimal_type, text);
        None
    }
}

/// Whether `decimal_type`'s layout was checked (by an earlier
/// [`from_plain_text`], which checks it by making Decimals through the
/// type) and found known: [`from_plain_text`] then makes the object
/// without calling anything.
#[inline(always)]
pub fn checked(checked: &Checked, decimal_type: *mut PyObject) -> bool {
    #[cfg(all(Py_3_11, not(Py_3_14), not(Py_LIMITED_API), not(PyPy), target_pointer_width = "64"))]
    {
        checked.known.get() == decimal_type as *mut PyTypeObject
    }
    #[cfg(not(all(Py_3_11, not(Py_3_14), not(Py_LIMITED_API), not(PyPy), target_pointer_width = "64")))]
    {
        let _ = (checked, decimal_type);
        false
    }
}

#[cfg(all(Py_3_11, not(Py_3_14), not(Py_LIMITED_API), not(PyPy), target_pointer_width = "64"))]
mod layout {
    use core::ptr::addr_of_mut;
    use orcodec_core::number::int::digit_count;
    use orcodec_core::parse::PlainDecimal;
    use pyo3_ffi::*;

    use super::Checked;

    /// libmpdec's `mpd_t` (64-bit configuration).
    #[repr(C)]
    struct Mpd {
        flags: u8,
        exp: isize,
        /// Decimal digits of the coefficient (1 for zero).
        digits: isize,
        /// Words of the coefficient in use.
        len: isize,
        /// Words available at `data`.
        alloc: isize,
        /// Base-10**19 words, least significant first.
        data: *mut u64,
    }

    /// `_decimal`'s `PyDecObject`: the number and room for four words of
    /// coefficient inside the object.
    #[repr(C)]
    struct DecimalObject {
        ob_base: PyObject,
        /// -1 until `hash()` computes it.
        hash: Py_hash_t,
        dec: Mpd,
        data: [u64; INLINE_WORDS],
    }

    const INLINE_WORDS: usize = 4;
    const NEGATIVE: u8 = 1;
    /// The `mpd_t` and its words live inside the object (nothing to free).
    const STATIC: u8 = 16;
    const STATIC_DATA: u8 = 32;

    #[inline(always)]
    pub unsafe fn known(checked: &Checked, ty: *mut PyTypeObject) -> bool {
        if checked.known.get() == ty {
            return true;
        }
        if checked.refused.get() == ty {
            return false;
        }
        check(checked, ty)
    }

    /// A new Decimal of `number`, allocated as the type allocates (tracked
    /// by the collector where the type is), its fields as `Decimal()` sets
    /// them for the same number.
    ///
    /// # Safety
    /// `ty` passed [`known`].
    pub unsafe fn make(ty: *mut PyTypeObject, number: PlainDecimal) -> *mut PyObject {
        // SAFETY: `check` saw `tp_alloc` set.
        let obj = unsafe { ((*ty).tp_alloc.unwrap_unchecked())(ty, 0) };
        if obj.is_null() {
            return obj;
        }
        let d = obj as *mut DecimalObject;
        // SAFETY: `obj` is a new instance of `ty`, `tp_basicsize` bytes
        // (checked to be the size of `DecimalObject`), laid out as
        // `DecimalObject` (checked against the type's own instances).
        unsafe {
            (*d).hash = -1;
            (*d).data[0] = number.coefficient;
            (*d).dec = Mpd {
                flags: STATIC | STATIC_DATA | if number.negative { NEGATIVE } else { 0 },
                exp: number.exponent as isize,
                digits: digit_count(number.coefficient) as isize,
                len: 1,
                alloc: INLINE_WORDS as isize,
                data: addr_of_mut!((*d).data).cast(),
            };
        }
        obj
    }

    /// Texts the type reads, and what `make` is given for each: a negative
    /// fraction, an exponent, a negative zero with a scale, the largest
    /// coefficient of one word.
    const SAMPLES: [(&core::ffi::CStr, PlainDecimal); 4] = [
        (c"-12.5", PlainDecimal { negative: true, coefficient: 125, exponent: -1 }),
        (c"1E+3", PlainDecimal { negative: false, coefficient: 1, exponent: 3 }),
        (c"-0.000", PlainDecimal { negative: true, coefficient: 0, exponent: -3 }),
        (c"9999999999999999999", PlainDecimal { negative: false, coefficient: 9_999_999_999_999_999_999, exponent: 0 }),
    ];

    /// Whether `ty`'s instances are laid out as declared here: its sizes,
    /// then, for each sample, a Decimal made by the type and one made by
    /// `make` agree field by field, in their collector tracking and by `==`.
    #[cold]
    #[inline(never)]
    unsafe fn check(checked: &Checked, ty: *mut PyTypeObject) -> bool {
        let holds = (*ty).tp_basicsize == core::mem::size_of::<DecimalObject>() as Py_ssize_t
            && (*ty).tp_itemsize == 0
            && (*ty).tp_alloc.is_some()
            && SAMPLES.iter().all(|&(text, number)| agree(ty, text, number));
        if !PyErr_Occurred().is_null() {
            PyErr_Clear();
        }
        if holds {
            checked.known.set(ty);
        } else {
            checked.refused.set(ty);
        }
        holds
    }

    unsafe fn agree(ty: *mut PyTypeObject, text: &core::ffi::CStr, number: PlainDecimal) -> bool {
        let arg = PyUnicode_FromString(text.as_ptr());
        if arg.is_null() {
            return false;
        }
        let theirs = PyObject_CallOneArg(ty as *mut PyObject, arg);
        Py_DECREF(arg);
        if theirs.is_null() {
            return false;
        }
        let ours = make(ty, number);
        if ours.is_null() {
            Py_DECREF(theirs);
            return false;
        }
        let fields = |obj: *mut PyObject| {
            let d = obj as *mut DecimalObject;
            let m = &(*d).dec;
            let own_words = m.data == addr_of_mut!((*d).data).cast::<u64>();
            let first = if own_words && m.len == 1 { (*d).data[0] } else { u64::MAX };
            ((*d).hash, m.flags, m.exp, m.digits, m.len, m.alloc, own_words, first)
        };
        let same = Py_TYPE(theirs) == ty
            && fields(theirs) == fields(ours)
            && fields(ours).6
            && PyObject_GC_IsTracked(theirs) == PyObject_GC_IsTracked(ours)
            && PyObject_RichCompareBool(theirs, ours, Py_EQ) == 1;
        Py_DECREF(ours);
        Py_DECREF(theirs);
        same
    }
}

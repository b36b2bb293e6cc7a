//! Reading a `str`'s storage in place (PEP 393), never asking CPython for a
//! UTF-8 copy: `PyUnicode_AsUTF8*` would cache one on every string serialized.

use orcodec_core::text::Text;
use pyo3_ffi::*;

/// The characters of `obj`, a `str` (or subclass) kept alive by the caller,
/// if it is compact ASCII: nearly every key and most values. They are valid
/// UTF-8 as they are. One load and one compare of the state bits instead of
/// four accessor calls: in `PyASCIIObject.state` (a C bitfield, laid out
/// from the low bit on little-endian targets; the same on 3.11 to 3.13) bit 5
/// is `compact` and bit 6 `ascii`; a compact str is always ready, and its
/// characters follow the struct. Elsewhere this says None and callers take
/// [`text_of`].
#[inline(always)]
pub unsafe fn compact_ascii<'a>(obj: *mut PyObject) -> Option<&'a [u8]> {
    #[cfg(all(target_endian = "little", not(any(Py_3_14, PyPy, GraalPy, Py_LIMITED_API))))]
    {
        const COMPACT_ASCII: u32 = 0b0110_0000;
        let ascii = obj as *const PyASCIIObject;
        if (*ascii).state & COMPACT_ASCII == COMPACT_ASCII {
            let data = ascii.add(1) as *const u8;
            return Some(core::slice::from_raw_parts(data, (*ascii).length as usize));
        }
    }
    let _ = obj;
    None
}

/// The UTF-8 form CPython cached for `obj`, a compact non-ASCII `str` kept
/// alive by the caller, if someone asked for it (orjson does, for every str
/// it writes): copying it beats transcoding the characters again.
#[inline(always)]
pub unsafe fn cached_utf8<'a>(obj: *mut PyObject) -> Option<&'a [u8]> {
    #[cfg(all(target_endian = "little", not(any(Py_3_14, PyPy, GraalPy, Py_LIMITED_API))))]
    {
        // Bit 5 of `state` is `compact`, bit 6 `ascii` (see `compact_ascii`);
        // only a compact non-ASCII str is a PyCompactUnicodeObject.
        const COMPACT_ASCII: u32 = 0b0110_0000;
        const COMPACT: u32 = 0b0010_0000;
        let compact = obj as *const PyCompactUnicodeObject;
        if (*compact)._base.state & COMPACT_ASCII == COMPACT && !(*compact).utf8.is_null() {
            return Some(core::slice::from_raw_parts((*compact).utf8 as *const u8, (*compact).utf8_length as usize));
        }
    }
    let _ = obj;
    None
}

/// The storage of `obj`, which must be a `str` (or subclass) kept alive by the
/// caller for as long as the returned view is used.
///
/// Returns None only on Python < 3.12 when a legacy string cannot be made
/// ready (an exception is then set).
#[inline(always)]
pub unsafe fn text_of<'a>(obj: *mut PyObject) -> Option<Text<'a>> {
    if let Some(ascii) = compact_ascii(obj) {
        return Some(Text::Utf8(ascii));
    }
    #[cfg(not(Py_3_12))]
    if PyUnicode_READY(obj) != 0 {
        return None;
    }
    let len = PyUnicode_GET_LENGTH(obj) as usize;
    let data = PyUnicode_DATA(obj);
    if PyUnicode_IS_ASCII(obj) != 0 {
        return Some(Text::Utf8(core::slice::from_raw_parts(data as *const u8, len)));
    }
    if PyUnicode_IS_COMPACT(obj) != 0 {
        // Someone already asked for UTF-8: reuse it instead of transcoding.
        let compact = obj as *mut PyCompactUnicodeObject;
        if !(*compact).utf8.is_null() {
            let utf8 = (*compact).utf8 as *const u8;
            return Some(Text::Utf8(core::slice::from_raw_parts(utf8, (*compact).utf8_length as usize)));
        }
    }
    let kind = PyUnicode_KIND(obj);
    Some(if kind == PyUnicode_1BYTE_KIND {
        Text::Ucs1(core::slice::from_raw_parts(data as *const u8, len))
    } else if kind == PyUnicode_2BYTE_KIND {
        Text::Ucs2(core::slice::from_raw_parts(data as *const u16, len))
    } else {
        Text::Ucs4(core::slice::from_raw_parts(data as *const u32, len))
    })
}

//! Building a decoded map's dict in one step.
//!
//! The decoders hand over a map's keys and values at once. When every key is
//! an exact `str` (its hash already set by the key cache), the dict's keys
//! table is written directly where CPython's layout is known
//! ([`crate::cpython::dict_table`]). A map with a key of another type or a
//! repeated key, and every other version, goes through `PyDict_SetItem`.

use pyo3_ffi::*;

use crate::cpython::object::Owned;

/// A dict of the (key, value) pairs `items[start..]`, which it takes; a
/// repeated key keeps its first key object and its last value, as inserting
/// them one by one does. NULL with an exception set on failure.
///
/// # Safety
/// `items[start..]` holds an even number of values.
#[inline(always)]
pub unsafe fn dict_from_pairs(items: &mut Vec<Owned>, start: usize) -> *mut PyObject {
    #[cfg(dict_table_layout)]
    {
        let pairs = &items[start..];
        if !pairs.is_empty() && pairs.chunks_exact(2).all(|pair| PyUnicode_CheckExact(pair[0].as_ptr()) != 0) {
            if let Some(dict) = crate::cpython::dict_table::str_keyed_dict(pairs) {
                if !dict.is_null() {
                    // The dict holds every reference now.
                    for item in items.drain(start..) {
                        item.into_raw();
                    }
                }
                return dict;
            }
        }
    }
    dict_by_set_item(items, start)
}

/// `dict_from_pairs` through `PyDict_SetItem`, for any hashable keys.
#[inline(never)]
unsafe fn dict_by_set_item(items: &mut Vec<Owned>, start: usize) -> *mut PyObject {
    let n = (items.len() - start) / 2;
    let dict = crate::cpython::ffi::_PyDict_NewPresized(n as Py_ssize_t);
    if dict.is_null() {
        return dict;
    }
    let mut pairs = items.drain(start..);
    // `PyDict_SetItem` takes its own references; ours drop with the drain.
    while let (Some(key), Some(value)) = (pairs.next(), pairs.next()) {
        if PyDict_SetItem(dict, key.as_ptr(), value.as_ptr()) != 0 {
            Py_DECREF(dict);
            return core::ptr::null_mut();
        }
    }
    dict
}

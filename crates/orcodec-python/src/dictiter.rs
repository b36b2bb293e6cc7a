//! Dict iteration without a call per entry.
//!
//! `next` behaves exactly like `PyDict_Next` (same `pos` meaning, same
//! results, safe to call again after Python code changed the dict). On
//! CPython 3.11 to 3.13 (the `dict_table_layout` cfg; tested on each), a
//! dict with a combined table (every dict but an instance `__dict__` sharing
//! its keys) is read in place, inlined into the walker; everything else, and
//! every other version, calls `PyDict_Next`.

use pyo3_ffi::*;

/// `struct _dictkeysobject` of CPython 3.11 to 3.13 without free threading
/// (Include/internal/pycore_dict.h).
#[cfg(dict_table_layout)]
#[repr(C)]
pub(crate) struct DictKeys {
    pub dk_refcnt: Py_ssize_t,
    pub dk_log2_size: u8,
    pub dk_log2_index_bytes: u8,
    pub dk_kind: u8,
    pub dk_version: u32,
    pub dk_usable: Py_ssize_t,
    pub dk_nentries: Py_ssize_t,
    pub dk_indices: [u8; 0],
}

/// `DICT_KEYS_GENERAL`: entries carry their hash (any key type); the other
/// kinds (all keys str) store only key and value.
#[cfg(dict_table_layout)]
const DICT_KEYS_GENERAL: u8 = 0;

/// Like `PyDict_Next`: the entry at or after `*pos` as borrowed (key, value)
/// into `key`/`value`, advancing `*pos`; false when there is none.
///
/// # Safety
/// `dict` must be a live dict (or subclass) and the GIL held.
#[inline(always)]
pub unsafe fn next(
    dict: *mut PyObject,
    pos: &mut Py_ssize_t,
    key: &mut *mut PyObject,
    value: &mut *mut PyObject,
) -> bool {
    #[cfg(dict_table_layout)]
    {
        let mp = dict as *mut PyDictObject;
        if (*mp).ma_values.is_null() {
            // SAFETY: a combined table: `ma_keys` is the dict's own keys
            // object, whose entries array follows the index table of
            // 2**dk_log2_index_bytes bytes and holds dk_nentries used slots
            // (deleted ones have a NULL value), exactly as CPython's
            // DK_ENTRIES and _PyDict_Next read it. Everything is re-read on
            // each call, so a dict resized by Python code in between is read
            // from its new table, as PyDict_Next would.
            let keys = (*mp).ma_keys as *const DictKeys;
            let n = (*keys).dk_nentries;
            let mut i = *pos;
            if i < 0 {
                return false;
            }
            let entries = (core::ptr::addr_of!((*keys).dk_indices) as *const u8)
                .add(1usize << (*keys).dk_log2_index_bytes) as *const *mut PyObject;
            // Entries are [key, value] (str-keyed kinds) or [hash, key, value].
            let (width, key_at) = if (*keys).dk_kind == DICT_KEYS_GENERAL { (3, 1) } else { (2, 0) };
            while i < n {
                let entry = entries.add(i as usize * width);
                let v = *entry.add(key_at + 1);
                i += 1;
                if !v.is_null() {
                    *pos = i;
                    *key = *entry.add(key_at);
                    *value = v;
                    return true;
                }
            }
            *pos = i;
            return false;
        }
    }
    PyDict_Next(dict, pos, key, value) != 0
}

//! Dicts read in place: their length, iteration without a call per entry,
//! and the keys table layout that `dict_table.rs` writes.
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

#[cfg(dict_table_layout)]
impl DictKeys {
    /// The entries array of table `keys` (`DK_ENTRIES`): it follows the index
    /// table of 2**dk_log2_index_bytes bytes.
    ///
    /// # Safety
    /// `keys` is a live keys object.
    #[inline(always)]
    pub unsafe fn entries(keys: *const DictKeys) -> *const *mut PyObject {
        (core::ptr::addr_of!((*keys).dk_indices) as *const u8).add(1usize << (*keys).dk_log2_index_bytes)
            as *const *mut PyObject
    }
}

/// `DICT_KEYS_GENERAL`: entries carry their hash (any key type); the other
/// kinds (all keys str) store only key and value.
#[cfg(dict_table_layout)]
const DICT_KEYS_GENERAL: u8 = 0;

/// Length of a dict without a call (`ma_used`).
#[inline(always)]
pub unsafe fn dict_len(obj: *mut PyObject) -> usize {
    (*(obj as *mut PyDictObject)).ma_used as usize
}

/// Like `PyDict_Next`: the entry at or after `*pos` as borrowed (key, value)
/// into `key`/`value`, advancing `*pos`; false when there is none.
///
/// # Safety
/// `dict` must be a live dict (or subclass).
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
            let entries = DictKeys::entries(keys);
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

/// As [`next`], also reading a split table (an instance `__dict__` sharing
/// its class's keys) in place on CPython 3.11, where [`next`] calls
/// `PyDict_Next`. Positions mean what they mean to `PyDict_Next` (for a
/// split table, the place in insertion order), and the table is read afresh
/// on every call, so the two may be mixed on one dict and a dict changed by
/// Python code between calls is read as `PyDict_Next` would read it.
///
/// # Safety
/// `dict` must be a live dict (or subclass).
#[inline(always)]
pub unsafe fn next_any(
    dict: *mut PyObject,
    pos: &mut Py_ssize_t,
    key: &mut *mut PyObject,
    value: &mut *mut PyObject,
) -> bool {
    #[cfg(all(dict_table_layout, not(Py_3_12)))]
    {
        // SAFETY: `dict` is live, and the split view is used only within
        // this call, during which no Python code runs.
        if let Some(split) = SplitDict::of(dict) {
            let i = *pos;
            // `PyDict_Next` ends at `ma_used`, which `of` checked `len()` against.
            if i < 0 || i as usize >= split.len() {
                return false;
            }
            if let Some((k, v)) = split.entry(i as usize) {
                *pos = i + 1;
                *key = k;
                *value = v;
                return true;
            }
        }
    }
    next(dict, pos, key, value)
}

/// `DICT_KEYS_SPLIT`: keys shared by the instances of a class, values in the dict's own array.
#[cfg(all(dict_table_layout, not(Py_3_12)))]
const DICT_KEYS_SPLIT: u8 = 2;

/// An instance `__dict__` with split keys (what an instance's inline
/// attributes become) on CPython 3.11, read in place in insertion order.
#[cfg(all(dict_table_layout, not(Py_3_12)))]
pub struct SplitDict {
    /// The dict's values array; `vals[ix]` pairs with the shared keys' entry `ix`.
    vals: *const *mut PyObject,
    /// The shared keys' entries, [key, value] each.
    entries: *const [*mut PyObject; 2],
    /// How many entries the shared keys hold.
    nentries: usize,
    /// How many values are in use.
    used: usize,
}

#[cfg(all(dict_table_layout, not(Py_3_12)))]
impl SplitDict {
    /// `dict` read as a split table; None for a combined one, or a count of
    /// values in use that is not `ma_used`.
    ///
    /// # Safety
    /// `dict` is a live dict, and no Python code runs while the result is used.
    #[inline(always)]
    pub unsafe fn of(dict: *mut PyObject) -> Option<SplitDict> {
        let mp = dict as *mut PyDictObject;
        let vals = (*mp).ma_values as *const *mut PyObject;
        if vals.is_null() {
            return None;
        }
        let keys = (*mp).ma_keys as *const DictKeys;
        if (*keys).dk_kind != DICT_KEYS_SPLIT {
            return None;
        }
        // SAFETY: a split table of 3.11: the values array is preceded by
        // bytes holding, at [-2], the number of values in use and, from [-3]
        // downwards, their indices in insertion order; index `ix` pairs the
        // value `vals[ix]` with the key of the shared keys' entry `ix`
        // (entries of [key, value] after 2**dk_log2_index_bytes index bytes).
        // The count is checked against ma_used here and each index against
        // dk_nentries before use (`entry`).
        let used = *(vals as *const u8).sub(2) as usize;
        if used as Py_ssize_t != (*mp).ma_used {
            return None;
        }
        let entries = DictKeys::entries(keys) as *const [*mut PyObject; 2];
        Some(SplitDict { vals, entries, nentries: (*keys).dk_nentries as usize, used })
    }

    /// The number of entries.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.used
    }

    /// Entry `k` (below `len()`) in insertion order, borrowed (key, value);
    /// None if the table holds anything unexpected there.
    ///
    /// # Safety
    /// The dict is still as it was when `of` read it.
    #[inline(always)]
    pub unsafe fn entry(&self, k: usize) -> Option<(*mut PyObject, *mut PyObject)> {
        let ix = *(self.vals as *const u8).sub(3 + k) as usize;
        if ix >= self.nentries {
            return None;
        }
        let value = *self.vals.add(ix);
        if value.is_null() {
            return None;
        }
        Some(((*self.entries.add(ix))[0], value))
    }
}

//! Writing a decoded map's dict table directly (CPython 3.11 to 3.13, the
//! `dict_table_layout` cfg; tested on each).
//!
//! The decoders hand over a map's keys and values at once, every key an exact
//! `str` whose hash is already set (the key cache hashes them). The dict's
//! keys table is written here: sized once as `_PyDict_NewPresized` sizes it,
//! of the str-only kind a dict literal has, each entry placed on the slot
//! CPython's own probe sequence gives, the references moved in rather than
//! counted up and down. `PyDict_SetItem` spends most of its time on checks a
//! fresh dict of hashed str keys does not need.

use pyo3_ffi::*;

use crate::cpython::dict::DictKeys;
use crate::cpython::object::Owned;

/// `DICT_KEYS_UNICODE`: every key an exact str, entries [key, value].
const DICT_KEYS_UNICODE: u8 = 1;
/// `PyDict_LOG_MINSIZE`: the smallest table has 8 slots.
const LOG_MIN_SIZE: u8 = 3;
/// `PERTURB_SHIFT` of the probe sequence.
const PERTURB_SHIFT: u32 = 5;
/// Index tables up to this size (128 one-byte slots) are built on the stack.
const SMALL_INDEX_BYTES: usize = 128;

/// `PyDictUnicodeEntry`.
#[repr(C)]
struct Entry {
    key: *mut PyObject,
    value: *mut PyObject,
}

/// `USABLE_FRACTION`: entries a table of `size` slots holds.
fn usable(size: usize) -> usize {
    (size << 1) / 3
}

/// log2 of the table size a dict literal of `n` items gets
/// (`dict_new_presized`): the smallest table when it holds them, else
/// `estimate_log2_keysize`, room for about 3n/2.
fn log2_size_for(n: usize) -> u8 {
    if n <= usable(1 << LOG_MIN_SIZE) {
        return LOG_MIN_SIZE;
    }
    let estimate = (n * 3 + 1) >> 1;
    let bits = usize::BITS - (estimate | (1 << LOG_MIN_SIZE)).saturating_sub(1).leading_zeros();
    (bits as u8).max(LOG_MIN_SIZE)
}

/// log2 of the index table's bytes: one byte per slot up to 128 slots,
/// then two, four, eight (as `new_keys_object` chooses).
fn log2_index_bytes(log2_size: u8) -> u8 {
    match log2_size {
        0..=7 => log2_size,
        8..=15 => log2_size + 1,
        16..=31 => log2_size + 2,
        _ => log2_size + 3,
    }
}

/// The str's hash, computing it if not yet cached (str hashing cannot fail).
#[inline(always)]
unsafe fn str_hash(key: *mut PyObject) -> Py_hash_t {
    let hash = (*(key as *mut PyASCIIObject)).hash;
    if hash != -1 {
        hash
    } else {
        PyObject_Hash(key)
    }
}

/// `unicode_eq`: two strs of the same hash with the same characters.
#[inline(always)]
unsafe fn same_text(a: *mut PyObject, b: *mut PyObject) -> bool {
    let len = PyUnicode_GET_LENGTH(a);
    if len != PyUnicode_GET_LENGTH(b) || PyUnicode_KIND(a) != PyUnicode_KIND(b) {
        return false;
    }
    let bytes = len as usize * PyUnicode_KIND(a) as usize;
    core::slice::from_raw_parts(PyUnicode_DATA(a) as *const u8, bytes)
        == core::slice::from_raw_parts(PyUnicode_DATA(b) as *const u8, bytes)
}

/// A dict of `pairs` (keys exact strs) holding their references, which
/// the caller then gives up; on failure (NULL, MemoryError set) nothing
/// was taken. None when a key repeats: the caller inserts one by one,
/// the rare case left to CPython's rules (nothing taken either).
pub unsafe fn str_keyed_dict(pairs: &[Owned]) -> Option<*mut PyObject> {
    let n = pairs.len() / 2;
    let log2_size = log2_size_for(n);
    let log2_index = log2_index_bytes(log2_size);
    let size = 1usize << log2_size;
    let index_bytes = 1usize << log2_index;
    let capacity = usable(size);
    let table_bytes = core::mem::size_of::<DictKeys>() + index_bytes + capacity * core::mem::size_of::<Entry>();

    // The empty dict first: CPython gives it its version tag and it may
    // come from the dict free list.
    let dict = PyDict_New();
    if dict.is_null() {
        return Some(dict);
    }
    let keys = alloc_table(table_bytes) as *mut DictKeys;
    if keys.is_null() {
        Py_DECREF(dict);
        PyErr_NoMemory();
        return Some(core::ptr::null_mut());
    }
    // SAFETY: `keys` is a fresh block of `table_bytes`: the header, the
    // index table and `capacity` entries, laid out as `new_keys_object`
    // lays them out (and allocated as it does, so `free_keys_object`
    // releases it like any other table). Every
    // index starts empty (-1, all bits set); entries past the used ones
    // are zeroed at the end, as CPython leaves them.
    let table_indices = core::ptr::addr_of_mut!((*keys).dk_indices) as *mut u8;
    let entries = table_indices.add(index_bytes) as *mut Entry;
    // A small index table is built on the stack and copied over once:
    // probing reads it right after it was filled, and reads of the
    // fresh block just written (a cache miss, stores not yet retired)
    // would stall on every map.
    let mut small = [0xffu8; SMALL_INDEX_BYTES];
    let indices = if index_bytes <= SMALL_INDEX_BYTES {
        small.as_mut_ptr()
    } else {
        core::ptr::write_bytes(table_indices, 0xff, index_bytes);
        table_indices
    };

    let mask = size - 1;
    let mut used = 0usize;
    let mut has_tracked_value = false;
    for pair in pairs.chunks_exact(2) {
        let (key, value) = (pair[0].as_ptr(), pair[1].as_ptr());
        let hash = str_hash(key);
        // CPython's probe sequence (`find_empty_slot`, the lookups), so
        // every later lookup walks to the slot chosen here.
        let mut slot = hash as usize & mask;
        let mut perturb = hash as usize;
        loop {
            let ix = read_index(indices, log2_index - log2_size, slot);
            if ix < 0 {
                break;
            }
            let other = (*entries.add(ix as usize)).key;
            if other == key || (str_hash(other) == hash && same_text(other, key)) {
                // SAFETY: the entries hold pointers, no references yet;
                // the table and the still empty dict go as they came.
                free_table(keys as *mut core::ffi::c_void);
                Py_DECREF(dict);
                return None;
            }
            perturb >>= PERTURB_SHIFT;
            slot = (slot * 5 + perturb + 1) & mask;
        }
        write_index(indices, log2_index - log2_size, slot, used);
        *entries.add(used) = Entry { key, value };
        used += 1;
        // As `MAINTAIN_TRACKING` decides: a dict holding only atoms
        // (str, int, float, None...) stays out of the collector.
        has_tracked_value |= PyType_HasFeature(Py_TYPE(value), Py_TPFLAGS_HAVE_GC) != 0;
    }
    if index_bytes <= SMALL_INDEX_BYTES {
        core::ptr::copy_nonoverlapping(small.as_ptr(), table_indices, index_bytes);
    }
    core::ptr::write_bytes(entries.add(used), 0, capacity - used);
    (*keys).dk_refcnt = 1;
    (*keys).dk_log2_size = log2_size;
    (*keys).dk_log2_index_bytes = log2_index;
    (*keys).dk_kind = DICT_KEYS_UNICODE;
    (*keys).dk_version = 0;
    (*keys).dk_usable = (capacity - used) as Py_ssize_t;
    (*keys).dk_nentries = used as Py_ssize_t;

    // SAFETY: a new dict from `PyDict_New` holds the shared empty
    // table. 3.11 counts a reference to it for the dict (and never
    // frees it), which goes back; from 3.12 it is immortal, not counted.
    let mp = dict as *mut PyDictObject;
    #[cfg(not(Py_3_12))]
    {
        let empty = (*mp).ma_keys as *mut DictKeys;
        (*empty).dk_refcnt -= 1;
    }
    (*mp).ma_keys = keys as *mut PyDictKeysObject;
    (*mp).ma_used = used as Py_ssize_t;
    if has_tracked_value {
        PyObject_GC_Track(dict as *mut core::ffi::c_void);
    }
    Some(dict)
}

/// Memory for a keys table, from the allocator `new_keys_object` uses
/// (pymalloc's object domain through 3.12, its raw-memory domain in 3.13),
/// which `free_keys_object` will give it back to.
#[inline(always)]
unsafe fn alloc_table(bytes: usize) -> *mut core::ffi::c_void {
    #[cfg(not(Py_3_13))]
    return PyObject_Malloc(bytes);
    #[cfg(Py_3_13)]
    return PyMem_Malloc(bytes);
}

/// Releases a table from [`alloc_table`] that was never handed to a dict.
#[inline(always)]
unsafe fn free_table(table: *mut core::ffi::c_void) {
    #[cfg(not(Py_3_13))]
    PyObject_Free(table);
    #[cfg(Py_3_13)]
    PyMem_Free(table);
}

/// Index slot `slot` of a table whose indices are 2**width_log2 bytes.
#[inline(always)]
unsafe fn read_index(indices: *const u8, width_log2: u8, slot: usize) -> isize {
    match width_log2 {
        0 => *(indices as *const i8).add(slot) as isize,
        1 => *(indices as *const i16).add(slot) as isize,
        2 => *(indices as *const i32).add(slot) as isize,
        _ => *(indices as *const i64).add(slot) as isize,
    }
}

#[inline(always)]
unsafe fn write_index(indices: *mut u8, width_log2: u8, slot: usize, ix: usize) {
    match width_log2 {
        0 => *(indices as *mut i8).add(slot) = ix as i8,
        1 => *(indices as *mut i16).add(slot) = ix as i16,
        2 => *(indices as *mut i32).add(slot) = ix as i32,
        _ => *(indices as *mut i64).add(slot) = ix as i64,
    }
}

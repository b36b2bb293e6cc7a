//! The short-key cache: map keys repeat (every record of a list has the same
//! ones), so a decoded key text maps to one shared `str` object whose hash is
//! computed once. Dict inserts then skip hashing, and memory is shared.

use core::cell::UnsafeCell;
use pyo3_ffi::*;

use crate::objects::new_str;

/// Keys longer than this are not cached (rarely repeated, costly to compare).
const MAX_CACHED_LEN: usize = 64;
/// Direct-mapped: one slot per hash bucket, a collision replaces the slot.
const SLOTS: usize = 2048;

#[derive(Clone, Copy)]
struct Slot {
    len: u8,
    text: [u8; MAX_CACHED_LEN],
    /// A strong reference, or NULL for an empty slot.
    obj: *mut PyObject,
}

struct Cache(UnsafeCell<[Slot; SLOTS]>);

// SAFETY: only touched with the GIL held, and only inside `key`, which calls no
// Python code that could re-enter it while a slot is being read or replaced.
unsafe impl Sync for Cache {}

static CACHE: Cache = Cache(UnsafeCell::new(
    [Slot { len: 0, text: [0; MAX_CACHED_LEN], obj: core::ptr::null_mut() }; SLOTS],
));

/// FNV-style hash over 8-byte words: good enough spread for a direct-mapped table.
#[inline(always)]
fn bucket(text: &[u8]) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ text.len() as u64;
    let mut chunks = text.chunks_exact(8);
    for c in &mut chunks {
        let word = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ word).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29);
    }
    for &b in chunks.remainder() {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h ^ (h >> 32)) as usize % SLOTS
}

/// A new reference to the `str` for map key `text` (NULL with an exception set on failure).
#[inline(always)]
pub unsafe fn key(text: &str) -> *mut PyObject {
    let bytes = text.as_bytes();
    if bytes.len() > MAX_CACHED_LEN {
        return hashed(new_str(text));
    }
    let slot = &mut (*CACHE.0.get())[bucket(bytes)];
    if !slot.obj.is_null() && slot.len as usize == bytes.len() && &slot.text[..bytes.len()] == bytes {
        Py_INCREF(slot.obj);
        return slot.obj;
    }
    let obj = hashed(new_str(text));
    if obj.is_null() {
        return obj;
    }
    let old = core::mem::replace(&mut slot.obj, obj);
    slot.len = bytes.len() as u8;
    slot.text[..bytes.len()].copy_from_slice(bytes);
    Py_INCREF(obj);
    // Released last: freeing a str runs no Python code, but keep the slot consistent first.
    Py_XDECREF(old);
    obj
}

/// Computes and stores the str's hash so dict inserts reuse it.
#[inline(always)]
unsafe fn hashed(obj: *mut PyObject) -> *mut PyObject {
    if !obj.is_null() {
        PyObject_Hash(obj);
    }
    obj
}

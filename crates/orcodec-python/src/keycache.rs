//! The short-key cache: map keys repeat (every record of a list has the same
//! ones), so a decoded key text maps to one shared `str` object whose hash is
//! computed once. Dict inserts then skip hashing, and memory is shared.

use core::cell::UnsafeCell;
use pyo3_ffi::*;

use crate::objects::new_str;

/// Keys longer than this are not cached (rarely repeated, costly to compare).
const MAX_CACHED_LEN: usize = 64;
/// Direct-mapped: one slot per hash bucket, a collision replaces the slot.
const SLOTS: usize = 4096;

/// Each slot is a strong reference to an ASCII `str`, or NULL. The key text
/// is compared with the str's own characters (for an ASCII str those are its
/// UTF-8 bytes), so the table is only pointers: 32 KiB that stay in L1/L2,
/// where slots that carried a copy of the text missed the cache on most keys.
struct Cache(UnsafeCell<[*mut PyObject; SLOTS]>);

// SAFETY: only touched with the GIL held, and only inside `key`, which calls no
// Python code that could re-enter it while a slot is being read or replaced.
unsafe impl Sync for Cache {}

static CACHE: Cache = Cache(UnsafeCell::new([core::ptr::null_mut(); SLOTS]));

/// Little-endian 8-byte word at `at`; the caller keeps `at + 8 <= bytes.len()`.
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The bytes of a text shorter than 8 as one word that tells apart any two
/// texts of the same length (4-7 bytes: two overlapping 4-byte reads; 1-3:
/// first, middle and last byte).
#[inline(always)]
fn short_word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    if n >= 4 {
        let lo = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as u64;
        let hi = u32::from_le_bytes([bytes[n - 4], bytes[n - 3], bytes[n - 2], bytes[n - 1]]) as u64;
        lo | hi << 32
    } else if n > 0 {
        bytes[0] as u64 | (bytes[n / 2] as u64) << 8 | (bytes[n - 1] as u64) << 16
    } else {
        0
    }
}

/// Multiply-xor hash over 8-byte words (the last one overlapping), taking the
/// product's high bits: a few instructions for typical keys, good spread.
#[inline(always)]
fn bucket(text: &[u8]) -> usize {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let n = text.len();
    let mut h = (n as u64).wrapping_mul(K);
    if n < 8 {
        h = (h ^ short_word(text)).wrapping_mul(K);
    } else {
        let mut i = 0;
        while i + 8 < n {
            h = (h ^ word(text, i)).wrapping_mul(K).rotate_left(23);
            i += 8;
        }
        h = (h ^ word(text, n - 8)).wrapping_mul(K);
    }
    (h >> (64 - SLOTS.trailing_zeros())) as usize
}

/// `a == b` for two texts of the same length up to 64 bytes, inline and a
/// word at a time (the last word overlapping) instead of a memcmp call.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = b.len();
    debug_assert_eq!(a.len(), n);
    if n < 8 {
        return short_word(a) == short_word(b);
    }
    let mut i = 0;
    while i + 8 < n {
        if word(a, i) != word(b, i) {
            return false;
        }
        i += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

/// A new reference to the `str` for map key `text` (NULL with an exception set on failure).
#[inline(always)]
pub unsafe fn key(text: &str) -> *mut PyObject {
    let bytes = text.as_bytes();
    if bytes.len() > MAX_CACHED_LEN {
        return hashed(new_str(text));
    }
    let slot = &mut (*CACHE.0.get())[bucket(bytes)];
    let cached = *slot;
    // SAFETY: a non-NULL slot holds a live ASCII str we own a reference to;
    // its length is its byte length and its data that many bytes.
    if !cached.is_null() && PyUnicode_GET_LENGTH(cached) as usize == bytes.len() {
        let chars = core::slice::from_raw_parts(PyUnicode_DATA(cached) as *const u8, bytes.len());
        if same(chars, bytes) {
            Py_INCREF(cached);
            return cached;
        }
    }
    let obj = hashed(new_str(text));
    if obj.is_null() || PyUnicode_IS_ASCII(obj) == 0 {
        // Non-ASCII keys are not cached: their characters are not their UTF-8 bytes.
        return obj;
    }
    *slot = obj;
    Py_INCREF(obj);
    // Released last: freeing a str runs no Python code, but keep the slot consistent first.
    Py_XDECREF(cached);
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

//! The decoders' str caches. Map keys repeat (every record of a list has the
//! same ones), so a decoded key text maps to one shared `str` object whose
//! hash is computed once: dict inserts then skip hashing, and memory is
//! shared. Short ASCII values repeat too (codes, states, languages, names of
//! things) and get a table of their own: a repeated one costs a lookup
//! instead of an allocation, and the document holds it once.

use pyo3_ffi::*;

use crate::decode::strs::{new_ascii_str, new_str};
use crate::state::scratch::{slot, Slot};
use crate::state::State;

/// Keys longer than this are not cached (rarely repeated, costly to compare).
const MAX_CACHED_LEN: usize = 64;
/// Values longer than this are not cached: long text is rarely repeated.
pub const MAX_CACHED_VALUE_LEN: usize = 16;

/// A direct-mapped table: one slot per hash bucket, a collision replaces
/// the slot. Each slot is a strong reference to an ASCII `str`, or NULL. The
/// text is compared with the str's own characters (for an ASCII str those are
/// its UTF-8 bytes), so the table is only pointers and stays in L1/L2; slots
/// carrying a copy of the text would miss the cache on most keys.
struct Cache<const SLOTS: usize>([*mut PyObject; SLOTS]);

/// A value slot holds the text itself (up to 16 bytes fit in two words
/// exactly), so telling a hit from a miss never touches a str object: most
/// values are unique, and reading each cached str to compare would miss the
/// cache every time. A text is cached on its second sighting; the first only
/// records it, so a document of unique values never fills the table with
/// strs to release again.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct ValueSlot {
    len: usize,
    lo: u64,
    hi: u64,
    /// The str of this text once it was seen twice (owned), else NULL.
    obj: *mut PyObject,
}

struct ValueCache<const SLOTS: usize>([ValueSlot; SLOTS]);

/// An interpreter's tables: 32 KiB of key slots, and 32 KiB of value slots
/// apart from them so values do not evict keys. All zeros is a valid value
/// table: the empty text, not yet cached. Only touched inside the lookups,
/// which call no Python code that could come back to them while a slot is
/// read or replaced: so a decoder keeps a pointer to them (a nested decode,
/// from a hook, uses the same tables between two lookups of the outer one).
pub struct KeyTables {
    keys: Cache<4096>,
    values: ValueCache<1024>,
}

impl Default for KeyTables {
    fn default() -> Self {
        KeyTables {
            keys: Cache([core::ptr::null_mut(); 4096]),
            values: ValueCache([ValueSlot { len: 0, lo: 0, hi: 0, obj: core::ptr::null_mut() }; 1024]),
        }
    }
}

impl Drop for KeyTables {
    fn drop(&mut self) {
        // SAFETY: each non-NULL slot owns one reference.
        unsafe { self.keys.0.iter().chain(self.values.0.iter().map(|slot| &slot.obj)).for_each(|&obj| Py_XDECREF(obj)) }
    }
}

const TABLES: Slot<KeyTables> = Slot::at(slot::KEY_TABLES);

/// The key tables of the interpreter of `st`, for a decoder to keep.
#[inline(always)]
pub fn tables(st: &State) -> *mut KeyTables {
    // SAFETY: the reference ends here; the decoders use the pointer as
    // `KeyTables` says.
    unsafe { st.scratch.get(TABLES) }
}

/// Two words that hold a text of at most 16 bytes exactly, given its length:
/// 8-16 bytes as two overlapping 8-byte reads, 4-7 as two overlapping 4-byte
/// reads, 1-3 as first, middle and last byte.
#[inline(always)]
fn text_words(bytes: &[u8]) -> (u64, u64) {
    let n = bytes.len();
    debug_assert!(n <= 16);
    if n >= 8 {
        (word(bytes, 0), word(bytes, n - 8))
    } else {
        (short_word(bytes), 0)
    }
}

impl<const SLOTS: usize> ValueCache<SLOTS> {
    /// A new reference to the str of ASCII `bytes` (at most 16), shared
    /// with earlier values of the same text once it has been seen twice;
    /// and whether the text was seen before (so the cache is of use).
    #[inline(always)]
    unsafe fn lookup(&mut self, bytes: &[u8]) -> (*mut PyObject, bool) {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let len = bytes.len();
        let (lo, hi) = text_words(bytes);
        let h = ((((len as u64) ^ lo).wrapping_mul(K) ^ hi).wrapping_mul(K)) >> (64 - SLOTS.trailing_zeros());
        let slot = &mut self.0[h as usize];
        if slot.len == len && slot.lo == lo && slot.hi == hi {
            if !slot.obj.is_null() {
                // SAFETY: the slot owns a reference to a live str of this text.
                Py_INCREF(slot.obj);
                return (slot.obj, true);
            }
            let obj = new_ascii_str(bytes);
            if !obj.is_null() {
                Py_INCREF(obj);
                slot.obj = obj;
            }
            return (obj, true);
        }
        let evicted = slot.obj;
        *slot = ValueSlot { len, lo, hi, obj: core::ptr::null_mut() };
        // Released after the slot is consistent (freeing a str runs no Python code).
        Py_XDECREF(evicted);
        (new_ascii_str(bytes), false)
    }
}

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
/// product's high bits (as many as `SLOTS`, a power of two, needs): a few
/// instructions for typical keys, good spread.
#[inline(always)]
fn bucket<const SLOTS: usize>(text: &[u8]) -> usize {
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

impl<const SLOTS: usize> Cache<SLOTS> {
    /// A new reference to the cached str of `bytes` (at most 64, ASCII or
    /// not), or to a new one `make` builds, which is cached if it is ASCII.
    /// NULL with an exception set on failure.
    #[inline(always)]
    unsafe fn lookup(&mut self, bytes: &[u8], make: impl FnOnce() -> *mut PyObject) -> *mut PyObject {
        let slot = &mut self.0[bucket::<SLOTS>(bytes)];
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
        let obj = make();
        if obj.is_null() || PyUnicode_IS_ASCII(obj) == 0 {
            // Non-ASCII strs are not cached: their characters are not their UTF-8 bytes.
            return obj;
        }
        *slot = obj;
        Py_INCREF(obj);
        // Released last: freeing a str runs no Python code, but keep the slot consistent first.
        Py_XDECREF(cached);
        obj
    }
}

/// A new reference to the `str` for map key `text`, its hash computed
/// (NULL with an exception set on failure).
#[inline(always)]
pub unsafe fn key(tables: *mut KeyTables, text: &str) -> *mut PyObject {
    let bytes = text.as_bytes();
    // `new_str` makes a str or NULL, which is all `hashed` and the cache
    // take; it runs no Python code.
    if bytes.len() > MAX_CACHED_LEN {
        return hashed(new_str(text));
    }
    (*tables).keys.lookup(bytes, || hashed(new_str(text)))
}

/// A new reference to the `str` for a string value of ASCII `bytes`, at
/// most [`MAX_CACHED_VALUE_LEN`] of them (NULL with an exception set on
/// failure), and whether its text was in the cache. Its hash is left to
/// whoever needs it.
///
/// # Safety
/// `bytes` is ASCII; `tables` are an interpreter's ([`tables`]).
#[inline(always)]
pub unsafe fn short_ascii_value(tables: *mut KeyTables, bytes: &[u8]) -> (*mut PyObject, bool) {
    debug_assert!(bytes.len() <= MAX_CACHED_VALUE_LEN && bytes.is_ascii());
    (*tables).values.lookup(bytes)
}

/// Computes and stores the str's hash so dict inserts reuse it.
#[inline(always)]
unsafe fn hashed(obj: *mut PyObject) -> *mut PyObject {
    if !obj.is_null() {
        PyObject_Hash(obj);
    }
    obj
}

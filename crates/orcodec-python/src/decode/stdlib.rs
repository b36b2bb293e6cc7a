//! `_json_loads`: the fast path of `orcodec.json.loads` (the standard library
//! `json` module's API), the core's strict scanner with the shared builder.
//!
//! The standard library reads more than RFC 8259 (NaN, Infinity, lone
//! surrogate escapes, integers of any size, numbers beyond the doubles) and
//! words its errors its own way. This path reads what both read alike and
//! says "not mine" (returns `NotImplemented`, no exception set) for anything
//! else: a syntax error, an integer beyond 64 bits, a number out of the
//! doubles' range, a lone surrogate, nesting past the scanner's limit. The
//! caller then runs the standard library's decoder, which gives its value or
//! its exact error. Two differences from the orjson-flavoured `loads`
//! besides: every key text of a document is one `str` object (the stdlib's
//! memo), and the input is a `str` or UTF-8 `bytes` only.

use core::ptr::null_mut;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use orcodec_core::builder::Builder;
use orcodec_core::error::Failure;
use orcodec_core::json::scanner::{parse_with, ScanStacks};
use pyo3_ffi::*;

use crate::cpython::object::Owned;
use crate::decode::builder::PyBuilder;
use crate::decode::strs::new_str;
use crate::decode::GcPause;
use crate::state::State;

/// FNV-1a over the key's bytes: short keys, no attacker-chosen collisions
/// that matter (a collision costs a compare, never a wrong key), and much
/// cheaper than SipHash per key.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// The shared builder, plus the stdlib's key memo and its refusal of
/// integers beyond 64 bits.
struct StdlibBuilder {
    inner: PyBuilder,
    memo: HashMap<Box<str>, Owned, BuildHasherDefault<KeyHasher>>,
    /// Set when the builder refused a value the standard library reads
    /// differently (no exception is set then).
    not_mine: bool,
}

impl Builder for StdlibBuilder {
    type Value = Owned;
    type Error = ();
    // 1e400 is an infinity for the stdlib: refused here, read there.
    const FINITE_NUMBERS: bool = true;

    #[inline(always)]
    fn null(&mut self) -> Result<Owned, ()> {
        self.inner.null()
    }
    #[inline(always)]
    fn bool(&mut self, value: bool) -> Result<Owned, ()> {
        self.inner.bool(value)
    }
    #[inline(always)]
    fn i64(&mut self, value: i64) -> Result<Owned, ()> {
        self.inner.i64(value)
    }
    #[inline(always)]
    fn u64(&mut self, value: u64) -> Result<Owned, ()> {
        self.inner.u64(value)
    }
    #[inline(always)]
    fn f64(&mut self, value: f64) -> Result<Owned, ()> {
        self.inner.f64(value)
    }
    fn big_int(&mut self, _value: f64) -> Result<Owned, ()> {
        // The stdlib makes an int of any size (and applies the interpreter's
        // limit on int digits): its decoder reads this document.
        self.not_mine = true;
        Err(())
    }
    #[inline(always)]
    fn str(&mut self, value: &str) -> Result<Owned, ()> {
        self.inner.str(value)
    }
    #[inline(always)]
    fn ascii_str(&mut self, value: &str) -> Result<Owned, ()> {
        self.inner.ascii_str(value)
    }
    #[inline(always)]
    fn non_ascii_str(&mut self, value: &str) -> Result<Owned, ()> {
        self.inner.non_ascii_str(value)
    }
    #[inline(always)]
    fn checked_non_ascii_str(&mut self, bytes: &[u8]) -> Result<Option<Owned>, ()> {
        self.inner.checked_non_ascii_str(bytes)
    }
    #[inline(always)]
    fn try_ascii_str(&mut self, bytes: &[u8]) -> Result<Option<Owned>, ()> {
        self.inner.try_ascii_str(bytes)
    }
    fn key(&mut self, value: &str) -> Result<Owned, ()> {
        if let Some(known) = self.memo.get(value) {
            let ptr = known.as_ptr();
            // SAFETY: a live str the memo holds; the new reference is the caller's.
            unsafe {
                Py_INCREF(ptr);
                return Owned::new(ptr);
            }
        }
        // SAFETY: a new reference or NULL.
        let key = unsafe { Owned::new(new_str(value))? };
        // SAFETY: `key` is a live str; the memo keeps one more reference.
        let kept = unsafe {
            Py_INCREF(key.as_ptr());
            Owned::new(key.as_ptr())?
        };
        // Growing the memo fails as a MemoryError, not an abort.
        let Ok(text) = orcodec_core::fallible::copy_str(value) else {
            return no_memory();
        };
        if self.memo.try_reserve(1).is_err() {
            return no_memory();
        }
        self.memo.insert(text, kept);
        Ok(key)
    }
    fn bytes(&mut self, value: &[u8]) -> Result<Owned, ()> {
        self.inner.bytes(value)
    }
    fn timestamp(&mut self, seconds: i64, nanoseconds: u32) -> Result<Owned, ()> {
        self.inner.timestamp(seconds, nanoseconds)
    }
    #[inline(always)]
    fn array(&mut self, items: &mut Vec<Owned>, start: usize) -> Result<Owned, ()> {
        self.inner.array(items, start)
    }
    #[inline(always)]
    fn map(&mut self, items: &mut Vec<Owned>, start: usize) -> Result<Owned, ()> {
        self.inner.map(items, start)
    }
}

/// `_json_loads(s, /)`: the value of JSON text `s` (a str, or bytes the
/// caller found to be UTF-8), or `NotImplemented` when the standard library's
/// decoder must read it.
pub unsafe extern "C" fn json_loads(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    if nargs != 1 || !(kwnames.is_null() || PyTuple_GET_SIZE(kwnames) == 0) {
        PyErr_SetString(PyExc_TypeError, c"_json_loads takes exactly 1 positional argument".as_ptr());
        return null_mut();
    }
    let obj = *args;
    let mut len: Py_ssize_t = 0;
    let data = if PyBytes_Check(obj) != 0 {
        // UTF-8 bytes (the caller checked the encoding): read as they are;
        // what is not valid UTF-8 is declined like any syntax error.
        len = PyBytes_Size(obj);
        PyBytes_AsString(obj) as *const u8
    } else if PyUnicode_Check(obj) != 0 {
        PyUnicode_AsUTF8AndSize(obj, &mut len) as *const u8
    } else {
        return not_mine();
    };
    if data.is_null() {
        // Lone surrogates: no UTF-8 form; the stdlib reads such text.
        if PyErr_ExceptionMatches(PyExc_UnicodeEncodeError) != 0 {
            PyErr_Clear();
            return not_mine();
        }
        return null_mut();
    }
    // SAFETY: the bytes of `obj` or CPython's UTF-8 form of it, which the
    // caller keeps alive.
    let bytes = core::slice::from_raw_parts(data, len as usize);
    let mut builder = StdlibBuilder {
        inner: PyBuilder::new(State::of_module(module), null_mut()).collecting_young(),
        memo: HashMap::default(),
        not_mine: false,
    };
    let mut stacks = ScanStacks::new();
    let pause = GcPause::new(bytes.len());
    let result = parse_with(bytes, &mut builder, &mut stacks);
    drop(pause);
    match result {
        Ok(value) => value.into_raw(),
        Err(Failure::Syntax(_)) => not_mine(),
        Err(Failure::Build(())) if builder.not_mine && PyErr_Occurred().is_null() => not_mine(),
        Err(Failure::Build(())) => null_mut(),
    }
}

#[cold]
fn no_memory() -> Result<Owned, ()> {
    // SAFETY: raising with the GIL held (every entry point holds it).
    unsafe { PyErr_NoMemory() };
    Err(())
}

unsafe fn not_mine() -> *mut PyObject {
    let ni = Py_NotImplemented();
    Py_INCREF(ni);
    ni
}

//! Building Python objects for both decoders: one `Builder` implementation,
//! so the JSON scanner and the MessagePack reader produce identical objects.

use orcodec_core::builder::Builder;
use pyo3_ffi::*;

use crate::cpython::object::Owned;
use crate::decode::key_cache::{self, KeyTables};
use crate::decode::numpy::NumpyRead;
use crate::decode::strs::{new_ascii_str, new_checked_non_ascii_str, new_non_ascii_str};
use crate::decode::{collect_young, YOUNG_COLLECTION_EVERY};
use crate::state::State;

/// Builds Python objects; errors mean a Python exception is set.
pub struct PyBuilder {
    /// The state of the module whose function was called.
    pub st: &'static State,
    /// The interpreter's key and value caches.
    tables: *mut KeyTables,
    /// `unpackb`'s `ext_hook`, called as `ext_hook(tag, data)`; NULL for none.
    ext_hook: *mut PyObject,
    /// How numpy values are read (`OPT_NUMPY_EXT`, `OPT_MSGPACK_NUMPY`);
    /// NULL when they are not. Outlives the decode.
    numpy: *mut NumpyRead,
    /// Short values looked up in the value cache in this decode, and how
    /// many of their texts were found there.
    value_lookups: u32,
    value_hits: u32,
    /// Containers to build before the next young collection (see
    /// [`PyBuilder::collecting_young`]); u32::MAX when this decode runs none
    /// (no decode that fits in memory builds that many).
    young_countdown: u32,
}

/// Every this many value lookups, a decode whose value texts were found in
/// the cache less than one time in `VALUE_HIT_RATIO_MIN` stops looking them
/// up: a document of unique values should not pay for a cache it never uses.
const VALUE_LOOKUP_ROUND: u32 = 256;
const VALUE_HIT_RATIO_MIN: u32 = 8;

impl PyBuilder {
    pub fn new(st: &'static State, ext_hook: *mut PyObject) -> Self {
        Self::with_numpy(st, ext_hook, core::ptr::null_mut())
    }

    /// A builder that reads numpy values as `numpy` says (NULL: it does not).
    pub fn with_numpy(st: &'static State, ext_hook: *mut PyObject, numpy: *mut NumpyRead) -> Self {
        let tables = key_cache::tables(st);
        PyBuilder { st, tables, ext_hook, numpy, value_lookups: 0, value_hits: 0, young_countdown: u32::MAX }
    }

    /// This builder, running a young collection after every
    /// [`YOUNG_COLLECTION_EVERY`] containers while a `GcPause` holds the
    /// collector (`decode::collect_young`). For the untyped decoders only,
    /// where every object made before a container is whole; typed decoding,
    /// whose instances may be half-written while an `Any` field is read
    /// through this builder, leaves the collections to after the call.
    pub fn collecting_young(mut self) -> Self {
        self.young_countdown = YOUNG_COLLECTION_EVERY;
        self
    }

    /// Counts a container about to be built, and runs the young collection
    /// when one is due: before the container is made, so every object made
    /// so far is whole.
    #[inline(always)]
    pub(crate) fn count_container(&mut self) {
        self.young_countdown -= 1;
        if self.young_countdown == 0 {
            self.young_countdown = YOUNG_COLLECTION_EVERY;
            // SAFETY: between values; the GIL is held.
            unsafe { collect_young(self.st) };
        }
    }

    /// A str for a value of ASCII `bytes`: through the value cache while
    /// it earns its keep in this decode, else newly made.
    #[inline(always)]
    unsafe fn ascii_value(&mut self, bytes: &[u8]) -> *mut PyObject {
        if bytes.len() > key_cache::MAX_CACHED_VALUE_LEN || self.value_lookups == u32::MAX {
            return new_ascii_str(bytes);
        }
        let (obj, hit) = key_cache::short_ascii_value(self.tables, bytes);
        self.value_hits += hit as u32;
        self.value_lookups += 1;
        if self.value_lookups.is_multiple_of(VALUE_LOOKUP_ROUND)
            && (self.value_hits as u64) * (VALUE_HIT_RATIO_MIN as u64) < self.value_lookups as u64
        {
            self.value_lookups = u32::MAX;
        }
        obj
    }
}

impl Builder for PyBuilder {
    type Value = Owned;
    type Error = ();
    // `loads` refuses 1e400 as orjson does (a float it would write back as
    // null), rather than reading it as an infinity like the stdlib.
    const FINITE_NUMBERS: bool = true;

    #[inline(always)]
    fn null(&mut self) -> Result<Owned, ()> {
        // SAFETY: None is immortal or at least alive; we take a new reference.
        unsafe {
            let none = Py_None();
            Py_INCREF(none);
            Owned::new(none)
        }
    }
    #[inline(always)]
    fn bool(&mut self, value: bool) -> Result<Owned, ()> {
        // SAFETY: as for None.
        unsafe {
            let obj = if value { Py_True() } else { Py_False() };
            Py_INCREF(obj);
            Owned::new(obj)
        }
    }
    #[inline(always)]
    fn i64(&mut self, value: i64) -> Result<Owned, ()> {
        // SAFETY: a new reference or NULL, which `Owned::new` takes.
        unsafe { Owned::new(PyLong_FromLongLong(value)) }
    }
    #[inline(always)]
    fn u64(&mut self, value: u64) -> Result<Owned, ()> {
        // SAFETY: as for `i64`.
        unsafe { Owned::new(PyLong_FromUnsignedLongLong(value)) }
    }
    #[inline(always)]
    fn f64(&mut self, value: f64) -> Result<Owned, ()> {
        // SAFETY: as for `i64`.
        unsafe { Owned::new(crate::cpython::float::new_float(value)) }
    }
    #[inline(always)]
    fn str(&mut self, value: &str) -> Result<Owned, ()> {
        let bytes = value.as_bytes();
        // SAFETY: ASCII is checked first.
        unsafe {
            if orcodec_core::text::ascii::is_ascii(bytes) {
                return Owned::new(self.ascii_value(bytes));
            }
            Owned::new(new_non_ascii_str(bytes))
        }
    }
    #[inline(always)]
    fn ascii_str(&mut self, value: &str) -> Result<Owned, ()> {
        debug_assert!(value.is_ascii());
        // SAFETY: the decoder calls this only for text it checked is ASCII.
        unsafe { Owned::new(self.ascii_value(value.as_bytes())) }
    }
    #[inline(always)]
    fn non_ascii_str(&mut self, value: &str) -> Result<Owned, ()> {
        // SAFETY: `value` is valid UTF-8 (a &str).
        unsafe { Owned::new(new_non_ascii_str(value.as_bytes())) }
    }
    #[inline(always)]
    fn checked_non_ascii_str(&mut self, bytes: &[u8]) -> Result<Option<Owned>, ()> {
        // SAFETY: it validates `bytes` itself; nothing else is asked of the caller.
        unsafe { new_checked_non_ascii_str(bytes) }
    }
    #[inline(always)]
    fn try_ascii_str(&mut self, bytes: &[u8]) -> Result<Option<Owned>, ()> {
        // SAFETY: a fresh ASCII-kind str of `bytes.len()` characters has room
        // for them; if a byte is not ASCII the half-filled str is released
        // before anyone sees it (deallocation does not read the characters).
        unsafe {
            let obj = Owned::new(PyUnicode_New(bytes.len() as Py_ssize_t, 127))?;
            let data = PyUnicode_DATA(obj.as_ptr()) as *mut u8;
            if orcodec_core::text::ascii::copy_if_ascii(bytes, data) {
                Ok(Some(obj))
            } else {
                Ok(None)
            }
        }
    }
    #[inline(always)]
    fn key(&mut self, value: &str) -> Result<Owned, ()> {
        // SAFETY: `key` returns a new reference or NULL.
        unsafe { Owned::new(key_cache::key(self.tables, value)) }
    }
    #[inline(always)]
    fn bytes(&mut self, value: &[u8]) -> Result<Owned, ()> {
        // SAFETY: `value` is readable for its length; a new reference or NULL.
        unsafe { Owned::new(PyBytes_FromStringAndSize(value.as_ptr() as *const _, value.len() as Py_ssize_t)) }
    }

    fn ext(&mut self, tag: i8, data: &[u8]) -> Result<Option<Owned>, ()> {
        // SAFETY: `numpy` is NULL or outlives the decode; `data` is borrowed
        // from the input, which it reads.
        if let Some(numpy) = unsafe { self.numpy.as_mut() } {
            if numpy.is_numpy_ext(tag) {
                // SAFETY: as above.
                return unsafe { numpy.ext_value(data) }.map(Some);
            }
        }
        if self.ext_hook.is_null() {
            return Ok(None);
        }
        // SAFETY: the hook is a live callable: `unpackb` checked it and its
        // caller holds it for the whole decode.
        unsafe { call_ext_hook(self.st, self.ext_hook, tag, data).map(Some) }
    }

    fn timestamp(&mut self, seconds: i64, nanoseconds: u32) -> Result<Owned, ()> {
        // SAFETY: a new reference or NULL.
        unsafe { Owned::new(crate::decode::datetime::datetime_from_timestamp(self.st, seconds, nanoseconds)) }
    }

    fn tuple(&mut self, items: &mut Vec<Owned>, start: usize) -> Result<Owned, ()> {
        self.count_container();
        let n = items.len() - start;
        // SAFETY: as for `array`, with a tuple.
        unsafe {
            let tuple = Owned::new(PyTuple_New(n as Py_ssize_t))?;
            for (i, item) in items.drain(start..).enumerate() {
                PyTuple_SET_ITEM(tuple.as_ptr(), i as Py_ssize_t, item.into_raw());
            }
            Ok(tuple)
        }
    }

    fn array(&mut self, items: &mut Vec<Owned>, start: usize) -> Result<Owned, ()> {
        self.count_container();
        let n = items.len() - start;
        // SAFETY: a new list of `n` NULL slots, each filled exactly once below
        // with a reference it takes over.
        unsafe {
            let list = Owned::new(PyList_New(n as Py_ssize_t))?;
            for (i, item) in items.drain(start..).enumerate() {
                PyList_SET_ITEM(list.as_ptr(), i as Py_ssize_t, item.into_raw());
            }
            Ok(list)
        }
    }

    fn map(&mut self, items: &mut Vec<Owned>, start: usize) -> Result<Owned, ()> {
        self.count_container();
        // SAFETY: `numpy` is NULL or outlives the decode.
        if let Some(numpy) = unsafe { self.numpy.as_mut() } {
            if numpy.maps {
                // SAFETY: the items alternate key and value.
                if let Some(value) = unsafe { numpy.map_value(&items[start..]) }? {
                    items.truncate(start);
                    return Ok(value);
                }
            }
        }
        // SAFETY: the items alternate key and value (the decoders hand over
        // whole pairs).
        unsafe {
            let dict = crate::decode::dict::dict_from_pairs(items, start);
            if dict.is_null() {
                unhashable_key(self.st);
            }
            Owned::new(dict)
        }
    }
}

/// After `PyDict_SetItem` failed: a key that cannot be hashed (only
/// MessagePack with `OPT_NON_STR_KEYS` makes non-str keys, e.g. from
/// `ext_hook`) is the decode error, with the TypeError as its `__cause__`.
#[cold]
unsafe fn unhashable_key(st: &State) {
    if PyErr_ExceptionMatches(PyExc_TypeError) != 0 {
        crate::module::errors::raise_from_current(st.msgpack_decode_error, "map key is not hashable");
    }
}

/// `hook(tag, data)`; its exception becomes the `__cause__` of the decode error.
#[cold]
unsafe fn call_ext_hook(st: &State, hook: *mut PyObject, tag: i8, data: &[u8]) -> Result<Owned, ()> {
    let tag_obj = Owned::new(PyLong_FromLong(tag as _))?;
    let data_obj = Owned::new(PyBytes_FromStringAndSize(data.as_ptr() as *const _, data.len() as Py_ssize_t))?;
    let args = [tag_obj.as_ptr(), data_obj.as_ptr()];
    let result = crate::decode::unpaused(|| PyObject_Vectorcall(hook, args.as_ptr(), 2, core::ptr::null_mut()));
    if result.is_null() {
        // ormsgpack's message; the exception (a hook that cannot be called
        // too) is the cause, and a note names the extension type.
        crate::module::errors::raise_from_current(st.msgpack_decode_error, "ext_hook failed");
        crate::module::errors::add_note_to_current(&format!("ext_hook raised for extension type {tag}"));
        return Err(());
    }
    Owned::new(result)
}

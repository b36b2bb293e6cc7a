//! The object walker: one traversal of Python objects, generic over the
//! format backend (`Emitter`) and monomorphized for each, so a type taught to
//! it is serialized by both formats. The builtins are written here, in the
//! order types are tried; every other type has its file in `types/`, and
//! `keys.rs` writes dict keys that are not str.

use core::cmp::Ordering;
use core::ptr::addr_of_mut;
use orcodec_core::emit::Emitter;
use orcodec_core::fallible;
use orcodec_core::text::{SurrogateError, Text};
use pyo3_ffi::*;

use crate::cpython::bytes::bytes_data;
use crate::cpython::dict::dict_len;
use crate::cpython::str::{cached_utf8, compact_ascii, text_of};
use crate::encode::context::{ErrorContext, Segment};
use crate::encode::error::EncodeError;
use crate::module::options::{self, Opt};
use crate::state::State;

/// Deepest container nesting each format accepts: orjson's 254 for JSON,
/// ormsgpack's 255 for MessagePack. Also what stops a container that
/// contains itself.
pub const fn max_depth<E: Emitter>() -> u32 {
    if is_msgpack::<E>() {
        255
    } else {
        254
    }
}

/// Whether `E` writes MessagePack: where the peers differ, the walker follows
/// the one of the format it writes (ormsgpack for MessagePack, orjson for
/// JSON). Only MessagePack has a binary type, which tells the two apart.
#[inline(always)]
pub const fn is_msgpack<E: Emitter>() -> bool {
    E::HAS_BIN
}
/// Largest magnitude `OPT_STRICT_INTEGER` lets through: 2**53-1, the
/// integers a double (a JavaScript number) holds exactly.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;
/// Longest list of floats written by `short_float_list` (longer ones go
/// through the list loop, whose runs of floats the writer takes in one loop).
const SHORT_FLOAT_LIST: usize = 8;
/// Most nested `default` calls (both peers' limit): a `default` that keeps
/// returning objects it must be called on again stops here. Siblings each
/// get the whole budget: the count is of calls nested in one another.
pub const MAX_DEFAULT_CALLS: u32 = 255;

pub(crate) type Result<T = ()> = core::result::Result<T, EncodeError>;

/// A dict entry held for `OPT_SORT_KEYS`: strong references to key and value.
type Entry = (*mut PyObject, *mut PyObject);

pub struct Walker<E: Emitter> {
    /// The state of the module whose function was called.
    pub st: &'static State,
    pub emitter: E,
    default: *mut PyObject,
    pub(crate) opts: Opt,
    depth: u32,
    default_calls: u32,
    /// The extension type numpy arrays are written as (`OPT_NUMPY_EXT`).
    pub(crate) numpy_code: i8,
    /// With `OPT_SORT_KEYS`, the entries of the dicts being walked, innermost
    /// last: one stack for all nesting levels, so it allocates once per call.
    sorted: Vec<Entry>,
    /// Made only while an error passes out: where it happened and what was
    /// at fault, for the notes on the exception. Boxed, so a call that
    /// succeeds pays one null pointer for it.
    pub(crate) ctx: Option<Box<ErrorContext>>,
}

/// Python's str order (by code point, which is UTF-8 byte order for text
/// without surrogates). Both must be str (or subclasses): then it cannot fail.
unsafe fn compare_str(a: *mut PyObject, b: *mut PyObject) -> Ordering {
    PyUnicode_Compare(a, b).cmp(&0)
}

#[inline(always)]
unsafe fn is_type(obj: *mut PyObject, ty: *mut PyTypeObject) -> bool {
    Py_TYPE(obj) == ty
}

impl<E: Emitter> Walker<E> {
    /// `default` may be NULL (no hook).
    pub fn new(st: &'static State, emitter: E, default: *mut PyObject, opts: Opt) -> Self {
        Walker {
            st,
            emitter,
            default,
            opts,
            depth: 0,
            default_calls: 0,
            numpy_code: orcodec_core::msgpack::numpy::DEFAULT_CODE,
            sorted: Vec::new(),
            ctx: None,
        }
    }

    /// Serializes `obj`, which the caller keeps alive. The exact scalar
    /// types are written right here, inlined into the loops over items and
    /// entries; everything else goes to `walk_container`.
    #[inline(always)]
    pub unsafe fn walk(&mut self, obj: *mut PyObject) -> Result {
        // Exact types first: one pointer compare each, most common first.
        if is_type(obj, addr_of_mut!(PyUnicode_Type)) {
            return self.str(obj);
        }
        if is_type(obj, addr_of_mut!(PyLong_Type)) {
            return self.int(obj);
        }
        if is_type(obj, addr_of_mut!(PyFloat_Type)) {
            self.emitter.f64(PyFloat_AS_DOUBLE(obj));
            return Ok(());
        }
        if is_type(obj, addr_of_mut!(PyBool_Type)) {
            self.emitter.bool(obj == Py_True());
            return Ok(());
        }
        if obj == Py_None() {
            self.emitter.null();
            return Ok(());
        }
        self.walk_container(obj)
    }

    /// `walk` for everything but the exact scalars: containers, then the rest.
    #[inline(never)]
    unsafe fn walk_container(&mut self, obj: *mut PyObject) -> Result {
        if is_type(obj, addr_of_mut!(PyDict_Type)) {
            if dict_len(obj) == 0 {
                return self.empty(E::empty_map);
            }
            return self.held(obj, Self::dict);
        }
        if is_type(obj, addr_of_mut!(PyList_Type)) {
            let len = PyList_GET_SIZE(obj) as usize;
            if len == 0 {
                return self.empty(E::empty_array);
            }
            if !is_msgpack::<E>() && len <= SHORT_FLOAT_LIST {
                if let Some(result) = self.short_float_list(obj, len) {
                    return result;
                }
            }
            return self.held(obj, Self::list);
        }
        if is_type(obj, addr_of_mut!(PyTuple_Type)) && self.opts & options::PASSTHROUGH_TUPLE == 0 {
            return self.held(obj, Self::tuple);
        }
        if E::HAS_BIN && is_type(obj, addr_of_mut!(PyBytes_Type)) {
            return self.bin(bytes_data(obj));
        }
        self.held(obj, Self::walk_other)
    }

    /// A list of `len` (1 to [`SHORT_FLOAT_LIST`]) items that are all exact
    /// floats (coordinate pairs, bounding boxes), written in one step; None
    /// (nothing written) for any other list. Writing floats runs no Python
    /// code, so the list needs no hold, and the walker no depth but a check.
    #[inline(always)]
    unsafe fn short_float_list(&mut self, obj: *mut PyObject, len: usize) -> Option<Result> {
        debug_assert!((1..=SHORT_FLOAT_LIST).contains(&len));
        let mut values = [core::mem::MaybeUninit::<f64>::uninit(); SHORT_FLOAT_LIST];
        for (j, value) in values[..len].iter_mut().enumerate() {
            let item = PyList_GET_ITEM(obj, j as Py_ssize_t);
            if !is_type(item, addr_of_mut!(PyFloat_Type)) {
                return None;
            }
            value.write(PyFloat_AS_DOUBLE(item));
        }
        // SAFETY: the loop above initialized the first `len` values.
        let values = core::slice::from_raw_parts(values.as_ptr() as *const f64, len);
        if let Err(e) = self.check_depth() {
            return Some(Err(e));
        }
        self.emitter.f64_array(values);
        Some(self.check_output())
    }

    /// An empty list or dict: nothing to hold or loop over, but nested as
    /// deep as any other container may be.
    #[inline(always)]
    fn empty(&mut self, write: fn(&mut E)) -> Result {
        self.check_depth()?;
        write(&mut self.emitter);
        Ok(())
    }

    /// Runs `walk` on `obj` while holding a reference to it. Python code can
    /// run during a walk (`default`, `utcoffset()`, properties of dataclass
    /// fields) and drop the last other reference to anything being walked;
    /// containers and non-builtin objects are held so they outlive their walk.
    /// Exact str/int/float/bool/None run no code and need no hold.
    #[inline(always)]
    unsafe fn held(&mut self, obj: *mut PyObject, walk: unsafe fn(&mut Self, *mut PyObject) -> Result) -> Result {
        Py_INCREF(obj);
        let result = walk(self, obj);
        Py_DECREF(obj);
        result
    }

    #[inline(always)]
    pub(crate) unsafe fn str(&mut self, obj: *mut PyObject) -> Result {
        if let Some(ascii) = compact_ascii(obj) {
            self.emitter.utf8(ascii);
            return Ok(());
        }
        self.stored_str::<false>(obj)
    }

    /// A str (a map key with `KEY`) other than compact ASCII, out of line:
    /// its cached UTF-8 if CPython has one, else its storage as it is.
    #[inline(never)]
    unsafe fn stored_str<const KEY: bool>(&mut self, obj: *mut PyObject) -> Result {
        type Emit<E> = fn(&mut E, Text<'_>) -> core::result::Result<(), SurrogateError>;
        type Utf8<E> = fn(&mut E, &[u8]);
        let (utf8, emit): (Utf8<E>, Emit<E>) = if KEY { (E::utf8_key, E::key) } else { (E::utf8, E::str) };
        if let Some(bytes) = cached_utf8(obj) {
            utf8(&mut self.emitter, bytes);
            return Ok(());
        }
        let text = text_of(obj).ok_or(EncodeError::Raised)?;
        match emit(&mut self.emitter, text) {
            Ok(()) => Ok(()),
            // ormsgpack replaces surrogates in values only.
            Err(SurrogateError) if KEY && is_msgpack::<E>() => Err(self.surrogates_in_key()),
            Err(SurrogateError) => self.replace_surrogates(obj, emit),
        }
    }

    /// After `emit` refused str `obj` for a lone surrogate (writing nothing):
    /// with `OPT_REPLACE_SURROGATES` writes it with `?` in their place. Takes
    /// the object rather than its `Text` so the hot path need not keep that.
    #[cold]
    unsafe fn replace_surrogates(
        &mut self,
        obj: *mut PyObject,
        emit: fn(&mut E, Text<'_>) -> core::result::Result<(), SurrogateError>,
    ) -> Result {
        if self.opts & options::REPLACE_SURROGATES == 0 {
            return Err(EncodeError::Surrogates);
        }
        let text = text_of(obj).ok_or(EncodeError::Raised)?;
        let replaced = text.replace_surrogates().map_err(|_| EncodeError::NoMemory)?;
        emit(&mut self.emitter, Text::Utf8(replaced.as_bytes())).map_err(|_| EncodeError::Surrogates)
    }

    #[inline(always)]
    pub(crate) unsafe fn int(&mut self, obj: *mut PyObject) -> Result {
        if let Some(value) = crate::cpython::int::small_value(obj) {
            self.emitter.i64(value);
            return Ok(());
        }
        let mut overflow = 0;
        let value = PyLong_AsLongLongAndOverflow(obj, &mut overflow);
        if overflow == 0 {
            if value == -1 && !PyErr_Occurred().is_null() {
                return Err(EncodeError::Raised);
            }
            // The range first: it needs no load, and most ints are in it.
            if !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&value) {
                self.check_strict_integer()?;
            }
            self.emitter.i64(value);
            return Ok(());
        }
        if overflow > 0 {
            let value = PyLong_AsUnsignedLongLong(obj);
            if value != u64::MAX || PyErr_Occurred().is_null() {
                self.check_strict_integer()?;
                self.emitter.u64(value);
                return Ok(());
            }
            PyErr_Clear();
        }
        self.big_int(obj)
    }

    /// For an int beyond 53 bits: an error with `OPT_STRICT_INTEGER`.
    #[cold]
    #[inline(never)]
    fn check_strict_integer(&self) -> Result {
        if self.opts & options::STRICT_INTEGER != 0 {
            return Err(EncodeError::StrictIntegerRange);
        }
        Ok(())
    }

    /// An int beyond 64 bits: `default`'s with `OPT_PASSTHROUGH_BIG_INT`, else an error.
    #[cold]
    unsafe fn big_int(&mut self, obj: *mut PyObject) -> Result {
        if self.opts & options::PASSTHROUGH_BIG_INT != 0 {
            return self.call_default(obj);
        }
        Err(EncodeError::IntegerRange)
    }

    #[inline(always)]
    pub(crate) unsafe fn bin(&mut self, data: &[u8]) -> Result {
        if data.len() > orcodec_core::msgpack::writer::MAX_LEN {
            return Err(EncodeError::TooLong);
        }
        self.emitter.bin(data);
        Ok(())
    }

    pub(crate) unsafe fn memoryview(&mut self, obj: *mut PyObject) -> Result {
        let mut view: Py_buffer = core::mem::zeroed();
        if PyObject_GetBuffer(obj, &mut view, PyBUF_CONTIG_RO) != 0 {
            return Err(EncodeError::Raised);
        }
        let data = core::slice::from_raw_parts(view.buf as *const u8, view.len as usize);
        let result = self.bin(data);
        PyBuffer_Release(&mut view);
        result
    }

    #[inline(always)]
    pub(crate) fn enter(&mut self) -> Result {
        self.check_depth()?;
        self.depth += 1;
        Ok(())
    }

    /// Whether one more container may open here (`max_depth`).
    #[inline(always)]
    fn check_depth(&self) -> Result {
        if self.depth >= max_depth::<E>() {
            return Err(EncodeError::RecursionLimit);
        }
        Ok(())
    }

    /// Whether to go on once a container is written: when the output could
    /// not be grown, the walk stops there (the caller raises MemoryError)
    /// instead of walking the rest of the object for output already lost.
    /// Checked where each list, tuple and dict ends, and after each empty
    /// block of a numpy array with a zero-size dimension, so an object whose
    /// output dwarfs its memory (one dict repeated a million times in a
    /// list, a numpy array of shape (2**31, 1024, 0)) stops at once. The rest of the items of the container being written are
    /// still visited, each write then a compare: that is bounded by the
    /// objects in memory. Not checked per item: a load and a branch per
    /// item cost the hot loops more than they save.
    #[inline(always)]
    pub(crate) fn check_output(&self) -> Result {
        if self.emitter.failed() {
            return Err(EncodeError::NoMemory);
        }
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    pub(crate) unsafe fn list(&mut self, obj: *mut PyObject) -> Result {
        let len = PyList_GET_SIZE(obj) as usize;
        self.sequence(obj, len, |obj, i| {
            // `default` may shrink the list while it is walked; check every time.
            if i < PyList_GET_SIZE(obj) as usize {
                Some(PyList_GET_ITEM(obj, i as Py_ssize_t))
            } else {
                None
            }
        })?;
        if PyList_GET_SIZE(obj) as usize != len {
            return Err(EncodeError::ListChangedSize);
        }
        Ok(())
    }

    #[inline(never)]
    unsafe fn tuple(&mut self, obj: *mut PyObject) -> Result {
        let len = PyTuple_GET_SIZE(obj) as usize;
        self.sequence(obj, len, |obj, i| Some(PyTuple_GET_ITEM(obj, i as Py_ssize_t)))
    }

    #[inline(always)]
    unsafe fn sequence(
        &mut self,
        obj: *mut PyObject,
        len: usize,
        get: impl Fn(*mut PyObject, usize) -> Option<*mut PyObject>,
    ) -> Result {
        if len > orcodec_core::msgpack::writer::MAX_LEN {
            return Err(EncodeError::TooLong);
        }
        self.enter()?;
        self.emitter.begin_array(len);
        let mut i = 0;
        while i < len {
            let item = get(obj, i).ok_or(EncodeError::ListChangedSize)?;
            // A run of exact floats (coordinates, measurements) in JSON goes
            // to the writer's loop for them. Writing a float runs no Python
            // code, so the items read meanwhile stay the array's.
            if !is_msgpack::<E>() && is_type(item, addr_of_mut!(PyFloat_Type)) {
                i = self.emitter.f64_run(i, len, |j| {
                    let item = get(obj, j)?;
                    is_type(item, addr_of_mut!(PyFloat_Type)).then(|| PyFloat_AS_DOUBLE(item))
                });
                continue;
            }
            // So does a run of ints below 2**30 in magnitude (ids, counts)
            // that has a second item; a lone or larger one goes the general
            // way below.
            if !is_msgpack::<E>()
                && is_type(item, addr_of_mut!(PyLong_Type))
                && len - i >= 2
                && crate::cpython::int::small_value(item).is_some()
            {
                i = self.emitter.i64_run(i, len, |j| {
                    let item = get(obj, j)?;
                    if is_type(item, addr_of_mut!(PyLong_Type)) {
                        crate::cpython::int::small_value(item)
                    } else {
                        None
                    }
                });
                continue;
            }
            self.emitter.array_item(i);
            if let Err(e) = self.walk(item) {
                return Err(self.at_index(i, e));
            }
            i += 1;
        }
        self.emitter.end_array(len);
        self.leave();
        self.check_output()
    }

    pub(crate) unsafe fn dict(&mut self, obj: *mut PyObject) -> Result {
        let len = dict_len(obj);
        if len > orcodec_core::msgpack::writer::MAX_LEN {
            return Err(EncodeError::TooLong);
        }
        self.enter()?;
        self.emitter.begin_map(len);
        if self.opts & options::SORT_KEYS == 0 {
            self.entries(obj, len)?;
        } else if self.opts & options::NON_STR_KEYS == 0 {
            self.sorted_entries(obj, len)?;
        } else if is_msgpack::<E>() {
            return Err(EncodeError::SortedNonStrKeys);
        } else {
            self.sorted_mixed_entries(obj, len)?;
        }
        if dict_len(obj) != len {
            return Err(EncodeError::DictChangedSize);
        }
        self.emitter.end_map(len);
        self.leave();
        self.check_output()
    }

    /// The entries of a dict of `len` entries in insertion order.
    #[inline(always)]
    unsafe fn entries(&mut self, obj: *mut PyObject, len: usize) -> Result {
        let mut pos: Py_ssize_t = 0;
        let mut key: *mut PyObject = core::ptr::null_mut();
        let mut value: *mut PyObject = core::ptr::null_mut();
        let mut i = 0;
        while crate::cpython::dict::next(obj, &mut pos, &mut key, &mut value) {
            if i == len {
                return Err(EncodeError::DictChangedSize);
            }
            // The key of a failed entry is found again from the position, which
            // the loop keeps anyway: nothing more stays live across the walk.
            if let Err(e) = self.entry(i, key, value) {
                return Err(self.at_position(obj, pos, len, e));
            }
            i += 1;
        }
        if i != len {
            return Err(EncodeError::DictChangedSize);
        }
        Ok(())
    }

    /// One entry. An error in the value records no path step here: the
    /// caller knows the key (`at_position`, `at_dict_key`, `at_key`).
    #[inline(always)]
    pub(crate) unsafe fn entry(&mut self, index: usize, key: *mut PyObject, value: *mut PyObject) -> Result {
        if !is_type(key, addr_of_mut!(PyUnicode_Type)) {
            self.emitter.map_key(index);
            return self.held_entry(key, value);
        }
        if let Some(ascii) = compact_ascii(key) {
            self.emitter.utf8_entry_key(index, ascii);
        } else {
            self.emitter.map_key(index);
            if let Err(e) = self.stored_str::<true>(key) {
                return Err(self.in_key(key, e));
            }
            self.emitter.map_value();
        }
        self.walk(value)
    }

    /// `entry` for a key borrowed from `dict` (which the walker holds), with
    /// the key recorded if the value fails.
    #[inline(always)]
    pub(crate) unsafe fn dict_entry(
        &mut self,
        dict: *mut PyObject,
        index: usize,
        key: *mut PyObject,
        value: *mut PyObject,
    ) -> Result {
        match self.entry(index, key, value) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.at_dict_key(dict, key, e)),
        }
    }

    /// `at_key` for a key borrowed from `dict`. Python code run while the
    /// value was walked may have removed the key from the dict and freed it,
    /// so it is used only if the dict still holds it (a key error has marked
    /// the error as in a key already: nothing to add then).
    #[cold]
    #[inline(never)]
    #[expect(clippy::disallowed_methods, reason = "one path step per nesting level: at most the nesting limit")]
    unsafe fn at_dict_key(&mut self, dict: *mut PyObject, key: *mut PyObject, e: EncodeError) -> EncodeError {
        if self.key_pending() {
            return e;
        }
        if !crate::encode::context::dict_holds_key(dict, key) {
            self.ctx().path.push(Segment::Lost);
            return e;
        }
        self.at_key(key, e)
    }

    /// `at_dict_key` for the entry before position `pos` of `dict` (what
    /// `dict::next` returned last), when the dict still has its `len` entries.
    #[cold]
    #[inline(never)]
    #[expect(clippy::disallowed_methods, reason = "one path step per nesting level: at most the nesting limit")]
    unsafe fn at_position(&mut self, dict: *mut PyObject, pos: Py_ssize_t, len: usize, e: EncodeError) -> EncodeError {
        if self.key_pending() {
            return e;
        }
        let (mut at, mut key, mut value) = (pos - 1, core::ptr::null_mut(), core::ptr::null_mut());
        if dict_len(dict) == len && PyDict_Next(dict, &mut at, &mut key, &mut value) != 0 && at == pos {
            return self.at_key(key, e);
        }
        self.ctx().path.push(Segment::Lost);
        e
    }

    /// The rest of an entry whose key is not an exact str: writing the key may
    /// run Python code (`utcoffset()` of a datetime key, say) that changes
    /// the dict, so key and value are held until both are written.
    #[cold]
    unsafe fn held_entry(&mut self, key: *mut PyObject, value: *mut PyObject) -> Result {
        Py_INCREF(key);
        Py_INCREF(value);
        let result = self.key(key).map_err(|e| self.in_key(key, e)).and_then(|()| {
            self.emitter.map_value();
            self.walk(value)
        });
        Py_DECREF(value);
        Py_DECREF(key);
        result
    }

    /// The entries of a dict of `len` entries in key order (`OPT_SORT_KEYS`).
    /// They are copied out first and held, as Python code run while walking
    /// (`default`, `utcoffset()`, properties) may change the dict.
    #[inline(never)]
    unsafe fn sorted_entries(&mut self, obj: *mut PyObject, len: usize) -> Result {
        let start = self.sorted.len();
        let result = self.collect_entries(obj, len).and_then(|()| {
            self.sorted[start..].sort_unstable_by(|a, b| compare_str(a.0, b.0));
            (0..len).try_for_each(|i| {
                let (key, value) = self.sorted[start + i];
                self.entry(i, key, value).map_err(|e| self.at_key(key, e))
            })
        });
        for &(key, value) in &self.sorted[start..] {
            Py_DECREF(key);
            Py_DECREF(value);
        }
        self.sorted.truncate(start);
        result
    }

    /// Pushes the dict's `len` entries onto `sorted`, each with its references
    /// taken. No Python code runs meanwhile, so `len` stays exact. Keys are
    /// checked here because only str keys can be compared.
    unsafe fn collect_entries(&mut self, obj: *mut PyObject, len: usize) -> Result {
        if self.sorted.try_reserve(len).is_err() {
            return Err(EncodeError::NoMemory);
        }
        let mut pos: Py_ssize_t = 0;
        let mut key: *mut PyObject = core::ptr::null_mut();
        let mut value: *mut PyObject = core::ptr::null_mut();
        while PyDict_Next(obj, &mut pos, &mut key, &mut value) != 0 {
            if !is_type(key, addr_of_mut!(PyUnicode_Type)) {
                let e = self.key_not_str(key);
                let e = self.in_key(key, e);
                self.key_pending_taken();
                return Err(e);
            }
            // Room was made above, for `len` entries: this cannot fail.
            fallible::push(&mut self.sorted, (key, value)).map_err(|_| EncodeError::NoMemory)?;
            Py_INCREF(key);
            Py_INCREF(value);
        }
        Ok(())
    }

    /// A dict key. Only an exact str is a key without `OPT_NON_STR_KEYS`
    /// (a str subclass too is "Dict key must be str" for both peers).
    #[inline(always)]
    pub(crate) unsafe fn key(&mut self, key: *mut PyObject) -> Result {
        if is_type(key, addr_of_mut!(PyUnicode_Type)) {
            return self.str_key(key);
        }
        if self.opts & options::NON_STR_KEYS != 0 {
            return self.non_str_key(key);
        }
        Err(self.key_not_str(key))
    }

    /// A key that is a str (or, with `OPT_NON_STR_KEYS`, a str subclass).
    #[inline(always)]
    pub(crate) unsafe fn str_key(&mut self, key: *mut PyObject) -> Result {
        if let Some(ascii) = compact_ascii(key) {
            self.emitter.utf8_key(ascii);
            return Ok(());
        }
        self.stored_str::<true>(key)
    }

    /// The error context, made on first use (on an error path only).
    #[cold]
    pub(crate) fn ctx(&mut self) -> &mut ErrorContext {
        self.ctx.get_or_insert_with(Box::default)
    }

    /// Records, as error `e` passes out of an array, the index it came from.
    #[cold]
    #[inline(never)]
    #[expect(clippy::disallowed_methods, reason = "one path step per nesting level: at most the nesting limit")]
    pub(crate) fn at_index(&mut self, index: usize, e: EncodeError) -> EncodeError {
        if !self.key_pending() {
            self.ctx().path.push(Segment::Index(index));
        }
        e
    }

    /// Records, as error `e` passes out of a map, the key whose value it came from.
    #[cold]
    #[inline(never)]
    #[expect(clippy::disallowed_methods, reason = "one path step per nesting level: at most the nesting limit")]
    pub(crate) unsafe fn at_key(&mut self, key: *mut PyObject, e: EncodeError) -> EncodeError {
        if !self.key_pending() {
            Py_INCREF(key);
            self.ctx().path.push(Segment::Key(key));
        }
        e
    }

    /// Records, as error `e` passes out of a dataclass, the field it came from.
    #[cold]
    #[inline(never)]
    #[expect(clippy::disallowed_methods, reason = "one path step per nesting level: at most the nesting limit")]
    pub(crate) unsafe fn at_field(&mut self, name: *mut PyObject, e: EncodeError) -> EncodeError {
        if !self.key_pending() {
            Py_INCREF(name);
            self.ctx().path.push(Segment::Field(name));
        }
        e
    }

    /// Records that error `e` happened in writing map key `key`. The map's
    /// loop then records no step for it (`key_pending`): the path is that of
    /// the map.
    #[cold]
    #[inline(never)]
    pub(crate) unsafe fn in_key(&mut self, key: *mut PyObject, e: EncodeError) -> EncodeError {
        let ctx = self.ctx();
        if ctx.path.is_empty() && !ctx.in_key {
            ctx.in_key = true;
            ctx.key_pending = true;
            ctx.blame(key);
        }
        e
    }

    /// For a map loop that returns a key error itself: takes the mark
    /// `in_key` left for it.
    pub(crate) fn key_pending_taken(&mut self) {
        self.key_pending();
    }

    /// Whether the error passing out was just marked as in a key of the map
    /// whose loop asks (`in_key`); the mark is taken.
    fn key_pending(&mut self) -> bool {
        match self.ctx.as_deref_mut() {
            Some(ctx) if ctx.key_pending => {
                ctx.key_pending = false;
                true
            }
            _ => false,
        }
    }

    /// "Dict key must be str" for `key`.
    #[cold]
    #[inline(never)]
    pub(crate) unsafe fn key_not_str(&mut self, key: *mut PyObject) -> EncodeError {
        self.ctx().blame(key);
        EncodeError::DictKeyNotStr
    }

    /// A str key with lone surrogates, in MessagePack (where
    /// `OPT_REPLACE_SURROGATES` is for values only, as in ormsgpack).
    #[cold]
    #[inline(never)]
    fn surrogates_in_key(&mut self) -> EncodeError {
        EncodeError::Surrogates
    }

    pub(crate) fn has_default(&self) -> bool {
        !self.default.is_null()
    }

    #[cold]
    pub(crate) unsafe fn call_default(&mut self, obj: *mut PyObject) -> Result {
        if self.default.is_null() {
            return Err(EncodeError::Unsupported(Py_TYPE(obj)));
        }
        if self.default_calls >= MAX_DEFAULT_CALLS {
            return Err(EncodeError::DefaultRecursionLimit);
        }
        let replacement = PyObject_CallOneArg(self.default, obj);
        if replacement.is_null() {
            return Err(EncodeError::DefaultRaised(Py_TYPE(obj)));
        }
        self.default_calls += 1;
        let result = self.walk(replacement);
        self.default_calls -= 1;
        Py_DECREF(replacement);
        result
    }
}

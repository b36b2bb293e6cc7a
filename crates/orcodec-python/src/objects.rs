//! Building Python objects for both decoders: one `Builder` implementation,
//! so the JSON scanner and the MessagePack reader produce identical objects.

use core::ptr::NonNull;
use orcodec_core::build::Builder;
use pyo3_ffi::*;

use crate::ffi::_PyDict_NewPresized;
use crate::keycache;

/// An owned reference to a new Python object, released if dropped (so a
/// decoder that stops half way leaks nothing).
pub struct Owned(NonNull<PyObject>);

impl Owned {
    /// Takes ownership of a new reference; None (with an exception set) for NULL.
    #[inline(always)]
    pub unsafe fn new(ptr: *mut PyObject) -> Result<Owned, ()> {
        NonNull::new(ptr).map(Owned).ok_or(())
    }

    /// Gives the reference away.
    #[inline(always)]
    pub fn into_raw(self) -> *mut PyObject {
        let ptr = self.0.as_ptr();
        core::mem::forget(self);
        ptr
    }

    #[inline(always)]
    pub fn as_ptr(&self) -> *mut PyObject {
        self.0.as_ptr()
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: we own one reference; the GIL is held while decoding.
        unsafe { Py_DECREF(self.0.as_ptr()) }
    }
}


/// A new `str` from UTF-8 text.
#[inline(always)]
pub unsafe fn new_str(text: &str) -> *mut PyObject {
    let bytes = text.as_bytes();
    if orcodec_core::ascii::is_ascii(bytes) {
        new_ascii_str(bytes)
    } else {
        new_non_ascii_str(bytes)
    }
}

/// A new `str` from ASCII bytes: allocate the compact object and copy.
///
/// # Safety
/// `bytes` must be all ASCII (an ASCII-kind str holding other bytes is corrupt).
#[inline(always)]
pub unsafe fn new_ascii_str(bytes: &[u8]) -> *mut PyObject {
    let obj = PyUnicode_New(bytes.len() as Py_ssize_t, 127);
    if !obj.is_null() {
        core::ptr::copy_nonoverlapping(bytes.as_ptr(), PyUnicode_DATA(obj) as *mut u8, bytes.len());
    }
    obj
}

/// A code unit of one of CPython's compact str kinds (PEP 393).
trait Unit: Copy {
    fn from_code_point(c: u32) -> Self;
    /// Writes the 8 bytes of little-endian `word` as 8 units at `out`.
    ///
    /// # Safety
    /// `out` has room for 8 units.
    #[inline(always)]
    unsafe fn widen8(word: u64, out: *mut Self) {
        for k in 0..8 {
            // SAFETY: k < 8, inside the room the caller guarantees.
            unsafe { *out.add(k) = Self::from_code_point((word >> (8 * k)) as u8 as u32) };
        }
    }
}
impl Unit for u8 {
    #[inline(always)]
    fn from_code_point(c: u32) -> u8 {
        c as u8
    }
    #[inline(always)]
    unsafe fn widen8(word: u64, out: *mut u8) {
        // SAFETY: 8 bytes of room, as the caller guarantees.
        unsafe { core::ptr::write_unaligned(out as *mut u64, word.to_le()) }
    }
}
impl Unit for u16 {
    #[inline(always)]
    fn from_code_point(c: u32) -> u16 {
        c as u16
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn widen8(word: u64, out: *mut u16) {
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is x86-64 baseline; one 16-byte store into the 8
        // units of room the caller guarantees.
        unsafe {
            let v = _mm_unpacklo_epi8(_mm_cvtsi64_si128(word as i64), _mm_setzero_si128());
            _mm_storeu_si128(out as *mut __m128i, v);
        }
    }
}
impl Unit for u32 {
    #[inline(always)]
    fn from_code_point(c: u32) -> u32 {
        c
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn widen8(word: u64, out: *mut u32) {
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is x86-64 baseline; two 16-byte stores into the 8
        // units (32 bytes) of room the caller guarantees.
        unsafe {
            let zero = _mm_setzero_si128();
            let v = _mm_unpacklo_epi8(_mm_cvtsi64_si128(word as i64), zero);
            _mm_storeu_si128(out as *mut __m128i, _mm_unpacklo_epi16(v, zero));
            _mm_storeu_si128(out.add(4) as *mut __m128i, _mm_unpackhi_epi16(v, zero));
        }
    }
}

/// Decodes valid UTF-8 into `out`, one unit per code point. Code points must
/// fit `T` (the caller picked the kind from the largest lead byte).
///
/// # Safety
/// `bytes` is valid UTF-8 and `out` has room for `units` units, one per code point.
#[inline(always)]
unsafe fn decode_utf8_into<T: Unit>(bytes: &[u8], mut out: *mut T, units: usize) {
    let end = out.add(units);
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let n = bytes.len();
    let p = bytes.as_ptr();
    let mut i = 0;
    // SAFETY (reads): `i < n` at each lead byte, valid UTF-8 puts all of a lead
    // byte's continuation bytes inside `bytes`, and word reads check `i + 8 <= n`.
    // (writes): one unit per code point, which is the room `out` has.
    while i < n {
        let b0 = *p.add(i) as u32;
        if b0 < 0x80 {
            // An ASCII run: up to 8 bytes per step, stopping at the first
            // non-ASCII byte of the word (at least one, this one, is ASCII).
            // With room for 8 units, all 8 bytes are widened at once and
            // the units past the run are overwritten by what follows (every
            // unit up to `end` is written in order, so none is left stale).
            let run = if i + 8 <= n {
                let word = u64::from_le_bytes(*(p.add(i) as *const [u8; 8]));
                let high = word & HIGHS;
                let run = if high == 0 { 8 } else { (high.trailing_zeros() / 8) as usize };
                if end.offset_from(out) >= 8 {
                    T::widen8(word, out);
                    out = out.add(run);
                    i += run;
                    continue;
                }
                run
            } else {
                1
            };
            for k in 0..run {
                *out.add(k) = T::from_code_point(*p.add(i + k) as u32);
            }
            out = out.add(run);
            i += run;
            continue;
        }
        let c = if b0 < 0xe0 {
            i += 2;
            (b0 & 0x1f) << 6 | (*p.add(i - 1) as u32 & 0x3f)
        } else if b0 < 0xf0 {
            i += 3;
            (b0 & 0x0f) << 12 | (*p.add(i - 2) as u32 & 0x3f) << 6 | (*p.add(i - 1) as u32 & 0x3f)
        } else {
            i += 4;
            (b0 & 0x07) << 18
                | (*p.add(i - 3) as u32 & 0x3f) << 12
                | (*p.add(i - 2) as u32 & 0x3f) << 6
                | (*p.add(i - 1) as u32 & 0x3f)
        };
        *out = T::from_code_point(c);
        out = out.add(1);
    }
}

/// The number of code points in valid UTF-8 `bytes` and its largest byte.
#[inline(always)]
#[allow(unused_assignments)]
fn count_chars(bytes: &[u8]) -> (usize, u8) {
    let n = bytes.len();
    let mut continuations = 0usize;
    let mut max = 0u8;
    let mut i = 0;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of the x86-64 baseline; loads stay inside `bytes`.
    unsafe {
        use core::arch::x86_64::*;
        let mut maxv = _mm_setzero_si128();
        // Continuation bytes 0x80-0xBF are the signed bytes below -64; a
        // compare gives -1 for each, subtracted into byte counters that are
        // summed (psadbw) before they can wrap, every 255 blocks.
        let limit = _mm_set1_epi8(-64);
        while i + 16 <= n {
            let mut counts = _mm_setzero_si128();
            let mut blocks = 0;
            while blocks < 255 && i + 16 <= n {
                let v = _mm_loadu_si128(bytes.as_ptr().add(i) as *const __m128i);
                counts = _mm_sub_epi8(counts, _mm_cmplt_epi8(v, limit));
                maxv = _mm_max_epu8(maxv, v);
                i += 16;
                blocks += 1;
            }
            let sums = _mm_sad_epu8(counts, _mm_setzero_si128());
            continuations += (_mm_cvtsi128_si64(sums) + _mm_extract_epi16::<4>(sums) as i64) as usize;
        }
        let mut lanes = [0u8; 16];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, maxv);
        max = lanes.iter().copied().fold(0, u8::max);
    }
    for &b in &bytes[i..] {
        continuations += ((b as i8) < -0x40) as usize;
        max = max.max(b);
    }
    (n - continuations, max)
}

/// A new `str` from valid UTF-8 holding at least one non-ASCII character,
/// decoded straight into the narrowest kind CPython requires (no
/// `PyUnicode_DecodeUTF8`, which would validate and measure again).
#[inline(never)]
pub(crate) unsafe fn new_non_ascii_str(bytes: &[u8]) -> *mut PyObject {
    // Code points are the bytes that do not continue a sequence; the largest
    // lead byte says the largest code point's range: C2-C3 -> U+0080-U+00FF
    // (UCS1), up to EF -> at most U+FFFF (UCS2), F0-F4 -> beyond (UCS4). That
    // range holds the true maximum, so the kind is the canonical one.
    let (chars, max) = count_chars(bytes);
    let maxchar: Py_UCS4 = if max < 0xc4 { 0xff } else if max < 0xf0 { 0xffff } else { 0x10ffff };
    let obj = PyUnicode_New(chars as Py_ssize_t, maxchar);
    if obj.is_null() {
        return obj;
    }
    // SAFETY: `obj` is a fresh compact str of `chars` units of the kind
    // `maxchar` selects, and every code point fits that kind.
    let data = PyUnicode_DATA(obj);
    match maxchar {
        0xff => decode_utf8_into(bytes, data as *mut u8, chars),
        0xffff => decode_utf8_into(bytes, data as *mut u16, chars),
        _ => decode_utf8_into(bytes, data as *mut u32, chars),
    }
    obj
}

/// Builds Python objects; errors mean a Python exception is set.
pub struct PyBuilder {
    /// `unpackb`'s `ext_hook`, called as `ext_hook(tag, data)`; NULL for none.
    pub ext_hook: *mut PyObject,
}

impl PyBuilder {
    pub const fn new() -> Self {
        PyBuilder { ext_hook: core::ptr::null_mut() }
    }
}

impl Builder for PyBuilder {
    type Value = Owned;
    type Error = ();

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
        unsafe { Owned::new(PyLong_FromLongLong(value)) }
    }
    #[inline(always)]
    fn u64(&mut self, value: u64) -> Result<Owned, ()> {
        unsafe { Owned::new(PyLong_FromUnsignedLongLong(value)) }
    }
    #[inline(always)]
    fn f64(&mut self, value: f64) -> Result<Owned, ()> {
        unsafe { Owned::new(PyFloat_FromDouble(value)) }
    }
    #[inline(always)]
    fn str(&mut self, value: &str) -> Result<Owned, ()> {
        unsafe { Owned::new(new_str(value)) }
    }
    #[inline(always)]
    fn ascii_str(&mut self, value: &str) -> Result<Owned, ()> {
        debug_assert!(value.is_ascii());
        // SAFETY: the decoder calls this only for text it checked is ASCII.
        unsafe { Owned::new(new_ascii_str(value.as_bytes())) }
    }
    #[inline(always)]
    fn non_ascii_str(&mut self, value: &str) -> Result<Owned, ()> {
        // SAFETY: `value` is valid UTF-8 (a &str).
        unsafe { Owned::new(new_non_ascii_str(value.as_bytes())) }
    }
    #[inline(always)]
    fn try_ascii_str(&mut self, bytes: &[u8]) -> Result<Option<Owned>, ()> {
        // SAFETY: a fresh ASCII-kind str of `bytes.len()` characters has room
        // for them; if a byte is not ASCII the half-filled str is released
        // before anyone sees it (deallocation does not read the characters).
        unsafe {
            let obj = Owned::new(PyUnicode_New(bytes.len() as Py_ssize_t, 127))?;
            let data = PyUnicode_DATA(obj.as_ptr()) as *mut u8;
            if orcodec_core::text::copy_if_ascii(bytes, data) {
                Ok(Some(obj))
            } else {
                Ok(None)
            }
        }
    }
    #[inline(always)]
    fn key(&mut self, value: &str) -> Result<Owned, ()> {
        unsafe { Owned::new(keycache::key(value)) }
    }
    #[inline(always)]
    fn bytes(&mut self, value: &[u8]) -> Result<Owned, ()> {
        unsafe { Owned::new(PyBytes_FromStringAndSize(value.as_ptr() as *const _, value.len() as Py_ssize_t)) }
    }

    fn ext(&mut self, tag: i8, data: &[u8]) -> Result<Option<Owned>, ()> {
        if self.ext_hook.is_null() {
            return Ok(None);
        }
        unsafe { call_ext_hook(self.ext_hook, tag, data).map(Some) }
    }

    fn timestamp(&mut self, seconds: i64, nanoseconds: u32) -> Result<Owned, ()> {
        unsafe { Owned::new(crate::datetime::datetime_from_timestamp(seconds, nanoseconds)) }
    }

    fn tuple(&mut self, items: &mut Vec<Owned>, start: usize) -> Result<Owned, ()> {
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
        let n = (items.len() - start) / 2;
        // SAFETY: `PyDict_SetItem` takes its own references; ours drop after.
        unsafe {
            let dict = Owned::new(_PyDict_NewPresized(n as Py_ssize_t))?;
            let mut pairs = items.drain(start..);
            while let (Some(key), Some(value)) = (pairs.next(), pairs.next()) {
                if PyDict_SetItem(dict.as_ptr(), key.as_ptr(), value.as_ptr()) != 0 {
                    return Err(unhashable_key());
                }
            }
            Ok(dict)
        }
    }
}

/// After `PyDict_SetItem` failed: a key that cannot be hashed (only
/// MessagePack with `OPT_NON_STR_KEYS` makes non-str keys, e.g. from
/// `ext_hook`) is the decode error, with the TypeError as its `__cause__`.
#[cold]
unsafe fn unhashable_key() {
    if PyErr_ExceptionMatches(PyExc_TypeError) != 0 {
        crate::errors::raise_from_current(crate::state::state().msgpack_decode_error, "map key is not hashable");
    }
}

/// `hook(tag, data)`; its exception becomes the `__cause__` of the decode error.
#[cold]
unsafe fn call_ext_hook(hook: *mut PyObject, tag: i8, data: &[u8]) -> Result<Owned, ()> {
    let tag_obj = Owned::new(PyLong_FromLong(tag as _))?;
    let data_obj = Owned::new(PyBytes_FromStringAndSize(data.as_ptr() as *const _, data.len() as Py_ssize_t))?;
    let args = [tag_obj.as_ptr(), data_obj.as_ptr()];
    let result = PyObject_Vectorcall(hook, args.as_ptr(), 2, core::ptr::null_mut());
    if result.is_null() {
        crate::errors::raise_from_current(
            crate::state::state().msgpack_decode_error,
            &format!("ext_hook raised for extension type {tag}"),
        );
        return Err(());
    }
    Owned::new(result)
}

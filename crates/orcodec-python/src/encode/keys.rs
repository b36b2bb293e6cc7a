//! Dict keys that are not str, with `OPT_NON_STR_KEYS`.
//!
//! JSON keys are text, so such keys are written as orjson writes them: ints
//! and floats as numbers (`NaN`/infinities as `null`), `true`/`false`/`null`,
//! dates, times and UUIDs as their text, enum members as their value's key.
//! MessagePack keys may be any value, so there they are written natively,
//! like ormsgpack (tuples as arrays, bytes as bin).
//!
//! With `OPT_SORT_KEYS` too, JSON entries are ordered by the key's text form
//! (as orjson orders them); `packb` refuses the combination, as ormsgpack.

use orcodec_core::emit::Emitter;
use orcodec_core::fallible;
use orcodec_core::json::writer::{write_i64, write_u64};
use orcodec_core::number::float::write_f64;
use pyo3_ffi::*;

use crate::cpython::datetime::{is_date_exact, is_datetime_exact, is_time_exact};
use crate::encode::error::EncodeError;
use crate::encode::types::datetime::{date_text, datetime_text, time_text};
use crate::encode::types::enums::is_enum_type;
use crate::encode::types::uuid::{is_uuid_type, uuid_text};
use crate::encode::walker::Walker;

/// The text form of a non-str key.
enum KeyText {
    /// A str (the key's enum value): written through the str path, which
    /// escapes and checks for surrogates. Holds a reference.
    Str(*mut PyObject),
    /// ASCII with nothing to escape.
    Ascii(Vec<u8>),
}

impl Drop for KeyText {
    fn drop(&mut self) {
        if let KeyText::Str(obj) = *self {
            // SAFETY: the reference was taken when the KeyText was made.
            unsafe { Py_DECREF(obj) }
        }
    }
}

impl KeyText {
    unsafe fn sort_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        match self {
            KeyText::Ascii(bytes) => Ok(bytes.clone()),
            KeyText::Str(obj) => str_sort_bytes(*obj),
        }
    }
}

/// The bytes str keys are ordered by: UTF-8, with lone surrogates encoded as
/// if they were characters, which keeps code point order.
unsafe fn str_sort_bytes(obj: *mut PyObject) -> Result<Vec<u8>, EncodeError> {
    let encoded = PyUnicode_AsEncodedString(obj, c"utf-8".as_ptr(), c"surrogatepass".as_ptr());
    if encoded.is_null() {
        return Err(EncodeError::Raised);
    }
    let bytes = fallible::copy(crate::cpython::bytes::bytes_data(encoded));
    Py_DECREF(encoded);
    bytes.map_err(|_| EncodeError::NoMemory)
}

fn ascii(text: &[u8]) -> KeyText {
    KeyText::Ascii(text.to_vec())
}

impl<E: Emitter> Walker<E> {
    /// A key that is not a str (`OPT_NON_STR_KEYS` is set).
    #[cold]
    pub(crate) unsafe fn non_str_key(&mut self, key: *mut PyObject) -> Result<(), EncodeError> {
        if E::NATIVE_KEYS {
            return self.native_key(key);
        }
        match self.key_text(key)? {
            KeyText::Str(obj) => self.str_key(obj),
            KeyText::Ascii(ref bytes) => {
                self.emitter.ascii_key(bytes);
                Ok(())
            }
        }
    }

    /// MessagePack: the key as a value, for the types that can be keys. The
    /// passthrough flags are for values: a key is always written as a key (as
    /// in JSON, and as ormsgpack writes it), so `default` is never asked.
    /// The key types are ormsgpack's: exact bytes, float and tuple (their
    /// subclasses are no keys), str and int subclasses, memoryview.
    /// With `KEYS_AS_VALUES` (`orcodec.msgpack`), a key is walked as a value.
    unsafe fn native_key(&mut self, key: *mut PyObject) -> Result<(), EncodeError> {
        if self.opts & crate::module::options::KEYS_AS_VALUES != 0 {
            return self.walk(key);
        }
        if key == Py_None() || PyBool_Check(key) != 0 || PyBytes_CheckExact(key) != 0 {
            return self.walk(key);
        }
        if PyLong_Check(key) != 0 {
            return self.int_key(key);
        }
        if PyFloat_CheckExact(key) != 0 {
            self.emitter.f64(PyFloat_AS_DOUBLE(key));
            return Ok(());
        }
        if PyTuple_CheckExact(key) != 0 {
            return self.tuple_key(key);
        }
        if PyUnicode_Check(key) != 0 {
            return self.str_key(key);
        }
        if PyMemoryView_Check(key) != 0 {
            return self.memoryview(key);
        }
        if let Some(result) = self.date_or_time(key) {
            return result;
        }
        let ty = Py_TYPE(key);
        if is_uuid_type(self.st, ty) {
            self.emitter.ascii(&uuid_text(self.st, key)?);
            return Ok(());
        }
        if is_enum_type(self.st, ty) {
            let value = PyObject_GetAttr(key, self.st.str_value);
            if value.is_null() {
                return Err(EncodeError::Raised);
            }
            // A level, so a value that is the member itself stops.
            let result = self.enter().and_then(|()| {
                let result = if PyUnicode_Check(value) != 0 { self.key(value) } else { self.native_key(value) };
                self.leave();
                result
            });
            Py_DECREF(value);
            return result;
        }
        Err(EncodeError::DictKeyType(ty))
    }

    /// An int key (a subclass too); beyond 64 bits an error, never `default`.
    unsafe fn int_key(&mut self, key: *mut PyObject) -> Result<(), EncodeError> {
        match int_key_value(key, EncodeError::IntegerRange)? {
            IntKey::Signed(value) => self.emitter.i64(value),
            IntKey::Unsigned(value) => self.emitter.u64(value),
        }
        Ok(())
    }

    /// A tuple key as an array whose items follow the key rules too (as in
    /// ormsgpack: `(1, frozenset())` is no key, `(1, (2,))` is one).
    unsafe fn tuple_key(&mut self, key: *mut PyObject) -> Result<(), EncodeError> {
        let len = PyTuple_GET_SIZE(key) as usize;
        self.enter()?;
        self.emitter.begin_array(len);
        for i in 0..len {
            self.emitter.array_item(i);
            // Borrowed from the tuple, which the dict being walked holds; no
            // Python code that could drop it runs before the item is written
            // (utcoffset or an enum's value may run, but cannot change a tuple).
            let item = PyTuple_GET_ITEM(key, i as Py_ssize_t);
            if PyUnicode_Check(item) != 0 {
                self.key(item)?;
            } else {
                self.native_key(item)?;
            }
        }
        self.emitter.end_array(len);
        self.leave();
        Ok(())
    }

    /// JSON: the text a non-str key is written as.
    unsafe fn key_text(&mut self, key: *mut PyObject) -> Result<KeyText, EncodeError> {
        if PyUnicode_Check(key) != 0 {
            Py_INCREF(key);
            return Ok(KeyText::Str(key));
        }
        if key == Py_None() {
            return Ok(ascii(b"null"));
        }
        if PyBool_Check(key) != 0 {
            return Ok(ascii(if key == Py_True() { b"true" } else { b"false" }));
        }
        if PyLong_Check(key) != 0 {
            return int_key_text(key);
        }
        // Float subclasses are no keys (orjson writes no float subclass).
        if PyFloat_CheckExact(key) != 0 {
            let mut text = Vec::new();
            write_f64(&mut text, PyFloat_AS_DOUBLE(key));
            return Ok(KeyText::Ascii(text));
        }
        let capi = crate::encode::types::datetime::datetime_api_for(self.st, Py_TYPE(key));
        if is_datetime_exact(capi, key) {
            return Ok(ascii(datetime_text(self.st, key, self.opts)?.as_bytes()));
        }
        if is_date_exact(capi, key) {
            return Ok(ascii(date_text(key).as_bytes()));
        }
        if is_time_exact(capi, key) {
            return Ok(ascii(time_text(key, self.opts)?.as_bytes()));
        }
        let ty = Py_TYPE(key);
        if is_uuid_type(self.st, ty) {
            return Ok(ascii(&uuid_text(self.st, key)?));
        }
        if is_enum_type(self.st, ty) {
            let value = PyObject_GetAttr(key, self.st.str_value);
            if value.is_null() {
                return Err(EncodeError::Raised);
            }
            // A level, so a `_value_` that is the member itself stops.
            let text = self.enter().and_then(|()| {
                let text = self.key_text(value);
                self.leave();
                text
            });
            Py_DECREF(value);
            return text;
        }
        Err(EncodeError::DictKeyType(ty))
    }

    /// The entries of a dict with non-str keys, ordered by the keys' text
    /// (`OPT_NON_STR_KEYS | OPT_SORT_KEYS`). Entries are held while walked,
    /// as Python code run meanwhile may change the dict.
    #[cold]
    pub(crate) unsafe fn sorted_mixed_entries(&mut self, obj: *mut PyObject, len: usize) -> Result<(), EncodeError> {
        struct Held(Vec<(Vec<u8>, *mut PyObject, *mut PyObject)>);
        impl Drop for Held {
            fn drop(&mut self) {
                // SAFETY: references taken below.
                unsafe {
                    for &(_, key, value) in &self.0 {
                        Py_DECREF(key);
                        Py_DECREF(value);
                    }
                }
            }
        }
        let mut held = Held(Vec::new());
        fallible::reserve(&mut held.0, len).map_err(|_| EncodeError::NoMemory)?;
        let (mut pos, mut key, mut value): (Py_ssize_t, *mut PyObject, *mut PyObject) =
            (0, core::ptr::null_mut(), core::ptr::null_mut());
        while PyDict_Next(obj, &mut pos, &mut key, &mut value) != 0 {
            // No Python code runs in this loop, so the dict still has `len` entries.
            fallible::push(&mut held.0, (Vec::new(), key, value)).map_err(|_| EncodeError::NoMemory)?;
            Py_INCREF(key);
            Py_INCREF(value);
        }
        // Working out the texts may run Python code (utcoffset, enum values),
        // so it happens after the entries are copied out and held.
        for entry in held.0.iter_mut() {
            entry.0 = if PyUnicode_Check(entry.1) != 0 {
                str_sort_bytes(entry.1)?
            } else if E::NATIVE_KEYS {
                self.sort_text_of_native_key(entry.1)?
            } else {
                self.key_text(entry.1)?.sort_bytes()?
            };
        }
        held.0.sort_by(|a, b| a.0.cmp(&b.0));
        for (i, &(_, key, value)) in held.0.iter().enumerate() {
            self.emitter.map_key(i);
            if let Err(e) = self.key(key) {
                let e = self.in_key(key, e);
                self.key_pending_taken();
                return Err(e);
            }
            self.emitter.map_value();
            self.walk(value).map_err(|e| self.at_key(key, e))?;
        }
        Ok(())
    }

    /// MessagePack keys are ordered by the text JSON would give them; keys
    /// with no JSON text (bytes, tuples) by their `repr`.
    unsafe fn sort_text_of_native_key(&mut self, key: *mut PyObject) -> Result<Vec<u8>, EncodeError> {
        if PyBytes_Check(key) != 0 || PyTuple_Check(key) != 0 {
            let repr = PyObject_Repr(key);
            if repr.is_null() {
                if PyErr_ExceptionMatches(PyExc_MemoryError) != 0 {
                    return Err(EncodeError::Raised);
                }
                // A tuple item whose repr raised: ordered as "?".
                PyErr_Clear();
                return Ok(b"?".to_vec());
            }
            let bytes = str_sort_bytes(repr);
            Py_DECREF(repr);
            return bytes;
        }
        self.key_text(key)?.sort_bytes()
    }
}

/// An int key's value, which must fit in 64 bits.
enum IntKey {
    Signed(i64),
    Unsigned(u64),
}

/// The value of int key `key`, or `too_big` beyond -2**63 .. 2**64-1 (keys
/// never go to `default`, whatever the passthrough flags say).
unsafe fn int_key_value(key: *mut PyObject, too_big: EncodeError) -> Result<IntKey, EncodeError> {
    let mut overflow = 0;
    let value = PyLong_AsLongLongAndOverflow(key, &mut overflow);
    if overflow == 0 {
        if value == -1 && !PyErr_Occurred().is_null() {
            return Err(EncodeError::Raised);
        }
        return Ok(IntKey::Signed(value));
    }
    if overflow > 0 {
        let value = PyLong_AsUnsignedLongLong(key);
        if value != u64::MAX || PyErr_Occurred().is_null() {
            return Ok(IntKey::Unsigned(value));
        }
        PyErr_Clear();
    }
    Err(too_big)
}

/// An int key's decimal text; beyond 64 bits an error, as in orjson.
unsafe fn int_key_text(key: *mut PyObject) -> Result<KeyText, EncodeError> {
    let mut text = Vec::new();
    match int_key_value(key, EncodeError::DictIntegerKeyRange)? {
        IntKey::Signed(value) => write_i64(&mut text, value),
        IntKey::Unsigned(value) => write_u64(&mut text, value),
    }
    Ok(KeyText::Ascii(text))
}

//! `_json_encode`: the encoder behind `orcodec.json` (the standard library
//! `json` module's API), writing the stdlib's text with the core's
//! [`StdlibWriter`].
//!
//! This walker is not the orjson walker (`walker.rs`): the stdlib knows only
//! dict, list, tuple, str, int, float, True, False and None (and subclasses of
//! the first six) and hands everything else to `default`; its keys are coerced
//! (int, float, bool and None keys become text, others raise or are skipped),
//! circular references raise ValueError, nesting is bounded by the
//! interpreter's recursion limit, and the walk follows the stdlib's order of
//! checks and calls so that hooks with side effects see the same calls.
//!
//! Every object the walk reads from a container is held by a strong reference
//! while it is encoded: `default` may run any code, including code that
//! empties the container.

use core::ffi::c_int;
use core::ptr::null_mut;
use orcodec_core::json::stdlib::{Layout, StdlibWriter};
use orcodec_core::text::Text;
use pyo3_ffi::*;

use crate::cpython::object::Owned;
use crate::cpython::str::text_of;

/// Deeper than this the walk raises RecursionError whatever the
/// interpreter's recursion limit says: the Rust stack must not overflow.
const MAX_DEPTH: usize = 10_000;

const RECURSION_WHERE: &core::ffi::CStr = c" while encoding a JSON object";

struct Encoder {
    w: StdlibWriter,
    /// The callable for unknown objects, or NULL (TypeError).
    default: *mut PyObject,
    skipkeys: bool,
    check_circular: bool,
    allow_nan: bool,
    sort_keys: bool,
    /// The pure-Python encoder's messages (it appends the repr of a refused
    /// float); the C encoder's otherwise.
    py_messages: bool,
    /// The containers (and objects given to `default`) being encoded.
    markers: Vec<*mut PyObject>,
    depth: usize,
}

/// An exception is set.
struct Raised;

/// The writer could not grow its output: MemoryError.
#[cold]
fn no_memory(_: orcodec_core::fallible::NoMemory) -> Raised {
    // SAFETY: raising with the GIL held (every entry point holds it).
    unsafe { PyErr_NoMemory() };
    Raised
}

type R = Result<(), Raised>;

unsafe fn raise(exc: *mut PyObject, msg: &str) -> Raised {
    let text = PyUnicode_FromStringAndSize(msg.as_ptr() as *const _, msg.len() as Py_ssize_t);
    if !text.is_null() {
        PyErr_SetObject(exc, text);
        Py_DECREF(text);
    }
    Raised
}

/// The name of `obj`'s type, as `type(obj).__name__` gives it.
unsafe fn type_name(obj: *mut PyObject) -> String {
    let name = PyObject_GetAttrString(Py_TYPE(obj) as *mut PyObject, c"__name__".as_ptr());
    if name.is_null() {
        PyErr_Clear();
        return String::from("?");
    }
    let mut len: Py_ssize_t = 0;
    let ptr = PyUnicode_AsUTF8AndSize(name, &mut len);
    let out = if ptr.is_null() {
        PyErr_Clear();
        String::from("?")
    } else {
        // SAFETY: CPython returned `len` bytes of UTF-8 owned by `name`.
        String::from_utf8_lossy(core::slice::from_raw_parts(ptr as *const u8, len as usize)).into_owned()
    };
    Py_DECREF(name);
    out
}

impl Encoder {
    unsafe fn enter(&mut self) -> R {
        if self.depth >= MAX_DEPTH {
            return Err(raise(PyExc_RecursionError, "maximum recursion depth exceeded while encoding a JSON object"));
        }
        if Py_EnterRecursiveCall(RECURSION_WHERE.as_ptr()) != 0 {
            return Err(Raised);
        }
        self.depth += 1;
        Ok(())
    }

    unsafe fn leave(&mut self) {
        self.depth -= 1;
        Py_LeaveRecursiveCall();
    }

    unsafe fn mark(&mut self, obj: *mut PyObject) -> R {
        if self.check_circular {
            if self.markers.contains(&obj) {
                return Err(raise(PyExc_ValueError, "Circular reference detected"));
            }
            orcodec_core::fallible::push(&mut self.markers, obj).map_err(no_memory)?;
        }
        Ok(())
    }

    fn unmark(&mut self) {
        if self.check_circular {
            self.markers.pop();
        }
    }

    unsafe fn string(&mut self, obj: *mut PyObject) -> R {
        match text_of(obj) {
            Some(text) => {
                self.w.str(text).map_err(no_memory)?;
                Ok(())
            }
            None => Err(Raised),
        }
    }

    /// An int (or subclass) as `int.__repr__` writes it.
    unsafe fn int(&mut self, obj: *mut PyObject) -> R {
        let mut overflow: c_int = 0;
        let v = PyLong_AsLongLongAndOverflow(obj, &mut overflow);
        if overflow == 0 {
            if v == -1 && !PyErr_Occurred().is_null() {
                return Err(Raised);
            }
            self.w.i64(v).map_err(no_memory)?;
            return Ok(());
        }
        // Beyond 64 bits: CPython's own text (which applies the interpreter's
        // limit on int digits).
        let text = match (*core::ptr::addr_of_mut!(PyLong_Type)).tp_repr {
            Some(repr) => Owned::new(repr(obj)).map_err(|_| Raised)?,
            None => Owned::new(PyObject_Str(obj)).map_err(|_| Raised)?,
        };
        self.string_raw(text.as_ptr())
    }

    /// The characters of ASCII str `obj` (an int's or float's text), unquoted.
    unsafe fn string_raw(&mut self, obj: *mut PyObject) -> R {
        match text_of(obj) {
            Some(Text::Utf8(bytes)) => {
                self.w.raw(bytes).map_err(no_memory)?;
                Ok(())
            }
            Some(_) => Err(raise(PyExc_ValueError, "number text is not ASCII")),
            None => Err(Raised),
        }
    }

    /// A float (or subclass) as `float.__repr__` writes it, or its NaN /
    /// Infinity text when allowed.
    unsafe fn float(&mut self, obj: *mut PyObject, quoted: bool) -> R {
        let v = PyFloat_AsDouble(obj);
        if v == -1.0 && !PyErr_Occurred().is_null() {
            return Err(Raised);
        }
        if !v.is_finite() && !self.allow_nan {
            return Err(self.refused_float(obj));
        }
        if quoted {
            self.w.raw(b"\"").map_err(no_memory)?;
        }
        self.w.f64(v).map_err(no_memory)?;
        if quoted {
            self.w.raw(b"\"").map_err(no_memory)?;
        }
        Ok(())
    }

    #[cold]
    unsafe fn refused_float(&mut self, obj: *mut PyObject) -> Raised {
        const MSG: &str = "Out of range float values are not JSON compliant";
        // Before 3.12 the C encoder's message names no value; from 3.12 it
        // gives the value's repr, as the Python encoder always did.
        if !self.py_messages && !cfg!(Py_3_12) {
            return raise(PyExc_ValueError, MSG);
        }
        let repr = PyObject_Repr(obj);
        if repr.is_null() {
            return Raised;
        }
        let mut len: Py_ssize_t = 0;
        let ptr = PyUnicode_AsUTF8AndSize(repr, &mut len);
        let out = if ptr.is_null() {
            Raised
        } else {
            // SAFETY: `len` bytes of UTF-8 owned by `repr`, alive until the DECREF below.
            let text = String::from_utf8_lossy(core::slice::from_raw_parts(ptr as *const u8, len as usize));
            raise(PyExc_ValueError, &format!("{MSG}: {text}"))
        };
        Py_DECREF(repr);
        out
    }

    /// Any value, in the order of checks of the standard library's encoder.
    unsafe fn value(&mut self, obj: *mut PyObject) -> R {
        if obj == Py_None() {
            self.w.raw(b"null").map_err(no_memory)?;
        } else if obj == Py_True() {
            self.w.raw(b"true").map_err(no_memory)?;
        } else if obj == Py_False() {
            self.w.raw(b"false").map_err(no_memory)?;
        } else if PyUnicode_Check(obj) != 0 {
            self.string(obj)?;
        } else if PyLong_Check(obj) != 0 {
            self.int(obj)?;
        } else if PyFloat_Check(obj) != 0 {
            self.float(obj, false)?;
        } else if PyList_Check(obj) != 0 || PyTuple_Check(obj) != 0 {
            self.enter()?;
            let r = self.list(obj);
            self.leave();
            r?;
        } else if PyDict_Check(obj) != 0 {
            self.enter()?;
            let r = self.dict(obj);
            self.leave();
            r?;
        } else {
            self.other(obj)?;
        }
        Ok(())
    }

    /// What the standard library hands to `default`.
    unsafe fn other(&mut self, obj: *mut PyObject) -> R {
        self.mark(obj)?;
        if self.default.is_null() {
            let name = type_name(obj);
            return Err(raise(PyExc_TypeError, &format!("Object of type {name} is not JSON serializable")));
        }
        let replaced = Owned::new(PyObject_CallOneArg(self.default, obj)).map_err(|_| Raised)?;
        self.enter()?;
        let r = self.value(replaced.as_ptr());
        self.leave();
        r?;
        self.unmark();
        Ok(())
    }

    unsafe fn list(&mut self, seq: *mut PyObject) -> R {
        let is_list = PyList_Check(seq) != 0;
        let len = |seq| if is_list { PyList_GET_SIZE(seq) } else { PyTuple_GET_SIZE(seq) };
        if len(seq) == 0 {
            self.w.raw(b"[]").map_err(no_memory)?;
            return Ok(());
        }
        self.mark(seq)?;
        self.w.open(b'[').map_err(no_memory)?;
        let mut i = 0;
        // The length is read again after every item: `default` may shrink a list.
        while i < len(seq) {
            let item = if is_list { PyList_GET_ITEM(seq, i) } else { PyTuple_GET_ITEM(seq, i) };
            Py_INCREF(item);
            let item = Owned::new(item).map_err(|_| Raised)?;
            if i > 0 {
                self.w.item_separator().map_err(no_memory)?;
            }
            self.value(item.as_ptr())?;
            i += 1;
        }
        self.w.close(b']').map_err(no_memory)?;
        self.unmark();
        Ok(())
    }

    unsafe fn dict(&mut self, dct: *mut PyObject) -> R {
        if PyDict_Size(dct) == 0 {
            self.w.raw(b"{}").map_err(no_memory)?;
            return Ok(());
        }
        self.mark(dct)?;
        self.w.open(b'{').map_err(no_memory)?;
        let mut first = true;
        if PyDict_CheckExact(dct) != 0 && !self.sort_keys {
            let mut pos: Py_ssize_t = 0;
            let mut key = null_mut();
            let mut value = null_mut();
            while PyDict_Next(dct, &mut pos, &mut key, &mut value) != 0 {
                Py_INCREF(key);
                Py_INCREF(value);
                let (key, value) = (Owned::new(key).map_err(|_| Raised)?, Owned::new(value).map_err(|_| Raised)?);
                self.item(key.as_ptr(), value.as_ptr(), &mut first)?;
            }
        } else {
            // The stdlib's way: a list of the (key, value) pairs, sorted as
            // tuples when asked (so keys of mixed types raise TypeError).
            let items = Owned::new(PyMapping_Items(dct)).map_err(|_| Raised)?;
            if self.sort_keys && PyList_Sort(items.as_ptr()) != 0 {
                return Err(Raised);
            }
            let mut i = 0;
            while i < PyList_GET_SIZE(items.as_ptr()) {
                let pair = PyList_GET_ITEM(items.as_ptr(), i);
                Py_INCREF(pair);
                let pair = Owned::new(pair).map_err(|_| Raised)?;
                if PyTuple_Check(pair.as_ptr()) == 0 || PyTuple_GET_SIZE(pair.as_ptr()) != 2 {
                    return Err(raise(PyExc_ValueError, "items must return 2-tuples"));
                }
                let key = PyTuple_GET_ITEM(pair.as_ptr(), 0);
                let value = PyTuple_GET_ITEM(pair.as_ptr(), 1);
                self.item(key, value, &mut first)?;
                i += 1;
            }
        }
        self.w.close(b'}').map_err(no_memory)?;
        self.unmark();
        Ok(())
    }

    /// One key and value; keys coerced as the standard library does.
    unsafe fn item(&mut self, key: *mut PyObject, value: *mut PyObject, first: &mut bool) -> R {
        // The key's text first: a skipped key writes no separator.
        let start = self.w.out.len();
        if !*first {
            self.w.item_separator().map_err(no_memory)?;
        }
        if PyUnicode_Check(key) != 0 {
            self.string(key)?;
        } else if PyFloat_Check(key) != 0 {
            self.float(key, true)?;
        } else if key == Py_True() {
            self.w.raw(b"\"true\"").map_err(no_memory)?;
        } else if key == Py_False() {
            self.w.raw(b"\"false\"").map_err(no_memory)?;
        } else if key == Py_None() {
            self.w.raw(b"\"null\"").map_err(no_memory)?;
        } else if PyLong_Check(key) != 0 {
            self.w.raw(b"\"").map_err(no_memory)?;
            self.int(key)?;
            self.w.raw(b"\"").map_err(no_memory)?;
        } else if self.skipkeys {
            self.w.out.truncate(start);
            return Ok(());
        } else {
            let name = type_name(key);
            return Err(raise(PyExc_TypeError, &format!("keys must be str, int, float, bool or None, not {name}")));
        }
        *first = false;
        self.w.key_separator().map_err(no_memory)?;
        self.value(value)
    }
}

/// Bytes of a `bytes` argument (separators and indent, UTF-8 encoded with
/// `surrogatepass` by the caller).
unsafe fn bytes_arg(obj: *mut PyObject, what: &str) -> Result<Vec<u8>, Raised> {
    if PyBytes_Check(obj) == 0 {
        return Err(raise(PyExc_TypeError, &format!("_json_encode: {what} must be bytes")));
    }
    let ptr = PyBytes_AS_STRING(obj) as *const u8;
    // SAFETY: a bytes object's buffer of its size, alive while the caller holds it.
    Ok(core::slice::from_raw_parts(ptr, PyBytes_Size(obj) as usize).to_vec())
}

unsafe fn truth(obj: *mut PyObject) -> Result<bool, Raised> {
    match PyObject_IsTrue(obj) {
        -1 => Err(Raised),
        v => Ok(v != 0),
    }
}

/// `_json_encode(obj, default, skipkeys, ensure_ascii, check_circular,
/// allow_nan, sort_keys, indent, key_separator, item_separator, py_messages)`:
/// positional only; `indent` is None or bytes, the separators bytes (all
/// UTF-8, from `orcodec.json`, which checks their types). Returns a `str`.
pub unsafe extern "C" fn json_encode(
    _module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    if nargs != 11 || !(kwnames.is_null() || PyTuple_GET_SIZE(kwnames) == 0) {
        raise(PyExc_TypeError, "_json_encode takes exactly 11 positional arguments");
        return null_mut();
    }
    // SAFETY: CPython passes `nargs` arguments.
    let a = core::slice::from_raw_parts(args, 11);
    match encode(a) {
        Ok(s) => s,
        Err(Raised) => null_mut(),
    }
}

unsafe fn encode(a: &[*mut PyObject]) -> Result<*mut PyObject, Raised> {
    let default = if a[1] == Py_None() { null_mut() } else { a[1] };
    let indent = if a[7] == Py_None() { None } else { Some(bytes_arg(a[7], "indent")?) };
    let layout = Layout {
        item_separator: bytes_arg(a[9], "item_separator")?,
        key_separator: bytes_arg(a[8], "key_separator")?,
        indent,
        ensure_ascii: truth(a[3])?,
    };
    // Separators or indent may carry surrogates too (encoded by the caller
    // with `surrogatepass`).
    let layout_surrogates = [&layout.item_separator, &layout.key_separator]
        .into_iter()
        .chain(layout.indent.as_ref())
        .any(|b| b.windows(2).any(|p| p[0] == 0xed && p[1] >= 0xa0));
    let mut enc = Encoder {
        w: StdlibWriter::new(layout),
        default,
        skipkeys: truth(a[2])?,
        check_circular: truth(a[4])?,
        allow_nan: truth(a[5])?,
        sort_keys: truth(a[6])?,
        py_messages: truth(a[10])?,
        markers: Vec::new(),
        depth: 0,
    };
    enc.value(a[0])?;
    let out = &enc.w.out;
    if enc.w.is_ascii_only() {
        let s = PyUnicode_New(out.len() as Py_ssize_t, 127);
        if s.is_null() {
            return Err(Raised);
        }
        // SAFETY: a fresh ASCII str has room for `out.len()` bytes, and every
        // byte written is ASCII (ensure_ascii with ASCII separators and indent).
        core::ptr::copy_nonoverlapping(out.as_ptr(), PyUnicode_DATA(s) as *mut u8, out.len());
        return Ok(s);
    }
    let s = if enc.w.surrogates || layout_surrogates {
        // Lone surrogates, written in their 3-byte form: CPython's decoder
        // takes them back with `surrogatepass`.
        PyUnicode_DecodeUTF8(out.as_ptr() as *const _, out.len() as Py_ssize_t, c"surrogatepass".as_ptr())
    } else if orcodec_core::text::ascii::is_ascii(out) {
        crate::decode::strs::new_ascii_str(out)
    } else {
        // SAFETY: valid UTF-8 (the writer encodes code points, and no
        // surrogate was written) with a byte beyond ASCII.
        crate::decode::strs::new_non_ascii_str(out)
    };
    if s.is_null() {
        return Err(Raised);
    }
    Ok(s)
}

//! Raising the formats' exceptions.

use core::ffi::c_char;
use pyo3_ffi::*;

/// A failure that has already been turned into a Python exception (the
/// exception is set; the caller returns NULL).
#[derive(Debug)]
pub struct Raised;

/// Raises `kind(message)`.
pub unsafe fn raise(kind: *mut PyObject, message: &str) -> Raised {
    let text = PyUnicode_FromStringAndSize(message.as_ptr() as *const c_char, message.len() as Py_ssize_t);
    if !text.is_null() {
        PyErr_SetObject(kind, text);
        Py_DECREF(text);
    }
    Raised
}

/// Takes the exception currently set (normalized), leaving none set.
pub fn take_exception() -> *mut PyObject {
    // SAFETY: the calls take and release only the references they hand over.
    unsafe {
        #[cfg(Py_3_12)]
        {
            PyErr_GetRaisedException()
        }
        #[cfg(not(Py_3_12))]
        {
            let (mut kind, mut value, mut tb) = (core::ptr::null_mut(), core::ptr::null_mut(), core::ptr::null_mut());
            PyErr_Fetch(&mut kind, &mut value, &mut tb);
            PyErr_NormalizeException(&mut kind, &mut value, &mut tb);
            if !tb.is_null() && !value.is_null() {
                PyException_SetTraceback(value, tb);
            }
            Py_XDECREF(kind);
            Py_XDECREF(tb);
            value
        }
    }
}

/// Raises `kind(message)` with the currently set exception as its `__cause__`.
pub unsafe fn raise_from_current(kind: *mut PyObject, message: &str) -> Raised {
    let cause = take_exception();
    let text = PyUnicode_FromStringAndSize(message.as_ptr() as *const c_char, message.len() as Py_ssize_t);
    if text.is_null() {
        Py_XDECREF(cause);
        return Raised;
    }
    let exc = PyObject_CallOneArg(kind, text);
    Py_DECREF(text);
    if exc.is_null() {
        Py_XDECREF(cause);
        return Raised;
    }
    if !cause.is_null() {
        // Steals the reference to `cause`.
        PyException_SetCause(exc, cause);
    }
    PyErr_SetObject(kind, exc);
    Py_DECREF(exc);
    Raised
}

/// The most bytes of a value that an error message quotes. A message about
/// a value of any size stays short, and making it never asks for memory the
/// size of the input (Rust's strings abort the process when that fails).
pub(crate) const SHOWN_BYTES: usize = 200;

/// The start of `text` that a message quotes: at most [`SHOWN_BYTES`],
/// ending on a UTF-8 character boundary; and whether it was cut.
pub(crate) fn clip(text: &[u8]) -> (&[u8], bool) {
    clip_at(text, SHOWN_BYTES)
}

fn clip_at(text: &[u8], max: usize) -> (&[u8], bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while end > 0 && text[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    (&text[..end], true)
}

/// [`clip`] for a `str`.
pub(crate) fn clip_str(text: &str) -> (&str, bool) {
    let (head, cut) = clip(text.as_bytes());
    // `clip` ends on a character boundary.
    (text.get(..head.len()).unwrap_or(""), cut)
}

/// `text` as a message quotes it: invalid UTF-8 replaced, and cut after
/// [`SHOWN_BYTES`] with `...`.
pub(crate) fn shown(text: &[u8]) -> String {
    shown_at(text, SHOWN_BYTES)
}

fn shown_at(text: &[u8], max: usize) -> String {
    let (head, cut) = clip_at(text, max);
    let head = String::from_utf8_lossy(head);
    if cut {
        format!("{head}...")
    } else {
        head.into_owned()
    }
}

/// `repr(obj)` as a Rust string, for messages, cut with `...` after
/// `4 * SHOWN_BYTES + 2` bytes: room for the quotes and escapes of a repr of
/// a text [`clip`] cut, so that one is shown whole.
pub(crate) unsafe fn repr(obj: *mut PyObject) -> String {
    let r = PyObject_Repr(obj);
    if r.is_null() {
        PyErr_Clear();
        return "?".into();
    }
    let mut len: Py_ssize_t = 0;
    let data = PyUnicode_AsUTF8AndSize(r, &mut len);
    let text = if data.is_null() {
        PyErr_Clear();
        "?".into()
    } else {
        shown_at(core::slice::from_raw_parts(data as *const u8, len as usize), 4 * SHOWN_BYTES + 2)
    };
    Py_DECREF(r);
    text
}

/// Sets `exc` (an owned, normalized exception; consumed) as the current exception.
pub unsafe fn restore_exception(exc: *mut PyObject) {
    #[cfg(Py_3_12)]
    {
        PyErr_SetRaisedException(exc);
    }
    #[cfg(not(Py_3_12))]
    {
        let kind = Py_TYPE(exc) as *mut PyObject;
        Py_INCREF(kind);
        PyErr_Restore(kind, exc, PyException_GetTraceback(exc));
    }
}

/// Adds `note` to exception `exc` the way PEP 678's `add_note` does: appended
/// to its `__notes__` list, which tracebacks print after the message and
/// `str(exc)` leaves out, so the message stays the one users match on. Works
/// on every version (3.11 made tracebacks print the notes). Best effort: a
/// note that cannot be added is dropped, nothing is raised.
pub unsafe fn add_note(exc: *mut PyObject, note: &str) {
    let text = PyUnicode_FromStringAndSize(note.as_ptr() as *const c_char, note.len() as Py_ssize_t);
    if text.is_null() {
        PyErr_Clear();
        return;
    }
    let name = c"__notes__".as_ptr();
    let mut notes = PyObject_GetAttrString(exc, name);
    if notes.is_null() {
        PyErr_Clear();
        notes = PyList_New(0);
        if notes.is_null() || PyObject_SetAttrString(exc, name, notes) != 0 {
            PyErr_Clear();
            Py_XDECREF(notes);
            Py_DECREF(text);
            return;
        }
    }
    if PyList_Check(notes) == 0 || PyList_Append(notes, text) != 0 {
        PyErr_Clear();
    }
    Py_DECREF(notes);
    Py_DECREF(text);
}

/// Adds `note` to the exception currently set (if any), which stays set.
pub unsafe fn add_note_to_current(note: &str) {
    let exc = take_exception();
    if exc.is_null() {
        return;
    }
    add_note(exc, note);
    restore_exception(exc);
}

//! What the walker records about an encode error as it passes out of the
//! containers it happened in: the `$` path, the object at fault, whether it
//! was in a key. `notes.rs` turns it into notes once the exception is
//! raised; nothing is recorded while encoding succeeds.

use pyo3_ffi::*;

/// One step from a container to what it holds, recorded as an error passes out.
pub enum Segment {
    Index(usize),
    /// A dict key (a strong reference).
    Key(*mut PyObject),
    /// A dataclass field's name (a strong reference).
    Field(*mut PyObject),
    /// A dict key that was gone by the time the error passed (Python code
    /// run meanwhile removed it).
    Lost,
}

impl Drop for Segment {
    fn drop(&mut self) {
        if let Segment::Key(obj) | Segment::Field(obj) = *self {
            // SAFETY: the reference was taken when the segment was made.
            unsafe { Py_DECREF(obj) }
        }
    }
}

/// What the walker learns about an error on its way out, beyond its kind.
#[derive(Default)]
pub struct ErrorContext {
    /// Where the error happened, innermost step first.
    pub path: Vec<Segment>,
    /// The object at fault, when the note names it (a key, an array): a
    /// strong reference, or NULL.
    pub culprit: Culprit,
    /// Whether the error is in a dict key rather than a value.
    pub in_key: bool,
    /// Set with `in_key` until the loop of the map with that key passes the
    /// error on (it records no step for it).
    pub key_pending: bool,
    /// A message worked out where the error happened (numpy datetimes).
    pub text: Option<String>,
}

/// A strong reference or NULL, released on drop.
pub struct Culprit(pub *mut PyObject);

impl Default for Culprit {
    fn default() -> Self {
        Culprit(core::ptr::null_mut())
    }
}

impl Drop for Culprit {
    fn drop(&mut self) {
        // SAFETY: a strong reference or NULL.
        unsafe { Py_XDECREF(self.0) }
    }
}

impl ErrorContext {
    /// Keeps `obj` as the object at fault (the innermost one wins).
    pub unsafe fn blame(&mut self, obj: *mut PyObject) {
        if self.culprit.0.is_null() {
            Py_INCREF(obj);
            self.culprit.0 = obj;
        }
    }
}

/// Whether `dict` holds `key` (the very object) as a key: then it is alive.
/// Compares addresses only, so `key` is never read.
pub unsafe fn dict_holds_key(dict: *mut PyObject, key: *mut PyObject) -> bool {
    let (mut pos, mut k, mut v): (Py_ssize_t, *mut PyObject, *mut PyObject) =
        (0, core::ptr::null_mut(), core::ptr::null_mut());
    while PyDict_Next(dict, &mut pos, &mut k, &mut v) != 0 {
        if k == key {
            return true;
        }
    }
    false
}

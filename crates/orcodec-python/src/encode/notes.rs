//! Help on encode errors that changes no message: PEP 678 notes (shown by
//! tracebacks after the message, left out of `str(exc)`, which stays the
//! peer's) giving where in the document the offending value is and, when a
//! flag would have made it work, which one.
//!
//! Nothing here runs unless encoding fails: the walker records a path
//! segment only while an error passes out of a container (`Walker::at_*`),
//! innermost first, and the notes are written once the exception is raised.

use pyo3_ffi::*;

use crate::encode::context::{ErrorContext, Segment};
use crate::encode::error::EncodeError;
use crate::module::errors::{add_note, repr, restore_exception, take_exception};
use crate::module::options::{self, Opt};
use crate::state::State;

/// Steps shown at each end of a deep path.
const PATH_ENDS: usize = 8;

/// The longest key text shown in a path; longer keys are cut.
const MAX_KEY_TEXT: usize = 40;

/// Whether `text` can follow a `.` in a path (an ASCII identifier).
fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A str object's text (lone surrogates shown as `\udXXX`), or None.
unsafe fn text(obj: *mut PyObject) -> Option<String> {
    if PyUnicode_Check(obj) == 0 {
        return None;
    }
    let encoded = PyUnicode_AsEncodedString(obj, c"utf-8".as_ptr(), c"backslashreplace".as_ptr());
    if encoded.is_null() {
        PyErr_Clear();
        return None;
    }
    let text = String::from_utf8_lossy(crate::cpython::bytes::bytes_data(encoded)).into_owned();
    Py_DECREF(encoded);
    Some(text)
}

fn shortened(mut text: String) -> String {
    if text.chars().count() > MAX_KEY_TEXT {
        text = text.chars().take(MAX_KEY_TEXT).collect::<String>() + "...";
    }
    text
}

/// `$` followed by each step: `.name` for identifier keys and fields,
/// `["key"]` for other str keys, `[3]` for indices, `[repr]` for other keys.
#[expect(
    clippy::disallowed_methods,
    reason = "an error's $ path: at most 2 * PATH_ENDS steps of at most MAX_KEY_TEXT characters"
)]
pub unsafe fn render_path(path: &[Segment]) -> String {
    let mut out = String::from("$");
    let levels = path.len();
    for (depth, segment) in path.iter().rev().enumerate() {
        // A deep path keeps its first and last steps.
        if levels > 2 * PATH_ENDS && (PATH_ENDS..levels - PATH_ENDS).contains(&depth) {
            if depth == PATH_ENDS {
                out.push_str(&format!("...({} levels)...", levels - 2 * PATH_ENDS));
            }
            continue;
        }
        match *segment {
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
            Segment::Lost => out.push_str("[?]"),
            Segment::Key(key) | Segment::Field(key) => match text(key) {
                Some(name) if is_identifier(&name) && name.len() <= MAX_KEY_TEXT => {
                    out.push('.');
                    out.push_str(&name);
                }
                Some(name) => {
                    let quoted = shortened(name).replace('\\', "\\\\").replace('"', "\\\"");
                    out.push_str(&format!("[\"{quoted}\"]"));
                }
                None => out.push_str(&format!("[{}]", shortened(repr(key)))),
            },
        }
    }
    out
}

/// The type name of `obj` for notes.
unsafe fn type_name(obj: *mut PyObject) -> String {
    core::ffi::CStr::from_ptr((*Py_TYPE(obj)).tp_name).to_string_lossy().into_owned()
}

/// Whether a type that reached "not serializable" is one OPT_SERIALIZE_NUMPY
/// writes (ndarray and the scalar types of the element types it writes; not
/// numpy.bytes_, numpy.longdouble...).
unsafe fn serialize_numpy_writes(st: &'static State, ty: *mut PyTypeObject) -> bool {
    match crate::encode::types::numpy::numpy_types(st) {
        Some(types) => ty == types.ndarray || types.scalars.iter().any(|&(t, _)| t == ty),
        None => false,
    }
}

/// The notes for `err`, raised as the current exception: where, and the
/// flag or the reason that would have made it work.
#[cold]
pub unsafe fn add_notes(st: &'static State, err: &EncodeError, context: &ErrorContext, opts: Opt, msgpack: bool) {
    if PyErr_Occurred().is_null() || PyErr_ExceptionMatches(PyExc_MemoryError) != 0 {
        return;
    }
    // Working the notes out calls into Python (repr, attributes), which must
    // not happen with an exception set.
    let exc = take_exception();
    for note in notes_for(st, err, context, opts, msgpack) {
        add_note(exc, &note);
    }
    restore_exception(exc);
}

#[expect(clippy::disallowed_methods, reason = "at most three notes, each a short sentence")]
unsafe fn notes_for(
    st: &'static State,
    err: &EncodeError,
    context: &ErrorContext,
    opts: Opt,
    msgpack: bool,
) -> Vec<String> {
    let culprit = context.culprit.0;
    let mut notes = Vec::new();
    if !context.path.is_empty() {
        let path = render_path(&context.path);
        if context.in_key && !culprit.is_null() {
            notes.push(format!("in the key {} of the dict at {path}", shortened(repr(culprit))));
        } else if context.in_key {
            notes.push(format!("in a key of the dict at {path}"));
        } else {
            notes.push(format!("at {path}"));
        }
    } else if context.in_key && !culprit.is_null() {
        notes.push(format!("in the key {}", shortened(repr(culprit))));
    }
    match *err {
        EncodeError::DictKeyNotStr => {
            let kind = if culprit.is_null() { String::new() } else { format!(" (this one is {})", type_name(culprit)) };
            notes.push(format!("dict keys must be str{kind}: pass OPT_NON_STR_KEYS to write keys of other types"));
        }
        EncodeError::DictKeyType(ty) => notes.push(format!(
            "a key of type {} has no key form, even with OPT_NON_STR_KEYS",
            core::ffi::CStr::from_ptr((*ty).tp_name).to_string_lossy()
        )),
        EncodeError::Surrogates if context.in_key && msgpack => notes.push(
            "a str with lone surrogates has no UTF-8 form; as a dict key it is refused even with \
                        OPT_REPLACE_SURROGATES"
                .into(),
        ),
        EncodeError::Surrogates => notes.push(
            "a str with lone surrogates has no UTF-8 form: pass OPT_REPLACE_SURROGATES to write each as '?'".into(),
        ),
        EncodeError::IntegerRange if opts & options::PASSTHROUGH_BIG_INT == 0 => {
            notes.push("pass OPT_PASSTHROUGH_BIG_INT to hand ints outside -2**63 .. 2**64-1 to default".into())
        }
        EncodeError::Unsupported(ty) | EncodeError::DefaultRaised(ty)
            if opts & options::SERIALIZE_NUMPY == 0 && serialize_numpy_writes(st, ty) =>
        {
            notes.push("pass OPT_SERIALIZE_NUMPY to write numpy arrays and scalars".into())
        }
        EncodeError::Unsupported(ty) | EncodeError::DefaultRaised(ty)
            if opts & options::SERIALIZE_PYDANTIC == 0 && crate::encode::types::pydantic::is_pydantic_type(st, ty) =>
        {
            notes.push("pass OPT_SERIALIZE_PYDANTIC to write pydantic models".into())
        }
        EncodeError::Numpy(crate::encode::error::NotSupported::DataType) if !culprit.is_null() => {
            if is_zero_dimensional(culprit) {
                notes.push("a 0-d array is no array: ndarray.item() in default gives its value".into());
            } else if let Some(dtype) = dtype_name(culprit) {
                notes.push(format!("the array's dtype is {dtype}"));
            }
        }
        _ => {}
    }
    notes
}

/// Whether `array.ndim` is 0.
unsafe fn is_zero_dimensional(array: *mut PyObject) -> bool {
    let ndim = PyObject_GetAttrString(array, c"ndim".as_ptr());
    if ndim.is_null() {
        PyErr_Clear();
        return false;
    }
    let zero = PyLong_Check(ndim) != 0 && PyLong_AsLong(ndim) == 0;
    Py_DECREF(ndim);
    zero
}

/// `str(array.dtype)`, or None.
unsafe fn dtype_name(array: *mut PyObject) -> Option<String> {
    let dtype = PyObject_GetAttrString(array, c"dtype".as_ptr());
    if dtype.is_null() {
        PyErr_Clear();
        return None;
    }
    let name = PyObject_Str(dtype);
    Py_DECREF(dtype);
    if name.is_null() {
        PyErr_Clear();
        return None;
    }
    let out = text(name);
    Py_DECREF(name);
    out
}

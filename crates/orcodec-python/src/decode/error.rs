//! Raising the decoders' errors: the stdlib-compatible `JSONDecodeError`
//! (message, document, character position), `MsgpackDecodeError` in
//! ormsgpack's words with the byte offset as `pos`, and the decode error
//! that replaces a failed buffer export.

use core::ffi::c_char;
use pyo3_ffi::*;

use orcodec_core::error::DecodeErrorKind;

use crate::module::errors::{add_note, take_exception, Raised};
use crate::module::state::state;

/// Characters in UTF-8 `prefix` (bytes that do not continue a sequence).
fn char_count(prefix: &[u8]) -> usize {
    prefix.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// Raises `JSONDecodeError(msg, doc, pos)` like the stdlib's: `doc` is the
/// input as str, `pos` a character index into it.
#[cold]
pub unsafe fn raise_json_error(msg: &str, input: &[u8], original: *mut PyObject, byte_offset: usize) -> Raised {
    let doc = if PyUnicode_Check(original) != 0 {
        Py_INCREF(original);
        original
    } else {
        PyUnicode_DecodeUTF8(input.as_ptr() as *const c_char, input.len() as Py_ssize_t, c"replace".as_ptr())
    };
    if doc.is_null() {
        return Raised;
    }
    let pos = char_count(&input[..byte_offset.min(input.len())]);
    raise_json_error_at(state().json_decode_error, msg, doc, pos);
    Py_DECREF(doc);
    Raised
}

/// Raises `kind(msg, doc, pos)`, `kind` being `JSONDecodeError` or a
/// subclass: `doc` a str, `pos` a character index into it.
#[cold]
pub unsafe fn raise_json_error_at(kind: *mut PyObject, msg: &str, doc: *mut PyObject, pos: usize) -> Raised {
    let msg = PyUnicode_FromStringAndSize(msg.as_ptr() as *const c_char, msg.len() as Py_ssize_t);
    let pos = PyLong_FromSize_t(pos);
    if !msg.is_null() && !pos.is_null() {
        let args = PyTuple_Pack(3, msg, doc, pos);
        if !args.is_null() {
            let exc = PyObject_Call(kind, args, core::ptr::null_mut());
            if !exc.is_null() {
                PyErr_SetObject(kind, exc);
                Py_DECREF(exc);
            }
            Py_DECREF(args);
        }
    }
    Py_XDECREF(msg);
    Py_XDECREF(pos);
    Raised
}

/// `kind(msg, "", 0)` (`JSONDecodeError` or a subclass), for input that is
/// no text at all.
#[cold]
pub fn raise_json_error_without_doc(kind: *mut PyObject, msg: &str) {
    // SAFETY: `empty` is a live str while it is used, then released.
    unsafe {
        let empty = PyUnicode_FromStringAndSize(core::ptr::null(), 0);
        if !empty.is_null() {
            raise_json_error_at(kind, msg, empty, 0);
            Py_DECREF(empty);
        }
    }
}

/// What a memoryview that cannot be read (not C-contiguous, released) is told.
pub const UNREADABLE_BUFFER: &str = "Input memoryview cannot be read: it must be C-contiguous and not released";

/// Replaces the exception a failed buffer export set (BufferError,
/// ValueError) with the format's decode error raised by `raise_new`,
/// keeping the original as its `__cause__`.
#[cold]
pub fn decode_error_from_current(raise_new: impl FnOnce()) {
    let cause = take_exception();
    raise_new();
    let exc = take_exception();
    // SAFETY: `cause` and `exc` are owned references or NULL, each given
    // away or released once.
    unsafe {
        if exc.is_null() {
            Py_XDECREF(cause);
            return;
        }
        if !cause.is_null() {
            // Steals the reference to `cause`.
            PyException_SetCause(exc, cause);
        }
        PyErr_SetObject(Py_TYPE(exc) as *mut PyObject, exc);
        Py_DECREF(exc);
    }
}

/// rmp's name for a MessagePack marker byte, as ormsgpack's "invalid type"
/// messages give it (`FixPos(1)`, `Str8`, `FixMap(0)`...).
pub fn marker_name(b: u8) -> String {
    let name = match b {
        0x00..=0x7f => return format!("FixPos({b})"),
        0x80..=0x8f => return format!("FixMap({})", b & 0x0f),
        0x90..=0x9f => return format!("FixArray({})", b & 0x0f),
        0xa0..=0xbf => return format!("FixStr({})", b & 0x1f),
        0xe0..=0xff => return format!("FixNeg({})", b as i8),
        0xc0 => "Null",
        0xc1 => "Reserved",
        0xc2 => "False",
        0xc3 => "True",
        0xc4 => "Bin8",
        0xc5 => "Bin16",
        0xc6 => "Bin32",
        0xc7 => "Ext8",
        0xc8 => "Ext16",
        0xc9 => "Ext32",
        0xca => "F32",
        0xcb => "F64",
        0xcc => "U8",
        0xcd => "U16",
        0xce => "U32",
        0xcf => "U64",
        0xd0 => "I8",
        0xd1 => "I16",
        0xd2 => "I32",
        0xd3 => "I64",
        0xd4 => "FixExt1",
        0xd5 => "FixExt2",
        0xd6 => "FixExt4",
        0xd7 => "FixExt8",
        0xd8 => "FixExt16",
        0xd9 => "Str8",
        0xda => "Str16",
        0xdb => "Str32",
        0xdc => "Array16",
        0xdd => "Array32",
        0xde => "Map16",
        0xdf => "Map32",
    };
    name.into()
}

/// ormsgpack's message for a decode error of `kind` at byte `offset` of
/// `input`, and what orcodec knows beyond it (a note), if anything.
fn msgpack_message(kind: &DecodeErrorKind, offset: usize, input: &[u8]) -> (String, Option<String>) {
    use DecodeErrorKind::*;
    let marker = || input.get(offset).map_or_else(|| "Reserved".into(), |&b| marker_name(b));
    match kind {
        EmptyDocument | UnexpectedEnd => ("unexpected end of file".into(), None),
        LengthBeyondInput { .. } => ("unexpected end of file".into(), Some(kind.to_string())),
        ReservedType(_) => ("invalid type Reserved".into(), Some(kind.to_string())),
        NonStrKey => (
            format!("invalid type {}", marker()),
            Some("map keys must be str: pass OPT_NON_STR_KEYS to read keys of other types".into()),
        ),
        MapKey => (format!("invalid type {}", marker()), Some("a map cannot be a map key (it is not hashable)".into())),
        InvalidUtf8 => ("invalid UTF-8 string".into(), None),
        DepthLimit => ("Recursion limit reached".into(), Some(kind.to_string())),
        ExtensionType(tag) => {
            let timestamps = if *tag == -1 { " (or OPT_DATETIME_AS_TIMESTAMP_EXT for timestamps)" } else { "" };
            ("ext_hook missing".into(), Some(format!("extension type {tag}: pass ext_hook to decode it{timestamps}")))
        }
        InvalidTimestamp { .. } => ("invalid value".into(), Some(kind.to_string())),
        // orcodec's own (ormsgpack ignores what follows the value).
        TrailingData => (kind.to_string(), None),
        _ => (kind.to_string(), None),
    }
}

/// Raises `MsgpackDecodeError` for a decode that stopped at byte `offset`:
/// ormsgpack's message, the offset as `pos`, and notes with the offset and
/// what else orcodec knows.
#[cold]
pub unsafe fn raise_msgpack_error(kind: &DecodeErrorKind, offset: usize, input: &[u8]) -> Raised {
    let (message, detail) = msgpack_message(kind, offset, input);
    let exc = new_msgpack_error(&message, offset as isize);
    if exc.is_null() {
        return Raised;
    }
    add_note(exc, &format!("at byte {offset}"));
    if let Some(detail) = detail {
        add_note(exc, &detail);
    }
    PyErr_SetObject(Py_TYPE(exc) as *mut PyObject, exc);
    Py_DECREF(exc);
    Raised
}

/// A new `MsgpackDecodeError(message)` with `pos` set (None when negative),
/// or NULL with an exception set.
pub unsafe fn new_msgpack_error(message: &str, pos: isize) -> *mut PyObject {
    let text = PyUnicode_FromStringAndSize(message.as_ptr() as *const c_char, message.len() as Py_ssize_t);
    if text.is_null() {
        return core::ptr::null_mut();
    }
    let exc = PyObject_CallOneArg(state().msgpack_decode_error, text);
    Py_DECREF(text);
    if exc.is_null() || pos < 0 {
        return exc;
    }
    let pos_obj = PyLong_FromSsize_t(pos as Py_ssize_t);
    if pos_obj.is_null() || PyObject_SetAttrString(exc, c"pos".as_ptr(), pos_obj) != 0 {
        PyErr_Clear();
    }
    Py_XDECREF(pos_obj);
    exc
}

/// Raises `kind(message)` (an input-type error class) with `note` if given.
#[cold]
pub unsafe fn raise_with_note(kind: *mut PyObject, message: &str, note: Option<&str>) -> Raised {
    crate::module::errors::raise(kind, message);
    if let Some(note) = note {
        crate::module::errors::add_note_to_current(note);
    }
    Raised
}

/// For an input of a type the decoders do not read: a note when it looks
/// like a file (it has `read`), saying to read it first.
pub unsafe fn file_note(obj: *mut PyObject, function: &str) -> Option<String> {
    let has_read = PyObject_HasAttrString(obj, c"read".as_ptr()) == 1;
    has_read.then(|| format!("{function}() takes the document itself, not a file: pass f.read()"))
}

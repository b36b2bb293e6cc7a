//! Raising the decoders' errors: the stdlib-compatible `JSONDecodeError`
//! (message, document, character position), `MsgpackDecodeError` in
//! ormsgpack's words with the byte offset as `pos`, and the decode error
//! that replaces a failed buffer export.

use core::ffi::c_char;
use orcodec_core::error::{DecodeError, DecodeErrorKind};
use pyo3_ffi::*;

use crate::module::errors::{add_note, take_exception, Raised};
use crate::state::State;

/// Raises what a reader's `DecodeError` means: `MemoryError` when the
/// reader ran out of memory (`DecodeErrorKind::NoMemory`, not the input's
/// fault), else the format's decode error, which `format_error` raises.
/// Every entry point that runs a core reader (the push decoders, the pull
/// readers, typed decoding, streams, transcoding) raises through this.
#[cold]
pub unsafe fn raise_decode_error(e: DecodeError, format_error: impl FnOnce(DecodeError) -> Raised) -> Raised {
    if e.kind == DecodeErrorKind::NoMemory {
        PyErr_NoMemory();
        return Raised;
    }
    format_error(e)
}

/// Characters in UTF-8 `prefix` (bytes that do not continue a sequence).
pub(crate) fn char_count(prefix: &[u8]) -> usize {
    prefix.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// Raises `JSONDecodeError(msg, doc, pos)` like the stdlib's: `doc` is the
/// input as str, `pos` a character index into it.
#[cold]
pub unsafe fn raise_json_error(
    st: &State,
    msg: &str,
    input: &[u8],
    original: *mut PyObject,
    byte_offset: usize,
) -> Raised {
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
    raise_json_error_at(st.json_decode_error, msg, doc, pos);
    Py_DECREF(doc);
    Raised
}

/// Raises `JSONDecodeError` for a decode that stopped with `e`: orjson's
/// message at orjson's position, and a note with what orcodec knows beyond
/// it, if anything.
#[cold]
pub unsafe fn raise_json_syntax_error(st: &State, e: &DecodeError, input: &[u8], original: *mut PyObject) -> Raised {
    let (message, offset, note) = json_message(&e.kind, e.offset, input);
    raise_json_error(st, &message, input, original, offset);
    if let Some(note) = note {
        crate::module::errors::add_note_to_current(&note);
    }
    Raised
}

/// What orjson's number grammar says about the malformed number starting at
/// `start`, and where: its messages name the part that is missing.
fn json_number_message(input: &[u8], start: usize) -> (&'static str, usize) {
    let digit_at = |i: usize| input.get(i).is_some_and(u8::is_ascii_digit);
    let missing = |i: usize, what: &'static str| {
        if i >= input.len() {
            ("unexpected end of data", input.len())
        } else {
            (what, i)
        }
    };
    let mut i = start;
    if input.get(i) == Some(&b'-') {
        i += 1;
    }
    if !digit_at(i) {
        return missing(i, "no digit after sign");
    }
    if input[i] == b'0' && digit_at(i + 1) {
        return ("number with leading zero is not allowed", i);
    }
    while digit_at(i) {
        i += 1;
    }
    if input.get(i) == Some(&b'.') {
        i += 1;
        if !digit_at(i) {
            return missing(i, "no digit after decimal point");
        }
        while digit_at(i) {
            i += 1;
        }
    }
    if let Some(b'e' | b'E') = input.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = input.get(i) {
            i += 1;
        }
        if !digit_at(i) {
            return missing(i, "no digit after exponent sign");
        }
    }
    ("invalid number", start)
}

/// orjson's words for a literal that is not `true`, `false` or `null`.
fn json_literal_message(input: &[u8], start: usize) -> (String, usize) {
    let word: &[u8] = match input.get(start) {
        Some(b't') => b"true",
        Some(b'f') => b"false",
        _ => b"null",
    };
    let rest = &input[start.min(input.len())..];
    if rest.len() < word.len() && word.starts_with(rest) {
        return ("unexpected end of data".into(), input.len());
    }
    (format!("invalid literal, expected '{}'", String::from_utf8_lossy(word)), start)
}

/// The UTF-16 unit of the `\uXXXX` escape at `at`, if there is one.
fn escape_unit(input: &[u8], at: usize) -> Option<u16> {
    // An escaped backslash followed by `u` is no escape.
    let backslashes_before = input[..at.min(input.len())].iter().rev().take_while(|&&c| c == b'\\').count();
    if input.get(at..at + 2)? != b"\\u" || backslashes_before % 2 == 1 {
        return None;
    }
    let hex = core::str::from_utf8(input.get(at + 2..at + 6)?).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

/// Whether the escape ending at `at` is the high half of a surrogate pair.
fn high_surrogate_before(input: &[u8], at: usize) -> bool {
    at >= 6 && escape_unit(input, at - 6).is_some_and(|u| (0xD800..=0xDBFF).contains(&u))
}

/// Whether `partial` (what the input has of a `\u` escape's four hex digits)
/// can still become a low surrogate.
fn could_be_low_surrogate(partial: &[u8]) -> bool {
    partial.iter().enumerate().all(|(i, c)| match i {
        0 => matches!(c, b'd' | b'D'),
        1 => matches!(c, b'c'..=b'f' | b'C'..=b'F'),
        _ => c.is_ascii_hexdigit(),
    })
}

/// orjson's words and position for a `\u` escape at `offset` that is half
/// of a surrogate pair.
fn json_surrogate_message(input: &[u8], offset: usize) -> (&'static str, usize) {
    let unit = escape_unit(input, offset).unwrap_or(0);
    let after = input.get(offset + 6..).unwrap_or_default();
    let end = ("unexpected end of data", input.len());
    if (0xDC00..=0xDFFF).contains(&unit) {
        let cut_short = match after {
            [] | [b'\\'] => true,
            [b'\\', b'u', partial @ ..] => partial.len() < 4 && could_be_low_surrogate(partial),
            _ => false,
        };
        if cut_short {
            return end;
        }
        return ("invalid high surrogate in string", offset);
    }
    match after {
        [] | [b'\\'] => end,
        [b'\\', b'u', partial @ ..] if partial.len() < 4 => {
            if could_be_low_surrogate(partial) {
                end
            } else {
                ("invalid escape in string", offset)
            }
        }
        [b'\\', b'u', ..] => ("invalid low surrogate in string", offset),
        _ => ("no low surrogate in string", offset),
    }
}

/// orjson's words and position when the input ends inside a `\u` escape:
/// the first one in the last five bytes (an escape starting there is cut
/// short, so the decoder stopped at the first such one; a later `\u` is
/// among its missing digits).
fn json_end_in_escape(input: &[u8]) -> Option<(&'static str, usize)> {
    let tail_start = input.len().saturating_sub(5);
    let at = (tail_start..input.len().saturating_sub(1)).find(|&i| {
        input[i] == b'\\'
            && input[i + 1] == b'u'
            && input[..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 0
    })?;
    let partial = &input[at + 2..];
    if high_surrogate_before(input, at) {
        if could_be_low_surrogate(partial) {
            return None;
        }
        return Some(("invalid escape in string", at - 6));
    }
    // What it has of its four hex digits is already not hex.
    partial.iter().any(|c| !c.is_ascii_hexdigit()).then_some(("invalid escaped sequence in string", at))
}

/// orjson's message and byte offset for a decode error of `kind` at byte
/// `offset` of `input`, and orcodec's own description as a note where it
/// says more.
pub fn json_message(kind: &DecodeErrorKind, offset: usize, input: &[u8]) -> (String, usize, Option<String>) {
    use DecodeErrorKind::*;
    let own = || Some(format!("{kind} at byte {offset}"));
    // A digit right after a number that is just `0` or `-0`.
    let leading_zero = offset > 0 && input.get(offset).is_some_and(u8::is_ascii_digit) && input[offset - 1] == b'0';
    match kind {
        EmptyDocument if input.is_empty() => ("Input is a zero-length, empty document".into(), 0, None),
        EmptyDocument => ("input data is empty".into(), 0, None),
        UnexpectedEnd => match json_end_in_escape(input) {
            Some((message, at)) => (message.into(), at, None),
            None => ("unexpected end of data".into(), offset, None),
        },
        TrailingData | UnexpectedByte { .. } if leading_zero => {
            ("number with leading zero is not allowed".into(), offset - 1, None)
        }
        TrailingData => ("unexpected content after document".into(), offset, None),
        UnexpectedByte { .. } if offset == 0 && input.starts_with(b"\xef\xbb\xbf") => {
            ("UTF-8 byte order mark (BOM) is not supported".into(), 0, None)
        }
        UnexpectedByte { found: b'+' | b'.', expected: "a JSON value" } => {
            ("no digit after sign".into(), offset, own())
        }
        UnexpectedByte { expected, .. } => {
            let expected = match *expected {
                "a string key in double quotes" => "a string key",
                "':' after the key" => "':' after key",
                other => other,
            };
            (format!("unexpected character, expected {expected}"), offset, own())
        }
        // At the comma itself (orcodec may blame the whitespace after it).
        TrailingComma => {
            let comma = input[..=offset.min(input.len().saturating_sub(1))].iter().rposition(|&c| c == b',');
            ("trailing comma is not allowed".into(), comma.unwrap_or(offset), None)
        }
        DepthLimit => ("depth limit exceeded".into(), offset + 1, own()),
        InvalidUtf8 => ("str is not valid UTF-8: surrogates not allowed".into(), 0, own()),
        InvalidNumber => {
            let (message, at) = json_number_message(input, offset);
            (message.into(), at, None)
        }
        NumberOutOfRange => ("number is infinity when parsed as double".into(), offset, own()),
        InvalidEscape if high_surrogate_before(input, offset) => ("invalid escape in string".into(), offset - 6, None),
        InvalidEscape => ("invalid escaped sequence in string".into(), offset, None),
        ControlCharacterInString => ("unexpected control character in string".into(), offset, own()),
        LoneSurrogate => {
            let (message, at) = json_surrogate_message(input, offset);
            (message.into(), at, None)
        }
        InvalidLiteral => {
            let (message, at) = json_literal_message(input, offset);
            (message, at, None)
        }
        _ => (kind.to_string(), offset, None),
    }
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
        // ormsgpack tries the forms a timestamp can take as one, and says so.
        ExtKey => {
            let message = match input.get(offset) {
                Some(0xd6 | 0xd7 | 0xc7) => "invalid value".into(),
                _ => format!("invalid type {}", marker()),
            };
            let note = "an extension cannot be a map key; a timestamp can, read as a datetime with \
                        OPT_DATETIME_AS_TIMESTAMP_EXT";
            (message, Some(note.into()))
        }
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
pub unsafe fn raise_msgpack_error(st: &State, kind: &DecodeErrorKind, offset: usize, input: &[u8]) -> Raised {
    raise_msgpack_error_in_stream(st, kind, offset, input, 0)
}

/// `raise_msgpack_error` for `input` that starts at byte `base` of a stream:
/// `pos` (and the note) is the offset in the stream.
#[cold]
pub unsafe fn raise_msgpack_error_in_stream(
    st: &State,
    kind: &DecodeErrorKind,
    offset: usize,
    input: &[u8],
    base: u64,
) -> Raised {
    let (message, detail) = msgpack_message(kind, offset, input);
    let offset = base + offset as u64;
    let exc = new_msgpack_error(st, &message, offset as isize);
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
pub unsafe fn new_msgpack_error(st: &State, message: &str, pos: isize) -> *mut PyObject {
    let text = PyUnicode_FromStringAndSize(message.as_ptr() as *const c_char, message.len() as Py_ssize_t);
    if text.is_null() {
        return core::ptr::null_mut();
    }
    let exc = PyObject_CallOneArg(st.msgpack_decode_error, text);
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

//! Raising an encode error: the format's exception and the peer's message
//! for each `EncodeError`, then the notes (`notes.rs`).

use pyo3_ffi::*;

use crate::encode::context::ErrorContext;
use crate::encode::error::EncodeError;
use crate::encode::notes::add_notes;
use crate::module::errors::{raise, raise_from_current, restore_exception, take_exception};
use crate::module::options::Opt;
use crate::state::State;

/// How each format names itself in messages, and its exception type.
pub struct Format {
    pub name: &'static str,
    pub error: *mut PyObject,
    /// MessagePack: the messages are ormsgpack's; else orjson's.
    pub msgpack: bool,
    pub st: &'static State,
}

impl Format {
    pub fn json(st: &'static State) -> Format {
        Format { name: "JSON", error: st.json_encode_error, msgpack: false, st }
    }

    pub fn msgpack(st: &'static State) -> Format {
        Format { name: "MessagePack", error: st.msgpack_encode_error, msgpack: true, st }
    }
}

/// `str()` of the exception currently set (which stays set), if it has text.
unsafe fn current_message() -> Option<String> {
    let exc = take_exception();
    if exc.is_null() {
        return None;
    }
    let text = PyObject_Str(exc);
    let message = if text.is_null() {
        PyErr_Clear();
        None
    } else {
        let mut len: Py_ssize_t = 0;
        let data = PyUnicode_AsUTF8AndSize(text, &mut len);
        let message = if data.is_null() {
            PyErr_Clear();
            None
        } else {
            Some(String::from_utf8_lossy(core::slice::from_raw_parts(data as *const u8, len as usize)).into_owned())
        };
        Py_DECREF(text);
        message
    };
    restore_exception(exc);
    message.filter(|m| !m.is_empty())
}

unsafe fn type_name(ty: *mut PyTypeObject) -> String {
    core::ffi::CStr::from_ptr((*ty).tp_name).to_string_lossy().into_owned()
}

/// Raises the encode error for `err` (or keeps the exception already set),
/// with the notes `context` allows (`notes.rs`).
#[cold]
pub unsafe fn raise_encode_error(err: EncodeError, format: &Format, context: &ErrorContext, opts: Opt) {
    raise_error(&err, format, context);
    add_notes(format.st, &err, context, opts, format.msgpack);
}

/// The peer's word for the format in "Type is not ... serializable".
fn serializable_name(format: &Format) -> &'static str {
    if format.msgpack {
        "msgpack"
    } else {
        "JSON"
    }
}

unsafe fn raise_error(err: &EncodeError, format: &Format, context: &ErrorContext) {
    let kind = format.error;
    let msgpack = format.msgpack;
    let message = match *err {
        EncodeError::Raised => {
            // MemoryError stays what it is; anything else becomes the cause.
            // ormsgpack repeats the exception's own message.
            if PyErr_ExceptionMatches(PyExc_MemoryError) == 0 {
                let message = if msgpack { current_message() } else { None };
                raise_from_current(kind, &message.unwrap_or_else(|| format!("{} encoding failed", format.name)));
            }
            return;
        }
        EncodeError::NoMemory => {
            PyErr_NoMemory();
            return;
        }
        EncodeError::DefaultRaised(ty) => {
            raise_from_current(
                kind,
                &format!("Type is not {} serializable: {}", serializable_name(format), type_name(ty)),
            );
            return;
        }
        EncodeError::Unsupported(ty) => {
            format!("Type is not {} serializable: {}", serializable_name(format), type_name(ty))
        }
        EncodeError::IntegerRange => "Integer exceeds 64-bit range".into(),
        EncodeError::StrictIntegerRange => "Integer exceeds 53-bit range".into(),
        EncodeError::DictKeyNotStr => "Dict key must be str".into(),
        EncodeError::Surrogates if msgpack => "string contains surrogates".into(),
        EncodeError::Surrogates => "str is not valid UTF-8: surrogates not allowed".into(),
        EncodeError::RecursionLimit => "Recursion limit reached".into(),
        EncodeError::DefaultRecursionLimit if msgpack => "Recursion limit for default hook reached".into(),
        EncodeError::DefaultRecursionLimit => "default serializer exceeds recursion limit".into(),
        EncodeError::ListChangedSize => "list changed size during serialization".into(),
        EncodeError::DictChangedSize => "dict changed size during serialization".into(),
        EncodeError::TooLong => "object is too large for MessagePack (more than 2**32-1 items or bytes)".into(),
        EncodeError::WirePolicy => {
            // The policy's own message, in both formats: it says what to fix.
            let message = current_message().unwrap_or_else(|| "a dataclass's wire policy failed".into());
            raise_from_current(kind, &message);
            return;
        }
        EncodeError::TimezoneRaised => {
            raise_from_current(kind, "datetime's tzinfo.utcoffset() raised");
            return;
        }
        EncodeError::BadUtcOffset => "datetime's tzinfo.utcoffset() did not return a timedelta or None".into(),
        EncodeError::TimeWithTzinfo => "datetime.time must not have tzinfo set".into(),
        // Both peers' wording, missing word included (the type goes in a note).
        EncodeError::DictKeyType(_) => "Dict key must a type serializable with OPT_NON_STR_KEYS".into(),
        EncodeError::DictIntegerKeyRange => "Dict integer key must be within 64-bit range".into(),
        EncodeError::ExtTagRange => "Extension type out of range (Ext tags are 0 to 127)".into(),
        EncodeError::Numpy(reason) => reason.message(msgpack).into(),
        EncodeError::NumpyByteOrder => "numpy array is not native-endianness".into(),
        EncodeError::NumpyDateTimeUnit(unit) => format!("unsupported numpy.datetime64 unit: {unit}"),
        EncodeError::NumpyDateTime => context.text.clone().unwrap_or_else(|| "unrepresentable numpy.datetime64".into()),
        EncodeError::FragmentNotBytes => "Fragment contents must be bytes for MessagePack (str is JSON text)".into(),
        EncodeError::FragmentContent => "orcodec.Fragment's content is not of type bytes or str".into(),
        EncodeError::FragmentNotOneValue => "Fragment contents are not exactly one MessagePack value".into(),
        EncodeError::SortedNonStrKeys => "OPT_NON_STR_KEYS is not compatible with OPT_SORT_KEYS".into(),
        EncodeError::UnsupportedTimezone => {
            "datetime's timezone library is not supported: use datetime.timezone.utc, pendulum, pytz, or dateutil"
                .into()
        }
    };
    raise(kind, &message);
}

//! `json_to_msgpack` and `msgpack_to_json`: the core's transcoders
//! (`orcodec_core::transcode`) writing into the returned bytes object, and
//! the two-step they stand for.
//!
//! A transcoder returns the two-step's bytes, or the reader's error for bad
//! input (raised as `loads`/`unpackb` raise it). What it leaves to the
//! two-step (a value the other format cannot hold, nesting past 255 levels,
//! a repeated key whose value it stopped at) runs the two-step itself, which
//! then returns or raises exactly what it does: such inputs are rare, and
//! their exact outcome (which error comes first, which value a repeated key
//! keeps) is the objects' to decide.

use core::ffi::c_char;
use core::ptr::null_mut;
use core::sync::atomic::Ordering;
use orcodec_core::datetime::Style;
use orcodec_core::json::writer::{CompactJsonWriter, JsonWriter, PrettyJsonWriter};
use orcodec_core::sink::Sink;
use orcodec_core::transcode::{
    json_to_msgpack as core_json_to_msgpack, msgpack_to_json as core_msgpack_to_json, JsonToMsgpack, MsgpackToJson,
    ToJsonOptions, TranscodeError, Unsupported,
};
use pyo3_ffi::*;

use crate::decode::error::{raise_decode_error, raise_json_syntax_error};
use crate::decode::lines::borrow_json_input;
use crate::encode::output::BytesSink;
use crate::module::args::{parse_opts, Call};
use crate::module::errors::{raise, Raised};
use crate::module::gil::without_gil;
use crate::module::options;
use crate::state::scratch::{slot, Slot};
use crate::state::{Kept, SizeHint, State};

const _: () = assert!(
    crate::encode::walker::max_depth::<orcodec_core::msgpack::writer::MsgpackWriter<crate::encode::output::BytesSink>>()
        as usize
        == orcodec_core::transcode::MAX_ENCODE_DEPTH
);

/// The transcoders' working memory kept between calls (as the decoders keep
/// their stacks): taken out by a call and put back after, unless it grew
/// past `KEPT_BYTES`. A nested call (none runs Python code, but the
/// two-step's hooks could call a transcoder) finds none and makes its own.
#[derive(Default)]
pub struct Transcoders {
    to_msgpack: Kept<JsonToMsgpack>,
    to_json: Kept<MsgpackToJson>,
}

const TRANSCODERS: Slot<Transcoders> = Slot::at(slot::TRANSCODERS);

const KEPT_BYTES: usize = 256 << 10;

fn with_kept<T: Default, R>(kept: &Kept<T>, size: impl Fn(&T) -> usize, run: impl FnOnce(&mut T) -> R) -> R {
    let mut state = kept.take().unwrap_or_default();
    let result = run(&mut state);
    if size(&state) <= KEPT_BYTES {
        // The state holds no Python object.
        kept.put(state);
    }
    result
}

/// The first capacity for an output of an input of `len` bytes, `first`
/// when there is no hint yet (as `dumps` and `packb` keep theirs: a
/// buffer started at the size the output needs is reused by the allocator
/// call after call, where one started larger and trimmed at the end comes
/// back as fresh pages each time).
fn hint_or(hint: &SizeHint, first: usize) -> usize {
    match hint.get() {
        0 => first,
        hint => hint,
    }
}

fn record(hint: &SizeHint, len: usize) {
    hint.capacity.store(crate::encode::output::output_with_slack(len).min(64 << 20), Ordering::Relaxed)
}

/// Calls an entry point of this module (one of the two-step's halves) with
/// `obj` and the keyword arguments `kw` (name, value; a NULL value is left out).
unsafe fn call(
    module: *mut PyObject,
    f: unsafe extern "C" fn(*mut PyObject, *const *mut PyObject, Py_ssize_t, *mut PyObject) -> *mut PyObject,
    obj: *mut PyObject,
    kw: &[(*mut PyObject, *mut PyObject)],
) -> *mut PyObject {
    let given: Vec<_> = kw.iter().filter(|(_, v)| !v.is_null()).collect();
    let mut args = vec![obj];
    args.extend(given.iter().map(|&&(_, v)| v));
    if given.is_empty() {
        return f(module, args.as_ptr(), 1, null_mut());
    }
    let names = PyTuple_New(given.len() as Py_ssize_t);
    if names.is_null() {
        return null_mut();
    }
    for (i, &&(name, _)) in given.iter().enumerate() {
        Py_INCREF(name);
        PyTuple_SET_ITEM(names, i as Py_ssize_t, name);
    }
    let result = f(module, args.as_ptr(), 1, names);
    Py_DECREF(names);
    result
}

/// The output of a transcode into `sink`, or its failure raised (`decode`
/// raises a decode error; `two_step` runs the two-step). An output that
/// could not be grown is MemoryError.
unsafe fn finish(
    sink: BytesSink,
    result: Result<(), TranscodeError>,
    decode: impl FnOnce(orcodec_core::error::DecodeError),
    two_step: impl FnOnce() -> *mut PyObject,
) -> *mut PyObject {
    if sink.failed() {
        PyErr_NoMemory();
        return null_mut();
    }
    match result {
        Ok(()) => sink.finish(),
        Err(TranscodeError::Decode(e)) => {
            decode(e);
            null_mut()
        }
        Err(TranscodeError::Unsupported(Unsupported::Output, _)) => {
            PyErr_NoMemory();
            null_mut()
        }
        Err(TranscodeError::Unsupported(..)) => {
            drop(sink);
            two_step()
        }
    }
}

/// `json_to_msgpack(data)`: the bytes of `packb(loads(data))`.
pub unsafe extern "C" fn json_to_msgpack(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let st = State::of_module(module);
    let call_ = Call { args, nargs: nargs as usize, kwnames };
    let Ok([obj]) = call_.parse("json_to_msgpack", [null_mut()], 1) else {
        return null_mut();
    };
    let mut view = crate::decode::input::ViewSlot::new();
    let Some(input) = borrow_json_input(st, obj, &mut view) else {
        return null_mut();
    };
    let bytes = input.bytes();
    // MessagePack is mostly smaller than the JSON it comes from.
    let Some(mut sink) = BytesSink::with_capacity(hint_or(&st.to_msgpack_size, bytes.len())) else {
        return null_mut();
    };
    let kept = &st.scratch.get(TRANSCODERS).to_msgpack;
    let release = without_gil(st, obj, bytes.len());
    let result = with_kept(kept, JsonToMsgpack::capacity_bytes, |state| {
        if release {
            // SAFETY: the transcoder touches no Python object: its input is
            // immutable and kept alive by the caller, its output the sink.
            unsafe { sink.release_gil() };
        }
        let result = core_json_to_msgpack(bytes, &mut sink, state);
        sink.take_gil();
        result
    });
    record(&st.to_msgpack_size, sink.len());
    finish(
        sink,
        result,
        |e| {
            raise_decode_error(e, |e| raise_json_syntax_error(st, &e, bytes, obj));
        },
        || {
            let value = call(module, crate::decode::loads, obj, &[]);
            if value.is_null() {
                return null_mut();
            }
            let out = call(module, crate::encode::packb, value, &[]);
            Py_DECREF(value);
            out
        },
    )
}

/// `msgpack_to_json(data, *, option=None, base64=False)`: the bytes of
/// `dumps(unpackb(data, ext_hook=Ext, option=read), option=option)` (`read`:
/// the flags of `option` that `unpackb` takes),
/// with bytes and Ext written as base64 text when `base64` is true.
pub unsafe extern "C" fn msgpack_to_json(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let st = State::of_module(module);
    let s = st;
    let call_ = Call { args, nargs: nargs as usize, kwnames };
    let Ok([obj, option, base64]) = call_.parse("msgpack_to_json", [null_mut(), s.kw_option, s.kw_base64], 1) else {
        return null_mut();
    };
    // Checked where the two-step checks it: by unpackb, first.
    let Ok(opts) = parse_opts(option, s.msgpack_decode_error, options::ENCODE_MASK) else {
        return null_mut();
    };
    let base64 = if base64.is_null() {
        false
    } else {
        match PyObject_IsTrue(base64) {
            -1 => return null_mut(),
            v => v == 1,
        }
    };
    // unpackb's input rules and errors.
    let mut view = crate::decode::input::ViewSlot::new();
    let Some(input) = crate::decode::msgpack_input(st, obj, &mut view) else {
        return null_mut();
    };
    let bytes = input.bytes();
    let to_json = ToJsonOptions {
        non_str_keys: opts & options::NON_STR_KEYS != 0,
        timestamps: opts & options::DATETIME_AS_TIMESTAMP_EXT != 0,
        sort_keys: opts & options::SORT_KEYS != 0,
        strict_integer: opts & options::STRICT_INTEGER != 0,
        base64,
        style: Style { omit_microseconds: opts & options::OMIT_MICROSECONDS != 0, utc_z: opts & options::UTC_Z != 0 },
    };
    // JSON text is mostly larger than the MessagePack it comes from.
    let Some(sink) = BytesSink::with_capacity(hint_or(&st.to_json_size, bytes.len() + bytes.len() / 2)) else {
        return null_mut();
    };
    let (mut sink, result) = if opts & options::PASSTHROUGH_DATETIME != 0 && to_json.timestamps {
        // dumps hands the datetimes to a default that has no use for them:
        // the two-step says what that gives.
        (sink, Err(TranscodeError::Unsupported(Unsupported::Timestamp, 0)))
    } else if opts & options::INDENT_2 != 0 {
        run_to_json(st, PrettyJsonWriter::new(sink), bytes, to_json, without_gil(st, obj, bytes.len()))
    } else {
        run_to_json(st, CompactJsonWriter::new(sink), bytes, to_json, without_gil(st, obj, bytes.len()))
    };
    if result.is_ok() && opts & options::APPEND_NEWLINE != 0 {
        sink.push(b'\n');
    }
    record(&st.to_json_size, sink.len());
    finish(
        sink,
        result,
        |e| {
            raise_msgpack_error(st, e, bytes);
        },
        || {
            // unpackb takes only its own flags: the ones of `option` that
            // change decoding.
            let read_option = PyLong_FromUnsignedLong((opts & options::UNPACKB_MASK) as core::ffi::c_ulong);
            if read_option.is_null() {
                return null_mut();
            }
            let value = call(
                module,
                crate::decode::unpackb,
                obj,
                &[(s.kw_ext_hook, s.ext_type as *mut PyObject), (s.kw_option, read_option)],
            );
            Py_DECREF(read_option);
            if value.is_null() {
                return null_mut();
            }
            let default = if base64 { s.base64_default } else { null_mut() };
            let out = if base64 && default.is_null() {
                null_mut()
            } else {
                call(module, crate::encode::dumps, value, &[(s.kw_default, default), (s.kw_option, option)])
            };
            Py_DECREF(value);
            out
        },
    )
}

unsafe fn run_to_json<const PRETTY: bool>(
    st: &State,
    mut w: JsonWriter<BytesSink, PRETTY>,
    bytes: &[u8],
    opts: ToJsonOptions,
    release: bool,
) -> (BytesSink, Result<(), TranscodeError>) {
    let kept = &st.scratch.get(TRANSCODERS).to_json;
    let result = with_kept(kept, MsgpackToJson::capacity_bytes, |state| {
        if release {
            // SAFETY: as in `json_to_msgpack`.
            unsafe { w.out.release_gil() };
        }
        let result = core_msgpack_to_json(bytes, &mut w, opts, state);
        w.out.take_gil();
        result
    });
    (w.out, result)
}

/// Raises `MsgpackDecodeError` as `unpackb` does for `e` (MemoryError when
/// the reader ran out of memory).
#[cold]
unsafe fn raise_msgpack_error(st: &State, e: orcodec_core::error::DecodeError, input: &[u8]) -> Raised {
    raise_decode_error(e, |e| crate::decode::error::raise_msgpack_error(st, &e.kind, e.offset, input))
}

/// What the two-step's `default` does with `base64=True`: bytes become their
/// base64 text, `Ext` a dict `{"tag": tag, "data": base64 text}`.
unsafe extern "C" fn base64_of(module: *mut PyObject, obj: *mut PyObject) -> *mut PyObject {
    let s = State::of_module(module);
    let text = |data: &[u8]| -> *mut PyObject {
        let mut out = Vec::new();
        // The room first, fallibly: the Vec sink would abort for want of it.
        if orcodec_core::fallible::reserve(&mut out, orcodec_core::transcode::base64::encoded_len(data.len())).is_err()
        {
            return PyErr_NoMemory();
        }
        orcodec_core::transcode::base64::encode(&mut out, data);
        PyUnicode_FromStringAndSize(out.as_ptr() as *const c_char, out.len() as Py_ssize_t)
    };
    if PyBytes_Check(obj) != 0 {
        return text(crate::cpython::bytes::bytes_data(obj));
    }
    if Py_TYPE(obj) == s.ext_type {
        let ext = &*(obj as *mut crate::classes::ext::Ext);
        let data = text(crate::cpython::bytes::bytes_data(ext.data));
        if data.is_null() {
            return null_mut();
        }
        let dict = PyDict_New();
        if !dict.is_null()
            && (PyDict_SetItemString(dict, c"tag".as_ptr(), ext.tag) != 0
                || PyDict_SetItemString(dict, c"data".as_ptr(), data) != 0)
        {
            Py_DECREF(dict);
            Py_DECREF(data);
            return null_mut();
        }
        Py_DECREF(data);
        return dict;
    }
    raise(PyExc_TypeError, "not bytes or Ext");
    null_mut()
}

static mut BASE64_DEF: PyMethodDef = PyMethodDef {
    ml_name: c"_base64".as_ptr(),
    ml_meth: PyMethodDefPointer { PyCFunction: base64_of },
    ml_flags: METH_O,
    ml_doc: c"bytes and Ext as base64 text, for msgpack_to_json(base64=True).".as_ptr(),
};

/// The `default` function of the two-step with `base64=True`, bound to
/// `module` (made once per module, when it is executed).
pub unsafe fn new_base64_default(module: *mut PyObject) -> *mut PyObject {
    PyCFunction_NewEx(core::ptr::addr_of_mut!(BASE64_DEF), module, null_mut())
}

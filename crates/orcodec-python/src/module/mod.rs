//! The Python module `orcodec._orcodec`: its initialization (the method
//! table, the exception types, the classes, the `OPT_*` flags), its
//! docstrings (`docs.rs`), the state it looks up once, argument parsing, the
//! flags and their meaning (`options.rs`), and the raising helpers every
//! entry point shares.

pub mod args;
pub mod compat;
pub mod docs;
pub mod errors;
pub mod options;
pub mod state;
pub mod streams;

use core::ffi::{c_char, CStr};
use core::ptr::{addr_of_mut, null_mut};
use pyo3_ffi::*;

use crate::{classes, decode, encode, transcode};

const fn method(name: &'static CStr, f: PyCFunctionFastWithKeywords, doc: &'static CStr) -> PyMethodDef {
    PyMethodDef {
        ml_name: name.as_ptr(),
        ml_meth: PyMethodDefPointer { PyCFunctionFastWithKeywords: f },
        ml_flags: METH_FASTCALL | METH_KEYWORDS,
        ml_doc: doc.as_ptr(),
    }
}

static mut METHODS: [PyMethodDef; 11] = [
    method(c"convert", decode::typed::run::convert, docs::CONVERT),
    method(c"dumps", encode::dumps, docs::DUMPS),
    method(c"loads", decode::loads, docs::LOADS),
    method(c"packb", encode::packb, docs::PACKB),
    method(c"unpackb", decode::unpackb, docs::UNPACKB),
    method(c"json_to_msgpack", transcode::json_to_msgpack, docs::JSON_TO_MSGPACK),
    method(c"msgpack_to_json", transcode::msgpack_to_json, docs::MSGPACK_TO_JSON),
    method(c"dumps_lines", encode::lines::dumps_lines, docs::DUMPS_LINES),
    method(c"loads_lines", decode::lines::loads_lines, docs::LOADS_LINES),
    method(c"iter_lines", classes::lines::iter_lines, docs::ITER_LINES),
    PyMethodDef::zeroed(),
];

static mut MODULE: PyModuleDef = PyModuleDef {
    m_base: PyModuleDef_HEAD_INIT,
    m_name: c"orcodec._orcodec".as_ptr(),
    m_doc: docs::MODULE.as_ptr(),
    m_size: -1,
    m_methods: null_mut(),
    m_slots: null_mut(),
    m_traverse: None,
    m_clear: None,
    m_free: None,
};

/// Adds `value` (a new reference, consumed) to `module` as `name`.
unsafe fn add(module: *mut PyObject, name: &CStr, value: *mut PyObject) -> bool {
    if value.is_null() {
        return false;
    }
    let ok = compat::add_object_ref(module, name, value);
    Py_DECREF(value);
    ok
}

unsafe fn new_exception(name: &CStr, doc: &CStr, base: *mut PyObject) -> *mut PyObject {
    PyErr_NewExceptionWithDoc(name.as_ptr(), doc.as_ptr(), base, null_mut())
}

/// `MsgpackDecodeError`, whose `pos` (the byte offset of the problem) is None
/// on the class, for the errors that have no position.
unsafe fn new_msgpack_decode_error() -> *mut PyObject {
    let dict = PyDict_New();
    if dict.is_null() || PyDict_SetItemString(dict, c"pos".as_ptr(), Py_None()) != 0 {
        Py_XDECREF(dict);
        return null_mut();
    }
    let kind = PyErr_NewExceptionWithDoc(
        c"orcodec.MsgpackDecodeError".as_ptr(),
        docs::MSGPACK_DECODE_ERROR.as_ptr(),
        PyExc_ValueError,
        dict,
    );
    Py_DECREF(dict);
    kind
}

/// An exception class deriving from both `first` and TypeError.
unsafe fn new_type_error(name: &CStr, doc: &CStr, first: *mut PyObject) -> *mut PyObject {
    if first.is_null() {
        return null_mut();
    }
    Py_INCREF(first);
    Py_INCREF(PyExc_TypeError);
    let bases = new_tuple(&[first, PyExc_TypeError]);
    if bases.is_null() {
        return null_mut();
    }
    let kind = PyErr_NewExceptionWithDoc(name.as_ptr(), doc.as_ptr(), bases, null_mut());
    Py_DECREF(bases);
    kind
}

/// `gc.collect` (a new reference), or NULL with an exception set. Taken once,
/// so that a later replacement of the module attribute is not what the
/// decoders call.
unsafe fn gc_collect() -> *mut PyObject {
    let gc = PyImport_ImportModule(c"gc".as_ptr());
    if gc.is_null() {
        return null_mut();
    }
    let collect = PyObject_GetAttrString(gc, c"collect".as_ptr());
    Py_DECREF(gc);
    collect
}

/// A new str of `text`, or NULL with an exception set.
fn new_str(text: &str) -> *mut PyObject {
    // SAFETY: `text` is readable for its length and valid UTF-8.
    unsafe { PyUnicode_FromStringAndSize(text.as_ptr() as *const c_char, text.len() as Py_ssize_t) }
}

/// A new reference to `obj` (NULL stays NULL).
unsafe fn incref(obj: *mut PyObject) -> *mut PyObject {
    Py_XINCREF(obj);
    obj
}

/// A new tuple of `items` (new references, consumed even on failure), or
/// NULL with an exception set if any is NULL or the tuple cannot be made.
fn new_tuple(items: &[*mut PyObject]) -> *mut PyObject {
    // SAFETY: a fresh tuple of `items.len()` slots, each filled once with a
    // reference it takes over; on failure every reference is released once.
    unsafe {
        let tuple =
            if items.iter().any(|item| item.is_null()) { null_mut() } else { PyTuple_New(items.len() as Py_ssize_t) };
        for (i, &item) in items.iter().enumerate() {
            if tuple.is_null() {
                Py_XDECREF(item);
            } else {
                PyTuple_SET_ITEM(tuple, i as Py_ssize_t, item);
            }
        }
        tuple
    }
}

/// `_flag_table`: a tuple of `(name, value, functions, description)` per
/// flag, which the package turns into `orcodec.flags` and the flags part of
/// its docstring.
fn flag_table() -> *mut PyObject {
    let rows: Vec<*mut PyObject> = options::ALL
        .iter()
        .map(|flag| {
            let functions: Vec<*mut PyObject> = options::FUNCTIONS
                .iter()
                .filter(|&&(uses, _)| flag.uses & uses != 0)
                .map(|&(_, name)| new_str(name))
                .collect();
            // SAFETY: makes a new int; no pointer is read.
            let value = unsafe { PyLong_FromUnsignedLong(flag.value as _) };
            new_tuple(&[new_str(flag.name), value, new_tuple(&functions), new_str(flag.description)])
        })
        .collect();
    new_tuple(&rows)
}

/// Creates the module `PyInit__orcodec` returns; None with an exception set
/// on failure.
///
/// # Safety
/// Called only from `PyInit__orcodec`.
pub unsafe fn init_module() -> Option<*mut PyObject> {
    let module_def = addr_of_mut!(MODULE);
    (*module_def).m_methods = addr_of_mut!(METHODS) as *mut PyMethodDef;
    let module = PyModule_Create(module_def);
    if module.is_null() {
        return None;
    }

    // JSONDecodeError subclasses the stdlib's, so `except json.JSONDecodeError` works.
    // datetime's C API: its types are checked and built directly.
    PyDateTime_IMPORT();
    if PyDateTimeAPI().is_null() {
        return None;
    }
    let json = PyImport_ImportModule(c"json".as_ptr());
    if json.is_null() {
        return None;
    }
    let std_decode_error = PyObject_GetAttrString(json, c"JSONDecodeError".as_ptr());
    Py_DECREF(json);
    if std_decode_error.is_null() {
        return None;
    }
    let json_decode_error = new_exception(c"orcodec.JSONDecodeError", docs::JSON_DECODE_ERROR, std_decode_error);
    let msgpack_decode_error = new_msgpack_decode_error();
    let validation_error = new_exception(c"orcodec.ValidationError", docs::VALIDATION_ERROR, PyExc_ValueError);
    // The subclasses raised by loads and unpackb: existing handlers of the
    // formats' decode errors keep catching every failure of a decode.
    let json_validation_error = new_exception(
        c"orcodec.JSONValidationError",
        docs::VALIDATION_ERROR,
        new_tuple(&[incref(validation_error), incref(json_decode_error)]),
    );
    let msgpack_validation_error = new_exception(
        c"orcodec.MsgpackValidationError",
        docs::VALIDATION_ERROR,
        new_tuple(&[incref(validation_error), incref(msgpack_decode_error)]),
    );
    let st = state::State {
        json_encode_error: new_exception(c"orcodec.JSONEncodeError", docs::JSON_ENCODE_ERROR, PyExc_TypeError),
        json_decode_error,
        msgpack_encode_error: new_exception(c"orcodec.MsgpackEncodeError", docs::MSGPACK_ENCODE_ERROR, PyExc_TypeError),
        msgpack_decode_error,
        json_input_error: new_type_error(c"orcodec.JSONInputTypeError", docs::JSON_INPUT_TYPE_ERROR, json_decode_error),
        msgpack_input_error: new_type_error(
            c"orcodec.MsgpackInputTypeError",
            docs::MSGPACK_INPUT_TYPE_ERROR,
            msgpack_decode_error,
        ),
        validation_error,
        json_validation_error,
        msgpack_validation_error,
        kw_type: args::intern(c"type"),
        kw_strict: args::intern(c"strict"),
        kw_dec_hook: args::intern(c"dec_hook"),
        kw_forbid_unknown_fields: args::intern(c"forbid_unknown_fields"),
        kw_default: args::intern(c"default"),
        kw_option: args::intern(c"option"),
        kw_ext_hook: args::intern(c"ext_hook"),
        kw_numpy_ext_code: args::intern(c"numpy_ext_code"),
        str_utcoffset: args::intern(c"utcoffset"),
        str_int: args::intern(c"int"),
        str_value: args::intern(c"_value_"),
        str_uuid: args::intern(c"uuid"),
        str_enum: args::intern(c"enum"),
        str_dataclasses: args::intern(c"dataclasses"),
        str_dataclass_fields: args::intern(c"__dataclass_fields__"),
        str_field_type: args::intern(c"_field_type"),
        str_numpy: args::intern(c"numpy"),
        str_array_struct: args::intern(c"__array_struct__"),
        str_dtype: args::intern(c"dtype"),
        str_str: args::intern(c"str"),
        str_dict: args::intern(c"__dict__"),
        str_pydantic_fields: args::intern(c"__pydantic_fields__"),
        str_pydantic_extra: args::intern(c"__pydantic_extra__"),
        str_fields: args::intern(c"__fields__"),
        str_slots: args::intern(c"__slots__"),
        str_normalize: args::intern(c"normalize"),
        str_pytz_tzinfo: args::intern(c"pytz.tzinfo"),
        fragment_type: classes::fragment::new_fragment_type(),
        ext_type: classes::ext::new_ext_type(),
        decoder_type: classes::decoder::new_decoder_type(),
        gc_collect: gc_collect(),
    };
    Py_DECREF(std_decode_error);
    let all = [
        st.json_encode_error,
        st.json_decode_error,
        st.msgpack_encode_error,
        st.msgpack_decode_error,
        st.json_input_error,
        st.msgpack_input_error,
        st.validation_error,
        st.json_validation_error,
        st.msgpack_validation_error,
        st.kw_type,
        st.kw_strict,
        st.kw_dec_hook,
        st.kw_forbid_unknown_fields,
        st.kw_default,
        st.kw_option,
        st.kw_ext_hook,
        st.kw_numpy_ext_code,
        st.str_utcoffset,
        st.str_int,
        st.str_value,
        st.str_uuid,
        st.str_enum,
        st.str_dataclasses,
        st.str_dataclass_fields,
        st.str_field_type,
        st.str_numpy,
        st.str_array_struct,
        st.str_dtype,
        st.str_str,
        st.str_dict,
        st.str_pydantic_fields,
        st.str_pydantic_extra,
        st.str_fields,
        st.str_slots,
        st.str_normalize,
        st.str_pytz_tzinfo,
        st.fragment_type as *mut PyObject,
        st.ext_type as *mut PyObject,
        st.decoder_type as *mut PyObject,
        st.gc_collect,
    ];
    if all.iter().any(|p| p.is_null()) {
        return None;
    }
    // The state keeps one reference to each (they live as long as the process);
    // the module gets its own.
    for (name, obj) in [
        (c"JSONEncodeError", st.json_encode_error),
        (c"JSONDecodeError", st.json_decode_error),
        (c"MsgpackEncodeError", st.msgpack_encode_error),
        (c"MsgpackDecodeError", st.msgpack_decode_error),
        (c"JSONInputTypeError", st.json_input_error),
        (c"MsgpackInputTypeError", st.msgpack_input_error),
        (c"Fragment", st.fragment_type as *mut PyObject),
        (c"Ext", st.ext_type as *mut PyObject),
        (c"ValidationError", st.validation_error),
        (c"Decoder", st.decoder_type as *mut PyObject),
    ] {
        Py_INCREF(obj);
        if !add(module, name, obj) {
            return None;
        }
    }
    state::init(st);
    streams::init(module)?;

    for flag in options::ALL {
        let cname = std::ffi::CString::new(flag.name).ok()?;
        if !add(module, &cname, PyLong_FromUnsignedLong(flag.value as _)) {
            return None;
        }
    }
    if !add(module, c"_flag_table", flag_table()) {
        return None;
    }
    let version = env!("CARGO_PKG_VERSION");
    let version = PyUnicode_FromStringAndSize(version.as_ptr() as *const c_char, version.len() as Py_ssize_t);
    if !add(module, c"__version__", version) {
        return None;
    }
    Some(module)
}

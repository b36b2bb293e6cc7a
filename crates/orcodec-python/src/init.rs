//! The module `orcodec._orcodec`, made on top of everything else: its
//! definition (the method table, the slots), and its execution in each
//! interpreter that imports it (the state, the exception types, the
//! classes, the `OPT_*` flags).

use core::ffi::{c_char, CStr};
use core::ptr::{addr_of_mut, null_mut};
use pyo3_ffi::*;

use crate::module::{args, docs, options};
use crate::state::{self, State};
use crate::{classes, decode, encode, msgpack_compat, transcode};

const fn method(name: &'static CStr, f: PyCFunctionFastWithKeywords, doc: &'static CStr) -> PyMethodDef {
    PyMethodDef {
        ml_name: name.as_ptr(),
        ml_meth: PyMethodDefPointer { PyCFunctionFastWithKeywords: f },
        ml_flags: METH_FASTCALL | METH_KEYWORDS,
        ml_doc: doc.as_ptr(),
    }
}

static mut METHODS: [PyMethodDef; 22] = [
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
    // The CLI's `stats` and `validate` (private).
    method(c"_tally", decode::tally::tally, c""),
    // The threshold benchmark's knob (private).
    method(c"_gil_free_from", crate::module::gil::gil_free_from, c""),
    // orcodec.json's (private: the package wraps them).
    method(c"_json_encode", encode::stdlib::json_encode, docs::JSON_ENCODE),
    method(c"_json_loads", decode::stdlib::json_loads, docs::JSON_LOADS),
    // orcodec.msgpack's building blocks (private: the package wraps them).
    method(c"_mp_walk", encode::packb_keys_as_values, c""),
    method(c"_mp_unpackb", msgpack_compat::mp_unpackb, c""),
    method(c"_mp_fast_unpackb", msgpack_compat::mp_fast_unpackb, c""),
    method(c"_mp_fast_packb", msgpack_compat::mp_fast_packb, c""),
    method(c"_mp_rewrite", msgpack_compat::mp_rewrite, c""),
    method(c"_mp_header", msgpack_compat::mp_header, c""),
    method(c"_mp_stacks", msgpack_compat::mp_stacks, c""),
    PyMethodDef::zeroed(),
];

/// `Py_mod_exec` runs `exec`; on 3.12 and newer the module declares that it
/// supports interpreters with their own GIL (everything it keeps is in its
/// per-interpreter state).
const SLOT_COUNT: usize = 2 + cfg!(Py_3_12) as usize;

static mut SLOTS: [PyModuleDef_Slot; SLOT_COUNT] = [
    PyModuleDef_Slot { slot: Py_mod_exec, value: exec as *mut core::ffi::c_void },
    #[cfg(Py_3_12)]
    PyModuleDef_Slot { slot: Py_mod_multiple_interpreters, value: Py_MOD_PER_INTERPRETER_GIL_SUPPORTED },
    PyModuleDef_Slot { slot: 0, value: null_mut() },
];

/// The module's definition: one per process, as CPython requires, while
/// each interpreter that imports the module gets a module object and a
/// `State` of its own.
pub static mut MODULE: PyModuleDef = PyModuleDef {
    m_base: PyModuleDef_HEAD_INIT,
    m_name: c"orcodec._orcodec".as_ptr(),
    m_doc: docs::MODULE.as_ptr(),
    m_size: core::mem::size_of::<*mut State>() as Py_ssize_t,
    m_methods: null_mut(),
    m_slots: null_mut(),
    m_traverse: Some(state::traverse),
    m_clear: Some(state::clear),
    m_free: Some(state::free),
};

/// The module's definition, for `PyInit__orcodec` (multi-phase
/// initialization: the import system makes the module and runs `exec`).
pub unsafe fn definition() -> *mut PyObject {
    let def = addr_of_mut!(MODULE);
    (*def).m_methods = addr_of_mut!(METHODS) as *mut PyMethodDef;
    (*def).m_slots = addr_of_mut!(SLOTS) as *mut PyModuleDef_Slot;
    PyModuleDef_Init(def)
}

/// Adds `value` (a new reference, consumed) to `module` as `name`.
unsafe fn add(module: *mut PyObject, name: &CStr, value: *mut PyObject) -> bool {
    if value.is_null() {
        return false;
    }
    let ok = crate::module::compat::add_object_ref(module, name, value);
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

/// `Py_mod_exec`: fills a new module of this interpreter (`module`) and its
/// state; 0, or -1 with an exception set. Whatever it made before failing
/// is released with the module (`m_free`): a failed import leaves nothing
/// behind, in this interpreter or any other.
unsafe extern "C" fn exec(module: *mut PyObject) -> core::ffi::c_int {
    match fill(module) {
        Some(()) => 0,
        None => {
            if PyErr_Occurred().is_null() {
                PyErr_SetString(PyExc_ImportError, c"orcodec: the module could not be initialized".as_ptr());
            }
            -1
        }
    }
}

/// An empty `Objects`: every field NULL until `fill` makes it.
fn no_objects() -> state::Objects {
    // SAFETY: every field of `Objects` is a raw pointer, for which all
    // zeros is NULL.
    unsafe { core::mem::zeroed() }
}

unsafe fn fill(module: *mut PyObject) -> Option<()> {
    State::install(module, Box::new(State::new(no_objects())));
    // SAFETY: installed just above; no Python code holds it yet.
    let st = &mut **(PyModule_GetState(module) as *mut *mut State);
    st.load_datetime(false);
    let o = &mut st.o;

    // JSONDecodeError subclasses the stdlib's, so `except json.JSONDecodeError` works.
    let json = PyImport_ImportModule(c"json".as_ptr());
    if json.is_null() {
        return None;
    }
    let std_decode_error = PyObject_GetAttrString(json, c"JSONDecodeError".as_ptr());
    Py_DECREF(json);
    if std_decode_error.is_null() {
        return None;
    }
    o.json_decode_error = new_exception(c"orcodec.JSONDecodeError", docs::JSON_DECODE_ERROR, std_decode_error);
    Py_DECREF(std_decode_error);
    o.msgpack_decode_error = new_msgpack_decode_error();
    o.validation_error = new_exception(c"orcodec.ValidationError", docs::VALIDATION_ERROR, PyExc_ValueError);
    if o.json_decode_error.is_null() || o.msgpack_decode_error.is_null() || o.validation_error.is_null() {
        return None;
    }
    // The subclasses raised by loads and unpackb: existing handlers of the
    // formats' decode errors keep catching every failure of a decode.
    let both = |a: *mut PyObject, b: *mut PyObject| new_tuple(&[incref(a), incref(b)]);
    let bases = both(o.validation_error, o.json_decode_error);
    if bases.is_null() {
        return None;
    }
    o.json_validation_error = new_exception(c"orcodec.JSONValidationError", docs::VALIDATION_ERROR, bases);
    Py_DECREF(bases);
    let bases = both(o.validation_error, o.msgpack_decode_error);
    if bases.is_null() {
        return None;
    }
    o.msgpack_validation_error = new_exception(c"orcodec.MsgpackValidationError", docs::VALIDATION_ERROR, bases);
    Py_DECREF(bases);
    o.json_encode_error = new_exception(c"orcodec.JSONEncodeError", docs::JSON_ENCODE_ERROR, PyExc_TypeError);
    o.msgpack_encode_error = new_exception(c"orcodec.MsgpackEncodeError", docs::MSGPACK_ENCODE_ERROR, PyExc_TypeError);
    o.json_input_error =
        new_type_error(c"orcodec.JSONInputTypeError", docs::JSON_INPUT_TYPE_ERROR, o.json_decode_error);
    o.msgpack_input_error =
        new_type_error(c"orcodec.MsgpackInputTypeError", docs::MSGPACK_INPUT_TYPE_ERROR, o.msgpack_decode_error);
    let exception =
        |name: &CStr, doc: &CStr| PyErr_NewExceptionWithDoc(name.as_ptr(), doc.as_ptr(), PyExc_Exception, null_mut());
    o.out_of_data = exception(c"orcodec.OutOfData", docs::OUT_OF_DATA);
    o.buffer_full = exception(c"orcodec.BufferFull", docs::BUFFER_FULL);
    o.kw_type = args::intern(c"type");
    o.kw_strict = args::intern(c"strict");
    o.kw_dec_hook = args::intern(c"dec_hook");
    o.kw_forbid_unknown_fields = args::intern(c"forbid_unknown_fields");
    o.kw_default = args::intern(c"default");
    o.kw_option = args::intern(c"option");
    o.kw_ext_hook = args::intern(c"ext_hook");
    o.kw_numpy_ext_code = args::intern(c"numpy_ext_code");
    o.kw_base64 = args::intern(c"base64");
    o.kw_read_size = args::intern(c"read_size");
    o.kw_partial = args::intern(c"partial");
    o.kw_pointer = args::intern(c"pointer");
    o.str_utcoffset = args::intern(c"utcoffset");
    o.str_int = args::intern(c"int");
    o.str_value = args::intern(c"_value_");
    o.str_uuid = args::intern(c"uuid");
    o.str_enum = args::intern(c"enum");
    o.str_dataclasses = args::intern(c"dataclasses");
    o.str_dataclass_fields = args::intern(c"__dataclass_fields__");
    o.str_field_type = args::intern(c"_field_type");
    o.str_numpy = args::intern(c"numpy");
    o.str_array_struct = args::intern(c"__array_struct__");
    o.str_dtype = args::intern(c"dtype");
    o.str_str = args::intern(c"str");
    o.str_dict = args::intern(c"__dict__");
    o.str_pydantic_fields = args::intern(c"__pydantic_fields__");
    o.str_pydantic_extra = args::intern(c"__pydantic_extra__");
    o.str_fields = args::intern(c"__fields__");
    o.str_slots = args::intern(c"__slots__");
    o.str_normalize = args::intern(c"normalize");
    o.str_pytz_tzinfo = args::intern(c"pytz.tzinfo");
    o.str_decimal = args::intern(c"decimal");
    o.str_datetime = args::intern(c"datetime");
    o.gc_collect = gc_collect();
    o.base64_default = transcode::new_base64_default(module);
    o.fragment_type = classes::fragment::new_fragment_type(module);
    o.ext_type = classes::ext::new_ext_type(module);
    o.decoder_type = classes::decoder::new_decoder_type(module);
    o.unpacker_type = classes::unpacker::new_unpacker_type(module);
    o.mp_unpacker_type = msgpack_compat::unpacker::new_mp_unpacker_type(module);
    o.json_unpacker_type = classes::json_unpacker::new_json_unpacker_type(module);
    o.packer_type = classes::packer::new_packer_type(module);
    o.line_iterator_type = classes::lines::new_line_iterator_type(module);
    if o.all().iter().any(|p| p.is_null()) {
        return None;
    }
    // The state keeps its references; the module gets its own.
    for (name, obj) in [
        (c"JSONEncodeError", o.json_encode_error),
        (c"JSONDecodeError", o.json_decode_error),
        (c"MsgpackEncodeError", o.msgpack_encode_error),
        (c"MsgpackDecodeError", o.msgpack_decode_error),
        (c"JSONInputTypeError", o.json_input_error),
        (c"MsgpackInputTypeError", o.msgpack_input_error),
        (c"Fragment", o.fragment_type as *mut PyObject),
        (c"Ext", o.ext_type as *mut PyObject),
        (c"ValidationError", o.validation_error),
        (c"Decoder", o.decoder_type as *mut PyObject),
        (c"OutOfData", o.out_of_data),
        (c"BufferFull", o.buffer_full),
        (c"Unpacker", o.unpacker_type as *mut PyObject),
        (c"JSONUnpacker", o.json_unpacker_type as *mut PyObject),
        (c"Packer", o.packer_type as *mut PyObject),
        (c"_MsgpackUnpacker", o.mp_unpacker_type as *mut PyObject),
    ] {
        if !add(module, name, incref(obj)) {
            return None;
        }
    }
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
    Some(())
}

//! `Decoder(type, *, strict=True, dec_hook=None, forbid_unknown_fields=False)`:
//! a type compiled once, with its options, decoding JSON (`.loads`),
//! MessagePack (`.unpackb`) and Python objects (`.convert`).
//!
//! It takes part in garbage collection through the objects it holds itself
//! (the type, `dec_hook`); the compiled type is shared with the type cache
//! and not traversed.

use core::ffi::{c_int, c_void};
use core::ptr::null_mut;
use pyo3_ffi::*;
use std::rc::Rc;

use crate::classes::{member, slot, NO_MEMBER};
use crate::decode::pieces;
use crate::decode::typed::node::Compiled;
use crate::decode::typed::run::{self, Options};
use crate::module::args::Call;
use crate::module::docs;
use crate::module::errors::raise;
use crate::state::State;

#[repr(C)]
pub struct Decoder {
    ob_base: PyObject,
    /// The state of the module whose class made it.
    st: *const State,
    /// The type it decodes into.
    ty: *mut PyObject,
    /// `dec_hook` (None when there is none).
    dec_hook: *mut PyObject,
    /// `strict` and `forbid_unknown_fields` as the bools given.
    strict_obj: *mut PyObject,
    forbid_obj: *mut PyObject,
    /// `Rc::into_raw` of the compiled type; NULL once cleared.
    compiled: *const Compiled,
}

impl Decoder {
    /// The compiled type and the options, or None (with an exception set)
    /// for a Decoder cleared by the collector.
    pub unsafe fn parts<'a>(obj: *mut PyObject) -> Option<(&'static State, &'a Compiled, Options)> {
        let d = &*(obj as *mut Decoder);
        if d.compiled.is_null() {
            raise(PyExc_RuntimeError, "this Decoder was cleared by the garbage collector");
            return None;
        }
        let dec_hook = if d.dec_hook == Py_None() { null_mut() } else { d.dec_hook };
        let opts = Options { strict: d.strict_obj == Py_True(), dec_hook, forbid_unknown: d.forbid_obj == Py_True() };
        Some((&*d.st, &*d.compiled, opts))
    }
}

unsafe extern "C" fn decoder_new(ty: *mut PyTypeObject, args: *mut PyObject, kwargs: *mut PyObject) -> *mut PyObject {
    let Some(st) = State::of_type(ty) else {
        return null_mut();
    };
    let s = st;
    if PyTuple_GET_SIZE(args) != 1 {
        raise(PyExc_TypeError, "Decoder() takes exactly 1 positional argument (the type)");
        return null_mut();
    }
    let target = PyTuple_GET_ITEM(args, 0);
    let (mut strict, mut dec_hook, mut forbid) = (null_mut(), null_mut(), null_mut());
    if !kwargs.is_null() {
        let (mut pos, mut key, mut value): (Py_ssize_t, *mut PyObject, *mut PyObject) = (0, null_mut(), null_mut());
        while PyDict_Next(kwargs, &mut pos, &mut key, &mut value) != 0 {
            let slot = if PyUnicode_Compare(key, s.kw_strict) == 0 {
                &mut strict
            } else if PyUnicode_Compare(key, s.kw_dec_hook) == 0 {
                &mut dec_hook
            } else if PyUnicode_Compare(key, s.kw_forbid_unknown_fields) == 0 {
                &mut forbid
            } else {
                let shown = crate::module::errors::repr(key);
                raise(PyExc_TypeError, &format!("Decoder() got an unexpected keyword argument {shown}"));
                return null_mut();
            };
            *slot = value;
        }
    }
    let Ok(opts) = run::parse_options(st, strict, dec_hook) else {
        return null_mut();
    };
    let forbid = if forbid.is_null() {
        false
    } else {
        match PyObject_IsTrue(forbid) {
            -1 => return null_mut(),
            v => v == 1,
        }
    };
    let Ok(compiled) = run::compiled_type(st, target) else {
        return null_mut();
    };
    let obj = PyType_GenericAlloc(ty, 0);
    if obj.is_null() {
        return null_mut();
    }
    let d = &mut *(obj as *mut Decoder);
    let bool_obj = |b: bool| {
        let v = if b { Py_True() } else { Py_False() };
        Py_INCREF(v);
        v
    };
    d.st = st;
    Py_INCREF(target);
    d.ty = target;
    d.dec_hook = if opts.dec_hook.is_null() { Py_None() } else { opts.dec_hook };
    Py_INCREF(d.dec_hook);
    d.strict_obj = bool_obj(opts.strict);
    d.forbid_obj = bool_obj(forbid);
    d.compiled = Rc::into_raw(compiled);
    obj
}

unsafe fn clear_fields(d: &mut Decoder) {
    crate::classes::clear([&mut d.ty, &mut d.dec_hook]);
    let compiled = core::mem::replace(&mut d.compiled, core::ptr::null());
    if !compiled.is_null() {
        drop(Rc::from_raw(compiled));
    }
}

unsafe extern "C" fn decoder_clear(obj: *mut PyObject) -> c_int {
    clear_fields(&mut *(obj as *mut Decoder));
    0
}

unsafe extern "C" fn decoder_traverse(obj: *mut PyObject, visit: visitproc, arg: *mut c_void) -> c_int {
    let d = &*(obj as *mut Decoder);
    crate::classes::traverse(obj, [d.ty, d.dec_hook], visit, arg)
}

unsafe extern "C" fn decoder_dealloc(obj: *mut PyObject) {
    PyObject_GC_UnTrack(obj as *mut c_void);
    let d = &mut *(obj as *mut Decoder);
    clear_fields(d);
    Py_XDECREF(d.strict_obj);
    Py_XDECREF(d.forbid_obj);
    crate::classes::free_instance(obj);
}

unsafe extern "C" fn decoder_repr(obj: *mut PyObject) -> *mut PyObject {
    let d = &*(obj as *mut Decoder);
    if d.ty.is_null() {
        return PyUnicode_FromString(c"Decoder(<cleared>)".as_ptr());
    }
    PyUnicode_FromFormat(c"Decoder(%R)".as_ptr(), d.ty)
}

/// `Decoder.loads(obj, *, partial=False, pointer=None)`: what
/// `loads(obj, type=..., partial=..., pointer=...)` gives.
unsafe extern "C" fn decoder_loads(
    obj: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let Some((st, compiled, opts)) = Decoder::parts(obj) else {
        return core::ptr::null_mut();
    };
    let call = Call { args, nargs: nargs as usize, kwnames };
    let Ok([data, partial, pointer]) = call.parse("loads", [core::ptr::null_mut(), st.kw_partial, st.kw_pointer], 1)
    else {
        return core::ptr::null_mut();
    };
    let Ok(parts) = pieces::parse_json_pieces(partial, pointer) else {
        return core::ptr::null_mut();
    };
    // Held: the compiled type is borrowed from it while hooks may run.
    Py_INCREF(obj);
    let result = pieces::loads_pieces(st, data, Some((compiled, &opts)), &parts);
    Py_DECREF(obj);
    result
}

/// `Decoder.unpackb(obj, *, ext_hook=None, option=None, pointer=None)`:
/// what `unpackb(obj, type=..., ...)` gives.
unsafe extern "C" fn decoder_unpackb(
    obj: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let Some((st, compiled, opts)) = Decoder::parts(obj) else {
        return core::ptr::null_mut();
    };
    let call = Call { args, nargs: nargs as usize, kwnames };
    let names = [core::ptr::null_mut(), st.kw_ext_hook, st.kw_option, st.kw_pointer];
    let Ok([data, ext_hook, option, pointer]) = call.parse("unpackb", names, 1) else {
        return core::ptr::null_mut();
    };
    let Some((ext_hook, read_opts, flags)) = crate::decode::msgpack_options(st, ext_hook, option) else {
        return core::ptr::null_mut();
    };
    let Ok(tokens) = pieces::parse_pointer(pointer) else {
        return core::ptr::null_mut();
    };
    let code = orcodec_core::msgpack::numpy::DEFAULT_CODE;
    Py_INCREF(obj);
    let result =
        pieces::unpackb_pointer(st, data, tokens.as_ref(), ext_hook, read_opts, flags, code, Some((compiled, &opts)));
    Py_DECREF(obj);
    result
}

/// `Decoder.convert(obj)`.
unsafe extern "C" fn decoder_convert(
    obj: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let call = Call { args, nargs: nargs as usize, kwnames };
    let Ok([value]) = call.parse("convert", [null_mut()], 1) else {
        return null_mut();
    };
    let Some((st, compiled, opts)) = Decoder::parts(obj) else {
        return null_mut();
    };
    // Held: the validation may run code that drops the last other reference.
    Py_INCREF(obj);
    let result = run::convert_with(st, compiled, &opts, value);
    Py_DECREF(obj);
    result
}

/// `Decoder[T]`, for annotations.
unsafe extern "C" fn decoder_class_getitem(cls: *mut PyObject, item: *mut PyObject) -> *mut PyObject {
    Py_GenericAlias(cls, item)
}

static mut DECODER_METHODS: [PyMethodDef; 5] = [
    PyMethodDef {
        ml_name: c"__class_getitem__".as_ptr(),
        ml_meth: PyMethodDefPointer { PyCFunction: decoder_class_getitem },
        ml_flags: METH_O | METH_CLASS,
        ml_doc: c"Decoder[T]: the type of a Decoder of T, for annotations.".as_ptr(),
    },
    PyMethodDef {
        ml_name: c"loads".as_ptr(),
        ml_meth: PyMethodDefPointer { PyCFunctionFastWithKeywords: decoder_loads },
        ml_flags: METH_FASTCALL | METH_KEYWORDS,
        ml_doc: docs::DECODER_LOADS.as_ptr(),
    },
    PyMethodDef {
        ml_name: c"unpackb".as_ptr(),
        ml_meth: PyMethodDefPointer { PyCFunctionFastWithKeywords: decoder_unpackb },
        ml_flags: METH_FASTCALL | METH_KEYWORDS,
        ml_doc: docs::DECODER_UNPACKB.as_ptr(),
    },
    PyMethodDef {
        ml_name: c"convert".as_ptr(),
        ml_meth: PyMethodDefPointer { PyCFunctionFastWithKeywords: decoder_convert },
        ml_flags: METH_FASTCALL | METH_KEYWORDS,
        ml_doc: docs::DECODER_CONVERT.as_ptr(),
    },
    PyMethodDef::zeroed(),
];

static mut DECODER_MEMBERS: [PyMemberDef; 5] = [
    member(c"type", Py_T_OBJECT_EX, core::mem::offset_of!(Decoder, ty), docs::DECODER_TYPE),
    member(c"strict", Py_T_OBJECT_EX, core::mem::offset_of!(Decoder, strict_obj), docs::DECODER_STRICT),
    member(c"dec_hook", Py_T_OBJECT_EX, core::mem::offset_of!(Decoder, dec_hook), docs::DECODER_DEC_HOOK),
    member(c"forbid_unknown_fields", Py_T_OBJECT_EX, core::mem::offset_of!(Decoder, forbid_obj), docs::DECODER_FORBID),
    NO_MEMBER,
];

/// Creates the `Decoder` type (called once, at module init).
pub unsafe fn new_decoder_type(module: *mut PyObject) -> *mut PyTypeObject {
    let mut slots = [
        slot(Py_tp_new, decoder_new as *mut c_void),
        slot(Py_tp_dealloc, decoder_dealloc as *mut c_void),
        slot(Py_tp_traverse, decoder_traverse as *mut c_void),
        slot(Py_tp_clear, decoder_clear as *mut c_void),
        slot(Py_tp_repr, decoder_repr as *mut c_void),
        slot(Py_tp_methods, core::ptr::addr_of_mut!(DECODER_METHODS) as *mut c_void),
        slot(Py_tp_members, core::ptr::addr_of_mut!(DECODER_MEMBERS) as *mut c_void),
        slot(Py_tp_doc, docs::DECODER.as_ptr() as *mut c_void),
        slot(0, null_mut()),
    ];
    let mut spec = PyType_Spec {
        name: c"orcodec.Decoder".as_ptr(),
        basicsize: core::mem::size_of::<Decoder>() as c_int,
        itemsize: 0,
        flags: (Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC) as _,
        slots: slots.as_mut_ptr(),
    };
    PyType_FromModuleAndSpec(module, &mut spec, null_mut()) as *mut PyTypeObject
}

//! `Packer`: msgpack-python's `Packer` (its common subset): `pack(obj)`
//! returns what `packb(obj, default=..., option=...)` returns, with the
//! options given once; `pack_array_header(n)` and `pack_map_header(n)`
//! write a container's header for items packed one by one.

use core::ffi::{c_int, c_void};
use core::ptr::null_mut;
use orcodec_core::msgpack::writer::{write_array_header, write_map_header, MAX_LEN};
use pyo3_ffi::*;

use crate::encode::pack_object;
use crate::module::args::{parse_numpy_ext_code, parse_opts};
use crate::module::docs;
use crate::module::errors::raise;
use crate::module::options::Opt;
use crate::module::streams::constructor_args;
use crate::state::State;

#[repr(C)]
pub struct Packer {
    ob_base: PyObject,
    /// The state of the module whose class made it.
    st: *const State,
    /// NULL for no hook.
    default: *mut PyObject,
    opts: Opt,
    numpy_code: i8,
}

unsafe extern "C" fn packer_new(ty: *mut PyTypeObject, args: *mut PyObject, kwargs: *mut PyObject) -> *mut PyObject {
    let Some(st) = State::of_type(ty) else {
        return null_mut();
    };
    let names = [c"default", c"option", c"numpy_ext_code"];
    let Ok([default, option, code]) = constructor_args("Packer", names, 0, args, kwargs) else {
        return null_mut();
    };
    let default = if default.is_null() || default == Py_None() { null_mut() } else { default };
    if !default.is_null() && PyCallable_Check(default) == 0 {
        raise(PyExc_TypeError, "default must be callable");
        return null_mut();
    }
    let Ok(opts) = parse_opts(option, st.msgpack_encode_error, crate::module::options::ENCODE_MASK) else {
        return null_mut();
    };
    let Ok(numpy_code) = parse_numpy_ext_code(code, st.msgpack_encode_error) else {
        return null_mut();
    };
    let alloc = (*ty).tp_alloc.unwrap_or(PyType_GenericAlloc);
    let obj = alloc(ty, 0) as *mut Packer;
    if obj.is_null() {
        return null_mut();
    }
    (*obj).st = st;
    Py_XINCREF(default);
    (*obj).default = default;
    (*obj).opts = opts;
    (*obj).numpy_code = numpy_code;
    obj as *mut PyObject
}

unsafe extern "C" fn packer_traverse(obj: *mut PyObject, visit: visitproc, arg: *mut c_void) -> c_int {
    crate::classes::traverse(obj, [(*(obj as *mut Packer)).default], visit, arg)
}

unsafe extern "C" fn packer_clear(obj: *mut PyObject) -> c_int {
    crate::classes::clear([&mut (*(obj as *mut Packer)).default]);
    0
}

unsafe extern "C" fn packer_dealloc(obj: *mut PyObject) {
    PyObject_GC_UnTrack(obj as *mut c_void);
    packer_clear(obj);
    crate::classes::free_instance(obj);
}

unsafe extern "C" fn packer_pack(obj: *mut PyObject, value: *mut PyObject) -> *mut PyObject {
    let p = &*(obj as *mut Packer);
    // Held: `default` may drop the last other reference to the packer.
    let default = p.default;
    Py_XINCREF(default);
    let out = pack_object(&*p.st, value, default, p.opts, p.numpy_code);
    Py_XDECREF(default);
    out
}

/// A container header for `n` items (`write` the writer's function).
unsafe fn header(n: *mut PyObject, write: fn(&mut Vec<u8>, usize)) -> *mut PyObject {
    let len = PyLong_AsSsize_t(n);
    if len == -1 && !PyErr_Occurred().is_null() {
        return null_mut();
    }
    if len < 0 || len as usize > MAX_LEN {
        raise(PyExc_ValueError, "the number of items must be from 0 to 2**32-1");
        return null_mut();
    }
    // A header takes at most 5 bytes.
    let mut out = Vec::new();
    if orcodec_core::fallible::reserve(&mut out, 5).is_err() {
        return PyErr_NoMemory();
    }
    write(&mut out, len as usize);
    PyBytes_FromStringAndSize(out.as_ptr() as *const core::ffi::c_char, out.len() as Py_ssize_t)
}

unsafe extern "C" fn packer_array_header(_obj: *mut PyObject, n: *mut PyObject) -> *mut PyObject {
    header(n, write_array_header)
}

unsafe extern "C" fn packer_map_header(_obj: *mut PyObject, n: *mut PyObject) -> *mut PyObject {
    header(n, write_map_header)
}

static mut PACKER_METHODS: [PyMethodDef; 4] = [
    PyMethodDef {
        ml_name: c"pack".as_ptr(),
        ml_meth: PyMethodDefPointer { PyCFunction: packer_pack },
        ml_flags: METH_O,
        ml_doc: docs::PACKER_PACK.as_ptr(),
    },
    PyMethodDef {
        ml_name: c"pack_array_header".as_ptr(),
        ml_meth: PyMethodDefPointer { PyCFunction: packer_array_header },
        ml_flags: METH_O,
        ml_doc: docs::PACKER_ARRAY_HEADER.as_ptr(),
    },
    PyMethodDef {
        ml_name: c"pack_map_header".as_ptr(),
        ml_meth: PyMethodDefPointer { PyCFunction: packer_map_header },
        ml_flags: METH_O,
        ml_doc: docs::PACKER_MAP_HEADER.as_ptr(),
    },
    PyMethodDef::zeroed(),
];

/// Creates the `Packer` type (called once, at module init).
pub unsafe fn new_packer_type(module: *mut PyObject) -> *mut PyTypeObject {
    let mut slots = [
        crate::classes::slot(Py_tp_new, packer_new as *mut c_void),
        crate::classes::slot(Py_tp_dealloc, packer_dealloc as *mut c_void),
        crate::classes::slot(Py_tp_traverse, packer_traverse as *mut c_void),
        crate::classes::slot(Py_tp_clear, packer_clear as *mut c_void),
        crate::classes::slot(Py_tp_methods, core::ptr::addr_of_mut!(PACKER_METHODS) as *mut c_void),
        crate::classes::slot(Py_tp_doc, docs::PACKER.as_ptr() as *mut c_void),
        crate::classes::slot(0, null_mut()),
    ];
    crate::classes::new_gc_type(module, c"orcodec.Packer", core::mem::size_of::<Packer>(), true, &mut slots)
}

//! The Python classes orcodec defines, one file each, and the helpers they
//! share: heap types made from a spec at module init, immutable, with
//! read-only members.

pub mod decoder;
pub mod ext;
pub mod fragment;
pub mod json_unpacker;
pub mod lines;
pub mod packer;
pub mod unpacker;

use core::ffi::{c_int, c_void};
use core::ptr::null_mut;
use pyo3_ffi::*;

use crate::module::errors::raise;

/// Exactly `N` positional arguments and no keywords, or a TypeError.
pub unsafe fn positional<const N: usize>(
    name: &str,
    args: *mut PyObject,
    kwargs: *mut PyObject,
) -> Option<[*mut PyObject; N]> {
    if (!kwargs.is_null() && PyDict_Size(kwargs) != 0) || PyTuple_GET_SIZE(args) as usize != N {
        let plural = if N == 1 { "" } else { "s" };
        raise(PyExc_TypeError, &format!("{name}() takes exactly {N} positional argument{plural}"));
        return None;
    }
    Some(core::array::from_fn(|i| PyTuple_GET_ITEM(args, i as Py_ssize_t)))
}

/// Frees an instance of a heap type whose object fields are `fields`.
pub unsafe fn dealloc<const N: usize>(obj: *mut PyObject, fields: [*mut PyObject; N]) {
    for field in fields {
        Py_XDECREF(field);
    }
    free_instance(obj);
}

/// The end of every `tp_dealloc`, once the instance's own fields are
/// released: frees its memory and releases its type (instances of heap
/// types hold a reference to their type).
pub unsafe fn free_instance(obj: *mut PyObject) {
    let ty = Py_TYPE(obj);
    if let Some(free) = (*ty).tp_free {
        free(obj as *mut c_void);
    }
    Py_DECREF(ty as *mut PyObject);
}

/// `tp_traverse` of a collected heap type's instance: visits the object
/// fields that are set, then the type.
pub unsafe fn traverse<const N: usize>(
    obj: *mut PyObject,
    fields: [*mut PyObject; N],
    visit: visitproc,
    arg: *mut c_void,
) -> c_int {
    for field in fields.into_iter().chain([Py_TYPE(obj) as *mut PyObject]) {
        if !field.is_null() {
            let r = visit(field, arg);
            if r != 0 {
                return r;
            }
        }
    }
    0
}

/// `tp_clear`'s work: releases each object field, set to NULL first (code
/// that the release runs may reach the instance again).
pub unsafe fn clear<const N: usize>(fields: [&mut *mut PyObject; N]) {
    for field in fields {
        let old = core::mem::replace(field, null_mut());
        Py_XDECREF(old);
    }
}

/// A read-only member `name`, of kind `kind`, stored at `offset` in each instance.
pub const fn member(
    name: &'static core::ffi::CStr,
    kind: c_int,
    offset: usize,
    doc: &'static core::ffi::CStr,
) -> PyMemberDef {
    PyMemberDef {
        name: name.as_ptr(),
        type_code: kind,
        offset: offset as Py_ssize_t,
        flags: Py_READONLY,
        doc: doc.as_ptr(),
    }
}

/// A method-table entry for a method taking `self` and one object (or none).
pub const fn method(
    name: &'static core::ffi::CStr,
    f: unsafe extern "C" fn(*mut PyObject, *mut PyObject) -> *mut PyObject,
    flags: c_int,
    doc: &'static core::ffi::CStr,
) -> PyMethodDef {
    PyMethodDef {
        ml_name: name.as_ptr(),
        ml_meth: PyMethodDefPointer { PyCFunction: f },
        ml_flags: flags,
        ml_doc: doc.as_ptr(),
    }
}

/// The end of a member table.
pub const NO_MEMBER: PyMemberDef = PyMemberDef { name: null_mut(), type_code: 0, offset: 0, flags: 0, doc: null_mut() };

/// One entry of a type spec's slot table.
pub fn slot(slot: c_int, pfunc: *mut c_void) -> PyType_Slot {
    PyType_Slot { slot, pfunc }
}

/// A heap type of `module` (each interpreter's module makes its own) named
/// `name` whose instances take `basicsize` bytes, made from `slots` (it
/// cannot be subclassed); NULL with an exception set on failure.
pub unsafe fn new_type(
    module: *mut PyObject,
    name: &'static core::ffi::CStr,
    basicsize: usize,
    slots: &mut [PyType_Slot],
) -> *mut PyTypeObject {
    let mut spec = PyType_Spec {
        name: name.as_ptr(),
        basicsize: basicsize as c_int,
        itemsize: 0,
        flags: Py_TPFLAGS_DEFAULT as _,
        slots: slots.as_mut_ptr(),
    };
    PyType_FromModuleAndSpec(module, &mut spec, null_mut()) as *mut PyTypeObject
}

/// A heap type like [`new_type`]'s whose instances hold Python objects the
/// cyclic collector must see (`slots` has `tp_traverse` and `tp_clear`);
/// with `subclassable`, Python classes may derive from it.
pub unsafe fn new_gc_type(
    module: *mut PyObject,
    name: &'static core::ffi::CStr,
    basicsize: usize,
    subclassable: bool,
    slots: &mut [PyType_Slot],
) -> *mut PyTypeObject {
    let mut flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC;
    if subclassable {
        flags |= Py_TPFLAGS_BASETYPE;
    }
    let mut spec = PyType_Spec {
        name: name.as_ptr(),
        basicsize: basicsize as c_int,
        itemsize: 0,
        flags: flags as _,
        slots: slots.as_mut_ptr(),
    };
    PyType_FromModuleAndSpec(module, &mut spec, null_mut()) as *mut PyTypeObject
}

/// `tp_iter` of an object that is its own iterator.
pub unsafe extern "C" fn iter_self(obj: *mut PyObject) -> *mut PyObject {
    Py_INCREF(obj);
    obj
}

/// The slots of a streaming reader class (`Unpacker`, `JSONUnpacker`).
pub struct ReaderSlots {
    pub new: newfunc,
    pub dealloc: destructor,
    pub traverse: traverseproc,
    pub clear: inquiry,
    pub next: iternextfunc,
    /// The method table (static, ended by a zeroed entry).
    pub methods: *mut PyMethodDef,
    pub doc: &'static core::ffi::CStr,
}

/// A streaming reader class: constructed from Python, its own iterator,
/// holding Python objects the collector must see, subclassable.
pub unsafe fn new_reader_type(
    module: *mut PyObject,
    name: &'static core::ffi::CStr,
    basicsize: usize,
    reader: ReaderSlots,
) -> *mut PyTypeObject {
    let mut slots = [
        slot(Py_tp_new, reader.new as *mut c_void),
        slot(Py_tp_dealloc, reader.dealloc as *mut c_void),
        slot(Py_tp_traverse, reader.traverse as *mut c_void),
        slot(Py_tp_clear, reader.clear as *mut c_void),
        slot(Py_tp_iter, iter_self as *mut c_void),
        slot(Py_tp_iternext, reader.next as *mut c_void),
        slot(Py_tp_methods, reader.methods as *mut c_void),
        slot(Py_tp_doc, reader.doc.as_ptr() as *mut c_void),
        slot(0, null_mut()),
    ];
    new_gc_type(module, name, basicsize, true, &mut slots)
}

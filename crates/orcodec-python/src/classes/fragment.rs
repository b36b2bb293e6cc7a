//! `Fragment(contents)`: already-encoded output inserted verbatim (JSON text
//! in `dumps`, MessagePack bytes in `packb`; see `encode/types/fragment.rs`).
//! Like orjson's, it takes any object and its repr is the default one; the
//! content is checked when it is written.

use core::ffi::c_void;
use core::ptr::null_mut;
use pyo3_ffi::*;

use crate::classes::{dealloc, member, new_type, positional, slot, NO_MEMBER};
use crate::module::docs;

#[repr(C)]
pub struct Fragment {
    ob_base: PyObject,
    /// Any object (bytes or str to be written), never NULL once constructed.
    pub contents: *mut PyObject,
}

unsafe extern "C" fn fragment_new(ty: *mut PyTypeObject, args: *mut PyObject, kwargs: *mut PyObject) -> *mut PyObject {
    let Some([contents]) = positional::<1>("Fragment", args, kwargs) else {
        return null_mut();
    };
    let obj = PyType_GenericAlloc(ty, 0);
    if !obj.is_null() {
        Py_INCREF(contents);
        (*(obj as *mut Fragment)).contents = contents;
    }
    obj
}

unsafe extern "C" fn fragment_dealloc(obj: *mut PyObject) {
    dealloc(obj, [(*(obj as *mut Fragment)).contents])
}

static mut FRAGMENT_MEMBERS: [PyMemberDef; 2] = [
    member(c"contents", Py_T_OBJECT_EX, core::mem::offset_of!(Fragment, contents), docs::FRAGMENT_CONTENTS),
    NO_MEMBER,
];

/// Creates the `Fragment` type (called once, at module init).
pub unsafe fn new_fragment_type(module: *mut PyObject) -> *mut PyTypeObject {
    let mut slots = [
        slot(Py_tp_new, fragment_new as *mut c_void),
        slot(Py_tp_dealloc, fragment_dealloc as *mut c_void),
        slot(Py_tp_members, core::ptr::addr_of_mut!(FRAGMENT_MEMBERS) as *mut c_void),
        slot(Py_tp_doc, docs::FRAGMENT.as_ptr() as *mut c_void),
        slot(0, null_mut()),
    ];
    new_type(module, c"orcodec.Fragment", core::mem::size_of::<Fragment>(), &mut slots)
}

//! `Ext(tag, data)`: a MessagePack extension value (written by
//! `encode/types/ext.rs`; `unpackb`'s `ext_hook` receives its parts).

use core::ffi::{c_int, c_void};
use core::ptr::null_mut;
use pyo3_ffi::*;

use crate::classes::{dealloc, member, new_type, positional, slot, NO_MEMBER};
use crate::module::docs;
use crate::module::errors::raise;

#[repr(C)]
pub struct Ext {
    ob_base: PyObject,
    /// An exact int of any size, never NULL once constructed: a tag outside
    /// 0..=127 is an error of `packb`, not of the constructor, however large.
    pub tag: *mut PyObject,
    /// bytes, never NULL once constructed.
    pub data: *mut PyObject,
}

unsafe extern "C" fn ext_new(ty: *mut PyTypeObject, args: *mut PyObject, kwargs: *mut PyObject) -> *mut PyObject {
    let Some([tag, data]) = positional::<2>("Ext", args, kwargs) else {
        return null_mut();
    };
    if PyLong_Check(tag) == 0 {
        raise(PyExc_TypeError, "Ext tag must be an int");
        return null_mut();
    }
    if PyBytes_Check(data) == 0 {
        raise(PyExc_TypeError, "Ext data must be bytes");
        return null_mut();
    }
    // An exact int (`True` becomes 1), as an int member would have read back.
    let tag = PyNumber_Long(tag);
    if tag.is_null() {
        return null_mut();
    }
    let obj = PyType_GenericAlloc(ty, 0);
    if obj.is_null() {
        Py_DECREF(tag);
        return null_mut();
    }
    Py_INCREF(data);
    (*(obj as *mut Ext)).tag = tag;
    (*(obj as *mut Ext)).data = data;
    obj
}

unsafe extern "C" fn ext_dealloc(obj: *mut PyObject) {
    let ext = &*(obj as *mut Ext);
    dealloc(obj, [ext.tag, ext.data])
}

unsafe extern "C" fn ext_repr(obj: *mut PyObject) -> *mut PyObject {
    let ext = &*(obj as *mut Ext);
    PyUnicode_FromFormat(c"Ext(%R, %R)".as_ptr(), ext.tag, ext.data)
}

/// `Ext` values compare equal when tag and data do.
unsafe extern "C" fn ext_richcompare(a: *mut PyObject, b: *mut PyObject, op: c_int) -> *mut PyObject {
    if Py_TYPE(b) != Py_TYPE(a) || (op != Py_EQ && op != Py_NE) {
        let not_implemented = Py_NotImplemented();
        Py_INCREF(not_implemented);
        return not_implemented;
    }
    let (x, y) = (&*(a as *mut Ext), &*(b as *mut Ext));
    let equal = match (PyObject_RichCompareBool(x.tag, y.tag, Py_EQ), PyObject_RichCompareBool(x.data, y.data, Py_EQ)) {
        (-1, _) | (_, -1) => return null_mut(),
        (same_tag, same_data) => same_tag == 1 && same_data == 1,
    };
    let result = if equal == (op == Py_EQ) { Py_True() } else { Py_False() };
    Py_INCREF(result);
    result
}

unsafe extern "C" fn ext_hash(obj: *mut PyObject) -> Py_hash_t {
    let ext = &*(obj as *mut Ext);
    let (tag_hash, data_hash) = (PyObject_Hash(ext.tag), PyObject_Hash(ext.data));
    if tag_hash == -1 || data_hash == -1 {
        return -1;
    }
    let hash = data_hash ^ tag_hash.wrapping_mul(1_000_003);
    if hash == -1 {
        -2
    } else {
        hash
    }
}

static mut EXT_MEMBERS: [PyMemberDef; 3] = [
    member(c"tag", Py_T_OBJECT_EX, core::mem::offset_of!(Ext, tag), docs::EXT_TAG),
    member(c"data", Py_T_OBJECT_EX, core::mem::offset_of!(Ext, data), docs::EXT_DATA),
    NO_MEMBER,
];

/// Creates the `Ext` type (called once, at module init).
pub unsafe fn new_ext_type(module: *mut PyObject) -> *mut PyTypeObject {
    let mut slots = [
        slot(Py_tp_new, ext_new as *mut c_void),
        slot(Py_tp_dealloc, ext_dealloc as *mut c_void),
        slot(Py_tp_repr, ext_repr as *mut c_void),
        slot(Py_tp_richcompare, ext_richcompare as *mut c_void),
        slot(Py_tp_hash, ext_hash as *mut c_void),
        slot(Py_tp_members, core::ptr::addr_of_mut!(EXT_MEMBERS) as *mut c_void),
        slot(Py_tp_doc, docs::EXT.as_ptr() as *mut c_void),
        slot(0, null_mut()),
    ];
    new_type(module, c"orcodec.Ext", core::mem::size_of::<Ext>(), &mut slots)
}

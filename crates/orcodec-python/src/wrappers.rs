//! `Fragment` and `Ext`: two small immutable Python types that carry bytes
//! for the encoders. `Fragment(contents)` is already-encoded output inserted
//! verbatim (JSON text in `dumps`, MessagePack bytes in `packb`);
//! `Ext(tag, data)` is a MessagePack extension value.

use core::ffi::{c_int, c_void};
use core::ptr::null_mut;
use pyo3_ffi::*;

use crate::module::errors::raise;

#[repr(C)]
pub struct Fragment {
    ob_base: PyObject,
    /// bytes or str, never NULL once constructed.
    pub contents: *mut PyObject,
}

#[repr(C)]
pub struct Ext {
    ob_base: PyObject,
    /// An exact int of any size, never NULL once constructed: a tag outside
    /// 0..=127 is an error of `packb`, not of the constructor, however large.
    pub tag: *mut PyObject,
    /// bytes, never NULL once constructed.
    pub data: *mut PyObject,
}

/// Exactly `N` positional arguments and no keywords, or a TypeError.
unsafe fn positional<const N: usize>(
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

unsafe extern "C" fn fragment_new(ty: *mut PyTypeObject, args: *mut PyObject, kwargs: *mut PyObject) -> *mut PyObject {
    let Some([contents]) = positional::<1>("Fragment", args, kwargs) else {
        return null_mut();
    };
    if PyBytes_Check(contents) == 0 && PyUnicode_Check(contents) == 0 {
        raise(PyExc_TypeError, "Fragment contents must be bytes or str");
        return null_mut();
    }
    let obj = PyType_GenericAlloc(ty, 0);
    if !obj.is_null() {
        Py_INCREF(contents);
        (*(obj as *mut Fragment)).contents = contents;
    }
    obj
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

/// Frees an instance of a heap type whose object fields are `fields`.
unsafe fn dealloc<const N: usize>(obj: *mut PyObject, fields: [*mut PyObject; N]) {
    let ty = Py_TYPE(obj);
    for field in fields {
        Py_XDECREF(field);
    }
    if let Some(free) = (*ty).tp_free {
        free(obj as *mut c_void);
    }
    // Instances of heap types hold a reference to their type.
    Py_DECREF(ty as *mut PyObject);
}

unsafe extern "C" fn fragment_dealloc(obj: *mut PyObject) {
    dealloc(obj, [(*(obj as *mut Fragment)).contents])
}

unsafe extern "C" fn ext_dealloc(obj: *mut PyObject) {
    let ext = &*(obj as *mut Ext);
    dealloc(obj, [ext.tag, ext.data])
}

unsafe extern "C" fn fragment_repr(obj: *mut PyObject) -> *mut PyObject {
    PyUnicode_FromFormat(c"Fragment(%R)".as_ptr(), (*(obj as *mut Fragment)).contents)
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

const fn member(
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

const NO_MEMBER: PyMemberDef = PyMemberDef { name: null_mut(), type_code: 0, offset: 0, flags: 0, doc: null_mut() };

static mut FRAGMENT_MEMBERS: [PyMemberDef; 2] = [
    member(
        c"contents",
        Py_T_OBJECT_EX,
        core::mem::offset_of!(Fragment, contents),
        c"The encoded content (bytes or str).",
    ),
    NO_MEMBER,
];

static mut EXT_MEMBERS: [PyMemberDef; 3] = [
    member(c"tag", Py_T_OBJECT_EX, core::mem::offset_of!(Ext, tag), c"The extension type (0 to 127 to encode)."),
    member(c"data", Py_T_OBJECT_EX, core::mem::offset_of!(Ext, data), c"The payload (bytes)."),
    NO_MEMBER,
];

fn slot(slot: c_int, pfunc: *mut c_void) -> PyType_Slot {
    PyType_Slot { slot, pfunc }
}

unsafe fn new_type(name: &'static core::ffi::CStr, basicsize: usize, slots: &mut [PyType_Slot]) -> *mut PyTypeObject {
    let mut spec = PyType_Spec {
        name: name.as_ptr(),
        basicsize: basicsize as c_int,
        itemsize: 0,
        flags: Py_TPFLAGS_DEFAULT as _,
        slots: slots.as_mut_ptr(),
    };
    PyType_FromSpec(&mut spec) as *mut PyTypeObject
}

/// Creates the `Fragment` type (called once, at module init).
pub unsafe fn new_fragment_type() -> *mut PyTypeObject {
    let mut slots = [
        slot(Py_tp_new, fragment_new as *mut c_void),
        slot(Py_tp_dealloc, fragment_dealloc as *mut c_void),
        slot(Py_tp_repr, fragment_repr as *mut c_void),
        slot(Py_tp_members, core::ptr::addr_of_mut!(FRAGMENT_MEMBERS) as *mut c_void),
        slot(
            Py_tp_doc,
            c"Fragment(contents)\n--\n\nAlready-encoded content (JSON text for dumps, MessagePack bytes for packb) inserted verbatim.".as_ptr()
                as *mut c_void,
        ),
        slot(0, null_mut()),
    ];
    new_type(c"orcodec.Fragment", core::mem::size_of::<Fragment>(), &mut slots)
}

/// Creates the `Ext` type (called once, at module init).
pub unsafe fn new_ext_type() -> *mut PyTypeObject {
    let mut slots = [
        slot(Py_tp_new, ext_new as *mut c_void),
        slot(Py_tp_dealloc, ext_dealloc as *mut c_void),
        slot(Py_tp_repr, ext_repr as *mut c_void),
        slot(Py_tp_richcompare, ext_richcompare as *mut c_void),
        slot(Py_tp_hash, ext_hash as *mut c_void),
        slot(Py_tp_members, core::ptr::addr_of_mut!(EXT_MEMBERS) as *mut c_void),
        slot(
            Py_tp_doc,
            c"Ext(tag, data)\n--\n\nA MessagePack extension value: packb writes it, unpackb's ext_hook receives (tag, data).".as_ptr()
                as *mut c_void,
        ),
        slot(0, null_mut()),
    ];
    new_type(c"orcodec.Ext", core::mem::size_of::<Ext>(), &mut slots)
}

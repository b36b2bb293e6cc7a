//! Instances built by typed decoding without calling `__init__`: a new
//! object from `object.__new__`, its `__slots__` members written in place.

use pyo3_ffi::*;

use crate::cpython::ffi::_PyType_Lookup;

/// Where instances of `ty` store the `__slots__` member `name`, when `name`
/// on `ty` is a writable object member (what `__slots__` makes) whose
/// descriptor belongs to `ty` or a base of it: writing the pointer there is
/// what the descriptor's `__set__` does. None for anything else (a property,
/// an attribute kept in `__dict__`), which is then set through the generic
/// `setattr`.
///
/// # Safety
/// `ty` is a live type, `name` a str.
pub unsafe fn member_offset(ty: *mut PyTypeObject, name: *mut PyObject) -> Option<isize> {
    let descr = _PyType_Lookup(ty, name);
    if descr.is_null() || Py_TYPE(descr) != core::ptr::addr_of_mut!(PyMemberDescr_Type) {
        return None;
    }
    // SAFETY: `descr` is a member descriptor (type checked just above).
    let descr = &*(descr as *const PyMemberDescrObject);
    let owner = descr.d_common.d_type;
    if owner != ty && PyType_IsSubtype(ty, owner) == 0 {
        return None;
    }
    // CPython stores a `PyMemberDef` here on every version.
    let member = &*(descr.d_member as *const PyMemberDef);
    if member.type_code != Py_T_OBJECT_EX || member.flags & Py_READONLY != 0 || member.flags & 2 != 0 {
        return None;
    }
    // A pointer inside the fixed part of every instance of `owner` (and so
    // of `ty`): past the object header, before the end of the basic size.
    let end = member.offset.checked_add(core::mem::size_of::<*mut PyObject>() as isize)?;
    if member.offset < core::mem::size_of::<PyObject>() as isize
        || end > (*owner).tp_basicsize
        || end > (*ty).tp_basicsize
    {
        return None;
    }
    Some(member.offset)
}

/// Stores `value` (a reference the call takes over) in the slot at `offset`
/// of `obj`, releasing what the slot held: whether it held something (its
/// release may have run code).
///
/// # Safety
/// `offset` came from [`member_offset`] for a type `obj` is an instance of
/// (its type or a base of it).
#[inline(always)]
pub unsafe fn set_slot(obj: *mut PyObject, offset: isize, value: *mut PyObject) -> bool {
    let slot = (obj as *mut u8).offset(offset) as *mut *mut PyObject;
    let old = *slot;
    *slot = value;
    if old.is_null() {
        return false;
    }
    Py_DECREF(old);
    true
}

/// `object.__new__(ty)`: a new instance with nothing set (its inline values
/// or `__dict__` prepared the way `object.__new__` does). NULL with an
/// exception set on failure.
///
/// # Safety
/// `ty` is a live type whose `tp_new` is `object.__new__`'s.
#[inline(always)]
pub unsafe fn new_instance(ty: *mut PyTypeObject) -> *mut PyObject {
    if let Some(alloc) = bare_alloc(ty) {
        return alloc(ty, 0);
    }
    let args = PyTuple_New(0);
    if args.is_null() {
        return args;
    }
    let obj = new_instance_with(ty, args);
    Py_DECREF(args);
    obj
}

/// [`new_instance`] given the empty tuple `object.__new__` takes for its
/// arguments, held by the caller (no tuple made per instance).
///
/// # Safety
/// As for [`new_instance`]; `empty` is a live empty tuple.
#[inline(always)]
pub unsafe fn new_instance_with(ty: *mut PyTypeObject, empty: *mut PyObject) -> *mut PyObject {
    if let Some(alloc) = bare_alloc(ty) {
        return alloc(ty, 0);
    }
    #[expect(clippy::expect_used, reason = "object defines tp_new")]
    let new = (*core::ptr::addr_of_mut!(PyBaseObject_Type)).tp_new.expect("object has tp_new");
    new(ty, empty, core::ptr::null_mut())
}

/// Whether `ty` makes its instances with `object.__new__` (no `__new__` of
/// its own or of a base other than object's).
///
/// # Safety
/// `ty` is a live type.
#[inline(always)]
pub unsafe fn has_object_new(ty: *mut PyTypeObject) -> bool {
    match ((*ty).tp_new, (*core::ptr::addr_of_mut!(PyBaseObject_Type)).tp_new) {
        (Some(a), Some(b)) => core::ptr::fn_addr_eq(a, b),
        _ => false,
    }
}

/// Whether `object.__setattr__` (`PyObject_GenericSetAttr`) applies to
/// instances of `ty`, as CPython's own check of the wrapper decides it: no
/// type written in C between `ty` and the first base using the generic
/// `setattr` sets attributes its own way (as `type` does, keeping its
/// lookup cache right). Python classes in between (a `__setattr__` of
/// their own, a frozen dataclass's) are passed over, as `object.__setattr__`
/// passes over them. Err: the first type in the way.
///
/// # Safety
/// `ty` is a live type.
pub unsafe fn generic_setattr_applies(ty: *mut PyTypeObject) -> Result<(), *mut PyTypeObject> {
    let mut base = ty;
    while !base.is_null() {
        let setattro = (*base).tp_setattro;
        if setattro.is_some_and(|f| core::ptr::fn_addr_eq(f, PyObject_GenericSetAttr as setattrofunc)) {
            return Ok(());
        }
        // A class made by Python code: its `tp_setattro` is inherited or
        // calls its `__setattr__`/`__delattr__` functions. A type from C
        // (static, or made from a spec) has the slot's wrapper in its dict.
        let own = if (*base).tp_flags & Py_TPFLAGS_HEAPTYPE != 0 && !(*base).tp_dict.is_null() {
            PyDict_GetItemString((*base).tp_dict, c"__setattr__".as_ptr())
        } else {
            core::ptr::null_mut()
        };
        let python_level = (*base).tp_flags & Py_TPFLAGS_HEAPTYPE != 0
            && (own.is_null() || Py_TYPE(own) != core::ptr::addr_of_mut!(PyWrapperDescr_Type));
        if !python_level {
            return Err(base);
        }
        base = (*base).tp_base;
    }
    Ok(())
}

/// `object.__setattr__(obj, name, value)`, called as Python calls it (its
/// check that no type written in C is passed over included), for an object
/// whose type typed decoding did not check: 0, or -1 with an exception set.
///
/// # Safety
/// Live objects, `name` a str.
#[cold]
#[inline(never)]
pub unsafe fn object_setattr(obj: *mut PyObject, name: *mut PyObject, value: *mut PyObject) -> core::ffi::c_int {
    let wrapper =
        PyObject_GetAttrString(core::ptr::addr_of_mut!(PyBaseObject_Type) as *mut PyObject, c"__setattr__".as_ptr());
    if wrapper.is_null() {
        return -1;
    }
    let args = [obj, name, value];
    let result = PyObject_Vectorcall(wrapper, args.as_ptr(), 3, core::ptr::null_mut());
    Py_DECREF(wrapper);
    if result.is_null() {
        return -1;
    }
    Py_DECREF(result);
    0
}

/// `Py_TPFLAGS_MANAGED_DICT` where CPython has it (3.11 on); before that a
/// `__dict__` always has a `tp_dictoffset`.
#[cfg(Py_3_11)]
const MANAGED_DICT: core::ffi::c_ulong = Py_TPFLAGS_MANAGED_DICT;
#[cfg(not(Py_3_11))]
const MANAGED_DICT: core::ffi::c_ulong = 0;

/// The `tp_alloc` of `ty` when `object.__new__(ty)` would do nothing but
/// call it: `ty` still has object's `tp_new` (a class can be given another
/// `__new__` after it is made), is not abstract, and its instances have no
/// `__dict__` (neither a dict slot nor the managed dict whose inline values
/// `object.__new__` prepares on CPython 3.11 and 3.12). Such instances
/// (`__slots__` classes: `uuid.UUID`, `slots=True` dataclasses) are then
/// made without `object.__new__`'s argument and flag checks. None otherwise.
///
/// # Safety
/// `ty` is a live type.
#[inline(always)]
pub unsafe fn bare_alloc(ty: *mut PyTypeObject) -> Option<allocfunc> {
    let object_new = (*core::ptr::addr_of_mut!(PyBaseObject_Type)).tp_new;
    let t = &*ty;
    let no_dict = t.tp_dictoffset == 0 && t.tp_flags & MANAGED_DICT == 0;
    let same_new = match (t.tp_new, object_new) {
        (Some(a), Some(b)) => core::ptr::fn_addr_eq(a, b),
        _ => false,
    };
    if !same_new || !no_dict || t.tp_flags & Py_TPFLAGS_IS_ABSTRACT != 0 {
        return None;
    }
    t.tp_alloc
}

/// A new instance of a tuple subclass `ty` (a NamedTuple) holding `items`
/// (references taken over, all non-NULL), as `tuple.__new__(ty, items)`
/// makes it. NULL with an exception set on failure (the items released).
///
/// # Safety
/// `ty` is a subclass of tuple.
pub unsafe fn new_tuple_instance(ty: *mut PyTypeObject, items: &[*mut PyObject]) -> *mut PyObject {
    #[expect(clippy::expect_used, reason = "PyType_Ready gives every type a tp_alloc")]
    let alloc = (*ty).tp_alloc.expect("types have tp_alloc");
    let obj = alloc(ty, items.len() as Py_ssize_t);
    if obj.is_null() {
        items.iter().for_each(|&v| Py_DECREF(v));
        return obj;
    }
    for (i, &v) in items.iter().enumerate() {
        PyTuple_SET_ITEM(obj, i as Py_ssize_t, v);
    }
    obj
}

//! A type's spec (made by `orcodec._typed.compile_type`, see its docstring
//! for the layout of each node) turned into the node graph the validators
//! read. Runs once per type; a malformed spec is a TypeError (it can only
//! come from a bug in the spec builder).

use core::ffi::c_char;
use core::ptr::null_mut;
use pyo3_ffi::*;

use crate::cpython::object::Owned;
use crate::decode::typed::node::*;
use crate::module::errors::{raise, Raised};
use crate::state::State;

/// The spec node kinds (`orcodec._typed`'s constants).
mod kind {
    pub const ANY: i64 = 0;
    pub const NONE: i64 = 1;
    pub const BOOL: i64 = 2;
    pub const INT: i64 = 3;
    pub const FLOAT: i64 = 4;
    pub const STR: i64 = 5;
    pub const BYTES: i64 = 6;
    pub const BYTEARRAY: i64 = 7;
    pub const LIST: i64 = 8;
    pub const VARTUPLE: i64 = 9;
    pub const TUPLE: i64 = 10;
    pub const SET: i64 = 11;
    pub const FROZENSET: i64 = 12;
    pub const DICT: i64 = 13;
    pub const UNION: i64 = 14;
    pub const CHOICE: i64 = 15;
    pub const CLASS: i64 = 16;
    pub const DATETIME: i64 = 17;
    pub const DATE: i64 = 18;
    pub const TIME: i64 = 19;
    pub const UUID: i64 = 20;
    pub const DECIMAL: i64 = 21;
    pub const CUSTOM: i64 = 22;
    pub const TAGGED: i64 = 23;
    pub const NDARRAY: i64 = 24;
    pub const TIMEDELTA: i64 = 25;
}

/// Fields past this many are found through a hash map rather than a scan.
const SCANNED_FIELDS: usize = 12;

fn bad_spec(what: &str) -> Raised {
    // SAFETY: raising needs only the GIL.
    unsafe { raise(PyExc_TypeError, &format!("orcodec: malformed type spec ({what})")) }
}

/// Item `i` of tuple `t` (borrowed).
unsafe fn item(t: *mut PyObject, i: usize) -> Result<*mut PyObject, Raised> {
    if PyTuple_Check(t) == 0 || PyTuple_GET_SIZE(t) as usize <= i {
        return Err(bad_spec("short tuple"));
    }
    Ok(PyTuple_GET_ITEM(t, i as Py_ssize_t))
}

unsafe fn int_of(obj: *mut PyObject) -> Result<i64, Raised> {
    let v = PyLong_AsLongLong(obj);
    if v == -1 && !PyErr_Occurred().is_null() {
        return Err(Raised);
    }
    Ok(v)
}

unsafe fn opt_usize(obj: *mut PyObject) -> Result<Option<usize>, Raised> {
    if obj == Py_None() {
        return Ok(None);
    }
    let v = int_of(obj)?;
    if v < 0 {
        raise(PyExc_TypeError, &format!("a length constraint must not be negative (got {v})"));
        return Err(Raised);
    }
    Ok(Some(v as usize))
}

unsafe fn opt_i64(obj: *mut PyObject) -> Result<Option<i64>, Raised> {
    if obj == Py_None() {
        return Ok(None);
    }
    int_of(obj).map(Some)
}

unsafe fn opt_f64(obj: *mut PyObject) -> Result<Option<f64>, Raised> {
    if obj == Py_None() {
        return Ok(None);
    }
    let v = PyFloat_AsDouble(obj);
    if v == -1.0 && !PyErr_Occurred().is_null() {
        return Err(Raised);
    }
    Ok(Some(v))
}

unsafe fn node_id(obj: *mut PyObject, count: usize) -> Result<NodeId, Raised> {
    let v = int_of(obj)?;
    if v == -1 {
        return Ok(NO_NODE);
    }
    if v < 0 || v as usize >= count {
        return Err(bad_spec("node index out of range"));
    }
    Ok(v as NodeId)
}

/// The UTF-8 text of str `obj` (borrowed from it).
pub unsafe fn text<'a>(obj: *mut PyObject) -> Result<&'a str, Raised> {
    let mut len: Py_ssize_t = 0;
    let data = PyUnicode_AsUTF8AndSize(obj, &mut len);
    if data.is_null() {
        return Err(Raised);
    }
    Ok(core::str::from_utf8_unchecked(core::slice::from_raw_parts(data as *const u8, len as usize)))
}

unsafe fn owned(obj: *mut PyObject) -> Owned {
    Py_INCREF(obj);
    #[expect(clippy::expect_used, reason = "callers pass items of the spec, never NULL")]
    Owned::new(obj).expect("a live object")
}

unsafe fn interned(name: &str) -> Result<Owned, Raised> {
    let obj = PyUnicode_FromStringAndSize(name.as_ptr() as *const c_char, name.len() as Py_ssize_t);
    if obj.is_null() {
        return Err(Raised);
    }
    let mut obj = obj;
    PyUnicode_InternInPlace(&mut obj);
    Owned::new(obj).map_err(|()| Raised)
}

/// Compiles the spec `(root, nodes)`.
#[expect(clippy::disallowed_methods, reason = "sized by the type's spec, not by the input")]
pub unsafe fn compile(st: &State, spec: *mut PyObject) -> Result<Compiled, Raised> {
    let root = item(spec, 0)?;
    let nodes = item(spec, 1)?;
    if PyList_Check(nodes) == 0 {
        return Err(bad_spec("nodes is no list"));
    }
    let count = PyList_GET_SIZE(nodes) as usize;
    let mut out = Compiled { nodes: Vec::with_capacity(count), expected: Vec::with_capacity(count), root: 0 };
    out.root = node_id(root, count)?;
    if out.root == NO_NODE {
        return Err(bad_spec("no root"));
    }
    for i in 0..count {
        let t = PyList_GET_ITEM(nodes, i as Py_ssize_t);
        let k = int_of(item(t, 0)?)?;
        let expected = text(item(t, 1)?)?;
        out.expected.push(expected.into());
        out.nodes.push(compile_node(st, k, t, count)?);
    }
    // Which fields are leaves, now that every node exists.
    let leaves: Vec<(bool, FastLeaf)> =
        (0..out.nodes.len()).map(|id| (out.nodes[id].is_leaf(), out.fast_leaf(id as NodeId))).collect();
    for node in &mut out.nodes {
        if let Node::Class(cl) = node {
            for field in &mut cl.fields {
                (field.leaf, field.fast) = leaves[field.node as usize];
            }
        }
    }
    Ok(out)
}

#[expect(clippy::disallowed_methods, reason = "sized by the type's spec, not by the input")]
unsafe fn compile_node(st: &State, k: i64, t: *mut PyObject, count: usize) -> Result<Node, Raised> {
    Ok(match k {
        kind::ANY => Node::Any,
        kind::NONE => Node::None,
        kind::BOOL => Node::Bool,
        kind::INT => {
            let multiple_of = opt_i64(item(t, 4)?)?;
            Node::Int(IntNode {
                ge: opt_i64(item(t, 2)?)?,
                le: opt_i64(item(t, 3)?)?,
                multiple_of: multiple_of.map(|m| m as u64),
            })
        }
        kind::FLOAT => Node::Float(FloatNode {
            ge: opt_f64(item(t, 2)?)?,
            gt: opt_f64(item(t, 3)?)?,
            le: opt_f64(item(t, 4)?)?,
            lt: opt_f64(item(t, 5)?)?,
            multiple_of: opt_f64(item(t, 6)?)?,
        }),
        kind::STR => {
            let pattern = item(t, 4)?;
            Node::Str(StrNode {
                min_len: opt_usize(item(t, 2)?)?,
                max_len: opt_usize(item(t, 3)?)?,
                pattern: if pattern == Py_None() { None } else { Some(owned(pattern)) },
            })
        }
        kind::BYTES | kind::BYTEARRAY => Node::Bytes {
            min_len: opt_usize(item(t, 2)?)?,
            max_len: opt_usize(item(t, 3)?)?,
            bytearray: k == kind::BYTEARRAY,
        },
        kind::LIST | kind::VARTUPLE | kind::SET | kind::FROZENSET => Node::Seq {
            kind: match k {
                kind::LIST => SeqKind::List,
                kind::VARTUPLE => SeqKind::Tuple,
                kind::SET => SeqKind::Set,
                _ => SeqKind::FrozenSet,
            },
            item: node_id(item(t, 2)?, count)?,
            min_len: opt_usize(item(t, 3)?)?,
            max_len: opt_usize(item(t, 4)?)?,
        },
        kind::TUPLE => {
            let items = item(t, 2)?;
            let n = PyTuple_GET_SIZE(items) as usize;
            let mut ids = Vec::with_capacity(n);
            for i in 0..n {
                ids.push(node_id(item(items, i)?, count)?);
            }
            Node::Tuple(ids.into_boxed_slice())
        }
        kind::DICT => Node::Dict {
            key: node_id(item(t, 2)?, count)?,
            value: node_id(item(t, 3)?, count)?,
            min_len: opt_usize(item(t, 4)?)?,
            max_len: opt_usize(item(t, 5)?)?,
        },
        kind::UNION => {
            let by_kind_obj = item(t, 2)?;
            let mut by_kind = [NO_NODE; KINDS];
            for (i, slot) in by_kind.iter_mut().enumerate() {
                *slot = node_id(item(by_kind_obj, i)?, count)?;
            }
            let by_class_obj = item(t, 3)?;
            let mut by_class = Vec::new();
            for i in 0..PyTuple_GET_SIZE(by_class_obj) as usize {
                let pair = item(by_class_obj, i)?;
                by_class.push((owned(item(pair, 0)?), node_id(item(pair, 1)?, count)?));
            }
            Node::Union(Box::new(Union { by_kind, by_class }))
        }
        kind::CHOICE => Node::Choice(Box::new(choice(st, t)?)),
        kind::CLASS => Node::Class(Box::new(class(t, count)?)),
        kind::TAGGED => Node::Tagged(Box::new(tagged(t, count)?)),
        kind::DATETIME => Node::DateTime,
        kind::DATE => Node::Date,
        kind::TIME => Node::Time,
        kind::TIMEDELTA => Node::TimeDelta,
        kind::UUID => Node::Uuid,
        kind::DECIMAL => Node::Decimal,
        kind::CUSTOM => Node::Custom(owned(item(t, 2)?)),
        kind::NDARRAY => {
            let code = int_of(item(t, 2)?)?;
            let dtype = if code == -1 {
                None
            } else {
                match crate::decode::typed::dtype::Dtype::from_code(code) {
                    Some(dtype) => Some(dtype),
                    None => return Err(bad_spec("unknown ndarray dtype")),
                }
            };
            let shape = ndarray_shape(item(t, 3)?)?;
            Node::NdArray(NdArrayNode { dtype, shape })
        }
        _ => return Err(bad_spec("unknown node kind")),
    })
}

/// An ndarray's stated shape: None, or a tuple of lengths (-1 for any).
#[expect(clippy::disallowed_methods, reason = "sized by the type's spec, not by the input")]
unsafe fn ndarray_shape(obj: *mut PyObject) -> Result<Option<Box<[Option<usize>]>>, Raised> {
    if obj == Py_None() {
        return Ok(None);
    }
    if PyTuple_Check(obj) == 0 {
        return Err(bad_spec("expected a tuple"));
    }
    let mut dims = Vec::new();
    for i in 0..PyTuple_GET_SIZE(obj) as usize {
        dims.push(usize::try_from(int_of(item(obj, i)?)?).ok());
    }
    Ok(Some(dims.into_boxed_slice()))
}

/// Iterates the entries of dict `d` (borrowed keys and values).
unsafe fn entries(
    d: *mut PyObject,
    mut f: impl FnMut(*mut PyObject, *mut PyObject) -> Result<(), Raised>,
) -> Result<(), Raised> {
    if PyDict_Check(d) == 0 {
        return Err(bad_spec("expected a dict"));
    }
    let (mut pos, mut key, mut value) = (0 as Py_ssize_t, null_mut(), null_mut());
    while PyDict_Next(d, &mut pos, &mut key, &mut value) != 0 {
        f(key, value)?;
    }
    Ok(())
}

#[expect(clippy::disallowed_methods, reason = "sized by the type's spec, not by the input")]
unsafe fn choice(st: &State, t: *mut PyObject) -> Result<Choice, Raised> {
    let py_values = Owned::new(PyDict_New()).map_err(|()| Raised)?;
    let mut out = Choice {
        strs: Table::new(),
        ints: Table::new(),
        true_value: None,
        false_value: None,
        py_values,
        flag: None,
        enum_class: None,
    };
    let mut classes: Vec<*mut PyObject> = Vec::new();
    entries(item(t, 2)?, |k, v| {
        out.strs.insert(text(k)?.as_bytes().into(), owned(v));
        classes.push(Py_TYPE(v) as *mut PyObject);
        if PyDict_SetItem(out.py_values.as_ptr(), k, v) != 0 {
            return Err(Raised);
        }
        Ok(())
    })?;
    entries(item(t, 3)?, |k, v| {
        let mut overflow = 0;
        let n = PyLong_AsLongLongAndOverflow(k, &mut overflow);
        if overflow != 0 {
            raise(PyExc_TypeError, "enum and Literal int values must fit in 64 bits");
            return Err(Raised);
        }
        out.ints.insert(n, owned(v));
        classes.push(Py_TYPE(v) as *mut PyObject);
        if PyDict_SetItem(out.py_values.as_ptr(), k, v) != 0 {
            return Err(Raised);
        }
        Ok(())
    })?;
    entries(item(t, 4)?, |k, v| {
        if k == Py_True() {
            out.true_value = Some(owned(v));
        } else {
            out.false_value = Some(owned(v));
        }
        Ok(())
    })?;
    let flag = item(t, 5)?;
    if flag != Py_None() {
        out.flag = Some(owned(flag));
    }
    if let Some(&first) = classes.first() {
        if classes.iter().all(|&c| c == first)
            && crate::encode::types::enums::is_enum_type(st, first as *mut PyTypeObject)
        {
            out.enum_class = Some(owned(first));
        }
    }
    Ok(out)
}

#[expect(clippy::disallowed_methods, reason = "sized by the type's spec, not by the input")]
unsafe fn tagged(t: *mut PyObject, count: usize) -> Result<Tagged, Raised> {
    let py_tags = Owned::new(PyDict_New()).map_err(|()| Raised)?;
    let mut out = Tagged {
        tag_name: text(item(t, 2)?)?.into(),
        by_str: Table::new(),
        by_int: Table::new(),
        py_tags,
        members: Vec::new(),
    };
    entries(item(t, 3)?, |k, v| {
        let id = node_id(v, count)?;
        if PyUnicode_Check(k) != 0 {
            out.by_str.insert(text(k)?.as_bytes().into(), id);
        } else {
            out.by_int.insert(int_of(k)?, id);
        }
        if PyDict_SetItem(out.py_tags.as_ptr(), k, v) != 0 {
            return Err(Raised);
        }
        Ok(())
    })?;
    let members = item(t, 4)?;
    for i in 0..PyTuple_GET_SIZE(members) as usize {
        out.members.push(node_id(item(members, i)?, count)?);
    }
    Ok(out)
}

#[expect(clippy::disallowed_methods, reason = "sized by the type's spec, not by the input")]
unsafe fn class(t: *mut PyObject, count: usize) -> Result<ClassNode, Raised> {
    let cls = item(t, 2)?;
    if PyType_Check(cls) == 0 {
        return Err(bad_spec("class is no type"));
    }
    let fields_obj = item(t, 3)?;
    let post_init = PyObject_IsTrue(item(t, 4)?) == 1;
    let kind = match int_of(item(t, 5)?)? {
        0 => ClassKind::Dataclass,
        1 => ClassKind::Attrs,
        2 => ClassKind::TypedDict,
        _ => ClassKind::NamedTuple,
    };
    let init_vars = int_of(item(t, 6)?)? as usize;
    // The Python names, where the fields' names on the wire differ (see `wire_names`).
    let attr_names = item(t, 7)?;
    let forbid_unknown = PyObject_IsTrue(item(t, 8)?) == 1;
    if kind == ClassKind::NamedTuple
        && PyType_IsSubtype(cls as *mut PyTypeObject, core::ptr::addr_of_mut!(PyTuple_Type)) == 0
    {
        // Its instances are made as tuples of the items.
        return Err(bad_spec("a NamedTuple class that is no tuple subclass"));
    }
    let n = PyTuple_GET_SIZE(fields_obj) as usize;
    let ty = cls as *mut PyTypeObject;
    let stores_attrs = matches!(kind, ClassKind::Dataclass | ClassKind::Attrs);
    if stores_attrs {
        if let Err(base) = crate::cpython::instance::generic_setattr_applies(ty) {
            // Its fields are stored as `object.__setattr__` stores them,
            // which its instances refuse.
            let name = core::ffi::CStr::from_ptr((*ty).tp_name).to_string_lossy();
            let base = core::ffi::CStr::from_ptr((*base).tp_name).to_string_lossy();
            raise(
                PyExc_TypeError,
                &format!(
                    "Type `{name}` is not supported: its instances set attributes with `{base}.__setattr__`, \
                     which `object.__setattr__` may not pass over"
                ),
            );
            return Err(Raised);
        }
    }
    let mut fields = Vec::with_capacity(n);
    for i in 0..n {
        let f = item(fields_obj, i)?;
        let name = text(item(f, 0)?)?;
        let name_obj = interned(if attr_names == Py_None() { name } else { text(item(attr_names, i)?)? })?;
        let default_kind = int_of(item(f, 2)?)?;
        let default_obj = item(f, 3)?;
        let default = match default_kind & 3 {
            0 => Default::Required,
            1 => Default::Value,
            2 => Default::Factory,
            _ => Default::Unset,
        };
        let stored = stores_attrs && i < n - init_vars;
        fields.push(Field {
            name: name.into(),
            json_key: orcodec_core::json::pull::JsonKey::new(name),
            node: node_id(item(f, 1)?, count)?,
            default,
            default_obj: matches!(default, Default::Value | Default::Factory).then(|| owned(default_obj)),
            from_input: default_kind & 4 == 0,
            slot: if stored { crate::cpython::instance::member_offset(ty, name_obj.as_ptr()) } else { None },
            name_obj,
            leaf: false,
            fast: FastLeaf::No,
        });
    }
    let inline = crate::cpython::inline_attrs::InlineAttrs::new(fields.iter().enumerate().map(|(i, f)| {
        if stores_attrs && i < n - init_vars && f.slot.is_none() {
            f.name_obj.as_ptr()
        } else {
            core::ptr::null_mut()
        }
    }));
    let has_slots = fields.iter().any(|f| f.slot.is_some());
    let by_name = (n > SCANNED_FIELDS)
        .then(|| fields.iter().enumerate().map(|(i, f)| (Box::<[u8]>::from(f.name.as_bytes()), i)).collect());
    Ok(ClassNode {
        cls: owned(cls),
        kind,
        fields,
        init_vars,
        post_init,
        plain_new: crate::cpython::instance::has_object_new(ty),
        has_slots,
        slots_tag: core::cell::Cell::new(0),
        by_name,
        inline,
        forbid_unknown,
        no_args: Owned::new(PyTuple_New(0)).map_err(|()| Raised)?,
    })
}

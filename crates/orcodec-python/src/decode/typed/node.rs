//! The compiled form of a type: a graph of nodes, children referred to by
//! index (so recursive types are cycles, not infinite trees). Built once per
//! type by `compile.rs`; read, never changed, by the validators.

use pyo3_ffi::*;
use std::collections::HashMap;

use crate::cpython::object::Owned;

pub type NodeId = u32;
/// No node (a union without a member for a kind of value).
pub const NO_NODE: NodeId = u32::MAX;

/// Value kinds, as a union dispatches on them (the order of `Union::by_kind`).
pub const K_NULL: usize = 0;
pub const K_BOOL: usize = 1;
pub const K_INT: usize = 2;
pub const K_FLOAT: usize = 3;
pub const K_STR: usize = 4;
pub const K_BYTES: usize = 5;
pub const K_ARRAY: usize = 6;
pub const K_OBJECT: usize = 7;
pub const K_EXT: usize = 8;
pub const KINDS: usize = 9;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum SeqKind {
    List,
    Tuple,
    Set,
    FrozenSet,
}

pub struct IntNode {
    pub ge: Option<i64>,
    pub le: Option<i64>,
    pub multiple_of: Option<u64>,
}

impl IntNode {
    #[inline(always)]
    pub fn unconstrained(&self) -> bool {
        self.ge.is_none() && self.le.is_none() && self.multiple_of.is_none()
    }
}

pub struct FloatNode {
    pub ge: Option<f64>,
    pub gt: Option<f64>,
    pub le: Option<f64>,
    pub lt: Option<f64>,
    pub multiple_of: Option<f64>,
}

pub struct StrNode {
    pub min_len: Option<usize>,
    pub max_len: Option<usize>,
    /// A compiled `re.Pattern` (its `search` is called), or None.
    pub pattern: Option<Owned>,
}

pub struct Union {
    /// The member for each kind of value (`K_*`), or `NO_NODE`.
    pub by_kind: [NodeId; KINDS],
    /// For Python objects (`convert`): members whose class the object is an
    /// instance of, tried first.
    pub by_class: Vec<(Owned, NodeId)>,
    pub members: Vec<NodeId>,
}

/// Enum members and Literal values, found by the value read.
pub struct Choice {
    pub strs: HashMap<Box<[u8]>, Owned>,
    pub ints: HashMap<i64, Owned>,
    pub true_value: Option<Owned>,
    pub false_value: Option<Owned>,
    /// The same values keyed by Python objects, for `convert` (str and int keys).
    pub py_values: Owned,
    /// A `Flag` class, called for an int that is no single member.
    pub flag: Option<Owned>,
    /// The enum class, when every value is a member of one (its members pass
    /// `convert` as they are).
    pub enum_class: Option<Owned>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ClassKind {
    Dataclass,
    Attrs,
    TypedDict,
    NamedTuple,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Default {
    Required,
    Value,
    Factory,
    /// Left unset when missing (TypedDict's NotRequired, init=False fields
    /// without a default).
    Unset,
}

pub struct Field {
    pub name: Box<str>,
    /// The name as an interned str (attribute and dict key).
    pub name_obj: Owned,
    pub node: NodeId,
    pub default: Default,
    /// The default value or factory.
    pub default_obj: Option<Owned>,
    /// Read from the input (false for `init=False` fields: set from their
    /// default, their key skipped like an unknown one).
    pub from_input: bool,
    /// Where the value is stored in the instance, for `__slots__` fields:
    /// written in place (see `cpython::instance`).
    pub slot: Option<isize>,
}

pub struct ClassNode {
    pub cls: Owned,
    pub kind: ClassKind,
    pub fields: Vec<Field>,
    /// How many of the last fields are InitVars.
    pub init_vars: usize,
    pub post_init: bool,
    /// Every stored field is a slot (no `__dict__` writes at all).
    pub all_slots: bool,
    /// `__new__` is `object.__new__`, so allocation needs no call.
    pub plain_new: bool,
    /// Field index by name, for classes with many fields (a scan is faster
    /// for a few).
    pub by_name: Option<HashMap<Box<[u8]>, usize>>,
}

impl ClassNode {
    /// The index of the field named `key`, trying `hint` (the field after
    /// the previous one: keys usually come in definition order) first.
    #[inline(always)]
    pub fn find(&self, key: &[u8], hint: usize) -> Option<usize> {
        if let Some(field) = self.fields.get(hint) {
            if field.name.as_bytes() == key {
                return Some(hint);
            }
        }
        match &self.by_name {
            Some(map) => map.get(key).copied(),
            None => self.fields.iter().position(|f| f.name.as_bytes() == key),
        }
    }
}

pub struct Tagged {
    pub tag_name: Box<str>,
    pub by_str: HashMap<Box<[u8]>, NodeId>,
    pub by_int: HashMap<i64, NodeId>,
    /// The tag values as Python objects to nodes (ints), for `convert`.
    pub py_tags: Owned,
    pub members: Vec<NodeId>,
}

pub enum Node {
    Any,
    None,
    Bool,
    Int(IntNode),
    Float(FloatNode),
    Str(StrNode),
    Bytes { min_len: Option<usize>, max_len: Option<usize>, bytearray: bool },
    Seq { kind: SeqKind, item: NodeId, min_len: Option<usize>, max_len: Option<usize> },
    Tuple(Box<[NodeId]>),
    Dict { key: NodeId, value: NodeId, min_len: Option<usize>, max_len: Option<usize> },
    Union(Box<Union>),
    Choice(Box<Choice>),
    Class(Box<ClassNode>),
    Tagged(Box<Tagged>),
    DateTime,
    Date,
    Time,
    Uuid,
    Decimal,
    Custom(Owned),
}

/// A compiled type: its nodes and the name each shows in messages.
pub struct Compiled {
    pub nodes: Vec<Node>,
    pub expected: Vec<Box<str>>,
    pub root: NodeId,
}

impl Compiled {
    #[inline(always)]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn expected(&self, id: NodeId) -> &str {
        &self.expected[id as usize]
    }

    /// Calls `visit` on every Python object the nodes hold (for the
    /// collector's traversal of the objects that hold them).
    pub fn objects(&self, mut visit: impl FnMut(*mut PyObject)) {
        for node in &self.nodes {
            match node {
                Node::Str(s) => s.pattern.iter().for_each(|p| visit(p.as_ptr())),
                Node::Union(u) => u.by_class.iter().for_each(|(c, _)| visit(c.as_ptr())),
                Node::Choice(c) => {
                    c.strs.values().chain(c.ints.values()).for_each(|v| visit(v.as_ptr()));
                    c.true_value.iter().chain(c.false_value.iter()).for_each(|v| visit(v.as_ptr()));
                    visit(c.py_values.as_ptr());
                    c.flag.iter().chain(c.enum_class.iter()).for_each(|v| visit(v.as_ptr()));
                }
                Node::Class(c) => {
                    visit(c.cls.as_ptr());
                    for f in &c.fields {
                        f.default_obj.iter().for_each(|v| visit(v.as_ptr()));
                    }
                }
                Node::Tagged(t) => visit(t.py_tags.as_ptr()),
                Node::Custom(c) => visit(c.as_ptr()),
                _ => {}
            }
        }
    }
}

//! The compiled form of a type: a graph of nodes, children referred to by
//! index (so recursive types are cycles, not infinite trees). Built once per
//! type by `compile.rs`; read, never changed, by the validators.

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
}

/// A multiply-xor hasher for the lookup tables: their keys come from the
/// program's own types, and SipHash's resistance to chosen keys would cost
/// more than the lookup itself.
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

impl core::hash::Hasher for FastHasher {
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    #[inline(always)]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    #[inline(always)]
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
    #[inline(always)]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

pub type FastMap<K, V> = HashMap<K, V, core::hash::BuildHasherDefault<FastHasher>>;

/// Values found by key: a scan for a few entries (most enums and Literals),
/// a hash map past that.
pub struct Table<K, V> {
    few: Vec<(K, V)>,
    many: FastMap<K, V>,
}

/// Entries up to which a table is scanned.
const SCANNED: usize = 12;

impl<K: core::hash::Hash + Eq, V> Table<K, V> {
    pub fn new() -> Self {
        Table { few: Vec::new(), many: FastMap::default() }
    }

    #[expect(clippy::disallowed_methods, reason = "filled from the type when it is compiled, not from input")]
    pub fn insert(&mut self, key: K, value: V) {
        if self.many.is_empty() && self.few.len() < SCANNED {
            self.few.retain(|(k, _)| *k != key);
            self.few.push((key, value));
            return;
        }
        self.many.extend(self.few.drain(..));
        self.many.insert(key, value);
    }

    pub fn is_empty(&self) -> bool {
        self.few.is_empty() && self.many.is_empty()
    }
}

impl<V> Table<Box<[u8]>, V> {
    #[inline(always)]
    pub fn get(&self, key: &[u8]) -> Option<&V> {
        if self.many.is_empty() {
            // A plain loop (not an out-of-line `find`): the lengths are
            // compared first, the bytes only of an entry as long as the key.
            for (k, v) in &self.few {
                if k.len() == key.len() && same(k, key) {
                    return Some(v);
                }
            }
            return None;
        }
        self.many.get(key)
    }
}

impl<V> Table<i64, V> {
    #[inline(always)]
    pub fn get(&self, key: &i64) -> Option<&V> {
        if self.many.is_empty() {
            return self.few.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        }
        self.many.get(key)
    }
}

/// Enum members and Literal values, found by the value read.
pub struct Choice {
    pub strs: Table<Box<[u8]>, Owned>,
    pub ints: Table<i64, Owned>,
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
    /// The name on the wire: what the input's keys are matched against and
    /// what error paths show (`orcodec.Name`, the class's rename policy).
    pub name: Box<str>,
    /// The Python name as an interned str (attribute and TypedDict key).
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
    /// The name as JSON writes it (quoted), when it needs no escape: the
    /// JSON input matches the key expected next against it in place.
    pub json_key: Option<orcodec_core::json::pull::JsonKey>,
    /// The value never opens a container (no nesting below it): read in the
    /// class validator's key loop rather than on the recursion path.
    pub leaf: bool,
    /// The common leaf types the key loop reads without the generic dispatch.
    pub fast: FastLeaf,
}

/// Leaf types whose usual values the class validator's key loop builds
/// itself (as `scalar` would build them, from the same values); any other
/// value goes through `scalar`, which gives it its message or conversion.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum FastLeaf {
    /// None of these: `validate`.
    No,
    /// `str` without constraints: a str value.
    Str,
    /// `int` without constraints: an integer value within 64 bits.
    Int,
    /// A union whose member for strs is `str` without constraints and
    /// whose member for null is `None` (`Optional[str]`, `str | None`).
    OptStr,
    /// `uuid.UUID`: its text form.
    Uuid,
    /// `datetime.datetime`: RFC 3339 text.
    DateTime,
    /// `datetime.date`: `YYYY-MM-DD` text.
    Date,
    /// `decimal.Decimal`: text in plain notation.
    Decimal,
    /// Enum members or Literal values with str values: one of those strs.
    StrChoice,
}

pub struct ClassNode {
    pub cls: Owned,
    pub kind: ClassKind,
    pub fields: Vec<Field>,
    /// How many of the last fields are InitVars.
    pub init_vars: usize,
    pub post_init: bool,
    /// `__new__` was `object.__new__` when the class was compiled: its
    /// instances are made as `object.__new__` makes them, without a call.
    pub plain_new: bool,
    /// Some field is stored straight into its `__slots__` member.
    pub has_slots: bool,
    /// The class's version tag when the slot offsets were last found to be
    /// its descriptors' (0: to be checked); see `classes::check_slots`.
    pub slots_tag: core::cell::Cell<u32>,
    /// An empty tuple: `object.__new__`'s arguments.
    pub no_args: Owned,
    /// Field index by name, for classes with many fields (a scan is faster
    /// for a few).
    pub by_name: Option<FastMap<Box<[u8]>, usize>>,
    /// Where the fields kept in the instance dict go in its inline values.
    pub inline: crate::cpython::inline_attrs::InlineAttrs,
    /// Unknown fields are refused (`@orcodec.options(forbid_unknown_fields=True)`).
    pub forbid_unknown: bool,
}

impl ClassNode {
    /// The index of the field named `key`, trying `hint` (the field after
    /// the previous one: keys usually come in definition order) first.
    #[inline(always)]
    pub fn find(&self, key: &[u8], hint: usize) -> Option<usize> {
        if let Some(field) = self.fields.get(hint) {
            if same(field.name.as_bytes(), key) {
                return Some(hint);
            }
        }
        match &self.by_name {
            Some(map) => map.get(key).copied(),
            None => self.fields.iter().position(|f| same(f.name.as_bytes(), key)),
        }
    }
}

/// `a == b`, inline (field names are short).
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    orcodec_core::text::short_eq(a, b)
}

pub struct Tagged {
    pub tag_name: Box<str>,
    pub by_str: Table<Box<[u8]>, NodeId>,
    pub by_int: Table<i64, NodeId>,
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
    Bytes {
        min_len: Option<usize>,
        max_len: Option<usize>,
        bytearray: bool,
    },
    Seq {
        kind: SeqKind,
        item: NodeId,
        min_len: Option<usize>,
        max_len: Option<usize>,
    },
    Tuple(Box<[NodeId]>),
    Dict {
        key: NodeId,
        value: NodeId,
        min_len: Option<usize>,
        max_len: Option<usize>,
    },
    Union(Box<Union>),
    Choice(Box<Choice>),
    Class(Box<ClassNode>),
    Tagged(Box<Tagged>),
    DateTime,
    Date,
    Time,
    /// `datetime.timedelta`: an ISO 8601 duration.
    TimeDelta,
    Uuid,
    Decimal,
    Custom(Owned),
    /// A numpy array (`numpy.ndarray[shape, dtype[T]]`).
    NdArray(NdArrayNode),
}

pub struct NdArrayNode {
    /// The element type (None: inferred from the values).
    pub dtype: Option<crate::decode::typed::dtype::Dtype>,
    /// The shape the type states, if it states one: per dimension, its
    /// length, or None for any length.
    pub shape: Option<Box<[Option<usize>]>>,
}

/// A compiled type: its nodes and the name each shows in messages.
pub struct Compiled {
    pub nodes: Vec<Node>,
    pub expected: Vec<Box<str>>,
    pub root: NodeId,
}

impl Node {
    /// Whether a value of this node is never a container: validating it
    /// never recurses.
    pub fn is_leaf(&self) -> bool {
        match self {
            Node::None
            | Node::Bool
            | Node::Int(_)
            | Node::Float(_)
            | Node::Str(_)
            | Node::Bytes { .. }
            | Node::Choice(_)
            | Node::DateTime
            | Node::Date
            | Node::Time
            | Node::TimeDelta
            | Node::Uuid
            | Node::Decimal => true,
            Node::Union(u) => u.by_kind[K_ARRAY] == NO_NODE && u.by_kind[K_OBJECT] == NO_NODE,
            _ => false,
        }
    }
}

impl Compiled {
    /// How the key loop reads a field of node `id` (see [`FastLeaf`]).
    pub fn fast_leaf(&self, id: NodeId) -> FastLeaf {
        let plain_str = |id: NodeId| {
            matches!(self.nodes.get(id as usize),
                Some(Node::Str(n)) if n.min_len.is_none() && n.max_len.is_none() && n.pattern.is_none())
        };
        match self.node(id) {
            Node::Str(_) if plain_str(id) => FastLeaf::Str,
            Node::Int(n) if n.unconstrained() => FastLeaf::Int,
            Node::Union(u)
                if plain_str(u.by_kind[K_STR])
                    && matches!(self.nodes.get(u.by_kind[K_NULL] as usize), Some(Node::None)) =>
            {
                FastLeaf::OptStr
            }
            Node::Uuid => FastLeaf::Uuid,
            Node::DateTime => FastLeaf::DateTime,
            Node::Date => FastLeaf::Date,
            Node::Decimal => FastLeaf::Decimal,
            Node::Choice(ch) if !ch.strs.is_empty() => FastLeaf::StrChoice,
            _ => FastLeaf::No,
        }
    }

    #[inline(always)]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn expected(&self, id: NodeId) -> &str {
        &self.expected[id as usize]
    }
}

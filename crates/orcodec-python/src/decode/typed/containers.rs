//! Arrays and maps: list, tuple, set, frozenset and dict targets, and the
//! dispatch of an open container to the class validators and union members.
//!
//! Items are validated as they are read and kept on the context's stack;
//! the container is made at its exact size once its end is reached.
//! Dict keys read from JSON (always text) are converted to the key type:
//! int, float, enums and Literals, UUID, datetime, date, time, Decimal.

use pyo3_ffi::*;

use orcodec_core::builder::Builder;

use crate::cpython::object::Owned;
use crate::decode::typed::error::{from_current, invalid, Fail};
use crate::decode::typed::input::{Format, Head, Input, Value};
use crate::decode::typed::node::*;
use crate::decode::typed::path::{Path, Seg};
use crate::decode::typed::py_input::PyInput;
use crate::decode::typed::scalars::{lax_number, LaxNumber};
use crate::decode::typed::{classes, scalar, validate, Ctx};

/// "Expected `X`, got `array`" (or `object`) for an open container.
#[cold]
fn container_type_error<I: Input>(ctx: &Ctx, id: NodeId, map: bool, at: usize, path: &Path) -> Fail {
    let h = Head::new(if map { Value::Map(None) } else { Value::Array(None) }, at);
    crate::decode::typed::type_error::<I>(ctx, id, &h, path)
}

/// An open array (`map` false) or map whose head said `n` items, validated
/// as node `id`.
///
/// This function is on the recursion path of nested containers, so it only
/// dispatches: the validators it calls are not inlined into it, and a union
/// is followed in a loop rather than by a call, keeping its stack frame
/// small (1024 levels must fit a 1 MiB thread stack).
pub fn container<I: Input>(
    ctx: &mut Ctx,
    id: NodeId,
    input: &mut I,
    map: bool,
    n: Option<usize>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    let c = ctx.c;
    let asked = id;
    let mut id = id;
    loop {
        return match c.node(id) {
            Node::Seq { kind, item, min_len, max_len } if !map => {
                seq(ctx, *kind, *item, (*min_len, *max_len), input, n, at, path)
            }
            Node::Tuple(items) if !map => tuple(ctx, items, input, n, at, path),
            Node::NdArray(nd) if !map => crate::decode::typed::ndarray::from_array(ctx, nd, input, n, at, path),
            // msgpack-numpy's form of an array (`OPT_MSGPACK_NUMPY`).
            // Errors name the type asked for (a union, if it led here).
            Node::NdArray(nd) => match input.numpy_map(ctx, n, at)? {
                Some(obj) => match crate::decode::typed::ndarray::from_object(ctx.st, &obj, nd, path, at)? {
                    Some(array) => Ok(array),
                    None => Err(container_type_error::<I>(ctx, asked, map, at, path)),
                },
                None => Err(container_type_error::<I>(ctx, asked, map, at, path)),
            },
            Node::Dict { key, value, min_len, max_len } if map => {
                dict(ctx, *key, *value, (*min_len, *max_len), input, n, at, path)
            }
            Node::Class(cl) if map == (cl.kind != ClassKind::NamedTuple) => {
                if map {
                    classes::from_map(ctx, cl, input, n, at, path)
                } else {
                    classes::from_array(ctx, cl, input, n, at, path)
                }
            }
            Node::Tagged(t) if map => classes::tagged(ctx, t, id, input, n, at, path),
            Node::Union(u) => {
                let mut member = u.by_kind[if map { K_OBJECT } else { K_ARRAY }];
                let array_member = u.by_kind[K_ARRAY];
                if member == NO_NODE
                    && map
                    && array_member != NO_NODE
                    && matches!(c.node(array_member), Node::NdArray(_))
                {
                    // A map may be an array in msgpack-numpy's form.
                    member = array_member;
                }
                if member == NO_NODE {
                    return Err(container_type_error::<I>(ctx, id, map, at, path));
                }
                id = member;
                continue;
            }
            _ => Err(container_type_error::<I>(ctx, id, map, at, path)),
        };
    }
}

#[cold]
fn length_error(what: &str, min: Option<usize>, max: Option<usize>, len: usize, path: &Path, at: usize) -> Fail {
    match (min, max) {
        (Some(min), _) if len < min => {
            invalid(&format!("Expected `{what}` of length >= {min}, got length {len}"), path, at)
        }
        (_, Some(max)) => invalid(&format!("Expected `{what}` of length <= {max}, got length {len}"), path, at),
        _ => invalid(&format!("Expected `{what}` of another length, got length {len}"), path, at),
    }
}

#[inline(always)]
fn check_len(
    what: &str,
    (min, max): (Option<usize>, Option<usize>),
    len: usize,
    path: &Path,
    at: usize,
) -> Result<(), Fail> {
    if min.is_some_and(|m| len < m) || max.is_some_and(|m| len > m) {
        return Err(length_error(what, min, max, len, path, at));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn seq<I: Input>(
    ctx: &mut Ctx,
    kind: SeqKind,
    item: NodeId,
    bounds: (Option<usize>, Option<usize>),
    input: &mut I,
    n: Option<usize>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    ctx.enter(at)?;
    if let Some(len) = n {
        check_len("array", bounds, len, path, at)?;
    }
    let mut cursor = input.open(n);
    let start = ctx.stack.len();
    let mut i = 0;
    while input.next_item(&mut cursor)? {
        let item_path = path.push(Seg::Index(i));
        let value = validate(ctx, item, input, &item_path)?;
        ctx.keep(value)?;
        i += 1;
    }
    drop(cursor);
    if n.is_none() {
        check_len("array", bounds, i, path, at)?;
    }
    let out = build_seq(ctx, kind, start, path, at);
    ctx.leave();
    out
}

/// The sequence of `kind` made of the stack's items from `start`.
fn build_seq(ctx: &mut Ctx, kind: SeqKind, start: usize, path: &Path, at: usize) -> Result<Owned, Fail> {
    let len = ctx.stack.len() - start;
    // SAFETY: a new container of `len` slots, each filled once with a
    // reference it takes over; sets take their own references.
    unsafe {
        match kind {
            SeqKind::List | SeqKind::Tuple => {
                let list = kind == SeqKind::List;
                let obj =
                    Owned::new(if list { PyList_New(len as Py_ssize_t) } else { PyTuple_New(len as Py_ssize_t) })?;
                for (i, item) in ctx.stack.drain(start..).enumerate() {
                    if list {
                        PyList_SET_ITEM(obj.as_ptr(), i as Py_ssize_t, item.into_raw());
                    } else {
                        PyTuple_SET_ITEM(obj.as_ptr(), i as Py_ssize_t, item.into_raw());
                    }
                }
                Ok(obj)
            }
            SeqKind::Set | SeqKind::FrozenSet => {
                let obj = Owned::new(if kind == SeqKind::Set {
                    PySet_New(core::ptr::null_mut())
                } else {
                    PyFrozenSet_New(core::ptr::null_mut())
                })?;
                for item in ctx.stack.drain(start..) {
                    if PySet_Add(obj.as_ptr(), item.as_ptr()) != 0 {
                        return Err(from_current(path, at));
                    }
                }
                Ok(obj)
            }
        }
    }
}

#[inline(never)]
fn tuple<I: Input>(
    ctx: &mut Ctx,
    items: &[NodeId],
    input: &mut I,
    n: Option<usize>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    let wrong = |_: usize| {
        let mut message = format!("Expected `array` of length {}", items.len());
        // Where the length is known ahead (MessagePack, Python objects), it is
        // shown, as msgspec shows it.
        if let Some(n) = n {
            #[expect(clippy::disallowed_methods, reason = "a message of a few dozen bytes")]
            message.push_str(&format!(", got {n}"));
        }
        invalid(&message, path, at)
    };
    if n.is_some_and(|n| n != items.len()) {
        return Err(wrong(0));
    }
    ctx.enter(at)?;
    let mut cursor = input.open(n);
    let start = ctx.stack.len();
    let mut i = 0;
    while input.next_item(&mut cursor)? {
        if i == items.len() {
            return Err(wrong(i));
        }
        let item_path = path.push(Seg::Index(i));
        let value = validate(ctx, items[i], input, &item_path)?;
        ctx.keep(value)?;
        i += 1;
    }
    drop(cursor);
    if i != items.len() {
        return Err(wrong(i));
    }
    let out = build_seq(ctx, SeqKind::Tuple, start, path, at);
    ctx.leave();
    out
}

#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn dict<I: Input>(
    ctx: &mut Ctx,
    key: NodeId,
    value: NodeId,
    bounds: (Option<usize>, Option<usize>),
    input: &mut I,
    n: Option<usize>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    ctx.enter(at)?;
    if let Some(len) = n {
        check_len("object", bounds, len, path, at)?;
    }
    let mut cursor = input.open(n);
    let start = ctx.stack.len();
    let key_path = path.push(Seg::Key);
    let value_path = path.push(Seg::Value);
    loop {
        let Some(kh) = input.next_key(&mut cursor)? else { break };
        let k = dict_key::<I>(ctx, key, kh, &key_path)?;
        ctx.keep(k)?;
        let v = validate(ctx, value, input, &value_path)?;
        ctx.keep(v)?;
    }
    drop(cursor);
    let len = (ctx.stack.len() - start) / 2;
    if n.is_none() {
        check_len("object", bounds, len, path, at)?;
    }
    // SAFETY: the stack holds whole key and value pairs from `start`.
    let obj = unsafe { crate::decode::dict::dict_from_pairs(&mut ctx.stack, start) };
    if obj.is_null() {
        return Err(from_current(path, at));
    }
    ctx.leave();
    // SAFETY: a new reference.
    Ok(unsafe { Owned::new(obj)? })
}

/// A dict key, validated as node `id`. Keys that are text (every JSON key)
/// are converted to numbers for int and float keys (and int enums and
/// Literals); other targets read the text as they read a str value.
fn dict_key<I: Input>(ctx: &mut Ctx, id: NodeId, kh: Head, path: &Path) -> Result<Owned, Fail> {
    let c = ctx.c;
    match (kh.v, c.node(id)) {
        (Value::Str(s), Node::Str(n)) if n.min_len.is_none() && n.max_len.is_none() && n.pattern.is_none() => {
            Ok(ctx.builder.key(s)?)
        }
        (Value::Str(s), Node::Any) => Ok(ctx.builder.key(s)?),
        (Value::Str(s), node) if I::FORMAT == Format::Json && wants_number(c, node) => {
            let v = match lax_number(s, matches!(node, Node::Float(_))) {
                Some(LaxNumber::Int(v)) => Value::I64(v),
                Some(LaxNumber::UInt(v)) => Value::U64(v),
                Some(LaxNumber::Big) => Value::BigInt(s),
                Some(LaxNumber::Float(f)) => Value::F64(f),
                None => return Err(crate::decode::typed::type_error::<I>(ctx, id, &kh, path)),
            };
            scalar::<I>(ctx, id, Head { v, at: kh.at, text: s }, path)
        }
        (Value::Py(obj), _) => {
            // A Python key of any kind: validated as a whole value.
            let mut key_input = PyInput::new(obj);
            validate(ctx, id, &mut key_input, path)
        }
        (Value::Array(_) | Value::Map(_), _) => Err(crate::decode::typed::type_error::<I>(ctx, id, &kh, path)),
        _ => scalar::<I>(ctx, id, kh, path),
    }
}

/// Whether JSON text keys are read as numbers for `node`.
fn wants_number(c: &Compiled, node: &Node) -> bool {
    match node {
        Node::Int(_) | Node::Float(_) => true,
        Node::Choice(ch) => ch.strs.is_empty() && (!ch.ints.is_empty() || ch.flag.is_some()),
        Node::Union(u) => u.by_kind[K_STR] == NO_NODE && (u.by_kind[K_INT] != NO_NODE || u.by_kind[K_FLOAT] != NO_NODE),
        _ => {
            let _ = c;
            false
        }
    }
}

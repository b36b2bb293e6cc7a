//! Typed decoding: reading a value straight into a declared type, checked
//! as it is read.
//!
//! A type is compiled once (`compile.rs`, from the spec that
//! `orcodec._typed` makes) into a graph of nodes (`node.rs`) and cached
//! (`cache.rs`). The validators walk that graph top-down while they pull
//! values from an [`input::Input`]: the JSON pull reader (`json_input.rs`),
//! the MessagePack pull reader (`msgpack_input.rs`), or Python objects
//! (`convert`, `py_input.rs`). One validator
//! per kind of target serves all three inputs:
//!
//! - `scalars.rs`: None, bool, int, float, str, bytes, enums and Literals;
//! - `stdtypes.rs`: datetime, date, time, UUID, Decimal;
//! - `containers.rs`: list, tuple, set, frozenset, dict;
//! - `ndarray.rs`: numpy arrays, numbers read straight into their buffer;
//! - `classes.rs`: dataclasses, attrs classes, TypedDicts, NamedTuples and
//!   tagged unions of them, built the fast way (no `__init__` call);
//! - this file: the dispatch, unions, `Any` and custom types (`dec_hook`).
//!
//! Failures (`error.rs`) carry the `$` path, kept as a chain of segments on
//! the stack (`path.rs`) and rendered only when a failure is raised.

pub mod cache;
mod classes;
pub mod compile;
mod containers;
pub mod dtype;
pub mod error;
pub mod input;
pub mod json_input;
pub mod msgpack_input;
pub mod ndarray;
pub mod node;
pub mod path;
pub mod py_input;
pub mod run;
mod scalars;
mod stdtypes;

use orcodec_core::builder::Builder;
use orcodec_core::error::{DecodeError, DecodeErrorKind};
use pyo3_ffi::*;

use crate::cpython::inline_attrs::Run;
use crate::cpython::object::Owned;
use crate::decode::builder::PyBuilder;
use crate::decode::typed::error::{from_current, invalid, Fail};
use crate::decode::typed::input::{got_name, Format, Head, Input, Value};
use crate::decode::typed::node::*;
use crate::decode::typed::path::Path;
use crate::state::State;

/// What one typed decode needs besides its input.
pub struct Ctx<'c> {
    /// The state of the module whose function was called.
    pub st: &'static State,
    pub c: &'c Compiled,
    /// `strict=False` allows the lax conversions (`scalars.rs`).
    pub strict: bool,
    /// `dec_hook(type, value)` for custom types, or NULL.
    pub dec_hook: *mut PyObject,
    /// Unknown fields of classes are errors rather than skipped.
    pub forbid_unknown: bool,
    /// Containers open now.
    pub depth: usize,
    /// Builds untyped values (`Any`) and strs, with the decoders' caches.
    pub builder: PyBuilder,
    /// Items of containers being read, built at their exact size once read.
    pub stack: Vec<Owned>,
}

impl<'c> Ctx<'c> {
    pub fn new(
        st: &'static State,
        c: &'c Compiled,
        strict: bool,
        dec_hook: *mut PyObject,
        forbid_unknown: bool,
    ) -> Ctx<'c> {
        Ctx {
            st,
            c,
            strict,
            dec_hook,
            forbid_unknown,
            depth: 0,
            builder: PyBuilder::new(st, core::ptr::null_mut()),
            stack: Vec::new(),
        }
    }

    /// Enters a container starting at byte `at`; the nesting limit is the
    /// untyped decoders' (the format's decode error past it).
    #[inline(always)]
    pub fn enter(&mut self, at: usize) -> Result<(), Fail> {
        self.depth += 1;
        if self.depth > orcodec_core::MAX_DECODE_DEPTH {
            return Err(Fail::Syntax(DecodeError::new(DecodeErrorKind::DepthLimit, at)));
        }
        Ok(())
    }

    #[inline(always)]
    pub fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Keeps `value` on the stack until its container is made; MemoryError
    /// (and `value` released) when the stack cannot grow.
    #[inline(always)]
    pub fn keep(&mut self, value: Owned) -> Result<(), Fail> {
        orcodec_core::fallible::push(&mut self.stack, value).map_err(|_| error::no_memory())
    }
}

/// "Expected `X`, got `Y`" for node `id` and the value `h`.
#[cold]
#[inline(never)]
pub fn type_error<I: Input>(ctx: &Ctx, id: NodeId, h: &Head, path: &Path) -> Fail {
    let message = format!("Expected `{}`, got `{}`", ctx.c.expected(id), got_name::<I>(&h.v));
    invalid(&message, path, h.at)
}

/// The next value of `input`, validated as node `id`.
#[inline]
pub fn validate<I: Input>(ctx: &mut Ctx, id: NodeId, input: &mut I, path: &Path) -> Result<Owned, Fail> {
    let c = ctx.c;
    match c.node(id) {
        Node::Any => return input.any(ctx),
        Node::Custom(cls) => return custom(ctx, id, cls.as_ptr(), input, path),
        _ => {}
    }
    let h = input.next()?;
    let at = h.at;
    match h.v {
        Value::Array(n) => containers::container(ctx, id, input, false, n, at, path),
        Value::Map(n) => containers::container(ctx, id, input, true, n, at, path),
        _ => scalar::<I>(ctx, id, h, path),
    }
}

/// The next value of `input`, validated as the type of `field` of the class
/// at `path`, a leaf field that the class validator reads itself
/// (`field.fast`, not [`FastLeaf::No`]): its usual values are built here as
/// [`scalar`] builds them; any other value goes the way [`validate`] sends
/// it (the field's path made only then). `run` is forgotten unless the
/// value was made without running Python code (see
/// [`crate::cpython::inline_attrs::Run`]): only the usual values of the arms
/// here are.
#[inline(always)]
pub fn validate_fast_leaf<I: Input>(
    ctx: &mut Ctx,
    field: &Field,
    input: &mut I,
    path: &Path,
    run: &mut Run,
) -> Result<Owned, Fail> {
    fast_leaf::<I, true, true>(ctx, field, input, path, run)
}

/// [`validate_fast_leaf`] with the arms of the str/int leaves (`STR_INT`)
/// or of the text-made types (`TEXT`) only: a value of another leaf goes
/// to [`scalar`], which gives the same result, so any choice is correct;
/// the out-of-line versions keep each function small.
#[inline(always)]
fn fast_leaf<I: Input, const STR_INT: bool, const TEXT: bool>(
    ctx: &mut Ctx,
    field: &Field,
    input: &mut I,
    path: &Path,
    run: &mut Run,
) -> Result<Owned, Fail> {
    let (fast, id) = (field.fast, field.node);
    let h = input.next()?;
    let at = h.at;
    match (fast, h.v) {
        (FastLeaf::Str | FastLeaf::OptStr, Value::Str(s)) if STR_INT => Ok(ctx.builder.str(s)?),
        (FastLeaf::Int, Value::I64(v)) if STR_INT => {
            // SAFETY: a new reference or NULL.
            unsafe { Ok(Owned::new(PyLong_FromLongLong(v))?) }
        }
        // SAFETY: None is alive; a new reference.
        (FastLeaf::OptStr, Value::Null) if STR_INT => unsafe { keep(Py_None()) },
        (
            FastLeaf::Uuid | FastLeaf::DateTime | FastLeaf::Date | FastLeaf::Decimal | FastLeaf::StrChoice,
            Value::Str(s),
        ) if TEXT => {
            // SAFETY: makes an object of the field's type from text.
            let (made, pure) = unsafe {
                match fast {
                    // One call site in the (inlined) JSON key loop.
                    _ if I::FORMAT == Format::Json => stdtypes::from_text(ctx, fast, id, s),
                    FastLeaf::Uuid => stdtypes::uuid_from_text(ctx.st, s),
                    FastLeaf::DateTime => stdtypes::datetime_from_text(ctx.st, s),
                    FastLeaf::Date => stdtypes::date_from_text(ctx.st, s),
                    FastLeaf::Decimal => stdtypes::decimal_from_plain_text(ctx.st, s),
                    _ => stdtypes::choice_from_text(ctx, id, s),
                }
            };
            if !pure {
                run.forget();
            }
            if !made.is_null() {
                // SAFETY: a new reference.
                return unsafe { Ok(Owned::new(made)?) };
            }
            // SAFETY: reads the error indicator.
            if unsafe { !PyErr_Occurred().is_null() } {
                return Err(Fail::Raised);
            }
            run.forget();
            scalar::<I>(ctx, id, h, &path.push(path::Seg::Field(&field.name)))
        }
        (_, Value::Array(n)) => {
            run.forget();
            containers::container(ctx, id, input, false, n, at, &path.push(path::Seg::Field(&field.name)))
        }
        (_, Value::Map(n)) => {
            run.forget();
            containers::container(ctx, id, input, true, n, at, &path.push(path::Seg::Field(&field.name)))
        }
        _ => {
            run.forget();
            scalar::<I>(ctx, id, h, &path.push(path::Seg::Field(&field.name)))
        }
    }
}

/// [`validate_fast_leaf`] out of line: for the inputs whose reading,
/// inlined into the class validator's key loop, would cost that loop more
/// registers than the call costs (MessagePack, Python objects). One
/// function for the str/int leaves and one for the text-made types, so that
/// neither carries the other's code.
#[inline(always)]
pub fn validate_fast_leaf_outlined<I: Input>(
    ctx: &mut Ctx,
    field: &Field,
    input: &mut I,
    path: &Path,
    run: &mut Run,
) -> Result<Owned, Fail> {
    match field.fast {
        FastLeaf::Str | FastLeaf::Int | FastLeaf::OptStr => str_int_leaf_outlined(ctx, field, input, path, run),
        _ => text_leaf_outlined(ctx, field, input, path, run),
    }
}

#[inline(never)]
fn str_int_leaf_outlined<I: Input>(
    ctx: &mut Ctx,
    field: &Field,
    input: &mut I,
    path: &Path,
    run: &mut Run,
) -> Result<Owned, Fail> {
    fast_leaf::<I, true, false>(ctx, field, input, path, run)
}

#[inline(never)]
fn text_leaf_outlined<I: Input>(
    ctx: &mut Ctx,
    field: &Field,
    input: &mut I,
    path: &Path,
    run: &mut Run,
) -> Result<Owned, Fail> {
    fast_leaf::<I, false, true>(ctx, field, input, path, run)
}

/// A value that is no container (its head already read), validated as node `id`.
pub fn scalar<I: Input>(ctx: &mut Ctx, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let c = ctx.c;
    match c.node(id) {
        Node::None => scalars::none::<I>(ctx, id, h, path),
        Node::Bool => scalars::boolean::<I>(ctx, id, h, path),
        Node::Int(n) => scalars::int::<I>(ctx, n, id, h, path),
        Node::Float(n) => scalars::float::<I>(ctx, n, id, h, path),
        Node::Str(n) => scalars::string::<I>(ctx, n, id, h, path),
        Node::Bytes { min_len, max_len, bytearray } => {
            scalars::bytes::<I>(ctx, (*min_len, *max_len, *bytearray), id, h, path)
        }
        Node::Choice(ch) => scalars::choice::<I>(ctx, ch, id, h, path),
        Node::DateTime => stdtypes::datetime::<I>(ctx, id, h, path),
        Node::Date => stdtypes::date::<I>(ctx, id, h, path),
        Node::Time => stdtypes::time::<I>(ctx, id, h, path),
        Node::TimeDelta => stdtypes::timedelta::<I>(ctx, id, h, path),
        Node::Uuid => stdtypes::uuid::<I>(ctx, id, h, path),
        Node::Decimal => stdtypes::decimal::<I>(ctx, id, h, path),
        Node::Union(u) => union_scalar::<I>(ctx, u, id, h, path),
        Node::Class(cl) => match h.v {
            // SAFETY: a live object and a live class.
            Value::Py(obj) if cl.kind != ClassKind::TypedDict && unsafe { is_instance(obj, cl.cls.as_ptr()) } => {
                // SAFETY: a new reference to a live object.
                unsafe { keep(obj) }
            }
            _ => Err(type_error::<I>(ctx, id, &h, path)),
        },
        Node::Tagged(t) => {
            if let Value::Py(obj) = h.v {
                for &m in &t.members {
                    if let Node::Class(cl) = c.node(m) {
                        // SAFETY: a live object and a live class.
                        if cl.kind != ClassKind::TypedDict && unsafe { is_instance(obj, cl.cls.as_ptr()) } {
                            // SAFETY: a new reference to a live object.
                            return unsafe { keep(obj) };
                        }
                    }
                }
            }
            Err(type_error::<I>(ctx, id, &h, path))
        }
        Node::Any => scalars::any_scalar::<I>(ctx, h),
        Node::Custom(cls) => match h.v {
            // SAFETY: a live object and a live class.
            Value::Py(obj) if unsafe { is_instance(obj, cls.as_ptr()) } => unsafe { keep(obj) },
            _ => Err(type_error::<I>(ctx, id, &h, path)),
        },
        Node::NdArray(nd) => ndarray::from_scalar::<I>(ctx, nd, id, h, path),
        Node::Seq { .. } | Node::Tuple(_) | Node::Dict { .. } => Err(type_error::<I>(ctx, id, &h, path)),
    }
}

/// A new reference to `obj`.
#[inline(always)]
pub unsafe fn keep(obj: *mut PyObject) -> Result<Owned, Fail> {
    Py_INCREF(obj);
    Ok(Owned::new(obj)?)
}

/// `isinstance(obj, cls)` for a class `cls`, without calling
/// `__instancecheck__` (exact type or a subclass).
#[inline(always)]
pub unsafe fn is_instance(obj: *mut PyObject, cls: *mut PyObject) -> bool {
    let ty = Py_TYPE(obj);
    ty as *mut PyObject == cls || PyType_IsSubtype(ty, cls as *mut PyTypeObject) != 0
}

/// The kind of a Python object, as unions dispatch on it.
unsafe fn py_kind(obj: *mut PyObject) -> Option<usize> {
    Some(if obj == Py_None() {
        K_NULL
    } else if PyBool_Check(obj) != 0 {
        K_BOOL
    } else if PyLong_Check(obj) != 0 {
        K_INT
    } else if PyFloat_Check(obj) != 0 {
        K_FLOAT
    } else if PyUnicode_Check(obj) != 0 {
        K_STR
    } else if PyBytes_Check(obj) != 0 || PyByteArray_Check(obj) != 0 || PyMemoryView_Check(obj) != 0 {
        K_BYTES
    } else {
        return None;
    })
}

/// A union member chosen by the kind of a scalar value.
fn union_scalar<I: Input>(ctx: &mut Ctx, u: &Union, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let kind = match h.v {
        Value::Null => K_NULL,
        Value::Bool(_) => K_BOOL,
        Value::I64(_) | Value::U64(_) | Value::BigInt(_) => K_INT,
        Value::F64(_) => K_FLOAT,
        Value::Str(_) => K_STR,
        Value::Bytes(_) => K_BYTES,
        Value::Ext(..) => K_EXT,
        Value::Py(obj) => {
            for (cls, m) in &u.by_class {
                // SAFETY: a live object and a live class.
                if unsafe { is_instance(obj, cls.as_ptr()) } {
                    return scalar::<I>(ctx, *m, h, path);
                }
            }
            // SAFETY: a live object.
            match unsafe { py_kind(obj) } {
                Some(kind) => kind,
                None => return Err(type_error::<I>(ctx, id, &h, path)),
            }
        }
        #[expect(clippy::unreachable, reason = "`validate` sends open containers to `container`, never here")]
        Value::Array(_) | Value::Map(_) => unreachable!("containers are dispatched by `validate`"),
    };
    let mut member = u.by_kind[kind];
    if member == NO_NODE && kind == K_INT {
        member = u.by_kind[K_FLOAT];
    }
    if member != NO_NODE {
        return scalar::<I>(ctx, member, h, path);
    }
    if !ctx.strict {
        // The lax conversions: the first member that takes the value.
        for k in [K_INT, K_FLOAT, K_BOOL, K_NULL, K_EXT] {
            let m = u.by_kind[k];
            if m == NO_NODE {
                continue;
            }
            match scalar::<I>(ctx, m, h, path) {
                Ok(v) => return Ok(v),
                Err(Fail::Invalid(_)) => continue,
                Err(e) => return Err(e),
            }
        }
    }
    Err(type_error::<I>(ctx, id, &h, path))
}

/// A custom type: the value decoded as builtins, given to `dec_hook(cls, value)`.
#[inline(never)]
fn custom<I: Input>(ctx: &mut Ctx, id: NodeId, cls: *mut PyObject, input: &mut I, path: &Path) -> Result<Owned, Fail> {
    let current = input.current();
    // SAFETY: live objects; a value already of the class is kept as it is.
    if !current.is_null() && unsafe { is_instance(current, cls) } {
        input.skip(ctx.depth)?;
        // SAFETY: a new reference to a live object.
        return unsafe { keep(current) };
    }
    if ctx.dec_hook.is_null() {
        let h = input.next()?;
        return Err(type_error::<I>(ctx, id, &h, path));
    }
    let value = input.any(ctx)?;
    let args = [cls, value.as_ptr()];
    // SAFETY: the hook is a live callable the caller holds; the arguments are live.
    let result = unsafe {
        crate::decode::unpaused(|| PyObject_Vectorcall(ctx.dec_hook, args.as_ptr(), 2, core::ptr::null_mut()))
    };
    if result.is_null() {
        return Err(from_current(path, 0));
    }
    // SAFETY: a new reference.
    Ok(unsafe { Owned::new(result)? })
}

//! Dataclasses, attrs classes and TypedDicts from maps, NamedTuples from
//! arrays, and unions of classes told apart by a tag field.
//!
//! Instances are built the way msgspec builds them, not by calling
//! `__init__`: the instance is made first (`object.__new__`), each field is
//! stored as soon as its value is read (into its `__slots__` member in
//! place, into the instance's inline values where CPython keeps them, or
//! through the generic `setattr`, which also bypasses a frozen class's
//! `__setattr__`), then missing fields get their default or
//! `default_factory()` (a missing required field is an error), and
//! `__post_init__` runs with the InitVar values (`__attrs_post_init__` for
//! attrs). A `ValueError` or `TypeError` from `__post_init__` becomes a
//! ValidationError. Unknown keys are skipped without building their value,
//! or refused with `forbid_unknown_fields`.

use pyo3_ffi::*;

use crate::cpython::inline_attrs::Run;
use crate::cpython::instance::{new_instance_with, new_tuple_instance, set_slot};
use crate::cpython::object::Owned;
use crate::decode::typed::error::{from_current, invalid, Fail};
use crate::decode::typed::input::{Cursor, Format, Head, Input, KeyRead, Value};
use crate::decode::typed::node::*;
use crate::decode::typed::path::{Path, Seg};
use crate::decode::typed::py_input::PyInput;
use crate::decode::typed::scalars::{py_text, repr_of};
use crate::decode::typed::{is_instance, scalar, validate, validate_fast_leaf, validate_fast_leaf_outlined, Ctx};

/// Which fields were read: a bit per field.
struct Seen {
    bits: u64,
    more: Vec<bool>,
}

impl Seen {
    #[inline(always)]
    fn new(n: usize) -> Seen {
        Seen { bits: 0, more: if n > 64 { vec![false; n - 64] } else { Vec::new() } }
    }
    #[inline(always)]
    fn set(&mut self, i: usize) {
        if i < 64 {
            self.bits |= 1 << i;
        } else {
            self.more[i - 64] = true;
        }
    }
    #[inline(always)]
    fn get(&self, i: usize) -> bool {
        if i < 64 {
            self.bits & (1 << i) != 0
        } else {
            self.more[i - 64]
        }
    }
    #[inline(always)]
    fn all(&self, n: usize) -> bool {
        if n <= 64 {
            self.bits == if n == 64 { u64::MAX } else { (1u64 << n) - 1 }
        } else {
            self.bits == u64::MAX && self.more.iter().all(|&b| b)
        }
    }
}

/// The object being filled and the InitVar values read so far.
struct Target {
    obj: Owned,
    init_values: Vec<Option<Owned>>,
}

/// The object to fill and room for the InitVar values. Inlined: a
/// `Target` returned through memory is stored a word at a time and read
/// back in wider loads the stores cannot forward to; the object alone
/// comes back from [`new_object`].
#[inline(always)]
unsafe fn new_target(cl: &ClassNode) -> Result<Target, Fail> {
    let obj = new_object(cl)?;
    let init_values = if cl.init_vars > 0 { init_slots(cl.init_vars) } else { Vec::new() };
    Ok(Target { obj, init_values })
}

/// Whether the `__slots__` fields of `cl` go straight into their members
/// in `obj`: it is an instance of exactly the class, whose descriptors are
/// still the ones the offsets were taken from (the version tag they were
/// last checked at, see [`check_slots`]). Otherwise (whatever a
/// `__new__` of the class's own returned, an object whose `__class__` was
/// changed, a descriptor replaced since) the field is stored through the
/// generic `setattr`, which checks the object itself. Checked at every
/// store: code run while the instance is filled may change either.
#[inline(always)]
unsafe fn direct(cl: &ClassNode, obj: *mut PyObject) -> bool {
    let ty = cl.cls.as_ptr() as *mut PyTypeObject;
    let tag = cl.slots_tag.get();
    Py_TYPE(obj) == ty && tag != 0 && (*ty).tp_version_tag == tag
}

/// A new instance (or dict) of `cl`, nothing set: an instance of exactly
/// the class from `object.__new__`, or whatever the class's own `__new__`
/// returned (which may be anything: only an instance of exactly the class
/// is written into directly, see [`direct`] and `cpython::inline_attrs`).
#[inline(never)]
unsafe fn new_object(cl: &ClassNode) -> Result<Owned, Fail> {
    if cl.kind == ClassKind::TypedDict {
        return Ok(Owned::new(PyDict_New())?);
    }
    let ty = cl.cls.as_ptr() as *mut PyTypeObject;
    // A `__new__` given to the class after it was compiled is not called
    // (`new_instance_with` is `object.__new__` whatever the class has now).
    let obj = if cl.plain_new {
        Owned::new(new_instance_with(ty, cl.no_args.as_ptr()))?
    } else {
        let Some(new) = (*ty).tp_new else {
            return Err(no_instances(cl));
        };
        // What it raises propagates as it is.
        Owned::new(crate::decode::unpaused(|| new(ty, cl.no_args.as_ptr(), core::ptr::null_mut())))?
    };
    if cl.has_slots && Py_TYPE(obj.as_ptr()) == ty {
        check_slots(cl);
    }
    if matches!(cl.kind, ClassKind::Dataclass | ClassKind::Attrs) {
        cl.inline.prepare(ty);
    }
    Ok(obj)
}

/// Keeps `cl.slots_tag` the class's version tag (which CPython changes
/// with any change to the class or its bases) while the `__slots__`
/// offsets of `cl`'s fields are where the class's descriptors for them
/// write, 0 while they are not: cheap when the tag is unchanged, else the
/// descriptors are looked up again. A field's descriptor replaced (a
/// property, another member, deleted) makes it 0 until the class is as it
/// was compiled again.
///
/// # Safety
/// `cl` is a class node.
#[inline(always)]
unsafe fn check_slots(cl: &ClassNode) {
    let ty = cl.cls.as_ptr() as *mut PyTypeObject;
    let tag = cl.slots_tag.get();
    if tag == 0 || (*ty).tp_version_tag != tag {
        recheck_slots(cl, ty);
    }
}

#[inline(never)]
unsafe fn recheck_slots(cl: &ClassNode, ty: *mut PyTypeObject) {
    let same = cl
        .fields
        .iter()
        .all(|f| f.slot.is_none() || crate::cpython::instance::member_offset(ty, f.name_obj.as_ptr()) == f.slot);
    // Read after the lookups, which give the class a tag if it had none.
    cl.slots_tag.set(if same { (*ty).tp_version_tag } else { 0 });
}

/// `object.__setattr__(t.obj, field, value)`: the generic `setattr` for
/// an instance of exactly the class (whose type the compiler checked it
/// applies to), called through `object.__setattr__` itself for anything
/// else (whatever `__new__` returned, an object whose `__class__` was
/// changed), which checks the type.
#[inline(always)]
unsafe fn generic_store(cl: &ClassNode, t: &Target, field: &Field, value: &Owned) -> Result<(), Fail> {
    let obj = t.obj.as_ptr();
    let status = if Py_TYPE(obj) == cl.cls.as_ptr() as *mut PyTypeObject {
        PyObject_GenericSetAttr(obj, field.name_obj.as_ptr(), value.as_ptr())
    } else {
        crate::cpython::instance::object_setattr(obj, field.name_obj.as_ptr(), value.as_ptr())
    };
    if status != 0 {
        return Err(setattr_failed(cl, t));
    }
    Ok(())
}

/// A store into `t` failed: when the object is not an instance of the
/// class (its `__new__` returned something else), a note on the exception
/// says so.
#[cold]
#[inline(never)]
unsafe fn setattr_failed(cl: &ClassNode, t: &Target) -> Fail {
    let obj = t.obj.as_ptr();
    if !is_instance(obj, cl.cls.as_ptr()) {
        let name = type_name(cl.cls.as_ptr() as *mut PyTypeObject);
        let got = type_name(Py_TYPE(obj));
        crate::module::errors::add_note_to_current(&format!(
            "`{name}.__new__` returned an instance of `{got}`, not of `{name}`"
        ));
    }
    Fail::Raised
}

#[cold]
unsafe fn no_instances(cl: &ClassNode) -> Fail {
    let name = type_name(cl.cls.as_ptr() as *mut PyTypeObject);
    crate::module::errors::raise(PyExc_TypeError, &format!("cannot create '{name}' instances"));
    Fail::Raised
}

/// The name of `ty` (a class's `__name__`).
unsafe fn type_name(ty: *mut PyTypeObject) -> String {
    core::ffi::CStr::from_ptr((*ty).tp_name).to_string_lossy().into_owned()
}

/// `n` empty InitVar slots.
#[inline(never)]
fn init_slots(n: usize) -> Vec<Option<Owned>> {
    (0..n).map(|_| None).collect()
}

/// Stores the value of field `i`. Out of line: `fill` calls it for the
/// fields whose value nests, and keeps its own frame (on the recursion
/// path) small.
#[inline(never)]
unsafe fn store(cl: &ClassNode, t: &mut Target, i: usize, value: Owned) -> Result<(), Fail> {
    let field = &cl.fields[i];
    if cl.kind == ClassKind::TypedDict {
        if PyDict_SetItem(t.obj.as_ptr(), field.name_obj.as_ptr(), value.as_ptr()) != 0 {
            return Err(Fail::Raised);
        }
        return Ok(());
    }
    let stored = cl.fields.len() - cl.init_vars;
    if i >= stored {
        t.init_values[i - stored] = Some(value);
        return Ok(());
    }
    match field.slot {
        Some(offset) if direct(cl, t.obj.as_ptr()) => {
            set_slot(t.obj.as_ptr(), offset, value.into_raw());
        }
        _ => {
            // Into the inline values when that is what the generic setattr
            // would do (see `cpython::inline_attrs`).
            if cl.inline.store(t.obj.as_ptr(), cl.cls.as_ptr() as *mut PyTypeObject, i, value.as_ptr()) {
                value.into_raw();
                return Ok(());
            }
            return generic_store(cl, t, field, &value);
        }
    }
    Ok(())
}

/// [`store`] for a leaf value of the key loop: into the inline values with
/// the shorter checks of
/// [`crate::cpython::inline_attrs::InlineAttrs::store_in_run`] where `run`
/// allows.
///
/// # Safety
/// `i` is a field of `cl`, `t` an instance of it; `run` made for `t` and
/// forgotten after anything that may have run Python code.
#[inline(always)]
unsafe fn store_leaf(cl: &ClassNode, t: &mut Target, i: usize, value: Owned, run: &mut Run) -> Result<(), Fail> {
    let field = &cl.fields[i];
    if cl.kind == ClassKind::TypedDict || i >= cl.fields.len() - cl.init_vars {
        // A dict's store or a replaced InitVar may run code.
        run.forget();
        return store(cl, t, i, value);
    }
    match field.slot {
        Some(offset) if direct(cl, t.obj.as_ptr()) => {
            // A slot's old value (a repeated key) is released: that may run code.
            if set_slot(t.obj.as_ptr(), offset, value.into_raw()) {
                run.forget();
            }
        }
        _ => {
            let ty = cl.cls.as_ptr() as *mut PyTypeObject;
            if cl.inline.store_in_run(run, t.obj.as_ptr(), ty, i, value.as_ptr()) {
                value.into_raw();
                return Ok(());
            }
            // `run` is forgotten: the generic setattr may run code.
            return generic_store(cl, t, field, &value);
        }
    }
    Ok(())
}

/// The key of a map entry as text, when it is text.
#[inline(always)]
fn key_bytes<'a>(v: &Value<'a>) -> Option<&'a [u8]> {
    match *v {
        Value::Str(s) => Some(s.as_bytes()),
        // SAFETY: a live object.
        Value::Py(obj) => unsafe { py_text(obj) }.map(str::as_bytes),
        _ => None,
    }
}

#[cold]
fn unknown_field(key: Option<&[u8]>, path: &Path, at: usize) -> Fail {
    let shown = key.map(crate::module::errors::shown).unwrap_or_default();
    invalid(&format!("Object contains unknown field `{shown}`"), path, at)
}

/// A class from an open map.
#[inline(never)]
pub fn from_map<I: Input>(
    ctx: &mut Ctx,
    cl: &ClassNode,
    input: &mut I,
    n: Option<usize>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    let cursor = input.open(n);
    fill(ctx, cl, input, cursor, None, at, path)
}

/// Reads the rest of an open map into a new instance of `cl`; `pre` is a
/// field already read (a union's tag).
#[inline(never)]
fn fill<I: Input>(
    ctx: &mut Ctx,
    cl: &ClassNode,
    input: &mut I,
    mut cursor: Cursor,
    pre: Option<(usize, Owned)>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    ctx.enter(at)?;
    // SAFETY: makes the instance (or dict) of a live class.
    let mut t = unsafe { new_target(cl)? };
    let mut seen = Seen::new(cl.fields.len());
    let mut hint = 0;
    if let Some((i, value)) = pre {
        // SAFETY: `i` is a field of `cl`.
        unsafe { store(cl, &mut t, i, value)? };
        seen.set(i);
        hint = i + 1;
    }
    while let Some(i) = next_field(ctx, cl, input, &mut cursor, &mut t, &mut seen, &mut hint, path)? {
        let field = &cl.fields[i];
        let field_path = path.push(Seg::Field(&field.name));
        let value = validate(ctx, field.node, input, &field_path)?;
        // SAFETY: `i` is a field of `cl`.
        unsafe { store(cl, &mut t, i, value)? };
        seen.set(i);
    }
    drop(cursor);
    // Every field read and nothing to run: the instance is done (the usual
    // case, without `finish`'s call).
    if !cl.post_init && seen.all(cl.fields.len()) {
        ctx.leave();
        return Ok(t.obj);
    }
    let out = finish(cl, t, &seen, at, path);
    ctx.leave();
    out
}

/// Reads the entries of an open map into `t` until one whose value may
/// nest (a container, a class, `Any`): returns that field's index, its
/// value next in the input, or None at the map's end. Leaf values (str,
/// int, datetime...) are validated and stored here, unknown keys skipped
/// (or refused). Out of line: the key reading, lookups and leaf values stay
/// off the stack while a nested value is validated, so each level of
/// nesting keeps only `fill`'s small frame.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn next_field<I: Input>(
    ctx: &mut Ctx,
    cl: &ClassNode,
    input: &mut I,
    cursor: &mut Cursor,
    t: &mut Target,
    seen: &mut Seen,
    hint: &mut usize,
    path: &Path,
) -> Result<Option<usize>, Fail> {
    // What the stores of this run of leaf values know (here, not in `fill`,
    // whose frame is on the recursion path).
    let mut run = Run::default();
    loop {
        // Keys usually come in definition order: the JSON input matches the
        // next field's name in place.
        let expected = cl.fields.get(*hint).and_then(|f| f.json_key.as_ref());
        let Some(read) = input.next_key_expecting(cursor, expected)? else { return Ok(None) };
        let (found, key, at) = match read {
            KeyRead::Expected(at) => (Some(*hint), Some(cl.fields[*hint].name.as_bytes()), at),
            KeyRead::Other(kh) => {
                let key = key_bytes(&kh.v);
                (key.and_then(|k| cl.find(k, *hint)), key, kh.at)
            }
        };
        let Some(i) = found.filter(|&i| cl.fields[i].from_input) else {
            if ctx.forbid_unknown || cl.forbid_unknown {
                return Err(unknown_field(key, path, at));
            }
            input.skip(ctx.depth)?;
            continue;
        };
        *hint = i + 1;
        let field = &cl.fields[i];
        if !field.leaf {
            return Ok(Some(i));
        }
        let value = match field.fast {
            FastLeaf::No => {
                run.forget();
                validate(ctx, field.node, input, &path.push(Seg::Field(&field.name)))?
            }
            // The JSON reader's few steps are cheapest inline; the others' are not.
            _ if I::FORMAT == Format::Json => validate_fast_leaf(ctx, field, input, path, &mut run)?,
            _ => validate_fast_leaf_outlined(ctx, field, input, path, &mut run)?,
        };
        // Reading keys and skipping values runs no code; a value read from
        // Python objects (`convert`) is not known to be plain.
        if I::FORMAT == Format::Python {
            run.forget();
        }
        // SAFETY: `i` is a field of `cl`; `run` as `store_in_run` needs it.
        unsafe { store_leaf(cl, t, i, value, &mut run)? };
        seen.set(i);
    }
}

/// Defaults for the fields not read, then `__post_init__`.
#[inline(never)]
fn finish(cl: &ClassNode, mut t: Target, seen: &Seen, at: usize, path: &Path) -> Result<Owned, Fail> {
    let n = cl.fields.len();
    if !seen.all(n) {
        for (i, field) in cl.fields.iter().enumerate() {
            if seen.get(i) {
                continue;
            }
            // SAFETY: defaults and factories are live objects the node holds.
            unsafe {
                let value = match field.default {
                    Default::Unset => continue,
                    Default::Required => {
                        return Err(invalid(&format!("Object missing required field `{}`", field.name), path, at));
                    }
                    Default::Value => {
                        #[expect(
                            clippy::expect_used,
                            reason = "the compiler sets default_obj for every Default::Value"
                        )]
                        let v = field.default_obj.as_ref().expect("a default").as_ptr();
                        Py_INCREF(v);
                        Owned::new(v)?
                    }
                    Default::Factory => {
                        #[expect(
                            clippy::expect_used,
                            reason = "the compiler sets default_obj for every Default::Factory"
                        )]
                        let factory = field.default_obj.as_ref().expect("a factory").as_ptr();
                        match Owned::new(crate::decode::unpaused(|| PyObject_CallNoArgs(factory))) {
                            Ok(v) => v,
                            Err(()) => return Err(from_current(&path.push(Seg::Field(&field.name)), at)),
                        }
                    }
                };
                store(cl, &mut t, i, value)?;
            }
        }
    }
    if cl.post_init {
        // SAFETY: calls a method of the live instance with live arguments.
        unsafe { post_init(cl, &t, path, at)? };
    }
    Ok(t.obj)
}

#[inline(never)]
unsafe fn post_init(cl: &ClassNode, t: &Target, path: &Path, at: usize) -> Result<(), Fail> {
    let name = if cl.kind == ClassKind::Attrs { c"__attrs_post_init__" } else { c"__post_init__" };
    let method = PyObject_GetAttrString(t.obj.as_ptr(), name.as_ptr());
    if method.is_null() {
        return Err(Fail::Raised);
    }
    let args: Vec<*mut PyObject> = t.init_values.iter().map(|v| v.as_ref().map_or(Py_None(), |v| v.as_ptr())).collect();
    let result =
        crate::decode::unpaused(|| PyObject_Vectorcall(method, args.as_ptr(), args.len(), core::ptr::null_mut()));
    Py_DECREF(method);
    if result.is_null() {
        return Err(from_current(path, at));
    }
    Py_DECREF(result);
    Ok(())
}

/// A NamedTuple from an open array.
#[inline(never)]
pub fn from_array<I: Input>(
    ctx: &mut Ctx,
    cl: &ClassNode,
    input: &mut I,
    n: Option<usize>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    let total = cl.fields.len();
    let required = cl.fields.iter().filter(|f| f.default == Default::Required).count();
    let wrong = || {
        let mut message = if required == total {
            format!("Expected `array` of length {total}")
        } else {
            format!("Expected `array` of length {required} to {total}")
        };
        // Where the length is known ahead (MessagePack, Python objects), it is
        // shown, as msgspec shows it.
        if let Some(n) = n {
            #[expect(clippy::disallowed_methods, reason = "a message of a few dozen bytes")]
            message.push_str(&format!(", got {n}"));
        }
        invalid(&message, path, at)
    };
    if n.is_some_and(|n| n < required || n > total) {
        return Err(wrong());
    }
    ctx.enter(at)?;
    let mut cursor = input.open(n);
    let start = ctx.stack.len();
    let mut i = 0;
    while input.next_item(&mut cursor)? {
        if i == total {
            return Err(wrong());
        }
        let item_path = path.push(Seg::Index(i));
        let value = validate(ctx, cl.fields[i].node, input, &item_path)?;
        ctx.keep(value)?;
        i += 1;
    }
    drop(cursor);
    if i < required {
        return Err(wrong());
    }
    for field in &cl.fields[i..] {
        // SAFETY: defaults and factories are live objects the node holds.
        let value = unsafe {
            #[expect(clippy::expect_used, reason = "fields past the required ones have a default or factory")]
            let d = field.default_obj.as_ref().expect("a default").as_ptr();
            if field.default == Default::Factory {
                match Owned::new(crate::decode::unpaused(|| PyObject_CallNoArgs(d))) {
                    Ok(v) => v,
                    Err(()) => return Err(from_current(path, at)),
                }
            } else {
                Py_INCREF(d);
                Owned::new(d)?
            }
        };
        ctx.keep(value)?;
    }
    let items: Vec<*mut PyObject> = ctx.stack.drain(start..).map(Owned::into_raw).collect();
    // SAFETY: a tuple subclass; the items' references are taken over.
    let obj = unsafe { new_tuple_instance(cl.cls.as_ptr() as *mut PyTypeObject, &items) };
    ctx.leave();
    // SAFETY: a new reference or NULL.
    Ok(unsafe { Owned::new(obj)? })
}

#[cold]
fn missing_tag(t: &Tagged, path: &Path, at: usize) -> Fail {
    invalid(&format!("Object missing required field `{}`", t.tag_name), path, at)
}

/// A union of classes, the member chosen by the value of the tag field.
/// On the recursion path: the work is done in functions of its own, so its
/// stack frame stays small.
#[inline(never)]
pub fn tagged<I: Input>(
    ctx: &mut Ctx,
    t: &Tagged,
    id: NodeId,
    input: &mut I,
    n: Option<usize>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    if I::FORMAT == Format::Python {
        let cl = tagged_py_member(ctx, t, input.current(), at, path)?;
        return from_map(ctx, cl, input, n, at, path);
    }
    let start = input.mark();
    let mut cursor = input.open(n);
    match tag_first(ctx, t, input, &mut cursor, at, path)? {
        Tag::Found(cl, i, tag_value) => fill(ctx, cl, input, cursor, Some((i, tag_value)), at, path),
        Tag::Other => tag_later(ctx, t, id, input, cursor, start, n, at, path),
    }
}

/// The member of a tagged union a dict (`convert`) belongs to, by its tag.
#[inline(never)]
fn tagged_py_member<'c>(
    ctx: &Ctx<'c>,
    t: &Tagged,
    dict: *mut PyObject,
    at: usize,
    path: &Path,
) -> Result<&'c ClassNode, Fail> {
    // SAFETY: a live dict and a new str; the tag value is borrowed from the
    // dict only while it is looked up.
    unsafe {
        let name = Owned::new(crate::decode::strs::new_str(&t.tag_name))?;
        let tag = PyDict_GetItemWithError(dict, name.as_ptr());
        if tag.is_null() {
            if !PyErr_Occurred().is_null() {
                return Err(Fail::Raised);
            }
            return Err(missing_tag(t, path, at));
        }
        let member = PyDict_GetItemWithError(t.py_tags.as_ptr(), tag);
        if member.is_null() {
            PyErr_Clear();
            let tag_path = path.push(Seg::Field(&t.tag_name));
            return Err(invalid(&format!("Invalid value {}", repr_of(tag)), &tag_path, at));
        }
        Ok(member_class(ctx, PyLong_AsLong(member) as NodeId))
    }
}

/// The class node `m`, a member of a tagged union.
#[inline(always)]
fn member_class<'c>(ctx: &Ctx<'c>, m: NodeId) -> &'c ClassNode {
    #[expect(clippy::unreachable, reason = "the compiler accepts only classes as tagged members")]
    let Node::Class(cl) = ctx.c.node(m) else {
        unreachable!("tagged members are classes")
    };
    cl
}

/// What the first key of a tagged union's map says.
enum Tag<'c> {
    /// It is the tag: the member class, the tag's field index and its value.
    Found(&'c ClassNode, usize, Owned),
    /// It is another key (read; its value is next).
    Other,
}

/// Whether a key read from the input is the tag's name.
#[inline(always)]
fn is_tag(t: &Tagged, key: &Value) -> bool {
    matches!(key, Value::Str(s) if **s == *t.tag_name)
}

/// Reads the first key of an open map, and the tag's value if it is the tag.
#[inline(never)]
fn tag_first<'c, I: Input>(
    ctx: &mut Ctx<'c>,
    t: &Tagged,
    input: &mut I,
    cursor: &mut Cursor,
    at: usize,
    path: &Path,
) -> Result<Tag<'c>, Fail> {
    let Some(kh) = input.next_key(cursor)? else {
        return Err(missing_tag(t, path, at));
    };
    if !is_tag(t, &kh.v) {
        return Ok(Tag::Other);
    }
    let tag_path = path.push(Seg::Field(&t.tag_name));
    let vh = input.next()?;
    let cl = member_of::<I>(ctx, t, &vh, &tag_path)?;
    #[expect(clippy::expect_used, reason = "the spec makes the tag a field of every member")]
    let i = cl.find(t.tag_name.as_bytes(), 0).expect("the tag is a field of every member");
    let tag_value = scalar::<I>(ctx, cl.fields[i].node, vh, &tag_path)?;
    Ok(Tag::Found(cl, i, tag_value))
}

/// The member whose tag value `vh` is (read at `tag_path`).
#[inline(always)]
fn member_of<'c, I: Input>(ctx: &Ctx<'c>, t: &Tagged, vh: &Head, tag_path: &Path) -> Result<&'c ClassNode, Fail> {
    let member = match vh.v {
        Value::Str(s) => t.by_str.get(s.as_bytes()).copied(),
        Value::I64(v) => t.by_int.get(&v).copied(),
        Value::U64(v) => i64::try_from(v).ok().and_then(|v| t.by_int.get(&v).copied()),
        _ => None,
    };
    let Some(m) = member else {
        let shown = match vh.v {
            Value::Str(s) => str_repr(s),
            Value::I64(v) => v.to_string(),
            Value::U64(v) => v.to_string(),
            _ => {
                let expected = if t.by_str.is_empty() { "int" } else { "str" };
                let got = crate::decode::typed::input::got_name::<I>(&vh.v);
                return Err(invalid(&format!("Expected `{expected}`, got `{got}`"), tag_path, vh.at));
            }
        };
        return Err(invalid(&format!("Invalid value {shown}"), tag_path, vh.at));
    };
    Ok(member_class(ctx, m))
}

/// A tagged union whose tag is not the first key (the first key read, its
/// value next). The input is read on to the tag without building anything
/// (keys read, values skipped), the tag's value picks the member, and the
/// input goes back to the map's first key (`start`) to read the map once
/// more, as that member, exactly as if the tag had come first: so every
/// value is read by its own type (an int beyond 64 bits, a dict's int keys,
/// a float's text), and the tag's value is checked again as the member's
/// field. Only when the input's look-ahead budget is spent (deep nests of
/// such unions, each level going over all it holds) is the map read as
/// builtins first and validated from those, which reads the input once.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn tag_later<I: Input>(
    ctx: &mut Ctx,
    t: &Tagged,
    id: NodeId,
    input: &mut I,
    mut cursor: Cursor,
    start: usize,
    n: Option<usize>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    // The map's own level counts, as in `fill`.
    let depth = ctx.depth + 1;
    if !input.can_look_ahead() {
        drop(cursor);
        input.rewind(start);
        let mut cursor = input.open(n);
        let dict = buffer_map(ctx, input, &mut cursor)?;
        drop(cursor);
        let mut py = PyInput::new(dict.as_ptr());
        return validate(ctx, id, &mut py, path);
    }
    input.skip(depth)?;
    let cl = loop {
        let Some(kh) = input.next_key(&mut cursor)? else {
            return Err(missing_tag(t, path, at));
        };
        if is_tag(t, &kh.v) {
            let vh = input.next()?;
            break member_of::<I>(ctx, t, &vh, &path.push(Seg::Field(&t.tag_name)))?;
        }
        input.skip(depth)?;
    };
    drop(cursor);
    input.rewind(start);
    let cursor = input.open(n);
    fill(ctx, cl, input, cursor, None, at, path)
}

/// Python's repr of a str, for messages (of its start, if it is long).
fn str_repr(text: &str) -> String {
    let (text, cut) = crate::module::errors::clip_str(text);
    let more = if cut { "..." } else { "" };
    // SAFETY: a new str, released after its repr is taken.
    unsafe {
        match Owned::new(crate::decode::strs::new_str(text)) {
            Ok(obj) => format!("{}{more}", repr_of(obj.as_ptr())),
            Err(()) => {
                PyErr_Clear();
                format!("'{text}'{more}")
            }
        }
    }
}

/// An open map as a dict of builtins.
fn buffer_map<I: Input>(ctx: &mut Ctx, input: &mut I, cursor: &mut Cursor) -> Result<Owned, Fail> {
    use orcodec_core::builder::Builder;
    // SAFETY: a new dict, filled with new references.
    unsafe {
        let dict = Owned::new(PyDict_New())?;
        while let Some(kh) = input.next_key(cursor)? {
            let k = match kh.v {
                Value::Str(s) => ctx.builder.key(s)?,
                _ => crate::decode::typed::scalars::any_scalar::<I>(ctx, kh)?,
            };
            let v = input.any(ctx)?;
            if PyDict_SetItem(dict.as_ptr(), k.as_ptr(), v.as_ptr()) != 0 {
                return Err(Fail::Raised);
            }
        }
        Ok(dict)
    }
}

//! Instance attributes written straight into an instance's inline values
//! (CPython 3.11 to 3.13, the `dict_table_layout` cfg; tested on each).
//!
//! A plain class's instance keeps its attributes, until something asks for
//! its `__dict__`, in an array of values paired with the keys table the
//! class shares among its instances (`ht_cached_keys`): value `ix` belongs
//! to the shared key `ix`, and a byte array records the order in which they
//! were set. `PyObject_GenericSetAttr` reaches that array through a lookup
//! of the name on the class (for a data descriptor), a hash lookup of the
//! name in the shared keys and a few calls. [`InlineAttrs`] finds, once per
//! class, where each field's value goes, and stores each value there
//! directly, doing exactly what `PyObject_GenericSetAttr` does in that case:
//! the value in its slot, its index appended to the order the first time,
//! the old value released otherwise. Every store checks first that this is
//! the case it knows: the class unchanged since (its version tag, which
//! CPython resets on any change to the class or its bases), no data
//! descriptor on the name (also a descriptor whose own class gained
//! `__set__`), the shared keys the same and holding the very name at `ix`,
//! the instance still on inline values (no `__dict__` made). Anything else,
//! and every other interpreter, goes through `PyObject_GenericSetAttr`.

use core::cell::Cell;
use core::ffi::c_void;
use pyo3_ffi::*;

/// No index: the field is stored through `PyObject_GenericSetAttr`.
const NO_INDEX: u8 = u8::MAX;

/// Where the fields of one class go in its instances' inline values.
#[cfg_attr(not(dict_table_layout), allow(dead_code))]
pub struct InlineAttrs {
    /// Per field: its name, index and class attribute (one bounds check and
    /// one cache line per store).
    fields: Box<[FieldAt]>,
    /// The class's version tag when the indices were worked out; 0: none.
    tag: Cell<u32>,
    /// The shared keys the indices point into.
    keys: Cell<*mut c_void>,
    /// The shared keys' entry count then (a field not there yet may come later).
    entries: Cell<isize>,
    /// Whether every field that could be stored directly has its index.
    complete: Cell<bool>,
    /// Nothing is ever stored directly: no field is kept in the instance
    /// dict, the class keeps no inline values (its flags say so from its
    /// creation on) or it has no version tag to check against.
    never: Cell<bool>,
}

/// Where one field goes.
#[cfg_attr(not(dict_table_layout), allow(dead_code))]
struct FieldAt {
    /// The field's name (borrowed from the class node, which outlives this),
    /// or NULL for a field not kept in the instance dict (a slot, an
    /// InitVar).
    name: *mut PyObject,
    /// What the class has under the name (borrowed from the class, valid
    /// while the version tag is), or NULL.
    class_attr: Cell<*mut PyObject>,
    /// The field's index in the shared keys, or `NO_INDEX`.
    index: Cell<u8>,
}

impl InlineAttrs {
    /// For fields named `names` (NULL for those not stored in the instance
    /// dict).
    pub fn new(names: impl Iterator<Item = *mut PyObject>) -> InlineAttrs {
        let fields: Box<[FieldAt]> = names
            .map(|name| FieldAt { name, class_attr: Cell::new(core::ptr::null_mut()), index: Cell::new(NO_INDEX) })
            .collect();
        InlineAttrs {
            tag: Cell::new(0),
            keys: Cell::new(core::ptr::null_mut()),
            entries: Cell::new(0),
            complete: Cell::new(false),
            never: Cell::new(fields.iter().all(|f| f.name.is_null())),
            fields,
        }
    }

    /// Brings the indices up to date for class `ty`, before an instance is
    /// filled: cheap when nothing changed.
    ///
    /// # Safety
    /// `ty` is the live class the names are fields of.
    #[inline(always)]
    pub unsafe fn prepare(&self, ty: *mut PyTypeObject) {
        #[cfg(dict_table_layout)]
        {
            let tag = self.tag.get();
            if self.never.get() || (tag != 0 && tag == (*ty).tp_version_tag && (self.complete.get() || !self.grown(ty)))
            {
                return;
            }
            self.resolve(ty);
        }
        #[cfg(not(dict_table_layout))]
        let _ = ty;
    }

    /// Stores `value` (a reference the call takes over when it returns
    /// true) as field `i` of `obj`, an instance of `ty`, when that is
    /// certainly what `PyObject_GenericSetAttr` would do; false (nothing
    /// done) otherwise.
    ///
    /// # Safety
    /// `obj` is a live object, `ty` the class `prepare` was called with,
    /// `i` a field index, `value` a live object.
    #[inline(always)]
    pub unsafe fn store(&self, obj: *mut PyObject, ty: *mut PyTypeObject, i: usize, value: *mut PyObject) -> bool {
        #[cfg(dict_table_layout)]
        {
            let values = layout::verify(self, obj, ty);
            !values.is_null() && layout::store_field(self, values, i, value) != layout::Stored::No
        }
        #[cfg(not(dict_table_layout))]
        {
            let _ = (obj, ty, i, value);
            false
        }
    }

    /// [`InlineAttrs::store`] for one of a run of stores into the same
    /// instance: after a store that put its value into an empty slot, the
    /// next store of the run checks only what differs by field (the field's
    /// index, the name there, the class attribute under it), not the class
    /// and the instance again. `run` must be forgotten ([`Run::forget`])
    /// before a store that follows anything that may have run Python code
    /// since the last one (a finalizer, a `__post_init__`, a hook, the
    /// collector): that code could have changed the class or made the
    /// instance's `__dict__`. A store that does not take the direct path,
    /// or releases an old value (which may run code), forgets `run` itself.
    ///
    /// # Safety
    /// As for [`InlineAttrs::store`]; `run` was made for this instance
    /// (or forgotten since) and kept as above.
    #[inline(always)]
    pub unsafe fn store_in_run(
        &self,
        run: &mut Run,
        obj: *mut PyObject,
        ty: *mut PyTypeObject,
        i: usize,
        value: *mut PyObject,
    ) -> bool {
        #[cfg(dict_table_layout)]
        {
            let mut values = run.0;
            if values.is_null() {
                values = layout::verify(self, obj, ty);
                if values.is_null() {
                    return false;
                }
            }
            match layout::store_field(self, values, i, value) {
                layout::Stored::Fresh => {
                    run.0 = values;
                    true
                }
                layout::Stored::Replaced => {
                    run.0 = core::ptr::null_mut();
                    true
                }
                layout::Stored::No => {
                    run.0 = core::ptr::null_mut();
                    false
                }
            }
        }
        #[cfg(not(dict_table_layout))]
        {
            let _ = (run, obj, ty, i, value);
            false
        }
    }
}

/// What a run of stores into one instance knows (see
/// [`InlineAttrs::store_in_run`]): the instance's values, found with the
/// class and the instance checked and nothing run since; NULL: nothing.
pub struct Run(*mut c_void);

impl Default for Run {
    /// Nothing known yet.
    #[inline(always)]
    fn default() -> Run {
        Run(core::ptr::null_mut())
    }
}

impl Run {
    /// Something may have run Python code: the next store checks everything.
    #[inline(always)]
    pub fn forget(&mut self) {
        self.0 = core::ptr::null_mut();
    }
}

#[cfg(dict_table_layout)]
impl InlineAttrs {
    /// Whether the shared keys of `ty` changed since the indices were worked out.
    #[inline(always)]
    unsafe fn grown(&self, ty: *mut PyTypeObject) -> bool {
        let keys = (*(ty as *mut PyHeapTypeObject)).ht_cached_keys;
        keys != self.keys.get() || keys.is_null() || (*(keys as *const DictKeys)).dk_nentries != self.entries.get()
    }

    /// Works the indices out afresh (or leaves the tag 0: nothing stored directly).
    #[inline(never)]
    unsafe fn resolve(&self, ty: *mut PyTypeObject) {
        self.tag.set(0);
        let flags = (*ty).tp_flags;
        if flags & Py_TPFLAGS_HEAPTYPE == 0 || flags & Py_TPFLAGS_MANAGED_DICT == 0 {
            self.never.set(true);
            return;
        }
        #[cfg(Py_3_13)]
        if flags & layout::Py_TPFLAGS_INLINE_VALUES == 0 {
            self.never.set(true);
            return;
        }
        let keys = (*(ty as *mut PyHeapTypeObject)).ht_cached_keys as *const DictKeys;
        if keys.is_null() || (*keys).dk_kind != DICT_KEYS_SPLIT {
            return;
        }
        let entries = DictKeys::entries(keys) as *const [*mut PyObject; 2];
        let n = (*keys).dk_nentries.clamp(0, NO_INDEX as isize) as usize;
        let mut complete = true;
        for f in self.fields.iter() {
            let name = f.name;
            f.index.set(NO_INDEX);
            f.class_attr.set(core::ptr::null_mut());
            if name.is_null() {
                continue;
            }
            // What `PyObject_GenericSetAttr` looks up first: a data
            // descriptor there takes the store.
            let attr = crate::cpython::ffi::_PyType_Lookup(ty, name);
            if !attr.is_null() && (*Py_TYPE(attr)).tp_descr_set.is_some() {
                continue;
            }
            f.class_attr.set(attr);
            // The names are interned, and so is every attribute name that
            // went through `setattr` or the interpreter: the shared keys
            // hold the very same object.
            match (0..n).find(|&ix| (*entries.add(ix))[0] == name) {
                Some(ix) => f.index.set(ix as u8),
                None => complete = false,
            }
        }
        // Read after the lookups, which give the class a tag if it had none;
        // a class that cannot get one (tags exhausted, a metaclass with its
        // own `mro()`) is left to the generic setattr for good.
        let tag = (*ty).tp_version_tag;
        if tag == 0 {
            self.never.set(true);
            return;
        }
        self.keys.set(keys as *mut c_void);
        self.entries.set((*keys).dk_nentries);
        self.complete.set(complete);
        self.tag.set(tag);
    }
}

#[cfg(dict_table_layout)]
use crate::cpython::dict::DictKeys;

/// `DICT_KEYS_SPLIT`: the keys a class shares among its instances.
#[cfg(dict_table_layout)]
const DICT_KEYS_SPLIT: u8 = 2;

#[cfg(dict_table_layout)]
mod layout {
    use super::*;

    /// `Py_TPFLAGS_INLINE_VALUES` (3.13): the values follow the object header.
    #[cfg(Py_3_13)]
    #[allow(non_upper_case_globals)]
    pub const Py_TPFLAGS_INLINE_VALUES: core::ffi::c_ulong = 1 << 2;

    /// `struct _dictvalues` of 3.13: capacity, count in use, two flags, then
    /// the values and, after `capacity` of them, the insertion order.
    #[cfg(Py_3_13)]
    #[repr(C)]
    struct Values {
        capacity: u8,
        size: u8,
        embedded: u8,
        valid: u8,
        values: [*mut PyObject; 0],
    }

    /// How a store went.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum Stored {
        /// Not the case known here: nothing done.
        No,
        /// Into an empty slot.
        Fresh,
        /// Over an old value, released after the store.
        Replaced,
    }

    /// The checks that do not depend on the field: the class unchanged
    /// since the indices were worked out, `obj` its instance still keeping
    /// its values inline (no `__dict__`); the values (see `put`), or NULL
    /// when that is not the case.
    #[inline(always)]
    pub unsafe fn verify(a: &InlineAttrs, obj: *mut PyObject, ty: *mut PyTypeObject) -> *mut c_void {
        let tag = a.tag.get();
        if tag == 0 || Py_TYPE(obj) != ty || (*ty).tp_version_tag != tag {
            return core::ptr::null_mut();
        }
        if (*(ty as *mut PyHeapTypeObject)).ht_cached_keys != a.keys.get() {
            return core::ptr::null_mut();
        }
        values(obj, ty)
    }

    /// Stores field `i` into `values` (from [`verify`], for the same
    /// instance, nothing run since) when the field's own checks pass.
    #[inline(always)]
    pub unsafe fn store_field(a: &InlineAttrs, values: *mut c_void, i: usize, value: *mut PyObject) -> Stored {
        let Some(f) = a.fields.get(i) else { return Stored::No };
        let ix = f.index.get();
        if ix == NO_INDEX {
            return Stored::No;
        }
        let ix = ix as usize;
        // The class's shared keys (`verify` compared them).
        let keys = a.keys.get() as *const DictKeys;
        if (*keys).dk_nentries <= ix as isize {
            return Stored::No;
        }
        // SAFETY: a split keys table (checked when the index was found) of
        // at least `ix + 1` entries of [key, value]; entries are only ever
        // appended to it.
        if (*(DictKeys::entries(keys) as *const [*mut PyObject; 2]).add(ix))[0] != f.name {
            return Stored::No;
        }
        // The class is as it was (same tag), so what it holds under the
        // name is still alive; its own class may have gained a `__set__`.
        let attr = f.class_attr.get();
        if !attr.is_null() && (*Py_TYPE(attr)).tp_descr_set.is_some() {
            return Stored::No;
        }
        put(values, ix, value)
    }

    /// 3.11: the values array's address is the fourth word before the
    /// object, the `__dict__` (NULL while there are values) the third; the
    /// array is preceded by its prefix size ([-1]), the count in use ([-2])
    /// and the insertion order (from [-3] down).
    #[cfg(not(Py_3_12))]
    #[inline(always)]
    unsafe fn values(obj: *mut PyObject, _ty: *mut PyTypeObject) -> *mut c_void {
        let values = *(obj as *const *mut c_void).sub(4);
        let dict = *(obj as *const *mut PyObject).sub(3);
        if !dict.is_null() {
            return core::ptr::null_mut();
        }
        values
    }

    /// 3.12: the third word before the object holds the values array's
    /// address minus one (odd: a tagged pointer) or the `__dict__`; the
    /// prefix as in 3.11.
    #[cfg(all(Py_3_12, not(Py_3_13)))]
    #[inline(always)]
    unsafe fn values(obj: *mut PyObject, _ty: *mut PyTypeObject) -> *mut c_void {
        let tagged = *(obj as *const *mut u8).sub(3);
        if (tagged as usize) & 1 == 0 {
            return core::ptr::null_mut();
        }
        tagged.add(1) as *mut c_void
    }

    /// 3.11 and 3.12: `values[ix] = value`.
    #[cfg(not(Py_3_13))]
    #[inline(always)]
    unsafe fn put(values: *mut c_void, ix: usize, value: *mut PyObject) -> Stored {
        // SAFETY: the array was sized by the shared keys' usable size when
        // the instance was made, which no later entry index reaches past
        // (CPython writes `values[ix]` for the same indices).
        write(values as *mut *mut PyObject, ix, value, |values, ix| {
            let size = (values as *mut u8).sub(2);
            let n = *size + 1;
            *size.sub(n as usize) = ix as u8;
            *size = n;
        })
    }

    /// 3.13: the values right after the object header (types with the
    /// inline-values flag), valid while no `__dict__` replaced them; the
    /// `__dict__` is the third word before the object and must not exist
    /// (a dict sharing the values would need its count kept).
    #[cfg(Py_3_13)]
    #[inline(always)]
    unsafe fn values(obj: *mut PyObject, ty: *mut PyTypeObject) -> *mut c_void {
        if (*ty).tp_flags & Py_TPFLAGS_INLINE_VALUES == 0 {
            return core::ptr::null_mut();
        }
        let dict = *(obj as *const *mut PyObject).sub(3);
        let v = (obj as *mut u8).add(core::mem::size_of::<PyObject>()) as *mut Values;
        if !dict.is_null() || (*v).valid == 0 {
            return core::ptr::null_mut();
        }
        v as *mut c_void
    }

    /// 3.13: `values[ix] = value` within the array's own capacity.
    #[cfg(Py_3_13)]
    #[inline(always)]
    unsafe fn put(v: *mut c_void, ix: usize, value: *mut PyObject) -> Stored {
        let v = v as *mut Values;
        if ix >= (*v).capacity as usize {
            return Stored::No;
        }
        let values = core::ptr::addr_of_mut!((*v).values) as *mut *mut PyObject;
        // SAFETY: `ix` is below the array's own capacity.
        write(values, ix, value, |values, ix| {
            let v = (values as *mut u8).sub(core::mem::offset_of!(Values, values)) as *mut Values;
            let order = values.add((*v).capacity as usize) as *mut u8;
            *order.add((*v).size as usize) = ix as u8;
            (*v).size += 1;
        })
    }

    /// `values[ix] = value`, recording `ix` in the insertion order if the
    /// slot was empty, else releasing the old value (after the store, as
    /// CPython does: its release may run code).
    #[inline(always)]
    unsafe fn write(
        values: *mut *mut PyObject,
        ix: usize,
        value: *mut PyObject,
        add_to_order: impl FnOnce(*mut *mut PyObject, usize),
    ) -> Stored {
        let slot = values.add(ix);
        let old = *slot;
        *slot = value;
        if old.is_null() {
            add_to_order(values, ix);
            Stored::Fresh
        } else {
            Py_DECREF(old);
            Stored::Replaced
        }
    }
}

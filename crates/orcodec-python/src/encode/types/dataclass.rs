//! Dataclass instances as maps.
//!
//! MessagePack, as ormsgpack: the fields, in definition order: those
//! `dataclasses.fields()` lists (ClassVar and InitVar pseudo-fields
//! excluded) whose names do not start with `_`. Each value is the
//! instance `__dict__`'s entry when there is one (even if the class shadows
//! the name with a property or defines `__getattribute__`, as ormsgpack
//! reads it), else `getattr`, so `__slots__`, frozen, inherited and
//! `field()` fields all work, and attributes added outside the fields never
//! appear.
//!
//! JSON, as orjson: an instance with a `__dict__` whose class does not
//! declare `__slots__` is its `__dict__` (names starting with `_` left out),
//! so attributes set outside the fields are written and a field whose value
//! is only the class default (`init=False`) is not; any other instance is
//! its fields as above.
//!
//! The field list is worked out once per class and cached, keyed by the
//! class (held, so its address is not reused) and checked on every use
//! against the class's `__dataclass_fields__` and its version tag, which
//! CPython changes whenever the class or a base class is modified.
//!
//! Fast path: when `getattr` on the class is the generic one and no field
//! name is shadowed by a data descriptor (a property, a slot), `getattr`
//! would find each value in the instance `__dict__` first, so the walker
//! reads the dict directly: in one pass when its keys are the fields in
//! order (the usual case), else by lookups, falling back to `getattr` for a
//! missing name (which then finds the class default or raises). Like orjson,
//! this makes CPython create the instance's `__dict__` if it only had inline
//! values.

use orcodec_core::emit::Emitter;
use orcodec_core::fallible;
use pyo3_ffi::*;
use std::collections::HashMap;
use std::rc::Rc;

use crate::cpython::dict::dict_len;
use crate::cpython::types::{has_generic_getattr, is_data_descriptor, version_tag};
use crate::encode::error::EncodeError;
use crate::encode::types::wire::{self, Defaults, Wire};
use crate::encode::walker::{is_msgpack, Walker};
use crate::module::options::{self, Opt};
use crate::state::scratch::{slot, Slot};
use crate::state::State;

/// Most dataclasses cached; past it the cache starts over, so classes made
/// in a loop cannot grow it without bound.
const MAX_CACHED: usize = 1024;

/// The names of a dataclass's serialized fields (strong references).
pub struct FieldNames {
    names: Vec<*mut PyObject>,
    /// Fields left out for their leading `_` (strong references).
    private: Vec<*mut PyObject>,
    /// Whether the values may be read from the instance `__dict__`.
    from_dict: bool,
    /// The class's wire names and omissions (`orcodec.Name`,
    /// `@orcodec.options`); None for a class without them, written as before.
    wire: Option<Wire>,
    /// The fields' defaults, read the first time fields are to be left out
    /// for being equal to them.
    defaults: core::cell::OnceCell<Defaults>,
}

impl Drop for FieldNames {
    fn drop(&mut self) {
        // SAFETY: each name was increfed when stored.
        unsafe { self.names.iter().chain(self.private.iter()).for_each(|&name| Py_DECREF(name)) }
    }
}

/// Most fields read in one pass over the instance dict (more take lookups).
const MAX_SCANNED: usize = 16;

struct Entry {
    /// The class (strong reference).
    ty: *mut PyObject,
    /// Its `__dataclass_fields__` (strong reference).
    fields: *mut PyObject,
    /// Its size when the names were worked out: a changed dict is looked at again.
    size: Py_ssize_t,
    /// The class's version tag then: a class changed since (a property or a
    /// `__getattribute__` added, a base class changed) is looked at again.
    version: u32,
    names: Rc<FieldNames>,
}

impl Drop for Entry {
    fn drop(&mut self) {
        // SAFETY: as for FieldNames.
        unsafe {
            Py_DECREF(self.fields);
            Py_DECREF(self.ty);
        }
    }
}

/// Keys are addresses of live objects: distinct, and spread enough by a
/// multiply that SipHash's defence against chosen keys buys nothing.
#[derive(Default)]
struct AddressHasher(u64);

impl core::hash::Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|&b| self.0 = (self.0 << 8 | b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = ((n >> 4) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Map = HashMap<usize, Entry, core::hash::BuildHasherDefault<AddressHasher>>;

/// The interpreter's dataclass caches: field names by class, and the
/// class facts table. `field_names` and `class_facts` hold no reference
/// into them while Python code runs.
pub struct Caches {
    names: Map,
    facts: [ClassFacts; FACT_SLOTS],
}

impl Default for Caches {
    fn default() -> Self {
        Caches { names: Map::default(), facts: [NO_FACTS; FACT_SLOTS] }
    }
}

const CACHES: Slot<Caches> = Slot::at(slot::DATACLASSES);

/// `dataclasses._FIELD` (the marker of fields that are neither ClassVar nor
/// InitVar), or NULL while `dataclasses` is not imported.
pub fn dataclass_field_marker(st: &State) -> *mut PyObject {
    // SAFETY: the module name is a str.
    unsafe { st.found.dataclass_field.get(st.str_dataclasses, c"_FIELD") }
}

/// The `__dataclass_fields__` dict of `obj`'s class (borrowed), or None when
/// it is no dataclass instance. As with both peers, only a class the
/// decorator made has it in its own dict: an undecorated subclass of a
/// dataclass is no dataclass to them, and goes to `default`.
#[inline]
pub unsafe fn dataclass_fields(st: &State, obj: *mut PyObject) -> Option<*mut PyObject> {
    let fields = class_facts(st, Py_TYPE(obj)).fields;
    (!fields.is_null()).then_some(fields)
}

/// What the walk needs to know of a class's own dict: read once per class
/// and version tag instead of by two dict lookups per instance.
#[derive(Clone, Copy)]
struct ClassFacts {
    /// The class's address; 0 in an unused slot.
    ty: usize,
    /// Its version tag when read (never 0 in the cache). Any change to the
    /// class's attributes (or a base class's) gives it a new tag, and a
    /// class made at the address of a freed one gets a tag of its own.
    version: u32,
    /// Its own `__dataclass_fields__` when that is a dict (borrowed: the
    /// class dict holds it as long as the tag is unchanged), else NULL.
    fields: *mut PyObject,
    /// Whether its own dict declares `__slots__`.
    own_slots: bool,
    /// Known to be written in orjson's form (its instance `__dict__`) by
    /// `dumps`: no `__slots__` of its own, and its field names are cached
    /// for this version tag without a wire policy.
    dict_form: bool,
}

const NO_FACTS: ClassFacts =
    ClassFacts { ty: 0, version: 0, fields: core::ptr::null_mut(), own_slots: false, dict_form: false };

/// Slots of the class facts cache, indexed by the class's address.
const FACT_SLOTS: usize = 16;

/// The facts of class `ty`, from the cache when its version tag still matches.
#[inline(always)]
unsafe fn class_facts(st: &State, ty: *mut PyTypeObject) -> ClassFacts {
    let version = version_tag(ty);
    let at = fact_slot(ty);
    // SAFETY: the GIL contract; a copy is read, no reference kept.
    let cached = st.scratch.get(CACHES).facts[at];
    if version != 0 && cached.ty == ty as usize && cached.version == version {
        return cached;
    }
    let facts = read_class_facts(st, ty, version);
    if version != 0 && version_tag(ty) == version {
        // SAFETY: as above; the lookups are over, nothing else holds the array.
        st.scratch.get(CACHES).facts[at] = facts;
    }
    facts
}

/// The slot of the class facts cache for class `ty`.
#[inline(always)]
fn fact_slot(ty: *mut PyTypeObject) -> usize {
    ((ty as usize >> 4) ^ (ty as usize >> 10)) % FACT_SLOTS
}

#[inline(never)]
unsafe fn read_class_facts(st: &State, ty: *mut PyTypeObject, version: u32) -> ClassFacts {
    let class_dict = (*ty).tp_dict;
    if class_dict.is_null() {
        return ClassFacts { ty: ty as usize, version, ..NO_FACTS };
    }
    let fields = PyDict_GetItem(class_dict, st.str_dataclass_fields);
    let fields = if !fields.is_null() && PyDict_Check(fields) != 0 { fields } else { core::ptr::null_mut() };
    let own_slots = !fields.is_null() && !PyDict_GetItem(class_dict, st.str_slots).is_null();
    let dict_form = !fields.is_null() && !own_slots && cached_plain(st, ty, fields, version);
    ClassFacts { ty: ty as usize, version, fields, own_slots, dict_form }
}

/// Whether the field names of class `ty` are cached for `fields` and
/// `version`, without a wire policy. Runs no Python code.
unsafe fn cached_plain(st: &State, ty: *mut PyTypeObject, fields: *mut PyObject, version: u32) -> bool {
    // SAFETY: the GIL contract; the reference ends with this function.
    let cache = &st.scratch.get(CACHES).names;
    cache.get(&(ty as usize)).is_some_and(|entry| {
        entry.fields == fields
            && entry.size == PyDict_Size(fields)
            && entry.version == version
            && entry.names.wire.is_none()
    })
}

/// Marks class `ty`'s facts as known to be in orjson's form, when the
/// facts cache holds them for `version` (its field names were just cached).
unsafe fn remember_dict_form(st: &State, ty: *mut PyTypeObject, version: u32) {
    let at = fact_slot(ty);
    // SAFETY: the GIL contract; no other reference to the array is alive.
    let facts = &mut st.scratch.get(CACHES).facts[at];
    if facts.ty == ty as usize && facts.version == version && !facts.own_slots {
        facts.dict_form = true;
    }
}

/// The serialized field names of class `ty`, whose `__dataclass_fields__` is `fields`.
unsafe fn field_names(st: &State, ty: *mut PyTypeObject, fields: *mut PyObject) -> Result<Rc<FieldNames>, EncodeError> {
    let size = PyDict_Size(fields);
    // Valid here: `dataclass_fields` just looked the class up, which gives
    // it a tag if it had none. Read before the names are worked out, so a
    // class changed meanwhile (by a Field's code) is looked at again.
    let version = version_tag(ty);
    {
        // SAFETY: the GIL contract; the reference ends with this block, and
        // nothing in it runs Python code.
        let cache = &mut st.scratch.get(CACHES).names;
        if let Some(entry) = cache.get(&(ty as usize)) {
            if entry.fields == fields && entry.size == size && version != 0 && entry.version == version {
                return Ok(entry.names.clone());
            }
        }
    }
    let mut names = read_field_names(st, fields)?;
    names.from_dict = has_generic_getattr(ty) && names.names.iter().all(|&name| !is_data_descriptor(ty, name));
    names.wire = wire::plan(st, ty, &names.names)?;
    let plain = names.wire.is_none();
    let names = Rc::new(names);
    Py_INCREF(fields);
    Py_INCREF(ty as *mut PyObject);
    let entry = Entry { ty: ty as *mut PyObject, fields, size, version, names: names.clone() };
    // What leaves the cache is dropped only after the cache is whole again
    // and no reference into it is held: dropping an entry releases a class
    // and a dict, which can run Python code (a finalizer, a weakref
    // callback) that encodes a dataclass and so comes back here.
    let (evicted, replaced) = {
        // SAFETY: as above; reading the names ran Python code, so the cache
        // is looked up afresh.
        let cache = &mut st.scratch.get(CACHES).names;
        let evicted = if cache.len() >= MAX_CACHED { core::mem::take(cache) } else { Map::default() };
        (evicted, cache.insert(ty as usize, entry))
    };
    drop(replaced);
    drop(evicted);
    if plain && version != 0 {
        remember_dict_form(st, ty, version);
    }
    Ok(names)
}

unsafe fn read_field_names(st: &State, fields: *mut PyObject) -> Result<FieldNames, EncodeError> {
    let marker = dataclass_field_marker(st);
    let mut out = FieldNames {
        names: Vec::new(),
        private: Vec::new(),
        from_dict: false,
        wire: None,
        defaults: core::cell::OnceCell::new(),
    };
    let (mut pos, mut name, mut field): (Py_ssize_t, *mut PyObject, *mut PyObject) =
        (0, core::ptr::null_mut(), core::ptr::null_mut());
    while PyDict_Next(fields, &mut pos, &mut name, &mut field) != 0 {
        if PyUnicode_Check(name) == 0 {
            continue;
        }
        let kind = PyObject_GetAttr(field, st.str_field_type);
        if kind.is_null() {
            return Err(EncodeError::Raised);
        }
        Py_DECREF(kind);
        if kind == marker {
            let private = PyUnicode_GET_LENGTH(name) > 0 && PyUnicode_ReadChar(name, 0) == '_' as Py_UCS4;
            let list = if private { &mut out.private } else { &mut out.names };
            fallible::push(list, name).map_err(|_| EncodeError::NoMemory)?;
            Py_INCREF(name);
        }
    }
    Ok(out)
}

/// The defaults of class `ty`'s serialized fields `names`, read once.
unsafe fn field_defaults<'a>(
    st: &State,
    ty: *mut PyTypeObject,
    names: &'a FieldNames,
) -> Result<&'a Defaults, EncodeError> {
    if names.defaults.get().is_none() {
        let defaults = wire::defaults(st, ty, &names.names)?;
        // Reading them ran Python code, which may have set them already.
        let _ = names.defaults.set(defaults);
    }
    #[expect(clippy::expect_used, reason = "set just above when it was not")]
    Ok(names.defaults.get().expect("the defaults"))
}

/// One pass over an instance dict whose keys are the fields in definition
/// order (what the generated `__init__` makes), matched by identity: fills
/// `values` with new references to the serialized fields' values and
/// returns true. Private fields are passed over, and attributes after the
/// last field are ignored. Anything else (a field missing, moved, or more
/// than `MAX_SCANNED`) returns false with nothing taken: the caller then
/// looks each field up. No Python code runs during the scan.
unsafe fn scan_in_order(dict: *mut PyObject, names: &FieldNames, values: &mut [*mut PyObject; MAX_SCANNED]) -> bool {
    let wanted = &names.names;
    if wanted.len() > MAX_SCANNED {
        return false;
    }
    let found = match scan_split(dict, names, values) {
        Some(found) => found,
        None => scan_entries(dict, names, values),
    };
    if found < wanted.len() {
        return false;
    }
    // Held before any of them is walked: walking one may run code that
    // changes the dict.
    values[..found].iter().for_each(|&value| Py_INCREF(value));
    true
}

/// The matching part of [`scan_in_order`] by ordinary iteration: how many
/// of the wanted fields were found in order (borrowed into `values`); a
/// count below the number of fields means no match.
unsafe fn scan_entries(dict: *mut PyObject, names: &FieldNames, values: &mut [*mut PyObject; MAX_SCANNED]) -> usize {
    let wanted = &names.names;
    let (mut pos, mut key, mut value): (Py_ssize_t, *mut PyObject, *mut PyObject) =
        (0, core::ptr::null_mut(), core::ptr::null_mut());
    let mut found = 0;
    while found < wanted.len() && crate::cpython::dict::next(dict, &mut pos, &mut key, &mut value) {
        if key == wanted[found] {
            values[found] = value;
            found += 1;
        } else if !names.private.contains(&key) {
            return 0;
        }
    }
    found
}

/// As [`scan_entries`], reading an instance `__dict__` with split keys
/// (what an instance's inline attributes become) in place on CPython 3.11;
/// None for any other dict or version, or anything unexpected in the table,
/// and the caller then iterates the ordinary way.
#[inline(always)]
unsafe fn scan_split(
    dict: *mut PyObject,
    names: &FieldNames,
    values: &mut [*mut PyObject; MAX_SCANNED],
) -> Option<usize> {
    #[cfg(all(dict_table_layout, not(Py_3_12)))]
    {
        // No Python code runs while the table is read; nothing is taken.
        let split = crate::cpython::dict::SplitDict::of(dict)?;
        let wanted = &names.names;
        let mut found = 0;
        for k in 0..split.len() {
            if found == wanted.len() {
                break;
            }
            let (key, value) = split.entry(k)?;
            if key == wanted[found] {
                values[found] = value;
                found += 1;
            } else if !names.private.contains(&key) {
                return Some(0);
            }
        }
        return Some(found);
    }
    #[allow(unreachable_code)]
    {
        let _ = (dict, names, values);
        None
    }
}

impl<E: Emitter> Walker<E> {
    /// A dataclass instance whose class has `fields` as `__dataclass_fields__`.
    pub(crate) unsafe fn dataclass(&mut self, obj: *mut PyObject, fields: *mut PyObject) -> Result<(), EncodeError> {
        let omit = self.opts & (options::OMIT_DEFAULTS | options::OMIT_NONE);
        // A class known to have no wire policy goes straight to orjson's
        // form, as before the policies existed: no lookup of its names.
        if !is_msgpack::<E>() && omit == 0 && class_facts(self.st, Py_TYPE(obj)).dict_form {
            if let Some(result) = self.dict_form(instance_dict(obj)) {
                return result;
            }
        }
        let names = field_names(self.st, Py_TYPE(obj), fields)?;
        if names.wire.is_some() || omit != 0 {
            return self.wire_fields(obj, &names, omit);
        }
        if !is_msgpack::<E>() {
            if let Some(result) = self.dict_form(orjson_instance_dict(self.st, obj)) {
                return result;
            }
        }
        let dict = values_dict::<E>(obj, &names);
        let mut values = [core::ptr::null_mut(); MAX_SCANNED];
        let result = if !dict.is_null() && scan_in_order(dict, &names, &mut values) {
            self.scanned_fields(&names.names, &mut values[..names.names.len()])
        } else {
            self.fields(obj, &names.names, dict)
        };
        Py_XDECREF(dict);
        result
    }

    /// The fields' entries from `values`, references the caller took; all
    /// are released, whatever happens.
    unsafe fn scanned_fields(
        &mut self,
        names: &[*mut PyObject],
        values: &mut [*mut PyObject],
    ) -> Result<(), EncodeError> {
        let len = names.len();
        let result = self.enter().and_then(|()| {
            self.emitter.begin_map(len);
            for (i, (&name, &value)) in names.iter().zip(values.iter()).enumerate() {
                self.emitter.map_key(i);
                self.key(name)?;
                self.emitter.map_value();
                if let Err(e) = self.walk(value) {
                    return Err(self.at_field(name, e));
                }
            }
            self.emitter.end_map(len);
            self.leave();
            Ok(())
        });
        values.iter().for_each(|&value| Py_DECREF(value));
        result
    }

    /// orjson's form of the instance from its `__dict__` (a new reference,
    /// or NULL: None, for the caller to write its fields).
    unsafe fn dict_form(&mut self, dict: *mut PyObject) -> Option<Result<(), EncodeError>> {
        if dict.is_null() {
            return None;
        }
        let result = self.instance_dict(dict);
        Py_DECREF(dict);
        Some(result)
    }

    /// The fields under the class's wire names, leaving out those its policy
    /// or the call's `omit` flags (`OPT_OMIT_DEFAULTS`, `OPT_OMIT_NONE`)
    /// say to. Every value is read (and held) first: the map's length comes
    /// before its entries.
    unsafe fn wire_fields(&mut self, obj: *mut PyObject, names: &FieldNames, omit: Opt) -> Result<(), EncodeError> {
        let wire = names.wire.as_ref();
        let omit_none = omit & options::OMIT_NONE != 0 || wire.is_some_and(|w| w.omit_none);
        let omit_defaults = omit & options::OMIT_DEFAULTS != 0 || wire.is_some_and(|w| w.omit_defaults);
        let defaults = if omit_defaults { Some(field_defaults(self.st, Py_TYPE(obj), names)?) } else { None };
        let n = names.names.len();
        let dict = values_dict::<E>(obj, names);
        let mut small = [core::ptr::null_mut(); MAX_SCANNED];
        let mut large = Vec::new();
        // The usual instance dict is read in one pass, as `dataclass` reads it.
        let scanned = !dict.is_null() && scan_in_order(dict, names, &mut small);
        // Error paths name the keys written (the document's `$` path).
        let keys = wire.map_or(&names.names[..], |w| &w.keys[..]);
        if scanned && !omit_none && defaults.is_none() {
            // Renamed only: every field is written, as `dataclass` writes them.
            Py_DECREF(dict);
            return self.scanned_fields(keys, &mut small[..n]);
        }
        let values: &mut [*mut PyObject] = if n <= MAX_SCANNED {
            &mut small[..n]
        } else {
            fallible::reserve(&mut large, n).map_err(|_| EncodeError::NoMemory)?;
            for _ in 0..n {
                fallible::push(&mut large, core::ptr::null_mut()).map_err(|_| EncodeError::NoMemory)?;
            }
            &mut large[..]
        };
        let result = self
            .kept_values(obj, names, keys, dict, scanned, omit_none, defaults, values)
            .and_then(|kept| self.kept_fields(keys, values, kept));
        Py_XDECREF(dict);
        values.iter().for_each(|&value| Py_XDECREF(value));
        result
    }

    /// Fills `values` with the fields' values (new references) that are
    /// written, NULL for those left out; returns how many are written.
    /// `scanned`: `values` holds every field's value already.
    #[allow(clippy::too_many_arguments)]
    unsafe fn kept_values(
        &mut self,
        obj: *mut PyObject,
        names: &FieldNames,
        keys: &[*mut PyObject],
        dict: *mut PyObject,
        scanned: bool,
        omit_none: bool,
        defaults: Option<&Defaults>,
        values: &mut [*mut PyObject],
    ) -> Result<usize, EncodeError> {
        let mut kept = 0;
        for (i, &name) in names.names.iter().enumerate() {
            // Taken out of `values` while it is looked at: an error leaves no
            // reference behind twice.
            let value = if scanned {
                core::mem::replace(&mut values[i], core::ptr::null_mut())
            } else {
                self.field_value(obj, name, dict)?
            };
            match wire::omitted(value, omit_none, defaults.map(|d| &d.0[i])) {
                Ok(false) => {
                    values[i] = value;
                    kept += 1;
                }
                Ok(true) => Py_DECREF(value),
                Err(e) => {
                    Py_DECREF(value);
                    return Err(self.at_field(keys[i], e));
                }
            }
        }
        Ok(kept)
    }

    /// The `kept` entries of `values` that are not NULL, under `keys`.
    unsafe fn kept_fields(
        &mut self,
        keys: &[*mut PyObject],
        values: &[*mut PyObject],
        kept: usize,
    ) -> Result<(), EncodeError> {
        self.enter()?;
        self.emitter.begin_map(kept);
        let mut written = 0;
        for (i, &value) in values.iter().enumerate() {
            if value.is_null() {
                continue;
            }
            if let Err(e) = self.entry(written, keys[i], value) {
                return Err(self.at_field(keys[i], e));
            }
            written += 1;
        }
        self.emitter.end_map(kept);
        self.leave();
        Ok(())
    }

    /// The value of field `name` of `obj` (a new reference): from `dict`
    /// (the instance's, or NULL) where present, else by `getattr`.
    unsafe fn field_value(
        &mut self,
        obj: *mut PyObject,
        name: *mut PyObject,
        dict: *mut PyObject,
    ) -> Result<*mut PyObject, EncodeError> {
        let value = if dict.is_null() { core::ptr::null_mut() } else { PyDict_GetItemWithError(dict, name) };
        if !value.is_null() {
            // Borrowed from the dict, which `default` could change: hold it.
            Py_INCREF(value);
            return Ok(value);
        }
        if !PyErr_Occurred().is_null() {
            return Err(EncodeError::Raised);
        }
        let value = PyObject_GetAttr(obj, name);
        if value.is_null() {
            return Err(self.field_raised(obj));
        }
        Ok(value)
    }

    /// The fields' entries; values from `dict` (the instance's, or NULL) where present.
    unsafe fn fields(
        &mut self,
        obj: *mut PyObject,
        names: &[*mut PyObject],
        dict: *mut PyObject,
    ) -> Result<(), EncodeError> {
        let len = names.len();
        self.enter()?;
        self.emitter.begin_map(len);
        for (i, &name) in names.iter().enumerate() {
            self.emitter.map_key(i);
            self.key(name)?;
            self.emitter.map_value();
            let value = self.field_value(obj, name, dict)?;
            let result = self.walk(value);
            Py_DECREF(value);
            if let Err(e) = result {
                return Err(self.at_field(name, e));
            }
        }
        self.emitter.end_map(len);
        self.leave();
        Ok(())
    }

    /// Reading a field of `obj` raised (a property, a slot never set): the
    /// peer's message, with that exception as the cause. orjson says the
    /// type is not serializable; ormsgpack repeats the exception's message.
    #[cold]
    unsafe fn field_raised(&mut self, obj: *mut PyObject) -> EncodeError {
        if is_msgpack::<E>() {
            EncodeError::Raised
        } else {
            EncodeError::DefaultRaised(Py_TYPE(obj))
        }
    }

    /// orjson's form of a dataclass instance: the entries of its `__dict__`
    /// (held by the caller) whose keys do not start with `_`.
    unsafe fn instance_dict(&mut self, dict: *mut PyObject) -> Result<(), EncodeError> {
        let len = dict_len(dict);
        self.enter()?;
        self.emitter.begin_map(len);
        let (mut pos, mut key, mut value): (Py_ssize_t, *mut PyObject, *mut PyObject) =
            (0, core::ptr::null_mut(), core::ptr::null_mut());
        let (mut seen, mut written) = (0, 0);
        while crate::cpython::dict::next_any(dict, &mut pos, &mut key, &mut value) {
            if seen == len {
                return Err(EncodeError::DictChangedSize);
            }
            seen += 1;
            if PyUnicode_Check(key) == 0 {
                return Err(self.key_not_str(key));
            }
            if starts_with_underscore(key) {
                continue;
            }
            self.dict_entry(dict, written, key, value)?;
            written += 1;
        }
        if seen != len || dict_len(dict) != len {
            return Err(EncodeError::DictChangedSize);
        }
        self.emitter.end_map(written);
        self.leave();
        Ok(())
    }
}

/// The instance `__dict__` the fields' values of `obj` are read from (a new
/// reference), or NULL (nothing raised) to read them with `getattr`.
/// ormsgpack reads a field from the instance's `__dict__` when it is there,
/// whatever the class defines (a property, `__getattribute__`), and with
/// getattr otherwise; for JSON (a class with `__slots__`, or a wire policy)
/// the dict is only a shortcut where getattr would give the same.
unsafe fn values_dict<E: Emitter>(obj: *mut PyObject, names: &FieldNames) -> *mut PyObject {
    if !names.from_dict && !is_msgpack::<E>() {
        return core::ptr::null_mut();
    }
    let dict = PyObject_GenericGetDict(obj, core::ptr::null_mut());
    if dict.is_null() {
        PyErr_Clear();
    }
    dict
}

/// The instance `__dict__` orjson writes a dataclass as (a new reference):
/// when the instance has one and its class does not itself declare
/// `__slots__`; NULL (nothing raised) otherwise.
unsafe fn orjson_instance_dict(st: &State, obj: *mut PyObject) -> *mut PyObject {
    if class_facts(st, Py_TYPE(obj)).own_slots {
        return core::ptr::null_mut();
    }
    instance_dict(obj)
}

/// The instance `__dict__` of `obj` (a new reference) when it has one;
/// NULL (nothing raised) otherwise.
unsafe fn instance_dict(obj: *mut PyObject) -> *mut PyObject {
    let dict = PyObject_GenericGetDict(obj, core::ptr::null_mut());
    if dict.is_null() {
        PyErr_Clear();
        return core::ptr::null_mut();
    }
    if PyDict_Check(dict) == 0 {
        Py_DECREF(dict);
        return core::ptr::null_mut();
    }
    dict
}

/// Whether str `key` starts with `_`; its first byte read in place when it
/// is compact ASCII (every identifier an attribute name usually is).
#[inline(always)]
unsafe fn starts_with_underscore(key: *mut PyObject) -> bool {
    match crate::cpython::str::compact_ascii(key) {
        Some(ascii) => ascii.first() == Some(&b'_'),
        None => PyUnicode_GET_LENGTH(key) > 0 && PyUnicode_ReadChar(key, 0) == '_' as Py_UCS4,
    }
}

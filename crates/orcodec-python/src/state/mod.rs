//! The module's per-interpreter state: the ground floor every other part of
//! the extension reads.
//!
//! Each interpreter that imports orcodec gets its own module object (PEP
//! 489's multi-phase initialization) and, in that module's state, one
//! [`State`]: the exception classes and Python classes orcodec defines,
//! interned names, the types looked up in that interpreter (`uuid.UUID`,
//! `enum.EnumMeta`, numpy's, ...), and every cache and kept buffer. No
//! `static` anywhere holds a Python object or mutable state, so isolated
//! subinterpreters (each with its own GIL) and legacy ones never see each
//! other's objects, and two interpreters running at once never share a
//! cache.
//!
//! How code reaches it: a module function receives its module as `self`
//! ([`State::of_module`], one load through the module's state pointer); an
//! instance of one of orcodec's classes keeps the state of the module whose
//! class made it (found once, when it is made: [`State::of_type`]); the
//! walker, the builders and typed decoding carry it in their context.
//!
//! Lifetime: the state is freed with its module (`m_free`), which outlives
//! every call into it (a call holds its function, whose `self` is the
//! module) and every instance of its classes (an instance holds its class,
//! which holds the module). So a `&'static State` taken from a live module
//! or instance is valid for as long as any code can use it; the `'static`
//! only spares every struct that carries it a lifetime parameter.
//!
//! Concurrency: a state is used only by threads holding its interpreter's
//! GIL (the crate's GIL contract, per interpreter), so its cells need no
//! locks; `doc/internals/architecture.md` lists what a free-threaded build
//! would need instead, object by object.

mod lazy;
pub mod scratch;

use core::cell::{Cell, UnsafeCell};
use core::ffi::{c_int, c_void};
use core::ptr::null_mut;
use core::sync::atomic::{AtomicUsize, Ordering};
use pyo3_ffi::*;

pub use lazy::Lazy;
use scratch::Scratch;

use crate::cpython::object::Owned;
use orcodec_core::json::scanner::ScanStacks;
use orcodec_core::msgpack::reader::ReadStacks;

/// The Python objects made when the module is executed, owned by the state
/// (the module holds its own references to the public ones).
pub struct Objects {
    pub json_encode_error: *mut PyObject,
    pub json_decode_error: *mut PyObject,
    pub msgpack_encode_error: *mut PyObject,
    pub msgpack_decode_error: *mut PyObject,
    /// Raised for input of a type the decoders do not read: the decode error
    /// and TypeError both.
    pub json_input_error: *mut PyObject,
    pub msgpack_input_error: *mut PyObject,
    /// ValidationError, and its subclasses that are also the formats' decode errors.
    pub validation_error: *mut PyObject,
    pub json_validation_error: *mut PyObject,
    pub msgpack_validation_error: *mut PyObject,
    pub out_of_data: *mut PyObject,
    pub buffer_full: *mut PyObject,
    pub fragment_type: *mut PyTypeObject,
    pub ext_type: *mut PyTypeObject,
    pub decoder_type: *mut PyTypeObject,
    pub unpacker_type: *mut PyTypeObject,
    /// The base of `orcodec.msgpack.Unpacker`.
    pub mp_unpacker_type: *mut PyTypeObject,
    pub json_unpacker_type: *mut PyTypeObject,
    pub packer_type: *mut PyTypeObject,
    pub line_iterator_type: *mut PyTypeObject,
    /// `gc.collect`, as the interpreter defines it (see `decode::collect_young`).
    pub gc_collect: *mut PyObject,
    /// The `default` of `msgpack_to_json(base64=True)`'s two-step.
    pub base64_default: *mut PyObject,
    pub kw_type: *mut PyObject,
    pub kw_strict: *mut PyObject,
    pub kw_dec_hook: *mut PyObject,
    pub kw_forbid_unknown_fields: *mut PyObject,
    pub kw_default: *mut PyObject,
    pub kw_option: *mut PyObject,
    pub kw_ext_hook: *mut PyObject,
    pub kw_numpy_ext_code: *mut PyObject,
    pub kw_base64: *mut PyObject,
    pub kw_read_size: *mut PyObject,
    pub kw_partial: *mut PyObject,
    pub kw_pointer: *mut PyObject,
    /// Interned attribute and module names the walker looks up.
    pub str_utcoffset: *mut PyObject,
    pub str_int: *mut PyObject,
    pub str_value: *mut PyObject,
    pub str_uuid: *mut PyObject,
    pub str_enum: *mut PyObject,
    pub str_dataclasses: *mut PyObject,
    pub str_dataclass_fields: *mut PyObject,
    pub str_field_type: *mut PyObject,
    pub str_numpy: *mut PyObject,
    pub str_array_struct: *mut PyObject,
    pub str_dtype: *mut PyObject,
    pub str_str: *mut PyObject,
    pub str_dict: *mut PyObject,
    pub str_pydantic_fields: *mut PyObject,
    pub str_pydantic_extra: *mut PyObject,
    /// pydantic v1 models: `__fields__`.
    pub str_fields: *mut PyObject,
    pub str_slots: *mut PyObject,
    pub str_normalize: *mut PyObject,
    pub str_pytz_tzinfo: *mut PyObject,
    pub str_decimal: *mut PyObject,
    pub str_datetime: *mut PyObject,
}

impl Objects {
    /// Every field, in declaration order (for traversal and release).
    pub fn all(&mut self) -> [&mut *mut PyObject; 54] {
        macro_rules! fields {
            ($($f:ident),* ; $($t:ident),*) => { [$(&mut self.$f,)* $(as_object(&mut self.$t),)*] };
        }
        fields!(
            json_encode_error, json_decode_error, msgpack_encode_error, msgpack_decode_error, json_input_error,
            msgpack_input_error, validation_error, json_validation_error, msgpack_validation_error, out_of_data,
            buffer_full, gc_collect, base64_default, kw_type, kw_strict, kw_dec_hook, kw_forbid_unknown_fields,
            kw_default, kw_option, kw_ext_hook, kw_numpy_ext_code, kw_base64, kw_read_size, kw_partial, kw_pointer, str_utcoffset, str_int,
            str_value, str_uuid, str_enum, str_dataclasses, str_dataclass_fields, str_field_type, str_numpy,
            str_array_struct, str_dtype, str_str, str_dict, str_pydantic_fields, str_pydantic_extra, str_fields,
            str_slots, str_normalize, str_pytz_tzinfo, str_decimal, str_datetime;
            fragment_type, ext_type, decoder_type, unpacker_type, mp_unpacker_type, json_unpacker_type, packer_type, line_iterator_type
        )
    }

    /// What holds the module: the classes made from it
    /// (`PyType_FromModuleAndSpec`) and the function bound to it. The module
    /// and they form cycles that only the collector, through `m_traverse`
    /// and `m_clear`, can break.
    fn holding_module(&mut self) -> [&mut *mut PyObject; 9] {
        [
            as_object(&mut self.fragment_type),
            as_object(&mut self.ext_type),
            as_object(&mut self.decoder_type),
            as_object(&mut self.unpacker_type),
            as_object(&mut self.mp_unpacker_type),
            as_object(&mut self.json_unpacker_type),
            as_object(&mut self.packer_type),
            as_object(&mut self.line_iterator_type),
            &mut self.base64_default,
        ]
    }
}

fn as_object(ty: &mut *mut PyTypeObject) -> &mut *mut PyObject {
    // SAFETY: a `*mut PyTypeObject` and a `*mut PyObject` have one layout,
    // and a type object is an object.
    unsafe { &mut *(ty as *mut *mut PyTypeObject as *mut *mut PyObject) }
}

/// Objects found in the interpreter the first time they are needed (the
/// module they live in may be imported after orcodec, or never).
#[derive(Default)]
pub struct Found {
    pub uuid_type: Lazy,
    pub safe_uuid: Lazy,
    pub enum_meta: Lazy,
    pub pytz_tzinfo: Lazy,
    pub dataclass_field: Lazy,
    pub decimal_type: Lazy,
    /// `orcodec._typed.compile_type`.
    pub compile_type: Lazy,
    /// The compiled types by type (a dict; see `decode::typed::cache`).
    pub compiled_types: Lazy,
    /// `orcodec._wire`, the dataclasses' wire policies for the encoders.
    pub wire_module: Lazy,
    /// `numpy.bool_`, `numpy.integer`, `numpy.floating`, for typed decoding.
    pub numpy_bool: Lazy,
    pub numpy_integer: Lazy,
    pub numpy_floating: Lazy,
    /// The pure-Python `datetime` module's classes, where the C module
    /// cannot be loaded (see `encode/types/pydatetime.rs`).
    pub py_datetime: Lazy,
    pub py_date: Lazy,
    pub py_time: Lazy,
}

impl Found {
    fn all(&self) -> [&Lazy; 15] {
        [
            &self.uuid_type,
            &self.safe_uuid,
            &self.enum_meta,
            &self.pytz_tzinfo,
            &self.dataclass_field,
            &self.decimal_type,
            &self.compile_type,
            &self.compiled_types,
            &self.wire_module,
            &self.numpy_bool,
            &self.numpy_integer,
            &self.numpy_floating,
            &self.py_datetime,
            &self.py_date,
            &self.py_time,
        ]
    }
}

/// A first size guess for an output buffer, learned from the previous call
/// of its kind (see `encode::SizeHint` for the rule). Relaxed atomics: it is
/// only a hint, any value is safe.
#[derive(Default)]
pub struct SizeHint {
    /// The capacity to start the next buffer with; 0 for "the default".
    pub capacity: AtomicUsize,
    /// The length of the previous output.
    pub last_len: AtomicUsize,
    /// While outputs repeat that length: what they need beyond it.
    pub extra: AtomicUsize,
}

impl SizeHint {
    #[inline(always)]
    pub fn get(&self) -> usize {
        self.capacity.load(Ordering::Relaxed)
    }
}

/// Buffers kept between calls, taken out by a call and put back after (see
/// `decode::with_stacks`).
pub struct Kept<T>(UnsafeCell<Option<T>>);

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept(UnsafeCell::new(None))
    }
}

impl<T> Kept<T> {
    /// What was kept, leaving the slot empty (a nested call finds none).
    #[inline(always)]
    pub fn take(&self) -> Option<T> {
        // SAFETY: the GIL contract: one thread at a time, and no reference
        // into the slot outlives this call.
        unsafe { (*self.0.get()).take() }
    }

    /// Keeps `value` for the next call.
    #[inline(always)]
    pub fn put(&self, value: T) {
        // SAFETY: as in `take`. What is replaced (a nested call's) holds no
        // Python object: kept buffers are empty.
        unsafe { *self.0.get() = Some(value) }
    }
}

/// Inputs at least this long are worked on with the GIL released (other
/// threads of the interpreter run meanwhile), when they cannot change
/// underneath (`module::gil`). Below it the release and reacquisition (a few
/// hundred nanoseconds, more when other threads wait for the GIL) would be a
/// noticeable part of the call. `bench/gil_threshold.py` measures it: on 2
/// cores the release costs within 1.5% of a call from 2 KiB, and two threads
/// transcode 1.70 times as fast as one from 16 KiB (1.45-1.66 at 4 and 8 KiB).
pub const GIL_FREE_FROM: usize = 16 << 10;

pub struct State {
    pub o: Objects,
    /// The interpreter's C API of `datetime` (`_datetime`'s capsule), once
    /// `datetime` is imported there (see [`State::load_datetime`]); NULL
    /// until then, and in an interpreter where the C module cannot be
    /// loaded (CPython 3.12's isolated subinterpreters run the pure-Python
    /// `datetime`, whose objects are not the C types).
    datetime_api: Cell<*const PyDateTime_CAPI>,
    /// Set when `datetime` was imported but has no C API (the pure-Python
    /// module): it is not looked for again.
    no_datetime_api: Cell<bool>,
    pub found: Found,
    /// Inputs from this many bytes are worked on without the GIL where
    /// they can be (`module::gil`); set only by the benchmark that measures
    /// where releasing it starts to pay (`_gil_free_from`).
    pub gil_free_from: Cell<usize>,
    pub dumps_size: SizeHint,
    pub packb_size: SizeHint,
    pub to_msgpack_size: SizeHint,
    pub to_json_size: SizeHint,
    pub json_stacks: Kept<ScanStacks<Owned>>,
    pub msgpack_stacks: Kept<ReadStacks<Owned>>,
    /// Caches whose types belong to the parts that use them.
    pub scratch: Scratch,
}

impl core::ops::Deref for State {
    type Target = Objects;
    #[inline(always)]
    fn deref(&self) -> &Objects {
        &self.o
    }
}

impl State {
    pub fn new(o: Objects) -> State {
        State {
            o,
            datetime_api: Cell::new(null_mut()),
            no_datetime_api: Cell::new(false),
            found: Found::default(),
            gil_free_from: Cell::new(GIL_FREE_FROM),
            dumps_size: SizeHint::default(),
            packb_size: SizeHint::default(),
            to_msgpack_size: SizeHint::default(),
            to_json_size: SizeHint::default(),
            json_stacks: Kept::default(),
            msgpack_stacks: Kept::default(),
            scratch: Scratch::default(),
        }
    }

    /// The C API of `datetime`, or NULL while it is not loaded.
    #[inline(always)]
    pub fn datetime_capi(&self) -> *const PyDateTime_CAPI {
        self.datetime_api.get()
    }

    /// Loads the C API of `datetime` if it is not loaded yet: with `import`,
    /// importing `datetime` (when a datetime is to be made); without, only
    /// if `datetime` is already imported in this interpreter (when one may
    /// have been met). The module does not import `datetime` itself: on
    /// CPython 3.12, every attempt to load `_datetime` in an isolated
    /// subinterpreter corrupts the process (the next one aborts), so only
    /// code that asks for datetimes makes it. Returns the API or NULL (no
    /// exception set).
    #[cold]
    pub unsafe fn load_datetime(&self, import: bool) -> *const PyDateTime_CAPI {
        if !self.datetime_api.get().is_null() || self.no_datetime_api.get() {
            return self.datetime_api.get();
        }
        if !import {
            let name = PyUnicode_InternFromString(c"datetime".as_ptr());
            let module = if name.is_null() { null_mut() } else { PyImport_GetModule(name) };
            Py_XDECREF(name);
            if module.is_null() {
                PyErr_Clear();
                return core::ptr::null();
            }
            Py_DECREF(module);
        }
        let capi = PyCapsule_Import(c"datetime.datetime_CAPI".as_ptr(), 0) as *const PyDateTime_CAPI;
        if capi.is_null() {
            // `datetime` imported (or failed to) without its capsule: the
            // pure-Python module, for the life of this interpreter.
            PyErr_Clear();
            self.no_datetime_api.set(true);
        }
        self.datetime_api.set(capi);
        capi
    }

    /// The state of `module`, one of orcodec's modules whose execution
    /// completed (module functions are only reachable then).
    ///
    /// # Safety
    /// `module` is a live orcodec module (a module function's `self`).
    #[inline(always)]
    pub unsafe fn of_module(module: *mut PyObject) -> &'static State {
        // SAFETY: the module's state is one pointer, set to a live `State`
        // by `install` before any function of the module can be called, and
        // cleared only by `m_free`, after the last call.
        &**(crate::cpython::module::module_state(module) as *mut *mut State)
    }

    /// The state of the orcodec module whose class `ty` is or derives from,
    /// or None with a TypeError set. For constructors, called once per
    /// instance. An orcodec module is told by its definition's `m_free`,
    /// which is this file's.
    pub unsafe fn of_type(ty: *mut PyTypeObject) -> Option<&'static State> {
        let ours = |def: *mut PyModuleDef| (*def).m_free.is_some_and(|f| core::ptr::fn_addr_eq(f, free as freefunc));
        let module = crate::cpython::types::module_of_class(ty, ours)?;
        let state = *(PyModule_GetState(module) as *mut *mut State);
        if state.is_null() {
            PyErr_SetString(PyExc_TypeError, c"orcodec's module is not initialized".as_ptr());
            return None;
        }
        Some(&*state)
    }

    /// Stores `state` as `module`'s; `module`'s state is one pointer.
    pub unsafe fn install(module: *mut PyObject, state: Box<State>) {
        *(PyModule_GetState(module) as *mut *mut State) = Box::into_raw(state);
    }
}

/// The state pointer of `module`, NULL before `install` (or after `m_free`).
unsafe fn state_ptr(module: *mut PyObject) -> *mut State {
    let slot = PyModule_GetState(module) as *mut *mut State;
    if slot.is_null() {
        return null_mut();
    }
    *slot
}

/// `m_traverse`: the objects the state owns, for the cyclic collector
/// (every one the collector tracks, so that none seems held from outside).
/// The caches (`scratch`) are not traversed: they are emptied by `m_clear`.
pub unsafe extern "C" fn traverse(module: *mut PyObject, visit: visitproc, arg: *mut c_void) -> c_int {
    let state = state_ptr(module);
    if state.is_null() {
        return 0;
    }
    let fields = (*state).o.all().map(|field| *field);
    let found = (*state).found.all().map(|lazy| lazy.found());
    for obj in fields.into_iter().chain(found) {
        if !obj.is_null() && PyObject_IS_GC(obj) != 0 {
            let r = visit(obj, arg);
            if r != 0 {
                return r;
            }
        }
    }
    0
}

/// `m_clear`: breaks the cycles through the module (its classes and bound
/// function hold it) and empties the caches, which hold the interpreter's
/// classes (and through them, often, this module again). Called by the
/// collector when the module is garbage, and as the interpreter ends; the
/// module's functions are not called after it.
pub unsafe extern "C" fn clear(module: *mut PyObject) -> c_int {
    let state = state_ptr(module);
    if !state.is_null() {
        for field in (*state).o.holding_module() {
            let old = core::mem::replace(field, null_mut());
            Py_XDECREF(old);
        }
        for lazy in (*state).found.all() {
            lazy.release();
        }
        // Dropping the caches releases what they hold, which may run Python
        // code (finalizers): the state is whole meanwhile, with empty caches.
        let caches = core::mem::take(&mut (*state).scratch);
        drop(caches);
    }
    0
}

/// `m_free`: releases everything the state holds, and the state itself.
pub unsafe extern "C" fn free(module: *mut c_void) {
    let module = module as *mut PyObject;
    let state = state_ptr(module);
    if state.is_null() {
        return;
    }
    *(PyModule_GetState(module) as *mut *mut State) = null_mut();
    let mut state = Box::from_raw(state);
    for field in state.o.all() {
        let old = core::mem::replace(field, null_mut());
        Py_XDECREF(old);
    }
    for lazy in state.found.all() {
        lazy.release();
    }
    // The caches drop with the state (their drops release what they hold).
    drop(state);
}

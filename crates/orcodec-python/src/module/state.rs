//! Objects the extension looks up once, at import: its exception types and
//! interned keyword names. Type checks compare `ob_type` against CPython's
//! static type objects directly, which needs no cache.

use core::cell::UnsafeCell;
use core::ptr::null_mut;
use pyo3_ffi::*;

pub struct State {
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
    pub kw_type: *mut PyObject,
    pub kw_strict: *mut PyObject,
    pub kw_dec_hook: *mut PyObject,
    pub kw_forbid_unknown_fields: *mut PyObject,
    pub kw_default: *mut PyObject,
    pub kw_option: *mut PyObject,
    pub kw_ext_hook: *mut PyObject,
    pub kw_numpy_ext_code: *mut PyObject,
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
    pub fragment_type: *mut PyTypeObject,
    pub ext_type: *mut PyTypeObject,
    pub decoder_type: *mut PyTypeObject,
    /// `gc.collect`, as the interpreter defines it (see `decode::collect_young`).
    pub gc_collect: *mut PyObject,
}

struct Cell(UnsafeCell<State>);

// SAFETY: the GIL contract (crate root); written once during module init and
// only read afterwards.
unsafe impl Sync for Cell {}

static STATE: Cell = Cell(UnsafeCell::new(State {
    json_encode_error: null_mut(),
    json_decode_error: null_mut(),
    msgpack_encode_error: null_mut(),
    msgpack_decode_error: null_mut(),
    json_input_error: null_mut(),
    msgpack_input_error: null_mut(),
    validation_error: null_mut(),
    json_validation_error: null_mut(),
    msgpack_validation_error: null_mut(),
    kw_type: null_mut(),
    kw_strict: null_mut(),
    kw_dec_hook: null_mut(),
    kw_forbid_unknown_fields: null_mut(),
    kw_default: null_mut(),
    kw_option: null_mut(),
    kw_ext_hook: null_mut(),
    kw_numpy_ext_code: null_mut(),
    kw_partial: null_mut(),
    kw_pointer: null_mut(),
    str_utcoffset: null_mut(),
    str_int: null_mut(),
    str_value: null_mut(),
    str_uuid: null_mut(),
    str_enum: null_mut(),
    str_dataclasses: null_mut(),
    str_dataclass_fields: null_mut(),
    str_field_type: null_mut(),
    str_numpy: null_mut(),
    str_array_struct: null_mut(),
    str_dtype: null_mut(),
    str_str: null_mut(),
    str_dict: null_mut(),
    str_pydantic_fields: null_mut(),
    str_pydantic_extra: null_mut(),
    str_fields: null_mut(),
    str_slots: null_mut(),
    str_normalize: null_mut(),
    str_pytz_tzinfo: null_mut(),
    fragment_type: null_mut(),
    ext_type: null_mut(),
    decoder_type: null_mut(),
    gc_collect: null_mut(),
}));

/// The module state. Valid after `init` succeeded (the module cannot be used before).
#[inline(always)]
pub fn state() -> &'static State {
    // SAFETY: see `Cell`: no writes happen after init.
    unsafe { &*STATE.0.get() }
}

/// Fills the state; called once, from module init.
///
/// # Safety
/// Must run once, before any other use of `state()`.
pub unsafe fn init(s: State) {
    *STATE.0.get() = s;
}

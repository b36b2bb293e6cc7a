//! Every read or write of CPython's own structures, in one place.
//!
//! The rest of the extension calls the C API as documented. The code here
//! goes further for speed: it reads and writes objects by the struct layouts
//! of the interpreter versions it was written against (and is tested on,
//! each of them), gated on those versions, with a C API fallback everywhere
//! else:
//!
//! - `dict_table_layout` (set by build.rs: CPython 3.11 to 3.13, GIL builds,
//!   full API): the dict keys table, read in place by [`dict`] and written by
//!   [`dict_table`]; on 3.11 also the split tables of instance dicts
//!   ([`dict::SplitDict`]).
//! - `int_layout` (build.rs, the same versions): an int's 30-bit digits
//!   ([`int`]), in the 3.11 form or the 3.12/3.13 one (`Py_3_12`).
//! - `float_layout` (build.rs: CPython 3.11 and 3.12 of those, without
//!   reference-count debugging): floats allocated and written in place
//!   ([`float`]).
//! - little-endian CPython before 3.14, full API: a str's state bits and its
//!   cached UTF-8 ([`str`]).
//! - CPython 3.11 to 3.13, full API: the offset inside a `datetime.timezone`
//!   ([`datetime`]).
//! - CPython 3.11 to 3.13, full API, 64-bit: `decimal.Decimal` objects made
//!   in place ([`decimal`]), after a check of their layout against the
//!   type's own instances.
//! - CPython 3.9 to 3.13, full API: a module's state pointer ([`module`]).
//! - every version: `bytes` storage ([`bytes`]), a dict's length,
//!   `__slots__` members and type slots ([`types`]), and the private
//!   functions pyo3-ffi does not declare ([`ffi`]).
//!
//! [`instance`] makes instances for typed decoding and writes their
//! `__slots__` members in place (every version: member descriptors);
//! [`inline_attrs`] writes their other attributes into the inline values
//! that CPython 3.11 to 3.13 keep before a `__dict__` is made (the
//! `dict_table_layout` cfg; `PyObject_GenericSetAttr` elsewhere).
//!
//! [`object::Owned`] is the owned reference the decoders build with.

pub mod bytes;
pub mod datetime;
pub mod decimal;
pub mod dict;
#[cfg(dict_table_layout)]
pub mod dict_table;
pub mod ffi;
pub mod float;
pub mod inline_attrs;
pub mod instance;
pub mod int;
pub mod module;
pub mod object;
pub mod str;
pub mod types;

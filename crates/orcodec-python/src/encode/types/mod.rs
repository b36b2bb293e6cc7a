//! The Python types the walker knows beyond the builtins, one file each:
//! how a type is recognized and how it is written, for both formats (the
//! walker is generic over the format's `Emitter`).
//!
//! `walker.rs` decides the order they are tried in; each file adds its
//! methods to `Walker` (`numpy_ext.rs` is numpy's binary forms, for
//! MessagePack). Types from the standard library (`state::Lazy`) and
//! numpy (`numpy.rs`) are found lazily, in each interpreter: a module that
//! was never imported can have no instances, so orcodec imports nothing for
//! them and asks `sys.modules` on first sight.

pub mod dataclass;
pub mod datetime;
pub mod enums;
pub mod ext;
pub mod fragment;
pub mod numpy;
pub mod numpy_ext;
pub mod pydantic;
pub mod pydatetime;
pub mod uuid;
pub mod wire;

use orcodec_core::emit::Emitter;
use pyo3_ffi::*;

use crate::cpython::bytes::bytearray_data;
use crate::encode::types::dataclass::dataclass_fields;
use crate::encode::types::enums::is_enum_type;
use crate::encode::types::pydantic::is_pydantic_model;
use crate::encode::types::uuid::{is_uuid_type, uuid_text};
use crate::encode::walker::{Result, Walker};
use crate::module::options;

impl<E: Emitter> Walker<E> {
    /// Subclasses and everything that is not an exact builtin type.
    #[inline(never)]
    pub(crate) unsafe fn walk_other(&mut self, obj: *mut PyObject) -> Result {
        let ty = Py_TYPE(obj);
        // Before the subclass checks: IntEnum and StrEnum members are int and
        // str subclasses, but are serialized (or passed through) as enums.
        if is_enum_type(self.st, ty) {
            return self.enum_member(obj);
        }
        // Exact types that are no subclass of anything below, before the
        // subclass checks (PyFloat_Check calls PyType_IsSubtype).
        if self.opts & options::PASSTHROUGH_DATETIME == 0 {
            if let Some(result) = self.date_or_time(obj) {
                return result;
            }
        }
        if self.opts & options::PASSTHROUGH_UUID == 0 && is_uuid_type(self.st, ty) {
            self.emitter.ascii(&uuid_text(self.st, obj)?);
            return Ok(());
        }
        // Before the subclass checks too: numpy.float64 is a float subclass,
        // numpy.complex128 a complex one, and both keep their type this way.
        if E::HAS_BIN && self.opts & (options::NUMPY_EXT | options::MSGPACK_NUMPY) != 0 {
            if let Some(result) = self.numpy_binary(obj) {
                return result;
            }
        }
        // The subclasses both peers write as their base type. Those of
        // float, tuple (namedtuples), bytes and bytearray are not among them:
        // they go to `default`, where a `default` may well write a
        // namedtuple as a map (`obj._asdict()`).
        if self.opts & options::PASSTHROUGH_SUBCLASS == 0 {
            if PyUnicode_Check(obj) != 0 {
                return self.str(obj);
            }
            if PyLong_Check(obj) != 0 {
                return self.int(obj);
            }
            if PyDict_Check(obj) != 0 {
                return self.dict(obj);
            }
            if PyList_Check(obj) != 0 {
                return self.list(obj);
            }
        }
        if E::HAS_BIN {
            // Exact bytes never get here.
            if PyByteArray_CheckExact(obj) != 0 {
                return self.bin(bytearray_data(obj));
            }
            if PyMemoryView_Check(obj) != 0 {
                return self.memoryview(obj);
            }
        }
        let s = self.st;
        if ty == s.fragment_type {
            return self.fragment(obj);
        }
        if E::HAS_BIN && ty == s.ext_type {
            return self.ext(obj);
        }
        if self.opts & options::PASSTHROUGH_DATACLASS == 0 {
            if let Some(fields) = dataclass_fields(self.st, obj) {
                return self.dataclass(obj, fields);
            }
        }
        if self.opts & options::SERIALIZE_NUMPY != 0 {
            if let Some(result) = self.numpy(obj) {
                return result;
            }
        }
        if self.opts & options::SERIALIZE_PYDANTIC != 0 && is_pydantic_model(self.st, obj) {
            return self.pydantic_model(obj);
        }
        self.call_default(obj)
    }
}

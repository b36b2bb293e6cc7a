//! `orcodec.Fragment`: already-encoded content, copied into the output as
//! it is (the class itself is in `classes/fragment.rs`).
//!
//! One class serves both formats, so it takes any content when made, as
//! orjson's does; what a format cannot use is refused when it is written:
//! content that is neither bytes nor str (both formats, orjson's message),
//! str in `packb`, and in `packb` bytes that are not exactly one MessagePack
//! value (ormsgpack checks that when its `Fragment` is made; orcodec cannot,
//! since a JSON fragment is no MessagePack, so it checks on use: no invalid
//! output is ever written).

use orcodec_core::emit::Emitter;
use pyo3_ffi::*;

use crate::classes::fragment::Fragment;
use crate::cpython::bytes::bytes_data;
use crate::encode::error::EncodeError;
use crate::encode::walker::{is_msgpack, Walker};
use orcodec_core::msgpack::validate::is_one_value as is_one_msgpack_value;

impl<E: Emitter> Walker<E> {
    /// Already-encoded content, copied as it is.
    #[cold]
    pub(crate) unsafe fn fragment(&mut self, obj: *mut PyObject) -> Result<(), EncodeError> {
        let contents = (*(obj as *mut Fragment)).contents;
        if PyBytes_Check(contents) != 0 {
            let data = bytes_data(contents);
            if is_msgpack::<E>() && !is_one_msgpack_value(data) {
                return Err(EncodeError::FragmentNotOneValue);
            }
            self.emitter.raw(data);
            return Ok(());
        }
        if PyUnicode_Check(contents) == 0 {
            return Err(EncodeError::FragmentContent);
        }
        // str: JSON text only (MessagePack is binary).
        if E::HAS_BIN {
            return Err(EncodeError::FragmentNotBytes);
        }
        let mut len: Py_ssize_t = 0;
        let data = PyUnicode_AsUTF8AndSize(contents, &mut len);
        if data.is_null() {
            PyErr_Clear();
            return Err(EncodeError::Surrogates);
        }
        self.emitter.raw(core::slice::from_raw_parts(data as *const u8, len as usize));
        Ok(())
    }
}

//! `orcodec.Ext`: a MessagePack extension value (the class itself is in
//! `classes/ext.rs`).

use orcodec_core::emit::Emitter;
use pyo3_ffi::*;

use crate::classes::ext::Ext;
use crate::cpython::bytes::bytes_data;
use crate::encode::error::EncodeError;
use crate::encode::walker::Walker;

impl<E: Emitter> Walker<E> {
    /// A MessagePack extension value (`Ext`).
    #[cold]
    pub(crate) unsafe fn ext(&mut self, obj: *mut PyObject) -> Result<(), EncodeError> {
        let ext = &*(obj as *mut Ext);
        // An exact int: no Python code runs, and any size is an answer.
        let mut overflow = 0;
        let tag = PyLong_AsLongAndOverflow(ext.tag, &mut overflow);
        if overflow != 0 || !(0..=127).contains(&tag) {
            return Err(EncodeError::ExtTagRange);
        }
        let data = bytes_data(ext.data);
        if data.len() > orcodec_core::msgpack::writer::MAX_LEN {
            return Err(EncodeError::TooLong);
        }
        self.emitter.ext(tag as i8, data);
        Ok(())
    }
}

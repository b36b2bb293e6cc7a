//! `orcodec.Fragment`: already-encoded content, copied into the output as
//! it is (the class itself is in `classes/fragment.rs`).

use orcodec_core::emit::Emitter;
use pyo3_ffi::*;

use crate::classes::fragment::Fragment;
use crate::cpython::bytes::bytes_data;
use crate::encode::error::EncodeError;
use crate::encode::walker::Walker;

impl<E: Emitter> Walker<E> {
    /// Already-encoded content, copied as it is.
    #[cold]
    pub(crate) unsafe fn fragment(&mut self, obj: *mut PyObject) -> Result<(), EncodeError> {
        let contents = (*(obj as *mut Fragment)).contents;
        if PyBytes_Check(contents) != 0 {
            self.emitter.raw(bytes_data(contents));
            return Ok(());
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

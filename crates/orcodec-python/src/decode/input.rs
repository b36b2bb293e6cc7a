//! The input of a decode: bytes, bytearray, a contiguous buffer (memoryview
//! and others) or, for JSON, str, borrowed for as long as the decode runs.

use pyo3_ffi::*;

use crate::cpython::bytes::bytes_data;
use crate::module::errors::Raised;

/// Room for the buffer export of an input, kept by the caller so that the
/// [`Input`] borrowing it stays three words, moved in registers: a
/// `Py_buffer` inside it would be copied through the stack at each move.
pub struct ViewSlot(core::mem::MaybeUninit<Py_buffer>);

impl ViewSlot {
    #[inline(always)]
    pub fn new() -> ViewSlot {
        ViewSlot(core::mem::MaybeUninit::uninit())
    }
}

impl Default for ViewSlot {
    fn default() -> ViewSlot {
        ViewSlot::new()
    }
}

/// The input's bytes, borrowed for the duration of one decode.
pub struct Input<'v> {
    data: *const u8,
    pub len: usize,
    /// The export, while the input is a buffer export (memoryview and others).
    view: Option<&'v mut Py_buffer>,
}

impl Input<'_> {
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `data`/`len` describe memory owned by the argument (or its
        // exported buffer), which the caller keeps alive during the decode.
        unsafe { core::slice::from_raw_parts(self.data, self.len) }
    }
}

impl Drop for Input<'_> {
    fn drop(&mut self) {
        if let Some(view) = self.view.take() {
            // SAFETY: obtained from PyObject_GetBuffer and released once.
            unsafe { PyBuffer_Release(view) }
        }
    }
}

/// bytes, bytearray, or a memoryview of a contiguous buffer;
/// `str` only when `allow_str` (JSON text). None with nothing raised means
/// "not a supported type". A buffer export is made in `slot`.
#[inline(always)]
pub unsafe fn borrow_input<'v>(
    obj: *mut PyObject,
    allow_str: bool,
    slot: &'v mut ViewSlot,
) -> Result<Option<Input<'v>>, Raised> {
    if PyBytes_Check(obj) != 0 {
        let data = bytes_data(obj);
        return Ok(Some(Input { data: data.as_ptr(), len: data.len(), view: None }));
    }
    if allow_str && PyUnicode_Check(obj) != 0 {
        let mut len: Py_ssize_t = 0;
        // Input text (not output): the UTF-8 form is what the scanner reads.
        // Fails for lone surrogates, which JSON text cannot hold.
        let data = PyUnicode_AsUTF8AndSize(obj, &mut len) as *const u8;
        if data.is_null() {
            return Err(Raised);
        }
        return Ok(Some(Input { data, len: len as usize, view: None }));
    }
    // A bytearray is borrowed through a buffer export too: while exported it
    // cannot be resized, so a hook run during the decode (ext_hook) cannot
    // free the memory being read.
    if PyByteArray_Check(obj) != 0 || PyMemoryView_Check(obj) != 0 {
        let view = slot.0.write(core::mem::zeroed());
        if PyObject_GetBuffer(obj, view, PyBUF_CONTIG_RO) != 0 {
            return Err(Raised);
        }
        let (data, len) = (view.buf as *const u8, view.len as usize);
        return Ok(Some(Input { data, len, view: Some(view) }));
    }
    Ok(None)
}

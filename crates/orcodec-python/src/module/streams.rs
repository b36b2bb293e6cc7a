//! What the streaming classes (`Unpacker`, `Packer`, the `iter_lines`
//! iterator) share: constructor arguments, and reading from a file-like.

use core::ffi::{c_char, CStr};
use core::ptr::null_mut;
use pyo3_ffi::*;

use crate::module::errors::{raise, repr, Raised};

/// The keyword arguments of a class constructor, `names[i]` for slot `i`:
/// the first `positional` slots may also come by position.
pub unsafe fn constructor_args<const N: usize>(
    class: &str,
    names: [&CStr; N],
    positional: usize,
    args: *mut PyObject,
    kwargs: *mut PyObject,
) -> Result<[*mut PyObject; N], Raised> {
    let mut slots = [null_mut(); N];
    let given = PyTuple_GET_SIZE(args) as usize;
    if given > positional {
        let plural = if positional == 1 { "" } else { "s" };
        return Err(raise(
            PyExc_TypeError,
            &format!("{class}() takes at most {positional} positional argument{plural} ({given} given)"),
        ));
    }
    for (i, slot) in slots.iter_mut().enumerate().take(given) {
        *slot = PyTuple_GET_ITEM(args, i as Py_ssize_t);
    }
    if !kwargs.is_null() {
        let (mut pos, mut key, mut value): (Py_ssize_t, *mut PyObject, *mut PyObject) = (0, null_mut(), null_mut());
        while PyDict_Next(kwargs, &mut pos, &mut key, &mut value) != 0 {
            let found = names.iter().position(|name| {
                PyUnicode_Check(key) != 0 && PyUnicode_CompareWithASCIIString(key, name.as_ptr()) == 0
            });
            let Some(i) = found else {
                let shown = repr(key);
                return Err(raise(PyExc_TypeError, &format!("{class}() got an unexpected keyword argument {shown}")));
            };
            if !slots[i].is_null() {
                let shown = repr(key);
                return Err(raise(PyExc_TypeError, &format!("{class}() got multiple values for argument {shown}")));
            }
            slots[i] = value;
        }
    }
    Ok(slots)
}

/// A size argument: absent or None gives `default`; else a non-negative int.
pub unsafe fn size_arg(obj: *mut PyObject, name: &str, default: usize) -> Result<usize, Raised> {
    if obj.is_null() || obj == Py_None() {
        return Ok(default);
    }
    if PyLong_Check(obj) == 0 {
        return Err(raise(PyExc_TypeError, &format!("{name} must be an int")));
    }
    let value = PyLong_AsSsize_t(obj);
    if value == -1 && !PyErr_Occurred().is_null() {
        return Err(Raised);
    }
    if value < 0 {
        return Err(raise(PyExc_ValueError, &format!("{name} must not be negative")));
    }
    Ok(value as usize)
}

/// `obj.read`, which must be callable, as a new reference.
pub unsafe fn read_method(obj: *mut PyObject, what: &str) -> Result<*mut PyObject, Raised> {
    let read = PyObject_GetAttrString(obj, c"read".as_ptr() as *const c_char);
    if read.is_null() || PyCallable_Check(read) == 0 {
        Py_XDECREF(read);
        PyErr_Clear();
        return Err(raise(PyExc_TypeError, &format!("`{what}.read` must be callable")));
    }
    Ok(read)
}

/// The bytes of what a `read()` returned: a bytes-like object, or a str
/// (a file opened in text mode), as UTF-8. Appended to `buf`; returns how
/// many.
pub unsafe fn append_read(buf: &mut Vec<u8>, data: *mut PyObject) -> Result<usize, Raised> {
    if PyUnicode_Check(data) != 0 {
        let mut len: Py_ssize_t = 0;
        let text = PyUnicode_AsUTF8AndSize(data, &mut len);
        if text.is_null() {
            return Err(Raised);
        }
        try_extend(buf, core::slice::from_raw_parts(text as *const u8, len as usize))?;
        return Ok(len as usize);
    }
    append_buffer(buf, data, "read() must return bytes")
}

/// Drops the consumed bytes of a stream's buffer (`buf[..*head]`) when that
/// is cheap compared with the `incoming` bytes appended next (at most one
/// partial value is moved), and gives back memory a large value left.
pub fn compact(buf: &mut Vec<u8>, head: &mut usize, incoming: usize) {
    if *head == 0 {
        return;
    }
    if *head == buf.len() {
        buf.clear();
        *head = 0;
    } else if *head >= buf.len() / 2 || buf.len() + incoming > buf.capacity() {
        buf.drain(..*head);
        *head = 0;
    }
    let wanted = (buf.len() + incoming).max(64 << 10);
    if buf.capacity() > (1 << 20) && buf.capacity() > 4 * wanted {
        buf.shrink_to(2 * wanted);
    }
}

/// Appends `bytes` to `buf`, or raises MemoryError when the room cannot be
/// had: how much a stream holds is up to its input.
#[allow(clippy::disallowed_methods)] // After `try_reserve`: cannot allocate.
pub fn try_extend(buf: &mut Vec<u8>, bytes: &[u8]) -> Result<(), Raised> {
    if buf.try_reserve(bytes.len()).is_err() {
        // SAFETY: called with the GIL held, as every function of this module.
        unsafe { PyErr_NoMemory() };
        return Err(Raised);
    }
    buf.extend_from_slice(bytes);
    Ok(())
}

/// Appends the bytes of buffer `data` to `buf` (TypeError `message` if it is
/// no contiguous buffer).
pub unsafe fn append_buffer(buf: &mut Vec<u8>, data: *mut PyObject, message: &str) -> Result<usize, Raised> {
    let mut view: Py_buffer = core::mem::zeroed();
    if PyObject_GetBuffer(data, &mut view, PyBUF_SIMPLE) != 0 {
        PyErr_Clear();
        return Err(raise(PyExc_TypeError, message));
    }
    let len = view.len as usize;
    let result = try_extend(buf, core::slice::from_raw_parts(view.buf as *const u8, len));
    PyBuffer_Release(&mut view);
    result.map(|()| len)
}

/// The bytes a streaming reader holds: those before `head` are consumed.
#[derive(Default)]
pub struct StreamBuffer {
    pub bytes: Vec<u8>,
    pub head: usize,
}

impl StreamBuffer {
    /// Bytes held and not consumed.
    pub fn buffered(&self) -> usize {
        self.bytes.len() - self.head
    }

    /// Appends the bytes of buffer `data` (what `feed` takes), or raises
    /// `buffer_full` (appending nothing) when the bytes held would pass
    /// `max`. Returns how far the bytes held moved down (see
    /// [`compact`](Self::compact)) and how many were appended.
    pub unsafe fn append_within(
        &mut self,
        data: *mut PyObject,
        max: usize,
        buffer_full: *mut PyObject,
    ) -> Result<(usize, usize), Raised> {
        let mut view: Py_buffer = core::mem::zeroed();
        if PyObject_GetBuffer(data, &mut view, PyBUF_SIMPLE) != 0 {
            return Err(Raised);
        }
        // SAFETY: the buffer's bytes, valid until it is released below.
        let bytes = core::slice::from_raw_parts(view.buf as *const u8, view.len as usize);
        let result = if self.buffered().saturating_add(bytes.len()) > max {
            // With no arguments, as msgpack.BufferFull() is raised.
            PyErr_SetNone(buffer_full);
            Err(Raised)
        } else {
            let dropped = self.compact(bytes.len());
            try_extend(&mut self.bytes, bytes).map(|()| (dropped, bytes.len()))
        };
        PyBuffer_Release(&mut view);
        result
    }

    /// Drops the consumed bytes when that is cheap compared with what is
    /// appended next (at most one partial value is moved), and gives back
    /// memory a large value left. Returns how far the bytes held moved
    /// down (offsets into `bytes` kept elsewhere shrink by as much).
    pub fn compact(&mut self, incoming: usize) -> usize {
        let dropped = self.head;
        if dropped == 0 {
            return 0;
        }
        if dropped == self.bytes.len() {
            self.bytes.clear();
        } else if dropped >= self.bytes.len() / 2 || self.bytes.len() + incoming > self.bytes.capacity() {
            self.bytes.drain(..dropped);
        } else {
            return 0;
        }
        self.head = 0;
        let wanted = (self.bytes.len() + incoming).max(64 << 10);
        if self.bytes.capacity() > (1 << 20) && self.bytes.capacity() > 4 * wanted {
            self.bytes.shrink_to(2 * wanted);
        }
        dropped
    }
}

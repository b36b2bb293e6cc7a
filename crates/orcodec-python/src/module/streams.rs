//! The module's streaming half, set up at init beside the rest: the
//! exceptions `OutOfData` and `BufferFull`, the classes `Unpacker`,
//! `Packer` and the `iter_lines` iterator, and the keyword names their
//! constructors take. Kept apart from `state.rs` so the per-call state the
//! encoders and decoders read stays small.

use core::cell::UnsafeCell;
use core::ffi::{c_char, CStr};
use core::ptr::null_mut;
use pyo3_ffi::*;

use crate::classes::{lines, packer, unpacker};
use crate::module::docs;
use crate::module::errors::{raise, repr, Raised};

pub struct Streams {
    pub out_of_data: *mut PyObject,
    pub buffer_full: *mut PyObject,
    pub unpacker_type: *mut PyTypeObject,
    pub packer_type: *mut PyTypeObject,
    pub line_iterator_type: *mut PyTypeObject,
}

struct Cell(UnsafeCell<Streams>);

// SAFETY: the GIL contract (crate root); written once during module init
// and only read afterwards.
unsafe impl Sync for Cell {}

static STREAMS: Cell = Cell(UnsafeCell::new(Streams {
    out_of_data: null_mut(),
    buffer_full: null_mut(),
    unpacker_type: null_mut(),
    packer_type: null_mut(),
    line_iterator_type: null_mut(),
}));

/// The streaming state. Valid after `init` succeeded.
#[inline(always)]
pub fn streams() -> &'static Streams {
    // SAFETY: see `Cell`: no writes after init.
    unsafe { &*STREAMS.0.get() }
}

/// Creates the exceptions and classes and adds the public ones to `module`;
/// None with an exception set on failure.
///
/// # Safety
/// Called once, from module init.
pub unsafe fn init(module: *mut PyObject) -> Option<()> {
    let exception =
        |name: &CStr, doc: &CStr| PyErr_NewExceptionWithDoc(name.as_ptr(), doc.as_ptr(), PyExc_Exception, null_mut());
    let s = Streams {
        out_of_data: exception(c"orcodec.OutOfData", docs::OUT_OF_DATA),
        buffer_full: exception(c"orcodec.BufferFull", docs::BUFFER_FULL),
        unpacker_type: unpacker::new_unpacker_type(),
        packer_type: packer::new_packer_type(),
        line_iterator_type: lines::new_line_iterator_type(),
    };
    let all = [
        (Some(c"OutOfData"), s.out_of_data),
        (Some(c"BufferFull"), s.buffer_full),
        (Some(c"Unpacker"), s.unpacker_type as *mut PyObject),
        (Some(c"Packer"), s.packer_type as *mut PyObject),
        (None, s.line_iterator_type as *mut PyObject),
    ];
    if all.iter().any(|(_, p)| p.is_null()) {
        return None;
    }
    for (name, obj) in all {
        if let Some(name) = name {
            // The state keeps its reference; the module gets its own.
            if !crate::module::compat::add_object_ref(module, name, obj) {
                return None;
            }
        }
    }
    *STREAMS.0.get() = s;
    Some(())
}

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

/// A keyword name interned on first use and kept for the life of the
/// process (the streaming functions' own; `state.rs` has the others).
pub struct Interned(UnsafeCell<*mut PyObject>);

// SAFETY: the GIL contract (crate root): read and written under the GIL,
// with no Python code run in between.
unsafe impl Sync for Interned {}

impl Interned {
    pub const fn new() -> Self {
        Interned(UnsafeCell::new(null_mut()))
    }

    /// The interned `name` (NULL with an exception set if it cannot be made).
    pub fn get(&self, name: &CStr) -> *mut PyObject {
        // SAFETY: see `Interned`.
        unsafe {
            let slot = self.0.get();
            if (*slot).is_null() {
                *slot = crate::module::args::intern(name);
            }
            *slot
        }
    }
}

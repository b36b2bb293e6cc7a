//! The iterator `iter_lines(fp)` returns: reads `fp` in `read_size`
//! chunks and decodes one JSON Lines document per line as it goes, so a
//! file larger than memory is read with a buffer of one chunk plus the
//! longest line. Lines as in `decode/lines.rs`.

use core::cell::Cell;
use core::ffi::{c_int, c_void};
use core::ptr::null_mut;
use orcodec_core::json::lines::{find_newline, is_blank, strip_cr};
use orcodec_core::json::scanner::ScanStacks;
use pyo3_ffi::*;

use crate::cpython::object::Owned;
use crate::decode::lines::{decode_line, typed_args, Typed};
use crate::module::args::Call;
use crate::module::docs;
use crate::module::errors::{raise, Raised};
use crate::module::streams::{append_read, read_method, size_arg};
use crate::state::State;

/// Bytes read at a time unless `read_size` says otherwise.
const DEFAULT_READ_SIZE: usize = 1 << 20;

#[repr(C)]
pub struct LineIterator {
    ob_base: PyObject,
    /// The state of the module whose `iter_lines` made it.
    st: *const State,
    /// The file's bound `read`; NULL once cleared.
    read: *mut PyObject,
    /// The typed decoding's `dec_hook` (NULL for none), held for `typed`.
    dec_hook: *mut PyObject,
    /// Set while a step runs (`read()` is Python code that could call it).
    busy: Cell<bool>,
    inner: Inner,
}

struct Inner {
    buf: Vec<u8>,
    /// Start of the first line not decoded yet.
    head: usize,
    /// Where the search for its end goes on (no `\n` before it).
    searched: usize,
    /// Lines so far.
    line: u64,
    read_size: usize,
    /// `read()` returned nothing: the last line needs no newline.
    at_end: bool,
    typed: Typed,
    stacks: ScanStacks<Owned>,
}

/// The next document, or None at the end of the file.
unsafe fn next_document(it: *mut LineIterator, inner: &mut Inner) -> Result<Option<Owned>, Raised> {
    loop {
        let end = match find_newline(&inner.buf, inner.searched) {
            Some(newline) => newline,
            None if inner.at_end && inner.head < inner.buf.len() => inner.buf.len(),
            None if inner.at_end => return Ok(None),
            None => {
                inner.searched = inner.buf.len();
                fill(it, inner)?;
                continue;
            }
        };
        let start = inner.head;
        inner.head = (end + 1).min(inner.buf.len());
        inner.searched = inner.head;
        inner.line += 1;
        let line = strip_cr(&inner.buf[start..end]);
        if is_blank(line) {
            continue;
        }
        return decode_line(&*(*it).st, line, inner.line, &mut inner.stacks, &inner.typed).map(Some);
    }
}

/// Reads the next chunk (after dropping the lines already decoded).
unsafe fn fill(it: *mut LineIterator, inner: &mut Inner) -> Result<(), Raised> {
    if (*it).read.is_null() {
        inner.at_end = true;
        return Ok(());
    }
    if inner.head > 0 {
        inner.buf.drain(..inner.head);
        inner.searched -= inner.head;
        inner.head = 0;
    }
    let size = PyLong_FromSize_t(inner.read_size);
    if size.is_null() {
        return Err(Raised);
    }
    let data = PyObject_CallOneArg((*it).read, size);
    Py_DECREF(size);
    if data.is_null() {
        return Err(Raised);
    }
    let got = append_read(&mut inner.buf, data);
    Py_DECREF(data);
    if got? == 0 {
        inner.at_end = true;
    }
    Ok(())
}

unsafe extern "C" fn line_iterator_next(obj: *mut PyObject) -> *mut PyObject {
    let it = obj as *mut LineIterator;
    if (*it).busy.get() {
        raise(PyExc_RuntimeError, "the iter_lines iterator is already in use (called again from read())");
        return null_mut();
    }
    (*it).busy.set(true);
    let result = next_document(it, &mut (*it).inner);
    (*it).busy.set(false);
    match result {
        Ok(Some(value)) => value.into_raw(),
        // No exception: the iteration stops.
        Ok(None) | Err(Raised) => null_mut(),
    }
}

unsafe extern "C" fn line_iterator_iter(obj: *mut PyObject) -> *mut PyObject {
    Py_INCREF(obj);
    obj
}

unsafe extern "C" fn line_iterator_traverse(obj: *mut PyObject, visit: visitproc, arg: *mut c_void) -> c_int {
    let it = &*(obj as *mut LineIterator);
    crate::classes::traverse(obj, [it.read, it.dec_hook], visit, arg)
}

unsafe extern "C" fn line_iterator_clear(obj: *mut PyObject) -> c_int {
    let it = &mut *(obj as *mut LineIterator);
    crate::classes::clear([&mut it.read, &mut it.dec_hook]);
    0
}

unsafe extern "C" fn line_iterator_dealloc(obj: *mut PyObject) {
    PyObject_GC_UnTrack(obj as *mut c_void);
    line_iterator_clear(obj);
    core::ptr::drop_in_place(&mut (*(obj as *mut LineIterator)).inner);
    crate::classes::free_instance(obj);
}

/// Creates the iterator type (called once, at module init).
pub unsafe fn new_line_iterator_type(module: *mut PyObject) -> *mut PyTypeObject {
    let mut slots = [
        crate::classes::slot(Py_tp_dealloc, line_iterator_dealloc as *mut c_void),
        crate::classes::slot(Py_tp_traverse, line_iterator_traverse as *mut c_void),
        crate::classes::slot(Py_tp_clear, line_iterator_clear as *mut c_void),
        crate::classes::slot(Py_tp_iter, line_iterator_iter as *mut c_void),
        crate::classes::slot(Py_tp_iternext, line_iterator_next as *mut c_void),
        crate::classes::slot(Py_tp_doc, docs::LINE_ITERATOR.as_ptr() as *mut c_void),
        crate::classes::slot(0, null_mut()),
    ];
    crate::classes::new_gc_type(
        module,
        c"orcodec.LineIterator",
        core::mem::size_of::<LineIterator>(),
        false,
        &mut slots,
    )
}

/// `iter_lines(fp, *, read_size=1048576)`.
pub unsafe extern "C" fn iter_lines(
    module: *mut PyObject,
    args: *const *mut PyObject,
    nargs: Py_ssize_t,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    let call = Call { args, nargs: nargs as usize, kwnames };
    let s = State::of_module(module);
    let names = [null_mut(), s.kw_read_size, s.kw_type, s.kw_strict, s.kw_dec_hook];
    let Ok([fp, read_size, tp, strict, dec_hook]) = call.parse("iter_lines", names, 1) else {
        return null_mut();
    };
    let Ok(typed) = typed_args(s, tp, strict, dec_hook) else {
        return null_mut();
    };
    let Ok(read_size) = size_arg(read_size, "read_size", DEFAULT_READ_SIZE) else {
        return null_mut();
    };
    if read_size == 0 {
        raise(PyExc_ValueError, "read_size must be positive");
        return null_mut();
    }
    let Ok(read) = read_method(fp, "fp") else {
        return null_mut();
    };
    let ty = s.line_iterator_type;
    let it = PyType_GenericAlloc(ty, 0) as *mut LineIterator;
    if it.is_null() {
        Py_DECREF(read);
        return null_mut();
    }
    let dec_hook = typed.as_ref().map_or(null_mut(), |(_, o)| o.dec_hook);
    Py_XINCREF(dec_hook);
    (*it).st = s;
    (*it).read = read;
    (*it).dec_hook = dec_hook;
    core::ptr::write(&mut (*it).busy, Cell::new(false));
    core::ptr::write(
        &mut (*it).inner,
        Inner {
            buf: Vec::new(),
            head: 0,
            searched: 0,
            line: 0,
            read_size,
            at_end: false,
            typed,
            stacks: ScanStacks::new(),
        },
    );
    it as *mut PyObject
}

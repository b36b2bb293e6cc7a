//! Argument parsing for the vectorcall (METH_FASTCALL | METH_KEYWORDS) entry
//! points: keyword names are matched by pointer first (call sites pass
//! interned strings), by value otherwise.

use core::ffi::c_char;
use pyo3_ffi::*;

use crate::module::errors::{raise, repr, Raised};
use crate::module::options::{self, Opt};

/// Positional arguments followed by keyword values, as CPython passes them.
pub struct Call {
    pub args: *const *mut PyObject,
    pub nargs: usize,
    pub kwnames: *mut PyObject,
}

unsafe fn type_error(message: &str) -> Raised {
    raise(PyExc_TypeError, message)
}

unsafe fn same_name(a: *mut PyObject, b: *mut PyObject) -> bool {
    a == b || PyUnicode_Compare(a, b) == 0
}

impl Call {
    /// Fills `slots` from positional and keyword arguments. `names[i]` is the
    /// interned name of slot `i`. The first `positional` slots may be given by
    /// position; every slot but the first may be given by keyword. Slot 0 (the
    /// object) is required and positional-only.
    pub unsafe fn parse<const N: usize>(
        &self,
        function: &str,
        names: [*mut PyObject; N],
        positional: usize,
    ) -> Result<[*mut PyObject; N], Raised> {
        let mut slots = [core::ptr::null_mut(); N];
        if self.nargs > positional {
            return Err(type_error(&format!(
                "{function}() takes at most {positional} positional argument{} ({} given)",
                if positional == 1 { "" } else { "s" },
                self.nargs
            )));
        }
        for (i, slot) in slots.iter_mut().enumerate().take(self.nargs) {
            *slot = *self.args.add(i);
        }
        if !self.kwnames.is_null() {
            let nkw = PyTuple_GET_SIZE(self.kwnames) as usize;
            for k in 0..nkw {
                let name = PyTuple_GET_ITEM(self.kwnames, k as Py_ssize_t);
                let value = *self.args.add(self.nargs + k);
                let Some(i) = (1..N).find(|&i| same_name(name, names[i])) else {
                    let shown = repr(name);
                    return Err(type_error(&format!("{function}() got an unexpected keyword argument {shown}")));
                };
                if !slots[i].is_null() {
                    let shown = repr(name);
                    return Err(type_error(&format!("{function}() got multiple values for argument {shown}")));
                }
                slots[i] = value;
            }
        }
        if slots[0].is_null() {
            return Err(type_error(&format!("{function}() missing required positional argument: 'obj'")));
        }
        Ok(slots)
    }
}

/// `None` (or absent) for a `default`/`ext_hook`-style argument becomes NULL.
#[inline(always)]
pub unsafe fn none_to_null(obj: *mut PyObject) -> *mut PyObject {
    if obj == Py_None() {
        core::ptr::null_mut()
    } else {
        obj
    }
}

/// The `option` argument: absent, None, or an int made of known flags.
#[inline(always)]
pub unsafe fn parse_opts(option: *mut PyObject, error: *mut PyObject) -> Result<Opt, Raised> {
    if option.is_null() || option == Py_None() {
        return Ok(0);
    }
    if PyLong_Check(option) != 0 {
        let mut overflow = 0;
        let value = PyLong_AsLongLongAndOverflow(option, &mut overflow);
        if overflow == 0 && value >= 0 && value & !(options::MASK as i64) == 0 {
            return Ok(value as Opt);
        }
        PyErr_Clear();
    }
    Err(raise(error, "Invalid opts"))
}

/// The `numpy_ext_code` argument: absent or None for the default, else an
/// int from 0 to 127 (the application range of extension types).
pub unsafe fn parse_numpy_ext_code(code: *mut PyObject, error: *mut PyObject) -> Result<i8, Raised> {
    if code.is_null() || code == Py_None() {
        return Ok(orcodec_core::msgpack::numpy::DEFAULT_CODE);
    }
    if PyLong_Check(code) != 0 && PyBool_Check(code) == 0 {
        let mut overflow = 0;
        let value = PyLong_AsLongLongAndOverflow(code, &mut overflow);
        if overflow == 0 && (0..=127).contains(&value) {
            return Ok(value as i8);
        }
        PyErr_Clear();
    }
    Err(raise(error, "numpy_ext_code must be an int from 0 to 127"))
}

/// An interned str, for keyword matching; NULL on failure.
pub fn intern(name: &core::ffi::CStr) -> *mut PyObject {
    // SAFETY: `name` is NUL-terminated.
    unsafe { PyUnicode_InternFromString(name.as_ptr() as *const c_char) }
}

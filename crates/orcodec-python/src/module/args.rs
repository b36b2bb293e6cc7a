//! Argument parsing for the vectorcall (METH_FASTCALL | METH_KEYWORDS) entry
//! points: keyword names are matched by pointer first (call sites pass
//! interned strings), by value otherwise.

use core::ffi::c_char;
use pyo3_ffi::*;

use crate::module::errors::{raise, repr, Raised};
use crate::module::options::Opt;

/// Positional arguments followed by keyword values, as CPython passes them.
pub struct Call {
    pub args: *const *mut PyObject,
    pub nargs: usize,
    pub kwnames: *mut PyObject,
}

/// How a function words its argument errors, and what it raises for them:
/// each entry point follows its peer (orjson for `dumps` and `loads`,
/// ormsgpack for `packb` and `unpackb`), whose messages use CPython's forms
/// with a few departures.
pub struct ArgErrors {
    /// The exception type; NULL for TypeError.
    pub kind: *mut PyObject,
    /// orjson's forms: "got multiple values for argument: 'x'", an unexpected
    /// keyword unnamed (the name goes in a note), `obj` given by keyword
    /// counted as missing.
    pub orjson: bool,
    /// `loads`: "takes exactly one argument (N given)" when the positional
    /// count is wrong, as orjson's one-argument `loads` says.
    pub exactly_one: bool,
}

/// CPython's forms and TypeError, as ormsgpack's `packb` and `unpackb`.
pub const CPYTHON_ARG_ERRORS: ArgErrors = ArgErrors { kind: core::ptr::null_mut(), orjson: false, exactly_one: false };

unsafe fn same_name(a: *mut PyObject, b: *mut PyObject) -> bool {
    a == b || PyUnicode_Compare(a, b) == 0
}

impl ArgErrors {
    #[cold]
    unsafe fn raise(&self, message: &str) -> Raised {
        raise(if self.kind.is_null() { PyExc_TypeError } else { self.kind }, message)
    }

    #[cold]
    unsafe fn positional_count(&self, function: &str, positional: usize, given: usize) -> Raised {
        if self.exactly_one {
            // CPython's words for orjson's one-argument function, which name
            // its module.
            return self.raise(&format!("orcodec.{function}() takes exactly one argument ({given} given)"));
        }
        let takes = if positional == 1 { "1".to_string() } else { format!("from 1 to {positional}") };
        self.raise(&format!("{function}() takes {takes} positional arguments but {given} were given"))
    }
}

impl Call {
    /// Fills `slots` from positional and keyword arguments. `names[i]` is the
    /// interned name of slot `i`. The first `positional` slots may be given by
    /// position; every slot but the first may be given by keyword. Slot 0 (the
    /// object) is required and positional-only. Errors are TypeErrors in
    /// CPython's words.
    #[inline(always)]
    pub unsafe fn parse<const N: usize>(
        &self,
        function: &str,
        names: [*mut PyObject; N],
        positional: usize,
    ) -> Result<[*mut PyObject; N], Raised> {
        self.parse_with(function, names, positional, &CPYTHON_ARG_ERRORS)
    }

    /// `parse`, raising argument errors as `errors` says. Inlined: out of
    /// line, the slots array goes back through memory, stored a word at a
    /// time and read back in wider loads the stores cannot forward to.
    #[inline(always)]
    pub unsafe fn parse_with<const N: usize>(
        &self,
        function: &str,
        names: [*mut PyObject; N],
        positional: usize,
        errors: &ArgErrors,
    ) -> Result<[*mut PyObject; N], Raised> {
        let mut slots = [core::ptr::null_mut(); N];
        if self.nargs > positional || (errors.exactly_one && self.nargs == 0) {
            return Err(errors.positional_count(function, positional, self.nargs));
        }
        // A test per slot rather than a copy of `nargs` items, which becomes
        // a call to memcpy.
        for (i, slot) in slots.iter_mut().enumerate() {
            if i < self.nargs {
                *slot = *self.args.add(i);
            }
        }
        if !self.kwnames.is_null() {
            self.keywords(function, &names, &mut slots, errors)?;
        }
        if slots[0].is_null() {
            return Err(missing_obj(function, errors));
        }
        Ok(slots)
    }

    /// The keyword arguments into `slots`.
    #[inline(never)]
    unsafe fn keywords<const N: usize>(
        &self,
        function: &str,
        names: &[*mut PyObject; N],
        slots: &mut [*mut PyObject; N],
        errors: &ArgErrors,
    ) -> Result<(), Raised> {
        let nkw = PyTuple_GET_SIZE(self.kwnames) as usize;
        for k in 0..nkw {
            let name = PyTuple_GET_ITEM(self.kwnames, k as Py_ssize_t);
            let value = *self.args.add(self.nargs + k);
            let Some(i) = (1..N).find(|&i| same_name(name, names[i])) else {
                return Err(unexpected_keyword(function, name, self.nargs, errors));
            };
            if !slots[i].is_null() {
                let shown = repr(name);
                let colon = if errors.orjson { ":" } else { "" };
                return Err(errors.raise(&format!("{function}() got multiple values for argument{colon} {shown}")));
            }
            slots[i] = value;
        }
        Ok(())
    }
}

/// The object to work on was not given.
#[cold]
#[inline(never)]
unsafe fn missing_obj(function: &str, errors: &ArgErrors) -> Raised {
    errors.raise(&format!("{function}() missing 1 required positional argument: 'obj'"))
}

/// A keyword argument `name` that `function` does not take.
#[cold]
unsafe fn unexpected_keyword(function: &str, name: *mut PyObject, nargs: usize, errors: &ArgErrors) -> Raised {
    let shown = repr(name);
    let is_obj = PyUnicode_CompareWithASCIIString(name, c"obj".as_ptr()) == 0;
    if errors.orjson {
        if is_obj && nargs == 0 {
            return errors.raise(&format!("{function}() missing 1 required positional argument: 'obj'"));
        }
        let raised = errors.raise(&format!("{function}() got an unexpected keyword argument"));
        crate::module::errors::add_note_to_current(&format!("the unexpected keyword argument is {shown}"));
        return raised;
    }
    if is_obj {
        return errors
            .raise(&format!("{function}() got some positional-only arguments passed as keyword arguments: 'obj'"));
    }
    errors.raise(&format!("{function}() got an unexpected keyword argument {shown}"))
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

/// The `option` argument: absent, None, or an int (exactly: not a bool, as
/// with both peers) made of the flags in `mask`; anything else raises
/// `error("Invalid opts")`.
#[inline(always)]
pub unsafe fn parse_opts(option: *mut PyObject, error: *mut PyObject, mask: Opt) -> Result<Opt, Raised> {
    if option.is_null() || option == Py_None() {
        return Ok(0);
    }
    if PyLong_CheckExact(option) != 0 {
        let mut overflow = 0;
        let value = PyLong_AsLongLongAndOverflow(option, &mut overflow);
        if overflow == 0 && value >= 0 && value & !(mask as i64) == 0 {
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

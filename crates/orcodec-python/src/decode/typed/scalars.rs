//! None, bool, int, float, str, bytes, enums and Literals.
//!
//! With `strict=False` these lax conversions are made (msgspec's):
//! - str to int or float: text spelled as a JSON number (`"12"`, `"-1.5"`,
//!   `"1e3"`), and for floats also `"nan"`, `"inf"`, `"-inf"` (any case);
//!   an integral number in a str is taken for an int (`"1e3"` is 1000);
//! - float to int: an integral float (`1.0`);
//! - str to bool: `"true"`, `"false"` (any case), `"1"`, `"0"`; int to
//!   bool: `1` and `0`;
//! - str to None: `"null"`;
//! - str to an int enum or Literal: its text as an int;
//! - numbers and numeric str to datetime: seconds since the Unix epoch (UTC),
//!   see `stdtypes.rs`.
//!
//! An int is always accepted for a float.

use core::ffi::c_char;
use pyo3_ffi::*;

use orcodec_core::builder::Builder;

use crate::cpython::object::Owned;
use crate::decode::typed::error::{invalid, str_of, Fail};
use crate::decode::typed::input::{Head, Input, Value};
use crate::decode::typed::node::*;
use crate::decode::typed::path::Path;
use crate::decode::typed::{keep, type_error, Ctx};

/// The UTF-8 text of a Python str (borrowed from it), or None.
pub unsafe fn py_text<'a>(obj: *mut PyObject) -> Option<&'a str> {
    if PyUnicode_Check(obj) == 0 {
        return None;
    }
    let mut len: Py_ssize_t = 0;
    let data = PyUnicode_AsUTF8AndSize(obj, &mut len);
    if data.is_null() {
        PyErr_Clear();
        return None;
    }
    Some(core::str::from_utf8_unchecked(core::slice::from_raw_parts(data as *const u8, len as usize)))
}

/// The text of a str value, from a stream or a Python str.
#[inline(always)]
pub fn text_of<'a>(v: &Value<'a>) -> Option<&'a str> {
    match *v {
        Value::Str(s) => Some(s),
        // SAFETY: a live object.
        Value::Py(obj) => unsafe { py_text(obj) },
        _ => None,
    }
}

/// `repr(obj)` as a Rust string, for messages.
pub unsafe fn repr_of(obj: *mut PyObject) -> String {
    crate::module::errors::repr(obj)
}

unsafe fn new_str(text: &str) -> *mut PyObject {
    PyUnicode_FromStringAndSize(text.as_ptr() as *const c_char, text.len() as Py_ssize_t)
}

/// A number read from lax text.
pub enum LaxNumber {
    Int(i64),
    UInt(u64),
    /// An integer beyond 64 bits, as text.
    Big,
    Float(f64),
}

/// `text` as a number, if it is spelled as JSON spells one (floats also
/// `nan`/`inf`/`-inf` when `special`).
pub fn lax_number(text: &str, special: bool) -> Option<LaxNumber> {
    match orcodec_core::parse::json_number_form(text.as_bytes()) {
        Some(true) => Some(match text.parse::<i64>() {
            Ok(v) => LaxNumber::Int(v),
            Err(_) => match text.parse::<u64>() {
                Ok(v) => LaxNumber::UInt(v),
                Err(_) => LaxNumber::Big,
            },
        }),
        Some(false) => text.parse::<f64>().ok().map(LaxNumber::Float),
        None if special => {
            let lower = text.to_ascii_lowercase();
            match lower.as_str() {
                "nan" | "-nan" | "+nan" => Some(LaxNumber::Float(f64::NAN)),
                "inf" | "+inf" | "infinity" | "+infinity" => Some(LaxNumber::Float(f64::INFINITY)),
                "-inf" | "-infinity" => Some(LaxNumber::Float(f64::NEG_INFINITY)),
                _ => None,
            }
        }
        None => None,
    }
}

#[inline(always)]
fn none_obj() -> Result<Owned, Fail> {
    // SAFETY: None is alive; a new reference.
    unsafe { keep(Py_None()) }
}

pub fn none<I: Input>(ctx: &mut Ctx, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    match h.v {
        Value::Null => none_obj(),
        // SAFETY: comparing pointers.
        Value::Py(obj) if obj == unsafe { Py_None() } => none_obj(),
        _ if !ctx.strict && text_of(&h.v) == Some("null") => none_obj(),
        _ => Err(type_error::<I>(ctx, id, &h, path)),
    }
}

#[inline(always)]
fn bool_obj(value: bool) -> Result<Owned, Fail> {
    // SAFETY: True and False are alive; a new reference.
    unsafe { keep(if value { Py_True() } else { Py_False() }) }
}

pub fn boolean<I: Input>(ctx: &mut Ctx, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let lax = !ctx.strict;
    match h.v {
        Value::Bool(b) => bool_obj(b),
        // SAFETY: a live object.
        Value::Py(obj) if unsafe { PyBool_Check(obj) } != 0 => unsafe { keep(obj) },
        Value::I64(v @ (0 | 1)) if lax => bool_obj(v == 1),
        Value::U64(v @ (0 | 1)) if lax => bool_obj(v == 1),
        _ if lax => {
            if let Value::Py(obj) = h.v {
                // SAFETY: a live object; an overflow error is cleared.
                let v = unsafe {
                    if PyLong_CheckExact(obj) == 0 {
                        -1
                    } else {
                        let v = PyLong_AsLongLong(obj);
                        PyErr_Clear();
                        v
                    }
                };
                if v == 0 || v == 1 {
                    return bool_obj(v == 1);
                }
            }
            match text_of(&h.v) {
                Some(t) if t.eq_ignore_ascii_case("true") || t == "1" => bool_obj(true),
                Some(t) if t.eq_ignore_ascii_case("false") || t == "0" => bool_obj(false),
                _ => Err(type_error::<I>(ctx, id, &h, path)),
            }
        }
        _ => Err(type_error::<I>(ctx, id, &h, path)),
    }
}

/// An int's value for the constraint checks: exact, or beyond 64 bits
/// with its sign.
#[derive(Clone, Copy)]
enum IntValue {
    I(i128),
    /// Beyond 64 bits: positive or not.
    Big(bool),
}

#[cold]
fn int_constraint_error(n: &IntNode, value: &str, v: IntValue, path: &Path, at: usize) -> Option<Fail> {
    let (below, above) = match v {
        IntValue::I(x) => (n.ge.is_some_and(|ge| x < ge as i128), n.le.is_some_and(|le| x > le as i128)),
        IntValue::Big(positive) => (n.ge.is_some() && !positive, n.le.is_some() && positive),
    };
    if below {
        return Some(invalid(&format!("Expected `int` >= {}, got `{value}`", n.ge.unwrap_or(0)), path, at));
    }
    if above {
        return Some(invalid(&format!("Expected `int` <= {}, got `{value}`", n.le.unwrap_or(0)), path, at));
    }
    if let (Some(m), IntValue::I(x)) = (n.multiple_of, v) {
        if x % m as i128 != 0 {
            return Some(invalid(&format!("Expected `int` that's a multiple of {m}, got `{value}`"), path, at));
        }
    }
    None
}

#[inline(always)]
fn check_int(n: &IntNode, x: i128, path: &Path, at: usize) -> Result<(), Fail> {
    if n.unconstrained() {
        return Ok(());
    }
    let ok = n.ge.is_none_or(|ge| x >= ge as i128)
        && n.le.is_none_or(|le| x <= le as i128)
        && n.multiple_of.is_none_or(|m| x % m as i128 == 0);
    if ok {
        return Ok(());
    }
    #[expect(clippy::expect_used, reason = "called only when one of the constraints it checks failed")]
    Err(int_constraint_error(n, &x.to_string(), IntValue::I(x), path, at).expect("a constraint failed"))
}

#[inline(always)]
fn new_i64(v: i64) -> Result<Owned, Fail> {
    // SAFETY: a new reference or NULL.
    unsafe { Ok(Owned::new(PyLong_FromLongLong(v))?) }
}

#[inline(always)]
fn new_u64(v: u64) -> Result<Owned, Fail> {
    // SAFETY: a new reference or NULL.
    unsafe { Ok(Owned::new(PyLong_FromUnsignedLongLong(v))?) }
}

/// An int from decimal text (beyond 64 bits).
fn big_int(text: &str) -> Result<Owned, Fail> {
    // The text is input (any length): copied fallibly.
    let mut owned =
        orcodec_core::fallible::copy(text.as_bytes()).map_err(|_| crate::decode::typed::error::no_memory())?;
    orcodec_core::fallible::push(&mut owned, 0).map_err(|_| crate::decode::typed::error::no_memory())?;
    // SAFETY: a NUL-terminated string of digits; a new reference or NULL.
    unsafe { Ok(Owned::new(PyLong_FromString(owned.as_ptr() as *const c_char, core::ptr::null_mut(), 10))?) }
}

/// A Python int object checked against the constraints (beyond 64 bits too).
unsafe fn check_int_obj(n: &IntNode, obj: *mut PyObject, path: &Path, at: usize) -> Result<(), Fail> {
    if n.unconstrained() {
        return Ok(());
    }
    let mut overflow = 0;
    let x = PyLong_AsLongLongAndOverflow(obj, &mut overflow);
    if x == -1 && !PyErr_Occurred().is_null() {
        return Err(Fail::Raised);
    }
    if overflow == 0 {
        return check_int(n, x as i128, path, at);
    }
    let v = IntValue::Big(overflow > 0);
    match int_constraint_error(n, &str_of(obj), v, path, at) {
        Some(e) => Err(e),
        None => match n.multiple_of {
            Some(m) => {
                let m_obj = Owned::new(PyLong_FromUnsignedLongLong(m))?;
                let rem = Owned::new(PyNumber_Remainder(obj, m_obj.as_ptr()))?;
                if PyObject_IsTrue(rem.as_ptr()) != 0 {
                    let message = format!("Expected `int` that's a multiple of {m}, got `{}`", str_of(obj));
                    return Err(invalid(&message, path, at));
                }
                Ok(())
            }
            None => Ok(()),
        },
    }
}

pub fn int<I: Input>(ctx: &mut Ctx, n: &IntNode, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    match h.v {
        Value::I64(v) => {
            check_int(n, v as i128, path, h.at)?;
            new_i64(v)
        }
        Value::U64(v) => {
            check_int(n, v as i128, path, h.at)?;
            new_u64(v)
        }
        Value::BigInt(text) => {
            let obj = big_int(text)?;
            // SAFETY: a live int.
            unsafe { check_int_obj(n, obj.as_ptr(), path, h.at)? };
            Ok(obj)
        }
        Value::F64(f) if !ctx.strict && f.is_finite() && f.fract() == 0.0 => float_to_int(n, f, path, h.at),
        Value::Str(s) if !ctx.strict => lax_int::<I>(ctx, n, id, s, h, path),
        // SAFETY: a live object.
        Value::Py(obj) => unsafe { py_int::<I>(ctx, n, id, obj, h, path) },
        _ => Err(type_error::<I>(ctx, id, &h, path)),
    }
}

fn float_to_int(n: &IntNode, f: f64, path: &Path, at: usize) -> Result<Owned, Fail> {
    if f.abs() < 9.2e18 {
        let v = f as i64;
        check_int(n, v as i128, path, at)?;
        return new_i64(v);
    }
    // SAFETY: a new reference or NULL.
    let obj = unsafe { Owned::new(PyLong_FromDouble(f))? };
    // SAFETY: a live int.
    unsafe { check_int_obj(n, obj.as_ptr(), path, at)? };
    Ok(obj)
}

fn lax_int<I: Input>(ctx: &Ctx, n: &IntNode, id: NodeId, s: &str, h: Head, path: &Path) -> Result<Owned, Fail> {
    match lax_number(s, false) {
        Some(LaxNumber::Int(v)) => {
            check_int(n, v as i128, path, h.at)?;
            new_i64(v)
        }
        Some(LaxNumber::UInt(v)) => {
            check_int(n, v as i128, path, h.at)?;
            new_u64(v)
        }
        Some(LaxNumber::Big) => {
            let obj = big_int(s)?;
            // SAFETY: a live int.
            unsafe { check_int_obj(n, obj.as_ptr(), path, h.at)? };
            Ok(obj)
        }
        Some(LaxNumber::Float(f)) if f.is_finite() && f.fract() == 0.0 => float_to_int(n, f, path, h.at),
        _ => Err(type_error::<I>(ctx, id, &h, path)),
    }
}

unsafe fn py_int<I: Input>(
    ctx: &Ctx,
    n: &IntNode,
    id: NodeId,
    obj: *mut PyObject,
    h: Head,
    path: &Path,
) -> Result<Owned, Fail> {
    if PyLong_CheckExact(obj) != 0 {
        check_int_obj(n, obj, path, h.at)?;
        return keep(obj);
    }
    if PyLong_Check(obj) != 0 && PyBool_Check(obj) == 0 {
        // An int subclass (an IntEnum member): a plain int of its value.
        let value = Owned::new(PyNumber_Index(obj))?;
        let plain = Owned::new(PyNumber_Long(value.as_ptr()))?;
        check_int_obj(n, plain.as_ptr(), path, h.at)?;
        return Ok(plain);
    }
    if !ctx.strict {
        if PyFloat_Check(obj) != 0 {
            let f = PyFloat_AS_DOUBLE(obj);
            if f.is_finite() && f.fract() == 0.0 {
                return float_to_int(n, f, path, h.at);
            }
        } else if let Some(s) = py_text(obj) {
            return lax_int::<I>(ctx, n, id, s, h, path);
        }
    }
    Err(type_error::<I>(ctx, id, &h, path))
}

/// Python's repr of a float, for messages.
fn float_repr(f: f64) -> String {
    // SAFETY: a new float, released after its repr is taken.
    unsafe {
        let obj = PyFloat_FromDouble(f);
        if obj.is_null() {
            PyErr_Clear();
            return f.to_string();
        }
        let text = repr_of(obj);
        Py_DECREF(obj);
        text
    }
}

#[cold]
fn float_constraint_error(n: &FloatNode, f: f64, path: &Path, at: usize) -> Fail {
    let got = float_repr(f);
    let message = if let Some(b) = n.ge.filter(|&b| f < b || f.is_nan()) {
        format!("Expected `float` >= {}, got `{got}`", float_repr(b))
    } else if let Some(b) = n.gt.filter(|&b| f <= b || f.is_nan()) {
        format!("Expected `float` > {}, got `{got}`", float_repr(b))
    } else if let Some(b) = n.le.filter(|&b| f > b || f.is_nan()) {
        format!("Expected `float` <= {}, got `{got}`", float_repr(b))
    } else if let Some(b) = n.lt.filter(|&b| f >= b || f.is_nan()) {
        format!("Expected `float` < {}, got `{got}`", float_repr(b))
    } else {
        format!("Expected `float` that's a multiple of {}, got `{got}`", float_repr(n.multiple_of.unwrap_or(0.0)))
    };
    invalid(&message, path, at)
}

#[inline(always)]
fn check_float(n: &FloatNode, f: f64, path: &Path, at: usize) -> Result<(), Fail> {
    let ok = n.ge.is_none_or(|b| f >= b)
        && n.gt.is_none_or(|b| f > b)
        && n.le.is_none_or(|b| f <= b)
        && n.lt.is_none_or(|b| f < b)
        && n.multiple_of.is_none_or(|m| (f % m) == 0.0);
    if ok {
        Ok(())
    } else {
        Err(float_constraint_error(n, f, path, at))
    }
}

#[inline(always)]
fn new_float(n: &FloatNode, f: f64, path: &Path, at: usize) -> Result<Owned, Fail> {
    check_float(n, f, path, at)?;
    // SAFETY: a new reference or NULL.
    unsafe { Ok(Owned::new(crate::cpython::float::new_float(f))?) }
}

pub fn float<I: Input>(ctx: &mut Ctx, n: &FloatNode, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    match h.v {
        Value::F64(f) => {
            if f.is_infinite() && I::FORMAT == crate::decode::typed::input::Format::Json {
                return Err(invalid("Number out of range", path, h.at));
            }
            new_float(n, f, path, h.at)
        }
        Value::I64(v) => new_float(n, v as f64, path, h.at),
        Value::U64(v) => new_float(n, v as f64, path, h.at),
        Value::BigInt(text) => match text.parse::<f64>() {
            Ok(f) if f.is_finite() => new_float(n, f, path, h.at),
            _ => Err(invalid("Number out of range", path, h.at)),
        },
        Value::Str(s) if !ctx.strict => lax_float::<I>(ctx, n, id, s, h, path),
        // SAFETY: a live object.
        Value::Py(obj) => unsafe {
            if PyFloat_CheckExact(obj) != 0 {
                check_float(n, PyFloat_AS_DOUBLE(obj), path, h.at)?;
                return keep(obj);
            }
            if PyFloat_Check(obj) != 0 {
                return new_float(n, PyFloat_AS_DOUBLE(obj), path, h.at);
            }
            if PyLong_Check(obj) != 0 && PyBool_Check(obj) == 0 {
                let f = PyLong_AsDouble(obj);
                if f == -1.0 && !PyErr_Occurred().is_null() {
                    PyErr_Clear();
                    return Err(invalid("Number out of range", path, h.at));
                }
                return new_float(n, f, path, h.at);
            }
            match py_text(obj) {
                Some(s) if !ctx.strict => lax_float::<I>(ctx, n, id, s, h, path),
                _ => Err(type_error::<I>(ctx, id, &h, path)),
            }
        },
        _ => Err(type_error::<I>(ctx, id, &h, path)),
    }
}

fn lax_float<I: Input>(ctx: &Ctx, n: &FloatNode, id: NodeId, s: &str, h: Head, path: &Path) -> Result<Owned, Fail> {
    match lax_number(s, true) {
        Some(LaxNumber::Int(v)) => new_float(n, v as f64, path, h.at),
        Some(LaxNumber::UInt(v)) => new_float(n, v as f64, path, h.at),
        Some(LaxNumber::Big) => match s.parse::<f64>() {
            Ok(f) if f.is_finite() => new_float(n, f, path, h.at),
            _ => Err(invalid("Number out of range", path, h.at)),
        },
        Some(LaxNumber::Float(f)) => new_float(n, f, path, h.at),
        None => Err(type_error::<I>(ctx, id, &h, path)),
    }
}

/// Checks a str's length (in characters) and pattern.
fn check_str(n: &StrNode, chars: usize, obj: *mut PyObject, path: &Path, at: usize) -> Result<(), Fail> {
    if let Some(min) = n.min_len.filter(|&m| chars < m) {
        return Err(invalid(&format!("Expected `str` of length >= {min}, got length {chars}"), path, at));
    }
    if let Some(max) = n.max_len.filter(|&m| chars > m) {
        return Err(invalid(&format!("Expected `str` of length <= {max}, got length {chars}"), path, at));
    }
    if let Some(pattern) = &n.pattern {
        // SAFETY: a live compiled pattern and a live str.
        unsafe {
            let search = c"search";
            let name = PyUnicode_InternFromString(search.as_ptr());
            if name.is_null() {
                return Err(Fail::Raised);
            }
            let found = PyObject_CallMethodOneArg(pattern.as_ptr(), name, obj);
            Py_DECREF(name);
            if found.is_null() {
                return Err(Fail::Raised);
            }
            let matched = found != Py_None();
            Py_DECREF(found);
            if !matched {
                let shown = repr_of(PyObject_GetAttrString(pattern.as_ptr(), c"pattern".as_ptr()));
                return Err(invalid(&format!("Expected `str` matching regex {shown}"), path, at));
            }
        }
    }
    Ok(())
}

pub fn string<I: Input>(ctx: &mut Ctx, n: &StrNode, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let constrained = n.min_len.is_some() || n.max_len.is_some() || n.pattern.is_some();
    match h.v {
        Value::Str(s) => {
            let obj = ctx.builder.str(s)?;
            if constrained {
                // SAFETY: a live str.
                let chars = unsafe { PyUnicode_GET_LENGTH(obj.as_ptr()) } as usize;
                check_str(n, chars, obj.as_ptr(), path, h.at)?;
            }
            Ok(obj)
        }
        // SAFETY: a live object.
        Value::Py(obj) if unsafe { PyUnicode_Check(obj) } != 0 => {
            if constrained {
                // SAFETY: a live str.
                let chars = unsafe { PyUnicode_GET_LENGTH(obj) } as usize;
                check_str(n, chars, obj, path, h.at)?;
            }
            // SAFETY: a new reference.
            unsafe { keep(obj) }
        }
        _ => Err(type_error::<I>(ctx, id, &h, path)),
    }
}

pub fn bytes<I: Input>(
    ctx: &mut Ctx,
    (min_len, max_len, bytearray): (Option<usize>, Option<usize>, bool),
    id: NodeId,
    h: Head,
    path: &Path,
) -> Result<Owned, Fail> {
    let check = |len: usize| -> Result<(), Fail> {
        if let Some(min) = min_len.filter(|&m| len < m) {
            return Err(invalid(&format!("Expected `bytes` of length >= {min}, got length {len}"), path, h.at));
        }
        if let Some(max) = max_len.filter(|&m| len > m) {
            return Err(invalid(&format!("Expected `bytes` of length <= {max}, got length {len}"), path, h.at));
        }
        Ok(())
    };
    let make = |data: &[u8]| -> Result<Owned, Fail> {
        check(data.len())?;
        // SAFETY: `data` is readable for its length; a new reference or NULL.
        unsafe {
            let (ptr, len) = (data.as_ptr() as *const c_char, data.len() as Py_ssize_t);
            Ok(Owned::new(if bytearray {
                PyByteArray_FromStringAndSize(ptr, len)
            } else {
                PyBytes_FromStringAndSize(ptr, len)
            })?)
        }
    };
    if let Value::Bytes(data) = h.v {
        return make(data);
    }
    if let Value::Py(obj) = h.v {
        // SAFETY: a live object; buffers are released before returning.
        unsafe {
            if PyBytes_CheckExact(obj) != 0 && !bytearray {
                check(PyBytes_Size(obj) as usize)?;
                return keep(obj);
            }
            if PyBytes_Check(obj) != 0 || PyByteArray_Check(obj) != 0 || PyMemoryView_Check(obj) != 0 {
                let mut view: Py_buffer = core::mem::zeroed();
                if PyObject_GetBuffer(obj, &mut view, PyBUF_CONTIG_RO) != 0 {
                    return Err(Fail::Raised);
                }
                let data = core::slice::from_raw_parts(view.buf as *const u8, view.len as usize);
                let result = make(data);
                PyBuffer_Release(&mut view);
                return result;
            }
        }
    }
    match text_of(&h.v) {
        Some(text) => {
            let Some(len) = orcodec_core::parse::base64_len(text.as_bytes()) else {
                return Err(invalid("Invalid base64 encoded string", path, h.at));
            };
            let mut out = orcodec_core::fallible::zeroed(len).map_err(|_| crate::decode::typed::error::no_memory())?;
            if !orcodec_core::parse::base64_decode(text.as_bytes(), &mut out) {
                return Err(invalid("Invalid base64 encoded string", path, h.at));
            }
            make(&out)
        }
        None => Err(type_error::<I>(ctx, id, &h, path)),
    }
}

#[cold]
fn invalid_choice(shown: String, path: &Path, at: usize) -> Fail {
    invalid(&format!("Invalid enum value {shown}"), path, at)
}

/// Python's repr of a str, for messages.
fn str_repr(text: &str) -> String {
    let (text, cut) = crate::module::errors::clip_str(text);
    let more = if cut { "..." } else { "" };
    // SAFETY: a new str, released after its repr is taken.
    unsafe {
        let obj = new_str(text);
        if obj.is_null() {
            PyErr_Clear();
            return format!("'{text}'{more}");
        }
        let shown = repr_of(obj);
        Py_DECREF(obj);
        format!("{shown}{more}")
    }
}

/// An int value of an enum or Literal: a member, or a composite `Flag`.
fn choice_int(ch: &Choice, v: i64, path: &Path, at: usize) -> Result<Owned, Fail> {
    if let Some(member) = ch.ints.get(&v) {
        // SAFETY: a live member.
        return unsafe { keep(member.as_ptr()) };
    }
    if let Some(flag) = &ch.flag {
        // SAFETY: calling the Flag class with a new int.
        unsafe {
            let arg = Owned::new(PyLong_FromLongLong(v))?;
            let member = crate::decode::unpaused(|| PyObject_CallOneArg(flag.as_ptr(), arg.as_ptr()));
            if !member.is_null() {
                return Ok(Owned::new(member)?);
            }
            if PyErr_ExceptionMatches(PyExc_ValueError) == 0 {
                return Err(Fail::Raised);
            }
            PyErr_Clear();
        }
    }
    Err(invalid_choice(v.to_string(), path, at))
}

pub fn choice<I: Input>(ctx: &mut Ctx, ch: &Choice, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let has_ints = !ch.ints.is_empty() || ch.flag.is_some();
    match h.v {
        Value::Str(s) if !ch.strs.is_empty() => match ch.strs.get(s.as_bytes()) {
            // SAFETY: a live member.
            Some(member) => unsafe { keep(member.as_ptr()) },
            None => Err(invalid_choice(str_repr(s), path, h.at)),
        },
        Value::I64(v) if has_ints => choice_int(ch, v, path, h.at),
        Value::U64(v) if has_ints => match i64::try_from(v) {
            Ok(v) => choice_int(ch, v, path, h.at),
            Err(_) => Err(invalid_choice(v.to_string(), path, h.at)),
        },
        Value::BigInt(text) if has_ints => {
            Err(invalid_choice(crate::module::errors::shown(text.as_bytes()), path, h.at))
        }
        Value::Bool(b) if ch.true_value.is_some() || ch.false_value.is_some() => {
            match if b { &ch.true_value } else { &ch.false_value } {
                // SAFETY: a live value.
                Some(v) => unsafe { keep(v.as_ptr()) },
                None => Err(invalid_choice(if b { "True" } else { "False" }.into(), path, h.at)),
            }
        }
        Value::Str(s) if has_ints && !ctx.strict => match lax_number(s, false) {
            Some(LaxNumber::Int(v)) => choice_int(ch, v, path, h.at),
            _ => Err(type_error::<I>(ctx, id, &h, path)),
        },
        // SAFETY: a live object.
        Value::Py(obj) => unsafe { py_choice::<I>(ctx, ch, id, obj, h, path) },
        _ => Err(type_error::<I>(ctx, id, &h, path)),
    }
}

unsafe fn py_choice<I: Input>(
    ctx: &mut Ctx,
    ch: &Choice,
    id: NodeId,
    obj: *mut PyObject,
    h: Head,
    path: &Path,
) -> Result<Owned, Fail> {
    if let Some(cls) = &ch.enum_class {
        if crate::decode::typed::is_instance(obj, cls.as_ptr()) {
            return keep(obj);
        }
    }
    if PyBool_Check(obj) != 0 {
        if ch.true_value.is_none() && ch.false_value.is_none() {
            return Err(type_error::<I>(ctx, id, &h, path));
        }
        return choice::<I>(ctx, ch, id, Head::new(Value::Bool(obj == Py_True()), h.at), path);
    }
    let kind_ok = (PyUnicode_Check(obj) != 0 && !ch.strs.is_empty())
        || (PyLong_Check(obj) != 0 && (!ch.ints.is_empty() || ch.flag.is_some()));
    if !kind_ok {
        if !ctx.strict {
            if let Some(s) = py_text(obj) {
                if let Some(LaxNumber::Int(v)) = lax_number(s, false) {
                    if !ch.ints.is_empty() {
                        return choice_int(ch, v, path, h.at);
                    }
                }
            }
        }
        return Err(type_error::<I>(ctx, id, &h, path));
    }
    let found = PyDict_GetItemWithError(ch.py_values.as_ptr(), obj);
    if !found.is_null() {
        return keep(found);
    }
    if !PyErr_Occurred().is_null() {
        return Err(Fail::Raised);
    }
    if PyLong_Check(obj) != 0 {
        let mut overflow = 0;
        let v = PyLong_AsLongLongAndOverflow(obj, &mut overflow);
        if overflow == 0 && ch.flag.is_some() {
            return choice_int(ch, v, path, h.at);
        }
    }
    // A str is quoted as one read from a stream is (its start, if long).
    let text = if PyUnicode_CheckExact(obj) != 0 { py_text(obj) } else { None };
    Err(invalid_choice(text.map_or_else(|| repr_of(obj), str_repr), path, h.at))
}

/// A scalar value as untyped decoding builds it (a union or key typed `Any`).
pub fn any_scalar<I: Input>(ctx: &mut Ctx, h: Head) -> Result<Owned, Fail> {
    let b = &mut ctx.builder;
    Ok(match h.v {
        Value::Null => b.null()?,
        Value::Bool(v) => b.bool(v)?,
        Value::I64(v) => b.i64(v)?,
        Value::U64(v) => b.u64(v)?,
        // A JSON number beyond the doubles, refused as untyped `loads` (orjson) refuses it.
        Value::F64(v) if v.is_infinite() && I::FORMAT == crate::decode::typed::input::Format::Json => {
            return Err(crate::decode::typed::json_input::out_of_range(h.at))
        }
        Value::F64(v) => b.f64(v)?,
        Value::BigInt(text) => match text.parse::<f64>() {
            Ok(f) if f.is_infinite() && I::FORMAT == crate::decode::typed::input::Format::Json => {
                return Err(crate::decode::typed::json_input::out_of_range(h.at))
            }
            Ok(f) => b.f64(f)?,
            Err(_) => return Err(Fail::Raised),
        },
        Value::Str(s) => b.str(s)?,
        Value::Bytes(data) => b.bytes(data)?,
        // SAFETY: a new reference to a live object.
        Value::Py(obj) => unsafe { keep(obj)? },
        Value::Ext(tag, _) => {
            return Err(Fail::Syntax(orcodec_core::error::DecodeError::new(
                orcodec_core::error::DecodeErrorKind::ExtensionType(tag),
                h.at,
            )))
        }
        #[expect(clippy::unreachable, reason = "`validate` sends open containers to `container`, never here")]
        Value::Array(_) | Value::Map(_) => unreachable!("containers are dispatched by `validate`"),
    })
}

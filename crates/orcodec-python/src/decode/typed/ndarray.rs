//! numpy arrays read straight from nested arrays of numbers
//! (`numpy.ndarray`, `numpy.typing.NDArray[...]` targets).
//!
//! The numbers are converted as they are read into a buffer of the array's
//! element type (no Python object per element); the shape is taken from the
//! nesting: the first array to reach a number (or to end empty) fixes the
//! number of dimensions, the first array to end at each depth fixes that
//! dimension's length, and every other array must agree, else the failure
//! names the `$` path of the array or item that does not. Once the outer
//! array ends, numpy makes the array and the buffer is copied into it.
//!
//! Element rules (the scalar validators' rules for `bool`, `int` and
//! `float`): a float target takes ints and floats, an int target ints only
//! (and, with `strict=False`, integral floats), a bool target bools only
//! (and, with `strict=False`, 0 and 1). A value out of the element type's
//! range fails (an int beyond int8 for int8, a finite float beyond float32's
//! largest for float32); infinities read as such (`1e400` is inf, as untyped
//! `loads` reads it) stay infinities.
//!
//! Without a dtype (`numpy.ndarray`, `NDArray[Any]`) the element type is
//! inferred as `numpy.array` would: bool when every value is a bool, int64
//! when every value is an int that fits, float64 otherwise (and for no
//! value at all); bools do not mix with numbers.
//!
//! Hostile input is bounded: the buffer grows only as elements are read
//! (each takes at least one byte of input), fallibly (a MemoryError, never
//! an abort), and nesting is capped at numpy's 64 dimensions (and at the
//! document's nesting limit).

use orcodec_core::builder::Builder;
use orcodec_core::fallible;
use orcodec_core::json::pull::Quick;
use pyo3_ffi::*;

use crate::cpython::object::Owned;
use crate::decode::typed::dtype::Dtype;
use crate::decode::typed::error::{from_current, invalid, no_memory, str_of, Fail};
use crate::decode::typed::input::{got_name, Cursor, Format, Head, Input, Run, RunItem, Value};
use crate::decode::typed::node::{NdArrayNode, NodeId};
use crate::decode::typed::path::{Path, Seg};
use crate::decode::typed::{is_instance, keep, type_error, Ctx};
use crate::state::State;

/// numpy's largest number of dimensions (numpy 2; numpy 1 allows 32 and
/// refuses more itself).
pub const MAX_NDIM: usize = 64;

/// A value read as a number.
#[derive(Clone, Copy)]
enum Num {
    Bool(bool),
    I64(i64),
    U64(u64),
    /// An integer beyond 64 bits, rounded to the nearest float (infinite
    /// beyond float64's range).
    Big(f64),
    F64(f64),
    /// A JSON number beyond float64's range (`1e400`): the text means a
    /// finite number no float holds, refused as untyped `loads` refuses it,
    /// where an infinity from MessagePack or Python is a value.
    Beyond(f64),
    /// Anything else.
    Not,
}

/// numpy's scalar types that `convert` reads as numbers: `numpy.bool_`,
/// numpy's scalar types (numpy is imported: a numpy type was compiled), as
/// `(numpy.bool_, numpy.integer, numpy.floating)`, borrowed from the
/// state, or None if they cannot be had (the exception cleared).
#[cold]
unsafe fn scalar_types(st: &State) -> Option<(*mut PyObject, *mut PyObject, *mut PyObject)> {
    let found = &st.found;
    if found.numpy_floating.found().is_null() {
        let numpy = Owned::new(PyImport_ImportModule(c"numpy".as_ptr())).ok();
        let get = |name: &core::ffi::CStr| match &numpy {
            Some(m) => PyObject_GetAttrString(m.as_ptr(), name.as_ptr()),
            None => core::ptr::null_mut(),
        };
        let (bool_, integer, floating) = (get(c"bool_"), get(c"integer"), get(c"floating"));
        if bool_.is_null() || integer.is_null() || floating.is_null() {
            Py_XDECREF(bool_);
            Py_XDECREF(integer);
            Py_XDECREF(floating);
            PyErr_Clear();
            return None;
        }
        // Kept unless found meanwhile, by code the lookups ran.
        found.numpy_bool.keep(bool_);
        found.numpy_integer.keep(integer);
        found.numpy_floating.keep(floating);
    }
    Some((found.numpy_bool.found(), found.numpy_integer.found(), found.numpy_floating.found()))
}

/// The value of a numpy scalar (`numpy.int32(5)`, `numpy.float32(0.5)`,
/// `numpy.True_`), as numpy reads it into an array; `Num::Not` for anything else.
#[cold]
#[inline(never)]
unsafe fn numpy_scalar(st: &State, obj: *mut PyObject) -> Num {
    let Some((bool_, integer, floating)) = scalar_types(st) else {
        return Num::Not;
    };
    if is_instance(obj, bool_) {
        return match PyObject_IsTrue(obj) {
            -1 => {
                PyErr_Clear();
                Num::Not
            }
            v => Num::Bool(v == 1),
        };
    }
    if is_instance(obj, integer) {
        let Ok(int) = Owned::new(PyNumber_Index(obj)) else {
            PyErr_Clear();
            return Num::Not;
        };
        return py_num(st, int.as_ptr());
    }
    if is_instance(obj, floating) {
        let v = PyFloat_AsDouble(obj);
        if v == -1.0 && !PyErr_Occurred().is_null() {
            PyErr_Clear();
            return Num::Not;
        }
        return Num::F64(v);
    }
    Num::Not
}

/// The value of a Python object that is a number (`convert`): bool, int,
/// float (and their subclasses), or a numpy scalar.
unsafe fn py_num(st: &State, obj: *mut PyObject) -> Num {
    if PyBool_Check(obj) != 0 {
        return Num::Bool(obj == Py_True());
    }
    if PyFloat_Check(obj) != 0 {
        return Num::F64(PyFloat_AS_DOUBLE(obj));
    }
    if PyLong_Check(obj) == 0 {
        return numpy_scalar(st, obj);
    }
    let mut overflow = 0;
    let v = PyLong_AsLongLongAndOverflow(obj, &mut overflow);
    if v == -1 && !PyErr_Occurred().is_null() {
        PyErr_Clear();
        return Num::Not;
    }
    if overflow == 0 {
        return Num::I64(v);
    }
    if overflow > 0 {
        let u = PyLong_AsUnsignedLongLong(obj);
        if u != u64::MAX || PyErr_Occurred().is_null() {
            return Num::U64(u);
        }
        PyErr_Clear();
    }
    let f = PyLong_AsDouble(obj);
    if f == -1.0 && !PyErr_Occurred().is_null() {
        PyErr_Clear();
        return Num::Big(if overflow > 0 { f64::INFINITY } else { f64::NEG_INFINITY });
    }
    Num::Big(f)
}

#[inline(always)]
fn num_of<I: Input>(st: &State, v: &Value) -> Num {
    match *v {
        Value::F64(f) if I::FORMAT == Format::Json && f.is_infinite() => Num::Beyond(f),
        Value::F64(f) => Num::F64(f),
        Value::I64(v) => Num::I64(v),
        Value::U64(v) => Num::U64(v),
        Value::Bool(b) => Num::Bool(b),
        // Digits (and a sign) always parse; the float is correctly rounded.
        Value::BigInt(text) => Num::Big(text.parse::<f64>().unwrap_or(f64::NAN)),
        // SAFETY: a live object the input holds.
        Value::Py(obj) => unsafe { py_num(st, obj) },
        _ => Num::Not,
    }
}

/// Why an element was refused.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bad {
    /// Not a value of the element's kind.
    Type,
    /// Out of the element type's range.
    Range,
    /// The buffer could not grow.
    Memory,
}

#[inline(always)]
fn int_of(n: Num, lax: bool) -> Result<i128, Bad> {
    match n {
        Num::I64(v) => Ok(v as i128),
        Num::U64(v) => Ok(v as i128),
        Num::Big(_) => Err(Bad::Range),
        Num::F64(f) if lax && f.is_finite() && f.fract() == 0.0 => {
            if f.abs() < 18446744073709551616.0 {
                Ok(f as i128)
            } else {
                Err(Bad::Range)
            }
        }
        _ => Err(Bad::Type),
    }
}

#[inline(always)]
fn float_of(n: Num) -> Result<f64, Bad> {
    match n {
        Num::F64(f) => Ok(f),
        Num::I64(v) => Ok(v as f64),
        Num::U64(v) => Ok(v as f64),
        Num::Big(f) if f.is_finite() => Ok(f),
        Num::Big(_) | Num::Beyond(_) => Err(Bad::Range),
        _ => Err(Bad::Type),
    }
}

/// An element type: how a number becomes one.
trait Elem: Copy {
    const DTYPE: Dtype;
    fn from_num(n: Num, lax: bool) -> Result<Self, Bad>;
}

macro_rules! int_elem {
    ($($t:ty => $d:ident),*) => {$(
        impl Elem for $t {
            const DTYPE: Dtype = Dtype::$d;
            #[inline(always)]
            fn from_num(n: Num, lax: bool) -> Result<Self, Bad> {
                <$t>::try_from(int_of(n, lax)?).map_err(|_| Bad::Range)
            }
        }
    )*};
}

int_elem!(i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16, u32 => U32, u64 => U64);

impl Elem for bool {
    const DTYPE: Dtype = Dtype::Bool;
    #[inline(always)]
    fn from_num(n: Num, lax: bool) -> Result<Self, Bad> {
        match n {
            Num::Bool(b) => Ok(b),
            Num::I64(v @ (0 | 1)) if lax => Ok(v == 1),
            Num::U64(v @ (0 | 1)) if lax => Ok(v == 1),
            _ => Err(Bad::Type),
        }
    }
}

impl Elem for f64 {
    const DTYPE: Dtype = Dtype::F64;
    #[inline(always)]
    fn from_num(n: Num, _lax: bool) -> Result<Self, Bad> {
        float_of(n)
    }
}

impl Elem for f32 {
    const DTYPE: Dtype = Dtype::F32;
    #[inline(always)]
    fn from_num(n: Num, _lax: bool) -> Result<Self, Bad> {
        // Through float64 as numpy converts Python numbers (rounded twice).
        let x = float_of(n)?;
        let y = x as f32;
        if y.is_infinite() && x.is_finite() {
            return Err(Bad::Range);
        }
        Ok(y)
    }
}

/// A float16, as its bits.
#[derive(Clone, Copy)]
#[repr(transparent)]
struct F16(u16);

impl Elem for F16 {
    const DTYPE: Dtype = Dtype::F16;
    #[inline(always)]
    fn from_num(n: Num, _lax: bool) -> Result<Self, Bad> {
        let x = float_of(n)?;
        let h = f64_to_f16(x);
        if h & 0x7fff == 0x7c00 && x.is_finite() {
            return Err(Bad::Range);
        }
        Ok(F16(h))
    }
}

/// `x` rounded to the nearest float16 (ties to even), as IEEE 754 rounds
/// it and numpy converts float64 to float16: beyond the largest float16
/// (65504, and what rounds past it) infinity, below the smallest subnormal
/// zero; NaNs keep their sign and the top bits of their payload.
pub fn f64_to_f16(x: f64) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let mant = bits & ((1u64 << 52) - 1);
    if exp == 0x7ff {
        if mant == 0 {
            return sign | 0x7c00;
        }
        // A NaN stays one: its payload's top bits, never zero.
        let payload = (mant >> 42) as u16;
        return sign | 0x7c00 | if payload == 0 { 1 } else { payload };
    }
    // float16's biased exponent.
    let e = exp - 1023 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    /// `m >> s` rounded to nearest, ties to even (`1 <= s <= 63`).
    fn shift_round(m: u64, s: u32) -> u64 {
        let q = m >> s;
        let r = m & ((1u64 << s) - 1);
        let half = 1u64 << (s - 1);
        if r > half || (r == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    }
    if e <= 0 {
        // A subnormal float16 (or zero): the value in units of 2**-24.
        if exp == 0 {
            // float64 subnormals are far below float16's smallest.
            return sign;
        }
        let s = (1051 - exp) as u32;
        if s > 63 {
            return sign;
        }
        // A carry into the exponent field makes the smallest normal, as it should.
        return sign | shift_round(mant | (1u64 << 52), s) as u16;
    }
    // A carry out of the mantissa raises the exponent (up to infinity).
    sign | (((e as u64) << 10) + shift_round(mant, 42)) as u16
}

/// Where the elements go.
trait Sink {
    fn push(&mut self, n: Num, lax: bool) -> Result<(), Bad>;
    /// [`push`](Self::push) of a number read by an input's quick path,
    /// which holds no failure for the caller: false, pushing nothing, and
    /// the caller pushes the number in full.
    #[inline(always)]
    fn push_quick(&mut self, q: Quick, lax: bool) -> bool {
        let n = match q {
            Quick::I64(v) => Num::I64(v),
            Quick::U64(v) => Num::U64(v),
            Quick::F64(f) => Num::F64(f),
        };
        self.push(n, lax).is_ok()
    }
    /// What an element is called in messages, now.
    fn element(&self) -> &'static str;
    /// The dtype for messages about ranges.
    fn dtype_now(&self) -> Dtype;
    fn len(&self) -> usize;
    /// The array's dtype and its elements' bytes.
    fn finish(&mut self) -> Result<(Dtype, &[u8]), Bad>;
}

struct Typed<E: Elem> {
    buf: Vec<E>,
}

impl<E: Elem> Sink for Typed<E> {
    #[inline(always)]
    fn push(&mut self, n: Num, lax: bool) -> Result<(), Bad> {
        let v = E::from_num(n, lax)?;
        fallible::push(&mut self.buf, v).map_err(|_| Bad::Memory)
    }

    fn element(&self) -> &'static str {
        E::DTYPE.element()
    }

    fn dtype_now(&self) -> Dtype {
        E::DTYPE
    }

    fn len(&self) -> usize {
        self.buf.len()
    }

    fn finish(&mut self) -> Result<(Dtype, &[u8]), Bad> {
        let len = core::mem::size_of_val(&self.buf[..]);
        // SAFETY: the elements are plain numbers (bool: 0 or 1), read as
        // their bytes.
        Ok((E::DTYPE, unsafe { core::slice::from_raw_parts(self.buf.as_ptr() as *const u8, len) }))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Empty,
    Bool,
    Int,
    Float,
}

/// Elements of an inferred dtype: 8 bytes each (a bool, an int64 or a
/// float64's bits) until the end, where bools are narrowed to bytes.
struct Inferred {
    buf: Vec<u64>,
    bools: Vec<u8>,
    mode: Mode,
}

impl Inferred {
    #[cold]
    fn widen(&mut self) {
        for v in &mut self.buf {
            *v = (*v as i64 as f64).to_bits();
        }
        self.mode = Mode::Float;
    }
}

impl Sink for Inferred {
    #[inline(always)]
    fn push(&mut self, n: Num, _lax: bool) -> Result<(), Bad> {
        let v = match (self.mode, n) {
            (Mode::Empty | Mode::Bool, Num::Bool(b)) => {
                self.mode = Mode::Bool;
                b as u64
            }
            (Mode::Bool, _) | (_, Num::Bool(_) | Num::Not) => return Err(Bad::Type),
            (Mode::Float, Num::I64(v)) => (v as f64).to_bits(),
            (_, Num::I64(v)) => {
                self.mode = Mode::Int;
                v as u64
            }
            (_, Num::U64(v)) if v <= i64::MAX as u64 && self.mode != Mode::Float => {
                self.mode = Mode::Int;
                v
            }
            (_, n) => {
                let f = float_of(n)?;
                if self.mode == Mode::Int {
                    self.widen();
                }
                self.mode = Mode::Float;
                f.to_bits()
            }
        };
        fallible::push(&mut self.buf, v).map_err(|_| Bad::Memory)
    }

    fn element(&self) -> &'static str {
        if self.mode == Mode::Bool {
            "bool"
        } else {
            "int | float"
        }
    }

    fn dtype_now(&self) -> Dtype {
        Dtype::F64
    }

    fn len(&self) -> usize {
        self.buf.len()
    }

    fn finish(&mut self) -> Result<(Dtype, &[u8]), Bad> {
        let dtype = match self.mode {
            Mode::Bool => {
                self.bools.try_reserve_exact(self.buf.len()).map_err(|_| Bad::Memory)?;
                self.bools.extend(self.buf.iter().map(|&v| v as u8));
                return Ok((Dtype::Bool, &self.bools));
            }
            Mode::Int => Dtype::I64,
            Mode::Empty | Mode::Float => Dtype::F64,
        };
        let len = core::mem::size_of_val(&self.buf[..]);
        // SAFETY: plain 8-byte numbers, read as their bytes (native order).
        Ok((dtype, unsafe { core::slice::from_raw_parts(self.buf.as_ptr() as *const u8, len) }))
    }
}

/// A failure at the item `indexes` of the array at `path`.
#[cold]
#[inline(never)]
fn fail_at(path: &Path, indexes: &[usize], message: &str, at: usize) -> Fail {
    match indexes.split_first() {
        None => invalid(message, path, at),
        Some((&i, rest)) => fail_at(&path.push(Seg::Index(i)), rest, message, at),
    }
}

/// A value as messages show it (its first 200 bytes).
fn shown(h: &Head, n: Num) -> String {
    if !h.text.is_empty() {
        return crate::module::errors::shown(h.text.as_bytes());
    }
    if let Value::Py(obj) = h.v {
        // SAFETY: a live object the input holds.
        return crate::module::errors::shown(unsafe { str_of(obj) }.as_bytes());
    }
    match n {
        Num::I64(v) => v.to_string(),
        Num::U64(v) => v.to_string(),
        // As Python shows it.
        // SAFETY: a new float, released after use.
        Num::F64(f) | Num::Big(f) | Num::Beyond(f) => unsafe {
            let obj = PyFloat_FromDouble(f);
            if obj.is_null() {
                PyErr_Clear();
                return f.to_string();
            }
            let text = str_of(obj);
            Py_DECREF(obj);
            text
        },
        Num::Bool(b) => b.to_string(),
        Num::Not => String::new(),
    }
}

/// The failure for an element `bad` refused.
#[cold]
#[inline(never)]
fn element_error<I: Input, S: Sink>(sink: &S, bad: Bad, h: &Head, n: Num) -> Result<String, Fail> {
    Ok(match bad {
        Bad::Memory => return Err(no_memory()),
        Bad::Type => format!("Expected `{}`, got `{}`", sink.element(), got_name::<I>(&h.v)),
        Bad::Range => {
            let dtype = sink.dtype_now();
            match dtype.element() {
                "int" => {
                    let (lo, hi) = dtype.int_range();
                    format!("Expected `int` in the range of `{}` ({lo} to {hi}), got `{}`", dtype.name(), shown(h, n))
                }
                _ => format!("Expected `float` in the range of `{}`, got `{}`", dtype.name(), shown(h, n)),
            }
        }
    })
}

/// An open array (its head read at byte `at`, `n` items if known) validated
/// as an array of `dtype` (None: inferred).
pub fn from_array<I: Input>(
    ctx: &mut Ctx,
    nd: &NdArrayNode,
    input: &mut I,
    n: Option<usize>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    let array = read_array(ctx, nd.dtype, input, n, at, path)?;
    check_shape(array, nd, path, at)
}

fn read_array<I: Input>(
    ctx: &mut Ctx,
    dtype: Option<Dtype>,
    input: &mut I,
    n: Option<usize>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    macro_rules! typed {
        ($t:ty) => {
            read(ctx, Typed::<$t> { buf: Vec::new() }, input, n, at, path)
        };
    }
    match dtype {
        None => read(ctx, Inferred { buf: Vec::new(), bools: Vec::new(), mode: Mode::Empty }, input, n, at, path),
        Some(Dtype::Bool) => typed!(bool),
        Some(Dtype::I8) => typed!(i8),
        Some(Dtype::I16) => typed!(i16),
        Some(Dtype::I32) => typed!(i32),
        Some(Dtype::I64) => typed!(i64),
        Some(Dtype::U8) => typed!(u8),
        Some(Dtype::U16) => typed!(u16),
        Some(Dtype::U32) => typed!(u32),
        Some(Dtype::U64) => typed!(u64),
        Some(Dtype::F16) => typed!(F16),
        Some(Dtype::F32) => typed!(f32),
        Some(Dtype::F64) => typed!(f64),
    }
}

#[cold]
fn length_message(want: usize, got: Option<usize>) -> String {
    match got {
        Some(got) => format!("Expected `array` of length {want} (as the arrays before it), got length {got}"),
        None => format!("Expected `array` of length {want} (as the arrays before it), got a longer one"),
    }
}

/// Why a run of numbers stopped early.
enum Stop {
    /// The array is longer than the arrays before it.
    TooLong,
    /// An element was refused: the message (or the failure making it) and
    /// where the element starts.
    Element(Result<String, Fail>, usize),
}

#[inline(never)]
fn read<I: Input, S: Sink>(
    ctx: &mut Ctx,
    mut sink: S,
    input: &mut I,
    n: Option<usize>,
    at: usize,
    path: &Path,
) -> Result<Owned, Fail> {
    let lax = !ctx.strict;
    // Per dimension: its length once an array of it has ended; the item
    // being read in the open array of it; where that array starts.
    let mut dims: [Option<usize>; MAX_NDIM] = [None; MAX_NDIM];
    let mut index = [0usize; MAX_NDIM];
    let mut starts = [0usize; MAX_NDIM];
    // The number of dimensions, once an array has reached a number or
    // ended empty.
    let mut ndim: Option<usize> = None;
    let mut cursors: Vec<Cursor> = Vec::new();
    ctx.enter(at)?;
    fallible::push(&mut cursors, input.open(n)).map_err(|_| no_memory())?;
    starts[0] = at;
    loop {
        let open = cursors.len();
        let top = open - 1;
        let Some(cursor) = cursors.last_mut() else { break };
        let more = if ndim == Some(open) {
            // An array of numbers: read in one run where the input can.
            let want = dims[top];
            let mut count = index[top];
            let mut stop = None;
            // Inlined at both of the run's calls: the quick one is most of
            // the work of an array of numbers.
            let run = input.number_run(
                cursor,
                #[inline(always)]
                |item| {
                    let (v, at, text) = match item {
                        RunItem::Quick(q) => {
                            // Refused (too many, or not taken): read again in
                            // full below, which says why.
                            if want == Some(count) || !sink.push_quick(q, lax) {
                                return false;
                            }
                            count += 1;
                            return true;
                        }
                        RunItem::Full(v, at, text) => (v, at, text),
                    };
                    if want == Some(count) {
                        stop = Some(Stop::TooLong);
                        return false;
                    }
                    let num = num_of::<I>(ctx.st, &v);
                    match sink.push(num, lax) {
                        Ok(()) => {
                            count += 1;
                            true
                        }
                        Err(bad) => {
                            let h = Head { v, at, text };
                            stop = Some(Stop::Element(element_error::<I, S>(&sink, bad, &h, num), at));
                            false
                        }
                    }
                },
            )?;
            index[top] = count;
            match run {
                Run::Unsupported => input.next_item(cursor)?,
                Run::End => false,
                Run::Item => true,
                Run::Stopped => {
                    return Err(match stop {
                        Some(Stop::Element(message, at)) => fail_at(path, &index[..=top], &message?, at),
                        _ => {
                            let want = want.unwrap_or(0);
                            fail_at(path, &index[..top], &length_message(want, None), starts[top])
                        }
                    });
                }
            }
        } else {
            input.next_item(cursor)?
        };
        if !more {
            let count = index[top];
            match dims[top] {
                Some(want) if want != count => {
                    return Err(fail_at(path, &index[..top], &length_message(want, Some(count)), starts[top]));
                }
                Some(_) => {}
                None => dims[top] = Some(count),
            }
            if ndim.is_none() {
                ndim = Some(open);
            }
            cursors.pop();
            ctx.leave();
            if top == 0 {
                break;
            }
            index[top - 1] += 1;
            continue;
        }
        if let Some(want) = dims[top] {
            if index[top] == want {
                return Err(fail_at(path, &index[..top], &length_message(want, None), starts[top]));
            }
        }
        let h = input.next()?;
        match h.v {
            Value::Array(len) => {
                if ndim.is_some_and(|nd| open >= nd) {
                    let message = format!("Expected `{}`, got `array`", sink.element());
                    return Err(fail_at(path, &index[..=top], &message, h.at));
                }
                if open == MAX_NDIM {
                    let message = format!("Expected at most {MAX_NDIM} dimensions, got more");
                    return Err(fail_at(path, &index[..=top], &message, h.at));
                }
                if let (Some(len), Some(want)) = (len, dims[open]) {
                    if len != want {
                        return Err(fail_at(path, &index[..=top], &length_message(want, Some(len)), h.at));
                    }
                }
                ctx.enter(h.at)?;
                index[open] = 0;
                starts[open] = h.at;
                let cursor = input.open(len);
                fallible::push(&mut cursors, cursor).map_err(|_| no_memory())?;
            }
            v => {
                let expected_array = match ndim {
                    None => {
                        ndim = Some(open);
                        false
                    }
                    Some(nd) => nd != open,
                };
                if expected_array || matches!(v, Value::Map(_)) {
                    let expected = if expected_array { "array" } else { sink.element() };
                    let message = format!("Expected `{expected}`, got `{}`", got_name::<I>(&v));
                    return Err(fail_at(path, &index[..=top], &message, h.at));
                }
                let num = num_of::<I>(ctx.st, &v);
                if let Err(bad) = sink.push(num, lax) {
                    let message = element_error::<I, S>(&sink, bad, &h, num)?;
                    return Err(fail_at(path, &index[..=top], &message, h.at));
                }
                index[top] += 1;
            }
        }
    }
    let ndim = ndim.unwrap_or(1);
    make(ctx.st, &mut sink, &dims[..ndim], path, at)
}

/// The array of shape `dims` from the elements in `sink`.
fn make<S: Sink>(st: &State, sink: &mut S, dims: &[Option<usize>], path: &Path, at: usize) -> Result<Owned, Fail> {
    let mut shape = [0 as Py_ssize_t; MAX_NDIM];
    let mut size: usize = 1;
    for (slot, dim) in shape.iter_mut().zip(dims) {
        let dim = dim.unwrap_or(0);
        size = size.saturating_mul(dim);
        *slot = dim as Py_ssize_t;
    }
    // The shape's walk above guarantees this; the copy into numpy's array
    // relies on it.
    if size != sink.len() {
        return Err(invalid("Expected an array of one shape throughout", path, at));
    }
    let len = sink.len();
    let (dtype, bytes) = sink.finish().map_err(|_| no_memory())?;
    if bytes.len() != len * itemsize(dtype) {
        return Err(invalid("Expected an array of one shape throughout", path, at));
    }
    // SAFETY: the bytes are exactly the shape's elements of `dtype`.
    match unsafe { crate::decode::numpy::new_array(st, dtype.text(), &shape[..dims.len()], bytes) } {
        Ok(array) => Ok(array),
        Err(()) => Err(from_current(path, at)),
    }
}

fn itemsize(dtype: Dtype) -> usize {
    match dtype {
        Dtype::Bool | Dtype::I8 | Dtype::U8 => 1,
        Dtype::I16 | Dtype::U16 | Dtype::F16 => 2,
        Dtype::I32 | Dtype::U32 | Dtype::F32 => 4,
        _ => 8,
    }
}

/// A value that is no container, validated as an array: a number makes a
/// 0-d array (as `numpy.array(5)` does); an ndarray (`convert`, or a numpy
/// extension value with `OPT_NUMPY_EXT`) is kept if its dtype is the one
/// wanted.
pub fn from_scalar<I: Input>(ctx: &mut Ctx, nd: &NdArrayNode, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let at = h.at;
    let array = scalar_array::<I>(ctx, nd, id, h, path)?;
    check_shape(array, nd, path, at)
}

fn scalar_array<I: Input>(ctx: &mut Ctx, nd: &NdArrayNode, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let dtype = nd.dtype;
    let st = ctx.st;
    if let Value::Py(obj) = h.v {
        // SAFETY: a live object; numpy was imported to make the type.
        unsafe {
            let ndarray = crate::decode::numpy::ndarray_type(st).map_err(|()| Fail::Raised)?;
            if is_instance(obj, ndarray as *mut PyObject) {
                return existing(obj, dtype, path, h.at);
            }
        }
    }
    if let Value::Ext(tag, data) = h.v {
        // An array in binary form (`OPT_NUMPY_EXT`), read as untyped
        // `unpackb` reads it; other extension values are no arrays.
        if let Some(obj) = ctx.builder.ext(tag, data)? {
            if let Some(array) = of_dtype(st, &obj, dtype, path, h.at)? {
                return Ok(array);
            }
        }
        return Err(type_error::<I>(ctx, id, &h, path));
    }
    let num = num_of::<I>(ctx.st, &h.v);
    if matches!(num, Num::Not) {
        return Err(type_error::<I>(ctx, id, &h, path));
    }
    let lax = !ctx.strict;
    macro_rules! zero_d {
        ($sink:expr) => {{
            let mut sink = $sink;
            if let Err(bad) = sink.push(num, lax) {
                let message = element_error::<I, _>(&sink, bad, &h, num)?;
                return Err(invalid(&message, path, h.at));
            }
            make(ctx.st, &mut sink, &[], path, h.at)
        }};
    }
    match dtype {
        None => zero_d!(Inferred { buf: Vec::new(), bools: Vec::new(), mode: Mode::Empty }),
        Some(Dtype::Bool) => zero_d!(Typed::<bool> { buf: Vec::new() }),
        Some(Dtype::I8) => zero_d!(Typed::<i8> { buf: Vec::new() }),
        Some(Dtype::I16) => zero_d!(Typed::<i16> { buf: Vec::new() }),
        Some(Dtype::I32) => zero_d!(Typed::<i32> { buf: Vec::new() }),
        Some(Dtype::I64) => zero_d!(Typed::<i64> { buf: Vec::new() }),
        Some(Dtype::U8) => zero_d!(Typed::<u8> { buf: Vec::new() }),
        Some(Dtype::U16) => zero_d!(Typed::<u16> { buf: Vec::new() }),
        Some(Dtype::U32) => zero_d!(Typed::<u32> { buf: Vec::new() }),
        Some(Dtype::U64) => zero_d!(Typed::<u64> { buf: Vec::new() }),
        Some(Dtype::F16) => zero_d!(Typed::<F16> { buf: Vec::new() }),
        Some(Dtype::F32) => zero_d!(Typed::<f32> { buf: Vec::new() }),
        Some(Dtype::F64) => zero_d!(Typed::<f64> { buf: Vec::new() }),
    }
}

/// `obj` (read as untyped decoding reads it) as an array target: kept if it
/// is an ndarray of the element type, an error naming both dtypes if it is
/// one of another, None if it is no ndarray.
pub fn from_object(st: &State, obj: &Owned, nd: &NdArrayNode, path: &Path, at: usize) -> Result<Option<Owned>, Fail> {
    match of_dtype(st, obj, nd.dtype, path, at)? {
        Some(array) => check_shape(array, nd, path, at).map(Some),
        None => Ok(None),
    }
}

/// `obj` if it is an ndarray of `dtype`, an error if it is one of another,
/// None if it is no ndarray.
fn of_dtype(st: &State, obj: &Owned, dtype: Option<Dtype>, path: &Path, at: usize) -> Result<Option<Owned>, Fail> {
    // SAFETY: a live object; numpy was imported to make the type.
    unsafe {
        let ndarray = crate::decode::numpy::ndarray_type(st).map_err(|()| Fail::Raised)?;
        if !is_instance(obj.as_ptr(), ndarray as *mut PyObject) {
            return Ok(None);
        }
        existing(obj.as_ptr(), dtype, path, at).map(Some)
    }
}

/// `array` if its shape is the one `nd` states (if it states one).
fn check_shape(array: Owned, nd: &NdArrayNode, path: &Path, at: usize) -> Result<Owned, Fail> {
    let Some(want) = &nd.shape else {
        return Ok(array);
    };
    let mut got = [0usize; MAX_NDIM];
    // SAFETY: a live ndarray; its `shape` (which a subclass could replace)
    // is checked to be a tuple before its items are read.
    let ndim = unsafe {
        let shape = Owned::new(PyObject_GetAttrString(array.as_ptr(), c"shape".as_ptr()))?;
        if PyTuple_Check(shape.as_ptr()) == 0 {
            return Err(invalid("Expected `ndarray` with a tuple as its shape", path, at));
        }
        let ndim = PyTuple_GET_SIZE(shape.as_ptr()).clamp(0, MAX_NDIM as Py_ssize_t) as usize;
        for (i, slot) in got.iter_mut().enumerate().take(ndim) {
            let dim = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape.as_ptr(), i as Py_ssize_t));
            if dim < 0 {
                PyErr_Clear();
                return Err(invalid("Expected `ndarray` with non-negative ints as its shape", path, at));
            }
            *slot = dim as usize;
        }
        ndim
    };
    let dims = &got[..ndim];
    if ndim == want.len() && want.iter().zip(dims).all(|(w, d)| w.is_none_or(|w| w == *d)) {
        return Ok(array);
    }
    Err(shape_error(want, dims, ndim, path, at))
}

#[cold]
fn shape_error(want: &[Option<usize>], dims: &[usize], ndim: usize, path: &Path, at: usize) -> Fail {
    let message = if want.iter().all(Option::is_none) {
        let plural = |n: usize| if n == 1 { "dimension" } else { "dimensions" };
        format!("Expected `array` of {} {}, got {ndim} {}", want.len(), plural(want.len()), plural(ndim))
    } else {
        let shown = |dims: &mut dyn Iterator<Item = String>| {
            let parts: Vec<String> = dims.collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        };
        let want = shown(&mut want.iter().map(|w| w.map_or("*".to_owned(), |w| w.to_string())));
        let got = shown(&mut dims.iter().map(|d| d.to_string()));
        format!("Expected `array` of shape {want}, got shape {got}")
    };
    invalid(&message, path, at)
}

/// An ndarray given to `convert` or read from a numpy extension value:
/// kept as it is if its dtype is `dtype` (any dtype for an inferred one).
unsafe fn existing(obj: *mut PyObject, dtype: Option<Dtype>, path: &Path, at: usize) -> Result<Owned, Fail> {
    let Some(dtype) = dtype else {
        return keep(obj);
    };
    let descr = Owned::new(PyObject_GetAttrString(obj, c"dtype".as_ptr()))?;
    let text = Owned::new(PyObject_GetAttrString(descr.as_ptr(), c"str".as_ptr()))?;
    let name = Owned::new(PyObject_GetAttrString(descr.as_ptr(), c"name".as_ptr()))?;
    if crate::decode::typed::scalars::py_text(text.as_ptr()) == Some(dtype.text()) {
        return keep(obj);
    }
    let mut got = crate::decode::typed::scalars::py_text(name.as_ptr()).unwrap_or("?");
    if got == dtype.name() {
        // The same type in the other byte order.
        got = crate::decode::typed::scalars::py_text(text.as_ptr()).unwrap_or("?");
    }
    Err(invalid(&format!("Expected `ndarray` of `{}`, got `ndarray` of `{got}`", dtype.name()), path, at))
}

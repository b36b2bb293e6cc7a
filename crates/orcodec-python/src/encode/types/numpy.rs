//! numpy arrays and scalars, with `OPT_SERIALIZE_NUMPY`, read without
//! numpy's C API: arrays through the array interface (`__array_struct__`),
//! scalars from the value stored right after the object header.
//!
//! numpy is optional: nothing here imports it. Its types are fetched from
//! `sys.modules` the first time an object might be one of them.
//!
//! Supported element types: float64/32/16, int64/32/16/8, uint64/32/16/8,
//! bool and datetime64 (as RFC 3339 text with the datetime options), in one
//! or more dimensions as nested arrays. What the peers do not write goes to
//! `default` as with them (without one, the peer's error): arrays that are
//! not C-contiguous, 0-d arrays, other element types. Arrays not in native
//! byte order and datetime64 units finer than nanoseconds raise even with a
//! `default`, as in orjson (ormsgpack writes wrong numbers for the former).

use core::ffi::{c_char, c_int, c_void};
use core::ptr::null_mut;
use orcodec_core::datetime::{civil_from_days, days_from_civil, DateText, Style};
use orcodec_core::emit::Emitter;
use pyo3_ffi::*;

use crate::encode::error::{EncodeError, NotSupported};
use crate::encode::walker::{is_msgpack, Walker};
use crate::module::options;
use crate::state::scratch::{slot, Slot};
use crate::state::State;

/// numpy's `PyArrayInterface`, what `__array_struct__` points to.
#[repr(C)]
pub(crate) struct ArrayInterface {
    pub two: c_int,
    pub nd: c_int,
    pub typekind: c_char,
    pub itemsize: c_int,
    pub flags: c_int,
    pub shape: *const Py_ssize_t,
    pub strides: *const Py_ssize_t,
    pub data: *const c_void,
    pub descr: *mut PyObject,
}

pub(crate) const C_CONTIGUOUS: c_int = 0x0001;
pub(crate) const NOT_SWAPPED: c_int = 0x0200;

/// An element type orcodec writes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    F64,
    F32,
    F16,
    I64,
    I32,
    I16,
    I8,
    U64,
    U32,
    U16,
    U8,
    Bool,
    DateTime,
}

impl Kind {
    fn from_interface(typekind: u8, itemsize: c_int) -> Option<Kind> {
        Some(match (typekind, itemsize) {
            (b'f', 8) => Kind::F64,
            (b'f', 4) => Kind::F32,
            (b'f', 2) => Kind::F16,
            (b'i', 8) => Kind::I64,
            (b'i', 4) => Kind::I32,
            (b'i', 2) => Kind::I16,
            (b'i', 1) => Kind::I8,
            (b'u', 8) => Kind::U64,
            (b'u', 4) => Kind::U32,
            (b'u', 2) => Kind::U16,
            (b'u', 1) => Kind::U8,
            (b'b', 1) => Kind::Bool,
            (b'M', 8) => Kind::DateTime,
            _ => return None,
        })
    }
}

/// A datetime64 unit: how many of which base unit one step is.
#[derive(Clone, Copy, Debug)]
struct TimeUnit {
    base: Base,
    count: i64,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Base {
    Year,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
    Micro,
    Nano,
    /// Units with no text here: picoseconds, femtoseconds, attoseconds,
    /// and the generic unit of a `datetime64` with none.
    Pico,
    Femto,
    Atto,
    Generic,
}

impl Base {
    /// numpy's `NPY_DATETIMEUNIT` values, as stored in datetime64 scalars.
    fn from_npy(unit: c_int) -> Option<Base> {
        Some(match unit {
            0 => Base::Year,
            1 => Base::Month,
            2 => Base::Week,
            4 => Base::Day,
            5 => Base::Hour,
            6 => Base::Minute,
            7 => Base::Second,
            8 => Base::Milli,
            9 => Base::Micro,
            10 => Base::Nano,
            11 => Base::Pico,
            12 => Base::Femto,
            13 => Base::Atto,
            14 => Base::Generic,
            _ => return None,
        })
    }

    /// The unit's name in the peers' messages (the generic unit is "NaT" there).
    fn name(self) -> &'static &'static str {
        match self {
            Base::Year => &"years",
            Base::Month => &"months",
            Base::Week => &"weeks",
            Base::Day => &"days",
            Base::Hour => &"hours",
            Base::Minute => &"minutes",
            Base::Second => &"seconds",
            Base::Milli => &"milliseconds",
            Base::Micro => &"microseconds",
            Base::Nano => &"nanoseconds",
            Base::Pico => &"picoseconds",
            Base::Femto => &"femtoseconds",
            Base::Atto => &"attoseconds",
            Base::Generic => &"NaT",
        }
    }

    /// Whether values of this unit have text (down to nanoseconds).
    fn has_text(self) -> bool {
        !matches!(self, Base::Pico | Base::Femto | Base::Atto | Base::Generic)
    }

    fn from_name(name: &str) -> Option<Base> {
        Some(match name {
            "Y" => Base::Year,
            "M" => Base::Month,
            "W" => Base::Week,
            "D" => Base::Day,
            "h" => Base::Hour,
            "m" => Base::Minute,
            "s" => Base::Second,
            "ms" => Base::Milli,
            "us" => Base::Micro,
            "ns" => Base::Nano,
            "ps" => Base::Pico,
            "fs" => Base::Femto,
            "as" => Base::Atto,
            _ => return None,
        })
    }
}

/// The unit in a datetime64 dtype string such as `<M8[10ms]` (`<M8`: generic).
fn parse_unit(dtype: &str) -> Option<TimeUnit> {
    let Some((_, rest)) = dtype.split_once('[') else {
        return Some(TimeUnit { base: Base::Generic, count: 1 });
    };
    let inner = rest.strip_suffix(']')?;
    let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
    let count = if digits == 0 { 1 } else { inner[..digits].parse().ok()? };
    Some(TimeUnit { base: Base::from_name(&inner[digits..])?, count })
}

/// Writes `len` values of type `T` read from `data` as array items: a loop of
/// its own per element type (one instance each), with the write inlined.
#[inline(always)]
unsafe fn row_of<E: Emitter, T: Copy>(e: &mut E, data: *const u8, len: usize, write: impl Fn(&mut E, T)) {
    let p = data as *const T;
    for i in 0..len {
        e.array_item(i);
        // Array data need not be aligned for T.
        write(e, p.add(i).read_unaligned());
    }
}

/// Writes the `len` values of type `T` at `data` as array items through
/// `write` and returns true, when `data` is aligned for `T` (numpy's usual
/// case); else returns false, having written nothing.
#[inline(always)]
unsafe fn items<E: Emitter, T: Copy>(e: &mut E, data: *const u8, len: usize, write: impl Fn(&mut E, &[T])) -> bool {
    if len == 0 {
        return true;
    }
    let p = data as *const T;
    if !p.is_aligned() {
        return false;
    }
    // SAFETY: the array's data holds `len` initialized values of `T` from
    // `data` (C-contiguous, native byte order: checked by `layout`; any bit
    // pattern is a valid int, float or byte), non-null and aligned as just
    // checked, and stays alive and unchanged while the walker holds the
    // array (no Python code runs while the row is written).
    write(e, core::slice::from_raw_parts(p, len));
    true
}

/// numpy's "not a time".
const NAT: i64 = i64::MIN;

/// Microseconds since the epoch for `value` steps of `unit` (one it has
/// text for); None when it overflows or is NaT.
fn to_micros(value: i64, unit: TimeUnit) -> Option<i64> {
    if value == NAT {
        return None;
    }
    let steps = value.checked_mul(unit.count)?;
    let micros_per = |n: i64| steps.checked_mul(n);
    // Years and months: the first day of the year or month they count to.
    let month_start = |months_since_1970: i64| {
        let year = i32::try_from(1970i64.checked_add(months_since_1970.div_euclid(12))?).ok()?;
        let month = months_since_1970.rem_euclid(12) as u32 + 1;
        days_from_civil(year, month, 1).checked_mul(86_400_000_000)
    };
    match unit.base {
        Base::Year => month_start(steps.checked_mul(12)?),
        Base::Month => month_start(steps),
        Base::Week => micros_per(7 * 86_400_000_000),
        Base::Day => micros_per(86_400_000_000),
        Base::Hour => micros_per(3_600_000_000),
        Base::Minute => micros_per(60_000_000),
        Base::Second => micros_per(1_000_000),
        Base::Milli => micros_per(1000),
        Base::Micro => Some(steps),
        Base::Nano => Some(steps.div_euclid(1000)),
        Base::Pico | Base::Femto | Base::Atto | Base::Generic => None,
    }
}

/// 9999-12-30T22:00:00.999999 UTC in microseconds since the epoch: the
/// latest instant orjson writes for units of a week or less (its time
/// library's limit).
const ORJSON_MAX_MICROS: i64 = 253_402_293_600_999_999;

/// The message for a datetime64 value with no text: the value and unit in
/// orjson's words; ormsgpack says "NaT" for NaT.
fn unrepresentable(value: i64, unit: TimeUnit, msgpack: bool) -> String {
    if msgpack && value == NAT {
        return "unrepresentable numpy.datetime64: NaT".into();
    }
    format!("unrepresentable numpy.datetime64: {value} {}", unit.base.name())
}

/// The text of a datetime64 value (naive: no offset unless `OPT_NAIVE_UTC`),
/// for years 0 to 9999 (and in JSON, orjson's limit); otherwise the message.
fn datetime64_text(value: i64, unit: TimeUnit, opts: options::Opt, msgpack: bool) -> Result<DateText, String> {
    let micros = to_micros(value, unit).ok_or_else(|| unrepresentable(value, unit, msgpack))?;
    let (year, month, day) = civil_from_days(micros.div_euclid(86_400_000_000));
    let beyond_orjson = !msgpack && micros > ORJSON_MAX_MICROS && !matches!(unit.base, Base::Year | Base::Month);
    if !(0..=9999).contains(&year) || beyond_orjson {
        return Err(unrepresentable(value, unit, msgpack));
    }
    let of_day = micros.rem_euclid(86_400_000_000);
    let seconds = (of_day / 1_000_000) as i32;
    let style = Style { omit_microseconds: opts & options::OMIT_MICROSECONDS != 0, utc_z: opts & options::UTC_Z != 0 };
    Ok(DateText::build(|text| {
        text.date(year as i32, month as i32, day as i32);
        text.push(b'T');
        text.time(seconds / 3600, seconds / 60 % 60, seconds % 60, (of_day % 1_000_000) as i32, style);
        if opts & options::NAIVE_UTC != 0 {
            text.offset(0, style);
        }
    }))
}

/// IEEE half precision to single (exact: every half is a float).
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = ((bits >> 15) as u32) << 31;
    let exponent = ((bits >> 10) & 0x1f) as u32;
    let mantissa = (bits & 0x3ff) as u32;
    let magnitude = match exponent {
        // Zero and subnormals: mantissa * 2**-24, exact in f32.
        0 => {
            let value = mantissa as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -value } else { value };
        }
        // Infinities, and NaNs with their payload, made quiet (the quiet bit
        // set) as the hardware conversion ormsgpack uses does.
        0x1f if mantissa == 0 => 0x7f80_0000,
        0x1f => 0x7fc0_0000 | (mantissa << 13),
        _ => ((exponent + 127 - 15) << 23) | (mantissa << 13),
    };
    f32::from_bits(sign | magnitude)
}

/// The numpy types met so far (borrowed from the numpy module, which is never unloaded).
pub(crate) struct NumpyTypes {
    pub ndarray: *mut PyTypeObject,
    /// `numpy.generic`, the base of every scalar type (NULL if not found).
    pub generic: *mut PyTypeObject,
    /// Scalar types and what they hold.
    pub scalars: Vec<(*mut PyTypeObject, Kind)>,
}

impl Drop for NumpyTypes {
    fn drop(&mut self) {
        // SAFETY: each type was a new reference when it was kept.
        unsafe {
            for ty in [self.ndarray, self.generic].into_iter().chain(self.scalars.iter().map(|&(t, _)| t)) {
                Py_XDECREF(ty as *mut PyObject);
            }
        }
    }
}

/// The interpreter's numpy types, once numpy is imported there.
const TYPES: Slot<Option<NumpyTypes>> = Slot::at(slot::NUMPY_TYPES);

/// numpy's types, or None while numpy is not imported.
pub(crate) unsafe fn numpy_types(st: &'static State) -> Option<&'static NumpyTypes> {
    // Looking the types up may run Python code: the slot is read and
    // written only before and after it.
    if st.scratch.get(TYPES).is_none() {
        let module = PyImport_GetModule(st.str_numpy);
        if module.is_null() {
            PyErr_Clear();
            return None;
        }
        let get = |name: &core::ffi::CStr| {
            let t = PyObject_GetAttrString(module, name.as_ptr());
            if t.is_null() || PyType_Check(t) == 0 {
                PyErr_Clear();
                Py_XDECREF(t);
                return null_mut();
            }
            // Kept with the state: numpy is never unloaded from an interpreter.
            t as *mut PyTypeObject
        };
        let ndarray = get(c"ndarray");
        let generic = get(c"generic");
        let mut scalars = Vec::new();
        for (name, kind) in [
            (c"float64", Kind::F64),
            (c"float32", Kind::F32),
            (c"float16", Kind::F16),
            (c"int64", Kind::I64),
            (c"int32", Kind::I32),
            (c"int16", Kind::I16),
            (c"int8", Kind::I8),
            (c"uint64", Kind::U64),
            (c"uint32", Kind::U32),
            (c"uint16", Kind::U16),
            (c"uint8", Kind::U8),
            (c"bool_", Kind::Bool),
            (c"datetime64", Kind::DateTime),
        ] {
            let t = get(name);
            if !t.is_null() {
                #[expect(clippy::disallowed_methods, reason = "thirteen types, once per process")]
                scalars.push((t, kind));
            }
        }
        Py_DECREF(module);
        let types = NumpyTypes { ndarray, generic, scalars };
        if types.ndarray.is_null() {
            return None;
        }
        let kept = st.scratch.get(TYPES);
        if kept.is_none() {
            *kept = Some(types);
        }
    }
    st.scratch.get(TYPES).as_ref()
}

/// An array's layout, read from its interface.
struct Layout {
    kind: Kind,
    shape: Vec<usize>,
    data: *const u8,
    itemsize: usize,
    unit: Option<TimeUnit>,
}

impl<E: Emitter> Walker<E> {
    /// A numpy array or scalar (`OPT_SERIALIZE_NUMPY`): None when `obj` is
    /// neither, so the walker goes on to `default`.
    #[cold]
    pub(crate) unsafe fn numpy(&mut self, obj: *mut PyObject) -> Option<Result<(), EncodeError>> {
        let types = numpy_types(self.st)?;
        let ty = Py_TYPE(obj);
        if ty == types.ndarray {
            return Some(self.ndarray(obj));
        }
        let kind = types.scalars.iter().find(|&&(t, _)| t == ty)?.1;
        Some(self.numpy_scalar(obj, kind))
    }

    unsafe fn numpy_scalar(&mut self, obj: *mut PyObject, kind: Kind) -> Result<(), EncodeError> {
        // numpy's scalar objects store their value right after the object
        // header (`obval` in arrayscalars.h), naturally aligned.
        let value = (obj as *const u8).add(core::mem::size_of::<PyObject>());
        let unit = if kind == Kind::DateTime {
            // `obmeta` follows: the unit (NPY_DATETIMEUNIT) and its multiple.
            let meta = value.add(8) as *const c_int;
            let base = Base::from_npy(*meta).unwrap_or(Base::Generic);
            if !base.has_text() {
                return Err(EncodeError::NumpyDateTimeUnit(base.name()));
            }
            Some(TimeUnit { base, count: *meta.add(1) as i64 })
        } else {
            None
        };
        self.element(kind, value, unit)
    }

    unsafe fn ndarray(&mut self, obj: *mut PyObject) -> Result<(), EncodeError> {
        let capsule = PyObject_GetAttr(obj, self.st.str_array_struct);
        if capsule.is_null() {
            return Err(EncodeError::Raised);
        }
        let layout = self.layout(obj, capsule);
        // The capsule owns the interface struct, and holds the array alive;
        // the data stays valid while `obj` (kept by our caller) lives.
        let result = match layout {
            Ok(Ok(layout)) => self.dimension(&layout, 0, layout.data).map(|_| ()),
            Ok(Err(reason)) => self.numpy_to_default(obj, reason),
            Err(e) => Err(e),
        };
        Py_DECREF(capsule);
        result
    }

    unsafe fn layout(
        &mut self,
        obj: *mut PyObject,
        capsule: *mut PyObject,
    ) -> Result<Result<Layout, NotSupported>, EncodeError> {
        let interface = PyCapsule_GetPointer(capsule, null_mut()) as *const ArrayInterface;
        if interface.is_null() || (*interface).two != 2 {
            PyErr_Clear();
            return Ok(Err(NotSupported::DataType));
        }
        let interface = &*interface;
        // In the peers' order of checks.
        if interface.flags & C_CONTIGUOUS == 0 {
            return Ok(Err(NotSupported::NotContiguous));
        }
        if interface.flags & NOT_SWAPPED == 0 {
            return Err(EncodeError::NumpyByteOrder);
        }
        if interface.nd == 0 {
            // A 0-d array: both peers refuse it (`.item()` in `default` gives its value).
            return Ok(Err(NotSupported::DataType));
        }
        let Some(kind) = Kind::from_interface(interface.typekind as u8, interface.itemsize) else {
            return Ok(Err(NotSupported::DataType));
        };
        let shape = (0..interface.nd as usize).map(|i| *interface.shape.add(i) as usize).collect();
        let unit = if kind == Kind::DateTime {
            let Some(unit) = datetime_unit(self.st, obj)? else {
                return Ok(Err(NotSupported::DataType));
            };
            if !unit.base.has_text() {
                return Err(EncodeError::NumpyDateTimeUnit(unit.base.name()));
            }
            Some(unit)
        } else {
            None
        };
        Ok(Ok(Layout { kind, shape, data: interface.data as *const u8, itemsize: interface.itemsize as usize, unit }))
    }

    /// Writes the sub-array of dimension `dim` starting at `data`; returns
    /// the address after it (C order: the last index moves fastest).
    unsafe fn dimension(&mut self, layout: &Layout, dim: usize, mut data: *const u8) -> Result<*const u8, EncodeError> {
        let len = layout.shape[dim];
        self.enter()?;
        self.emitter.begin_array(len);
        if dim + 1 == layout.shape.len() {
            self.row(layout, data, len)?;
            data = data.add(len * layout.itemsize);
        } else if layout.shape[dim + 1..].contains(&0) {
            // Zero-size inner dimensions: nested empty arrays, no data to read.
            // Their output is unbounded by the array's memory (shape
            // (2**31, 1024, 0) holds nothing), so the walk stops at the
            // first one after the output could not grow. Rows with data need
            // no such check: their walk is bounded by the data.
            for i in 0..len {
                self.emitter.array_item(i);
                self.dimension(layout, dim + 1, data).map_err(|e| self.at_index(i, e))?;
                self.check_output()?;
            }
        } else {
            for i in 0..len {
                self.emitter.array_item(i);
                data = self.dimension(layout, dim + 1, data).map_err(|e| self.at_index(i, e))?;
            }
        }
        self.emitter.end_array(len);
        self.leave();
        Ok(data)
    }

    /// The `len` elements of an innermost dimension, from `data`: one loop
    /// per element type, so the type is matched once per row, not per element.
    unsafe fn row(&mut self, layout: &Layout, data: *const u8, len: usize) -> Result<(), EncodeError> {
        let (d, e) = (data, &mut self.emitter);
        // Aligned data (numpy's usual) is a slice the backend may write in one loop.
        let done = match layout.kind {
            Kind::F64 => items(e, d, len, |e, v: &[f64]| e.f64_items(v)),
            Kind::I64 => items(e, d, len, |e, v: &[i64]| e.i64_items(v)),
            Kind::I32 => items(e, d, len, |e, v: &[i32]| e.i64_items(v)),
            Kind::I16 => items(e, d, len, |e, v: &[i16]| e.i64_items(v)),
            Kind::I8 => items(e, d, len, |e, v: &[i8]| e.i64_items(v)),
            Kind::U64 => items(e, d, len, |e, v: &[u64]| e.u64_items(v)),
            Kind::U32 => items(e, d, len, |e, v: &[u32]| e.u64_items(v)),
            Kind::U16 => items(e, d, len, |e, v: &[u16]| e.u64_items(v)),
            Kind::U8 => items(e, d, len, |e, v: &[u8]| e.u64_items(v)),
            Kind::Bool => items(e, d, len, |e, v: &[u8]| e.bool_items(v)),
            _ => false,
        };
        if done {
            return Ok(());
        }
        self.row_unaligned(layout, data, len)
    }

    /// As `row`, element by element, for data that may be unaligned.
    #[inline(never)]
    unsafe fn row_unaligned(&mut self, layout: &Layout, data: *const u8, len: usize) -> Result<(), EncodeError> {
        let (d, e) = (data, &mut self.emitter);
        match layout.kind {
            Kind::F64 => row_of(e, d, len, |e, v: f64| e.f64(v)),
            Kind::F32 => row_of(e, d, len, |e, v: f32| e.f32(v)),
            Kind::F16 => row_of(e, d, len, |e, v: u16| e.f32(f16_to_f32(v))),
            Kind::I64 => row_of(e, d, len, |e, v: i64| e.i64(v)),
            Kind::I32 => row_of(e, d, len, |e, v: i32| e.i64(v as i64)),
            Kind::I16 => row_of(e, d, len, |e, v: i16| e.i64(v as i64)),
            Kind::I8 => row_of(e, d, len, |e, v: i8| e.i64(v as i64)),
            Kind::U64 => row_of(e, d, len, |e, v: u64| e.u64(v)),
            Kind::U32 => row_of(e, d, len, |e, v: u32| e.u64(v as u64)),
            Kind::U16 => row_of(e, d, len, |e, v: u16| e.u64(v as u64)),
            Kind::U8 => row_of(e, d, len, |e, v: u8| e.u64(v as u64)),
            Kind::Bool => row_of(e, d, len, |e, v: u8| e.bool(v != 0)),
            Kind::DateTime => {
                for i in 0..len {
                    self.emitter.array_item(i);
                    self.element(Kind::DateTime, data.add(i * 8), layout.unit).map_err(|e| self.at_index(i, e))?;
                }
            }
        }
        Ok(())
    }

    /// One element of `kind` stored at `at` (possibly unaligned).
    #[inline(always)]
    unsafe fn element(&mut self, kind: Kind, at: *const u8, unit: Option<TimeUnit>) -> Result<(), EncodeError> {
        match kind {
            Kind::F64 => self.emitter.f64((at as *const f64).read_unaligned()),
            Kind::F32 => self.emitter.f32((at as *const f32).read_unaligned()),
            Kind::F16 => self.emitter.f32(f16_to_f32((at as *const u16).read_unaligned())),
            Kind::I64 => self.emitter.i64((at as *const i64).read_unaligned()),
            Kind::I32 => self.emitter.i64((at as *const i32).read_unaligned() as i64),
            Kind::I16 => self.emitter.i64((at as *const i16).read_unaligned() as i64),
            Kind::I8 => self.emitter.i64(*(at as *const i8) as i64),
            Kind::U64 => self.emitter.u64((at as *const u64).read_unaligned()),
            Kind::U32 => self.emitter.u64((at as *const u32).read_unaligned() as u64),
            Kind::U16 => self.emitter.u64((at as *const u16).read_unaligned() as u64),
            Kind::U8 => self.emitter.u64(*at as u64),
            Kind::Bool => self.emitter.bool(*at != 0),
            Kind::DateTime => {
                let unit = unit.ok_or(EncodeError::NumpyDateTimeUnit(Base::Generic.name()))?;
                let value = (at as *const i64).read_unaligned();
                match datetime64_text(value, unit, self.opts, is_msgpack::<E>()) {
                    Ok(text) => self.emitter.ascii(text.as_bytes()),
                    Err(message) => {
                        self.ctx().text = Some(message);
                        return Err(EncodeError::NumpyDateTime);
                    }
                }
            }
        }
        Ok(())
    }

    /// An array orcodec does not write: `default`'s, or an error saying why.
    unsafe fn numpy_to_default(&mut self, obj: *mut PyObject, reason: NotSupported) -> Result<(), EncodeError> {
        if !self.has_default() {
            self.ctx().blame(obj);
            return Err(EncodeError::Numpy(reason));
        }
        self.call_default(obj)
    }
}

/// The unit of a datetime64 array, from its dtype's string (`<M8[ns]`).
unsafe fn datetime_unit(st: &State, obj: *mut PyObject) -> Result<Option<TimeUnit>, EncodeError> {
    let s = st;
    let dtype = PyObject_GetAttr(obj, s.str_dtype);
    if dtype.is_null() {
        return Err(EncodeError::Raised);
    }
    let text = PyObject_GetAttr(dtype, s.str_str);
    Py_DECREF(dtype);
    if text.is_null() {
        return Err(EncodeError::Raised);
    }
    let mut len: Py_ssize_t = 0;
    let data = PyUnicode_AsUTF8AndSize(text, &mut len);
    let unit = if data.is_null() {
        PyErr_Clear();
        None
    } else {
        core::str::from_utf8(core::slice::from_raw_parts(data as *const u8, len as usize)).ok().and_then(parse_unit)
    };
    Py_DECREF(text);
    Ok(unit)
}

//! datetime, date, time, UUID and Decimal.
//!
//! - datetime: RFC 3339 text (a `T`, `t` or space between date and time, a
//!   fraction of any length rounded to microseconds, `Z` or an offset; no
//!   offset gives a naive datetime); in MessagePack also the timestamp
//!   extension (UTC). With `strict=False`, numbers and numeric text are
//!   seconds since the Unix epoch (UTC).
//! - date: `YYYY-MM-DD`; time: `HH:MM:SS[.fraction][offset]`.
//! - timedelta: an ISO 8601 duration as msgspec reads it
//!   (`orcodec_core::duration`); with `strict=False` also numbers and
//!   numeric text, as seconds.
//! - UUID: canonical text or 32 hex digits, either case; in MessagePack also
//!   16 bytes of bin.
//! - Decimal: text (anything `Decimal()` accepts), and a JSON number exactly
//!   as written; other numbers by their shortest text.
//!
//! Offsets other than zero get a `datetime.timezone` each, made once per
//! offset and kept; zero is `timezone.utc`.

use core::ffi::c_char;
use pyo3_ffi::*;
use std::collections::HashMap;

use orcodec_core::duration::{parse_duration, Duration, DurationError};
use orcodec_core::parse::{Date, Time};

use crate::cpython::datetime::{is_date, is_datetime, is_delta, is_time};
use crate::cpython::object::Owned;
use crate::decode::pydatetime as pure;
use crate::decode::typed::error::{invalid, Fail};
use crate::decode::typed::input::{Format, Head, Input, Value};
use crate::decode::typed::node::{FastLeaf, Node, NodeId};
use crate::decode::typed::path::Path;
use crate::decode::typed::scalars::{lax_number, py_text, text_of, LaxNumber};
use crate::decode::typed::{is_instance, keep, type_error, Ctx};
use crate::state::scratch::{slot, Slot};
use crate::state::State;

/// What typed decoding keeps of the standard library's types, per
/// interpreter: `datetime.timezone` objects by offset in seconds (owned;
/// there are fewer than 3,000 possible offsets), the zone of the last
/// offset other than zero (for the common case of a document whose
/// datetimes share one offset; borrowed from `zones`, (0, NULL) at first),
/// where `uuid.UUID` keeps `int` and `is_safe` (its `__slots__`) with
/// `SafeUUID.unknown` (owned), and the Decimal layout check. No Python code
/// runs while any of it is used.
#[derive(Default)]
pub struct Kept {
    zones: HashMap<i32, *mut PyObject>,
    last_zone: (i32, *mut PyObject),
    uuid_layout: Option<(*mut PyObject, isize, isize, *mut PyObject)>,
    decimal: crate::cpython::decimal::Checked,
}

impl Drop for Kept {
    fn drop(&mut self) {
        // SAFETY: the zones and `SafeUUID.unknown` are owned references.
        unsafe {
            self.zones.values().for_each(|&tz| Py_DECREF(tz));
            if let Some((_, _, _, unknown)) = self.uuid_layout {
                Py_DECREF(unknown);
            }
        }
    }
}

const KEPT: Slot<Kept> = Slot::at(slot::STDTYPES);

#[inline(always)]
#[allow(clippy::mut_from_ref)]
unsafe fn kept(st: &State) -> &mut Kept {
    st.scratch.get(KEPT)
}

/// The interpreter's C `datetime` API, or the error making a datetime
/// raises without it.
#[inline(always)]
unsafe fn capi(st: &State) -> Result<&PyDateTime_CAPI, Fail> {
    let capi = datetime_api(st);
    if capi.is_null() {
        crate::cpython::datetime::no_capi();
        return Err(Fail::Raised);
    }
    Ok(&*capi)
}

/// Whether `obj` is an instance of the pure-Python `datetime.<name>`, in an
/// interpreter without the C module (never true elsewhere).
#[inline(always)]
unsafe fn pure_instance(st: &State, name: &core::ffi::CStr, obj: *mut PyObject) -> bool {
    datetime_api(st).is_null() && pure::is_instance(name, obj)
}

/// The interpreter's C `datetime` API, loaded (importing `datetime`: a
/// datetime type was named, or a timestamp is read) the first time; NULL
/// where it cannot be had.
#[inline(always)]
unsafe fn datetime_api(st: &State) -> *const PyDateTime_CAPI {
    let capi = st.datetime_capi();
    if capi.is_null() {
        return st.load_datetime(true);
    }
    capi
}

/// A borrowed `tzinfo` for an offset: None, UTC, or a kept fixed zone.
#[inline(always)]
unsafe fn zone(st: &State, offset: Option<i32>) -> Result<*mut PyObject, Fail> {
    match offset {
        None => Ok(Py_None()),
        Some(0) => Ok(capi(st)?.TimeZone_UTC),
        Some(seconds) => {
            let (last, tz) = kept(st).last_zone;
            if last == seconds {
                return Ok(tz);
            }
            other_zone(st, seconds)
        }
    }
}

#[inline(never)]
unsafe fn other_zone(st: &State, seconds: i32) -> Result<*mut PyObject, Fail> {
    if let Some(&tz) = kept(st).zones.get(&seconds) {
        kept(st).last_zone = (seconds, tz);
        return Ok(tz);
    }
    let api = capi(st)?;
    let days = seconds.div_euclid(86_400);
    let delta = Owned::new((api.Delta_FromDelta)(days, seconds.rem_euclid(86_400), 0, 1, api.DeltaType))?;
    let tz = (api.TimeZone_FromTimeZone)(delta.as_ptr(), core::ptr::null_mut());
    if tz.is_null() {
        return Err(Fail::Raised);
    }
    kept(st).zones.insert(seconds, tz);
    kept(st).last_zone = (seconds, tz);
    Ok(tz)
}

unsafe fn new_datetime(st: &State, d: Date, t: Time) -> Result<Owned, Fail> {
    if datetime_api(st).is_null() {
        let fields = [d.year, d.month as i32, d.day as i32, t.hour as i32, t.minute as i32, t.second as i32];
        let fields = [&fields[..], &[t.microsecond as i32]].concat();
        return Ok(Owned::new(pure::make(st, c"datetime", &fields, Some(t.offset)))?);
    }
    let tz = zone(st, t.offset)?;
    if let Some(made) = crate::cpython::datetime::new_datetime(datetime_api(st), d, t, tz) {
        return Ok(Owned::new(made)?);
    }
    let api = capi(st)?;
    Ok(Owned::new((api.DateTime_FromDateAndTime)(
        d.year,
        d.month as i32,
        d.day as i32,
        t.hour as i32,
        t.minute as i32,
        t.second as i32,
        t.microsecond as i32,
        tz,
        api.DateTimeType,
    ))?)
}

/// A UTC datetime `seconds` (and `micros`) after the Unix epoch, or None
/// outside years 1 to 9999.
unsafe fn utc_datetime(st: &State, seconds: i64, micros: u32) -> Result<Option<Owned>, Fail> {
    let days = seconds.div_euclid(86_400);
    let second_of_day = seconds.rem_euclid(86_400) as u32;
    let (year, month, day) = orcodec_core::datetime::civil_from_days(days);
    if !(1..=9999).contains(&year) {
        return Ok(None);
    }
    let date = Date { year: year as i32, month: month as u8, day: day as u8 };
    let time = Time {
        hour: (second_of_day / 3600) as u8,
        minute: (second_of_day / 60 % 60) as u8,
        second: (second_of_day % 60) as u8,
        microsecond: micros,
        offset: Some(0),
    };
    new_datetime(st, date, time).map(Some)
}

/// A lax epoch number (seconds) as a UTC datetime.
fn epoch(st: &State, f: f64, path: &Path, at: usize) -> Result<Owned, Fail> {
    if !f.is_finite() || f.abs() > 1e12 {
        return Err(invalid("Timestamp is out of range", path, at));
    }
    let seconds = f.floor();
    let mut micros = ((f - seconds) * 1e6).round() as u32;
    let mut seconds = seconds as i64;
    if micros >= 1_000_000 {
        micros -= 1_000_000;
        seconds += 1;
    }
    // SAFETY: makes a datetime.
    match unsafe { utc_datetime(st, seconds, micros)? } {
        Some(dt) => Ok(dt),
        None => Err(invalid("Timestamp is out of range", path, at)),
    }
}

pub fn datetime<I: Input>(ctx: &mut Ctx, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let lax = !ctx.strict;
    let st = ctx.st;
    match h.v {
        Value::Ext(-1, data) if I::FORMAT == Format::Msgpack => {
            let Some((seconds, nanos)) = orcodec_core::msgpack::reader::decode_timestamp(data) else {
                return Err(Fail::Syntax(orcodec_core::error::DecodeError::new(
                    orcodec_core::error::DecodeErrorKind::InvalidTimestamp { len: data.len() },
                    h.at,
                )));
            };
            // SAFETY: makes a datetime.
            match unsafe { utc_datetime(st, seconds, nanos / 1000)? } {
                Some(dt) => Ok(dt),
                None => Err(invalid("Timestamp is out of range", path, h.at)),
            }
        }
        Value::I64(v) if lax => epoch(st, v as f64, path, h.at),
        Value::U64(v) if lax => epoch(st, v as f64, path, h.at),
        Value::F64(v) if lax => epoch(st, v, path, h.at),
        // SAFETY: a live object.
        Value::Py(obj) if unsafe { is_datetime(datetime_api(st), obj) || pure_instance(st, c"datetime", obj) } => unsafe {
            keep(obj)
        },
        _ => {
            if let Value::Py(obj) = h.v {
                // SAFETY: a live object.
                if lax && unsafe { PyLong_Check(obj) != 0 && PyBool_Check(obj) == 0 || PyFloat_Check(obj) != 0 } {
                    // SAFETY: a live number.
                    let f = unsafe { PyFloat_AsDouble(obj) };
                    return epoch(st, f, path, h.at);
                }
            }
            let Some(text) = text_of(&h.v) else {
                return Err(type_error::<I>(ctx, id, &h, path));
            };
            if let Some((d, t)) = orcodec_core::parse::parse_datetime(text.as_bytes()) {
                // SAFETY: makes a datetime.
                return unsafe { new_datetime(st, d, t) };
            }
            if lax {
                match lax_number(text, false) {
                    Some(LaxNumber::Int(v)) => return epoch(st, v as f64, path, h.at),
                    Some(LaxNumber::Float(f)) => return epoch(st, f, path, h.at),
                    _ => {}
                }
            }
            Err(invalid("Invalid RFC3339 encoded datetime", path, h.at))
        }
    }
}

pub fn date<I: Input>(ctx: &mut Ctx, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let st = ctx.st;
    if let Value::Py(obj) = h.v {
        // SAFETY: a live object.
        // SAFETY: loads the C API, or none.
        let capi = unsafe { datetime_api(st) };
        // SAFETY: a live object.
        let is_date = unsafe {
            (is_date(capi, obj) && !is_datetime(capi, obj))
                || (pure_instance(st, c"date", obj) && !pure_instance(st, c"datetime", obj))
        };
        if is_date {
            // SAFETY: a new reference to a live object.
            return unsafe { keep(obj) };
        }
    }
    let Some(text) = text_of(&h.v) else {
        return Err(type_error::<I>(ctx, id, &h, path));
    };
    match orcodec_core::parse::parse_date(text.as_bytes()) {
        // SAFETY: makes a date.
        Some(d) => unsafe { Ok(Owned::new(new_date(st, d)?)?) },
        None => Err(invalid("Invalid RFC3339 encoded date", path, h.at)),
    }
}

/// A new `datetime.date` (NULL with an exception set on failure).
#[inline(always)]
unsafe fn new_date(st: &State, d: Date) -> Result<*mut PyObject, Fail> {
    if datetime_api(st).is_null() {
        return Ok(pure::make(st, c"date", &[d.year, d.month as i32, d.day as i32], None));
    }
    if let Some(made) = crate::cpython::datetime::new_date(datetime_api(st), d) {
        return Ok(made);
    }
    let api = capi(st)?;
    Ok((api.Date_FromDate)(d.year, d.month as i32, d.day as i32, api.DateType))
}

// The values of leaf fields read by the class validator's key loop, one
// function per kind of [`FastLeaf`] made from text (called directly from
// the loop: no second dispatch, and each function saves only the registers
// its own kind needs): from the str `text`, in the common case that
// [`crate::decode::typed::scalar`] would make it exactly this way, a new
// reference. NULL when that is not the case (the text is not in the form
// read here: the caller then lets `scalar` give the value, conversion or
// error it gives any text), or with an exception set when making the object
// failed. With it, whether making it may have run Python code (a first
// use's lookups; on CPython 3.11, where making an object the collector
// tracks may start a collection, the UUID): the key loop's stores rely on
// nothing having run between two of them.

/// The `*_from_text` function of `fast` (one of the text forms of
/// [`FastLeaf`]; the field's node `id`): one small out-of-line dispatch
/// that jumps to it, for the JSON key loop, which keeps a single call site.
///
/// # Safety
/// The GIL is held; `fast` and `id` are a field's.
#[inline(never)]
pub unsafe fn from_text(ctx: &Ctx, fast: FastLeaf, id: NodeId, text: &str) -> (*mut PyObject, bool) {
    let st = ctx.st;
    match fast {
        FastLeaf::Uuid => uuid_from_text(st, text),
        FastLeaf::DateTime => datetime_from_text(st, text),
        FastLeaf::Date => date_from_text(st, text),
        FastLeaf::Decimal => decimal_from_plain_text(st, text),
        _ => choice_from_text(ctx, id, text),
    }
}

/// A null result: not made here.
const NOT_HERE: (*mut PyObject, bool) = (core::ptr::null_mut(), false);

/// `uuid.UUID` from its text (see above).
///
/// # Safety
/// The GIL is held.
#[inline(never)]
pub unsafe fn uuid_from_text(st: &State, text: &str) -> (*mut PyObject, bool) {
    match orcodec_core::parse::parse_uuid(text.as_bytes()) {
        Some(value) => {
            // The collector may run when an instance of `UUID` (which it
            // tracks) is made, before 3.12; the layout's first lookups may
            // run code.
            let pure = cfg!(Py_3_12) && kept(st).uuid_layout.is_some();
            (new_uuid(st, value).map_or(core::ptr::null_mut(), Owned::into_raw), pure)
        }
        None => NOT_HERE,
    }
}

/// `datetime.datetime` from RFC 3339 text (see above).
///
/// # Safety
/// The GIL is held.
#[inline(never)]
pub unsafe fn datetime_from_text(st: &State, text: &str) -> (*mut PyObject, bool) {
    match orcodec_core::parse::parse_datetime(text.as_bytes()) {
        Some((d, t)) => (new_datetime(st, d, t).map_or(core::ptr::null_mut(), Owned::into_raw), true),
        None => NOT_HERE,
    }
}

/// `datetime.date` from `YYYY-MM-DD` (see above).
///
/// # Safety
/// The GIL is held.
#[inline(never)]
pub unsafe fn date_from_text(st: &State, text: &str) -> (*mut PyObject, bool) {
    match orcodec_core::parse::parse_date(text.as_bytes()) {
        Some(d) => (new_date(st, d).unwrap_or(core::ptr::null_mut()), true),
        None => NOT_HERE,
    }
}

/// `decimal.Decimal` from text in plain notation (see above).
///
/// # Safety
/// The GIL is held.
#[inline(never)]
pub unsafe fn decimal_from_plain_text(st: &State, text: &str) -> (*mut PyObject, bool) {
    let ty = st.found.decimal_type.found();
    if ty.is_null() || !crate::cpython::decimal::checked(&kept(st).decimal, ty) {
        // The first use: `scalar` looks the type up and has its layout checked.
        return NOT_HERE;
    }
    // Before 3.12, making an object the collector tracks may start a
    // collection.
    let pure = cfg!(Py_3_12) || (*(ty as *mut PyTypeObject)).tp_flags & Py_TPFLAGS_HAVE_GC == 0;
    match crate::cpython::decimal::from_plain_text(&kept(st).decimal, ty, text.as_bytes()) {
        Some(made) => (made, pure),
        None => NOT_HERE,
    }
}

/// The enum member or Literal value of node `id` (a choice with str
/// values) whose value is `text` (see above).
///
/// # Safety
/// The GIL is held; `id` is a node of `ctx`'s compiled type.
#[inline(never)]
pub unsafe fn choice_from_text(ctx: &Ctx, id: NodeId, text: &str) -> (*mut PyObject, bool) {
    if let Node::Choice(ch) = ctx.c.node(id) {
        if let Some(member) = ch.strs.get(text.as_bytes()) {
            Py_INCREF(member.as_ptr());
            return (member.as_ptr(), true);
        }
    }
    NOT_HERE
}

pub fn time<I: Input>(ctx: &mut Ctx, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let st = ctx.st;
    if let Value::Py(obj) = h.v {
        // SAFETY: a live object.
        if unsafe { is_time(datetime_api(st), obj) || pure_instance(st, c"time", obj) } {
            // SAFETY: a new reference to a live object.
            return unsafe { keep(obj) };
        }
    }
    let Some(text) = text_of(&h.v) else {
        return Err(type_error::<I>(ctx, id, &h, path));
    };
    match orcodec_core::parse::parse_time(text.as_bytes()) {
        // SAFETY: makes a time.
        Some(t) => unsafe {
            if datetime_api(st).is_null() {
                let fields = [t.hour as i32, t.minute as i32, t.second as i32, t.microsecond as i32];
                return Ok(Owned::new(pure::make(st, c"time", &fields, Some(t.offset)))?);
            }
            let api = capi(st)?;
            let tz = zone(st, t.offset)?;
            Ok(Owned::new((api.Time_FromTime)(
                t.hour as i32,
                t.minute as i32,
                t.second as i32,
                t.microsecond as i32,
                tz,
                api.TimeType,
            ))?)
        },
        None => Err(invalid("Invalid RFC3339 encoded time", path, h.at)),
    }
}

/// A new `datetime.timedelta` of `d`.
unsafe fn new_timedelta(st: &State, d: Duration) -> Result<Owned, Fail> {
    // |days| <= 999999999: every field fits in an i32.
    let (days, seconds, micros) = d.days_seconds_micros();
    let (days, seconds, micros) = (days as i32, seconds as i32, micros as i32);
    if datetime_api(st).is_null() {
        return Ok(Owned::new(pure::make(st, c"timedelta", &[days, seconds, micros], None))?);
    }
    let api = capi(st)?;
    Ok(Owned::new((api.Delta_FromDelta)(days, seconds, micros, 1, api.DeltaType))?)
}

/// A lax number of seconds as a timedelta.
fn seconds_timedelta(st: &State, d: Option<Duration>, path: &Path, at: usize) -> Result<Owned, Fail> {
    match d {
        // SAFETY: makes a timedelta.
        Some(d) => unsafe { new_timedelta(st, d) },
        None => Err(invalid(DurationError::OutOfRange.message(), path, at)),
    }
}

pub fn timedelta<I: Input>(ctx: &mut Ctx, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let lax = !ctx.strict;
    let st = ctx.st;
    let whole = |v: i128| Duration::from_whole_seconds(v);
    match h.v {
        Value::I64(v) if lax => seconds_timedelta(st, whole(v.into()), path, h.at),
        Value::U64(v) if lax => seconds_timedelta(st, whole(v.into()), path, h.at),
        Value::BigInt(_) if lax => seconds_timedelta(st, None, path, h.at),
        Value::F64(v) if lax => seconds_timedelta(st, Duration::from_seconds(v), path, h.at),
        // SAFETY: a live object.
        Value::Py(obj) if unsafe { is_delta(datetime_api(st), obj) || pure_instance(st, c"timedelta", obj) } => unsafe {
            keep(obj)
        },
        _ => {
            if let Value::Py(obj) = h.v {
                // SAFETY: a live object.
                if lax && unsafe { PyLong_Check(obj) != 0 && PyBool_Check(obj) == 0 } {
                    // SAFETY: a live int; one beyond 64 bits (the overflow
                    // it raises cleared) is out of range.
                    let v = unsafe {
                        let v = PyLong_AsLongLong(obj);
                        if v == -1 && !PyErr_Occurred().is_null() {
                            PyErr_Clear();
                            None
                        } else {
                            Some(v)
                        }
                    };
                    return seconds_timedelta(st, v.and_then(|v| whole(v.into())), path, h.at);
                }
                // SAFETY: a live object.
                if lax && unsafe { PyFloat_Check(obj) != 0 } {
                    // SAFETY: a live float.
                    let f = unsafe { PyFloat_AsDouble(obj) };
                    return seconds_timedelta(st, Duration::from_seconds(f), path, h.at);
                }
            }
            let Some(text) = text_of(&h.v) else {
                return Err(type_error::<I>(ctx, id, &h, path));
            };
            if lax {
                match lax_number(text, true) {
                    Some(LaxNumber::Int(v)) => return seconds_timedelta(st, whole(v.into()), path, h.at),
                    Some(LaxNumber::UInt(v)) => return seconds_timedelta(st, whole(v.into()), path, h.at),
                    Some(LaxNumber::Big) => return seconds_timedelta(st, None, path, h.at),
                    Some(LaxNumber::Float(f)) => return seconds_timedelta(st, Duration::from_seconds(f), path, h.at),
                    None => {}
                }
            }
            match parse_duration(text.as_bytes()) {
                // SAFETY: makes a timedelta.
                Ok(d) => unsafe { new_timedelta(st, d) },
                Err(e) => Err(invalid(e.message(), path, h.at)),
            }
        }
    }
}

/// `uuid.UUID` (borrowed): imported by the type compiler, which saw the type.
unsafe fn uuid_type(st: &State) -> Result<*mut PyObject, Fail> {
    let found = st.found.uuid_type.found();
    if !found.is_null() {
        return Ok(found);
    }
    let ty = st.found.uuid_type.get(st.str_uuid, c"UUID");
    if ty.is_null() {
        PyErr_SetString(PyExc_RuntimeError, c"orcodec: uuid is not imported".as_ptr());
        return Err(Fail::Raised);
    }
    Ok(ty)
}

/// A `uuid.UUID` of the 128-bit `value`, made as `UUID(int=value)` makes it
/// (its two slots written), without the constructor's checks and parsing.
unsafe fn new_uuid(st: &State, value: u128) -> Result<Owned, Fail> {
    let layout = match kept(st).uuid_layout {
        Some(layout) => layout,
        None => {
            let ty = uuid_type(st)?;
            let safe = st.found.safe_uuid.get(st.str_uuid, c"SafeUUID");
            let unknown =
                if safe.is_null() { core::ptr::null_mut() } else { PyObject_GetAttrString(safe, c"unknown".as_ptr()) };
            let int_name = PyUnicode_InternFromString(c"int".as_ptr());
            let safe_name = PyUnicode_InternFromString(c"is_safe".as_ptr());
            let tp = ty as *mut PyTypeObject;
            let offsets = if int_name.is_null() || safe_name.is_null() {
                None
            } else {
                crate::cpython::instance::member_offset(tp, int_name)
                    .zip(crate::cpython::instance::member_offset(tp, safe_name))
            };
            Py_XDECREF(int_name);
            Py_XDECREF(safe_name);
            let (Some((int_at, safe_at)), false) = (offsets, unknown.is_null()) else {
                PyErr_Clear();
                Py_XDECREF(unknown);
                // Not the layout expected: the constructor.
                let int = Owned::new(crate::cpython::int::int_from_u128(value))?;
                let kwargs = Owned::new(PyDict_New())?;
                if PyDict_SetItemString(kwargs.as_ptr(), c"int".as_ptr(), int.as_ptr()) != 0 {
                    return Err(Fail::Raised);
                }
                let args = Owned::new(PyTuple_New(0))?;
                return Ok(Owned::new(crate::decode::unpaused(|| PyObject_Call(ty, args.as_ptr(), kwargs.as_ptr())))?);
            };
            // Python code ran (the lookups): another decode may have kept a layout.
            match kept(st).uuid_layout {
                Some(_) => Py_DECREF(unknown),
                None => kept(st).uuid_layout = Some((ty, int_at, safe_at, unknown)),
            }
            let Some(layout) = kept(st).uuid_layout else {
                return Err(Fail::Raised);
            };
            return new_uuid_in(layout, value);
        }
    };
    new_uuid_in(layout, value)
}

/// A `uuid.UUID` of `value` made by `layout` (the type, where it keeps its
/// two slots, and `SafeUUID.unknown`).
unsafe fn new_uuid_in(layout: (*mut PyObject, isize, isize, *mut PyObject), value: u128) -> Result<Owned, Fail> {
    let (ty, int_at, safe_at, unknown) = layout;
    let int = Owned::new(crate::cpython::int::int_from_u128(value))?;
    // `UUID` keeps object's `__new__` and has no `__dict__`: its `tp_alloc`
    // alone, unless the class was changed since.
    let obj = Owned::new(crate::cpython::instance::new_instance(ty as *mut PyTypeObject))?;
    Py_INCREF(unknown);
    crate::cpython::instance::set_slot(obj.as_ptr(), int_at, int.into_raw());
    crate::cpython::instance::set_slot(obj.as_ptr(), safe_at, unknown);
    Ok(obj)
}

pub fn uuid<I: Input>(ctx: &mut Ctx, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let st = ctx.st;
    match h.v {
        Value::Bytes(data) => match <[u8; 16]>::try_from(data) {
            // SAFETY: makes a UUID.
            Ok(bytes) => unsafe { new_uuid(st, u128::from_be_bytes(bytes)) },
            Err(_) => Err(invalid("Invalid UUID bytes", path, h.at)),
        },
        _ => {
            if let Value::Py(obj) = h.v {
                // SAFETY: a live object; `uuid` is imported (the compiler saw the type).
                unsafe {
                    if is_instance(obj, uuid_type(st)?) {
                        return keep(obj);
                    }
                }
            }
            let Some(text) = text_of(&h.v) else {
                return Err(type_error::<I>(ctx, id, &h, path));
            };
            match orcodec_core::parse::parse_uuid(text.as_bytes()) {
                // SAFETY: makes a UUID.
                Some(value) => unsafe { new_uuid(st, value) },
                None => Err(invalid("Invalid UUID", path, h.at)),
            }
        }
    }
}

/// `decimal.Decimal` (borrowed).
#[inline(always)]
unsafe fn decimal_type(st: &State) -> Result<*mut PyObject, Fail> {
    let found = st.found.decimal_type.found();
    if !found.is_null() {
        return Ok(found);
    }
    find_decimal_type(st)
}

/// [`decimal_type`] the first time.
#[inline(never)]
unsafe fn find_decimal_type(st: &State) -> Result<*mut PyObject, Fail> {
    let ty = st.found.decimal_type.get(st.str_decimal, c"Decimal");
    if ty.is_null() {
        PyErr_SetString(PyExc_RuntimeError, c"orcodec: decimal is not imported".as_ptr());
        return Err(Fail::Raised);
    }
    Ok(ty)
}

/// `Decimal(arg)`; an argument it refuses is "Invalid decimal string".
unsafe fn new_decimal(st: &State, arg: *mut PyObject, path: &Path, at: usize) -> Result<Owned, Fail> {
    let result = PyObject_CallOneArg(decimal_type(st)?, arg);
    if !result.is_null() {
        return Ok(Owned::new(result)?);
    }
    // decimal.InvalidOperation is an ArithmeticError.
    if PyErr_ExceptionMatches(PyExc_ArithmeticError) != 0 || PyErr_ExceptionMatches(PyExc_ValueError) != 0 {
        PyErr_Clear();
        return Err(invalid("Invalid decimal string", path, at));
    }
    Err(Fail::Raised)
}

unsafe fn decimal_from_text(st: &State, text: &str, path: &Path, at: usize) -> Result<Owned, Fail> {
    if let Some(made) = crate::cpython::decimal::from_plain_text(&kept(st).decimal, decimal_type(st)?, text.as_bytes())
    {
        return Ok(Owned::new(made)?);
    }
    let s = Owned::new(PyUnicode_FromStringAndSize(text.as_ptr() as *const c_char, text.len() as Py_ssize_t))?;
    new_decimal(st, s.as_ptr(), path, at)
}

pub fn decimal<I: Input>(ctx: &mut Ctx, id: NodeId, h: Head, path: &Path) -> Result<Owned, Fail> {
    let st = ctx.st;
    // SAFETY: makes Decimals from live objects and text.
    unsafe {
        match h.v {
            Value::Str(s) => decimal_from_text(st, s, path, h.at),
            Value::I64(_) | Value::U64(_) | Value::F64(_) | Value::BigInt(_) if !h.text.is_empty() => {
                decimal_from_text(st, h.text, path, h.at)
            }
            Value::I64(v) => decimal_from_text(st, &v.to_string(), path, h.at),
            Value::U64(v) => decimal_from_text(st, &v.to_string(), path, h.at),
            Value::BigInt(t) => decimal_from_text(st, t, path, h.at),
            Value::F64(f) => {
                let obj = Owned::new(PyFloat_FromDouble(f))?;
                let text = Owned::new(PyObject_Str(obj.as_ptr()))?;
                new_decimal(st, text.as_ptr(), path, h.at)
            }
            Value::Py(obj) => {
                if is_instance(obj, decimal_type(st)?) {
                    return keep(obj);
                }
                if let Some(text) = py_text(obj) {
                    if let Some(made) =
                        crate::cpython::decimal::from_plain_text(&kept(st).decimal, decimal_type(st)?, text.as_bytes())
                    {
                        return Ok(Owned::new(made)?);
                    }
                    return new_decimal(st, obj, path, h.at);
                }
                if PyLong_Check(obj) != 0 && PyBool_Check(obj) == 0 {
                    return new_decimal(st, obj, path, h.at);
                }
                if PyFloat_Check(obj) != 0 {
                    let text = Owned::new(PyObject_Str(obj))?;
                    return new_decimal(st, text.as_ptr(), path, h.at);
                }
                Err(type_error::<I>(ctx, id, &h, path))
            }
            _ => Err(type_error::<I>(ctx, id, &h, path)),
        }
    }
}

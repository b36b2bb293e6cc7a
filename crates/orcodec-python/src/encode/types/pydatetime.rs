//! `datetime`, `date` and `time` of the pure-Python `datetime` module: what
//! an interpreter without the C module has (CPython 3.12's isolated
//! subinterpreters, where `_datetime` cannot be loaded). The same text and
//! timestamps as `datetime.rs` writes for the C types, read through the
//! objects' attributes.

use orcodec_core::datetime::{days_from_civil, timestamp_payload, DateWriter, Style, MAX_TEXT};
use orcodec_core::emit::Emitter;
use pyo3_ffi::*;

use crate::encode::error::EncodeError;
use crate::encode::walker::{is_msgpack, Walker};
use crate::module::options::{self, Opt};
use crate::state::{Lazy, State};

/// Which of the three classes an object is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum PureKind {
    DateTime,
    Date,
    Time,
}

/// Whether `ty` is one of the pure-Python module's three classes (exactly,
/// as for the C types). Their names are checked first (other types cost a
/// byte compare); the classes are found in `sys.modules["datetime"]` once.
#[inline]
pub unsafe fn pure_kind(st: &State, ty: *mut PyTypeObject) -> Option<PureKind> {
    let name = (*ty).tp_name;
    if !matches!(*name as u8, b'd' | b't') {
        return None;
    }
    let name = core::ffi::CStr::from_ptr(name).to_bytes();
    let (kind, lazy, attr): (PureKind, &Lazy, &core::ffi::CStr) = match name {
        b"datetime" => (PureKind::DateTime, &st.found.py_datetime, c"datetime"),
        b"date" => (PureKind::Date, &st.found.py_date, c"date"),
        b"time" => (PureKind::Time, &st.found.py_time, c"time"),
        _ => return None,
    };
    if PyType_HasFeature(ty, Py_TPFLAGS_HEAPTYPE) == 0 {
        return None;
    }
    let class = lazy.get(st.str_datetime, attr);
    (class == ty as *mut PyObject).then_some(kind)
}

/// The fields read from a pure-Python object.
struct Fields {
    year: i32,
    month: i32,
    day: i32,
    hour: i32,
    minute: i32,
    second: i32,
    microsecond: i32,
}

unsafe fn int_attr(obj: *mut PyObject, name: &core::ffi::CStr) -> Result<i32, EncodeError> {
    let value = PyObject_GetAttrString(obj, name.as_ptr());
    if value.is_null() {
        return Err(EncodeError::Raised);
    }
    let v = PyLong_AsLong(value);
    Py_DECREF(value);
    if v == -1 && !PyErr_Occurred().is_null() {
        return Err(EncodeError::Raised);
    }
    Ok(v as i32)
}

unsafe fn date_fields(obj: *mut PyObject, fields: &mut Fields) -> Result<(), EncodeError> {
    fields.year = int_attr(obj, c"year")?;
    fields.month = int_attr(obj, c"month")?;
    fields.day = int_attr(obj, c"day")?;
    Ok(())
}

unsafe fn time_fields(obj: *mut PyObject, fields: &mut Fields) -> Result<(), EncodeError> {
    fields.hour = int_attr(obj, c"hour")?;
    fields.minute = int_attr(obj, c"minute")?;
    fields.second = int_attr(obj, c"second")?;
    fields.microsecond = int_attr(obj, c"microsecond")?;
    Ok(())
}

/// `obj.tzinfo` is None.
unsafe fn naive(obj: *mut PyObject) -> Result<bool, EncodeError> {
    let tzinfo = PyObject_GetAttrString(obj, c"tzinfo".as_ptr());
    if tzinfo.is_null() {
        return Err(EncodeError::Raised);
    }
    let none = tzinfo == Py_None();
    Py_DECREF(tzinfo);
    Ok(none)
}

/// The UTC offset of datetime `obj` in whole seconds (`utcoffset()`), None
/// when it is naive.
unsafe fn utc_offset(st: &State, obj: *mut PyObject) -> Result<Option<i32>, EncodeError> {
    let delta = PyObject_CallMethodNoArgs(obj, st.str_utcoffset);
    if delta.is_null() {
        return Err(EncodeError::TimezoneRaised);
    }
    if delta == Py_None() {
        Py_DECREF(delta);
        return Ok(None);
    }
    let seconds = int_attr(delta, c"days").and_then(|days| Ok(days * 86_400 + int_attr(delta, c"seconds")?));
    Py_DECREF(delta);
    seconds.map(Some).map_err(|_| {
        // SAFETY: clears the attribute error: the value was no timedelta.
        unsafe { PyErr_Clear() };
        EncodeError::BadUtcOffset
    })
}

fn style(opts: Opt) -> Style {
    Style { omit_microseconds: opts & options::OMIT_MICROSECONDS != 0, utc_z: opts & options::UTC_Z != 0 }
}

impl<E: Emitter> Walker<E> {
    /// A pure-Python `datetime`, `date` or `time` (`kind`), written as the
    /// C type's would be.
    #[cold]
    pub(crate) unsafe fn pure_date_or_time(&mut self, obj: *mut PyObject, kind: PureKind) -> Result<(), EncodeError> {
        let mut f = Fields { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, microsecond: 0 };
        let style = style(self.opts);
        let mut offset = None;
        match kind {
            PureKind::Date => date_fields(obj, &mut f)?,
            PureKind::Time => {
                if !naive(obj)? {
                    return Err(EncodeError::TimeWithTzinfo);
                }
                time_fields(obj, &mut f)?;
            }
            PureKind::DateTime => {
                // Python code (a tzinfo's utcoffset) runs here, before any output.
                offset = utc_offset(self.st, obj)?;
                if offset.is_none() && is_msgpack::<E>() && !naive(obj)? {
                    return Err(EncodeError::UnsupportedTimezone);
                }
                if offset.is_none() && self.opts & options::NAIVE_UTC != 0 {
                    offset = Some(0);
                }
                date_fields(obj, &mut f)?;
                time_fields(obj, &mut f)?;
                if let (true, Some(offset)) =
                    (E::HAS_BIN && self.opts & options::DATETIME_AS_TIMESTAMP_EXT != 0, offset)
                {
                    let days = days_from_civil(f.year, f.month as u32, f.day as u32);
                    let seconds = days * 86_400 + (f.hour * 3600 + f.minute * 60 + f.second - offset) as i64;
                    let mut buf = [0u8; 12];
                    self.emitter.ext(-1, timestamp_payload(seconds, f.microsecond as u32 * 1000, &mut buf));
                    return Ok(());
                }
            }
        }
        let write = |text: &mut DateWriter| {
            if kind != PureKind::Time {
                text.date(f.year, f.month, f.day);
            }
            if kind == PureKind::DateTime {
                text.push(b'T');
            }
            if kind != PureKind::Date {
                text.time(f.hour, f.minute, f.second, f.microsecond, style);
            }
            if let Some(seconds) = offset {
                text.offset(seconds, style);
            }
        };
        // SAFETY: the emitter hands over MAX_TEXT writable bytes.
        self.emitter.ascii_in_place::<MAX_TEXT>(|at| unsafe {
            let mut text = DateWriter::new(at);
            write(&mut text);
            text.len()
        });
        Ok(())
    }
}

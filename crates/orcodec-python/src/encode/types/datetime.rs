//! `datetime`, `date` and `time`: RFC 3339 text like orjson's (the same bytes),
//! or for MessagePack with `OPT_DATETIME_AS_TIMESTAMP_EXT` the timestamp
//! extension (type -1), which `decode/datetime.rs` reads back.

use orcodec_core::datetime::{days_from_civil, timestamp_payload, DateText, DateWriter, Style, MAX_TEXT};
use orcodec_core::emit::Emitter;
use pyo3_ffi::*;

use crate::cpython::datetime::{fixed_offset, is_date_exact, is_datetime_exact, is_delta, is_time_exact, utc, Capi};
use crate::encode::error::EncodeError;
use crate::encode::walker::{is_msgpack, Walker};
use crate::module::options::{self, Opt};
use crate::state::State;

/// The C API of `datetime` when `ty` may be one of its types: loaded the
/// first time an object of a type named like them is met (`datetime` is
/// imported then: its objects exist), so nothing is looked up for other
/// objects while `datetime` was never imported. NULL when `ty` is none of
/// them.
#[inline(always)]
pub unsafe fn datetime_api_for(st: &State, ty: *mut PyTypeObject) -> Capi {
    let capi = st.datetime_capi();
    if !capi.is_null() {
        return capi;
    }
    // The first byte before the whole name: every dataclass instance (and
    // other object the walker meets before `default`) passes here while
    // `datetime` is not imported.
    let name = (*ty).tp_name;
    if *name as u8 != b'd' {
        return core::ptr::null();
    }
    let name = core::ffi::CStr::from_ptr(name).to_bytes();
    if matches!(name, b"datetime.datetime" | b"datetime.date" | b"datetime.time") {
        return st.load_datetime(false);
    }
    core::ptr::null()
}

/// Whether `tzinfo` is a pytz zone (`pytz.tzinfo.BaseTzInfo`, the base of
/// every pytz zone, once pytz is imported).
unsafe fn is_pytz(st: &State, tzinfo: *mut PyObject) -> bool {
    let base = st.found.pytz_tzinfo.get(st.str_pytz_tzinfo, c"BaseTzInfo");
    !base.is_null() && PyType_Check(base) != 0 && PyType_IsSubtype(Py_TYPE(tzinfo), base as *mut PyTypeObject) != 0
}

/// The UTC offset of an aware datetime in whole seconds (sub-second parts
/// dropped, as orjson and ormsgpack do); None when it is naive, including a
/// tzinfo whose `utcoffset()` returns None (Python treats that as naive too).
///
/// A pytz zone gives the offset of `tzinfo.normalize(dt)`, as both peers ask
/// it: for a zone attached without `localize()` that is the zone's offset at
/// that time (`+08:00` for Asia/Shanghai), not the local mean time the
/// attached `tzinfo` itself reports (`+08:06`).
///
/// `obj` is a datetime, so the interpreter's C `datetime` is loaded.
unsafe fn utc_offset(st: &State, obj: *mut PyObject) -> Result<Option<i32>, EncodeError> {
    let capi = st.datetime_capi();
    let tzinfo = PyDateTime_DATE_GET_TZINFO(obj);
    if tzinfo == Py_None() {
        return Ok(None);
    }
    if tzinfo == utc(capi) {
        return Ok(Some(0));
    }
    if let Some(seconds) = fixed_offset(capi, tzinfo) {
        return Ok(Some(seconds));
    }
    // `datetime.utcoffset()` asks the tzinfo the right way for every library
    // (zoneinfo, dateutil, pendulum) and checks the result's range.
    let s = st;
    let delta = if is_pytz(st, tzinfo) {
        let normalized = PyObject_CallMethodOneArg(tzinfo, s.str_normalize, obj);
        if normalized.is_null() {
            return Err(EncodeError::TimezoneRaised);
        }
        let delta = PyObject_CallMethodNoArgs(normalized, s.str_utcoffset);
        Py_DECREF(normalized);
        delta
    } else {
        PyObject_CallMethodNoArgs(obj, s.str_utcoffset)
    };
    if delta.is_null() {
        return Err(EncodeError::TimezoneRaised);
    }
    let result = if delta == Py_None() {
        None
    } else if is_delta(capi, delta) {
        Some(PyDateTime_DELTA_GET_DAYS(delta) * 86_400 + PyDateTime_DELTA_GET_SECONDS(delta))
    } else {
        Py_DECREF(delta);
        return Err(EncodeError::BadUtcOffset);
    };
    Py_DECREF(delta);
    Ok(result)
}

/// The offset to write: the datetime's own, or UTC for a naive one with `OPT_NAIVE_UTC`.
unsafe fn effective_offset(st: &State, obj: *mut PyObject, opts: Opt) -> Result<Option<i32>, EncodeError> {
    Ok(match utc_offset(st, obj)? {
        None if opts & options::NAIVE_UTC != 0 => Some(0),
        offset => offset,
    })
}

/// Runs `write` on a [`DateWriter`] at `at` and returns the length written.
///
/// # Safety
/// `at` must be writable for [`MAX_TEXT`] bytes.
#[inline(always)]
unsafe fn in_place(at: *mut u8, write: impl FnOnce(&mut DateWriter)) -> usize {
    let mut text = DateWriter::new(at);
    write(&mut text);
    text.len()
}

fn style(opts: Opt) -> Style {
    Style { omit_microseconds: opts & options::OMIT_MICROSECONDS != 0, utc_z: opts & options::UTC_Z != 0 }
}

/// Writes the fields of datetime `obj`, then its UTC `offset` if it has one.
#[inline(always)]
unsafe fn write_datetime(text: &mut DateWriter, obj: *mut PyObject, offset: Option<i32>, style: Style) {
    text.date(PyDateTime_GET_YEAR(obj), PyDateTime_GET_MONTH(obj), PyDateTime_GET_DAY(obj));
    text.push(b'T');
    text.time(
        PyDateTime_DATE_GET_HOUR(obj),
        PyDateTime_DATE_GET_MINUTE(obj),
        PyDateTime_DATE_GET_SECOND(obj),
        PyDateTime_DATE_GET_MICROSECOND(obj),
        style,
    );
    if let Some(seconds) = offset {
        text.offset(seconds, style);
    }
}

#[inline(always)]
unsafe fn write_date(text: &mut DateWriter, obj: *mut PyObject) {
    text.date(PyDateTime_GET_YEAR(obj), PyDateTime_GET_MONTH(obj), PyDateTime_GET_DAY(obj));
}

/// Writes the fields of time `obj`, which the caller checked has no tzinfo.
#[inline(always)]
unsafe fn write_time(text: &mut DateWriter, obj: *mut PyObject, style: Style) {
    text.time(
        PyDateTime_TIME_GET_HOUR(obj),
        PyDateTime_TIME_GET_MINUTE(obj),
        PyDateTime_TIME_GET_SECOND(obj),
        PyDateTime_TIME_GET_MICROSECOND(obj),
        style,
    );
}

unsafe fn check_time(obj: *mut PyObject) -> Result<(), EncodeError> {
    if PyDateTime_TIME_GET_TZINFO(obj) != Py_None() {
        return Err(EncodeError::TimeWithTzinfo);
    }
    Ok(())
}

/// The text of datetime `obj` in a buffer (for map keys).
pub unsafe fn datetime_text(st: &State, obj: *mut PyObject, opts: Opt) -> Result<DateText, EncodeError> {
    let offset = effective_offset(st, obj, opts)?;
    Ok(DateText::build(|text| write_datetime(text, obj, offset, style(opts))))
}

pub unsafe fn date_text(obj: *mut PyObject) -> DateText {
    DateText::build(|text| write_date(text, obj))
}

pub unsafe fn time_text(obj: *mut PyObject, opts: Opt) -> Result<DateText, EncodeError> {
    check_time(obj)?;
    Ok(DateText::build(|text| write_time(text, obj, style(opts))))
}

impl<E: Emitter> Walker<E> {
    /// An exact `datetime`, `date` or `time`, written; None for anything else.
    #[inline]
    pub(crate) unsafe fn date_or_time(&mut self, obj: *mut PyObject) -> Option<Result<(), EncodeError>> {
        let capi = datetime_api_for(self.st, Py_TYPE(obj));
        if capi.is_null() {
            let kind = crate::encode::types::pydatetime::pure_kind(self.st, Py_TYPE(obj))?;
            return Some(self.pure_date_or_time(obj, kind));
        }
        if is_datetime_exact(capi, obj) {
            return Some(self.datetime(obj));
        }
        if is_date_exact(capi, obj) {
            // SAFETY: the emitter hands over MAX_TEXT writable bytes.
            self.emitter.ascii_in_place::<MAX_TEXT>(|at| unsafe { in_place(at, |text| write_date(text, obj)) });
            return Some(Ok(()));
        }
        if is_time_exact(capi, obj) {
            return Some(check_time(obj).map(|()| {
                let style = style(self.opts);
                // SAFETY: as for the date.
                self.emitter
                    .ascii_in_place::<MAX_TEXT>(|at| unsafe { in_place(at, |text| write_time(text, obj, style)) });
            }));
        }
        None
    }

    /// An exact `datetime.datetime`.
    pub(crate) unsafe fn datetime(&mut self, obj: *mut PyObject) -> Result<(), EncodeError> {
        // Python code (a tzinfo's utcoffset) runs here, before any output.
        let offset = utc_offset(self.st, obj)?;
        // ormsgpack refuses a tzinfo whose utcoffset() is None.
        if offset.is_none() && is_msgpack::<E>() && PyDateTime_DATE_GET_TZINFO(obj) != Py_None() {
            return Err(EncodeError::UnsupportedTimezone);
        }
        let offset = match offset {
            None if self.opts & options::NAIVE_UTC != 0 => Some(0),
            offset => offset,
        };
        if E::HAS_BIN && self.opts & options::DATETIME_AS_TIMESTAMP_EXT != 0 {
            if let Some(offset) = offset {
                return self.timestamp(obj, offset);
            }
        }
        let style = style(self.opts);
        // SAFETY: the emitter hands over MAX_TEXT writable bytes.
        self.emitter
            .ascii_in_place::<MAX_TEXT>(|at| unsafe { in_place(at, |text| write_datetime(text, obj, offset, style)) });
        Ok(())
    }

    /// An aware datetime as the timestamp extension.
    unsafe fn timestamp(&mut self, obj: *mut PyObject, offset: i32) -> Result<(), EncodeError> {
        let days =
            days_from_civil(PyDateTime_GET_YEAR(obj), PyDateTime_GET_MONTH(obj) as u32, PyDateTime_GET_DAY(obj) as u32);
        let seconds = days * 86_400
            + PyDateTime_DATE_GET_HOUR(obj) as i64 * 3600
            + PyDateTime_DATE_GET_MINUTE(obj) as i64 * 60
            + PyDateTime_DATE_GET_SECOND(obj) as i64
            - offset as i64;
        let nanoseconds = PyDateTime_DATE_GET_MICROSECOND(obj) as u32 * 1000;
        let mut buf = [0u8; 12];
        self.emitter.ext(-1, timestamp_payload(seconds, nanoseconds, &mut buf));
        Ok(())
    }
}

//! The MessagePack timestamp extension (type -1) read back as a UTC
//! `datetime` (with `OPT_DATETIME_AS_TIMESTAMP_EXT`).

use pyo3_ffi::*;

use crate::state::State;

/// A UTC datetime from a decoded timestamp; None (with an exception set) when
/// it falls outside `datetime`'s years 1 to 9999.
pub unsafe fn datetime_from_timestamp(st: &State, seconds: i64, nanoseconds: u32) -> *mut PyObject {
    let days = seconds.div_euclid(86_400);
    let second_of_day = seconds.rem_euclid(86_400) as i32;
    let (year, month, day) = orcodec_core::datetime::civil_from_days(days);
    if !(1..=9999).contains(&year) {
        // ormsgpack's message; a note says what is wrong.
        crate::module::errors::raise(st.msgpack_decode_error, "invalid value");
        crate::module::errors::add_note_to_current(&format!(
            "timestamp {seconds} is outside the range of datetime (years 1 to 9999)"
        ));
        return core::ptr::null_mut();
    }
    let mut capi = st.datetime_capi();
    if capi.is_null() {
        capi = st.load_datetime(true);
        if capi.is_null() {
            let fields = [year as i32, month as i32, day as i32, second_of_day / 3600, second_of_day / 60 % 60];
            let fields = [&fields[..], &[second_of_day % 60, (nanoseconds / 1000) as i32]].concat();
            return crate::decode::pydatetime::make(st, c"datetime", &fields, Some(Some(0)));
        }
    }
    let api = &*capi;
    (api.DateTime_FromDateAndTime)(
        year as i32,
        month as i32,
        day as i32,
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60,
        // Nanoseconds below a microsecond are dropped (datetime has no room).
        (nanoseconds / 1000) as i32,
        api.TimeZone_UTC,
        api.DateTimeType,
    )
}

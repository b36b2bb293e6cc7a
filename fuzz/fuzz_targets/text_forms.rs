//! The text forms typed decoding reads (RFC 3339 dates, times and datetimes,
//! UUIDs) against their general readers: the fixed-layout fast paths must
//! accept exactly the same texts and give exactly the same values, for any
//! bytes. Each input is also tried as the tail of a datetime and of a UUID,
//! so mutations reach the fraction, the offset and the later hex groups.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::testing::text_forms_agree;

fuzz_target!(|data: &[u8]| {
    text_forms_agree(data);
    for prefix in [&b"2024-01-10T09:01:"[..], b"09:01:", b"6513270e-269e-4d37-b2a7-"] {
        text_forms_agree(&[prefix, data].concat());
    }
});

//! ISO 8601 durations: any bytes are read without a panic, and every
//! duration read is written back (msgspec's form) to text that reads as the
//! same duration. Each input is also tried after `P` and `PT`, so mutations
//! reach the components.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::duration::{format_duration, parse_duration};

fuzz_target!(|data: &[u8]| {
    for prefix in [&b""[..], b"P", b"PT", b"-P1DT"] {
        let text = [prefix, data].concat();
        if let Ok(d) = parse_duration(&text) {
            assert_eq!(parse_duration(format_duration(d).as_bytes()), Ok(d));
        }
    }
});

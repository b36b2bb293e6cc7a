//! Arbitrary bytes into the JSON scanner: no panic, heap bounded by the
//! input's size, errors point inside the input, and whatever it accepts is
//! UTF-8 and survives a trip through both JSON writers unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::error::Failure;
use orcodec_core::json_scanner::parse;
use orcodec_fuzz::{heap_budget, json_view, peak_heap, to_json, Counting, Tree};

#[global_allocator]
static ALLOC: Counting = Counting;

fuzz_target!(|data: &[u8]| {
    let (result, peak) = peak_heap(|| parse(data, &mut Tree));
    assert!(peak <= heap_budget(data.len()), "{peak} heap bytes for {} input bytes", data.len());
    match result {
        Ok(value) => {
            assert!(std::str::from_utf8(data).is_ok(), "accepted invalid UTF-8");
            let expected = json_view(&value);
            for pretty in [false, true] {
                let text = to_json(&value, pretty);
                let again = parse(&text, &mut Tree).unwrap_or_else(|e| panic!("own output rejected: {e:?}"));
                assert_eq!(again, expected);
            }
        }
        Err(Failure::Syntax(e)) => assert!(e.offset <= data.len(), "offset {} past the end", e.offset),
        Err(Failure::Build(())) => unreachable!("Tree never fails"),
    }
});

//! Arbitrary bytes into the JSON pull reader, which must agree with the push
//! decoder: a caller walking the document with `JsonPull` into a builder
//! gets exactly `parse`'s value (floats bit for bit) or its error (kind and
//! byte offset), and `skip` then `finish` succeed or fail as `parse` does,
//! with the same error. Numbers read by pointer (away from the input's
//! end: the input is also read padded) must equal the checked path's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::error::Failure;
use orcodec_core::json::scanner::parse;
use orcodec_core::testing::{json_all_ways, json_pull_build};
use orcodec_fuzz::{Tree, Value};

fuzz_target!(|data: &[u8]| {
    // Rendered values, and skip, against `parse` (asserted inside).
    let _ = json_all_ways(data);
    // The same padded, so that numbers are far enough from the end to be
    // read by pointer (held to the checked path inside `json_all_ways`).
    let mut padded = data.to_vec();
    padded.extend([b' '; 64]);
    let _ = json_all_ways(&padded);
    // Value trees, floats compared as bits.
    let outcome = |r: Result<Value, Failure<()>>| match r {
        Ok(v) => Ok(v),
        Err(Failure::Syntax(e)) => Err((e.kind, e.offset)),
        Err(Failure::Build(())) => unreachable!("Tree never fails"),
    };
    assert_eq!(outcome(json_pull_build(data, &mut Tree)), outcome(parse(data, &mut Tree)));
});

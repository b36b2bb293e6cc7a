//! Arbitrary bytes into the MessagePack pull reader, which must agree with
//! the push decoder: a caller walking the value with `MsgpackPull` into a
//! builder gets exactly `read`'s value (floats bit for bit) or its error
//! (kind and byte offset), and `skip` then `finish` succeed or fail as
//! `read` does with a builder that knows every extension, with the same
//! error. The options (non-str keys, timestamps) are picked by a hash of
//! the input, so every combination is reached without decoding each input
//! four times over.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::error::Failure;
use orcodec_core::msgpack::reader::{read, ReadOptions};
use orcodec_core::testing::{msgpack_all_ways, msgpack_pull_build};
use orcodec_fuzz::{Tree, Value, READ};

fuzz_target!(|data: &[u8]| {
    // Rendered values, and skip, against `read` (asserted inside).
    let pick = data.iter().fold(0u32, |h, &b| h.wrapping_mul(31).wrapping_add(b as u32));
    let _ = msgpack_all_ways(
        data,
        ReadOptions {
            non_str_keys: pick & 1 != 0,
            timestamps: pick & 2 != 0,
            bin_keys: pick & 4 != 0,
            plain_keys: false,
        },
    );
    // Value trees (str keys only: the tree's maps have str keys), floats
    // compared as bits.
    let outcome = |r: Result<Value, Failure<()>>| match r {
        Ok(v) => Ok(v),
        Err(Failure::Syntax(e)) => Err((e.kind, e.offset)),
        Err(Failure::Build(())) => unreachable!("Tree never fails"),
    };
    assert_eq!(outcome(msgpack_pull_build(data, &mut Tree, READ)), outcome(read(data, &mut Tree, READ)));
});

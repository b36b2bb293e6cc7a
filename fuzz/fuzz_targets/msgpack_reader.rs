//! Arbitrary bytes into the MessagePack reader: no panic, heap bounded by the
//! input's size whatever lengths it declares, errors point inside the input,
//! and whatever it accepts packs back to a canonical form that reads the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::error::Failure;
use orcodec_core::msgpack::reader::read;
use orcodec_fuzz::{heap_budget, peak_heap, to_msgpack, Counting, Tree, READ};

#[global_allocator]
static ALLOC: Counting = Counting;

fuzz_target!(|data: &[u8]| {
    let (result, peak) = peak_heap(|| read(data, &mut Tree, READ));
    assert!(peak <= heap_budget(data.len()), "{peak} heap bytes for {} input bytes", data.len());
    match result {
        Ok(value) => {
            let packed = to_msgpack(&value);
            let again = read(&packed, &mut Tree, READ).unwrap_or_else(|e| panic!("own output rejected: {e:?}"));
            assert_eq!(again, value);
            assert_eq!(to_msgpack(&again), packed, "packing is not canonical");
        }
        Err(Failure::Syntax(e)) => assert!(e.offset <= data.len(), "offset {} past the end", e.offset),
        Err(Failure::Build(())) => unreachable!("Tree never fails"),
    }
});

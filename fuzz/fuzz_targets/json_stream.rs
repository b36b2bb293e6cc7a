//! Arbitrary bytes as a stream of JSON values, fed to the value-end scan
//! (`JsonExtent`) in chunks of every size the first byte picks: the values
//! it delimits, and the decoder's outcome for each, are those of scanning
//! the whole stream at once.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::json::scanner::parse;
use orcodec_core::json::stream::JsonExtent;
use orcodec_fuzz::Tree;

fn extents(stream: &[u8], chunk: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut scan = JsonExtent::new();
    let mut have = 0;
    loop {
        let eof = have == stream.len();
        while let Some(found) = scan.next(&stream[..have], eof) {
            assert!(found.0 <= found.1 && found.1 <= have);
            out.push(found);
        }
        if eof {
            return out;
        }
        have = (have + chunk).min(stream.len());
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, stream)) = data.split_first() else { return };
    let whole = extents(stream, stream.len().max(1));
    for chunk in [1, 2, 3, (first as usize % 16) + 1] {
        assert_eq!(extents(stream, chunk), whole, "chunks of {chunk}");
    }
    for (a, b) in whole {
        let _ = parse(&stream[a..b], &mut Tree);
    }
});

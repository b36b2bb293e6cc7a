//! Arbitrary bytes into the push decoder's partial mode, in both modes: it
//! never panics; on a whole document it gives `parse`'s value; and every
//! cut of a valid document that starts with a container (the prefixes a
//! stream delivers) gives a value, never an error. The closing of a cut
//! document (`json::closing`, typed decoding's way in) agrees: its text
//! keeps the input's bytes and parses to the partial value, and when it
//! fails it fails with the partial decoder's error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::error::Failure;
use orcodec_core::json::closing;
use orcodec_core::json::partial::PartialMode;
use orcodec_core::json::scanner::{parse, parse_partial_with, ScanStacks};
use orcodec_fuzz::{Tree, Value};

fn outcome(r: Result<Value, Failure<()>>) -> Result<Value, (orcodec_core::error::DecodeErrorKind, usize)> {
    match r {
        Ok(v) => Ok(v),
        Err(Failure::Syntax(e)) => Err((e.kind, e.offset)),
        Err(Failure::Build(())) => unreachable!("Tree never fails"),
    }
}

/// `closing::close` of `data` against the partial decoder's `partial` outcome.
fn check_closing(
    data: &[u8],
    mode: PartialMode,
    partial: &Result<Value, (orcodec_core::error::DecodeErrorKind, usize)>,
) {
    match closing::close(data, mode) {
        // Decoded as it is: where both give a value, the same one.
        Ok(None) => {
            if let (Ok(p), Ok(w)) = (partial, outcome(parse(data, &mut Tree))) {
                assert_eq!(*p, w, "needs no closing");
            }
        }
        Ok(Some(closed)) => {
            let text = closed.text(data).expect("small inputs");
            assert_eq!(&text[..closed.keep], &data[..closed.keep]);
            assert_eq!(&outcome(parse(&text, &mut Tree)), partial, "the closed text");
        }
        Err(e) => assert_eq!(partial, &Err((e.kind, e.offset)), "the closing's error"),
    }
}

fuzz_target!(|data: &[u8]| {
    let whole = outcome(parse(data, &mut Tree));
    for mode in [PartialMode::On, PartialMode::TrailingStrings] {
        let partial = outcome(parse_partial_with(data, &mut Tree, &mut ScanStacks::new(), mode));
        if whole.is_ok() {
            assert_eq!(partial, whole, "a whole document");
        }
        check_closing(data, mode, &partial);
    }
    let Ok(_) = whole else { return };
    let start = data.iter().position(|c| !b" \t\r\n".contains(c)).unwrap_or(data.len());
    if !matches!(data.get(start), Some(b'[' | b'{')) {
        return;
    }
    let step = (data.len() / 64).max(1);
    for cut in (start + 1..data.len()).step_by(step) {
        for mode in [PartialMode::On, PartialMode::TrailingStrings] {
            let partial = outcome(parse_partial_with(&data[..cut], &mut Tree, &mut ScanStacks::new(), mode));
            assert!(partial.is_ok(), "cut at {cut}: {partial:?}");
            check_closing(&data[..cut], mode, &partial);
        }
    }
});

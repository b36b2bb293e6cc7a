//! Arbitrary bytes into msgpack-python's stream scan (`msgpack::scan`,
//! which `orcodec.msgpack.Unpacker` resumes by) and its dialect rewrite
//! (`msgpack::rewrite`, the packer's `use_single_float` and
//! `use_bin_type=False`). The scan agrees with the decoder on where a value
//! ends: a value said to be `n` bytes long is read in exactly `n` bytes (or
//! refused for what it holds, never for running out), an input said to be
//! partial does not decode, and what a partial scan says was consumed never
//! shrinks as bytes arrive. A rewrite of a decodable value succeeds (or
//! finds a double too large for a float 32) and is stable: rewriting its
//! output again gives the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::error::{DecodeErrorKind as Kind, Failure};
use orcodec_core::msgpack::reader::{read_prefix_with, ReadStacks};
use orcodec_core::msgpack::rewrite::{rewrite, Dialect, RewriteError};
use orcodec_core::msgpack::scan::{scan, Limits, ScanError, Scanned};
use orcodec_fuzz::{Tree, READ};

fuzz_target!(|input: &[u8]| {
    let Some((&seed, data)) = input.split_first() else {
        return;
    };
    let limits = if seed & 1 == 1 { Limits { str: 8, bin: 8, array: 4, map: 2, ext: 8 } } else { Limits::NONE };
    let mut frames = Vec::new();
    let whole = scan(data, &limits, &mut frames);
    let read = read_prefix_with(data, &mut Tree, READ, &mut ReadStacks::new());
    match &whole {
        Ok(Scanned::Whole(n)) => {
            assert!(*n >= 1 && *n <= data.len());
            match &read {
                Ok((_, len)) => assert_eq!(len, n, "{data:x?}"),
                Err(Failure::Syntax(e)) => assert!(
                    !matches!(e.kind, Kind::UnexpectedEnd | Kind::LengthBeyondInput { .. }),
                    "{data:x?}: scanned {n} bytes, the reader ran out: {e:?}"
                ),
                Err(Failure::Build(())) => {}
            }
        }
        Ok(Scanned::Partial(consumed)) => {
            assert!(*consumed <= data.len());
            assert!(read.is_err(), "{data:x?}: partial for the scan, whole for the reader");
            // One byte fewer consumes no more.
            if let Some(shorter) = data.len().checked_sub(1) {
                match scan(&data[..shorter], &limits, &mut frames) {
                    Ok(Scanned::Partial(c)) => assert!(c <= *consumed, "{data:x?}"),
                    other => panic!("{data:x?}: a prefix of a partial value scanned as {other:?}"),
                }
            }
        }
        Err(ScanError::Decode(e)) => {
            assert!(matches!(e.kind, Kind::ReservedType(_) | Kind::DepthLimit | Kind::NoMemory), "{e:?}")
        }
        Err(ScanError::Limit { len, max, .. }) => assert!(len > max),
    }
    if let Ok((_, len)) = read {
        let dialect = Dialect { single_float: seed & 2 != 0, old_raw: seed & 4 != 0 };
        let mut once = Vec::new();
        match rewrite(&data[..len], dialect, &mut once) {
            Ok(()) => {
                let mut twice = Vec::new();
                // The raw type reads back as str, which must be UTF-8.
                if rewrite(&once, dialect, &mut twice).is_ok() {
                    assert_eq!(once, twice, "{data:x?}");
                } else {
                    assert!(dialect.old_raw, "{data:x?}");
                }
            }
            Err(RewriteError::FloatRange) => assert!(dialect.single_float),
            Err(RewriteError::NoMemory) => {}
            Err(RewriteError::Decode(e)) => panic!("{data:x?}: the reader took it, the rewrite did not: {e:?}"),
        }
    }
});

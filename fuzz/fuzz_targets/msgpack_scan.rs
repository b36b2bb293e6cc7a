//! Arbitrary bytes, whole and fed in arbitrary pieces, into the stream scan
//! both unpackers read their buffers by (`msgpack::scan`: `scan` and
//! `Resumable`), and into msgpack-python's dialect rewrite
//! (`msgpack::rewrite`, the packer's `use_single_float` and
//! `use_bin_type=False`).
//!
//! However the bytes are split, the resumable scan reaches the answer a
//! scan of the whole input gives (the value's length, what was consumed of
//! an incomplete one, or the same error). That answer agrees with the
//! decoder: a value said to be `n` bytes long decodes from exactly those
//! bytes without running out of input or leaving any over (or is refused
//! for what it holds), and the prefix reader (which the unpackers try
//! first) takes exactly those `n` bytes and gives what the decoder gives; an
//! input said to be partial does not decode, and what a partial scan says
//! was consumed never shrinks as bytes arrive. A rewrite of a decodable
//! value succeeds (or finds a double too large for a float 32) and is
//! stable: rewriting its output again gives the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::error::{DecodeErrorKind as Kind, Failure};
use orcodec_core::msgpack::reader::{read, read_prefix_with, ReadStacks};
use orcodec_core::msgpack::rewrite::{rewrite, Dialect, RewriteError};
use orcodec_core::msgpack::scan::{scan, Limits, Resumable, ScanError, Scanned};
use orcodec_fuzz::{Tree, READ};

fuzz_target!(|input: &[u8]| {
    let Some((&seed, data)) = input.split_first() else {
        return;
    };
    // Small limits now and then, so values over them are refused.
    let limits =
        if seed & 1 == 1 { Limits { str: 8, bin: 8, array: 4, map: 2, ext: 8, value: 64 } } else { Limits::NONE };
    let mut frames = Vec::new();
    let whole = scan(data, &limits, &mut frames);

    // The same bytes arriving a few at a time (1 to 16, as the seed says).
    let mut resumable = Resumable::new();
    let mut state = seed as u32 | 1;
    let mut received = 0;
    let pieces = loop {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        received = data.len().min(received + 1 + (state >> 16) as usize % 16);
        match resumable.scan(&data[..received], &limits) {
            Ok(Scanned::Partial(_)) if received < data.len() => continue,
            answer => break answer,
        }
    };
    assert_eq!(pieces, whole, "split input: {data:x?}");

    let prefix = read_prefix_with(data, &mut Tree, READ, &mut ReadStacks::new());
    match &whole {
        Ok(Scanned::Whole(n)) => {
            let n = *n;
            assert!(n >= 1 && n <= data.len() && n <= limits.value, "{data:x?}");
            let exact = read(&data[..n], &mut Tree, READ);
            if let Err(Failure::Syntax(e)) = &exact {
                assert!(
                    !matches!(e.kind, Kind::UnexpectedEnd | Kind::LengthBeyondInput { .. } | Kind::TrailingData),
                    "{n} bytes of {data:x?}: {e:?}"
                );
            }
            match (exact, &prefix) {
                (Ok(a), Ok((b, len))) => assert!(a == *b && *len == n, "{data:x?}: prefix took {len} of {n}"),
                (Err(Failure::Syntax(a)), Err(Failure::Syntax(b))) => assert_eq!(a, *b, "{data:x?}"),
                (a, b) => panic!("{data:x?}: exact {a:?}, prefix {b:?}"),
            }
        }
        Ok(Scanned::Partial(consumed)) => {
            assert!(*consumed <= data.len());
            match (read(data, &mut Tree, READ), &prefix) {
                (Err(Failure::Syntax(a)), Err(Failure::Syntax(b))) => {
                    assert!(a.kind != Kind::TrailingData, "{data:x?}: the decoder found a whole value: {a:?}");
                    assert_eq!(a, *b, "{data:x?}");
                }
                (a, b) => panic!("{data:x?}: the scan wants more, decoder {a:?}, prefix reader {b:?}"),
            }
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
        Err(ScanError::TooLarge { needed, .. }) => assert!(*needed > limits.value as u64),
    }
    if let Ok((_, len)) = prefix {
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

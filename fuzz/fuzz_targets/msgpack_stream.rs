//! Arbitrary bytes, fed in arbitrary pieces, into the MessagePack stream
//! scan (`Extent`), which the `Unpacker` uses to find where a value ends.
//! However the bytes are split, the scan reaches the answer it gives the
//! whole input at once (the value's length, "more needed", or the same
//! error), and that answer agrees with the decoder: a value said to be `n`
//! bytes long decodes from exactly those bytes without running out of input
//! or leaving any over, and an input said to be incomplete does not decode.
//! The prefix reader (`read_prefix_with`, which the `Unpacker` tries first)
//! agrees: on a whole value it takes exactly those `n` bytes and gives what
//! the decoder gives them, and on an incomplete one it fails as input that
//! ends early does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::error::{DecodeErrorKind as Kind, Failure};
use orcodec_core::msgpack::reader::{read, read_prefix_with, ReadStacks};
use orcodec_core::msgpack::stream::Extent;
use orcodec_fuzz::{Tree, READ};

fuzz_target!(|input: &[u8]| {
    let Some((&seed, data)) = input.split_first() else {
        return;
    };
    // A small limit now and then, so values too large for it are refused.
    let limit = if seed & 1 == 1 { 64 } else { usize::MAX };
    let whole = Extent::new().scan(data, limit);

    // The same bytes arriving a few at a time (1 to 16, as the seed says).
    let mut extent = Extent::new();
    let mut state = seed as u32 | 1;
    let mut received = 0;
    let pieces = loop {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        received = data.len().min(received + 1 + (state >> 16) as usize % 16);
        match extent.scan(&data[..received], limit) {
            Ok(None) if received < data.len() => continue,
            answer => break answer,
        }
    };
    assert_eq!(pieces, whole, "split input: {data:x?}");

    match whole {
        Ok(Some(n)) => {
            assert!(n >= 1 && n <= data.len() && n <= limit);
            let exact = read(&data[..n], &mut Tree, READ);
            if let Err(Failure::Syntax(e)) = &exact {
                assert!(
                    !matches!(e.kind, Kind::UnexpectedEnd | Kind::LengthBeyondInput { .. } | Kind::TrailingData),
                    "{n} bytes of {data:x?}: {e:?}"
                );
            }
            let prefix = read_prefix_with(data, &mut Tree, READ, &mut ReadStacks::new());
            match (exact, prefix) {
                (Ok(a), Ok((b, len))) => assert!(a == b && len == n, "{data:x?}: prefix took {len} of {n}"),
                (Err(Failure::Syntax(a)), Err(Failure::Syntax(b))) => assert_eq!(a, b, "{data:x?}"),
                (a, b) => panic!("{data:x?}: exact {a:?}, prefix {b:?}"),
            }
        }
        Ok(None) => {
            let whole = read(data, &mut Tree, READ);
            let prefix = read_prefix_with(data, &mut Tree, READ, &mut ReadStacks::new());
            match (whole, prefix) {
                (Err(Failure::Syntax(a)), Err(Failure::Syntax(b))) => {
                    assert!(a.kind != Kind::TrailingData, "{data:x?}: the decoder found a whole value: {a:?}");
                    assert_eq!(a, b, "{data:x?}");
                }
                (a, b) => panic!("{data:x?}: the scan wants more, decoder {a:?}, prefix reader {b:?}"),
            }
        }
        Err(_) => {}
    }
});

//! Arbitrary bytes, fed in arbitrary pieces, into the MessagePack stream
//! scan (`Extent`), which the `Unpacker` uses to find where a value ends.
//! However the bytes are split, the scan reaches the answer it gives the
//! whole input at once (the value's length, "more needed", or the same
//! error), and that answer agrees with the decoder: a value said to be `n`
//! bytes long decodes from exactly those bytes without running out of input
//! or leaving any over, and an input said to be incomplete does not decode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::error::{DecodeErrorKind as Kind, Failure};
use orcodec_core::msgpack::reader::read;
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
            if let Err(Failure::Syntax(e)) = read(&data[..n], &mut Tree, READ) {
                assert!(
                    !matches!(e.kind, Kind::UnexpectedEnd | Kind::LengthBeyondInput { .. } | Kind::TrailingData),
                    "{n} bytes of {data:x?}: {e:?}"
                );
            }
        }
        Ok(None) => match read(data, &mut Tree, READ) {
            Ok(_) => panic!("{data:x?} decodes, but the scan wants more"),
            Err(Failure::Syntax(e)) => assert!(e.kind != Kind::TrailingData, "{data:x?}: {e:?}"),
            Err(Failure::Build(())) => unreachable!("Tree never fails"),
        },
        Err(_) => {}
    }
});

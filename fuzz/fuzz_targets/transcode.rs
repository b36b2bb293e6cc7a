//! Arbitrary bytes into both transcoders, held to the two-step they stand
//! for (`transcode::reference`: decode to values with dict semantics, then
//! write): the same bytes, the same decode error (kind and offset), or, for
//! what a transcoder leaves to the two-step, an input the two-step refuses
//! too (or one where a repeated key dropped the value it stopped at). Never
//! a panic. The first byte picks the options; a kept state (as the
//! extension keeps one between calls) gives the same result as a fresh one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::datetime::Style;
use orcodec_core::json::writer::JsonWriter;
use orcodec_core::transcode::reference::{self, Two};
use orcodec_core::transcode::{
    json_to_msgpack, msgpack_to_json, JsonToMsgpack, MsgpackToJson, ToJsonOptions, TranscodeError,
};

fn agree(got: &Result<Vec<u8>, TranscodeError>, want: &Two, replaced: bool, input: &[u8]) {
    match (got, want) {
        (Ok(out), Two::Ok(expected)) => assert!(out == expected, "{input:x?}:\n got {out:x?}\nwant {expected:x?}"),
        (Err(TranscodeError::Decode(e)), Two::Decode(expected)) => assert_eq!(e, expected, "{input:x?}"),
        (Err(TranscodeError::Unsupported(..)), Two::Encode | Two::Build | Two::Decode(_)) => {}
        (Err(TranscodeError::Unsupported(..)), Two::Ok(_)) if replaced => {}
        _ => panic!("{input:x?}: transcoder {got:x?}, two-step {want:x?}"),
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&bits, data)) = input.split_first() else {
        return;
    };

    let mut fresh = Vec::new();
    let got = json_to_msgpack(data, &mut fresh, &mut JsonToMsgpack::new()).map(|()| fresh);
    let mut state = JsonToMsgpack::new();
    let _ = json_to_msgpack(b"[{\"a\": [1, 2], \"a\": {}}, [[], {}]]", &mut Vec::new(), &mut state);
    let mut kept = Vec::new();
    assert_eq!(json_to_msgpack(data, &mut kept, &mut state).map(|()| kept), got);
    // With room to spare from the start: the string lane stores whole
    // blocks only where the output has room for them already.
    let mut roomy = Vec::with_capacity(2 * data.len() + 1024);
    assert_eq!(json_to_msgpack(data, &mut roomy, &mut state).map(|()| roomy), got);
    let (want, replaced) = reference::json_to_msgpack(data);
    agree(&got, &want, replaced, data);

    let opts = ToJsonOptions {
        non_str_keys: bits & 1 != 0,
        timestamps: bits & 2 != 0,
        sort_keys: bits & 4 != 0,
        strict_integer: bits & 8 != 0,
        base64: bits & 16 != 0,
        style: Style { omit_microseconds: bits & 32 != 0, utc_z: bits & 64 != 0 },
    };
    let pretty = bits & 128 != 0;
    let mut state = MsgpackToJson::new();
    let got = if pretty {
        let mut w = JsonWriter::<Vec<u8>, true>::new(Vec::new());
        msgpack_to_json(data, &mut w, opts, &mut state).map(|()| w.out)
    } else {
        let mut w = JsonWriter::<Vec<u8>, false>::new(Vec::new());
        msgpack_to_json(data, &mut w, opts, &mut state).map(|()| w.out)
    };
    let (want, replaced) = reference::msgpack_to_json(data, opts, pretty);
    agree(&got, &want, replaced, data);
});

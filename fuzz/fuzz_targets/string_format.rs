//! String writing against simple reference encoders, for every storage kind
//! CPython uses (UTF-8/ASCII, UCS1, UCS2, UCS4): JSON escaping byte for byte,
//! MessagePack str and bin headers, lone surrogates refused, and each result
//! read back to the same text; each transcoder on its own too (the AVX-512
//! one where the CPU has it, and the fallbacks), against the same references.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::testing::{escaped_each_way, utf8_each_way};
use orcodec_core::text::{is_surrogate, SurrogateError, Text};
use orcodec_core::{json, msgpack};
use orcodec_fuzz::{Tree, Value};

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        check(Text::Utf8(data), &s.chars().map(|c| c as u32).collect::<Vec<_>>());
    }
    check(Text::Ucs1(data), &data.iter().map(|&b| b as u32).collect::<Vec<_>>());
    let ucs2: Vec<u16> = data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    check(Text::Ucs2(&ucs2), &ucs2.iter().map(|&u| u as u32).collect::<Vec<_>>());
    // CPython never stores a code point beyond U+10FFFF.
    let ucs4: Vec<u32> =
        data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) % 0x110000).collect();
    check(Text::Ucs4(&ucs4), &ucs4);

    let mut bin = Vec::new();
    msgpack::writer::write_bin(&mut bin, data);
    let mut expected = match data.len() {
        0..=0xff => vec![0xc4, data.len() as u8],
        0x100..=0xffff => [&[0xc5][..], &(data.len() as u16).to_be_bytes()].concat(),
        _ => [&[0xc6][..], &(data.len() as u32).to_be_bytes()].concat(),
    };
    expected.extend_from_slice(data);
    assert_eq!(bin, expected);
    assert_eq!(msgpack::reader::read(&bin, &mut Tree, orcodec_fuzz::READ).ok(), Some(Value::Bytes(data.to_vec())));
});

/// The JSON string orjson writes for these code points, or None for a lone surrogate.
fn reference_json(code_points: &[u32]) -> Option<Vec<u8>> {
    let mut out = vec![b'"'];
    for &c in code_points {
        let ch = char::from_u32(c)?;
        match ch {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            '\r' => out.extend_from_slice(b"\\r"),
            c if (c as u32) < 0x20 => out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes()),
            c => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out.push(b'"');
    Some(out)
}

fn reference_msgpack(text: &str) -> Vec<u8> {
    let n = text.len();
    let mut out = match n {
        0..=31 => vec![0xa0 | n as u8],
        32..=0xff => vec![0xd9, n as u8],
        0x100..=0xffff => [&[0xda][..], &(n as u16).to_be_bytes()].concat(),
        _ => [&[0xdb][..], &(n as u32).to_be_bytes()].concat(),
    };
    out.extend_from_slice(text.as_bytes());
    out
}

fn check(text: Text<'_>, code_points: &[u32]) {
    let has_surrogate = code_points.iter().any(|&c| is_surrogate(c));
    let mut json = Vec::new();
    let json_result = json::writer::write_str(&mut json, text);
    let mut packed = Vec::new();
    let msgpack_result = msgpack::writer::write_str(&mut packed, text);
    if has_surrogate {
        assert_eq!(json_result, Err(SurrogateError));
        assert_eq!(msgpack_result, Err(SurrogateError));
        for (name, result) in utf8_each_way(text).into_iter().chain(escaped_each_way(text)) {
            assert_eq!(result, Err(SurrogateError), "{name}");
        }
        return;
    }
    assert_eq!((json_result, msgpack_result), (Ok(()), Ok(())));
    // Each transcoder alone (the AVX-512 one shared by both formats, and the
    // fallbacks for CPUs without it) agrees with the reference too.
    let string_for_ways: String = code_points.iter().map(|&c| char::from_u32(c).expect("no surrogates")).collect();
    for (name, result) in utf8_each_way(text) {
        assert_eq!(result.as_deref(), Ok(string_for_ways.as_bytes()), "{name}");
    }
    let quoted = reference_json(code_points).expect("no surrogates");
    for (name, result) in escaped_each_way(text) {
        assert_eq!(result.as_deref(), Ok(&quoted[1..quoted.len() - 1]), "{name}");
    }
    let string: String = code_points.iter().map(|&c| char::from_u32(c).expect("no surrogates")).collect();
    assert_eq!(Some(json.clone()), reference_json(code_points));
    assert_eq!(json::scanner::parse(&json, &mut Tree).ok(), Some(Value::Str(string.clone())));
    assert_eq!(packed, reference_msgpack(&string));
    assert_eq!(msgpack::reader::read(&packed, &mut Tree, orcodec_fuzz::READ).ok(), Some(Value::Str(string)));
}

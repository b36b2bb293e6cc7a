//! Arbitrary bytes into the JSON scanner: no panic, heap bounded by the
//! input's size, errors point inside the input, and whatever it accepts is
//! UTF-8 and survives a trip through both JSON writers unchanged. Floats
//! must be std's `str::parse::<f64>`, bit for bit: a document that is one
//! number is compared directly, and every input also spells a decimal
//! (mantissa and exponent from its first bytes) that is parsed both ways.
//! Each way of unescaping strings the CPU has (SIMD block widths), and the
//! one-escape-at-a-time reading of `\u` escapes (their loop turned off),
//! must give the same value, or the same error at the same offset; so must
//! numbers read by pointer (away from the input's end: the input is also
//! read padded) and by the checked path alone.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::error::Failure;
use orcodec_core::json::scanner::parse;
use orcodec_core::testing::{with_checked_numbers, with_each_unescape_variant};
use orcodec_fuzz::{heap_budget, json_view, peak_heap, to_json, Counting, Tree, Value};

#[global_allocator]
static ALLOC: Counting = Counting;

fuzz_target!(|data: &[u8]| {
    check_decimal(data);
    let (result, peak) = peak_heap(|| parse(data, &mut Tree));
    assert!(peak <= heap_budget(data.len()), "{peak} heap bytes for {} input bytes", data.len());
    // Every way of unescaping strings (SIMD widths by CPU; `\u` escapes in
    // their loop or one at a time) gives the same value, or the same error
    // at the same offset.
    let outcome = |r: &Result<Value, Failure<()>>| match r {
        Ok(v) => Ok(v.clone()),
        Err(Failure::Syntax(e)) => Err((e.kind.to_string(), e.offset)),
        Err(Failure::Build(())) => unreachable!("Tree never fails"),
    };
    let want = outcome(&result);
    with_each_unescape_variant(|| assert_eq!(outcome(&parse(data, &mut Tree)), want));
    // Numbers with 64 bytes after their start are read by pointer: the
    // input padded so that every number has them, read with that path and
    // with the checked path alone, gives the same value or error.
    let mut padded = data.to_vec();
    padded.extend([b' '; 64]);
    let fast = outcome(&parse(&padded, &mut Tree));
    assert_eq!(with_checked_numbers(|| outcome(&parse(&padded, &mut Tree))), fast);
    match result {
        Ok(value) => {
            assert!(std::str::from_utf8(data).is_ok(), "accepted invalid UTF-8");
            if let Value::Float(bits) = value {
                let text = std::str::from_utf8(data).unwrap().trim_matches([' ', '\n', '\r', '\t']);
                let want: f64 = text.parse().unwrap_or_else(|e| panic!("{text:?} accepted, std says {e}"));
                assert_eq!(bits, want.to_bits(), "{text}");
            }
            let expected = json_view(&value);
            for pretty in [false, true] {
                let text = to_json(&value, pretty);
                let again = parse(&text, &mut Tree).unwrap_or_else(|e| panic!("own output rejected: {e:?}"));
                assert_eq!(again, expected);
            }
        }
        Err(Failure::Syntax(e)) => assert!(e.offset <= data.len(), "offset {} past the end", e.offset),
        Err(Failure::Build(())) => unreachable!("Tree never fails"),
    }
});

/// A decimal spelled from the input's first bytes: up to 20 mantissa digits
/// (with a point somewhere, or none), an exponent in -400..400; the scanner's
/// float must equal std's.
fn check_decimal(data: &[u8]) {
    let mut word = [0u8; 12];
    let n = data.len().min(12);
    word[..n].copy_from_slice(&data[..n]);
    let mantissa = u64::from_le_bytes(word[..8].try_into().unwrap());
    let digits = (word[8] % 21) as usize;
    let exponent = i16::from_le_bytes([word[9], word[10]]) % 400;
    let mut text = format!("{mantissa:020}");
    text.drain(..20 - digits.max(1));
    // No leading zeros in JSON ("0" itself stays).
    let significant = text.trim_start_matches('0');
    text = if significant.is_empty() { "0".to_string() } else { significant.to_string() };
    let point = word[11] as usize % (text.len() + 1);
    if point > 0 && point < text.len() {
        text.insert(point, '.');
    }
    if word[11] & 0x80 != 0 {
        text = format!("{text}e{exponent}");
    }
    let want: f64 = text.parse().unwrap();
    match parse(text.as_bytes(), &mut Tree) {
        Ok(Value::Float(bits)) => assert_eq!(bits, want.to_bits(), "{text}"),
        Ok(Value::Int(i)) => assert!(!text.contains(['.', 'e']) && i as f64 == want, "{text}"),
        other => panic!("{text}: {other:?}"),
    }
}

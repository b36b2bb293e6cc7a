//! Number formatting against references: every f64 bit pattern, i64 and u64
//! through both writers. JSON text must be what std prints for integers, the
//! shortest round-trip digits for floats (as many significant digits as std's
//! `{:e}`, which is shortest by contract, and exactly ryu's text in orjson's
//! form), and read back to the same value and type; MessagePack must read back
//! bit for bit in the smallest family. Rows of integers (numpy arrays) must be
//! written as the same values one at a time.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::emit::Emitter;
use orcodec_core::json::writer::CompactJsonWriter;
use orcodec_core::number::float;
use orcodec_core::{json, msgpack};
use orcodec_fuzz::{Tree, Value};

fuzz_target!(|data: &[u8]| {
    let mut word = [0u8; 8];
    let n = data.len().min(8);
    word[..n].copy_from_slice(&data[..n]);
    let bits = u64::from_le_bytes(word);
    check_f64(f64::from_bits(bits));
    check_int(bits as i128, |out| json::writer::write_u64(out, bits), |out| msgpack::writer::write_u64(out, bits));
    let signed = bits as i64;
    check_int(
        signed as i128,
        |out| json::writer::write_i64(out, signed),
        |out| msgpack::writer::write_i64(out, signed),
    );
    // The same bits cut to a width of 1 to 19 digits (byte 8), either sign:
    // every length of the digit writer, not mostly 19 and 20 digits.
    if let Some(&width) = data.get(8) {
        let narrow = bits % 10u64.pow(1 + (width % 19) as u32);
        let narrow = if width & 0x80 != 0 { -(narrow as i64) } else { narrow as i64 };
        check_int(
            narrow as i128,
            |out| json::writer::write_i64(out, narrow),
            |out| msgpack::writer::write_i64(out, narrow),
        );
    }
    check_rows(data);
    check_float_arrays(data);
    check_int_arrays(data);
});

/// Arrays of ints through the JSON writer's loop for runs of them
/// (`i64_run`) against the same items one at a time, as the walker takes
/// runs: each 8 bytes of the input are an item, by their two low bits not
/// an int (written as `null`), a value of 1 to 16 digits (the run's ints)
/// or any bit pattern as i64.
fn check_int_arrays(data: &[u8]) {
    let items: Vec<Option<i64>> = data
        .chunks(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            let bits = u64::from_le_bytes(word);
            match bits & 3 {
                0 => None,
                1 => Some(
                    ((bits >> 8) % 10u64.pow(1 + ((bits >> 2) & 15) as u32)) as i64
                        * if bits & 64 != 0 { -1 } else { 1 },
                ),
                _ => Some(bits as i64),
            }
        })
        .collect();
    let mut one = CompactJsonWriter::new(Vec::new());
    let mut runs = CompactJsonWriter::new(Vec::new());
    one.begin_array(items.len());
    runs.begin_array(items.len());
    let mut i = 0;
    while i < items.len() {
        if items[i].is_some() && runs_from(i, &items) {
            let end = runs.i64_run(i, items.len(), |j| items[j]);
            assert!(end > i && items[i..end].iter().all(Option::is_some));
            assert!(end == items.len() || items[end].is_none());
            for (j, item) in items.iter().enumerate().take(end).skip(i) {
                one.array_item(j);
                one.i64(item.unwrap_or_default());
            }
            i = end;
            continue;
        }
        for w in [&mut one, &mut runs] {
            w.array_item(i);
            match items[i] {
                Some(x) => w.i64(x),
                None => w.null(),
            }
        }
        i += 1;
    }
    one.end_array(items.len());
    runs.end_array(items.len());
    assert_eq!(one.out, runs.out);
}

/// Arrays of floats through the JSON writer's loops for them (`f64_array`
/// for a short list of floats, `f64_run` for the runs of floats in a list)
/// against the same items one at a time. Each 8 bytes of the input are an
/// item: by their two low bits not a float (written as `0`), a decimal of
/// at most seven places (the short path's values and their neighbours), or
/// any bit pattern (NaN and the infinities included).
fn check_float_arrays(data: &[u8]) {
    let items: Vec<Option<f64>> = data
        .chunks(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            let bits = u64::from_le_bytes(word);
            match bits & 3 {
                0 => None,
                1 => Some((bits >> 8) as i64 as f64 / 10f64.powi(((bits >> 2) & 7) as i32)),
                _ => Some(f64::from_bits(bits)),
            }
        })
        .collect();
    let mut one = CompactJsonWriter::new(Vec::new());
    let mut runs = CompactJsonWriter::new(Vec::new());
    // Twice over, so the short path's pause carries from one array to the next.
    for _ in 0..2 {
        one.begin_array(items.len());
        runs.begin_array(items.len());
        let mut i = 0;
        while i < items.len() {
            one.array_item(i);
            match items[i] {
                Some(x) => one.f64(x),
                None => one.i64(0),
            }
            if items[i].is_some() && runs_from(i, &items) {
                let end = runs.f64_run(i, items.len(), |j| items[j]);
                assert!(end > i && items[i..end].iter().all(Option::is_some));
                assert!(end == items.len() || items[end].is_none());
                for (j, item) in items.iter().enumerate().take(end).skip(i + 1) {
                    one.array_item(j);
                    one.f64(item.unwrap_or_default());
                }
                i = end;
                continue;
            }
            runs.array_item(i);
            match items[i] {
                Some(x) => runs.f64(x),
                None => runs.i64(0),
            }
            i += 1;
        }
        one.end_array(items.len());
        runs.end_array(items.len());
        assert_eq!(one.out, runs.out);
    }
    let floats: Vec<f64> = items.iter().flatten().copied().take(8).collect();
    let mut one = CompactJsonWriter::new(Vec::new());
    one.begin_array(floats.len());
    for (i, &x) in floats.iter().enumerate() {
        one.array_item(i);
        one.f64(x);
    }
    one.end_array(floats.len());
    let mut whole = CompactJsonWriter::new(Vec::new());
    whole.f64_array(&floats);
    assert_eq!(one.out, whole.out);
}

/// Whether the walker-like loop of `check_float_arrays` takes a run at item
/// `i` (every other float of the input goes one at a time, so runs start
/// anywhere, not only at the first float after another item).
fn runs_from<T>(i: usize, items: &[Option<T>]) -> bool {
    i.is_multiple_of(2) || items.len() < 4
}

/// Integer rows (numpy arrays) through the JSON writer's row loops against
/// the same values one at a time, for every integer type. Bytes 0-7 are a
/// base value, byte 8 how many digits it keeps (so rows of one width, which
/// take the fixed-stride loop, are common); each later byte is a value's
/// signed offset from the base.
fn check_rows(data: &[u8]) {
    let Some((head, offsets)) = data.split_first_chunk::<9>() else {
        return;
    };
    let digits = 1 + (head[8] % 20) as u32;
    let base = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
    let base = if digits == 20 { base } else { base % 10u64.pow(digits) };
    let values: Vec<u64> = offsets.iter().map(|&b| base.wrapping_add(b as i8 as u64)).collect();
    check_row(&values.iter().map(|&v| v as i64).collect::<Vec<_>>(), |w, v| w.i64_items(v), |w, x| w.i64(x));
    check_row(&values, |w, v| w.u64_items(v), |w, x| w.u64(x));
    check_row(&values.iter().map(|&v| v as i32).collect::<Vec<_>>(), |w, v| w.i64_items(v), |w, x| w.i64(x.into()));
    check_row(&values.iter().map(|&v| v as u32).collect::<Vec<_>>(), |w, v| w.u64_items(v), |w, x| w.u64(x.into()));
    check_row(&values.iter().map(|&v| v as i16).collect::<Vec<_>>(), |w, v| w.i64_items(v), |w, x| w.i64(x.into()));
    check_row(&values.iter().map(|&v| v as u16).collect::<Vec<_>>(), |w, v| w.u64_items(v), |w, x| w.u64(x.into()));
}

fn check_row<T: Copy>(
    values: &[T],
    rows: impl Fn(&mut CompactJsonWriter<Vec<u8>>, &[T]),
    one: impl Fn(&mut CompactJsonWriter<Vec<u8>>, T),
) {
    let mut by_rows = CompactJsonWriter::new(Vec::new());
    by_rows.begin_array(values.len());
    rows(&mut by_rows, values);
    by_rows.end_array(values.len());
    let mut by_one = CompactJsonWriter::new(Vec::new());
    by_one.begin_array(values.len());
    for (i, &v) in values.iter().enumerate() {
        by_one.array_item(i);
        one(&mut by_one, v);
    }
    by_one.end_array(values.len());
    assert_eq!(by_rows.out, by_one.out);
}

/// How many significant digits a decimal float text has (mantissa without
/// sign, point, leading or trailing zeros). The digits themselves may differ
/// from std's in the last place: at an exact tie ryu rounds half to even.
fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    digits.trim_start_matches('0').trim_end_matches('0').len()
}

fn check_f64(v: f64) {
    let mut out = Vec::new();
    float::write_f64(&mut out, v);
    let text = std::str::from_utf8(&out).expect("ASCII");
    if !v.is_finite() {
        assert_eq!(text, "null");
    } else {
        assert_eq!(text.parse::<f64>().map(f64::to_bits), Ok(v.to_bits()), "{text} for {v:e}");
        assert_eq!(json::scanner::parse(&out, &mut Tree).ok(), Some(Value::Float(v.to_bits())), "{text}");
        assert_eq!(significant_digits(text), significant_digits(&format!("{v:e}")), "{text} for {v:e}");
        // Byte for byte ryu's text, with orjson's `+` in positive exponents.
        let ryu = ryu::Buffer::new().format_finite(v).to_string();
        let expected = match ryu.split_once('e') {
            Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
            _ => ryu,
        };
        assert_eq!(text, expected, "for {v:e}");
    }
    let mut packed = Vec::new();
    msgpack::writer::write_f64(&mut packed, v);
    assert_eq!(packed.len(), 9);
    assert_eq!(msgpack::reader::read(&packed, &mut Tree, orcodec_fuzz::READ).ok(), Some(Value::Float(v.to_bits())));
}

/// Bytes the smallest MessagePack integer family for `v` takes.
fn msgpack_int_len(v: i128) -> usize {
    match v {
        -32..=127 => 1,
        -128..=255 => 2,
        -32768..=65535 => 3,
        -2147483648..=4294967295 => 5,
        _ => 9,
    }
}

fn check_int(v: i128, json: impl FnOnce(&mut Vec<u8>), msgpack: impl FnOnce(&mut Vec<u8>)) {
    let mut out = Vec::new();
    json(&mut out);
    assert_eq!(out, v.to_string().into_bytes());
    assert_eq!(json::scanner::parse(&out, &mut Tree).ok(), Some(Value::Int(v)));
    let mut packed = Vec::new();
    msgpack(&mut packed);
    assert_eq!(packed.len(), msgpack_int_len(v), "{v} as {packed:02x?}");
    assert_eq!(msgpack::reader::read(&packed, &mut Tree, orcodec_fuzz::READ).ok(), Some(Value::Int(v)));
}

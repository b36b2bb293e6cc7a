//! The transcoders against the two-step of [`reference`](super::reference):
//! the same bytes, the same decode error, or (for what a transcoder leaves to
//! the two-step) an input the two-step refuses or one where a repeated key
//! replaced a value.

use super::reference::{self, Two};
use super::*;
use crate::datetime::Style;
use crate::error::DecodeErrorKind as Kind;
use crate::json::writer::JsonWriter;
use crate::testing::{conformance_files, fixture_documents, Rng};

/// The transcoder's outcome for JSON `input`, checked against the reference.
fn j2m(input: &[u8]) -> Result<Vec<u8>, TranscodeError> {
    let mut out = Vec::new();
    let got = json_to_msgpack(input, &mut out, &mut JsonToMsgpack::new()).map(|()| out);
    // A kept state gives the same.
    let mut state = JsonToMsgpack::new();
    let _ = json_to_msgpack(b"{\"warm\": [1, 2, {\"a\": 1, \"a\": 2}]}", &mut Vec::new(), &mut state);
    let mut again = Vec::new();
    assert_eq!(json_to_msgpack(input, &mut again, &mut state).map(|()| again), got);
    // Again, with the header sizes learned from this input (each in its place).
    let mut third = Vec::new();
    assert_eq!(json_to_msgpack(input, &mut third, &mut state).map(|()| third), got);
    // With room to spare from the start (the string lane stores whole
    // blocks only where the output has room for them already).
    let mut roomy = Vec::with_capacity(2 * input.len() + 1024);
    assert_eq!(json_to_msgpack(input, &mut roomy, &mut JsonToMsgpack::new()).map(|()| roomy), got);
    let (want, replaced) = reference::json_to_msgpack(input);
    agree(&got, &want, replaced, || String::from_utf8_lossy(input).into_owned());
    got
}

/// The string lane of `json_to_msgpack` (blocks of 16 and 32 bytes, up to
/// 256): strings and keys of every length to past 256 bytes, an escape, a
/// quote-free control byte or a multi-byte character at each block
/// boundary, and each such string near the end of the input (where the
/// lane leaves a block that would run past it to the reader).
#[test]
fn the_string_lane_at_every_length_and_block_boundary() {
    let marks: [&str; 4] = ["\\n", "\\u00e9", "\u{1}", "é"];
    for len in 0..300usize {
        let plain: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
        let mut texts = vec![plain.clone()];
        for k in [0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 239, 240, 255, 256, 257] {
            if k < len {
                for mark in marks {
                    texts.push(format!("{}{mark}{}", &plain[..k], &plain[k + 1..]));
                }
            }
        }
        for text in &texts {
            for tail in [0, 1, 15, 16, 31, 32, 33, 255, 256, 257] {
                let pad = " ".repeat(tail);
                let value = format!("[\"{text}\", 1]{pad}");
                let key = format!("{{\"{text}\": \"{text}\"}}{pad}");
                let got = j2m(value.as_bytes());
                if !text.contains('\u{1}') {
                    assert!(got.is_ok(), "{value}");
                }
                let _ = j2m(key.as_bytes());
            }
        }
    }
}

/// The transcoder's outcome for MessagePack `input`, checked against the reference.
fn m2j(input: &[u8], opts: ToJsonOptions, pretty: bool) -> Result<Vec<u8>, TranscodeError> {
    let mut state = MsgpackToJson::new();
    let got = if pretty {
        let mut w = JsonWriter::<Vec<u8>, true>::new(Vec::new());
        msgpack_to_json(input, &mut w, opts, &mut state).map(|()| w.out)
    } else {
        let mut w = JsonWriter::<Vec<u8>, false>::new(Vec::new());
        msgpack_to_json(input, &mut w, opts, &mut state).map(|()| w.out)
    };
    let (want, replaced) = reference::msgpack_to_json(input, opts, pretty);
    agree(&got, &want, replaced, || format!("{input:x?} {opts:?} pretty={pretty}"));
    got
}

fn agree(got: &Result<Vec<u8>, TranscodeError>, want: &Two, replaced: bool, show: impl Fn() -> String) {
    match (got, want) {
        (Ok(out), Two::Ok(expected)) => {
            assert!(out == expected, "{}:\n got {:x?}\nwant {:x?}", show(), out, expected)
        }
        (Err(TranscodeError::Decode(e)), Two::Decode(expected)) => assert_eq!(e, expected, "{}", show()),
        // Left to the two-step: it must refuse the input too, unless a
        // repeated key dropped the value the transcoder stopped at.
        (Err(TranscodeError::Unsupported(..)), Two::Encode | Two::Build | Two::Decode(_)) => {}
        (Err(TranscodeError::Unsupported(..)), Two::Ok(_)) if replaced => {}
        _ => panic!("{}: transcoder {got:x?}, two-step {want:x?}", show()),
    }
}

const PLAIN: ToJsonOptions = ToJsonOptions {
    non_str_keys: false,
    timestamps: false,
    sort_keys: false,
    strict_integer: false,
    base64: false,
    style: Style { omit_microseconds: false, utc_z: false },
};

/// Every combination of the options that change what is written.
fn all_options() -> Vec<ToJsonOptions> {
    let mut all = Vec::new();
    for bits in 0..64u32 {
        all.push(ToJsonOptions {
            non_str_keys: bits & 1 != 0,
            timestamps: bits & 2 != 0,
            sort_keys: bits & 4 != 0,
            strict_integer: bits & 8 != 0,
            base64: bits & 16 != 0,
            style: Style { omit_microseconds: bits & 32 != 0, utc_z: bits & 32 != 0 },
        });
    }
    all
}

fn packed(json: &str) -> Vec<u8> {
    j2m(json.as_bytes()).unwrap_or_else(|e| panic!("{json}: {e:?}"))
}

#[test]
fn scalars_and_containers() {
    assert_eq!(packed("null"), [0xc0]);
    assert_eq!(packed(" true "), [0xc3]);
    assert_eq!(packed("-0"), [0x00]);
    assert_eq!(packed("-1.5"), [0xcb, 0xbf, 0xf8, 0, 0, 0, 0, 0, 0]);
    assert_eq!(packed("18446744073709551616")[0], 0xcb, "beyond 64 bits: a float, as loads gives");
    assert_eq!(packed(r#""a\u00e9""#), [0xa3, b'a', 0xc3, 0xa9]);
    assert_eq!(packed("[]"), [0x90]);
    assert_eq!(packed("{}"), [0x80]);
    assert_eq!(packed(r#"[1, [], {"a": [true]}]"#), [0x93, 0x01, 0x90, 0x81, 0xa1, b'a', 0x91, 0xc3]);
    assert_eq!(
        m2j(&packed(r#"[1, [], {"a": [true, "é\n"]}]"#), PLAIN, false).unwrap(),
        r#"[1,[],{"a":[true,"é\n"]}]"#.as_bytes()
    );
    assert_eq!(
        m2j(&packed(r#"[1, [], {"a": [true]}]"#), PLAIN, true).unwrap(),
        b"[\n  1,\n  [],\n  {\n    \"a\": [\n      true\n    ]\n  }\n]"
    );
}

#[test]
fn counts_of_every_header_size() {
    for n in [0usize, 1, 15, 16, 17, 255, 65535, 65536, 70000] {
        let items = vec!["7"; n].join(",");
        let array = packed(&format!("[{items}]"));
        let mut want = Vec::new();
        crate::msgpack::writer::write_array_header(&mut want, n);
        want.extend_from_slice(&vec![7u8; n]);
        assert_eq!(array, want, "{n} items");
        // Nested in others of every size, each patched once.
        let nested = format!("[[{items}], {{\"k\": [{items}]}}, [[{items}]], [{}]]", vec!["[]"; n].join(","));
        packed(&nested);
        let map: Vec<String> = (0..n).map(|i| format!("\"k{i}\": [{i}]")).collect();
        let map = format!("{{{}}}", map.join(","));
        let out = packed(&map);
        assert_eq!(m2j(&out, PLAIN, false).unwrap(), map.replace(' ', "").as_bytes());
        m2j(&out, ToJsonOptions { sort_keys: true, ..PLAIN }, true).unwrap();
    }
}

#[test]
fn header_sizes_guessed_wrong_both_ways() {
    // One state through documents whose containers change size in the same
    // places: guesses too large and too small in one output, in any order.
    let mut state = JsonToMsgpack::new();
    let mut rng = Rng::new(0x04ea_de55);
    for _ in 0..300 {
        let mut doc = String::from("{");
        for k in 0..1 + rng.below(6) {
            let n = [0u64, 3, 15, 16, 40, 70000][rng.below(6) as usize];
            let items = vec!["[1]"; n as usize].join(",");
            doc.push_str(&format!(
                "{}\"k{k}\": [{items}], \"m{k}\": {{\"a\": [[{items}]]}}",
                if k > 0 { "," } else { "" }
            ));
        }
        doc.push('}');
        let mut out = Vec::new();
        json_to_msgpack(doc.as_bytes(), &mut out, &mut state).unwrap();
        assert_eq!(Two::Ok(out), reference::json_to_msgpack(doc.as_bytes()).0);
    }
}

#[test]
fn repeated_keys_keep_the_first_place_and_the_last_value() {
    assert_eq!(packed(r#"{"a": 1, "b": 2, "a": 3}"#), packed(r#"{"a": 3, "b": 2}"#));
    assert_eq!(packed(r#"{"a": [1,2,3], "b": {}, "a": "x", "a": [[]]}"#), packed(r#"{"a": [[]], "b": {}}"#));
    // The replaced and the replacing values hold containers of 16 items or
    // more, whose headers are written at the end.
    let big = vec!["0"; 20].join(",");
    let doc = format!(r#"{{"a": [{big}], "b": [{big}], "a": {{"c": [{big}], "c": [1]}}, "d": [{big}]}}"#);
    let want = format!(r#"{{"a": {{"c": [1]}}, "b": [{big}], "d": [{big}]}}"#);
    assert_eq!(packed(&doc), packed(&want));
    // Many keys (the hash table), repeated at random.
    let mut rng = Rng::new(0x0dd_c0de);
    for size in [5u64, 9, 40, 700] {
        let entries: Vec<String> = (0..size * 3).map(|i| format!("\"k{}\": [{i}, \"v\"]", rng.below(size))).collect();
        let doc = format!("{{{}}}", entries.join(", "));
        let out = packed(&doc);
        m2j(&out, PLAIN, false).unwrap();
        let json = m2j(&out, ToJsonOptions { sort_keys: true, ..PLAIN }, true).unwrap();
        assert_eq!(packed(std::str::from_utf8(&json).unwrap()).len(), out.len());
    }
}

#[test]
fn keys_that_share_their_word_or_filter_bit_are_told_apart() {
    // Keys are compared first by a word (a long key's first and last 8
    // bytes) and a small map skips the scan when a key's filter bit is
    // clear: keys with the same word (same ends, another middle or length),
    // keys sharing a prefix or an 8-byte head, short and empty keys, drawn
    // with repeats into maps on both sides of the table's threshold.
    let mut pool: Vec<String> = Vec::new();
    for k in 0..12 {
        pool.push(format!("abcdefgh{k:03}stuvwxyz"));
        pool.push(format!("abcdefgh{}stuvwxyz", "m".repeat(k)));
        pool.push(format!("profile_{}_color", ["link", "text", "sidebar", "background"][k % 4].repeat(1 + k / 4)));
        pool.push(format!("k{k}"));
    }
    pool.extend(
        ["", "abcdefgh", "abcdefgi", "abcdefg", r"\u00e9t\u00e9 long key here", "été long key here"].map(String::from),
    );
    let sorted = ToJsonOptions { sort_keys: true, ..PLAIN };
    let mut rng = Rng::new(0x005e_ed0f_b175);
    for size in [2u64, 8, 9, 17, 40, 63, 64, 65, 130] {
        for _ in 0..12 {
            let entries: Vec<String> =
                (0..size).map(|i| format!("\"{}\": {i}", pool[rng.below(pool.len() as u64) as usize])).collect();
            let doc = format!("{{{}}}", entries.join(", "));
            let out = packed(&doc);
            let plain = m2j(&out, PLAIN, false).unwrap();
            m2j(&out, sorted, true).unwrap();
            assert_eq!(packed(std::str::from_utf8(&plain).unwrap()), out);
        }
    }
}

#[test]
fn nesting_past_the_encoders_limit_is_left_to_the_two_step() {
    let nested = |n: usize| "[".repeat(n) + &"]".repeat(n);
    assert!(j2m(nested(255).as_bytes()).is_ok());
    assert_eq!(j2m(nested(256).as_bytes()), Err(TranscodeError::Unsupported(Unsupported::Depth, 255)));
    // The decoder's own limit is further: both are refused, by different errors.
    assert!(j2m(nested(1025).as_bytes()).is_err());
    // A deep value a repeated key replaces: the two-step succeeds.
    let doc = format!(r#"{{"a": {}, "a": 1}}"#, nested(300));
    assert_eq!(reference::json_to_msgpack(doc.as_bytes()).0, Two::Ok(vec![0x81, 0xa1, b'a', 1]));
    assert!(matches!(j2m(doc.as_bytes()), Err(TranscodeError::Unsupported(Unsupported::Depth, _))));
    let deep = packed(&nested(255));
    assert_eq!(m2j(&deep, PLAIN, false).unwrap(), nested(255).as_bytes());
    let mut deeper = vec![0x91; 256];
    deeper.push(0x90);
    assert_eq!(m2j(&deeper, PLAIN, false), Err(TranscodeError::Unsupported(Unsupported::Depth, 255)));
}

#[test]
fn decode_errors_are_the_readers() {
    let e = |kind, offset| Err(TranscodeError::Decode(crate::error::DecodeError::new(kind, offset)));
    assert_eq!(j2m(b""), e(Kind::EmptyDocument, 0));
    assert_eq!(j2m(b"[1,]"), e(Kind::TrailingComma, 2));
    assert_eq!(j2m(b"{\"a\":1} x"), e(Kind::TrailingData, 8));
    assert_eq!(j2m(b"[\"\xff\"]"), e(Kind::InvalidUtf8, 2));
    assert_eq!(
        m2j(&[0x92, 0x01], PLAIN, false),
        e(Kind::LengthBeyondInput { what: "array", declared: 2, available: 1 }, 0)
    );
    assert_eq!(m2j(&[0x81, 0x01, 0x02], PLAIN, false), e(Kind::NonStrKey, 1));
    assert_eq!(m2j(&[0x01, 0x02], PLAIN, false), e(Kind::TrailingData, 1));
    assert_eq!(m2j(&[0xa2, 0xc3, 0x28], PLAIN, false), e(Kind::InvalidUtf8, 0));
}

#[test]
fn msgpack_values_json_cannot_hold() {
    let bin = [0x92, 0xc4, 0x03, 1, 2, 3, 0xd4, 0x05, 0xff];
    assert_eq!(m2j(&bin, PLAIN, false), Err(TranscodeError::Unsupported(Unsupported::Bin, 1)));
    let b64 = ToJsonOptions { base64: true, ..PLAIN };
    assert_eq!(m2j(&bin, b64, false).unwrap(), br#"["AQID",{"tag":5,"data":"/w=="}]"#);
    assert_eq!(
        m2j(&bin, ToJsonOptions { sort_keys: true, ..b64 }, false).unwrap(),
        br#"["AQID",{"data":"/w==","tag":5}]"#
    );
    // Timestamps: datetimes with the option, else extensions.
    let ts = [0xd7, 0xff, 0x00, 0x00, 0x0f, 0xa0, 0x65, 0xe1, 0x1a, 0x80];
    let with = ToJsonOptions { timestamps: true, ..PLAIN };
    assert_eq!(m2j(&ts, with, false).unwrap(), br#""2024-03-01T00:00:00.000001+00:00""#);
    let z = ToJsonOptions { style: Style { omit_microseconds: true, utc_z: true }, ..with };
    assert_eq!(m2j(&ts, z, false).unwrap(), br#""2024-03-01T00:00:00Z""#);
    assert_eq!(m2j(&ts, PLAIN, false), Err(TranscodeError::Unsupported(Unsupported::Ext(-1), 0)));
    // Year 10000 has no datetime.
    let mut late = vec![0xc7, 12, 0xff, 0, 0, 0, 0];
    late.extend_from_slice(&253_402_300_800i64.to_be_bytes());
    assert_eq!(m2j(&late, with, false), Err(TranscodeError::Unsupported(Unsupported::Timestamp, 0)));
    // Integers beyond 53 bits with the strict option.
    let strict = ToJsonOptions { strict_integer: true, ..PLAIN };
    assert_eq!(
        m2j(&packed("[9007199254740991, -9007199254740991]"), strict, false).unwrap(),
        b"[9007199254740991,-9007199254740991]"
    );
    assert!(m2j(&packed("9007199254740992"), strict, false).is_err());
    assert!(m2j(&packed("-9007199254740992"), strict, false).is_err());
}

#[test]
fn non_str_keys_are_dict_keys() {
    let keys = ToJsonOptions { non_str_keys: true, ..PLAIN };
    // {1: "a", 1.0: "b", True: "c", "1": "d", None: 0, 0.5: 1, nan: 2, nan: 3}
    let mut doc = vec![0x88, 0x01, 0xa1, b'a', 0xcb];
    doc.extend_from_slice(&1.0f64.to_be_bytes());
    doc.extend_from_slice(&[0xa1, b'b', 0xc3, 0xa1, b'c', 0xa1, b'1', 0xa1, b'd', 0xc0, 0x00, 0xca]);
    doc.extend_from_slice(&0.5f32.to_be_bytes());
    doc.extend_from_slice(&[0x01, 0xcb]);
    doc.extend_from_slice(&f64::NAN.to_be_bytes());
    doc.extend_from_slice(&[0x02, 0xcb]);
    doc.extend_from_slice(&f64::NAN.to_be_bytes());
    doc.push(0x03);
    assert_eq!(m2j(&doc, keys, false).unwrap(), br#"{"1":"c","1":"d","null":0,"0.5":1,"null":2,"null":3}"#);
    assert_eq!(
        m2j(&doc, ToJsonOptions { sort_keys: true, ..keys }, false).unwrap(),
        br#"{"0.5":1,"1":"c","1":"d","null":0,"null":2,"null":3}"#
    );
    assert_eq!(
        m2j(&doc, PLAIN, false),
        Err(TranscodeError::Decode(crate::error::DecodeError::new(Kind::NonStrKey, 1)))
    );
    // Keys JSON has no text for.
    assert_eq!(m2j(&[0x81, 0x91, 0x01, 0x01], keys, false), Err(TranscodeError::Unsupported(Unsupported::Key, 1)));
    assert_eq!(m2j(&[0x81, 0xc4, 0x00, 0x01], keys, false), Err(TranscodeError::Unsupported(Unsupported::Key, 1)));
    // Timestamps as keys.
    let mut ts_keys = vec![0x82, 0xd6, 0xff, 0, 0, 0, 1, 0x01, 0xd7, 0xff];
    ts_keys.extend_from_slice(&((999u64 << 34) | 1).to_be_bytes());
    ts_keys.push(0x02);
    let both = ToJsonOptions { timestamps: true, ..keys };
    assert_eq!(m2j(&ts_keys, both, false).unwrap(), br#"{"1970-01-01T00:00:01+00:00":2}"#);
}

#[test]
fn sorted_keys_order_by_text_not_by_escapes() {
    let doc = packed(r#"{"b": 1, "a\n": 2, "a": 3, "é": 4, "a\u0000": 5, "~": 6}"#);
    let sorted = ToJsonOptions { sort_keys: true, ..PLAIN };
    assert_eq!(
        m2j(&doc, sorted, false).unwrap(),
        "{\"a\":3,\"a\\u0000\":5,\"a\\n\":2,\"b\":1,\"~\":6,\"é\":4}".as_bytes()
    );
}

#[test]
fn conformance_corpus_both_ways() {
    for path in conformance_files() {
        let input = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let got = j2m(&input);
        if name.starts_with("y_") {
            // JSON may nest deeper (1024) than the encoders write (255):
            // such a document is refused at the first container past that.
            if let Err(TranscodeError::Unsupported(Unsupported::Depth, at)) = got {
                let depth = input[..=at].iter().filter(|&&b| b == b'[' || b == b'{').count();
                assert!(depth > super::MAX_ENCODE_DEPTH, "{name}: refused at depth {depth}");
                continue;
            }
            let out = got.unwrap_or_else(|e| panic!("{name}: {e:?}"));
            for opts in [PLAIN, ToJsonOptions { sort_keys: true, non_str_keys: true, ..PLAIN }] {
                m2j(&out, opts, false).unwrap_or_else(|e| panic!("{name}: {e:?}"));
                m2j(&out, opts, true).unwrap();
            }
        } else if name.starts_with("n_") {
            assert!(got.is_err(), "{name}");
        }
    }
}

#[test]
fn fixtures_both_ways_with_every_option() {
    for (name, json) in fixture_documents() {
        let out = j2m(&json).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let mut written = 0;
        for (i, opts) in all_options().into_iter().enumerate() {
            // Every option on the small ones; a few on the large ones.
            if json.len() > 1_000_000 && i % 13 != 0 {
                continue;
            }
            // Checked against the two-step inside (the strict-integer
            // option refuses some of them, as dumps does).
            written += m2j(&out, opts, i % 2 == 0).is_ok() as usize;
        }
        assert!(written >= 4, "{name}: {written}");
    }
}

/// A random document: small key alphabet (repeats), every kind of value,
/// containers of every header size now and then.
fn random_json(rng: &mut Rng, depth: usize, out: &mut String) {
    match rng.below(if depth > 6 { 6 } else { 10 }) {
        0 => out.push_str("null"),
        1 => out.push_str(["true", "false"][rng.below(2) as usize]),
        2 => out.push_str(&(rng.next_u64() as i64 >> rng.below(64)).to_string()),
        3 => out.push_str(&format!("{:e}", f64::from_bits(rng.next_u64() >> 2))),
        4 => out.push_str(
            ["\"\"", "\"a\"", "\"é\\n\"", "\"\\ud83d\\ude00\"", "\"long string of text here\""][rng.below(5) as usize],
        ),
        5 => out.push_str(&(rng.next_u64() >> 1).to_string()),
        6 | 7 => {
            let n = if rng.below(8) == 0 { 10 + rng.below(30) } else { rng.below(5) };
            out.push('[');
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                random_json(rng, depth + 1, out);
            }
            out.push(']');
        }
        _ => {
            let n = if rng.below(8) == 0 { 10 + rng.below(30) } else { rng.below(5) };
            let alphabet = 1 + rng.below(20);
            out.push('{');
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&format!("\"k{}\":", rng.below(alphabet)));
                random_json(rng, depth + 1, out);
            }
            out.push('}');
        }
    }
}

#[test]
fn random_documents_both_ways() {
    let mut rng = Rng::new(0x7a5c_0de5);
    let options = all_options();
    for round in 0..3000 {
        let mut doc = String::new();
        random_json(&mut rng, 0, &mut doc);
        let out = j2m(doc.as_bytes()).unwrap_or_else(|e| panic!("{doc}: {e:?}"));
        let opts = options[round % options.len()];
        if !opts.strict_integer {
            m2j(&out, opts, round % 3 == 0).unwrap();
        }
        // Broken: a cut, or a byte changed.
        let cut = rng.below(doc.len() as u64) as usize;
        let _ = j2m(&doc.as_bytes()[..cut]);
        let _ = m2j(&out[..rng.below(out.len() as u64) as usize], opts, false);
        let mut bad = out.clone();
        let at = rng.below(bad.len() as u64) as usize;
        bad[at] = rng.next_u64() as u8;
        let _ = m2j(&bad, opts, round % 2 == 0);
    }
}

/// Random MessagePack with keys of every kind and extensions.
fn random_msgpack(rng: &mut Rng, depth: usize, out: &mut Vec<u8>) {
    use crate::msgpack::writer as w;
    match rng.below(if depth > 5 { 9 } else { 12 }) {
        0 => out.push(0xc0),
        1 => out.push(0xc2 | rng.below(2) as u8),
        2 => w::write_i64(out, rng.next_u64() as i64 >> rng.below(64)),
        3 => w::write_f64(out, [0.5, 1.0, -0.0, f64::NAN, 1e300, 2.0][rng.below(6) as usize]),
        4 => {
            out.push(0xca);
            out.extend_from_slice(&[1.0f32, 0.1, 3.0][rng.below(3) as usize].to_be_bytes());
        }
        5 => w::write_ascii(out, ["a", "1", "é", "x\"y", "null"][rng.below(5) as usize].as_bytes()),
        6 => w::write_bin(out, &[1, 2, 3][..rng.below(4) as usize]),
        7 => w::write_ext(
            out,
            [-1i8, 3][rng.below(2) as usize],
            &[0, 0, 0, 1, 2, 3, 4, 5][..[4, 8, 3][rng.below(3) as usize]],
        ),
        8 => w::write_u64(out, rng.below(3)),
        9 | 10 => {
            let limit = if rng.below(8) == 0 { 40 } else { 5 };
            let n = rng.below(limit) as usize;
            w::write_array_header(out, n);
            for _ in 0..n {
                random_msgpack(rng, depth + 1, out);
            }
        }
        _ => {
            let limit = if rng.below(8) == 0 { 40 } else { 5 };
            let n = rng.below(limit) as usize;
            w::write_map_header(out, n);
            for _ in 0..n {
                // Keys: mostly scalars of a few values, sometimes anything.
                if rng.below(6) == 0 {
                    random_msgpack(rng, depth + 1, out);
                } else {
                    random_key(rng, out);
                }
                random_msgpack(rng, depth + 1, out);
            }
        }
    }
}

fn random_key(rng: &mut Rng, out: &mut Vec<u8>) {
    use crate::msgpack::writer as w;
    match rng.below(7) {
        0 => w::write_u64(out, rng.below(3)),
        1 => w::write_f64(out, [0.0, 1.0, 1.5, f64::NAN][rng.below(4) as usize]),
        2 => out.push(0xc2 | rng.below(2) as u8),
        3 => out.push(0xc0),
        4 => w::write_ext(out, -1, &[0, 0, 0, rng.below(3) as u8]),
        _ => w::write_ascii(out, ["a", "b", "1", "0", "true", "é"][rng.below(6) as usize].as_bytes()),
    }
}

#[test]
fn random_msgpack_with_every_option() {
    let mut rng = Rng::new(0x5eed_1e55);
    let options = all_options();
    for round in 0..20_000 {
        let mut doc = Vec::new();
        random_msgpack(&mut rng, 0, &mut doc);
        let opts = options[round % options.len()];
        let _ = m2j(&doc, opts, round % 2 == 1);
    }
}

#[test]
fn a_failed_output_stops_the_transcode() {
    /// A Vec that fails once it holds more than `limit` bytes.
    struct Failing {
        out: Vec<u8>,
        limit: usize,
        failed: bool,
    }
    // SAFETY: delegates to the Vec, and after a failure keeps writing into
    // it from the start (as the extension's output does: offsets then mean
    // nothing, which `failed` says).
    unsafe impl crate::sink::Sink for Failing {
        fn len(&self) -> usize {
            self.out.len()
        }
        fn reserve(&mut self, additional: usize) -> bool {
            if self.failed || self.out.len() + additional > self.limit {
                self.failed = true;
                return false;
            }
            crate::sink::Sink::reserve(&mut self.out, additional)
        }
        fn failed(&self) -> bool {
            self.failed
        }
        fn tail(&mut self) -> *mut u8 {
            crate::sink::Sink::tail(&mut self.out)
        }
        unsafe fn advance(&mut self, n: usize) {
            crate::sink::Sink::advance(&mut self.out, n)
        }
        fn truncate(&mut self, len: usize) {
            self.out.truncate(len)
        }
    }
    // SAFETY: as the Vec's; no room past the limit, none once failed.
    unsafe impl Output for Failing {
        fn written(&mut self) -> &mut [u8] {
            &mut self.out
        }
        fn room(&self) -> usize {
            if self.failed {
                return 0;
            }
            self.out.capacity().min(self.limit).saturating_sub(self.out.len())
        }
    }
    let items = vec!["[1,2,3]"; 40].join(",");
    let doc = format!(r#"{{"a": [{items}], "b": 1, "a": [{items}]}}"#);
    for limit in [0, 5, 100, 200, 1000] {
        let mut out = Failing { out: Vec::new(), limit, failed: false };
        let got = json_to_msgpack(doc.as_bytes(), &mut out, &mut JsonToMsgpack::new());
        assert_eq!(got.is_err(), out.failed, "{limit}");
        let packed = packed(&doc);
        let mut w = JsonWriter::<Failing, false>::new(Failing { out: Vec::new(), limit, failed: false });
        let got =
            msgpack_to_json(&packed, &mut w, ToJsonOptions { sort_keys: true, ..PLAIN }, &mut MsgpackToJson::new());
        assert_eq!(got.is_err(), w.out.failed, "{limit}");
    }
}

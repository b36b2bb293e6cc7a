//! Arbitrary bytes as a JSON document, and pointers to its values: where
//! `parse` accepts the document, every path to a value (the first 64 in
//! document order, and a missing key and index past each) found by
//! `find_json`, and by `find_msgpack` in the same value as MessagePack,
//! decodes to the value the walk of the whole tree reaches (a repeated key:
//! its first occurrence); a path that is not there is a pointer error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcodec_core::json::scanner::parse;
use orcodec_core::msgpack::reader::{read, ReadOptions};
use orcodec_core::pointer::{find_json, find_msgpack, LookupError};
use orcodec_fuzz::{to_msgpack, Tree, Value};

fn paths(v: &Value, here: &mut Vec<String>, out: &mut Vec<(Vec<String>, Option<Value>)>) {
    if out.len() >= 64 {
        return;
    }
    out.push((here.clone(), Some(v.clone())));
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                here.push(i.to_string());
                paths(item, here, out);
                here.pop();
            }
            here.push(items.len().to_string());
            out.push((here.clone(), None));
            here.pop();
        }
        Value::Map(entries) => {
            for (i, (k, item)) in entries.iter().enumerate() {
                if entries[..i].iter().any(|(earlier, _)| earlier == k) {
                    continue;
                }
                here.push(k.clone());
                paths(item, here, out);
                here.pop();
            }
            let absent = "\u{1}absent";
            if !entries.iter().any(|(k, _)| k == absent) {
                here.push(absent.to_string());
                out.push((here.clone(), None));
                here.pop();
            }
        }
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(tree) = parse(data, &mut Tree) else { return };
    let packed = to_msgpack(&tree);
    let mut found = Vec::new();
    paths(&tree, &mut Vec::new(), &mut found);
    for (tokens, want) in found {
        match (find_json(data, &tokens), &want) {
            (Ok((a, b)), Some(want)) => assert_eq!(parse(&data[a..b], &mut Tree).ok().as_ref(), Some(want)),
            (Err(LookupError::Pointer(_)), None) => {}
            (got, _) => panic!("{tokens:?}: {got:?} for {want:?}"),
        }
        match (find_msgpack(&packed, &tokens, ReadOptions::default()), &want) {
            (Ok((a, b)), Some(want)) => {
                assert_eq!(read(&packed[a..b], &mut Tree, ReadOptions::default()).ok().as_ref(), Some(want))
            }
            (Err(LookupError::Pointer(_)), None) => {}
            (got, _) => panic!("msgpack {tokens:?}: {got:?} for {want:?}"),
        }
    }
});

//! Structure-aware: a value tree generated from the fuzz input goes through
//! the MessagePack writer and both JSON writers, and each reader gives the
//! same tree back (JSON spells NaN and the infinities `null`).
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use orcodec_core::{json, msgpack};
use orcodec_fuzz::{json_view, to_json, to_msgpack, Tree, Value};

/// Deepest nesting generated: enough to mix every container shape, and far
/// below the decoders' limit of 1024.
const MAX_GEN_DEPTH: u32 = 12;

fn value(u: &mut Unstructured<'_>, depth: u32, with_bytes: bool) -> Result<Value> {
    let kinds = if depth >= MAX_GEN_DEPTH { 6 } else { 8 };
    Ok(match u.choose_index(kinds)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::Int(if u.arbitrary()? { u.arbitrary::<i64>()? as i128 } else { u.arbitrary::<u64>()? as i128 }),
        3 => Value::Float(u.arbitrary()?),
        4 => Value::Str(u.arbitrary()?),
        5 if with_bytes => Value::Bytes(u.arbitrary()?),
        5 => Value::Str(u.arbitrary()?),
        6 => {
            let n = u.int_in_range(0..=24)?;
            Value::Array((0..n).map(|_| value(u, depth + 1, with_bytes)).collect::<Result<_>>()?)
        }
        _ => {
            let n = u.int_in_range(0..=24)?;
            let pairs = (0..n).map(|_| Ok((u.arbitrary()?, value(u, depth + 1, with_bytes)?)));
            Value::Map(pairs.collect::<Result<_>>()?)
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(with_bytes) = u.arbitrary::<bool>() else { return };
    let Ok(v) = value(&mut u, 0, with_bytes) else { return };

    let packed = to_msgpack(&v);
    assert_eq!(msgpack::reader::read(&packed, &mut Tree, orcodec_fuzz::READ).ok(), Some(v.clone()));
    if !with_bytes {
        let expected = json_view(&v);
        for pretty in [false, true] {
            let text = to_json(&v, pretty);
            let back = json::scanner::parse(&text, &mut Tree);
            assert_eq!(back.ok().as_ref(), Some(&expected), "{}", String::from_utf8_lossy(&text));
        }
    }
});

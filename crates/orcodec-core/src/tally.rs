//! Counting a document's values by type without building them: what the
//! CLI's `stats` reports, computed by the decoders `loads` and `unpackb` run
//! (the same checks, the same errors), with a builder whose values are
//! counts.
//!
//! The counts are those of the objects the decoder would have built: a map
//! key given twice keeps one entry whose value is the last one (a dict's
//! rule), so the values it replaced are not counted. Where the objects'
//! rules are Python's own (map keys that are not strs: `1`, `1.0` and
//! `True` are one key), the count gives up with [`Stop::NeedsObjects`] and
//! the caller counts the objects instead.

use std::collections::HashSet;

use crate::builder::Builder;
use crate::error::Failure;
use crate::msgpack::reader::ReadOptions;

/// What [`Tally::counts`] holds at each index, in this order.
pub const KINDS: [&str; 9] = ["null", "bool", "int", "float", "str", "bin", "array", "map", "ext"];

const NULL: usize = 0;
const BOOL: usize = 1;
const INT: usize = 2;
const FLOAT: usize = 3;
const STR: usize = 4;
const BIN: usize = 5;
const ARRAY: usize = 6;
const MAP: usize = 7;
const EXT: usize = 8;

/// The values of a document (or of one value in it) by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Values of each kind of [`KINDS`], map keys not included.
    pub counts: [u64; 9],
    /// Entries of all maps, after repeated keys are merged.
    pub keys: u64,
    /// Levels of nesting: 1 for a scalar, one more than its deepest item
    /// for a container (1 when empty).
    pub depth: u64,
}

impl Tally {
    fn one(kind: usize) -> Self {
        let mut t = Tally { depth: 1, ..Tally::default() };
        t.counts[kind] = 1;
        t
    }

    fn add_item(&mut self, item: &Tally) {
        for (sum, n) in self.counts.iter_mut().zip(item.counts) {
            *sum += n;
        }
        self.keys += item.keys;
        self.depth = self.depth.max(item.depth + 1);
    }

    /// All the values counted.
    pub fn values(&self) -> u64 {
        self.counts.iter().sum()
    }
}

/// Why counting stopped before the end of a well-formed document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The document holds something whose count depends on Python's rules
    /// (a map key that is not a str, a timestamp): count the built objects.
    NeedsObjects,
    /// A key could not be copied or a map's keys not be hashed.
    NoMemory,
}

/// A decoded item: a str map key (kept to merge repeated keys) or the
/// counts of a value.
pub enum Counted {
    Key(Box<str>),
    Value(Tally),
}

struct Counter;

impl Counter {
    fn value(kind: usize) -> Result<Counted, Stop> {
        Ok(Counted::Value(Tally::one(kind)))
    }
}

/// Whether the entry `i` of a map with `keys` is the one a dict keeps: no
/// later entry has its key. `seen` holds, for a map of more than
/// [`LINEAR_KEYS`] entries, the keys of the entries after `i`.
fn kept<'k>(keys: &[&'k str], i: usize, seen: &mut HashSet<&'k str>) -> bool {
    if keys.len() <= LINEAR_KEYS {
        !keys[i + 1..].contains(&keys[i])
    } else {
        seen.insert(keys[i])
    }
}

/// A map of at most this many entries finds repeated keys by comparing
/// each with those before it; a larger one with a hash set.
const LINEAR_KEYS: usize = 16;

impl Builder for Counter {
    type Value = Counted;
    type Error = Stop;
    // As `loads` reads numbers: beyond the doubles is an error.
    const FINITE_NUMBERS: bool = true;

    fn null(&mut self) -> Result<Counted, Stop> {
        Self::value(NULL)
    }
    fn bool(&mut self, _: bool) -> Result<Counted, Stop> {
        Self::value(BOOL)
    }
    fn i64(&mut self, _: i64) -> Result<Counted, Stop> {
        Self::value(INT)
    }
    fn u64(&mut self, _: u64) -> Result<Counted, Stop> {
        Self::value(INT)
    }
    fn f64(&mut self, _: f64) -> Result<Counted, Stop> {
        Self::value(FLOAT)
    }
    fn str(&mut self, _: &str) -> Result<Counted, Stop> {
        Self::value(STR)
    }
    fn key(&mut self, key: &str) -> Result<Counted, Stop> {
        crate::fallible::copy_str(key).map(Counted::Key).map_err(|_| Stop::NoMemory)
    }
    fn bytes(&mut self, _: &[u8]) -> Result<Counted, Stop> {
        Self::value(BIN)
    }
    fn ext(&mut self, _: i8, _: &[u8]) -> Result<Option<Counted>, Stop> {
        Self::value(EXT).map(Some)
    }
    fn timestamp(&mut self, _: i64, _: u32) -> Result<Counted, Stop> {
        Err(Stop::NeedsObjects)
    }
    fn array(&mut self, items: &mut Vec<Counted>, start: usize) -> Result<Counted, Stop> {
        let mut t = Tally::one(ARRAY);
        for item in items.drain(start..) {
            // An array's items are values (a key is read only in a map).
            if let Counted::Value(v) = item {
                t.add_item(&v);
            }
        }
        Ok(Counted::Value(t))
    }
    fn tuple(&mut self, _: &mut Vec<Counted>, _: usize) -> Result<Counted, Stop> {
        // Only a map key is a tuple, and such a key needs Python's equality.
        Err(Stop::NeedsObjects)
    }
    fn map(&mut self, items: &mut Vec<Counted>, start: usize) -> Result<Counted, Stop> {
        let pairs = &items[start..];
        let mut keys: Vec<&str> = Vec::new();
        crate::fallible::reserve(&mut keys, pairs.len() / 2).map_err(|_| Stop::NoMemory)?;
        for pair in pairs.chunks_exact(2) {
            match &pair[0] {
                Counted::Key(k) => crate::fallible::push(&mut keys, k).map_err(|_| Stop::NoMemory)?,
                Counted::Value(_) => return Err(Stop::NeedsObjects),
            }
        }
        let mut seen = HashSet::new();
        if keys.len() > LINEAR_KEYS {
            seen.try_reserve(keys.len()).map_err(|_| Stop::NoMemory)?;
        }
        let mut t = Tally::one(MAP);
        // From the back: a dict keeps each key's last value.
        for (i, pair) in pairs.chunks_exact(2).enumerate().rev() {
            if let (true, Counted::Value(v)) = (kept(&keys, i, &mut seen), &pair[1]) {
                t.add_item(v);
                t.keys += 1;
            }
        }
        items.truncate(start);
        Ok(Counted::Value(t))
    }
}

fn counts(value: Counted) -> Tally {
    match value {
        Counted::Value(t) => t,
        // A document is a value, never a key.
        Counted::Key(_) => Tally::default(),
    }
}

/// The counts of the JSON document `input`, or `loads`'s error for it.
pub fn tally_json(input: &[u8]) -> Result<Tally, Failure<Stop>> {
    crate::json::scanner::parse(input, &mut Counter).map(counts)
}

/// The counts of the MessagePack value `input` read with `opts`, or the
/// push decoder's error for it. Every extension is counted as one.
pub fn tally_msgpack(input: &[u8], opts: ReadOptions) -> Result<Tally, Failure<Stop>> {
    crate::msgpack::reader::read(input, &mut Counter, opts).map(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::DecodeErrorKind;

    fn json(text: &str) -> Tally {
        tally_json(text.as_bytes()).unwrap_or_else(|_| panic!("{text} should count"))
    }

    fn kinds(t: &Tally) -> Vec<(&'static str, u64)> {
        KINDS.iter().zip(t.counts).filter(|(_, n)| *n > 0).map(|(k, n)| (*k, n)).collect()
    }

    #[test]
    fn scalars_are_one_level() {
        assert_eq!(kinds(&json("1")), [("int", 1)]);
        assert_eq!(json("1").depth, 1);
        assert_eq!(kinds(&json("1.5")), [("float", 1)]);
        assert_eq!(kinds(&json("123456789012345678901234567890")), [("float", 1)]);
        assert_eq!(kinds(&json("\"x\"")), [("str", 1)]);
        assert_eq!(kinds(&json("null")), [("null", 1)]);
        assert_eq!(kinds(&json("false")), [("bool", 1)]);
    }

    #[test]
    fn containers_count_their_items_and_levels() {
        let t = json(r#"{"a": [1, 2.0, {"b": null}], "c": []}"#);
        assert_eq!(kinds(&t), [("null", 1), ("int", 1), ("float", 1), ("array", 2), ("map", 2)]);
        assert_eq!((t.keys, t.depth, t.values()), (3, 4, 7));
        assert_eq!(json("[]").depth, 1);
        assert_eq!(json("[[[]]]").depth, 3);
    }

    #[test]
    fn a_repeated_key_keeps_its_last_value_only() {
        let t = json(r#"{"a": [1, 2, 3], "b": 1, "a": "x"}"#);
        assert_eq!(kinds(&t), [("int", 1), ("str", 1), ("map", 1)]);
        assert_eq!((t.keys, t.depth), (2, 2));
        // Escaped and plain spellings are one key.
        let t = json(r#"{"a": [[]], "\u0061": 1}"#);
        assert_eq!(kinds(&t), [("int", 1), ("map", 1)]);
        assert_eq!((t.keys, t.depth), (1, 2));
        // Past the linear search too.
        let mut text = String::from("{");
        for i in 0..40 {
            text.push_str(&format!("\"k{}\": [{i}],", i % 25));
        }
        text.push_str("\"k0\": 0}");
        let t = json(&text);
        assert_eq!(kinds(&t), [("int", 25), ("array", 24), ("map", 1)]);
        assert_eq!(t.keys, 25);
    }

    #[test]
    fn errors_are_the_decoders() {
        let Err(Failure::Syntax(e)) = tally_json(b"[1, 2") else { panic!("must fail") };
        assert_eq!(e.offset, 5);
        let Err(Failure::Syntax(e)) = tally_json(&[b'['; 2000]) else { panic!("must fail") };
        assert_eq!(e.kind, DecodeErrorKind::DepthLimit);
        let Err(Failure::Syntax(e)) = tally_msgpack(b"\x92\x01", ReadOptions::default()) else { panic!("must fail") };
        // The array's count is checked against the input at its header.
        assert_eq!(e.offset, 0);
        let Err(Failure::Syntax(e)) = tally_json(b"[1e400]") else { panic!("must fail") };
        assert_eq!((e.kind, e.offset), (DecodeErrorKind::NumberOutOfRange, 1));
    }

    #[test]
    fn msgpack_kinds() {
        // [nil, true, -1, 1.5 (f32), "s", b"b", ext 5, {"k": 1}]
        let data = b"\x98\xc0\xc3\xff\xca\x3f\xc0\x00\x00\xa1s\xc4\x01b\xd4\x05\x00\x81\xa1k\x01";
        let t = tally_msgpack(data, ReadOptions::default()).unwrap();
        let all = [("null", 1), ("bool", 1), ("int", 2), ("float", 1), ("str", 1), ("bin", 1)];
        assert_eq!(kinds(&t)[..6], all);
        assert_eq!(kinds(&t)[6..], [("array", 1), ("map", 1), ("ext", 1)]);
        assert_eq!((t.keys, t.depth), (1, 3));
    }

    #[test]
    fn keys_python_compares_are_left_to_python() {
        let opts = ReadOptions { non_str_keys: true, ..ReadOptions::default() };
        assert!(matches!(tally_msgpack(b"\x81\x01\x02", opts), Err(Failure::Build(Stop::NeedsObjects))));
        assert!(matches!(tally_msgpack(b"\x81\x91\x01\x02", opts), Err(Failure::Build(Stop::NeedsObjects))));
        let timestamps = ReadOptions { timestamps: true, ..ReadOptions::default() };
        let ts = b"\xd6\xff\x00\x00\x00\x01";
        assert!(matches!(tally_msgpack(ts, timestamps), Err(Failure::Build(Stop::NeedsObjects))));
    }
}

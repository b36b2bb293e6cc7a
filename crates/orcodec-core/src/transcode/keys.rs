//! The entries of the open maps and which earlier entry of a map a key
//! repeats, by the equality of dict keys.
//!
//! The entries of every open map are one stack (a map's are the top of it
//! while it is the innermost). A small map is searched entry by entry; from
//! [`LINEAR`] entries on, a map gets a hash table of its own (a stack of
//! them, like the maps), seeded once per process so that keys cannot be
//! chosen to collide.

use core::sync::atomic::{AtomicU64, Ordering};

/// What a key is, for the equality of dict keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyId {
    /// A str key: its bytes in the output, `len` from `start` (equal texts
    /// are written the same way).
    Text {
        start: usize,
        len: usize,
    },
    /// int, bool, and floats that are integers: equal numbers are equal keys.
    Int(i128),
    /// Any other float but NaN, by its bits.
    Float(u64),
    Null,
    /// A datetime: seconds and microseconds (what the datetime holds).
    Time(i64, u32),
    /// NaN: a new float object each time, equal to no other key.
    Unique,
}

impl KeyId {
    /// The key of a float: integral values are ints (`1.0 == 1`, `-0.0 == 0`).
    pub(super) fn float(v: f64) -> KeyId {
        if v.is_nan() {
            KeyId::Unique
        } else if v.fract() == 0.0 && v.abs() < 1.7e38 {
            // Integral and within i128 (2**127 ~ 1.7e38): converted exactly.
            KeyId::Int(v as i128)
        } else {
            KeyId::Float(v.to_bits())
        }
    }
}

/// One entry of an open map, by output offsets.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    /// Where the entry starts: its separator (JSON), or its key.
    pub entry_start: usize,
    /// Where its key starts.
    pub key_start: usize,
    pub value_start: usize,
    /// Where its value ends (once it has).
    pub value_end: usize,
    pub id: KeyId,
    /// The text it sorts by (a str key's UTF-8, a key's JSON text): in the
    /// input when `sort_in_input`, else in the output; offset and length.
    pub sort_in_input: bool,
    pub sort_at: usize,
    pub sort_len: usize,
    hash: u64,
}

impl Entry {
    pub(super) fn new(entry_start: usize, key_start: usize, value_start: usize, id: KeyId) -> Entry {
        Entry {
            entry_start,
            key_start,
            value_start,
            value_end: value_start,
            id,
            sort_in_input: false,
            sort_at: 0,
            sort_len: 0,
            hash: 0,
        }
    }

    /// Moves the entry's output offsets by `delta` (its key text too).
    pub(super) fn shift(&mut self, delta: isize) {
        let at = |x: usize| x.wrapping_add_signed(delta);
        self.entry_start = at(self.entry_start);
        self.key_start = at(self.key_start);
        self.value_start = at(self.value_start);
        self.value_end = at(self.value_end);
        if let KeyId::Text { start, len } = self.id {
            self.id = KeyId::Text { start: at(start), len };
        }
        if !self.sort_in_input {
            self.sort_at = at(self.sort_at);
        }
    }
}

/// A map gets a table from this many entries on.
const LINEAR: usize = 8;

/// A hash table of a map's entries: slots hold an entry's index in the map
/// plus one (0: empty), open addressing with linear probing, at most half full.
struct Table {
    slots: Vec<u32>,
}

#[derive(Default)]
pub(super) struct Keys {
    pub entries: Vec<Entry>,
    /// The tables of the open maps that have one, innermost last.
    tables: Vec<Table>,
    /// Tables of closed maps, for reuse.
    spare: Vec<Vec<u32>>,
}

/// Where an open map's entries are, and whether it has a table.
#[derive(Clone, Copy, Debug)]
pub(super) struct MapKeys {
    base: usize,
    table: bool,
}

impl Keys {
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        while let Some(t) = self.tables.pop() {
            self.spare.push(t.slots);
        }
    }

    /// A map opens (its entries start at the top of the stack).
    pub(super) fn open(&self) -> MapKeys {
        MapKeys { base: self.entries.len(), table: false }
    }

    /// The map closes: its entries and table go.
    pub(super) fn close(&mut self, map: MapKeys) {
        self.entries.truncate(map.base);
        if map.table {
            if let Some(t) = self.tables.pop() {
                self.spare.push(t.slots);
            }
        }
    }

    /// The entries of the innermost open map.
    pub(super) fn of(&mut self, map: MapKeys) -> &mut [Entry] {
        &mut self.entries[map.base..]
    }

    /// The index (in the map) of the entry whose key equals `id`, if any;
    /// else `entry` (with key `id`) is added to the map and None returned.
    #[inline]
    pub(super) fn find_or_add(&mut self, map: &mut MapKeys, mut entry: Entry, out: &[u8]) -> Option<usize> {
        let count = self.entries.len() - map.base;
        if !map.table {
            let id = entry.id;
            if let Some(i) = self.entries[map.base..].iter().position(|e| same(&e.id, &id, out)) {
                return Some(i);
            }
            self.entries.push(entry);
            if count + 1 >= LINEAR {
                self.build(map, out);
            }
            return None;
        }
        entry.hash = hash(&entry.id, out);
        let table = self.tables.last_mut().expect("a map with a table has one on the stack");
        let mask = table.slots.len() - 1;
        let mut at = entry.hash as usize & mask;
        loop {
            match table.slots[at] {
                0 => break,
                slot => {
                    let e = &self.entries[map.base + slot as usize - 1];
                    if e.hash == entry.hash && same(&e.id, &entry.id, out) {
                        return Some(slot as usize - 1);
                    }
                }
            }
            at = (at + 1) & mask;
        }
        table.slots[at] = count as u32 + 1;
        self.entries.push(entry);
        if (count + 1) * 2 > table.slots.len() {
            self.build(map, out);
        }
        None
    }

    /// Makes (or remakes, larger) the map's table from its entries.
    #[cold]
    fn build(&mut self, map: &mut MapKeys, out: &[u8]) {
        let count = self.entries.len() - map.base;
        let size = (count * 4).next_power_of_two().max(32);
        let mut slots = if map.table {
            self.tables.pop().map(|t| t.slots).unwrap_or_default()
        } else {
            self.spare.pop().unwrap_or_default()
        };
        slots.clear();
        slots.resize(size, 0);
        let mask = size - 1;
        for (i, e) in self.entries[map.base..].iter_mut().enumerate() {
            e.hash = hash(&e.id, out);
            let mut at = e.hash as usize & mask;
            while slots[at] != 0 {
                at = (at + 1) & mask;
            }
            slots[at] = i as u32 + 1;
        }
        self.tables.push(Table { slots });
        map.table = true;
    }
}

/// Whether two keys are equal dict keys (text compared in `out`).
#[inline(always)]
fn same(a: &KeyId, b: &KeyId, out: &[u8]) -> bool {
    match (*a, *b) {
        (KeyId::Text { start: s1, len: l1 }, KeyId::Text { start: s2, len: l2 }) => {
            l1 == l2 && out[s1..s1 + l1] == out[s2..s2 + l2]
        }
        (KeyId::Unique, _) | (_, KeyId::Unique) => false,
        (x, y) => x == y,
    }
}

/// The process's hash seed, drawn once.
fn seed() -> u64 {
    static SEED: AtomicU64 = AtomicU64::new(0);
    let s = SEED.load(Ordering::Relaxed);
    if s != 0 {
        return s;
    }
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_usize(&SEED as *const _ as usize);
    let s = h.finish() | 1;
    SEED.store(s, Ordering::Relaxed);
    s
}

/// The high and low halves of a 128-bit product, folded.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let p = (a as u128).wrapping_mul(b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

const K: u64 = 0x9e37_79b9_7f4a_7c15;

fn hash(id: &KeyId, out: &[u8]) -> u64 {
    let seed = seed();
    match *id {
        KeyId::Text { start, len } => {
            let bytes = &out[start..start + len];
            let mut h = fold(seed ^ len as u64, K);
            let mut words = bytes.chunks_exact(8);
            for w in &mut words {
                h = fold(h ^ u64::from_le_bytes(w.try_into().expect("8 bytes")), K ^ seed);
            }
            let rest = words.remainder();
            if !rest.is_empty() {
                let mut w = [0u8; 8];
                w[..rest.len()].copy_from_slice(rest);
                h = fold(h ^ u64::from_le_bytes(w), K ^ seed);
            }
            h
        }
        KeyId::Int(v) => fold(fold(seed ^ 1, v as u64 ^ K), (v >> 64) as u64 ^ K),
        KeyId::Float(bits) => fold(seed ^ 2, bits ^ K),
        KeyId::Null => fold(seed ^ 3, K),
        KeyId::Time(s, us) => fold(fold(seed ^ 4, s as u64 ^ K), us as u64 ^ K),
        KeyId::Unique => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_equal_as_dict_keys() {
        assert_eq!(KeyId::float(1.0), KeyId::Int(1));
        assert_eq!(KeyId::float(-0.0), KeyId::Int(0));
        assert_eq!(KeyId::float(0.5), KeyId::Float(0.5f64.to_bits()));
        assert_eq!(KeyId::float(f64::INFINITY), KeyId::Float(f64::INFINITY.to_bits()));
        assert_eq!(KeyId::float(f64::NAN), KeyId::Unique);
        assert_eq!(KeyId::float(1e300), KeyId::Float(1e300f64.to_bits()));
        assert_eq!(KeyId::float(18446744073709551616.0), KeyId::Int(1 << 64));
        assert!(!same(&KeyId::Unique, &KeyId::Unique, &[]));
    }

    #[test]
    fn small_and_large_maps_find_repeats() {
        // Keys "k0", "k1", ... written one after the other in `out`.
        for n in [1usize, 7, 8, 9, 100, 5000] {
            let mut out = Vec::new();
            let mut keys = Keys::default();
            let mut map = keys.open();
            for i in 0..n {
                let start = out.len();
                out.extend(format!("k{i}").bytes());
                let id = KeyId::Text { start, len: out.len() - start };
                assert_eq!(keys.find_or_add(&mut map, Entry::new(start, start, out.len(), id), &out), None);
            }
            for i in (0..n).step_by(7) {
                let start = out.len();
                out.extend(format!("k{i}").bytes());
                let id = KeyId::Text { start, len: out.len() - start };
                assert_eq!(keys.find_or_add(&mut map, Entry::new(start, start, out.len(), id), &out), Some(i));
                out.truncate(start);
            }
            assert_eq!(keys.of(map).len(), n);
            keys.close(map);
            assert!(keys.entries.is_empty() && keys.tables.is_empty());
        }
    }
}

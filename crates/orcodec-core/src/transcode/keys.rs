//! The entries of the open maps and which earlier entry of a map a key
//! repeats, by the equality of dict keys.
//!
//! The entries of every open map are one stack (a map's are the top of it
//! while it is the innermost). Each key is compared first by a word and a
//! length: a str key's first 8 bytes (all of it, when it has 8 or fewer)
//! and its length, another key's hash and a length no text has. A small
//! map is searched by those, eight at a time; from [`LINEAR`] entries on, a
//! map gets a hash table of its own (a stack of them, like the maps),
//! seeded once per process so that keys cannot be chosen to collide.
//!
//! Most keys are new to their map. A small map also keeps a filter of 128
//! bits, one set per key (from its word): a key whose bit is clear is new
//! with no scan at all, and only the others (a repeat, or a bit shared
//! with an earlier key) scan the map's words.
//!
//! Entries are written field by field from scalars: a struct assembled by
//! the caller and copied in whole would be read back right after its
//! stores, which stalls (measured: a tenth of a transcode).

use super::{no_memory, TranscodeError};
use core::sync::atomic::{AtomicU64, Ordering};

/// A map key that is no str, for the equality of dict keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyId {
    /// int, bool, and floats that are integers: equal numbers are equal
    /// keys (an i128, low and high halves).
    Int(u64, u64),
    /// Any other float but NaN, by its bits.
    Float(u64),
    Null,
    /// A datetime: seconds and microseconds (what the datetime holds).
    Time(i64, u32),
    /// NaN: a new float object each time, equal to no other key.
    Unique,
}

impl KeyId {
    /// The key of an integer (an int, a bool).
    #[inline(always)]
    pub(super) fn int(v: i128) -> KeyId {
        KeyId::Int(v as u64, (v >> 64) as u64)
    }

    /// The key of a float: integral values are ints (`1.0 == 1`, `-0.0 == 0`).
    pub(super) fn float(v: f64) -> KeyId {
        if v.is_nan() {
            KeyId::Unique
        } else if v.fract() == 0.0 && v.abs() < 1.7e38 {
            // Integral and within i128 (2**127 ~ 1.7e38): converted exactly.
            KeyId::int(v as i128)
        } else {
            KeyId::Float(v.to_bits())
        }
    }
}

/// One entry of an open map, by output offsets. Where its value ends is
/// where the next entry starts (the entries of a map are written one after
/// the other, a repeat's spliced into its first place), or for the last one
/// where the entry being read starts (or the map's end).
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    /// Where the entry starts: its separator (JSON), or its key.
    pub entry_start: usize,
    /// Where its key starts.
    pub key_start: usize,
    pub value_start: usize,
    /// A str key: where its text is (in the output, or with
    /// `Keys::texts_in_input` in the input). Another key: its index in
    /// `Keys::others`. Which of the two it is, `Keys::lens` tells.
    key: usize,
    /// A str key's length (else 0).
    key_len: usize,
}

/// A map gets a table from this many entries on.
const LINEAR: usize = 128;

/// The length of keys that are no text.
const OTHER: u32 = u32::MAX;

/// A hash table of a map's entries: slots hold an entry's index in the map
/// plus one (0: empty), open addressing with linear probing, at most half full.
struct Table {
    slots: Vec<u32>,
}

#[derive(Default)]
pub(super) struct Keys {
    /// Where str keys' texts are looked at: in the input (MessagePack, whose
    /// str bodies are the keys), else in the output (JSON keys, unescaped
    /// only there). Never where they were just written: reading bytes back
    /// right after their stores stalls.
    pub texts_in_input: bool,
    pub entries: Vec<Entry>,
    /// Each entry's key as compared first (see the module docs); the scan
    /// of a small map reads only these.
    heads: Vec<u64>,
    lens: Vec<u32>,
    /// The keys that are no str, of the open maps.
    others: Vec<KeyId>,
    /// The tables of the open maps that have one, innermost last.
    tables: Vec<Table>,
    /// Tables of closed maps, for reuse.
    spare: Vec<Vec<u32>>,
}

/// Where an open map's entries are, and whether it has a table.
#[derive(Clone, Copy, Debug)]
pub(super) struct MapKeys {
    base: usize,
    others: usize,
    table: bool,
    /// The filter of a map without a table: the bits of its keys' words,
    /// in two words (each read and written whole: a narrower read of a
    /// wider value just stored waits for the store).
    seen: [u64; 2],
}

/// A key being looked up: its first comparison and what settles it.
#[derive(Clone, Copy)]
struct Probe<'k> {
    head: u64,
    len: u32,
    /// A str key's text, or another key.
    text: &'k [u8],
    other: KeyId,
}

impl Keys {
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.heads.clear();
        self.lens.clear();
        self.others.clear();
        while let Some(t) = self.tables.pop() {
            // Kept for reuse when there is room (else simply freed).
            let _ = crate::fallible::push(&mut self.spare, t.slots);
        }
    }

    /// A map opens (its entries start at the top of the stack).
    pub(super) fn open(&self) -> MapKeys {
        MapKeys { base: self.entries.len(), others: self.others.len(), table: false, seen: [0; 2] }
    }

    /// The map closes: its entries and table go.
    pub(super) fn close(&mut self, map: MapKeys) {
        self.entries.truncate(map.base);
        self.heads.truncate(map.base);
        self.lens.truncate(map.base);
        self.others.truncate(map.others);
        if map.table {
            if let Some(t) = self.tables.pop() {
                // Kept for reuse when there is room (else simply freed).
                let _ = crate::fallible::push(&mut self.spare, t.slots);
            }
        }
    }

    /// The index (in the map) of the entry whose key is the str `text`
    /// (found at `start`, in the output or the input: see
    /// `texts_in_input`), if any; else an entry with that key at those
    /// offsets is added to the map and None returned. `source`: where texts are.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn find_or_add_text(
        &mut self,
        map: &mut MapKeys,
        start: usize,
        text: &[u8],
        entry_start: usize,
        key_start: usize,
        value_start: usize,
        source: &[u8],
    ) -> Result<Option<usize>, TranscodeError> {
        self.find_or_add_head(map, start, text, head_word(text), entry_start, key_start, value_start, source)
    }

    /// [`find_or_add_text`](Self::find_or_add_text) given the text's
    /// [`head_word`] (`head`), which the caller has already.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn find_or_add_head(
        &mut self,
        map: &mut MapKeys,
        start: usize,
        text: &[u8],
        head: u64,
        entry_start: usize,
        key_start: usize,
        value_start: usize,
        source: &[u8],
    ) -> Result<Option<usize>, TranscodeError> {
        debug_assert_eq!(head, head_word(text));
        let out = source;
        // A text of 4 GiB or more has the length of no other text.
        let len = text.len().min(OTHER as usize - 1) as u32;
        let probe = Probe { head, len, text, other: KeyId::Unique };
        let found = self.find(map, probe, out);
        if found.is_none() {
            self.add(map, probe, start, entry_start, key_start, value_start, out)?;
        }
        Ok(found)
    }

    /// [`find_or_add_text`](Self::find_or_add_text) for a key that is no str.
    #[inline]
    pub(super) fn find_or_add(
        &mut self,
        map: &mut MapKeys,
        id: KeyId,
        entry_start: usize,
        key_start: usize,
        value_start: usize,
        out: &[u8],
    ) -> Result<Option<usize>, TranscodeError> {
        let probe = Probe { head: hash_other(&id), len: OTHER, text: &[], other: id };
        let found = self.find(map, probe, out);
        if found.is_none() {
            let index = self.others.len();
            crate::fallible::push(&mut self.others, id).map_err(|_| no_memory())?;
            self.add(map, probe, index, entry_start, key_start, value_start, out)?;
        }
        Ok(found)
    }

    /// Entry `i` of the map.
    #[inline(always)]
    pub(super) fn entry(&self, map: MapKeys, i: usize) -> &Entry {
        &self.entries[map.base + i]
    }

    /// Where the value of entry `i` of the map ends: where the next entry
    /// starts, or `end` (where the entry being read starts, or the map's
    /// end) for the last one.
    #[inline(always)]
    pub(super) fn value_end(&self, map: MapKeys, i: usize, end: usize) -> usize {
        self.entries.get(map.base + i + 1).map_or(end, |e| e.entry_start)
    }

    /// Moves the output offsets of the map's entries from `from` on by
    /// `delta` (their key texts too when those are in the output).
    pub(super) fn shift(&mut self, map: MapKeys, from: usize, delta: isize) {
        let at = |x: usize| x.wrapping_add_signed(delta);
        let texts_move = !self.texts_in_input;
        let start = map.base + from;
        for (e, &len) in self.entries[start..].iter_mut().zip(&self.lens[start..]) {
            e.entry_start = at(e.entry_start);
            e.key_start = at(e.key_start);
            e.value_start = at(e.value_start);
            if texts_move && len != OTHER {
                e.key = at(e.key);
            }
        }
    }

    /// The text entry `i` of the map sorts by, as `OPT_SORT_KEYS` orders
    /// keys: a str key's own text (in `input` with `texts_in_input`, else
    /// in `out`), another key's JSON text as written between its quotes in
    /// `out` (digits, `true`, `null`, a date: no quote or escape in it).
    pub(super) fn sort_text<'a>(&self, map: MapKeys, i: usize, input: &'a [u8], out: &'a [u8]) -> &'a [u8] {
        let e = &self.entries[map.base + i];
        if self.lens[map.base + i] != OTHER {
            let source = if self.texts_in_input { input } else { out };
            return &source[e.key..e.key + e.key_len];
        }
        let text = &out[e.key_start + 1..];
        &text[..text.iter().position(|&c| c == b'"').unwrap_or(text.len())]
    }

    /// The index in the map of the entry with the key of `probe`.
    #[inline(always)]
    fn find(&self, map: &MapKeys, probe: Probe<'_>, out: &[u8]) -> Option<usize> {
        if !map.table {
            let (word, bit) = filter_bit(probe.head);
            if map.seen[word] & bit == 0 {
                return None;
            }
            return self.scan(map.base, probe, out).map(|i| i - map.base);
        }
        let slots = &self.tables[self.tables.len() - 1].slots;
        let mask = slots.len() - 1;
        let mut at = hash(probe) as usize & mask;
        loop {
            match slots[at] {
                0 => return None,
                slot => {
                    if self.is(map.base + slot as usize - 1, probe, out) {
                        return Some(slot as usize - 1);
                    }
                }
            }
            at = (at + 1) & mask;
        }
    }

    /// Adds an entry (its key `probe`, found at `key` as `Entry::key` says).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn add(
        &mut self,
        map: &mut MapKeys,
        probe: Probe<'_>,
        key: usize,
        entry_start: usize,
        key_start: usize,
        value_start: usize,
        out: &[u8],
    ) -> Result<(), TranscodeError> {
        let index = self.entries.len();
        let count = index - map.base;
        // The three columns have the same length, and `heads` and `lens`
        // at least the capacity of `entries`: one check for the three.
        if index == self.entries.capacity() {
            self.grow_columns()?;
        }
        debug_assert!(self.heads.len() == index && self.lens.len() == index);
        debug_assert!(self.heads.capacity() > index && self.lens.capacity() > index);
        // SAFETY: `entries` has room for one more (checked just above), and
        // `heads` and `lens`, as long and at least as large, too; each slot
        // is written whole before the lengths count it. Field by field from
        // scalars, as the module docs say.
        unsafe {
            self.entries.as_mut_ptr().add(index).write(Entry {
                entry_start,
                key_start,
                value_start,
                key,
                key_len: probe.text.len(),
            });
            self.heads.as_mut_ptr().add(index).write(probe.head);
            self.lens.as_mut_ptr().add(index).write(probe.len);
            self.entries.set_len(index + 1);
            self.heads.set_len(index + 1);
            self.lens.set_len(index + 1);
        }
        if !map.table {
            let (word, bit) = filter_bit(probe.head);
            map.seen[word] |= bit;
            if count + 1 >= LINEAR {
                self.build(map, out)?;
            }
            return Ok(());
        }
        let t = self.tables.len() - 1;
        let mask = self.tables[t].slots.len() - 1;
        let mut at = hash(probe) as usize & mask;
        while self.tables[t].slots[at] != 0 {
            at = (at + 1) & mask;
        }
        self.tables[t].slots[at] = count as u32 + 1;
        if (count + 1) * 2 > mask + 1 {
            self.build(map, out)?;
        }
        Ok(())
    }

    /// Room for at least one more entry in `entries`, and as much in
    /// `heads` and `lens` (which [`add`](Self::add) relies on).
    #[cold]
    #[inline(never)]
    fn grow_columns(&mut self) -> Result<(), TranscodeError> {
        crate::fallible::reserve(&mut self.entries, 1).map_err(|_| no_memory())?;
        // The three are as long as each other.
        let more = self.entries.capacity() - self.entries.len();
        crate::fallible::reserve(&mut self.heads, more).map_err(|_| no_memory())?;
        crate::fallible::reserve(&mut self.lens, more).map_err(|_| no_memory())
    }

    /// The entry from `base` on whose key is that of `probe`.
    #[inline(always)]
    fn scan(&self, base: usize, probe: Probe<'_>, out: &[u8]) -> Option<usize> {
        let heads = &self.heads[base..];
        let mut at = 0;
        // Eight heads at a time with no branch per head (vectorized); the
        // one that matched is looked for only when one did.
        for chunk in heads.chunks_exact(8) {
            let mut hit = false;
            for &h in chunk {
                hit |= h == probe.head;
            }
            if hit {
                for i in base + at..base + at + 8 {
                    if self.is(i, probe, out) {
                        return Some(i);
                    }
                }
            }
            at += 8;
        }
        // The last few: the head compared here, the rest only on a match
        // (a loop kept inline, not an iterator adapter called per key).
        let tail = &heads[at..];
        let mut k = 0;
        while k < tail.len() {
            if tail[k] == probe.head && self.is(base + at + k, probe, out) {
                return Some(base + at + k);
            }
            k += 1;
        }
        None
    }

    /// Whether entry `i` has the key of `probe`.
    #[inline(always)]
    fn is(&self, i: usize, probe: Probe<'_>, out: &[u8]) -> bool {
        if self.heads[i] != probe.head || self.lens[i] != probe.len {
            return false;
        }
        // Equal lengths: both keys are str, or neither.
        let e = &self.entries[i];
        if probe.len == OTHER {
            return same_other(&self.others[e.key], &probe.other);
        }
        // Equal heads of texts of 8 bytes or fewer are equal texts; longer
        // ones are compared whole.
        let n = probe.text.len();
        n <= 8 || (e.key_len == n && out[e.key..e.key + n] == *probe.text)
    }

    /// Makes (or remakes, larger) the map's table from its entries.
    #[cold]
    fn build(&mut self, map: &mut MapKeys, out: &[u8]) -> Result<(), TranscodeError> {
        let count = self.entries.len() - map.base;
        let size = (count * 4).next_power_of_two().max(64);
        let mut slots = if map.table {
            self.tables.pop().map(|t| t.slots).unwrap_or_default()
        } else {
            self.spare.pop().unwrap_or_default()
        };
        slots.clear();
        crate::fallible::reserve(&mut slots, size).map_err(|_| no_memory())?;
        // Within the room just reserved: no allocation.
        slots.extend(core::iter::repeat_n(0, size));
        let mask = size - 1;
        for i in 0..count {
            let j = map.base + i;
            let e = &self.entries[j];
            let (text, other): (&[u8], KeyId) = if self.lens[j] != OTHER {
                (&out[e.key..e.key + e.key_len], KeyId::Unique)
            } else {
                (&[], self.others[e.key])
            };
            let probe = Probe { head: self.heads[j], len: self.lens[j], text, other };
            let mut at = hash(probe) as usize & mask;
            while slots[at] != 0 {
                at = (at + 1) & mask;
            }
            slots[at] = i as u32 + 1;
        }
        crate::fallible::push(&mut self.tables, Table { slots }).map_err(|_| no_memory())?;
        map.table = true;
        Ok(())
    }
}

/// Whether two keys that are no str are equal dict keys.
#[inline(always)]
fn same_other(a: &KeyId, b: &KeyId) -> bool {
    !matches!(a, KeyId::Unique) && a == b
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

/// `bytes` (8 of them) as a little-endian word: one load.
#[inline(always)]
fn le64(bytes: &[u8]) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

/// `bytes` (4 of them) as a little-endian word.
#[inline(always)]
fn le32(bytes: &[u8]) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(bytes);
    u32::from_le_bytes(word)
}

/// The word a text is compared by first: its bytes, told apart from any
/// other text of the same length, when there are 8 or fewer; else its first
/// 8 bytes mixed with its last 8, so that keys sharing a prefix (`profile_`,
/// `created_`) differ in it.
#[inline(always)]
pub(super) fn head_word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    if n > 8 {
        return le64(&bytes[..8]) ^ le64(&bytes[n - 8..]).rotate_left(31);
    }
    if n == 8 {
        return le64(bytes);
    }
    if bytes.is_empty() {
        return 0;
    }
    tail_word(bytes)
}

/// The last bytes of `bytes` (not a multiple of 8 long) as a word, read
/// with whole loads that may overlap the words before (not byte by byte
/// into a buffer, whose stores the load would wait for).
#[inline(always)]
fn tail_word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    if n >= 8 {
        return le64(&bytes[n - 8..]);
    }
    if n >= 4 {
        let lo = le32(&bytes[..4]) as u64;
        let hi = le32(&bytes[n - 4..]) as u64;
        return hi << 32 | lo;
    }
    bytes[0] as u64 | (bytes[n / 2] as u64) << 8 | (bytes[n - 1] as u64) << 16
}

/// The bit of the filter of a small map a key with the word `head` sets:
/// which word, and the bit in it.
#[inline(always)]
fn filter_bit(head: u64) -> (usize, u64) {
    let h = head.wrapping_mul(K);
    ((h >> 63) as usize, 1 << (h >> 57 & 63))
}

/// The hash of the key of `probe`.
#[inline(always)]
fn hash(probe: Probe<'_>) -> u64 {
    if probe.len == OTHER {
        return probe.head;
    }
    let seed = seed();
    let mut h = fold(probe.head ^ seed, K ^ probe.len as u64);
    if probe.text.len() > 8 {
        let rest = &probe.text[8..];
        let mut words = rest.chunks_exact(8);
        for w in &mut words {
            h = fold(h ^ le64(w), K ^ seed);
        }
        if !words.remainder().is_empty() {
            h = fold(h ^ tail_word(rest), K ^ seed);
        }
    }
    h
}

/// The hash of a key that is no str (its head word).
fn hash_other(id: &KeyId) -> u64 {
    let seed = seed();
    match *id {
        KeyId::Int(lo, hi) => fold(fold(seed ^ 1, lo ^ K), hi ^ K),
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
        assert_eq!(KeyId::float(1.0), KeyId::int(1));
        assert_eq!(KeyId::float(-0.0), KeyId::int(0));
        assert_eq!(KeyId::float(0.5), KeyId::Float(0.5f64.to_bits()));
        assert_eq!(KeyId::float(f64::INFINITY), KeyId::Float(f64::INFINITY.to_bits()));
        assert_eq!(KeyId::float(f64::NAN), KeyId::Unique);
        assert_eq!(KeyId::float(1e300), KeyId::Float(1e300f64.to_bits()));
        assert_eq!(KeyId::float(18446744073709551616.0), KeyId::int(1 << 64));
        assert_eq!(KeyId::float(-1.0), KeyId::int(-1));
        assert!(!same_other(&KeyId::Unique, &KeyId::Unique));
        assert!(same_other(&KeyId::Null, &KeyId::Null));
    }

    #[test]
    fn short_texts_are_their_head_word() {
        // Every text of up to 8 bytes over a small alphabet: equal words only
        // for equal texts of the same length.
        let mut seen = std::collections::HashMap::new();
        let alphabet = [b'a', b'b', 0xff];
        for len in 0..=8u32 {
            for n in 0..3usize.pow(len.min(6)) {
                let text: Vec<u8> = (0..len).map(|i| alphabet[n / 3usize.pow(i % 6) % 3]).collect();
                if let Some(other) = seen.insert((len, head_word(&text)), text.clone()) {
                    assert_eq!(other, text);
                }
            }
        }
    }

    #[test]
    fn small_and_large_maps_find_repeats() {
        // Keys "k0", "k1", ... written one after the other in `out`.
        for n in [1usize, 7, 8, 9, 31, 32, 33, 100, 5000] {
            let mut out = Vec::new();
            let mut keys = Keys::default();
            let mut map = keys.open();
            for i in 0..n {
                let start = out.len();
                out.extend(format!("k{i}").bytes());
                let end = out.len();
                assert_eq!(keys.find_or_add_text(&mut map, start, &out[start..end], start, start, end, &out), Ok(None));
            }
            for i in (0..n).step_by(7) {
                let start = out.len();
                out.extend(format!("k{i}").bytes());
                let end = out.len();
                let found = keys.find_or_add_text(&mut map, start, &out[start..end], start, start, end, &out);
                assert_eq!(found, Ok(Some(i)));
                out.truncate(start);
            }
            // Keys that are no str, beside them: equal as dict keys are.
            let (a, b) = (KeyId::int(1), KeyId::float(1.0));
            assert_eq!(keys.find_or_add(&mut map, a, 0, 0, 0, &out), Ok(None));
            assert_eq!(keys.find_or_add(&mut map, b, 0, 0, 0, &out), Ok(Some(n)));
            assert_eq!(keys.find_or_add(&mut map, KeyId::Unique, 0, 0, 0, &out), Ok(None));
            assert_eq!(keys.find_or_add(&mut map, KeyId::Unique, 0, 0, 0, &out), Ok(None));
            assert_eq!(keys.entries.len() - map.base, n + 3);
            keys.close(map);
            assert!(keys.others.is_empty());
            assert!(keys.entries.is_empty() && keys.tables.is_empty());
        }
    }
}

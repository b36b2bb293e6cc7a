//! The MessagePack pull reader: the caller asks for one item at a time, so
//! it knows what it expects before a container is read (typed decoding,
//! transcoding, streaming).
//!
//! It decodes headers through the same [`lex`](super::lex) as the push
//! decoder ([`reader::read`](super::reader::read)), so for any input a caller
//! that walks the value with it accepts what `read` accepts and fails with
//! the same [`DecodeError`] (kind and byte offset); `testing::msgpack_pull_build`
//! is that walk, and the tests and the `msgpack_pull` fuzz target hold it to
//! `read`.
//!
//! ```text
//! MsgpackPull::new(input) / with_options(input, opts)
//! peek_marker()   the next header byte, nothing consumed
//! next()          one item; Array(n) / Map(n): header consumed, n checked
//!                 against the input, then the caller reads n items / n keys and n values
//! next_key()      one map key under the key rules of `opts` (NonStrKey, MapKey)
//! skip() / skip_at_depth(depth)   one whole value, validated, nothing built
//! finish()        no byte may remain
//! ```
//!
//! Final signatures (against the interface first proposed):
//! * `with_options(input, ReadOptions)` takes the push decoder's options;
//!   `new(input)` is `ReadOptions::default()` (str keys only, extension -1
//!   an extension like any other). With `timestamps`, `next()` checks the
//!   payload of an extension -1 (`InvalidTimestamp` at its header, as
//!   `read`) and still returns it as `Ext(-1, data)`, which
//!   [`decode_timestamp`] then decodes. `non_str_keys` is what
//!   [`next_key`](MsgpackPull::next_key) and `skip` allow as keys.
//! * `next_key()` is new: `read` refuses a key that is not a str before
//!   reading anything of it (`NonStrKey` at its header), and with
//!   `non_str_keys` a map key after its length field but before its length
//!   check (`MapKey`); `next()` cannot tell a key from a value, `next_key()`
//!   applies those rules in that order. Items inside an array that is a key
//!   are read with `next_key()` too (maps refused, strs allowed).
//! * Nesting: the reader does not count containers; a caller that recurses
//!   raises [`DepthLimit`](crate::error::DecodeErrorKind::DepthLimit) at
//!   the header offset (`pos()` before `next()`) when `next()` returned
//!   `Array`/`Map` and `depth >= MAX_DECODE_DEPTH` containers are already
//!   open, even for an empty one, as `read` does (after the length check).
//!   [`skip_at_depth`](MsgpackPull::skip_at_depth) takes the containers open
//!   around the value; [`skip`](MsgpackPull::skip) counts from the value.
//! * Extensions other than timestamps are handed out, never refused: `read`
//!   asks its builder (and fails with `ExtensionType(tag)` at the header
//!   when the builder declines the tag, which a caller with no use for a tag
//!   does the same way), and `skip` accepts every tag.
//! * `Str` and `Bin` borrow from the input for `'a`; nothing is allocated
//!   per item.
//! * An empty input fails with `EmptyDocument` at 0 wherever an item is
//!   asked for, as `read` does.

use core::convert::Infallible;

pub use super::lex::decode_timestamp;
use super::lex::{container_len, err, match_header, timestamp, Reader};
use super::reader::ReadOptions;
use crate::error::{DecodeError, DecodeErrorKind as Kind, Failure};
use crate::fallible;

/// One item. Integers keep their family's signedness as `read` hands them
/// to a builder: `U64` for positive fixints and uint 8-64, `I64` for
/// negative fixints and int 8-64. `Str` is checked UTF-8. `Array(n)` and
/// `Map(n)` are headers: `n` items (a map's `n` keys and `n` values) follow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MsgpackItem<'a> {
    Nil,
    Bool(bool),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    Str(&'a str),
    Bin(&'a [u8]),
    Array(usize),
    Map(usize),
    Ext(i8, &'a [u8]),
}

/// An open container [`MsgpackPull::skip`] is inside: items still to read
/// (a map counts keys and values), and whether it is (inside) a map key.
struct Frame {
    remaining: usize,
    is_map: bool,
    in_key: bool,
}

/// Where the next item goes, which decides what it may be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Value,
    /// Directly a map key.
    Key,
    /// Inside an array that is (part of) a map key.
    InKey,
}

/// The text of a str's `bytes`, declared at `at`, checked as UTF-8.
#[inline(always)]
fn utf8(bytes: &[u8], at: usize) -> Result<&str, Failure<Infallible>> {
    if !crate::text::ascii::is_ascii(bytes) && !crate::text::decode::is_valid(bytes) {
        return err(Kind::InvalidUtf8, at);
    }
    // SAFETY: ASCII, or checked as UTF-8 just above.
    Ok(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// A reader of one MessagePack value, item by item. See the module docs.
pub struct MsgpackPull<'a> {
    r: Reader<'a>,
    opts: ReadOptions,
    /// `skip`'s open containers, kept between calls.
    frames: Vec<Frame>,
}

impl<'a> MsgpackPull<'a> {
    /// A reader at the start of `input`, with the default options (str keys
    /// only, extension -1 an extension like any other).
    pub fn new(input: &'a [u8]) -> Self {
        Self::with_options(input, ReadOptions::default())
    }

    /// A reader at the start of `input` that applies `opts` as
    /// [`reader::read`](super::reader::read) does (see the module docs).
    pub fn with_options(input: &'a [u8], opts: ReadOptions) -> Self {
        MsgpackPull { r: Reader { input, pos: 0 }, opts, frames: Vec::new() }
    }

    /// The input being read.
    pub fn input(&self) -> &'a [u8] {
        self.r.input
    }

    /// Offset of the next unread byte.
    #[inline(always)]
    pub fn pos(&self) -> usize {
        self.r.pos
    }

    /// Goes back to `pos`, an offset [`pos`](Self::pos) gave earlier,
    /// to read the input from there again (a caller that looked ahead
    /// without building anything). The reader keeps nothing else of where
    /// it is: the items left in the containers open there are the caller's
    /// to count, as they were the first time.
    #[inline(always)]
    pub fn rewind(&mut self, pos: usize) {
        debug_assert!(pos <= self.r.pos);
        self.r.pos = pos.min(self.r.pos);
    }

    /// The next header byte, if any; nothing is consumed.
    #[inline(always)]
    pub fn peek_marker(&self) -> Option<u8> {
        self.r.input.get(self.r.pos).copied()
    }

    /// The error for an item missing at the end of the input:
    /// `EmptyDocument` when the input is empty, as `read` says.
    #[cold]
    fn end(&self) -> DecodeError {
        let kind = if self.r.input.is_empty() { Kind::EmptyDocument } else { Kind::UnexpectedEnd };
        DecodeError::new(kind, self.r.pos)
    }

    /// One item for `slot`, under `read`'s rules for it.
    #[inline(always)]
    fn read(&mut self, slot: Slot) -> Result<MsgpackItem<'a>, DecodeError> {
        let at = self.r.pos;
        let Some(&marker) = self.r.input.get(at) else {
            return Err(self.end());
        };
        if slot == Slot::Key && self.opts.refuses_key(marker) {
            return Err(DecodeError::new(Kind::NonStrKey, at));
        }
        self.r.pos += 1;
        Ok(self.item(slot, marker, at)?)
    }

    /// The item whose header `marker` is at `at`, for `slot`.
    #[inline(always)]
    fn item(&mut self, slot: Slot, marker: u8, at: usize) -> Result<MsgpackItem<'a>, Failure<Infallible>> {
        Ok(match_header!(&mut self.r, marker, at, Infallible, {
            U64(v) => MsgpackItem::U64(v),
            I64(v) => MsgpackItem::I64(v),
            Nil => MsgpackItem::Nil,
            Bool(v) => MsgpackItem::Bool(v),
            F32(v) => MsgpackItem::F32(v),
            F64(v) => MsgpackItem::F64(v),
            Str(bytes) => MsgpackItem::Str(utf8(bytes, at)?),
            Bin(bytes) => MsgpackItem::Bin(bytes),
            Ext(tag, data) => {
                self.check_ext(slot, tag, data, at)?;
                MsgpackItem::Ext(tag, data)
            },
            Array(len) => MsgpackItem::Array(self.check_container(slot, false, len, at)?),
            Map(len) => MsgpackItem::Map(self.check_container(slot, true, len, at)?),
        }))
    }

    /// Checks an extension read for `slot` (a key only if a timestamp read
    /// as a datetime, as `read` checks it), and its payload: a timestamp's,
    /// when asked to.
    #[inline(always)]
    fn check_ext(&self, slot: Slot, tag: i8, data: &[u8], at: usize) -> Result<(), Failure<Infallible>> {
        if slot != Slot::Value && self.opts.refuses_ext_key(tag) {
            return err(Kind::ExtKey, at);
        }
        if tag == -1 && self.opts.timestamps {
            timestamp::<Infallible>(data, at)?;
        }
        Ok(())
    }

    /// Checks a container header read for `slot`, whose items start at
    /// `pos`: a key (or an item of an array that is a key) is no map,
    /// refused before its length is checked, as `read` does; then the
    /// length against the input. Returns the length.
    #[inline(always)]
    fn check_container(&self, slot: Slot, is_map: bool, len: usize, at: usize) -> Result<usize, Failure<Infallible>> {
        if is_map && slot != Slot::Value {
            return err(Kind::MapKey, at);
        }
        container_len::<Infallible>(is_map, len, self.r.input.len() - self.r.pos, at)?;
        Ok(len)
    }

    /// Reads one item (a value, or an item of a value). Scalars and bodies
    /// are consumed; for `Array(n)`/`Map(n)` only the header is, after `n`
    /// was checked against the input that remains (each item takes a byte
    /// or more), so a caller may allocate for `n` at once.
    // Not an `Iterator`: an item is a header, not a value, and the caller
    // counts containers' items.
    #[allow(clippy::should_implement_trait)]
    #[inline(always)]
    pub fn next(&mut self) -> Result<MsgpackItem<'a>, DecodeError> {
        self.read(Slot::Value)
    }

    /// Reads one map key, or an item inside an array that is a key: with
    /// str keys only (the default) anything but a str is `NonStrKey` at its
    /// header, before any of it is read; with `non_str_keys` any item but a
    /// map (`MapKey`).
    #[inline(always)]
    pub fn next_key(&mut self) -> Result<MsgpackItem<'a>, DecodeError> {
        self.read(Slot::Key)
    }

    /// Skips one whole value, checked as `read` checks it (lengths, UTF-8 of
    /// every str, keys under the options' rules, timestamps with
    /// `timestamps`, nesting up to `MAX_DECODE_DEPTH` levels counted from
    /// this value), building nothing. Without recursion: the open containers
    /// go on a small stack the reader keeps between calls (allocated once,
    /// when a skipped value first nests). Every extension tag is accepted.
    #[inline]
    pub fn skip(&mut self) -> Result<(), DecodeError> {
        self.skip_at_depth(0)
    }

    /// [`skip`](Self::skip) for a value inside `depth` open containers:
    /// opening a container fails with `DepthLimit` where `read` would, when
    /// `depth` plus the containers the value opened reach `MAX_DECODE_DEPTH`.
    pub fn skip_at_depth(&mut self, depth: usize) -> Result<(), DecodeError> {
        let mut frames = core::mem::take(&mut self.frames);
        let result = self.skip_in(depth, &mut frames);
        frames.clear();
        self.frames = frames;
        result
    }

    fn skip_in(&mut self, depth: usize, frames: &mut Vec<Frame>) -> Result<(), DecodeError> {
        let mut slot = Slot::Value;
        loop {
            let at = self.r.pos;
            let Some(&marker) = self.r.input.get(at) else {
                return Err(self.end());
            };
            if slot == Slot::Key && self.opts.refuses_key(marker) {
                return Err(DecodeError::new(Kind::NonStrKey, at));
            }
            self.r.pos += 1;
            if let Some((is_map, len)) = self.skip_item(slot, marker, at)? {
                // A container: its length was checked; counted like `read`,
                // opening one a level too deep fails, even an empty one.
                if depth.saturating_add(frames.len()) >= crate::MAX_DECODE_DEPTH {
                    return Err(DecodeError::new(Kind::DepthLimit, at));
                }
                if len != 0 {
                    let in_key = slot != Slot::Value;
                    let frame = Frame { is_map, in_key, remaining: if is_map { len * 2 } else { len } };
                    fallible::push(frames, frame).map_err(|_| DecodeError::new(Kind::NoMemory, at))?;
                    slot = if in_key {
                        Slot::InKey
                    } else if is_map {
                        Slot::Key
                    } else {
                        Slot::Value
                    };
                    continue;
                }
            }
            // Close every container this item completes.
            loop {
                let Some(frame) = frames.last_mut() else {
                    return Ok(());
                };
                frame.remaining -= 1;
                if frame.remaining != 0 {
                    slot = if frame.in_key {
                        Slot::InKey
                    } else if frame.is_map && frame.remaining % 2 == 0 {
                        Slot::Key
                    } else {
                        Slot::Value
                    };
                    break;
                }
                frames.pop();
            }
        }
    }

    /// Checks the item whose header `marker` is at `at`, for `slot`, as
    /// [`item`](Self::item) does, and passes over it: a container's kind and
    /// checked length, or `None` for anything else.
    #[inline(always)]
    fn skip_item(&mut self, slot: Slot, marker: u8, at: usize) -> Result<Option<(bool, usize)>, Failure<Infallible>> {
        Ok(match_header!(&mut self.r, marker, at, Infallible, {
            U64(_) => None,
            I64(_) => None,
            Nil => None,
            Bool(_) => None,
            F32(_) => None,
            F64(_) => None,
            Str(bytes) => {
                utf8(bytes, at)?;
                None
            },
            Bin(_) => None,
            Ext(tag, data) => {
                self.check_ext(slot, tag, data, at)?;
                None
            },
            Array(len) => Some((false, self.check_container(slot, false, len, at)?)),
            Map(len) => Some((true, self.check_container(slot, true, len, at)?)),
        }))
    }

    /// Ends the input: `TrailingData` at the first byte after the value, if any.
    pub fn finish(&self) -> Result<(), DecodeError> {
        if self.r.pos != self.r.input.len() {
            return Err(DecodeError::new(Kind::TrailingData, self.r.pos));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{msgpack_all_ways, Rng};

    const PLAIN: ReadOptions =
        ReadOptions { non_str_keys: false, timestamps: false, bin_keys: false, plain_keys: false };
    const ALL: ReadOptions = ReadOptions { non_str_keys: true, timestamps: true, bin_keys: false, plain_keys: false };

    /// Looking ahead in a map (keys read, values skipped) and rewinding to
    /// its first key reads the same entries again.
    #[test]
    fn rewind_reads_a_map_again() {
        // {"a": [1, {"b": "c"}], 7: "x"}
        let data = b"\x82\xa1a\x92\x01\x81\xa1b\xa1c\x07\xa1x";
        let mut pull = MsgpackPull::with_options(data, ALL);
        let MsgpackItem::Map(n) = pull.next().unwrap() else { panic!("a map") };
        let start = pull.pos();
        let read = |pull: &mut MsgpackPull| {
            (0..n)
                .map(|_| {
                    let key = format!("{:?}", pull.next_key().unwrap());
                    pull.skip_at_depth(1).unwrap();
                    key
                })
                .collect::<Vec<_>>()
        };
        let ahead = read(&mut pull);
        pull.rewind(start);
        assert_eq!(read(&mut pull), ahead);
        assert_eq!(ahead.len(), 2);
        pull.finish().unwrap();
    }

    /// A random MessagePack value of every family (some of them broken:
    /// invalid UTF-8, bad timestamps, non-str and map keys), appended to `out`.
    fn random_value(rng: &mut Rng, out: &mut Vec<u8>, depth: u32) {
        let pick = rng.below(if depth > 4 { 14 } else { 17 });
        let n = rng.below(5) as usize;
        match pick {
            0 => out.push(rng.below(0x80) as u8),
            1 => out.push(0xe0 | rng.below(32) as u8),
            2 => out.push([0xc0, 0xc2, 0xc3][rng.below(3) as usize]),
            3 => {
                let marker = 0xcc + rng.below(8) as u8;
                out.push(marker);
                let width = 1 << ((marker - 0xcc) % 4);
                out.extend((0..width).map(|_| rng.next_u64() as u8));
            }
            4 => {
                out.push(0xca);
                out.extend(1.5f32.to_be_bytes());
            }
            5 => {
                out.push(0xcb);
                out.extend(rng.next_u64().to_be_bytes());
            }
            6 | 7 => {
                let texts: [&[u8]; 6] = [b"", b"key", "é中😀".as_bytes(), b"\xff\xfe", b"\xc3", &[b'x'; 40]];
                let text = texts[rng.below(texts.len() as u64) as usize];
                match rng.below(4) {
                    0 => out.extend([0xd9, text.len() as u8]),
                    1 => out.extend([0xda, 0, text.len() as u8]),
                    2 => out.extend([0xdb, 0, 0, 0, text.len() as u8]),
                    _ if text.len() < 32 => out.push(0xa0 | text.len() as u8),
                    _ => out.extend([0xd9, text.len() as u8]),
                }
                out.extend(text);
            }
            8 => {
                out.extend([0xc4 + rng.below(3) as u8]);
                let width = 1usize << (out[out.len() - 1] - 0xc4);
                out.extend(std::iter::repeat_n(0, width - 1));
                out.push(n as u8);
                out.extend(std::iter::repeat_n(7, n));
            }
            9 | 10 => {
                // Extensions: timestamps (4, 8, 12 bytes; some with too many
                // nanoseconds), other lengths, other tags.
                let tag: u8 = if rng.below(3) == 0 { 42 } else { 0xff };
                let len = [4usize, 8, 12, 1, 2, 16, 3][rng.below(7) as usize];
                match len {
                    1 => out.push(0xd4),
                    2 => out.push(0xd5),
                    4 => out.push(0xd6),
                    8 => out.push(0xd7),
                    16 => out.push(0xd8),
                    _ => out.extend([0xc7, len as u8]),
                }
                out.push(tag);
                let mut payload: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                if rng.below(2) == 0 && len >= 4 {
                    payload[..4].fill(0);
                }
                out.extend(payload);
            }
            11 => out.push(0xc1),
            12 => {
                // A length beyond the input.
                out.extend([[0xdc, 0xff, 0xff], [0xde, 0x7f, 0x00], [0xc5, 0x10, 0x00]][rng.below(3) as usize]);
            }
            13 => {
                // Empty containers in every width.
                out.extend(
                    [&[0x90][..], &[0x80], &[0xdc, 0, 0], &[0xdd, 0, 0, 0, 0], &[0xde, 0, 0], &[0xdf, 0, 0, 0, 0]]
                        [rng.below(6) as usize],
                );
            }
            14 => {
                match rng.below(3) {
                    0 => out.push(0x90 | n as u8),
                    1 => out.extend([0xdc, 0, n as u8]),
                    _ => out.extend([0xdd, 0, 0, 0, n as u8]),
                }
                for _ in 0..n {
                    random_value(rng, out, depth + 1);
                }
            }
            _ => {
                match rng.below(3) {
                    0 => out.push(0x80 | n as u8),
                    1 => out.extend([0xde, 0, n as u8]),
                    _ => out.extend([0xdf, 0, 0, 0, n as u8]),
                }
                for _ in 0..n {
                    if rng.below(4) == 0 {
                        random_value(rng, out, depth + 1);
                    } else {
                        out.extend([0xa1, b'a' + rng.below(4) as u8]);
                    }
                    random_value(rng, out, depth + 1);
                }
            }
        }
    }

    /// `input` with a byte replaced, inserted or deleted, or the end cut.
    fn mutate(rng: &mut Rng, input: &mut Vec<u8>) {
        let at = rng.below(input.len() as u64 + 1) as usize;
        let byte = rng.next_u64() as u8;
        match rng.below(4) {
            0 if at < input.len() => input[at] = byte,
            1 => input.insert(at, byte),
            2 if at < input.len() => {
                input.remove(at);
            }
            _ => input.truncate(at),
        }
    }

    #[test]
    fn random_values_all_ways() {
        let mut rng = Rng::new(0x3c6e_f372_fe94_f82b);
        let (mut accepted, mut total) = (0, 0);
        for round in 0..60_000 {
            let mut input = Vec::new();
            random_value(&mut rng, &mut input, 0);
            if round % 2 == 1 {
                for _ in 0..=rng.below(2) {
                    mutate(&mut rng, &mut input);
                }
            }
            for opts in
                [PLAIN, ALL, ReadOptions { non_str_keys: true, timestamps: false, bin_keys: false, plain_keys: false }]
            {
                accepted += msgpack_all_ways(&input, opts).is_ok() as usize;
                total += 1;
            }
        }
        assert!(accepted > total / 10 && accepted < total * 9 / 10, "{accepted} of {total} accepted");
    }

    #[test]
    fn random_bytes_all_ways() {
        let mut rng = Rng::new(0x1bad_b002);
        for _ in 0..100_000 {
            let len = rng.below(12) as usize;
            let input: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let _ = msgpack_all_ways(&input, PLAIN);
            let _ = msgpack_all_ways(&input, ALL);
        }
    }

    fn items(input: &[u8], opts: ReadOptions) -> Result<Vec<MsgpackItem<'_>>, (Kind, usize)> {
        let mut p = MsgpackPull::with_options(input, opts);
        let mut out = Vec::new();
        while p.pos() < input.len() {
            out.push(p.next().map_err(|e| (e.kind, e.offset))?);
        }
        Ok(out)
    }

    #[test]
    fn every_family_as_an_item() {
        use MsgpackItem::*;
        let input = [
            &[0x7f, 0xe0, 0xcc, 0xff, 0xd0, 0x80, 0xc0, 0xc2, 0xc3][..],
            &[0xca, 0x3f, 0xc0, 0, 0],
            &[0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0],
            &[0xa1, b'a', 0xd9, 2, 0xc3, 0xa9, 0xc4, 1, 7, 0xd4, 5, 9],
            &[0x92, 0xde, 0, 1, 0xdd, 0, 0, 0, 0],
        ]
        .concat();
        assert_eq!(
            items(&input, PLAIN),
            Ok(vec![
                U64(127),
                I64(-32),
                U64(255),
                I64(-128),
                Nil,
                Bool(false),
                Bool(true),
                F32(1.5),
                F64(1.5),
                Str("a"),
                Str("é"),
                Bin(&[7]),
                Ext(5, &[9]),
                Array(2),
                Map(1),
                Array(0),
            ])
        );
        // Strs are borrowed from the input.
        let mut p = MsgpackPull::new(&input);
        while p.peek_marker() != Some(0xa1) {
            p.next().unwrap();
        }
        let MsgpackItem::Str(s) = p.next().unwrap() else { panic!() };
        assert!(input.as_ptr_range().contains(&s.as_ptr()));
    }

    #[test]
    fn headers_are_checked_against_the_input() {
        let beyond = |what, declared, available| Kind::LengthBeyondInput { what, declared, available };
        assert_eq!(items(&[0x92, 0x01], PLAIN), Err((beyond("array", 2, 1), 0)));
        assert_eq!(items(&[0x81, 0xa1], PLAIN), Err((beyond("map", 1, 1), 0)));
        assert_eq!(items(&[0xdd, 0xff, 0xff, 0xff, 0xff], PLAIN), Err((beyond("array", u32::MAX as u64, 0), 0)));
        assert_eq!(items(&[0xa2, b'a'], PLAIN), Err((beyond("str", 2, 1), 0)));
        assert_eq!(items(&[0xa2, 0xc3, 0x28], PLAIN), Err((Kind::InvalidUtf8, 0)));
        assert_eq!(items(&[0xcd, 0x01], PLAIN), Err((Kind::UnexpectedEnd, 0)));
        assert_eq!(items(&[0xc0, 0xc1], PLAIN), Err((Kind::ReservedType(0xc1), 1)));
        assert_eq!(items(&[], PLAIN), Ok(vec![]));
        assert_eq!(MsgpackPull::new(&[]).next().map_err(|e| (e.kind, e.offset)), Err((Kind::EmptyDocument, 0)));
        assert_eq!(MsgpackPull::new(&[]).skip().map_err(|e| (e.kind, e.offset)), Err((Kind::EmptyDocument, 0)));
        let mut p = MsgpackPull::new(&[0x91]);
        assert_eq!(p.next().map_err(|e| (e.kind, e.offset)), Err((beyond("array", 1, 0), 0)));
        let mut p = MsgpackPull::new(&[0x01, 0x02]);
        assert_eq!(p.next(), Ok(MsgpackItem::U64(1)));
        assert_eq!(p.finish().map_err(|e| (e.kind, e.offset)), Err((Kind::TrailingData, 1)));
        assert_eq!(p.next(), Ok(MsgpackItem::U64(2)));
        assert_eq!(p.finish(), Ok(()));
        assert_eq!(p.next().map_err(|e| (e.kind, e.offset)), Err((Kind::UnexpectedEnd, 2)));
    }

    #[test]
    fn timestamps_are_checked_when_asked() {
        let bad = [0xd5, 0xff, 0, 1];
        assert_eq!(items(&bad, PLAIN), Ok(vec![MsgpackItem::Ext(-1, &[0, 1])]));
        assert_eq!(items(&bad, ALL), Err((Kind::InvalidTimestamp { len: 2 }, 0)));
        let good = [0xd6, 0xff, 0, 0, 0, 1];
        let Ok(found) = items(&good, ALL) else { panic!() };
        assert_eq!(found, vec![MsgpackItem::Ext(-1, &[0, 0, 0, 1])]);
        assert_eq!(decode_timestamp(&[0, 0, 0, 1]), Some((1, 0)));
    }

    #[test]
    fn keys_follow_the_push_decoders_order_of_checks() {
        fn key(input: &[u8], opts: ReadOptions) -> Result<MsgpackItem<'_>, (Kind, usize)> {
            MsgpackPull::with_options(input, opts).next_key().map_err(|e| (e.kind, e.offset))
        }
        // Str keys only: anything else is refused before any of it is read.
        assert_eq!(key(&[0xc1], PLAIN), Err((Kind::NonStrKey, 0)));
        assert_eq!(key(&[0xcd, 0x01], PLAIN), Err((Kind::NonStrKey, 0)));
        assert_eq!(key(&[0xa1, b'k'], PLAIN), Ok(MsgpackItem::Str("k")));
        assert_eq!(key(&[0xa1, 0xff], PLAIN), Err((Kind::InvalidUtf8, 0)));
        // Any key but a map: refused after its length field, before its length check.
        assert_eq!(key(&[0x81], ALL), Err((Kind::MapKey, 0)));
        assert_eq!(key(&[0xde, 0x00], ALL), Err((Kind::UnexpectedEnd, 0)));
        assert_eq!(key(&[0xde, 0xff, 0xff], ALL), Err((Kind::MapKey, 0)));
        assert_eq!(
            key(&[0x92, 0x01], ALL),
            Err((Kind::LengthBeyondInput { what: "array", declared: 2, available: 1 }, 0))
        );
        assert_eq!(key(&[0x01], ALL), Ok(MsgpackItem::U64(1)));
        // The same inputs inside maps, all ways.
        for input in [&[0x81, 0x81, 0x01][..], &[0x81, 0xde, 0x00], &[0x81, 0xcd, 0x01], &[0x81, 0x91, 0x81, 0x01]] {
            let _ = msgpack_all_ways(input, PLAIN);
            let _ = msgpack_all_ways(input, ALL);
        }
        assert_eq!(msgpack_all_ways(&[0x81, 0x81, 0x01], ALL), Err((Kind::MapKey, 1)));
        assert_eq!(msgpack_all_ways(&[0x81, 0xde, 0x00], ALL), Err((Kind::UnexpectedEnd, 1)));
    }

    #[test]
    fn skip_counts_the_depth_it_is_given() {
        let nested = |n: usize| [vec![0x91; n], vec![0xc0]].concat();
        let deepest = nested(1024);
        let mut p = MsgpackPull::new(&deepest);
        assert_eq!(p.skip(), Ok(()));
        assert_eq!(p.finish(), Ok(()));
        let too_deep = nested(1025);
        let e = MsgpackPull::new(&too_deep).skip().unwrap_err();
        assert_eq!((e.kind, e.offset), (Kind::DepthLimit, 1024));
        let inside = nested(1014);
        assert_eq!(MsgpackPull::new(&inside).skip_at_depth(10), Ok(()));
        let e = MsgpackPull::new(&nested(1015)).skip_at_depth(10).unwrap_err();
        assert_eq!((e.kind, e.offset), (Kind::DepthLimit, 1014));
        let e = MsgpackPull::new(&[0x80]).skip_at_depth(crate::MAX_DECODE_DEPTH).unwrap_err();
        assert_eq!((e.kind, e.offset), (Kind::DepthLimit, 0));
        // A reader that failed a skip skips again from where it is told.
        let mut p = MsgpackPull::new(&too_deep);
        assert!(p.skip().is_err());
        assert_eq!(p.pos(), 1025);
    }

    #[test]
    fn skip_leaves_the_reader_after_the_value() {
        // {"skip": [1, {"a": b"x"}, ext 42], "keep": true}
        let input = [
            &[0x82, 0xa4][..],
            b"skip",
            &[0x93, 0x01, 0x81, 0xa1, b'a', 0xc4, 1, b'x', 0xd4, 42, 0, 0xa4],
            b"keep",
            &[0xc3],
        ]
        .concat();
        let mut p = MsgpackPull::new(&input);
        assert_eq!(p.next(), Ok(MsgpackItem::Map(2)));
        assert_eq!(p.next_key(), Ok(MsgpackItem::Str("skip")));
        assert_eq!(p.skip(), Ok(()));
        assert_eq!(p.next_key(), Ok(MsgpackItem::Str("keep")));
        assert_eq!(p.next(), Ok(MsgpackItem::Bool(true)));
        assert_eq!(p.finish(), Ok(()));
        // Every extension tag is skipped; non-str keys as the options say.
        assert_eq!(MsgpackPull::new(&[0xd4, 5, 0]).skip(), Ok(()));
        let e = MsgpackPull::new(&[0x81, 0x01, 0x02]).skip().unwrap_err();
        assert_eq!((e.kind, e.offset), (Kind::NonStrKey, 1));
        assert_eq!(MsgpackPull::with_options(&[0x81, 0x01, 0x02], ALL).skip(), Ok(()));
    }
}

//! The MessagePack decoder: every format family, one pass, no recursion.
//!
//! Every declared length is checked against the input that remains before
//! anything is allocated: a container of `n` items needs at least `n` more bytes
//! (a map `2n`), so a tiny input declaring 2^32-1 items fails at once.

pub use super::lex::decode_timestamp;
use super::lex::{container_len, err, match_header, str_marker, timestamp, Reader};
use crate::builder::Builder;
use crate::error::{no_memory, DecodeErrorKind as Kind, Failure};
use crate::fallible;

/// An open array or map: items still to read (a map counts keys and values)
/// and where its items start on the value stack. `in_key`: an array inside a
/// map key, built as a tuple.
struct Frame {
    is_map: bool,
    in_key: bool,
    remaining: usize,
    start: usize,
}

/// What the decoder accepts beyond the plain data model.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// Map keys of any type but map (arrays in keys become tuples); else str only.
    pub non_str_keys: bool,
    /// Extension -1 decoded as a timestamp (`Builder::timestamp`); else it is
    /// an extension like any other.
    pub timestamps: bool,
    /// Map keys may also be bin (msgpack-numpy's maps have bytes keys); only
    /// matters without `non_str_keys`.
    pub bin_keys: bool,
    /// Map keys are read as values are (msgpack-python's model): any type,
    /// maps and extensions too, arrays as arrays; a str key still goes
    /// through `Builder::key`. Overrides the three options above for keys,
    /// and leaves the builder to refuse or hash what it must.
    pub plain_keys: bool,
}

impl ReadOptions {
    /// Whether a map key with header byte `marker` is refused (`NonStrKey`
    /// at its header): one rule for the push decoder, the pull reader and
    /// its skip.
    #[inline(always)]
    pub(super) fn refuses_key(&self, marker: u8) -> bool {
        let allowed = matches!(marker, str_marker!())
            || self.non_str_keys
            || self.plain_keys
            || (self.bin_keys && matches!(marker, 0xc4..=0xc6));
        !allowed
    }

    /// Whether an extension of type `tag` is refused as a map key (or inside
    /// an array that is one): every extension but a timestamp read as a
    /// datetime, as ormsgpack refuses them (`ExtKey` at its header).
    #[inline(always)]
    pub(super) fn refuses_ext_key(&self, tag: i8) -> bool {
        !(tag == -1 && self.timestamps || self.plain_keys)
    }
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

/// What a header byte announced.
enum Item<V> {
    Value(V),
    Container { is_map: bool, len: usize, header: usize },
}

/// The value and frame stacks a decode works in. A caller that decodes
/// often keeps one and passes it to [`read_with`], so that a small document
/// allocates nothing of its own; it is empty between calls.
pub struct ReadStacks<V> {
    stack: Vec<V>,
    frames: Vec<Frame>,
}

impl<V> ReadStacks<V> {
    /// Empty stacks: they grow (fallibly) as a decode needs them, and a
    /// caller that keeps them between decodes pays for that once.
    pub fn new() -> Self {
        ReadStacks { stack: Vec::new(), frames: Vec::new() }
    }

    /// Items the stacks hold room for (a caller may drop large ones).
    pub fn capacity(&self) -> usize {
        self.stack.capacity() + self.frames.capacity()
    }
}

impl<V> Default for ReadStacks<V> {
    fn default() -> Self {
        Self::new()
    }
}

/// Decodes one MessagePack value from `input`; bytes after it are an error.
pub fn read<B: Builder>(input: &[u8], b: &mut B, opts: ReadOptions) -> Result<B::Value, Failure<B::Error>> {
    read_with(input, b, opts, &mut ReadStacks::new())
}

/// [`read`] in the stacks of `stacks`, which it leaves empty.
pub fn read_with<B: Builder>(
    input: &[u8],
    b: &mut B,
    opts: ReadOptions,
    stacks: &mut ReadStacks<B::Value>,
) -> Result<B::Value, Failure<B::Error>> {
    let ReadStacks { stack, frames } = stacks;
    let result = read_in::<B, false>(input, b, opts, stack, frames);
    // After an error, values of unfinished containers are still there.
    stack.clear();
    frames.clear();
    result.map(|(value, _)| value)
}

/// Decodes the MessagePack value at the start of `input`, which may go on
/// after it (a stream): the value and the number of bytes it took. An
/// incomplete value fails as [`read`] fails for input that ends early
/// (`UnexpectedEnd` or `LengthBeyondInput`).
pub fn read_prefix_with<B: Builder>(
    input: &[u8],
    b: &mut B,
    opts: ReadOptions,
    stacks: &mut ReadStacks<B::Value>,
) -> Result<(B::Value, usize), Failure<B::Error>> {
    let ReadStacks { stack, frames } = stacks;
    let result = read_in::<B, true>(input, b, opts, stack, frames);
    stack.clear();
    frames.clear();
    result
}

/// With `PREFIX`, the value may be followed by more bytes (its length is
/// returned); without, they are `TrailingData`.
fn read_in<B: Builder, const PREFIX: bool>(
    input: &[u8],
    b: &mut B,
    opts: ReadOptions,
    stack: &mut Vec<B::Value>,
    frames: &mut Vec<Frame>,
) -> Result<(B::Value, usize), Failure<B::Error>> {
    debug_assert!(stack.is_empty() && frames.is_empty());
    let mut r = Reader { input, pos: 0 };
    if input.is_empty() {
        return err(Kind::EmptyDocument, 0);
    }
    // Where the next item goes, kept up to date as containers open and
    // items complete (rather than worked out from the top frame each time).
    let mut slot = Slot::Value;
    loop {
        let item = read_item(&mut r, b, slot, opts)?;
        let value = match item {
            Item::Value(v) => v,
            Item::Container { is_map, len, header } => {
                if is_map && slot != Slot::Value && !opts.plain_keys {
                    return err(Kind::MapKey, header);
                }
                let in_key = slot != Slot::Value && !opts.plain_keys;
                let needed = container_len(is_map, len, input.len() - r.pos, header)?;
                // Counted like JSON: opening a container one level too deep
                // fails, even an empty one.
                if frames.len() >= crate::MAX_DECODE_DEPTH {
                    return err(Kind::DepthLimit, header);
                }
                if len == 0 {
                    let start = stack.len();
                    close(b, stack, is_map, in_key, start)?
                } else {
                    // Room for the items up front, but no more than
                    // `PRESIZE_LIMIT`: a length the input really holds (a 4
                    // GiB input of 2^32-1 one-byte items) is no reason to ask
                    // for 32 GiB before an item is read. Past it, the stack
                    // grows as items arrive.
                    fallible::reserve(stack, needed.min(PRESIZE_LIMIT)).map_err(|_| no_memory(header))?;
                    let frame = Frame { is_map, in_key, remaining: needed, start: stack.len() };
                    fallible::push(frames, frame).map_err(|_| no_memory(header))?;
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
        };
        fallible::push(stack, value).map_err(|_| no_memory(r.pos))?;
        // Close every container this value completes.
        loop {
            let Some(frame) = frames.last_mut() else {
                if !PREFIX && r.pos != input.len() {
                    return err(Kind::TrailingData, r.pos);
                }
                #[expect(clippy::unreachable, reason = "every value is pushed before its container closes")]
                return match stack.pop() {
                    Some(v) => Ok((v, r.pos)),
                    None => unreachable!("a complete document leaves its value on the stack"),
                };
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
            let (is_map, in_key, start) = (frame.is_map, frame.in_key, frame.start);
            frames.pop();
            let container = close(b, stack, is_map, in_key, start)?;
            fallible::push(stack, container).map_err(|_| no_memory(r.pos))?;
        }
    }
}

/// Builds the container whose items are `stack[start..]`.
#[inline(always)]
fn close<B: Builder>(
    b: &mut B,
    stack: &mut Vec<B::Value>,
    is_map: bool,
    in_key: bool,
    start: usize,
) -> Result<B::Value, Failure<B::Error>> {
    if is_map {
        b.map(stack, start)
    } else if in_key {
        b.tuple(stack, start)
    } else {
        b.array(stack, start)
    }
    .map_err(Failure::Build)
}

/// Most items the value stack makes room for when a container opens.
const PRESIZE_LIMIT: usize = 1 << 16;

/// Str values at least this long go through `Builder::try_ascii_str`.
const LONG_STR: usize = 64;

/// Reads one header (and a scalar's body) at the reader's position.
#[inline(always)]
fn read_item<B: Builder>(
    r: &mut Reader<'_>,
    b: &mut B,
    slot: Slot,
    opts: ReadOptions,
) -> Result<Item<B::Value>, Failure<B::Error>> {
    let at = r.pos;
    let Some(&marker) = r.input.get(at) else {
        return err(Kind::UnexpectedEnd, at);
    };
    r.pos += 1;
    if slot == Slot::Key && opts.refuses_key(marker) {
        return err(Kind::NonStrKey, at);
    }
    let built = match_header!(r, marker, at, B::Error, {
        U64(v) => b.u64(v),
        I64(v) => b.i64(v),
        Nil => b.null(),
        Bool(v) => b.bool(v),
        F32(v) => b.f64(v as f64),
        F64(v) => b.f64(v),
        Str(bytes) => {
            // Long values that start with ASCII: checked and copied in one pass
            // (the first 16 bytes are looked at first so text that is not
            // ASCII does not pay for building a str that is thrown away).
            if slot == Slot::Value && bytes.len() >= LONG_STR && crate::text::ascii::is_ascii(&bytes[..16]) {
                match b.try_ascii_str(bytes) {
                    Ok(Some(value)) => return Ok(Item::Value(value)),
                    Ok(None) => {}
                    Err(e) => return Err(Failure::Build(e)),
                }
            }
            if crate::text::ascii::is_ascii(bytes) {
                // SAFETY: ASCII is valid UTF-8; one check instead of validating and then
                // testing for ASCII again when the str is built.
                let text = unsafe { core::str::from_utf8_unchecked(bytes) };
                if slot == Slot::Key {
                    b.key(text)
                } else {
                    b.ascii_str(text)
                }
            } else if slot == Slot::Key {
                match b.checked_key(bytes) {
                    Ok(Some(value)) => return Ok(Item::Value(value)),
                    Ok(None) => return err(Kind::InvalidUtf8, at),
                    Err(e) => return Err(Failure::Build(e)),
                }
            } else {
                match b.checked_non_ascii_str(bytes) {
                    Ok(Some(value)) => return Ok(Item::Value(value)),
                    Ok(None) => return err(Kind::InvalidUtf8, at),
                    Err(e) => return Err(Failure::Build(e)),
                }
            }
        },
        Bin(bytes) => b.bytes(bytes),
        Ext(tag, data) => {
            if slot != Slot::Value && opts.refuses_ext_key(tag) {
                return err(Kind::ExtKey, at);
            }
            if tag == -1 && opts.timestamps {
                let (seconds, nanoseconds) = timestamp(data, at)?;
                b.timestamp(seconds, nanoseconds)
            } else {
                match b.ext(tag, data) {
                    Ok(Some(value)) => Ok(value),
                    Ok(None) => return err(Kind::ExtensionType(tag), at),
                    Err(e) => Err(e),
                }
            }
        },
        Array(len) => return Ok(Item::Container { is_map: false, len, header: at }),
        Map(len) => return Ok(Item::Container { is_map: true, len, header: at }),
    });
    built.map(Item::Value).map_err(Failure::Build)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::msgpack_all_ways;

    const PLAIN: ReadOptions =
        ReadOptions { non_str_keys: false, timestamps: false, bin_keys: false, plain_keys: false };
    const ALL: ReadOptions = ReadOptions { non_str_keys: true, timestamps: true, bin_keys: false, plain_keys: false };

    fn ok(b: &[u8]) -> String {
        ok_with(b, PLAIN)
    }

    // Every input goes through `read`, the pull reader and its `skip`
    // (`msgpack_all_ways` asserts they agree); the tests check `read`'s answer.
    fn ok_with(b: &[u8], opts: ReadOptions) -> String {
        msgpack_all_ways(b, opts).unwrap_or_else(|e| panic!("{b:x?}: {e:?}"))
    }

    fn fail(b: &[u8]) -> (Kind, usize) {
        fail_with(b, PLAIN)
    }

    #[test]
    fn prefix_reads_one_value_of_a_stream() {
        use crate::testing::AnyExt;
        let values: [&[u8]; 6] = [
            &[0x01],
            &[0x92, 0xa1, b'x', 0xc0],
            &[0x81, 0xa1, b'k', 0x93, 0x01, 0x02, 0xcb, 0, 0, 0, 0, 0, 0, 0, 0],
            &[0xd9, 0x03, b'a', b'b', b'c'],
            &[0xc4, 0x02, 0xff, 0x00],
            &[0x90],
        ];
        let stream: Vec<u8> = values.concat();
        let mut at = 0;
        let mut stacks = ReadStacks::new();
        for v in values {
            let (value, len) = read_prefix_with(&stream[at..], &mut AnyExt, ALL, &mut stacks).unwrap();
            assert_eq!(len, v.len());
            assert_eq!(Some(value), read(v, &mut AnyExt, ALL).ok());
            // Cut anywhere inside, the value fails as input that ends early does.
            for cut in 1..v.len() {
                match read_prefix_with(&v[..cut], &mut AnyExt, ALL, &mut stacks) {
                    Err(Failure::Syntax(e)) => {
                        assert!(matches!(e.kind, Kind::UnexpectedEnd | Kind::LengthBeyondInput { .. }), "{e:?}")
                    }
                    other => panic!("{:x?}: {other:?}", &v[..cut]),
                }
            }
            at += v.len();
        }
        // Errors inside a value are the ones `read` gives for it.
        let bad = [0x92, 0xa2, 0xff, 0xfe, 0x01, 0x05];
        let syntax = |r: Result<String, Failure<()>>| match r {
            Err(Failure::Syntax(e)) => (e.kind, e.offset),
            other => panic!("{other:?}"),
        };
        let prefix = read_prefix_with(&bad, &mut AnyExt, ALL, &mut stacks).map(|(v, _)| v);
        assert_eq!(syntax(prefix), syntax(read(&bad[..5], &mut AnyExt, ALL)));
    }

    fn fail_with(b: &[u8], opts: ReadOptions) -> (Kind, usize) {
        match msgpack_all_ways(b, opts) {
            Err(e) => e,
            other => panic!("{b:x?} gave {other:?}"),
        }
    }

    #[test]
    fn every_family() {
        assert_eq!(ok(&[0x7f]), "u127");
        assert_eq!(ok(&[0xe0]), "i-32");
        assert_eq!(ok(&[0xcc, 0xff]), "u255");
        assert_eq!(ok(&[0xcd, 0x01, 0x00]), "u256");
        assert_eq!(ok(&[0xce, 0, 1, 0, 0]), "u65536");
        assert_eq!(ok(&[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), "u18446744073709551615");
        assert_eq!(ok(&[0xd0, 0x80]), "i-128");
        assert_eq!(ok(&[0xd1, 0x80, 0x00]), "i-32768");
        assert_eq!(ok(&[0xd2, 0x80, 0, 0, 0]), "i-2147483648");
        assert_eq!(ok(&[0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0]), "i-9223372036854775808");
        assert_eq!(ok(&[0xc0]), "null");
        assert_eq!(ok(&[0xc2]), "false");
        assert_eq!(ok(&[0xc3]), "true");
        assert_eq!(ok(&[0xca, 0x3f, 0xc0, 0, 0]), "f1.5");
        assert_eq!(ok(&[0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0]), "f1.5");
        assert_eq!(ok(&[0xa1, b'a']), "\"a\"");
        assert_eq!(ok(&[0xd9, 1, b'a']), "\"a\"");
        assert_eq!(ok(&[0xda, 0, 1, b'a']), "\"a\"");
        assert_eq!(ok(&[0xdb, 0, 0, 0, 1, b'a']), "\"a\"");
        assert_eq!(ok(&[0xc4, 1, 7]), "b[7]");
        assert_eq!(ok(&[0xc5, 0, 1, 7]), "b[7]");
        assert_eq!(ok(&[0xc6, 0, 0, 0, 1, 7]), "b[7]");
        assert_eq!(ok(&[0x92, 0x01, 0x90]), "[u1,[]]");
        assert_eq!(ok(&[0xdc, 0, 1, 0xc0]), "[null]");
        assert_eq!(ok(&[0xdd, 0, 0, 0, 1, 0xc0]), "[null]");
        assert_eq!(ok(&[0x81, 0xa1, b'k', 0x80]), "{k\"k\":{}}");
        assert_eq!(ok(&[0xde, 0, 1, 0xa1, b'k', 0x01]), "{k\"k\":u1}");
        assert_eq!(ok(&[0xdf, 0, 0, 0, 1, 0xa1, b'k', 0x01]), "{k\"k\":u1}");
    }

    #[test]
    fn errors_with_offsets() {
        assert_eq!(fail(&[]), (Kind::EmptyDocument, 0));
        assert_eq!(fail(&[0xc1]), (Kind::ReservedType(0xc1), 0));
        assert_eq!(fail(&[0x92, 0x01, 0xc1]), (Kind::ReservedType(0xc1), 2));
        assert_eq!(fail(&[0x01, 0x02]), (Kind::TrailingData, 1));
        // Two items declared, one byte left: refused at the header before reading items.
        let short = Kind::LengthBeyondInput { what: "array", declared: 2, available: 1 };
        assert_eq!(fail(&[0x92, 0x01]), (short, 0));
        let inner = Kind::LengthBeyondInput { what: "array", declared: 1, available: 0 };
        assert_eq!(fail(&[0x92, 0x01, 0x91]), (inner, 2));
        assert_eq!(fail(&[0x91, 0xcd, 0x01]), (Kind::UnexpectedEnd, 1));
        assert_eq!(fail(&[0x81, 0x01, 0x02]), (Kind::NonStrKey, 1));
        assert_eq!(fail(&[0xa2, 0xc3, 0x28]), (Kind::InvalidUtf8, 0));
        assert_eq!(fail(&[0xd4, 0x05, 0x00]), (Kind::ExtensionType(5), 0));
        assert_eq!(fail(&[0xc7, 0x02, 0x05, 0x00]).1, 0);
        let huge = Kind::LengthBeyondInput { what: "array", declared: u32::MAX as u64, available: 0 };
        assert_eq!(fail(&[0xdd, 0xff, 0xff, 0xff, 0xff]), (huge, 0));
        assert_eq!(fail(&[0x90, 0xdf, 0xff, 0xff, 0xff, 0xff, 0x01]).1, 1);
        assert_eq!(fail(&[0xdb, 0xff, 0xff, 0xff, 0xff, b'a']).1, 0);
    }

    #[test]
    fn extensions_go_to_the_builder() {
        assert_eq!(ok(&[0xd4, 42, 7]), "x42[7]");
        assert_eq!(ok(&[0x92, 0xc7, 0, 42, 0x01]), "[x42[],u1]");
        assert_eq!(fail(&[0x91, 0xd4, 5, 7]), (Kind::ExtensionType(5), 1));
        // Without `timestamps`, -1 is an extension like any other.
        assert_eq!(fail(&[0xd6, 0xff, 0, 0, 0, 1]), (Kind::ExtensionType(-1), 0));
    }

    #[test]
    fn timestamps_in_all_three_forms() {
        let ts = |b: &[u8]| ok_with(b, ALL);
        assert_eq!(ts(&[0xd6, 0xff, 0, 0, 0, 1]), "t1.000000000");
        assert_eq!(ts(&[0xd6, 0xff, 0xff, 0xff, 0xff, 0xff]), "t4294967295.000000000");
        // 64-bit: nanoseconds in the top 30 bits, seconds in the low 34.
        let packed: u64 = (5_000 << 34) | (1 << 33);
        let mut b = vec![0xd7, 0xff];
        b.extend(packed.to_be_bytes());
        assert_eq!(ts(&b), "t8589934592.000005000");
        let mut b = vec![0xc7, 12, 0xff];
        b.extend(7u32.to_be_bytes());
        b.extend((-1i64).to_be_bytes());
        assert_eq!(ts(&b), "t-1.000000007");
        assert_eq!(fail_with(&[0xd5, 0xff, 0, 1], ALL), (Kind::InvalidTimestamp { len: 2 }, 0));
        let mut too_many_nanos = vec![0xc7, 12, 0xff];
        too_many_nanos.extend(1_000_000_000u32.to_be_bytes());
        too_many_nanos.extend(0i64.to_be_bytes());
        assert_eq!(fail_with(&too_many_nanos, ALL), (Kind::InvalidTimestamp { len: 12 }, 0));
    }

    #[test]
    fn non_str_keys_when_asked() {
        assert_eq!(ok_with(&[0x81, 0x01, 0x02], ALL), "{u1:u2}");
        assert_eq!(ok_with(&[0x81, 0xc0, 0xc3], ALL), "{null:true}");
        // Arrays in keys are tuples, nested ones too; strings inside are plain values.
        assert_eq!(ok_with(&[0x81, 0x92, 0x01, 0x91, 0xa1, b'a', 0x03], ALL), "{(u1,(\"a\")):u3}");
        assert_eq!(ok_with(&[0x81, 0x90, 0x91, 0x90], ALL), "{():[[]]}");
        assert_eq!(fail_with(&[0x81, 0x80, 0x01], ALL), (Kind::MapKey, 1));
        assert_eq!(fail_with(&[0x81, 0x91, 0x80, 0x01], ALL), (Kind::MapKey, 2));
        assert_eq!(fail(&[0x81, 0x91, 0x01, 0x01]), (Kind::NonStrKey, 1));
        // Extensions are no keys, even one the builder knows (42), in a key
        // array too; a timestamp read as a datetime is.
        let keys_only = ReadOptions { timestamps: false, ..ALL };
        assert_eq!(fail_with(&[0x81, 0xd4, 42, 0x00, 0x01], ALL), (Kind::ExtKey, 1));
        assert_eq!(fail_with(&[0x81, 0x91, 0xd4, 42, 0x00, 0x01], ALL), (Kind::ExtKey, 2));
        assert_eq!(fail_with(&[0x81, 0xd6, 0xff, 0, 0, 0, 1, 0x01], keys_only), (Kind::ExtKey, 1));
        assert_eq!(ok_with(&[0x81, 0xd6, 0xff, 0, 0, 0, 1, 0x01], ALL), "{t1.000000000:u1}");
        assert_eq!(ok_with(&[0x81, 0x01, 0xd4, 42, 0x00], ALL), "{u1:x42[0]}");
    }

    #[test]
    fn bin_keys_when_asked() {
        let bin_keys = ReadOptions { bin_keys: true, ..PLAIN };
        let map = [0x82, 0xc4, 0x02, b'n', b'd', 0xc3, 0xa1, b'k', 0x01];
        assert_eq!(ok_with(&map, bin_keys), "{b[110, 100]:true,k\"k\":u1}");
        assert_eq!(fail(&map), (Kind::NonStrKey, 1));
        // Only bin: other non-str keys are still refused.
        assert_eq!(fail_with(&[0x81, 0x01, 0x02], bin_keys), (Kind::NonStrKey, 1));
        assert_eq!(fail_with(&[0x81, 0xc0, 0x02], bin_keys), (Kind::NonStrKey, 1));
    }

    #[test]
    fn depth_limit() {
        let mut ok_depth = vec![0x91; 1024];
        ok_depth.push(0xc0);
        assert!(msgpack_all_ways(&ok_depth, PLAIN).is_ok());
        let mut too_deep = vec![0x91; 1025];
        too_deep.push(0xc0);
        assert_eq!(fail(&too_deep), (Kind::DepthLimit, 1024));
        // An empty innermost container counts as a level too.
        let mut empty_inside = vec![0x91; 1024];
        empty_inside.push(0x90);
        assert_eq!(fail(&empty_inside), (Kind::DepthLimit, 1024));
        let mut ok_empty = vec![0x91; 1023];
        ok_empty.push(0x80);
        assert!(msgpack_all_ways(&ok_empty, PLAIN).is_ok());
    }
}

//! Support for the unit tests and the fuzz targets (cargo-fuzz builds with
//! `--cfg fuzzing`); not part of a normal build.
//!
//! * [`Rng`]: the one seeded random generator the tests draw inputs from.
//! * [`Echo`]: a builder that renders decoded values as text.
//! * [`json_string`]: what orjson writes for a string, spelled out.
//! * Each SIMD variant run in turn: [`utf8_each_way`], [`escaped_each_way`],
//!   [`with_each_unescape_variant`].
//! * The pull readers driven recursively into a builder, which must give
//!   what the push decoders give: [`json_pull_build`], [`msgpack_pull_build`];
//!   [`json_all_ways`] and [`msgpack_all_ways`] decode an input with the
//!   push decoder, the pull driver and `skip`, and assert that they agree.
//! * [`AnyExt`], [`MsgpackBytes`]: more builders (every extension accepted;
//!   values as MessagePack bytes).
//! * [`conformance_files`], [`fixture_documents`]: the test data, the
//!   repository's own and the shared fixtures' when present.
//! * [`LimitedSink`]: a sink that runs out of room, for the writers'
//!   out-of-memory paths.

#![allow(clippy::disallowed_methods, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::builder::Builder;
use crate::error::{DecodeError, DecodeErrorKind, Failure};
use crate::json::pull::{JsonKey, JsonKind, JsonNumberValue, JsonPull, Key, NumberRun, Quick, RunNumber};
use crate::json::{unescape, unicode};
use crate::msgpack::pull::{decode_timestamp, MsgpackItem, MsgpackPull};
use crate::msgpack::reader::ReadOptions;
use crate::text::encode::scalar::{ucs1_to_utf8, ucs2_to_utf8, ucs4_to_utf8};
#[cfg(target_arch = "x86_64")]
use crate::text::encode::{avx512_vbmi2, ssse3::utf8_wide_ssse3, utf8_ucs1_plain, PlainUtf8};
#[cfg(target_arch = "x86_64")]
use crate::text::encode::{blocks_avx2, escape_text_avx2, escape_text_avx512};
use crate::text::encode::{escape_text, escape_text_fallback, MAX_ESCAPED_PER_UNIT, SLACK};
use crate::text::{SurrogateError, Text, WRITE_SLACK};

/// xorshift64 (shifts 13, 7, 17): reproducible, and random enough for the
/// shapes of test inputs.
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`, which must not be 0.
    pub fn new(seed: u64) -> Rng {
        assert_ne!(seed, 0, "xorshift stays at 0");
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// A builder that renders values back as canonical text, to check a decoder alone.
pub struct Echo;

impl Builder for Echo {
    type Value = String;
    type Error = ();
    fn null(&mut self) -> Result<String, ()> {
        Ok("null".into())
    }
    fn bool(&mut self, v: bool) -> Result<String, ()> {
        Ok(v.to_string())
    }
    fn i64(&mut self, v: i64) -> Result<String, ()> {
        Ok(format!("i{v}"))
    }
    fn u64(&mut self, v: u64) -> Result<String, ()> {
        Ok(format!("u{v}"))
    }
    fn f64(&mut self, v: f64) -> Result<String, ()> {
        Ok(format!("f{v:?}"))
    }
    fn str(&mut self, v: &str) -> Result<String, ()> {
        Ok(format!("{v:?}"))
    }
    fn key(&mut self, v: &str) -> Result<String, ()> {
        Ok(format!("k{v:?}"))
    }
    fn bytes(&mut self, v: &[u8]) -> Result<String, ()> {
        Ok(format!("b{v:?}"))
    }
    fn ext(&mut self, tag: i8, data: &[u8]) -> Result<Option<String>, ()> {
        // Tag 42 stands for "a tag the builder knows" in the tests.
        Ok((tag == 42).then(|| format!("x{tag}{data:?}")))
    }
    fn timestamp(&mut self, seconds: i64, nanoseconds: u32) -> Result<String, ()> {
        Ok(format!("t{seconds}.{nanoseconds:09}"))
    }
    fn tuple(&mut self, items: &mut Vec<String>, start: usize) -> Result<String, ()> {
        Ok(format!("({})", items.drain(start..).collect::<Vec<_>>().join(",")))
    }
    fn array(&mut self, items: &mut Vec<String>, start: usize) -> Result<String, ()> {
        Ok(format!("[{}]", items.drain(start..).collect::<Vec<_>>().join(",")))
    }
    fn map(&mut self, items: &mut Vec<String>, start: usize) -> Result<String, ()> {
        let flat: Vec<String> = items.drain(start..).collect();
        let pairs: Vec<String> = flat.chunks(2).map(|p| format!("{}:{}", p[0], p[1])).collect();
        Ok(format!("{{{}}}", pairs.join(",")))
    }
}

/// What orjson writes for `s`, spelled out one char at a time.
pub fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `text` as UTF-8 through each way this CPU can run, by name: the
/// dispatching [`Text::write_utf8`], the scalar loops, the SSSE3 steps, the
/// AVX2 blocks (plain and with masked tails) and the AVX-512 transcoder; panics if one writes past the room
/// the caller gives (`utf8_len_bounds().1 + WRITE_SLACK` bytes).
pub fn utf8_each_way(text: Text<'_>) -> Vec<(&'static str, Result<Vec<u8>, SurrogateError>)> {
    type Write = unsafe fn(Text<'_>, *mut u8) -> Result<usize, SurrogateError>;
    unsafe fn dispatch(t: Text<'_>, dst: *mut u8) -> Result<usize, SurrogateError> {
        t.write_utf8(dst)
    }
    unsafe fn scalar(t: Text<'_>, dst: *mut u8) -> Result<usize, SurrogateError> {
        match t {
            Text::Utf8(_) => t.write_utf8(dst),
            Text::Ucs1(s) => Ok(ucs1_to_utf8(s, dst)),
            Text::Ucs2(s) => ucs2_to_utf8(s, dst),
            Text::Ucs4(s) => ucs4_to_utf8(s, dst),
        }
    }
    #[cfg(target_arch = "x86_64")]
    unsafe fn simd(t: Text<'_>, dst: *mut u8) -> Result<usize, SurrogateError> {
        let end = match t {
            Text::Utf8(_) => return t.write_utf8(dst),
            Text::Ucs1(s) => avx512_vbmi2::ucs1::<PlainUtf8>(s, dst)?,
            Text::Ucs2(s) => avx512_vbmi2::wide::<u16, PlainUtf8>(s, dst)?,
            Text::Ucs4(s) => avx512_vbmi2::wide::<u32, PlainUtf8>(s, dst)?,
        };
        Ok(end.offset_from(dst) as usize)
    }
    #[cfg(target_arch = "x86_64")]
    unsafe fn ssse3(t: Text<'_>, dst: *mut u8) -> Result<usize, SurrogateError> {
        let end = match t {
            Text::Utf8(_) => return t.write_utf8(dst),
            Text::Ucs1(s) => utf8_ucs1_plain(s, dst),
            Text::Ucs2(s) => utf8_wide_ssse3(s, dst)?,
            Text::Ucs4(s) => utf8_wide_ssse3(s, dst)?,
        };
        Ok(end.offset_from(dst) as usize)
    }
    /// The AVX2 blocks, their tails masked where `MASKED`.
    #[cfg(target_arch = "x86_64")]
    unsafe fn blocks<const MASKED: bool>(t: Text<'_>, dst: *mut u8) -> Result<usize, SurrogateError> {
        let end = match t {
            Text::Utf8(_) => return t.write_utf8(dst),
            Text::Ucs1(s) => blocks_avx2::<u8, PlainUtf8>(s, dst, MASKED)?,
            Text::Ucs2(s) => blocks_avx2::<u16, PlainUtf8>(s, dst, MASKED)?,
            Text::Ucs4(s) => blocks_avx2::<u32, PlainUtf8>(s, dst, MASKED)?,
        };
        Ok(end.offset_from(dst) as usize)
    }
    let mut ways: Vec<(&'static str, Write)> = vec![("dispatch", dispatch), ("scalar", scalar)];
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::ssse3() {
        ways.push(("ssse3", ssse3));
    }
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2_popcnt() {
        ways.push(("avx2", blocks::<false>));
        if crate::cpu::avx512_bw_vl_bmi2() {
            ways.push(("avx512bw", blocks::<true>));
        }
    }
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx512_vbmi2() {
        ways.push(("avx512", simd));
    }
    let max = text.utf8_len_bounds().1;
    let room = max + WRITE_SLACK;
    let mut results = Vec::new();
    for (name, write) in ways {
        let mut v = vec![0xEEu8; room + 64];
        // SAFETY: room for `utf8_len_bounds().1 + WRITE_SLACK` bytes (and 64
        // to check); the SIMD transcoders only where the CPU has them.
        let result = unsafe { write(text, v.as_mut_ptr()) }.map(|n| {
            assert!(n <= max, "{name} wrote more than the bound");
            assert!(v[room..].iter().all(|&b| b == 0xEE), "{name} wrote past its room on {text:?}");
            v.truncate(n);
            v
        });
        results.push((name, result));
    }
    results
}

/// `text` escaped (no quotes) through each way this CPU can run, by name:
/// the dispatching one, the fallbacks (SSSE3 or loops), the AVX2 blocks
/// (plain and with masked tails) and the AVX-512 transcoder; panics if one writes past its room.
pub fn escaped_each_way(text: Text<'_>) -> Vec<(&'static str, Result<Vec<u8>, SurrogateError>)> {
    type Escape = unsafe fn(Text<'_>, *mut u8) -> Result<*mut u8, SurrogateError>;
    #[cfg(target_arch = "x86_64")]
    unsafe fn blocks<const MASKED: bool>(t: Text<'_>, out: *mut u8) -> Result<*mut u8, SurrogateError> {
        escape_text_avx2(t, out, MASKED)
    }
    let mut ways: Vec<(&'static str, Escape)> = vec![("best", escape_text), ("fallback", escape_text_fallback)];
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx512_vbmi2() {
        ways.push(("avx512", escape_text_avx512));
    }
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2_popcnt() {
        ways.push(("avx2", blocks::<false>));
        if crate::cpu::avx512_bw_vl_bmi2() {
            ways.push(("avx512bw", blocks::<true>));
        }
    }
    let room = text.units() * MAX_ESCAPED_PER_UNIT + SLACK;
    let mut results = Vec::new();
    for (name, escape) in ways {
        let mut out = vec![0xEEu8; room + 64];
        // SAFETY: the room `escape_text` needs (and 64 bytes to check); the
        // AVX-512 transcoder only where the CPU has it.
        let end = unsafe { escape(text, out.as_mut_ptr()) };
        let result = end.map(|end| {
            // SAFETY: `end` points into `out`, at or after its start.
            let n = unsafe { end.offset_from(out.as_ptr()) } as usize;
            assert!(n <= room - SLACK, "{name} wrote more than the bound");
            assert!(out[room..].iter().all(|&b| b == 0xEE), "{name} wrote past its room");
            out[..n].to_vec()
        });
        results.push((name, result));
    }
    results
}

/// `f()` with every JSON number read by the lexer's checked path (its
/// pointer-reading fast path for numbers away from the input's end turned
/// off on this thread), for holding the two to the same results.
pub fn with_checked_numbers<T>(f: impl FnOnce() -> T) -> T {
    crate::json::lex::CHECKED_NUMBERS.with(|c| c.set(true));
    let out = f();
    crate::json::lex::CHECKED_NUMBERS.with(|c| c.set(false));
    out
}

/// Calls `f` once with each way of unescaping strings this CPU has forced in
/// turn, then once more with the `\u` escape loop off (every `\u` escape
/// decoded one at a time).
pub fn with_each_unescape_variant(mut f: impl FnMut()) {
    for v in unescape::Variant::available() {
        unescape::FORCED.with(|forced| forced.set(Some(v)));
        f();
    }
    unescape::FORCED.with(|forced| forced.set(None));
    unicode::OFF.with(|off| off.set(true));
    f();
    unicode::OFF.with(|off| off.set(false));
}

/// A sink that holds at most `budget` bytes, as if the allocator ran out
/// there: a reservation past it fails, and the sink stays failed. Each
/// reservation is made exact in the vector's capacity, and anything written
/// past what was reserved is caught: the bytes between the reservation and
/// the next one must be untouched (`0xEE`), checked at every `reserve`.
pub struct LimitedSink {
    pub out: Vec<u8>,
    /// The largest single reservation asked for.
    pub max_reserve: usize,
    budget: usize,
    /// The end of the last reservation (bytes past it must stay 0xEE).
    reserved_to: usize,
    failed: bool,
}

/// Room kept past every reservation to catch stray writes.
const GUARD: usize = 64;

impl LimitedSink {
    pub fn new(budget: usize) -> LimitedSink {
        LimitedSink { out: Vec::new(), max_reserve: 0, budget, reserved_to: 0, failed: false }
    }

    /// Panics if anything was written past the last reservation.
    pub fn check_guard(&self) {
        let end = self.out.capacity();
        // SAFETY: the vector's capacity past `reserved_to` was filled with
        // 0xEE when reserved (and `reserved_to <= capacity`).
        let tail =
            unsafe { core::slice::from_raw_parts(self.out.as_ptr().add(self.reserved_to), end - self.reserved_to) };
        assert!(tail.iter().all(|&b| b == 0xEE), "a writer wrote past its reservation");
    }
}

// SAFETY: a reservation that succeeds leaves `additional` writable bytes in
// the vector's spare capacity; one that fails leaves the sink failed.
unsafe impl crate::sink::Sink for LimitedSink {
    fn len(&self) -> usize {
        self.out.len()
    }
    fn reserve(&mut self, additional: usize) -> bool {
        self.check_guard();
        self.max_reserve = self.max_reserve.max(additional);
        if self.failed || self.out.len() + additional > self.budget {
            self.failed = true;
            return false;
        }
        let len = self.out.len();
        self.out.reserve(additional + GUARD);
        let spare = self.out.capacity() - len;
        // SAFETY: filling the spare capacity, which the vector owns.
        unsafe { core::ptr::write_bytes(self.out.as_mut_ptr().add(len), 0xEE, spare) };
        self.reserved_to = len + additional;
        true
    }
    fn failed(&self) -> bool {
        self.failed
    }
    fn tail(&mut self) -> *mut u8 {
        let len = self.out.len();
        // SAFETY: within (or one past) the allocation.
        unsafe { self.out.as_mut_ptr().add(len) }
    }
    unsafe fn advance(&mut self, n: usize) {
        assert!(self.out.len() + n <= self.reserved_to, "advanced past the reservation");
        self.out.set_len(self.out.len() + n);
    }
    fn truncate(&mut self, len: usize) {
        assert!(len <= self.out.len());
        self.out.truncate(len);
    }
}

/// [`Echo`], but every extension tag is known: what [`MsgpackPull::skip`]
/// (which accepts every tag) is compared with.
pub struct AnyExt;

impl Builder for AnyExt {
    type Value = String;
    type Error = ();
    fn null(&mut self) -> Result<String, ()> {
        Echo.null()
    }
    fn bool(&mut self, v: bool) -> Result<String, ()> {
        Echo.bool(v)
    }
    fn i64(&mut self, v: i64) -> Result<String, ()> {
        Echo.i64(v)
    }
    fn u64(&mut self, v: u64) -> Result<String, ()> {
        Echo.u64(v)
    }
    fn f64(&mut self, v: f64) -> Result<String, ()> {
        Echo.f64(v)
    }
    fn str(&mut self, v: &str) -> Result<String, ()> {
        Echo.str(v)
    }
    fn key(&mut self, v: &str) -> Result<String, ()> {
        Echo.key(v)
    }
    fn bytes(&mut self, v: &[u8]) -> Result<String, ()> {
        Echo.bytes(v)
    }
    fn ext(&mut self, tag: i8, data: &[u8]) -> Result<Option<String>, ()> {
        Ok(Some(format!("x{tag}{data:?}")))
    }
    fn timestamp(&mut self, seconds: i64, nanoseconds: u32) -> Result<String, ()> {
        Echo.timestamp(seconds, nanoseconds)
    }
    fn tuple(&mut self, items: &mut Vec<String>, start: usize) -> Result<String, ()> {
        Echo.tuple(items, start)
    }
    fn array(&mut self, items: &mut Vec<String>, start: usize) -> Result<String, ()> {
        Echo.array(items, start)
    }
    fn map(&mut self, items: &mut Vec<String>, start: usize) -> Result<String, ()> {
        Echo.map(items, start)
    }
}

/// A builder whose values are their MessagePack encoding (by the writer's
/// functions): a JSON document parsed with it is the same document as
/// MessagePack.
pub struct MsgpackBytes;

impl Builder for MsgpackBytes {
    type Value = Vec<u8>;
    type Error = ();
    fn null(&mut self) -> Result<Vec<u8>, ()> {
        Ok(vec![0xc0])
    }
    fn bool(&mut self, v: bool) -> Result<Vec<u8>, ()> {
        Ok(vec![if v { 0xc3 } else { 0xc2 }])
    }
    fn i64(&mut self, v: i64) -> Result<Vec<u8>, ()> {
        let mut out = Vec::new();
        crate::msgpack::writer::write_i64(&mut out, v);
        Ok(out)
    }
    fn u64(&mut self, v: u64) -> Result<Vec<u8>, ()> {
        let mut out = Vec::new();
        crate::msgpack::writer::write_u64(&mut out, v);
        Ok(out)
    }
    fn f64(&mut self, v: f64) -> Result<Vec<u8>, ()> {
        let mut out = Vec::new();
        crate::msgpack::writer::write_f64(&mut out, v);
        Ok(out)
    }
    fn str(&mut self, v: &str) -> Result<Vec<u8>, ()> {
        let mut out = Vec::new();
        crate::msgpack::writer::write_ascii(&mut out, v.as_bytes());
        Ok(out)
    }
    fn key(&mut self, v: &str) -> Result<Vec<u8>, ()> {
        self.str(v)
    }
    fn bytes(&mut self, v: &[u8]) -> Result<Vec<u8>, ()> {
        let mut out = Vec::new();
        crate::msgpack::writer::write_bin(&mut out, v);
        Ok(out)
    }
    fn ext(&mut self, tag: i8, data: &[u8]) -> Result<Option<Vec<u8>>, ()> {
        let mut out = Vec::new();
        crate::msgpack::writer::write_ext(&mut out, tag, data);
        Ok(Some(out))
    }
    fn timestamp(&mut self, seconds: i64, nanoseconds: u32) -> Result<Vec<u8>, ()> {
        let mut buf = [0u8; 12];
        let mut out = Vec::new();
        crate::msgpack::writer::write_ext(
            &mut out,
            -1,
            crate::datetime::timestamp_payload(seconds, nanoseconds, &mut buf),
        );
        Ok(out)
    }
    fn array(&mut self, items: &mut Vec<Vec<u8>>, start: usize) -> Result<Vec<u8>, ()> {
        let mut out = Vec::new();
        crate::msgpack::writer::write_array_header(&mut out, items.len() - start);
        items.drain(start..).for_each(|item| out.extend(item));
        Ok(out)
    }
    fn map(&mut self, items: &mut Vec<Vec<u8>>, start: usize) -> Result<Vec<u8>, ()> {
        let mut out = Vec::new();
        crate::msgpack::writer::write_map_header(&mut out, (items.len() - start) / 2);
        items.drain(start..).for_each(|item| out.extend(item));
        Ok(out)
    }
}

/// Decodes `input` with a [`JsonPull`] driving `b` recursively, the way a
/// typed decoder walks a document: must give what
/// [`parse`](crate::json::scanner::parse) gives, value or error.
pub fn json_pull_build<B: Builder>(input: &[u8], b: &mut B) -> Result<B::Value, Failure<B::Error>> {
    let mut p = JsonPull::new(input)?;
    let value = json_pull_value(&mut p, b, 0)?;
    p.finish()?;
    Ok(value)
}

/// One value at `p`, inside `depth` containers.
fn json_pull_value<B: Builder>(p: &mut JsonPull<'_>, b: &mut B, depth: usize) -> Result<B::Value, Failure<B::Error>> {
    let built = match p.peek()? {
        JsonKind::Null => {
            p.null()?;
            b.null()
        }
        JsonKind::True | JsonKind::False => {
            let v = p.bool()?;
            b.bool(v)
        }
        JsonKind::Number => {
            let n = p.number()?;
            // The number's text and kind agree with its value.
            let (text, is_integer) = (n.text, n.is_integer);
            assert_eq!(is_integer, !text.contains(['.', 'e', 'E']), "{text}");
            match n.value {
                JsonNumberValue::U64(v) => b.u64(v),
                JsonNumberValue::I64(v) => b.i64(v),
                JsonNumberValue::F64(v) => b.f64(v),
            }
        }
        JsonKind::String => {
            let s = p.str()?;
            b.str(s)
        }
        kind @ (JsonKind::Array | JsonKind::Object) => {
            if depth >= crate::MAX_DECODE_DEPTH {
                return Err(DecodeError::new(DecodeErrorKind::DepthLimit, p.pos()).into());
            }
            let mut items = Vec::new();
            let mut first = true;
            if kind == JsonKind::Array {
                p.begin_array()?;
                // At even depths, runs of numbers through `number_run` or
                // `quick_number_run`, as array targets read them (any other
                // item one value at a time); at odd depths every item
                // through `next_item`.
                let mut failed = None;
                if depth % 2 == 1 {
                    while p.next_item(first)? {
                        first = false;
                        items.push(json_pull_value(p, b, depth + 1)?);
                    }
                    return b.array(&mut items, 0).map_err(Failure::Build);
                }
                // At depths 2, 6, ... through `quick_number_run`, declining
                // every third quick number (read again in full).
                let quick = depth % 4 == 2;
                let mut seen = 0usize;
                loop {
                    let mut take = |n: RunNumber<'_>| {
                        let v = match n {
                            RunNumber::Quick(q) => {
                                seen += 1;
                                if seen.is_multiple_of(3) {
                                    return false;
                                }
                                match q {
                                    Quick::U64(v) => b.u64(v),
                                    Quick::I64(v) => b.i64(v),
                                    Quick::F64(v) => b.f64(v),
                                }
                            }
                            RunNumber::Full(n, _) => {
                                assert_eq!(n.is_integer, !n.text.contains(['.', 'e', 'E']), "{}", n.text);
                                match n.value {
                                    JsonNumberValue::U64(v) => b.u64(v),
                                    JsonNumberValue::I64(v) => b.i64(v),
                                    JsonNumberValue::F64(v) => b.f64(v),
                                }
                            }
                        };
                        match v {
                            Ok(v) => {
                                items.push(v);
                                true
                            }
                            Err(e) => {
                                failed = Some(e);
                                false
                            }
                        }
                    };
                    let run = if quick {
                        p.quick_number_run(first, take)?
                    } else {
                        p.number_run(first, |n, at| take(RunNumber::Full(n, at)))?
                    };
                    first = false;
                    match run {
                        NumberRun::End => break,
                        NumberRun::Stopped => return Err(Failure::Build(failed.take().expect("a failure"))),
                        NumberRun::Other => items.push(json_pull_value(p, b, depth + 1)?),
                    }
                }
                b.array(&mut items, 0)
            } else {
                p.begin_object()?;
                // Every key read expecting the one before it (the first: "a"),
                // so both ways `next_key_expecting` reads a key are taken.
                let mut expected = String::from("a");
                loop {
                    let key = match JsonKey::new(&expected) {
                        Some(k) => match p.next_key_expecting(first, &k)? {
                            Some(Key::Expected) => Some(expected.clone()),
                            Some(Key::Other(key)) => Some(key.to_owned()),
                            None => None,
                        },
                        None => p.next_key(first)?.map(str::to_owned),
                    };
                    let Some(key) = key else { break };
                    first = false;
                    items.push(b.key(&key).map_err(Failure::Build)?);
                    items.push(json_pull_value(p, b, depth + 1)?);
                    expected = key;
                }
                b.map(&mut items, 0)
            }
        }
    };
    built.map_err(Failure::Build)
}

/// Decodes `input` with a [`MsgpackPull`] driving `b` recursively: must give
/// what [`read`](crate::msgpack::reader::read) gives with `opts`, value or error.
pub fn msgpack_pull_build<B: Builder>(
    input: &[u8],
    b: &mut B,
    opts: ReadOptions,
) -> Result<B::Value, Failure<B::Error>> {
    let mut p = MsgpackPull::with_options(input, opts);
    let value = msgpack_pull_value(&mut p, b, opts, PullSlot::Value, 0)?;
    p.finish()?;
    Ok(value)
}

/// Where a value read by [`msgpack_pull_value`] goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PullSlot {
    Value,
    Key,
    InKey,
}

/// One item at `p` for `slot`, inside `depth` containers.
fn msgpack_pull_value<B: Builder>(
    p: &mut MsgpackPull<'_>,
    b: &mut B,
    opts: ReadOptions,
    slot: PullSlot,
    depth: usize,
) -> Result<B::Value, Failure<B::Error>> {
    let at = p.pos();
    let item = if slot == PullSlot::Value { p.next()? } else { p.next_key()? };
    let built = match item {
        MsgpackItem::Nil => b.null(),
        MsgpackItem::Bool(v) => b.bool(v),
        MsgpackItem::I64(v) => b.i64(v),
        MsgpackItem::U64(v) => b.u64(v),
        MsgpackItem::F32(v) => b.f64(v as f64),
        MsgpackItem::F64(v) => b.f64(v),
        MsgpackItem::Str(s) if slot == PullSlot::Key => b.key(s),
        MsgpackItem::Str(s) => b.str(s),
        MsgpackItem::Bin(v) => b.bytes(v),
        MsgpackItem::Ext(-1, data) if opts.timestamps => {
            let (seconds, nanoseconds) = decode_timestamp(data).expect("next() checked the timestamp");
            b.timestamp(seconds, nanoseconds)
        }
        MsgpackItem::Ext(tag, data) => match b.ext(tag, data) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => return Err(DecodeError::new(DecodeErrorKind::ExtensionType(tag), at).into()),
            Err(e) => Err(e),
        },
        MsgpackItem::Array(n) | MsgpackItem::Map(n) => {
            if depth >= crate::MAX_DECODE_DEPTH {
                return Err(DecodeError::new(DecodeErrorKind::DepthLimit, at).into());
            }
            let mut items = Vec::with_capacity(n);
            if let MsgpackItem::Array(_) = item {
                let inner = if slot == PullSlot::Value { PullSlot::Value } else { PullSlot::InKey };
                for _ in 0..n {
                    items.push(msgpack_pull_value(p, b, opts, inner, depth + 1)?);
                }
                if slot == PullSlot::Value {
                    b.array(&mut items, 0)
                } else {
                    b.tuple(&mut items, 0)
                }
            } else {
                for _ in 0..n {
                    items.push(msgpack_pull_value(p, b, opts, PullSlot::Key, depth + 1)?);
                    items.push(msgpack_pull_value(p, b, opts, PullSlot::Value, depth + 1)?);
                }
                b.map(&mut items, 0)
            }
        }
    };
    built.map_err(Failure::Build)
}

/// What a decode gave, comparable: the value, or the error's kind and offset.
pub type Outcome = Result<String, (DecodeErrorKind, usize)>;

fn outcome(result: Result<String, Failure<()>>) -> Outcome {
    match result {
        Ok(v) => Ok(v),
        Err(Failure::Syntax(e)) => Err((e.kind, e.offset)),
        Err(Failure::Build(())) => unreachable!("Echo never fails"),
    }
}

/// Whether a `skip` and `finish` agree with a decode's outcome: both
/// succeed, or both fail with the same kind at the same offset.
fn skip_agrees(skipped: Result<(), DecodeError>, decoded: &Outcome) -> bool {
    match (skipped, decoded) {
        (Ok(()), Ok(_)) => true,
        (Err(e), Err((kind, offset))) => e.kind == *kind && e.offset == *offset,
        _ => false,
    }
}

/// `input` decoded by [`parse`](crate::json::scanner::parse) into [`Echo`],
/// after asserting that [`json_pull_build`] gives the same value or error,
/// and that [`JsonPull::skip`] then [`JsonPull::finish`] succeed or fail
/// alike.
pub fn json_all_ways(input: &[u8]) -> Outcome {
    let want = outcome(crate::json::scanner::parse(input, &mut Echo));
    let pulled = outcome(json_pull_build(input, &mut Echo));
    assert_eq!(pulled, want, "pull and push disagree on {:?}", String::from_utf8_lossy(input));
    let checked = with_checked_numbers(|| {
        let pulled = outcome(json_pull_build(input, &mut Echo));
        (outcome(crate::json::scanner::parse(input, &mut Echo)), pulled)
    });
    assert_eq!(
        checked,
        (want.clone(), want.clone()),
        "numbers read by the checked path only differ on {:?}",
        String::from_utf8_lossy(input)
    );
    let skipped = JsonPull::new(input).and_then(|mut p| p.skip().and_then(|()| p.finish()));
    assert!(
        skip_agrees(skipped.clone(), &want),
        "skip gave {skipped:?} where parse gave {want:?} on {:?}",
        String::from_utf8_lossy(input)
    );
    want
}

/// `input` decoded by [`read`](crate::msgpack::reader::read) into [`Echo`]
/// with `opts`, after asserting that [`msgpack_pull_build`] gives the same
/// value or error, and that [`MsgpackPull::skip`] then
/// [`MsgpackPull::finish`] succeed or fail as `read` does with a builder
/// that knows every extension ([`AnyExt`]).
pub fn msgpack_all_ways(input: &[u8], opts: ReadOptions) -> Outcome {
    use crate::msgpack::reader::read;
    let want = outcome(read(input, &mut Echo, opts));
    let pulled = outcome(msgpack_pull_build(input, &mut Echo, opts));
    assert_eq!(pulled, want, "pull and push disagree on {input:x?} ({opts:?})");
    let any_ext = outcome(read(input, &mut AnyExt, opts));
    assert_eq!(outcome(msgpack_pull_build(input, &mut AnyExt, opts)), any_ext, "{input:x?} ({opts:?})");
    let mut p = MsgpackPull::with_options(input, opts);
    let skipped = p.skip().and_then(|()| p.finish());
    assert!(
        skip_agrees(skipped.clone(), &any_ext),
        "skip gave {skipped:?} where read gave {any_ext:?} on {input:x?} ({opts:?})"
    );
    want
}

/// The repository's own test data (`fixtures/`): the stand-ins of the
/// real-world documents (`generated/`) and the JSON conformance corpus
/// (`conformance/`, written by `tools/conformance_corpus.py`).
pub fn own_fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The shared fixtures, used in addition to the repository's own when they
/// are there: `$ORCODEC_FIXTURES` (which must then be a directory), else
/// `shared/fixtures` beside the repository; `None` when neither is.
pub fn shared_fixtures() -> Option<std::path::PathBuf> {
    match std::env::var_os("ORCODEC_FIXTURES") {
        Some(dir) if !dir.is_empty() => {
            let dir = std::path::PathBuf::from(dir);
            assert!(dir.is_dir(), "ORCODEC_FIXTURES={} is not a directory", dir.display());
            Some(dir)
        }
        _ => {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures");
            dir.is_dir().then_some(dir)
        }
    }
}

/// Every JSON conformance file, sorted: the repository's own corpus (`y_`
/// must parse, `n_` must be refused, `i_` either), then, when the shared
/// fixtures have them, JSONTestSuite's (same prefixes), JSON_checker's,
/// the round trips and the transforms.
pub fn conformance_files() -> Vec<std::path::PathBuf> {
    fn json_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut files: Vec<_> = entries
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        files.sort();
        files
    }
    let mut files = json_files(&own_fixtures().join("conformance"));
    assert!(files.len() > 400, "the own conformance corpus looks incomplete: {} files", files.len());
    if let Some(shared) = shared_fixtures() {
        let corpus = shared.join("json-conformance");
        if corpus.is_dir() {
            for group in ["parsing", "jsonchecker", "roundtrip", "transform"] {
                files.extend(json_files(&corpus.join(group)));
            }
        }
    }
    files
}

/// The real-world documents (twitter, github, citm_catalog, canada) by name:
/// the repository's stand-ins, then the shared originals when present.
pub fn fixture_documents() -> Vec<(String, Vec<u8>)> {
    const NAMES: [&str; 4] = ["twitter.json", "github.json", "citm_catalog.json", "canada.json"];
    let read = |path: std::path::PathBuf| std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let generated = own_fixtures().join("generated");
    let mut docs: Vec<_> = NAMES.iter().map(|name| (name.to_string(), read(generated.join(name)))).collect();
    if let Some(shared) = shared_fixtures() {
        for name in NAMES {
            let path = shared.join(name);
            if path.is_file() {
                docs.push((format!("shared/{name}"), read(path)));
            }
        }
    }
    docs
}

/// Asserts that the text-form parsers (`crate::parse`) give for `text`
/// exactly what their general readers give: the same value or the same
/// refusal, for a date, a time, a datetime and a UUID.
pub fn text_forms_agree(text: &[u8]) {
    use crate::parse::{general, general_decimal, parse_date, parse_datetime, parse_time, parse_uuid, plain_decimal};
    let shown = String::from_utf8_lossy(text);
    assert_eq!(parse_date(text), general::parse_date(text), "date {shown:?}");
    assert_eq!(parse_time(text), general::parse_time(text), "time {shown:?}");
    assert_eq!(parse_datetime(text), general::parse_datetime(text), "datetime {shown:?}");
    assert_eq!(parse_uuid(text), general::parse_uuid(text), "uuid {shown:?}");
    assert_eq!(crate::parse::uuid_words(text), general::parse_uuid(text), "uuid by words {shown:?}");
    assert_eq!(plain_decimal(text), general_decimal::plain_decimal(text), "decimal {shown:?}");
}

//! orcodec-core: the byte-level half of orcodec, with no Python in it.
//!
//! The extension walks Python objects and builds them; everything that is
//! bytes lives here, and `cargo test` runs it without an interpreter.
//!
//! Encoding: the walker drives an [`emit::Emitter`], one per format, writing
//! into a [`sink::Sink`]:
//! * [`json::writer`]: JSON, compact or indented, byte for byte orjson's.
//! * [`msgpack::writer`]: MessagePack, byte for byte msgpack-python's.
//!
//! Decoding, two ways per format, reading through one lexer per format
//! (`json::lex`, `msgpack::lex`: strings and escapes, numbers, literals,
//! headers, length checks, timestamps) so that both accept, refuse and
//! locate errors alike:
//! * push: each format's decoder hands values bottom-up to one
//!   [`builder::Builder`], which the extension implements with Python
//!   objects (the untyped fast path): [`json::scanner`] (strict RFC 8259),
//!   [`msgpack::reader`] (every format family).
//! * pull: the caller asks for one token or item at a time, top-down, and
//!   can skip whole values (typed decoding, transcoding, streaming):
//!   [`json::pull`], [`msgpack::pull`].
//!
//! Transcoding: [`transcode`] connects one format's pull reader to the
//! other's writer, JSON to MessagePack and back, with no value in between.
//!
//! What both formats share:
//! * [`text`]: CPython's str storage (UCS1/UCS2/UCS4) to UTF-8, plain or
//!   JSON-escaped, and back; ASCII checks.
//! * [`number`]: integers and floats to text and text to floats.
//! * [`datetime`]: RFC 3339 text, calendar arithmetic, timestamp payloads.
//! * [`duration`]: ISO 8601 durations (msgspec's `timedelta` text).
//! * [`parse`]: the text forms typed decoding reads back (RFC 3339, UUID,
//!   base64, number syntax).
//! * [`error`]: what a decoder rejected, and where.
//! * [`fallible`]: allocation that reports failure instead of aborting.
//! * [`pages`]: output memory made ready for a large piece (page faults
//!   taken at once, huge pages).
//! * `cpu`: which SIMD paths this CPU runs, detected once (x86-64).
//!
//! `testing` (built for tests and fuzzing only) holds the test support:
//! the seeded generator, text-rendering and MessagePack-writing builders,
//! functions that run every SIMD variant, and the pull readers driven into
//! a builder, which the tests and fuzz targets hold to the push decoders.

// Release builds abort on any panic (`panic = "abort"`), so library code
// has no explicit panic but the ones that mark a broken invariant, each with
// an `#[expect]` giving the reason; allocation that input can drive is
// fallible (clippy.toml's disallowed methods). Tests are exempt. See
// doc/reliability.md, "Panics".
#![cfg_attr(
    not(any(test, fuzzing)),
    warn(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]
#![cfg_attr(test, allow(clippy::disallowed_methods))]

pub mod builder;
#[cfg(target_arch = "x86_64")]
pub mod cpu;
pub mod datetime;
pub mod duration;
pub mod emit;
pub mod error;
pub mod fallible;
pub mod json;
pub mod msgpack;
pub mod number;
pub mod pages;
pub mod parse;
pub mod pointer;
pub mod sink;
pub mod tally;
#[cfg(any(test, fuzzing))]
pub mod testing;
pub mod text;
pub mod transcode;

/// Deepest container nesting the decoders accept (orjson's limit).
pub const MAX_DECODE_DEPTH: usize = 1024;

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
//! Decoding: each format's reader hands values to one [`builder::Builder`],
//! which the extension implements with Python objects:
//! * [`json::scanner`]: strict RFC 8259.
//! * [`msgpack::reader`]: every format family.
//!
//! What both formats share:
//! * [`text`]: CPython's str storage (UCS1/UCS2/UCS4) to UTF-8, plain or
//!   JSON-escaped, and back; ASCII checks.
//! * [`number`]: integers and floats to text and text to floats.
//! * [`datetime`]: RFC 3339 text, calendar arithmetic, timestamp payloads.
//! * [`error`]: what a decoder rejected, and where.
//! * [`fallible`]: allocation that reports failure instead of aborting.
//! * `cpu`: which SIMD paths this CPU runs, detected once (x86-64).
//!
//! `testing` (built for tests and fuzzing only) holds the test support:
//! the seeded generator, a text-rendering builder, and functions that run
//! every SIMD variant.

pub mod builder;
#[cfg(target_arch = "x86_64")]
pub mod cpu;
pub mod datetime;
pub mod emit;
pub mod error;
pub mod fallible;
pub mod json;
pub mod msgpack;
pub mod number;
pub mod sink;
#[cfg(any(test, fuzzing))]
pub mod testing;
pub mod text;

/// Deepest container nesting the decoders accept (orjson's limit).
pub const MAX_DECODE_DEPTH: usize = 1024;

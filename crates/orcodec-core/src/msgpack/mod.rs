//! MessagePack, both ways.
//!
//! * [`writer`]: the MessagePack backend of [`Emitter`](crate::emit::Emitter),
//!   the smallest encoding of each value.
//! * [`reader`]: the push decoder, every format family, feeding a
//!   [`Builder`](crate::builder::Builder) bottom-up (the untyped fast path).
//! * [`pull`]: the pull reader, the same items read one at a time by the
//!   caller (typed decoding, transcoding, streaming).
//! * [`rewrite`]: MessagePack into msgpack-python's older dialects (float 32,
//!   the raw type).
//! * [`scan`]: where a value ends in bytes that arrive in pieces, and how
//!   much of it a resumable reader has consumed (what both streaming
//!   unpackers read their buffers by; msgpack-python's limits).
//! * `lex`: what both decoders read through (header decoding, length checks
//!   against the input, timestamps).
//! * [`numpy`]: the payload of the numpy extension (one ndarray or numpy
//!   scalar as one extension value), its checks and its header.
//! * [`validate`]: whether bytes are exactly one MessagePack value.

mod lex;
pub mod numpy;
pub mod pull;
pub mod reader;
pub mod rewrite;
pub mod scan;
pub mod validate;
pub mod writer;

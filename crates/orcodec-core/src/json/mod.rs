//! JSON, both ways.
//!
//! * [`writer`]: the JSON backend of [`Emitter`](crate::emit::Emitter),
//!   compact or indented, with `rows` for numpy rows.
//! * [`scanner`]: the push decoder, strict RFC 8259, feeding a
//!   [`Builder`](crate::builder::Builder) bottom-up (the untyped fast path).
//! * [`pull`]: the pull reader, the same grammar read one token at a time
//!   by the caller (typed decoding, transcoding, streaming).
//! * [`partial`]: documents cut off anywhere, read as far as they are
//!   complete (the push decoder's partial mode); [`closing`]: such a
//!   document written whole, for typed decoding.
//! * [`stream`]: where each value of a stream of JSON values ends.
//! * [`lines`]: JSON Lines, finding line ends and blank lines.
//! * `stdlib`: the standard library `json` module's text (its separators,
//!   indentation, `ensure_ascii` escapes and `repr(float)`).
//! * `lex`: what both decoders read through (whitespace, literals, strings
//!   and their escapes, numbers); `unescape` does strings' simple escapes a
//!   block at a time, `unicode` runs of `\uXXXX` escapes in one loop.

pub mod closing;
pub(crate) mod lex;
pub mod lines;
pub mod partial;
pub mod pull;
pub(crate) mod rows;
pub mod scanner;
pub mod stdlib;
pub mod stream;
pub(crate) mod unescape;
pub(crate) mod unicode;
pub mod writer;

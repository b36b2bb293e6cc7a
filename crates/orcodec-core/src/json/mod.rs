//! JSON, both ways.
//!
//! * [`writer`]: the JSON backend of [`Emitter`](crate::emit::Emitter),
//!   compact or indented, with `rows` for numpy rows.
//! * [`scanner`]: the decoder, strict RFC 8259, feeding a
//!   [`Builder`](crate::builder::Builder); `lex` is its lexing (whitespace,
//!   literals, strings and their escapes, numbers), `unescape` does strings'
//!   escapes a block at a time.

mod lex;
mod rows;
pub mod scanner;
pub(crate) mod unescape;
pub mod writer;

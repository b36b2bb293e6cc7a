//! MessagePack, both ways.
//!
//! * [`writer`]: the MessagePack backend of [`Emitter`](crate::emit::Emitter),
//!   the smallest encoding of each value.
//! * [`reader`]: the decoder, every format family, feeding a
//!   [`Builder`](crate::builder::Builder); `lex` is its header decoding,
//!   length checks against the input and timestamps.

mod lex;
pub mod reader;
pub mod writer;

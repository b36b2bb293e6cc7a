//! MessagePack, both ways.
//!
//! * [`writer`]: the MessagePack backend of [`Emitter`](crate::emit::Emitter),
//!   the smallest encoding of each value.
//! * [`reader`]: the decoder, every format family, feeding a
//!   [`Builder`](crate::builder::Builder).
//! * [`numpy`]: the payload of the numpy extension (one ndarray or numpy
//!   scalar as one extension value), its checks and its header.

pub mod numpy;
pub mod reader;
pub mod writer;

//! MessagePack, both ways.
//!
//! * [`writer`]: the MessagePack backend of [`Emitter`](crate::emit::Emitter),
//!   the smallest encoding of each value.
//! * [`reader`]: the decoder, every format family, feeding a
//!   [`Builder`](crate::builder::Builder).
//! * [`validate`]: whether bytes are exactly one MessagePack value.

pub mod reader;
pub mod validate;
pub mod writer;

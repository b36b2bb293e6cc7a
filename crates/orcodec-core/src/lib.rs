//! orcodec-core: the byte-level half of orcodec, with no Python in it.
//!
//! * [`sink`]: where encoded bytes go (a `Vec<u8>` here, the returned `bytes`
//!   object in the extension).
//! * [`json::writer`] / [`msgpack::writer`]: the two encoding backends, each an
//!   implementation of [`emit::Emitter`], the event interface the Python object
//!   walker drives.
//! * [`json::scanner`] / [`msgpack::reader`]: the two decoders; both hand values to
//!   one [`build::Builder`], which the extension implements with Python objects.
//! * [`text`]: CPython's str storage kinds (UCS1/UCS2/UCS4) to and from UTF-8.

pub mod build;
#[cfg(target_arch = "x86_64")]
pub mod cpu;
pub mod datetime;
pub mod emit;
pub mod error;
pub mod json;
pub mod msgpack;
pub mod number;
pub mod sink;
#[cfg(any(test, fuzzing))]
pub mod testing;
pub mod text;

/// Deepest container nesting the decoders accept (orjson's limit).
pub const MAX_DECODE_DEPTH: usize = 1024;

//! What every part of the extension shares about the module's interface:
//! its docstrings (`docs.rs`), argument parsing (`args.rs`), the flags and
//! their meaning (`options.rs`), the raising helpers (`errors.rs`), what
//! the stream classes share (`streams.rs`) and when a call runs without the
//! GIL (`gil.rs`). The module itself is defined and
//! made in `init.rs`, on top of everything.

pub mod args;
pub mod compat;
pub mod docs;
pub mod errors;
pub mod gil;
pub mod options;
pub mod streams;

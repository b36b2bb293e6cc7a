//! The Python types the walker knows beyond the builtins, one file each:
//! how a type is recognized and how it is written, for both formats (the
//! walker is generic over the format's `Emitter`).
//!
//! `walker.rs` decides the order they are tried in; each file adds its
//! methods to `Walker` (`numpy_ext.rs` is numpy's binary forms, for
//! MessagePack). Types from the standard library (`state::Lazy`) and
//! numpy (`numpy.rs`) are found lazily, in each interpreter: a module that
//! was never imported can have no instances, so orcodec imports nothing for
//! them and asks `sys.modules` on first sight.

pub mod dataclass;
pub mod datetime;
pub mod enums;
pub mod ext;
pub mod fragment;
pub mod numpy;
pub mod numpy_ext;
pub mod pydantic;
pub mod pydatetime;
pub mod uuid;

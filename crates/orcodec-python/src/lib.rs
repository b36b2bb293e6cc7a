//! orcodec's CPython extension (`orcodec._orcodec`), written against the raw
//! C API (pyo3-ffi): entry points are METH_FASTCALL functions, so a call
//! costs no argument tuple or dict. The formats themselves (the writers, the
//! JSON scanner, the MessagePack reader) are the pure-Rust `orcodec-core`.
//!
//! # Map
//!
//! - [`state`]: the per-interpreter state every other part reads: the
//!   exceptions and classes of the interpreter's module, interned names,
//!   the types found there, every cache and kept buffer.
//! - [`module`]: what the parts share of the module's interface: its
//!   docstrings, argument parsing, the flags, the raising helpers.
//! - [`init`]: the module's definition and its execution in each
//!   interpreter (the state, the exceptions, the classes, the flags), on
//!   top of everything else.
//! - [`encode`]: `dumps` and `packb`: one object walker generic over the
//!   format's `Emitter`, the output (a bytes object filled in place), the
//!   encode error and its messages, dict keys that are not str, and
//!   `encode/types/` with one file per Python type beyond the builtins.
//! - [`decode`]: `loads` and `unpackb`: the input, the object builder both
//!   decoders drive, the key cache, dict construction, the decode errors.
//! - [`classes`]: the Python classes orcodec defines (`Fragment`, `Ext`,
//!   `Unpacker`, `Packer`, the `iter_lines` iterator).
//! - [`transcode`]: `json_to_msgpack` and `msgpack_to_json`, the core's
//!   transcoders writing into the returned bytes.
//! - [`cpython`]: every read or write of CPython's own structures (dict
//!   tables, int digits, str storage, bytes objects), gated on the versions
//!   whose layouts it knows. Everything else calls the C API as documented.
//!
//! # The GIL contract
//!
//! Every entry point runs on a thread that holds its interpreter's GIL:
//! `PyInit__orcodec` and `Py_mod_exec` (the import system calls them so),
//! the module's functions and the slots of its classes (CPython calls them
//! so). Each interpreter has a module and a state of its own (`state`), and
//! on CPython 3.12+ may have a GIL of its own. The module declares no
//! support for free threading, so a free-threaded interpreter turns the GIL
//! on when it imports it. The GIL is released only around transcoding
//! (`BytesSink::release_gil`) and counting (`module::gil::released`), which
//! touch no Python object meanwhile.
//! Throughout the crate, then:
//!
//! - Calling the C API needs no further justification: an `unsafe fn` states
//!   only its other conditions (live objects, their types), and a function
//!   with no such condition may be safe even though it calls the C API.
//! - A state (its lazily found types, the decoders' caches and kept stacks,
//!   the dataclass caches) is never used by two threads at once: its cells
//!   need no locks. No `static` holds a Python object or mutable state.
//! - Holding the GIL does not mean holding it for a whole call: wherever
//!   Python code runs (`default`, `ext_hook`, a tzinfo's `utcoffset()`, a
//!   property, a finalizer run by a decref), other threads may run, and that
//!   code may call orcodec again. So no reference into a cache is held
//!   across anything that can run Python code (each cache says how its uses
//!   avoid it), and the walker holds a reference to what it walks.

// Release builds abort on any panic (`panic = "abort"`), so library code
// has no explicit panic but the ones that mark a broken invariant, each with
// an `#[expect]` giving the reason; allocation that input can drive is
// fallible (clippy.toml's disallowed methods). Tests are exempt. See
// doc/reliability.md, "Panics".
#![cfg_attr(
    not(any(test, fuzzing)),
    warn(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]
#![cfg_attr(test, allow(clippy::disallowed_methods))]

mod classes;
mod cpython;
mod decode;
mod encode;
mod init;
mod module;
mod msgpack_compat;
mod state;
mod transcode;

use pyo3_ffi::PyObject;

/// The module's entry point.
///
/// # Safety
/// Called by the import system only (with the GIL held).
#[allow(non_snake_case)]
#[no_mangle]
pub unsafe extern "C" fn PyInit__orcodec() -> *mut PyObject {
    init::definition()
}

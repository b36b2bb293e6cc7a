//! The `OPT_*` flags: one namespace for both formats.
//!
//! Flags orjson has keep orjson's values, and the MessagePack-only flags at
//! 4096 and up keep ormsgpack's where they are free, so integers hard-coded
//! against either peer mostly still mean the same thing.

pub type Opt = u32;

pub const INDENT_2: Opt = 1;
pub const NAIVE_UTC: Opt = 1 << 1;
pub const NON_STR_KEYS: Opt = 1 << 2;
pub const OMIT_MICROSECONDS: Opt = 1 << 3;
pub const SERIALIZE_NUMPY: Opt = 1 << 4;
pub const SORT_KEYS: Opt = 1 << 5;
pub const STRICT_INTEGER: Opt = 1 << 6;
pub const UTC_Z: Opt = 1 << 7;
pub const PASSTHROUGH_SUBCLASS: Opt = 1 << 8;
pub const PASSTHROUGH_DATETIME: Opt = 1 << 9;
pub const APPEND_NEWLINE: Opt = 1 << 10;
pub const PASSTHROUGH_DATACLASS: Opt = 1 << 11;
pub const PASSTHROUGH_UUID: Opt = 1 << 12;
pub const PASSTHROUGH_ENUM: Opt = 1 << 13;
pub const DATETIME_AS_TIMESTAMP_EXT: Opt = 1 << 14;
pub const REPLACE_SURROGATES: Opt = 1 << 15;
pub const PASSTHROUGH_BIG_INT: Opt = 1 << 16;
pub const PASSTHROUGH_TUPLE: Opt = 1 << 17;
pub const SERIALIZE_PYDANTIC: Opt = 1 << 18;
/// Kept for compatibility with orjson: dataclasses and UUIDs are always serialized.
pub const SERIALIZE_DATACLASS: Opt = 0;
pub const SERIALIZE_UUID: Opt = 0;

/// Flags that only mean something for JSON; `packb` clears them so the
/// walker can test a flag without knowing the format.
pub const JSON_ONLY: Opt = INDENT_2 | APPEND_NEWLINE | STRICT_INTEGER;

/// Every flag, as exported to Python.
pub const ALL: &[(&str, Opt)] = &[
    ("OPT_APPEND_NEWLINE", APPEND_NEWLINE),
    ("OPT_DATETIME_AS_TIMESTAMP_EXT", DATETIME_AS_TIMESTAMP_EXT),
    ("OPT_INDENT_2", INDENT_2),
    ("OPT_NAIVE_UTC", NAIVE_UTC),
    ("OPT_NON_STR_KEYS", NON_STR_KEYS),
    ("OPT_OMIT_MICROSECONDS", OMIT_MICROSECONDS),
    ("OPT_PASSTHROUGH_BIG_INT", PASSTHROUGH_BIG_INT),
    ("OPT_PASSTHROUGH_DATACLASS", PASSTHROUGH_DATACLASS),
    ("OPT_PASSTHROUGH_DATETIME", PASSTHROUGH_DATETIME),
    ("OPT_PASSTHROUGH_ENUM", PASSTHROUGH_ENUM),
    ("OPT_PASSTHROUGH_SUBCLASS", PASSTHROUGH_SUBCLASS),
    ("OPT_PASSTHROUGH_TUPLE", PASSTHROUGH_TUPLE),
    ("OPT_PASSTHROUGH_UUID", PASSTHROUGH_UUID),
    ("OPT_REPLACE_SURROGATES", REPLACE_SURROGATES),
    ("OPT_SERIALIZE_DATACLASS", SERIALIZE_DATACLASS),
    ("OPT_SERIALIZE_NUMPY", SERIALIZE_NUMPY),
    ("OPT_SERIALIZE_PYDANTIC", SERIALIZE_PYDANTIC),
    ("OPT_SERIALIZE_UUID", SERIALIZE_UUID),
    ("OPT_SORT_KEYS", SORT_KEYS),
    ("OPT_STRICT_INTEGER", STRICT_INTEGER),
    ("OPT_UTC_Z", UTC_Z),
];

/// The union of every flag: any other bit is an error.
pub const MASK: Opt = {
    let mut mask = 0;
    let mut i = 0;
    while i < ALL.len() {
        mask |= ALL[i].1;
        i += 1;
    }
    mask
};

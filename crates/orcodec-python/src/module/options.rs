//! The `OPT_*` flags: one namespace for both formats.
//!
//! Flags orjson has keep orjson's values. The flags orjson lacks sit above
//! them, leaving free the two bits each peer documents as invalid (1 << 12,
//! orjson's first unused bit, and 1 << 16, ormsgpack's): an `option` a peer
//! refuses, orcodec refuses too. ormsgpack's own values collide with
//! orjson's, so its flags are used by name.

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
// 1 << 12: never a flag (orjson's first invalid bit).
pub const PASSTHROUGH_ENUM: Opt = 1 << 13;
pub const DATETIME_AS_TIMESTAMP_EXT: Opt = 1 << 14;
pub const REPLACE_SURROGATES: Opt = 1 << 15;
// 1 << 16: never a flag (ormsgpack's first invalid bit).
pub const PASSTHROUGH_TUPLE: Opt = 1 << 17;
pub const SERIALIZE_PYDANTIC: Opt = 1 << 18;
pub const PASSTHROUGH_UUID: Opt = 1 << 19;
pub const PASSTHROUGH_BIG_INT: Opt = 1 << 20;
pub const NUMPY_EXT: Opt = 1 << 21;
pub const NUMPY_ZERO_COPY: Opt = 1 << 22;
pub const MSGPACK_NUMPY: Opt = 1 << 23;
pub const OMIT_DEFAULTS: Opt = 1 << 24;
pub const OMIT_NONE: Opt = 1 << 25;
/// Not a flag users can give (no `OPT_` name, so `option` refuses it):
/// `orcodec.msgpack` packs map keys as values are packed, msgpack-python's
/// rule, so a key of a type the walker does not write goes to `default`.
pub const KEYS_AS_VALUES: Opt = 1 << 31;
/// Kept for compatibility with orjson: dataclasses and UUIDs are always serialized.
pub const SERIALIZE_DATACLASS: Opt = 0;
pub const SERIALIZE_UUID: Opt = 0;

/// Flags that only mean something for JSON; `packb` clears them so the
/// walker can test a flag without knowing the format.
pub const JSON_ONLY: Opt = INDENT_2 | APPEND_NEWLINE | STRICT_INTEGER;

// The table below says the same.
const _: () = {
    let mut json_only = 0;
    let mut i = 0;
    while i < ALL.len() {
        if ALL[i].uses == DUMPS {
            json_only |= ALL[i].value;
        }
        i += 1;
    }
    assert!(json_only == JSON_ONLY);
};

/// The functions a flag changes (a set of these bits).
pub type Uses = u8;
pub const DUMPS: Uses = 1;
pub const PACKB: Uses = 1 << 1;
pub const UNPACKB: Uses = 1 << 2;

/// The functions' names, in the order `orcodec.flags` lists them.
pub const FUNCTIONS: [(Uses, &str); 3] = [(DUMPS, "dumps"), (PACKB, "packb"), (UNPACKB, "unpackb")];

/// One flag as Python sees it: `orcodec.OPT_*`, and its entry in
/// `orcodec.flags` and in the module docstring.
pub struct Flag {
    pub name: &'static str,
    pub value: Opt,
    /// The functions it changes; none for the flags kept for compatibility.
    pub uses: Uses,
    /// What it does, in a sentence or two.
    pub description: &'static str,
}

const fn flag(name: &'static str, value: Opt, uses: Uses, description: &'static str) -> Flag {
    Flag { name, value, uses, description }
}

/// Every flag, as exported to Python: the one place their meaning is written.
pub const ALL: &[Flag] = &[
    flag("OPT_APPEND_NEWLINE", APPEND_NEWLINE, DUMPS, "Append a newline to the output."),
    flag(
        "OPT_DATETIME_AS_TIMESTAMP_EXT",
        DATETIME_AS_TIMESTAMP_EXT,
        PACKB | UNPACKB,
        "packb writes aware datetimes (naive ones too with OPT_NAIVE_UTC) as the MessagePack timestamp \
         extension (type -1) instead of RFC 3339 text; unpackb reads timestamps back as UTC datetimes \
         instead of passing them to ext_hook.",
    ),
    flag(
        "OPT_INDENT_2",
        INDENT_2,
        DUMPS,
        "Indent the output by two spaces per level, one item per line, with \": \" after keys.",
    ),
    flag(
        "OPT_MSGPACK_NUMPY",
        MSGPACK_NUMPY,
        PACKB | UNPACKB,
        "packb writes numpy arrays and scalars as msgpack-numpy's maps ({b\"nd\": ..., b\"type\": ..., \
         b\"shape\": ..., b\"data\": ...}) and complex numbers as its {b\"complex\": ...} maps, byte for \
         byte what msgpack_numpy.encode makes; unpackb turns such maps back into arrays, scalars and \
         complex numbers (their bytes keys are accepted) and refuses the object arrays msgpack-numpy \
         pickles. OPT_NUMPY_EXT wins in packb when both are given.",
    ),
    flag(
        "OPT_NAIVE_UTC",
        NAIVE_UTC,
        DUMPS | PACKB,
        "Treat naive datetimes and numpy datetime64 values as UTC: write them with a +00:00 offset \
         (or as timestamps with OPT_DATETIME_AS_TIMESTAMP_EXT).",
    ),
    flag(
        "OPT_NON_STR_KEYS",
        NON_STR_KEYS,
        DUMPS | PACKB | UNPACKB,
        "Allow dict keys that are not str: int, float, bool, None, datetime, date, time, UUID and enum \
         members, and for MessagePack also bytes and tuples. dumps writes them as JSON strings, packb \
         as MessagePack values; unpackb accepts map keys of any type but map (arrays become tuples).",
    ),
    flag(
        "OPT_NUMPY_EXT",
        NUMPY_EXT,
        PACKB | UNPACKB,
        "packb writes each numpy array and scalar (bool, int, uint, float16/32/64, complex64/128, \
         datetime64 and timedelta64 elements, any shape and memory layout) as one MessagePack extension \
         value of type 78 (or numpy_ext_code): a small header and the raw elements in C order; unpackb \
         reads those values back as arrays and scalars of the same dtype, shape and bits, importing numpy \
         when it meets the first one.",
    ),
    flag(
        "OPT_NUMPY_ZERO_COPY",
        NUMPY_ZERO_COPY,
        UNPACKB,
        "With OPT_NUMPY_EXT (or OPT_MSGPACK_NUMPY), unpackb returns read-only arrays that share the \
         input's memory instead of copying it; each array keeps the input alive, and a bytearray from \
         being resized. Without either of those flags unpackb raises.",
    ),
    flag(
        "OPT_OMIT_MICROSECONDS",
        OMIT_MICROSECONDS,
        DUMPS | PACKB,
        "Write datetimes and times without their microseconds.",
    ),
    flag(
        "OPT_OMIT_DEFAULTS",
        OMIT_DEFAULTS,
        DUMPS | PACKB,
        "Leave out the fields of dataclass instances (nested ones too) that equal their default (for a \
         default_factory: what the factory makes, called when the instance is written).",
    ),
    flag(
        "OPT_OMIT_NONE",
        OMIT_NONE,
        DUMPS | PACKB,
        "Leave out the fields of dataclass instances (nested ones too) that are None.",
    ),
    flag(
        "OPT_PASSTHROUGH_BIG_INT",
        PASSTHROUGH_BIG_INT,
        DUMPS | PACKB,
        "Pass ints outside -2**63 to 2**64-1 to default instead of raising.",
    ),
    flag(
        "OPT_PASSTHROUGH_DATACLASS",
        PASSTHROUGH_DATACLASS,
        DUMPS | PACKB,
        "Pass dataclass instances to default instead of writing their fields.",
    ),
    flag(
        "OPT_PASSTHROUGH_DATETIME",
        PASSTHROUGH_DATETIME,
        DUMPS | PACKB,
        "Pass datetime, date and time to default instead of writing them.",
    ),
    flag(
        "OPT_PASSTHROUGH_ENUM",
        PASSTHROUGH_ENUM,
        DUMPS | PACKB,
        "Pass enum members to default instead of writing their value.",
    ),
    flag(
        "OPT_PASSTHROUGH_SUBCLASS",
        PASSTHROUGH_SUBCLASS,
        DUMPS | PACKB,
        "Pass instances of subclasses of str, int, float, dict, list and tuple (and for MessagePack \
         of bytes and bytearray) to default instead of writing them as the base type.",
    ),
    flag(
        "OPT_PASSTHROUGH_TUPLE",
        PASSTHROUGH_TUPLE,
        DUMPS | PACKB,
        "Pass tuples to default instead of writing them as arrays.",
    ),
    flag(
        "OPT_PASSTHROUGH_UUID",
        PASSTHROUGH_UUID,
        DUMPS | PACKB,
        "Pass uuid.UUID instances to default instead of writing their text.",
    ),
    flag(
        "OPT_REPLACE_SURROGATES",
        REPLACE_SURROGATES,
        DUMPS | PACKB,
        "Write each lone surrogate in a str (a value or a key) as ? instead of raising.",
    ),
    flag(
        "OPT_SERIALIZE_DATACLASS",
        SERIALIZE_DATACLASS,
        0,
        "No effect (value 0), kept for compatibility with orjson: dataclasses are always serialized \
         unless OPT_PASSTHROUGH_DATACLASS.",
    ),
    flag(
        "OPT_SERIALIZE_NUMPY",
        SERIALIZE_NUMPY,
        DUMPS | PACKB,
        "Write numpy arrays (C-contiguous, in native byte order, of float, int, uint, bool or \
         datetime64 elements) as nested arrays, and numpy scalars as their value.",
    ),
    flag(
        "OPT_SERIALIZE_PYDANTIC",
        SERIALIZE_PYDANTIC,
        DUMPS | PACKB,
        "Write pydantic (v2) models as a map of their fields and extra fields, without aliases or \
         computed fields.",
    ),
    flag(
        "OPT_SERIALIZE_UUID",
        SERIALIZE_UUID,
        0,
        "No effect (value 0), kept for compatibility with orjson: UUIDs are always serialized unless \
         OPT_PASSTHROUGH_UUID.",
    ),
    flag(
        "OPT_SORT_KEYS",
        SORT_KEYS,
        DUMPS | PACKB,
        "Write dict entries in key order, in nested dicts too (dataclass and model fields keep their \
         order).",
    ),
    flag(
        "OPT_STRICT_INTEGER",
        STRICT_INTEGER,
        DUMPS,
        "Raise for ints outside -(2**53-1) to 2**53-1, which a reader that keeps numbers as doubles \
         (JavaScript) cannot hold exactly.",
    ),
    flag("OPT_UTC_Z", UTC_Z, DUMPS | PACKB, "Write a zero UTC offset as Z instead of +00:00."),
];

/// The union of the flags whose `uses` meet `uses`.
const fn mask_of(uses: Uses) -> Opt {
    let mut mask = 0;
    let mut i = 0;
    while i < ALL.len() {
        if ALL[i].uses & uses != 0 {
            mask |= ALL[i].value;
        }
        i += 1;
    }
    mask
}

/// What `dumps` and `packb` accept: every flag (the decoding-only ones
/// too), so that one `option` value can be given to both and to the
/// encoding half of a round trip (a flag that means nothing to a function
/// is ignored by it); any other bit is an error.
pub const ENCODE_MASK: Opt = mask_of(DUMPS | PACKB | UNPACKB);

/// What `unpackb` accepts: only the flags that change decoding, as
/// ormsgpack's `unpackb` (it refuses its encoding flags).
pub const UNPACKB_MASK: Opt = mask_of(UNPACKB);

// The bits the peers refuse stay free.
const _: () = assert!(ENCODE_MASK & (1 << 12 | 1 << 16) == 0);
// An option a user gives can never turn on what is only `orcodec.msgpack`'s.
const _: () = assert!(ENCODE_MASK & KEYS_AS_VALUES == 0);

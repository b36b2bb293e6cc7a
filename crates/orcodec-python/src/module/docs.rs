//! The docstrings of the module, its functions, classes and exceptions, in
//! one place. A function's (and a class's) starts with its signature line
//! and `--`, which CPython turns into `__text_signature__` and strips from
//! `__doc__`. The flags' texts are in the flag table (`options.rs`).
//!
//! `python/orcodec/__init__.pyi` carries the same texts for editors and type
//! checkers; the test suite checks that they stay equal.

use core::ffi::CStr;

pub const MODULE: &CStr = c"Fast, correct JSON and MessagePack from one Rust core.

dumps and loads write and read JSON like orjson; packb and unpackb write
and read MessagePack like ormsgpack. Both formats share one set of OPT_*
flags and one default hook. help() on each function says what it accepts,
returns and raises.

loads and unpackb also decode into declared types (type=...), checking
the data as they read it; convert does the same for Python objects, and
Decoder compiles a type once for repeated use.

Classes: Fragment (already-encoded output), Ext (a MessagePack extension
value), Decoder. Exceptions: JSONEncodeError, JSONDecodeError,
MsgpackEncodeError, MsgpackDecodeError, ValidationError.";

pub const DUMPS: &CStr = c"dumps(obj, /, default=None, option=None)
--

Serialize obj to JSON, returned as bytes (UTF-8, compact unless
OPT_INDENT_2). Behaves like orjson.dumps.

obj may be made of str, int (from -2**63 to 2**64-1), float, bool, None,
dict, list, tuple, dataclass instances, datetime, date and time (as RFC
3339 text), uuid.UUID, enum members (as their value), orcodec.Fragment
(copied as it is), subclasses of str, int, float, dict, list and tuple,
numpy arrays and scalars (with OPT_SERIALIZE_NUMPY) and pydantic models
(with OPT_SERIALIZE_PYDANTIC). Dict keys must be str unless
OPT_NON_STR_KEYS.

default: called as default(value) for a value of any other type; what it
returns is serialized in its place (at most 254 nested calls). None: no
hook.
option: None, or an int of OPT_* flags combined with |. The flags that
change what dumps does:
    OPT_APPEND_NEWLINE, OPT_INDENT_2, OPT_NAIVE_UTC, OPT_NON_STR_KEYS,
    OPT_OMIT_MICROSECONDS, OPT_PASSTHROUGH_BIG_INT,
    OPT_PASSTHROUGH_DATACLASS, OPT_PASSTHROUGH_DATETIME,
    OPT_PASSTHROUGH_ENUM, OPT_PASSTHROUGH_SUBCLASS, OPT_PASSTHROUGH_TUPLE,
    OPT_PASSTHROUGH_UUID, OPT_REPLACE_SURROGATES, OPT_SERIALIZE_NUMPY,
    OPT_SERIALIZE_PYDANTIC, OPT_SORT_KEYS, OPT_STRICT_INTEGER, OPT_UTC_Z
The others are accepted and ignored. orcodec.flags says what each does.

Raises JSONEncodeError (a TypeError) for a value of a type it cannot
serialize when there is no default, or when default raises (that
exception is the __cause__); for a str with a lone surrogate, an int out
of range, a dict key that is not str, nesting deeper than 255 levels (a
container that contains itself), a dict or list changed while it is
serialized, a time with a tzinfo, and an option that is not made of
flags.";

pub const LOADS: &CStr = c"loads(obj, /, *, type=None, strict=True, dec_hook=None)
--

Deserialize JSON text (RFC 8259) given as bytes, bytearray, memoryview
or str. Behaves like orjson.loads.

Returns the value the text holds: dict, list, str, int, float, bool or
None; with type, a value of that type (dataclasses, TypedDicts,
NamedTuples, enums, datetimes, UUIDs, Decimals, containers of them...),
checked while it is read.

type: the type to decode into (None: untyped, as orjson). Compiled types
are cached. strict: False allows lax conversions (numeric text to
numbers, 0 and 1 to bool...). dec_hook: called as dec_hook(type, value)
for a type orcodec does not know, value decoded as builtins.

Raises JSONDecodeError (a json.JSONDecodeError, so a ValueError) for text
that is not JSON or not UTF-8, that holds more than one value or nests
deeper than 1024 levels, for a str with a lone surrogate, and for input
of another type. Its msg says what is wrong; pos, lineno and colno say
where. Raises ValidationError (also a JSONDecodeError) for JSON that
does not fit type; its path attribute says where (e.g. $.items[3].qty).";

pub const PACKB: &CStr = c"packb(obj, /, default=None, option=None, *, numpy_ext_code=None)
--

Serialize obj to MessagePack, returned as bytes. Behaves like
ormsgpack.packb.

obj may be made of everything dumps takes, and of bytes, bytearray and
memoryview (written as bin) and orcodec.Ext (an extension value). Dict
keys must be str unless OPT_NON_STR_KEYS.

default: called as default(value) for a value of any other type; what it
returns is serialized in its place (at most 254 nested calls). None: no
hook.
option: None, or an int of OPT_* flags combined with |. The flags that
change what packb does:
    OPT_DATETIME_AS_TIMESTAMP_EXT, OPT_MSGPACK_NUMPY, OPT_NAIVE_UTC,
    OPT_NON_STR_KEYS, OPT_NUMPY_EXT, OPT_OMIT_MICROSECONDS,
    OPT_PASSTHROUGH_BIG_INT, OPT_PASSTHROUGH_DATACLASS,
    OPT_PASSTHROUGH_DATETIME, OPT_PASSTHROUGH_ENUM,
    OPT_PASSTHROUGH_SUBCLASS, OPT_PASSTHROUGH_TUPLE, OPT_PASSTHROUGH_UUID,
    OPT_REPLACE_SURROGATES, OPT_SERIALIZE_NUMPY, OPT_SERIALIZE_PYDANTIC,
    OPT_SORT_KEYS, OPT_UTC_Z
The others are accepted and ignored. orcodec.flags says what each does.
numpy_ext_code: the extension type numpy arrays are written as with
OPT_NUMPY_EXT, an int from 0 to 127. None: 78.

Raises MsgpackEncodeError (a TypeError) where dumps raises
JSONEncodeError, and for a container or bytes longer than 2**32-1, an Ext
tag outside 0 to 127, a Fragment that holds str, a numpy array whose dtype
has no binary form (with no default), and a numpy_ext_code outside 0 to
127.";

pub const UNPACKB: &CStr =
    c"unpackb(obj, /, *, ext_hook=None, option=None, numpy_ext_code=None, type=None, strict=True, dec_hook=None)
--

Deserialize one MessagePack value given as bytes, bytearray or
memoryview. Behaves like ormsgpack.unpackb.

Returns the value: dict, list, str, int, float, bool, None or bytes (for
bin), with what ext_hook returns in place of each extension value; with
type, a value of that type, checked while it is read (as loads does).

ext_hook: called as ext_hook(tag, data) for each extension value (tag an
int from -128 to 127, data bytes); what it returns takes the value's
place. None: an extension value raises.
option: None, or an int of OPT_* flags combined with |. The flags that
change what unpackb does:
    OPT_DATETIME_AS_TIMESTAMP_EXT: timestamps become UTC datetimes.
    OPT_MSGPACK_NUMPY: msgpack-numpy's maps become numpy arrays.
    OPT_NON_STR_KEYS: map keys of any type but map (arrays become tuples).
    OPT_NUMPY_EXT: numpy extension values become numpy arrays.
    OPT_NUMPY_ZERO_COPY: those arrays share the input's memory, read-only.
The others are accepted and ignored.
numpy_ext_code: the extension type read as numpy arrays with
OPT_NUMPY_EXT, an int from 0 to 127. None: 78.
type, strict, dec_hook: as for loads.

Raises MsgpackDecodeError (a ValueError) for data that is not MessagePack,
ends early or goes on after the value, nests deeper than 1024 levels, has
a map key that is not str or cannot be hashed, an extension value with no
ext_hook, a timestamp outside datetime's years, or a numpy value that is
not valid (or needs numpy, which cannot be imported); for an ext_hook that
is not callable or that raises (that exception is the __cause__); for
input of another type, for an option that is not made of flags or asks
for zero-copy arrays without a form to read them from, and for a
numpy_ext_code outside 0 to 127. For data that is not MessagePack, the
message says at which byte. Raises ValidationError (also a
MsgpackDecodeError) for data that does not fit type.";

pub const FRAGMENT: &CStr = c"Fragment(contents, /)
--

Already-encoded output, copied as it is wherever it appears in what is
serialized: JSON text (bytes or str) for dumps, MessagePack bytes for
packb. Nothing checks that it is valid.

Raises TypeError for contents that are neither bytes nor str. packb
raises MsgpackEncodeError for a Fragment that holds str.";

pub const FRAGMENT_CONTENTS: &CStr = c"The encoded content (bytes or str).";

pub const EXT: &CStr = c"Ext(tag, data, /)
--

A MessagePack extension value: packb writes it as the extension of type
tag with payload data (dumps passes it to default). Give Ext as unpackb's
ext_hook to get extension values back as Ext objects. Two Ext objects are
equal when their tag and data are; they are hashable.

Raises TypeError when tag is not an int or data not bytes. packb raises
MsgpackEncodeError for a tag outside 0 to 127.";

pub const EXT_TAG: &CStr = c"The extension type (0 to 127 to encode).";

pub const EXT_DATA: &CStr = c"The payload (bytes).";

pub const JSON_ENCODE_ERROR: &CStr = c"Raised by dumps for an object it cannot serialize. A subclass of
TypeError. When default (or a tzinfo's utcoffset()) raised, that exception
is the __cause__.";

pub const JSON_DECODE_ERROR: &CStr = c"Raised by loads for input that is not valid JSON. A subclass of
json.JSONDecodeError (so of ValueError): msg says what is wrong; doc, pos,
lineno and colno say where.";

pub const MSGPACK_ENCODE_ERROR: &CStr = c"Raised by packb for an object it cannot serialize. A subclass of
TypeError. When default (or a tzinfo's utcoffset()) raised, that exception
is the __cause__.";

pub const MSGPACK_DECODE_ERROR: &CStr = c"Raised by unpackb for input that is not valid MessagePack (the message
says at which byte) and for arguments it cannot use. A subclass of
ValueError. When ext_hook raised, that exception is the __cause__.";

pub const CONVERT: &CStr = c"convert(obj, type, *, strict=True, dec_hook=None)
--

Validate and convert Python objects already in memory (from YAML, TOML,
a form, an ORM row) into type, as loads(..., type=type) does for JSON:
dicts become dataclasses, TypedDicts or attrs classes, lists NamedTuples
or tuples, RFC 3339 text datetimes, and so on. A value that already has
the target type is returned as it is.

strict, dec_hook: as for loads.

Raises ValidationError (a ValueError) for objects that do not fit type,
and TypeError for a type orcodec cannot decode into.";

pub const DECODER: &CStr = c"Decoder(type, *, strict=True, dec_hook=None, forbid_unknown_fields=False)
--

A type compiled once, for decoding into it many times: .loads(data)
for JSON, .unpackb(data) for MessagePack, .convert(obj) for Python
objects. strict and dec_hook are as for loads; forbid_unknown_fields
makes a key that is no field of a dataclass, attrs class or TypedDict
an error (they are skipped otherwise).

Raises TypeError for a type orcodec cannot decode into (an ambiguous
union, say) when it is created.";

pub const DECODER_LOADS: &CStr = c"loads(obj, /)
--

Decode JSON into the Decoder's type (see orcodec.loads).";

pub const DECODER_UNPACKB: &CStr = c"unpackb(obj, /, *, ext_hook=None, option=None)
--

Decode MessagePack into the Decoder's type (see orcodec.unpackb).";

pub const DECODER_CONVERT: &CStr = c"convert(obj, /)
--

Convert Python objects into the Decoder's type (see orcodec.convert).";

pub const DECODER_TYPE: &CStr = c"The type decoded into.";

pub const DECODER_STRICT: &CStr = c"False when lax conversions are allowed.";

pub const DECODER_DEC_HOOK: &CStr = c"The hook for unknown types, or None.";

pub const DECODER_FORBID: &CStr = c"Whether unknown fields are errors.";

pub const VALIDATION_ERROR: &CStr = c"Raised when data is well-formed but does not fit the type it is decoded
into. A subclass of ValueError; raised by loads it is also a
JSONDecodeError, raised by unpackb also a MsgpackDecodeError. str(e) says
what is wrong and where; path is the location ($.items[3].qty). When a
dec_hook or __post_init__ rejected the value, its exception is the
__cause__.";

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
    OPT_OMIT_DEFAULTS, OPT_OMIT_MICROSECONDS, OPT_OMIT_NONE,
    OPT_PASSTHROUGH_BIG_INT,
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

pub const LOADS: &CStr = c"loads(obj, /, *, type=None, strict=True, dec_hook=None, partial=None, pointer=None)
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
partial: True or \"trailing-strings\" reads text cut off anywhere (JSON
still arriving) as far as it is complete, as jiter's partial_mode: open
containers are closed, an incomplete entry or item dropped, an
unterminated string dropped or, with \"trailing-strings\", kept as far as it
goes. With type, what was read is validated as a whole document would be.
pointer: a JSON Pointer (RFC 6901, e.g. \"/items/0/name\"): only the value
it leads to is built (decoded into type, if given); the values before it
are checked and skipped, those after it are not read. A path that does
not exist raises JSONDecodeError at the value where the lookup stopped.

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
    OPT_NON_STR_KEYS, OPT_NUMPY_EXT, OPT_OMIT_DEFAULTS,
    OPT_OMIT_MICROSECONDS, OPT_OMIT_NONE, OPT_PASSTHROUGH_BIG_INT,
    OPT_PASSTHROUGH_DATACLASS,
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
    c"unpackb(obj, /, *, ext_hook=None, option=None, numpy_ext_code=None, type=None, strict=True, dec_hook=None, pointer=None)
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
pointer: a JSON Pointer to the value to decode, as for loads (map keys
are matched when they are str); a path that does not exist raises
MsgpackDecodeError, whose pos is where the lookup stopped.

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
packb. dumps does not check that it is valid JSON (as orjson); packb
checks that it is exactly one MessagePack value (as ormsgpack).

Like orjson's, it takes any content when made: dumps and packb raise
their encode error for content that is neither bytes nor str, packb
also for str and for bytes that are not one MessagePack value.";

pub const FRAGMENT_CONTENTS: &CStr = c"The encoded content (bytes or str to be written).";

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

pub const MSGPACK_DECODE_ERROR: &CStr = c"Raised by unpackb for input that is not valid MessagePack and for
options it cannot use, with ormsgpack's messages. A subclass of ValueError.
pos is the byte offset of the problem (None when there is none); a note
says more. When ext_hook raised, that exception is the __cause__.";

pub const JSON_INPUT_TYPE_ERROR: &CStr = c"Raised by loads for input of a type it does not read (neither bytes,
bytearray, memoryview nor str): a JSONDecodeError, as orjson raises, and a
TypeError. For a file object a note says to pass its contents.";

pub const MSGPACK_INPUT_TYPE_ERROR: &CStr = c"Raised by unpackb for input of a type it does not read (neither bytes,
bytearray nor memoryview): a MsgpackDecodeError, as ormsgpack raises, and a
TypeError. For a file object a note says to pass its contents.";

pub const JSON_TO_MSGPACK: &CStr = c"json_to_msgpack(data, /)
--

Convert JSON text to MessagePack with no Python objects in between: the
bytes packb(loads(data)) returns, faster.

data: bytes, bytearray, memoryview or str, as loads takes it. It is
checked as loads checks it (UTF-8, grammar, nesting), and a key repeated
in an object keeps its first place and takes its last value, as in the
dict loads makes.

Raises JSONDecodeError where loads raises it (same message and
position), and MsgpackEncodeError where packb would (nesting deeper than
255 levels).";

pub const MSGPACK_TO_JSON: &CStr = c"msgpack_to_json(data, /, *, option=None, base64=False)
--

Convert MessagePack to JSON text with no Python objects in between: the
bytes dumps(unpackb(data, ext_hook=Ext, option=read), option=option)
returns, faster, where read is option's flags that unpackb takes
(OPT_NON_STR_KEYS, OPT_DATETIME_AS_TIMESTAMP_EXT).

data: bytes, bytearray or memoryview, as unpackb takes it. It is checked
as unpackb checks it, and a map key repeated keeps its first place and
takes its last value, as in the dict unpackb makes.
option: None, or an int of OPT_* flags combined with |, read by both
halves: OPT_NON_STR_KEYS (map keys of any type but map, written as dumps
writes such keys), OPT_DATETIME_AS_TIMESTAMP_EXT (timestamps written as
RFC 3339 text, with OPT_UTC_Z and OPT_OMIT_MICROSECONDS), OPT_INDENT_2,
OPT_SORT_KEYS, OPT_STRICT_INTEGER, OPT_APPEND_NEWLINE.
base64: if true, bin values are written as their base64 text (RFC 4648,
with padding) and extension values as {\"tag\": tag, \"data\": base64
text}; if false, both raise JSONEncodeError, as dumps does.

Raises MsgpackDecodeError where unpackb raises it (same message), and
JSONEncodeError where dumps would.";

pub const DUMPS_LINES: &CStr = c"dumps_lines(iterable, /, *, default=None, option=None)
--

Serialize each item of iterable as JSON Lines: one compact document per
line, each followed by a newline, returned as bytes. An empty iterable
gives b''.

default and option: as for dumps; OPT_INDENT_2 and OPT_APPEND_NEWLINE
are ignored (a line is never indented and always ends with a newline).

Raises JSONEncodeError where dumps would for an item; an exception the
iterable raises goes through as it is.";

pub const LOADS_LINES: &CStr = c"loads_lines(data, /, *, type=None, strict=True, dec_hook=None)
--

Deserialize JSON Lines given as bytes, bytearray, memoryview or str: a
list of the documents, one per line. Lines end with \\n (a \\r before it is
ignored); lines of only whitespace are skipped; the last line needs no
newline.
type, strict, dec_hook: as for loads; each line is decoded into type.

Raises JSONDecodeError for a line that is not one JSON document: doc is
that line, pos the character in it, lineno the line's number in data
(from 1) and colno its column. A line that does not fit type raises
ValidationError, whose lineno is the line's number.";

pub const ITER_LINES: &CStr = c"iter_lines(fp, /, *, read_size=None, type=None, strict=True, dec_hook=None)
--

Iterate over the documents of the JSON Lines file fp, one per line,
reading fp.read(read_size) at a time (1 MiB when None): memory holds one
chunk and the longest line, so files larger than memory can be read. fp
is a binary file-like (or a text one, whose str chunks are read as
UTF-8). Lines are read as loads_lines reads them, into type if given.

Raises JSONDecodeError for a line that is not one JSON document (lineno:
its number in the file), TypeError when fp has no read method, and what
fp.read raises.";

pub const LINE_ITERATOR: &CStr = c"An iterator over the documents of a JSON Lines file (see iter_lines).";

pub const UNPACKER: &CStr =
    c"Unpacker(file_like=None, *, read_size=0, max_buffer_size=104857600, ext_hook=None, option=None, numpy_ext_code=None, type=None, strict=True, dec_hook=None)
--

A streaming MessagePack reader, like msgpack.Unpacker: feed it bytes in
pieces of any size (or give it a file-like to read), and take the values
out one by one as they are complete.

    unpacker = Unpacker()
    for chunk in chunks:
        unpacker.feed(chunk)
        for obj in unpacker:  # every complete value so far
            handle(obj)

file_like: an object whose read(n) returns bytes; the unpacker reads it
read_size bytes at a time (16 KiB when 0) when it needs more. None: feed
it instead.
max_buffer_size: the most bytes held that are not consumed (0: 2**31-1).
feed raises BufferFull past it; a value that cannot fit raises
MsgpackDecodeError.
ext_hook, option, numpy_ext_code: as for unpackb (numpy arrays too).
type, strict, dec_hook: as for unpackb: each value is decoded into type
(ValidationError when it does not fit).

Iterating yields every complete value and stops at an incomplete tail,
which later feeds complete. Each value is what unpackb returns for its
bytes; a value that is not MessagePack raises MsgpackDecodeError with its
offset in the stream, and the next call goes on after it (a reserved
byte or nesting deeper than 1024 levels ends the stream: every later call
raises again).";

pub const UNPACKER_FEED: &CStr = c"feed($self, next_bytes, /)
--

Append next_bytes (bytes or any buffer) to what is to be read. Raises
BufferFull when the bytes held would pass max_buffer_size (nothing is
appended), and AssertionError when the unpacker reads a file_like.";

pub const UNPACKER_UNPACK: &CStr = c"unpack($self, /)
--

Return the next value. Raises OutOfData when no complete value is held
(and file_like, if any, has no more bytes).";

pub const UNPACKER_SKIP: &CStr = c"skip($self, /)
--

Pass over the next value, checked but not built. Raises OutOfData as
unpack does.";

pub const UNPACKER_TELL: &CStr = c"tell($self, /)
--

The number of bytes of the stream consumed so far: the offset of the
next value.";

pub const PACKER: &CStr = c"Packer(*, default=None, option=None, numpy_ext_code=None)
--

A MessagePack writer with its options given once, like msgpack.Packer:
pack(obj) returns what packb(obj, default=default, option=option,
numpy_ext_code=numpy_ext_code) does.

Raises TypeError when default is not callable, and MsgpackEncodeError
for an option that is not made of flags.";

pub const PACKER_PACK: &CStr = c"pack($self, obj, /)
--

Serialize obj to MessagePack bytes, as packb does with the packer's
default and option.";

pub const PACKER_ARRAY_HEADER: &CStr = c"pack_array_header($self, n, /)
--

The header of an array of n items (the items are packed after it, one
by one). Raises ValueError for n outside 0 to 2**32-1.";

pub const PACKER_MAP_HEADER: &CStr = c"pack_map_header($self, n, /)
--

The header of a map of n entries (each key and value are packed after
it, one by one). Raises ValueError for n outside 0 to 2**32-1.";

pub const OUT_OF_DATA: &CStr = c"Raised by Unpacker.unpack and skip when no complete value is held, as
msgpack.OutOfData is.";

pub const BUFFER_FULL: &CStr = c"Raised by Unpacker when the bytes it holds would pass max_buffer_size,
as msgpack.BufferFull is.";

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

pub const DECODER_LOADS: &CStr = c"loads(obj, /, *, partial=False, pointer=None)
--

Decode JSON into the Decoder's type (see orcodec.loads): partial reads a
document cut off anywhere as far as it is complete, pointer (a JSON Pointer)
decodes only the value it leads to.";

pub const DECODER_UNPACKB: &CStr = c"unpackb(obj, /, *, ext_hook=None, option=None, pointer=None)
--

Decode MessagePack into the Decoder's type (see orcodec.unpackb): pointer (a
JSON Pointer) decodes only the value it leads to.";

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

pub const JSON_ENCODE: &CStr = c"_json_encode(obj, default, skipkeys, ensure_ascii, check_circular, allow_nan, sort_keys, indent, key_separator, item_separator, py_messages, /)
--

The encoder of orcodec.json (private: call orcodec.json.dumps). Writes obj
as the standard library's json module does, into a str.";

pub const JSON_LOADS: &CStr = c"_json_loads(s, /)
--

The fast path of orcodec.json.loads (private: call orcodec.json.loads). The
value of JSON text s, or NotImplemented when the standard library's decoder
must read it (its extensions, its error messages).";

pub const JSON_UNPACKER: &CStr =
    c"JSONUnpacker(file_like=None, *, read_size=16384, max_buffer_size=104857600, type=None, strict=True, dec_hook=None)
--

A reader of JSON values one after another (JSON Lines, values separated by
whitespace, or by nothing where they delimit themselves: {}[]\"x\"), fed in
pieces of any size with feed(), or read from file_like (anything with
read(n) returning bytes) read_size bytes at a time. Iterating yields every
complete value and stops at an incomplete tail; unpack() returns the next
value or raises OutOfData; tell() is the number of bytes consumed, the end
of the last value returned. A number at the end of the bytes so far waits
for more (it may continue), unless file_like's read returned b\"\".

Each value is what loads returns for its text, into type (with strict and
dec_hook) if given. A value that is not valid JSON raises JSONDecodeError
about that value (a note gives its offset in the stream) and is consumed.
max_buffer_size (0: 2**31-1) bounds the bytes held that are not consumed:
feed() raises BufferFull rather than pass it, as does reading a value
larger than it from file_like.";

pub const JSON_UNPACKER_FEED: &CStr = c"feed($self, next_bytes, /)
--

Append next_bytes (bytes or any buffer) to what is to be read. Raises
BufferFull when the bytes held would pass max_buffer_size (nothing is
appended), and TypeError when the reader reads a file_like.";

pub const JSON_UNPACKER_UNPACK: &CStr = c"unpack($self, /)
--

Return the next value. Raises OutOfData when no complete value is held
(and file_like, if any, has no more bytes).";

pub const JSON_UNPACKER_TELL: &CStr = c"tell($self, /)
--

The number of bytes of the stream consumed so far: the end of the last
value returned (or that failed to decode).";

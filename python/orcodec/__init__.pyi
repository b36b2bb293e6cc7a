import builtins
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Callable, Generic, Literal, NamedTuple, TypeVar, final, overload

from _typeshed import SupportsRead, SupportsWrite

_T = TypeVar("_T")
_C = TypeVar("_C", bound=type)

__version__: str

class FlagInfo(NamedTuple):
    """One OPT_* flag: its name and value, the formats and the functions whose
    behaviour it changes (empty for the flags kept only for compatibility), and
    what it does.
    """

    name: str
    value: int
    formats: tuple[str, ...]
    functions: tuple[str, ...]
    description: str

flags: Mapping[str, FlagInfo]
"""Every OPT_* flag by name: its value, the formats and functions it changes, and what it does."""

@final
class Fragment:
    """Already-encoded output, copied as it is wherever it appears in what is
    serialized: JSON text (bytes or str) for dumps, MessagePack bytes for
    packb. dumps does not check that it is valid JSON (as orjson); packb
    checks that it is exactly one MessagePack value (as ormsgpack).

    Like orjson's, it takes any content when made: dumps and packb raise
    their encode error for content that is neither bytes nor str, packb
    also for str and for bytes that are not one MessagePack value.
    """

    @property
    def contents(self) -> bytes | str:
        """The encoded content (bytes or str to be written)."""
    def __new__(cls, contents: bytes | str, /) -> Fragment: ...

@final
class Ext:
    """A MessagePack extension value: packb writes it as the extension of type
    tag with payload data (dumps passes it to default). Give Ext as unpackb's
    ext_hook to get extension values back as Ext objects. Two Ext objects are
    equal when their tag and data are; they are hashable.

    Raises TypeError when tag is not an int or data not bytes. packb raises
    MsgpackEncodeError for a tag outside 0 to 127.
    """

    @property
    def tag(self) -> int:
        """The extension type (0 to 127 to encode)."""
    @property
    def data(self) -> bytes:
        """The payload (bytes)."""
    def __new__(cls, tag: int, data: bytes, /) -> Ext: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def dumps(
    obj: Any,
    /,
    default: Callable[[Any], Any] | None = ...,
    option: int | None = ...,
) -> bytes:
    """Serialize obj to JSON, returned as bytes (UTF-8, compact unless
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
    flags.
    """

@overload
def loads(
    obj: bytes | bytearray | memoryview | str,
    /,
    *,
    type: None = ...,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
    partial: bool | Literal["on", "off", "trailing-strings"] | None = ...,
    pointer: str | None = ...,
) -> Any: ...
@overload
def loads(
    obj: bytes | bytearray | memoryview | str,
    /,
    *,
    type: type[_T],
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
    partial: bool | Literal["on", "off", "trailing-strings"] | None = ...,
    pointer: str | None = ...,
) -> _T: ...
@overload
def loads(
    obj: bytes | bytearray | memoryview | str,
    /,
    *,
    type: Any,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
    partial: bool | Literal["on", "off", "trailing-strings"] | None = ...,
    pointer: str | None = ...,
) -> Any:
    """Deserialize JSON text (RFC 8259) given as bytes, bytearray, memoryview
    or str. Behaves like orjson.loads.

    Returns the value the text holds: dict, list, str, int, float, bool or
    None; with type, a value of that type (dataclasses, TypedDicts,
    NamedTuples, enums, datetimes, UUIDs, Decimals, containers of them...),
    checked while it is read.

    type: the type to decode into (None: untyped, as orjson). Compiled types
    are cached. strict: False allows lax conversions (numeric text to
    numbers, 0 and 1 to bool...). dec_hook: called as dec_hook(type, value)
    for a type orcodec does not know, value decoded as builtins.
    partial: True or "trailing-strings" reads text cut off anywhere (JSON
    still arriving) as far as it is complete, as jiter's partial_mode: open
    containers are closed, an incomplete entry or item dropped, an
    unterminated string dropped or, with "trailing-strings", kept as far as it
    goes. With type, what was read is validated as a whole document would be.
    pointer: a JSON Pointer (RFC 6901, e.g. "/items/0/name"): only the value
    it leads to is built (decoded into type, if given); the values before it
    are checked and skipped, those after it are not read. A path that does
    not exist raises JSONDecodeError at the value where the lookup stopped.

    Raises JSONDecodeError (a json.JSONDecodeError, so a ValueError) for text
    that is not JSON or not UTF-8, that holds more than one value or nests
    deeper than 1024 levels, for a str with a lone surrogate, and for input
    of another type. Its msg says what is wrong; pos, lineno and colno say
    where. Raises ValidationError (also a JSONDecodeError) for JSON that
    does not fit type; its path attribute says where (e.g. $.items[3].qty).
    """

def packb(
    obj: Any,
    /,
    default: Callable[[Any], Any] | None = ...,
    option: int | None = ...,
    *,
    numpy_ext_code: int | None = ...,
) -> bytes:
    """Serialize obj to MessagePack, returned as bytes. Behaves like
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
    127.
    """

@overload
def unpackb(
    obj: bytes | bytearray | memoryview,
    /,
    *,
    ext_hook: Callable[[int, bytes], Any] | None = ...,
    option: int | None = ...,
    numpy_ext_code: int | None = ...,
    type: None = ...,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
    pointer: str | None = ...,
) -> Any: ...
@overload
def unpackb(
    obj: bytes | bytearray | memoryview,
    /,
    *,
    ext_hook: Callable[[int, bytes], Any] | None = ...,
    option: int | None = ...,
    numpy_ext_code: int | None = ...,
    type: type[_T],
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
    pointer: str | None = ...,
) -> _T: ...
@overload
def unpackb(
    obj: bytes | bytearray | memoryview,
    /,
    *,
    ext_hook: Callable[[int, bytes], Any] | None = ...,
    option: int | None = ...,
    numpy_ext_code: int | None = ...,
    type: Any,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
    pointer: str | None = ...,
) -> Any:
    """Deserialize one MessagePack value given as bytes, bytearray or
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
    MsgpackDecodeError) for data that does not fit type.
    """

@overload
def convert(
    obj: Any,
    type: type[_T],
    *,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
) -> _T: ...
@overload
def convert(
    obj: Any,
    type: Any,
    *,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
) -> Any:
    """Validate and convert Python objects already in memory (from YAML, TOML,
    a form, an ORM row) into type, as loads(..., type=type) does for JSON:
    dicts become dataclasses, TypedDicts or attrs classes, lists NamedTuples
    or tuples, RFC 3339 text datetimes, and so on. A value that already has
    the target type is returned as it is.

    strict, dec_hook: as for loads.

    Raises ValidationError (a ValueError) for objects that do not fit type,
    and TypeError for a type orcodec cannot decode into.
    """

class Decoder(Generic[_T]):
    """A type compiled once, for decoding into it many times: .loads(data)
    for JSON, .unpackb(data) for MessagePack, .convert(obj) for Python
    objects. strict and dec_hook are as for loads; forbid_unknown_fields
    makes a key that is no field of a dataclass, attrs class or TypedDict
    an error (they are skipped otherwise).

    Raises TypeError for a type orcodec cannot decode into (an ambiguous
    union, say) when it is created.
    """

    @property
    def type(self) -> Any:
        """The type decoded into."""
    @property
    def strict(self) -> bool:
        """False when lax conversions are allowed."""
    @property
    def dec_hook(self) -> Callable[[Any, Any], Any] | None:
        """The hook for unknown types, or None."""
    @property
    def forbid_unknown_fields(self) -> bool:
        """Whether unknown fields are errors."""
    @overload
    def __new__(
        cls,
        type: builtins.type[_T],
        /,
        *,
        strict: bool = ...,
        dec_hook: Callable[[Any, Any], Any] | None = ...,
        forbid_unknown_fields: bool = ...,
    ) -> Decoder[_T]: ...
    @overload
    def __new__(
        cls,
        type: Any,
        /,
        *,
        strict: bool = ...,
        dec_hook: Callable[[Any, Any], Any] | None = ...,
        forbid_unknown_fields: bool = ...,
    ) -> Decoder[Any]: ...
    def loads(
        self,
        obj: bytes | bytearray | memoryview | str,
        /,
        *,
        partial: bool | Literal["on", "off", "trailing-strings"] | None = ...,
        pointer: str | None = ...,
    ) -> _T:
        """Decode JSON into the Decoder's type (see orcodec.loads): partial reads a
        document cut off anywhere as far as it is complete, pointer (a JSON Pointer)
        decodes only the value it leads to."""
    def unpackb(
        self,
        obj: bytes | bytearray | memoryview,
        /,
        *,
        ext_hook: Callable[[int, bytes], Any] | None = ...,
        option: int | None = ...,
        pointer: str | None = ...,
    ) -> _T:
        """Decode MessagePack into the Decoder's type (see orcodec.unpackb): pointer (a
        JSON Pointer) decodes only the value it leads to."""
    def convert(self, obj: Any, /) -> _T:
        """Convert Python objects into the Decoder's type (see orcodec.convert)."""
    def __class_getitem__(cls, item: Any, /) -> Any: ...

def json_to_msgpack(data: bytes | bytearray | memoryview | str, /) -> bytes:
    """Convert JSON text to MessagePack with no Python objects in between: the
    bytes packb(loads(data)) returns, faster.

    data: bytes, bytearray, memoryview or str, as loads takes it. It is
    checked as loads checks it (UTF-8, grammar, nesting), and a key repeated
    in an object keeps its first place and takes its last value, as in the
    dict loads makes.

    Raises JSONDecodeError where loads raises it (same message and
    position), and MsgpackEncodeError where packb would (nesting deeper than
    255 levels).
    """

def msgpack_to_json(
    data: bytes | bytearray | memoryview,
    /,
    *,
    option: int | None = ...,
    base64: bool = ...,
) -> bytes:
    """Convert MessagePack to JSON text with no Python objects in between: the
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
    with padding) and extension values as {"tag": tag, "data": base64
    text}; if false, both raise JSONEncodeError, as dumps does.

    Raises MsgpackDecodeError where unpackb raises it (same message), and
    JSONEncodeError where dumps would.
    """

def dumps_lines(
    iterable: Iterable[Any],
    /,
    *,
    default: Callable[[Any], Any] | None = ...,
    option: int | None = ...,
) -> bytes:
    """Serialize each item of iterable as JSON Lines: one compact document per
    line, each followed by a newline, returned as bytes. An empty iterable
    gives b''.

    default and option: as for dumps; OPT_INDENT_2 and OPT_APPEND_NEWLINE
    are ignored (a line is never indented and always ends with a newline).

    Raises JSONEncodeError where dumps would for an item; an exception the
    iterable raises goes through as it is.
    """

@overload
def loads_lines(
    data: bytes | bytearray | memoryview | str,
    /,
    *,
    type: None = ...,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
) -> list[Any]: ...
@overload
def loads_lines(
    data: bytes | bytearray | memoryview | str,
    /,
    *,
    type: type[_T],
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
) -> list[_T]: ...
@overload
def loads_lines(
    data: bytes | bytearray | memoryview | str,
    /,
    *,
    type: Any,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
) -> list[Any]:
    """Deserialize JSON Lines given as bytes, bytearray, memoryview or str: a
    list of the documents, one per line. Lines end with \\n (a \\r before it is
    ignored); lines of only whitespace are skipped; the last line needs no
    newline.
    type, strict, dec_hook: as for loads; each line is decoded into type.

    Raises JSONDecodeError for a line that is not one JSON document: doc is
    that line, pos the character in it, lineno the line's number in data
    (from 1) and colno its column. A line that does not fit type raises
    ValidationError, whose lineno is the line's number.
    """

@overload
def iter_lines(
    fp: SupportsRead[bytes | str],
    /,
    *,
    read_size: int | None = ...,
    type: None = ...,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
) -> Iterator[Any]: ...
@overload
def iter_lines(
    fp: SupportsRead[bytes | str],
    /,
    *,
    read_size: int | None = ...,
    type: type[_T],
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
) -> Iterator[_T]: ...
@overload
def iter_lines(
    fp: SupportsRead[bytes | str],
    /,
    *,
    read_size: int | None = ...,
    type: Any,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
) -> Iterator[Any]:
    """Iterate over the documents of the JSON Lines file fp, one per line,
    reading fp.read(read_size) at a time (1 MiB when None): memory holds one
    chunk and the longest line, so files larger than memory can be read. fp
    is a binary file-like (or a text one, whose str chunks are read as
    UTF-8). Lines are read as loads_lines reads them, into type if given.

    Raises JSONDecodeError for a line that is not one JSON document (lineno:
    its number in the file), TypeError when fp has no read method, and what
    fp.read raises.
    """

class JSONUnpacker:
    """A reader of JSON values one after another (JSON Lines, values separated by
    whitespace, or by nothing where they delimit themselves: {}[]"x"), fed in
    pieces of any size with feed(), or read from file_like (anything with
    read(n) returning bytes) read_size bytes at a time. Iterating yields every
    complete value and stops at an incomplete tail; unpack() returns the next
    value or raises OutOfData; tell() is the number of bytes consumed, the end
    of the last value returned. A number at the end of the bytes so far waits
    for more (it may continue), unless file_like's read returned b"".

    Each value is what loads returns for its text, into type (with strict and
    dec_hook) if given. A value that is not valid JSON raises JSONDecodeError
    about that value (a note gives its offset in the stream) and is consumed.
    max_buffer_size (0: 2**31-1) bounds the bytes held that are not consumed:
    feed() raises BufferFull rather than pass it, as does reading a value
    larger than it from file_like.
    """

    def __new__(
        cls,
        file_like: SupportsRead[bytes] | None = ...,
        *,
        read_size: int = ...,
        max_buffer_size: int = ...,
        type: Any = ...,
        strict: bool = ...,
        dec_hook: Callable[[Any, Any], Any] | None = ...,
    ) -> JSONUnpacker: ...
    def feed(self, next_bytes: bytes | bytearray | memoryview, /) -> None:
        """Append next_bytes (bytes or any buffer) to what is to be read. Raises
        BufferFull when the bytes held would pass max_buffer_size (nothing is
        appended), and TypeError when the reader reads a file_like."""
    def unpack(self) -> Any:
        """Return the next value. Raises OutOfData when no complete value is held
        (and file_like, if any, has no more bytes)."""
    def tell(self) -> int:
        """The number of bytes of the stream consumed so far: the end of the last
        value returned (or that failed to decode)."""
    def __iter__(self) -> JSONUnpacker: ...
    def __next__(self) -> Any: ...

class Unpacker:
    """A streaming MessagePack reader, like msgpack.Unpacker: feed it bytes in
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
    raises again).
    """

    def __new__(
        cls,
        file_like: SupportsRead[bytes | str] | None = ...,
        *,
        read_size: int = ...,
        max_buffer_size: int = ...,
        ext_hook: Callable[[int, bytes], Any] | None = ...,
        option: int | None = ...,
        numpy_ext_code: int | None = ...,
        type: Any = ...,
        strict: bool = ...,
        dec_hook: Callable[[Any, Any], Any] | None = ...,
    ) -> Unpacker: ...
    def feed(self, next_bytes: bytes | bytearray | memoryview, /) -> None:
        """Append next_bytes (bytes or any buffer) to what is to be read. Raises
        BufferFull when the bytes held would pass max_buffer_size (nothing is
        appended), and AssertionError when the unpacker reads a file_like.
        """
    def unpack(self) -> Any:
        """Return the next value. Raises OutOfData when no complete value is held
        (and file_like, if any, has no more bytes).
        """
    def skip(self) -> None:
        """Pass over the next value, checked but not built. Raises OutOfData as
        unpack does.
        """
    def tell(self) -> int:
        """The number of bytes of the stream consumed so far: the offset of the
        next value.
        """
    def __iter__(self) -> Unpacker: ...
    def __next__(self) -> Any: ...

class Packer:
    """A MessagePack writer with its options given once, like msgpack.Packer:
    pack(obj) returns what packb(obj, default=default, option=option,
    numpy_ext_code=numpy_ext_code) does.

    Raises TypeError when default is not callable, and MsgpackEncodeError
    for an option that is not made of flags.
    """

    def __new__(
        cls,
        *,
        default: Callable[[Any], Any] | None = ...,
        option: int | None = ...,
        numpy_ext_code: int | None = ...,
    ) -> Packer: ...
    def pack(self, obj: Any, /) -> bytes:
        """Serialize obj to MessagePack bytes, as packb does with the packer's
        default and option.
        """
    def pack_array_header(self, n: int, /) -> bytes:
        """The header of an array of n items (the items are packed after it, one
        by one). Raises ValueError for n outside 0 to 2**32-1.
        """
    def pack_map_header(self, n: int, /) -> bytes:
        """The header of a map of n entries (each key and value are packed after
        it, one by one). Raises ValueError for n outside 0 to 2**32-1.
        """

def pack(
    obj: Any,
    stream: SupportsWrite[Any],
    *,
    default: Callable[[Any], Any] | None = ...,
    option: int | None = ...,
    numpy_ext_code: int | None = ...,
) -> None:
    """Serialize obj to MessagePack and write it to stream, like msgpack.pack:
    stream.write(packb(obj, default=default, option=option)).

    Raises what packb raises, and what stream.write raises.
    """

def unpack(
    stream: SupportsRead[bytes | str],
    *,
    ext_hook: Callable[[int, bytes], Any] | None = ...,
    option: int | None = ...,
    numpy_ext_code: int | None = ...,
    type: Any = ...,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
) -> Any:
    """Deserialize the one MessagePack value stream.read() returns, like
    msgpack.unpack: unpackb(stream.read(), ...) with the same keyword
    arguments. To read values one after the other from a stream, use
    Unpacker(stream).

    Raises what unpackb raises, and what stream.read raises.
    """

def dump(
    obj: Any,
    fp: SupportsWrite[Any],
    *,
    default: Callable[[Any], Any] | None = ...,
    option: int | None = ...,
) -> None:
    """Serialize obj to JSON and write it to fp, like json.dump: the bytes of
    dumps(obj, default=default, option=option), or their text when fp is a
    text file (an io.TextIOBase).

    Raises what dumps raises, and what fp.write raises.
    """

def json_schema(type: Any, *, ref_template: str = ...) -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of the JSON documents
    loads(data, type=type) accepts, as a dict.

    Dataclasses, TypedDicts, NamedTuples, attrs classes and enums are
    defined once in "$defs" and referred to by ref_template (its {name} is
    the class's name), so recursive types are references. The schema says
    what the decoder accepts (strict=True); where JSON Schema cannot say it,
    the schema is the looser one (doc/typed.md lists those cases). Raises
    TypeError for a type typed decoding does not take, or one it hands to
    dec_hook."""

def json_schema_components(
    types: Iterable[Any], *, ref_template: str = ...
) -> tuple[tuple[dict[str, Any], ...], dict[str, dict[str, Any]]]:
    """The JSON Schemas of several types sharing their definitions: a tuple
    of one schema per type (references to the definitions where the type is a
    class) and a dict of the definitions by name, for a document that keeps
    them in one place (OpenAPI's components/schemas, with
    ref_template="#/components/schemas/{name}")."""

@final
class Name:
    """The name a field has on the wire: ``Annotated[int, orcodec.Name("orderId")]``.

    It wins over the class's ``rename`` policy; encoding writes it, typed
    decoding and ``convert`` read it (and only it), ``json_schema`` lists it.
    """

    name: str
    def __init__(self, name: str) -> None: ...

def options(
    *,
    rename: Literal["camel", "pascal", "kebab", "screaming_snake"] | Callable[[str], str] | None = ...,
    omit_defaults: bool | None = ...,
    omit_none: bool | None = ...,
    forbid_unknown_fields: bool | None = ...,
) -> Callable[[_C], _C]:
    """A class decorator setting the wire policy of a dataclass, attrs class or TypedDict.

    rename: "camel", "pascal", "kebab", "screaming_snake", or a callable from
        the Python name to the wire name (called once per field, when the
        class is first used); an ``orcodec.Name`` on a field wins over it.
    omit_defaults: dumps and packb leave out fields equal to their default.
    omit_none: dumps and packb leave out fields that are None.
    forbid_unknown_fields: typed decoding refuses fields the class does not have.

    An option left out (None) is inherited from the nearest base class that
    sets it. NamedTuples are arrays on the wire and take no options.
    """

def load(
    fp: SupportsRead[bytes | str],
    *,
    type: Any = ...,
    strict: bool = ...,
    dec_hook: Callable[[Any, Any], Any] | None = ...,
) -> Any:
    """Deserialize the JSON document fp.read() returns (bytes or str), like
    json.load: loads(fp.read()), into type when one is given (as
    loads(..., type=type) does). For JSON Lines, use iter_lines(fp).

    Raises what loads raises, and what fp.read raises.
    """

class OutOfData(Exception):
    """Raised by Unpacker.unpack and skip when no complete value is held, as
    msgpack.OutOfData is.
    """

class BufferFull(Exception):
    """Raised by Unpacker when the bytes it holds would pass max_buffer_size,
    as msgpack.BufferFull is.
    """

class ValidationError(ValueError):
    """Raised when data is well-formed but does not fit the type it is decoded
    into. A subclass of ValueError; raised by loads it is also a
    JSONDecodeError, raised by unpackb also a MsgpackDecodeError. str(e) says
    what is wrong and where; path is the location ($.items[3].qty). When a
    dec_hook or __post_init__ rejected the value, its exception is the
    __cause__.
    """

    path: str

class JSONEncodeError(TypeError):
    """Raised by dumps for an object it cannot serialize. A subclass of
    TypeError. When default (or a tzinfo's utcoffset()) raised, that exception
    is the __cause__.
    """

class JSONDecodeError(json.JSONDecodeError):
    """Raised by loads for input that is not valid JSON. A subclass of
    json.JSONDecodeError (so of ValueError): msg says what is wrong; doc, pos,
    lineno and colno say where.
    """

class MsgpackEncodeError(TypeError):
    """Raised by packb for an object it cannot serialize. A subclass of
    TypeError. When default (or a tzinfo's utcoffset()) raised, that exception
    is the __cause__.
    """

class JSONInputTypeError(JSONDecodeError, TypeError):
    """Raised by loads for input of a type it does not read (neither bytes,
    bytearray, memoryview nor str): a JSONDecodeError, as orjson raises, and a
    TypeError. For a file object a note says to pass its contents.
    """

class MsgpackDecodeError(ValueError):
    """Raised by unpackb for input that is not valid MessagePack and for
    options it cannot use, with ormsgpack's messages. A subclass of ValueError.
    pos is the byte offset of the problem (None when there is none); a note
    says more. When ext_hook raised, that exception is the __cause__.
    """

    pos: int | None

class MsgpackInputTypeError(MsgpackDecodeError, TypeError):
    """Raised by unpackb for input of a type it does not read (neither bytes,
    bytearray nor memoryview): a MsgpackDecodeError, as ormsgpack raises, and a
    TypeError. For a file object a note says to pass its contents.
    """

# The flags: orcodec.flags and help(orcodec) say the same at run time.
OPT_APPEND_NEWLINE: int
"""Append a newline to the output."""
OPT_DATETIME_AS_TIMESTAMP_EXT: int
"""packb writes aware datetimes (naive ones too with OPT_NAIVE_UTC) as the MessagePack timestamp
extension (type -1) instead of RFC 3339 text; unpackb reads timestamps back as UTC datetimes instead
of passing them to ext_hook.
"""
OPT_INDENT_2: int
"""Indent the output by two spaces per level, one item per line, with ": " after keys."""
OPT_MSGPACK_NUMPY: int
"""packb writes numpy arrays and scalars as msgpack-numpy's maps ({b"nd": ..., b"type": ..., b"shape":
..., b"data": ...}) and complex numbers as its {b"complex": ...} maps, byte for byte what
msgpack_numpy.encode makes; unpackb turns such maps back into arrays, scalars and complex numbers
(their bytes keys are accepted) and refuses the object arrays msgpack-numpy pickles. OPT_NUMPY_EXT
wins in packb when both are given.
"""
OPT_NAIVE_UTC: int
"""Treat naive datetimes and numpy datetime64 values as UTC: write them with a +00:00 offset (or as
timestamps with OPT_DATETIME_AS_TIMESTAMP_EXT).
"""
OPT_NON_STR_KEYS: int
"""Allow dict keys that are not str: int, float, bool, None, datetime, date, time, UUID and enum
members, and for MessagePack also bytes and tuples. dumps writes them as JSON strings, packb as
MessagePack values; unpackb accepts map keys of any type but map (arrays become tuples).
"""
OPT_NUMPY_EXT: int
"""packb writes each numpy array and scalar (bool, int, uint, float16/32/64, complex64/128, datetime64
and timedelta64 elements, any shape and memory layout) as one MessagePack extension value of type 78
(or numpy_ext_code): a small header and the raw elements in C order; unpackb reads those values back
as arrays and scalars of the same dtype, shape and bits, importing numpy when it meets the first
one.
"""
OPT_NUMPY_ZERO_COPY: int
"""With OPT_NUMPY_EXT (or OPT_MSGPACK_NUMPY), unpackb returns read-only arrays that share the input's
memory instead of copying it; each array keeps the input alive, and a bytearray from being resized.
Without either of those flags unpackb raises.
"""
OPT_OMIT_DEFAULTS: int
"""Leave out the fields of dataclass instances (nested ones too) that equal their default (for a
default_factory: what the factory makes, called when the instance is written).
"""
OPT_OMIT_MICROSECONDS: int
"""Write datetimes and times without their microseconds."""
OPT_OMIT_NONE: int
"""Leave out the fields of dataclass instances (nested ones too) that are None."""
OPT_PASSTHROUGH_BIG_INT: int
"""Pass ints outside -2**63 to 2**64-1 to default instead of raising."""
OPT_PASSTHROUGH_DATACLASS: int
"""Pass dataclass instances to default instead of writing their fields."""
OPT_PASSTHROUGH_DATETIME: int
"""Pass datetime, date and time to default instead of writing them."""
OPT_PASSTHROUGH_ENUM: int
"""Pass enum members to default instead of writing their value."""
OPT_PASSTHROUGH_SUBCLASS: int
"""Pass instances of subclasses of str, int, float, dict, list and tuple (and for MessagePack of bytes
and bytearray) to default instead of writing them as the base type.
"""
OPT_PASSTHROUGH_TUPLE: int
"""Pass tuples to default instead of writing them as arrays."""
OPT_PASSTHROUGH_UUID: int
"""Pass uuid.UUID instances to default instead of writing their text."""
OPT_REPLACE_SURROGATES: int
"""Write each lone surrogate in a str (a value or a key) as ? instead of raising."""
OPT_SERIALIZE_DATACLASS: int
"""No effect (value 0), kept for compatibility with orjson: dataclasses are always serialized unless
OPT_PASSTHROUGH_DATACLASS.
"""
OPT_SERIALIZE_NUMPY: int
"""Write numpy arrays (C-contiguous, in native byte order, of float, int, uint, bool or datetime64
elements) as nested arrays, and numpy scalars as their value.
"""
OPT_SERIALIZE_PYDANTIC: int
"""Write pydantic (v2) models as a map of their fields and extra fields, without aliases or computed
fields.
"""
OPT_SERIALIZE_UUID: int
"""No effect (value 0), kept for compatibility with orjson: UUIDs are always serialized unless
OPT_PASSTHROUGH_UUID.
"""
OPT_SORT_KEYS: int
"""Write dict entries in key order, in nested dicts too (dataclass and model fields keep their order)."""
OPT_STRICT_INTEGER: int
"""Raise for ints outside -(2**53-1) to 2**53-1, which a reader that keeps numbers as doubles
(JavaScript) cannot hold exactly.
"""
OPT_UTC_Z: int
"""Write a zero UTC offset as Z instead of +00:00."""

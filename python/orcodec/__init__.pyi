import json
from typing import Any, Callable, final

__version__: str

@final
class Fragment:
    """Already-encoded content inserted verbatim: JSON text (bytes or str) for
    dumps, MessagePack bytes for packb."""

    @property
    def contents(self) -> bytes | str: ...
    def __new__(cls, contents: bytes | str, /) -> Fragment: ...

@final
class Ext:
    """A MessagePack extension value: packb writes it (tag 0 to 127)."""

    @property
    def tag(self) -> int: ...
    @property
    def data(self) -> bytes: ...
    def __new__(cls, tag: int, data: bytes, /) -> Ext: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def dumps(
    obj: Any,
    /,
    default: Callable[[Any], Any] | None = ...,
    option: int | None = ...,
) -> bytes: ...
def loads(obj: bytes | bytearray | memoryview | str, /) -> Any: ...
def packb(
    obj: Any,
    /,
    default: Callable[[Any], Any] | None = ...,
    option: int | None = ...,
) -> bytes: ...
def unpackb(
    obj: bytes | bytearray | memoryview,
    /,
    *,
    ext_hook: Callable[[int, bytes], Any] | None = ...,
    option: int | None = ...,
) -> Any: ...

class JSONEncodeError(TypeError): ...
class JSONDecodeError(json.JSONDecodeError): ...
class MsgpackEncodeError(TypeError): ...
class MsgpackDecodeError(ValueError): ...

OPT_APPEND_NEWLINE: int
OPT_DATETIME_AS_TIMESTAMP_EXT: int
OPT_INDENT_2: int
OPT_NAIVE_UTC: int
OPT_NON_STR_KEYS: int
OPT_OMIT_MICROSECONDS: int
OPT_PASSTHROUGH_BIG_INT: int
OPT_PASSTHROUGH_DATACLASS: int
OPT_PASSTHROUGH_DATETIME: int
OPT_PASSTHROUGH_ENUM: int
OPT_PASSTHROUGH_SUBCLASS: int
OPT_PASSTHROUGH_TUPLE: int
OPT_PASSTHROUGH_UUID: int
OPT_REPLACE_SURROGATES: int
OPT_SERIALIZE_DATACLASS: int
OPT_SERIALIZE_NUMPY: int
OPT_SERIALIZE_PYDANTIC: int
OPT_SERIALIZE_UUID: int
OPT_SORT_KEYS: int
OPT_STRICT_INTEGER: int
OPT_UTC_Z: int

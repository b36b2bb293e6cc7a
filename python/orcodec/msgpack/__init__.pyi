# Stubs of orcodec.msgpack: msgpack-python 1.x's API.
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any, Protocol

from .exceptions import BufferFull as BufferFull
from .exceptions import ExtraData as ExtraData
from .exceptions import FormatError as FormatError
from .exceptions import OutOfData as OutOfData
from .exceptions import PackException as PackException
from .exceptions import PackOverflowError as PackOverflowError
from .exceptions import PackValueError as PackValueError
from .exceptions import StackError as StackError
from .exceptions import UnpackException as UnpackException
from .exceptions import UnpackValueError as UnpackValueError
from .ext import ExtType as ExtType
from .ext import Timestamp as Timestamp

version: tuple[int, int, int]
__version__: str

_Buffer = bytes | bytearray | memoryview

class _Readable(Protocol):
    def read(self, n: int = ..., /) -> bytes: ...

class _Writable(Protocol):
    def write(self, data: bytes, /) -> object: ...

class Packer:
    def __init__(
        self,
        *,
        default: Callable[[Any], Any] | None = None,
        use_single_float: bool = False,
        autoreset: bool = True,
        use_bin_type: bool = True,
        strict_types: bool = False,
        datetime: bool = False,
        unicode_errors: str | None = None,
        buf_size: int | None = None,
    ) -> None: ...
    def pack(self, obj: Any) -> bytes | None: ...
    def pack_ext_type(self, typecode: int, data: bytes) -> bytes | None: ...
    def pack_array_header(self, size: int) -> bytes | None: ...
    def pack_map_header(self, size: int) -> bytes | None: ...
    def pack_map_pairs(self, pairs: Sequence[tuple[Any, Any]]) -> bytes | None: ...
    def reset(self) -> None: ...
    def bytes(self) -> bytes: ...
    def getbuffer(self) -> memoryview: ...

class Unpacker:
    def __init__(
        self,
        file_like: _Readable | None = None,
        *,
        read_size: int = 0,
        use_list: bool = True,
        raw: bool = False,
        timestamp: int = 0,
        strict_map_key: bool = True,
        object_hook: Callable[[dict[Any, Any]], Any] | None = None,
        object_pairs_hook: Callable[[list[tuple[Any, Any]]], Any] | None = None,
        list_hook: Callable[[Any], Any] | None = None,
        unicode_errors: str | None = None,
        max_buffer_size: int = 104857600,
        ext_hook: Callable[[int, bytes], Any] = ...,
        max_str_len: int = -1,
        max_bin_len: int = -1,
        max_array_len: int = -1,
        max_map_len: int = -1,
        max_ext_len: int = -1,
    ) -> None: ...
    def feed(self, next_bytes: _Buffer) -> None: ...
    def unpack(self) -> Any: ...
    def skip(self) -> None: ...
    def read_array_header(self) -> int: ...
    def read_map_header(self) -> int: ...
    def read_bytes(self, nbytes: int) -> bytes: ...
    def tell(self) -> int: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __next__(self) -> Any: ...

def packb(
    o: Any,
    *,
    default: Callable[[Any], Any] | None = ...,
    use_single_float: bool = ...,
    autoreset: bool = ...,
    use_bin_type: bool = ...,
    strict_types: bool = ...,
    datetime: bool = ...,
    unicode_errors: str | None = ...,
    buf_size: int | None = ...,
) -> bytes: ...
def unpackb(
    packed: _Buffer,
    *,
    object_hook: Callable[[dict[Any, Any]], Any] | None = ...,
    list_hook: Callable[[Any], Any] | None = ...,
    use_list: bool = ...,
    raw: bool = ...,
    timestamp: int = ...,
    strict_map_key: bool = ...,
    unicode_errors: str | None = ...,
    object_pairs_hook: Callable[[list[tuple[Any, Any]]], Any] | None = ...,
    ext_hook: Callable[[int, bytes], Any] = ...,
    max_str_len: int = ...,
    max_bin_len: int = ...,
    max_array_len: int = ...,
    max_map_len: int = ...,
    max_ext_len: int = ...,
) -> Any: ...
def pack(o: Any, stream: _Writable, **kwargs: Any) -> None: ...
def unpack(stream: _Readable | IO[bytes], **kwargs: Any) -> Any: ...

dumps = packb
loads = unpackb
dump = pack
load = unpack

__all__: Iterable[str]

"""msgpack-python's API and behaviour (``import orcodec.msgpack as msgpack``),
on orcodec's MessagePack reader and writer.

``packb``/``unpackb``/``pack``/``unpack`` (and the aliases ``dumps``,
``loads``, ``dump``, ``load``), ``Packer``, ``Unpacker``, ``ExtType``,
``Timestamp`` and ``msgpack.exceptions``' classes take msgpack-python 1.x's
arguments, return its values and bytes and raise its exceptions. Where
orcodec.msgpack differs, and why: doc/msgpack-python.md.
"""

import datetime as _datetime
import operator

from .. import Ext as _Ext
from .. import Fragment as _Fragment
from .. import _orcodec
from .exceptions import (
    BufferFull,
    ExtraData,
    FormatError,
    OutOfData,
    PackException,
    PackOverflowError,
    PackValueError,
    StackError,
    UnpackException,
    UnpackValueError,
)
from .ext import ExtType, Timestamp

version = (1, 2, 4)
__version__ = "1.2.4"

_walk = _orcodec._mp_walk
_mp_unpackb = _orcodec._mp_unpackb
_mp_rewrite = _orcodec._mp_rewrite
_mp_header = _orcodec._mp_header
_EncodeError = _orcodec.MsgpackEncodeError

# What the walker hands to `default` rather than serializing itself, as
# msgpack-python does not serialize them: datetimes, UUIDs, dataclasses,
# enums (an IntEnum is an int below), ints beyond 64 bits; keys of any type.
_BASE_OPT = (
    _orcodec.OPT_NON_STR_KEYS
    | _orcodec.OPT_PASSTHROUGH_DATETIME
    | _orcodec.OPT_PASSTHROUGH_UUID
    | _orcodec.OPT_PASSTHROUGH_DATACLASS
    | _orcodec.OPT_PASSTHROUGH_ENUM
    | _orcodec.OPT_PASSTHROUGH_BIG_INT
)
_STRICT_OPT = _BASE_OPT | _orcodec.OPT_PASSTHROUGH_SUBCLASS | _orcodec.OPT_PASSTHROUGH_TUPLE
_EPOCH = _datetime.datetime(1970, 1, 1, tzinfo=_datetime.timezone.utc)
_NOT = object()
_INT_MIN = -(2**63)
_UINT_MAX = 2**64 - 1


def _timestamp_ext(ts):
    # Extension -1 is no `Ext` (its tags are 0 to 127): the packed value
    # goes in as a fragment.
    data = ts.to_bytes()
    return _Fragment(_mp_header(2, len(data), -1) + data)


def _builtin(obj, strict, datetime):
    """What orcodec's walker is given instead of `obj`, a value it does not
    serialize itself but msgpack-python does; _NOT if msgpack-python does not
    either."""
    t = type(obj)
    if t is ExtType or (not strict and isinstance(obj, ExtType)):
        return _Ext(obj.code, obj.data)
    if t is Timestamp:
        return _timestamp_ext(obj)
    if datetime and t is _datetime.datetime and obj.tzinfo is not None:
        return _timestamp_ext(Timestamp.from_datetime(obj))
    if strict:
        return _NOT
    if isinstance(obj, int):
        if t is not int and _INT_MIN <= obj <= _UINT_MAX:
            return True if obj is True else int(obj)
        return _NOT
    if isinstance(obj, float):
        return float(obj)
    if isinstance(obj, (list, tuple)):
        return list(obj)
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj)
    if isinstance(obj, str):
        return str(obj)
    if isinstance(obj, dict):
        return dict(obj)
    return _NOT


def _type_name(t):
    # CPython's tp_name, which msgpack-python's messages show: a static
    # (C) type's carries its module unless builtins, a class's is its name.
    if t.__flags__ & _HEAPTYPE or t.__module__ == "builtins":
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


_HEAPTYPE = 1 << 9


def _unsupported(obj, datetime):
    if type(obj) is int:
        raise OverflowError("Integer value out of range")
    name = _type_name(type(obj))
    if datetime and type(obj) is _datetime.datetime:
        raise ValueError(f"can not serialize {name!r} object where tzinfo=None")
    raise TypeError(f"can not serialize {name!r} object")


def _make_default(user_default, strict, datetime):
    """The walker's `default`: msgpack-python's own types first, then the
    user's `default`, called once per object (what it returns is packed
    without calling it again, as msgpack-python does)."""
    returned = [_NOT]

    def default(obj):
        if obj is returned[0]:
            returned[0] = _NOT
            _unsupported(obj, datetime)
        value = _builtin(obj, strict, datetime)
        if value is not _NOT:
            return value
        if user_default is None:
            _unsupported(obj, datetime)
        obj = user_default(obj)
        value = _builtin(obj, strict, datetime)
        if value is not _NOT:
            return value
        returned[0] = obj
        return obj

    return default


def _pack_text_errors(packer, obj):
    """`obj` packed where the writer refused a str (a lone surrogate): its
    containers here, their headers from the core's writer, every str encoded
    with the packer's `unicode_errors` as msgpack-python encodes it, every
    other value by the packer. Without a handler, the first such str raises
    UnicodeEncodeError as msgpack-python's does. Only called after the walker
    refused a str, so documents without one never come here."""
    errors = packer._unicode_errors or "strict"
    strict = packer._strict
    kind = 3 if packer._old_raw else 4

    def emit(o, depth):
        if depth > 255:
            raise ValueError("recursion limit exceeded.")
        t = type(o)
        if t is str or (not strict and isinstance(o, str)):
            data = o.encode("utf-8", errors)
            return _mp_header(kind, len(data), 0) + data
        if t is list or (not strict and isinstance(o, (list, tuple)) and not isinstance(o, ExtType)):
            return _mp_header(0, len(o), 0) + b"".join([emit(v, depth + 1) for v in o])
        if t is dict or (not strict and isinstance(o, dict)):
            parts = [_mp_header(1, len(o), 0)]
            for k, v in o.items():
                parts.append(emit(k, depth + 1))
                parts.append(emit(v, depth + 1))
            return b"".join(parts)
        return packer._pack(o)

    return emit(obj, 0)


def _reraise(e):
    """msgpack-python's exception for the walker's encode error `e`: what a
    `default` raised (msgpack's own types' errors included), else the error
    for nesting."""
    cause = e.__cause__
    if cause is not None:
        raise cause.with_traceback(cause.__traceback__) from None
    message = str(e)
    if message.startswith("Recursion limit"):
        raise ValueError("recursion limit exceeded.") from None
    raise e


class Packer:
    """msgpack-python's Packer: ``pack(obj)`` returns the packed bytes (with
    ``autoreset``, the default) or appends them to the packer's buffer."""

    def __init__(
        self,
        *,
        default=None,
        use_single_float=False,
        autoreset=True,
        use_bin_type=True,
        strict_types=False,
        datetime=False,
        unicode_errors=None,
        buf_size=None,
    ):
        if default is not None and not callable(default):
            raise TypeError("default must be a callable.")
        self._user_default = default
        self._strict = bool(strict_types)
        self._datetime = bool(datetime)
        self._default = _make_default(default, self._strict, self._datetime)
        self._opt = _STRICT_OPT if strict_types else _BASE_OPT
        self._single_float = bool(use_single_float)
        self._old_raw = not use_bin_type
        self._autoreset = bool(autoreset)
        self._unicode_errors = unicode_errors
        if buf_size is not None:
            # Read once (it may be any object with __index__).
            self._buf_size = operator.index(buf_size)
        self._buffer = bytearray()

    def _pack(self, obj):
        try:
            data = _walk(obj, self._default, self._opt)
        except _EncodeError as e:
            if e.__cause__ is not None or "surrogate" not in str(e):
                _reraise(e)
            # Strs with lone surrogates: msgpack-python encodes them with
            # the handler, which the writer has none of.
            return _pack_text_errors(self, obj)
        if self._single_float or self._old_raw:
            data = _mp_rewrite(data, self._single_float, self._old_raw)
        return data

    def _out(self, data):
        if self._autoreset:
            return data
        self._buffer += data
        return None

    def pack(self, obj):
        return self._out(self._pack(obj))

    def pack_ext_type(self, typecode, data):
        if len(data) > 0xFFFFFFFF:
            raise ValueError("ext data too large")
        return self._out(_mp_header(2, len(data), typecode) + bytes(data))

    def pack_array_header(self, size):
        if size < 0:
            raise ValueError("array size must be non-negative")
        if size > 0xFFFFFFFF:
            raise ValueError("array too large")
        return self._out(_mp_header(0, size, 0))

    def pack_map_header(self, size):
        if size < 0:
            raise ValueError("map size must be non-negative")
        if size > 0xFFFFFFFF:
            raise ValueError("map too large")
        return self._out(_mp_header(1, size, 0))

    def pack_map_pairs(self, pairs):
        size = len(pairs)
        if size > 0xFFFFFFFF:
            raise ValueError("map too large")
        parts = [_mp_header(1, size, 0)]
        for k, v in pairs:
            parts.append(self._pack(k))
            parts.append(self._pack(v))
        return self._out(b"".join(parts))

    def reset(self):
        """Clears the buffer (with ``autoreset=False``)."""
        self._buffer = bytearray()

    def bytes(self):
        """The buffer's content, as bytes."""
        return bytes(self._buffer)

    def getbuffer(self):
        """The buffer, as a memoryview."""
        return memoryview(self._buffer)


def _timestamp_float(seconds, nanoseconds):
    return seconds + nanoseconds / 1e9


def _timestamp_int(seconds, nanoseconds):
    return seconds * 1_000_000_000 + nanoseconds


def _timestamp_datetime(seconds, nanoseconds):
    return _EPOCH + _datetime.timedelta(seconds=seconds, microseconds=nanoseconds // 1000)


_TIMESTAMPS = (Timestamp, _timestamp_float, _timestamp_int, _timestamp_datetime)


def _config(
    use_list,
    raw,
    timestamp,
    strict_map_key,
    object_hook,
    object_pairs_hook,
    list_hook,
    unicode_errors,
    ext_hook,
    limits,
    stacks=None,
):
    if object_hook is not None and object_pairs_hook is not None:
        raise TypeError("object_pairs_hook and object_hook are mutually exclusive.")
    if object_hook is not None and not callable(object_hook):
        raise TypeError("object_hook must be a callable.")
    if object_pairs_hook is not None and not callable(object_pairs_hook):
        raise TypeError("object_pairs_hook must be a callable.")
    if list_hook is not None and not callable(list_hook):
        raise TypeError("list_hook must be a callable.")
    if not callable(ext_hook):
        raise TypeError("ext_hook must be a callable.")
    if not isinstance(timestamp, int) or not 0 <= timestamp <= 3:
        raise ValueError("timestamp must be 0..3")
    if unicode_errors is not None and not isinstance(unicode_errors, str):
        raise TypeError("unicode_errors must be a str")
    flags = (1 if use_list else 0) | (2 if raw else 0) | (4 if strict_map_key else 0)
    if object_hook is None and object_pairs_hook is None and list_hook is None and ext_hook is ExtType:
        flags |= 8  # no user code runs while a value is built
    return (
        flags,
        object_hook,
        object_pairs_hook,
        list_hook,
        ext_hook,
        _TIMESTAMPS[timestamp],
        unicode_errors,
        *limits,
        FormatError,
        StackError,
        ExtraData,
        OutOfData,
        BufferFull,
        stacks,
    )


_DEFAULT_CONFIG = _config(True, False, 0, True, None, None, None, None, ExtType, (-1,) * 5, _orcodec._mp_stacks())


def _unpackb(packed, **kwargs):
    """`unpackb` with any arguments (the extension's `unpackb` decodes one
    bytes object with the defaults itself and calls this for the rest)."""
    cfg = _unpackb_config(**kwargs) if kwargs else _DEFAULT_CONFIG
    try:
        return _mp_unpackb(packed, cfg)
    except BufferError:
        # A buffer that is not contiguous (a strided memoryview): read from
        # a contiguous copy, as msgpack-python does.
        if not isinstance(packed, memoryview) or packed.contiguous:
            raise
    return _mp_unpackb(packed.tobytes(), cfg)


def _unpackb_config(
    *,
    object_hook=None,
    list_hook=None,
    use_list=True,
    raw=False,
    timestamp=0,
    strict_map_key=True,
    unicode_errors=None,
    object_pairs_hook=None,
    ext_hook=ExtType,
    max_str_len=-1,
    max_bin_len=-1,
    max_array_len=-1,
    max_map_len=-1,
    max_ext_len=-1,
):
    return _config(
        use_list,
        raw,
        timestamp,
        strict_map_key,
        object_hook,
        object_pairs_hook,
        list_hook,
        unicode_errors,
        ext_hook,
        (max_str_len, max_bin_len, max_array_len, max_map_len, max_ext_len),
    )


# Unpack the single value `packed` (any bytes-like object): ExtraData when
# bytes follow it, ValueError when it is incomplete, FormatError for invalid
# MessagePack, StackError when nested too deep. A function of the extension
# (its docstring says the same), which calls _unpackb for any other call
# than one bytes object with the default options.
unpackb = _orcodec._mp_fast_unpackb(_DEFAULT_CONFIG, _unpackb)


_INT_MAX = 2**31 - 1


class Unpacker(_orcodec._MsgpackUnpacker):
    """msgpack-python's streaming unpacker: bytes fed with ``feed()`` (or read
    from `file_like` in `read_size` pieces) come out one value at a time by
    iteration, ``unpack()``, ``skip()``, ``read_array_header()``,
    ``read_map_header()`` and ``read_bytes(n)``; ``tell()`` is the stream
    position, counting what has been consumed of an incomplete value.

    The buffer and the methods are the extension's; the constructor checks
    the arguments and hands them over once."""

    def __init__(
        self,
        file_like=None,
        *,
        read_size=0,
        use_list=True,
        raw=False,
        timestamp=0,
        strict_map_key=True,
        object_hook=None,
        object_pairs_hook=None,
        list_hook=None,
        unicode_errors=None,
        max_buffer_size=100 * 1024 * 1024,
        ext_hook=ExtType,
        max_str_len=-1,
        max_bin_len=-1,
        max_array_len=-1,
        max_map_len=-1,
        max_ext_len=-1,
    ):
        read = None
        if file_like:
            read = file_like.read
            if not callable(read):
                raise TypeError("`file_like.read` must be a callable.")
        if not max_buffer_size:
            max_buffer_size = _INT_MAX
        limits = [max_str_len, max_bin_len, max_array_len, max_map_len, max_ext_len]
        for i in range(5):
            if limits[i] == -1:
                limits[i] = max_buffer_size // 2 if i == 3 else max_buffer_size
        if read_size > max_buffer_size:
            raise ValueError("read_size should be less or equal to max_buffer_size")
        if not read_size:
            read_size = min(max_buffer_size, 1024**2)
        cfg = _config(
            use_list,
            raw,
            timestamp,
            strict_map_key,
            object_hook,
            object_pairs_hook,
            list_hook,
            unicode_errors,
            ext_hook,
            tuple(limits),
            _orcodec._mp_stacks(),
        )
        self._setup(read, cfg, max_buffer_size, read_size)


def _packb(o, **kwargs):
    """`packb` with any arguments (the extension's `packb` hands one object
    with no option to the walker itself, and what the walker refuses to the
    default packer)."""
    if kwargs:
        return Packer(**kwargs).pack(o)
    return _DEFAULT_PACKER._pack(o)


def pack(o, stream, **kwargs):
    """Pack `o` and write it to `stream`."""
    stream.write(Packer(**kwargs).pack(o))


def unpack(stream, **kwargs):
    """Unpack the one value `stream.read()` returns (ExtraData if more follows)."""
    return unpackb(stream.read(), **kwargs)


_DEFAULT_PACKER = Packer()
# Pack `o` and return the bytes (see Packer for the options): a function of
# the extension (its docstring says the same), which calls the walker with
# msgpack-python's default and flags, and _packb for everything else.
packb = _orcodec._mp_fast_packb(_DEFAULT_PACKER._default, _BASE_OPT, _packb, _DEFAULT_PACKER._pack)

load = unpack
loads = unpackb
dump = pack
dumps = packb

__all__ = [
    "BufferFull",
    "ExtType",
    "ExtraData",
    "FormatError",
    "OutOfData",
    "PackException",
    "PackOverflowError",
    "PackValueError",
    "Packer",
    "StackError",
    "Timestamp",
    "UnpackException",
    "UnpackValueError",
    "Unpacker",
    "dump",
    "dumps",
    "load",
    "loads",
    "pack",
    "packb",
    "unpack",
    "unpackb",
]

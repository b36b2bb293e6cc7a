"""The exceptions of msgpack-python's ``msgpack.exceptions``, same names,
same hierarchy: code that catches msgpack's catches these."""


class UnpackException(Exception):
    """Base class of some of the errors raised while unpacking (others are
    ValueError, TypeError or the exception a hook raised)."""


class BufferFull(UnpackException):
    """Feeding more bytes would grow the buffer past ``max_buffer_size``."""


class OutOfData(UnpackException):
    """The stream ends before a whole value."""


class FormatError(ValueError, UnpackException):
    """Invalid MessagePack (a reserved header byte)."""


class StackError(ValueError, UnpackException):
    """Nested too deep."""


UnpackValueError = ValueError


class ExtraData(UnpackValueError):
    """``unpackb`` found bytes after the value: ``unpacked`` is the value,
    ``extra`` the bytes after it."""

    def __init__(self, unpacked, extra):
        self.unpacked = unpacked
        self.extra = extra

    def __str__(self):
        return "unpack(b) received extra data."


PackException = Exception
PackValueError = ValueError
PackOverflowError = OverflowError

__all__ = [
    "BufferFull",
    "ExtraData",
    "FormatError",
    "OutOfData",
    "PackException",
    "PackOverflowError",
    "PackValueError",
    "StackError",
    "UnpackException",
    "UnpackValueError",
]

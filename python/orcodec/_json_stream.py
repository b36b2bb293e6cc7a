"""JSONUnpacker: a stream of JSON values read as they arrive, the JSON twin of Unpacker."""

from __future__ import annotations

import builtins
from typing import Any

from . import _orcodec

_DEFAULT_READ_SIZE = 16 * 1024
_DEFAULT_MAX_BUFFER_SIZE = 100 * 1024 * 1024


def _size(name: str, value: Any, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int")
    if value < 0:
        raise ValueError(f"{name} must not be negative")
    return value or default


class JSONUnpacker:
    """JSONUnpacker(file_like=None, *, read_size=16384, max_buffer_size=104857600, type=None, ...)

    A reader of JSON values one after another (JSON Lines, values separated by
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

    def __init__(
        self,
        file_like: Any = None,
        *,
        read_size: int = _DEFAULT_READ_SIZE,
        max_buffer_size: int = _DEFAULT_MAX_BUFFER_SIZE,
        type: Any = None,
        strict: bool = True,
        dec_hook: Any = None,
    ) -> None:
        if file_like is not None and not callable(getattr(file_like, "read", None)):
            raise TypeError("`file_like.read` must be a callable.")
        self._file = file_like
        self._max = _size("max_buffer_size", max_buffer_size, 2**31 - 1)
        self._read_size = min(_size("read_size", read_size, _DEFAULT_READ_SIZE), self._max)
        self._options: dict[str, Any] = {}
        if type is not None or strict is not True or dec_hook is not None:
            self._options = {"type": type, "strict": strict, "dec_hook": dec_hook}
            if type is not None:
                # Compiled now, so that a type orcodec cannot decode fails here.
                _orcodec.Decoder(type, strict=strict, dec_hook=dec_hook)
        self._buf = bytearray()
        self._base = 0  # stream offset of self._buf[0]
        self._consumed = 0  # bytes of self._buf consumed
        self._pos = 0
        self._start = -1
        self._state = 0
        self._eof = False

    def feed(self, next_bytes: Any) -> None:
        """Append next_bytes (bytes-like) to the bytes to read."""
        if self._file is not None:
            raise TypeError("feed() cannot be used with file_like")
        view = memoryview(next_bytes)
        self._append(view)

    def _append(self, view: memoryview) -> None:
        if len(self._buf) - self._consumed + view.nbytes > self._max:
            raise _orcodec.BufferFull
        if self._consumed:
            del self._buf[: self._consumed]
            self._base += self._consumed
            self._pos -= self._consumed
            if self._start >= 0:
                self._start -= self._consumed
            self._consumed = 0
        self._buf += view

    def _next(self) -> Any:
        while True:
            start, end, self._pos, self._state = _orcodec._json_extent(
                self._buf, self._pos, self._start, self._state, self._eof
            )
            if end >= 0:
                self._start = -1
                self._consumed = end
                text = bytes(self._buf[start:end])
                try:
                    return _orcodec.loads(text, **self._options)
                except _orcodec.JSONDecodeError as e:
                    e.add_note(f"in the value at bytes {self._base + start} to {self._base + end} of the stream")
                    raise
            self._start = start
            if self._file is None or self._eof:
                raise _orcodec.OutOfData
            chunk = self._file.read(self._read_size)
            if not isinstance(chunk, (bytes, bytearray, memoryview)):
                raise TypeError(f"file_like.read() must return bytes, not {builtins.type(chunk).__name__}")
            if not chunk:
                self._eof = True
                continue
            self._append(memoryview(chunk))

    def unpack(self) -> Any:
        """The next value; OutOfData when no complete value is held."""
        return self._next()

    def tell(self) -> int:
        """Bytes consumed so far: the end of the last value returned (or that failed)."""
        return self._base + self._consumed

    def __iter__(self) -> JSONUnpacker:
        return self

    def __next__(self) -> Any:
        try:
            return self._next()
        except _orcodec.OutOfData:
            raise StopIteration from None

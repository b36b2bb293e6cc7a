"""``ExtType`` and ``Timestamp``, as msgpack-python's ``msgpack.ext``
defines them (same constructors, checks, conversions and packed forms)."""

import datetime as _dt
from collections import namedtuple

_UTC = _dt.timezone.utc
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_UTC)
_GIGA = 1_000_000_000


class ExtType(namedtuple("ExtType", "code data")):
    """A MessagePack extension value: ``code`` (0-127) and ``data`` (bytes)."""

    __slots__ = ()

    def __new__(cls, code, data):
        if not isinstance(code, int):
            raise TypeError("code must be int")
        if not isinstance(data, bytes):
            raise TypeError("data must be bytes")
        if not 0 <= code <= 127:
            raise ValueError("code must be 0~127")
        return super().__new__(cls, code, data)


class Timestamp:
    """The MessagePack timestamp extension (type -1): seconds since the Unix
    epoch and nanoseconds (0 to 999999999), both ints."""

    __slots__ = ["seconds", "nanoseconds"]

    def __init__(self, seconds, nanoseconds=0):
        if not isinstance(seconds, int):
            raise TypeError("seconds must be an integer")
        if not isinstance(nanoseconds, int):
            raise TypeError("nanoseconds must be an integer")
        if not (0 <= nanoseconds < _GIGA):
            raise ValueError("nanoseconds must be a non-negative integer less than 999999999.")
        self.seconds = seconds
        self.nanoseconds = nanoseconds

    def __repr__(self):
        return f"Timestamp(seconds={self.seconds}, nanoseconds={self.nanoseconds})"

    def __eq__(self, other):
        if type(other) is self.__class__:
            return self.seconds == other.seconds and self.nanoseconds == other.nanoseconds
        return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.seconds, self.nanoseconds))

    @staticmethod
    def from_bytes(b):
        """The timestamp in an extension -1 payload of 4, 8 or 12 bytes."""
        n = len(b)
        if n == 4:
            return Timestamp(int.from_bytes(b, "big"), 0)
        if n == 8:
            packed = int.from_bytes(b, "big")
            return Timestamp(packed & 0x3_FFFF_FFFF, packed >> 34)
        if n == 12:
            return Timestamp(int.from_bytes(b[4:], "big", signed=True), int.from_bytes(b[:4], "big"))
        raise ValueError("Timestamp type can only be created from 32, 64, or 96-bit byte objects")

    def to_bytes(self):
        """The payload in the smallest of the three forms that holds it."""
        s, ns = self.seconds, self.nanoseconds
        if s >> 34 == 0:
            packed = (ns << 34) | s
            if packed >> 32 == 0:
                return packed.to_bytes(4, "big")
            return packed.to_bytes(8, "big")
        return ns.to_bytes(4, "big") + s.to_bytes(8, "big", signed=True)

    @staticmethod
    def from_unix(unix_sec):
        """From seconds since the epoch (int or float)."""
        seconds = int(unix_sec // 1)
        nanoseconds = int((unix_sec % 1) * _GIGA)
        return Timestamp(seconds, nanoseconds)

    def to_unix(self):
        """Seconds since the epoch, as a float."""
        return self.seconds + self.nanoseconds / 1e9

    @staticmethod
    def from_unix_nano(unix_ns):
        """From nanoseconds since the epoch (an int)."""
        return Timestamp(*divmod(unix_ns, _GIGA))

    def to_unix_nano(self):
        """Nanoseconds since the epoch, an int."""
        return self.seconds * _GIGA + self.nanoseconds

    def to_datetime(self):
        """An aware datetime in UTC (the nanoseconds cut to microseconds)."""
        return _EPOCH + _dt.timedelta(seconds=self.seconds, microseconds=self.nanoseconds // 1000)

    @staticmethod
    def from_datetime(dt):
        """From a datetime (a naive one is local time, as ``dt.timestamp()`` reads it)."""
        if dt.tzinfo is None:
            dt = dt.astimezone(_UTC)
        delta = dt - _EPOCH
        return Timestamp(delta.days * 86400 + delta.seconds, delta.microseconds * 1000)


__all__ = ["ExtType", "Timestamp"]

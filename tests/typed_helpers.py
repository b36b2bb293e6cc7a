"""Typed decoding under test three ways: JSON (``loads``), MessagePack (``unpackb``) and
Python objects (``convert``), with the peer that does the same (msgspec).

A test writes its input as a Python value made of builtins; :meth:`TypedFormat.decode`
encodes it for the format (``dumps``/``packb``) and decodes it into the type, so one test
body checks all three inputs. ``peer`` runs msgspec on the same input, for differential
tests of values and messages.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import msgspec
import orcodec
import pytest


@dataclasses.dataclass(frozen=True)
class TypedFormat:
    name: str  # "json", "msgpack" or "convert": used in test ids
    encode: Callable[[Any], Any]
    decode_data: Callable[..., Any]
    # The exception ValidationError is also an instance of for this input.
    format_error: type[Exception]
    peer_decode: Callable[..., Any]
    # What a message calls a missing value (msgspec: `null` in JSON, `None` in MessagePack).
    null: str

    def __repr__(self) -> str:
        return self.name

    def decode(self, value: Any, tp: Any, **kwargs: Any) -> Any:
        return self.decode_data(self.encode(value), type=tp, **kwargs)

    def peer(self, value: Any, tp: Any, **kwargs: Any) -> Any:
        return self.peer_decode(self.encode(value), type=tp, **kwargs)

    def error(self, value: Any, tp: Any, **kwargs: Any) -> orcodec.ValidationError:
        """The ValidationError decoding ``value`` into ``tp`` raises."""
        with pytest.raises(orcodec.ValidationError) as info:
            self.decode(value, tp, **kwargs)
        assert isinstance(info.value, self.format_error)
        return info.value

    def peer_error(self, value: Any, tp: Any, **kwargs: Any) -> str:
        with pytest.raises(msgspec.ValidationError) as info:
            self.peer(value, tp, **kwargs)
        return str(info.value)


def _convert(obj: Any, type: Any, **kwargs: Any) -> Any:  # noqa: A002 - the API's name
    return orcodec.convert(obj, type, **kwargs)


def _peer_convert(obj: Any, type: Any, **kwargs: Any) -> Any:  # noqa: A002
    return msgspec.convert(obj, type, **kwargs)


JSON = TypedFormat(
    "json",
    lambda v: orcodec.dumps(v, option=orcodec.OPT_NON_STR_KEYS),
    orcodec.loads,
    orcodec.JSONDecodeError,
    msgspec.json.decode,
    "null",
)
MSGPACK = TypedFormat(
    "msgpack",
    lambda v: orcodec.packb(v, option=orcodec.OPT_NON_STR_KEYS),
    orcodec.unpackb,
    orcodec.MsgpackDecodeError,
    msgspec.msgpack.decode,
    "None",
)
CONVERT = TypedFormat("convert", lambda v: v, _convert, orcodec.ValidationError, _peer_convert, "null")

FORMATS = [JSON, MSGPACK, CONVERT]
STREAMS = [JSON, MSGPACK]


def exact(actual: Any, expected: Any) -> None:
    """Equal, and of exactly the same type, all the way down (dataclasses included)."""
    assert type(actual) is type(expected), (actual, expected)
    if isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), (actual, expected)
        for a, e in zip(actual, expected):
            exact(a, e)
    elif isinstance(expected, dict):
        assert list(actual) == list(expected), (actual, expected)
        for k in expected:
            exact(actual[k], expected[k])
    elif dataclasses.is_dataclass(expected):
        for f in dataclasses.fields(expected):
            exact(getattr(actual, f.name), getattr(expected, f.name))
    else:
        assert actual == expected, (actual, expected)

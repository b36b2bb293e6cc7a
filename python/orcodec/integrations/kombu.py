"""orcodec serializers for kombu and Celery.

Two serializers, registered with kombu's registry by `register()` or, with
orcodec installed, by its `kombu.serializers` entry points when kombu loads
(so `task_serializer="orcodec-msgpack"` works without an import):

- `orcodec-json`: `application/json`, `utf-8`;
- `orcodec-msgpack`: `application/x-msgpack`, `binary`;
- `orcodec-msgpack-numpy`: `application/x-orcodec-msgpack-numpy`, `binary`:
  `orcodec-msgpack` with numpy arrays and scalars as orcodec's numpy
  extension (`OPT_NUMPY_EXT`), so they arrive as arrays of the same dtype
  and shape, bit for bit. Only orcodec reads it: its own content type keeps
  it apart from the other two.

kombu keys its decoders by content type, so the first two also decode every
`application/json` and `application/x-msgpack` message the process receives,
including those from producers using kombu's own `json` and `msgpack`
serializers. They are built to be exchangeable with those:

- Datetimes, dates, times, `Decimal` and `UUID` travel in kombu's envelope
  (`{"__type__": "datetime", "__value__": "..."}`), as kombu's `json` writes
  them, and every envelope kombu knows (including types added with
  `kombu.utils.json.register_type`) is decoded back to its object, in both
  formats. A consumer using kombu's `json` reads orcodec-json messages the
  same way.
- Other types orcodec serializes natively go as orcodec writes them:
  dataclasses and pydantic models as maps, numpy arrays as nested lists,
  enums as their values, non-str dict keys as in `json.dumps` (JSON) or as
  they are (MessagePack), integers beyond 64 bits as their exact digits
  (JSON; MessagePack has no encoding for them).
- JSON that orcodec's strict parser refuses but Python's `json` accepts
  (`NaN`, `Infinity`), and integers beyond 64 bits, which orcodec would read
  as floats, are decoded by kombu's `json` decoder instead, so nothing is
  lost. A MessagePack message orcodec refuses (an extension type) is decoded
  by msgpack-python, as kombu's `msgpack` would, when it is installed.

kombu is imported only when a message is encoded or decoded, or by
`register()`.
"""

from __future__ import annotations

import re
from typing import Any

import orcodec

__all__ = [
    "JSON_CONTENT_TYPE",
    "MSGPACK_CONTENT_TYPE",
    "MSGPACK_NUMPY_CONTENT_TYPE",
    "dumps_json",
    "dumps_msgpack",
    "dumps_msgpack_numpy",
    "json_codec",
    "loads_json",
    "loads_msgpack",
    "loads_msgpack_numpy",
    "msgpack_codec",
    "msgpack_numpy_codec",
    "register",
]

JSON_CONTENT_TYPE = "application/json"
MSGPACK_CONTENT_TYPE = "application/x-msgpack"
MSGPACK_NUMPY_CONTENT_TYPE = "application/x-orcodec-msgpack-numpy"

_PASSTHROUGH = orcodec.OPT_PASSTHROUGH_DATETIME | orcodec.OPT_PASSTHROUGH_UUID
_NATIVE = orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SERIALIZE_NUMPY | orcodec.OPT_SERIALIZE_PYDANTIC
_JSON_OPTION = _PASSTHROUGH | _NATIVE | orcodec.OPT_PASSTHROUGH_BIG_INT
_MSGPACK_OPTION = _PASSTHROUGH | _NATIVE
_UNPACK_OPTION = orcodec.OPT_NON_STR_KEYS
_MSGPACK_NUMPY_OPTION = _PASSTHROUGH | orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SERIALIZE_PYDANTIC | orcodec.OPT_NUMPY_EXT
_UNPACK_NUMPY_OPTION = orcodec.OPT_NON_STR_KEYS | orcodec.OPT_NUMPY_EXT

# 19 digits in a row may be an integer outside 64 bits (orcodec would read it
# as a float); Python's json keeps it exact. Floats as Python writes them
# have at most 17 digits in a row.
_LONG_DIGITS = re.compile(rb"[0-9]{19}")
_JSON_MARKER = b'"__type__"'
_MSGPACK_MARKER = b"\xa8__type__"


def _kombu_json():
    from kombu.utils import json as kombu_json

    return kombu_json


def _msgpack_python():
    try:
        import msgpack
    except ImportError:
        return None
    return msgpack


def _envelope(obj: Any) -> Any:
    """The `default` hook: kombu's envelope for the types kombu's json knows."""
    kombu_json = _kombu_json()
    reducer = getattr(obj, "__json__", None)
    if reducer is not None:
        return reducer()
    for cls, (marker, encode) in kombu_json._encoders.items():
        if isinstance(obj, cls):
            return encode(obj) if marker is None else {"__type__": marker, "__value__": encode(obj)}
    raise TypeError(f"Type is not serializable: {type(obj).__name__}")


def _json_default(obj: Any) -> Any:
    if isinstance(obj, int):  # beyond 64 bits: exact digits, as json.dumps writes them
        return orcodec.Fragment(int.__repr__(obj))
    if isinstance(obj, (bytes, bytearray, memoryview)):
        data = bytes(obj)
        try:
            return {"__type__": "bytes", "__value__": data.decode("utf-8")}
        except UnicodeDecodeError:
            import base64

            return {"__type__": "base64", "__value__": base64.b64encode(data).decode("ascii")}
    return _envelope(obj)


def _open_envelopes(value: Any) -> Any:
    """Replace each `{"__type__": ..., "__value__": ...}` map, innermost first, as kombu's `object_hook` does."""
    decoders = _kombu_json()._decoders

    def opened(d: dict) -> Any:
        if len(d) == 2 and "__type__" in d and "__value__" in d:
            decode = decoders.get(d["__type__"])
            if decode is None:
                raise ValueError("Unsupported type", d["__type__"], d)
            return decode(d["__value__"])
        return d

    if not isinstance(value, (dict, list)):
        return value
    root = [value]
    # Containers are visited with an explicit stack (no recursion limit);
    # each map is opened after its members, as the object hook would.
    stack: list[tuple[Any, Any, bool]] = [(root, 0, False)]
    while stack:
        parent, key, done = stack.pop()
        node = parent[key]
        if done:
            if type(node) is dict:
                parent[key] = opened(node)
            continue
        stack.append((parent, key, True))
        if type(node) is dict:
            for k, v in node.items():
                if isinstance(v, (dict, list)):
                    stack.append((node, k, False))
        elif type(node) is list:
            for i, v in enumerate(node):
                if isinstance(v, (dict, list)):
                    stack.append((node, i, False))
    return root[0]


def dumps_json(obj: Any) -> bytes:
    """Encode `obj` as orcodec-json: `orcodec.dumps` with kombu's envelopes."""
    return orcodec.dumps(obj, default=_json_default, option=_JSON_OPTION)


def loads_json(data: Any) -> Any:
    """Decode an `application/json` message body (bytes, str or a buffer)."""
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: Python's json reads it
            return _kombu_json().loads(data)
    elif not isinstance(data, bytes):
        data = bytes(data)
    if _LONG_DIGITS.search(data) is None:
        try:
            value = orcodec.loads(data)
        except orcodec.JSONDecodeError:
            pass
        else:
            return _open_envelopes(value) if _JSON_MARKER in data else value
    return _kombu_json().loads(data)


def dumps_msgpack(obj: Any) -> bytes:
    """Encode `obj` as orcodec-msgpack: `orcodec.packb` with kombu's envelopes."""
    return orcodec.packb(obj, default=_envelope, option=_MSGPACK_OPTION)


def loads_msgpack(data: Any) -> Any:
    """Decode an `application/x-msgpack` message body."""
    if not isinstance(data, bytes):
        data = bytes(data)
    try:
        value = orcodec.unpackb(data, option=_UNPACK_OPTION)
    except orcodec.MsgpackDecodeError:
        msgpack = _msgpack_python()
        if msgpack is None:
            raise
        value = msgpack.unpackb(data, raw=False)
    return _open_envelopes(value) if _MSGPACK_MARKER in data else value


def dumps_msgpack_numpy(obj: Any) -> bytes:
    """Encode `obj` as orcodec-msgpack-numpy: orcodec-msgpack with numpy's extension."""
    return orcodec.packb(obj, default=_envelope, option=_MSGPACK_NUMPY_OPTION)


def loads_msgpack_numpy(data: Any) -> Any:
    """Decode an `application/x-orcodec-msgpack-numpy` message body (arrays as writable copies)."""
    if not isinstance(data, bytes):
        data = bytes(data)
    value = orcodec.unpackb(data, option=_UNPACK_NUMPY_OPTION)
    return _open_envelopes(value) if _MSGPACK_MARKER in data else value


# What a `kombu.serializers` entry point names: the arguments of
# `kombu.serialization.register` after the name.
json_codec = (dumps_json, loads_json, JSON_CONTENT_TYPE, "utf-8")
msgpack_codec = (dumps_msgpack, loads_msgpack, MSGPACK_CONTENT_TYPE, "binary")
msgpack_numpy_codec = (dumps_msgpack_numpy, loads_msgpack_numpy, MSGPACK_NUMPY_CONTENT_TYPE, "binary")


def register() -> None:
    """Register `orcodec-json`, `orcodec-msgpack` and `orcodec-msgpack-numpy` with kombu's registry.

    Not needed when orcodec is installed with its entry points (kombu
    registers them when it loads); calling it again is harmless. A consumer
    still has to accept the content type, as for any serializer
    (`accept_content=["orcodec-msgpack"]` in Celery).
    """
    from kombu.serialization import register as kombu_register

    kombu_register("orcodec-json", *json_codec)
    kombu_register("orcodec-msgpack", *msgpack_codec)
    kombu_register("orcodec-msgpack-numpy", *msgpack_numpy_codec)

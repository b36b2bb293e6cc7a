"""The `"orcodec"` serialization family for Dask distributed.

`register()` adds the family to `distributed.protocol.serialize`; then

    Client(serializers=["orcodec", "dask", "pickle"],
           deserializers=["orcodec", "dask", "pickle"])

serializes the data the client sends and receives (scattered data, gathered
results) with orcodec wherever the family handles the value, and passes
anything else on to the next family in the list. Every process that reads
the data needs the family too: start workers with this module as a preload
(`LocalCluster(preload=["orcodec.integrations.dask"])`,
`dask worker --preload orcodec.integrations.dask`, or the
`distributed.worker.preload` setting), which calls `register()` there.

What the family handles, exactly (a value comes back equal and of the same
type):

- `None`, `bool`, `int` (64-bit), `float`, `str`, `bytes`, and `list`,
  `tuple` and `dict` with `str` keys made of these, as MessagePack;
- numpy arrays (`numpy.ndarray` itself, of bool, integer, float, complex,
  datetime64 or timedelta64 dtype, any byte order): a top-level array's data
  travels as its own frame without a copy (one copy first if it is not
  C-contiguous); arrays inside containers travel inside the MessagePack
  frame. Arrays come back writable, in the same dtype and shape.

Anything else anywhere in the value (sets, subclasses of the builtins,
dataclasses, datetimes, integers beyond 64 bits, dicts with non-str keys,
object arrays, numpy scalars...) makes the whole value go to the next family:
the family never changes a value's type. `bytearray` and `memoryview` are the
exception: they are written as MessagePack bin and come back as `bytes`.

distributed is imported by `register()`; numpy only when an array is met.
"""

from __future__ import annotations

from typing import Any

import orcodec

__all__ = ["FAMILY", "dask_setup", "deserialize", "register", "serialize"]

FAMILY = "orcodec"

# Everything that is not a plain builtin goes to `_default`, which either
# encodes it as one of the extension types below or refuses it.
_OPTION = (
    orcodec.OPT_PASSTHROUGH_SUBCLASS
    | orcodec.OPT_PASSTHROUGH_TUPLE
    | orcodec.OPT_PASSTHROUGH_DATACLASS
    | orcodec.OPT_PASSTHROUGH_DATETIME
    | orcodec.OPT_PASSTHROUGH_UUID
    | orcodec.OPT_PASSTHROUGH_ENUM
    | orcodec.OPT_PASSTHROUGH_BIG_INT
)
_EXT_TUPLE = 1
_EXT_NDARRAY = 2
_ARRAY_KINDS = frozenset("biufcmM")


class _Refused(Exception):
    """A value the family does not carry exactly."""


def _plain_array(obj: Any) -> bool:
    numpy = _numpy_if_loaded()
    return (
        numpy is not None
        and type(obj) is numpy.ndarray
        and obj.dtype.kind in _ARRAY_KINDS
        and obj.dtype.fields is None
        and obj.dtype.subdtype is None
    )


def _numpy_if_loaded() -> Any:
    # An array can only exist if numpy is imported already.
    import sys

    return sys.modules.get("numpy")


def _default(obj: Any) -> Any:
    if type(obj) is tuple:
        return orcodec.Ext(_EXT_TUPLE, _pack(list(obj)))
    if _plain_array(obj):
        data = obj.tobytes(order="C")
        return orcodec.Ext(_EXT_NDARRAY, _pack([obj.dtype.str, list(obj.shape), data]))
    raise _Refused(type(obj).__qualname__)


def _pack(obj: Any) -> bytes:
    return orcodec.packb(obj, default=_default, option=_OPTION)


def _ext_hook(tag: int, data: bytes) -> Any:
    if tag == _EXT_TUPLE:
        return tuple(_unpack(data))
    if tag == _EXT_NDARRAY:
        import numpy

        dtype, shape, raw = _unpack(data)
        return numpy.frombuffer(raw, dtype=numpy.dtype(dtype)).reshape(shape).copy()
    raise ValueError(f"orcodec family: unknown extension type {tag}")


def _unpack(data: Any) -> Any:
    return orcodec.unpackb(data, ext_hook=_ext_hook)


def serialize(obj: Any) -> tuple[dict[str, Any], list[Any]]:
    """The family's `dumps`: a header and frames, or `NotImplementedError` for a value it does not carry."""
    if _plain_array(obj):
        array = obj if obj.flags.c_contiguous else obj.copy(order="C")
        header = {"kind": "ndarray", "dtype": array.dtype.str, "shape": list(array.shape)}
        return header, [memoryview(array.reshape(-1).view("u1")) if array.size else b""]
    try:
        frame = _pack(obj)
    except (orcodec.MsgpackEncodeError, _Refused, RecursionError) as exc:
        raise NotImplementedError(f"orcodec family does not carry {type(obj).__qualname__}") from exc
    return {"kind": "msgpack"}, [frame]


def deserialize(header: dict[str, Any], frames: list[Any]) -> Any:
    """The family's `loads`."""
    if header.get("kind") == "ndarray":
        import numpy

        raw = frames[0] if len(frames) == 1 else b"".join(frames)
        array = numpy.frombuffer(raw, dtype=numpy.dtype(header["dtype"])).reshape(header["shape"])
        return array if array.flags.writeable else array.copy()
    data = frames[0] if len(frames) == 1 else b"".join(frames)
    return _unpack(data)


def register() -> None:
    """Register the `"orcodec"` family with distributed (in this process; harmless to repeat)."""
    from distributed.protocol.serialize import register_serialization_family

    register_serialization_family(FAMILY, serialize, deserialize)


def dask_setup(worker: Any = None) -> None:
    """Preload hook: distributed calls it in each worker (or scheduler, nanny) started with this module."""
    register()

"""atheris: arbitrary bytes (or generated nested lists of numbers) decoded into numpy
array types, JSON and MessagePack (the first byte picks the type and the format).
Never a crash; a decode either raises the format's error or gives an array that is
bit for bit what convert() makes of the untyped decode of the same bytes, and, for a
given dtype, what np.array makes of it. A ValidationError from the bytes is one from
convert too."""

import json
import sys
import typing
import warnings

import atheris

with atheris.instrument_imports():
    import numpy as np
    import orcodec
    from numpy.typing import NDArray

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
DTYPES += [np.float16, np.float32, np.float64]
TYPES = [NDArray[d] for d in DTYPES] + [np.ndarray, list[NDArray[np.float64]], typing.Optional[NDArray[np.int8]]]  # noqa: UP045
# Stated shapes: checked after the array is read, by convert alike.
TYPES += [np.ndarray[tuple[int, int], np.dtype[np.float64]], np.ndarray[tuple[typing.Literal[2]], np.dtype[np.int64]]]
DECODERS = [orcodec.Decoder(t) for t in TYPES] + [orcodec.Decoder(t, strict=False) for t in TYPES]
ERRORS = (orcodec.JSONDecodeError, orcodec.MsgpackDecodeError)


def generate(fdp: atheris.FuzzedDataProvider, depth: int = 0):
    """Nested lists of numbers, mostly rectangular."""
    kind = fdp.ConsumeIntInRange(0, 7 if depth < 5 else 4)
    if kind == 0:
        return fdp.PickValueInList([True, False, None, "x"])
    if kind == 1:
        return fdp.ConsumeIntInRange(-(2**63), 2**64 - 1)
    if kind == 2:
        return fdp.ConsumeIntInRange(-200, 300)
    if kind in (3, 4):
        return fdp.ConsumeFloat()
    n = fdp.ConsumeIntInRange(0, 4)
    item = generate(fdp, depth + 1)
    if kind == 5:
        return [generate(fdp, depth + 1) for _ in range(n)]
    return [item] * n


def bits(value):
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, list):
        return [bits(v) for v in value]
    return value


def _note_source() -> str:
    """One branch per decoder, format and outcome (the native code is not
    instrumented, so these tell libFuzzer that an input reached a new type,
    format or kind of failure)."""
    lines = ["def note(index, outcome):"]
    lines += [f"    if index == {i}:\n        pass" for i in range(len(DECODERS) * 2)]
    lines += [f"    if outcome == {i}:\n        pass" for i in range(3)]
    return "\n".join(lines)


exec(_note_source())  # noqa: S102 - builds `note`, with its branches written out
note = atheris.instrument_func(note)  # noqa: F821


@atheris.instrument_func
def test_one_input(data: bytes) -> None:
    if not data:
        return
    pick, body = data[0], data[1:]
    index = pick % len(DECODERS)
    decoder = DECODERS[index]
    msgpack = pick & 0x80 != 0
    if body[:1] == b"\x00":
        value = generate(atheris.FuzzedDataProvider(body[1:]))
        try:
            body = orcodec.packb(value) if msgpack else orcodec.dumps(value)
        except (orcodec.JSONEncodeError, orcodec.MsgpackEncodeError):
            return
    decode = decoder.unpackb if msgpack else decoder.loads
    try:
        out = decode(body)
    except ERRORS as error:
        valid = not isinstance(error, orcodec.ValidationError)
        note(index + len(DECODERS) * msgpack, 1 if valid else 2)
        if not valid:
            if not msgpack and "in the range of `float" in str(error):
                # A JSON number beyond float64 (`1e400`) is out of range for every float
                # type, as untyped loads refuses it; the stdlib would read an infinity.
                try:
                    orcodec.loads(body)
                except orcodec.JSONDecodeError as untyped:
                    if untyped.msg == "number is infinity when parsed as double":
                        return
            try:
                plain = orcodec.unpackb(body) if msgpack else json.loads(body)
            except (ValueError, RecursionError):
                return
            try:
                decoder.convert(plain)
            except orcodec.ValidationError:
                return
            raise AssertionError(f"{decoder!r}: {error} but convert took {plain!r}") from None
        return
    note(index + len(DECODERS) * msgpack, 0)
    plain = orcodec.unpackb(body) if msgpack else orcodec.loads(body)
    expected = decoder.convert(plain)
    if bits(out) != bits(expected):
        raise AssertionError(f"{decoder!r}: {out!r} != convert {expected!r}")
    tp = decoder.type
    if tp in TYPES[: len(DTYPES)] and isinstance(out, np.ndarray):
        dtype = DTYPES[TYPES.index(tp)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference = np.array(plain, dtype=dtype)
        if bits(out) != bits(reference):
            raise AssertionError(f"{decoder!r}: {out!r} != np.array {reference!r}")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()

"""Files and file-likes: msgpack-python's pack/unpack and the stdlib json's
dump/load names, on top of packb/unpackb and dumps/loads."""

import io

from ._orcodec import dumps, loads, packb, unpackb


def pack(obj, stream, *, default=None, option=None, numpy_ext_code=None):
    """Serialize obj to MessagePack and write it to stream, like msgpack.pack:
    stream.write(packb(obj, default=default, option=option)).

    Raises what packb raises, and what stream.write raises.
    """
    stream.write(packb(obj, default=default, option=option, numpy_ext_code=numpy_ext_code))


def unpack(stream, *, ext_hook=None, option=None, numpy_ext_code=None, type=None, strict=True, dec_hook=None):
    """Deserialize the one MessagePack value stream.read() returns, like
    msgpack.unpack: unpackb(stream.read(), ...) with the same keyword
    arguments. To read values one after the other from a stream, use
    Unpacker(stream).

    Raises what unpackb raises, and what stream.read raises.
    """
    data = stream.read()
    if type is None and strict is True and dec_hook is None:
        return unpackb(data, ext_hook=ext_hook, option=option, numpy_ext_code=numpy_ext_code)
    return unpackb(
        data,
        ext_hook=ext_hook,
        option=option,
        numpy_ext_code=numpy_ext_code,
        type=type,
        strict=strict,
        dec_hook=dec_hook,
    )


def dump(obj, fp, *, default=None, option=None):
    """Serialize obj to JSON and write it to fp, like json.dump: the bytes of
    dumps(obj, default=default, option=option), or their text when fp is a
    text file (an io.TextIOBase).

    Raises what dumps raises, and what fp.write raises.
    """
    data = dumps(obj, default=default, option=option)
    fp.write(data.decode("utf-8") if isinstance(fp, io.TextIOBase) else data)


def load(fp, *, type=None, strict=True, dec_hook=None):
    """Deserialize the JSON document fp.read() returns (bytes or str), like
    json.load: loads(fp.read()), into type when one is given (as
    loads(..., type=type) does). For JSON Lines, use iter_lines(fp).

    Raises what loads raises, and what fp.read raises.
    """
    data = fp.read()
    if type is None and strict is True and dec_hook is None:
        return loads(data)
    return loads(data, type=type, strict=strict, dec_hook=dec_hook)

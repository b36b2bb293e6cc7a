"""Files and file-likes: msgpack-python's pack/unpack and the stdlib json's
dump/load names, on top of packb/unpackb and dumps/loads."""

import io

from ._orcodec import dumps, loads, packb, unpackb


def pack(obj, stream, *, default=None, option=None):
    """Serialize obj to MessagePack and write it to stream, like msgpack.pack:
    stream.write(packb(obj, default=default, option=option)).

    Raises what packb raises, and what stream.write raises.
    """
    stream.write(packb(obj, default=default, option=option))


def unpack(stream, *, ext_hook=None, option=None):
    """Deserialize the one MessagePack value stream.read() returns, like
    msgpack.unpack: unpackb(stream.read(), ext_hook=ext_hook, option=option).
    To read values one after the other from a stream, use Unpacker(stream).

    Raises what unpackb raises, and what stream.read raises.
    """
    return unpackb(stream.read(), ext_hook=ext_hook, option=option)


def dump(obj, fp, *, default=None, option=None):
    """Serialize obj to JSON and write it to fp, like json.dump: the bytes of
    dumps(obj, default=default, option=option), or their text when fp is a
    text file (an io.TextIOBase).

    Raises what dumps raises, and what fp.write raises.
    """
    data = dumps(obj, default=default, option=option)
    fp.write(data.decode("utf-8") if isinstance(fp, io.TextIOBase) else data)


def load(fp):
    """Deserialize the JSON document fp.read() returns (bytes or str), like
    json.load: loads(fp.read()). For JSON Lines, use iter_lines(fp).

    Raises what loads raises, and what fp.read raises.
    """
    return loads(fp.read())

"""orcodec.msgpack.Unpacker, whose buffer and methods are the extension's,
held to msgpack-python's Unpacker: hooks that call back into the unpacker,
raise or return anything, re-initialisation, file-likes that misbehave,
subclasses, collection, and a value fed a byte at a time read in linear
time."""

import gc
import io
import time
import weakref

import msgpack
import orcodec.msgpack as om
import pytest

MODULES = (om, msgpack)


def outcome(call):
    try:
        return ("ok", call())
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return ("raised", type(e).__name__)


def test_hooks_calling_back_into_the_unpacker():
    # From inside a hook: tell() answers, every other method refuses.
    for method in ["tell", "unpack", "skip", "read_array_header", "read_bytes", "feed", "init", "next"]:
        results = []
        for module in MODULES:
            seen = []

            def hook(d, box=[], seen=seen, method=method):  # noqa: B006 - the box holds the unpacker
                u = box[0]
                calls = {
                    "tell": u.tell,
                    "unpack": u.unpack,
                    "skip": u.skip,
                    "read_array_header": u.read_array_header,
                    "read_bytes": lambda: u.read_bytes(1),
                    "feed": lambda: u.feed(b"\x01"),
                    "init": lambda: u.__init__(),
                    "next": lambda: next(u),
                }
                seen.append(outcome(calls[method]))
                return d

            u = module.Unpacker(object_hook=hook)
            hook.__defaults__[0].append(u)
            u.feed(b"\x92\x81\xa1a\x01\x07\x05")
            results.append([outcome(u.unpack), seen, u.tell(), outcome(u.unpack)])
        assert results[0] == results[1], method


@pytest.mark.parametrize(
    "hook",
    [
        lambda v: None,
        lambda v: 7,
        lambda v: object,
        lambda v: v * 2 if isinstance(v, list) else v,
    ],
)
def test_hooks_return_anything_or_raise(hook):
    data = msgpack.packb([{"a": [1, 2]}, [3, {"b": None}]]) + msgpack.packb(9)
    for hooks in ({"object_hook": hook}, {"list_hook": hook}, {"object_pairs_hook": hook}):
        results = []
        for module in MODULES:
            u = module.Unpacker(**hooks)
            u.feed(data)
            results.append([outcome(u.unpack), u.tell(), outcome(u.unpack), u.tell(), outcome(u.unpack)])
        assert results[0] == results[1], hooks


def test_a_hook_that_raises():
    # Its exception, the failed value dropped whole (the documented
    # deviation: msgpack-python goes on inside it), the stream goes on after.
    def hook(v):
        raise KeyError("no")

    data = msgpack.packb([{"a": [1, 2]}, [3, {"b": None}]]) + msgpack.packb(9)
    for name in ("object_hook", "list_hook", "object_pairs_hook"):
        u = om.Unpacker(**{name: hook})
        u.feed(data)
        with pytest.raises(KeyError):
            u.unpack()
        assert u.tell() == len(data) - 1
        assert u.unpack() == 9
    u = om.Unpacker(ext_hook=lambda code, data: 1 / 0)
    u.feed(msgpack.packb([msgpack.ExtType(3, b"xy"), 1]) + b"\x05")
    with pytest.raises(ZeroDivisionError):
        u.unpack()
    assert u.unpack() == 5


def test_ext_hook_returns_anything_or_raises():
    data = msgpack.packb([msgpack.ExtType(3, b"xy"), 1]) + b"\x05"
    for hook in (lambda c, d: None, lambda c, d: (c, d), lambda c, d: [d] * 3):
        results = []
        for module in MODULES:
            u = module.Unpacker(ext_hook=hook)
            u.feed(data)
            results.append([outcome(u.unpack), u.tell(), outcome(u.unpack), u.tell()])
        assert results[0] == results[1]


def test_reinit_starts_over():
    for module in MODULES:
        u = module.Unpacker()
        u.feed(b"\x01\x92\x01")
        assert u.unpack() == 1
        with pytest.raises(module.OutOfData):
            u.unpack()
        u.__init__(use_list=False)
        assert u.tell() == 0
        u.feed(b"\x92\x03\x04")
        assert u.unpack() == (3, 4)
        assert u.tell() == 3


def test_file_like_that_misbehaves():
    class Reads:
        def __init__(self, chunks):
            self.chunks = list(chunks)

        def read(self, n):
            chunk = self.chunks.pop(0)
            if isinstance(chunk, Exception):
                raise chunk
            return chunk

    # read() raising: the exception, the position kept.
    for module in MODULES:
        u = module.Unpacker(Reads([b"\x92\x01", OSError("disk"), b"\x02", b""]))
        with pytest.raises(OSError, match="disk"):
            u.unpack()
        assert u.tell() == 2
        assert u.unpack() == [1, 2]
        with pytest.raises(module.OutOfData):
            u.unpack()
    # read() returning no bytes-like object.
    u = om.Unpacker(Reads([b"\x92", 3]))
    with pytest.raises(TypeError):
        u.unpack()
    # read() returning more than asked: BufferFull past max_buffer_size.
    for module in MODULES:
        u = module.Unpacker(Reads([b"\x01" * 10]), read_size=4, max_buffer_size=8)
        with pytest.raises(module.BufferFull):
            u.unpack()
    # Once the file has ended, msgpack-python's Unpacker may be fed.
    results = []
    for module in MODULES:
        u = module.Unpacker(io.BytesIO(b"\x01"))
        got = [u.unpack(), outcome(u.unpack), outcome(lambda u=u: u.feed(b"\x02")), outcome(u.unpack)]
        results.append(got)
    assert results[0] == results[1]
    # read_bytes reads past the buffer from the file.
    results = []
    for module in MODULES:
        u = module.Unpacker(io.BytesIO(b"\x01abcdef\x02"), read_size=2)
        results.append([u.unpack(), u.read_bytes(4), u.tell(), u.read_bytes(2), u.tell(), u.unpack(), u.tell()])
    assert results[0] == results[1]


def test_feed_takes_any_contiguous_buffer():
    import array

    for data in [b"\x92\x01\x02", bytearray(b"\x92\x01\x02"), memoryview(b"\x00\x92\x01\x02")[1:]]:
        u = om.Unpacker()
        u.feed(data)
        assert u.unpack() == [1, 2]
    u = om.Unpacker()
    u.feed(array.array("B", [0x92, 1, 2]))
    assert u.unpack() == [1, 2]
    with pytest.raises(TypeError):
        om.Unpacker().feed("text")


def test_subclass_and_collection():
    class Mine(om.Unpacker):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.label = "mine"

        def unpack(self):
            return ("mine", super().unpack())

    u = Mine(use_list=False)
    u.feed(b"\x92\x01\x02\x03")
    assert u.unpack() == ("mine", (1, 2))
    assert next(u) == 3
    assert u.label == "mine"
    # A hook that holds its unpacker: a cycle the collector frees.
    u = om.Unpacker(object_hook=lambda d: d)
    u.keep = u
    u.feed(b"\x80")
    ref = weakref.ref(u)
    del u
    gc.collect()
    assert ref() is None


def test_without_init():
    u = om.Unpacker.__new__(om.Unpacker)
    with pytest.raises(TypeError, match="__init__"):
        u.unpack()
    assert u.tell() == 0


def fed_a_byte_at_a_time(u, data):
    """Feeds `data` to `u` a byte at a time, iterating after each: the
    positions every 50,000 bytes."""
    tells = []
    for i in range(len(data)):
        u.feed(data[i : i + 1])
        for _ in u:
            pass
        if i % 50_000 == 0:
            tells.append(u.tell())
    return tells


def test_a_value_fed_a_byte_at_a_time_is_read_once():
    # 200,000 items: scanned again from its start at each feed, the value
    # would take some 2 * 10**10 steps.
    data = msgpack.packb(list(range(100)) * 2000)
    u = om.Unpacker()
    start = time.perf_counter()
    tells = fed_a_byte_at_a_time(u, data)
    elapsed = time.perf_counter() - start
    assert tells == fed_a_byte_at_a_time(msgpack.Unpacker(), data)
    assert u.tell() == len(data)
    assert elapsed < 20, elapsed

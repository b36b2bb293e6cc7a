"""Unpacker, Packer and the file functions (pack/unpack, dump/load): every chunking of
every fixture's stream gives what unpackb gives each message, and what msgpack.Unpacker
gives on the same stream; OutOfData, BufferFull and stream offsets in errors; hostile
streams (a length bomb mid-stream, a truncated tail, deep nesting) end in an exception,
never a crash or a large allocation."""

from __future__ import annotations

import dataclasses
import datetime as dt
import gc
import io
import random
import weakref

import msgpack
import numpy as np
import orcodec
import pytest
from helpers import DOCUMENTS, fixture_bytes

FIXTURES = DOCUMENTS

SMALL_VALUES = [
    None,
    True,
    0,
    -1,
    2**64 - 1,
    -(2**63),
    1.5,
    "",
    "é" * 40,
    "x" * 70000,
    b"\x00" * 300,
    [],
    {},
    [1, [2, [3, {"k": "v"}]]],
    {"a": {"b": [None, 1.25, "c"]}},
    list(range(20)),
    {str(i): i for i in range(20)},
]


def fixture_messages(name: str) -> list[bytes]:
    doc = orcodec.loads(fixture_bytes(f"{name}.json"))
    # The whole document, then its parts one by one (many small messages).
    parts = list(doc.values()) if isinstance(doc, dict) else list(doc)
    if isinstance(doc, dict) and len(doc) < 4:
        parts = [item for v in doc.values() for item in (v if isinstance(v, list) else [v])]
    return [orcodec.packb(doc)] + [orcodec.packb(p) for p in parts[:500]]


@pytest.fixture(scope="module", params=FIXTURES)
def stream(request):
    messages = fixture_messages(request.param)
    return messages, [orcodec.unpackb(m) for m in messages]


def chunks(data: bytes, size: int):
    return [data[i : i + size] for i in range(0, len(data), size)]


def random_chunks(data: bytes, seed: int):
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(data):
        n = rng.choice([1, 2, 3, 5, 17, 100, 4096, 70000])
        out.append(data[i : i + n])
        i += n
    return out


def feed_all(unpacker, pieces):
    """Feeds the pieces one by one, taking out every complete value after each feed;
    returns the values and tell() after each value."""
    values, offsets = [], []
    for piece in pieces:
        unpacker.feed(piece)
        for value in unpacker:
            values.append(value)
            offsets.append(unpacker.tell())
    return values, offsets


def expected_offsets(messages):
    offsets, at = [], 0
    for m in messages:
        at += len(m)
        offsets.append(at)
    return offsets


# ---------------------------------------------------------------------------------------
# Every chunking gives unpackb's values, at the right offsets
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 4096, 1 << 30])
def test_every_chunking_of_fixture_streams_gives_unpackb(stream, size):
    messages, expected = stream
    data = b"".join(messages)
    values, offsets = feed_all(orcodec.Unpacker(max_buffer_size=0), chunks(data, size))
    assert values == expected
    assert offsets == expected_offsets(messages)


@pytest.mark.parametrize("seed", range(3))
def test_random_chunkings_give_unpackb(stream, seed):
    messages, expected = stream
    data = b"".join(messages)
    values, _ = feed_all(orcodec.Unpacker(max_buffer_size=0), random_chunks(data, seed))
    assert values == expected


@pytest.mark.parametrize("size", [1, 5, 4096])
def test_small_values_stream_every_chunking(size):
    messages = [orcodec.packb(v) for v in SMALL_VALUES]
    values, offsets = feed_all(orcodec.Unpacker(), chunks(b"".join(messages), size))
    assert values == SMALL_VALUES
    assert offsets == expected_offsets(messages)


def test_every_split_point_of_a_two_message_stream():
    messages = [orcodec.packb({"a": [1, "xyz" * 20, 2.5], "b": {"c": None}}), orcodec.packb([b"bin" * 50, -7])]
    data = b"".join(messages)
    expected = [orcodec.unpackb(m) for m in messages]
    for i in range(len(data) + 1):
        for j in range(i, len(data) + 1):
            values, _ = feed_all(orcodec.Unpacker(), [data[:i], data[i:j], data[j:]])
            assert values == expected, (i, j)


# ---------------------------------------------------------------------------------------
# Equality with msgpack.Unpacker
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 3, 4096])
def test_same_values_and_offsets_as_msgpack_unpacker(stream, size):
    messages, _ = stream
    data = b"".join(messages)
    theirs = msgpack.Unpacker(raw=False, max_buffer_size=0)
    ours = orcodec.Unpacker(max_buffer_size=0)
    assert feed_all(ours, chunks(data, size)) == feed_all(theirs, chunks(data, size))


def test_same_as_msgpack_unpacker_on_small_values_with_file_like():
    data = b"".join(orcodec.packb(v) for v in SMALL_VALUES)
    for read_size in [1, 2, 10, 1000, 0]:
        ours = orcodec.Unpacker(io.BytesIO(data), read_size=read_size)
        theirs = msgpack.Unpacker(io.BytesIO(data), read_size=read_size or 16 * 1024, raw=False)
        assert list(ours) == list(theirs) == SMALL_VALUES
        assert ours.tell() == theirs.tell() == len(data)


def test_unpack_skip_tell_and_out_of_data_as_msgpack():
    data = b"".join(orcodec.packb(v) for v in [1, "two", [3], {"4": 4}])
    results = []
    for mod in (orcodec, msgpack):
        u = mod.Unpacker()
        u.feed(data[:-1])
        got = [u.unpack(), u.tell(), u.skip(), u.tell(), u.unpack(), u.tell()]
        with pytest.raises(mod.OutOfData, match=r"^No more data to unpack\.$"):
            u.unpack()
        if mod is orcodec:
            # msgpack refuses to switch to skip() while a value is incomplete.
            with pytest.raises(mod.OutOfData):
                u.skip()
        assert list(u) == []
        u.feed(data[-1:])
        got += [u.unpack(), u.tell(), list(u)]
        results.append(got)
    assert results[0] == results[1] == [1, 1, None, 5, [3], 7, {"4": 4}, 11, []]


def test_iteration_resumes_after_a_later_feed():
    u = orcodec.Unpacker()
    u.feed(b"\x92\x01")
    assert list(u) == []
    u.feed(b"\x02\x03")
    assert list(u) == [[1, 2], 3]
    assert list(u) == []


def test_out_of_data_and_buffer_full_are_exceptions_exported():
    assert issubclass(orcodec.OutOfData, Exception)
    assert issubclass(orcodec.BufferFull, Exception)
    assert orcodec.OutOfData.__module__ == "orcodec" and orcodec.BufferFull.__module__ == "orcodec"


# ---------------------------------------------------------------------------------------
# file_like and read_size
# ---------------------------------------------------------------------------------------


class CountingReader:
    def __init__(self, data: bytes):
        self.f = io.BytesIO(data)
        self.sizes = []

    def read(self, n):
        self.sizes.append(n)
        return self.f.read(n)


@pytest.mark.parametrize("read_size", [1, 7, 4096, 0])
def test_file_like_reads_read_size_chunks(stream, read_size):
    messages, expected = stream
    reader = CountingReader(b"".join(messages))
    u = orcodec.Unpacker(reader, read_size=read_size, max_buffer_size=0)
    assert list(u) == expected
    assert set(reader.sizes) == {read_size or 16 * 1024}
    assert u.tell() == sum(map(len, messages))


def test_file_like_truncated_tail_is_out_of_data():
    u = orcodec.Unpacker(io.BytesIO(b"\x01\x92\x01"))
    assert u.unpack() == 1
    with pytest.raises(orcodec.OutOfData):
        u.unpack()
    u = orcodec.Unpacker(io.BytesIO(b"\x01\x92\x01"))
    assert list(u) == [1]


def test_file_like_errors():
    with pytest.raises(TypeError, match="`file_like.read` must be callable"):
        orcodec.Unpacker(object())
    u = orcodec.Unpacker(io.BytesIO(b""))
    with pytest.raises(AssertionError):
        u.feed(b"\x01")

    class TextReader:
        def read(self, n):
            return "text"

    with pytest.raises(TypeError, match=r"file_like.read\(\) must return bytes"):
        orcodec.Unpacker(TextReader()).unpack()

    class Failing:
        def read(self, n):
            raise OSError("disk gone")

    with pytest.raises(OSError, match="disk gone"):
        orcodec.Unpacker(Failing()).unpack()


def test_read_may_not_call_back_into_the_unpacker():
    class Reentrant:
        def read(self, n):
            with pytest.raises(RuntimeError, match="already in use"):
                u.unpack()
            with pytest.raises(RuntimeError, match="already in use"):
                u.tell()
            return b""

    u = orcodec.Unpacker(Reentrant())
    with pytest.raises(orcodec.OutOfData):
        u.unpack()


def test_read_returning_bytearray_and_memoryview():
    class Reader:
        def __init__(self):
            self.parts = [bytearray(b"\x92\x01"), memoryview(b"\x02\xa1x")]

        def read(self, n):
            return self.parts.pop(0) if self.parts else b""

    assert list(orcodec.Unpacker(Reader())) == [[1, 2], "x"]


# ---------------------------------------------------------------------------------------
# Errors: offsets, BufferFull, hostile streams
# ---------------------------------------------------------------------------------------


def test_decode_error_carries_the_stream_offset_and_the_next_value_follows():
    first = orcodec.packb({"a": "b" * 300})
    u = orcodec.Unpacker()
    u.feed(first + b"\xc7\x01\x05a" + b"\x07")
    assert u.unpack() == {"a": "b" * 300}
    offset = len(first)
    # unpackb's (ormsgpack's) message; the offset in the stream is pos.
    with pytest.raises(orcodec.MsgpackDecodeError, match="(?m)^ext_hook missing$") as info:
        u.unpack()
    assert info.value.pos == offset
    assert f"at byte {offset}" in info.value.__notes__
    assert u.unpack() == 7
    assert u.tell() == offset + 5


def test_error_inside_a_value_reports_its_stream_offset():
    # An invalid UTF-8 str inside the second value's map.
    first = orcodec.packb(list(range(100)))
    bad = b"\x81\xa1k\xa2\xff\xfe"
    u = orcodec.Unpacker()
    u.feed(first + bad)
    assert u.unpack() == list(range(100))
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        u.unpack()
    with pytest.raises(orcodec.MsgpackDecodeError) as direct:
        orcodec.unpackb(bad)
    assert str(info.value) == str(direct.value).replace("at byte 3", f"at byte {len(first) + 3}")


def test_reserved_byte_ends_the_stream():
    u = orcodec.Unpacker()
    u.feed(b"\x01\xc1\x02")
    assert u.unpack() == 1
    for _ in range(2):
        with pytest.raises(orcodec.MsgpackDecodeError, match="(?m)^invalid type Reserved$") as info:
            u.unpack()
        assert info.value.pos == 1


def test_buffer_full_on_feed():
    u = orcodec.Unpacker(max_buffer_size=10)
    u.feed(b"\x01" * 10)
    with pytest.raises(orcodec.BufferFull) as info:
        u.feed(b"\x01")
    assert info.value.args == ()
    assert [u.unpack() for _ in range(10)] == [1] * 10
    u.feed(b"\x02" * 10)  # room again once consumed
    assert list(u) == [2] * 10
    theirs = msgpack.Unpacker(max_buffer_size=10)
    theirs.feed(b"\x01" * 10)
    with pytest.raises(msgpack.BufferFull):
        theirs.feed(b"\x01")


def test_length_bomb_mid_stream_is_refused_at_its_header():
    # A str that declares 4 GiB, after a good value: refused without waiting or allocating.
    u = orcodec.Unpacker(max_buffer_size=1 << 20)
    u.feed(b"\x05\xdb\xff\xff\xff\xff" + b"x" * 100)
    assert u.unpack() == 5
    with pytest.raises(
        orcodec.MsgpackDecodeError,
        match=r"^str declares 4294967295 bytes, which cannot fit in max_buffer_size \(1048576 bytes\) at byte 1$",
    ):
        u.unpack()
    u = orcodec.Unpacker(max_buffer_size=1 << 20)
    u.feed(b"\xdd\xff\xff\xff\xff")
    with pytest.raises(orcodec.MsgpackDecodeError, match="array declares 4294967295 items"):
        u.unpack()


def test_length_bomb_from_a_file_like_is_refused():
    data = b"\x01\xc6\x7f\xff\xff\xff" + b"\x00" * 10
    u = orcodec.Unpacker(io.BytesIO(data), max_buffer_size=1 << 16, read_size=1024)
    assert u.unpack() == 1
    with pytest.raises(orcodec.MsgpackDecodeError, match="bin declares 2147483647 bytes"):
        u.unpack()


def test_value_larger_than_max_buffer_size_from_a_file():
    big = orcodec.packb("x" * 5000)
    u = orcodec.Unpacker(io.BytesIO(big), max_buffer_size=1000, read_size=100)
    with pytest.raises(orcodec.MsgpackDecodeError, match=r"cannot fit in max_buffer_size \(1000 bytes\) at byte 0"):
        u.unpack()


def test_truncated_tail_stops_iteration_and_unpack_raises_out_of_data():
    data = orcodec.packb({"k": list(range(50))})
    u = orcodec.Unpacker()
    u.feed(b"\x01" + data[:-1])
    assert list(u) == [1]
    with pytest.raises(orcodec.OutOfData):
        u.unpack()
    assert u.tell() == 1


@pytest.mark.parametrize("opener", [b"\x91", b"\x81\xa1k"])
def test_100000_nested_levels_raise(opener):
    u = orcodec.Unpacker(max_buffer_size=0)
    for piece in chunks(opener * 100_000, 4096):
        try:
            u.feed(piece)
        except orcodec.BufferFull:  # pragma: no cover - would be a failure below
            break
    with pytest.raises(orcodec.MsgpackDecodeError, match="nesting deeper than 1024 levels"):
        list(u)


def test_nesting_at_the_limit_is_read():
    data = b"\x91" * 1023 + b"\x01"
    u = orcodec.Unpacker()
    u.feed(data)
    value, depth = u.unpack(), 0
    while isinstance(value, list):
        (value,), depth = value, depth + 1
    assert (value, depth) == (1, 1023)


def test_memory_is_bounded_by_the_buffer(stream):
    # A long stream fed in 4 KiB pieces: the buffer holds at most one partial value.
    messages, _ = stream
    small = [m for m in messages[1:] if len(m) < 4096][:100]
    data = b"".join(small) * 20
    u = orcodec.Unpacker(max_buffer_size=3 * 4096)
    count = 0
    for piece in chunks(data, 4096):
        u.feed(piece)
        count += sum(1 for _ in u)
    assert count == 20 * len(small)


# ---------------------------------------------------------------------------------------
# Options: ext_hook, option, numpy, type=
# ---------------------------------------------------------------------------------------


def test_ext_hook_and_options_as_unpackb():
    ts = dt.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=dt.timezone.utc)
    data = (
        orcodec.packb(orcodec.Ext(3, b"abc"))
        + orcodec.packb(ts, option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT)
        + orcodec.packb({1: "a", (1, 2): "b"}, option=orcodec.OPT_NON_STR_KEYS | orcodec.OPT_PASSTHROUGH_TUPLE)
    )
    opt = orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT | orcodec.OPT_NON_STR_KEYS

    def hook(tag, data):
        return (tag, data)

    u = orcodec.Unpacker(ext_hook=hook, option=opt)
    values, _ = feed_all(u, chunks(data, 1))
    assert values == [(3, b"abc"), ts, {1: "a", (1, 2): "b"}]
    u = orcodec.Unpacker()
    u.feed(orcodec.packb({1: 2}, option=orcodec.OPT_NON_STR_KEYS))
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        u.unpack()
    with pytest.raises(orcodec.MsgpackDecodeError) as direct:
        orcodec.unpackb(orcodec.packb({1: 2}, option=orcodec.OPT_NON_STR_KEYS))
    assert str(info.value) == str(direct.value)


def test_ext_hook_exception_is_the_cause_and_the_stream_goes_on():
    def hook(tag, data):
        raise KeyError(tag)

    u = orcodec.Unpacker(ext_hook=hook)
    u.feed(orcodec.packb(orcodec.Ext(9, b"")) + b"\x05")
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        u.unpack()
    assert isinstance(info.value.__cause__, KeyError)
    assert u.unpack() == 5


def test_argument_errors():
    with pytest.raises(TypeError, match="`ext_hook` is not callable"):
        orcodec.Unpacker(ext_hook=3)
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.Unpacker(option=1 << 40)
    with pytest.raises(ValueError, match="read_size must be smaller than max_buffer_size"):
        orcodec.Unpacker(read_size=100, max_buffer_size=10)
    with pytest.raises(ValueError, match="must not be negative"):
        orcodec.Unpacker(max_buffer_size=-1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'raw'"):
        orcodec.Unpacker(raw=False)
    with pytest.raises(TypeError, match="at most 1 positional argument"):
        orcodec.Unpacker(None, 5)
    with pytest.raises(orcodec.MsgpackDecodeError, match="numpy_ext_code must be an int from 0 to 127"):
        orcodec.Unpacker(numpy_ext_code=200)
    with pytest.raises(TypeError, match="dec_hook must be callable"):
        orcodec.Unpacker(type=int, dec_hook=1)


def test_numpy_ext_values_as_unpackb():
    arrays = [np.arange(12, dtype=np.float64).reshape(3, 4), np.array([1, 2, 3], dtype=np.int8)]
    data = b"".join(orcodec.packb(a, option=orcodec.OPT_NUMPY_EXT) for a in arrays)
    for opt in [orcodec.OPT_NUMPY_EXT, orcodec.OPT_NUMPY_EXT | orcodec.OPT_NUMPY_ZERO_COPY]:
        u = orcodec.Unpacker(option=opt)
        values, _ = feed_all(u, chunks(data, 7))
        assert len(values) == 2
        for got, want in zip(values, arrays):
            assert got.dtype == want.dtype and np.array_equal(got, want)
    with pytest.raises(orcodec.MsgpackDecodeError, match="OPT_NUMPY_ZERO_COPY needs"):
        orcodec.Unpacker(option=orcodec.OPT_NUMPY_ZERO_COPY)
    u = orcodec.Unpacker(option=orcodec.OPT_NUMPY_EXT, numpy_ext_code=5)
    u.feed(orcodec.packb(arrays[1], option=orcodec.OPT_NUMPY_EXT, numpy_ext_code=5))
    assert np.array_equal(u.unpack(), arrays[1])


@dataclasses.dataclass
class Item:
    name: str
    qty: int
    tags: list[str] = dataclasses.field(default_factory=list)


def test_type_decodes_each_value():
    items = [Item("a", 1), Item("b", 2, ["x"])]
    data = b"".join(orcodec.packb(i) for i in items)
    u = orcodec.Unpacker(type=Item)
    values, _ = feed_all(u, chunks(data, 3))
    assert values == items
    u = orcodec.Unpacker(type=list[int])
    u.feed(orcodec.packb([1, 2]) + orcodec.packb([1, "x"]) + orcodec.packb([3]))
    assert u.unpack() == [1, 2]
    with pytest.raises(orcodec.ValidationError, match=r"\$\[1\]") as info:
        u.unpack()
    assert isinstance(info.value, orcodec.MsgpackDecodeError)
    assert u.unpack() == [3]


def test_type_syntax_error_has_the_stream_offset():
    u = orcodec.Unpacker(type=dict[str, int])
    u.feed(b"\x01" + b"\x81\xa2\xff\xfe\x01" + b"\x80")
    with pytest.raises(orcodec.ValidationError):
        u.unpack()  # 1 is no dict
    with pytest.raises(orcodec.MsgpackDecodeError, match="(?m)^invalid UTF-8 string$") as info:
        u.unpack()
    assert info.value.pos == 2
    assert u.unpack() == {}


def test_type_with_dec_hook_and_lax_strict():
    u = orcodec.Unpacker(type=dict[str, float], strict=False)
    u.feed(orcodec.packb({"a": "1.5"}))
    assert u.unpack() == {"a": 1.5}


# ---------------------------------------------------------------------------------------
# Lifetime
# ---------------------------------------------------------------------------------------


def test_unpacker_is_collected_with_a_cycle_through_its_file():
    class Reader:
        def read(self, n):
            return b""

    r = Reader()
    u = orcodec.Unpacker(r)
    r.unpacker = u
    ref = weakref.ref(r)
    del r, u
    gc.collect()
    assert ref() is None


def test_unpacker_can_be_subclassed():
    class Mine(orcodec.Unpacker):
        pass

    m = Mine()
    m.feed(b"\x01")
    assert list(m) == [1]


# ---------------------------------------------------------------------------------------
# Packer
# ---------------------------------------------------------------------------------------


def test_packer_pack_is_packb():
    p = orcodec.Packer()
    for v in SMALL_VALUES:
        assert p.pack(v) == orcodec.packb(v) == msgpack.packb(v)
    opt = orcodec.OPT_NON_STR_KEYS  # not with OPT_SORT_KEYS: packb refuses the pair, as ormsgpack
    p = orcodec.Packer(option=opt, default=str)
    value = {"b": 1, 2: object, "a": dt.date(2020, 1, 2)}
    assert p.pack(value) == orcodec.packb(value, option=opt, default=str)
    p = orcodec.Packer(option=orcodec.OPT_SORT_KEYS, default=str)
    value = {"b": 1, "c": object, "a": dt.date(2020, 1, 2)}
    assert p.pack(value) == orcodec.packb(value, option=orcodec.OPT_SORT_KEYS, default=str)
    arr = np.arange(3, dtype=np.int32)
    p = orcodec.Packer(option=orcodec.OPT_SERIALIZE_NUMPY | orcodec.OPT_NUMPY_EXT, numpy_ext_code=9)
    assert p.pack(arr) == orcodec.packb(
        arr, option=orcodec.OPT_SERIALIZE_NUMPY | orcodec.OPT_NUMPY_EXT, numpy_ext_code=9
    )


def test_packer_errors_are_packb_errors():
    with pytest.raises(orcodec.MsgpackEncodeError, match="Type is not msgpack serializable: object"):
        orcodec.Packer().pack(object())
    with pytest.raises(TypeError, match="default must be callable"):
        orcodec.Packer(default=1)
    with pytest.raises(orcodec.MsgpackEncodeError):
        orcodec.Packer(option=1 << 40)
    with pytest.raises(TypeError, match="takes at most 0 positional arguments"):
        orcodec.Packer(str)


@pytest.mark.parametrize("n", [0, 1, 15, 16, 65535, 65536, 2**32 - 1])
def test_packer_headers_as_msgpack(n):
    ours, theirs = orcodec.Packer(), msgpack.Packer()
    assert ours.pack_array_header(n) == theirs.pack_array_header(n)
    assert ours.pack_map_header(n) == theirs.pack_map_header(n)


def test_packer_headers_then_items_unpack():
    p = orcodec.Packer()
    data = p.pack_map_header(2) + p.pack("a") + p.pack(1) + p.pack("b") + p.pack_array_header(1) + p.pack(None)
    assert orcodec.unpackb(data) == {"a": 1, "b": [None]}
    for bad in [-1, 2**32]:
        with pytest.raises(ValueError, match="from 0 to 2\\*\\*32-1"):
            p.pack_array_header(bad)


def test_packer_and_unpacker_round_trip_a_stream():
    p = orcodec.Packer()
    buf = io.BytesIO()
    for v in SMALL_VALUES:
        buf.write(p.pack(v))
    buf.seek(0)
    assert list(orcodec.Unpacker(buf, read_size=50)) == SMALL_VALUES


# ---------------------------------------------------------------------------------------
# pack/unpack, dump/load
# ---------------------------------------------------------------------------------------


def test_pack_and_unpack_files(tmp_path):
    path = tmp_path / "x.msgpack"
    value = {"a": [1, 2.5, None, "é"], "b": b"raw"}
    with open(path, "wb") as f:
        orcodec.pack(value, f)
    assert path.read_bytes() == orcodec.packb(value) == msgpack.packb(value)
    with open(path, "rb") as f:
        assert orcodec.unpack(f) == value
    buf = io.BytesIO()
    orcodec.pack({1: dt.date(2020, 1, 1)}, buf, option=orcodec.OPT_NON_STR_KEYS, default=str)
    buf.seek(0)
    assert orcodec.unpack(buf, option=orcodec.OPT_NON_STR_KEYS) == {1: "2020-01-01"}
    buf = io.BytesIO(orcodec.packb({"name": "n", "qty": 3}))
    assert orcodec.unpack(buf, type=Item) == Item("n", 3)
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpack(io.BytesIO(b"\x92\x01"))


def test_dump_and_load_files(tmp_path):
    path = tmp_path / "x.json"
    value = {"a": [1, 2.5, None, "é"], "b": {"c": True}}
    with open(path, "wb") as f:
        orcodec.dump(value, f)
    assert path.read_bytes() == orcodec.dumps(value)
    with open(path, "rb") as f:
        assert orcodec.load(f) == value
    with open(path, "w", encoding="utf-8") as f:
        orcodec.dump(value, f, option=orcodec.OPT_INDENT_2)
    assert path.read_bytes() == orcodec.dumps(value, option=orcodec.OPT_INDENT_2)
    with open(path, encoding="utf-8") as f:
        assert orcodec.load(f) == value
    assert orcodec.load(io.BytesIO(b'{"name": "x", "qty": 1}'), type=Item) == Item("x", 1)
    with pytest.raises(orcodec.ValidationError):
        orcodec.load(io.BytesIO(b'{"name": "x", "qty": "1"}'), type=Item)
    with pytest.raises(orcodec.JSONDecodeError, match="line 1 column 2"):
        orcodec.load(io.StringIO("[x"))
    with pytest.raises(orcodec.JSONEncodeError):
        orcodec.dump(object(), io.BytesIO())


def test_stream_names_have_stub_docstrings_equal_to_the_runtime_ones():
    import ast
    import inspect
    from pathlib import Path

    stub = Path(orcodec.__file__).with_name("__init__.pyi")
    nodes = {n.name: n for n in ast.parse(stub.read_text()).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for name in [
        "Unpacker",
        "Packer",
        "OutOfData",
        "BufferFull",
        "json_to_msgpack",
        "msgpack_to_json",
        "dumps_lines",
        "loads_lines",
        "iter_lines",
        "pack",
        "unpack",
        "dump",
        "load",
    ]:
        assert ast.get_docstring(nodes[name]) == inspect.cleandoc(getattr(orcodec, name).__doc__), name
    for cls, methods in {"Unpacker": ["feed", "unpack", "skip", "tell"], "Packer": ["pack", "pack_map_header"]}.items():
        members = {n.name: n for n in nodes[cls].body if isinstance(n, ast.FunctionDef)}
        for m in methods:
            assert ast.get_docstring(members[m]) == inspect.cleandoc(getattr(getattr(orcodec, cls), m).__doc__)


# ---------------------------------------------------------------------------------------
# The deliberate differences from msgpack.Unpacker (doc/compatibility.md)
# ---------------------------------------------------------------------------------------


def outcomes(unpacker, calls):
    out = []
    for _ in range(calls):
        try:
            out.append(unpacker.unpack())
        except Exception as e:
            out.append(type(e).__name__)
    return out


def test_deviation_a_failed_value_is_consumed_whole():
    data = b"\x01\xa2\xff\xfe\x02"
    ours, theirs = orcodec.Unpacker(), msgpack.Unpacker()
    ours.feed(data)
    theirs.feed(data)
    assert outcomes(ours, 4) == [1, "MsgpackDecodeError", 2, "OutOfData"]
    assert outcomes(theirs, 4) == [1, "UnicodeDecodeError", -2, 2]


def test_deviation_a_length_that_can_never_fit_is_refused_at_once():
    data = b"\x01\xdb\xff\xff\xff\xff"
    ours, theirs = orcodec.Unpacker(max_buffer_size=1 << 20), msgpack.Unpacker(max_buffer_size=1 << 20)
    ours.feed(data)
    theirs.feed(data)
    assert outcomes(ours, 2) == [1, "MsgpackDecodeError"]
    assert outcomes(theirs, 3) == [1, "OutOfData", "OutOfData"]


def test_deviation_skip_after_out_of_data_mid_value():
    for mod, expected in [(orcodec, [1, 2]), (msgpack, "ValueError")]:
        u = mod.Unpacker()
        u.feed(b"\x01\x92\x01")
        assert u.unpack() == 1
        with pytest.raises(mod.OutOfData):
            u.unpack()
        u.feed(b"\x02")
        try:
            u.skip()
            got = [1, 2]
        except ValueError:
            got = "ValueError"
        assert got == expected


@pytest.mark.parametrize("size", [1, 2, 7, 1 << 20])
def test_options_without_hooks_every_chunking(size):
    # No ext_hook, type or numpy: whole values are decoded straight from the buffer.
    ts = dt.datetime(2030, 1, 2, 3, 4, 5, 6, tzinfo=dt.timezone.utc)
    opt = orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT | orcodec.OPT_NON_STR_KEYS
    values = [{1: ts, (2, "x"): [None]}, ts, "é" * 100, {b"k": 1}]
    data = b"".join(orcodec.packb(v, option=opt | orcodec.OPT_PASSTHROUGH_TUPLE) for v in values)
    got, offsets = feed_all(orcodec.Unpacker(option=opt), chunks(data, size))
    assert got == [orcodec.unpackb(orcodec.packb(v, option=opt), option=opt) for v in values]
    assert offsets[-1] == len(data)
    # A bad value among good ones, fed in pieces: the same outcomes as fed whole.
    bad = data + b"\x92\xa2\xff\xfe\x01" + orcodec.packb(5)
    for pieces in [chunks(bad, size), [bad]]:
        u = orcodec.Unpacker(option=opt)
        out = []
        for piece in pieces:
            u.feed(piece)
            while True:
                try:
                    out.append(u.unpack())
                except orcodec.OutOfData:
                    break
                except orcodec.MsgpackDecodeError as e:
                    out.append((str(e), e.pos))
        assert out[-2:] == [("invalid UTF-8 string", len(data) + 1), 5]

"""JSONUnpacker: JSON values one after another, fed in every chunking (one byte at a time
too) or read from file-likes that return less than asked, raise, or end; each value what
loads gives for its text, tell() at the end of each; numbers split across feeds;
max_buffer_size; errors consumed with the value; typed values."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import random
from typing import Any

import orcodec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SEPARATORS = ["\n", " ", "\r\n", "", "\t\n  "]

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8).filter(lambda t: not any(0xD800 <= ord(c) <= 0xDFFF for c in t))
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


def join(docs: list[Any], sep: str, rng: random.Random) -> tuple[bytes, list[int]]:
    """The documents as one stream, and the offset where each ends."""
    out = b""
    ends = []
    for doc in docs:
        text = json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode()
        if out and sep == "" and not (text[:1] in b'[{"' or out[-1:] in b']}"'):
            out += b" "  # two numbers or literals need something between them
        out += text
        ends.append(len(out))
        out += sep.encode()
    return out, ends


def read_all(unpacker: orcodec.JSONUnpacker) -> list[tuple[Any, int]]:
    return [(value, unpacker.tell()) for value in unpacker]


def fed(data: bytes, sizes: list[int]) -> list[tuple[Any, int]]:
    unpacker = orcodec.JSONUnpacker()
    got: list[tuple[Any, int]] = []
    at = 0
    i = 0
    while at < len(data):
        size = sizes[i % len(sizes)]
        unpacker.feed(data[at : at + size])
        at += size
        i += 1
        got += read_all(unpacker)
    return got


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(DOCUMENTS, min_size=1, max_size=6), st.sampled_from(SEPARATORS), st.randoms(use_true_random=False))
def test_every_chunking_gives_the_values_and_offsets(docs: list[Any], sep: str, rng: random.Random) -> None:
    data, ends = join(docs, sep, rng)
    texts = [data[(ends[i - 1] if i else 0) : ends[i]] for i in range(len(ends))]
    want = [(orcodec.loads(t), e) for t, e in zip(texts, ends)]
    # A number or literal at the very end waits for the stream's end.
    last_waits = not sep and data[-1:] not in b']}"'
    for sizes in ([1], [2, 3], [rng.randint(1, 9) for _ in range(5)], [len(data)]):
        got = fed(data, sizes)
        assert got == (want[:-1] if last_waits else want), sizes
    # From a file-like, to its end: every value.
    assert read_all(orcodec.JSONUnpacker(io.BytesIO(data), read_size=rng.randint(1, 7))) == want


def test_values_that_delimit_themselves() -> None:
    unpacker = orcodec.JSONUnpacker()
    unpacker.feed(b'{}[]"x"{"a":[1,{"b":"]}"}]}12 true\n-3.5')
    assert read_all(unpacker) == [({}, 2), ([], 4), ("x", 7), ({"a": [1, {"b": "]}"}]}, 27), (12, 29), (True, 34)]
    with pytest.raises(orcodec.OutOfData):
        unpacker.unpack()
    unpacker.feed(b"e2")
    with pytest.raises(orcodec.OutOfData):
        unpacker.unpack()
    unpacker.feed(b",")
    assert unpacker.unpack() == -350.0
    assert unpacker.tell() == 41


def test_a_number_split_across_feeds() -> None:
    unpacker = orcodec.JSONUnpacker()
    for piece in (b"12", b"34", b"5.", b"25"):
        unpacker.feed(piece)
        assert list(unpacker) == []
    unpacker.feed(b"\n")
    assert list(unpacker) == [12345.25]


def test_max_buffer_size() -> None:
    unpacker = orcodec.JSONUnpacker(max_buffer_size=11)
    unpacker.feed(b'[1, 2, "')
    with pytest.raises(orcodec.BufferFull):
        unpacker.feed(b'ab"]')
    unpacker.feed(b'a"]')
    assert unpacker.unpack() == [1, 2, "a"]
    # Consumed bytes no longer count.
    unpacker.feed(b"[" + b"0," * 4)
    with pytest.raises(orcodec.BufferFull):
        unpacker.feed(b"0] ")
    unpacker.feed(b"0]")
    assert unpacker.unpack() == [0, 0, 0, 0, 0]
    # From a file, a value larger than the buffer.
    with pytest.raises(orcodec.BufferFull):
        list(orcodec.JSONUnpacker(io.BytesIO(b"[" + b"1," * 100 + b"1]"), max_buffer_size=50))


def test_errors_are_consumed_with_their_value() -> None:
    unpacker = orcodec.JSONUnpacker()
    unpacker.feed(b'[1] {"a" 1} [2] x [3]')
    assert unpacker.unpack() == [1]
    with pytest.raises(orcodec.JSONDecodeError) as info:
        unpacker.unpack()
    assert info.value.msg == "unexpected character, expected ':' after key"
    assert "in the value at bytes 4 to 11 of the stream" in info.value.__notes__
    assert unpacker.tell() == 11
    assert unpacker.unpack() == [2]
    with pytest.raises(orcodec.JSONDecodeError):
        unpacker.unpack()
    assert unpacker.unpack() == [3]


def test_hostile_input() -> None:
    unpacker = orcodec.JSONUnpacker()
    unpacker.feed(b"[" * 5000)
    with pytest.raises(orcodec.JSONDecodeError):
        unpacker.unpack()
    unpacker = orcodec.JSONUnpacker(max_buffer_size=1 << 16)
    unpacker.feed(b'"')
    for _ in range(100):
        unpacker.feed(b"x" * 100)
        assert list(unpacker) == []
    unpacker.feed(b'"')
    assert unpacker.unpack() == "x" * 10_000


class Trickle(io.RawIOBase):
    """A file whose read returns at most 3 bytes, and raises once at the 2nd call."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.calls = 0

    def read(self, n: int = -1) -> bytes:  # type: ignore[override]
        self.calls += 1
        if self.calls == 2:
            raise OSError("flaky")
        out, self.data = self.data[: min(n, 3)], self.data[min(n, 3) :]
        return out


def test_file_likes() -> None:
    trickle = Trickle(b'{"a": 1}\n[2, 3]\n4')
    unpacker = orcodec.JSONUnpacker(trickle, read_size=100)
    with pytest.raises(OSError, match="flaky"):
        unpacker.unpack()
    assert list(unpacker) == [{"a": 1}, [2, 3], 4]
    assert unpacker.tell() == 17
    with pytest.raises(TypeError, match="must return bytes"):
        orcodec.JSONUnpacker(io.StringIO("[1]")).unpack()
    with pytest.raises(TypeError, match="file_like.read"):
        orcodec.JSONUnpacker(object())
    with pytest.raises(TypeError, match="feed"):
        orcodec.JSONUnpacker(io.BytesIO(b"")).feed(b"1")
    # An empty file, and one ending inside a value: no values.
    assert list(orcodec.JSONUnpacker(io.BytesIO(b""))) == []
    assert list(orcodec.JSONUnpacker(io.BytesIO(b'[1] {"a": '))) == [[1]]


@dataclasses.dataclass
class Event:
    id: int
    kind: str


def test_typed() -> None:
    unpacker = orcodec.JSONUnpacker(type=Event)
    unpacker.feed(b'{"id": 1, "kind": "a"}\n{"id": "x", "kind": "b"}\n{"id": 3, "kind": "c"}')
    assert unpacker.unpack() == Event(1, "a")
    with pytest.raises(orcodec.ValidationError, match=r"Expected `int`, got `str` - at `\$.id`"):
        unpacker.unpack()
    assert unpacker.unpack() == Event(3, "c")
    with pytest.raises(TypeError):
        orcodec.JSONUnpacker(type=object())


def test_bad_sizes() -> None:
    for bad in (-1, 1.5, "1", True):
        with pytest.raises((TypeError, ValueError)):
            orcodec.JSONUnpacker(read_size=bad)
        with pytest.raises((TypeError, ValueError)):
            orcodec.JSONUnpacker(max_buffer_size=bad)


# A child process reads a long stream of JSON Lines records, made as they are read
# (never held whole), through JSONUnpacker(file_like) and reports how much its peak
# resident memory (VmHWM) grew over the run, after a short run has warmed it up.
STREAM_CHILD = r"""
import sys
import orcodec

def peak_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))

class Records:
    # `total` bytes of records, served from one block of about 1 MiB, so a read
    # ends anywhere in a record.
    def __init__(self, total):
        record = b'{"id": 123456, "tags": ["a", "b"], "text": "%s", "ok": true, "x": 0.5}\n' % (b"x" * 40)
        self.block = memoryview(record * ((1 << 20) // len(record)))
        self.record_len = len(record)
        self.left = total - total % len(self.block)
        self.at = 0

    def read(self, n):
        n = min(n, self.left, len(self.block) - self.at)
        out = self.block[self.at : self.at + n]
        self.at = (self.at + n) % len(self.block)
        self.left -= n
        return out

def run(total):
    source = Records(total)
    unpacker = orcodec.JSONUnpacker(source, read_size=65536, max_buffer_size=1 << 20)
    count = 0
    for record in unpacker:
        count += 1
        assert record["tags"] == ["a", "b"]
    # tell() is the end of the last record, before its newline.
    assert unpacker.tell() == count * source.record_len - 1, (unpacker.tell(), count)
    return unpacker.tell()

run(8 << 20)
before = peak_kib()
read = run(int(sys.argv[1]) << 20)
print(read, peak_kib() - before)
"""


def stream_peak_growth(megabytes: int) -> tuple[int, int]:
    """(bytes read, growth of peak RSS in KiB) of the child over `megabytes` of records."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", STREAM_CHILD, str(megabytes)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    read, growth = map(int, done.stdout.split())
    return read, growth


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="VmHWM is read from /proc (Linux)")
def test_memory_stays_flat_over_a_long_stream() -> None:
    # 32 MB in the normal run; `make test-long` reads 500 MB (ORCODEC_LONG_STREAM_MB).
    megabytes = int(os.environ.get("ORCODEC_LONG_STREAM_MB", "32"))
    read, growth = stream_peak_growth(megabytes)
    assert read > (megabytes - 1) << 20
    # The buffer is at most 1 MiB and each record is dropped once read: the peak grows
    # by no more than allocator noise, whatever the length of the stream.
    assert growth < 64 * 1024, growth


def test_the_stub_carries_the_runtime_docstring() -> None:
    import ast
    import inspect
    from pathlib import Path

    stub = Path(orcodec.__file__).with_name("__init__.pyi")
    node = next(n for n in ast.parse(stub.read_text()).body if isinstance(n, ast.ClassDef) and n.name == "JSONUnpacker")
    assert ast.get_docstring(node) == inspect.cleandoc(orcodec.JSONUnpacker.__doc__ or "")


def outcomes(pieces: list[bytes], **kwargs: Any) -> list[tuple[Any, ...]]:
    """Values and errors (text, notes) with tell() after each, feeding `pieces`."""
    unpacker = orcodec.JSONUnpacker(**kwargs)
    found: list[tuple[Any, ...]] = []
    for piece in pieces:
        unpacker.feed(piece)
        while True:
            try:
                found.append(("value", unpacker.unpack(), unpacker.tell()))
            except orcodec.OutOfData:
                break
            except orcodec.JSONDecodeError as e:
                found.append(("error", type(e).__name__, str(e), e.pos, e.doc, e.__notes__, unpacker.tell()))
    return found


STREAMS = [
    # Values decoded straight from the buffer and values cut by a feed agree, errors too.
    b'{"a": 1}12x [1] 3.5.\n"caf\xc3\xa9" true1 [2, 3',
    b'["\xe4\xb8\xad\xe6\x96\x87"] "\xf0\x9f\x98\x80" {"k": "\xc3\xa9"} 7 ',
    b'[1] "bad \xff byte" [2] {"a": "\xed\xa0\x80"} [3] ',
    b'[1,] {"a" 1} nul [4]\t\t\t[5]\r\n',
    b"   \n  " * 50 + b'[6] "' + b"x" * 5000 + b'" [7]',
    b"[" * 1100 + b"]" * 1100 + b" [8]",
]


@pytest.mark.parametrize("data", STREAMS, ids=[repr(s[:12]) for s in STREAMS])
def test_whole_and_bytewise_feeds_agree(data: bytes) -> None:
    whole = outcomes([data])
    assert whole == outcomes([data[i : i + 1] for i in range(len(data))])
    assert whole == outcomes([data[i : i + 7] for i in range(0, len(data), 7)])
    # Each value is loads of its text; each error loads's error for it, with its place.
    start = 0
    for found in whole:
        end = found[-1]
        text = data[start:end].strip(b" \t\r\n")
        if found[0] == "value":
            assert found[1] == orcodec.loads(text)
        else:
            with pytest.raises(orcodec.JSONDecodeError) as info:
                orcodec.loads(text)
            assert found[2:5] == (str(info.value), info.value.pos, info.value.doc)
            at = start + len(data[start:end]) - len(data[start:end].lstrip(b" \t\r\n"))
            assert found[5][-1] == f"in the value at bytes {at} to {end} of the stream"
        start = end


def test_a_number_or_literal_at_the_end_of_a_feed_waits() -> None:
    for text, value in [(b"12", 12), (b"-0.5", -0.5), (b"true", True), (b"null", None), (b"1e5", 100000.0)]:
        unpacker = orcodec.JSONUnpacker()
        unpacker.feed(b"[0] " + text)
        assert list(unpacker) == [[0]]
        assert unpacker.tell() == 3
        unpacker.feed(b"\n")
        assert list(unpacker) == [value]
        assert unpacker.tell() == 4 + len(text)
        # From a file, its end ends the value.
        assert list(orcodec.JSONUnpacker(io.BytesIO(b"[0] " + text))) == [[0], value]


def test_calling_the_reader_from_its_own_read() -> None:
    class Reentrant(io.RawIOBase):
        unpacker: Any = None

        def read(self, n: int = -1) -> bytes:  # type: ignore[override]
            self.unpacker.unpack()
            return b""

    source = Reentrant()
    source.unpacker = orcodec.JSONUnpacker(source)
    with pytest.raises(RuntimeError, match="already in use"):
        source.unpacker.unpack()
    # The reader and its file in a cycle are collected.
    import gc
    import weakref

    ref = weakref.ref(source)
    del source
    gc.collect()
    assert ref() is None


def test_read_returns_other_buffers() -> None:
    class Chunks(io.RawIOBase):
        def __init__(self, chunks: list[Any]) -> None:
            self.chunks = chunks

        def read(self, n: int = -1) -> Any:  # type: ignore[override]
            return self.chunks.pop(0) if self.chunks else b""

    got = list(orcodec.JSONUnpacker(Chunks([bytearray(b"[1] [2"), memoryview(b"] 3")])))
    assert got == [[1], [2], 3]
    with pytest.raises(TypeError, match="must return bytes, not list"):
        orcodec.JSONUnpacker(Chunks([[1]])).unpack()

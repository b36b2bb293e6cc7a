"""JSON Lines: dumps_lines, loads_lines and iter_lines. Each line is what loads reads
(and dumps writes); line ends \\n or \\r\\n, blank lines skipped, no final newline needed;
a bad line is a JSONDecodeError that says which line and where in it."""

from __future__ import annotations

import dataclasses
import io
import json
import random

import orcodec
import orjson
import pytest
from helpers import DOCUMENTS, fixture_bytes

FIXTURES = DOCUMENTS


def fixture_records(name: str) -> list:
    doc = orjson.loads(fixture_bytes(f"{name}.json"))
    parts = list(doc.values()) if isinstance(doc, dict) else list(doc)
    records = [item for p in parts for item in (p if isinstance(p, list) else [p])]
    return [doc] + records[:2000]


@pytest.fixture(scope="module", params=FIXTURES)
def records(request):
    return fixture_records(request.param)


def test_dumps_lines_is_one_orjson_document_per_line(records):
    expected = b"".join(orjson.dumps(r) + b"\n" for r in records)
    assert orcodec.dumps_lines(records) == expected
    assert orcodec.dumps_lines(iter(records)) == expected
    assert orcodec.dumps_lines(r for r in records) == expected


def test_dumps_lines_options_and_default():
    rows = [{"b": 1, "a": object()}, {2: [1, 2]}]
    opt = orcodec.OPT_SORT_KEYS | orcodec.OPT_NON_STR_KEYS | orcodec.OPT_INDENT_2 | orcodec.OPT_APPEND_NEWLINE
    out = orcodec.dumps_lines(rows, default=lambda o: "obj", option=opt)
    assert out == b'{"a":"obj","b":1}\n{"2":[1,2]}\n'
    assert orcodec.dumps_lines([]) == b""


def test_dumps_lines_errors():
    with pytest.raises(orcodec.JSONEncodeError, match="Type is not JSON serializable: object"):
        orcodec.dumps_lines([1, object()])
    with pytest.raises(TypeError, match="not iterable"):
        orcodec.dumps_lines(5)

    def gen():
        yield 1
        raise KeyError("from the iterable")

    with pytest.raises(KeyError, match="from the iterable"):
        orcodec.dumps_lines(gen())
    with pytest.raises(orcodec.JSONEncodeError):
        orcodec.dumps_lines([1], option=1 << 40)


def test_loads_lines_round_trips_fixture_records(records):
    data = orcodec.dumps_lines(records)
    assert orcodec.loads_lines(data) == records
    assert orcodec.loads_lines(data.decode()) == records
    assert orcodec.loads_lines(bytearray(data)) == records
    assert orcodec.loads_lines(memoryview(data)) == records


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", []),
        (b"\n", []),
        (b"1", [1]),
        (b"1\n", [1]),
        (b"1\n2", [1, 2]),
        (b"1\r\n2\r\n", [1, 2]),
        (b"1\r\n\r\n\n  \t\n2", [1, 2]),
        (b'  {"a": [1, 2]}  \n', [{"a": [1, 2]}]),
        (b"1\r", [1]),  # \r is JSON whitespace
        (b'"a\\nb"\n"\xc3\xa9"', ["a\nb", "é"]),
        (b"[\n]", None),  # a document does not span lines
    ],
)
def test_loads_lines_line_ends_and_blank_lines(data, expected):
    if expected is None:
        with pytest.raises(orcodec.JSONDecodeError):
            orcodec.loads_lines(data)
        return
    assert orcodec.loads_lines(data) == expected
    for read_size in [1, 2, 3, 1 << 20]:
        assert list(orcodec.iter_lines(io.BytesIO(data), read_size=read_size)) == expected


@pytest.mark.parametrize(
    ("data", "lineno", "doc", "pos", "msg"),
    # loads's words (orjson's) for the line.
    [
        (b"1\n2\n{x\n", 3, "{x", 1, "unexpected character, expected a string key"),
        (b"1\r\n  \r\n[1,\n", 3, "[1,", 3, "unexpected end of data"),
        ('1\n"é" x'.encode(), 2, '"é" x', 4, "unexpected content after document"),
        (b"[1]\n\n\n1 2", 4, "1 2", 2, "unexpected content after document"),
        (b"1\r2\n", 1, "1\r2", 2, "unexpected content after document"),
    ],
)
def test_bad_line_reports_its_number(data, lineno, doc, pos, msg):
    readers = [lambda: orcodec.loads_lines(data)] + [
        lambda n=n: list(orcodec.iter_lines(io.BytesIO(data), read_size=n)) for n in [1, 4, 1 << 20]
    ]
    for read in readers:
        with pytest.raises(orcodec.JSONDecodeError) as info:
            read()
        e = info.value
        assert isinstance(e, json.JSONDecodeError)
        assert (e.msg, e.doc, e.pos, e.lineno, e.colno) == (msg, doc, pos, lineno, pos + 1)
        assert str(e) == f"{msg}: line {lineno} column {pos + 1} (char {pos})"
        # The line's own error is what loads says about it.
        with pytest.raises(orcodec.JSONDecodeError) as direct:
            orcodec.loads(doc)
        assert (direct.value.msg, direct.value.pos) == (msg, pos)


def test_invalid_utf8_line():
    with pytest.raises(orcodec.JSONDecodeError, match="line 2") as info:
        orcodec.loads_lines(b'1\n"\xff"\n')
    assert info.value.lineno == 2
    with pytest.raises(orcodec.JSONDecodeError, match="surrogates"):
        orcodec.loads_lines("\ud800")


def test_loads_lines_input_errors():
    with pytest.raises(orcodec.JSONDecodeError, match="Input must be bytes, bytearray, memoryview, or str"):
        orcodec.loads_lines(5)


def test_iter_lines_reads_in_chunks_of_read_size():
    sizes = []

    class Reader:
        def __init__(self, data):
            self.f = io.BytesIO(data)

        def read(self, n):
            sizes.append(n)
            return self.f.read(n)

    data = orcodec.dumps_lines(range(1000))
    it = orcodec.iter_lines(Reader(data), read_size=100)
    assert next(it) == 0
    # Lazy: one chunk read for the first document.
    assert sizes == [100]
    assert list(it) == list(range(1, 1000))
    assert set(sizes) == {100}
    assert len(sizes) == len(data) // 100 + 2


def test_iter_lines_random_chunkings_of_fixture_lines(records):
    data = orcodec.dumps_lines(records).replace(b"\n", b"\r\n")
    rng = random.Random(7)

    class Reader:
        def __init__(self):
            self.f = io.BytesIO(data)

        def read(self, n):
            return self.f.read(rng.randint(0, n) or 1)

    assert list(orcodec.iter_lines(Reader(), read_size=5000)) == records


def test_iter_lines_text_files(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes('{"a": "é"}\n[1]\n'.encode())
    with open(path, encoding="utf-8") as f:
        assert list(orcodec.iter_lines(f)) == [{"a": "é"}, [1]]
    with open(path, "rb") as f:
        assert list(orcodec.iter_lines(f, read_size=3)) == [{"a": "é"}, [1]]


def test_iter_lines_errors():
    with pytest.raises(TypeError, match="`fp.read` must be callable"):
        orcodec.iter_lines(b"1\n")
    with pytest.raises(ValueError, match="read_size must be positive"):
        orcodec.iter_lines(io.BytesIO(), read_size=0)

    class Failing:
        def read(self, n):
            raise OSError("gone")

    with pytest.raises(OSError, match="gone"):
        next(orcodec.iter_lines(Failing()))

    class Wrong:
        def read(self, n):
            return 5

    with pytest.raises(TypeError, match=r"read\(\) must return bytes"):
        next(orcodec.iter_lines(Wrong()))


def test_iter_lines_stops_and_goes_on_after_a_bad_line():
    it = orcodec.iter_lines(io.BytesIO(b"1\nx\n3\n"))
    assert next(it) == 1
    with pytest.raises(orcodec.JSONDecodeError):
        next(it)
    assert list(it) == [3]


def test_iter_lines_reads_a_long_stream_on_demand():
    # 200,000 lines from a reader that makes them as asked: never more than read_size
    # asked for at a time.
    line = orcodec.dumps({"k": list(range(20)), "s": "x" * 50}) + b"\n"

    class Endless:
        def __init__(self, count):
            self.left = count
            self.max_n = 0

        def read(self, n):
            self.max_n = max(self.max_n, n)
            k = min(self.left, max(1, n // len(line)))
            self.left -= k
            return line * k

    reader = Endless(200_000)
    count = sum(1 for _ in orcodec.iter_lines(reader, read_size=1 << 16))
    assert count == 200_000
    assert reader.max_n == 1 << 16


@dataclasses.dataclass
class Row:
    id: int
    name: str


def test_type_decodes_each_line():
    data = b'{"id": 1, "name": "a"}\n\n{"id": 2, "name": "b"}\n'
    assert orcodec.loads_lines(data, type=Row) == [Row(1, "a"), Row(2, "b")]
    assert list(orcodec.iter_lines(io.BytesIO(data), type=Row, read_size=5)) == [Row(1, "a"), Row(2, "b")]
    assert orcodec.loads_lines(b'{"id": "3", "name": "c"}', type=Row, strict=False) == [Row(3, "c")]


def test_type_mismatch_is_validation_error_with_the_line_number():
    data = b'{"id": 1, "name": "a"}\n{"id": "x", "name": "b"}\n'
    for read in [
        lambda: orcodec.loads_lines(data, type=Row),
        lambda: list(orcodec.iter_lines(io.BytesIO(data), type=Row, read_size=7)),
    ]:
        with pytest.raises(orcodec.ValidationError) as info:
            read()
        e = info.value
        assert isinstance(e, orcodec.JSONDecodeError)
        assert e.lineno == 2 and e.doc == '{"id": "x", "name": "b"}'
        assert str(e) == "Expected `int`, got `str` - at `$.id`"
        assert e.path == "$.id"


def test_type_syntax_error_is_a_line_error():
    with pytest.raises(orcodec.JSONDecodeError, match=r"line 2 column 9") as info:
        orcodec.loads_lines(b'{"id": 1, "name": "a"}\n{"id": 1', type=Row)
    assert not isinstance(info.value, orcodec.ValidationError)


@pytest.mark.parametrize("opener", [b"[", b'{"a":'])
def test_100000_nested_levels_on_a_line(opener):
    data = b"1\n" + opener * 100_000 + b"\n3\n"
    with pytest.raises(orcodec.JSONDecodeError, match="^depth limit exceeded: line 2 column") as info:
        orcodec.loads_lines(data)
    assert info.value.lineno == 2
    it = orcodec.iter_lines(io.BytesIO(data), read_size=4096)
    assert next(it) == 1
    with pytest.raises(orcodec.JSONDecodeError, match="line 2"):
        next(it)
    assert list(it) == [3]


def test_a_very_long_line_across_many_chunks():
    value = {"k": ["x" * 1000] * 1000}
    data = b"[1]\n" + orcodec.dumps(value) + b"\n"
    assert list(orcodec.iter_lines(io.BytesIO(data), read_size=7)) == [[1], value]

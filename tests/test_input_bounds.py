"""No reader reads a byte past the end of its input.

Each input is placed so that it ends exactly where an inaccessible page
starts (an anonymous mapping whose last page is PROT_NONE), then handed to
every reader as a memoryview of that memory: a read past the end, even of
one byte, is a SIGSEGV. The SIMD loops read whole blocks and must stop
short of the end (or fall back to byte-wise loops there); this checks it
where the sanitizer builds cannot, in the extension itself. Runs in a child
process, which reports the input it was reading if it dies.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from helpers import DOCUMENTS, REPO_ROOT, fixture_bytes

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="mmap/mprotect through ctypes as on Linux")

CHILD = textwrap.dedent(
    r"""
    import ctypes, json, mmap, os, sys
    import numpy
    import orcodec

    PAGE = mmap.PAGESIZE
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

    def flush_against_guard(data):
        pages = len(data) // PAGE + 2
        region = mmap.mmap(-1, pages * PAGE)
        base = ctypes.addressof(ctypes.c_char.from_buffer(region))
        if libc.mprotect(base + (pages - 1) * PAGE, PAGE, 0) != 0:
            raise OSError(ctypes.get_errno(), "mprotect")
        start = (pages - 1) * PAGE - len(data)
        region[start : start + len(data)] = data
        return region, memoryview(region)[start : start + len(data)]

    def run(name, reader, data):
        region, view = flush_against_guard(data)
        print(name, len(data), data[:60], flush=True)
        try:
            reader(view)
        except (ValueError, TypeError, MemoryError):
            pass
        view.release()

    readers = {
        "json": {
            "loads": orcodec.loads,
            "loads typed": lambda v: orcodec.loads(v, type=list[str]),
            "loads ndarray": lambda v: orcodec.loads(v, type=numpy.ndarray),
            "loads_lines": orcodec.loads_lines,
            "json_to_msgpack": orcodec.json_to_msgpack,
        },
        "msgpack": {
            "unpackb": orcodec.unpackb,
            "unpackb typed": lambda v: orcodec.unpackb(v, type=list[str]),
            "unpackb ndarray": lambda v: orcodec.unpackb(v, type=numpy.ndarray),
            "msgpack_to_json": orcodec.msgpack_to_json,
        },
    }
    for name, kind, data in json.load(sys.stdin):
        data = bytes.fromhex(data)
        for reader_name, reader in readers[kind].items():
            run(f"{reader_name} {name}", reader, data)
    print("done", flush=True)
    """
)


def _escaped_strings() -> list[bytes]:
    """JSON strings of escapes and plain runs (as `json.dumps` writes them) of
    every length up to past two SIMD windows, each cut at every end."""
    text = "é 😀 中文 café " * 12
    out = []
    for n in range(0, 160, 7):
        doc = json.dumps([text[:n], "tail\\" + "x" * (n % 17)]).encode()
        out.append(doc)
        out += [doc[:cut] for cut in range(len(doc) - 1, max(len(doc) - 96, 0), -1)]
    return out


def _inputs() -> list[tuple[str, str, str]]:
    import orcodec

    docs = []
    for stem in DOCUMENTS:
        text = fixture_bytes(f"{stem}.json")
        docs.append((stem, text))
        docs.append((stem + "-escaped", json.dumps(json.loads(text)).encode()))
    # Found by fuzzing: a plain run's 16-byte copy read past the input's end.
    docs.append(("escape-run-at-window-end", (REPO_ROOT / "fixtures/fuzz/json/escape-run-at-window-end").read_bytes()))
    inputs = []
    for name, text in docs:
        inputs.append((name, "json", text.hex()))
        try:
            inputs.append((name, "msgpack", orcodec.packb(orcodec.loads(text)).hex()))
        except orcodec.JSONDecodeError:
            pass
    for i, doc in enumerate(_escaped_strings()):
        inputs.append((f"escaped-{i}", "json", doc.hex()))
    # Numbers of every length (the lexer reads digits 16 at a time) ending
    # the input, as untyped values and as arrays.
    numbers = json.dumps([[1.2345678901234567e-7 * 3**k, -(7**k), 0.5**k] for k in range(40)]).encode()
    for cut in range(len(numbers), len(numbers) - 200, -1):
        inputs.append((f"numbers-{cut}", "json", numbers[:cut].hex()))
    # Numbers of the shapes read by pointer where 64 bytes follow their
    # start (short integers, prices, doubles as repr writes them), cut at
    # every length, so that the last ones end at every distance from the
    # page edge; and single numbers cut at every length.
    shapes = [[k * 37 % 10**7, -(k * 7919 % 1000), round(k * 1.37, 2), 0.5488135039273248 * 0.9**k] for k in range(60)]
    shapes += [[10**k + 0.5, -(2**k), 1 / 3 * 10**k] for k in range(0, 22)]
    numbers = json.dumps(shapes).encode()
    for cut in range(len(numbers), len(numbers) - 300, -1):
        inputs.append((f"short-numbers-{cut}", "json", numbers[:cut].hex()))
    for text in (b"-1234567.1234567890123456789", b"0.5488135039273248", b"12345678901234567890123", b"-3.99"):
        inputs += [(f"number-{text[:cut].decode()}", "json", text[:cut].hex()) for cut in range(1, len(text) + 1)]
    for i, value in enumerate([["x" * n, b"y" * n, n * 1.5] for n in range(0, 300, 13)]):
        packed = orcodec.packb(value)
        inputs += [(f"packed-{i}-{cut}", "msgpack", packed[:cut].hex()) for cut in range(len(packed), 0, -9)]
    return inputs


def test_every_reader_stops_at_the_end_of_its_input():
    result = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=json.dumps(_inputs()),
        capture_output=True,
        text=True,
        timeout=300,
    )
    last = result.stdout.strip().splitlines()[-1:] or ["(nothing)"]
    assert result.returncode == 0, f"exit {result.returncode} while reading: {last[0]}\n{result.stderr[-2000:]}"
    assert last == ["done"]

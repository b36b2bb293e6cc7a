"""Out of memory is an exception, never an abort or a hang.

Each case runs in a child process: it builds its input, then limits its own
address space (``RLIMIT_AS``, the way a container's memory limit behaves) to
what it uses now plus a headroom, and makes one call that needs more than the
headroom. The call must raise ``MemoryError`` within a time bound, and the
interpreter must go on working under the same limit afterwards (a small
encode and decode in both formats). A crash (``SIGABRT`` from a failed Rust
allocation, a panic) fails the case by its exit status, a hang by its timeout.

Every reader and writer that input can drive has its shapes here: containers
with many items, long strings (plain, full of escapes, in each str storage
width), declared lengths that the input really holds, and outputs far larger
than their input. A new reader or entry point adds its rows to ``CASES``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

MB = 1_000_000

# The children limit themselves with RLIMIT_AS and measure themselves in
# /proc: Linux's (macOS accepts the limit but does not enforce it).
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux's RLIMIT_AS and /proc")

# The child: build the input (``setup``), limit the address space, call.
CHILD = r"""
import gc, json, resource, sys, time
import orcodec

def address_space():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * resource.getpagesize()

{setup}
gc.collect()
limit = address_space() + {headroom}
resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
start = time.perf_counter()
try:
    result = {call}
    outcome = {{"returned": True, "ok": bool({check})}}
except BaseException as error:
    cause = type(error.__cause__).__name__ if error.__cause__ else None
    outcome = {{"raised": type(error).__name__, "cause": cause, "message": str(error)}}
result = None
elapsed = time.perf_counter() - start
gc.collect()
# Still alive, under the same limit: small calls in both formats work.
doc = {{"a": [1, 2.5, "x\n", None, True], "b": {{"c": "é"}}}}
outcome["alive"] = (
    orcodec.loads(orcodec.dumps(doc)) == doc
    and orcodec.unpackb(orcodec.packb(doc)) == doc
    and orcodec.dumps([[]] * 1000) == b"[" + b",".join([b"[]"] * 1000) + b"]"
)
outcome["elapsed"] = elapsed
print(json.dumps(outcome))
"""

# A 4 GiB input costs no memory: an anonymous mapping reads as zeros until
# written, and only its first page is. Zero bytes are MessagePack's fixint 0,
# so the array really holds the 2**32-1 items it declares.
FOUR_GIB_ARRAY = """
import mmap
data = mmap.mmap(-1, 5 + (2**32 - 1))
data[:5] = b"\\xdd\\xff\\xff\\xff\\xff"
view = memoryview(data)
"""

# An extension value of 2**32-1 bytes (the most an ext32 holds) that is a
# valid uint8 array of shape (8, 536870909): the 23-byte header, then zeros.
NUMPY_EXT_4_GIB = """
import mmap
import numpy
n = 2**32 - 1
header = bytes([0, 2, 3, 0]) + b"|u1" + (8).to_bytes(8, "big") + (536870909).to_bytes(8, "big")
assert len(header) + 8 * 536870909 == n
data = mmap.mmap(-1, 6 + n)
data[: 6 + len(header)] = b"\\xc9" + n.to_bytes(4, "big") + bytes([78]) + header
view = memoryview(data)
"""

ENUM = """
import enum

class Color(enum.Enum):
    RED = "red"

"""

DATACLASS = """
import dataclasses

@dataclasses.dataclass
class P:
    x: int

"""

# (id, setup, call, headroom[, the exception expected]): MemoryError unless
# another is named.
NDARRAY = "import numpy as np\nfrom numpy.typing import NDArray\n"

CASES = [
    # Encoders: outputs larger than the headroom.
    (
        "dumps-escaped-str",  # a 6x escape reservation for the whole text, then an abort
        "s = '\\n' + 'a' * (150 * 10**6)",
        "orcodec.dumps(s)",
        100 * MB,
    ),
    (
        "dumps-escaped-ucs2",
        "s = '\\n\\u4e2d' + 'a' * (80 * 10**6)",
        "orcodec.dumps(s)",
        60 * MB,
    ),
    (
        "dumps-indent-escaped-ucs1",
        "s = ['\\x01\\xe9' * (40 * 10**6)]",
        "orcodec.dumps(s, option=orcodec.OPT_INDENT_2)",
        100 * MB,
    ),
    ("packb-bytes", "b = bytes(200 * MB)", "orcodec.packb(b)", 100 * MB),
    ("packb-ucs2-str", "s = '\\u4e2d' * (60 * 10**6)", "orcodec.packb(s)", 100 * MB),
    ("packb-ucs4-str", "s = '\\U0001f600' * (30 * 10**6)", "orcodec.packb(s)", 60 * MB),
    (
        "dumps-many-empty-lists",  # exact-size growth once doubling fails: quadratic
        "obj = [[]] * 2**25",
        "orcodec.dumps(obj)",
        64 * MB,
    ),
    (
        "dumps-repeated-dict",  # 10**10 entries from a few MB: walked on after the output was lost
        "obj = [dict.fromkeys(map(str, range(10_000)), 0)] * 10**6",
        "orcodec.dumps(obj)",
        64 * MB,
    ),
    (
        "packb-repeated-list",
        "obj = [list(range(10_000))] * 10**6",
        "orcodec.packb(obj)",
        64 * MB,
    ),
    ("packb-many-small-ints", "obj = [1] * 2**25", "orcodec.packb(obj)", 16 * MB),
    (
        "dumps-sorted-many-keys",
        "obj = dict.fromkeys(map(str, range(500_000)), 0)",
        "orcodec.dumps(obj, option=orcodec.OPT_SORT_KEYS)",
        4 * MB,
    ),
    (
        "dumps-numpy-empty-rows",  # 2**41 empty rows from an array of no bytes
        "import numpy as np\narr = np.empty((2**31, 1024, 0))",
        "orcodec.dumps(arr, option=orcodec.OPT_SERIALIZE_NUMPY)",
        64 * MB,
    ),
    (
        "packb-numpy-empty-rows",
        "import numpy as np\narr = np.empty((2**31, 1024, 0))",
        "orcodec.packb(arr, option=orcodec.OPT_SERIALIZE_NUMPY)",
        64 * MB,
    ),
    (
        "packb-numpy-ext",  # the elements copied straight into the output
        "import numpy as np\narr = np.ones(200 * MB, np.uint8)",
        "orcodec.packb(arr, option=orcodec.OPT_NUMPY_EXT)",
        100 * MB,
    ),
    (
        "packb-msgpack-numpy",
        "import numpy as np\narr = np.ones(200 * MB, np.uint8)",
        "orcodec.packb(arr, option=orcodec.OPT_MSGPACK_NUMPY)",
        100 * MB,
    ),
    # Decoders: many items, long strings, declared lengths the input holds.
    ("loads-many-items", "data = b'[' + b'0,' * (40 * 10**6) + b'0]'", "orcodec.loads(data)", 200 * MB),
    (
        "loads-many-nested-items",
        "data = b'[' + b'[0,[]],' * (10 * 10**6) + b'0]'",
        "orcodec.loads(data)",
        200 * MB,
    ),
    (
        "loads-many-entries",
        "data = b'{' + b''.join(b'\"%d\":0,' % i for i in range(4 * 10**6)) + b'\"x\":0}'",
        "orcodec.loads(data)",
        100 * MB,
    ),
    (
        "loads-escaped-str",  # the unescape buffer
        "data = b'\"' + b'\\\\n' * (30 * 10**6) + b'\"'",
        "orcodec.loads(data)",
        24 * MB,
    ),
    ("loads-long-str", "data = b'\"' + b'a' * (100 * MB) + b'\"'", "orcodec.loads(data)", 50 * MB),
    (
        "loads-long-non-ascii-str",
        "data = b'\"' + '\\u4e2d'.encode() * (30 * 10**6) + b'\"'",
        "orcodec.loads(data)",
        40 * MB,
    ),
    (
        "unpackb-array32-many-items",
        "n = 40 * 10**6\ndata = b'\\xdd' + n.to_bytes(4, 'big') + b'\\x00' * n",
        "orcodec.unpackb(data)",
        200 * MB,
    ),
    (
        "unpackb-map32-many-entries",
        "n = 20 * 10**6\ndata = b'\\xdf' + n.to_bytes(4, 'big') + b'\\x00\\x00' * n",
        "orcodec.unpackb(data, option=orcodec.OPT_NON_STR_KEYS)",
        100 * MB,
    ),
    (
        "unpackb-array32-4GiB",  # 2**32-1 items really there: no 32 GiB reservation
        FOUR_GIB_ARRAY,
        "orcodec.unpackb(view)",
        200 * MB,
    ),
    (
        "unpackb-str32",
        "n = 100 * MB\ndata = b'\\xdb' + n.to_bytes(4, 'big') + b'a' * n",
        "orcodec.unpackb(data)",
        50 * MB,
    ),
    (
        "unpackb-bin32",
        "n = 100 * MB\ndata = b'\\xc6' + n.to_bytes(4, 'big') + bytes(n)",
        "orcodec.unpackb(data)",
        50 * MB,
    ),
    (
        "unpackb-numpy-ext-4GiB",  # a (8, 536870909) uint8 array, all its bytes there
        NUMPY_EXT_4_GIB,
        "orcodec.unpackb(view, option=orcodec.OPT_NUMPY_EXT)",
        200 * MB,
    ),
    # Typed decoding: the same shapes through the pull readers and the
    # validators' item stack, and convert over Python objects.
    (
        "loads-typed-many-items",
        "data = b'[' + b'0,' * (16 * 10**6) + b'0]'",
        "orcodec.loads(data, type=list[int])",
        64 * MB,
    ),
    (
        "unpackb-typed-many-items",
        "n = 16 * 10**6\ndata = b'\\xdd' + n.to_bytes(4, 'big') + b'\\x00' * n",
        "orcodec.unpackb(data, type=list[int])",
        64 * MB,
    ),
    (
        "loads-typed-many-dataclasses",
        DATACLASS + "data = b'[' + b'{\"x\":0},' * (4 * 10**6) + b'{\"x\":0}]'",
        "orcodec.loads(data, type=list[P])",
        64 * MB,
    ),
    (
        "unpackb-typed-many-dataclasses",
        DATACLASS + "n = 4 * 10**6\ndata = b'\\xdd' + n.to_bytes(4, 'big') + b'\\x81\\xa1x\\x00' * n",
        "orcodec.unpackb(data, type=list[P])",
        64 * MB,
    ),
    (
        "unpackb-typed-many-entries",
        "n = 8 * 10**6\ndata = b'\\xdf' + n.to_bytes(4, 'big') + b'\\x00\\x00' * n",
        "orcodec.unpackb(data, type=dict[int, int])",
        64 * MB,
    ),
    (
        "loads-typed-any-items",  # untyped values inside a typed one
        "import typing\ndata = b'[[' + b'0,' * (16 * 10**6) + b'0]]'",
        "orcodec.loads(data, type=list[typing.Any])",
        64 * MB,
    ),
    (
        "unpackb-typed-any-items",
        "import typing\nn = 16 * 10**6\ndata = b'\\x91\\xdd' + n.to_bytes(4, 'big') + b'\\x00' * n",
        "orcodec.unpackb(data, type=list[typing.Any])",
        64 * MB,
    ),
    ("convert-many-items", "obj = [0] * (16 * 10**6)", "orcodec.convert(obj, list[int])", 64 * MB),
    # numpy array targets: the element buffer (8 bytes an item for float64).
    (
        "loads-typed-ndarray-many-items",
        NDARRAY + "data = b'[' + b'0,' * (16 * 10**6) + b'0]'",
        "orcodec.loads(data, type=NDArray[np.float64])",
        64 * MB,
    ),
    (
        "unpackb-typed-ndarray-many-items",
        NDARRAY + "n = 16 * 10**6\ndata = b'\\xdd' + n.to_bytes(4, 'big') + b'\\x00' * n",
        "orcodec.unpackb(data, type=NDArray[np.float64])",
        64 * MB,
    ),
    (
        "convert-ndarray-many-items",
        NDARRAY + "obj = [0] * (16 * 10**6)",
        "orcodec.convert(obj, NDArray[np.float64])",
        64 * MB,
    ),
    (
        "loads-typed-base64",  # the decoded bytes, three quarters of the text
        "data = b'\"' + b'A' * (80 * MB) + b'\"'",
        "orcodec.loads(data, type=bytes)",
        40 * MB,
    ),
    ("loads-typed-long-int", "data = b'1' * (60 * MB)", "orcodec.loads(data, type=int)", 40 * MB),
    # Errors about a huge value: the message quotes its start, so making it
    # needs no memory the size of the value; the error itself is raised.
    (
        "unpackb-typed-long-enum-value",
        ENUM + "n = 60 * MB\ndata = b'\\xdb' + n.to_bytes(4, 'big') + b'a' * n",
        "orcodec.unpackb(data, type=Color)",
        40 * MB,
        "MsgpackValidationError",
    ),
    (
        "unpackb-typed-long-unknown-field",
        DATACLASS
        + "n = 60 * MB\ndata = b'\\x81\\xdb' + n.to_bytes(4, 'big') + b'k' * n + b'\\x00'\n"
        + "decoder = orcodec.Decoder(P, forbid_unknown_fields=True)",
        "decoder.unpackb(data)",
        40 * MB,
        "MsgpackValidationError",
    ),
    (
        "convert-long-enum-value",
        ENUM + "obj = 'a' * (60 * MB)",
        "orcodec.convert(obj, Color)",
        40 * MB,
        "ValidationError",
    ),
    # Streams, JSON Lines and the transcoders.
    (
        "json_to_msgpack-many-items",
        "data = b'[' + b'0,' * (40 * 10**6) + b'0]'",
        "orcodec.json_to_msgpack(data)",
        20 * MB,
    ),
    (
        "json_to_msgpack-many-entries",  # the repeated-key table of one large object
        "data = b'{' + b''.join(b'\"%d\":0,' % i for i in range(4 * 10**6)) + b'\"x\":0}'",
        "orcodec.json_to_msgpack(data)",
        60 * MB,
    ),
    (
        "json_to_msgpack-many-maps",  # header patches of many containers
        "data = b'[' + b'{\"a\":[[],{}]},' * (5 * 10**6) + b'0]'",
        "orcodec.json_to_msgpack(data)",
        16 * MB,
    ),
    (
        "msgpack_to_json-many-items",
        "n = 40 * 10**6\ndata = b'\\xdd' + n.to_bytes(4, 'big') + b'\\x00' * n",
        "orcodec.msgpack_to_json(data)",
        40 * MB,
    ),
    (
        "msgpack_to_json-sorted-many-entries",
        "n = 4 * 10**6\n"
        "data = b'\\xdf' + n.to_bytes(4, 'big') + b''.join(orcodec.packb(str(i)) + b'\\x00' for i in range(n))",
        "orcodec.msgpack_to_json(data, option=orcodec.OPT_SORT_KEYS)",
        60 * MB,
    ),
    (
        "unpacker-feed",
        "u = orcodec.Unpacker(max_buffer_size=0)\ndata = bytes(200 * MB)",
        "u.feed(data)",
        100 * MB,
    ),
    (
        "unpacker-long-str",
        "n = 100 * MB\nu = orcodec.Unpacker(max_buffer_size=0)\nu.feed(b'\\xdb' + n.to_bytes(4, 'big') + b'a' * n)",
        "u.unpack()",
        50 * MB,
    ),
    (
        "unpacker-many-items",
        "n = 40 * 10**6\n"
        "u = orcodec.Unpacker(max_buffer_size=0)\n"
        "u.feed(b'\\xdd' + n.to_bytes(4, 'big') + b'\\x00' * n)",
        "u.unpack()",
        200 * MB,
    ),
    ("dumps_lines-large-output", "rows = [list(range(1000))] * 100_000", "orcodec.dumps_lines(rows)", 64 * MB),
    ("loads_lines-many-items", "data = b'1\\n[' + b'0,' * (40 * 10**6) + b'0]'", "orcodec.loads_lines(data)", 200 * MB),
    (
        "iter_lines-long-line",
        "import io\nf = io.BytesIO(b'1\\n[' + b'0,' * (40 * 10**6) + b'0]\\n')",
        "list(orcodec.iter_lines(f))",
        100 * MB,
    ),
]


def _script(setup: str, call: str, headroom: int, check: str = "False") -> str:
    return CHILD.format(setup=f"MB = {MB}\n" + textwrap.dedent(setup), call=call, headroom=headroom, check=check)


# Seconds a call may take before it counts as a hang (the slowest case takes
# about a second when idle), and the child's whole budget.
CALL_SECONDS = 20
CHILD_SECONDS = 120


@pytest.mark.parametrize(
    "setup, call, headroom, expected",
    [(*c[1:4], c[4] if len(c) > 4 else "MemoryError") for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_out_of_memory_is_memory_error(setup, call, headroom, expected):
    done = subprocess.run(
        [sys.executable, "-c", _script(setup, call, headroom)],
        capture_output=True,
        text=True,
        timeout=CHILD_SECONDS,
    )
    assert done.returncode == 0, f"child died ({done.returncode}): {done.stderr[-2000:]}"
    outcome = json.loads(done.stdout)
    assert outcome.get("raised") == expected, outcome
    assert len(outcome["message"]) < 1000, outcome
    assert outcome["alive"], outcome
    assert outcome["elapsed"] < CALL_SECONDS, outcome


def test_short_memory_still_encodes():
    # 48 MB of output with 64 MB of headroom: growing eight-fold fails on the
    # way, and the output still comes out whole (or, if the allocator cannot
    # find the room, as MemoryError), without the quadratic exact-size growth.
    script = _script(
        "obj = [[]] * 2**24",
        "orcodec.dumps(obj)",
        64 * MB,
        "len(result) == 3 * 2**24 + 1 and result.count(b'[],') == 2**24 - 1 and result.endswith(b'[]]')",
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=CHILD_SECONDS)
    assert done.returncode == 0, f"child died ({done.returncode}): {done.stderr[-2000:]}"
    outcome = json.loads(done.stdout)
    assert outcome.get("ok") or outcome.get("raised") == "MemoryError", outcome
    assert outcome["alive"], outcome
    assert outcome["elapsed"] < CALL_SECONDS, outcome

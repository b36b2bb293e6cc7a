"""Shared helpers and data for the orcodec test suite.

Imported by the test modules as ``helpers`` (``conftest.py`` puts this directory on
``sys.path``).  The expectations in here (data, comparisons, hand-built MessagePack) do not
depend on orcodec, so they can be checked against orjson / ormsgpack / msgpack / the stdlib
alone; orcodec itself appears only in :data:`FORMATS`, the two formats under test.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import gc
import math
import os
import struct
import sys
import types
import typing
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import corpora
import msgpack
import orcodec
import orjson
import ormsgpack
import pytest

# --------------------------------------------------------------------------------------
# Test data: the repository's own corpora, and the shared ones when present (corpora.py)
# --------------------------------------------------------------------------------------

REPO_ROOT = corpora.REPO_ROOT
SHARED_DIR = corpora.SHARED_DIR

# The real-world documents: the repository's stand-ins ("twitter.json"), then the shared
# originals ("shared/twitter.json") when they are there. Never empty.
DOCUMENT_FILES = [f"{stem}.json" for stem in corpora.DOCUMENT_STEMS] + [
    f"shared/{stem}.json" for stem in corpora.shared_documents()
]
# The same without ".json", for tests that add the extension themselves.
DOCUMENTS = [name[: -len(".json")] for name in DOCUMENT_FILES]


def document_stem(name: str) -> str:
    """``"twitter"`` for ``"twitter"``, ``"twitter.json"`` and ``"shared/twitter.json"``."""
    return name.rsplit("/", 1)[-1].removesuffix(".json")


def missing_fixtures(what: str) -> None:
    """Fail (never skip) when test data the suite expects is not there."""
    pytest.fail(f"test data missing: {what}", pytrace=False)


def fixture_file(name: str) -> Path:
    """A document by name: ``"github.json"`` is the repository's stand-in
    (fixtures/generated), ``"shared/github.json"`` the shared original."""
    if name.startswith("shared/"):
        if SHARED_DIR is None:
            missing_fixtures(f"{name} (no shared fixtures directory)")
        path = SHARED_DIR / name[len("shared/") :]
    else:
        path = corpora.GENERATED_DIR / name
    if not path.is_file():
        missing_fixtures(str(path))
    return path


def fixture_bytes(name: str) -> bytes:
    return fixture_file(name).read_bytes()


# The conformance corpora by what a strict reader must do with a file: "accept" (parse,
# with the standard library's value), "reject", "implementation" (the RFC leaves it open;
# the tests hold orcodec to its documented outcome) and "canonical" (accepted, and
# already in the form dumps writes). Own files are "own/NAME", shared ones
# "shared/GROUP/NAME".
# JSON_checker's fail01.json (a bare string at the top level) and fail18.json (20 nested
# arrays) were errors for the old checker but are legal RFC 8259.
JSONCHECKER_RFC_LEGAL = {"fail01.json", "fail18.json"}
_OWN_PATTERNS = {
    "accept": ["y_*.json"],
    "reject": ["n_*.json"],
    "implementation": ["i_*.json"],
    "canonical": ["y_canonical_*.json"],
}
_SHARED_PATTERNS = {
    "accept": ["parsing/y_*.json", "jsonchecker/pass*.json"] + [f"jsonchecker/{n}" for n in JSONCHECKER_RFC_LEGAL],
    "reject": ["parsing/n_*.json", "jsonchecker/fail*.json"],
    "implementation": ["parsing/i_*.json", "transform/*.json"],
    "canonical": ["roundtrip/*.json"],
}


def conformance_files(kind: str) -> list[tuple[str, Path]]:
    """(id, path) of every conformance file of ``kind``, own first."""
    found = []
    for pattern in _OWN_PATTERNS[kind]:
        found += [(f"own/{p.name}", p) for p in sorted(corpora.CONFORMANCE_DIR.glob(pattern))]
    if not found:
        missing_fixtures(f"{corpora.CONFORMANCE_DIR}/{_OWN_PATTERNS[kind][0]} (run tools/conformance_corpus.py)")
    shared = corpora.shared_conformance()
    if shared is not None:
        for pattern in _SHARED_PATTERNS[kind]:
            for p in sorted(shared.glob(pattern)):
                if kind == "reject" and p.parent.name == "jsonchecker" and p.name in JSONCHECKER_RFC_LEGAL:
                    continue
                found.append((f"shared/{p.relative_to(shared)}", p))
    return found


def conformance_params(kind: str) -> list:
    """``pytest.param(path, id=...)`` for every conformance file of ``kind``."""
    return [pytest.param(path, id=ident) for ident, path in conformance_files(kind)]


def naughty_strings() -> list[tuple[str, str]]:
    """(id, string): the repository's hostile strings, then the Big List of Naughty Strings
    when the shared fixtures have it. One per line; "#" comments and blank lines skipped."""
    sources = [("own", corpora.STRINGS_FILE)]
    blns = corpora.shared_strings()
    if blns is not None:
        sources.append(("blns", blns))
    found = []
    for prefix, path in sources:
        text = path.read_bytes().decode("utf-8")
        # Split on '\n' only: str.splitlines() would also split on U+2028, U+0085, ...
        lines = [line for line in text.split("\n") if line and not line.startswith("#")]
        found += [(f"{prefix}{i}", line) for i, line in enumerate(lines)]
    if not found:
        missing_fixtures(str(corpora.STRINGS_FILE))
    return found


def naughty_params() -> list:
    return [pytest.param(s, id=ident) for ident, s in naughty_strings()]


# --------------------------------------------------------------------------------------
# Peer versions: the pins of requirements-dev.txt, and older ones on older Pythons
# --------------------------------------------------------------------------------------


def _main_pins() -> dict[str, str]:
    """Each package's pin for the newest Pythons (the line without a marker, or with
    ``python_version >= ...``): the versions the differential tests were written against."""
    pins = {}
    for line in (REPO_ROOT / "requirements-dev.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" not in line:
            continue
        spec, _, marker = line.partition(";")
        name, version = (part.strip() for part in spec.split("=="))
        if not marker.strip() or ">=" in marker:
            pins[name.lower()] = version
    return pins


MAIN_PINS = _main_pins()


def peer_is_pinned(peer) -> bool:
    """Whether peer (a module or a distribution name) is its pinned release; False on a
    Python too old for it, where an older release stands in."""
    import importlib.metadata

    name = peer if isinstance(peer, str) else {"rapidjson": "python-rapidjson"}.get(peer.__name__, peer.__name__)
    return importlib.metadata.version(name) == MAIN_PINS[name.lower()]


# --------------------------------------------------------------------------------------
# Exact comparison
# --------------------------------------------------------------------------------------


def strict_diff(actual, expected, *, big_int_as_float: bool = False) -> str | None:
    """Return None if equal, else a description of the first difference.

    Equality is exact: types must match exactly (bool vs int vs float, list vs tuple, no
    subclasses), floats compare by value with -0.0 distinct from 0.0 and NaN equal to NaN,
    dicts compare key order too.  With ``big_int_as_float`` an int outside
    -2**63..2**64-1 in ``expected`` is expected as ``float(value)`` in ``actual``
    (orjson's/orcodec's behaviour for big JSON integers).

    Iterative, so 100 000-deep structures do not hit Python's recursion limit.
    """
    stack = [(actual, expected, "$")]
    while stack:
        a, e, where = stack.pop()
        if big_int_as_float and type(e) is int and not (-(2**63) <= e <= 2**64 - 1):
            e = float(e)
        if type(a) is not type(e):
            return f"{where}: type {type(a).__name__} != {type(e).__name__} ({a!r:.80} vs {e!r:.80})"
        if type(e) is float:
            if math.isnan(e):
                if not math.isnan(a):
                    return f"{where}: {a!r} != nan"
            elif a != e or math.copysign(1.0, a) != math.copysign(1.0, e):
                return f"{where}: {a!r} != {e!r}"
        elif type(e) in (list, tuple):
            if len(a) != len(e):
                return f"{where}: length {len(a)} != {len(e)}"
            for i in range(len(e) - 1, -1, -1):
                stack.append((a[i], e[i], f"{where}[{i}]"))
        elif type(e) is dict:
            if list(a) != list(e):
                return f"{where}: keys {list(a)!r:.200} != {list(e)!r:.200}"
            for k in reversed(list(e)):
                stack.append((a[k], e[k], f"{where}[{k!r}]"))
        elif a != e:
            return f"{where}: {a!r:.200} != {e!r:.200}"
    return None


def assert_strict_equal(actual, expected, *, big_int_as_float: bool = False) -> None:
    diff = strict_diff(actual, expected, big_int_as_float=big_int_as_float)
    assert diff is None, diff


def to_plain(obj):
    """What a round trip through either format gives back for a builtin document:
    tuples become lists and subclasses of str/int/float/dict/list become the base type."""
    if obj is None or type(obj) is bool:
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return float(obj)
    if isinstance(obj, str):
        return str(obj)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj)
    if isinstance(obj, (list, tuple)):
        return [to_plain(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    raise TypeError(f"not a builtin document: {type(obj)!r}")


def json_plain(obj):
    """What a JSON round trip gives back: like :func:`to_plain`, and NaN/±inf become None."""
    if type(obj) is float and (math.isnan(obj) or math.isinf(obj)):
        return None
    if isinstance(obj, (list, tuple)):
        return [json_plain(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): json_plain(v) for k, v in obj.items()}
    return to_plain(obj)


# --------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------


def nested_lists(depth: int, innermost=None):
    """``depth`` nested lists: nested_lists(1) == [], nested_lists(2) == [[]]."""
    obj = [] if innermost is None else [innermost]
    for _ in range(depth - 1):
        obj = [obj]
    return obj


def nested_dicts(depth: int):
    """``depth`` nested dicts: nested_dicts(1) == {}, nested_dicts(2) == {"a": {}}."""
    obj: dict = {}
    for _ in range(depth - 1):
        obj = {"a": obj}
    return obj


def nested_tuples(depth: int):
    obj: tuple = ()
    for _ in range(depth - 1):
        obj = (obj,)
    return obj


def nested_mixed(depth: int):
    """Alternating list / dict nesting, ``depth`` containers in total."""
    obj = [] if depth % 2 else {}
    for level in range(depth - 1):
        obj = {"k": obj} if level % 2 else [obj]
    return obj


def utf8_string(nbytes: int, char: str) -> str:
    """A str whose UTF-8 encoding is exactly ``nbytes`` long, made of ``char`` padded
    with ASCII 'a'."""
    width = len(char.encode("utf-8"))
    s = char * (nbytes // width) + "a" * (nbytes % width)
    assert len(s.encode("utf-8")) == nbytes
    return s


def random_doubles(count: int, seed: int) -> list[float]:
    """Finite doubles from uniformly random 64-bit patterns (NaN and inf excluded)."""
    import random

    rng = random.Random(seed)
    out = []
    while len(out) < count:
        (x,) = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))
        if math.isfinite(x):
            out.append(x)
    return out


# --------------------------------------------------------------------------------------
# Shared test data
# --------------------------------------------------------------------------------------

INT_BOUNDARIES = [
    0,
    1,
    127,
    128,
    255,
    256,
    65535,
    65536,
    2**31 - 1,
    2**31,
    2**32 - 1,
    2**32,
    2**53,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64 - 1,
    -1,
    -31,
    -32,
    -33,
    -127,
    -128,
    -129,
    -255,
    -256,
    -32767,
    -32768,
    -32769,
    -65535,
    -65536,
    -(2**31) + 1,
    -(2**31),
    -(2**31) - 1,
    -(2**32),
    -(2**53),
    -(2**63) + 1,
    -(2**63),
]

INTS_OUT_OF_RANGE = [2**64, 2**64 + 1, 2**65, 10**30, -(2**63) - 1, -(2**64), -(10**30)]

SPECIAL_FLOATS = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    0.1,
    0.2,
    0.3,
    1.5,
    2.5,
    100.0,
    1e1,
    1e15,
    1e16,
    1e17,
    1e21,
    1e22,
    1e23,
    1e100,
    1e-5,
    1e-6,
    1e-7,
    1e-100,
    1e300,
    1e-300,
    123456.789,
    -123456.789,
    3.141592653589793,
    2.718281828459045,
    1 / 3,
    2 / 3,
    9007199254740992.0,
    9007199254740993.0,
    18446744073709551616.0,
    -9.223372036854776e18,
    5e-324,
    -5e-324,
    1e-323,
    2.225073858507201e-308,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    4.9406564584124654e-324,
    1.2345,
    -1.2345,
    0.000001,
    123e-20,
    1.0e-10,
    7e22,
    8.41e21,
    5.0e-100,
]

NON_FINITE_FLOATS = [float("nan"), float("inf"), float("-inf")]

# One representative string per class; "kind" ids are used in several files.
STRING_KINDS = {
    "empty": "",
    "ascii": "hello, world",
    "latin1": "caf\u00e9 \u00ff\u00e0\u00c9",
    "bmp": "\u4e2d\u6587 \u2028 \u2029 \uffff \u0800 \ufeff",
    "astral": "\U0001f600 \U00010000 \U0010ffff \U0001d11e",
    "controls": "".join(chr(c) for c in range(0x20)) + "\x7f",
    "quotes": '"quoted" \'single\' back\\slash /slash/ \\" \\\\',
    "mixed": 'a\u00e9\u4e2d\U0001f600\n\t"\\\x00\x7f\u2028',
}

# 100 KB strings of each kind.
LONG_STRINGS = {
    "ascii": "abcdefghij" * 10_000,
    "latin1": "\u00e9\u00ff" * 50_000,
    "bmp": "\u4e2d\u6587" * 50_000,
    "astral": "\U0001f600" * 100_000,
    "controls": '\x00\x1f\n"\\' * 20_000,
    "mixed": "a\u00e9\u4e2d\U0001f600\n" * 20_000,
}

CONTROL_CHARS = [chr(c) for c in range(0x20)] + ["\x7f"]

# Lone surrogates cannot be encoded as UTF-8.
SURROGATE_STRINGS = ["\ud800", "\udfff", "\udc00", "a\ud83d", "\ude00b", "x\ud800y\udbff", "\udfff\ud800"]


class MyStr(str):
    pass


class MyInt(int):
    pass


class MyFloat(float):
    pass


class MyDict(dict):
    pass


class MyList(list):
    pass


class MyTuple(tuple):
    pass


class MyBytes(bytes):
    pass


class MyByteArray(bytearray):
    pass


class MyUUID(uuid.UUID):
    pass


class MyDateTime(dt.datetime):
    pass


class MyDate(dt.date):
    pass


class Unsupported:
    """A type neither encoder knows."""

    def __repr__(self) -> str:
        return "Unsupported()"


@dataclasses.dataclass
class Point:
    x: int
    y: float
    label: str = "origin"


@dataclasses.dataclass(frozen=True)
class Frozen:
    """Fields not in sorted order (written in definition order, even with OPT_SORT_KEYS)."""

    b: int
    a: int


def _add_slots(cls: type) -> type:
    """Dataclass ``cls`` remade with ``__slots__`` as ``dataclass(slots=True)`` makes it on
    Python 3.10+: the same namespace without the field defaults (``__init__`` has them)."""
    names = tuple(f.name for f in dataclasses.fields(cls))
    namespace = {k: v for k, v in cls.__dict__.items() if k not in names and k not in ("__dict__", "__weakref__")}
    namespace["__slots__"] = names
    slotted = type(cls)(cls.__name__, cls.__bases__, namespace)
    slotted.__qualname__ = cls.__qualname__
    return slotted


def slots_dataclass(cls: type | None = None, /, **kwargs):
    """``@dataclasses.dataclass(slots=True, **kwargs)``, also on Python 3.9 (which lacks
    the parameter, not slotted dataclasses)."""

    def wrap(c: type) -> type:
        if sys.version_info >= (3, 10):
            return dataclasses.dataclass(slots=True, **kwargs)(c)
        return _add_slots(dataclasses.dataclass(**kwargs)(c))

    return wrap if cls is None else wrap(cls)


def make_slots_dataclass(name: str, fields: list) -> type:
    """``dataclasses.make_dataclass(name, fields, slots=True)`` on every supported Python."""
    if sys.version_info >= (3, 10):
        return dataclasses.make_dataclass(name, fields, slots=True)
    return _add_slots(dataclasses.make_dataclass(name, fields))


@slots_dataclass
class Slotted:
    z: int
    a: str = "s"


class Letter(str, enum.Enum):
    A = "a"


class Movie(typing.TypedDict):
    title: str
    year: int


UTC = dt.timezone.utc


def fixed_offset(seconds: int, microseconds: int = 0) -> dt.timezone:
    """A ``datetime.timezone`` of that many seconds (and microseconds) east of UTC."""
    return dt.timezone(dt.timedelta(seconds=seconds, microseconds=microseconds))


class NoneOffset(dt.tzinfo):
    """A tzinfo whose utcoffset() is None: Python calls such a datetime naive."""

    def utcoffset(self, d):
        return None

    def dst(self, d):
        return None

    def tzname(self, d):
        return None


class RaisingOffset(dt.tzinfo):
    """A tzinfo whose utcoffset() raises ``exc`` (a fresh one per call) while ``fail`` is set."""

    def __init__(self, exc: type[Exception] = ZeroDivisionError, fail: bool = True):
        self.exc = exc
        self.fail = fail

    def utcoffset(self, d):
        if self.fail:
            raise self.exc("no offset here")
        return dt.timedelta(hours=1)

    def tzname(self, d):
        return "raising"

    def dst(self, d):
        return None


class StrOffset(dt.tzinfo):
    """utcoffset() returns something that is not a timedelta."""

    def utcoffset(self, d):
        return "+01:00"

    def dst(self, d):
        return None


def replace_surrogates(s: str) -> str:
    """``s`` with each lone surrogate replaced by '?' (OPT_REPLACE_SURROGATES)."""
    return "".join("?" if 0xD800 <= ord(c) < 0xE000 else c for c in s)


def depth_of(obj) -> int:
    """Nesting depth of a decoded chain of single-item lists/dicts (iterative, so any depth)."""
    depth = 0
    while isinstance(obj, (list, dict)):
        depth += 1
        if not obj:
            break
        obj = obj[0] if isinstance(obj, list) else next(iter(obj.values()))
    return depth


# --------------------------------------------------------------------------------------
# Flags by name, for comparing with the peers
# --------------------------------------------------------------------------------------


def opts(module, names) -> int:
    """The bitwise or of ``module.<name>`` for each flag name: orjson's, ormsgpack's and
    orcodec's OPT_ values differ, so each library is given its own constants."""
    value = 0
    for name in names:
        value |= getattr(module, name)
    return value


def outcome(call, *args, **kwargs):
    """``("ok", result)``, or ``("raise", base, message)`` when the call raises a TypeError
    or a ValueError (``base``; every encode and decode error is one): for comparing orcodec
    with a peer, whose exception classes differ but whose messages orcodec repeats.
    ``outcome(...)[:2]`` compares what happened without the message."""
    try:
        return ("ok", call(*args, **kwargs))
    except TypeError as exc:
        return ("raise", TypeError, str(exc))
    except ValueError as exc:
        return ("raise", ValueError, str(exc))


# --------------------------------------------------------------------------------------
# Hand-built MessagePack: one function per family, and the smallest form of each header
# --------------------------------------------------------------------------------------


def u8(v: int) -> bytes:
    return b"\xcc" + struct.pack(">B", v)


def u16(v: int) -> bytes:
    return b"\xcd" + struct.pack(">H", v)


def u32(v: int) -> bytes:
    return b"\xce" + struct.pack(">I", v)


def u64(v: int) -> bytes:
    return b"\xcf" + struct.pack(">Q", v)


def i8(v: int) -> bytes:
    return b"\xd0" + struct.pack(">b", v)


def i16(v: int) -> bytes:
    return b"\xd1" + struct.pack(">h", v)


def i32(v: int) -> bytes:
    return b"\xd2" + struct.pack(">i", v)


def i64(v: int) -> bytes:
    return b"\xd3" + struct.pack(">q", v)


def f32(v: float) -> bytes:
    return b"\xca" + struct.pack(">f", v)


def f64(v: float) -> bytes:
    return b"\xcb" + struct.pack(">d", v)


def fixstr(b: bytes) -> bytes:
    assert len(b) < 32
    return bytes([0xA0 | len(b)]) + b


def str8(b: bytes) -> bytes:
    return b"\xd9" + struct.pack(">B", len(b)) + b


def str16(b: bytes) -> bytes:
    return b"\xda" + struct.pack(">H", len(b)) + b


def str32(b: bytes) -> bytes:
    return b"\xdb" + struct.pack(">I", len(b)) + b


def bin8(b: bytes) -> bytes:
    return b"\xc4" + struct.pack(">B", len(b)) + b


def bin16(b: bytes) -> bytes:
    return b"\xc5" + struct.pack(">H", len(b)) + b


def bin32(b: bytes) -> bytes:
    return b"\xc6" + struct.pack(">I", len(b)) + b


def fixarray(items: list[bytes]) -> bytes:
    assert len(items) < 16
    return bytes([0x90 | len(items)]) + b"".join(items)


def array16(items: list[bytes]) -> bytes:
    return b"\xdc" + struct.pack(">H", len(items)) + b"".join(items)


def array32(items: list[bytes]) -> bytes:
    return b"\xdd" + struct.pack(">I", len(items)) + b"".join(items)


def fixmap(pairs: list[tuple[bytes, bytes]]) -> bytes:
    assert len(pairs) < 16
    return bytes([0x80 | len(pairs)]) + b"".join(k + v for k, v in pairs)


def map16(pairs: list[tuple[bytes, bytes]]) -> bytes:
    return b"\xde" + struct.pack(">H", len(pairs)) + b"".join(k + v for k, v in pairs)


def map32(pairs: list[tuple[bytes, bytes]]) -> bytes:
    return b"\xdf" + struct.pack(">I", len(pairs)) + b"".join(k + v for k, v in pairs)


def msgpack_header(kind: str, n: int) -> bytes:
    """The smallest header of a ``kind`` ("str", "bin", "array" or "map") of ``n`` bytes
    (str, bin) or items (array, map)."""
    if kind == "str":
        if n < 32:
            return bytes([0xA0 | n])
        forms = [(0xFF, b"\xd9", ">B"), (0xFFFF, b"\xda", ">H"), (0xFFFFFFFF, b"\xdb", ">I")]
    elif kind == "bin":
        forms = [(0xFF, b"\xc4", ">B"), (0xFFFF, b"\xc5", ">H"), (0xFFFFFFFF, b"\xc6", ">I")]
    elif kind in ("array", "map"):
        if n < 16:
            return bytes([(0x90 if kind == "array" else 0x80) | n])
        marks = (b"\xdc", b"\xdd") if kind == "array" else (b"\xde", b"\xdf")
        forms = [(0xFFFF, marks[0], ">H"), (0xFFFFFFFF, marks[1], ">I")]
    else:
        raise ValueError(kind)
    for limit, mark, fmt in forms:
        if n <= limit:
            return mark + struct.pack(fmt, n)
    raise ValueError(f"{kind} of {n} is too long for MessagePack")


def msgpack_str(s: str) -> bytes:
    """``s`` as a MessagePack str, smallest form."""
    raw = s.encode("utf-8")
    return msgpack_header("str", len(raw)) + raw


def msgpack_int(v: int) -> bytes:
    """``v`` as a MessagePack int, smallest form (as msgpack-python and ormsgpack write it)."""
    if 0 <= v < 128 or -32 <= v < 0:
        return struct.pack(">b", v) if v < 0 else bytes([v])
    if v > 0:
        for limit, make in ((0xFF, u8), (0xFFFF, u16), (0xFFFFFFFF, u32), (2**64 - 1, u64)):
            if v <= limit:
                return make(v)
    else:
        for limit, make in ((-(2**7), i8), (-(2**15), i16), (-(2**31), i32), (-(2**63), i64)):
            if v >= limit:
                return make(v)
    raise ValueError(f"{v} is beyond MessagePack's ints")


# Valid MessagePack of many families (minimal and not), for input-type and truncation tests.
MSGPACK_SAMPLES = [
    msgpack.packb(
        {"key": [1, -200, 70000, 2**40, -(2**40), 1.5, None, True, "s" * 40, b"\x00" * 300]}, use_bin_type=True
    ),
    msgpack.packb([2**64 - 1, -(2**63), "\u00e9\u4e2d\U0001f600", {"a": {"b": []}}], use_bin_type=True),
    msgpack.packb("x" * 300),
    msgpack.packb(list(range(20))),
    msgpack.packb({f"k{i}": i for i in range(20)}),
    f32(1.5),
    f64(2.5),
    u64(1),
    i16(-1),
    str32(b"abc"),
    bin32(b"abc"),
    array32([b"\x01", b"\x02"]),
    map32([(fixstr(b"a"), b"\x01")]),
]


# --------------------------------------------------------------------------------------
# The two formats under test, each with its peer
# --------------------------------------------------------------------------------------


def _msgpack_python_packb(obj, default=None) -> bytes:
    return msgpack.packb(obj, default=default, use_bin_type=True)


def _msgpack_python_unpackb(data):
    return msgpack.unpackb(data, raw=False)


@dataclasses.dataclass(frozen=True)
class Format:
    """One format under test: orcodec's functions, their exceptions, and the peer orcodec is
    a drop-in for (orjson for JSON, ormsgpack for MessagePack).

    Tests that are about behaviour the walker or the readers share take a ``fmt`` argument
    (the fixture in conftest.py, or ``pytest.mark.parametrize("fmt", ...)`` with
    :data:`FORMATS` or :func:`by_format`) and so run once per format.
    """

    name: str  # "json" or "msgpack": used in test ids
    label: str  # "JSON" or "msgpack": the peer's word in "Type is not JSON serializable: ..."
    # The peer's messages for a lone surrogate and for a `default` chain past the limit.
    surrogates_message: str
    default_recursion_message: str
    # Deepest container nesting the peer writes (orjson 254, ormsgpack 255).
    max_depth: int
    encode: Callable[..., bytes]
    decode: Callable[..., Any]
    encode_error: type[Exception]
    decode_error: type[Exception]
    peer: types.ModuleType
    peer_encode: Callable[..., bytes]
    peer_decode: Callable[..., Any]
    peer_encode_error: type[Exception]
    peer_decode_error: type[Exception]
    # Encoders that write the same bytes as orcodec for documents of builtins (None, bool,
    # int, float, str, list, tuple, dict, and bytes for MessagePack): the peer first.
    references: tuple[Callable[..., bytes], ...]
    # Decoders that read the same values as orcodec from valid input: the peer first.
    reference_decoders: tuple[Callable[[Any], Any], ...]
    # What a round trip gives back for a builtin document (see json_plain / to_plain).
    plain: Callable[[Any], Any]
    # Flags that mean nothing to this format: orcodec accepts and ignores them.
    ignored: frozenset[str]

    def __repr__(self) -> str:
        return self.name

    def opts(self, names: Iterable[str] = ()) -> int:
        """orcodec's flags of these names."""
        return opts(orcodec, names)

    def peer_opts(self, names: Iterable[str] = ()) -> int:
        """The peer's flags of these names (its values differ from orcodec's)."""
        return opts(self.peer, names)

    def reference(self, obj, default=None) -> bytes:
        """What every reference encoder writes for a builtin document (they must agree)."""
        outs = [encode(obj, default=default) for encode in self.references]
        assert all(out == outs[0] for out in outs[1:]), f"the reference encoders disagree on {obj!r:.100}"
        return outs[0]

    def reference_decode(self, data):
        """What every reference decoder reads from ``data`` (they must agree exactly)."""
        values = [decode(data) for decode in self.reference_decoders]
        for value in values[1:]:
            assert_strict_equal(value, values[0])
        return values[0]

    def same_as_reference(self, obj) -> bytes:
        """orcodec's bytes for a builtin document, asserted to be bytes and the references'."""
        out = self.encode(obj)
        assert type(out) is bytes
        assert out == self.reference(obj)
        return out

    def peer_names(self, names: Iterable[str]) -> list[str]:
        """The flags of ``names`` to give the peer: all but those this format ignores (the
        peer has no such flag, and orcodec must not change its output for them)."""
        return [n for n in names if n not in self.ignored]

    def same_as_peer(self, obj, names: Iterable[str] = (), default=None) -> bytes:
        """orcodec's bytes for ``obj`` with the flags ``names``, asserted equal to the peer's
        with its own flags of the same names (less those this format ignores)."""
        names = tuple(names)
        out = self.encode(obj, default=default, option=self.opts(names))
        assert out == self.peer_encode(obj, default=default, option=self.peer_opts(self.peer_names(names))), names
        return out

    def inputs(self, data: bytes) -> list:
        """``data`` as every input type the decoder reads: bytes, bytearray, memoryview
        and, for JSON, str (when ``data`` is valid UTF-8)."""
        out = [bytes(data), bytearray(data), memoryview(data)]
        if self.name == "json":
            try:
                out.append(bytes(data).decode("utf-8"))
            except UnicodeDecodeError:
                pass  # invalid UTF-8 cannot be passed as str
        return out

    def decode_every_input(self, data: bytes, **kwargs):
        """``data`` decoded from every input type (see :meth:`inputs`); all must agree
        exactly. Returns the value."""
        first, *others = self.inputs(data)
        result = self.decode(first, **kwargs)
        for other in others:
            assert_strict_equal(self.decode(other, **kwargs), result)
        return result

    def refuses_every_input(self, data: bytes, **kwargs) -> Exception:
        """Asserts the decode error for ``data`` as every input type; returns the error
        for bytes."""
        errors = []
        for other in self.inputs(data):
            with pytest.raises(self.decode_error) as info:
                self.decode(other, **kwargs)
            errors.append(info.value)
        return errors[0]

    def exact_str(self, s: str) -> bytes:
        """``s`` as this format writes it, by hand: a JSON string (for text JSON does not
        escape) or a MessagePack str in its smallest form."""
        if self.name == "msgpack":
            return msgpack_str(s)
        if any(c in '"\\' or c < " " for c in s):
            raise ValueError(f"{s!r} needs JSON escapes")
        return b'"' + s.encode("utf-8") + b'"'


JSON = Format(
    name="json",
    label="JSON",
    surrogates_message="str is not valid UTF-8: surrogates not allowed",
    default_recursion_message="default serializer exceeds recursion limit",
    max_depth=254,
    encode=orcodec.dumps,
    decode=orcodec.loads,
    encode_error=orcodec.JSONEncodeError,
    decode_error=orcodec.JSONDecodeError,
    peer=orjson,
    peer_encode=orjson.dumps,
    peer_decode=orjson.loads,
    peer_encode_error=orjson.JSONEncodeError,
    peer_decode_error=orjson.JSONDecodeError,
    references=(orjson.dumps,),
    reference_decoders=(orjson.loads,),
    plain=json_plain,
    ignored=frozenset({"OPT_DATETIME_AS_TIMESTAMP_EXT"}),
)
MSGPACK = Format(
    name="msgpack",
    label="msgpack",
    surrogates_message="string contains surrogates",
    default_recursion_message="Recursion limit for default hook reached",
    max_depth=255,
    encode=orcodec.packb,
    decode=orcodec.unpackb,
    encode_error=orcodec.MsgpackEncodeError,
    decode_error=orcodec.MsgpackDecodeError,
    peer=ormsgpack,
    peer_encode=ormsgpack.packb,
    peer_decode=ormsgpack.unpackb,
    peer_encode_error=ormsgpack.MsgpackEncodeError,
    peer_decode_error=ormsgpack.MsgpackDecodeError,
    references=(ormsgpack.packb, _msgpack_python_packb),
    reference_decoders=(ormsgpack.unpackb, _msgpack_python_unpackb),
    plain=to_plain,
    ignored=frozenset({"OPT_INDENT_2", "OPT_APPEND_NEWLINE", "OPT_STRICT_INTEGER"}),
)
FORMATS = (JSON, MSGPACK)


def by_format(json: Iterable = (), msgpack: Iterable = (), ids: Callable[[Any], str] | None = None) -> list:
    """``pytest.param(fmt, *case)`` for each of the ``json`` cases with JSON and each of the
    ``msgpack`` cases with MessagePack, for ``parametrize("fmt, a, b", ...)`` where the
    cases (or what is expected of them) differ by format. A case that is not a tuple is
    one argument (so a tuple that is one argument is given as ``(t,)``). ``ids(case)``
    names a case; the format's name is put in front."""
    params = []
    for fmt, cases in ((JSON, json), (MSGPACK, msgpack)):
        for i, case in enumerate(cases):
            args = case if isinstance(case, tuple) else (case,)
            name = ids(case) if ids is not None else str(i)
            params.append(pytest.param(fmt, *args, id=f"{fmt.name}-{name}"))
    return params


_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    """The process's resident set size in bytes (Linux's /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE


def assert_blocks_steady(first_growth: int, run_calls, limit: int, calls: int) -> None:
    """CPython's count of allocated blocks grew by at most ``limit`` over a
    window of ``calls`` calls (``first_growth``, measured by the caller). One
    window can end with blocks that do not repeat: an interpreter cache or
    free list filled once, a resize of a process-wide table, in about one run
    of ten a hundred or two blocks; a leak grows in every window (at one block
    in every ``calls / limit`` calls or more). So a window over the limit is
    followed by a second one (``run_calls()``), which must stay within it."""
    if first_growth <= limit:
        return
    gc.collect()
    blocks = sys.getallocatedblocks()
    run_calls()
    gc.collect()
    second = sys.getallocatedblocks() - blocks
    assert second <= limit, f"{first_growth} then {second} more allocated blocks over two windows of {calls} calls"


def assert_resident_set_steady(first_growth: int, run_calls, limit: int, calls: int) -> None:
    """The resident set grew by at most ``limit`` bytes over a window of
    ``calls`` calls (``first_growth`` bytes, measured by the caller). One
    window may grow for reasons that do not repeat (the allocator touching
    fresh pages, pressure from other processes on the machine); a leak grows
    in every window. So a window over the limit is followed by a second one
    (``run_calls()``), which must stay within it."""
    if first_growth <= limit:
        return
    gc.collect()
    resident = rss()
    run_calls()
    gc.collect()
    second = rss() - resident
    assert second <= limit, f"resident set grew {first_growth} then {second} bytes over two windows of {calls} calls"


def assert_no_leak(
    name: str, call, expected, tracked, *, calls: int, warmup: int, max_blocks: int, max_rss: int
) -> None:
    """`call()` repeated `calls` times (after `warmup`) leaves the refcounts
    of `tracked()`, the allocated blocks and the resident set as they were;
    `expected` is the exception each call must raise (None: none)."""

    def once():
        if expected is None:
            call()
            return
        try:
            call()
        except expected:
            return
        raise AssertionError(f"{name} raised nothing")

    for _ in range(warmup):
        once()
    gc.collect()
    refs = [sys.getrefcount(obj) for obj in tracked()]
    blocks, resident = sys.getallocatedblocks(), rss()
    for _ in range(calls):
        once()
    gc.collect()
    block_growth = sys.getallocatedblocks() - blocks
    assert [sys.getrefcount(obj) for obj in tracked()] == refs
    resident_growth = rss() - resident

    def run_calls():
        for _ in range(calls):
            once()

    assert_blocks_steady(block_growth, run_calls, max_blocks, calls)
    assert_resident_set_steady(resident_growth, run_calls, max_rss, calls)

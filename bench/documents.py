"""The benchmark's documents, shared by compare.py, memory.py and test_bench.py.

Three kinds of document:

* ``plain``: JSON-native data (the shared fixtures, a 6-key dict, and the
  string-shaped documents of the CPython proposal on faster string escaping).
  Every operation applies: dumps, loads, packb, unpackb.
* ``typed``: dataclasses, UUID, datetime, date and enum members.  Only the
  encoders apply; each library uses its own native support for the types.
* ``numpy``: 1000x100 arrays.  Only the encoders apply, with
  ``OPT_SERIALIZE_NUMPY`` where the library needs it.

Some plain documents take only some operations (``Document.only``): the
fixtures and strings as Python's ``json.dumps`` writes them (``ensure_ascii``
on, so every non-ASCII character is a ``\\uXXXX`` escape) are ``loads`` rows;
the long strings are encoder rows; the floats are JSON rows.

Each document also carries ``expected``: the plain value its encoded form must
decode to (for typed/numpy documents, the types spelled the way orjson and
ormsgpack spell them), which is what the outputs are checked against.

No two libraries are timed on the same objects. orjson, msgspec, ssrJSON (by
default) and msgpack store a UTF-8 copy inside every non-ASCII ``str`` they
serialize (CPython's ``PyUnicode_AsUTF8`` cache, kept for the life of the
string), and a library that finds one can copy it instead of converting the
text. So every library of a row gets its own copy of the encoders' input,
made by the document's one loader (``Document.fresh_value``): for plain
documents ``marshal.loads`` of the document as ``json.loads`` reads its JSON
(the same objects, shared keys included, 2-5 times faster to make again than
parsing the JSON), the builder called again for typed and numpy ones, so every
copy has its own ``str`` objects, none of them carrying a UTF-8 copy.
``check_independent`` verifies that of the copies of a row. (``copy.deepcopy``
would not do: it returns the same ``str`` objects.)
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import json
import marshal
import os
import string
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FIXTURES = REPO_ROOT.parent / "shared" / "fixtures"
GENERATED_FIXTURES = REPO_ROOT / "fixtures" / "generated"
FIXTURES_ENV = "ORCODEC_FIXTURES"

ENCODE_OPS = ("dumps", "packb")
ALL_OPS = ("dumps", "loads", "packb", "unpackb")

FIXTURE_DOCUMENTS = ("twitter", "github", "citm_catalog", "canada")

SMALL = {
    "id": 12345,
    "name": "Ada Lovelace",
    "active": True,
    "score": 98.5,
    "tags": ["a", "b"],
    "email": "ada@example.com",
}


# --- the string-shaped documents ---------------------------------------------------


def strings_ascii() -> list[str]:
    """200 strings of 200 ASCII characters, nothing to escape."""
    alphabet = string.ascii_letters + string.digits + " .,-"
    return [(alphabet[i % len(alphabet) :] + alphabet * 4)[:200] for i in range(200)]


def text_11kb() -> dict[str, str]:
    """One text field of 11 KB without anything to escape."""
    sentence = "The quick brown fox jumps over the lazy dog while the codec writes bytes. "
    text = (sentence * (11 * 1024 // len(sentence) + 1))[: 11 * 1024]
    return {"id": 1, "text": text}


def strings_escapes() -> list[str]:
    """200 escape-heavy strings: a quote, a backslash and a newline every 6 characters."""
    return ['a"b\\c\n' * 30 for _ in range(200)]


def dict_2000_keys() -> dict[str, int]:
    """A dict of 2000 short keys."""
    return {f"k{i}": i for i in range(2000)}


def records_300() -> list[dict[str, Any]]:
    """300 realistic records with short and medium strings."""
    cities = ["Berlin", "Lisbon", "Osaka", "Toronto", "Nairobi", "Lima"]
    return [
        {
            "id": i,
            "name": f"user_{i}",
            "email": f"user{i}@example.com",
            "active": i % 3 != 0,
            "city": cities[i % len(cities)],
            "bio": f"Engineer #{i} who likes distributed systems, coffee and long walks by the river.",
            "score": round(i * 1.37, 2),
            "tags": ["alpha", "beta", f"group-{i % 7}"],
        }
        for i in range(300)
    ]


def strings_non_ascii() -> list[str]:
    """200 non-ASCII strings (Latin-1, astral emoji and CJK in each): CPython's 4-byte kind."""
    return ["café 😀 中文 " * 20 for _ in range(200)]


def strings_ucs2() -> list[str]:
    """200 strings of Japanese text (kana, kanji, full-width punctuation): CPython's 2-byte kind."""
    return ["日本語のテキストを、そのまま書き出します。" * 10 for _ in range(200)]


def strings_latin1() -> list[str]:
    """200 strings of accented Latin text, no character above U+00FF: CPython's 1-byte kind, not ASCII."""
    return ["déjà vu, café crème à la française; " * 6 for _ in range(200)]


def str_11kb() -> str:
    """A single str of about 11 KB, nothing to escape."""
    return "lorem ipsum dolor sit amet " * 400


def str_1mb() -> str:
    """A single str of about 1 MB, nothing to escape."""
    return "lorem ipsum dolor sit amet " * 38_837


def floats_10000() -> list[float]:
    """10,000 prices: floats of few digits (``12.5``, ``3.99``)."""
    return [round(((i * 7919) % 100_000) / 100 + 0.99 * (i % 3 == 0), 2) for i in range(10_000)]


STRING_DOCUMENTS = {
    "strings_ascii": strings_ascii,
    "text_11kb": text_11kb,
    "strings_escapes": strings_escapes,
    "dict_2000_keys": dict_2000_keys,
    "records_300": records_300,
    "strings_non_ascii": strings_non_ascii,
    "strings_ucs2": strings_ucs2,
    "strings_latin1": strings_latin1,
}

# Documents that also get rows of fresh objects, each dumped once
# (`dumps_fresh`, `packb_fresh`): the fixtures and the non-ASCII string shapes.
FRESH_DOCUMENTS = (*FIXTURE_DOCUMENTS, "strings_non_ascii", "strings_ucs2", "strings_latin1")
FRESH_OPS = ("dumps_fresh", "packb_fresh")

# Plain documents with only some operations.
PARTIAL_DOCUMENTS = {
    "str_11kb": (str_11kb, ENCODE_OPS),
    "str_1mb": (str_1mb, ENCODE_OPS),
    "floats_10000": (floats_10000, ("dumps", "loads")),
}

# Documents as Python's `json.dumps(obj)` writes them (`ensure_ascii=True`,
# `", "` and `": "` separators): what many services send. `loads` only.
ESCAPED_DOCUMENTS = {f"{name}_escaped": name for name in ("twitter", "github", "citm_catalog", "strings_non_ascii")}


# --- typed documents ------------------------------------------------------------------


@dataclass
class Address:
    street: str
    city: str
    zip: str


@dataclass
class Person:
    id: int
    name: str
    email: str
    active: bool
    addresses: list[Address]


class Status(enum.Enum):
    ACTIVE = "active"
    SUSPENDED = "suspended"


def dataclasses_1000() -> list[Person]:
    """1000 Person dataclasses, each with a list of two Address dataclasses."""
    return [
        Person(
            i,
            f"Person {i}",
            f"p{i}@example.com",
            i % 2 == 0,
            [
                Address(f"{i} Main Street", "Springfield", f"{10000 + i}"),
                Address(f"{i} Side Road", "Shelbyville", f"{20000 + i}"),
            ],
        )
        for i in range(1000)
    ]


def typed_values_2000() -> list[dict[str, Any]]:
    """2000 dicts holding a UUID, an aware datetime, a date and an enum member.

    The offset is +02:00 rather than UTC because msgspec writes UTC as `Z`
    where orjson writes `+00:00`; with any other offset all libraries agree.
    """
    tz = datetime.timezone(datetime.timedelta(hours=2))
    base = datetime.datetime(2024, 3, 1, 12, 30, 15, 123456, tzinfo=tz)
    return [
        {
            "id": uuid.UUID(int=(i * 0x9E3779B97F4A7C15) % (1 << 128)),
            "created": base + datetime.timedelta(seconds=37 * i),
            "day": datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 365),
            "status": Status.ACTIVE if i % 5 else Status.SUSPENDED,
        }
        for i in range(2000)
    ]


def plain_of(value: Any) -> Any:
    """What orjson/ormsgpack output of `value` decodes to."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain_of(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: plain_of(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_of(v) for v in value]
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return plain_of(value.value)
    return value


TYPED_DOCUMENTS = {"dataclasses": dataclasses_1000, "typed_values": typed_values_2000}
NUMPY_DOCUMENTS = {
    **{f"numpy_{dtype}": dtype for dtype in ("float64", "int32", "int8", "bool")},
    # Realistic integers: ids, counts, timestamps of 5 to 10 digits.
    "numpy_int32_5to10": "int32 5to10",
    "numpy_int64_5to10": "int64 5to10",
    "numpy_int32_arange": "int32 arange",
}


def numpy_array(spec: str) -> Any:
    import numpy

    dtype, _, values = spec.partition(" ")
    rng = numpy.random.default_rng(42)
    if values == "arange":
        return numpy.arange(100_000, dtype=dtype).reshape(1000, 100)
    if values == "5to10":
        # As many values of each digit count, 5 to 10 (int32 tops out at 2**31 - 1).
        digits = rng.integers(5, 11, (1000, 100))
        low = 10 ** (digits - 1)
        high = numpy.minimum(10**digits, numpy.iinfo(dtype).max)
        return (low + (rng.random((1000, 100)) * (high - low)).astype(numpy.int64)).astype(dtype)
    if dtype == "float64":
        return rng.standard_normal((1000, 100))
    if dtype == "bool":
        return rng.integers(0, 2, (1000, 100)).astype(numpy.bool_)
    info = numpy.iinfo(dtype)
    return rng.integers(info.min, info.max, (1000, 100), endpoint=True).astype(dtype)


DOCUMENTS = (
    *FIXTURE_DOCUMENTS,
    "small",
    *STRING_DOCUMENTS,
    *PARTIAL_DOCUMENTS,
    *ESCAPED_DOCUMENTS,
    *TYPED_DOCUMENTS,
    *NUMPY_DOCUMENTS,
)


@dataclass
class Document:
    name: str
    kind: str  # "plain", "typed" or "numpy"
    value: Any  # what the encoders get
    expected: Any  # the plain value every output must decode to
    json_bytes: bytes | None  # what loads gets (plain documents only)
    msgpack_bytes: bytes | None  # what unpackb gets (plain documents only)
    source: str
    generated: bool = False
    only: tuple[str, ...] | None = None  # the operations, where not all that apply to the kind
    # The loader: a new copy of `value`, with str objects of its own (see the module's docstring).
    loader: Callable[[], Any] | None = None

    @property
    def ops(self) -> tuple[str, ...]:
        if self.only is not None:
            return self.only
        ops = ALL_OPS if self.kind == "plain" else ENCODE_OPS
        return ops + FRESH_OPS if self.name in FRESH_DOCUMENTS else ops

    @functools.cached_property
    def non_ascii_strs(self) -> int:
        """How many non-ASCII strs (of more than one character) the encoders' input has."""
        return len(non_ascii_strs(self.expected))

    def fresh_value(self) -> Any:
        """A new copy of the encoders' input, made by the document's loader."""
        if self.loader is None:
            raise ValueError(f"document {self.name} has no encoder input")
        return self.loader()

    def input_for(self, op: str) -> Any:
        """One library's input for the operation: a fresh copy for encoders; the shared bytes for decoders
        (bytes hold no cache a library could leave behind)."""
        if op in ("loads", "unpackb"):
            return self.json_bytes if op == "loads" else self.msgpack_bytes
        return self.fresh_value()


# --- each library its own strings ---------------------------------------------------


def non_ascii_strs(value: Any) -> list[str]:
    """Every non-ASCII str of more than one character in the value: dict keys and values, list and
    tuple items, dataclass fields. (CPython shares its one-character Latin-1 strs process-wide.)"""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if type(item) is str:
            if len(item) > 1 and not item.isascii():
                found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
    return found


def has_utf8_copy(text: str) -> bool:
    """Whether a non-ASCII str carries the UTF-8 copy that PyUnicode_AsUTF8 stores in it: it makes the
    str larger (sys.getsizeof) than an equal str made just now, which has none."""
    return sys.getsizeof(text) != sys.getsizeof(text[:1] + text[1:])


def strs_with_utf8_copy(value: Any) -> int:
    """How many of the value's non-ASCII strs carry a UTF-8 copy."""
    return sum(has_utf8_copy(s) for s in non_ascii_strs(value))


class SharedObjects(AssertionError):
    """Two libraries' copies of a document share str objects, or a copy starts with cached UTF-8."""


def check_independent(copies: dict[str, Any]) -> None:
    """Raise SharedObjects unless no two of the copies (one per library) share a non-ASCII str object,
    and none of those strs carries a UTF-8 copy yet."""
    owner: dict[int, str] = {}
    for lib, value in copies.items():
        for text in non_ascii_strs(value):
            other = owner.setdefault(id(text), lib)
            if other != lib:
                raise SharedObjects(f"{lib}'s and {other}'s copies share the str {text[:30]!r}")
            if has_utf8_copy(text):
                raise SharedObjects(f"{lib}'s copy starts with a UTF-8 copy cached in the str {text[:30]!r}")


def document_ops(name: str) -> tuple[str, ...]:
    """The operations of document `name`, without building it."""
    if name in PARTIAL_DOCUMENTS:
        return PARTIAL_DOCUMENTS[name][1]
    if name in ESCAPED_DOCUMENTS:
        return ("loads",)
    if name in TYPED_DOCUMENTS or name in NUMPY_DOCUMENTS:
        return ENCODE_OPS
    return ALL_OPS + FRESH_OPS if name in FRESH_DOCUMENTS else ALL_OPS


def fixtures_dir() -> Path:
    return Path(os.environ.get(FIXTURES_ENV) or DEFAULT_FIXTURES)


def fixture_path(name: str) -> tuple[Path, bool]:
    """Where fixture `name` is read from, and whether that is the generated stand-in."""
    path = fixtures_dir() / f"{name}.json"
    if path.is_file():
        return path, False
    fallback = GENERATED_FIXTURES / f"{name}.json"
    if not fallback.is_file():
        sys.exit(f"bench: FATAL: neither {path} nor {fallback} exists; run bench/generate_fixtures.py")
    return fallback, True


def plain_document(
    name: str, value: Any, raw: bytes | None, source: str, msgpack: Any, generated: bool = False
) -> Document:
    """A JSON-native document; its loader rebuilds the document as json.loads reads its JSON, with
    marshal, so every copy has new strs. `value` is kept as `expected`, the reference no library is
    given."""
    if raw is None:
        raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    loader = functools.partial(marshal.loads, marshal.dumps(json.loads(raw)))
    return Document(
        name, "plain", loader(), value, raw, msgpack.packb(value, use_bin_type=True), source, generated, loader=loader
    )


def load_document(name: str, msgpack: Any) -> Document:
    """Builds document `name`; raises ImportError for a numpy document without numpy."""
    if name in FIXTURE_DOCUMENTS:
        path, generated = fixture_path(name)
        raw = path.read_bytes()
        return plain_document(name, json.loads(raw), raw, str(path), msgpack, generated)
    if name == "small":
        return plain_document(name, SMALL, None, "built-in", msgpack)
    if name in STRING_DOCUMENTS:
        return plain_document(name, STRING_DOCUMENTS[name](), None, "built-in", msgpack)
    if name in PARTIAL_DOCUMENTS:
        make, ops = PARTIAL_DOCUMENTS[name]
        return dataclasses.replace(plain_document(name, make(), None, "built-in", msgpack), only=ops)
    if name in ESCAPED_DOCUMENTS:
        base = load_document(ESCAPED_DOCUMENTS[name], msgpack)
        raw = json.dumps(base.value).encode()
        return Document(name, "plain", None, base.value, raw, None, base.source, base.generated, only=("loads",))
    if name in TYPED_DOCUMENTS:
        loader = TYPED_DOCUMENTS[name]
        value = loader()
        return Document(name, "typed", value, plain_of(value), None, None, "built-in", loader=loader)
    if name in NUMPY_DOCUMENTS:
        loader = functools.partial(numpy_array, NUMPY_DOCUMENTS[name])
        value = loader()
        return Document(name, "numpy", value, value.tolist(), None, None, "built-in", loader=loader)
    raise KeyError(name)

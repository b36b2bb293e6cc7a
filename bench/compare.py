"""Side-by-side benchmark of orcodec against the established JSON and MessagePack libraries.

    python bench/compare.py [--quick] [--rows ROW ...] [--json PATH]

Every row (document x operation) is measured in one process, round-robin: each
round times one sample of every library on that row in each collector setting,
so machine drift (other load, frequency scaling) hits all libraries alike.  A
sample calls the function in a tight loop of N iterations; the reported
figure is the median per-call time across rounds.  Two collector settings are
timed: the cyclic garbage collector disabled during the sample (the codec's
own cost), with N calibrated per library so that a sample lasts roughly
5-20 ms; and enabled with every result kept alive until the sample ends (what
a program that holds its data pays, collections included), with one N for
every library of the row, the smallest of their calibrated ones, so that all
keep the same number of results per sample (see `sample_counts`).

Every library of a row gets its own copy of the document, made by the
document's one loader and verified to share no non-ASCII str with another's
(`build_row`), so that no library is timed on strs whose UTF-8 another one
cached in them; the `*_fresh` rows give every call a fresh copy (`measure`).
See bench/README.md for the columns and how fixtures are found.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import fnmatch
import functools
import gc
import importlib
import importlib.metadata
import itertools
import json
import marshal
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from documents import (  # noqa: E402
    DOCUMENTS,
    FIXTURES_ENV,
    GENERATED_FIXTURES,
    REPO_ROOT,
    Document,
    check_independent,
    fixtures_dir,
    load_document,
    non_ascii_strs,
    strs_with_utf8_copy,
)

DEFAULT_JSON = REPO_ROOT / "bench" / "results" / "latest.json"

# `dumps_fresh` and `packb_fresh` time fresh objects, each dumped once (see `measure`).
OPERATIONS = ("dumps", "loads", "packb", "unpackb", "dumps_fresh", "packb_fresh")
FAMILY = {
    "dumps": "JSON",
    "loads": "JSON",
    "packb": "MessagePack",
    "unpackb": "MessagePack",
    "dumps_fresh": "JSON",
    "packb_fresh": "MessagePack",
}
PEERS = {
    "JSON": ("orjson", "msgspec", "ssrjson", "ssrjson-nocache", "ujson", "rapidjson", "json"),
    "MessagePack": ("ormsgpack", "msgspec", "msgpack"),
}
# Timed and checked like the peers, never ranked: py-yyjson decodes non-ASCII
# text inside containers wrongly (`["café"]` as `["cafÃ©"]`).
UNRANKED = {"JSON": ("yyjson",), "MessagePack": ()}
# Unranked reference columns: the floor of what (de)serializing the object graph costs.
FLOORS = ("marshal",)
# Columns that are one module in another setting.
MODULES = {"ssrjson-nocache": "ssrjson"}
# Distribution names for version lookup, where they differ from the module.
DISTRIBUTIONS = {"rapidjson": "python-rapidjson"}


def columns(family: str) -> tuple[str, ...]:
    """Every column of a family's table, in order: orcodec, the ranked peers, the unranked ones, the floors."""
    return ("orcodec",) + PEERS[family] + UNRANKED[family] + FLOORS


def base_op(op: str) -> str:
    """The library call of an operation: `dumps_fresh` is `dumps` on fresh objects."""
    return op[: -len("_fresh")] if op.endswith("_fresh") else op


# The collector settings every cell is timed in: the cyclic GC disabled during
# the sample; and enabled, with the results kept alive until the sample ends.
GC_OFF, GC_KEPT = "gc_off", "gc_on_kept"
MODES = (GC_OFF, GC_KEPT)
MODE_TITLES = {
    GC_OFF: "collector disabled",
    GC_KEPT: "collector enabled, results kept alive across the sample",
}

# Flag a ratio when orcodec's or the best peer's interquartile range exceeds this fraction of its median.
NOISY_SPREAD = 0.20

NOTES = [
    "str-returning encoders (ujson, rapidjson, json) are timed with .encode() so every dumps yields UTF-8 bytes,",
    "  with ensure_ascii=False (and ujson escape_forward_slashes=False) so all produce the same bytes as orjson;",
    "  json = stdlib json with one reused JSONEncoder(separators=(',', ':')).",
    "msgspec reuses one Encoder/Decoder instance per format;"
    " msgpack is packb/unpackb with use_bin_type=True/raw=False.",
    "loads/unpackb inputs are bytes: the document as compact JSON (the fixture file as is), and msgpack.packb of it.",
    "marshal (unranked floor): marshal.dumps of the same object graph for dumps/packb, marshal.loads of it for",
    "  loads/unpackb; plain documents only.",
    "typed rows (dataclasses, typed_values) and numpy rows: each library's native support (orjson/ormsgpack with",
    "  OPT_SERIALIZE_NUMPY for numpy, orcodec likewise); n/a = the library cannot do the row (or raised: see below).",
    "ssrjson = ssrjson.dumps_to_bytes / ssrjson.loads, writing the UTF-8 cache into the strs it encodes (its default);",
    "  ssrjson-nocache = the same with ssrjson.write_utf8_cache(False) (set outside the timing; loads: see ssrjson).",
    "yyjson (py-yyjson, unranked): yyjson.dumps(obj).encode() and yyjson.loads.",
    "every library gets its own copy of the document, made by one loader (the document as json.loads reads it,",
    "  rebuilt by marshal; typed and numpy documents built again), so none is timed on strs whose UTF-8 another",
    "  library cached.",
    "*_fresh rows: fresh objects, each dumped once: each sample's calls go to as many copies made (untimed)"
    " just before it.",
    "every library is checked on two calls (first and repeated) before timing; a time marked ≠ was measured but",
    "  an output decodes to a different value (listed below); it is not ranked.",
]


@dataclass(frozen=True)
class Settings:
    target_sample_s: float  # wall time one sample should take
    row_budget_s: float  # stop adding rounds to a row after this long...
    min_rounds: int  # ...but never fewer rounds than this
    max_rounds: int


FULL = Settings(target_sample_s=0.010, row_budget_s=6.0, min_rounds=15, max_rounds=151)
QUICK = Settings(target_sample_s=0.004, row_budget_s=0.4, min_rounds=5, max_rounds=15)

MISSING, NA, RAISED, DIFFERS = "missing", "n/a", "raised", "differs"


@dataclass
class Cell:
    """One library on one row."""

    fn: Callable[[Any], Any] | None = None
    arg: Any = None
    status: str | None = None  # None (fine), MISSING, NA, RAISED or DIFFERS
    reason: str | None = None
    # Fresh-object rows: makes one new copy of the input (the document's loader); `arg` is then
    # the copy the calls per sample are calibrated on.
    fresh: Callable[[], Any] | None = None
    # Entered around every call of the library (outside the timing): a global setting of its own.
    setting: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext
    # For encoders: how many of the non-ASCII strs of its input the library left with a UTF-8 copy,
    # of how many (None: not counted, or the input has none).
    utf8_copies: int | None = None
    non_ascii_strs: int = 0
    # Calls per sample in each collector setting (see `measure`).
    iterations: dict[str, int] = field(default_factory=lambda: {mode: 0 for mode in MODES})
    per_call_s: dict[str, list[float]] = field(default_factory=lambda: {mode: [] for mode in MODES})

    @property
    def timed(self) -> bool:
        return self.fn is not None and self.status in (None, DIFFERS)

    def median_s(self, mode: str = GC_OFF) -> float | None:
        times = self.per_call_s[mode]
        return statistics.median(times) if times and self.timed else None

    def spread(self, mode: str = GC_OFF) -> float | None:
        """Interquartile range relative to the median: how far to trust the median."""
        median, times = self.median_s(mode), self.per_call_s[mode]
        if median is None or len(times) < 4:
            return None
        q1, _, q3 = statistics.quantiles(times, n=4)
        return (q3 - q1) / median


@dataclass
class Row:
    doc: Document
    op: str
    cells: dict[str, Cell]

    @property
    def name(self) -> str:
        return f"{self.doc.name}.{self.op}"

    @property
    def peers(self) -> tuple[str, ...]:
        return PEERS[FAMILY[self.op]]

    @property
    def fresh(self) -> bool:
        return self.op != base_op(self.op)

    def release(self) -> None:
        """Drop the libraries' copies of the document once the row is measured."""
        for cell in self.cells.values():
            cell.arg = cell.fresh = None

    def best_peer(self, mode: str = GC_OFF) -> tuple[str | None, float | None]:
        timed = [
            (self.cells[p].median_s(mode), p)
            for p in self.peers
            if self.cells[p].median_s(mode) is not None and self.cells[p].status is None
        ]
        if not timed:
            return None, None
        best_time, best = min(timed)
        return best, best_time

    def noisy(self, mode: str = GC_OFF) -> bool:
        best, _ = self.best_peer(mode)
        spreads = [self.cells[lib].spread(mode) for lib in ("orcodec", best) if lib]
        return any(s is not None and s > NOISY_SPREAD for s in spreads)

    def ratio(self, mode: str = GC_OFF) -> float | None:
        ours = self.cells["orcodec"].median_s(mode)
        _, best_time = self.best_peer(mode)
        return None if ours is None or best_time is None else ours / best_time

    def failed(self) -> bool:
        """orcodec raised on a plain document, produced output that decodes to something else, or left
        a UTF-8 copy in the user's strs (it leaves them as they were)."""
        cell = self.cells["orcodec"]
        return bool(cell.utf8_copies) or cell.status == DIFFERS or (cell.status == RAISED and self.doc.kind == "plain")


# --- libraries -----------------------------------------------------------------


class NotApplicable(Exception):
    """The library has no way to do this row."""


def import_orcodec():
    try:
        return importlib.import_module("orcodec")
    except ImportError as exc:
        sys.exit(
            f"compare.py: FATAL: cannot import orcodec ({exc}).\n"
            f"  Interpreter: {sys.executable}\n"
            "  Build it into this environment first (e.g. `maturin develop --release`)."
        )


def import_peers() -> tuple[dict[str, Any], dict[str, str]]:
    """Import every peer that is installed; return (modules, {name: why missing})."""
    modules, missing = {"marshal": marshal}, {}
    for name in sorted(set(itertools.chain(*PEERS.values(), *UNRANKED.values()))):
        try:
            modules[name] = importlib.import_module(MODULES.get(name, name))
        except ImportError as exc:
            missing[name] = f"not installed ({exc})"
    if "msgpack" not in modules:
        # msgpack builds the unpackb inputs and checks every packb output.
        sys.exit("compare.py: FATAL: the msgpack package is required (pip install msgpack).")
    return modules, missing


class Libraries:
    """How each library does each operation on each kind of document.

    Callables are the library functions themselves wherever possible, so the
    timing loop adds the same per-call overhead to every library.
    """

    def __init__(self, orcodec: Any, peers: dict[str, Any]):
        self.orcodec = orcodec
        self.peers = peers
        if "msgspec" in peers:
            msgspec = peers["msgspec"]
            self.msgspec = {
                "dumps": msgspec.json.Encoder().encode,
                "loads": msgspec.json.Decoder().decode,
                "packb": msgspec.msgpack.Encoder().encode,
                "unpackb": msgspec.msgpack.Decoder().decode,
            }
        if "json" in peers:
            self.json_encode = peers["json"].JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

    def setting(self, lib: str) -> Callable[[], AbstractContextManager[Any]]:
        """What is entered around the library's calls: ssrJSON's UTF-8 cache writing, on or off."""
        if lib not in ("ssrjson", "ssrjson-nocache") or lib not in self.peers:
            return contextlib.nullcontext
        ssrjson, write = self.peers[lib], lib == "ssrjson"

        @contextlib.contextmanager
        def cache_writing():
            was = ssrjson.get_current_features()["write_utf8_cache"]
            ssrjson.write_utf8_cache(write)
            try:
                yield
            finally:
                ssrjson.write_utf8_cache(was)

        return cache_writing

    def function(self, lib: str, op: str, doc: Document) -> tuple[Callable[[Any], Any], Any]:
        """(callable, argument) for lib on the row, or NotApplicable. The argument of an encoder is
        the library's own copy of the document (`Document.input_for`)."""
        op = base_op(op)
        if lib == "marshal":
            if doc.kind != "plain":
                raise NotApplicable("marshal handles builtin types only")
            if op in ("loads", "unpackb"):
                return marshal.loads, marshal.dumps(doc.expected)
            return marshal.dumps, doc.input_for(op)
        return self.call(lib, op, doc.kind), doc.input_for(op)

    def call(self, lib: str, op: str, kind: str) -> Callable[[Any], Any]:
        """The callable of lib for the operation (dumps, loads, packb, unpackb) on a kind of document."""
        m = self.peers.get(lib)
        if lib == "orcodec":
            fn = getattr(self.orcodec, op, None)
            if fn is None:
                raise NotApplicable(f"orcodec has no {op}()")
            if kind == "numpy":
                fn = functools.partial(fn, option=getattr(self.orcodec, "OPT_SERIALIZE_NUMPY", 16))
            return fn
        if lib == "orjson":
            if op == "loads":
                return m.loads
            if kind == "numpy":
                return functools.partial(m.dumps, option=m.OPT_SERIALIZE_NUMPY)
            return m.dumps
        if lib == "ormsgpack":
            if op == "unpackb":
                return m.unpackb
            if kind == "numpy":
                return functools.partial(m.packb, option=m.OPT_SERIALIZE_NUMPY)
            return m.packb
        if lib == "msgspec":
            if kind == "numpy":
                raise NotApplicable("msgspec does not serialize numpy arrays")
            return self.msgspec[op]
        if kind != "plain":
            raise NotApplicable(f"{lib} has no native support for these types")
        if lib in ("ssrjson", "ssrjson-nocache"):
            if op == "loads":
                if lib == "ssrjson-nocache":
                    raise NotApplicable("cache writing is an encoder setting: its loads is ssrjson's")
                return m.loads
            # Cache writing on or off: the global setting, entered around the calls (`setting`),
            # so that no keyword argument adds to the per-call time.
            return m.dumps_to_bytes
        if lib == "yyjson":
            if op == "dumps":
                return lambda obj: m.dumps(obj).encode()
            return m.loads
        if lib == "ujson":
            if op == "dumps":
                return lambda obj: m.dumps(obj, ensure_ascii=False, escape_forward_slashes=False).encode()
            return m.loads
        if lib == "rapidjson":
            if op == "dumps":
                return lambda obj: m.dumps(obj, ensure_ascii=False).encode()
            return m.loads
        if lib == "json":
            if op == "dumps":
                encode = self.json_encode
                return lambda obj: encode(obj).encode()
            return m.loads
        if lib == "msgpack":
            if int(m.version[0]) >= 1:
                # Since msgpack 1.0 use_bin_type=True and raw=False are the defaults;
                # calling the functions directly avoids a keyword-argument wrapper.
                return m.packb if op == "packb" else m.unpackb
            if op == "packb":
                return lambda obj: m.packb(obj, use_bin_type=True)
            return lambda data: m.unpackb(data, raw=False)
        raise NotApplicable(f"unknown library {lib}")


def library_versions(orcodec: Any, peers: dict[str, Any]) -> dict[str, str]:
    versions = {}
    for name, module in [("orcodec", orcodec), *sorted(peers.items())]:
        if name in MODULES:
            continue  # the same module as another column
        if name in ("json", "marshal"):
            version = getattr(module, "__version__", getattr(module, "version", ""))
            versions[name] = f"stdlib {version}".strip()
            continue
        try:
            versions[name] = importlib.metadata.version(DISTRIBUTIONS.get(name, name))
        except importlib.metadata.PackageNotFoundError:
            versions[name] = str(getattr(module, "__version__", "unknown"))
        if name == "ssrjson":
            # Its build picks a SIMD variant for the CPU at import.
            versions[name] += f" ({module.get_current_features().get('simd', '?')})"
    return versions


# --- documents -----------------------------------------------------------------


def load_documents(names: list[str], msgpack: Any) -> tuple[list[Document], dict[str, str]]:
    """The documents that can be built, and {name: why not} for the others."""
    docs, unavailable = [], {}
    for name in names:
        try:
            docs.append(load_document(name, msgpack))
        except ImportError as exc:
            unavailable[name] = str(exc)
    fell_back = [d.source for d in docs if d.generated]
    if fell_back:
        shared = fixtures_dir()
        how = f"${FIXTURES_ENV}" if os.environ.get(FIXTURES_ENV) else f"default; set ${FIXTURES_ENV} to override"
        print(
            f"NOTE: shared fixtures not found in {shared} ({how}); using {', '.join(fell_back)}\n"
            "      instead (marked * in the table);"
            " their timings are not comparable with runs on the real documents.\n",
            file=sys.stderr,
        )
    return docs, unavailable


# --- correctness check ------------------------------------------------------------


def first_difference(got: Any, want: Any, path: str = "$") -> str | None:
    """Describe where got differs from want, strictly (1 != 1.0, True != 1), or None."""
    if type(got) is not type(want):
        return f"{path}: {type(got).__name__} {got!r:.60} != {type(want).__name__} {want!r:.60}"
    if isinstance(want, dict):
        if got.keys() != want.keys():
            return f"{path}: keys differ: {sorted(got.keys() ^ want.keys())[:5]!r:.120}"
        for key, value in want.items():
            found = first_difference(got[key], value, f"{path}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(want, list):
        if len(got) != len(want):
            return f"{path}: length {len(got)} != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            found = first_difference(g, w, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if got == want else f"{path}: {got!r:.60} != {want!r:.60}"


def check(lib: str, op: str, fn: Callable, arg: Any, doc: Document, msgpack: Any) -> tuple[str | None, str | None]:
    """Run fn twice on the row's input: (status, reason), status None when both results are right.

    Twice, because the second call may take another path: a library that stored the UTF-8 of
    the input's strs in them on the first call copies it on the second.
    """
    for call in ("first", "second"):
        status, reason = check_once(lib, op, fn, arg, doc, msgpack)
        if status is not None:
            return status, reason if call == "first" else f"on the second call: {reason}"
    return None, None


def check_once(lib: str, op: str, fn: Callable, arg: Any, doc: Document, msgpack: Any) -> tuple[str | None, str | None]:
    try:
        out = fn(arg)
    except Exception as exc:  # any failure of the library is a result to report
        return RAISED, f"{type(exc).__name__}: {exc}"
    if base_op(op) in ("dumps", "packb"):
        if not isinstance(out, bytes):
            return DIFFERS, f"returned {type(out).__name__}, expected bytes"
        # Decode with the reference implementations, independent of the library under test.
        try:
            if lib == "marshal":
                out = marshal.loads(out)
            elif base_op(op) == "dumps":
                out = json.loads(out)
            else:
                out = msgpack.unpackb(out, raw=False, strict_map_key=False)
        except Exception as exc:
            return DIFFERS, f"output does not decode: {type(exc).__name__}: {exc}"
    diff = first_difference(out, doc.expected)
    return (None, None) if diff is None else (DIFFERS, f"decodes to a different value at {diff}")


# --- timing ------------------------------------------------------------------------


def sample(fn: Callable, arg: Any, n: int, mode: str = GC_OFF) -> float:
    """Seconds for n back-to-back calls on arg: `sample_each` of n times the same object."""
    return sample_each(fn, itertools.repeat(arg, n), mode)


def sample_each(fn: Callable, args: Iterable[Any], mode: str = GC_OFF) -> float:
    """Seconds for back-to-back calls, one on each of args, in order.

    GC_OFF: the cyclic GC paused, each result dropped at once, so no collection
    lands in a sample. GC_KEPT: the GC enabled and every result kept until the
    sample ends (freed inside the timing, as GC_OFF frees each one), so the
    collections that the results trigger and traverse are paid where they happen.
    Every GC_KEPT sample starts from a full collection (not timed), so that the
    collector's counters carry nothing over from an earlier sample (another
    library's results would otherwise decide when this one's full collection
    falls due), and ends, inside the timing and with the results still alive,
    with a collection of the youngest generation: the one that the next
    allocation would owe when a call left it due (a decoder that pauses the
    collector while it builds a large document defers that traversal past the
    call; in a program that keeps the document it is still paid).
    """
    gc_was_enabled = gc.isenabled()
    try:
        if mode == GC_OFF:
            gc.disable()
            start = time.perf_counter()
            for arg in args:
                fn(arg)
            return time.perf_counter() - start
        gc.collect()
        gc.enable()
        kept: list[Any] = []
        keep = kept.append
        start = time.perf_counter()
        for arg in args:
            keep(fn(arg))
        gc.collect(0)
        del kept[:]
        return time.perf_counter() - start
    finally:
        if gc_was_enabled:
            gc.enable()
        else:
            gc.disable()


def calibrate(fn: Callable, arg: Any, target_s: float) -> int:
    """Iterations per sample so that one sample takes about target_s.

    The count is kept for the whole row, so it comes from the fastest of three
    samples at the final size: a single slow one (another process, the first
    calls after the row's checks) would otherwise give a library a fraction
    of the target for every sample of the row.
    """
    n = 1
    while True:
        elapsed = sample(fn, arg, n)
        if elapsed >= target_s / 10 or n >= 10**7:
            break
        n *= 10
    elapsed = min(elapsed, sample(fn, arg, n), sample(fn, arg, n))
    return max(1, round(n * target_s / elapsed))


def sample_counts(calibrated: dict[str, int]) -> dict[str, dict[str, int]]:
    """Calls per sample of each library of a row in each collector setting.

    GC_OFF: each library its own calibrated count, so every sample lasts about
    the target time. GC_KEPT: one count for every library of the row, the
    smallest calibrated one (the slowest library's). With the results kept
    alive, what a call costs depends on how many results are kept: the
    collector's full collections are triggered by the number of objects that
    survive younger collections, so the chance that one lands in a sample
    grows with the calls in it, and a median over samples either includes
    that collection or not. Calibrated separately, a faster library would
    keep more results per sample and pay collections that a slower one's
    samples escape; with one count, every library's results put the same
    pressure on the collector.
    """
    kept = min(calibrated.values())
    return {lib: {GC_OFF: n, GC_KEPT: kept} for lib, n in calibrated.items()}


def make_copies(make: Callable[[], Any], n: int) -> list[Any]:
    """n new copies of a document, made with the collector paused (the copies are all live: a
    collection while they are made finds nothing to free, and costs up to 4 times the making)."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return [make() for _ in range(n)]
    finally:
        if gc_was_enabled:
            gc.enable()


def measure(row: Row, settings: Settings) -> None:
    """Fill the per-call times of every timed cell of the row, in both collector settings, round-robin.

    On a fresh-objects row (`dumps_fresh`, `packb_fresh`) every call of a sample gets an object
    no library has touched: before each sample (untimed), as many copies as the sample has calls
    are made by the document's loader, and frozen out of the collector's view as the harness's
    own documents are. The calls per sample are calibrated on repeated calls on one copy.
    """
    libs = [lib for lib, cell in row.cells.items() if cell.timed]
    if not libs:
        return
    # A fresh order each round, so no library always runs first or right after
    # the same neighbour (whose heap and cache leftovers it would inherit);
    # calibrated in such an order too, so no library is always the first
    # timed after the row's checks.
    order = random.Random(row.name)
    calibrated = {}
    for lib in order.sample(libs, len(libs)):
        cell = row.cells[lib]
        with cell.setting():
            calibrated[lib] = calibrate(cell.fn, cell.arg, settings.target_sample_s)
    for lib, n in sample_counts(calibrated).items():
        row.cells[lib].iterations = n
    samples = [(lib, mode) for lib in libs for mode in MODES]
    deadline = time.perf_counter() + settings.row_budget_s
    for r in range(settings.max_rounds):
        if r >= settings.min_rounds and time.perf_counter() > deadline:
            break
        order.shuffle(samples)
        for lib, mode in samples:
            cell = row.cells[lib]
            n = cell.iterations[mode]
            if cell.fresh is None:
                with cell.setting():
                    elapsed = sample(cell.fn, cell.arg, n, mode)
            else:
                pool = make_copies(cell.fresh, n)
                gc.freeze()
                with cell.setting():
                    elapsed = sample_each(cell.fn, pool, mode)
                del pool
            cell.per_call_s[mode].append(elapsed / n)


# --- row selection ---------------------------------------------------------------------


def all_rows() -> list[tuple[str, str]]:
    from documents import document_ops

    return [(doc, op) for doc in DOCUMENTS for op in OPERATIONS if op in document_ops(doc)]


def select_rows(tokens: list[str] | None) -> list[tuple[str, str]]:
    """Rows matching any token: a document, an operation, or a DOC.OP glob such as 'twitter.*'."""
    every = all_rows()
    if not tokens:
        return every
    chosen = set()
    for token in (t for arg in tokens for t in arg.split(",") if t):
        hits = {(d, o) for d, o in every if token in (d, o) or fnmatch.fnmatchcase(f"{d}.{o}", token)}
        if not hits:
            raise ValueError(
                f"--rows {token!r} matches nothing; documents: {', '.join(DOCUMENTS)}; "
                f"operations: {', '.join(OPERATIONS)}; or DOC.OP globs"
            )
        chosen |= hits
    return [row for row in every if row in chosen]


# --- reporting ------------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine_info(versions: dict[str, str], settings: Settings, quick: bool) -> dict[str, Any]:
    return {
        "python": f"{platform.python_version()} ({platform.python_implementation()}) {sys.executable}",
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "cpu": cpu_model(),
        "versions": versions,
        "mode": "quick" if quick else "full",
        "target_sample_ms": settings.target_sample_s * 1e3,
        "fixtures_dir": str(fixtures_dir()),
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def fmt_us(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    us = seconds * 1e6
    for limit, spec in ((1000, ".0f"), (100, ".1f"), (1, ".2f")):
        if us >= limit:
            return format(us, spec)
    return format(us, ".3f")


def cell_text(row: Row, lib: str, mode: str) -> str:
    cell = row.cells[lib]
    if cell.status == MISSING:
        return "missing"
    if cell.status in (NA, RAISED):
        return "n/a"
    return fmt_us(cell.median_s(mode)) + ("≠" if cell.status == DIFFERS else "")


def ratio_text(row: Row, mode: str) -> str:
    ratio = row.ratio(mode)
    if ratio is None:
        return "n/a"
    text = f"{ratio:.2f}"
    if row.cells["orcodec"].status == DIFFERS:
        text += "≠"
    if row.noisy(mode):
        text += "~"
    return text


def print_header(info: dict[str, Any]) -> None:
    print("orcodec side-by-side benchmark")
    print(f"python    {info['python']}")
    print(f"machine   {info['platform']} | {info['cpu_count']} CPUs | {info['cpu']}")
    print("versions  " + ", ".join(f"{k} {v}" for k, v in info["versions"].items()))
    print(
        f"method    {info['mode']}: round-robin per row (shuffled each round),"
        f" samples of ~{info['target_sample_ms']:.0f} ms "
        "in two collector settings (gc off: calls per sample calibrated per library; gc on with the results kept:"
        " the same calls per sample for every library of a row, the slowest one's, each from a collected heap),"
        " median per call across rounds"
    )


def print_table(family: str, rows: list[Row], mode: str) -> None:
    libs = columns(family)
    head = ["row", *libs, "ratio", "best peer"]
    body = []
    for row in rows:
        best, _ = row.best_peer(mode)
        label = f"{row.doc.name}{'*' if row.doc.generated else ''}.{row.op}"
        body.append([label, *(cell_text(row, lib, mode) for lib in libs), ratio_text(row, mode), best or "-"])
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    unranked = f"; {', '.join(UNRANKED[family])} unranked" if UNRANKED[family] else ""
    print(
        f"\n{family}, {MODE_TITLES[mode]} (median µs per call; ratio = orcodec / best peer,"
        f" < 1.00 means orcodec is faster; {', '.join(FLOORS)} is an unranked floor{unranked})"
    )
    for line in [head, *body]:
        cols = [line[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(line[1:-1], widths[1:-1])), line[-1]]
        print("  ".join(cols))


def print_overhead(rows: list[Row]) -> None:
    """The per-call overhead lines: the 6-key dict's medians in ns, orcodec and every peer."""
    small = [r for r in rows if r.doc.name == "small"]
    if not small:
        return
    print("\nper-call overhead: the 6-key dict `small`, median ns per call")
    for mode in MODES:
        print(f"  {MODE_TITLES[mode]}:")
        for row in small:
            ns = {lib: row.cells[lib].median_s(mode) for lib in ("orcodec", *row.peers)}
            peers = ", ".join(f"{lib} {t * 1e9:.0f}" for lib, t in ns.items() if lib != "orcodec" and t is not None)
            ours = "n/a" if ns["orcodec"] is None else f"{ns['orcodec'] * 1e9:.0f}"
            print(f"    {row.op:8} orcodec {ours} ({peers})")


def print_report(info: dict[str, Any], rows: list[Row], unavailable: dict[str, str]) -> None:
    print_header(info)
    for mode in MODES:
        for family in PEERS:
            family_rows = [r for r in rows if FAMILY[r.op] == family]
            if family_rows:
                print_table(family, family_rows, mode)
    print_overhead(rows)
    print()
    if any(r.doc.generated for r in rows):
        print(
            f"* generated stand-in from {GENERATED_FIXTURES} (shared fixture not found);"
            " not comparable with the real document."
        )
    if any(r.noisy(mode) for r in rows for mode in MODES if r.ratio(mode) is not None):
        print(
            f"~ noisy: the interquartile range of orcodec or the best peer exceeds {NOISY_SPREAD:.0%} of its median;"
            " rerun on a quieter machine."
        )
    for note in NOTES:
        print(note)
    print_utf8_copies(rows)
    for name, why in unavailable.items():
        print(f"document {name} skipped: {why}")
    problems = [
        (r.name, lib, c.status, c.reason)
        for r in rows
        for lib, c in r.cells.items()
        if c.status in (RAISED, DIFFERS) or (lib == "orcodec" and c.utf8_copies)
    ]
    if problems:
        print("\nn/a and ≠ cells:")
        for name, lib, status, reason in problems:
            print(f"  {name} {lib}: {'raised ' if status == RAISED else ''}{reason}"[:200])


def utf8_copies_by_library(rows: list[Row]) -> dict[str, tuple[int, int]]:
    """Per library: (non-ASCII strs it left with a UTF-8 copy, non-ASCII strs it was given), over the
    rows where that was counted (each encoder's own copy, after its two checking calls)."""
    totals: dict[str, tuple[int, int]] = {}
    for row in rows:
        for lib, cell in row.cells.items():
            if cell.utf8_copies is not None:
                cached, seen = totals.get(lib, (0, 0))
                totals[lib] = (cached + cell.utf8_copies, seen + cell.non_ascii_strs)
    return totals


def print_utf8_copies(rows: list[Row]) -> None:
    totals = utf8_copies_by_library(rows)
    if not totals:
        return
    wrote = [f"{lib} ({c}/{n})" for lib, (c, n) in totals.items() if c]
    kept = [lib for lib, (c, _) in totals.items() if not c]
    print(
        "UTF-8 copies left in the non-ASCII strs of the encoders' inputs (strs with one / strs given):"
        f" {', '.join(wrote) or 'none'}; left none: {', '.join(kept) or '-'}."
    )


def results_json(info: dict[str, Any], rows: list[Row]) -> dict[str, Any]:
    def cell_json(cell: Cell, mode: str) -> dict[str, Any]:
        times = sorted(cell.per_call_s[mode])
        quartiles = statistics.quantiles(times, n=4) if len(times) >= 2 else [None, None, None]
        ns = lambda s: None if s is None else round(s * 1e9, 2)  # noqa: E731
        return {
            "median_ns": ns(cell.median_s(mode)),
            "q1_ns": ns(quartiles[0]),
            "q3_ns": ns(quartiles[2]),
            "min_ns": ns(times[0] if times else None),
            "spread": cell.spread(mode),
            "rounds": len(times),
            "iterations_per_sample": cell.iterations[mode],
            "status": cell.status,
            "error": cell.reason,
            "utf8_copies_left": cell.utf8_copies,
        }

    def setting_json(row: Row, mode: str) -> dict[str, Any]:
        return {
            "results": {lib: cell_json(cell, mode) for lib, cell in row.cells.items()},
            "ratio": row.ratio(mode),
            "best_peer": row.best_peer(mode)[0],
            "noisy": row.noisy(mode),
        }

    out_rows = []
    for row in rows:
        arg = {"loads": row.doc.json_bytes, "unpackb": row.doc.msgpack_bytes}.get(row.op)
        settings = {mode: setting_json(row, mode) for mode in MODES}
        out_rows.append(
            {
                "row": row.name,
                "document": row.doc.name,
                "operation": row.op,
                "family": FAMILY[row.op],
                "kind": row.doc.kind,
                "generated": row.doc.generated,
                "fresh_objects": row.fresh,
                "source": row.doc.source,
                "input_bytes": len(arg) if isinstance(arg, bytes) else None,
                # The collector-off figures at the top level; both settings under "settings".
                **settings[GC_OFF],
                "settings": settings,
            }
        )
    return {
        "meta": info,
        "notes": NOTES,
        "modes": MODE_TITLES,
        "peers": PEERS,
        "unranked": UNRANKED,
        "floors": FLOORS,
        "rows": out_rows,
    }


# --- main --------------------------------------------------------------------------------------


def build_row(doc: Document, op: str, libraries: Libraries, missing: dict[str, str], msgpack: Any) -> Row:
    """The row's cells, each library with its own copy of the input, checked before timing.

    Before any library runs, the copies are verified to share no non-ASCII str and to carry no
    cached UTF-8 (`check_independent`). After its checks, an encoder's copy tells whether the
    library stored UTF-8 in the strs it was given.
    """
    cells, copies = {}, {}
    # The copies are made in a shuffled order, so that no library's is always the first made
    # after the previous row freed its own (into a heap with that row's holes in it).
    for lib in random.Random(f"{doc.name}.{op}").sample(columns(FAMILY[op]), len(columns(FAMILY[op]))):
        if lib in missing:
            cells[lib] = Cell(status=MISSING, reason=missing[lib])
            continue
        try:
            fn, arg = libraries.function(lib, op, doc)
        except NotApplicable as exc:
            cells[lib] = Cell(status=NA, reason=str(exc))
            continue
        cells[lib] = Cell(fn=fn, arg=arg, setting=libraries.setting(lib))
        if base_op(op) in ("dumps", "packb"):
            copies[lib] = arg
            if op != base_op(op):
                cells[lib].fresh = doc.fresh_value
                # The checks run on a copy of their own: every timed object is fresh.
                copies[f"{lib} (checked)"] = doc.fresh_value()
    cells = {lib: cells[lib] for lib in columns(FAMILY[op])}
    # (A document without non-ASCII strs has nothing to verify or count.)
    if doc.non_ascii_strs:
        check_independent(copies)
    for lib, cell in cells.items():
        if cell.fn is None:
            continue
        checked = copies.get(f"{lib} (checked)", cell.arg)
        with cell.setting():
            cell.status, cell.reason = check(lib, op, cell.fn, checked, doc, msgpack)
        cell.non_ascii_strs = len(non_ascii_strs(checked)) if lib in copies and doc.non_ascii_strs else 0
        if cell.non_ascii_strs:
            cell.utf8_copies = strs_with_utf8_copy(checked)
    nocache = cells.get("ssrjson-nocache")
    if nocache is not None and nocache.utf8_copies and nocache.status is None:
        nocache.status, nocache.reason = RAISED, "ssrjson.write_utf8_cache(False) did not stop its cache writing"
    orcodec = cells.get("orcodec")
    if orcodec is not None and orcodec.utf8_copies:
        orcodec.reason = (orcodec.reason or "") + f"left a UTF-8 copy in {orcodec.utf8_copies} of the input's strs"
    return Row(doc, op, cells)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Benchmark orcodec against orjson, ormsgpack, msgspec and friends.")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter samples (a smoke run of about a minute)")
    parser.add_argument(
        "--rows",
        nargs="+",
        metavar="ROW",
        help="documents, operations or DOC.OP globs to run, e.g. twitter canada.loads '*.packb'",
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=DEFAULT_JSON,
        metavar="PATH",
        help=f"where to write the results (default {DEFAULT_JSON.relative_to(REPO_ROOT)})",
    )
    args = parser.parse_args(argv)
    try:
        args.selected = select_rows(args.rows)
    except ValueError as exc:
        parser.error(str(exc))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    settings = QUICK if args.quick else FULL
    orcodec = import_orcodec()
    peers, missing = import_peers()
    libraries = Libraries(orcodec, peers)
    info = machine_info(library_versions(orcodec, peers), settings, args.quick)

    names = [d for d in DOCUMENTS if any(d == doc for doc, _ in args.selected)]
    loaded, unavailable = load_documents(names, peers["msgpack"])
    # The documents and the libraries are the harness's own long-lived objects:
    # frozen, the collections in a sample traverse only what the sample keeps,
    # so a row costs the same whichever other rows the run loaded.
    gc.collect()
    gc.freeze()
    docs = {doc.name: doc for doc in loaded}

    rows = []
    selected = [(name, op) for name, op in args.selected if name in docs]
    for i, (name, op) in enumerate(selected, 1):
        row = build_row(docs[name], op, libraries, missing, peers["msgpack"])
        print(f"[{i}/{len(selected)}] {row.name}", file=sys.stderr, flush=True)
        cell = row.cells["orcodec"]
        if cell.status in (RAISED, DIFFERS) or cell.utf8_copies:
            print(
                f"    orcodec {'FAILED' if row.failed() else 'n/a'} on {row.name}: {cell.reason}"[:300],
                file=sys.stderr,
                flush=True,
            )
        # This row's copies of the document live as long as the row: frozen like the documents.
        gc.freeze()
        measure(row, settings)
        row.release()
        rows.append(row)

    print_report(info, rows, unavailable)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results_json(info, rows), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nresults written to {args.json}")

    failed = [r.name for r in rows if r.failed()]
    if failed:
        print(f"\n!!! orcodec FAILED {len(failed)} row(s): {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

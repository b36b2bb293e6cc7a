"""Typed decoding benchmark: bytes straight into dataclasses (and UUIDs, datetimes, enums,
Decimals), orcodec against msgspec and pydantic v2.

    python bench/typed.py [--quick] [--json PATH] [--memory-mb N]

Rows (each in JSON and in MessagePack):
  person_1, person_1000   msgspec's benchmark schema: a Person with first/last names, an
                          age, an optional list of Address, optional phone and email
  records_2000            2,000 records of a UUID, an aware datetime, a date, an enum
                          member and a Decimal
Columns:
  orcodec          loads/unpackb(data, type=list[Person]) into plain dataclasses (a Decoder)
  orcodec slots    the same into slots=True dataclasses
  msgspec          msgspec decoding into the same (plain) dataclasses
  msgspec Struct   msgspec decoding into msgspec.Struct equivalents
  pydantic         TypeAdapter(...).validate_json (JSON) / validate_python(unpackb(...))
  untyped          orcodec loads/unpackb of the same bytes without a type
Ratios: orcodec / msgspec (goal <= 1.00), orcodec slots / msgspec Struct, orcodec /
untyped (goal <= 1.25), pydantic / orcodec.

Timing is round-robin like compare.py: each round takes one sample of every column of a
row, each sample a calibrated loop; the figure is the median over rounds. The peak-memory
row decodes a document of at least --memory-mb megabytes into slots dataclasses, each
library in a fresh subprocess, and reports the peak traced by tracemalloc.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import decimal
import enum
import gc
import json
import random
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Optional

import msgspec
import orcodec

try:
    import pydantic
except ImportError:  # pragma: no cover - pydantic is in requirements-dev.txt
    pydantic = None

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = REPO_ROOT / "bench" / "results" / "typed.json"


# -- the schema, four ways ------------------------------------------------------------


@dataclasses.dataclass
class Address:
    street: str
    state: str
    zip: int


@dataclasses.dataclass
class Person:
    first: str
    last: str
    age: int
    addresses: Optional[list[Address]] = None  # noqa: UP045 - as msgspec's benchmark writes it
    telephone: Optional[str] = None  # noqa: UP045
    email: Optional[str] = None  # noqa: UP045


@dataclasses.dataclass(slots=True)
class SlotAddress:
    street: str
    state: str
    zip: int


@dataclasses.dataclass(slots=True)
class SlotPerson:
    first: str
    last: str
    age: int
    addresses: Optional[list[SlotAddress]] = None  # noqa: UP045
    telephone: Optional[str] = None  # noqa: UP045
    email: Optional[str] = None  # noqa: UP045


class StructAddress(msgspec.Struct):
    street: str
    state: str
    zip: int


class StructPerson(msgspec.Struct):
    first: str
    last: str
    age: int
    addresses: Optional[list[StructAddress]] = None  # noqa: UP045
    telephone: Optional[str] = None  # noqa: UP045
    email: Optional[str] = None  # noqa: UP045


class Status(enum.Enum):
    ACTIVE = "active"
    SUSPENDED = "suspended"
    CLOSED = "closed"


@dataclasses.dataclass
class Record:
    id: uuid.UUID
    created: datetime.datetime
    day: datetime.date
    status: Status
    amount: decimal.Decimal


@dataclasses.dataclass(slots=True)
class SlotRecord:
    id: uuid.UUID
    created: datetime.datetime
    day: datetime.date
    status: Status
    amount: decimal.Decimal


class StructRecord(msgspec.Struct):
    id: uuid.UUID
    created: datetime.datetime
    day: datetime.date
    status: Status
    amount: decimal.Decimal


# -- documents -------------------------------------------------------------------------

STATES = ["AK", "AL", "AR", "AZ", "CA", "CO", "CT", "DC", "DE", "FL", "GA", "HI", "IA", "ID", "IL", "IN"]
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo"]


def people(n: int, seed: int = 42) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        p: dict[str, Any] = {
            "first": rng.choice(WORDS).title(),
            "last": rng.choice(WORDS).title() + rng.choice(WORDS),
            "age": rng.randint(1, 99),
        }
        if rng.random() < 0.8:
            p["addresses"] = [
                {
                    "street": f"{rng.randint(1, 9999)} {rng.choice(WORDS).title()} St",
                    "state": rng.choice(STATES),
                    "zip": rng.randint(10000, 99999),
                }
                for _ in range(rng.randint(1, 3))
            ]
        if rng.random() < 0.7:
            p["telephone"] = f"{rng.randint(200, 999)}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}"
        if rng.random() < 0.7:
            p["email"] = f"{p['first'].lower()}.{p['last'].lower()}@example.com"
        out.append(p)
    return out


def records(n: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    tz = datetime.timezone(datetime.timedelta(hours=2))
    base = datetime.datetime(2024, 1, 1, tzinfo=tz)
    return [
        {
            "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "created": (
                base + datetime.timedelta(seconds=rng.randint(0, 10**7), microseconds=rng.randint(0, 999999))
            ).isoformat(),
            "day": (datetime.date(2020, 1, 1) + datetime.timedelta(days=rng.randint(0, 2000))).isoformat(),
            "status": rng.choice(list(Status)).value,
            "amount": f"{rng.randint(0, 10**6)}.{rng.randint(0, 99):02d}",
        }
        for _ in range(n)
    ]


@dataclasses.dataclass
class Row:
    name: str
    fmt: str  # "JSON" or "MessagePack"
    data: bytes
    columns: dict[str, Callable[[], Any]]
    expected: Any  # what every column's result must equal (compared through asdict)


def plain(value: Any) -> Any:
    """Results of every column in one comparable form."""
    if isinstance(value, list):
        return [plain(v) for v in value]
    if dataclasses.is_dataclass(value):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, msgspec.Struct):
        return {f: plain(getattr(value, f)) for f in value.__struct_fields__}
    if pydantic is not None and isinstance(value, pydantic.BaseModel):
        return {k: plain(v) for k, v in value.__dict__.items()}
    return value


def rows(quick: bool) -> list[Row]:
    out = []
    docs = [
        ("person_1", people(1), Person, SlotPerson, StructPerson),
        ("person_1000", people(1000), Person, SlotPerson, StructPerson),
        ("records_2000", records(2000), Record, SlotRecord, StructRecord),
    ]
    for name, doc, cls, slot_cls, struct_cls in docs:
        many = name != "person_1"
        tp = list[cls] if many else cls
        slot_tp = list[slot_cls] if many else slot_cls
        struct_tp = list[struct_cls] if many else struct_cls
        value = doc if many else doc[0]
        adapter = pydantic.TypeAdapter(tp) if pydantic is not None else None
        for fmt in ("JSON", "MessagePack"):
            if fmt == "JSON":
                data = orcodec.dumps(value)
                dec, slot_dec = orcodec.Decoder(tp).loads, orcodec.Decoder(slot_tp).loads
                ms = msgspec.json.Decoder(tp).decode
                ms_struct = msgspec.json.Decoder(struct_tp).decode
                untyped = orcodec.loads
                pyd = (lambda d=data, a=adapter: a.validate_json(d)) if adapter else None
            else:
                data = orcodec.packb(value)
                dec, slot_dec = orcodec.Decoder(tp).unpackb, orcodec.Decoder(slot_tp).unpackb
                ms = msgspec.msgpack.Decoder(tp).decode
                ms_struct = msgspec.msgpack.Decoder(struct_tp).decode
                untyped = orcodec.unpackb
                pyd = (lambda d=data, a=adapter: a.validate_python(orcodec.unpackb(d))) if adapter else None
            columns: dict[str, Callable[[], Any]] = {
                "orcodec": lambda d=data, f=dec: f(d),
                "orcodec slots": lambda d=data, f=slot_dec: f(d),
                "msgspec": lambda d=data, f=ms: f(d),
                "msgspec Struct": lambda d=data, f=ms_struct: f(d),
            }
            if pyd is not None:
                columns["pydantic"] = pyd
            columns["untyped"] = lambda d=data, f=untyped: f(d)
            out.append(Row(name, fmt, data, columns, plain(ms(data))))
    return out


def calibrate(fn: Callable[[], Any], target: float) -> int:
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - t0
        if elapsed >= target / 4 or n >= 1 << 20:
            return max(1, int(n * target / max(elapsed, 1e-9)))
        n *= 4


def measure(row: Row, rounds: int, target: float) -> dict[str, float]:
    loops = {name: calibrate(fn, target) for name, fn in row.columns.items()}
    samples: dict[str, list[float]] = {name: [] for name in row.columns}
    gc.collect()
    for _ in range(rounds):
        for name, fn in row.columns.items():
            n = loops[name]
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((time.perf_counter() - t0) / n)
    return {name: statistics.median(s) for name, s in samples.items()}


def fmt_time(seconds: float) -> str:
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    return f"{seconds * 1e3:.2f} ms"


RATIOS = [
    ("orcodec/msgspec", "orcodec", "msgspec", "<= 1.00"),
    ("slots/Struct", "orcodec slots", "msgspec Struct", "approach"),
    ("orcodec/untyped", "orcodec", "untyped", "<= 1.25"),
    ("pydantic/orcodec", "pydantic", "orcodec", ">= msgspec's"),
]


MEMORY_SCRIPT = r"""
import sys, tracemalloc, gc
sys.path.insert(0, {bench!r})
import typed as t
lib, fmt, path = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(path, 'rb').read()
import orcodec, msgspec
json = fmt == 'JSON'
if lib == 'orcodec':
    d = orcodec.Decoder(list[t.SlotPerson])
    f = d.loads if json else d.unpackb
elif lib == 'msgspec':
    f = (msgspec.json if json else msgspec.msgpack).Decoder(list[t.SlotPerson]).decode
elif lib == 'msgspec Struct':
    f = (msgspec.json if json else msgspec.msgpack).Decoder(list[t.StructPerson]).decode
else:
    f = orcodec.loads if json else orcodec.unpackb
gc.collect()
tracemalloc.start()
out = f(data)
peak = tracemalloc.get_traced_memory()[1]
print(peak)
"""


def memory(mb: int) -> list[dict[str, Any]]:
    import tempfile

    per = len(orcodec.dumps(people(1000)))
    count = max(1000, int(mb * 1e6 / per * 1000))
    doc = people(count, seed=3)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("JSON", "MessagePack"):
            data = orcodec.dumps(doc) if fmt == "JSON" else orcodec.packb(doc)
            path = Path(tmp) / "doc"
            path.write_bytes(data)
            row = {"format": fmt, "mb": len(data) / 1e6, "objects": count}
            for lib in ("orcodec", "msgspec", "msgspec Struct", "untyped"):
                script = MEMORY_SCRIPT.format(bench=str(Path(__file__).resolve().parent))
                out = subprocess.run(
                    [sys.executable, "-c", script, lib, fmt, str(path)], capture_output=True, text=True, check=True
                )
                row[lib] = int(out.stdout.strip())
            results.append(row)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter samples (a smoke run)")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write the results")
    parser.add_argument("--memory-mb", type=int, default=None, help="size of the peak-memory document (0: skip)")
    args = parser.parse_args()
    rounds, target = (5, 0.005) if args.quick else (15, 0.02)
    mb = args.memory_mb if args.memory_mb is not None else (10 if args.quick else 50)

    print(
        f"orcodec {orcodec.__version__}, msgspec {msgspec.__version__}, pydantic "
        f"{pydantic.VERSION if pydantic else 'n/a'}, Python {sys.version.split()[0]}"
    )
    results = []
    failed = False
    for row in rows(args.quick):
        for name, fn in row.columns.items():
            got = plain(fn())
            if name == "untyped":
                continue
            if got != row.expected:
                print(f"  {row.name} {row.fmt}: {name} gave a different value", file=sys.stderr)
                failed = True
        times = measure(row, rounds, target)
        results.append({"row": row.name, "format": row.fmt, "bytes": len(row.data), "times": times})

    cols = ["orcodec", "orcodec slots", "msgspec", "msgspec Struct", "pydantic", "untyped"]
    header = f"{'row':<14} {'format':<11}" + "".join(f"{c:>16}" for c in cols)
    print()
    print(header)
    print("-" * len(header))
    for r in results:
        t = r["times"]
        print(f"{r['row']:<14} {r['format']:<11}" + "".join(f"{fmt_time(t[c]) if c in t else 'n/a':>16}" for c in cols))
    print()
    header = f"{'row':<14} {'format':<11}" + "".join(f"{name:>18}" for name, *_ in RATIOS)
    print(header)
    print(f"{'goal':<26}" + "".join(f"{goal:>18}" for *_, goal in RATIOS))
    print("-" * len(header))
    for r in results:
        t = r["times"]
        cells = []
        for _, a, b, _ in RATIOS:
            cells.append(f"{t[a] / t[b]:>18.2f}" if a in t and b in t else f"{'n/a':>18}")
        r["ratios"] = {name: (t[a] / t[b] if a in t and b in t else None) for name, a, b, _ in RATIOS}
        print(f"{r['row']:<14} {r['format']:<11}" + "".join(cells))

    mem = []
    if mb > 0:
        mem = memory(mb)
        print()
        print(f"peak memory (tracemalloc), list[SlotPerson] from a document of about {mb} MB:")
        for m in mem:
            print(
                f"  {m['format']:<11} {m['mb']:.0f} MB, {m['objects']} objects: "
                + ", ".join(
                    f"{lib} {m[lib] / 1e6:.0f} MB" for lib in ("orcodec", "msgspec", "msgspec Struct", "untyped")
                )
                + f"  (orcodec/msgspec {m['orcodec'] / m['msgspec']:.2f})"
            )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"rows": results, "memory": mem}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Wire names and defaults benchmark: renamed and omitting dataclasses beside plain ones.

    python bench/wire.py [--quick] [--json PATH]

Rows: dumps, packb, loads and unpackb (a Decoder) of 1,000 Persons (msgspec's benchmark
schema, bench/typed.py's people), in each format. Columns:
  plain          plain dataclasses
  pascal         the same fields under @orcodec.options(rename="pascal")
  pascal+omit    rename="pascal", omit_defaults=True, omit_none=True (encoding rows)
  OPT_OMIT_NONE  the plain classes with the per-call flag (encoding rows)
Ratios: each column / plain (the goal: within 1.05). Timing is round-robin, as in
typed.py: each round takes one sample of every column of a row; figures are medians.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import orcodec
from typed import Row, fmt_time, measure, people

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = REPO_ROOT / "bench" / "results" / "wire.json"


def classes(name: str, **options: Any) -> tuple[type, type]:
    """typed.py's Person and Address, made anew under ``options`` (none: plain ones)."""
    decorate = orcodec.options(**options) if options else (lambda cls: cls)
    address = decorate(dataclasses.make_dataclass(f"{name}Address", [("street", str), ("state", str), ("zip", int)]))
    optional = [
        (n, t, dataclasses.field(default=None)) for n, t in (("telephone", Optional[str]), ("email", Optional[str]))
    ]
    fields = [
        ("first", str),
        ("last", str),
        ("age", int),
        ("addresses", Optional[list[address]], dataclasses.field(default=None)),
    ]
    return decorate(dataclasses.make_dataclass(f"{name}Person", fields + optional)), address


# pascal renames every one of these fields (camel would leave one-word names as they are).
PLAIN = classes("Plain")
RENAMED = classes("Pascal", rename="pascal")
OMITTING = classes("Omitting", rename="pascal", omit_defaults=True, omit_none=True)


def instances(doc: list[dict[str, Any]], person: type, address: type) -> list[Any]:
    """``doc``'s people as instances of ``person``."""
    out = []
    for p in doc:
        p = dict(p)
        if p.get("addresses") is not None:
            p["addresses"] = [address(**a) for a in p["addresses"]]
        out.append(person(**p))
    return out


def rows() -> list[Row]:
    doc = people(1000)
    plain, renamed, omitting = (instances(doc, *c) for c in (PLAIN, RENAMED, OMITTING))
    out = []
    for name, encode in (("dumps", orcodec.dumps), ("packb", orcodec.packb)):
        columns: dict[str, Callable[[], Any]] = {
            "plain": lambda f=encode: f(plain),
            "pascal": lambda f=encode: f(renamed),
            "pascal+omit": lambda f=encode: f(omitting),
            "OPT_OMIT_NONE": lambda f=encode: f(plain, option=orcodec.OPT_OMIT_NONE),
        }
        out.append(Row(name, "JSON" if name == "dumps" else "MessagePack", b"", columns, None))
    for name, encode in (("loads", orcodec.dumps), ("unpackb", orcodec.packb)):
        plain_data, renamed_data = encode(plain), encode(renamed)
        assert plain_data != renamed_data
        plain_decoder = getattr(orcodec.Decoder(list[PLAIN[0]]), name)
        renamed_decoder = getattr(orcodec.Decoder(list[RENAMED[0]]), name)
        assert [dataclasses.astuple(p) for p in renamed_decoder(renamed_data)] == [
            dataclasses.astuple(p) for p in plain_decoder(plain_data)
        ]
        columns = {
            "plain": lambda f=plain_decoder, d=plain_data: f(d),
            "pascal": lambda f=renamed_decoder, d=renamed_data: f(d),
        }
        out.append(Row(name, "JSON" if name == "loads" else "MessagePack", renamed_data, columns, None))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, shorter samples")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write the results")
    args = parser.parse_args()
    rounds, target = (5, 0.02) if args.quick else (15, 0.1)
    results = []
    print(f"{'row':<10} {'column':<15} {'time':>10} {'/ plain':>8}")
    for row in rows():
        times = measure(row, rounds, target)
        for column, seconds in times.items():
            ratio = seconds / times["plain"]
            print(f"{row.name:<10} {column:<15} {fmt_time(seconds):>10} {ratio:>8.3f}")
            results.append({"row": row.name, "column": column, "seconds": seconds, "ratio_to_plain": ratio})
    print("goal: pascal / plain within 1.05 in every row")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"python": sys.version, "results": results}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

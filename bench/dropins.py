"""The drop-in modules side by side with the libraries they replace.

Rows:
  msgpack packb / unpackb   the fixtures and a 6-key dict: orcodec.msgpack
                against msgpack (and orcodec's own packb/unpackb, the floor
                the drop-in is held to: within 1.10 of it).
  Unpacker      5,000 small messages fed in chunks of 1, 16, 256 and 4096
                bytes, and read from a file-like (io.BytesIO, the default
                read_size): orcodec.msgpack.Unpacker against msgpack.Unpacker
                (and orcodec.Unpacker).
  json          the fixtures: orcodec.json.dumps(doc) (ensure_ascii=True, the
                default), dumps(doc, ensure_ascii=False, indent=2) and
                loads(text) against json, simplejson, ujson and rapidjson.

Every row is timed round-robin (one sample of each library per round, in
both collector settings: disabled during the sample, and enabled with every
result kept until the sample ends); the figure is the median per call.
Each library encodes its own copy of the document (``marshal`` of it, so no
library meets strs whose UTF-8 another one cached in them).

    .venv/bin/python bench/dropins.py [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import marshal
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import msgpack
import orcodec
import orcodec.json as oj
import orcodec.msgpack as om
import rapidjson
import simplejson
import ujson
from documents import FIXTURE_DOCUMENTS, SMALL, fixture_path
from streams import show

GC_OFF, GC_ON = "gc_off", "gc_on"


def sample(fn: Callable[[Any], Any], arg: Any, number: int, mode: str) -> float:
    """Seconds per call of `number` calls of fn(arg), in collector setting `mode`."""
    kept = []
    if mode == GC_OFF:
        gc.disable()
    try:
        start = time.perf_counter()
        if mode == GC_OFF:
            for _ in range(number):
                fn(arg)
        else:
            for _ in range(number):
                kept.append(fn(arg))
        elapsed = time.perf_counter() - start
    finally:
        gc.enable()
    del kept
    return elapsed / number


def calibrate(fn: Callable[[Any], Any], arg: Any, target_s: float) -> int:
    number = 1
    while True:
        t = sample(fn, arg, number, GC_OFF) * number
        if t >= target_s / 4 or number >= 1 << 20:
            return max(1, int(number * target_s / max(t, 1e-9)))
        number *= 4


def time_row(fns: dict[str, tuple[Callable[[Any], Any], Any]], rounds: int, target_s: float) -> dict:
    """Median seconds per call of each library (fn, arg), per collector setting."""
    numbers = {name: calibrate(fn, arg, target_s) for name, (fn, arg) in fns.items()}
    common = min(numbers.values())
    times: dict[str, dict[str, list[float]]] = {name: {GC_OFF: [], GC_ON: []} for name in fns}
    for _ in range(rounds):
        for name, (fn, arg) in fns.items():
            times[name][GC_OFF].append(sample(fn, arg, numbers[name], GC_OFF))
            times[name][GC_ON].append(sample(fn, arg, common, GC_ON))
    return {name: {mode: statistics.median(ts) for mode, ts in modes.items()} for name, modes in times.items()}


def copy_of(doc: Any) -> Any:
    return marshal.loads(marshal.dumps(doc))


def documents() -> dict[str, tuple[Any, bytes]]:
    """Each fixture (and the small dict) as a value and as its JSON text."""
    docs = {}
    for name in FIXTURE_DOCUMENTS:
        path, generated = fixture_path(name)
        if generated:
            print(f"NOTE: {name}: shared fixture not found, using the stand-in {path}", file=sys.stderr)
        text = path.read_bytes()
        docs[name] = (json.loads(text), text)
    docs["small_dict"] = (SMALL, json.dumps(SMALL).encode())
    return docs


def msgpack_rows(docs, rounds, target_s) -> list[dict]:
    rows = []
    for name, (doc, _) in docs.items():
        packed = msgpack.packb(doc)
        assert om.packb(doc) == packed
        encoders = {"orcodec.msgpack": om.packb, "msgpack": msgpack.packb, "orcodec": orcodec.packb}
        decoders = {"orcodec.msgpack": om.unpackb, "msgpack": msgpack.unpackb, "orcodec": orcodec.unpackb}
        t = time_row({k: (f, copy_of(doc)) for k, f in encoders.items()}, rounds, target_s)
        rows.append(row(f"{name} packb", t, "orcodec.msgpack", ["msgpack"], "orcodec"))
        t = time_row({k: (f, packed) for k, f in decoders.items()}, rounds, target_s)
        rows.append(row(f"{name} unpackb", t, "orcodec.msgpack", ["msgpack"], "orcodec"))
    return rows


def unpacker_rows(rounds, target_s) -> list[dict]:
    messages = []
    for i in range(5000):
        value = {"id": i, "name": f"user{i % 97}", "ok": i % 3 == 0, "score": i * 0.5, "tags": ["a", "b"][: i % 3]}
        messages.append(msgpack.packb(value))
    stream = b"".join(messages)
    rows = []

    def fed(module, chunks):
        u = module.Unpacker()
        n = 0
        for c in chunks:
            u.feed(c)
            for _ in u:
                n += 1
        assert n == len(messages)

    def from_file(module):
        n = 0
        for _ in module.Unpacker(io.BytesIO(stream)):
            n += 1
        assert n == len(messages)

    libs = {"orcodec.msgpack": om, "msgpack": msgpack, "orcodec": orcodec}
    for size in (1, 16, 256, 4096):
        chunks = [stream[i : i + size] for i in range(0, len(stream), size)]
        t = time_row({k: (lambda c, m=m: fed(m, c), chunks) for k, m in libs.items()}, rounds, target_s)
        rows.append(row(f"Unpacker 5k msgs / {size}-byte feeds", t, "orcodec.msgpack", ["msgpack"], "orcodec"))
    t = time_row({k: (lambda _, m=m: from_file(m), None) for k, m in libs.items()}, rounds, target_s)
    rows.append(row("Unpacker 5k msgs / file_like", t, "orcodec.msgpack", ["msgpack"], "orcodec"))
    return rows


def json_rows(docs, rounds, target_s) -> list[dict]:
    peers = {"json": json, "simplejson": simplejson, "ujson": ujson, "rapidjson": rapidjson}
    rows = []
    for name, (doc, text) in docs.items():
        text = text.decode()
        assert oj.dumps(doc) == json.dumps(doc)
        libs = {"orcodec.json": oj, **peers}
        t = time_row({k: (lambda d, m=m: m.dumps(d), copy_of(doc)) for k, m in libs.items()}, rounds, target_s)
        rows.append(row(f"{name} dumps(doc)", t, "orcodec.json", list(peers)))
        t = time_row(
            {k: (lambda d, m=m: m.dumps(d, ensure_ascii=False, indent=2), copy_of(doc)) for k, m in libs.items()},
            rounds,
            target_s,
        )
        rows.append(row(f"{name} dumps(doc, ensure_ascii=False, indent=2)", t, "orcodec.json", list(peers)))
        t = time_row({k: (m.loads, text) for k, m in libs.items()}, rounds, target_s)
        rows.append(row(f"{name} loads(text)", t, "orcodec.json", list(peers)))
    return rows


def row(label: str, t: dict, ours: str, peers: list[str], floor: str | None = None) -> dict:
    out: dict[str, Any] = {"row": label}
    for mode in (GC_OFF, GC_ON):
        for name, modes in t.items():
            out[f"{name}_us_{mode}"] = modes[mode] * 1e6
        best = min(peers, key=lambda p: t[p][mode])
        out[f"best_peer_{mode}"] = best
        out[f"speedup_vs_best_peer_{mode}"] = t[best][mode] / t[ours][mode]
        if floor is not None:
            out[f"ratio_to_{floor}_{mode}"] = t[ours][mode] / t[floor][mode]
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer and shorter samples")
    p.add_argument("--json", type=Path, help="write the rows to this file")
    args = p.parse_args()
    rounds, target_s = (3, 0.01) if args.quick else (9, 0.03)
    docs = documents()
    results = {
        "msgpack": msgpack_rows(docs, rounds, target_s),
        "unpacker": unpacker_rows(rounds, target_s),
        "json": json_rows(docs, rounds, target_s),
    }
    for title, rows in results.items():
        show(title, rows)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

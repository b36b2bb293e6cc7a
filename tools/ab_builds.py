"""Two builds of the extension timed against each other in one process.

    python tools/ab_builds.py OLD.so NEW.so ROW [ROW ...] [--rounds N]

OLD.so and NEW.so are built extension modules (`_orcodec.*.so`, e.g. one
copied from python/orcodec/ before a change and one after). Both are loaded
side by side under two names, so every sample of a row runs in the same
process state: the shared machine's per-process modes (where a process's
memory lands, which core it runs on) hit both builds alike, which timing each
build in a process of its own does not. The peer of the row's format is timed
with them. ROW is DOC.OP: DOC one of the shared fixtures (twitter, github,
citm_catalog, canada), a shape below or a document of bench/documents.py
(small, dict_2000_keys, floats_10000, strings_non_ascii, str_1mb, ...), OP
dumps, loads, packb or unpackb.

DOC may end in `_escaped` for `loads`: the document as Python's `json.dumps`
writes it (every non-ASCII character escaped).

Each round times the builds and the peers (orjson or ormsgpack, and msgspec)
in shuffled order, in samples of about 5 ms with the collector off; with
`--keep N`, each sample is N calls whose results are kept, from a collected
heap and with the collector on, its young collection timed at the end (what
`bench/compare.py`'s collector-on setting measures). Printed per row: NEW/OLD
as the ratio of the minima and of the medians, and each build over the best
peer (minima).
"""

from __future__ import annotations

import argparse
import gc
import importlib.machinery
import importlib.util
import json
import os
import random
import statistics
import sys
import time
from types import ModuleType
from typing import Any, Callable

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import documents  # noqa: E402  (bench/documents.py, the benchmark's documents)

FIXTURES = os.environ.get("ORCODEC_FIXTURES", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "fixtures"))


def load(tag: str, path: str) -> ModuleType:
    """The extension at `path` as module `<tag>._orcodec` (its init function is found by that last part)."""
    name = f"{tag}._orcodec"
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def shape(name: str) -> Any:
    if name.endswith("_escaped"):
        return shape(name[: -len("_escaped")])
    rng = random.Random(5)
    shapes: dict[str, Callable[[], Any]] = {
        "ints_9_digits": lambda: [rng.randrange(10**8, 10**9) for _ in range(20_000)],
        "ints_5_digits": lambda: [rng.randrange(10**4, 10**5) for _ in range(20_000)],
        "ints_3_digits": lambda: [rng.randrange(100, 1000) for _ in range(20_000)],
        "nones": lambda: [None] * 20_000,
        "empty_lists": lambda: [[] for _ in range(20_000)],
        "records_id_int": lambda: [{"id": rng.randrange(10**8, 10**9)} for _ in range(5_000)],
    }
    if name in shapes:
        return shapes[name]()
    # The benchmark's own documents, so that a row here is the row there.
    if name == "small":
        return documents.SMALL
    for table in (documents.STRING_DOCUMENTS, {k: v[0] for k, v in documents.PARTIAL_DOCUMENTS.items()}):
        if name in table:
            return table[name]()
    with open(os.path.join(FIXTURES, name + ".json"), "rb") as f:
        return json.loads(f.read())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("rows", nargs="+")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--keep", type=int, default=0, help="calls per sample with their results kept, collector on")
    args = parser.parse_args()

    import msgspec
    import orjson
    import ormsgpack

    old, new = load("old", args.old), load("new", args.new)
    for row in args.rows:
        doc, op = row.split(".")
        obj = shape(doc)
        json_format = op in ("dumps", "loads")
        peers = {
            "orjson" if json_format else "ormsgpack": getattr(orjson if json_format else ormsgpack, op),
            "msgspec": {
                "dumps": msgspec.json.Encoder().encode,
                "loads": msgspec.json.Decoder().decode,
                "packb": msgspec.msgpack.Encoder().encode,
                "unpackb": msgspec.msgpack.Decoder().decode,
            }[op],
        }
        if op == "loads":
            arg = json.dumps(obj).encode() if doc.endswith("_escaped") else orjson.dumps(obj)
        elif op == "unpackb":
            arg = ormsgpack.packb(obj)
        else:
            arg = obj
        a, b = getattr(old, op), getattr(new, op)
        assert a(arg) == b(arg)

        def sample(f: Callable[[Any], Any], n: int, arg: Any = arg) -> float:
            if args.keep:
                gc.collect()
                start = time.perf_counter()
                kept = [f(arg) for _ in range(n)]
                gc.collect(0)
                elapsed = time.perf_counter() - start
                del kept
                return elapsed / n
            start = time.perf_counter()
            for _ in range(n):
                f(arg)
            return (time.perf_counter() - start) / n

        main_peer = next(iter(peers.values()))
        n = args.keep or max(1, int(0.005 / sample(main_peer, 3)))
        contenders = {"old": a, "new": b, **peers}
        times: dict[str, list[float]] = {k: [] for k in contenders}
        if args.keep:
            gc.freeze()
        else:
            gc.disable()
        for _ in range(args.rounds):
            order = list(contenders.items())
            random.shuffle(order)
            for key, f in order:
                times[key].append(sample(f, n))
        gc.enable()
        gc.unfreeze()
        best = {k: min(v) for k, v in times.items()}
        median = {k: statistics.median(v) for k, v in times.items()}
        peer = min(peers, key=lambda k: best[k])
        print(
            f"{row:28} new/old {best['new'] / best['old']:.3f} (medians {median['new'] / median['old']:.3f})"
            f" | old/{peer} {best['old'] / best[peer]:.3f} new/{peer} {best['new'] / best[peer]:.3f}"
            f" | old {best['old'] * 1e6:.2f} us, new {best['new'] * 1e6:.2f} us"
        )


if __name__ == "__main__":
    main()

"""numpy round trips: serialize then deserialize, orcodec against the other ways to ship arrays.

    python bench/numpy_roundtrip.py [--quick] [--rows ROW ...] [--json PATH]

Each cell is one round trip (encode, then decode back to numpy arrays) of the row's
object, timed as bench/compare.py times a call: round-robin per row (a fresh order each
round), samples of a calibrated number of calls with the cyclic GC off, the median per
round trip across rounds. Before timing, each way's result is checked to be the
original, bit for bit (dtype and shape too).

Ways:
  orcodec          packb/unpackb with OPT_NUMPY_EXT (one allocation and one copy back)
  orcodec-0copy    the same with OPT_NUMPY_ZERO_COPY (read-only arrays over the bytes)
  pickle5          pickle.dumps(obj, protocol=5) / pickle.loads
  np.save          np.save / np.load through io.BytesIO (single arrays only)
  msgpack-numpy    msgpack.packb(default=msgpack_numpy.encode) / unpackb(object_hook=decode)
  nested-lists     orcodec with OPT_SERIALIZE_NUMPY (arrays as nested lists) then np.array();
                   timed after the others (its millions of objects disturb the allocator)
Floors (unranked):
  memcpy           one copy of the data bytes into a buffer allocated beforehand
  2 copies         a.copy().copy(): two copies into fresh buffers, the least a copying
                   round trip does (numpy's buffers, faulted in with huge pages)

A second table times JSON text (the nested lists OPT_SERIALIZE_NUMPY writes) read back
into an array, for the single-array rows:
  orcodec typed      loads(text, type=NDArray[dtype]) (a Decoder): numbers parsed into the
                     array's buffer, no Python object per element
  np.array(orjson)   np.array(orjson.loads(text), dtype=dtype), what users do today
  np.array(orcodec)  the same with orcodec's untyped loads
  ratio              np.array(orjson) / orcodec typed (goal >= 3.00)

A third table is the 1000x100 float64 round trip in a fresh process, orcodec
(OPT_NUMPY_EXT) against pickle protocol 5: the tables above time a long-running,
warmed process, where the allocator may keep the 0.8 MB blocks of one round trip
for the next; a process that ships one array (a worker, a CLI) gets fresh pages
each time. Each sample is a new interpreter that imports numpy and orcodec, does
one round trip of a 2x2 array (so the one-time setup of either way, such as a
type lookup, is not in the sample), makes the array, then times one round trip
(encode and decode apart) and a second one, checks the result bit for bit and
prints its timings; the ways alternate in a shuffled order each round, and the
medians over the processes are reported beside the warmed-process figures of the
first table.
"""

from __future__ import annotations

import argparse
import io
import json
import pickle
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare import FULL, QUICK, Settings, calibrate, fmt_us, import_orcodec, machine_info, sample  # noqa: E402

WAYS = ("orcodec", "orcodec-0copy", "pickle5", "np.save", "msgpack-numpy", "nested-lists")
FLOORS = ("memcpy", "2 copies")


def rows() -> dict[str, Any]:
    rng = np.random.default_rng(18)
    return {
        "float64_1000x100": rng.standard_normal((1000, 100)),
        "int32_1000x100": rng.integers(-(2**31), 2**31, size=(1000, 100), dtype=np.int32),
        "float32_1e7": rng.standard_normal(10**7, dtype=np.float32),
        "small_1000_in_dicts": [{"id": i, "v": rng.standard_normal(3)} for i in range(1000)],
    }


def arrays_of(obj: Any) -> list[np.ndarray]:
    if isinstance(obj, np.ndarray):
        return [obj]
    return [d["v"] for d in obj]


def same(got: Any, want: Any) -> bool:
    got_arrays, want_arrays = arrays_of(got), arrays_of(want)
    return len(got_arrays) == len(want_arrays) and all(
        isinstance(g, np.ndarray) and g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes()
        for g, w in zip(got_arrays, want_arrays)
    )


class NotApplicable(Exception):
    pass


def way(name: str, obj: Any, orcodec: Any) -> Callable[[Any], Any]:
    """The round trip of `name` as a function of the object."""
    ext = orcodec.OPT_NUMPY_EXT
    single = isinstance(obj, np.ndarray)
    if name == "orcodec":
        return lambda o: orcodec.unpackb(orcodec.packb(o, option=ext), option=ext)
    if name == "orcodec-0copy":
        zero = ext | orcodec.OPT_NUMPY_ZERO_COPY
        return lambda o: orcodec.unpackb(orcodec.packb(o, option=ext), option=zero)
    if name == "pickle5":
        return lambda o: pickle.loads(pickle.dumps(o, protocol=5))
    if name == "np.save":
        if not single:
            raise NotApplicable("np.save stores one array, not a document")

        def np_save(o):
            buffer = io.BytesIO()
            np.save(buffer, o, allow_pickle=False)
            buffer.seek(0)
            return np.load(buffer, allow_pickle=False)

        return np_save
    if name == "msgpack-numpy":
        import msgpack
        import msgpack_numpy

        encode, decode = msgpack_numpy.encode, msgpack_numpy.decode
        return lambda o: msgpack.unpackb(msgpack.packb(o, default=encode), object_hook=decode)
    if name == "nested-lists":
        option = orcodec.OPT_SERIALIZE_NUMPY
        if single:
            dtype = obj.dtype
            return lambda o: np.array(orcodec.unpackb(orcodec.packb(o, option=option)), dtype=dtype)
        return lambda o: [
            {**d, "v": np.array(d["v"], dtype=np.float64)} for d in orcodec.unpackb(orcodec.packb(o, option=option))
        ]
    if name == "memcpy":
        sources = [a.reshape(-1).view(np.uint8) for a in arrays_of(obj)]
        targets = [np.empty_like(s) for s in sources]
        for t in targets:
            t.fill(0)  # fault the pages in before timing

        def memcpy(o):
            for s, t in zip(sources, targets):
                np.copyto(t, s)

        return memcpy
    if name == "2 copies":
        return lambda o: [a.copy().copy() for a in arrays_of(o)]
    raise ValueError(name)


def measure(row: str, obj: Any, orcodec: Any, settings: Settings, ways: tuple[str, ...]) -> dict[str, Any]:
    cells: dict[str, Any] = {}
    for name in ways:
        try:
            fn = way(name, obj, orcodec)
        except NotApplicable as exc:
            cells[name] = {"status": "n/a", "reason": str(exc)}
            continue
        except ImportError as exc:
            cells[name] = {"status": "missing", "reason": str(exc)}
            continue
        if name in WAYS and not same(fn(obj), obj):
            cells[name] = {"status": "differs", "reason": "the round trip did not give the arrays back"}
            continue
        cells[name] = {"fn": fn, "per_call_s": []}
    timed = [name for name, cell in cells.items() if "fn" in cell]
    # The nested-list way makes and frees a Python object per element: the
    # allocator state it leaves behind (fragmented heap, memory to compact
    # before huge pages can be had) slowed whatever ran next by up to 15x.
    # It is timed in a phase of its own, after the others.
    for group in ([n for n in timed if n != "nested-lists"], [n for n in timed if n == "nested-lists"]):
        if group:
            rounds(row, obj, cells, group, settings)
    for cell in cells.values():
        fn = cell.pop("fn", None)
        if fn is not None:
            cell["median_s"] = statistics.median(cell["per_call_s"])
    return cells


JSON_WAYS = ("orcodec typed", "np.array(orjson)", "np.array(orcodec)")


def json_way(name: str, array: np.ndarray, orcodec: Any) -> Callable[[Any], Any]:
    """Reading JSON text back into an array like `array`, as a function of the text."""
    dtype = array.dtype
    if name == "orcodec typed":
        from numpy.typing import NDArray

        return orcodec.Decoder(NDArray[dtype.type]).loads
    if name == "np.array(orjson)":
        import orjson

        return lambda text: np.array(orjson.loads(text), dtype=dtype)
    if name == "np.array(orcodec)":
        return lambda text: np.array(orcodec.loads(text), dtype=dtype)
    raise ValueError(name)


def measure_json(row: str, array: np.ndarray, orcodec: Any, settings: Settings) -> dict[str, Any]:
    text = orcodec.dumps(array, option=orcodec.OPT_SERIALIZE_NUMPY)
    cells: dict[str, Any] = {}
    for name in JSON_WAYS:
        try:
            fn = json_way(name, array, orcodec)
        except ImportError as exc:
            cells[name] = {"status": "missing", "reason": str(exc)}
            continue
        if not same(fn(text), array):
            cells[name] = {"status": "differs", "reason": "did not give the array back"}
            continue
        cells[name] = {"fn": fn, "per_call_s": []}
    timed = [name for name, cell in cells.items() if "fn" in cell]
    # The ways that make a Python object per element go last (see measure).
    for group in ([n for n in timed if n == "orcodec typed"], [n for n in timed if n != "orcodec typed"]):
        if group:
            rounds(row, text, cells, group, settings)
    for cell in cells.values():
        fn = cell.pop("fn", None)
        if fn is not None:
            cell["median_s"] = statistics.median(cell["per_call_s"])
    cells["text_bytes"] = len(text)
    return cells


def print_json_report(results: dict[str, dict[str, Any]]) -> None:
    head = ["row", "text MB", *JSON_WAYS, "ratio"]
    body = [
        [
            row,
            f"{cells['text_bytes'] / 1e6:.1f}",
            *(text(cells.get(name)) for name in JSON_WAYS),
            ratio(cells, "np.array(orjson)", "orcodec typed"),
        ]
        for row, cells in results.items()
    ]
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]
    print("\nJSON text into arrays (median µs per decode; ratio: np.array(orjson) / orcodec typed, goal >= 3.00)")
    for line in [head, *body]:
        print("  ".join([line[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(line[1:], widths[1:]))]))


def rounds(row: str, obj: Any, cells: dict[str, Any], timed: list[str], settings: Settings) -> None:
    """compare.py's method: calibrated samples, round-robin in a fresh order each round."""
    for name in timed:
        cells[name]["iterations"] = calibrate(cells[name]["fn"], obj, settings.target_sample_s)
    order = random.Random(row)
    deadline = time.perf_counter() + settings.row_budget_s
    for r in range(settings.max_rounds):
        if r >= settings.min_rounds and time.perf_counter() > deadline:
            break
        order.shuffle(timed)
        for name in timed:
            cell = cells[name]
            cell["per_call_s"].append(sample(cell["fn"], obj, cell["iterations"]) / cell["iterations"])


def text(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "-"
    return fmt_us(cell["median_s"]) if "median_s" in cell else cell["status"]


def ratio(cells: dict[str, Any], name: str, versus: str) -> str:
    a, b = cells.get(name, {}).get("median_s"), cells.get(versus, {}).get("median_s")
    return f"{a / b:.2f}" if a and b else "n/a"


def print_report(results: dict[str, dict[str, Any]], nbytes: dict[str, int]) -> None:
    head = ["row", "MB", *WAYS, *FLOORS, "vs pickle5", "vs memcpy", "vs 2 copies"]
    body = []
    for row, cells in results.items():
        body.append(
            [
                row,
                f"{nbytes[row] / 1e6:.1f}",
                *(text(cells.get(name)) for name in WAYS + FLOORS),
                ratio(cells, "orcodec", "pickle5"),
                ratio(cells, "orcodec", "memcpy"),
                ratio(cells, "orcodec", "2 copies"),
            ]
        )
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]
    print("\nnumpy round trips (median µs per encode + decode; ratios are orcodec's, < 1.00 means orcodec is faster)")
    for line in [head, *body]:
        print("  ".join([line[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(line[1:], widths[1:]))]))
    print(
        "\norcodec-0copy: OPT_NUMPY_ZERO_COPY, read-only arrays over the packed bytes; memcpy: one copy into a"
        "\nbuffer allocated beforehand; 2 copies: a.copy().copy(), two copies into fresh buffers."
    )
    for row, cells in results.items():
        for name, cell in cells.items():
            if "reason" in cell:
                print(f"  {row} {name}: {cell['status']}: {cell['reason']}")


FRESH_WAYS = ("orcodec", "pickle5")
FRESH_ROW = "float64_1000x100"
# Processes per way: a sample each.
FRESH_SAMPLES = {"quick": 5, "full": 21}

FRESH_CHILD = r"""
import pickle, sys, time
import numpy as np
import orcodec

way = sys.argv[1]
if way == "orcodec":
    ext = orcodec.OPT_NUMPY_EXT
    encode = lambda a: orcodec.packb(a, option=ext)
    decode = lambda b: orcodec.unpackb(b, option=ext)
else:
    encode = lambda a: pickle.dumps(a, protocol=5)
    decode = pickle.loads
warm = np.arange(4.0).reshape(2, 2)
assert decode(encode(warm)).tobytes() == warm.tobytes()
array = np.random.default_rng(18).standard_normal((1000, 100))
times = []
for _ in range(2):
    t0 = time.perf_counter()
    data = encode(array)
    t1 = time.perf_counter()
    back = decode(data)
    t2 = time.perf_counter()
    if not (back.dtype == array.dtype and back.shape == array.shape and back.tobytes() == array.tobytes()):
        sys.exit("the round trip did not give the array back")
    times += [t1 - t0, t2 - t1]
    del data, back
print(*times)
"""


def fresh_process_samples(samples: int) -> dict[str, dict[str, Any]]:
    """The float64 round trip of each fresh-process way, one new interpreter per sample."""
    cells: dict[str, dict[str, Any]] = {
        way: {"first": [], "encode": [], "decode": [], "second": []} for way in FRESH_WAYS
    }
    order = random.Random(FRESH_ROW)
    ways = list(FRESH_WAYS)
    for _ in range(samples):
        order.shuffle(ways)
        for way in ways:
            cell = cells[way]
            if "error" in cell:
                continue
            proc = subprocess.run([sys.executable, "-c", FRESH_CHILD, way], capture_output=True, text=True)
            if proc.returncode != 0:
                cell["error"] = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1][:200]
                continue
            encode, decode, encode2, decode2 = map(float, proc.stdout.split())
            cell["encode"].append(encode)
            cell["decode"].append(decode)
            cell["first"].append(encode + decode)
            cell["second"].append(encode2 + decode2)
    for cell in cells.values():
        if "error" not in cell:
            cell["median_s"] = {key: statistics.median(cell[key]) for key in ("first", "encode", "decode", "second")}
    return cells


def print_fresh_report(fresh: dict[str, dict[str, Any]], warm: dict[str, Any] | None, samples: int) -> None:
    print(
        f"\n1000x100 float64 round trip, warmed process and fresh process (median µs; fresh: {samples} processes"
        " a way, the first round trip after a 2x2 warm-up, and the second)"
    )
    head = ["way", "warmed process", "fresh: round trip", "encode", "decode", "2nd round trip"]
    body = []
    for way in FRESH_WAYS:
        cell = fresh[way]
        warmed = text(warm.get(way)) if warm else "-"
        if "error" in cell:
            body.append([way, warmed, "error: " + cell["error"], "", "", ""])
            continue
        m = cell["median_s"]
        body.append([way, warmed, *(fmt_us(m[key]) for key in ("first", "encode", "decode", "second"))])
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]
    for line in [head, *body]:
        print("  ".join([line[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(line[1:], widths[1:]))]))
    ours, theirs = (fresh[w].get("median_s", {}).get("first") for w in FRESH_WAYS)
    if ours and theirs:
        print(f"fresh process: orcodec / pickle5 {ours / theirs:.2f}", end="")
        if warm:
            print(f"; warmed process: {ratio(warm, 'orcodec', 'pickle5')}", end="")
        print()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="numpy round trips: orcodec against pickle, np.save, msgpack-numpy.")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter samples (a smoke run)")
    parser.add_argument("--rows", nargs="*", help="row names to run (default: all)")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--ways", nargs="*", choices=WAYS + FLOORS, help="ways to time (default: all)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    orcodec = import_orcodec()
    settings = QUICK if args.quick else FULL
    objects = {name: obj for name, obj in rows().items() if not args.rows or name in args.rows}
    ways = tuple(args.ways or WAYS + FLOORS)
    if "orcodec" not in ways:
        sys.exit("numpy_roundtrip.py: the orcodec way is always timed")
    results = {row: measure(row, obj, orcodec, settings, ways) for row, obj in objects.items()}
    nbytes = {row: sum(a.nbytes for a in arrays_of(obj)) for row, obj in objects.items()}
    versions = {"orcodec": orcodec.__version__, "numpy": np.__version__}
    info = machine_info(versions, settings, args.quick)
    print(f"python {info['python']}\nmachine {info['platform']} | {info['cpu_count']} CPUs | {info['cpu']}")
    print_report(results, nbytes)
    singles = {row: obj for row, obj in objects.items() if isinstance(obj, np.ndarray) and obj.size <= 10**6}
    json_results = {row: measure_json(row, obj, orcodec, settings) for row, obj in singles.items()}
    if json_results:
        print_json_report(json_results)
    fresh = None
    if not args.rows or FRESH_ROW in args.rows:
        samples = FRESH_SAMPLES["quick" if args.quick else "full"]
        fresh = fresh_process_samples(samples)
        print_fresh_report(fresh, results.get(FRESH_ROW), samples)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        report = {"machine": info, "nbytes": nbytes, "rows": results, "json_rows": json_results, "fresh_process": fresh}
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    failed = [row for row, cells in results.items() if "median_s" not in cells["orcodec"]]
    if fresh and "error" in fresh["orcodec"]:
        failed.append(f"{FRESH_ROW} in a fresh process")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Using more than one core from one process: the same work done by one
worker, then split between two running at once.

Rows, per fixture (twitter, github, citm_catalog, canada):

* ``subinterpreters``: ``dumps`` + ``loads`` (``json``) or ``packb`` +
  ``unpackb`` (``msgpack``) in 1 isolated interpreter, against 2 isolated
  interpreters (each with its own GIL, CPython 3.12 and newer) in 2 threads;
* ``transcode threads``: ``json_to_msgpack`` / ``msgpack_to_json`` (which
  release the GIL) in 1 thread against 2 threads of one interpreter;
* references: the round trips in 2 threads of one interpreter (the GIL
  serializes them), and a ``multiprocessing`` pool of 2 processes that
  receives each document and returns each result by pickling, as a pool
  must.

The speed-up is the one-worker time over the two-worker time for the same
total work: 2.00 is perfect on two cores. Each worker makes its own copy of
the document (its own `str` objects), so no worker reads another's caches.

    python bench/parallel.py [--quick] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import documents  # noqa: E402

FIXTURES = documents.FIXTURE_DOCUMENTS


def interpreters_module():
    if sys.version_info < (3, 12):
        return None
    try:
        import _interpreters as interp
    except ImportError:
        import _xxsubinterpreters as interp
    return interp


def new_isolated(interp):
    if sys.version_info >= (3, 13):
        return interp.create("isolated")
    return interp.create(isolated=True)


def run_in(interp, iid, code):
    failure = interp.run_string(iid, code)
    if failure is not None:
        raise RuntimeError(failure.formatted)


def load_code(path: str) -> str:
    """What a worker runs once, untimed: orcodec imported, its own copy of the document."""
    return f"import json, orcodec\ndoc = json.loads(open({path!r}, 'rb').read())\n"


def round_trip_code(fmt: str, rounds: int) -> str:
    """What a worker runs, timed: `rounds` round trips of its document."""
    enc, dec = ("dumps", "loads") if fmt == "json" else ("packb", "unpackb")
    return f"for _ in range({rounds}):\n    orcodec.{dec}(orcodec.{enc}(doc))\n"


def timed(workers):
    """Wall time for running every function of `workers` at once, one thread each."""
    threads = [threading.Thread(target=w) for w in workers]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start


def best_of(repeats, measure):
    return min(measure() for _ in range(repeats))


def subinterpreter_row(interp, path, fmt, rounds, repeats):
    # Interpreters made and warmed (orcodec imported, the document loaded)
    # before timing: what an interpreter pool keeps between tasks.
    pool = [new_isolated(interp) for _ in range(2)]
    try:
        for iid in pool:
            run_in(interp, iid, load_code(path) + round_trip_code(fmt, 1))
        one = best_of(repeats, lambda: timed([lambda: run_in(interp, pool[0], round_trip_code(fmt, 2 * rounds))]))
        two = best_of(
            repeats,
            lambda: timed([lambda iid=iid: run_in(interp, iid, round_trip_code(fmt, rounds)) for iid in pool]),
        )
    finally:
        for iid in pool:
            interp.destroy(iid)
    return one, two


def thread_row(work, rounds, repeats):
    one = best_of(repeats, lambda: timed([lambda: work(2 * rounds)]))
    two = best_of(repeats, lambda: timed([lambda: work(rounds), lambda: work(rounds)]))
    return one, two


def pool_task(args):
    raw, fmt = args
    import orcodec

    doc = json.loads(raw)
    if fmt == "json":
        return orcodec.loads(orcodec.dumps(doc))
    return orcodec.unpackb(orcodec.packb(doc))


def process_row(raw, fmt, rounds, repeats):
    ctx = multiprocessing.get_context("spawn" if sys.platform != "linux" else "fork")
    with ctx.Pool(2) as pool:
        pool.map(pool_task, [(raw, fmt)] * 2)  # started and warmed
        # The document goes to a worker, the result comes back: pickled
        # both ways, as work handed to a pool is.
        one = best_of(repeats, lambda: timed([lambda: [pool_task((raw, fmt)) for _ in range(2 * rounds)]]))
        two = best_of(repeats, lambda: _timed_pool(pool, raw, fmt, 2 * rounds))
    return one, two


def _timed_pool(pool, raw, fmt, n):
    start = time.perf_counter()
    pool.map(pool_task, [(raw, fmt)] * n, chunksize=1)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short samples (a smoke run)")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args()
    import orcodec

    interp = interpreters_module()
    repeats = 2 if args.quick else 5
    rows = []
    print("orcodec parallel benchmark: one worker against two, the same total work (speed-up: 2.00 is perfect)")
    print(f"python    {sys.version.split()[0]} ({sys.implementation.name}), {os.cpu_count()} CPUs")
    print(f"versions  orcodec {orcodec.__version__}")
    if interp is None:
        print("          subinterpreters with their own GIL need CPython 3.12 or newer: those rows are left out")
    print()
    print(f"{'row':<44}{'1 worker':>12}{'2 workers':>12}{'speed-up':>10}")
    for name in FIXTURES:
        path, generated = documents.fixture_path(name)
        raw = path.read_bytes()
        doc = json.loads(raw)
        size = len(raw)
        # About 0.1 s of work or more for one worker: shorter samples are
        # dominated by waking the second worker's thread on the other core.
        rounds = max(2, int((2e6 if args.quick else 5e7) // size))
        suffix = " (stand-in)" if generated else ""
        msgpack_bytes = orcodec.packb(doc)

        def add(label, one, two):
            rows.append({"row": label, "one_s": one, "two_s": two, "speedup": one / two})
            print(f"{label:<44}{one * 1e3:>10.1f}ms{two * 1e3:>10.1f}ms{one / two:>10.2f}")

        for fmt in ("json", "msgpack"):
            if interp is not None:
                add(
                    f"{name}.{fmt} subinterpreters{suffix}",
                    *subinterpreter_row(interp, str(path), fmt, rounds, repeats),
                )
        for label, fn, arg in (
            ("json_to_msgpack", orcodec.json_to_msgpack, raw),
            ("msgpack_to_json", orcodec.msgpack_to_json, msgpack_bytes),
        ):

            def work(n, fn=fn, arg=arg):
                for _ in range(n):
                    fn(arg)

            add(f"{name}.{label} threads{suffix}", *thread_row(work, rounds * 3, repeats))
        for fmt in ("json", "msgpack"):
            enc, dec = (orcodec.dumps, orcodec.loads) if fmt == "json" else (orcodec.packb, orcodec.unpackb)
            own = json.loads(raw)

            def work(n, own=own, enc=enc, dec=dec):
                for _ in range(n):
                    dec(enc(own))

            add(f"{name}.{fmt} threads, one interpreter{suffix}", *thread_row(work, rounds, repeats))
            add(f"{name}.{fmt} multiprocessing pool{suffix}", *process_row(raw, fmt, rounds, repeats))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"python": sys.version, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()

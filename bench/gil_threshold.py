"""Where releasing the GIL starts to pay: `json_to_msgpack` and `msgpack_to_json`
of documents from 2 KiB to 256 KiB, with the GIL always released and never.

Per size and direction:

* ``cost``: one thread, the time of a call with the GIL released over the time
  with it held (what releasing and taking it back adds when nobody waits);
* ``2 threads``: the same total work in two threads against one, with the GIL
  released (the speed-up the release buys; 2.00 is perfect on two cores), and,
  for reference, with it held.

The threshold (`GIL_FREE_FROM` in the extension's state) should be the smallest
size whose cost is within noise (about 1.02) and whose speed-up is well above 1.

    python bench/gil_threshold.py [--quick] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time

import orcodec
from orcodec._orcodec import _gil_free_from

NEVER = 1 << 62
SIZES_KIB = (2, 4, 8, 16, 32, 64, 128, 256)


def document(kib: int) -> bytes:
    """A JSON array of small records, about `kib` KiB."""
    records, text = [], b"[]"
    i = 0
    while len(text) < kib * 1024:
        records.append({"id": i, "name": f"item {i}", "tags": ["a", "b"], "price": i * 1.25, "ok": i % 2 == 0})
        i += 1
        if i % 16 == 0:
            text = orcodec.dumps(records)
    return orcodec.dumps(records)


def per_call(call, data, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        call(data)
    return (time.perf_counter() - start) / calls


def in_threads(call, data, calls: int, threads: int) -> float:
    """Seconds for `threads` threads doing `calls // threads` calls each."""
    share = calls // threads
    barrier = threading.Barrier(threads + 1)

    def work():
        barrier.wait()
        for _ in range(share):
            call(data)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for w in workers:
        w.start()
    barrier.wait()
    start = time.perf_counter()
    for w in workers:
        w.join()
    return time.perf_counter() - start


def measure(call, data, rounds: int) -> dict:
    # About 100 ms of work per sample: shorter ones are dominated by waking
    # the second thread on the other core.
    _gil_free_from(NEVER)
    one = per_call(call, data, 20)
    calls = max(2, int(0.1 / one)) // 2 * 2
    cost, speedup, held = [], [], []
    for _ in range(rounds):
        _gil_free_from(NEVER)
        t_held = per_call(call, data, calls)
        held_two = in_threads(call, data, calls, 2)
        _gil_free_from(0)
        t_free = per_call(call, data, calls)
        free_two = in_threads(call, data, calls, 2)
        cost.append(t_free / t_held)
        speedup.append(t_free * calls / free_two)
        held.append(t_held * calls / held_two)
    return {
        "cost": statistics.median(cost),
        "speedup_released": statistics.median(speedup),
        "speedup_held": statistics.median(held),
        "call_us": one * 1e6,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    rounds = 3 if args.quick else 9
    was = _gil_free_from(None)
    rows = []
    try:
        for kib in SIZES_KIB:
            text = document(kib)
            packed = orcodec.json_to_msgpack(text)
            for name, call, data in (
                ("json_to_msgpack", orcodec.json_to_msgpack, text),
                ("msgpack_to_json", orcodec.msgpack_to_json, packed),
            ):
                rows.append({"kib": kib, "direction": name, **measure(call, data, rounds)})
    finally:
        _gil_free_from(was)
    print(f"GIL released against held, {rounds} rounds, medians (threshold today: {was >> 10} KiB)")
    print(f"{'size':>8} {'direction':<16} {'call µs':>8} {'cost':>6} {'2 threads':>10} {'(held)':>7}")
    for r in rows:
        print(
            f"{r['kib']:>5} KiB {r['direction']:<16} {r['call_us']:>8.1f} {r['cost']:>6.3f}"
            f" {r['speedup_released']:>10.2f} {r['speedup_held']:>7.2f}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threshold": was, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

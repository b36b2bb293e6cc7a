"""orcodec on each CPU path this machine can take: fresh-object dumps and packb.

orcodec picks its str transcoders at run time (AVX-512 VBMI2, AVX2 blocks with
AVX-512 BW tails, AVX2 blocks, SSSE3 steps), so one machine times only its widest
path. ``ORCODEC_DISABLE_CPU_FEATURES`` turns features off per process: this script
starts one child per path and has them take turns, a sample each per round, so all
paths see the same machine load; it reports each path's median per call and its
ratio to the widest path.

    python bench/cpu_paths.py [--rounds N] [--rows twitter.dumps strings_ucs2.packb ...]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# Each path, as the features turned off to reach it (widest first).
PATHS = {
    "avx512vbmi2": "",
    "avx512bw": "avx512vbmi2",
    "avx2": "avx512vbmi2,avx512bw",
    "ssse3": "avx512vbmi2,avx512bw,avx2",
}
DOCUMENTS = ("twitter", "github", "citm_catalog", "canada", "strings_non_ascii", "strings_ucs2", "strings_latin1")
DEFAULT_ROWS = [f"{doc}.{op}" for doc in DOCUMENTS for op in ("dumps", "packb")]
COPIES = 20


def child() -> None:
    """Reads a row per line from stdin, answers the median µs per call of one sample."""
    import msgpack
    import orcodec
    from documents import load_document

    docs: dict = {}
    for line in sys.stdin:
        name, op = line.split()
        if name not in docs:
            docs[name] = load_document(name, msgpack)
        doc = docs[name]
        encode = getattr(orcodec, op)
        copies = [doc.fresh_value() for _ in range(COPIES)]
        gc.disable()
        times = []
        for value in copies:
            start = time.perf_counter()
            encode(value)
            times.append(time.perf_counter() - start)
        gc.enable()
        print(json.dumps(statistics.median(times) * 1e6), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--rows", nargs="+", default=DEFAULT_ROWS)
    args = parser.parse_args()
    children = {}
    for path, disabled in PATHS.items():
        env = dict(os.environ, ORCODEC_DISABLE_CPU_FEATURES=disabled)
        children[path] = subprocess.Popen(
            [sys.executable, __file__, "--child"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
    print(f"{'row':28}" + "".join(f"{p:>14}" for p in PATHS) + "   (median µs per call; ratio to the first)")
    for row in args.rows:
        name, op = row.split(".")
        samples: dict[str, list[float]] = {p: [] for p in PATHS}
        for _ in range(args.rounds):
            for path, proc in children.items():
                proc.stdin.write(f"{name} {op}\n")
                proc.stdin.flush()
                samples[path].append(json.loads(proc.stdout.readline()))
        medians = {p: statistics.median(s) for p, s in samples.items()}
        first = medians[next(iter(PATHS))]
        cells = "".join(f"{m:8.1f} {m / first:4.2f}" for m in medians.values())
        print(f"{row:28}{cells}", flush=True)
    for proc in children.values():
        proc.stdin.close()
        proc.wait()


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        child()
    else:
        main()

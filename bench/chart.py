"""Draw the benchmark's results as a PNG: orcodec's time relative to the best peer per row.

    python bench/chart.py [--json bench/results/latest.json] [--out bench/results/benchmark.png]

One horizontal bar per row, grouped by operation; the bar is orcodec's median
divided by the best peer's (below 1.0 orcodec is faster), labelled with the
ratio and the best peer. Rows where orcodec could not run are listed as n/a.

The chart goes under bench/results/ (not tracked), so a benchmark run leaves
the tree unchanged; `make publish-chart` copies it to doc/benchmark.png, the
chart README.md shows.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = REPO_ROOT / "bench" / "results" / "latest.json"
DEFAULT_OUT = REPO_ROOT / "bench" / "results" / "benchmark.png"
OPERATIONS = ("dumps", "loads", "packb", "unpackb")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(
            "chart.py: matplotlib is not installed (pip install -r bench/requirements.txt); no chart drawn",
            file=sys.stderr,
        )
        return 0

    results = json.loads(args.json.read_text(encoding="utf-8"))
    meta = results["meta"]
    ops = [op for op in OPERATIONS if any(r["operation"] == op for r in results["rows"])]
    ncols = 2 if len(ops) > 1 else 1
    nrows = -(-len(ops) // ncols)
    most = max(sum(r["operation"] == op for r in results["rows"]) for op in ops)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.4 * ncols, nrows * (0.3 * most + 1.2) + 0.6), squeeze=False)
    for ax in axes.flat[len(ops) :]:
        ax.set_visible(False)
    for ax, op in zip(axes.flat, ops):
        rows = [r for r in results["rows"] if r["operation"] == op]
        labels, values, colors, notes = [], [], [], []
        for r in rows:
            labels.append(r["document"] + ("*" if r["generated"] else ""))
            ratio = r["ratio"]
            values.append(ratio or 0.0)
            colors.append("#bbbbbb" if ratio is None else ("#2a9d55" if ratio <= 1.0 else "#d1495b"))
            notes.append("n/a" if ratio is None else f"{ratio:.2f} vs {r['best_peer']}")
        y = range(len(rows))
        ax.barh(y, values, color=colors)
        ax.set_yticks(list(y), labels, fontsize=8)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=0.8)
        top = max([v for v in values if v] + [1.0]) * 1.45
        ax.set_xlim(0, top)
        for i, (v, note) in enumerate(zip(values, notes)):
            ax.text(v + top * 0.01, i, note, va="center", fontsize=7)
        ax.set_title(op, fontsize=10)
        ax.set_xlabel("orcodec time / best peer (< 1: faster)", fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
    fig.suptitle(
        f"orcodec {meta['versions'].get('orcodec', '')} vs the best peer per row "
        f"({meta['mode']} run, {meta['timestamp'][:10]}, {meta['cpu_count']} CPUs, Python {meta['python'].split()[0]})",
        fontsize=10,
    )
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"chart written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

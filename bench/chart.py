"""Draw the benchmark's results as a PNG: orcodec's time relative to the best peer per row.

    python bench/chart.py [--json bench/results/latest.json] [--out bench/results/benchmark.png]

Two horizontal bars per row, grouped by operation, one per collector setting
(disabled; enabled with the results kept alive): orcodec's median divided by
the best peer's in that setting (below 1.0 orcodec is faster), labelled with
the ratio and the best peer. Rows where orcodec could not run are listed as n/a.
The fresh-object rows (`dumps_fresh`, `packb_fresh`: each object dumped once)
have panels of their own; the ranked peers of each format are named under the
title (ssrjson and ssrjson-nocache are ssrJSON with its UTF-8 cache writing
on and off).

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
OPERATIONS = ("dumps", "loads", "packb", "unpackb", "dumps_fresh", "packb_fresh")
TITLES = {"dumps_fresh": "dumps, fresh objects", "packb_fresh": "packb, fresh objects"}


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
    # Results from before both settings were timed have the collector-off figures only.
    modes = list(results.get("modes", {"gc_off": "collector disabled"}))
    shades = {"gc_off": ("#2a9d55", "#d1495b"), "gc_on_kept": ("#8fd1a8", "#eb9aa5")}
    bar = 0.8 / len(modes)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(6.4 * ncols, nrows * (0.3 * len(modes) * most + 1.2) + 0.6), squeeze=False
    )
    for ax in axes.flat[len(ops) :]:
        ax.set_visible(False)
    for ax, op in zip(axes.flat, ops):
        rows = [r for r in results["rows"] if r["operation"] == op]
        labels = [r["document"] + ("*" if r["generated"] else "") for r in rows]
        bars = []  # (y, value, colour, note)
        for m, mode in enumerate(modes):
            for i, r in enumerate(rows):
                setting = r.get("settings", {}).get(mode, r)
                ratio = setting["ratio"]
                good, bad = shades.get(mode, shades["gc_off"])
                colour = "#bbbbbb" if ratio is None else (good if ratio <= 1.0 else bad)
                note = "n/a" if ratio is None else f"{ratio:.2f} vs {setting['best_peer']}"
                bars.append((i + (m - (len(modes) - 1) / 2) * bar, ratio or 0.0, colour, note))
        ax.barh([b[0] for b in bars], [b[1] for b in bars], height=bar, color=[b[2] for b in bars])
        ax.set_yticks(list(range(len(rows))), labels, fontsize=8)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=0.8)
        top = max([b[1] for b in bars if b[1]] + [1.0]) * 1.45
        ax.set_xlim(0, top)
        for y, v, _, note in bars:
            ax.text(v + top * 0.01, y, note, va="center", fontsize=6)
        ax.set_title(TITLES.get(op, op), fontsize=10)
        ax.set_xlabel("orcodec time / best peer (< 1: faster)", fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
    # Results from before the peers were listed have none.
    peers = "; ".join(f"{family}: {', '.join(names)}" for family, names in results.get("peers", {}).items())
    fig.suptitle(
        f"orcodec {meta['versions'].get('orcodec', '')} vs the best peer per row"
        f"{' (dark: collector off; light: on, results kept)' if len(modes) > 1 else ''}\n"
        f"({meta['mode']} run, {meta['timestamp'][:10]}, {meta['cpu_count']} CPUs, Python {meta['python'].split()[0]})"
        + (f"\npeers ranked: {peers}" if peers else ""),
        fontsize=10,
    )
    # Leave the title half an inch a line of its own above the panels.
    lines = 3 if peers else 2
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.25 * lines / fig.get_figheight()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"chart written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

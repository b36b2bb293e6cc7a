"""Peak memory of decoding and encoding a large document, each in a fresh process.

    python bench/memory.py [--mb 50] [--json PATH]

The document (at least --mb MB of JSON) is a list of the fixtures' records
repeated: twitter statuses, github events, citm_catalog events and canada
features.  It is written once as JSON and as MessagePack to a temporary
directory; then for each library and operation a fresh interpreter

* imports the library and reads its input (the encoded bytes for loads/unpackb;
  for dumps/packb the document, rebuilt with marshal),
* resets the kernel's peak-RSS mark (/proc/self/clear_refs) and notes the RSS,
* runs the operation once, keeping the result alive,
* reports the peak RSS growth: VmHWM - baseline (or, where the reset is not
  available, ru_maxrss growth from getrusage).

For loads/unpackb the growth is the decoded object graph plus whatever the
decoder needed on the side; for dumps/packb it is compared with the output
size (one output-sized buffer is the floor).

A second table is what encoding does to the user's strings: a list of CJK
text strs (4,000 characters each, CPython's 2-byte kind) whose UTF-8 is at
least --cjk-mb MB (default 100), made in a fresh interpreter, is dumped once
by each library; then the output is freed. Reported: how much the strs grew
(sys.getsizeof, summed: orjson, msgspec, ssrJSON by default and msgpack store
a UTF-8 copy in each, for the life of the str), the RSS still held after the
output is freed, and the peak RSS growth of the call. orcodec leaves the strs
as they were: if they grew, the script fails.
"""

from __future__ import annotations

import argparse
import json
import marshal
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from documents import REPO_ROOT, fixture_path  # noqa: E402

DEFAULT_JSON = REPO_ROOT / "bench" / "results" / "memory.json"

LIBS = {
    "loads": ("orcodec", "orjson", "msgspec", "json"),
    "unpackb": ("orcodec", "ormsgpack", "msgspec", "msgpack"),
    "dumps": ("orcodec", "orjson", "msgspec"),
    "packb": ("orcodec", "ormsgpack", "msgspec", "msgpack"),
}
RANKED_AGAINST = {
    "loads": ("orjson", "msgspec"),
    "unpackb": ("ormsgpack", "msgspec"),
    "dumps": ("orjson", "msgspec"),
    "packb": ("ormsgpack", "msgspec"),
}

CHILD = r"""
import gc, marshal, resource, sys
lib, op, path = sys.argv[1:4]

def operation():
    if lib == "msgspec":
        import msgspec
        fmt = msgspec.json if op in ("loads", "dumps") else msgspec.msgpack
        return (fmt.Decoder().decode if op in ("loads", "unpackb") else fmt.Encoder().encode)
    if lib == "json" and op == "loads":
        import json
        return json.loads
    if lib == "msgpack":
        import msgpack
        return msgpack.unpackb if op == "unpackb" else msgpack.packb
    return getattr(__import__(lib), op)

fn = operation()
with open(path, "rb") as f:
    data = f.read()
if op in ("dumps", "packb"):
    data = marshal.loads(data)
gc.collect()

def rss_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(field)

try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the peak RSS mark to the current RSS
    base, method = rss_kb("VmRSS"), "VmHWM"
except OSError:
    base, method = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "ru_maxrss"

result = fn(data)
peak = rss_kb("VmHWM") if method == "VmHWM" else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = len(result) if isinstance(result, bytes) else None
print(peak - base, out, method)
"""


# Encoders of the CJK table: (label, operation), each run in its own interpreter.
CJK_LIBS = (
    ("orcodec", "dumps"),
    ("orjson", "dumps"),
    ("msgspec", "dumps"),
    ("ssrjson", "dumps"),
    ("ssrjson-nocache", "dumps"),
    ("json", "dumps"),
    ("orcodec", "packb"),
    ("ormsgpack", "packb"),
    ("msgspec", "packb"),
    ("msgpack", "packb"),
)
CJK_CHARS_PER_STR = 4000

CJK_CHILD = r"""
import gc, sys
lib, op, min_bytes, per_str = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def encoder():
    if lib == "msgspec":
        import msgspec
        return (msgspec.json if op == "dumps" else msgspec.msgpack).Encoder().encode
    if lib.startswith("ssrjson"):
        import ssrjson
        ssrjson.write_utf8_cache(lib == "ssrjson")
        return ssrjson.dumps_to_bytes
    if lib == "json":
        import json
        encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        return lambda obj: encode(obj).encode()
    return getattr(__import__(lib), op)

def rss_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(field)

fn = encoder()
fn(["warm-up 中文"])
# CJK unified ideographs, every str a slice of its own (new objects, no UTF-8 cached).
pool = "".join(chr(0x4E00 + (i * 7919) % 20992) for i in range(1 << 16))
count = -(-min_bytes // (3 * per_str))
strs = [pool[(k * 997) % (len(pool) - per_str):][:per_str] for k in range(count)]
before = sum(map(sys.getsizeof, strs))
gc.collect()
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the peak RSS mark to the current RSS
    peak_field = "VmHWM"
except OSError:
    peak_field = None
base = rss_kb("VmRSS")
out = fn(strs)
peak = rss_kb(peak_field) if peak_field else None
out_len = len(out)
del out
gc.collect()
kept = rss_kb("VmRSS")
grown = sum(map(sys.getsizeof, strs)) - before
print(len(strs), before, grown, (kept - base) * 1024, None if peak is None else (peak - base) * 1024, out_len)
"""


def run_cjk_child(lib: str, op: str, min_bytes: int) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CJK_CHILD, lib, op, str(min_bytes), str(CJK_CHARS_PER_STR)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return {"error": tail[:200]}
    count, size, grown, kept, peak, out = proc.stdout.split()
    return {
        "strs": int(count),
        "strs_bytes": int(size),
        "strs_growth_bytes": int(grown),
        "rss_kept_bytes": int(kept),
        "peak_growth_bytes": None if peak == "None" else int(peak),
        "output_bytes": int(out),
    }


def cjk_table(min_bytes: int) -> tuple[dict, bool]:
    """The CJK rows: {op: {lib: cell}}, and whether orcodec grew the strs (or failed)."""
    rows: dict = {}
    failed = False
    for lib, op in CJK_LIBS:
        print(f"memory: CJK text {op} {lib}", file=sys.stderr, flush=True)
        cell = rows.setdefault(op, {})[lib] = run_cjk_child(lib, op, min_bytes)
        if lib == "orcodec":
            failed = failed or "error" in cell or cell["strs_growth_bytes"] != 0
    return rows, failed


def print_cjk_table(rows: dict, min_bytes: int) -> None:
    first = next((c for cells in rows.values() for c in cells.values() if "error" not in c), None)
    what = "" if first is None else f", {first['strs']} strs of {mb(first['strs_bytes'])} MB"
    print(
        f"\nCJK text dumped once, each in a fresh process: {CJK_CHARS_PER_STR} characters a str, at least"
        f" {mb(min_bytes)} MB of UTF-8{what} (MB)"
    )
    head = ["operation", "library", "strs grew", "RSS kept", "peak RSS growth", "output"]
    body = []
    for op, cells in rows.items():
        for lib, c in cells.items():
            if "error" in c:
                body.append([op, lib, "error", c["error"][:60], "", ""])
                continue
            body.append(
                [
                    op,
                    lib,
                    mb(c["strs_growth_bytes"]),
                    mb(c["rss_kept_bytes"]),
                    mb(c["peak_growth_bytes"]),
                    mb(c["output_bytes"]),
                ]
            )
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]
    for line in [head, *body]:
        print(
            "  "
            + "  ".join(
                [*(c.ljust(w) for c, w in zip(line[:2], widths)), *(c.rjust(w) for c, w in zip(line[2:], widths[2:]))]
            )
        )
    print(
        "  strs grew: sys.getsizeof of the strs after the call minus before (the UTF-8 copy a library stored in"
        " them);\n  RSS kept: resident memory still held once the output is freed; peak: during the call."
    )


def build_document(min_bytes: int) -> list:
    """Records of the fixtures, repeated until their JSON is at least min_bytes long."""
    records = []
    for name, pick in (
        ("twitter", lambda d: d["statuses"]),
        ("github", lambda d: d),
        ("citm_catalog", lambda d: list(d["events"].values())),
        ("canada", lambda d: d["features"]),
    ):
        path, _ = fixture_path(name)
        records.extend(pick(json.loads(path.read_bytes())))
    size = len(json.dumps(records, ensure_ascii=False, separators=(",", ":")).encode())
    return records * -(-min_bytes // size)


def run_child(lib: str, op: str, path: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, lib, op, str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return {"error": tail[:200]}
    growth_kb, out, method = proc.stdout.split()
    return {
        "peak_growth_bytes": int(growth_kb) * 1024,
        "output_bytes": None if out == "None" else int(out),
        "method": method,
    }


def mb(n: int | None) -> str:
    return "-" if n is None else f"{n / 1e6:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50, help="minimum size of the JSON document in MB (default 50)")
    parser.add_argument(
        "--cjk-mb", type=float, default=100, help="minimum UTF-8 size of the CJK text in MB (default 100)"
    )
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, metavar="PATH")
    args = parser.parse_args(argv)

    import msgpack

    doc = build_document(int(args.mb * 1e6))
    json_bytes = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()
    msgpack_bytes = msgpack.packb(doc, use_bin_type=True)
    results: dict = {
        "json_bytes": len(json_bytes),
        "msgpack_bytes": len(msgpack_bytes),
        "records": len(doc),
        "rows": {},
    }
    with tempfile.TemporaryDirectory(prefix="orcodec-mem-") as tmp:
        inputs = {
            "loads": Path(tmp, "doc.json"),
            "unpackb": Path(tmp, "doc.msgpack"),
            "dumps": Path(tmp, "doc.marshal"),
            "packb": Path(tmp, "doc.marshal"),
        }
        inputs["loads"].write_bytes(json_bytes)
        inputs["unpackb"].write_bytes(msgpack_bytes)
        inputs["dumps"].write_bytes(marshal.dumps(doc))
        del doc, json_bytes, msgpack_bytes
        for op, libs in LIBS.items():
            for lib in libs:
                print(f"memory: {op} {lib}", file=sys.stderr, flush=True)
                results["rows"].setdefault(op, {})[lib] = run_child(lib, op, inputs[op])

    print(
        f"\nPeak RSS growth, one call in a fresh process (MB); document: {results['records']} fixture records, "
        f"{mb(results['json_bytes'])} MB JSON, {mb(results['msgpack_bytes'])} MB MessagePack"
    )
    failed = False
    for op, libs in LIBS.items():
        cells = results["rows"][op]
        parts = []
        for lib in libs:
            c = cells[lib]
            if "error" in c:
                parts.append(f"{lib} error")
                continue
            text = f"{lib} {mb(c['peak_growth_bytes'])}"
            if c["output_bytes"]:
                text += f" ({c['peak_growth_bytes'] / c['output_bytes']:.2f}x output)"
            parts.append(text)
        ours = cells["orcodec"].get("peak_growth_bytes")
        peers = [cells[p]["peak_growth_bytes"] for p in RANKED_AGAINST[op] if "peak_growth_bytes" in cells[p]]
        verdict = "-"
        if ours is not None and peers:
            verdict = f"orcodec / best peer {ours / min(peers):.2f}"
        else:
            failed = failed or ours is None
        print(f"  {op:8} " + ", ".join(parts) + f"; {verdict}")
    cjk_bytes = int(args.cjk_mb * 1e6)
    results["cjk_text"] = {"min_utf8_bytes": cjk_bytes, "chars_per_str": CJK_CHARS_PER_STR}
    results["cjk_text"]["rows"], cjk_failed = cjk_table(cjk_bytes)
    print_cjk_table(results["cjk_text"]["rows"], cjk_bytes)
    if cjk_failed:
        print("memory: orcodec grew the strs it encoded, or failed (see the CJK table)", file=sys.stderr)
    failed = failed or cjk_failed
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(f"memory results written to {args.json}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Load test: loadtest_app.py under uvicorn, driven by wrk on loopback.

For each codec (orcodec, then the peers orjson/ormsgpack, then the stdlib
json / msgpack-python), one uvicorn process is started on a free loopback
port and checked (each endpoint's body must equal the codec's encoding of
the document), warmed up, then loaded by wrk for DURATION seconds per
endpoint, twice. It passes when:

- wrk saw no non-2xx response and no socket error (connect, read, write,
  timeout) in any run;
- the server's RSS is flat after warm-up: it grows by at most RSS_SLACK_MB
  from the end of the first round to the end of the second (the same load
  again; a leak per request would show here).

Prints a table of requests per second (the better of the two rounds) with
the ratio to orcodec, and the RSS figures. Exits 1 on a failed check, 2 when
wrk is missing.

    python bench/loadtest.py                   # the full run: ~2.5 minutes
    python bench/loadtest.py --quick           # orcodec only, a few seconds
    python bench/loadtest.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
CODECS = ("orcodec", "peers", "stdlib")
ENDPOINTS = ("json", "msgpack")
LIBRARY = {
    ("orcodec", "json"): "orcodec",
    ("orcodec", "msgpack"): "orcodec",
    ("peers", "json"): "orjson",
    ("peers", "msgpack"): "ormsgpack",
    ("stdlib", "json"): "json (stdlib)",
    ("stdlib", "msgpack"): "msgpack-python",
}
RSS_SLACK_MB = 2.0


class LoadTestError(Exception):
    pass


def require_wrk() -> str:
    wrk = shutil.which("wrk")
    if wrk is None:
        raise LoadTestError("wrk is not installed; on Debian or Ubuntu: apt-get install -y wrk")
    return wrk


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise LoadTestError(f"no VmRSS for process {pid}")


def expected_body(codec: str, endpoint: str, document) -> bytes:
    if codec == "orcodec":
        import orcodec

        return orcodec.dumps(document) if endpoint == "json" else orcodec.packb(document)
    if codec == "peers":
        import orjson
        import ormsgpack

        return orjson.dumps(document) if endpoint == "json" else ormsgpack.packb(document)
    import msgpack

    if endpoint == "json":
        return json.dumps(document, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
    return msgpack.packb(document, use_bin_type=True)


WRK_RPS = re.compile(r"^Requests/sec:\s+([0-9.]+)", re.M)
WRK_TOTAL = re.compile(r"^\s+(\d+) requests in ", re.M)
WRK_NON_2XX = re.compile(r"Non-2xx or 3xx responses:\s+(\d+)")
WRK_SOCKET = re.compile(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)")
WRK_LATENCY = re.compile(r"^\s+Latency\s+(\S+)", re.M)


def wrk(wrk_bin: str, url: str, seconds: float, connections: int) -> dict:
    out = subprocess.run(
        [wrk_bin, "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "5s", url],
        capture_output=True, text=True, timeout=seconds + 30,
    )  # fmt: skip
    if out.returncode != 0 or not WRK_RPS.search(out.stdout):
        raise LoadTestError(f"wrk failed on {url}:\n{out.stdout}{out.stderr}")
    socket_errors = WRK_SOCKET.search(out.stdout)
    non_2xx = WRK_NON_2XX.search(out.stdout)
    return {
        "rps": float(WRK_RPS.search(out.stdout).group(1)),
        "requests": int(WRK_TOTAL.search(out.stdout).group(1)),
        "latency": WRK_LATENCY.search(out.stdout).group(1),
        "non_2xx": int(non_2xx.group(1)) if non_2xx else 0,
        "socket_errors": sum(map(int, socket_errors.groups())) if socket_errors else 0,
        "output": out.stdout,
    }


def serve(codec: str, port: int, log: Path) -> subprocess.Popen:
    env = {**os.environ, "ORCODEC_LOADTEST_CODEC": codec}
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "loadtest_app:app", "--app-dir", str(HERE),
             "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log"],
            env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise LoadTestError(f"uvicorn ({codec}) exited with {proc.returncode}:\n{log.read_text()}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=1).read()
            return proc
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise LoadTestError(f"uvicorn ({codec}) did not answer within 30 s:\n{log.read_text()}") from None
            time.sleep(0.05)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_codec(codec: str, wrk_bin: str, duration: float, warmup: float, connections: int, logdir: Path) -> dict:
    sys.path.insert(0, str(HERE))
    from loadtest_app import DOCUMENT

    port = free_port()
    proc = serve(codec, port, logdir / f"uvicorn-{codec}.log")
    base = f"http://127.0.0.1:{port}"
    try:
        for endpoint in ENDPOINTS:
            with urllib.request.urlopen(f"{base}/{endpoint}", timeout=5) as response:
                body, status = response.read(), response.status
                content_type = response.headers["content-type"]
            want_type = "application/json" if endpoint == "json" else "application/msgpack"
            if status != 200 or content_type != want_type or body != expected_body(codec, endpoint, DOCUMENT):
                raise LoadTestError(f"{codec} /{endpoint}: unexpected response ({status}, {content_type})")
        for endpoint in ENDPOINTS:
            wrk(wrk_bin, f"{base}/{endpoint}", warmup, connections)
        rss = {"after_warmup": rss_mb(proc.pid)}
        rounds = []
        for round_no in (1, 2):
            runs = {endpoint: wrk(wrk_bin, f"{base}/{endpoint}", duration, connections) for endpoint in ENDPOINTS}
            rounds.append(runs)
            rss[f"after_round_{round_no}"] = rss_mb(proc.pid)
        if proc.poll() is not None:
            raise LoadTestError(f"uvicorn ({codec}) died during the load test")
    finally:
        stop(proc)
    return {"rounds": rounds, "rss_mb": rss}


def check(results: dict) -> list[str]:
    problems = []
    for codec, result in results.items():
        for round_no, runs in enumerate(result["rounds"], 1):
            for endpoint, run in runs.items():
                if run["non_2xx"] or run["socket_errors"]:
                    problems.append(
                        f"{codec} /{endpoint} round {round_no}: {run['non_2xx']} non-2xx responses, "
                        f"{run['socket_errors']} socket errors\n{run['output']}"
                    )
        rss = result["rss_mb"]
        growth = rss["after_round_2"] - rss["after_round_1"]
        if growth > RSS_SLACK_MB:
            problems.append(f"{codec}: server RSS grew {growth:.1f} MB during the second round (limit {RSS_SLACK_MB})")
    return problems


def table(results: dict, duration: float, connections: int) -> str:
    lines = [
        "orcodec load test: loadtest_app.py under uvicorn, wrk on loopback",
        f"python    {platform.python_version()} | {platform.platform()} | {os.cpu_count()} CPUs",
        f"method    1 uvicorn worker, wrk -t1 -c{connections}, {duration:g} s per endpoint, 2 rounds after warm-up; "
        "best round; document: github fixture (55 KB JSON)",
        "",
        f"{'endpoint':<10}{'library':<16}{'req/s':>9}{'latency':>10}{'requests':>10}{'non-2xx':>9}{'vs orcodec':>12}",
    ]
    for endpoint in ENDPOINTS:
        base = None
        for codec, result in results.items():
            best = max((runs[endpoint] for runs in result["rounds"]), key=lambda r: r["rps"])
            base = base or best["rps"]
            total = sum(runs[endpoint]["requests"] for runs in result["rounds"])
            non_2xx = sum(runs[endpoint]["non_2xx"] for runs in result["rounds"])
            lines.append(
                f"/{endpoint:<9}{LIBRARY[codec, endpoint]:<16}{best['rps']:>9.0f}{best['latency']:>10}{total:>10}"
                f"{non_2xx:>9}{best['rps'] / base:>12.2f}"
            )
    lines.append("")
    lines.append("server RSS (MB): after warm-up -> after round 1 -> after round 2")
    for codec, result in results.items():
        rss = result["rss_mb"]
        lines.append(
            f"  {codec:<8} {rss['after_warmup']:.1f} -> {rss['after_round_1']:.1f} -> {rss['after_round_2']:.1f}"
            f" (round 2 growth {rss['after_round_2'] - rss['after_round_1']:+.1f}, limit +{RSS_SLACK_MB})"
        )
    return "\n".join(lines)


def run(codecs=CODECS, duration=10.0, warmup=3.0, connections=32, logdir: Path | None = None) -> tuple[dict, str]:
    """Runs the load test; returns the results and the table, raises LoadTestError on a failed check."""
    wrk_bin = require_wrk()
    logdir = logdir or HERE / "results"
    logdir.mkdir(parents=True, exist_ok=True)
    results = {codec: run_codec(codec, wrk_bin, duration, warmup, connections, logdir) for codec in codecs}
    text = table(results, duration, connections)
    problems = check(results)
    if problems:
        raise LoadTestError(text + "\n\nFAILED:\n" + "\n".join(problems))
    return results, text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="orcodec only, 2 s per endpoint, 1 s warm-up")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per endpoint per round")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--codecs", nargs="+", choices=CODECS, default=list(CODECS))
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    if args.quick:
        args.codecs, args.duration, args.warmup = ["orcodec"], 2.0, 1.0
    try:
        results, text = run(args.codecs, args.duration, args.warmup, args.connections)
    except LoadTestError as exc:
        print(f"loadtest: {exc}", file=sys.stderr)
        return 2 if "wrk is not installed" in str(exc) else 1
    print(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        for result in results.values():
            for runs in result["rounds"]:
                for r in runs.values():
                    r.pop("output")
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

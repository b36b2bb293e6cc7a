"""The short load test: bench/loadtest.py's orcodec server under wrk for a few seconds.

`make loadtest` runs the full version, with the peers and the stdlib beside
orcodec. Fails (never skips) without wrk.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import loadtest  # noqa: E402


def test_orcodec_endpoints_under_load(tmp_path) -> None:
    # run() checks the bodies, then raises LoadTestError on any non-2xx
    # response, socket error or RSS growth after warm-up.
    results, text = loadtest.run(codecs=["orcodec"], duration=2, warmup=1, connections=16, logdir=tmp_path)
    print(text)
    result = results["orcodec"]
    for runs in result["rounds"]:
        for endpoint in loadtest.ENDPOINTS:
            assert runs[endpoint]["non_2xx"] == 0 and runs[endpoint]["socket_errors"] == 0
            assert runs[endpoint]["requests"] > 100, runs[endpoint]["output"]
    rss = result["rss_mb"]
    assert rss["after_round_2"] - rss["after_round_1"] <= loadtest.RSS_SLACK_MB


def test_a_failed_check_is_reported() -> None:
    # The checks themselves: a non-2xx count and RSS growth are failures.
    run = {"non_2xx": 3, "socket_errors": 0, "output": "wrk output", "rps": 1.0, "requests": 10, "latency": "1ms"}
    ok = {**run, "non_2xx": 0}
    results = {
        "orcodec": {
            "rounds": [{"json": run, "msgpack": ok}, {"json": ok, "msgpack": ok}],
            "rss_mb": {"after_warmup": 50.0, "after_round_1": 50.0, "after_round_2": 60.0},
        }
    }
    problems = loadtest.check(results)
    assert problems == [
        "orcodec /json round 1: 3 non-2xx responses, 0 socket errors\nwrk output",
        "orcodec: server RSS grew 10.0 MB during the second round (limit 2.0)",
    ]

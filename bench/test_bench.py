"""The rows of bench/compare.py as a pytest-benchmark suite, for people who use that tool.

    .venv/bin/python -m pytest bench/test_bench.py --benchmark-group-by=param:row
    .venv/bin/python -m pytest bench/test_bench.py -k "twitter and dumps" --benchmark-group-by=param:row

Not collected by the main test run (pytest's testpaths is tests/). Each test is
one library on one row, called the way compare.py calls it; a library that
cannot do the row, or that raises on it, is skipped with the reason. compare.py
remains the reference: it runs the libraries round-robin in one process, which
pytest-benchmark does not.
"""

from __future__ import annotations

import collections
import functools
import gc
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare  # noqa: E402
from documents import load_document  # noqa: E402

_orcodec = compare.import_orcodec()
_peers, _missing = compare.import_peers()
_libraries = compare.Libraries(_orcodec, _peers)


@functools.cache
def _document(name: str):
    return load_document(name, _peers["msgpack"])


def _cases():
    for doc, op in compare.all_rows():
        for lib in ("orcodec",) + compare.PEERS[compare.FAMILY[op]] + compare.FLOORS:
            yield pytest.param(f"{doc}.{op}", lib, id=f"{doc}.{op}-{lib}")


@pytest.mark.parametrize("row, lib", list(_cases()))
def test_row(benchmark, row: str, lib: str) -> None:
    doc_name, op = row.rsplit(".", 1)
    if lib in _missing:
        pytest.skip(_missing[lib])
    try:
        doc = _document(doc_name)
    except ImportError as exc:
        pytest.skip(str(exc))
    try:
        fn, arg = _libraries.function(lib, op, doc)
    except compare.NotApplicable as exc:
        pytest.skip(str(exc))
    status, reason = compare.check(lib, op, fn, arg, doc, _peers["msgpack"])
    if status == compare.RAISED:
        pytest.skip(f"{lib} raised: {reason}")
    benchmark.extra_info["output_differs"] = reason
    benchmark(fn, arg)


def test_kept_setting_times_every_library_with_one_count(monkeypatch) -> None:
    """compare.py's own method: with the collector on and the results kept, every
    library of a row makes the same number of calls per sample (the smallest
    calibrated count); with the collector off, each its own."""
    calibrated = {"orcodec": 40_000, "orjson": 25_000, "msgspec": 31_000}
    monkeypatch.setattr(compare, "calibrate", lambda fn, arg, target_s: calibrated[fn(arg)])
    timed = []

    def fake_sample(fn, arg, n, mode=compare.GC_OFF):
        timed.append((fn(arg), mode, n))
        return n * 1e-6

    monkeypatch.setattr(compare, "sample", fake_sample)
    cells = {lib: compare.Cell(fn=lambda _arg, lib=lib: lib) for lib in calibrated}
    cells["json"] = compare.Cell(status=compare.NA, reason="not timed")
    row = compare.Row(SimpleNamespace(name="small"), "loads", cells)
    compare.measure(row, compare.QUICK)

    assert {(lib, n) for lib, mode, n in timed if mode == compare.GC_OFF} == set(calibrated.items())
    assert {(lib, n) for lib, mode, n in timed if mode == compare.GC_KEPT} == {(lib, 25_000) for lib in calibrated}
    rounds = collections.Counter((lib, mode) for lib, mode, _ in timed)
    assert len(rounds) == 2 * len(calibrated) and len(set(rounds.values())) == 1
    assert min(rounds.values()) >= compare.QUICK.min_rounds
    for lib in calibrated:
        assert cells[lib].iterations == {compare.GC_OFF: calibrated[lib], compare.GC_KEPT: 25_000}
        assert cells[lib].median_s(compare.GC_KEPT) == pytest.approx(1e-6)
    assert all(lib != "json" for lib, _, _ in timed)


def test_kept_sample_starts_collected_and_ends_with_the_young_collection_left_due() -> None:
    """A GC_KEPT sample inherits no collector counters from earlier samples, and
    pays, inside the sample, the young collection that a call pausing the
    collector left due (not the next sample, whichever library that is)."""
    events = []

    def on_collect(phase, info):
        if phase == "start":
            events.append(("collect", info["generation"]))

    def decode_pausing_the_collector(_arg):
        events.append(("call", gc.get_count()))
        gc.disable()
        out = [[] for _ in range(2 * gc.get_threshold()[0])]
        gc.enable()
        return out

    gc.collect()
    gc.callbacks.append(on_collect)
    try:
        compare.sample(decode_pausing_the_collector, None, 2, compare.GC_KEPT)
    finally:
        gc.callbacks.remove(on_collect)
    assert events[0] == ("collect", 2)
    first_call = next(counts for what, counts in events if what == "call")
    assert first_call[1:] == (0, 0)
    assert events[-1] == ("collect", 0)

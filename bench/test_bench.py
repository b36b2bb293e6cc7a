"""The rows of bench/compare.py as a pytest-benchmark suite, for people who use that tool.

    .venv/bin/python -m pytest bench/test_bench.py --benchmark-group-by=param:row
    .venv/bin/python -m pytest bench/test_bench.py -k "twitter and dumps" --benchmark-group-by=param:row

Not collected by the main test run (pytest's testpaths is tests/). Each test is
one library on one row, called the way compare.py calls it; a library that
cannot do the row, or that raises on it, is skipped with the reason; the
*_fresh rows give every call a new copy of the document. compare.py
remains the reference: it runs the libraries round-robin in one process, which
pytest-benchmark does not.
"""

from __future__ import annotations

import collections
import copy
import functools
import gc
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare  # noqa: E402
import documents  # noqa: E402
from documents import load_document  # noqa: E402

_orcodec = compare.import_orcodec()
_peers, _missing = compare.import_peers()
_libraries = compare.Libraries(_orcodec, _peers)


@functools.cache
def _document(name: str):
    return load_document(name, _peers["msgpack"])


def _cases():
    for doc, op in compare.all_rows():
        for lib in compare.columns(compare.FAMILY[op]):
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
    with _libraries.setting(lib)():  # ssrJSON's cache writing, on or off
        status, reason = compare.check(lib, op, fn, arg, doc, _peers["msgpack"])
        if status == compare.RAISED:
            pytest.skip(f"{lib} raised: {reason}")
        benchmark.extra_info["output_differs"] = reason
        if op == compare.base_op(op):
            benchmark(fn, arg)
        else:
            # Fresh objects: every call gets a new copy, made outside the timing.
            benchmark.pedantic(fn, setup=lambda: ((doc.fresh_value(),), {}), rounds=100, iterations=1)


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


# --- each library its own copy of the document ----------------------------------------


def _ids_of_non_ascii_strs(value) -> set[int]:
    return {id(text) for text in documents.non_ascii_strs(value)}


@pytest.mark.parametrize("row", ["twitter.dumps", "strings_non_ascii.packb", "strings_ucs2.dumps_fresh"])
def test_every_library_of_a_row_gets_its_own_strs(row: str) -> None:
    """No two cells of a row share a non-ASCII str object, the checks' copies included, and the
    encoders that cache UTF-8 in the strs they write did so in their own copy only."""
    doc_name, op = row.rsplit(".", 1)
    built = compare.build_row(_document(doc_name), op, _libraries, _missing, _peers["msgpack"])
    args = {lib: cell.arg for lib, cell in built.cells.items() if cell.fn is not None}
    assert "orcodec" in args and len(args) >= 3
    seen: dict[int, str] = {}
    for lib, arg in args.items():
        ids = _ids_of_non_ascii_strs(arg)
        assert len(ids) >= 200, lib
        shared = {seen[i] for i in ids if i in seen}
        assert not shared, f"{lib} shares strs with {shared}"
        seen.update(dict.fromkeys(ids, lib))
    orcodec_cell = built.cells["orcodec"]
    assert orcodec_cell.status is None and orcodec_cell.utf8_copies == 0
    assert orcodec_cell.non_ascii_strs >= 200
    # orjson / ormsgpack write the cache into the strs they encode: all of their copy's.
    peer = built.cells["orjson" if compare.FAMILY[op] == "JSON" else "ormsgpack"]
    assert peer.utf8_copies == peer.non_ascii_strs == orcodec_cell.non_ascii_strs
    if built.fresh:
        # A fresh object per call: the loader makes new strs every time, none of them cached.
        fresh = orcodec_cell.fresh()
        assert not _ids_of_non_ascii_strs(fresh) & set(seen)
        assert documents.strs_with_utf8_copy(fresh) == 0


def test_the_loader_rebuilds_strs_that_the_builder_shares() -> None:
    """The builder of strings_non_ascii returns one constant str 200 times; every copy the
    loader makes has 200 str objects of its own."""
    doc = _document("strings_non_ascii")
    assert len({id(s) for s in documents.strings_non_ascii()}) == 1
    first, second = doc.fresh_value(), doc.fresh_value()
    assert first == second == doc.expected
    assert len(_ids_of_non_ascii_strs(first)) == 200
    assert not _ids_of_non_ascii_strs(first) & _ids_of_non_ascii_strs(second)


def test_check_independent_refuses_shared_and_cached_strs() -> None:
    doc = _document("twitter")
    mine, theirs = doc.fresh_value(), doc.fresh_value()
    documents.check_independent({"orcodec": mine, "orjson": theirs})
    # copy.deepcopy returns the same str objects: not a copy for this purpose.
    with pytest.raises(documents.SharedObjects, match="share the str"):
        documents.check_independent({"orcodec": mine, "orjson": copy.deepcopy(mine)})
    # A copy whose strs already carry UTF-8 (orjson wrote it) is refused too.
    _peers["orjson"].dumps(theirs)
    assert documents.strs_with_utf8_copy(theirs) == len(documents.non_ascii_strs(theirs)) > 0
    with pytest.raises(documents.SharedObjects, match="starts with a UTF-8 copy"):
        documents.check_independent({"orcodec": mine, "orjson": theirs})


def test_has_utf8_copy_sees_the_cache_of_every_string_kind() -> None:
    for text in ("déjà vu " * 50, "日本語のテキスト" * 50, "café 😀 中文 " * 50):
        fresh = text[:1] + text[1:]
        assert not documents.has_utf8_copy(fresh)
        _peers["orjson"].dumps(fresh)
        assert documents.has_utf8_copy(fresh)
    untouched = "日本語" * 100
    untouched = untouched[:1] + untouched[1:]
    _orcodec.dumps([untouched])
    _orcodec.packb({untouched: untouched})
    assert not documents.has_utf8_copy(untouched)


# --- correctness of every library, every row ------------------------------------------


def test_check_marks_wrong_output_on_either_call() -> None:
    doc = _document("strings_latin1")
    msgpack = _peers["msgpack"]
    right = _orcodec.dumps
    assert compare.check("orcodec", "dumps", right, doc.fresh_value(), doc, msgpack) == (None, None)

    def mojibake(obj):
        return json.dumps(obj, ensure_ascii=False).encode().decode("latin-1").encode()

    status, reason = compare.check("fake", "dumps", mojibake, doc.fresh_value(), doc, msgpack)
    assert status == compare.DIFFERS
    assert reason.startswith("decodes to a different value at $[0]: 'dÃ©jÃ")
    calls = []

    def wrong_the_second_time(obj):
        calls.append(obj)
        return right(obj) if len(calls) == 1 else right(obj[1:])

    status, reason = compare.check("fake", "dumps_fresh", wrong_the_second_time, doc.fresh_value(), doc, msgpack)
    assert (
        status == compare.DIFFERS
        and reason == "on the second call: decodes to a different value at $: length 199 != 200"
    )
    status, reason = compare.check("fake", "packb", lambda obj: 1 / 0, doc.fresh_value(), doc, msgpack)
    assert (status, reason) == (compare.RAISED, "ZeroDivisionError: division by zero")


def test_a_library_marked_wrong_is_not_ranked() -> None:
    doc = _document("small")
    cells = {lib: compare.Cell(fn=len) for lib in compare.columns("JSON")}
    for lib, cell in cells.items():
        cell.per_call_s[compare.GC_OFF] = [{"orcodec": 3e-6, "orjson": 5e-6}.get(lib, 6e-6)]
    cells["ujson"].per_call_s[compare.GC_OFF] = [1e-6]
    cells["ujson"].status = compare.DIFFERS
    cells["yyjson"].per_call_s[compare.GC_OFF] = [1e-7]  # unranked, however fast
    cells["marshal"].per_call_s[compare.GC_OFF] = [1e-7]
    row = compare.Row(doc, "dumps", cells)
    assert row.best_peer() == ("orjson", 5e-6)
    assert row.ratio() == pytest.approx(0.6)
    assert compare.cell_text(row, "ujson", compare.GC_OFF) == "1.00≠"


def test_yyjson_is_marked_wrong_where_it_decodes_escapes_wrongly() -> None:
    pytest.importorskip("yyjson")  # bench/requirements.txt
    doc = _document("strings_non_ascii_escaped")
    built = compare.build_row(doc, "loads", _libraries, _missing, _peers["msgpack"])
    assert built.cells["yyjson"].status == compare.DIFFERS
    assert "cafÃ©" in built.cells["yyjson"].reason
    assert all(built.cells[lib].status is None for lib in ("orcodec", "orjson", "json"))


def test_ssrjson_writes_its_cache_only_in_the_cache_column() -> None:
    ssrjson = pytest.importorskip("ssrjson")  # bench/requirements.txt
    was = ssrjson.get_current_features()["write_utf8_cache"]
    built = compare.build_row(_document("strings_ucs2"), "dumps", _libraries, _missing, _peers["msgpack"])
    assert ssrjson.get_current_features()["write_utf8_cache"] == was
    on, off = built.cells["ssrjson"], built.cells["ssrjson-nocache"]
    assert (on.status, off.status) == (None, None)
    assert on.utf8_copies == on.non_ascii_strs == 200
    assert off.utf8_copies == 0 and off.non_ascii_strs == 200
    loads = compare.build_row(_document("strings_ucs2"), "loads", _libraries, _missing, _peers["msgpack"])
    assert loads.cells["ssrjson-nocache"].status == compare.NA


# --- fresh objects, dumped once each ---------------------------------------------------


def test_fresh_rows_give_every_call_an_object_of_its_own(monkeypatch) -> None:
    """Every call of every sample of a *_fresh row gets an object made for it, none the
    object the row calibrated on; repeated rows call on the one copy."""
    monkeypatch.setattr(compare, "calibrate", lambda fn, arg, target_s: 3)
    doc = _document("strings_latin1")
    for op, fresh in (("dumps_fresh", True), ("dumps", False)):
        seen = {"orcodec": [], "orjson": []}
        cells = {
            lib: compare.Cell(fn=calls.append, arg=doc.fresh_value(), fresh=doc.fresh_value if fresh else None)
            for lib, calls in seen.items()
        }
        row = compare.Row(doc, op, cells)
        assert row.fresh is fresh
        compare.measure(row, compare.QUICK)
        for lib, calls in seen.items():
            assert len(calls) == 3 * len(cells[lib].per_call_s[compare.GC_OFF]) * len(compare.MODES)
            distinct = {id(obj) for obj in calls}
            assert len(distinct) == (len(calls) if fresh else 1)
            assert (id(cells[lib].arg) in distinct) is not fresh
            assert all(obj == doc.expected for obj in calls)
        if fresh:
            assert not {id(o) for o in seen["orcodec"]} & {id(o) for o in seen["orjson"]}


# --- memory: what encoding does to the user's strs -------------------------------------


def test_cjk_memory_rows_count_the_utf8_copies_left_in_the_strs() -> None:
    """memory.py's CJK table, at 1 MB: orjson's strs grow by their UTF-8 (3 bytes a character,
    plus a terminator each), orcodec's not at all, in either format."""
    import memory

    cells = {
        (lib, op): memory.run_cjk_child(lib, op, 1_000_000) for lib, op in memory.CJK_LIBS[:2] + (("orcodec", "packb"),)
    }
    orjson = cells["orjson", "dumps"]
    assert orjson["strs"] == 84 and orjson["output_bytes"] >= 1_000_000
    assert orjson["strs_growth_bytes"] == orjson["strs"] * (3 * memory.CJK_CHARS_PER_STR + 1)
    for op in ("dumps", "packb"):
        assert cells["orcodec", op]["strs_growth_bytes"] == 0
        assert cells["orcodec", op]["strs_bytes"] == orjson["strs_bytes"]


# --- numpy round trip in a fresh process -------------------------------------------------


def test_numpy_fresh_process_samples_time_a_checked_round_trip_per_process() -> None:
    import numpy_roundtrip

    cells = numpy_roundtrip.fresh_process_samples(2)
    assert set(cells) == {"orcodec", "pickle5"}
    for cell in cells.values():
        assert "error" not in cell
        assert len(cell["first"]) == len(cell["second"]) == 2
        for first, encode, decode in zip(cell["first"], cell["encode"], cell["decode"]):
            assert 0 < encode < first and 0 < decode < first and first == encode + decode
        assert set(cell["median_s"]) == {"first", "encode", "decode", "second"}

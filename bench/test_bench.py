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

import functools
import sys
from pathlib import Path

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

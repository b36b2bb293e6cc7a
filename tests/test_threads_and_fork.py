"""Eight threads calling all four functions at once, on shared and on private
objects, with Python code (`default`) running mid-walk so the GIL changes
hands inside a call: every result equals the single-threaded one. And the
module keeps working in a child process after `fork`, including a fork
taken while other threads are in the middle of calls."""

from __future__ import annotations

import copy
import os
import sys
import threading

import orcodec
import pytest
from helpers import Unsupported

THREADS = 8
ROUNDS = 300


def make_docs() -> list:
    return [
        {"id": i, "name": f"user {i} é中😀", "tags": ["a", "b" * i], "score": i / 7, "ok": i % 2 == 0, "none": None}
        for i in range(20)
    ] + [{"k" + str(i): [i, -i, 2**40 + i] for i in range(50)}, ["x" * 100] * 10, (1, 2.5, "t")]


def default(obj):
    return [repr(type(obj).__name__), len(obj.__class__.__name__)]


def work(docs: list, shared_encoded: list) -> list:
    """One round of all four functions; returns every result."""
    out = []
    for doc in docs:
        wrapped = [doc, Unsupported()]
        out.append(orcodec.dumps(wrapped, default=default))
        out.append(orcodec.dumps(doc, option=orcodec.OPT_SORT_KEYS | orcodec.OPT_INDENT_2))
        out.append(orcodec.packb(wrapped, default=default))
    for json_bytes, msgpack_bytes in shared_encoded:
        out.append(orcodec.loads(json_bytes))
        out.append(orcodec.unpackb(msgpack_bytes))
    return out


@pytest.fixture
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # hand the GIL over as often as possible
    yield
    sys.setswitchinterval(old)


def test_eight_threads_same_results_as_one(fast_switching):
    shared = make_docs()
    shared_encoded = [(orcodec.dumps(d), orcodec.packb(d)) for d in shared]
    expected = work(shared, shared_encoded)
    barrier = threading.Barrier(THREADS)
    mismatches: list = []
    errors: list = []

    def run(index: int) -> None:
        try:
            private = copy.deepcopy(shared)
            barrier.wait()
            for round_ in range(ROUNDS):
                docs = shared if (index + round_) % 2 else private
                if work(docs, shared_encoded) != expected:
                    mismatches.append((index, round_))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert mismatches == []


def _child_checks(expected: list, shared: list, shared_encoded: list) -> int:
    """Runs in the forked child; the exit status says what went wrong."""
    try:
        if work(shared, shared_encoded) != expected:
            return 2
        with pytest.raises(orcodec.JSONDecodeError):
            orcodec.loads(b"[1,")
        with pytest.raises(orcodec.MsgpackEncodeError):
            orcodec.packb(Unsupported())
        return 0
    except BaseException:  # noqa: BLE001 - any failure is a non-zero status
        return 3


def _fork_and_check(expected: list, shared: list, shared_encoded: list) -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(_child_checks(expected, shared, shared_encoded))
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_use_after_fork():
    shared = make_docs()
    shared_encoded = [(orcodec.dumps(d), orcodec.packb(d)) for d in shared]
    expected = work(shared, shared_encoded)
    _fork_and_check(expected, shared, shared_encoded)


def test_fork_while_other_threads_are_encoding():
    shared = make_docs()
    shared_encoded = [(orcodec.dumps(d), orcodec.packb(d)) for d in shared]
    expected = work(shared, shared_encoded)
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            work(shared, shared_encoded)

    threads = [threading.Thread(target=busy) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        for _ in range(5):
            _fork_and_check(expected, shared, shared_encoded)
    finally:
        stop.set()
        for t in threads:
            t.join()

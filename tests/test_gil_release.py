"""The GIL released where the work touches no Python object: JSON <->
MessagePack transcoding and the CLI's counting of a document (`stats`,
`validate`), of immutable input (bytes, str) from 16 KiB on.

Whether another thread ran during a call is observed without timing: the
switch interval is set far beyond the test's length, so a thread waiting
for the GIL gets it only where the running thread gives it up itself.
"""

import signal
import sys
import threading

import orcodec
import pytest
from orcodec._orcodec import _tally

# A document whose transcoding takes milliseconds: long enough for a waiting
# thread to be woken while it runs, in either direction.
DOC = [
    {"id": i, "name": f"item {i}", "tags": ["a", "b", "c"], "price": i * 1.25, "ok": i % 2 == 0} for i in range(20000)
]
JSON = orcodec.dumps(DOC)
MSGPACK = orcodec.packb(DOC)
SMALL_JSON = orcodec.dumps(DOC[:100])
# What `_tally` counts of DOC: null, bool, int, float, str, bin, array, map,
# ext; then map entries and depth.
COUNTS = (0, 20000, 20000, 20000, 80000, 0, 20001, 20000, 0, 100000, 4)


@pytest.fixture
def long_switch_interval():
    old = sys.getswitchinterval()
    sys.setswitchinterval(30.0)
    yield
    sys.setswitchinterval(old)


def ran_during(call, tries=30):
    """Whether a thread waiting for the GIL ran while `call()` ran (in any of
    `tries` calls: a thread woken on a busy machine may need longer than one
    call to be scheduled), and what the calls returned."""
    ran = []
    go = threading.Lock()
    go.acquire()

    def other():
        with go:  # blocks without the GIL until released below
            ran.append(True)

    t = threading.Thread(target=other)
    t.start()
    go.release()  # `other` now waits for the GIL, which this thread holds
    results = set()
    for _ in range(tries):
        results.add(call())
        if ran:  # read before anything here could give up the GIL
            break
    seen = bool(ran)
    t.join()
    return seen, results


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: orcodec.json_to_msgpack(JSON), MSGPACK),
        (lambda: orcodec.json_to_msgpack(JSON.decode()), MSGPACK),
        (lambda: orcodec.msgpack_to_json(MSGPACK), JSON),
        (
            lambda: orcodec.msgpack_to_json(MSGPACK, option=orcodec.OPT_INDENT_2),
            orcodec.dumps(DOC, option=orcodec.OPT_INDENT_2),
        ),
        (lambda: _tally(JSON), COUNTS),
        (lambda: _tally(MSGPACK, option=0), COUNTS),
    ],
    ids=["json bytes", "json str", "msgpack bytes", "msgpack to indented json", "json counted", "msgpack counted"],
)
def test_large_immutable_input_is_transcoded_without_the_gil(long_switch_interval, call, expected):
    seen, results = ran_during(call)
    assert results == {expected}
    assert seen


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: orcodec.json_to_msgpack(bytearray(JSON)), MSGPACK),
        (lambda: orcodec.msgpack_to_json(memoryview(bytearray(MSGPACK))), JSON),
        (lambda: orcodec.json_to_msgpack(SMALL_JSON), orcodec.packb(DOC[:100])),
        (lambda: _tally(bytearray(JSON)), COUNTS),
    ],
    ids=["bytearray", "writable memoryview", "small input", "bytearray counted"],
)
def test_writable_or_small_input_keeps_the_gil(long_switch_interval, call, expected):
    seen, results = ran_during(call, tries=5)
    assert results == {expected}
    assert not seen


def test_a_resized_or_mutated_bytearray_never_gives_a_torn_result():
    # The GIL is kept for writable buffers, so another thread changes the
    # input only between calls: each result is that of one whole input.
    variants = [orcodec.packb(DOC[: 5000 + 1000 * k]) for k in range(4)]
    outputs = {orcodec.msgpack_to_json(v) for v in variants}
    data = bytearray(variants[0])
    stop = threading.Event()
    errors = []

    def mutate():
        k = 0
        while not stop.is_set():
            k += 1
            try:
                data[:] = variants[k % len(variants)]  # resizes
            except BufferError as e:  # an export of it is alive
                errors.append(e)

    t = threading.Thread(target=mutate)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    t.start()
    try:
        for _ in range(200):
            assert orcodec.msgpack_to_json(data) in outputs
            assert orcodec.json_to_msgpack(bytearray(orcodec.msgpack_to_json(data))) in set(variants)
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(old)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs setitimer")
def test_a_signal_during_a_gil_free_call_arrives_when_it_returns():
    big = orcodec.dumps(DOC * 10)
    expected = orcodec.packb(DOC * 10)
    fired = []

    def handler(signum, frame):
        fired.append(signum)
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.001)
        with pytest.raises(KeyboardInterrupt):
            for _ in range(1000):  # the signal comes during one of them
                orcodec.json_to_msgpack(big)
        assert fired == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert orcodec.json_to_msgpack(big) == expected


def test_threads_transcoding_at_once_get_each_their_own_result():
    docs = [orcodec.dumps(DOC[k * 1000 :] + [k]) for k in range(4)]
    expected = [orcodec.json_to_msgpack(d) for d in docs]
    results = [[] for _ in docs]

    def work(k):
        for _ in range(20):
            results[k].append(orcodec.json_to_msgpack(docs[k]))
            results[k].append(orcodec.msgpack_to_json(expected[k]))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(docs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, got in enumerate(results):
        assert got == [expected[k], docs[k]] * 20


def test_the_threshold_is_the_interpreters_and_decides_for_small_inputs(long_switch_interval):
    from orcodec._orcodec import _gil_free_from

    assert _gil_free_from(None) == 16 << 10
    was = _gil_free_from(0)
    try:
        assert _gil_free_from(None) == 0
        # A short call: many tries for the woken thread to be scheduled in one.
        seen, results = ran_during(lambda: orcodec.json_to_msgpack(SMALL_JSON), tries=20000)
        assert results == {orcodec.packb(DOC[:100])}
        assert seen
        with pytest.raises(OverflowError):
            _gil_free_from(-1)
        with pytest.raises(TypeError):
            _gil_free_from("1")
    finally:
        _gil_free_from(was)
    assert _gil_free_from(None) == 16 << 10

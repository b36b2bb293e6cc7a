"""The "orcodec" serialization family, in-process and across a LocalCluster's worker processes.

The `cluster` fixture starts a `distributed.LocalCluster` with two worker
processes on loopback, each preloading orcodec.integrations.dask, and a
Client that serializes and deserializes only with "orcodec" (so any value
that crossed a process another way would raise), and closes both after the
module.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterator

import numpy as np
import orcodec
import pytest
from distributed import Client, LocalCluster
from distributed.protocol import deserialize, serialize
from orcodec.integrations import dask as odask

odask.register()

EXACT = [
    None,
    True,
    -(2**63),
    2**64 - 1,
    1.5,
    "é\U0001f600",
    b"\x00\xff",
    [1, [2, (3, "x")]],
    (1, (2, [3])),
    (),
    {"a": {"b": (1.0, None)}, "": []},
    np.arange(12, dtype=">i4").reshape(3, 4),
    np.array([1 + 2j, 3.5j]),
    np.array(["2025-01-01", "NaT"], dtype="datetime64[ms]"),
    np.zeros((0, 3), dtype=np.float32),
    np.array(True),
    np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    np.arange(10)[::3],
    {"arrays": [np.ones(2, dtype=np.uint8), (np.float16([1.5]),)]},
]


def same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize("value", EXACT, ids=lambda v: type(v).__name__)
def test_the_family_carries_these_exactly(value) -> None:
    header, frames = odask.serialize(value)
    back = odask.deserialize(header, frames)
    assert same(back, value), (back, value)
    if isinstance(back, np.ndarray):
        assert back.flags.writeable


def test_a_top_level_array_is_one_frame_without_a_copy() -> None:
    array = np.arange(1000, dtype=np.float64)
    header, frames = odask.serialize(array)
    assert header == {"kind": "ndarray", "dtype": "<f8", "shape": [1000]}
    assert len(frames) == 1 and frames[0].nbytes == array.nbytes
    assert np.shares_memory(np.frombuffer(frames[0], dtype=np.float64), array)


class Custom:
    pass


REFUSED = [
    {1, 2},
    frozenset(),
    {1: "int key"},
    2**64,
    datetime.datetime(2025, 1, 1),
    Custom(),
    [1, Custom()],
    {"deep": (np.array([object()], dtype=object),)},
    np.float64(1.0),
    type("ListSub", (list,), {})(),
    np.ma.masked_array([1, 2]),
    np.zeros(2, dtype=[("a", "i4")]),
]


@pytest.mark.parametrize("value", REFUSED, ids=lambda v: type(v).__name__)
def test_anything_else_goes_to_the_next_family(value) -> None:
    with pytest.raises(NotImplementedError, match="orcodec family does not carry"):
        odask.serialize(value)
    header, frames = serialize(value, serializers=["orcodec", "pickle"])
    # Pickle takes it, or distributed splits a container into its members.
    assert header.get("serializer") == "pickle" or header.get("is-collection") is True
    back = deserialize(header, frames)
    assert type(back) is type(value)


def test_through_distributed_serialize() -> None:
    value = {"x": (1, 2), "y": np.arange(3)}
    header, frames = serialize(value, serializers=["orcodec"])
    back = deserialize(header, frames, deserializers=["orcodec"])
    assert same(back, value)
    with pytest.raises(TypeError, match="Could not serialize object of type set"):
        serialize({1}, serializers=["orcodec"], on_error="raise")


def increment(data):
    # Runs in a worker process: the inputs arrived through the family.
    return {
        "pid": os.getpid(),
        "matrix": data["matrix"] + 1,
        "pairs": tuple((b, a) for a, b in data["pairs"]),
        "writeable": data["matrix"].flags.writeable,
        "dtype": data["matrix"].dtype.str,
    }


def total(parts):
    return float(sum(p["matrix"].sum() for p in parts))


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            preload=["orcodec.integrations.dask"],
        ) as cluster,
        Client(cluster, serializers=["orcodec"], deserializers=["orcodec"]) as client,
    ):
        yield client


def test_a_computation_across_worker_processes(client) -> None:
    data = [{"matrix": np.arange(6, dtype=">f8").reshape(2, 3) * i, "pairs": ((1, "a"), (2, "b"))} for i in range(4)]
    scattered = client.scatter(data)  # out through the family
    results = client.gather(client.map(increment, scattered))  # back through the family
    pids = {r["pid"] for r in results}
    assert os.getpid() not in pids
    for i, result in enumerate(results):
        assert same(result["matrix"], np.arange(6, dtype=">f8").reshape(2, 3) * i + 1)
        assert result["pairs"] == (("a", 1), ("b", 2))
        assert result["writeable"] is True
    # A task whose inputs are other tasks' results, on whichever worker holds them.
    assert client.submit(total, client.map(increment, scattered)).result() == float(
        sum((np.arange(6) * i + 1).sum() for i in range(4))
    )


def test_a_value_the_family_refuses_is_an_error_with_only_orcodec(client) -> None:
    # With "orcodec" as the only family, a date inside a result cannot be
    # sent: the worker sends distributed's error frame instead, which the
    # client refuses to read.
    future = client.submit(lambda: {"s": "x", "x": datetime.date(2025, 1, 1)})
    with pytest.raises(TypeError, match="Data serialized with error but only able to deserialize data with"):
        future.result()
    assert orcodec.__version__

"""A real Celery worker on a real Redis broker, with each orcodec serializer.

The `redis` fixture starts Debian's `redis-server` on a free loopback port
with its own temporary directory (no persistence) and stops it after the
module. The `workers` fixture starts one Celery worker process per
serializer (`celery -A test_integrations_celery:app_json worker`,
`app_msgpack` and `app_numpy`, run from this directory), each with its own queue and its
result serializer, and stops them after the module.

This module is also what the workers import: the apps read the broker's URL
from ORCODEC_TEST_REDIS_URL.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import gc
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from celery import Celery
from kombu.exceptions import EncodeError

UTC = datetime.timezone.utc
REDIS_URL = os.environ.get("ORCODEC_TEST_REDIS_URL", "redis://127.0.0.1:1/0")
SERIALIZERS = {"json": "orcodec-json", "msgpack": "orcodec-msgpack", "numpy": "orcodec-msgpack-numpy"}


def make_app(kind: str) -> Celery:
    # No import of orcodec.integrations: the entry points make the names known.
    serializer = SERIALIZERS[kind]
    app = Celery(f"orcodec_test_{kind}", broker=REDIS_URL, backend=REDIS_URL)
    app.conf.update(
        task_serializer=serializer,
        result_serializer=serializer,
        accept_content=[serializer],
        result_accept_content=[serializer],
        task_default_queue=f"orcodec-{kind}",
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        result_expires=60,
    )

    @app.task(name="echo")
    def echo(value):
        return value

    @app.task(name="describe")
    def describe(value):
        # What the worker received: the Python types, to compare with what was sent.
        return {key: type(item).__name__ for key, item in value.items()}

    @app.task(name="array_stats")
    def array_stats(rows):
        array = np.asarray(rows)
        return {"sum": array.sum(), "shape": array.shape, "mean": array.mean(axis=0), "pid": os.getpid()}

    @app.task(name="unserializable")
    def unserializable():
        return {"socket": socket.socket}

    return app


app_json = make_app("json")
app_msgpack = make_app("msgpack")
app_numpy = make_app("numpy")
APPS = {"json": app_json, "msgpack": app_msgpack, "numpy": app_numpy}


@dataclasses.dataclass
class Shipment:
    id: uuid.UUID
    sent: datetime.datetime
    weight: decimal.Decimal
    items: list


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def redis(tmp_path_factory) -> Iterator[str]:
    server = shutil.which("redis-server")
    if server is None:
        pytest.fail("redis-server is not installed; on Debian or Ubuntu: apt-get install -y redis-server")
    import redis as redis_client

    port = free_port()
    directory = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory), "--save", "",
         "--appendonly", "no", "--daemonize", "no", "--logfile", str(directory / "redis.log")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis_client.Redis.from_url(url)
        deadline = time.monotonic() + 15
        while True:
            if proc.poll() is not None:
                pytest.fail(f"redis-server exited with {proc.returncode}: {(directory / 'redis.log').read_text()}")
            try:
                client.ping()
                break
            except redis_client.ConnectionError:
                if time.monotonic() > deadline:
                    pytest.fail("redis-server did not answer within 15 s")
                time.sleep(0.05)
        client.close()
        yield url
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def workers(redis, tmp_path_factory) -> Iterator[dict[str, Celery]]:
    env = {**os.environ, "ORCODEC_TEST_REDIS_URL": redis}
    logs = tmp_path_factory.mktemp("celery")
    procs = {}
    for kind in APPS:
        APPS[kind].conf.broker_url = APPS[kind].conf.result_backend = redis
        out = open(logs / f"{kind}.log", "wb")  # noqa: SIM115 - closed below
        procs[kind] = (
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    f"test_integrations_celery:app_{kind}",
                    "worker",
                    "--pool",
                    "solo",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    "--loglevel",
                    "WARNING",
                    "--hostname",
                    f"orcodec-{kind}@%h",
                ],
                cwd=Path(__file__).parent,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            ),  # fmt: skip
            out,
        )
    try:
        for kind, (proc, _) in procs.items():
            deadline = time.monotonic() + 60
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"celery worker {kind} exited: {(logs / f'{kind}.log').read_text()}")
                if APPS[kind].control.ping(destination=[f"orcodec-{kind}@{socket.gethostname()}"], timeout=0.5):
                    break
                if time.monotonic() > deadline:
                    pytest.fail(f"celery worker {kind} did not answer within 60 s")
        yield APPS
    finally:
        # Results still referenced unsubscribe from the backend as they go:
        # let them go while it is open.
        gc.collect()
        for proc, out in procs.values():
            stop(proc)
            out.close()
        for app in APPS.values():
            app.close()


@pytest.mark.parametrize("kind", ["json", "msgpack", "numpy"])
def test_arguments_and_results_round_trip(workers, kind) -> None:
    app = workers[kind]
    value = {
        "when": datetime.datetime(2025, 6, 30, 23, 59, 59, 999999, tzinfo=UTC),
        "naive": datetime.datetime(2025, 6, 30, 8, 0),
        "day": datetime.date(2025, 6, 30),
        "id": uuid.UUID("0f0e0d0c-0b0a-0908-0706-050403020100"),
        "amount": decimal.Decimal("-0.010"),
        "blob": b"\x00\xffbinary",
        "text": "\u00e9\U0001f600",
        "nested": [{"at": datetime.time(1, 2, 3)}, None, 1.5, -(2**63)],
    }
    result = app.send_task("echo", args=[value]).get(timeout=20)
    assert result == value
    assert {k: type(v) for k, v in result.items()} == {k: type(v) for k, v in value.items()}
    received = app.send_task("describe", args=[value]).get(timeout=20)
    assert received == {
        "when": "datetime", "naive": "datetime", "day": "date", "id": "UUID", "amount": "Decimal",
        "blob": "bytes", "text": "str", "nested": "list",
    }  # fmt: skip


@pytest.mark.parametrize("kind", ["json", "msgpack", "numpy"])
def test_dataclasses_go_as_maps_with_their_typed_fields(workers, kind) -> None:
    app = workers[kind]
    shipment = Shipment(uuid.UUID(int=42), datetime.datetime(2025, 1, 1, tzinfo=UTC), decimal.Decimal("1.25"), ["a"])
    result = app.send_task("echo", args=[shipment]).get(timeout=20)
    assert result == dataclasses.asdict(shipment)
    assert type(result["id"]) is uuid.UUID and type(result["sent"]) is datetime.datetime


@pytest.mark.parametrize("kind", ["json", "msgpack", "numpy"])
def test_numpy_arrays_in_arguments_and_results(workers, kind) -> None:
    app = workers[kind]
    rows = np.array([[1.5, 2.0], [3.0, -4.25]])
    result = app.send_task("array_stats", args=[rows]).get(timeout=20)
    assert result["shape"] == [2, 2]
    assert result["pid"] != os.getpid()
    if kind == "numpy":
        # Arrays and numpy scalars travel as numpy's extension: they come
        # back as what the worker returned, dtype and all.
        assert type(result["sum"]) is np.float64 and result["sum"] == rows.sum()
        assert type(result["mean"]) is np.ndarray and result["mean"].dtype == np.float64
        assert result["mean"].tobytes() == rows.mean(axis=0).tobytes()
        assert result["mean"].flags.writeable
        return
    # Arrays travel as nested lists (numpy scalars as numbers): the worker
    # rebuilt the array from them and its results came back as lists.
    assert result["sum"] == rows.sum()
    assert result["mean"] == rows.mean(axis=0).tolist()


@pytest.mark.parametrize("kind", ["json", "msgpack", "numpy"])
def test_an_unserializable_result_fails_cleanly(workers, kind) -> None:
    app = workers[kind]
    async_result = app.send_task("unserializable")
    with pytest.raises(EncodeError, match="serializable: type") as info:
        async_result.get(timeout=20)
    assert async_result.state == "FAILURE"
    assert info.type is EncodeError
    # The worker goes on.
    assert app.send_task("echo", args=[[1, 2]]).get(timeout=20) == [1, 2]


def test_an_unserializable_argument_fails_at_the_sender(workers) -> None:
    with pytest.raises(EncodeError, match="serializable: object"):
        workers["json"].send_task("echo", args=[object()])

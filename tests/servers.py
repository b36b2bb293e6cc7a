"""A real uvicorn server on a loopback port, started and stopped by a test."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def uvicorn(app: str, probe: str, log_dir: Path) -> Iterator[str]:
    """Serves `app` ("module:attribute" of tests/) on 127.0.0.1 until the block
    ends; gives its base URL once `probe` answers. The server must stop on
    SIGINT, cleanly."""
    port = free_port()
    log = log_dir / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", app,
             "--app-dir", str(Path(__file__).parent), "--host", "127.0.0.1", "--port", str(port),
             "--log-level", "warning"],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                pytest.fail(f"uvicorn exited with {proc.returncode}:\n{log.read_text()}")
            try:
                httpx.get(base + probe, timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    pytest.fail(f"uvicorn did not answer on {base} within 30 s:\n{log.read_text()}")
                time.sleep(0.05)
        yield base
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode in (0, -signal.SIGINT), log.read_text()

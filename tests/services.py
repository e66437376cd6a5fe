"""Real ``redis-server`` and ``chroma run`` processes for tests, on free loopback ports.

Each fixture starts its server in a fresh temporary folder, waits until it
answers, yields its address and stops it (SIGTERM, then SIGKILL) afterwards.
A missing ``redis-server`` fails the test with the install command: the
Makefile's ``test`` target installs it on Debian (``apt-get install -y
redis-server``), so no test is skipped for lack of a service.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

STARTUP_TIMEOUT = 60.0  # seconds; chroma run is slow to start on a busy 2-core machine


@dataclass(frozen=True)
class Service:
    host: str
    port: int
    process: subprocess.Popen

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(ready: Callable[[], bool], process: subprocess.Popen, name: str) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode} at start-up")
        try:
            if ready():
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{name} did not answer within {STARTUP_TIMEOUT:g} s")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def _redis_ready(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
        s.sendall(b"PING\r\n")
        return s.recv(16).startswith(b"+PONG")


def start_redis(folder: Path) -> Service:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed: `apt-get install -y redis-server` (Debian).")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait(lambda: _redis_ready(port), process, "redis-server")
    return Service("127.0.0.1", port, process)


def _chroma_ready(port: int) -> bool:
    url = f"http://127.0.0.1:{port}/api/v2/heartbeat"
    with urllib.request.urlopen(url, timeout=2) as response:
        return response.status == 200


def start_chroma(folder: Path) -> Service:
    binary = Path(sys.executable).with_name("chroma")
    port = free_port()
    process = subprocess.Popen(
        [str(binary), "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait(lambda: _chroma_ready(port), process, "chroma run")
    return Service("127.0.0.1", port, process)


def _running(start: Callable[[Path], Service], prefix: str) -> Iterator[Service]:
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        service = start(Path(folder))
        try:
            yield service
        finally:
            stop(service.process)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[Service]:
    yield from _running(start_redis, "pt-redis-")


@pytest.fixture(scope="session")
def chroma_server() -> Iterator[Service]:
    yield from _running(start_chroma, "pt-chroma-")


@pytest.fixture
def redis_client(redis_server):
    """A client of the session's Redis, emptied before each test."""
    import redis

    client = redis.Redis(host=redis_server.host, port=redis_server.port)
    client.flushall()
    yield client
    client.close()

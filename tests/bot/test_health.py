"""bot/health.py: the /healthz payload and the stdlib server that answers it."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

from bot.health import HEALTH_PATH, health_payload, serve_health
from papertrail.settings import Settings


class Pipeline:
    def __init__(self, stats=None, fail=False):
        self._stats, self._fail = stats, fail

    def stats(self):
        if self._fail:
            raise OSError("disk gone")
        return self._stats


class Service:
    def __init__(self, pipeline, settings):
        self.pipeline, self.settings = pipeline, settings


def get(port: int, path: str, method: str = "GET"):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def test_payload_from_a_service_and_from_a_pipeline():
    service = Service(Pipeline({"documents": 3}), Settings(groq_api_key="gsk_x"))
    body = health_payload(service, mode="discord")
    assert body["status"] == "ok" and body["mode"] == "discord"
    assert body["documents"] == 3 and body["llm"] is True
    assert body["uptime_s"] >= 0 and body["version"]
    bare = health_payload(object())
    assert bare["status"] == "ok" and "documents" not in bare and "llm" not in bare
    assert health_payload(Pipeline({"documents": 0}))["documents"] == 0


def test_payload_is_degraded_not_raised_when_stats_fail():
    assert health_payload(Pipeline(fail=True))["status"] == "degraded"


@pytest.fixture
def server():
    state = {"target": Service(Pipeline({"documents": 1}), Settings())}
    srv = serve_health(0, lambda: health_payload(state["target"], mode="local"), host="127.0.0.1")
    yield srv, state
    srv.close()


def test_healthz_answers_json(server):
    srv, _ = server
    status, headers, body = get(srv.port, HEALTH_PATH)
    assert status == 200 and headers["Content-Type"] == "application/json"
    data = json.loads(body)
    assert data["status"] == "ok" and data["documents"] == 1 and data["llm"] is False
    assert get(srv.port, HEALTH_PATH + "?probe=render")[0] == 200
    status, _, body = get(srv.port, HEALTH_PATH, method="HEAD")
    assert status == 200 and body == b""


def test_other_paths_are_404(server):
    srv, _ = server
    status, _, body = get(srv.port, "/")
    assert status == 404 and json.loads(body)["try"] == HEALTH_PATH


def test_degraded_is_503_so_the_host_restarts_the_process(server):
    srv, state = server
    state["target"] = Pipeline(fail=True)
    status, _, body = get(srv.port, HEALTH_PATH)
    assert status == 503 and json.loads(body)["status"] == "degraded"


def test_close_frees_the_port():
    srv = serve_health(0, lambda: {"status": "ok"}, host="127.0.0.1")
    port = srv.port
    assert get(port, HEALTH_PATH)[0] == 200
    srv.close()
    with pytest.raises(urllib.error.URLError):
        get(port, HEALTH_PATH)


def test_half_open_connections_neither_multiply_threads_nor_block_the_probe():
    srv = serve_health(0, lambda: {"status": "ok"}, host="127.0.0.1")
    try:
        before = threading.active_count()
        sockets = [socket.create_connection(("127.0.0.1", srv.port), timeout=5) for _ in range(200)]
        for sock in sockets[::2]:
            sock.sendall(b"GET /heal")  # half a request line, then silence
        time.sleep(0.5)
        assert threading.active_count() - before <= 4  # the handler pool, not one per socket
        for sock in sockets:
            sock.close()
        deadline = time.monotonic() + 15
        while True:  # the silent ones are closed within seconds and the probe answers again
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{srv.port}{HEALTH_PATH}", timeout=2
                ) as r:
                    assert r.status == 200
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
    finally:
        srv.close()

"""A tiny ``/healthz`` endpoint for processes that serve no other HTTP.

``health_payload`` builds the JSON body from a ``ChatService`` or a
``PaperTrail`` (the Slack HTTP server reuses it for its own route);
``serve_health`` answers ``GET``/``HEAD /healthz`` from a daemon thread with the
standard library's parser on a bounded server (``adapters/http_bounds.py``: a
few handler threads and connections, each closed within seconds, so
half-open connections cannot pile up threads). It reports that the process is up and what it
runs; it does not probe Slack, Discord or the LLM, so a platform outage never
makes the host restart a healthy bot.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

import papertrail
from adapters.http_bounds import SOCKET_TIMEOUT, BoundedHTTPServer

HEALTH_PATH = "/healthz"
STARTED = time.monotonic()  # process start, near enough: bot is imported first

log = logging.getLogger(__name__)


def health_payload(target: object = None, *, mode: str = "") -> dict:
    """``{"status": "ok", "uptime_s": ..., "version": ...}`` plus what ``target`` tells.

    ``target`` is a ``ChatService`` (its ``pipeline`` and ``settings`` are read
    when present) or a pipeline. A pipeline that offers ``stats() -> dict``
    (e.g. document counts) has it merged in; failures there mark the payload
    ``"degraded"`` instead of raising, because the endpoint must answer.
    """
    payload: dict = {
        "status": "ok",
        "uptime_s": round(time.monotonic() - STARTED, 1),
        "version": papertrail.__version__,
    }
    if mode:
        payload["mode"] = mode
    settings = getattr(target, "settings", None)
    if settings is not None and hasattr(settings, "llm_configured"):
        payload["llm"] = bool(settings.llm_configured)
    pipeline = getattr(target, "pipeline", target)
    stats = getattr(pipeline, "stats", None)
    if callable(stats):
        try:
            payload.update(stats())
        except Exception as exc:  # reported, not raised: the probe must get an answer
            log.warning("health stats failed: %s", exc)
            payload["status"] = "degraded"
    return payload


class HealthServer:
    """A running health endpoint; ``port`` is the bound port (useful with port 0)."""

    def __init__(self, server: BoundedHTTPServer, thread: threading.Thread) -> None:
        self._server = server
        self._thread = thread
        self.port: int = server.server_address[1]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def serve_health(port: int, payload: Callable[[], dict], host: str = "0.0.0.0") -> HealthServer:
    """Serve ``payload()`` as JSON at ``/healthz`` on ``host:port`` from a daemon thread."""

    class Handler(BaseHTTPRequestHandler):
        timeout = SOCKET_TIMEOUT  # per read: a silent client is dropped, not waited for
        default_request_version = "HTTP/1.0"  # so even a garbled request line gets a status

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self._answer(include_body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._answer(include_body=False)

        def _answer(self, include_body: bool) -> None:
            if self.path.split("?", 1)[0] != HEALTH_PATH:
                status, body = 404, {"error": "not found", "try": HEALTH_PATH}
            else:
                body = payload()
                status = 200 if body.get("status") == "ok" else 503
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if include_body:
                self.wfile.write(data)

        def log_message(self, format: str, *args) -> None:
            log.debug("health: " + format, *args)  # probes every few seconds: not INFO

    # a probe needs little: few threads, few connections, each closed within seconds
    server = BoundedHTTPServer((host, port), Handler, max_connections=32, max_threads=4)
    thread = threading.Thread(target=server.serve_forever, args=(0.1,), name="healthz", daemon=True)
    thread.start()
    log.info("health check on http://%s:%d%s", host, server.server_address[1], HEALTH_PATH)
    return HealthServer(server, thread)

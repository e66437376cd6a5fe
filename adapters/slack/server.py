"""Serving a Bolt app: the Events API over HTTP, or a Socket Mode connection.

``run_http`` serves ``/slack/events`` (signed event and slash-command
requests) and ``/healthz`` on a bounded server (``adapters/http_bounds.py``:
capped connections and threads, a deadline per request), and nothing is
parsed before ``admission.admit`` has checked its size, timestamp and
signature; ``run_socket_mode`` needs an
``xapp-`` token.
What the listeners do is ``events.py``'s and ``commands.py``'s.
"""

from __future__ import annotations

import logging
import threading
from http.server import BaseHTTPRequestHandler

from slack_bolt import App, BoltRequest

from adapters.http_bounds import (
    MAX_CONNECTIONS,
    MAX_THREADS,
    REQUEST_SECONDS,
    SOCKET_TIMEOUT,
    BoundedHTTPServer,
)
from adapters.slack.admission import Refusal, admit
from papertrail.errors import PaperTrailError

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"


def make_http_server(
    app: App,
    port: int,
    host: str = "0.0.0.0",
    *,
    max_connections: int = MAX_CONNECTIONS,
    max_threads: int = MAX_THREADS,
    request_seconds: float = REQUEST_SECONDS,
) -> BoundedHTTPServer:
    """A bounded server for ``/slack/events`` and ``/healthz`` (port 0 = any free port)."""
    secret = getattr(getattr(app, "papertrail", None), "signing_secret", None) or ""

    class Handler(BaseHTTPRequestHandler):
        timeout = SOCKET_TIMEOUT  # per read: a silent client is dropped, not waited for
        default_request_version = "HTTP/1.0"  # so even a garbled request line gets a status

        def do_GET(self):
            if self.path.partition("?")[0] == HEALTH_PATH:
                self._send(200, {}, "ok")
            else:
                self._send(404, {}, "not found")

        def do_POST(self):
            self.close_connection = True  # one request per connection: no idle keep-alive
            path, _, query = self.path.partition("?")
            if path != EVENTS_PATH:
                self._send(404, {}, "not found")
                return
            body = admit(self.headers, self.rfile, secret)
            if isinstance(body, Refusal):
                log.info("refused a request to %s: %s %s", path, body.status, body.reason)
                self._send(body.status, {}, body.reason)
                return
            headers = {k.lower(): self.headers.get_all(k) for k in self.headers}
            try:
                response = app.dispatch(BoltRequest(body=body, query=query, headers=headers))
            except Exception:
                log.exception("Bolt failed on a signed request")
                self._send(500, {}, "internal error")
                return
            self._send(response.status, response.headers, response.body)

        def _send(self, status: int, headers: dict, body) -> None:
            data = (body if isinstance(body, str) else str(body or "")).encode("utf-8")
            self.send_response(status)
            for name, values in headers.items():
                if name.lower() == "content-length":
                    continue
                for value in values if isinstance(values, list | tuple) else [values]:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args):
            log.debug("http: " + format, *args)

    return BoundedHTTPServer(
        (host, port),
        Handler,
        max_connections=max_connections,
        max_threads=max_threads,
        request_seconds=request_seconds,
    )


def run_http(app: App, port: int, host: str = "0.0.0.0") -> None:
    """Serve the Events API over HTTP until interrupted; needs a signing secret."""
    bot = app.papertrail
    if not bot.signing_secret:
        raise PaperTrailError(
            "HTTP mode needs SLACK_SIGNING_SECRET (Basic Information > App Credentials), "
            "or set SLACK_APP_TOKEN to use Socket Mode instead.",
            code="config",
        )
    server = make_http_server(app, port, host)
    log.info("listening on %s:%s%s", host, server.server_port, EVENTS_PATH)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        bot.close()


def start_socket_mode(app: App, app_token: str):
    """Connect over Socket Mode (no public URL needed) and return the handler; non-blocking."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    if not app_token.startswith("xapp-"):
        raise PaperTrailError(
            "SLACK_APP_TOKEN must be an app-level token starting with xapp- "
            "(Basic Information > App-Level Tokens, scope connections:write).",
            code="config",
        )
    handler = SocketModeHandler(app, app_token)
    handler.connect()
    return handler


def run_socket_mode(app: App, app_token: str) -> None:
    """Receive events over Socket Mode until interrupted."""
    handler = start_socket_mode(app, app_token)
    log.info("connected to Slack over Socket Mode")
    try:
        threading.Event().wait()
    finally:
        handler.close()
        app.papertrail.close()

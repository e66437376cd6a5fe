"""Serving a Bolt app: the Events API over HTTP, or a Socket Mode connection.

``run_http`` serves ``/slack/events`` (signed event and slash-command
requests) and ``/healthz`` on a bounded server: at most ``MAX_CONNECTIONS``
open connections and ``MAX_THREADS`` handler threads, every request done
within ``REQUEST_SECONDS``, and nothing parsed before ``admission.admit``
has checked its size, timestamp and signature; ``run_socket_mode`` needs an
``xapp-`` token.
What the listeners do is ``slack_events.py``'s and ``slack_commands.py``'s.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, HTTPServer

from slack_bolt import App, BoltRequest

from adapters.slack.admission import Refusal, admit
from papertrail.errors import PaperTrailError

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"


MAX_CONNECTIONS = 64  # open at once; more are answered 503 at once and closed
MAX_THREADS = 16  # handler threads, whatever the number of connections
REQUEST_SECONDS = 10.0  # a connection's whole request must arrive within this
SOCKET_TIMEOUT = 5.0  # seconds one read may wait
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\n"
    b"Connection: close\r\n\r\n"
)


class _EventServer(HTTPServer):
    """A TCP server with a fixed pool of handler threads and a cap on open connections.

    ``ThreadingHTTPServer`` starts a thread per connection, so 300 half-open
    connections made 321 threads. Here a connection over ``MAX_CONNECTIONS``
    gets a 503 on the accept thread and is closed; the others wait for one of
    ``MAX_THREADS`` threads; and one watchdog thread shuts down any connection
    still open ``REQUEST_SECONDS`` after it was accepted (a slow or silent
    client), which ends its blocked read.
    """

    # socketserver listens with a backlog of 5: a burst of deliveries (Slack retries,
    # many channels at once) got connections reset while the accept loop was busy.
    request_queue_size = 128
    allow_reuse_address = True

    def __init__(
        self, address, handler, *, max_connections: int, max_threads: int, request_seconds: float
    ) -> None:
        super().__init__(address, handler)
        self.max_connections = max_connections
        self.request_seconds = request_seconds
        self._pool = ThreadPoolExecutor(max_threads, thread_name_prefix="slack-http")
        self._open: dict[socket.socket, float] = {}  # connection -> deadline (monotonic)
        self._guard = threading.Lock()
        self._closed = threading.Event()
        self._watchdog = threading.Thread(target=self._watch, name="slack-http-watch", daemon=True)
        self._watchdog.start()

    def process_request(self, request, client_address) -> None:
        with self._guard:
            full = len(self._open) >= self.max_connections
            if not full:
                self._open[request] = time.monotonic() + self.request_seconds
        if full:
            with contextlib.suppress(OSError):
                request.setblocking(False)
                request.send(_BUSY)
            self.shutdown_request(request)
            return
        self._pool.submit(self._serve, request, client_address)

    def _serve(self, request, client_address) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            with self._guard:
                self._open.pop(request, None)
            self.shutdown_request(request)

    def _watch(self) -> None:
        while not self._closed.wait(0.25):
            now = time.monotonic()
            with self._guard:
                late = [s for s, deadline in self._open.items() if deadline < now]
            for sock in late:
                with contextlib.suppress(OSError):  # the blocked read returns; the thread frees
                    sock.shutdown(socket.SHUT_RDWR)

    def open_connections(self) -> int:
        with self._guard:
            return len(self._open)

    def server_close(self) -> None:
        self._closed.set()
        super().server_close()
        self._pool.shutdown(wait=False, cancel_futures=True)


def make_http_server(
    app: App,
    port: int,
    host: str = "0.0.0.0",
    *,
    max_connections: int = MAX_CONNECTIONS,
    max_threads: int = MAX_THREADS,
    request_seconds: float = REQUEST_SECONDS,
) -> _EventServer:
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

    return _EventServer(
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

"""An HTTP server whose connections cannot multiply threads or linger.

``http.server.ThreadingHTTPServer`` starts a thread per connection and waits
on a silent client for as long as it stays connected, so 300 half-open
connections made 321 threads in the Slack bot. ``BoundedHTTPServer`` keeps
the standard library's request parsing and changes only how connections are
served: a fixed pool of handler threads, a cap on open connections (the
extra ones get a 503 and are closed at once), and one watchdog thread that
closes any connection still open a fixed time after it was accepted. The
Slack endpoint (``slack/server.py``) and the health endpoint of the other
bot processes (``bot/health.py``) use it; what a request may contain is
their business.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import HTTPServer

MAX_CONNECTIONS = 64  # open at once; more are answered 503 at once and closed
MAX_THREADS = 16  # handler threads, whatever the number of connections
REQUEST_SECONDS = 10.0  # a connection's whole request must arrive within this
SOCKET_TIMEOUT = 5.0  # seconds one read may wait
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\n"
    b"Connection: close\r\n\r\n"
)


class BoundedHTTPServer(HTTPServer):
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
        self,
        address,
        handler,
        *,
        max_connections: int = MAX_CONNECTIONS,
        max_threads: int = MAX_THREADS,
        request_seconds: float = REQUEST_SECONDS,
    ) -> None:
        super().__init__(address, handler)
        self.max_connections = max_connections
        self.request_seconds = request_seconds
        self._pool = ThreadPoolExecutor(max_threads, thread_name_prefix="http-worker")
        self._open: dict[socket.socket, float] = {}  # connection -> deadline (monotonic)
        self._guard = threading.Lock()
        self._closed = threading.Event()
        self._watchdog = threading.Thread(target=self._watch, name="http-watchdog", daemon=True)
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

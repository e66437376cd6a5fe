"""The Slack HTTP endpoint under attack: nothing unsigned is read far or parsed, every
malformed request gets a 4xx, and connections cannot multiply threads.

The real Bolt app on a ``ChatService`` stand-in, served by ``make_http_server``
on loopback; requests are written byte by byte on raw sockets, so a server
that reads more than it should (or answers nothing) shows. The same attacks
on the real ``python -m bot slack`` process, with its memory measured, are in
tests/scenarios/test_slack_endpoint_process.py.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import socket
import threading
import time

import pytest

from adapters.slack.admission import MAX_BODY_BYTES
from adapters.slack.app import build_slack_app
from tests.adapters.slack.test_app import EchoService
from tests.fake_slack import FakeSlack, serve_in_background

SECRET = "endpoint-test-secret"


@pytest.fixture
def endpoint(caplog):
    caplog.set_level(logging.DEBUG)
    with FakeSlack() as fake:
        app = build_slack_app(
            EchoService(), bot_token=fake.token, signing_secret=SECRET, api_url=fake.api_url
        )
        from adapters.slack.app import make_http_server

        servers = []

        def start(**limits):
            server = make_http_server(app, 0, "127.0.0.1", **limits)
            serve_in_background(server)
            servers.append(server)
            return server

        yield start
        for server in servers:
            server.shutdown()
            server.server_close()
        app.papertrail.close()
    assert "Traceback" not in caplog.text  # every refusal is an answer, not a crash


def raw(port: int, head: bytes, body: bytes = b"", *, timeout: float = 5.0) -> tuple[int, float]:
    """Send ``head`` and ``body`` on a new connection; (HTTP status, seconds to the answer).
    Status 0 = the server closed the connection without answering."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head + body)
        data = b""
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    status = int(data.split(b" ")[1]) if data.startswith(b"HTTP/") else 0
    return status, time.monotonic() - start


def head(length: int | None, *, stamp=None, signature=None, content_type="application/json"):
    lines = ["POST /slack/events HTTP/1.1", "Host: 127.0.0.1", f"Content-Type: {content_type}"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    if stamp is not None:
        lines.append(f"X-Slack-Request-Timestamp: {stamp}")
    if signature is not None:
        lines.append(f"X-Slack-Signature: {signature}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def signed(body: bytes, content_type="application/json", stamp: int | None = None) -> bytes:
    stamp = int(time.time()) if stamp is None else stamp
    mac = hmac.new(SECRET.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256)
    return head(
        len(body), stamp=stamp, signature="v0=" + mac.hexdigest(), content_type=content_type
    )


FORGED = "v0=" + "0" * 64  # the right shape, the wrong value


def test_an_oversized_body_is_refused_413_from_its_header_without_reading_it(endpoint):
    server = endpoint()
    # 60 MB announced, none sent: an answer now proves the body was never waited for
    status, seconds = raw(
        server.server_port, head(60_000_000, stamp=int(time.time()), signature=FORGED)
    )
    assert status == 413 and seconds < 1.0
    status, _ = raw(server.server_port, signed(b"{}"), b"{}")
    assert status not in (413, 0)  # a small signed body is read
    status, seconds = raw(server.server_port, signed(b"x" * (MAX_BODY_BYTES + 1)))  # head only
    assert status == 413 and seconds < 1.0  # even when signed: over Slack's limit


def test_an_unsigned_or_stale_request_is_refused_401_before_its_body_is_read(endpoint):
    server = endpoint()
    now = int(time.time())
    for missing in (head(1000), head(1000, stamp=now), head(1000, signature=FORGED)):
        status, seconds = raw(server.server_port, missing)  # no body sent at all
        assert (status, seconds < 1.0) == (401, True)
    status, seconds = raw(server.server_port, head(1000, stamp=now - 301, signature=FORGED))
    assert status == 401 and seconds < 1.0
    status, _ = raw(server.server_port, head(2, stamp=now, signature=FORGED), b"{}")
    assert status == 401  # read (2 bytes), checked, refused
    body = json.dumps({"type": "url_verification", "challenge": "c"}).encode()
    assert raw(server.server_port, signed(body, stamp=now - 301), body)[0] == 401  # replay


@pytest.mark.parametrize(
    ("body", "content_type", "status"),
    [
        (b"\xff\xfe{not utf-8}", "application/json", 400),
        (b"this is not json", "application/json", 400),
        (b"[1, 2, 3]", "application/json", 400),
        (b"payload=%7Bnot+json", "application/x-www-form-urlencoded", 400),
        (b"no-equals-sign&&&", "application/x-www-form-urlencoded", 400),
        (b"<xml/>", "text/xml", 415),
    ],
    ids=["invalid-utf8", "not-json", "json-array", "bad-payload", "bad-form", "xml"],
)
def test_a_signed_but_malformed_body_gets_a_4xx(endpoint, body, content_type, status):
    server = endpoint()
    assert raw(server.server_port, signed(body, content_type), body)[0] == status


def test_malformed_framing_gets_a_4xx(endpoint):
    port = endpoint().server_port
    now = int(time.time())
    chunked = head(None, stamp=now, signature=FORGED).replace(
        b"\r\n\r\n", b"\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    assert raw(port, chunked, b"2\r\n{}\r\n0\r\n\r\n")[0] == 411
    assert raw(port, head(None, stamp=now, signature=FORGED))[0] == 411
    assert raw(port, head(None).replace(b"\r\n\r\n", b"\r\nContent-Length: -5\r\n\r\n"))[0] == 400
    assert raw(port, b"NONSENSE\r\n\r\n")[0] == 400
    assert raw(port, b"POST /slack/events HTTP/1.1\r\n" + b"X: y\r\n" * 200 + b"\r\n")[0] == 431
    body = json.dumps({"type": "url_verification", "challenge": "c-123"}).encode()
    assert raw(port, signed(body), body)[0] == 200  # and a good request still gets through


def test_half_open_connections_are_capped_and_do_not_multiply_threads(endpoint):
    # the watchdog's limit is well above the time the server takes to accept the 300
    # connections on a loaded machine, so no slot is freed (and taken by a later socket)
    # before they are counted
    server = endpoint(max_connections=20, max_threads=4, request_seconds=4.0)
    before = threading.active_count()
    port = server.server_port
    sockets = []
    for n in range(300):  # connect, send half a request line or nothing, then wait
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        if n % 2:
            sock.sendall(b"POST /slack/ev")
        sockets.append(sock)
    time.sleep(0.5)
    assert threading.active_count() - before <= 4  # the pool's threads at most
    assert server.open_connections() <= 20
    refused = 0
    for sock in sockets[20:]:  # over the cap: answered 503 at once and closed
        sock.settimeout(2)
        refused += sock.recv(64).startswith(b"HTTP/1.1 503")
    assert refused == 280
    time.sleep(4.0)  # the watchdog closes the silent ones still holding a slot
    status, _ = raw(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 200
    assert threading.active_count() - before <= 4
    for sock in sockets:
        sock.close()

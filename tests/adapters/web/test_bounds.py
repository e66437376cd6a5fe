"""The web channel's bounds: upload slots, security headers, and a port already taken."""

from __future__ import annotations

import socket
import urllib.request

import pytest
from aiohttp import web

from adapters.web.headers import CSP
from adapters.web.serve import run_web
from adapters.web.uploads import UploadSlots
from papertrail.errors import PaperTrailError
from tests.web_server import serving, web_service


def test_slots_refuse_a_busy_workspace_with_429_and_a_busy_server_with_503():
    slots = UploadSlots(per_process=3, per_workspace=2)
    first, second = slots.take("a"), slots.take("a")
    with pytest.raises(web.HTTPTooManyRequests) as busy_ws:
        slots.take("a")
    assert "already has 2 uploads in progress" in busy_ws.value.text
    third = slots.take("b")
    with pytest.raises(web.HTTPServiceUnavailable) as busy:
        slots.take("c")
    assert "busy" in busy.value.text and busy.value.headers["Retry-After"]
    first()
    first()  # releasing twice frees one slot only
    slots.take("c")
    with pytest.raises(web.HTTPServiceUnavailable):
        slots.take("d")
    second(), third()
    assert dict(slots.busy) == {"c": 1}


def test_every_response_carries_the_content_security_policy(tmp_path):
    with serving(web_service(tmp_path)) as base:
        for path in ("/w/team", "/static/page.js", "/healthz", "/w/bad%20name"):
            try:
                res = urllib.request.urlopen(base + path, timeout=10)
            except urllib.error.HTTPError as err:  # the 404 too
                res = err
            assert res.headers["Content-Security-Policy"] == CSP, path
            assert res.headers["X-Content-Type-Options"] == "nosniff"
    assert "script-src" not in CSP and "'unsafe-inline'" not in CSP  # default-src 'self'
    assert "frame-ancestors 'none'" in CSP


def test_a_port_already_taken_is_one_clear_error(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(PaperTrailError) as err:
            run_web(web_service(tmp_path), host="127.0.0.1", port=port, max_pdf_bytes=1000)
    message = err.value.message
    assert f"127.0.0.1:{port}" in message and "--port" in message and "\n" not in message

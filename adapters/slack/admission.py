"""What an HTTP request to ``/slack/events`` must show before anything parses it.

``admit`` decides from the headers first (a ``Content-Length`` within
``MAX_BODY_BYTES``, a timestamp within Slack's 5-minute replay window, a
``v0=`` signature of the right shape), then reads exactly that many bytes,
checks the v0 HMAC-SHA256 of ``v0:{timestamp}:{body}`` against the signing
secret, and only then decodes and parses the body (JSON events, or
form-encoded slash commands and interactions). Each failure is a
``Refusal`` with the 4xx status to answer, never an exception: an unsigned
or oversized request costs at most one bounded read and no parsing. Bolt
verifies the signature again when it dispatches; serving connections is
``server.py``'s.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import BinaryIO
from urllib.parse import parse_qs

# bolt-js 5.1 caps bodies at 4 MB for the same attack; Slack's own deliveries are far
# smaller (message text <= 40,000 characters, <= 50 blocks of <= 3,000 characters)
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_SKEW = 300  # seconds: Slack rejects (and we refuse) requests older than 5 minutes
READ_CHUNK = 64 * 1024  # bytes per read while receiving a body
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")
_FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class Refusal:
    status: int  # 4xx
    reason: str  # a short plain-text answer (never echoes the request)


def admit(
    headers: Mapping[str, str],
    body: BinaryIO,
    secret: str,
    *,
    clock: Callable[[], float] = time.time,
    limit: int = MAX_BODY_BYTES,
) -> str | Refusal:
    """The body as text once the request is proven to come from Slack; else a Refusal.

    ``headers`` is looked up case-insensitively by the caller's mapping
    (``http.client.HTTPMessage`` is); ``body`` is the connection's stream.
    """
    if headers.get("Transfer-Encoding"):
        return Refusal(411, "Content-Length required")
    size = _length(headers.get("Content-Length"))
    if isinstance(size, Refusal):
        return size
    if size > limit:
        return Refusal(413, f"body over {limit} bytes")
    stamp = (headers.get("X-Slack-Request-Timestamp") or "").strip()
    if not (stamp.isascii() and stamp.isdigit()) or abs(clock() - int(stamp)) > MAX_SKEW:
        return Refusal(401, "missing or stale X-Slack-Request-Timestamp")
    signature = (headers.get("X-Slack-Signature") or "").strip()
    if not secret or not _SIGNATURE.fullmatch(signature):
        return Refusal(401, "missing or malformed X-Slack-Signature")
    raw = _read(body, size)
    if raw is None:
        return Refusal(400, "body shorter than Content-Length")
    expected = hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + raw, hashlib.sha256)
    if not hmac.compare_digest("v0=" + expected.hexdigest(), signature):
        return Refusal(401, "invalid signature")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Refusal(400, "body is not UTF-8")
    return _parses(text, headers.get("Content-Type") or "")


def _length(value: str | None) -> int | Refusal:
    if value is None:
        return Refusal(411, "Content-Length required")
    value = value.strip()
    if not (value.isascii() and value.isdigit()) or len(value) > 12:
        return Refusal(400, "bad Content-Length")
    return int(value)


def _read(stream: BinaryIO, size: int) -> bytes | None:
    """Exactly ``size`` bytes, read in chunks (None when the client sent fewer)."""
    data = bytearray()
    while len(data) < size:
        chunk = stream.read(min(READ_CHUNK, size - len(data)))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _parses(text: str, content_type: str) -> str | Refusal:
    """``text`` if it is what Bolt will parse (a JSON object, or a form whose
    ``payload`` is a JSON object); else a Refusal."""
    kind = content_type.split(";")[0].strip().lower()
    try:
        if kind == "application/json":
            if not isinstance(json.loads(text), dict):
                return Refusal(400, "JSON body is not an object")
        elif kind == _FORM:
            form = parse_qs(text, keep_blank_values=True, strict_parsing=bool(text))
            if "payload" in form and not isinstance(json.loads(form["payload"][0]), dict):
                return Refusal(400, "payload is not a JSON object")
        else:
            return Refusal(415, "Content-Type must be application/json or form-encoded")
    except ValueError:  # json.JSONDecodeError and parse_qs's errors are ValueErrors
        return Refusal(400, "malformed body")
    return text

"""Slack's Socket Mode, faked on loopback: apps.connections.open plus a websocket.

Attach a ``FakeSocketMode`` to a ``FakeSlack``: the fake Web API then answers
``apps.connections.open`` (with the app-level ``xapp-`` token only) with a
``ws://127.0.0.1`` URL, the websocket greets with ``hello`` and carries
``events_api`` envelopes (with ``retry_attempt``/``retry_reason``, as Slack
sends retries), and the client's acks (``{"envelope_id": ...}``) are recorded.
slack_sdk's built-in client speaks plain ``ws://`` to any port but 443 (its
own test hook). Left out: ``disconnect`` messages and reconnection.
"""

from __future__ import annotations

import itertools
import json
import threading
import time

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import serve

from tests.fake_slack import FakeSlack, event_callback


class FakeSocketMode:
    def __init__(self, fake: FakeSlack, app_token: str = "xapp-1-A0PAPERTRAIL-test") -> None:
        self.fake = fake
        self.app_token = app_token
        self.acks: list[dict] = []
        self.connections: list = []
        self.opened = 0  # apps.connections.open calls that got a URL
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.server = serve(self._session, "127.0.0.1", 0)
        self.port = self.server.socket.getsockname()[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()
        fake.socket_mode = self

    def close(self) -> None:
        for ws in list(self.connections):
            ws.close()
        self.server.shutdown()
        self.fake.socket_mode = None

    def open(self, authorization: str) -> dict:
        """apps.connections.open: a one-time websocket URL for the app-level token."""
        if authorization != f"Bearer {self.app_token}":
            return {"ok": False, "error": "invalid_auth"}
        with self._lock:
            self.opened += 1
        return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/link/?ticket=t{next(self._ids)}"}

    def _session(self, ws) -> None:
        with self._lock:
            self.connections.append(ws)
        hello = {
            "type": "hello",
            "num_connections": 1,
            "debug_info": {"host": "fake", "approximate_connection_time": 18060},
            "connection_info": {"app_id": "A0PAPERTRAIL"},
        }
        ws.send(json.dumps(hello))
        try:
            for message in ws:
                with self._lock:
                    self.acks.append(json.loads(message))
        except ConnectionClosed:  # the client went away without a close frame
            pass
        finally:
            with self._lock:
                self.connections.remove(ws)

    def send(self, event: dict, *, event_id: str | None = None, retry_attempt: int = 0) -> str:
        """Deliver ``event`` over the websocket; returns the envelope id to await."""
        deadline = time.monotonic() + 5
        while not self.connections:
            if time.monotonic() > deadline:
                raise AssertionError("no Socket Mode client connected")
            time.sleep(0.02)
        n = next(self._ids)
        envelope_id = f"env-{n}"
        envelope = {
            "envelope_id": envelope_id,
            "type": "events_api",
            "accepts_response_payload": False,
            "retry_attempt": retry_attempt,
            "retry_reason": "timeout" if retry_attempt else "",
            "payload": event_callback(
                event, event_id or f"EvS{n:07d}", team=self.fake.team, bot_user=self.fake.bot_user
            ),
        }
        self.connections[-1].send(json.dumps(envelope))
        return envelope_id

    def acked(self, envelope_id: str) -> bool:
        with self._lock:
            return any(a.get("envelope_id") == envelope_id for a in self.acks)

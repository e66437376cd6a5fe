"""A loopback server that speaks the OpenAI chat-completions wire protocol.

It answers at ``/openai/v1/chat/completions`` (where ``groq.Groq(base_url=url)``
sends) and ``/v1/chat/completions`` (OpenAI-compatible servers, base URL
``url + "/v1"``), replaying a script of replies: completions with ``usage``,
Groq-like 429s (with ``retry-after`` and an organisation id in the body),
5xx, slow replies and dropped connections. It records every request so tests
can assert on the prompt, model, temperature and auth header. ``replayer``
makes it a replay server instead: each request is answered with the recorded
reply for its question and model (as a real model answered, no markers,
copied reference brackets and all), optionally as slowly as it was
generated. Not here: streaming, tools, ``/models``.

    with FakeOpenAI() as server:
        server.script(rate_limited(retry_after=1), completion("Yes [1]."))
        settings = Settings(groq_api_key="k", groq_base_url=server.url)
        ...
        assert len(server.requests) == 2
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PATHS = ("/openai/v1/chat/completions", "/v1/chat/completions")
ORG_ID = "org_01abc"  # appears in every scripted 429 body; must never reach a user

TPD_MESSAGE = (
    "Rate limit reached for model `{model}` in organization `" + ORG_ID + "` service tier "
    "`on_demand` on tokens per day (TPD): Limit 100000, Used 99503, Requested 905. "
    "Please try again in 6m30.912s. Need more tokens? Upgrade to Dev Tier today at "
    "https://console.groq.com/settings/billing"
)
TPM_MESSAGE = (
    "Rate limit reached for model `{model}` in organization `" + ORG_ID + "` service tier "
    "`on_demand` on tokens per minute (TPM): Limit 6000, Used 5400, Requested 905. "
    "Please try again in {after}s."
)


@dataclass(frozen=True)
class Reply:
    """One scripted response. ``delay`` seconds pass before it is sent; ``drop``
    closes the connection without answering."""

    status: int = 200
    body: Any = None  # dict -> JSON; str/bytes sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False


@dataclass(frozen=True)
class Request:
    """What the server received."""

    path: str
    headers: dict[str, str]  # lower-cased names
    json: Any

    @property
    def messages(self) -> list[dict[str, str]]:
        return self.json.get("messages", [])

    @property
    def prompt(self) -> str:
        """All message contents joined: handy for ``in`` assertions."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)


def completion(
    text: str, *, model: str = "llama-3.3-70b-versatile", prompt_tokens=900, completion_tokens=60
) -> Reply:
    """A successful chat completion whose answer is ``text``."""
    return Reply(
        body={
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def rate_limited(
    retry_after: float | str | None = 1,
    *,
    tpd: bool = False,
    model: str = "llama-3.3-70b-versatile",
    headers: dict[str, str] | None = None,
) -> Reply:
    """A Groq-style 429: per-minute by default, per-day with ``tpd=True``."""
    after = 7 if retry_after is None else retry_after
    message = (TPD_MESSAGE if tpd else TPM_MESSAGE).format(model=model, after=after)
    h = {"x-ratelimit-limit-tokens": "6000", "x-ratelimit-remaining-tokens": "0"}
    if retry_after is not None:
        h["retry-after"] = str(retry_after)
    h.update(headers or {})
    body = {"error": {"message": message, "type": "tokens", "code": "rate_limit_exceeded"}}
    return Reply(status=429, body=body, headers=h)


def server_error(status: int = 500) -> Reply:
    body = {"error": {"message": f"Internal error in organization `{ORG_ID}`", "type": "server"}}
    return Reply(status=status, body=body)


def unauthorized() -> Reply:
    body = {"error": {"message": "Invalid API Key", "type": "invalid_request_error"}}
    return Reply(status=401, body={**body, "code": "invalid_api_key"})


def slow(seconds: float, then: Reply | None = None) -> Reply:
    """``then`` (a completion by default), sent only after ``seconds``."""
    base = then or completion("Too late [1].")
    return Reply(base.status, base.body, base.headers, delay=seconds)


def dropped() -> Reply:
    return Reply(drop=True)


@dataclass(frozen=True)
class Recorded:
    """One recorded reply of a real model: the question it answered and what it wrote."""

    model: str
    question: str
    reply: str
    seconds: float = 0.0  # how long the model took to write it


def asked(request: Request) -> str:
    """The question in a PaperTrail prompt (the user message's ``Question:`` line)."""
    for m in reversed(request.messages):
        for line in str(m.get("content", "")).splitlines():
            if line.startswith("Question: "):
                return line[len("Question: ") :].strip()
    return ""


def replayer(records: Iterable[Recorded], *, speed: float = 0.0) -> Callable[[Request], Reply]:
    """A ``respond`` that answers each request with the recorded reply to its question
    from the model it names (any model's, when that one has none), after ``speed``
    times the recorded seconds; a question never recorded gets a 404."""
    by_key = {(r.model, r.question): r for r in records}
    by_question = {r.question: r for r in by_key.values()}

    def respond(request: Request) -> Reply:
        question = asked(request)
        found = by_key.get((request.json.get("model"), question)) or by_question.get(question)
        if found is None:
            return Reply(404, {"error": {"message": f"no recorded reply for {question!r}"}})
        reply = completion(found.reply, model=found.model)
        return Reply(reply.status, reply.body, reply.headers, delay=found.seconds * speed)

    return respond


class FakeOpenAI:
    """The server; a context manager. ``url`` is the Groq base URL, ``v1_url`` the
    OpenAI-compatible one. When the script runs out it answers ``default``."""

    def __init__(
        self,
        default: Reply | None = None,
        *,
        respond: Callable[[Request], Reply | None] | None = None,
        port: int = 0,  # 0: any free port
    ) -> None:
        self.default = default or completion("The fake server has no scripted reply.")
        self.respond = respond  # asked first when the script is empty (a replay server)
        self.requests: list[Request] = []
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()  # wakes handlers sleeping in a slow reply
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False  # a slow handler must not stall shutdown
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )  # a short poll makes shutdown quick
        port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{port}"
        self.v1_url = f"{self.url}/v1"

    def script(self, *replies: Reply) -> FakeOpenAI:
        """Queue replies, answered in order, one per request."""
        with self._lock:
            self._script.extend(replies)
        return self

    @property
    def pending(self) -> int:
        """Scripted replies not yet used."""
        with self._lock:
            return len(self._script)

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _next(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._script:
                return self._script.popleft()
        found = self.respond(request) if self.respond is not None else None
        return found if found is not None else self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, like the real APIs

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                headers = {k.lower(): v for k, v in self.headers.items()}
                if self.path.rstrip("/") not in PATHS:
                    self._send(Reply(404, {"error": {"message": f"no route {self.path}"}}))
                    return
                reply = server._next(Request(self.path, headers, body))
                if reply.delay and server._stop.wait(reply.delay):
                    return  # shutting down
                if reply.drop:
                    self.close_connection = True  # close without a byte of response
                    return
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                if isinstance(reply.body, dict | list):
                    data, kind = json.dumps(reply.body).encode(), "application/json"
                else:
                    data = reply.body if isinstance(reply.body, bytes) else str(reply.body).encode()
                    kind = "text/plain"
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): that is the point of a slow reply

            def log_message(self, *args) -> None:  # keep test output quiet
                pass

        return Handler

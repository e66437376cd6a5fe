"""A loopback fake of Slack that speaks the real wire protocol, for scenario tests.

``FakeSlack`` is one threaded HTTP server on 127.0.0.1 playing three Slack
hosts: the Web API under ``/api/<method>`` (the methods the bot uses, with
Slack's response shapes and limits: blocks <= 50, section text <= 3,000,
message text <= 40,000), the file host serving ``url_private_download``
(PDF bytes only for the right Bearer token, otherwise Slack's HTML sign-in
page), the upload URLs of the files_upload_v2 flow, the assistant thread
methods (``assistant.threads.*``: only in threads opened as assistant threads,
``invalid_thread_ts`` elsewhere) and streaming (``chat.startStream`` /
``appendStream`` / ``stopStream``; ``streaming = False`` answers
``unknown_method`` as a workspace without it would). It keeps channels'
messages so history and thread look-ups answer like Slack, and records every
request. ``EventSender`` posts signed Events API requests (v0 HMAC-SHA256) to
the bot, with Slack's retry headers when asked. Socket Mode lives in
``fake_slack_socket.py``. Left out: pagination cursors, rate limiting.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, urlencode, urlsplit

SIGN_IN_PAGE = b"<!DOCTYPE html><html><head><title>Slack</title></head><body>Sign in</body></html>"


@dataclass
class Call:
    """One request the fake received."""

    method: str  # Web API method ("chat.postMessage"), or "GET /files-pri/..."
    params: dict  # query, form and JSON parameters merged
    headers: dict  # lower-case names
    body: bytes = b""


@dataclass
class Upload:
    file_id: str
    filename: str
    data: bytes = b""
    title: str = ""
    channel: str = ""
    thread_ts: str = ""
    shared: bool = False
    headers: dict = field(default_factory=dict)  # of the POST to the upload URL


def _flag(value) -> bool:
    return value in (True, 1, "1", "true", "True")


class FakeSlack:
    """Web API + file host + upload URLs of one workspace with one bot."""

    def __init__(
        self,
        *,
        token: str = "xoxb-test-token",
        team: str = "T1",
        bot_user: str = "UBOT",
        bot_id: str = "BBOT",
    ) -> None:
        self.token, self.team, self.bot_user, self.bot_id = token, team, bot_user, bot_id
        self.lock = threading.RLock()
        self.calls: list[Call] = []
        self.messages: dict[str, list[dict]] = {}  # channel -> messages, oldest first
        self.files: dict[str, tuple[dict, bytes]] = {}  # file id -> (metadata, bytes)
        self.uploads: dict[str, Upload] = {}
        self.errors: dict[str, dict] = {}  # Web API method -> error body it answers with
        self.sign_in_page_for_files = False  # simulates a bot without files:read
        self.reject_blocks = ""  # e.g. "msg_blocks_too_long": refuse any message with blocks
        self.redirect_files_to = ""  # e.g. "http://localhost:PORT": the file host answers 302
        self.socket_mode = None  # a FakeSocketMode answers apps.connections.open when set
        self.users: dict[str, dict] = {}  # user id -> users.info "user" object (is_admin, …)
        self.responses: list[dict] = []  # JSON bodies posted to response_url, in order
        self.assistant_threads: set[tuple[str, str]] = set()  # (channel, thread_ts)
        self.statuses: dict[tuple[str, str], list[str]] = {}  # thread -> statuses, in order
        self.titles: dict[tuple[str, str], str] = {}
        self.prompts: dict[tuple[str, str], list[dict]] = {}  # thread -> suggested prompts
        self.streaming = True  # False: chat.*Stream answer unknown_method
        self._ids = itertools.count(1)
        handler = type("Handler", (_Handler,), {"fake": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port = self.server.server_port
        self.base = f"http://127.0.0.1:{self.port}"
        self.api_url = self.base + "/api/"
        self._thread = serve_in_background(self.server)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> FakeSlack:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # building the workspace ---------------------------------------------------

    def next_ts(self) -> str:
        n = next(self._ids)
        return f"{1_700_000_000 + n}.{n:06d}"

    def add_file(self, name: str, data: bytes, *, mimetype: str = "application/pdf", size=None):
        """A file hosted by the fake; returns Slack's file object."""
        file_id = f"F{next(self._ids):04d}"
        path = f"/files-pri/{self.team}-{file_id}/download/{quote(name)}"
        meta = {
            "id": file_id,
            "name": name,
            "title": name,
            "mimetype": mimetype,
            "filetype": "pdf" if mimetype == "application/pdf" else name.rsplit(".", 1)[-1],
            "size": len(data) if size is None else size,
            "url_private": self.base + path.replace("/download", ""),
            "url_private_download": self.base + path,
            "mode": "hosted",
        }
        with self.lock:
            self.files[file_id] = (meta, data)
        return dict(meta)

    def user_post(
        self, channel: str, text: str, *, files=(), thread_ts: str | None = None, user="U1"
    ) -> dict:
        """A message a person posted (stored for history/replies); returns it."""
        message = {"type": "message", "user": user, "text": text, "ts": self.next_ts()}
        message["team"] = self.team
        if files:
            message["files"] = [dict(f) for f in files]
            message["upload"] = True
        if thread_ts:
            message["thread_ts"] = thread_ts
        with self.lock:
            self.messages.setdefault(channel, []).append(message)
        return dict(message, channel=channel)

    def response_url(self) -> str:
        """A fresh response_url for a slash command; posts to it land in ``responses``."""
        return f"{self.base}/response/{next(self._ids)}"

    def start_assistant_thread(self, channel: str = "D1", user: str = "U1") -> dict:
        """The person opens the assistant view: a DM thread; returns Slack's event."""
        root = self.user_post(channel, "", user=user)
        with self.lock:
            self.assistant_threads.add((channel, root["ts"]))
        return {
            "type": "assistant_thread_started",
            "assistant_thread": {
                "user_id": user,
                "context": {"channel_id": "C1", "team_id": self.team},
                "channel_id": channel,
                "thread_ts": root["ts"],
            },
            "event_ts": self.next_ts(),
        }

    def block_actions(self, message: dict, channel: str, action: dict, *, user: str = "U1"):
        """The ``block_actions`` payload Slack posts when ``user`` clicks ``action`` (an
        element of ``message``'s blocks, with its value) on one of the bot's messages."""
        return {
            "type": "block_actions",
            "user": {"id": user, "username": user.lower(), "team_id": self.team},
            "api_app_id": "A0PAPERTRAIL",
            "token": "legacy-verification-token",
            "container": {
                "type": "message",
                "message_ts": message["ts"],
                "channel_id": channel,
                "is_ephemeral": False,
                "thread_ts": message.get("thread_ts") or message["ts"],
            },
            "trigger_id": f"{next(self._ids)}.1.abc",
            "team": {"id": self.team, "domain": "fake"},
            "channel": {"id": channel, "name": "papers"},
            "message": dict(message),
            "response_url": self.response_url(),
            "actions": [dict(action, action_ts=self.next_ts())],
        }

    # events for a message, as Slack shapes them ---------------------------------

    def app_mention(self, message: dict, *, with_files: bool = False) -> dict:
        event = {"type": "app_mention", "event_ts": message["ts"]}
        for key in ("user", "text", "ts", "channel", "team", "thread_ts"):
            if key in message:
                event[key] = message[key]
        if with_files and message.get("files"):
            event["files"] = message["files"]
        return event

    def message_event(self, message: dict, *, channel_type: str = "channel") -> dict:
        event = {"type": "message", "channel_type": channel_type, "event_ts": message["ts"]}
        for key in ("user", "text", "ts", "channel", "team", "thread_ts", "files", "upload"):
            if key in message:
                event[key] = message[key]
        if message.get("files"):
            event["subtype"] = "file_share"
        return event

    def file_shared(self, file: dict, channel: str, *, user: str = "U1") -> dict:
        return {
            "type": "file_shared",
            "file_id": file["id"],
            "channel_id": channel,
            "user_id": user,
            "file": {"id": file["id"]},
            "event_ts": self.next_ts(),
        }

    def file_deleted(self, file: dict) -> dict:
        return {"type": "file_deleted", "file_id": file["id"], "event_ts": self.next_ts()}

    # assertions --------------------------------------------------------------------

    def calls_to(self, method: str) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.method == method]

    def bot_messages(self, channel: str, thread_ts: str | None = None) -> list[dict]:
        """The bot's messages in ``channel`` (in one thread, if given), as edited."""
        with self.lock:
            return [
                dict(m)
                for m in self.messages.get(channel, [])
                if m.get("bot_id") == self.bot_id
                and (thread_ts is None or m.get("thread_ts") == thread_ts)
            ]

    def shared_files(self, channel: str | None = None) -> list[Upload]:
        with self.lock:
            return [u for u in self.uploads.values() if u.shared and channel in (None, u.channel)]

    def wait_for(self, predicate: Callable[[], object], timeout: float = 10.0):
        """Poll ``predicate`` until it is truthy; its value, or AssertionError."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {predicate}")
            time.sleep(0.02)

    # Web API ------------------------------------------------------------------------

    def api(self, method: str, p: dict, headers: dict) -> dict:
        if method == "apps.connections.open" and self.socket_mode is not None:
            return self.socket_mode.open(headers.get("authorization", ""))
        if headers.get("authorization") != f"Bearer {self.token}":
            return {"ok": False, "error": "invalid_auth"}
        if method in self.errors:
            return {"ok": False, **self.errors[method]}
        handler = getattr(self, "_" + method.replace(".", "_"), None)
        if handler is None:
            return {"ok": False, "error": "unknown_method"}
        with self.lock:
            return handler(p)

    def _auth_test(self, p):
        return {
            "ok": True,
            "url": "https://fake.slack.com/",
            "team": "Fake",
            "user": "papertrail",
            "team_id": self.team,
            "user_id": self.bot_user,
            "bot_id": self.bot_id,
        }

    def _check_message(self, p) -> str | None:
        """Slack's limits: the error code it would answer with, or None."""
        blocks = p.get("blocks") or []
        if isinstance(blocks, str):
            blocks = json.loads(blocks)
        if blocks and self.reject_blocks:
            return self.reject_blocks
        if len(str(p.get("text") or "")) > 40_000:
            return "msg_too_long"
        if len(blocks) > 50:
            return "invalid_blocks"
        for b in blocks:
            texts = [b.get("text", {}).get("text", "")] + [
                e.get("text", "") for e in b.get("elements", [])
            ]
            if any(len(t) > 3000 for t in texts) or len(b.get("elements", [])) > 10:
                return "invalid_blocks"
        if not blocks and not p.get("text"):
            return "no_text"
        return None

    def _chat_postMessage(self, p):
        channel = p.get("channel", "")
        if error := self._check_message(p):
            return {"ok": False, "error": error}
        message = {
            "type": "message",
            "user": self.bot_user,
            "bot_id": self.bot_id,
            "text": p.get("text", ""),
            "blocks": p.get("blocks") or [],
            "ts": self.next_ts(),
        }
        if p.get("thread_ts"):
            message["thread_ts"] = p["thread_ts"]
        self.messages.setdefault(channel, []).append(message)
        return {"ok": True, "channel": channel, "ts": message["ts"], "message": message}

    def _chat_update(self, p):
        if error := self._check_message(p):
            return {"ok": False, "error": error}
        for message in self.messages.get(p.get("channel", ""), []):
            if message["ts"] == p.get("ts"):
                if message.get("bot_id") != self.bot_id:
                    return {"ok": False, "error": "cant_update_message"}
                message["text"] = p.get("text", "")
                message["blocks"] = p.get("blocks") or []
                message["edits"] = message.get("edits", 0) + 1
                return {"ok": True, "channel": p["channel"], "ts": p["ts"], "text": p.get("text")}
        return {"ok": False, "error": "message_not_found"}

    def _conversations_history(self, p):
        channel = p.get("channel", "")
        latest = float(p.get("latest") or "inf")
        inclusive = _flag(p.get("inclusive"))
        limit = int(p.get("limit") or 100)
        top = [  # history shows thread parents, not replies
            m
            for m in self.messages.get(channel, [])
            if m.get("thread_ts") in (None, m["ts"])
            and (float(m["ts"]) < latest or (inclusive and float(m["ts"]) == latest))
        ]
        top.reverse()  # newest first
        return {
            "ok": True,
            "messages": [dict(m) for m in top[:limit]],
            "has_more": len(top) > limit,
        }

    def _conversations_replies(self, p):
        ts = p.get("ts")
        thread = [
            m
            for m in self.messages.get(p.get("channel", ""), [])
            if m["ts"] == ts or m.get("thread_ts") == ts
        ]
        if not thread:
            return {"ok": False, "error": "thread_not_found"}
        limit = int(p.get("limit") or 1000)
        return {"ok": True, "messages": [dict(m) for m in thread[:limit]], "has_more": False}

    def _files_info(self, p):
        if self.sign_in_page_for_files:  # the same token lacks files:read for files.info
            return {"ok": False, "error": "missing_scope", "needed": "files:read"}
        if p.get("file") not in self.files:
            return {"ok": False, "error": "file_not_found"}
        return {"ok": True, "file": dict(self.files[p["file"]][0])}

    def _reactions_add(self, p):
        return self._reaction(p, add=True)

    def _reactions_remove(self, p):
        return self._reaction(p, add=False)

    def _reaction(self, p, *, add: bool):
        for message in self.messages.get(p.get("channel", ""), []):
            if message["ts"] == p.get("timestamp"):
                names = message.setdefault("reaction_names", [])
                if add and p.get("name") in names:
                    return {"ok": False, "error": "already_reacted"}
                if not add and p.get("name") not in names:
                    return {"ok": False, "error": "no_reaction"}
                names.append(p["name"]) if add else names.remove(p["name"])
                message.setdefault("reaction_log", []).append(("+" if add else "-") + p["name"])
                return {"ok": True}
        return {"ok": False, "error": "message_not_found"}

    # the assistant view and streaming -------------------------------------------------

    def _assistant(self, p, field: str, value) -> dict:
        thread = (p.get("channel_id", ""), p.get("thread_ts", ""))
        if thread not in self.assistant_threads:
            return {"ok": False, "error": "invalid_thread_ts"}
        if field == "statuses":
            self.statuses.setdefault(thread, []).append(value)
        else:
            getattr(self, field)[thread] = value
        return {"ok": True}

    def _assistant_threads_setStatus(self, p):
        return self._assistant(p, "statuses", p.get("status", ""))

    def _assistant_threads_setTitle(self, p):
        return self._assistant(p, "titles", p.get("title", ""))

    def _assistant_threads_setSuggestedPrompts(self, p):
        prompts = p.get("prompts")
        prompts = json.loads(prompts) if isinstance(prompts, str) else prompts
        return self._assistant(p, "prompts", list(prompts or []))

    def _chat_startStream(self, p):
        if not self.streaming:
            return {"ok": False, "error": "unknown_method"}
        channel = p.get("channel", "")
        if not channel.startswith("D") and not p.get("recipient_user_id"):
            return {"ok": False, "error": "missing_recipient_user_id"}
        message = {
            "type": "message",
            "user": self.bot_user,
            "bot_id": self.bot_id,
            "text": p.get("markdown_text", ""),
            "blocks": [],
            "ts": self.next_ts(),
            "thread_ts": p.get("thread_ts", ""),
            "streaming": True,
            "stream_log": [p.get("markdown_text", "")] if p.get("markdown_text") else [],
        }
        self.messages.setdefault(channel, []).append(message)
        return {"ok": True, "channel": channel, "ts": message["ts"]}

    def _streamed(self, p) -> dict | None:
        for message in self.messages.get(p.get("channel", ""), []):
            if message["ts"] == p.get("ts") and message.get("streaming"):
                return message
        return None

    def _chat_appendStream(self, p):
        if not self.streaming:
            return {"ok": False, "error": "unknown_method"}
        message = self._streamed(p)
        if message is None:
            return {"ok": False, "error": "message_not_in_streaming_state"}
        message["text"] += p.get("markdown_text", "")
        message["stream_log"].append(p.get("markdown_text", ""))
        return {"ok": True, "channel": p["channel"], "ts": p["ts"]}

    def _chat_stopStream(self, p):
        if not self.streaming:
            return {"ok": False, "error": "unknown_method"}
        message = self._streamed(p)
        if message is None:
            return {"ok": False, "error": "message_not_in_streaming_state"}
        if error := self._check_message({"blocks": p.get("blocks"), "text": "x"}):
            return {"ok": False, "error": error}
        message["text"] += p.get("markdown_text", "")
        message["blocks"] = p.get("blocks") or []
        message["streaming"] = False
        message["streamed"] = True
        return {"ok": True, "channel": p["channel"], "ts": p["ts"], "message": message}

    def _chat_delete(self, p):
        messages = self.messages.get(p.get("channel", ""), [])
        for message in messages:
            if message["ts"] == p.get("ts"):
                if message.get("bot_id") != self.bot_id:
                    return {"ok": False, "error": "cant_delete_message"}
                messages.remove(message)
                return {"ok": True, "channel": p["channel"], "ts": p["ts"]}
        return {"ok": False, "error": "message_not_found"}

    def _users_info(self, p):
        user = self.users.get(p.get("user", ""), {"is_admin": False, "is_owner": False})
        return {"ok": True, "user": dict(user, id=p.get("user", ""))}

    def delete_file(self, file_id: str) -> None:
        """The file is deleted: messages keep a tombstone, files.info answers file_not_found."""
        with self.lock:
            self.files.pop(file_id, None)
            for messages in self.messages.values():
                for m in messages:
                    m["files"] = [
                        {"id": f["id"], "mode": "tombstone"} if f.get("id") == file_id else f
                        for f in m.get("files", [])
                    ]

    def reactions(self, channel: str, ts: str) -> list[str]:
        """The bot's reactions on one message as added and removed, e.g. ["+a", "-a", "+b"]."""
        with self.lock:
            for m in self.messages.get(channel, []):
                if m["ts"] == ts:
                    return list(m.get("reaction_log", []))
        return []

    def _files_getUploadURLExternal(self, p):
        file_id = f"FU{next(self._ids):04d}"
        self.uploads[file_id] = Upload(file_id, p.get("filename", ""))
        return {"ok": True, "upload_url": f"{self.base}/upload/{file_id}", "file_id": file_id}

    def _files_completeUploadExternal(self, p):
        files = p.get("files")
        files = json.loads(files) if isinstance(files, str) else files
        done = []
        for f in files or []:
            upload = self.uploads.get(f.get("id"))
            if upload is None or not upload.data:
                return {"ok": False, "error": "file_not_found"}
            upload.title = f.get("title") or upload.filename
            upload.channel = p.get("channel_id", "")
            upload.thread_ts = p.get("thread_ts", "")
            upload.shared = bool(upload.channel)
            done.append({"id": upload.file_id, "title": upload.title})
        return {"ok": True, "files": done}

    # file host and upload URLs -------------------------------------------------------

    def get_file(self, path: str, headers: dict) -> tuple[int, dict, bytes]:
        if self.redirect_files_to and path.startswith("/files-pri/"):
            # One hop: /files-pri/... -> <redirect_files_to>/files-moved/...
            target = self.redirect_files_to + path.replace("/files-pri/", "/files-moved/", 1)
            return 302, {"Location": target}, b""
        file_id = path.split("/")[2].split("-", 1)[-1] if path.count("/") >= 2 else ""
        with self.lock:
            found = self.files.get(file_id)
        if found is None:
            return 404, {"Content-Type": "text/plain"}, b"not found"
        meta, data = found
        authorized = headers.get("authorization") == f"Bearer {self.token}"
        if self.sign_in_page_for_files or not authorized:
            return 200, {"Content-Type": "text/html; charset=utf-8"}, SIGN_IN_PAGE
        return 200, {"Content-Type": meta["mimetype"]}, data

    def post_upload(self, file_id: str, body: bytes, headers: dict) -> tuple[int, bytes]:
        with self.lock:
            upload = self.uploads.get(file_id)
            if upload is None:
                return 404, b"not found"
            upload.data = body
            upload.headers = headers
        return 200, f"OK - {len(body)}".encode()


class _Handler(BaseHTTPRequestHandler):
    fake: FakeSlack
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # keep test output quiet
        pass

    def _read(self) -> tuple[dict, bytes]:
        headers = {k.lower(): v for k, v in self.headers.items()}
        length = int(headers.get("content-length") or 0)
        return headers, self.rfile.read(length) if length else b""

    def _reply(self, status: int, headers: dict, body: bytes) -> None:
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def _handle(self, verb: str) -> None:
        fake = self.fake
        headers, body = self._read()
        url = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        if url.path.startswith("/api/"):
            method = url.path[len("/api/") :]
            ctype = headers.get("content-type", "")
            if body and ctype.startswith("application/json"):
                params.update(json.loads(body))
            elif body and ctype.startswith("application/x-www-form-urlencoded"):
                form = parse_qs(body.decode(), keep_blank_values=True)
                params.update({k: v[-1] for k, v in form.items()})
            with fake.lock:
                fake.calls.append(Call(method, params, headers, body))
            out = json.dumps(fake.api(method, params, headers)).encode()
            self._reply(200, {"Content-Type": "application/json; charset=utf-8"}, out)
            return
        with fake.lock:
            fake.calls.append(Call(f"{verb} {url.path}", params, headers, body))
        if verb == "GET" and url.path.startswith(("/files-pri/", "/files-moved/")):
            self._reply(*fake.get_file(url.path, headers))
        elif verb == "POST" and url.path.startswith("/response/"):
            with fake.lock:
                fake.responses.append(json.loads(body or b"{}"))
            self._reply(200, {"Content-Type": "text/plain"}, b"ok")
        elif verb == "POST" and url.path.startswith("/upload/"):
            status, out = fake.post_upload(url.path.rsplit("/", 1)[-1], body, headers)
            self._reply(status, {"Content-Type": "text/plain"}, out)
        else:
            self._reply(404, {"Content-Type": "text/plain"}, b"not found")


def shown_text(message: dict) -> str:
    """What a message shows: its blocks' text (sections and contexts), else its text; a
    streamed message shows its streamed text above its blocks."""
    parts = [message.get("text", "")] if message.get("streamed") else []
    for b in message.get("blocks") or []:
        parts += [b["text"]["text"]] if b["type"] == "section" else []
        parts += [e["text"] for e in b.get("elements", [])] if b["type"] == "context" else []
    return "\n".join(parts) or message.get("text", "")


def buttons(message: dict) -> list[dict]:
    """The clickable elements of a message: buttons and feedback buttons."""
    return [
        e
        for b in message.get("blocks") or []
        if b["type"] in ("actions", "context_actions")
        for e in b.get("elements", [])
    ]


def final_messages(fake: FakeSlack, channel: str, thread_ts: str) -> list[dict]:
    """The bot's messages in a thread that are not progress lines (":hourglass…")."""
    return [
        m for m in fake.bot_messages(channel, thread_ts) if not m["text"].startswith(":hourglass")
    ]


def event_callback(event: dict, event_id: str, *, team: str = "T1", bot_user: str = "UBOT"):
    """The Events API body Slack wraps around ``event``."""
    return {
        "token": "legacy-verification-token",
        "team_id": team,
        "api_app_id": "A0PAPERTRAIL",
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "authorizations": [{"team_id": team, "user_id": bot_user, "is_bot": True}],
        "is_ext_shared_channel": False,
    }


class EventSender:
    """Delivers signed Events API requests to a bot's ``/slack/events`` URL."""

    def __init__(self, url: str, signing_secret: str, *, team: str = "T1", bot_user="UBOT"):
        self.url = url
        self.signing_secret = signing_secret
        self.team = team
        self.bot_user = bot_user
        self._ids = itertools.count(1)

    def envelope(self, event: dict, event_id: str | None = None) -> dict:
        event_id = event_id or f"Ev{next(self._ids):08d}"
        return event_callback(event, event_id, team=self.team, bot_user=self.bot_user)

    def sign(self, body: str, timestamp: str, secret: str | None = None) -> str:
        base = f"v0:{timestamp}:{body}".encode()
        key = (secret or self.signing_secret).encode()
        return "v0=" + hmac.new(key, base, hashlib.sha256).hexdigest()

    def send(
        self,
        event: dict,
        *,
        event_id: str | None = None,
        retry_num: int | None = None,
        retry_reason: str = "http_timeout",
        timestamp: int | None = None,
        secret: str | None = None,
    ) -> tuple[int, str, float]:
        """POST one delivery; (HTTP status, body, seconds until the response)."""
        return self.post(
            self.envelope(event, event_id),
            retry_num=retry_num,
            retry_reason=retry_reason,
            timestamp=timestamp,
            secret=secret,
        )

    def post(
        self,
        payload: dict,
        *,
        retry_num: int | None = None,
        retry_reason: str = "http_timeout",
        timestamp: int | None = None,
        secret: str | None = None,
    ) -> tuple[int, str, float]:
        """POST any signed Events API body, e.g. a url_verification challenge."""
        return self._post(json.dumps(payload), "application/json", retry_num, retry_reason,
                          timestamp, secret)  # fmt: skip

    def command(
        self, text: str, *, channel: str, user: str = "U1", response_url: str
    ) -> tuple[int, str, float]:
        """POST a signed ``/papertrail`` slash command, form-encoded as Slack sends it."""
        form = {
            "command": "/papertrail",
            "text": text,
            "team_id": self.team,
            "channel_id": channel,
            "user_id": user,
            "response_url": response_url,
            "trigger_id": "1.2.3",
            "token": "legacy-verification-token",
        }
        body = urlencode(form)
        return self._post(body, "application/x-www-form-urlencoded", None, "", None, None)

    def action(self, payload: dict) -> tuple[int, str, float]:
        """POST a signed interactivity payload (``block_actions``) as Slack does: a form
        with one ``payload`` field holding the JSON."""
        body = urlencode({"payload": json.dumps(payload)})
        return self._post(body, "application/x-www-form-urlencoded", None, "", None, None)

    def _post(self, body, content_type, retry_num, retry_reason, timestamp, secret):
        ts = str(int(time.time()) if timestamp is None else timestamp)
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": self.sign(body, ts, secret),
            "User-Agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
        }
        if retry_num is not None:
            headers["X-Slack-Retry-Num"] = str(retry_num)
            headers["X-Slack-Retry-Reason"] = retry_reason
        request = urllib.request.Request(self.url, body.encode(), headers, method="POST")
        start = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read().decode(), time.monotonic() - start
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode(), time.monotonic() - start


class RunningBot:
    """A Bolt app served over real loopback HTTP, with an ``EventSender`` aimed at it."""

    def __init__(self, app, signing_secret: str, *, team: str = "T1", bot_user: str = "UBOT"):
        from adapters.slack.app import make_http_server

        self.app = app
        self.server = make_http_server(app, 0, "127.0.0.1")
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.events = EventSender(
            self.url + "/slack/events", signing_secret, team=team, bot_user=bot_user
        )
        self._thread = serve_in_background(self.server)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.app.papertrail.close()


def serve_in_background(server) -> threading.Thread:
    """Run ``server.serve_forever`` in a daemon thread polling every 50 ms (quick shutdown)."""
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    return thread

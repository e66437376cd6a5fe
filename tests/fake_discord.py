"""A loopback Discord: REST API, gateway websocket and attachment CDN on 127.0.0.1.

A real ``discord.Client`` logs in (``GET /users/@me``, the application info),
connects to the gateway (HELLO -> IDENTIFY -> READY -> GUILD_CREATE, heartbeats
ACKed) and then receives the ``MESSAGE_CREATE`` events a test injects with
``send`` (messages) or ``slash`` (slash commands, answered through the
interaction callback and webhook routes). Every REST call is recorded,
multipart bodies included (the JSON from ``payload_json`` and the bytes of each
``files[n]`` part), and the messages the bot posts are kept in their current
(edited) state. Payload builders are in tests/fake_discord_payloads.py.

The server runs on its own event loop in a thread, so tests stay synchronous
and can observe it even while the bot's loop is busy (the client itself runs
in tests/fake_discord_runner.py). Sharding follows Discord's rule: a
connection that IDENTIFYs as shard ``[i, n]`` gets the guild (and its events)
only when ``(guild_id >> 22) % n == i``. Left out: RESUME, rate limits,
permissions, ephemeral messages and compression (frames are plain JSON
text, which discord.py accepts).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import WSMsgType, web

from tests import fake_discord_payloads as payloads
from tests.fake_discord_payloads import (
    ALICE,
    APP_ID,
    BOT,
    BOT_ID,
    CHANNELS,
    FORUM_ID,
    GUILD_ID,
    TIMESTAMP,
)

__all__ = ["BOT_ID", "CHANNELS", "Call", "FakeDiscord", "Upload", "user"]
user = payloads.user

_MENTION = re.compile(r"<@!?([0-9]{15,20})>")


@dataclass
class Upload:
    field: str  # multipart field name, e.g. "files[0]"
    filename: str
    data: bytes
    content_type: str


@dataclass
class Call:
    method: str
    path: str  # without the /api/v10 prefix, e.g. "/channels/1/messages"
    query: dict[str, str]
    json: dict | list | None
    files: list[Upload] = field(default_factory=list)


def _json(data: object, status: int = 200) -> web.Response:
    # discord.py parses JSON only when the Content-Type is exactly application/json
    return web.Response(
        status=status, body=json.dumps(data).encode(), headers={"Content-Type": "application/json"}
    )


class FakeDiscord:
    """One guild with the text channels in ``CHANNELS`` and a bot user ``BOT_ID``."""

    def __init__(self, *, heartbeat_interval: float = 0.1) -> None:
        self.heartbeat_interval = heartbeat_interval  # seconds, sent in HELLO
        self.bot = BOT
        self.commands: list[dict] = []  # slash commands as last registered
        self.refuse_files = False  # answer uploads with 403 Missing Permissions, like Discord
        self._originals: dict[str, tuple[int, str]] = {}  # token -> (channel, message id)
        self._interactions: dict[str, int] = {}  # interaction id -> channel
        self.ephemeral: list[dict] = []  # private interaction replies (only the clicker sees)
        self.choices: list[list[dict]] = []  # autocomplete answers, in order
        self.calls: list[Call] = []
        self.heartbeats = 0
        self.identify: dict | None = None
        self.history: dict[int, list[dict]] = {cid: [] for cid in CHANNELS.values()}
        self.forum_posts: dict[int, str] = {}  # post (thread) id -> title
        self.cdn: dict[str, bytes] = {}
        self.cdn_hits: list[str] = []  # keys downloaded, in order
        self._ids = itertools.count(1200000000000000000)
        self._lock = threading.RLock()  # predicates of wait_for call the accessors below
        self._changed = threading.Condition(self._lock)
        self._sockets: list[web.WebSocketResponse] = []  # connections that get GUILD_ID's events
        self.shards: list[list[int]] = []  # [shard id, count] of each IDENTIFY, in order
        self._seq = itertools.count(1)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fake-discord")
        self._runner: web.AppRunner | None = None
        self.port = 0

    # lifecycle ---------------------------------------------------------------

    def start(self) -> FakeDiscord:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._serve(), self._loop).result(10)
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def __enter__(self) -> FakeDiscord:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def _serve(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/cdn/{key:.*}", self._cdn)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    async def _shutdown(self) -> None:
        for ws in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # what tests do -----------------------------------------------------------

    def attachment(
        self, filename: str, data: bytes, *, content_type: str = "application/pdf", size=None
    ) -> dict:
        """An attachment payload served by the fake CDN; ``size`` may lie on purpose."""
        att_id = next(self._ids)
        key = f"attachments/{att_id}/{filename}"
        with self._lock:
            self.cdn[key] = data
        url = f"{self.base_url}/cdn/{key}"
        size = len(data) if size is None else size
        return payloads.attachment(att_id, filename, size, url, content_type)

    def send(
        self,
        channel_id: int,
        content: str,
        *,
        author: dict | None = None,
        attachments: list[dict] = (),
        mention_everyone: bool = False,
        reply_to: dict | None = None,
        reference: dict | None = None,
        id: int | None = None,  # a forum post's first message has the post's id
    ) -> dict:
        """Post a message as a user and deliver MESSAGE_CREATE to the connected bot.
        ``reference`` replaces the ``message_reference`` built from ``reply_to`` (forged)."""
        author = author or ALICE
        mentions = [self.bot] if str(BOT_ID) in _MENTION.findall(content) else []
        msg = self._message(channel_id, author, content, attachments=list(attachments))
        if id is not None:
            msg["id"] = str(id)
        msg.update(mentions=mentions, mention_everyone=mention_everyone)
        if reply_to is not None:
            where = reply_to.get("channel_id", str(channel_id))  # may be another channel's
            msg["message_reference"] = {"message_id": reply_to["id"], "channel_id": where}
            msg["referenced_message"] = reply_to
            msg["type"] = 19  # MessageType.reply
        if reference is not None:
            msg["message_reference"] = reference
        with self._changed:
            self.history[channel_id].append(msg)
            self._changed.notify_all()
        event = dict(msg, guild_id=str(GUILD_ID), member=payloads.member(author))
        coro = self._dispatch("MESSAGE_CREATE", event)
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(5)
        return msg

    def deliver(self, event: str, data: dict) -> None:
        """Send one gateway event exactly as given (malformed ones included)."""
        asyncio.run_coroutine_threadsafe(self._dispatch(event, data), self._loop).result(5)

    def delete(self, channel_id: int, *messages: dict) -> None:
        """Users delete ``messages``: gone from history; MESSAGE_DELETE for one message,
        MESSAGE_DELETE_BULK (a moderator's purge) for several."""
        ids = [m["id"] for m in messages]
        with self._changed:
            self.history[channel_id] = [m for m in self.history[channel_id] if m["id"] not in ids]
            self._changed.notify_all()
        where = {"channel_id": str(channel_id), "guild_id": str(GUILD_ID)}
        if len(ids) == 1:
            coro = self._dispatch("MESSAGE_DELETE", dict(where, id=ids[0]))
        else:
            coro = self._dispatch("MESSAGE_DELETE_BULK", dict(where, ids=ids))
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(5)

    def start_thread(self, channel_id: int, message: dict, name: str = "follow-up") -> int:
        """A user starts a thread from ``message`` (its id becomes the thread's id)."""
        thread_id = int(message["id"])
        with self._changed:
            self.history.setdefault(thread_id, [])
        data = payloads.thread(thread_id, channel_id, name)
        asyncio.run_coroutine_threadsafe(self._dispatch("THREAD_CREATE", data), self._loop).result(
            5
        )
        return thread_id

    def forum_post(
        self, title: str, content: str, *, attachments: list[dict] = (), author: dict | None = None
    ) -> dict:
        """A user opens a post in the forum: a thread whose first message has its id."""
        post_id = next(self._ids)
        with self._changed:
            self.history[post_id] = []
            self.forum_posts[post_id] = title
        data = payloads.thread(post_id, FORUM_ID, title)
        asyncio.run_coroutine_threadsafe(self._dispatch("THREAD_CREATE", data), self._loop).result(
            5
        )
        return self.send(post_id, content, attachments=attachments, author=author, id=post_id)

    def click(self, message: dict, custom_id: str, *, who: dict | None = None) -> dict:
        """``who`` (alice) clicks the button ``custom_id`` of the bot's ``message``."""
        cid = int(message["channel_id"])
        if cid in self.forum_posts:
            channel = payloads.thread(cid, FORUM_ID, self.forum_posts[cid])
        else:
            name = next(n for n, c in CHANNELS.items() if c == cid)
            channel = {"id": str(cid), "type": 0, "name": name, "guild_id": str(GUILD_ID)}
        data = payloads.component(next(self._ids), message, custom_id, who or ALICE, channel)
        with self._lock:
            self._interactions[data["id"]] = cid
        coro = self._dispatch("INTERACTION_CREATE", data)
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(5)
        return data

    def complete(self, channel_id: int, name: str, option: str, typed: str) -> list[dict]:
        """Type ``typed`` into ``option`` of ``/name``; the choices the bot offers."""
        command = next(c for c in self.commands if c["name"] == name)
        before = len(self.choices)
        data = payloads.autocomplete(next(self._ids), channel_id, command, option, typed)
        coro = self._dispatch("INTERACTION_CREATE", data)
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(5)
        return self.wait_for(lambda: self.choices[before:], what="autocomplete")[0]

    def reactions(self, channel_id: int, message: dict) -> list[str]:
        with self._lock:
            found = [m for m in self.history[channel_id] if m["id"] == message["id"]]
            return list(found[0].get("reaction_log", [])) if found else []

    def slash(self, channel_id: int, name: str, files: dict | None = None, **options: str) -> dict:
        """Invoke slash command ``name`` as alice; ``files`` maps options to attachments."""
        command = next((c for c in self.commands if c["name"] == name), {"id": "0", "name": name})
        data = payloads.interaction(next(self._ids), channel_id, command, options, files or {})
        with self._lock:
            self._interactions[data["id"]] = channel_id
        coro = self._dispatch("INTERACTION_CREATE", data)
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(5)
        return data

    def disconnect(self, code: int) -> None:
        """Close the gateway connections with ``code`` (4004 = bad token: no reconnect)."""

        async def close() -> None:
            for ws in list(self._sockets):
                await ws.close(code=code)

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(5)

    def wait_for(self, predicate: Callable[[], object], timeout: float = 10.0, what: str = ""):
        """Block until ``predicate()`` is truthy (re-checked on every change); return it."""
        with self._changed:
            result = self._changed.wait_for(predicate, timeout)
        if not result:
            raise AssertionError(f"timed out waiting for {what or predicate}; calls: {self.calls}")
        return result

    def bot_messages(self, channel_id: int | None = None) -> list[dict]:
        """The bot's messages as they are now (after edits and deletes), oldest first."""
        with self._lock:
            chans = [channel_id] if channel_id else list(self.history)
            return [m for c in chans for m in self.history[c] if m["author"]["id"] == str(BOT_ID)]

    def answered(self, channel_id: int, needle: str, timeout: float = 10.0) -> list[dict]:
        """Wait until a bot message in the channel contains ``needle``; return the bot's."""
        self.wait_for(
            lambda: any(needle in m["content"] for m in self.bot_messages(channel_id)),
            timeout,
            what=repr(needle),
        )
        return self.bot_messages(channel_id)

    def assert_no_pings(self) -> None:
        """Every message the bot created or edited forbids @everyone, @here, roles, users."""
        sent = self.calls_to("POST", r"/channels/\d+/messages|/webhooks/\d+/[\w-]+")
        sent += self.calls_to("PATCH", r"/channels/\d+/messages/\d+|/webhooks/.*/@original")
        for call in sent:
            allowed = call.json["allowed_mentions"]
            assert allowed["parse"] == [], call
            assert not allowed.get("roles") and not allowed.get("users"), call

    def calls_to(self, method: str, pattern: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method and re.fullmatch(pattern, c.path)]

    # gateway -----------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval * 1000}})
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                break
            data = json.loads(msg.data)
            if data["op"] == 1:  # HEARTBEAT
                with self._changed:
                    self.heartbeats += 1
                    self._changed.notify_all()
                await ws.send_json({"op": 11})
            elif data["op"] == 2:  # IDENTIFY
                await self._ready(ws, data["d"])
        if ws in self._sockets:
            self._sockets.remove(ws)
        return ws

    async def _ready(self, ws: web.WebSocketResponse, identify: dict) -> None:
        shard, count = identify.get("shard") or [0, 1]
        owns = (GUILD_ID >> 22) % count == shard
        ready = payloads.ready(self.gateway_url)
        if identify.get("shard"):
            ready["shard"] = [shard, count]  # a sharded client reads it
        if not owns:
            ready["guilds"] = []
        await ws.send_json({"op": 0, "t": "READY", "s": next(self._seq), "d": ready})
        if owns:
            guild = payloads.guild()
            await ws.send_json({"op": 0, "t": "GUILD_CREATE", "s": next(self._seq), "d": guild})
        with self._changed:
            self.identify = identify
            self.shards.append([shard, count])
            if owns:
                self._sockets.append(ws)
            self._changed.notify_all()

    async def _dispatch(self, event: str, data: dict) -> None:
        for ws in list(self._sockets):
            await ws.send_json({"op": 0, "t": event, "s": next(self._seq), "d": data})

    # REST --------------------------------------------------------------------

    async def _cdn(self, request: web.Request) -> web.Response:
        with self._changed:
            self.cdn_hits.append(request.match_info["key"])
            data = self.cdn.get(request.match_info["key"])
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, headers={"Content-Type": "application/octet-stream"})

    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        payload, files = await _read_body(request)
        call = Call(request.method, path, dict(request.query), payload, files)
        with self._changed:
            self.calls.append(call)
            self._changed.notify_all()
        return self._route(call)

    def _route(self, call: Call) -> web.Response:
        m, p = call.method, call.path
        if call.files and self.refuse_files:
            return _json({"message": "Missing Permissions", "code": 50013}, 403)
        if (m, p) == ("GET", "/users/@me"):
            return _json(self.bot)
        if (m, p) == ("GET", "/oauth2/applications/@me"):
            return _json(payloads.app_info())
        if (m, p) == ("PUT", f"/applications/{APP_ID}/commands"):
            return self._register(call.json)
        if match := re.fullmatch(r"/interactions/(\d+)/([\w-]+)/callback", p):
            kind = (call.json or {}).get("type")
            if kind in (4, 8):  # a message (ephemeral here) or autocomplete choices
                with self._changed:
                    data = (call.json or {}).get("data") or {}
                    if kind == 4:
                        self.ephemeral.append(data)
                    else:
                        self.choices.append(data.get("choices", []))
                    self._changed.notify_all()
                return _json({"interaction": {"id": match[1], "type": 3}})
            return self._deferred(match[1], match[2])
        if match := re.fullmatch(rf"/webhooks/{APP_ID}/([\w-]+)(/messages/@original)?", p):
            cid, mid = self._originals[match[1]]
            if match[2]:
                return self._one(cid, mid, call)
            return self._create(cid, call)  # a follow-up message
        if match := re.fullmatch(r"/channels/(\d+)/messages", p):
            cid = int(match[1])
            if cid not in self.history:
                return _json({"message": "Unknown Channel", "code": 10003}, 404)
            return self._create(cid, call) if m == "POST" else self._list(cid, call.query)
        if match := re.fullmatch(r"/channels/(\d+)/messages/(\d+)", p):
            return self._one(int(match[1]), match[2], call)
        if match := re.fullmatch(r"/channels/(\d+)/messages/(\d+)/reactions/([^/]+)/(@me|\d+)", p):
            return self._react(int(match[1]), match[2], match[3], add=m == "PUT")
        if m == "POST" and re.fullmatch(r"/channels/\d+/typing", p):
            return web.Response(status=204)
        return _json({"message": "404: Not Found", "code": 0}, 404)

    def _react(self, cid: int, mid: str, emoji: str, *, add: bool) -> web.Response:
        from urllib.parse import unquote

        with self._changed:
            msg = next((x for x in self.history.get(cid, []) if x["id"] == mid), None)
            if msg is None:
                return _json({"message": "Unknown Message", "code": 10008}, 404)
            msg.setdefault("reaction_log", []).append(("+" if add else "-") + unquote(emoji))
            self._changed.notify_all()
        return web.Response(status=204)

    def _register(self, commands: list[dict]) -> web.Response:
        with self._changed:
            self.commands = [
                dict(c, id=str(next(self._ids)), application_id=str(APP_ID), version="1")
                for c in commands
            ]
            return _json(self.commands)

    def _deferred(self, interaction_id: str, token: str) -> web.Response:
        """Answer a deferred interaction with a "thinking" message the bot edits later."""
        with self._changed:
            cid = self._interactions[interaction_id]
            msg = self._message(cid, self.bot, "", attachments=[])
            msg["flags"] = 128  # LOADING: "PaperTrail is thinking…"
            self.history[cid].append(msg)
            self._originals[token] = (cid, msg["id"])
            self._changed.notify_all()
        return _json(
            {
                "interaction": {
                    "id": interaction_id,
                    "type": 2,
                    "response_message_id": msg["id"],
                    "response_message_loading": True,
                }
            }
        )

    def _message(self, cid: int, author: dict, content: str, *, attachments: list) -> dict:
        return payloads.message(next(self._ids), cid, author, content, attachments)

    def _uploaded(self, files: list[Upload]) -> list[dict]:
        return [self.attachment(f.filename, f.data, content_type=f.content_type) for f in files]

    def _create(self, cid: int, call: Call) -> web.Response:
        body = call.json or {}
        msg = self._message(cid, self.bot, body.get("content") or "", attachments=[])
        msg["attachments"] = self._uploaded(call.files)
        msg["embeds"] = body.get("embeds") or []
        msg["components"] = body.get("components") or []
        if ref := body.get("message_reference"):
            msg["message_reference"] = ref
            msg["type"] = 19
        with self._changed:
            self.history[cid].append(msg)
            self._changed.notify_all()
        return _json(msg)

    def _list(self, cid: int, query: dict[str, str]) -> web.Response:
        limit = int(query.get("limit", 50))
        with self._lock:
            found = [m for m in self.history[cid] if int(m["id"]) < int(query.get("before", 2**63))]
            if "after" in query:  # the oldest ``limit`` after it, still newest first
                found = [m for m in found if int(m["id"]) > int(query["after"])][:limit]
        return _json(list(reversed(found))[:limit])  # newest first, like Discord

    def _one(self, cid: int, mid: str, call: Call) -> web.Response:
        with self._changed:
            msg = next((x for x in self.history.get(cid, []) if x["id"] == mid), None)
            if msg is None:
                return _json({"message": "Unknown Message", "code": 10008}, 404)
            if call.method == "DELETE":
                self.history[cid].remove(msg)
                self._changed.notify_all()
                return web.Response(status=204)
            if call.method == "PATCH":
                body = call.json or {}
                for key in ("content", "embeds", "components"):
                    if key in body:
                        msg[key] = body[key] or ("" if key == "content" else [])
                if "attachments" in body or call.files:
                    keep = {str(a.get("id")) for a in body.get("attachments", [])}
                    kept = [a for a in msg["attachments"] if a["id"] in keep]
                    msg["attachments"] = kept + self._uploaded(call.files)
                msg["edited_timestamp"] = TIMESTAMP
                msg["flags"] &= ~128  # an edit ends the "thinking" state
                self._changed.notify_all()
        return _json(msg)


async def _read_body(request: web.Request) -> tuple[dict | list | None, list[Upload]]:
    """The JSON body, or ``payload_json`` and the file parts of a multipart body."""
    if request.content_type.startswith("multipart/"):
        payload, files = None, []
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if part.name == "payload_json":
                payload = json.loads(await part.text())
            else:
                ctype = part.headers.get("Content-Type", "application/octet-stream")
                files.append(Upload(part.name, part.filename, bytes(await part.read()), ctype))
        return payload, files
    raw = await request.read()
    return (json.loads(raw) if raw else None), []

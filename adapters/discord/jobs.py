"""Discord questions and drops as plain-data jobs, so another process can finish them.

A message the bot accepts becomes a job before any work starts: its kind
("answer" or "drop"), the channel and message ids, the library, the question
text, who asked (and whether they may manage messages, decided when it was
asked) and each PDF as a spec (id, name, CDN URL, size, type, where it came
from, who shared it). Nothing in a job needs the gateway cache, so any
process can run it: the one that received the message, a surviving shard
that took it over from a dead one (``bot/redis/jobs.py``), or the same
process after a restart (``adapters/chat/journal.py``). ``run_job`` rebuilds
the ``Mention`` and answers through ``PaperTrailClient.serve``; a job that
was delivered before (``deliveries > 1``) first finds the bot's ⏳ progress
reply to that question and goes on editing it, so no progress message is
left hanging. Left out: slash commands (their interaction token belongs to
the receiving process; they are answered directly).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Protocol

import discord

from adapters.chat.intake import Attachment
from adapters.chat.service import ChatService, Mention
from adapters.discord.files import download, pdfs, post_key
from adapters.discord.library import index_drop, library, may_manage
from adapters.discord.reply import MessageSink
from papertrail.text.names import safe_filename

log = logging.getLogger(__name__)

PROGRESS = "⏳"  # how ProgressMessage starts each status line
STALE_SCAN = 50  # messages after a question searched for its progress reply


class Host(Protocol):
    """What a job needs of the Discord client (``client.PaperTrailClient``)."""

    service: ChatService
    history_limit: int  # earlier messages searched for PDFs
    max_bytes: int  # download cap
    user: discord.ClientUser | None

    def get_channel(self, channel_id: int, /): ...

    def get_partial_messageable(self, channel_id: int, /): ...

    async def serve(
        self, mention: Awaitable[Mention], sink: MessageSink, thread: str = ""
    ) -> None: ...


def spec(att: discord.Attachment, source: str, *, owner: str = "", post: str = "") -> dict:
    """A Discord attachment as JSON: enough to download it again from any process."""
    return {
        "id": att.id,
        "name": att.filename,
        "url": att.url,
        "size": att.size,
        "type": (att.content_type or "").split(";")[0].strip(),
        "source": source,
        "owner": owner,
        "post": post,
    }


def from_spec(data: dict, limit: int) -> Attachment:
    """The ``Attachment`` a spec describes; ``fetch`` downloads at most ``limit`` bytes."""
    url, name, size = data["url"], data["name"], data.get("size")
    shown = safe_filename(name, suffix="")  # the uploader's name, in error replies
    return Attachment(
        name=name,
        fetch=lambda: download(url, shown, size, limit),
        size=size,
        mimetype=data.get("type", ""),
        key=f"discord:{data['id']}",
        source=data.get("source", "message"),
        owner=data.get("owner", ""),
        post=data.get("post", ""),
    )


def message_specs(message: discord.Message, source: str) -> list[dict]:
    """The PDFs of a message, owned by its author."""
    owner, post = str(message.author.id), post_key(message.id)
    return [spec(a, source, owner=owner, post=post) for a in pdfs(message)]


async def history_specs(
    channel: discord.abc.Messageable, before: discord.Message | None, count: int
) -> list[dict]:
    """PDFs of the ``count`` messages before ``before``, newest first: the fallback for
    files shared before the bot was there."""
    found: list[dict] = []
    try:
        async for earlier in channel.history(limit=count, before=before):
            found += message_specs(earlier, "history")
    except discord.HTTPException as e:  # e.g. no Read Message History permission
        log.warning("channel history unavailable: %s", e)
    return found


async def question_job(
    client: Host,
    channel: discord.abc.Messageable,
    text: str,
    own: list[discord.Attachment],
    *,
    before: discord.Message | None = None,
    referenced: discord.Message | None = None,
    user: discord.abc.User | None = None,
    thread: str = "",
) -> dict:
    """The question as a job: ``own`` files first, then the referenced message's PDFs,
    then PDFs from the channel's recent history (newest first), each once."""
    owner = str(user.id) if user is not None else ""
    post = post_key(before.id) if before is not None else ""
    found = [spec(a, "message", owner=owner, post=post) for a in own]
    if referenced is not None:
        found += message_specs(referenced, "thread")
    found += await history_specs(channel, before, client.history_limit)
    unique, seen = [], set()
    for s in found:
        if s["id"] not in seen:
            seen.add(s["id"])
            unique.append(s)
    return {
        "kind": "answer",
        "channel_id": channel.id,
        "message_id": before.id if before is not None else None,
        "library": library(channel),
        "text": " ".join(text.split()),
        "user": owner,
        "admin": may_manage(channel, user),
        "thread": thread,
        "attachments": unique,
    }


def drop_job(message: discord.Message) -> dict:
    """A message that shares PDFs without addressing the bot, as a job."""
    return {
        "kind": "drop",
        "channel_id": message.channel.id,
        "message_id": message.id,
        "library": library(message.channel),
        "attachments": message_specs(message, "message"),
    }


def mention_of(job: dict, limit: int) -> Mention:
    admin = bool(job.get("admin"))
    return Mention(
        channel=job["library"],
        text=job.get("text", ""),
        attachments=tuple(from_spec(s, limit) for s in job.get("attachments", ())),
        user=job.get("user", ""),
        thread=job.get("thread", ""),
        admin=lambda: admin,
    )


async def mention_later(job: Awaitable[dict], limit: int) -> Mention:
    """The ``Mention`` of a job still being built (a slash command's question)."""
    return mention_of(await job, limit)


def _messageable(client: Host, channel_id: int):
    """The cached channel (it knows its guild's upload limit), else a REST-only handle."""
    return client.get_channel(channel_id) or client.get_partial_messageable(channel_id)


async def run_job(client: Host, job: dict) -> None:
    """Carry out a job from ``question_job`` or ``drop_job`` on ``client``."""
    channel = _messageable(client, job["channel_id"])
    question = channel.get_partial_message(job["message_id"])
    if job.get("kind") == "drop":
        found = [from_spec(s, client.max_bytes) for s in job.get("attachments", ())]
        await index_drop(client.service, question, found, job["library"], me=client.user)
        return
    sink = MessageSink(question)
    if job.get("deliveries", 1) > 1:  # taken over: keep editing the progress already shown
        sink.placeholder = await stale_progress(client, channel, job["message_id"])
    log.info("job for %s/%s (%s)", job["channel_id"], job["message_id"], job.get("kind"))
    await client.serve(_ready(mention_of(job, client.max_bytes)), sink, job.get("thread", ""))


async def _ready(mention: Mention) -> Mention:
    return mention


async def stale_progress(
    client: Host, channel: discord.abc.Messageable, question_id: int
) -> discord.Message | None:
    """The bot's ⏳ reply to ``question_id`` left by a process that stopped, if any."""
    me = client.user
    try:
        async for m in channel.history(limit=STALE_SCAN, after=discord.Object(question_id)):
            ref = m.reference
            if (
                me is not None
                and m.author.id == me.id
                and ref is not None
                and ref.message_id == question_id
                and m.content.startswith(PROGRESS)
            ):
                return m
    except discord.HTTPException as e:
        log.warning("could not look for a stale progress message: %s", e)
    return None


def job_runner(client: Host, loop: asyncio.AbstractEventLoop):
    """The ``run(payload, done)`` a job queue calls from its threads: the job runs on
    the client's loop, and ``done()`` acknowledges it once it ran (or failed for good)."""

    def run(payload: dict, done) -> None:
        future = asyncio.run_coroutine_threadsafe(run_job(client, payload), loop)
        future.add_done_callback(lambda f: _finished(f, payload, done))

    return run


def _finished(future, payload: dict, done) -> None:
    if future.cancelled():
        return  # the loop is closing: the job stays queued for the next process
    if future.exception() is not None:
        log.error("job %s failed", payload.get("kind"), exc_info=future.exception())
    done()

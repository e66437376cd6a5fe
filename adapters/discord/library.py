"""A Discord channel as a library: PDFs indexed on drop, forgotten on deletion.

Any human message with a PDF attachment is indexed into its channel's library
at once, no mention needed: the message gets ⏳, then ✅ (or ❌ and a short
reply naming the problem). A thread's library is its parent channel's,
except in a forum: there each post is a conversation of its own, with its
own PDFs (``is_forum_post``). When a
message carrying PDFs is deleted, the library forgets them unless the same
bytes are still shared there (``ChatService.forget_post``). Who may forget by
command: members with Manage Messages (``may_manage``), or the sharer.
These helpers get the service and the message, never the client; routing
messages is ``client.py``'s job.
"""

from __future__ import annotations

import asyncio
import logging

import discord

from adapters.chat.service import ChatService
from adapters.discord.files import post_key
from adapters.discord.format import render_reply
from adapters.discord.reply import MessageSink
from papertrail.answer.followup import wants_answer

log = logging.getLogger(__name__)

INDEXING, INDEXED, FAILED = "⏳", "✅", "❌"


def is_forum_post(channel) -> bool:
    """A post of a forum channel (a thread whose parent is a forum)."""
    parent = getattr(channel, "parent", None) if isinstance(channel, discord.Thread) else None
    return getattr(parent, "type", None) == discord.ChannelType.forum


def forum_question(message: discord.Message) -> bool:
    """A message in a forum post that asks something: the post is a conversation with
    the bot, so it needs no mention ("thanks!" is not answered)."""
    has_files = bool(message.attachments)
    return is_forum_post(message.channel) and wants_answer(message.content, with_files=has_files)


def library(channel: discord.abc.Messageable) -> str:
    """The library a channel reads from: a thread reads its parent channel's, a forum
    post its own."""
    if is_forum_post(channel):
        return f"discord:{channel.id}"
    parent = getattr(channel, "parent_id", None)
    if isinstance(channel, discord.Thread) and parent:
        return f"discord:{parent}"
    return f"discord:{channel.id}"


def may_manage(channel: discord.abc.Messageable, user: discord.abc.User | None) -> bool:
    """Whether ``user`` has Manage Messages in ``channel`` (may forget others' files)."""
    if not isinstance(user, discord.Member):
        return False  # a DM or an uncached author: no guild permissions to speak of
    try:
        return channel.permissions_for(user).manage_messages
    except (AttributeError, discord.ClientException):
        return False


async def index_drop(
    service: ChatService,
    message: discord.PartialMessage,
    found: list,
    where: str,
    *,
    me: discord.abc.User | None,
) -> None:
    """Index ``found`` (the PDFs of ``message``, which did not address the bot ``me``)
    into the library ``where``: ⏳, then ✅, or ❌ and a reply naming the problem."""
    await _react(message, INDEXING)
    reply = await asyncio.to_thread(service.index_shared, where, found)
    await _react(message, INDEXING, me)
    if reply.kind != "error":
        await _react(message, INDEXED)
        if reply.suggestions:  # questions it can answer, as buttons
            sink = MessageSink(message)
            try:
                await sink.deliver(render_reply(reply, upload_limit=sink.upload_limit))
            except discord.HTTPException as e:
                log.warning("could not offer suggested questions: %s", e)
        return
    await _react(message, FAILED)
    sink = MessageSink(message)
    try:
        await sink.deliver(render_reply(reply, upload_limit=sink.upload_limit))
    except discord.HTTPException as e:
        log.warning("could not explain a failed drop: %s", e)


async def forget_deleted(service: ChatService, message_id: int) -> None:
    gone = await asyncio.to_thread(service.forget_post, post_key(message_id))
    if gone:
        log.info("message %s deleted: forgot %s", message_id, ", ".join(d.name for d in gone))


async def _react(message: discord.Message, emoji: str, remove_for=None) -> None:
    try:
        if remove_for is not None:
            await message.remove_reaction(emoji, remove_for)
        else:
            await message.add_reaction(emoji)
    except discord.HTTPException as e:  # e.g. no Add Reactions permission: indexing goes on
        log.info("reaction %s failed: %s", emoji, e)

"""Where a Discord reply goes, and the progress line shown before it.

A ``MessageSink`` answers a message: progress is a message replying to the
question, edited as it advances, and the answer replaces it. An
``InteractionSink`` answers a slash command: progress and answer edit the
deferred response, further messages are follow-ups. ``ProgressMessage`` is
the callback the service calls from its worker thread: it schedules the edits
on the event loop, at most one per interval, and stops before the answer.

Every message is sent with mentions disabled, except the reply ping to the
person who asked. Rendering a ``Reply`` into messages is ``format.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable

import discord

from adapters.discord.format import DEFAULT_UPLOAD_LIMIT, MAX_CONTENT, Outgoing

log = logging.getLogger(__name__)

# Pings only the author of the question (through the reply), nobody else, ever.
REPLY_MENTIONS = discord.AllowedMentions(
    everyone=False, users=False, roles=False, replied_user=True
)
NO_MENTIONS = discord.AllowedMentions.none()


class MessageSink:
    """Replies to ``question``; the progress message, if any, becomes the answer."""

    def __init__(self, question: discord.Message) -> None:
        self.question = question
        self.placeholder: discord.Message | None = None
        self.sent: list[int] = []  # ids of the messages that carry the answer

    @property
    def upload_limit(self) -> int:
        guild = self.question.guild
        return guild.filesize_limit if guild is not None else DEFAULT_UPLOAD_LIMIT

    async def progress(self, content: str) -> None:
        if self.placeholder is None:
            ref = self.question.to_reference(fail_if_not_exists=False)
            self.placeholder = await self.question.channel.send(
                content, reference=ref, allowed_mentions=NO_MENTIONS
            )
        else:
            await self.placeholder.edit(content=content, allowed_mentions=NO_MENTIONS)

    async def deliver(self, messages: list[Outgoing]) -> None:
        first, rest = messages[0], messages[1:]
        channel = self.question.channel
        if self.placeholder is not None:
            try:
                await self.placeholder.edit(
                    content=first.content or None,
                    embeds=list(first.embeds),
                    attachments=first.files(),
                    allowed_mentions=NO_MENTIONS,
                    **first.extra(),
                )
            except discord.NotFound:  # someone deleted the progress message
                self.placeholder = None
        if self.placeholder is None:
            sent = await channel.send(
                content=first.content or None,
                embeds=list(first.embeds),
                files=first.files(),
                reference=self.question.to_reference(fail_if_not_exists=False),
                allowed_mentions=REPLY_MENTIONS,
                **first.extra(),
            )
            self.sent.append(sent.id)
        else:
            self.sent.append(self.placeholder.id)
        for out in rest:
            sent = await channel.send(
                content=out.content or None,
                embeds=list(out.embeds),
                files=out.files(),
                allowed_mentions=NO_MENTIONS,
                **out.extra(),
            )
            self.sent.append(sent.id)


class InteractionSink:
    """Answers a deferred slash command by editing its response, then following up."""

    def __init__(self, interaction: discord.Interaction) -> None:
        self.interaction = interaction
        self.sent: list[int] = []  # ids of the messages that carry the answer

    @property
    def upload_limit(self) -> int:
        return self.interaction.filesize_limit or DEFAULT_UPLOAD_LIMIT

    async def progress(self, content: str) -> None:
        await self.interaction.edit_original_response(content=content, allowed_mentions=NO_MENTIONS)

    async def deliver(self, messages: list[Outgoing]) -> None:
        first, rest = messages[0], messages[1:]
        original = await self.interaction.edit_original_response(
            content=first.content or None,
            embeds=list(first.embeds),
            attachments=first.files(),
            allowed_mentions=NO_MENTIONS,
            **first.extra(),
        )
        self.sent.append(original.id)
        for out in rest:
            sent = await self.interaction.followup.send(
                content=out.content or None,
                embeds=list(out.embeds),
                files=out.files(),
                allowed_mentions=NO_MENTIONS,
                wait=True,  # returns the message, so replies to it are follow-ups
                **out.extra(),
            )
            self.sent.append(sent.id)


async def apologise(sink: MessageSink | InteractionSink, error: Exception) -> None:
    """Say in plain text that a reply was refused, usually for missing permissions."""
    status = getattr(error, "status", "?")
    text = (
        f"❌ Discord refused my reply (HTTP {status}). Check that I may send messages, "
        "embed links and attach files in this channel, then ask again."
    )
    try:
        await sink.deliver([Outgoing(content=text)])
    except discord.HTTPException:
        log.warning("could not post the apology either")


class ProgressMessage:
    """The service's status lines, shown through ``show`` at most once per interval.

    Called from the worker thread; ``show`` runs on the loop, scheduled with
    ``run_coroutine_threadsafe``. The latest line always wins, and nothing is
    shown after ``finish``, so a late status can never hide the answer.
    """

    def __init__(
        self,
        show: Callable[[str], Awaitable[None]],
        loop: asyncio.AbstractEventLoop,
        interval: float,
    ) -> None:
        self._show = show
        self._loop = loop
        self._interval = interval  # seconds between edits (Discord rate-limits edits)
        self._guard = threading.Lock()  # shared with the worker thread
        self._latest = ""
        self._shown = ""
        self._pending = False
        self._closed = False
        self._last = float("-inf")  # time.monotonic() of the last show
        self._busy = asyncio.Lock()
        self._closing = asyncio.Event()

    def __call__(self, status: str) -> None:
        with self._guard:
            self._latest = status
            if self._pending or self._closed:
                return
            self._pending = True
        with contextlib.suppress(RuntimeError):  # the loop has closed: the bot is stopping
            asyncio.run_coroutine_threadsafe(self._flush(), self._loop)

    async def _flush(self) -> None:
        async with self._busy:
            wait = self._last + self._interval - time.monotonic()
            if wait > 0:
                with contextlib.suppress(TimeoutError):  # woken early by finish()
                    await asyncio.wait_for(self._closing.wait(), wait)
            with self._guard:
                status, self._pending = self._latest, False
                if self._closed or status == self._shown:
                    return
            try:
                await self._show(f"⏳ {status}"[:MAX_CONTENT])
            except discord.HTTPException as e:
                log.warning("progress update failed: %s", e)
            self._shown = status
            self._last = time.monotonic()

    async def finish(self) -> None:
        """Stop showing progress; returns once an update in flight has landed."""
        with self._guard:
            self._closed = True
        self._closing.set()
        async with self._busy:
            pass

"""Discord adapter: messages in, replies out, work off the loop.

A ``MESSAGE_CREATE`` whose content mentions the bot (``<@id>``, not @everyone,
@here or a role), or that continues one of its conversations (a reply to an
answer, a message in a thread started from one or where it answered) becomes
a ``Mention``: the library ``discord:<channel id>`` (a thread's parent), the
text without the mention, its attachments, then PDFs of the message it
replies to, then PDFs from recent history (the fallback for files shared
before the bot). Any other message with a PDF is indexed on drop, and a
deleted message's PDFs are forgotten (``library.py``); in a forum each post
has its own library and a question there needs no mention. Button clicks:
``clicks.py``. Questions and drops
are plain-data jobs (``jobs.py``), queued durably (Redis stream or local
journal) before work starts, so a surviving or restarted process finishes
them. ``ChatService`` runs in worker threads, so heartbeats go on while a PDF
is indexed. Slash commands (``slash.py``) are answered directly. A
malformed gateway event is logged and dropped, and a reply reference to
another channel never reaches discord.py (``guard.py``). Replies:
``reply.py``/``format.py``; sharding: ``shards.py``; endpoints: ``endpoints.py``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Awaitable, Sequence
from concurrent.futures import ThreadPoolExecutor

import discord
from cachetools import LRUCache

from adapters.chat.replies import HISTORY_FALLBACK
from adapters.chat.service import ChatService, Mention, Reply
from adapters.discord.clicks import on_click
from adapters.discord.endpoints import use_endpoints
from adapters.discord.files import download, pdfs, referenced_message
from adapters.discord.format import render_reply
from adapters.discord.guard import guard_parsers
from adapters.discord.jobs import drop_job, job_runner, mention_later, question_job, run_job
from adapters.discord.library import forget_deleted, forum_question
from adapters.discord.reply import (
    NO_MENTIONS,
    InteractionSink,
    MessageSink,
    ProgressMessage,
    apologise,
)
from adapters.discord.shards import client_class
from adapters.discord.slash import add_slash_commands
from papertrail.errors import PaperTrailError
from papertrail.read.uploads import DEFAULT_MAX_PDF_BYTES

log = logging.getLogger(__name__)

HISTORY_LIMIT = HISTORY_FALLBACK  # earlier channel messages searched for PDFs
PROGRESS_INTERVAL = 1.0  # seconds between edits of the progress message (edit rate limits)
MAX_DOWNLOAD_BYTES = DEFAULT_MAX_PDF_BYTES  # default cap, the same as PAPERTRAIL_MAX_PDF_MB
WORKER_THREADS = 32  # questions handled at once; ChatService itself bounds indexing
MAX_ANSWERS = 5000  # bot messages remembered as conversation starters
__all__ = ["FAILURE", "PaperTrailClient", "build_client", "download", "run", "use_endpoints"]
FAILURE = (
    "Something went wrong on my side while handling that. "
    "Please try again; if it keeps happening, tell the bot's admin."
)


def answer_key(message_id: int) -> str:
    """The platform-qualified id of one of the bot's messages, for ``ChatService.link``."""
    return f"discord:answer:{message_id}"


def build_client(
    service: ChatService,
    *,
    intents: discord.Intents | None = None,
    history_limit: int = HISTORY_LIMIT,
    max_bytes: int | None = None,
    progress_interval: float = PROGRESS_INTERVAL,
    slash_commands: bool = True,
    sync_commands: bool = True,
    jobs=None,
    **options,
) -> discord.Client:
    """A ``discord.Client`` that answers mentions (and slash commands) with ``service``.

    ``max_bytes`` caps each download (default: the service's ``max_pdf_bytes``);
    ``slash_commands``/``sync_commands`` register the slash commands and upload them at
    start-up; ``jobs`` (``RedisJobs`` or ``LocalJobs``) makes questions and drops
    durable; ``options`` go to ``discord.Client`` (e.g. ``guild_ready_timeout``)."""
    if max_bytes is None:
        settings = getattr(service, "settings", None)
        max_bytes = getattr(settings, "max_pdf_bytes", MAX_DOWNLOAD_BYTES)
    if intents is None:
        intents = discord.Intents.default()
        intents.message_content = True  # privileged: also enable it in the developer portal
    client_type = client_class(PaperTrailClient, options)  # DISCORD_SHARD_COUNT: sharded
    return client_type(
        service,
        intents=intents,
        history_limit=history_limit,
        max_bytes=max_bytes,
        progress_interval=progress_interval,
        slash_commands=slash_commands,
        sync_commands=sync_commands,
        jobs=jobs,
        **options,
    )


def run(
    token: str,
    service: ChatService,
    api_url: str | None = None,
    gateway_url: str | None = None,
    **options,
) -> None:
    """Run the bot until interrupted; DISCORD_API_URL/DISCORD_GATEWAY_URL redirect it."""
    use_endpoints(api_url, gateway_url)
    client = build_client(service, **options)
    client.run(token, log_handler=None)  # logging is configured by the caller


class PaperTrailClient(discord.Client):
    def __init__(
        self,
        service: ChatService,
        *,
        history_limit: int,
        max_bytes: int,
        progress_interval: float,
        slash_commands: bool = True,
        sync_commands: bool = True,
        jobs=None,
        **options,
    ) -> None:
        options.setdefault("allowed_mentions", NO_MENTIONS)
        # a text-only bot: "voice will NOT be supported" (no PyNaCl, no davey) is not news
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        super().__init__(**options)
        guard_parsers(self._connection)  # a malformed event is dropped, not fatal (guard.py)
        self.service = service
        self.history_limit = history_limit
        self.max_bytes = max_bytes
        self.progress_interval = progress_interval
        self.busy = 0  # questions being handled right now
        # bot message id -> conversation; the least recently used go first
        self.answers: LRUCache[int, str] = LRUCache(MAX_ANSWERS)
        self.sync_commands = sync_commands
        self.tree = add_slash_commands(self, self.serve_interaction) if slash_commands else None
        self.jobs = jobs  # None: run each question here and now, not durably

    async def setup_hook(self) -> None:
        # asyncio.to_thread uses the loop's default executor; the stock one has only
        # cpu_count + 4 threads, which questions waiting on busy channels could fill.
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(WORKER_THREADS, thread_name_prefix="papertrail-worker")
        )
        if self.jobs is not None:  # logged in: REST works, so taken-over jobs can run
            self.jobs.start(job_runner(self, asyncio.get_running_loop()))
        if self.tree is not None and self.sync_commands:
            try:
                await self.tree.sync()  # global commands; Discord may take a while to show them
            except discord.HTTPException as e:
                log.warning("slash commands not registered: %s", e)

    async def on_ready(self) -> None:
        log.info("Discord: logged in as %s (%s)", self.user, self.user and self.user.id)

    async def on_message(self, message: discord.Message) -> None:
        # discord.py runs each handler in its own task, so awaiting here blocks nothing.
        me = self.user
        if me is None or message.author.bot or message.author.id == me.id:
            return
        thread = self.conversation_of(message)
        follows = thread and self.service.in_conversation(
            thread, message.content, with_files=bool(message.attachments)
        )
        if self.addressed(message) or follows or forum_question(message):
            thread = thread or f"discord:question:{message.id}"
            try:
                job = await self._question(message, thread)
            except Exception:  # logged, and answered with an apology by serve
                return await self.serve(_failed(), MessageSink(message), thread)
            await self.submit(job)
        elif pdfs(message):
            await self.submit(drop_job(message))

    async def submit(self, job: dict) -> None:
        """Run ``job`` now, or queue it durably when jobs are configured."""
        if self.jobs is not None:
            try:  # journal/stream I/O off the loop; the job comes back through job_runner
                await asyncio.to_thread(functools.partial(self.jobs.put, job, take=True))
                return
            except Exception:  # e.g. Redis unreachable: answer now rather than not at all
                log.exception("could not queue a %s job; running it here", job.get("kind"))
        await run_job(self, job)

    async def close(self) -> None:
        await super().close()
        if self.jobs is not None:  # unfinished jobs stay queued for the next process
            await asyncio.to_thread(self.jobs.close)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        await on_click(self, interaction)  # buttons; slash commands go to the tree

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        # raw: fires for messages shared before this process started too (uncached)
        await forget_deleted(self.service, payload.message_id)

    async def on_raw_bulk_message_delete(self, payload) -> None:
        for message_id in payload.message_ids:  # a moderator's purge
            await forget_deleted(self.service, message_id)

    async def _question(self, message: discord.Message, thread: str) -> dict:
        text = re.sub(rf"<@!?{self.user.id}>", " ", message.content)
        referenced = await referenced_message(message)
        return await question_job(
            self,
            message.channel,
            text,
            list(message.attachments),
            before=message,
            referenced=referenced,
            user=message.author,
            thread=thread,
        )

    def addressed(self, message: discord.Message) -> bool:
        """True for a human's message whose text mentions this bot by id."""
        me = self.user
        if me is None or message.author.bot or message.author.id == me.id:
            return False
        return me.id in message.raw_mentions  # @everyone/@here/roles are not in raw_mentions

    def conversation_of(self, message: discord.Message) -> str:
        """The conversation a message continues: a reply to one of the bot's answers, or
        a message in a thread (started from an answer, or where the bot answered)."""
        ref = message.reference
        if ref is not None and ref.message_id is not None:
            if ref.message_id in self.answers:
                return self.answers[ref.message_id]
            linked = self.service.linked(answer_key(ref.message_id))  # before a restart
            if linked:
                return linked
        channel = message.channel
        if isinstance(channel, discord.Thread):
            known = self.answers.get(channel.id) or self.service.linked(answer_key(channel.id))
            return known or f"discord:thread:{channel.id}"
        return ""

    async def serve(
        self, mention: Awaitable[Mention], sink: MessageSink | InteractionSink, thread: str = ""
    ) -> None:
        """Build the mention, run the service in a worker thread, deliver its reply; the
        messages of the reply then continue ``thread`` when someone replies to them."""
        self.busy += 1
        try:
            try:
                reply = await self._reply(await mention, sink)
            except Exception:
                log.exception("could not read the question")
                reply = Reply(kind="error", text=FAILURE)
            try:
                await sink.deliver(render_reply(reply, upload_limit=sink.upload_limit))
                for message_id in sink.sent if thread else ():
                    self.answers[message_id] = thread
                if thread and sink.sent:  # kept by the service: a restart remembers them
                    keys = [answer_key(m) for m in sink.sent]
                    await asyncio.to_thread(self.service.link, keys, thread)
            except discord.HTTPException as e:
                log.warning("could not post the reply: %s", e)
                await apologise(sink, e)
        finally:
            self.busy -= 1

    async def serve_interaction(
        self, interaction: discord.Interaction, text: str, files: Sequence[discord.Attachment]
    ) -> None:
        """A slash command (deferred already), answered like a mention of ``text``."""
        channel = interaction.channel or self.get_partial_messageable(interaction.channel_id)
        thread = f"discord:question:{interaction.id}"
        job = question_job(self, channel, text, list(files), user=interaction.user, thread=thread)
        await self.serve(mention_later(job, self.max_bytes), InteractionSink(interaction), thread)

    async def _reply(self, mention: Mention, sink: MessageSink | InteractionSink) -> Reply:
        loop = asyncio.get_running_loop()
        progress = ProgressMessage(sink.progress, loop, self.progress_interval)
        try:
            return await asyncio.to_thread(self.service.handle, mention, progress)
        except PaperTrailError as e:
            return Reply(kind="error", text=e.message)
        except Exception:
            log.exception("service failed in %s", mention.channel)
            return Reply(kind="error", text=FAILURE)
        finally:
            await progress.finish()


async def _failed() -> Mention:
    raise RuntimeError("the question could not be read")

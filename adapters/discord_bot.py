"""Discord adapter: messages that mention the bot in, replies out, work off the loop.

A ``MESSAGE_CREATE`` whose content mentions the bot (``<@id>``, not @everyone,
@here or a role) becomes a ``Mention``: channel ``discord:<channel id>``, the
text without the mention, and its attachments, then PDFs of the message it
replies to, then PDFs from recent channel history. ``ChatService.handle`` runs
in a worker thread (``asyncio.to_thread``) so heartbeats and other channels
keep flowing while a PDF is indexed. Slash commands (``discord_slash.py``)
take the same path through ``serve``.

Where replies go and the progress line are ``discord_reply.py``; splitting,
embeds and files are ``discord_format.py``. Left out: DMs without a mention,
sharding.
"""

from __future__ import annotations

import asyncio
import logging
import re
import urllib.error
import urllib.request
from collections.abc import Awaitable, Sequence
from concurrent.futures import ThreadPoolExecutor

import discord
import yarl

from adapters.discord_format import Outgoing, render_reply
from adapters.discord_reply import NO_MENTIONS, InteractionSink, MessageSink, ProgressMessage
from adapters.discord_shards import client_class
from adapters.discord_slash import add_slash_commands
from adapters.service import Attachment, ChatService, Mention, Reply
from papertrail.errors import PaperTrailError
from papertrail.names import safe_filename
from papertrail.uploads import DEFAULT_MAX_PDF_BYTES, check_size, looks_like_pdf, too_large

log = logging.getLogger(__name__)

HISTORY_LIMIT = 20  # earlier channel messages searched for PDFs
PROGRESS_INTERVAL = 1.0  # seconds between edits of the progress message (edit rate limits)
MAX_DOWNLOAD_BYTES = DEFAULT_MAX_PDF_BYTES  # default cap, the same as PAPERTRAIL_MAX_PDF_MB
DOWNLOAD_TIMEOUT = 60.0  # seconds for one attachment download
WORKER_THREADS = 32  # questions handled at once; ChatService itself bounds indexing
FAILURE = (
    "Something went wrong on my side while handling that. "
    "Please try again; if it keeps happening, tell the bot's admin."
)


def use_endpoints(
    api_url: str | None = None, gateway_url: str | None = None
) -> tuple[str, yarl.URL]:
    """Point every discord.py client in this process at other REST/gateway URLs.

    discord.py builds each REST URL from ``Route.BASE`` and a non-sharded
    client connects to ``DiscordWebSocket.DEFAULT_GATEWAY`` (it never asks
    ``/gateway/bot``); both are class attributes, read at use. Returns the
    previous values so tests can restore them.
    """
    previous = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    if api_url:
        discord.http.Route.BASE = api_url.rstrip("/")
    if gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    return previous


def build_client(
    service: ChatService,
    *,
    intents: discord.Intents | None = None,
    history_limit: int = HISTORY_LIMIT,
    max_bytes: int | None = None,
    progress_interval: float = PROGRESS_INTERVAL,
    slash_commands: bool = True,
    sync_commands: bool = True,
    **options,
) -> discord.Client:
    """A ``discord.Client`` that answers mentions (and slash commands) with ``service``.

    ``max_bytes`` caps each download; by default the service's
    ``settings.max_pdf_bytes``. ``slash_commands``/``sync_commands`` register
    /ask, /docs, /forget and /help and upload them to Discord at start-up.
    ``options`` go to ``discord.Client`` (e.g. ``guild_ready_timeout``).
    """
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
        **options,
    )


def run(
    token: str,
    service: ChatService,
    api_url: str | None = None,
    gateway_url: str | None = None,
    **options,
) -> None:
    """Run the bot until interrupted; the URLs (DISCORD_API_URL / DISCORD_GATEWAY_URL in
    ``bot/config.py``) redirect it, e.g. to a loopback fake."""
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
        **options,
    ) -> None:
        options.setdefault("allowed_mentions", NO_MENTIONS)
        super().__init__(**options)
        self.service = service
        self.history_limit = history_limit
        self.max_bytes = max_bytes
        self.progress_interval = progress_interval
        self.busy = 0  # questions being handled right now
        self.sync_commands = sync_commands
        self.tree = add_slash_commands(self) if slash_commands else None

    async def setup_hook(self) -> None:
        # asyncio.to_thread uses the loop's default executor; the stock one has only
        # cpu_count + 4 threads, which questions waiting on busy channels could fill.
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(WORKER_THREADS, thread_name_prefix="papertrail-worker")
        )
        if self.tree is not None and self.sync_commands:
            try:
                await self.tree.sync()  # global commands; Discord may take a while to show them
            except discord.HTTPException as e:
                log.warning("slash commands not registered: %s", e)

    async def on_ready(self) -> None:
        log.info("Discord: logged in as %s (%s)", self.user, self.user and self.user.id)

    async def on_message(self, message: discord.Message) -> None:
        # discord.py runs each handler in its own task, so awaiting here blocks nothing.
        if not self.addressed(message):
            return
        await self.serve(self._mention_from(message), MessageSink(message))

    async def _mention_from(self, message: discord.Message) -> Mention:
        text = re.sub(rf"<@!?{self.user.id}>", " ", message.content)
        referenced = await self._referenced(message)
        return await self.mention_for(
            message.channel, text, message.attachments, before=message, referenced=referenced
        )

    def addressed(self, message: discord.Message) -> bool:
        """True for a human's message whose text mentions this bot by id."""
        me = self.user
        if me is None or message.author.bot or message.author.id == me.id:
            return False
        return me.id in message.raw_mentions  # @everyone/@here/roles are not in raw_mentions

    async def serve(self, mention: Awaitable[Mention], sink: MessageSink | InteractionSink) -> None:
        """Build the mention, run the service in a worker thread, deliver its reply."""
        self.busy += 1
        try:
            try:
                reply = await self._reply(await mention, sink)
            except Exception:
                log.exception("could not read the question")
                reply = Reply(kind="error", text=FAILURE)
            try:
                await sink.deliver(render_reply(reply, upload_limit=sink.upload_limit))
            except discord.HTTPException as e:
                log.warning("could not post the reply: %s", e)
                await self._apologise(sink, e)
        finally:
            self.busy -= 1

    async def _apologise(self, sink: MessageSink | InteractionSink, error: Exception) -> None:
        """Say in plain text that the reply was refused, usually for missing permissions."""
        status = getattr(error, "status", "?")
        text = (
            f"❌ Discord refused my reply (HTTP {status}). Check that I may send messages, "
            "embed links and attach files in this channel, then ask again."
        )
        try:
            await sink.deliver([Outgoing(content=text)])
        except discord.HTTPException:
            log.warning("could not post the apology either")

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

    async def mention_for(
        self,
        channel: discord.abc.Messageable,
        text: str,
        own: Sequence[discord.Attachment],
        *,
        before: discord.Message | None = None,
        referenced: discord.Message | None = None,
    ) -> Mention:
        """The question with its files: ``own`` first, then the referenced message's PDFs,
        then PDFs from the channel's recent history (newest first), each once."""
        found = [self._attachment(a, "message") for a in own]
        if referenced is not None:
            found += [self._attachment(a, "thread") for a in _pdfs(referenced)]
        found += await self._history_pdfs(channel, before)
        unique, seen = [], set()
        for att in found:
            if att.key not in seen:
                seen.add(att.key)
                unique.append(att)
        return Mention(
            channel=f"discord:{channel.id}",
            text=" ".join(text.split()),
            attachments=tuple(unique),
        )

    async def _referenced(self, message: discord.Message) -> discord.Message | None:
        ref = message.reference
        if ref is None or ref.message_id is None:
            return None
        if isinstance(ref.resolved, discord.Message):
            return ref.resolved
        if ref.channel_id != message.channel.id:
            return None  # a cross-channel reference: that channel's files are not in reach
        try:
            return await message.channel.fetch_message(ref.message_id)
        except discord.HTTPException:
            return None

    async def _history_pdfs(
        self, channel: discord.abc.Messageable, before: discord.Message | None
    ) -> list[Attachment]:
        found = []
        try:
            async for earlier in channel.history(limit=self.history_limit, before=before):
                found += [self._attachment(a, "history") for a in _pdfs(earlier)]
        except discord.HTTPException as e:  # e.g. no Read Message History permission
            log.warning("channel history unavailable: %s", e)
        return found

    def _attachment(self, att: discord.Attachment, source: str) -> Attachment:
        url, name, size, limit = att.url, att.filename, att.size, self.max_bytes
        shown = safe_filename(name, suffix="")  # the uploader's name, in error replies
        return Attachment(
            name=name,
            fetch=lambda: download(url, shown, size, limit),
            size=size,
            mimetype=(att.content_type or "").split(";")[0].strip(),
            key=f"discord:{att.id}",
            source=source,
        )


def download(url: str, name: str, size: int | None, limit: int) -> bytes:
    """Fetch an attachment from Discord's CDN (signed URLs need no token)."""
    check_size(name, size, limit)
    request = urllib.request.Request(url, headers={"User-Agent": "PaperTrail (Discord bot)"})
    try:
        with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT) as response:
            data = response.read(limit + 1)
    except (urllib.error.URLError, OSError) as e:
        log.warning("download of %s failed: %s", name, e)  # the URL carries a signature
        raise PaperTrailError(
            f"I could not download {name} from Discord. Upload it again and mention me.",
            code="download",
        ) from e
    if len(data) > limit:
        raise too_large(name, None, limit)  # cut off: the true size is unknown
    return data


def _pdfs(message: discord.Message) -> list[discord.Attachment]:
    return [a for a in message.attachments if looks_like_pdf(a.filename, a.content_type or "")]

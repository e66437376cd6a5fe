"""Discord attachments as ``Attachment``s: which are PDFs, and downloading them.

Discord's CDN URLs are signed, so no token is sent; the size limit is checked
against the metadata before and against the bytes during the download. The
owner (the author) and the post (the message id) travel with each attachment
so the library can say who shared it and forget it when the message is
deleted. Routing messages is ``client.py``'s job.
"""

from __future__ import annotations

import logging
import urllib.error
import urllib.request

import discord

from adapters.chat.intake import Attachment
from papertrail.errors import PaperTrailError
from papertrail.read.uploads import check_size, looks_like_pdf, too_large
from papertrail.text.names import safe_filename

log = logging.getLogger(__name__)

DOWNLOAD_TIMEOUT = 60.0  # seconds for one attachment download


def pdfs(message: discord.Message) -> list[discord.Attachment]:
    """The message's attachments that are PDFs, by name or content type."""

    return [a for a in message.attachments if looks_like_pdf(a.filename, a.content_type or "")]


def post_key(message_id: int) -> str:
    return f"discord:message:{message_id}"


def attachment(
    att: discord.Attachment, source: str, limit: int, *, owner: str = "", post: str = ""
) -> Attachment:
    """``att`` as an ``Attachment`` whose ``fetch`` downloads it (at most ``limit`` bytes)."""
    url, name, size = att.url, att.filename, att.size
    shown = safe_filename(name, suffix="")  # the uploader's name, in error replies
    return Attachment(
        name=name,
        fetch=lambda: download(url, shown, size, limit),
        size=size,
        mimetype=(att.content_type or "").split(";")[0].strip(),
        key=f"discord:{att.id}",
        source=source,
        owner=owner,
        post=post,
    )


def message_pdfs(message: discord.Message, source: str, limit: int) -> list[Attachment]:
    """The PDFs of an earlier message, owned by its author."""
    owner, post = str(message.author.id), post_key(message.id)
    return [attachment(a, source, limit, owner=owner, post=post) for a in pdfs(message)]


async def referenced_message(message: discord.Message) -> discord.Message | None:
    """The message ``message`` replies to, only when it is in the asking channel.

    The channel is checked before anything else, including the copy Discord
    sends along (``reference.resolved``): a reply to another channel's message
    must not bring that channel's files into this one's answers or library.
    """
    ref = message.reference
    if ref is None or ref.message_id is None:
        return None
    here = message.channel.id
    if ref.channel_id != here:
        return None  # a cross-channel reference: that channel's files are not in reach
    resolved = ref.resolved
    if isinstance(resolved, discord.Message):
        return resolved if resolved.channel.id == here else None
    try:
        found = await message.channel.fetch_message(ref.message_id)
    except discord.HTTPException:
        return None
    return found if found.channel.id == here else None


async def history_pdfs(
    channel: discord.abc.Messageable, before: discord.Message | None, count: int, limit: int
) -> list[Attachment]:
    """PDFs of the ``count`` messages before ``before``, newest first: the fallback for
    files shared before the bot was there."""
    found = []
    try:
        async for earlier in channel.history(limit=count, before=before):
            found += message_pdfs(earlier, "history", limit)
    except discord.HTTPException as e:  # e.g. no Read Message History permission
        log.warning("channel history unavailable: %s", e)
    return found


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

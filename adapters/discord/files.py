"""Discord attachments: which are PDFs, the message replied to, and downloading them.

Discord's CDN URLs are signed, so no token is sent; the size limit is checked
against the metadata before and against the bytes during the download. Turning
attachments into job specs and ``Attachment``s (with their owner and post) is
``jobs.py``'s; routing messages is ``client.py``'s.
"""

from __future__ import annotations

import logging
import urllib.error
import urllib.request

import discord

from papertrail.errors import PaperTrailError
from papertrail.read.uploads import check_size, looks_like_pdf, too_large

log = logging.getLogger(__name__)

DOWNLOAD_TIMEOUT = 60.0  # seconds for one attachment download


def pdfs(message: discord.Message) -> list[discord.Attachment]:
    """The message's attachments that are PDFs, by name or content type."""

    return [a for a in message.attachments if looks_like_pdf(a.filename, a.content_type or "")]


def post_key(message_id: int) -> str:
    return f"discord:message:{message_id}"


async def referenced_message(message: discord.Message) -> discord.Message | None:
    """The message ``message`` replies to, only when it is in the asking channel.

    The channel is checked before anything else, including the copy Discord
    sends along (``reference.resolved``): a reply to another channel's message
    must not bring that channel's files into this one's answers or library.
    discord.py gives that copy the asking channel whenever the reference's
    ``channel_id`` names it, so the raw copy's own channel and guild are checked
    as the event arrives (``guard.py``: a mismatch drops the reference).
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

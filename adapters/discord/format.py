"""Turn a platform-neutral ``Reply`` into Discord messages within Discord's limits.

A reply becomes one or more ``Outgoing`` messages: the text (warnings first,
the mode footer last as ``-#`` subtext) split at 2,000 characters on paragraph,
line, sentence or word boundaries (``chat_text``); then one embed per verified
citation, titled like "[1] report.pdf, page 3", quoting its evidence and
showing its PNG through ``attachment://``. A
message carries at most 10 embeds, 10 files, 6,000 embed characters and the
upload limit in bytes, so long source lists continue in further messages.
Sending, mentions and the progress message live in ``client.py`` and ``reply.py``.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, replace

import discord

from adapters.chat.replies import Image, Reply
from adapters.chat.text import clip, split_text
from adapters.discord.buttons import reply_buttons, view

MAX_CONTENT = 2000  # characters per message
MAX_EMBEDS = 10  # embeds per message
MAX_FILES = 10  # attachments per message
MAX_EMBED_CHARS = 5800  # Discord allows 6,000 across a message's embeds; keep a margin
MAX_EXCERPT = 300  # characters of evidence quoted in each source embed
DEFAULT_UPLOAD_LIMIT = 10 * 1024 * 1024  # bytes per message for guilds without boosts
EMBED_COLOUR = 0x2B6CB0

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Outgoing:
    """One Discord message: content, embeds, and the PNGs those embeds show."""

    content: str = ""
    embeds: tuple[discord.Embed, ...] = ()
    images: tuple[Image, ...] = ()
    buttons: tuple[tuple[str, str], ...] = ()  # (label, custom_id): ``buttons.py``

    def extra(self) -> dict:
        """``view=`` for send/edit when the message has buttons (else nothing: an edit
        without ``view`` keeps what the message had)."""
        return {"view": view(self.buttons)} if self.buttons else {}

    def files(self) -> list[discord.File]:
        """Fresh ``discord.File`` objects (a File's stream can be sent only once)."""
        return [discord.File(io.BytesIO(img.png), filename=img.filename) for img in self.images]


def render_reply(reply: Reply, *, upload_limit: int = DEFAULT_UPLOAD_LIMIT) -> list[Outgoing]:
    """The messages that show ``reply``; the first one answers the question."""
    texts = split_text(_body(reply), MAX_CONTENT) or ["(no text)"]
    groups = _pack(_source_cards(reply, upload_limit), upload_limit)
    messages = [Outgoing(content=t) for t in texts[:-1]]
    first_group = groups[0] if groups else ((), ())
    messages.append(Outgoing(texts[-1], first_group[0], first_group[1]))
    messages += [Outgoing("", embeds, images) for embeds, images in groups[1:]]
    if buttons := reply_buttons(reply):
        messages[-1] = replace(messages[-1], buttons=buttons)
    return messages


def _body(reply: Reply) -> str:
    parts = [w if w.startswith("⚠") else f"⚠️ {w}" for w in reply.warnings]
    text = reply.text.strip()
    if reply.kind == "error" and text:
        text = f"❌ {text}"
    parts.append(text)
    if reply.footer:
        parts.append("-# " + " ".join(reply.footer.split()))  # subtext is one line
    return "\n\n".join(p for p in parts if p)


def safe_filename(name: str) -> str:
    """A name Discord keeps unchanged, so ``attachment://name`` still matches."""
    stem = _UNSAFE.sub("_", name).strip("._") or "page"
    return stem if stem.lower().endswith(".png") else f"{stem}.png"


def _source_cards(reply: Reply, upload_limit: int) -> list[tuple[discord.Embed, Image | None]]:
    """One embed per source: its evidence quoted and its PNG (renamed to be unique and
    safe), unless the PNG alone is over the upload limit."""
    used: set[str] = set()
    cards = []
    for source in reply.sources:
        embed = discord.Embed(title=clip(source.title, 256), colour=EMBED_COLOUR)
        if source.evidence:
            embed.description = "> " + clip(source.evidence, MAX_EXCERPT)
        img = source.image
        if img is not None and len(img.png) > upload_limit:
            img = None  # Discord would refuse the whole message
        if img is not None:
            name = _unique(safe_filename(img.filename), used)
            img = Image(filename=name, png=img.png, title=img.title)
            embed.set_image(url=f"attachment://{name}")
        cards.append((embed, img))
    return cards


def _pack(
    cards: list[tuple[discord.Embed, Image | None]], upload_limit: int
) -> list[tuple[tuple[discord.Embed, ...], tuple[Image, ...]]]:
    """Group cards into messages that respect every per-message limit."""
    groups: list[tuple[list, list]] = []
    chars = size = 0
    for embed, img in cards:
        length = len(embed)
        weight = len(img.png) if img else 0
        fits = (
            groups
            and len(groups[-1][0]) < MAX_EMBEDS
            and len(groups[-1][1]) + (img is not None) <= MAX_FILES
            and chars + length <= MAX_EMBED_CHARS
            and size + weight <= upload_limit
        )
        if not fits:
            groups.append(([], []))
            chars = size = 0
        groups[-1][0].append(embed)
        if img is not None:
            groups[-1][1].append(img)
        chars += length
        size += weight
    return [(tuple(e), tuple(i)) for e, i in groups]


def _unique(name: str, used: set[str]) -> str:
    stem, ext = name.rsplit(".", 1)
    candidate, k = name, 2
    while candidate in used:
        candidate, k = f"{stem}-{k}.{ext}", k + 1
    used.add(candidate)
    return candidate

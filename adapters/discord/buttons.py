"""Buttons under the bot's Discord messages: 👍/👎 on answers, suggested questions.

An answer's last message carries two buttons whose ``custom_id`` names the
answer (``pt:up:<id>``, ``pt:down:<id>``); a reply after a drop carries one
button per suggested question (``pt:ask:<n>``, labelled with the question).
Clicks arrive as component interactions, which need no registered view:
``clicks.py`` acts on them. Nothing here calls Discord.
"""

from __future__ import annotations

import re

import discord

from adapters.chat.replies import Reply
from adapters.chat.text import clip

LABEL = 80  # characters in a button's label (Discord's limit)
VIEW_TTL = 60.0  # seconds discord.py keeps a sent view in its store
_ID = re.compile(r"^pt:(up|down|ask):([0-9a-f]{6,32}|\d)$")


def reply_buttons(reply: Reply) -> tuple[tuple[str, str], ...]:
    """(label, custom_id) of the buttons under ``reply``."""
    buttons = [(clip(q, LABEL), f"pt:ask:{i}") for i, q in enumerate(reply.suggestions[:5])]
    if reply.answer_id:
        buttons += [("👍", f"pt:up:{reply.answer_id}"), ("👎", f"pt:down:{reply.answer_id}")]
    return tuple(buttons)


def view(buttons: tuple[tuple[str, str], ...]) -> discord.ui.View:
    """A view holding ``buttons``. Clicks are handled by custom_id (``clicks.py``), not by
    the view, so discord.py's view store may drop it after ``VIEW_TTL``: the buttons stay
    on the message and keep working, and memory stays bounded however many answers."""
    v = discord.ui.View(timeout=VIEW_TTL)
    for label, custom_id in buttons:
        vote = custom_id.startswith(("pt:up:", "pt:down:"))
        style = discord.ButtonStyle.secondary if vote else discord.ButtonStyle.primary
        v.add_item(discord.ui.Button(label=label, custom_id=custom_id, style=style))
    return v


def parse(custom_id: str) -> tuple[str, str] | None:
    """(``up`` | ``down`` | ``ask``, answer id or button number), or None if not ours."""
    m = _ID.match(custom_id or "")
    return (m.group(1), m.group(2)) if m else None


def label_of(message: discord.Message | None, custom_id: str) -> str:
    """The label of the button ``custom_id`` on ``message`` ("" if it has none)."""
    for row in getattr(message, "components", None) or ():
        for item in getattr(row, "children", ()):
            if getattr(item, "custom_id", None) == custom_id:
                return str(getattr(item, "label", "") or "")
    return ""

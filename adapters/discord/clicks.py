"""Clicks on the bot's Discord buttons (component interactions), acted on.

A 👍/👎 is stored (one vote per person per answer, in the library of the
channel clicked in: another channel's answer id counts for nothing) and
acknowledged privately, so only the person who clicked sees it. A suggested
question is answered like ``/ask``: deferred at once ("thinking…"), then the
answer edits that response. The buttons themselves are ``buttons.py``'s.
"""

from __future__ import annotations

import asyncio
import functools
import logging

import discord

from adapters.chat.feedback import vote_note
from adapters.discord.buttons import label_of, parse
from adapters.discord.library import library

log = logging.getLogger(__name__)


async def on_click(client, interaction: discord.Interaction) -> None:
    """Act on a click on one of ``client``'s buttons (a ``PaperTrailClient``)."""
    if interaction.type != discord.InteractionType.component:
        return
    custom_id = str((interaction.data or {}).get("custom_id", ""))
    parsed = parse(custom_id)
    if parsed is None:
        return
    kind, value = parsed
    channel = interaction.channel or client.get_partial_messageable(interaction.channel_id)
    try:
        if kind in ("up", "down"):
            user = str(interaction.user.id)
            vote = functools.partial(client.service.vote, library(channel), value, user, kind)
            outcome = await asyncio.to_thread(vote)
            await interaction.response.send_message(vote_note(outcome, kind), ephemeral=True)
            return
        question = label_of(interaction.message, custom_id)
        if question:
            await interaction.response.defer(thinking=True)
            await client.serve_interaction(interaction, question, [])
    except discord.HTTPException as e:
        log.warning("could not answer a button click: %s", e)

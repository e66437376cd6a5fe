"""Slash commands: /ask, /list, /forget and /help (and /docs, the older name of /list).

Each command defers at once (Discord wants a first response within 3 s and
shows "PaperTrail is thinking…"), then ``answer`` (the client's
``serve_interaction``, handed in: this module does not know the client class)
runs the service in a worker thread and the reply edits the deferred response
(``InteractionSink``). Commands become the text commands a mention already
understands ("list", "forget report.pdf", "help"), so the service needs
nothing new. ``/forget`` completes the names of the channel's documents as
they are typed. Left out: per-guild registration.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

import discord
from discord import app_commands

from adapters.discord.library import library

MAX_CHOICES = 25  # autocomplete choices Discord shows

# (the interaction, the command as text, its attachments) -> the reply delivered
Answer = Callable[[discord.Interaction, str, Sequence[discord.Attachment]], Awaitable[None]]


def add_slash_commands(client: discord.Client, answer: Answer) -> app_commands.CommandTree:
    """Register the commands on a new tree bound to ``client``; ``answer`` answers each."""
    tree = app_commands.CommandTree(client)

    async def serve(interaction: discord.Interaction, text: str, files=()) -> None:
        await interaction.response.defer(thinking=True)
        await answer(interaction, text, list(files))

    @tree.command(name="ask", description="Ask about the PDFs in this channel, or attach one.")
    @app_commands.describe(question="Your question", file="A PDF to read before answering")
    async def ask(
        interaction: discord.Interaction, question: str, file: discord.Attachment | None = None
    ) -> None:
        await serve(interaction, question, [file] if file else [])

    @tree.command(name="list", description="List the PDFs indexed in this channel.")
    async def list_(interaction: discord.Interaction) -> None:
        await serve(interaction, "list")

    @tree.command(name="docs", description="List the PDFs indexed in this channel (= /list).")
    async def docs(interaction: discord.Interaction) -> None:
        await serve(interaction, "list")

    @tree.command(name="forget", description="Forget one PDF of this channel, or all of them.")
    @app_commands.describe(document="The file name (e.g. report.pdf), or 'all'")
    async def forget(interaction: discord.Interaction, document: str) -> None:
        await serve(interaction, f"forget {document}")

    @forget.autocomplete("document")
    async def forget_names(interaction: discord.Interaction, current: str):
        channel = interaction.channel or client.get_partial_messageable(interaction.channel_id)
        names = await asyncio.to_thread(document_names, client, library(channel))
        typed = current.strip().lower()
        found = [n for n in names if typed in n.lower()] + ["all"] * ("all".startswith(typed))
        return [app_commands.Choice(name=n[:100], value=n[:100]) for n in found[:MAX_CHOICES]]

    @tree.command(name="help", description="How to use PaperTrail.")
    async def help_(interaction: discord.Interaction) -> None:
        await serve(interaction, "help")

    return tree


def document_names(client, where: str) -> list[str]:
    """The file names of the library ``where`` (the client's service), sorted."""
    try:
        docs = client.service.pipeline.documents(where)
    except Exception:  # a completion is a nicety: an empty list, never an error
        return []
    return sorted({d.name for d in docs}, key=str.lower)

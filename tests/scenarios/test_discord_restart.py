"""A restarted Discord bot still knows its conversations: a reply to an answer given
before the restart is a follow-up, without a mention.

A real ``discord.Client`` against FakeDiscord; the restart is a new client and
a new ``ChatService`` on the same data directory (its ``chat.sqlite``), as a
new process would build them. The library itself is the same pipeline, which
stands in for the index on disk.
"""

from __future__ import annotations

from adapters.chat.service import ChatService
from adapters.discord.client import build_client
from papertrail.settings import Settings
from tests.adapters.discord.test_library import GENERAL, answer_to, ask, drop
from tests.fake_discord import BOT_ID, FakeDiscord
from tests.fake_discord_runner import BotThread
from tests.fakes import gated_pipeline
from tests.pdfs import paper_pdf


def client(pipeline):
    service = ChatService(pipeline)  # a new service: only what is on disk carries over
    return build_client(service, guild_ready_timeout=0.05, progress_interval=0.05)


def test_a_reply_to_an_answer_from_before_a_restart_is_a_follow_up(tmp_path):
    pipeline = gated_pipeline(Settings(data_dir=tmp_path / "data", ocr=False, max_pdf_mb=0.5))
    with FakeDiscord() as fake:
        with BotThread(client(pipeline), fake):
            drop(fake, "paper.pdf", paper_pdf())
            first = ask(fake, f"<@{BOT_ID}> How many identical layers are in the encoder stack?")
            assert "N = 6 identical layers" in first["content"]
        with BotThread(client(pipeline), fake):  # restarted
            follow = fake.send(GENERAL, "And the decoder?", reply_to=first)
            reply = answer_to(fake, follow)
    assert "Read as: How many identical layers are in the decoder stack?" in reply["content"]

"""Forgetting on Discord: shares, not bytes, are owned, and a forgotten file stays forgotten.

A real ``discord.Client`` against FakeDiscord with the real ChatService and
pipeline (the ``bot`` fixture of tests/adapters/discord/test_library.py).
Alice owns the guild (she may manage messages); Bob is a plain member. The
same on Slack is tests/scenarios/test_forget_slack.py.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from adapters.chat.service import ChatService
from adapters.discord.client import build_client
from papertrail.settings import Settings
from tests.adapters.discord.test_library import GENERAL, ask, drop
from tests.fake_discord import BOT_ID, FakeDiscord
from tests.fake_discord_payloads import BOB
from tests.fake_discord_runner import BotThread
from tests.fakes import gated_pipeline
from tests.pdfs import paper_pdf

PAPER = "attention-is-all-you-need.pdf"
QUESTION = f"<@{BOT_ID}> How many parallel attention heads are used?"


@pytest.fixture
def bot(tmp_path):
    pipeline = gated_pipeline(Settings(data_dir=tmp_path / "data", ocr=False, max_pdf_mb=0.5))
    client = build_client(ChatService(pipeline), guild_ready_timeout=0.05, progress_interval=0.05)
    with FakeDiscord() as fake, BotThread(client, fake):
        yield SimpleNamespace(fake=fake, pipeline=pipeline)


def names(bot) -> list[str]:
    return sorted(d.name for d in bot.pipeline.documents(f"discord:{GENERAL}"))


def test_the_same_bytes_under_another_name_do_not_let_bob_forget_alices_file(bot):
    fake, data = bot.fake, paper_pdf()
    drop(fake, PAPER, data)  # alice's
    drop(fake, "my-copy.pdf", data, author=BOB)  # the same bytes, his post

    refused = ask(fake, f"<@{BOT_ID}> forget {PAPER}", author=BOB)["content"]
    assert f"Only the person who shared {PAPER}" in refused
    assert names(bot) == [PAPER]
    own = ask(fake, f"<@{BOT_ID}> forget my-copy.pdf", author=BOB)["content"]
    assert "Forgot my-copy.pdf." in own and "still shared here" in own
    assert names(bot) == [PAPER]
    assert PAPER in str(ask(fake, QUESTION, author=BOB)["embeds"])


def test_a_forgotten_file_stays_forgotten_until_someone_posts_it_again(bot):
    fake, data = bot.fake, paper_pdf()
    drop(fake, PAPER, data)
    assert "Forgot" in ask(fake, f"<@{BOT_ID}> forget {PAPER}")["content"]
    assert names(bot) == []
    fetched = len(fake.cdn_hits)

    reply = ask(fake, QUESTION, author=BOB)  # the PDF's message is still in recent history
    assert "I don't see a PDF here yet" in reply["content"] and PAPER not in str(reply)
    assert names(bot) == [] and PAPER not in ask(fake, f"<@{BOT_ID}> list")["content"]
    assert len(fake.cdn_hits) == fetched  # not even downloaded again

    drop(fake, "paper-again.pdf", data, author=BOB)  # posted anew
    assert names(bot) == ["paper-again.pdf"]
    assert "paper-again.pdf" in str(ask(fake, QUESTION, author=BOB)["embeds"])

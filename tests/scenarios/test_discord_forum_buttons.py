"""End-to-end on Discord: forum posts, buttons (votes, suggested questions), /forget names.

The real discord.py client against tests/fake_discord.py, which now has a
forum channel, stores the components of the bot's messages and delivers
component and autocomplete interactions; behind it the real ``ChatService``
and pipeline (hash embedder, in-memory Chroma).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from adapters.chat.service import ChatService
from adapters.discord.client import build_client
from papertrail.measure.feedback import read_local
from papertrail.settings import Settings
from tests.fake_discord import CHANNELS, FakeDiscord
from tests.fake_discord_payloads import BOB_ID, user
from tests.fake_discord_runner import BotThread
from tests.fakes import gated_pipeline
from tests.pdfs import table_pdf

GENERAL = CHANNELS["general"]
BOB = user(BOB_ID, "bob")


@pytest.fixture
def bot(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", ocr=False, max_pdf_mb=0.5)
    pipeline = gated_pipeline(settings)
    service = ChatService(pipeline, settings, suggest=True)
    client = build_client(service, guild_ready_timeout=0.05, progress_interval=0.05)
    with FakeDiscord() as fake, BotThread(client, fake):
        yield SimpleNamespace(fake=fake, service=service, settings=settings)
        fake.assert_no_pings()


def _buttons(message: dict) -> list[dict]:
    return [b for row in message.get("components") or () for b in row.get("components", ())]


def _final(fake, channel, n):
    """The bot's first ``n`` finished messages in a channel (not ⏳ progress)."""

    def done():
        found = [
            m
            for m in fake.bot_messages(channel)
            if m["content"] and not m["content"].startswith("⏳") and not m.get("flags", 0) & 128
        ]
        return found if len(found) >= n else None

    return fake.wait_for(done, timeout=30)


def test_a_forum_post_with_a_pdf_and_a_question_is_answered_with_working_buttons(bot):
    fake = bot.fake
    pdf = fake.attachment("statement.pdf", table_pdf())
    post = fake.forum_post("Revenue", "What was the net revenue in 2023?", attachments=[pdf])
    post_id = int(post["id"])
    answer = _final(fake, post_id, 1)[0]
    assert "1,577" in answer["content"] and "verified" in answer["content"]
    labels = {b["custom_id"].split(":")[1]: b for b in _buttons(answer)}
    assert set(labels) == {"up", "down"}

    fake.click(answer, labels["down"]["custom_id"])  # alice 👎, twice, and bob 👍
    fake.click(answer, labels["down"]["custom_id"])
    fake.click(answer, labels["up"]["custom_id"], who=BOB)
    fake.wait_for(lambda: len(fake.ephemeral) == 3)
    notes = [e["content"] for e in fake.ephemeral]  # the clicks run side by side
    assert sum("recorded" in n for n in notes) == 2 and sum("already" in n for n in notes) == 1
    assert all(e["flags"] & 64 for e in fake.ephemeral)  # only the clicker sees it
    votes = read_local(bot.settings.data_dir, f"discord:{post_id}")  # the post's own library
    assert sorted(v["verdict"] for v in votes) == ["down", "up"]

    # a follow-up in the post needs no mention; the post's library is its own
    fake.send(post_id, "What was the cost of sales?")
    assert "912" in _final(fake, post_id, 2)[-1]["content"]
    fake.send(GENERAL, "<@1100000000000000001> What was the net revenue in 2023?")
    other = _final(fake, GENERAL, 1)[0]["content"]
    assert "1,577" not in other  # the channel never sees the post's PDF


def test_suggested_question_buttons_after_a_drop_are_answered(bot):
    fake = bot.fake
    pdf = fake.attachment("statement.pdf", table_pdf())
    fake.send(GENERAL, "", attachments=[pdf])
    offered = _final(fake, GENERAL, 1)[0]
    asks = [b for b in _buttons(offered) if b["custom_id"].startswith("pt:ask:")]
    assert 2 <= len(asks) <= 3
    for n, button in enumerate(asks, start=2):
        fake.click(offered, button["custom_id"])
        answer = _final(fake, GENERAL, n)[-1]["content"]
        assert "verified" in answer and "Ungrounded" not in answer, answer


def test_forget_completes_the_channels_document_names(bot):
    fake = bot.fake
    fake.wait_for(lambda: fake.commands, what="commands registered")
    fake.send(GENERAL, "", attachments=[fake.attachment("statement.pdf", table_pdf())])
    _final(fake, GENERAL, 1)
    choices = fake.complete(GENERAL, "forget", "document", "stat")
    assert [c["value"] for c in choices] == ["statement.pdf"]
    assert fake.complete(CHANNELS["random"], "forget", "document", "") == [
        {"name": "all", "value": "all"}
    ]  # another channel's names are never offered

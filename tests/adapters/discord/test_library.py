"""The channel as a library and threads as conversations, on Discord.

A real ``discord.Client`` against tests/fake_discord.py, with the real
ChatService and pipeline (``HashEmbedder`` for the model). Every PDF is
generated.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from adapters.chat.service import ChatService
from adapters.discord.client import build_client
from papertrail.settings import Settings
from tests.fake_discord import BOT_ID, CHANNELS, FakeDiscord
from tests.fake_discord_payloads import BOB
from tests.fake_discord_runner import BotThread
from tests.fakes import gated_pipeline
from tests.pdfs import paper_pdf, simple_pdf

GENERAL = CHANNELS["general"]
HARBOUR = simple_pdf(
    ["The harbour authority dredged the northern basin to a depth of fourteen metres."]
)
DONE = ["+⏳", "-⏳", "+✅"]


@pytest.fixture
def bot(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", ocr=False, max_pdf_mb=0.5)
    pipeline = gated_pipeline(settings)
    client = build_client(ChatService(pipeline), guild_ready_timeout=0.05, progress_interval=0.05)
    with FakeDiscord() as fake:
        with BotThread(client, fake):
            yield SimpleNamespace(fake=fake, pipeline=pipeline)
        fake.assert_no_pings()


def drop(fake: FakeDiscord, name: str, data: bytes, **kwargs) -> dict:
    message = fake.send(
        GENERAL, "sharing this", attachments=[fake.attachment(name, data)], **kwargs
    )
    fake.wait_for(lambda: fake.reactions(GENERAL, message)[-1:] in (["+✅"], ["+❌"]), 20)
    return message


def answer_to(fake: FakeDiscord, question: dict, channel: int = GENERAL) -> dict:
    """The bot's final reply to ``question`` (not the ⏳ progress line)."""

    def done():
        return [
            m
            for m in fake.bot_messages(channel)
            if (m.get("message_reference") or {}).get("message_id") == int(question["id"])
            and not m["content"].startswith("⏳")
        ]

    return fake.wait_for(done, 20, what=f"an answer to {question['content']!r}")[-1]


def ask(fake: FakeDiscord, text: str, channel: int = GENERAL, **kwargs) -> dict:
    question = fake.send(channel, text, **kwargs)
    return answer_to(fake, question, channel)


def test_a_dropped_pdf_is_indexed_unasked_and_later_questions_need_no_download(bot):
    fake = bot.fake
    message = drop(fake, "paper.pdf", paper_pdf())
    assert fake.reactions(GENERAL, message) == DONE
    assert len(fake.cdn_hits) == 1 and fake.bot_messages(GENERAL) == []  # no chatter on success
    for n in range(25):  # more than the history fallback reaches
        fake.send(GENERAL, f"unrelated message {n}")

    answer = ask(fake, f"<@{BOT_ID}> How many parallel attention heads are used?")
    assert "attention heads" in answer["content"]
    assert answer["embeds"][0]["title"].startswith("[1] paper.pdf, page")
    assert answer["embeds"][0]["description"].startswith("> ")  # the evidence, quoted
    assert len(fake.cdn_hits) == 1  # from the library: nothing downloaded again


def test_replies_to_the_answer_and_its_thread_are_follow_ups_without_a_mention(bot):
    fake = bot.fake
    drop(fake, "paper.pdf", paper_pdf())
    first = ask(fake, f"<@{BOT_ID}> How many identical layers are in the encoder stack?")
    assert "N = 6 identical layers" in first["content"]

    follow = ask(fake, "And the decoder?", reply_to=first)
    assert "Read as: How many identical layers are in the decoder stack?" in follow["content"]
    assert "decoder is also a stack of six identical layers" in follow["content"]

    thread = fake.start_thread(GENERAL, follow)  # a thread started from the bot's answer
    in_thread = ask(fake, "And in the big model?", channel=thread)
    assert "Read as:" in in_thread["content"] and "paper.pdf" in in_thread["embeds"][0]["title"]

    chatter = fake.send(GENERAL, "And the encoder?")  # not a reply to the bot: left alone
    fake.send(GENERAL, f"<@{BOT_ID}> help")
    fake.answered(GENERAL, "Commands:")
    assert not [
        m
        for m in fake.bot_messages(GENERAL)
        if (m.get("message_reference") or {}).get("message_id") == int(chatter["id"])
    ]


def test_a_deleted_message_takes_its_pdf_out_of_the_library(bot):
    fake = bot.fake
    harbour = drop(fake, "harbour.pdf", HARBOUR)
    drop(fake, "paper.pdf", paper_pdf())
    assert "harbour.pdf" in ask(fake, f"<@{BOT_ID}> list")["content"]

    fake.delete(GENERAL, harbour)
    fake.wait_for(
        lambda: [d.name for d in bot.pipeline.documents(f"discord:{GENERAL}")] == ["paper.pdf"],
        what="harbour.pdf forgotten",
    )
    assert "harbour.pdf" not in ask(fake, f"<@{BOT_ID}> list")["content"]
    answer = ask(fake, f"<@{BOT_ID}> How deep was the northern basin dredged?")
    assert "harbour.pdf" not in str(answer["embeds"]) and "fourteen" not in answer["content"]

    again = drop(fake, "harbour.pdf", HARBOUR)
    paper = [m for m in fake.history[GENERAL] if "paper.pdf" in str(m["attachments"])]
    fake.delete(GENERAL, again, *paper)  # a purge: MESSAGE_DELETE_BULK
    fake.wait_for(lambda: bot.pipeline.documents(f"discord:{GENERAL}") == [], what="purged")


def test_only_the_sharer_or_a_manager_may_forget(bot):
    fake = bot.fake
    drop(fake, "paper.pdf", paper_pdf(), author=BOB)
    drop(fake, "harbour.pdf", HARBOUR)  # alice's
    refused = ask(fake, f"<@{BOT_ID}> forget harbour.pdf", author=BOB)
    assert "Only the person who shared harbour.pdf" in refused["content"]
    assert "Only a workspace admin" in ask(fake, f"<@{BOT_ID}> forget all", author=BOB)["content"]
    assert "Forgot paper.pdf." in ask(fake, f"<@{BOT_ID}> forget paper.pdf", author=BOB)["content"]
    # alice owns the guild, so she has Manage Messages
    assert "Forgot harbour.pdf." in ask(fake, f"<@{BOT_ID}> forget all")["content"]


def test_a_dropped_file_that_is_not_a_pdf_gets_a_cross_and_a_reason(bot):
    fake = bot.fake
    message = drop(fake, "page.pdf", b"<!DOCTYPE html><html>not a pdf</html>")
    assert fake.reactions(GENERAL, message)[-1] == "+❌"
    assert "PDF" in answer_to(fake, message)["content"]

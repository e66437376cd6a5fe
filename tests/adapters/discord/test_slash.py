"""Slash commands against tests/fake_discord.py: registration, defer, answer, follow-ups.

A real discord.Client receives INTERACTION_CREATE events; the service is a
small recording one (tests/scenarios/test_discord_scenarios.py runs the real one).
"""

from __future__ import annotations

import time

import pytest

from adapters.chat.service import Mention, Reply
from adapters.discord.client import build_client
from tests.fake_discord import CHANNELS, FakeDiscord
from tests.fake_discord_runner import BotThread
from tests.fakes import NoLibrary, source

GENERAL, RANDOM = CHANNELS["general"], CHANNELS["random"]
PDF = b"%PDF-1.4\n%%EOF\n"
DEFERRED_WITH_THINKING = 5  # interaction response type


class Recorder(NoLibrary):
    def __init__(self, reply=None, pause: float = 0.0) -> None:
        self.reply = reply or (lambda m: Reply(kind="answer", text=f"Reply to {m.text}"))
        self.pause = pause  # seconds of "indexing", with progress lines
        self.mentions: list[Mention] = []

    def handle(self, mention: Mention, progress=None) -> Reply:
        self.mentions.append(mention)
        if self.pause:
            progress("Indexing report.pdf — 1/2 pages")
            time.sleep(self.pause)
        return self.reply(mention)


@pytest.fixture
def fake():
    with FakeDiscord() as server:
        yield server
        server.assert_no_pings()


def running(fake: FakeDiscord, service, **options) -> BotThread:
    client = build_client(service, guild_ready_timeout=0.05, progress_interval=0.01, **options)
    return BotThread(client, fake)


def test_commands_are_registered_at_start_up(fake):
    with running(fake, Recorder()):
        pass
    by_name = {c["name"]: c for c in fake.commands}
    assert sorted(by_name) == ["ask", "docs", "forget", "help", "list"]
    question, file = by_name["ask"]["options"]
    assert (question["name"], question["type"], question["required"]) == ("question", 3, True)
    assert (file["name"], file["type"], file.get("required", False)) == ("file", 11, False)
    assert by_name["forget"]["options"][0]["required"] is True


def test_commands_can_be_left_unsynced(fake):
    with running(fake, Recorder(), sync_commands=False):
        pass
    assert not fake.calls_to("PUT", r"/applications/.*")


def test_ask_defers_then_edits_the_response_into_the_answer(fake):
    service = Recorder(pause=0.2)
    with running(fake, service):
        fake.send(GENERAL, "older upload", attachments=[fake.attachment("old.pdf", PDF)])
        att = fake.attachment("report.pdf", PDF)
        fake.slash(GENERAL, "ask", files={"file": att}, question="  what changed? ")
        [msg] = fake.answered(GENERAL, "Reply to what changed?")

    [mention] = service.mentions
    assert mention.channel == f"discord:{GENERAL}"
    assert [(a.name, a.source) for a in mention.attachments] == [
        ("report.pdf", "message"),
        ("old.pdf", "history"),
    ]
    # after log-in and registration; the reactions mark the older upload's indexing
    order = [c.path.split("/")[1] for c in fake.calls[3:] if "/reactions/" not in c.path]
    assert order[0] == "interactions"  # deferred before any other work
    [callback] = fake.calls_to("POST", r"/interactions/.*/callback")
    assert callback.json["type"] == DEFERRED_WITH_THINKING
    edits = fake.calls_to("PATCH", r"/webhooks/.*/@original")
    assert edits[0].json["content"] == "⏳ Indexing report.pdf — 1/2 pages"
    assert edits[-1].json["content"] == "Reply to what changed?"
    assert msg["flags"] == 0  # no longer "thinking"


def test_docs_forget_and_help_become_text_commands(fake):
    service = Recorder()
    with running(fake, service):
        fake.slash(GENERAL, "docs")
        fake.answered(GENERAL, "Reply to list")
        fake.slash(GENERAL, "forget", document="report.pdf")
        fake.answered(GENERAL, "Reply to forget report.pdf")
        fake.slash(RANDOM, "help")
        fake.answered(RANDOM, "Reply to help")
    assert [(m.channel, m.text) for m in service.mentions] == [
        (f"discord:{GENERAL}", "list"),
        (f"discord:{GENERAL}", "forget report.pdf"),
        (f"discord:{RANDOM}", "help"),
    ]


def test_sources_beyond_ten_go_to_follow_ups(fake):
    sources = tuple(
        source(f"[{i}] a.pdf, page {i}", b"\x89PNG" + bytes([i]), filename=f"{i}.png")
        for i in range(1, 13)
    )
    reply = Reply(kind="answer", text="Lots of facts.", sources=sources)
    with running(fake, Recorder(lambda m: reply)):
        fake.slash(GENERAL, "ask", question="facts?")
        fake.wait_for(lambda: len(fake.bot_messages(GENERAL)) == 2, what="a follow-up")
    [edit] = fake.calls_to("PATCH", r"/webhooks/.*/@original")
    [follow_up] = fake.calls_to("POST", r"/webhooks/\d+/[\w-]+")
    assert len(edit.files) == 10 and len(follow_up.files) == 2
    assert [e["title"] for e in edit.json["embeds"] + follow_up.json["embeds"]] == [
        s.title for s in sources
    ]
    first, second = fake.bot_messages(GENERAL)
    assert first["content"] == "Lots of facts." and len(second["attachments"]) == 2

"""Scenario tests: a real discord.Client against tests/fake_discord.py, with small services.

The services here are real implementations of ``handle`` written for the test
(recording, gated, crashing); tests/scenarios/test_discord_scenarios.py runs the real
ChatService and pipeline. Assertions are on what the fake Discord received.
"""

from __future__ import annotations

import logging
import threading
import time

import discord
import pytest

from adapters.chat.service import Mention, Reply
from adapters.discord.client import FAILURE, build_client, download, run, use_endpoints
from papertrail.errors import PaperTrailError
from tests.fake_discord import BOT_ID, CHANNELS, FakeDiscord, user
from tests.fake_discord_runner import BotThread
from tests.fakes import NoLibrary, source

GENERAL, RANDOM = CHANNELS["general"], CHANNELS["random"]
PDF = b"%PDF-1.4\n% a small stand-in; these services never parse it\n%%EOF\n"
MESSAGE_CONTENT_INTENT = 1 << 15


class RecordingService(NoLibrary):
    """Answers with ``reply(mention)``, downloading this message's files first."""

    def __init__(self, reply=None) -> None:
        self.reply = reply or (lambda m: Reply(kind="answer", text=f"You asked: {m.text}"))
        self.mentions: list[Mention] = []
        self.downloaded: dict[str, bytes] = {}
        self.threads: set[str] = set()

    def handle(self, mention: Mention, progress=None) -> Reply:
        self.mentions.append(mention)
        self.threads.add(threading.current_thread().name)
        for att in mention.attachments:
            if att.source == "message":
                self.downloaded[att.name] = att.fetch()
        return self.reply(mention)


@pytest.fixture
def fake():
    with FakeDiscord() as server:
        yield server
        server.assert_no_pings()


def running(fake: FakeDiscord, service, **options) -> BotThread:
    client = build_client(service, guild_ready_timeout=0.05, **options)
    return BotThread(client, fake)


def ask(fake: FakeDiscord, channel: int, text: str, **kwargs) -> dict:
    return fake.send(channel, f"<@{BOT_ID}> {text}", **kwargs)


def test_pdf_mention_gets_one_reply_with_embeds_and_pngs(fake):
    pngs = [b"\x89PNG\r\n\x1a\n" + bytes([i]) * 50 for i in range(2)]
    reply = Reply(
        kind="answer",
        text="Revenue grew 12% [1] while costs fell [2].",
        sources=(
            source("[1] report.pdf, page 3", pngs[0], filename="1-p3-report.png"),
            source("[2] report.pdf, page 7", pngs[1], filename="2-p7-report.png"),
        ),
        footer="Mode: extractive · 2 citations verified",
    )
    service = RecordingService(lambda m: reply)
    with running(fake, service):
        att = fake.attachment("report.pdf", PDF)
        question = ask(fake, GENERAL, "  how did revenue change? ", attachments=[att])
        [msg] = fake.answered(GENERAL, "Revenue grew")

    [mention] = service.mentions
    assert mention.channel == f"discord:{GENERAL}"
    assert mention.text == "how did revenue change?"
    [pdf] = mention.attachments
    assert (pdf.name, pdf.size, pdf.mimetype, pdf.source) == (
        "report.pdf",
        len(PDF),
        "application/pdf",
        "message",
    )
    assert pdf.key == f"discord:{att['id']}"
    assert service.downloaded == {"report.pdf": PDF}  # fetched from the CDN, in a worker thread
    assert all(t.startswith("papertrail-worker") for t in service.threads)  # off the loop

    assert msg["message_reference"]["message_id"] == int(question["id"])
    assert msg["content"].startswith("Revenue grew 12% [1] while costs fell [2].")
    assert msg["content"].endswith("-# Mode: extractive · 2 citations verified")
    assert [e["title"] for e in msg["embeds"]] == [s.title for s in reply.sources]
    names = [a["filename"] for a in msg["attachments"]]
    assert [e["image"]["url"] for e in msg["embeds"]] == [f"attachment://{n}" for n in names]
    [create] = fake.calls_to("POST", rf"/channels/{GENERAL}/messages")
    assert [f.data for f in create.files] == pngs
    assert [f.field for f in create.files] == ["files[0]", "files[1]"]
    assert create.json["allowed_mentions"].get("replied_user") is True  # pings the asker only

    assert fake.identify["intents"] & MESSAGE_CONTENT_INTENT
    assert not fake.calls_to("GET", r"/gateway.*")  # a plain Client never asks /gateway/bot


def test_only_direct_mentions_of_the_bot_are_answered(fake):
    service = RecordingService()
    with running(fake, service):
        fake.send(GENERAL, "@everyone please read this", mention_everyone=True)
        fake.send(GENERAL, "@here anyone?", mention_everyone=True)
        fake.send(GENERAL, "<@&1100000000000000099> role ping")
        other_bot = user(1400000000000000001, "b", bot=True)
        fake.send(GENERAL, f"<@{BOT_ID}> from a bot", author=other_bot)
        fake.send(GENERAL, f"<@{BOT_ID}> from myself", author=fake.bot)
        fake.send(GENERAL, "<@1300000000000000009> someone else")
        ask(fake, GENERAL, "the real question")
        fake.answered(GENERAL, "You asked: the real question")
    assert [m.text for m in service.mentions] == ["the real question"]
    assert len(fake.calls_to("POST", r"/channels/\d+/messages")) == 1


def test_long_answer_is_split_at_2000_characters(fake):
    text = "\n\n".join(f"Paragraph {i}. " + "This sentence is filler text. " * 25 for i in range(6))
    service = RecordingService(lambda m: Reply(kind="answer", text=text, footer="Mode: test"))
    with running(fake, service):
        question = ask(fake, GENERAL, "tell me everything")
        fake.answered(GENERAL, "Mode: test")
    msgs = fake.bot_messages(GENERAL)
    assert len(msgs) >= 3
    assert all(len(m["content"]) <= 2000 for m in msgs)
    assert msgs[0]["message_reference"]["message_id"] == int(question["id"])
    assert all("message_reference" not in m for m in msgs[1:])
    assert all(m["content"].startswith("Paragraph") for m in msgs)  # cut between paragraphs
    joined = " ".join(m["content"] for m in msgs)
    assert joined.split() == (text + " -# Mode: test").split()


def test_many_sources_continue_in_further_messages(fake):
    pngs = [b"\x89PNG" + bytes([i]) * 20 for i in range(12)]
    sources = tuple(
        source(f"[{i + 1}] a.pdf, page {i + 1}", p, filename=f"{i + 1}-a.png")
        for i, p in enumerate(pngs)
    )
    reply = Reply(kind="answer", text="Many claims.", sources=sources)
    with running(fake, RecordingService(lambda m: reply)):
        ask(fake, GENERAL, "list the facts")
        fake.wait_for(lambda: len(fake.bot_messages(GENERAL)) == 2, what="two messages")
    first, second = fake.calls_to("POST", rf"/channels/{GENERAL}/messages")
    assert len(first.files) == 10 and len(first.json["embeds"]) == 10
    assert len(second.files) == 2 and len(second.json["embeds"]) == 2
    assert [f.data for f in first.files + second.files] == pngs
    for call in (first, second):
        urls = [e["image"]["url"] for e in call.json["embeds"]]
        assert urls == [f"attachment://{f.filename}" for f in call.files]


def test_two_channels_never_mix(fake):
    service = RecordingService(lambda m: Reply(kind="answer", text=f"Answer for {m.channel}"))
    with running(fake, service):
        fake.send(GENERAL, "old upload", attachments=[fake.attachment("general.pdf", PDF)])
        fake.send(RANDOM, "old upload", attachments=[fake.attachment("random.pdf", PDF)])
        ask(fake, GENERAL, "question one")
        ask(fake, RANDOM, "question two")
        fake.answered(GENERAL, f"Answer for discord:{GENERAL}")
        fake.answered(RANDOM, f"Answer for discord:{RANDOM}")
    by_channel = {m.channel: m for m in service.mentions}
    assert [a.name for a in by_channel[f"discord:{GENERAL}"].attachments] == ["general.pdf"]
    assert [a.name for a in by_channel[f"discord:{RANDOM}"].attachments] == ["random.pdf"]
    assert [m["content"] for m in fake.bot_messages(GENERAL)] == [f"Answer for discord:{GENERAL}"]
    assert [m["content"] for m in fake.bot_messages(RANDOM)] == [f"Answer for discord:{RANDOM}"]


def test_reply_to_a_pdf_message_and_history_are_in_reach(fake):
    service = RecordingService()
    with running(fake, service):
        old = fake.send(GENERAL, "the report", attachments=[fake.attachment("old.pdf", PDF)])
        fake.send(
            GENERAL,
            "more",
            attachments=[
                fake.attachment("photo.png", b"png", content_type="image/png"),
                fake.attachment("newer.pdf", PDF),
            ],
        )
        ask(fake, GENERAL, "summarise it", reply_to=old)
        fake.answered(GENERAL, "You asked: summarise it")
    [mention] = service.mentions
    assert [(a.name, a.source) for a in mention.attachments] == [
        ("old.pdf", "thread"),  # the message replied to comes first, and only once
        ("newer.pdf", "history"),  # non-PDFs in history are left out
    ]
    [history] = fake.calls_to("GET", rf"/channels/{GENERAL}/messages")
    assert history.query["limit"] == "20"


class GatedService(NoLibrary):
    """Channel "general" indexes until released (busy on the CPU); others answer at once."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def handle(self, mention: Mention, progress=None) -> Reply:
        if mention.channel != f"discord:{GENERAL}":
            return Reply(kind="answer", text="Quick answer")
        progress("Indexing big.pdf — 1/40 pages")
        deadline = time.monotonic() + 10
        while not self.release.is_set() and time.monotonic() < deadline:
            sum(range(20_000))  # CPU work holding the GIL in slices, like parsing a PDF
        progress("Indexing big.pdf — 40/40 pages")
        return Reply(kind="answer", text="Slow answer")


def test_loop_stays_responsive_while_indexing_in_a_thread(fake):
    service = GatedService()
    with running(fake, service, progress_interval=0.05):
        question = ask(fake, GENERAL, "about the big file")
        fake.answered(GENERAL, "1/40 pages")
        beats = fake.heartbeats
        ask(fake, RANDOM, "something quick")
        fake.answered(RANDOM, "Quick answer")
        fake.wait_for(lambda: fake.heartbeats >= beats + 3, what="heartbeats while indexing")
        assert not service.release.is_set()
        assert [m["content"] for m in fake.bot_messages(GENERAL)] == [
            "⏳ Indexing big.pdf — 1/40 pages"
        ]
        service.release.set()
        [msg] = fake.answered(GENERAL, "Slow answer")  # the progress message became the answer
    assert msg["content"] == "Slow answer"
    assert msg["message_reference"]["message_id"] == int(question["id"])


def test_progress_is_throttled_and_replaced_by_the_answer(fake):
    def handle(mention, progress=None):
        for page in range(1, 21):
            progress(f"Indexing report.pdf — {page}/20 pages")
            time.sleep(0.03)
        return Reply(kind="answer", text="Done reading.")

    service = RecordingService()
    service.handle = handle
    with running(fake, service, progress_interval=0.2):
        ask(fake, GENERAL, "read it")
        [msg] = fake.answered(GENERAL, "Done reading.")
    creates = fake.calls_to("POST", rf"/channels/{GENERAL}/messages")
    edits = fake.calls_to("PATCH", rf"/channels/{GENERAL}/messages/\d+")
    assert len(creates) == 1 and creates[0].json["content"].startswith("⏳ Indexing report.pdf")
    shown = [creates[0].json["content"]] + [e.json["content"] for e in edits[:-1]]
    pages = [int(s.split("— ")[1].split("/")[0]) for s in shown]
    assert pages == sorted(pages) and len(pages) >= 2
    assert len(pages) <= 0.6 / 0.2 + 2  # ~0.6 s of progress, one edit per 0.2 s at most
    assert edits[-1].json["content"] == "Done reading." == msg["content"]


def test_text_from_documents_cannot_ping_anyone(fake):
    evil = "@everyone @here <@&1100000000000000099> <@1300000000000000001> read this"
    with running(fake, RecordingService(lambda m: Reply(kind="answer", text=evil))):
        ask(fake, GENERAL, "what does page 1 say?")
        [msg] = fake.answered(GENERAL, "read this")
    assert msg["content"] == evil
    [create] = fake.calls_to("POST", rf"/channels/{GENERAL}/messages")
    assert create.json["allowed_mentions"] == {"parse": [], "replied_user": True}


def test_a_crashing_service_gets_a_generic_reply(fake):
    def crash(mention, progress=None):
        raise RuntimeError("internal detail /srv/secret")

    service = RecordingService()
    service.handle = crash
    with running(fake, service):
        ask(fake, GENERAL, "boom")
        [msg] = fake.answered(GENERAL, "went wrong")
    assert msg["content"] == f"❌ {FAILURE}"
    assert "secret" not in msg["content"]


def test_download_respects_the_size_limit_and_reports_failures(fake):
    big = fake.attachment("big.pdf", PDF * 100)
    with pytest.raises(PaperTrailError) as declared:
        download(big["url"], "big.pdf", 60_000_000, 50_000_000)
    assert declared.value.code == "too_large" and not fake.cdn_hits  # refused before downloading
    with pytest.raises(PaperTrailError) as actual:
        download(big["url"], "big.pdf", 10, 1000)  # the metadata lied
    assert actual.value.code == "too_large"
    assert download(big["url"], "big.pdf", None, 1_000_000) == PDF * 100
    with pytest.raises(PaperTrailError) as missing:
        download(f"{fake.base_url}/cdn/nothing.pdf", "gone.pdf", None, 1000)
    assert missing.value.code == "download" and "gone.pdf" in missing.value.message


def test_a_refused_upload_gets_a_plain_text_explanation(fake):
    cited = source("[1] a.pdf, page 1", b"\x89PNG....", filename="1-p1-a.png")
    reply = Reply(kind="answer", text="Cited [1].", sources=(cited,))
    fake.refuse_files = True  # the bot lacks Attach Files here
    with running(fake, RecordingService(lambda m: reply)):
        ask(fake, GENERAL, "question")
        [msg] = fake.answered(GENERAL, "Discord refused my reply (HTTP 403)")
    assert "attach files" in msg["content"]


def test_run_connects_through_the_url_overrides(fake):
    previous = use_endpoints()
    outcome: list[BaseException] = []

    def process() -> None:
        try:
            run("fake.bot.token", RecordingService(), fake.api_url, fake.gateway_url)
        except BaseException as e:  # the fake ends the session with an unrecoverable code
            outcome.append(e)

    thread = threading.Thread(target=process)
    thread.start()
    try:
        fake.wait_for(lambda: fake.identify, what="IDENTIFY")
        assert fake.identify["token"] == "fake.bot.token"
        # messages are handled before "ready" (which waits 2 s for guilds): no need to wait
        ask(fake, GENERAL, "are you there?")
        fake.answered(GENERAL, "You asked: are you there?")
    finally:
        fake.disconnect(4004)
        thread.join(10)
        use_endpoints(*previous)
    assert not thread.is_alive()
    assert isinstance(outcome[0], discord.errors.ConnectionClosed) and outcome[0].code == 4004


def test_no_voice_warnings_at_start(monkeypatch, caplog):
    for flag in ("warn_nacl", "warn_dave"):  # as in a fresh process without the voice extras
        monkeypatch.setattr(discord.VoiceClient, flag, True)
    with caplog.at_level(logging.WARNING):
        build_client(NoLibrary())
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []

"""The Discord bot with the real ChatService and pipeline, end to end over loopback.

A real ``discord.Client`` talks to tests/fake_discord.py; behind it the real
pipeline (PyMuPDF, chunking, in-memory Chroma, retrieval, extractive answers,
verification, rendering) with ``HashEmbedder`` standing in for the model so
the suite stays fast. Assertions are on what the fake Discord received.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from adapters.chat.service import ChatService
from adapters.discord.client import build_client
from papertrail.settings import Settings
from tests.fake_discord import BOT_ID, CHANNELS, FakeDiscord
from tests.fake_discord_runner import BotThread
from tests.fakes import ScriptedGenerator, gated_pipeline
from tests.pdfs import simple_pdf

GENERAL, RANDOM = CHANNELS["general"], CHANNELS["random"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
REPORT = [
    "The Zebra project had a budget of 4.2 million euros in 2023. "
    "Twelve engineers worked on the Zebra project for two years.",
    "The Orion telescope has a primary mirror of 6.5 metres. "
    "The Orion telescope observes in the infrared from a high desert site.",
]
HARBOUR = [
    "The harbour authority dredged the northern basin to a depth of fourteen metres. "
    "Cargo volumes at the harbour doubled after the dredging."
]


@pytest.fixture
def bot(tmp_path, request):
    """The bot on the real pipeline; ``indirect`` parametrisation passes a generator."""
    settings = Settings(data_dir=tmp_path / "data", ocr=False, max_pdf_mb=0.5)
    # generator None: the offline extractive answers
    pipeline = gated_pipeline(settings, generator=getattr(request, "param", None))
    client = build_client(ChatService(pipeline), guild_ready_timeout=0.05, progress_interval=0.05)
    with FakeDiscord() as fake:
        try:
            with BotThread(client, fake):
                yield SimpleNamespace(fake=fake, pipeline=pipeline, client=client)
        finally:
            for gate in pipeline.gates.values():
                gate.set()
        fake.assert_no_pings()


def ask(fake: FakeDiscord, channel: int, text: str, **kwargs) -> dict:
    return fake.send(channel, f"<@{BOT_ID}> {text}", **kwargs)


def test_pdf_and_question_get_a_cited_answer_with_page_images(bot):
    fake = bot.fake
    pdf = fake.attachment("report.pdf", simple_pdf(REPORT))
    question = ask(fake, GENERAL, "How large is the Orion telescope mirror?", attachments=[pdf])
    [msg] = fake.answered(GENERAL, "Mode: extractive")

    assert msg["message_reference"]["message_id"] == int(question["id"])
    assert "6.5 metres" in msg["content"] and "[1]" in msg["content"]
    assert not msg["content"].startswith("⚠️")  # grounded: no warning
    titles = [e["title"] for e in msg["embeds"]]
    assert titles and titles[0] == "[1] report.pdf, page 2"
    names = [a["filename"] for a in msg["attachments"]]
    assert [e["image"]["url"] for e in msg["embeds"]] == [f"attachment://{n}" for n in names]
    # the answer replaced the progress message, so its files came with the edit
    uploads = [f for c in fake.calls_to("PATCH", r"/channels/\d+/messages/\d+") for f in c.files]
    assert uploads and all(f.data.startswith(PNG_SIGNATURE) for f in uploads)
    shown = [c.json["content"] for c in fake.calls_to("POST", rf"/channels/{GENERAL}/messages")]
    # a progress line first (the download's, unless indexing had already replaced it), then
    # edited as it indexes
    assert shown[0].startswith(("⏳ Downloading report.pdf", "⏳ Indexing report.pdf"))


@pytest.mark.parametrize(
    "bot",
    [ScriptedGenerator("Penguins migrate across the Sahara every winter [1].")],
    indirect=True,
)
def test_an_unsupported_answer_shows_the_ungrounded_warning(bot):
    fake = bot.fake
    pdf = fake.attachment("report.pdf", simple_pdf(REPORT))
    ask(fake, GENERAL, "What is the Orion mirror made of?", attachments=[pdf])
    [msg] = fake.answered(GENERAL, "Penguins migrate")
    assert msg["content"].startswith("⚠️ Ungrounded")
    assert msg["embeds"] == [] and msg["attachments"] == []  # no verified citation to show
    assert "[1]" not in msg["content"]  # the failed marker was removed


def test_non_pdf_attachment_gets_a_clear_reply(bot):
    fake = bot.fake
    notes = fake.attachment("notes.txt", b"just text", content_type="text/plain")
    ask(fake, GENERAL, "what do my notes say?", attachments=[notes])
    [msg] = fake.answered(GENERAL, "not a PDF")
    assert "notes.txt" in msg["content"] and "attach a .pdf" in msg["content"]
    assert not fake.cdn_hits  # never downloaded


def test_oversized_pdf_gets_a_clear_reply_without_downloading(bot):
    fake = bot.fake
    big = fake.attachment("huge.pdf", b"%PDF-1.4 tiny", size=80_000_000)  # metadata says 80 MB
    ask(fake, GENERAL, "summarise", attachments=[big])
    [msg] = fake.answered(GENERAL, "huge.pdf")
    assert "80.0 MB" in msg["content"] and "limit" in msg["content"]
    assert not fake.cdn_hits


def test_pdf_bigger_than_its_metadata_is_cut_off(bot):
    fake = bot.fake
    data = simple_pdf(REPORT) + b"%" * 600_000  # over the 0.5 MB limit
    lying = fake.attachment("report.pdf", data, size=1000)
    ask(fake, GENERAL, "summarise", attachments=[lying])
    [msg] = fake.answered(GENERAL, "larger than")
    assert "report.pdf" in msg["content"]


def test_commands_by_mention_and_pdfs_from_history(bot):
    fake = bot.fake
    fake.send(
        GENERAL,
        "here is the report",
        attachments=[fake.attachment("report.pdf", simple_pdf(REPORT))],
    )
    ask(fake, GENERAL, "What budget did the Zebra project have?")
    fake.answered(GENERAL, "4.2 million")  # found in history, indexed, cited
    ask(fake, GENERAL, "list")
    fake.answered(GENERAL, "1 document indexed here")
    ask(fake, GENERAL, "forget report.pdf")
    fake.answered(GENERAL, "Forgot report.pdf")
    assert bot.pipeline.documents(f"discord:{GENERAL}") == []
    ask(fake, GENERAL, "help")
    fake.answered(GENERAL, "Commands:")


def test_two_channels_never_mix(bot):
    fake = bot.fake
    ask(fake, GENERAL, "", attachments=[fake.attachment("report.pdf", simple_pdf(REPORT))])
    fake.answered(GENERAL, "Indexed report.pdf")
    ask(fake, RANDOM, "", attachments=[fake.attachment("harbour.pdf", simple_pdf(HARBOUR))])
    fake.answered(RANDOM, "Indexed harbour.pdf")

    ask(fake, RANDOM, "How deep was the northern basin dredged?")
    answer = fake.answered(RANDOM, "fourteen metres")[-1]
    assert [e["title"] for e in answer["embeds"]][0].startswith("[1] harbour.pdf")
    ask(fake, RANDOM, "list")
    listing = fake.answered(RANDOM, "indexed here")[-1]["content"]
    assert "harbour.pdf" in listing and "report.pdf" not in listing
    docs = bot.pipeline.documents(f"discord:{GENERAL}")
    assert [d.name for d in docs] == ["report.pdf"]


def test_other_channels_are_answered_while_a_big_pdf_indexes(bot):
    fake = bot.fake
    ask(fake, RANDOM, "", attachments=[fake.attachment("harbour.pdf", simple_pdf(HARBOUR))])
    fake.answered(RANDOM, "Indexed harbour.pdf")

    bot.pipeline.gates["big.pdf"] = gate = threading.Event()
    ask(
        fake,
        GENERAL,
        "What is in it?",
        attachments=[fake.attachment("big.pdf", simple_pdf(REPORT))],
    )
    fake.answered(GENERAL, "⏳ Indexing big.pdf")
    beats = fake.heartbeats
    ask(fake, RANDOM, "What happened to cargo volumes?")
    fake.answered(RANDOM, "doubled")
    fake.wait_for(lambda: fake.heartbeats >= beats + 3, what="heartbeats while indexing")
    assert not gate.is_set()
    assert all(m["content"].startswith("⏳") for m in fake.bot_messages(GENERAL))
    gate.set()
    fake.answered(GENERAL, "Mode:")


def test_slash_ask_with_a_pdf_then_docs(bot):
    fake = bot.fake
    att = fake.attachment("report.pdf", simple_pdf(REPORT))
    fake.slash(
        GENERAL, "ask", files={"file": att}, question="What budget did the Zebra project have?"
    )
    [msg] = fake.answered(GENERAL, "Mode: extractive")
    assert "4.2 million euros" in msg["content"]
    assert msg["embeds"][0]["title"] == "[1] report.pdf, page 1"
    [edit] = [c for c in fake.calls_to("PATCH", r"/webhooks/.*/@original") if c.files]
    assert edit.files[0].data.startswith(PNG_SIGNATURE)
    fake.slash(GENERAL, "docs")
    fake.answered(GENERAL, "1 document indexed here")

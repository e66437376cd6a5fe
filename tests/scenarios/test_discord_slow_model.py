"""A slow local model behind the Discord bot: a progress line, then the cited answer.

The real discord.Client talks to tests/fake_discord.py; the real pipeline asks
a replay server (tests/fake_openai.py) that answers slowly and without
citation markers, as small local models do.
"""

from __future__ import annotations

from adapters.chat.service import ChatService
from adapters.discord.client import build_client
from papertrail.answer.budget import TokenBudget
from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.answer.llm import GroqGenerator
from papertrail.settings import Settings
from tests.fake_discord import BOT_ID, CHANNELS, FakeDiscord
from tests.fake_discord_runner import BotThread
from tests.fake_openai import FakeOpenAI, Recorded, replayer
from tests.fakes import HashEmbedder, gated_pipeline
from tests.pdfs import simple_pdf

GENERAL = CHANNELS["general"]
QUESTION = "How large is the Orion telescope mirror?"
REPORT = [
    "The Zebra project had a budget of 4.2 million euros in 2023.",
    "The Orion telescope has a primary mirror of 6.5 metres. "
    "The Orion telescope observes in the infrared from a high desert site.",
]


def test_a_slow_model_shows_progress_then_its_answer_cited_by_the_checker(tmp_path):
    recorded = [
        Recorded("local-q4", QUESTION, "The Orion telescope has a mirror of 6.5 metres.", 1.0)
    ]
    with FakeOpenAI(respond=replayer(recorded, speed=1.0)) as server:
        settings = Settings(
            data_dir=tmp_path / "data", ocr=False, groq_base_url=server.url, llm_timeout=20
        )
        fallback = ExtractiveGenerator(HashEmbedder())
        model = GroqGenerator(settings, fallback=fallback, budget=TokenBudget(None, 0))
        pipeline = gated_pipeline(settings, generator=model)
        service = ChatService(pipeline)
        service.slow_answer_after = 0.2
        client = build_client(service, guild_ready_timeout=0.05, progress_interval=0.05)
        with FakeDiscord() as fake, BotThread(client, fake):
            pdf = fake.attachment("report.pdf", simple_pdf(REPORT))
            fake.send(GENERAL, f"<@{BOT_ID}> {QUESTION}", attachments=[pdf])
            [msg] = fake.answered(GENERAL, "Mode: local-q4")
            fake.assert_no_pings()
    assert "6.5 metres [1]" in msg["content"]
    assert "added by the checker" in msg["content"]
    edits = fake.calls_to("PATCH", r"/channels/\d+/messages/\d+")
    posts = fake.calls_to("POST", r"/channels/\d+/messages")
    shown = [str((c.json or {}).get("content", "")) for c in posts + edits]
    assert any(line.startswith("⏳ Still writing the answer") for line in shown), shown

"""Indexing never runs on the Discord client's event loop, and heartbeats go on meanwhile.

A real ``discord.Client`` on the loopback FakeDiscord, the real pipeline with
an embedder that takes ~0.2 s per call in pure Python (so it competes for the
GIL like chunking and parsing do). While a generated 12-page PDF is indexed,
every embedding call must run off the loop thread, and between the first and
the last call both the gateway heartbeats and a coroutine on the loop must
have moved on. Counts, not timings: one beat in over a second of indexing is
all that is asked. ``python -m tests.loop_lag`` measures the lag itself.
"""

from __future__ import annotations

import asyncio
import threading
import time

from adapters.chat.service import ChatService
from adapters.discord.client import build_client
from papertrail.settings import Settings
from tests.fake_discord import BOT_ID, CHANNELS, FakeDiscord
from tests.fake_discord_runner import BotThread
from tests.fakes import HashEmbedder, gated_pipeline
from tests.pdfs import simple_pdf

GENERAL = CHANNELS["general"]
BUSY = 0.2  # seconds of Python work per embedding call


class BusyEmbedder(HashEmbedder):
    """Notes, for each call, the thread it ran on and the beats counted so far."""

    def __init__(self, beats) -> None:
        super().__init__()
        self.beats = beats  # () -> (gateway heartbeats, loop ticks)
        self.seen: list[tuple[int, tuple[int, int]]] = []

    def embed(self, texts):
        self.seen.append((threading.get_ident(), self.beats()))
        end = time.perf_counter() + BUSY
        n = 0
        while time.perf_counter() < end:  # holds the GIL between switch intervals
            n += 1
        return super().embed(texts)


def test_indexing_runs_off_the_loop_and_heartbeats_continue(tmp_path):
    ticks = [0]

    async def heartbeat_like() -> None:
        while True:
            await asyncio.sleep(0.01)
            ticks[0] += 1

    pages = [
        f"Section {n}. " + "The committee reviewed the budget and staffing. " * 40
        for n in range(12)
    ]
    with FakeDiscord() as fake:
        embedder = BusyEmbedder(lambda: (fake.heartbeats, ticks[0]))
        pipeline = gated_pipeline(Settings(data_dir=tmp_path / "data", ocr=False))
        pipeline.embedder = embedder
        pipeline.embed_batch = 4  # many calls: progress and beats between them
        client = build_client(ChatService(pipeline), guild_ready_timeout=0.05)
        with BotThread(client, fake) as bot:
            beat = asyncio.run_coroutine_threadsafe(heartbeat_like(), bot.loop)
            ident = asyncio.run_coroutine_threadsafe(_ident(), bot.loop).result(5)
            att = fake.attachment("minutes.pdf", simple_pdf(pages))
            fake.send(GENERAL, f"<@{BOT_ID}> what did the committee review?", attachments=[att])
            fake.wait_for(
                lambda: any("budget" in m["content"] for m in fake.bot_messages(GENERAL)),
                timeout=120,
                what="the answer",
            )
            bot.loop.call_soon_threadsafe(beat.cancel)
    calls = embedder.seen
    assert len(calls) >= 4, calls
    assert all(thread != ident for thread, _ in calls)  # never on the loop's thread
    (first_hb, first_ticks), (last_hb, last_ticks) = calls[0][1], calls[-1][1]
    assert last_hb > first_hb, "no gateway heartbeat while the PDF was indexed"
    assert last_ticks > first_ticks, "the loop did not run while the PDF was indexed"


async def _ident() -> int:
    return threading.get_ident()

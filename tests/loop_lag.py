"""Measure how long the Discord bot's event loop stalls while it indexes a PDF.

    PYTHONPATH=$PWD python -m tests.loop_lag path/to/filing.pdf [--question "..."]

Runs the real Discord client and the real pipeline (bundled model, offline
answers, a fresh data folder) against the loopback FakeDiscord, mentions the
bot with the PDF attached, and meanwhile runs a coroutine on the client's
loop that wakes every 50 ms and records how late each wake-up is. Prints the
worst and 99th-percentile lateness, the wake-ups counted, and the time to the
answer. Lateness on the loop is what delays gateway heartbeats (discord.py's
"Can't keep up" warning). A measuring command, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

TICK = 0.05  # seconds between wake-ups of the lag probe


async def probe(lags: list[float], stop: asyncio.Event, worst: list) -> None:
    loop = asyncio.get_running_loop()
    begin = loop.time()
    while not stop.is_set():
        start = loop.time()
        await asyncio.sleep(TICK)
        lags.append(max(0.0, loop.time() - start - TICK))
        if lags[-1] > 0.25:  # when the long stalls happened, seconds after the start
            worst.append((round(start - begin, 1), round(lags[-1], 3)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.loop_lag", description=__doc__)
    parser.add_argument("pdf", type=Path)
    parser.add_argument("--question", default="What were total net sales?")
    args = parser.parse_args(argv)

    from adapters.chat.service import ChatService
    from adapters.discord.client import build_client
    from papertrail.offline import offline_env
    from papertrail.pipeline import PaperTrail
    from papertrail.settings import Settings
    from tests.fake_discord import CHANNELS, FakeDiscord
    from tests.fake_discord_payloads import BOT_ID
    from tests.fake_discord_runner import BotThread

    offline_env()
    data = args.pdf.read_bytes()
    with tempfile.TemporaryDirectory(prefix="loop-lag-") as folder:
        settings = Settings.from_env(os.environ, data_dir=Path(folder))
        pipeline = PaperTrail.from_settings(settings)
        warm = getattr(pipeline.embedder, "warm", None)
        if callable(warm):  # the bot loads the model at start-up, before any PDF arrives
            warm()
        service = ChatService(pipeline, settings)
        client = build_client(service, sync_commands=False)
        lags: list[float] = []
        with FakeDiscord(heartbeat_interval=1.0) as fake, BotThread(client, fake) as bot:
            stop = asyncio.Event()
            stalls: list = []
            asyncio.run_coroutine_threadsafe(probe(lags, stop, stalls), bot.loop)
            time.sleep(1.0)
            general = CHANNELS["general"]
            started = time.monotonic()
            att = fake.attachment(args.pdf.name, data)
            fake.send(general, f"<@{BOT_ID}> {args.question}", attachments=[att])

            def done() -> bool:
                texts = [m["content"] for m in fake.bot_messages(general)]
                return bool(texts) and not texts[-1].startswith("⏳")

            fake.wait_for(done, timeout=1800, what="the answer")
            took = time.monotonic() - started
            bot.loop.call_soon_threadsafe(stop.set)
            time.sleep(0.2)
    cut = sorted(lags)
    p99 = cut[int(0.99 * (len(cut) - 1))] if cut else 0.0
    print(f"{args.pdf.name}: {len(data) / 1e6:.1f} MB, answered in {took:.1f} s")
    print(
        f"loop lag over {len(cut)} wake-ups of {TICK * 1000:.0f} ms: "
        f"worst {max(cut, default=0.0):.3f} s, p99 {p99:.3f} s, "
        f"mean {statistics.fmean(cut) if cut else 0.0:.4f} s"
    )
    print(f"stalls over 0.25 s (at s, lasting s): {stalls}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

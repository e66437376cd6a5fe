"""``python -m bot feedback export``: the voted answers of a channel, wherever they live.

The bots keep answers and votes in ``chat.sqlite`` (one process) or in Redis
(``REDIS_URL``: several workers, ``bot/redis/feedback.py``); ``papertrail
feedback export`` reads only the first, since the pipeline's command never
imports the bot. This reads either, as the running bots are configured, and
writes the same JSONL (``papertrail/measure/feedback.py``) on stdout.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from bot.config import BotConfig
from papertrail.measure.feedback import read_local, write
from papertrail.store.pdf_files import PdfFiles


def export_feedback(cfg: BotConfig, channel: str, fmt: str, out: TextIO | None = None) -> int:
    """Write ``channel``'s voted answers in ``fmt`` ("eval" or "verifier"); exit code."""
    data = Path(cfg.settings.data_dir)
    if cfg.redis_url:
        from bot.redis.coord import connect
        from bot.redis.feedback import RedisFeedback

        client = connect(cfg.redis_url)
        try:
            votes = RedisFeedback(client).votes(channel)
        finally:
            client.close()
    else:
        votes = read_local(data, channel)
    n = write(votes, fmt, PdfFiles(data / "files"), out or sys.stdout)
    print(f"{n} line{'s' * (n != 1)} from {channel}", file=sys.stderr)
    return 0

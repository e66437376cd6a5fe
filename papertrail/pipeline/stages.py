"""Seconds per stage of one ingest, and how many cores were busy while embedding.

Stages overlap (OCR and storing run beside embedding), so the figures are
each stage's own wall time, not slices of the total. It leaves out what the
stages do.
"""

from __future__ import annotations

import time
from contextlib import contextmanager


class Clock:
    """Seconds per stage of one ingest, and how many cores were busy while embedding.

    ``mark(stage)`` books the time since the previous mark; ``part(stage)`` a
    timed block (booked apart from the marks that enclose it); ``add`` time
    measured elsewhere (the OCR and store threads, which overlap embedding).
    """

    def __init__(self, start: float) -> None:
        self.start = self.last = start
        self.spent: dict[str, float] = {}
        self.parts = 0.0  # seconds inside ``part`` since the last mark
        self.embed_cpu = 0.0

    def mark(self, stage: str) -> None:
        now = time.perf_counter()
        self.add(stage, now - self.last - self.parts)
        self.last, self.parts = now, 0.0

    def add(self, stage: str, seconds: float) -> None:
        self.spent[stage] = self.spent.get(stage, 0.0) + seconds

    @contextmanager
    def part(self, stage: str):
        t0, cpu0 = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            wall = time.perf_counter() - t0
            self.add(stage, wall)
            self.parts += wall
            if stage == "embed":
                self.embed_cpu += time.process_time() - cpu0

    def timings(self, **extra: float) -> dict[str, float]:
        out = dict(self.spent)
        embed = out.get("embed", 0.0)
        out["embed_cpu"] = self.embed_cpu / embed if embed else 0.0  # process CPU s per s
        out.update(extra)
        out["total"] = time.perf_counter() - self.start
        return out

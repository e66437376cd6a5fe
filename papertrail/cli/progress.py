"""A one-line progress bar for long commands, drawn only on a terminal.

Writes to stderr so stdout stays clean for ``--json``; draws nothing when stderr
is a pipe or a file, so logs and CI output carry no carriage returns.
"""

from __future__ import annotations

import sys
import time


class ProgressBar:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.tty = sys.stderr.isatty()
        self.start = time.monotonic()
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.tty or total <= 0:
            return
        width = 30
        filled = int(width * done / total)
        bar = "█" * filled + "·" * (width - filled)
        secs = time.monotonic() - self.start
        sys.stderr.write(f"\rindexing {self.label[:40]} {bar} {done}/{total} pages {secs:.0f}s")
        sys.stderr.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            sys.stderr.write("\n")

"""A one-line progress bar for long commands, drawn only on a terminal.

Writes to stderr so stdout stays clean for ``--json``; draws nothing when stderr
is a pipe or a file, so logs and CI output carry no carriage returns. A
``transient`` bar (for commands that print a table as they go: eval, check,
bench) leaves the cursor at the start of its line, so the next line printed
replaces it, and erases itself when done. It does not estimate time left.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30  # characters of the bar itself


class ProgressBar:
    """A one-line progress bar on ``stream`` (stderr), drawn only when it is a terminal."""

    def __init__(
        self,
        label: str,
        *,
        verb: str = "indexing",
        unit: str = "pages",
        transient: bool = False,
        stream: TextIO | None = None,
    ) -> None:
        self.label = label
        self.verb = verb
        self.unit = unit
        self.transient = transient
        self.stream = sys.stderr if stream is None else stream
        self.tty = self.stream.isatty()
        self.start = time.monotonic()
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.tty or total <= 0:
            return
        if self.transient and done >= total:
            self.close()
            return
        filled = int(WIDTH * done / total)
        bar = "█" * filled + "·" * (WIDTH - filled)
        secs = time.monotonic() - self.start
        # a transient line stays shorter than check's table rows (>= 87 characters)
        label = self.label[: 16 if self.transient else 40]
        line = f"{self.verb} {label} {bar} {done}/{total} {self.unit} {secs:.0f}s"
        # \033[K clears what a longer earlier line left; a transient bar then returns
        # to column 0 so that whatever is printed next (a table row) overwrites it.
        self.stream.write(f"\r{line}\033[K" + ("\r" if self.transient else ""))
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if not self.drawn:
            return
        self.stream.write("\r\033[K" if self.transient else "\n")
        self.stream.flush()
        self.drawn = False

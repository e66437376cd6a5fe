"""A one-line progress bar for long commands (``tqdm``), drawn only on a terminal.

Writes to stderr so stdout stays clean for ``--json``; draws nothing when stderr
is a pipe or a file, so logs and CI output carry no carriage returns. A
``transient`` bar (for commands that print a table as they go: eval, check,
bench) is kept shorter than a table row and leaves the cursor at the start of
its line, so the next row printed replaces it, and erases itself when done.
"""

from __future__ import annotations

import sys
from typing import TextIO

from tqdm import tqdm

WIDTH = 30  # characters of the bar itself
TRANSIENT_COLUMNS = 80  # a transient line stays shorter than check's table rows (>= 87)


class ProgressBar:
    """``bar(done, total)`` draws on ``stream`` (stderr) when it is a terminal; ``close()``."""

    def __init__(
        self,
        label: str,
        *,
        verb: str = "indexing",
        unit: str = "pages",
        transient: bool = False,
        stream: TextIO | None = None,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.transient = transient
        label = label[: 16 if transient else 40]
        self._bar = tqdm(
            total=0,
            file=self.stream,
            disable=not self.stream.isatty(),
            leave=not transient,
            ncols=TRANSIENT_COLUMNS if transient else None,
            bar_format=f"{verb} {label} {{bar:{WIDTH}}} {{n}}/{{total}} {unit} {{elapsed}}",
            mininterval=0,  # callers already call at most once per page or question
        )

    def __call__(self, done: int, total: int) -> None:
        if self._bar.disable or total <= 0:
            return
        if self.transient and done >= total:
            self.close()
            return
        self._bar.total = total
        self._bar.n = done
        self._bar.refresh()
        if self.transient:  # back to column 0: whatever is printed next overwrites the bar
            self.stream.write("\r")
            self.stream.flush()

    def close(self) -> None:
        self._bar.close()

"""Files that could not be indexed, remembered so they are not downloaded again.

``FailedFiles`` keys a failure on (platform file id, size): the same file
asked for again gets the same error back without a download. A fault of the
file itself (not a PDF, no text, encrypted, damaged, too big) lasts until the
file changes (another id or size); a failed download, a timeout or a missing
permission is tried again after ``RETRY_AFTER`` seconds. Memory of one
process, bounded; ``intake.py`` consults it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from papertrail.errors import PaperTrailError

# failures that belong to the file itself: kept until the file changes
FILE_FAULTS = frozenset(
    {"not_pdf", "no_text", "too_many_pages", "too_large", "no_pages", "empty", "corrupt"}
    | {"encrypted"}
)
RETRY_AFTER = 300.0  # seconds before a download or permission failure is tried again
MAX_FAILED = 5000  # failed files remembered per process


class Keyed(Protocol):
    key: str  # platform file id ("" = unknown: nothing is remembered)
    size: int | None  # bytes, when the platform says


class FailedFiles:
    """Failures by (platform file id, size), each until it expires."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._failed: OrderedDict[tuple[str, int | None], tuple[float, PaperTrailError]]
        self._failed = OrderedDict()
        self._guard = threading.Lock()

    def get(self, att: Keyed) -> PaperTrailError | None:
        """The error ``att`` failed with, if it is still remembered."""
        if not att.key:
            return None
        with self._guard:
            found = self._failed.get((att.key, att.size))
            if found is None:
                return None
            until, error = found
            if self._clock() >= until:
                del self._failed[(att.key, att.size)]
                return None
            return error

    def add(self, att: Keyed, error: PaperTrailError) -> None:
        if not att.key:
            return
        lasts = float("inf") if error.code in FILE_FAULTS else RETRY_AFTER
        with self._guard:
            self._failed[(att.key, att.size)] = (self._clock() + lasts, error)
            while len(self._failed) > MAX_FAILED:
                self._failed.popitem(last=False)

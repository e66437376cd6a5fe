"""A daily LLM token budget that survives restarts.

``TokenBudget`` counts the tokens spent per UTC day and answers "may I spend
about this many more?". It is persisted as a tiny JSON file (usually in
``data_dir``) so a restarted bot remembers what it already used, and it can be
*blocked* until a moment the provider named (Groq's tokens-per-day 429).
``path=None`` keeps it in memory. Not here: estimating a prompt's size beyond
``estimate_tokens`` (the generator measures real usage from the reply) and
cross-process locking (each operation re-reads the file, so two bots sharing a
data_dir stay roughly in step; the last writer wins on a race).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 4  # rough average for English text with Llama/GPT tokenisers


def estimate_tokens(text: str) -> int:
    """A cheap upper-ish guess of the tokens in ``text`` (chars / 4, at least 1)."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN))


def next_utc_midnight(now: float) -> float:
    """Unix time of the next 00:00 UTC after ``now``."""
    day = datetime.fromtimestamp(now, UTC).date() + timedelta(days=1)
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


class TokenBudget:
    """Tokens used today (UTC) against ``daily_tokens``; ``daily_tokens=0`` means no limit.

    Thread-safe. ``clock`` returns unix seconds and exists for tests of the
    day rollover.
    """

    def __init__(
        self,
        path: Path | None,
        daily_tokens: int,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self.daily_tokens = daily_tokens
        self._clock = clock
        self._lock = threading.Lock()
        self._day = ""  # "YYYY-MM-DD" the count belongs to
        self._used = 0
        self._blocked_until = 0.0  # unix seconds; a provider said "no more until then"

    # -- queries --------------------------------------------------------------

    def allow(self, estimated: int) -> bool:
        """True when a call of about ``estimated`` tokens fits in what is left today."""
        with self._lock:
            self._load()
            if self._blocked():
                return False
            return self.daily_tokens == 0 or self._used + estimated <= self.daily_tokens

    @property
    def remaining(self) -> int:
        """Tokens left today; 0 while blocked. Without a limit, a very large number."""
        with self._lock:
            self._load()
            if self._blocked():
                return 0
            if self.daily_tokens == 0:
                return 2**62
            return max(0, self.daily_tokens - self._used)

    @property
    def used(self) -> int:
        with self._lock:
            self._load()
            return self._used

    @property
    def exhausted(self) -> bool:
        """True while a provider's daily limit blocks calls (see ``exhaust``)."""
        with self._lock:
            self._load()
            return self._blocked()

    # -- updates --------------------------------------------------------------

    def spend(self, n: int) -> None:
        """Record ``n`` tokens used now."""
        with self._lock:
            self._load()
            self._used += max(0, int(n))
            self._save()

    def exhaust(self, until: float | None = None) -> None:
        """Refuse every call until ``until`` (unix seconds), by default the next UTC midnight."""
        with self._lock:
            self._load()
            now = self._clock()
            self._blocked_until = max(self._blocked_until, until or next_utc_midnight(now))
            self._save()

    # -- state ----------------------------------------------------------------

    def _today(self) -> str:
        return datetime.fromtimestamp(self._clock(), UTC).date().isoformat()

    def _blocked(self) -> bool:
        return self._clock() < self._blocked_until

    def _load(self) -> None:
        """Refresh from disk (another process may have spent), then roll the day over."""
        if self.path is not None and self.path.exists():
            try:
                state = json.loads(self.path.read_text(encoding="utf-8"))
                self._day = str(state["day"])
                self._used = int(state["used"])
                self._blocked_until = float(state.get("blocked_until", 0.0))
            except (OSError, ValueError, KeyError, TypeError) as exc:
                # A damaged file must not stop answers: start the day afresh.
                log.warning("Ignoring unreadable token budget %s: %s", self.path, exc)
        today = self._today()
        if self._day != today:
            self._day, self._used = today, 0

    def _save(self) -> None:
        if self.path is None:
            return
        state = {"day": self._day, "used": self._used, "blocked_until": self._blocked_until}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(state), encoding="utf-8")
            os.replace(tmp, self.path)  # atomic: a reader never sees half a file
        except OSError as exc:
            # Losing the count costs accuracy, not answers.
            log.warning("Could not save the token budget to %s: %s", self.path, exc)

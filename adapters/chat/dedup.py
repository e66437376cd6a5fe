"""A thread-safe set of recently seen keys, so each message is answered once.

Chat platforms deliver the same message more than once: Slack retries an
event after a slow ack, re-delivers it with a new ``event_id``, and sends one
post as both ``app_mention`` and ``message``. Adapters key a ``SeenSet`` on
(channel, message id) and act only when ``first(key)`` is True.

``SeenSet`` is the in-memory implementation of the ``papertrail.coord.Seen``
seam; a bot process keeps its seen keys on disk with ``StoredSeen``
(``local_state.py``) so a restart does not answer a retry twice, and several
instances behind one app share ``bot.redis.coord.RedisSeen`` (an atomic SET
NX EX with the same TTL) instead.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable


class SeenSet:
    """Keys remembered for ``ttl`` seconds, at most ``max_items`` of them.

    Slack's last retry comes about 5 minutes after the first delivery, so the
    default TTL of one hour covers every retry with room for clock drift and
    late duplicates. ``clock`` is injectable for tests.
    """

    def __init__(
        self,
        ttl: float = 3600.0,
        max_items: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_items = max_items
        self._clock = clock
        self._seen: OrderedDict[Hashable, float] = OrderedDict()  # key -> time first seen
        self._lock = threading.Lock()

    def first(self, key: Hashable) -> bool:
        """Record ``key``; True only for the first call within the TTL."""
        now = self._clock()
        with self._lock:
            self._expire(now)
            if key in self._seen:
                return False
            self._seen[key] = now
            if len(self._seen) > self.max_items:
                self._seen.popitem(last=False)  # oldest first: insertion order is time order
            return True

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            self._expire(self._clock())
            return key in self._seen

    def __len__(self) -> int:
        with self._lock:
            self._expire(self._clock())
            return len(self._seen)

    def _expire(self, now: float) -> None:
        while self._seen:
            key, seen_at = next(iter(self._seen.items()))
            if now - seen_at < self.ttl:
                break
            del self._seen[key]

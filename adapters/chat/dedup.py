"""Answering each chat message once: the ``Seen`` seam and its one-process set.

Chat platforms deliver the same message more than once: Slack retries an
event after a slow ack, re-delivers it with a new ``event_id``, and sends one
post as both ``app_mention`` and ``message``. Adapters key a ``Seen`` on
(channel, message id) and act only when ``first(key)`` is True.

``SeenSet`` is the in-memory implementation of the ``Seen`` seam (a
``cachetools.TTLCache`` under a lock); a bot process keeps its seen keys on
disk with ``StoredSeen`` (``local_state.py``) so a restart does not answer a
retry twice, and several instances behind one app share
``bot.redis.coord.RedisSeen`` (an atomic SET NX EX with the same TTL) instead.
What a key means is the adapter's business.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Protocol

from cachetools import TTLCache


class Seen(Protocol):
    """A set of recently seen keys: ``first(key)`` is True once per TTL."""

    def first(self, key) -> bool: ...


class SeenSet:
    """Keys remembered for ``ttl`` seconds, at most ``max_items`` of them (oldest out first).

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
        # keys are only ever added and tested, so least recently used = first seen
        self._seen: TTLCache[Hashable, bool] = TTLCache(max_items, ttl, timer=clock)
        self._lock = threading.Lock()  # TTLCache itself is not thread-safe

    def first(self, key: Hashable) -> bool:
        """Record ``key``; True only for the first call within the TTL."""
        with self._lock:
            if key in self._seen:
                return False
            self._seen[key] = True
            return True

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._seen

    def __len__(self) -> int:
        with self._lock:
            self._seen.expire()
            return len(self._seen)

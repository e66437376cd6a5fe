"""What the bot remembers of each thread it answered in: the questions and cited files.

A thread is a conversation: once the bot has answered there, a reply needs no
mention, and a follow-up is read against the questions before it
(``papertrail/answer/followup.py``). Keys are platform-qualified thread ids chosen by
the adapters ("slack:T1:C1:1700000000.000100", "discord:<thread or message
id>"). ``Conversations`` keeps them in memory, bounded, least recently used
first out (after a restart, threads would need a mention again), with the
bot's own messages linked to their thread (a reply to an answer continues
it, where the platform has no threads of its own, as Discord replies); the bot
processes use ``StoredThreads`` (``local_state.py``, SQLite in the data
directory) in one process and ``RedisThreads`` (``bot/redis/state.py``) with
several workers, behind the ``Threads`` seam.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

from cachetools import LRUCache

MAX_THREADS = 5000  # threads remembered; each holds a few short strings
MAX_TURNS = 5  # questions kept per thread: condensation reads the last few


@dataclass(frozen=True)
class Turn:
    question: str  # as answered (a follow-up already made standalone)
    doc_ids: tuple[str, ...]  # documents its verified citations came from


class Threads(Protocol):
    """The thread-memory seam: ``Conversations`` here, ``RedisThreads`` for several workers."""

    def __contains__(self, thread: str) -> bool: ...
    def turns(self, thread: str) -> list[Turn]: ...
    def record(self, thread: str, turn: Turn) -> None: ...


class Conversations:
    """Thread id -> its last turns (a ``cachetools.LRUCache`` under a lock); thread-safe."""

    def __init__(self, max_threads: int = MAX_THREADS) -> None:
        self.max_threads = max_threads
        self._turns: LRUCache[str, list[Turn]] = LRUCache(max_threads)
        self._links: LRUCache[str, str] = LRUCache(max_threads)  # bot message -> thread
        self._lock = threading.Lock()

    def __contains__(self, thread: str) -> bool:
        with self._lock:
            return bool(thread) and thread in self._turns

    def turns(self, thread: str) -> list[Turn]:
        with self._lock:
            return list(self._turns.get(thread, ()))

    def record(self, thread: str, turn: Turn) -> None:
        if not thread:
            return
        with self._lock:  # storing makes it the most recently used; the least used goes
            self._turns[thread] = (self._turns.get(thread, []) + [turn])[-MAX_TURNS:]

    def open(self, thread: str) -> None:
        """Mark ``thread`` as one the bot speaks in (e.g. it posted a slash-command answer)."""
        with self._lock:
            if thread not in self._turns:
                self._turns[thread] = []

    def link(self, messages: list[str], thread: str) -> None:
        """The bot's ``messages`` belong to ``thread``: a reply to one continues it."""
        with self._lock:
            for m in messages:
                self._links[m] = thread

    def linked(self, message: str) -> str:
        """The thread a bot message belongs to ("" when unknown)."""
        with self._lock:
            return self._links.get(message, "")

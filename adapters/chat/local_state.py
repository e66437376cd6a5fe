"""The chat layer's memory for one process, in one SQLite file that outlives restarts.

In one-process mode (no ``REDIS_URL``) three things must survive a restart
or a crash, as they do on Redis in multi-worker mode: the deliveries already
seen (Slack re-sends a signed request for up to 5 minutes, and a restart in
between must not answer it twice), the threads the bot answered in (a
follow-up without a mention in an old thread still gets a reply) and what
people made the bot forget (``forgotten.py``). ``LocalStore`` is that file
(``chat.sqlite`` in the data directory, next to ``shares.json``), opened on
first use, one connection under a lock, WAL so a crash loses at most the
last write. ``StoredSeen`` implements the ``Seen`` seam and ``StoredThreads``
the ``Threads`` seam (with the links from the bot's messages to their
threads) with the same TTLs as their Redis twins; expired rows
are swept on write. Left out: sharing the file between processes (several
workers use Redis) and migrating rows from older versions.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from adapters.chat.conversations import MAX_TURNS, Turn

T = TypeVar("T")

SEEN_TTL = 3600.0  # seconds: Slack's last retry comes ~5 minutes after the first delivery
THREAD_TTL = 7 * 86_400.0  # seconds: a thread goes quiet after a week without an answer
SWEEP_EVERY = 200  # writes between deletions of expired rows

_SCHEMA = """
CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS threads (
    thread TEXT PRIMARY KEY, turns TEXT NOT NULL, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS links (
    message TEXT PRIMARY KEY, thread TEXT NOT NULL, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS forgotten_files (
    channel TEXT NOT NULL, file TEXT NOT NULL, posts TEXT NOT NULL,
    PRIMARY KEY (channel, file));
CREATE TABLE IF NOT EXISTS forgotten_docs (
    channel TEXT NOT NULL, doc_id TEXT NOT NULL, PRIMARY KEY (channel, doc_id));
"""


class LocalStore:
    """One SQLite file shared by the classes below; thread-safe, opened lazily."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._writes = 0

    def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(connection)`` in one transaction, under the lock."""
        with self._lock:
            if self._conn is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(_SCHEMA)
                self._conn = conn
            with self._conn:
                return work(self._conn)

    def sweep_due(self) -> bool:
        """True once every ``SWEEP_EVERY`` calls: time to delete expired rows."""
        self._writes += 1
        return self._writes % SWEEP_EVERY == 1

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _key(key) -> str:
    return json.dumps(list(key) if isinstance(key, tuple) else [key], default=str)


class StoredSeen:
    """``Seen`` on disk: ``first(key)`` is True once per ``ttl`` seconds, across restarts."""

    def __init__(
        self, store: LocalStore, ttl: float = SEEN_TTL, clock: Callable[[], float] = time.time
    ) -> None:
        self.store, self.ttl, self._clock = store, ttl, clock

    def first(self, key) -> bool:
        now, name = self._clock(), _key(key)

        def work(db: sqlite3.Connection) -> bool:
            if self.store.sweep_due():
                db.execute("DELETE FROM seen WHERE expires <= ?", (now,))
            row = db.execute("SELECT expires FROM seen WHERE key = ?", (name,)).fetchone()
            if row is not None and row[0] > now:
                return False
            db.execute("INSERT OR REPLACE INTO seen VALUES (?, ?)", (name, now + self.ttl))
            return True

        return self.store.run(work)

    def __contains__(self, key) -> bool:
        now, name = self._clock(), _key(key)
        row = self.store.run(
            lambda db: db.execute("SELECT expires FROM seen WHERE key = ?", (name,)).fetchone()
        )
        return row is not None and row[0] > now


class StoredThreads:
    """``Threads`` on disk: the last ``MAX_TURNS`` turns of each thread, for ``ttl`` seconds."""

    def __init__(
        self, store: LocalStore, ttl: float = THREAD_TTL, clock: Callable[[], float] = time.time
    ) -> None:
        self.store, self.ttl, self._clock = store, ttl, clock

    def _row(self, thread: str) -> list[Turn] | None:
        now = self._clock()
        row = self.store.run(
            lambda db: db.execute(
                "SELECT turns FROM threads WHERE thread = ? AND expires > ?", (thread, now)
            ).fetchone()
        )
        if row is None:
            return None
        return [Turn(t["question"], tuple(t["doc_ids"])) for t in json.loads(row[0])]

    def __contains__(self, thread: str) -> bool:
        return bool(thread) and self._row(thread) is not None

    def turns(self, thread: str) -> list[Turn]:
        return (self._row(thread) or []) if thread else []

    def record(self, thread: str, turn: Turn) -> None:
        if not thread:
            return
        turns = (self.turns(thread) + [turn])[-MAX_TURNS:]
        self._write(thread, turns)

    def open(self, thread: str) -> None:
        """Mark ``thread`` as one the bot speaks in (it posted an answer there)."""
        if thread and thread not in self:
            self._write(thread, [])

    def link(self, messages: list[str], thread: str) -> None:
        """The bot's ``messages`` belong to ``thread``: a reply to one continues it."""
        expires = self._clock() + self.ttl
        rows = [(m, thread, expires) for m in messages]
        self.store.run(
            lambda db: db.executemany("INSERT OR REPLACE INTO links VALUES (?, ?, ?)", rows)
        )

    def linked(self, message: str) -> str:
        """The thread a bot message belongs to ("" when unknown or expired)."""
        now = self._clock()
        row = self.store.run(
            lambda db: db.execute(
                "SELECT thread FROM links WHERE message = ? AND expires > ?", (message, now)
            ).fetchone()
        )
        return row[0] if row else ""

    def _write(self, thread: str, turns: list[Turn]) -> None:
        now = self._clock()
        rows = json.dumps([{"question": t.question, "doc_ids": list(t.doc_ids)} for t in turns])

        def work(db: sqlite3.Connection) -> None:
            if self.store.sweep_due():
                db.execute("DELETE FROM threads WHERE expires <= ?", (now,))
                db.execute("DELETE FROM links WHERE expires <= ?", (now,))
            db.execute(
                "INSERT OR REPLACE INTO threads VALUES (?, ?, ?)", (thread, rows, now + self.ttl)
            )

        self.store.run(work)

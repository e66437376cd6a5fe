"""What people made the bot forget, so that it stays forgotten until posted again.

A question also reaches PDFs in its thread and the channel's recent history
(the fallback for files shared before the bot joined), so a file forgotten by
command would come straight back with the next question. A tombstone stops
that: ``bury`` records, per channel, each forgotten share's platform file id
with the posts that carried it, and the documents whose last share went.
``Intake`` then skips a thread or history attachment whose (file, post) is
buried without downloading it, and drops one whose bytes turn out to be a
buried document. Only someone posting the file again (a new upload or
message, or attaching it to a question) brings it back: that ``lift``s the
tombstones. ``StoredForgotten`` keeps them in the process's SQLite file
(``local_state.py``); several workers share ``RedisForgotten``
(``bot/redis/state.py``). Tombstones never expire: they are as lasting as the
library. Left out: forgetting across channels (each channel is its own
library).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Protocol

from adapters.chat.library import Share
from adapters.chat.local_state import LocalStore


class Forgotten(Protocol):
    """The tombstone seam: ``StoredForgotten`` here, ``RedisForgotten`` for several workers."""

    def bury(self, channel: str, shares: Sequence[Share], doc_ids: Iterable[str]) -> None: ...
    def buried(self, channel: str, file: str, post: str) -> bool: ...
    def buried_document(self, channel: str, doc_id: str) -> bool: ...
    def lift(self, channel: str, file: str, doc_id: str) -> None: ...


def covers(posts: Iterable[str], post: str) -> bool:
    """Whether a tombstone naming ``posts`` covers the file as carried by ``post``.

    A share recorded without its post (Slack's ``file_shared`` has none), or an
    attachment whose post is unknown, counts as the same post: forgotten.
    """
    posts = set(posts)
    return not post or "" in posts or post in posts


class StoredForgotten:
    """``Forgotten`` in the process's SQLite file."""

    def __init__(self, store: LocalStore) -> None:
        self.store = store

    def bury(self, channel: str, shares: Sequence[Share], doc_ids: Iterable[str]) -> None:
        docs = sorted(set(doc_ids))

        def work(db: sqlite3.Connection) -> None:
            for share in shares:
                row = db.execute(
                    "SELECT posts FROM forgotten_files WHERE channel = ? AND file = ?",
                    (channel, share.file),
                ).fetchone()
                posts = sorted(set(json.loads(row[0]) if row else []) | {share.post})
                db.execute(
                    "INSERT OR REPLACE INTO forgotten_files VALUES (?, ?, ?)",
                    (channel, share.file, json.dumps(posts)),
                )
            db.executemany(
                "INSERT OR IGNORE INTO forgotten_docs VALUES (?, ?)", [(channel, d) for d in docs]
            )

        self.store.run(work)

    def buried(self, channel: str, file: str, post: str) -> bool:
        row = self.store.run(
            lambda db: db.execute(
                "SELECT posts FROM forgotten_files WHERE channel = ? AND file = ?", (channel, file)
            ).fetchone()
        )
        return row is not None and covers(json.loads(row[0]), post)

    def buried_document(self, channel: str, doc_id: str) -> bool:
        row = self.store.run(
            lambda db: db.execute(
                "SELECT 1 FROM forgotten_docs WHERE channel = ? AND doc_id = ?", (channel, doc_id)
            ).fetchone()
        )
        return row is not None

    def lift(self, channel: str, file: str, doc_id: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "DELETE FROM forgotten_files WHERE channel = ? AND file = ?", (channel, file)
            )
            db.execute(
                "DELETE FROM forgotten_docs WHERE channel = ? AND doc_id = ?", (channel, doc_id)
            )

        self.store.run(work)

"""👍/👎 on answers, kept so that a wrong answer becomes a regression case.

Every answer the bot gives is recorded (``record``: the question, the text
as shown, each citation with the sentence it supports, the cited passage,
its verdict and reason) under a short id that the platforms put on their
feedback buttons. A vote (``vote``) names that id: one vote per person per
answer (voting again replaces the verdict, it never counts twice), and only
in the channel the answer was given in. ``votes(channel)`` gives the records
with their votes for ``papertrail feedback export``; ``forget(channel,
doc_ids)`` drops the answers that cited or asked a forgotten document, with
their votes. ``StoredFeedback`` keeps them in ``chat.sqlite`` (the same file
as the rest of the one-process state); several workers pass
``bot/redis/feedback.py``'s. Left out: analytics, and answers older than
``ANSWER_TTL`` (their buttons stop working with a clear note).
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from papertrail.types import Answer

log = logging.getLogger(__name__)

VERDICTS = ("up", "down")
ANSWER_TTL = 90 * 86_400.0  # seconds an answer can still be voted on (and is exported)


class Feedback(Protocol):
    """Where answers and votes live (``StoredFeedback``, ``RedisFeedback``)."""

    def record(self, record: dict) -> None: ...

    def vote(self, channel: str, answer_id: str, user: str, verdict: str) -> str: ...

    def votes(self, channel: str) -> list[dict]: ...

    def forget(self, channel: str, doc_ids: Iterable[str]) -> int: ...


def new_id() -> str:
    """A short id for an answer, safe in a button's value or custom_id."""
    return secrets.token_hex(6)


def answer_record(
    answer_id: str, channel: str, answer: Answer, *, shown: str, asked: Sequence[str] = ()
) -> dict:
    """What a vote on ``answer`` is about, as plain JSON data."""
    cited = [_citation(c, "verified") for c in answer.citations if c.chunk is not None]
    cited += [_citation(c, "removed") for c in answer.dropped if c.chunk is not None]
    docs = {c["doc_id"] for c in cited} | set(asked)
    return {
        "id": answer_id,
        "channel": channel,
        "question": answer.question,
        "answer": shown,
        "mode": answer.mode,
        "grounded": answer.grounded,
        "refusal": answer.refusal,
        "unsupported": [u.sentence for u in answer.unsupported],
        "citations": cited,
        "doc_ids": sorted(docs),
        "at": time.time(),
    }


def record_answer(feedback: Feedback, channel: str, reply, asked: Sequence[str]) -> str:
    """Keep ``reply``'s answer for votes; its id ("" if it could not be kept: the answer
    goes out regardless, without buttons)."""
    answer_id = new_id()
    try:
        feedback.record(answer_record(answer_id, channel, reply.answer, shown=reply.text,
                                      asked=asked))  # fmt: skip
    except Exception:
        log.exception("recording an answer for feedback failed")
        return ""
    return answer_id


def forget_feedback(feedback: Feedback, channel: str, doc_ids: Iterable[str]) -> None:
    """A forgotten document's answers and votes go with it."""
    try:
        feedback.forget(channel, doc_ids)
    except Exception:
        log.exception("forgetting the feedback of %s failed", channel)


def _citation(c, verdict: str) -> dict:
    return {
        "n": c.n,
        "claim": c.sentence,
        "doc_id": c.chunk.doc_id,
        "doc_name": c.chunk.doc_name,
        "page": c.chunk.page,
        "chunk_text": c.chunk.text,
        "verdict": verdict,
        "reason": c.reason,
    }


def check_vote(verdict: str) -> str:
    if verdict not in VERDICTS:
        raise ValueError(f"a vote is one of {VERDICTS}, not {verdict!r}")
    return verdict


# vote() outcomes: the platforms word their acknowledgement from these
RECORDED, CHANGED, SAME, UNKNOWN = "recorded", "changed", "same", "unknown"


def vote_note(outcome: str, verdict: str) -> str:
    """What the person who voted is told (privately)."""
    thumb = "👍" if verdict == "up" else "👎"
    return {
        RECORDED: f"Thanks: your {thumb} is recorded. The team can replay it as a test case.",
        CHANGED: f"Your vote is now {thumb}.",
        SAME: f"You already gave this answer a {thumb}.",
    }.get(outcome, "That answer can no longer be rated here.")


_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    id TEXT PRIMARY KEY, channel TEXT NOT NULL, record TEXT NOT NULL, expires REAL NOT NULL);
CREATE INDEX IF NOT EXISTS answers_channel ON answers (channel);
CREATE TABLE IF NOT EXISTS votes (
    answer TEXT NOT NULL, user TEXT NOT NULL, verdict TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (answer, user));
"""


class StoredFeedback:
    """``Feedback`` in ``chat.sqlite`` (``local_state.LocalStore``)."""

    def __init__(self, store, clock: Callable[[], float] = time.time) -> None:
        self.store, self._clock = store, clock
        self._ready = False

    def _run(self, work):
        def with_schema(db: sqlite3.Connection):
            if not self._ready:
                db.executescript(_SCHEMA)
                self._ready = True
            return work(db)

        return self.store.run(with_schema)

    def record(self, record: dict) -> None:
        now = self._clock()
        row = (record["id"], record["channel"], json.dumps(record), now + ANSWER_TTL)

        def work(db: sqlite3.Connection) -> None:
            if self.store.sweep_due():  # expired answers go, with their votes
                db.execute("DELETE FROM answers WHERE expires <= ?", (now,))
                db.execute("DELETE FROM votes WHERE answer NOT IN (SELECT id FROM answers)")
            db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)", row)

        self._run(work)

    def vote(self, channel: str, answer_id: str, user: str, verdict: str) -> str:
        check_vote(verdict)
        now = self._clock()

        def work(db: sqlite3.Connection) -> str:
            found = db.execute(
                "SELECT 1 FROM answers WHERE id = ? AND channel = ? AND expires > ?",
                (answer_id, channel, now),
            ).fetchone()
            if found is None:  # another channel's answer, or gone: nothing to vote on here
                return UNKNOWN
            before = db.execute(
                "SELECT verdict FROM votes WHERE answer = ? AND user = ?", (answer_id, user)
            ).fetchone()
            if before is not None and before[0] == verdict:
                return SAME
            db.execute(
                "INSERT OR REPLACE INTO votes VALUES (?, ?, ?, ?)", (answer_id, user, verdict, now)
            )
            return RECORDED if before is None else CHANGED

        return self._run(work)

    def votes(self, channel: str) -> list[dict]:
        now = self._clock()

        def work(db: sqlite3.Connection) -> list[dict]:
            rows = db.execute(
                "SELECT a.record, v.user, v.verdict, v.at FROM answers a JOIN votes v "
                "ON v.answer = a.id WHERE a.channel = ? AND a.expires > ? ORDER BY v.at",
                (channel, now),
            ).fetchall()
            return [
                dict(json.loads(r), user=u, verdict=verdict, voted_at=at)
                for r, u, verdict, at in rows
            ]

        return self._run(work)

    def forget(self, channel: str, doc_ids: Iterable[str]) -> int:
        gone = set(doc_ids)
        if not gone:
            return 0

        def work(db: sqlite3.Connection) -> int:
            rows = db.execute(
                "SELECT id, record FROM answers WHERE channel = ?", (channel,)
            ).fetchall()
            ids = [i for i, r in rows if gone & set(json.loads(r).get("doc_ids", ()))]
            for i in ids:
                db.execute("DELETE FROM answers WHERE id = ?", (i,))
                db.execute("DELETE FROM votes WHERE answer = ?", (i,))
            return len(ids)

        return self._run(work)

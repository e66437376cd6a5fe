"""A one-process job queue journaled in SQLite, so a restart finds unfinished work.

The one-process counterpart of ``bot/redis/jobs.py`` (same ``put`` / ``start``
/ ``close``, same ``run(payload, done)`` callback): an adapter ``put``s each
accepted question or drop before working on it, the job runs at once in this
process, and ``done()`` deletes its row. A row still there when the next
process opens the journal belonged to a process that stopped (crash, deploy,
SIGKILL) before finishing it: ``start`` runs it again with ``deliveries`` one
higher, so the adapter knows to pick up the progress message already shown.
A job that was started ``MAX_DELIVERIES`` times (it keeps killing the process)
is dropped with an error in the log. The file lives in the data directory;
SQLite's WAL journal makes each put and delete durable across a crash. Left
out: several processes sharing one journal (that is Redis's job).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

MAX_DELIVERIES = 3  # the same bound as the Redis stream's

Done = Callable[[], None]
Runner = Callable[[dict, Done], None]


class LocalJobs:
    """Jobs of one process, kept in ``path`` (SQLite) until they are done."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "payload TEXT NOT NULL, deliveries INTEGER NOT NULL DEFAULT 1)"
        )
        self._lock = threading.Lock()
        self._run: Runner | None = None
        self._waiting: list[int] = []  # put before start: run when it is called
        # rows left by an earlier process: started again by ``start``
        self._left = [row[0] for row in self._db.execute("SELECT id FROM jobs ORDER BY id")]

    def put(self, payload: dict, *, take: bool = True) -> str:
        """Journal ``payload`` and run it now (or at ``start``); returns its id.
        (``take`` is for parity with the Redis queue: one process takes everything.)"""
        with self._lock:
            cur = self._db.execute("INSERT INTO jobs (payload) VALUES (?)", (json.dumps(payload),))
            job_id = int(cur.lastrowid)
            run = self._run
            if run is None:
                self._waiting.append(job_id)
        if run is not None:
            self._dispatch(run, job_id, payload, 1)
        return str(job_id)

    def start(self, run: Runner) -> None:
        """Run the jobs an earlier process left unfinished, then new ones as they come."""
        with self._lock:
            self._run = run
            left, self._left = self._left, []
            waiting, self._waiting = self._waiting, []
        for job_id in left:
            found = self._bump(job_id)
            if found is None:
                continue
            payload, deliveries = found
            if deliveries > MAX_DELIVERIES:
                log.error("dropping job %s: it was started %d times", job_id, MAX_DELIVERIES)
                self._delete(job_id)
                continue
            log.warning("resuming job %s left unfinished by an earlier process", job_id)
            self._dispatch(run, job_id, payload, deliveries)
        for job_id in waiting:
            row = self._db.execute("SELECT payload FROM jobs WHERE id = ?", (job_id,)).fetchone()
            if row is not None:
                self._dispatch(run, job_id, json.loads(row[0]), 1)

    def pending(self) -> int:
        """Jobs journaled and not done."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])

    def close(self) -> None:
        """Stop taking jobs; unfinished ones stay journaled for the next process."""
        with self._lock:
            self._run = None
            self._db.close()

    def _bump(self, job_id: int) -> tuple[dict, int] | None:
        with self._lock:
            self._db.execute("UPDATE jobs SET deliveries = deliveries + 1 WHERE id = ?", (job_id,))
            row = self._db.execute(
                "SELECT payload, deliveries FROM jobs WHERE id = ?", (job_id,)
            ).fetchone()
        return (json.loads(row[0]), int(row[1])) if row else None

    def _delete(self, job_id: int) -> None:
        with self._lock:
            try:
                self._db.execute("DELETE FROM jobs WHERE id = ?", (job_id,))
            except sqlite3.ProgrammingError:  # closed: the process is stopping
                log.info("job %s finished after the journal closed", job_id)

    def _dispatch(self, run: Runner, job_id: int, payload: dict, deliveries: int) -> None:
        finished = threading.Event()

        def done() -> None:
            if not finished.is_set():
                finished.set()
                self._delete(job_id)

        try:
            run(dict(payload, deliveries=deliveries), done)
        except Exception:
            log.exception("job %s could not be started", job_id)
            done()

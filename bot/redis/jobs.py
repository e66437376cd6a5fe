"""Accepted work as jobs in a Redis stream, taken over when the worker holding one dies.

Multi-worker mode only (``REDIS_URL``). An adapter that has acknowledged an
event (Slack will not send it again) ``put``s it here instead of running it;
every worker consumes the stream through one consumer group, so each job goes
to one worker. A worker reads a job only while it has a free slot
(``capacity``), so jobs spread over the workers instead of piling up on the
first reader. While a job runs, a heartbeat re-claims it every
``idle / 3`` seconds (``XCLAIM ... JUSTID`` resets its idle time); when a
worker dies its jobs stop being re-claimed, and after ``idle`` seconds any
worker's ``XAUTOCLAIM`` takes them over and runs them again. Delivery is
therefore at-least-once; the adapters make it exactly-once in effect (events
are de-duplicated before they become jobs, indexing is leased and
idempotent). A job delivered ``MAX_DELIVERIES`` times (it keeps killing its
workers) is dropped with an error in the log.

Why Streams and not a queue library (RQ, Celery, Dramatiq): consumer groups
with pending-entry lists and XAUTOCLAIM are the reclaim-from-dead-workers
mechanism built into Redis >= 6.2 (and Render Key Value), need nothing but
redis-py, and let the same process both receive events and work jobs, which
RQ's fork-per-job workers and Celery's separate worker processes do not.
``put(payload, take=True)`` adds a job and, in the same atomic script, reads
it for this worker when it has a free slot: the process that received the
work starts it at once (its progress is the one shown), and the stream still
holds it for takeover if that process dies. Left out: priorities and delayed
jobs.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable

log = logging.getLogger(__name__)

GROUP = "workers"
# XADD, then XREADGROUP for the caller, atomically: no other worker reads in between, so
# the job just added is the one read unless older unread jobs wait (then those, fairly).
_PUT_AND_TAKE = """
redis.call("XADD", KEYS[1], "MAXLEN", "~", ARGV[2], "*", "payload", ARGV[1])
return redis.call("XREADGROUP", "GROUP", ARGV[3], ARGV[4], "COUNT", 1, "STREAMS", KEYS[1], ">")
"""
MAX_DELIVERIES = 3  # a job that was taken over this often is dropped: it kills workers
MAX_LENGTH = 100_000  # stream entries kept (approximately); acked jobs are deleted anyway

Done = Callable[[], None]
Runner = Callable[[dict, Done], None]  # runs a job's payload; calls done() when finished


class RedisJobs:
    """A job stream ``papertrail:jobs:<name>`` shared by every worker of one app."""

    def __init__(
        self,
        client,
        name: str,
        *,
        idle: float = 60.0,  # seconds without a heartbeat before a job is taken over
        capacity: int = 8,  # jobs this worker runs at once
        prefix: str = "papertrail:",
    ) -> None:
        self.client, self.idle, self.capacity = client, idle, capacity
        self.stream = f"{prefix}jobs:{name}"
        self.consumer = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self._running: set[str] = set()  # entry ids this worker is working on
        self._lock = threading.Lock()
        self._free = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._runner: Runner | None = None
        try:
            client.xgroup_create(self.stream, GROUP, id="0", mkstream=True)
        except Exception as exc:  # BUSYGROUP: another worker created it first
            if "BUSYGROUP" not in str(exc):
                raise

    def put(self, payload: dict, *, take: bool = False) -> str:
        """Queue ``payload`` (JSON-serialisable); returns the entry id. With ``take``
        (after ``start``, with a free slot) this worker starts it at once."""
        run = self._runner
        with self._lock:
            room = run is not None and len(self._running) < self.capacity
        if take and room:
            got = self.client.eval(
                _PUT_AND_TAKE, 1, self.stream, json.dumps(payload), MAX_LENGTH, GROUP, self.consumer
            )
            entries = [entry for _, found in got or [] for entry in found]
            for entry_id, fields in entries:
                flat = dict(zip(fields[::2], fields[1::2], strict=True))  # Lua: a flat list
                self._dispatch(run, entry_id, flat)
            return _text(entries[0][0]) if entries else ""
        data = {"payload": json.dumps(payload)}
        entry = self.client.xadd(self.stream, data, maxlen=MAX_LENGTH, approximate=True)
        return entry.decode() if isinstance(entry, bytes) else str(entry)

    def start(self, run: Runner) -> None:
        """Consume jobs with ``run`` from background threads until ``close``."""
        self._runner = run
        for target, name in ((self._consume, "jobs"), (self._heartbeat, "jobs-heartbeat")):
            thread = threading.Thread(
                target=target, args=(run,), name=f"papertrail-{name}", daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def close(self) -> None:
        self._stop.set()
        with self._free:
            self._free.notify_all()
        for thread in self._threads:
            thread.join(timeout=5)

    # -- consuming -------------------------------------------------------------

    def _consume(self, run: Runner) -> None:
        while not self._stop.is_set():
            try:
                with self._free:
                    while len(self._running) >= self.capacity and not self._stop.is_set():
                        self._free.wait(1.0)
                    room = self.capacity - len(self._running)
                if self._stop.is_set():
                    return
                entries = self._take_over(room) or self._read(room)
                for entry_id, fields in entries:
                    self._dispatch(run, entry_id, fields)
            except Exception:
                log.exception("job stream %s: read failed; retrying", self.stream)
                self._stop.wait(1.0)

    def _take_over(self, count: int) -> list:
        """Jobs whose worker stopped heart-beating for ``idle`` seconds."""
        got = self.client.xautoclaim(
            self.stream, GROUP, self.consumer, int(self.idle * 1000), "0-0", count=count
        )
        entries = [(i, f) for i, f in got[1] if f]  # deleted entries come back empty
        for entry_id, _ in entries:
            log.warning("taking over job %s from a worker that stopped", _text(entry_id))
        return entries

    def _read(self, count: int) -> list:
        got = self.client.xreadgroup(
            GROUP, self.consumer, {self.stream: ">"}, count=count, block=1000
        )
        return [entry for _, entries in got or [] for entry in entries]

    def _dispatch(self, run: Runner, entry_id, fields: dict) -> None:
        entry = _text(entry_id)
        deliveries = self._deliveries(entry)
        if deliveries > MAX_DELIVERIES:
            log.error("dropping job %s: its workers died %d times", entry, MAX_DELIVERIES)
            self._ack(entry)
            return
        with self._lock:
            self._running.add(entry)
        payload = json.loads(_text(fields.get(b"payload", fields.get("payload", "{}"))))
        payload["deliveries"] = deliveries  # > 1: taken over from a worker that died
        finished = threading.Event()

        def done() -> None:
            if not finished.is_set():
                finished.set()
                self._ack(entry)

        try:
            run(payload, done)
        except Exception:
            log.exception("job %s could not be started", entry)
            done()

    def _deliveries(self, entry: str) -> int:
        pending = self.client.xpending_range(self.stream, GROUP, entry, entry, 1)
        return int(pending[0]["times_delivered"]) if pending else 1

    def _ack(self, entry: str) -> None:
        with self.client.pipeline() as pipe:
            pipe.xack(self.stream, GROUP, entry)
            pipe.xdel(self.stream, entry)
            pipe.execute()
        with self._free:
            self._running.discard(entry)
            self._free.notify_all()

    def _heartbeat(self, _run: Runner) -> None:
        while not self._stop.wait(self.idle / 3):
            with self._lock:
                running = list(self._running)
            if not running:
                continue
            try:  # re-claiming our own jobs resets their idle time: "still alive"
                self.client.xclaim(self.stream, GROUP, self.consumer, 0, running, justid=True)
            except Exception:
                log.exception("job heartbeat failed; retrying")


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)

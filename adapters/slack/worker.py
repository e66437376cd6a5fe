"""A bounded thread pool that runs Slack jobs one at a time per channel, in order.

Listeners return at once (Bolt has already acked within Slack's 3 s) and queue
their work here: a huge PDF in one channel holds one worker and never delays
another channel, and a question queued behind a PDF dropped in its channel
runs after that PDF is indexed. Left out: spreading work over processes.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger(__name__)


class ChannelWorker:
    """A bounded thread pool that runs one job at a time per key, in order.

    A channel with a backlog re-queues behind other channels after each job,
    so no channel holds more than one of the ``workers`` threads.
    """

    def __init__(self, workers: int = 4) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="papertrail-slack")
        self._queues: dict[Hashable, deque[Callable[[], None]]] = {}
        self._lock = threading.Lock()

    def submit(self, key: Hashable, job: Callable[[], None]) -> None:
        with self._lock:
            if key in self._queues:  # a job for this channel is running: wait behind it
                self._queues[key].append(job)
                return
            self._queues[key] = deque()
        self._pool.submit(self._run, key, job)

    def _run(self, key: Hashable, job: Callable[[], None]) -> None:
        try:
            job()
        except Exception:
            log.exception("slack job failed")
        with self._lock:
            queue = self._queues[key]
            if not queue:
                del self._queues[key]
                return
            job = queue.popleft()
        self._pool.submit(self._run, key, job)

    def shutdown(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait)

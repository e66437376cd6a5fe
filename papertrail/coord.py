"""Indexing leases: which worker may index a file now, and waiting for the one that does.

``Leases`` (who may do this piece of work now?) is the seam several
interchangeable workers share; ``bot/redis/coord.py`` implements it on Redis.
``Lease`` keeps a held lease renewed, and ``acquire_or_wait`` takes the work
or waits for whoever has it. One process needs no lease (the pipeline runs
without one). Left out: de-duplicating chat deliveries (``adapters/chat/dedup.py``),
anything platform-specific and job queues (``bot/redis/jobs.py``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol, TypeVar

from papertrail.errors import PaperTrailError

T = TypeVar("T")


class Leases(Protocol):
    """Exclusive, expiring claims on named work.

    ``acquire`` returns a token when the caller now holds ``key`` for ``ttl``
    seconds, else None; only the token's holder can ``renew`` or ``release``.
    An expired lease is free again, which is how a dead worker's claim passes on.
    """

    def acquire(self, key: str, ttl: float) -> str | None: ...

    def renew(self, key: str, token: str, ttl: float) -> bool: ...

    def release(self, key: str, token: str) -> None: ...


class Lease:
    """A held lease, renewed every ``ttl / 3`` seconds by a daemon thread until ``release``.

    The thread dies with the process, so a crashed holder's lease expires
    within ``ttl`` and the work passes on. ``check()`` raises
    PaperTrailError(code="lease_lost") once a renewal failed (the lease had
    expired, e.g. after a long pause, and another worker may own the work).
    """

    def __init__(self, leases: Leases, key: str, token: str, ttl: float) -> None:
        self.leases, self.key, self.token, self.ttl = leases, key, token, ttl
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._keep, name="papertrail-lease", daemon=True)
        self._thread.start()

    def _keep(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            try:
                ok = self.leases.renew(self.key, self.token, self.ttl)
            except Exception:  # a network blip: the next beat may still be in time
                continue
            if not ok:
                self.lost = True
                return

    def check(self) -> None:
        if self.lost:
            raise PaperTrailError(
                "Another worker took over this work after this one stalled; it will finish it.",
                code="lease_lost",
            )

    def release(self) -> None:
        self._stop.set()
        self.leases.release(self.key, self.token)


def acquire_or_wait(
    leases: Leases,
    key: str,
    ttl: float,
    done: Callable[[], T | None],
    *,
    timeout: float,
    poll: float = 0.5,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Lease | T:
    """Hold ``key``, or return ``done()``'s result once another holder finished.

    Loops: if ``done()`` gives a value (the work is finished), return it; else
    try the lease and return a ``Lease`` when it is ours; else wait ``poll``
    seconds. A holder that dies stops renewing, its lease expires and the next
    waiter takes the work over. Raises PaperTrailError(code="busy") after
    ``timeout`` seconds.
    """
    deadline = clock() + timeout
    while True:
        finished = done()
        if finished is not None:
            return finished
        token = leases.acquire(key, ttl)
        if token is not None:
            finished = done()  # finished between the two checks: give the lease back
            if finished is not None:
                leases.release(key, token)
                return finished
            return Lease(leases, key, token, ttl)
        if clock() > deadline:
            raise PaperTrailError(
                "Another worker is still indexing this file: ask again in a minute.", code="busy"
            )
        sleep(poll)

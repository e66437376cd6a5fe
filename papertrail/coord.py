"""Coordination seams between bot processes, with their one-process implementations.

Three tiny Protocols say what several interchangeable workers must share:
``Seen`` (was this key seen before? - de-duplication of deliveries),
``Leases`` (who may do this piece of work now? - one worker indexes a file)
and ``Lease``-holding helpers. The in-memory classes here are the default,
one-process mode; ``bot/redis/coord.py`` implements the same seams on
Redis for multi-worker mode. Left out: anything platform-specific (what a key
means is the caller's business) and job queues (``bot/redis/jobs.py``).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Protocol, TypeVar

from papertrail.errors import PaperTrailError

T = TypeVar("T")


class Seen(Protocol):
    """A set of recently seen keys: ``first(key)`` is True once per TTL."""

    def first(self, key) -> bool: ...


class Leases(Protocol):
    """Exclusive, expiring claims on named work.

    ``acquire`` returns a token when the caller now holds ``key`` for ``ttl``
    seconds, else None; only the token's holder can ``renew`` or ``release``.
    An expired lease is free again, which is how a dead worker's claim passes on.
    """

    def acquire(self, key: str, ttl: float) -> str | None: ...

    def renew(self, key: str, token: str, ttl: float) -> bool: ...

    def release(self, key: str, token: str) -> None: ...


class LocalLeases:
    """``Leases`` for one process: a dict of key -> (token, expiry) under a lock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._held: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def acquire(self, key: str, ttl: float) -> str | None:
        now = self._clock()
        with self._lock:
            held = self._held.get(key)
            if held is not None and held[1] > now:
                return None
            token = uuid.uuid4().hex
            self._held[key] = (token, now + ttl)
            return token

    def renew(self, key: str, token: str, ttl: float) -> bool:
        now = self._clock()
        with self._lock:
            held = self._held.get(key)
            if held is None or held[0] != token or held[1] <= now:
                return False
            self._held[key] = (token, now + ttl)
            return True

    def release(self, key: str, token: str) -> None:
        with self._lock:
            if self._held.get(key, ("",))[0] == token:
                del self._held[key]


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

"""The coordination seams of ``papertrail/coord.py`` on a shared Redis (multi-worker mode).

``connect`` opens and checks a connection from a ``REDIS_URL``. ``RedisSeen``
de-duplicates with one atomic ``SET key 1 NX EX ttl``; ``RedisLeases`` claims
work with ``SET key token NX PX ttl`` and renews or releases it with small Lua
scripts that act only for the token's holder (compare-and-set, so a worker
whose lease expired cannot extend or delete the new holder's);
``RedisTokenBudget`` shares the daily LLM token count through ``INCRBY`` on a
per-UTC-day key, with the same methods as ``budget.TokenBudget``. Every key
starts with ``prefix`` so several deployments can share one Redis. Left out:
job queues (``bot/redis/jobs.py``) and Redis Cluster (keys are not hash-tagged).
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from papertrail.answer.budget import next_utc_midnight
from papertrail.errors import PaperTrailError

PREFIX = "papertrail:"
DAY_SECONDS = 86_400

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
_RAISE_TO = """
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then
  redis.call('SET', KEYS[1], ARGV[1], 'EXAT', ARGV[2])
end
return 1
"""


def connect(url: str):
    """A redis-py client for ``url`` (``redis://host:port/db``), checked with PING."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
        client.ping()
        return client
    except (redis.RedisError, ValueError) as exc:
        raise PaperTrailError(
            f"Redis at REDIS_URL did not answer ({type(exc).__name__}). Start redis-server, "
            "or fix REDIS_URL (leave it empty to run one process without Redis).",
            code="config",
        ) from exc


def key_of(*parts) -> str:
    """A short fixed-length key for any tuple of ids (channel names may hold anything)."""
    raw = "\x00".join(str(p) for p in parts).encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()[:32]


class RedisSeen:
    """``Seen`` shared by every worker: the first ``SET NX`` wins, for ``ttl`` seconds."""

    def __init__(self, client, *, ttl: float = 3600.0, prefix: str = PREFIX) -> None:
        self.client, self.ttl, self.prefix = client, int(max(1, ttl)), prefix

    def first(self, key) -> bool:
        parts = key if isinstance(key, tuple) else (key,)
        name = f"{self.prefix}seen:{key_of(*parts)}"
        return bool(self.client.set(name, 1, nx=True, ex=self.ttl))


class RedisLeases:
    """``Leases`` shared by every worker; ``ttl`` is in seconds (stored as ms)."""

    def __init__(self, client, *, prefix: str = PREFIX) -> None:
        self.client, self.prefix = client, prefix
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

    def _name(self, key: str) -> str:
        return f"{self.prefix}lease:{key_of(key)}"

    def acquire(self, key: str, ttl: float) -> str | None:
        token = uuid.uuid4().hex
        ok = self.client.set(self._name(key), token, nx=True, px=int(ttl * 1000))
        return token if ok else None

    def renew(self, key: str, token: str, ttl: float) -> bool:
        return bool(self._renew(keys=[self._name(key)], args=[token, int(ttl * 1000)]))

    def release(self, key: str, token: str) -> None:
        self._release(keys=[self._name(key)], args=[token])


class RedisTokenBudget:
    """The daily LLM token budget of ``budget.TokenBudget``, shared through Redis.

    Spending is one ``INCRBY`` on ``budget:<UTC day>`` (expiring after two
    days), so concurrent workers never lose each other's counts; a provider's
    "no more until T" is kept as the largest T any worker was told.
    """

    def __init__(
        self,
        client,
        daily_tokens: int,
        *,
        prefix: str = PREFIX,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.client, self.daily_tokens, self.prefix, self._clock = (
            client,
            daily_tokens,
            prefix,
            clock,
        )
        self._raise_to = client.register_script(_RAISE_TO)

    def _day_key(self) -> str:
        day = datetime.fromtimestamp(self._clock(), UTC).date().isoformat()
        return f"{self.prefix}budget:{day}"

    def _blocked(self) -> bool:
        until = self.client.get(f"{self.prefix}budget:blocked_until")
        return until is not None and self._clock() < float(until)

    def allow(self, estimated: int) -> bool:
        if self._blocked():
            return False
        return self.daily_tokens == 0 or self.used + estimated <= self.daily_tokens

    @property
    def used(self) -> int:
        return int(self.client.get(self._day_key()) or 0)

    @property
    def remaining(self) -> int:
        if self._blocked():
            return 0
        return 2**62 if self.daily_tokens == 0 else max(0, self.daily_tokens - self.used)

    @property
    def exhausted(self) -> bool:
        return self._blocked()

    def spend(self, n: int) -> None:
        key = self._day_key()
        with self.client.pipeline() as pipe:  # MULTI: count and expiry together
            pipe.incrby(key, max(0, int(n)))
            pipe.expire(key, 2 * DAY_SECONDS)
            pipe.execute()

    def exhaust(self, until: float | None = None) -> None:
        until = until or next_utc_midnight(self._clock())
        key = f"{self.prefix}budget:blocked_until"
        self._raise_to(keys=[key], args=[repr(float(until)), int(until) + 60])

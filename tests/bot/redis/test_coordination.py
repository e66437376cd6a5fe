"""Coordination seams: the in-memory defaults, and their Redis versions on a real redis-server."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.redis.coord import RedisLeases, RedisSeen, RedisTokenBudget, connect
from papertrail.coord import acquire_or_wait
from papertrail.errors import PaperTrailError
from tests.fakes import LocalLeases


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_local_lease_is_exclusive_until_released_or_expired():
    clock = Clock()
    leases = LocalLeases(clock)
    token = leases.acquire("k", 10)
    assert token and leases.acquire("k", 10) is None
    assert not leases.renew("k", "not-the-token", 10)
    assert leases.renew("k", token, 10)
    clock.now += 11
    successor = leases.acquire("k", 10)  # the holder stopped renewing: the work passes on
    assert successor and not leases.renew("k", token, 10)
    leases.release("k", token)  # a stale holder cannot free the new holder's lease
    assert leases.acquire("k", 10) is None
    leases.release("k", successor)
    assert leases.acquire("k", 10)


def test_waiter_returns_the_finished_work_instead_of_redoing_it():
    clock = Clock()
    leases = LocalLeases(clock)
    holder = leases.acquire("doc", 30)
    finished: list[str] = []

    def sleep(seconds: float) -> None:
        clock.sleep(seconds)
        if clock.now > 1005:  # the holder finishes after 5 s
            finished.append("ready")
            leases.release("doc", holder)

    got = acquire_or_wait(
        leases, "doc", 30, lambda: finished[0] if finished else None, timeout=60, sleep=sleep,
        clock=clock,
    )  # fmt: skip
    assert got == "ready"


def test_waiter_takes_over_from_a_dead_holder_and_times_out_when_alive():
    clock = Clock()
    leases = LocalLeases(clock)
    leases.acquire("doc", 30)  # a holder that dies: never renews
    got = acquire_or_wait(
        leases, "doc", 30, lambda: None, timeout=60, sleep=clock.sleep, clock=clock
    )
    assert got.key == "doc" and clock.now >= 1030
    got.release()
    leases.acquire("doc", 1000)  # alive for longer than the waiter waits
    with pytest.raises(PaperTrailError) as err:
        acquire_or_wait(leases, "doc", 30, lambda: None, timeout=60, sleep=clock.sleep, clock=clock)
    assert err.value.code == "busy"


def test_redis_seen_lets_exactly_one_of_many_racing_workers_through(redis_client, redis_server):
    # one client per "worker", as separate processes would have
    workers = [RedisSeen(connect(redis_server.url)) for _ in range(8)]
    barrier = threading.Barrier(len(workers))

    def deliver(seen: RedisSeen) -> bool:
        barrier.wait()
        return seen.first(("T1", "C1", "1700000001.000001"))

    with ThreadPoolExecutor(len(workers)) as pool:
        results = list(pool.map(deliver, workers))
    assert results.count(True) == 1
    assert workers[0].first(("T1", "C1", "1700000002.000002"))  # another message is new
    ttl = redis_client.ttl(next(iter(redis_client.scan_iter("papertrail:seen:*"))))
    assert 0 < ttl <= 3600


def test_redis_lease_only_the_holder_renews_or_releases_and_expiry_passes_it_on(redis_client):
    a, b = RedisLeases(redis_client), RedisLeases(redis_client)
    token = a.acquire("index:c1:abc", 0.3)
    assert token and b.acquire("index:c1:abc", 0.3) is None
    assert not b.renew("index:c1:abc", "forged", 5)
    b.release("index:c1:abc", "forged")
    assert a.renew("index:c1:abc", token, 0.3)
    time.sleep(0.4)  # expired: the holder is presumed dead
    successor = b.acquire("index:c1:abc", 5)
    assert successor and not a.renew("index:c1:abc", token, 5)
    a.release("index:c1:abc", token)
    assert b.acquire("index:c1:abc", 5) is None  # still the successor's


def test_redis_budget_counts_every_workers_spending(redis_client, redis_server):
    budgets = [RedisTokenBudget(connect(redis_server.url), 10_000) for _ in range(4)]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda b: [b.spend(25) for _ in range(50)], budgets))
    assert budgets[0].used == 4 * 50 * 25
    assert budgets[1].remaining == 5_000 and budgets[2].allow(5_000)
    assert not budgets[3].allow(5_001)
    budgets[0].exhaust(time.time() + 60)  # one worker hits the provider's daily limit
    assert budgets[1].exhausted and not budgets[2].allow(1) and budgets[3].remaining == 0
    budgets[2].exhaust(time.time() - 1)  # an earlier "until" never shortens the block
    assert budgets[1].exhausted


def test_redis_budget_starts_each_utc_day_at_zero(redis_client):
    clock = Clock()
    budget = RedisTokenBudget(redis_client, 100, clock=clock)
    budget.spend(90)
    assert not budget.allow(20)
    clock.now += 86_400
    assert budget.used == 0 and budget.allow(20)


def test_unreachable_redis_is_a_config_error_naming_the_variable():
    with pytest.raises(PaperTrailError) as err:
        connect("redis://127.0.0.1:1/0")
    assert err.value.code == "config" and "REDIS_URL" in err.value.message


def test_a_held_lease_is_renewed_in_the_background_and_reports_its_loss():
    clock = Clock()
    leases = LocalLeases(clock)
    got = acquire_or_wait(leases, "doc", 0.15, lambda: None, timeout=1, clock=clock)
    clock.now += 0.1  # within the TTL: the heartbeat (every 0.05 s) keeps renewing it
    time.sleep(0.2)
    got.check()
    assert leases.acquire("doc", 0.15) is None
    clock.now += 10  # a long pause (e.g. a suspended VM): the lease expired meanwhile
    assert leases.acquire("doc", 100)  # another worker takes the work over
    time.sleep(0.2)
    with pytest.raises(PaperTrailError) as err:
        got.check()
    assert err.value.code == "lease_lost"
    got.release()
    assert leases.acquire("doc", 1) is None  # releasing a lost lease leaves the new holder's

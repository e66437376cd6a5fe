"""bot/redis/jobs.py on a real redis-server: jobs spread, get acked, and survive a dead worker."""

from __future__ import annotations

import threading
import time

from bot.redis.jobs import MAX_DELIVERIES, RedisJobs


class Recorder:
    """A job runner that records payloads; ``finish`` False leaves jobs running forever."""

    def __init__(self, finish: bool = True) -> None:
        self.finish = finish
        self.payloads: list[dict] = []
        self.lock = threading.Lock()

    def __call__(self, payload: dict, done) -> None:
        with self.lock:
            self.payloads.append(payload)
        if self.finish:
            threading.Thread(target=done).start()


def wait(predicate, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_each_job_runs_once_and_is_acked(redis_client):
    queues = [RedisJobs(redis_client, "t1", idle=5, capacity=2) for _ in range(2)]
    runners = [Recorder(), Recorder()]
    for q, r in zip(queues, runners, strict=True):
        q.start(r)
    for n in range(20):
        queues[n % 2].put({"n": n})
    wait(lambda: sum(len(r.payloads) for r in runners) == 20)
    time.sleep(0.5)
    got = sorted(p["n"] for r in runners for p in r.payloads)
    assert got == list(range(20))
    assert all(r.payloads for r in runners)  # a bounded capacity spreads the work
    wait(lambda: redis_client.xlen(queues[0].stream) == 0)  # acked jobs are deleted
    for q in queues:
        q.close()


def test_a_dead_workers_job_is_taken_over_after_the_idle_time(redis_client):
    dying = RedisJobs(redis_client, "t2", idle=1.0, capacity=1)
    stuck = Recorder(finish=False)
    dying.start(stuck)
    dying.put({"question": "q1"})
    wait(lambda: stuck.payloads)
    dying.close()  # its heartbeat stops, the job stays pending: as after SIGKILL
    started = time.monotonic()
    survivor = RedisJobs(redis_client, "t2", idle=1.0, capacity=1)
    runner = Recorder()
    survivor.start(runner)
    wait(lambda: runner.payloads)
    assert runner.payloads == [{"question": "q1", "deliveries": 2}]  # marked as taken over
    assert time.monotonic() - started >= 0.9  # not before it was idle long enough
    survivor.close()


def test_a_running_jobs_heartbeat_keeps_it_from_being_taken_over(redis_client):
    slow = RedisJobs(redis_client, "t3", idle=0.6, capacity=1)
    gate = threading.Event()
    seen: list[dict] = []
    slow.start(lambda payload, done: (seen.append(payload), threading.Thread(
        target=lambda: (gate.wait(10), done())).start()))  # fmt: skip
    other = RedisJobs(redis_client, "t3", idle=0.6, capacity=1)
    others: list[dict] = []
    other.start(lambda payload, done: (others.append(payload), done()))
    slow.put({"long": True})
    wait(lambda: seen or others)
    time.sleep(2.0)  # > 3 idle periods: only heartbeats keep it with its worker
    gate.set()
    assert len(seen) + len(others) == 1
    wait(lambda: redis_client.xlen(slow.stream) == 0)
    slow.close()
    other.close()


def test_a_job_that_keeps_killing_workers_is_dropped(redis_client):
    for _ in range(MAX_DELIVERIES):
        q = RedisJobs(redis_client, "t4", idle=0.3, capacity=1)
        runner = Recorder(finish=False)
        q.start(runner)
        if _ == 0:
            q.put({"poison": True})
        wait(lambda r=runner: r.payloads)
        q.close()
    last = RedisJobs(redis_client, "t4", idle=0.3, capacity=1)
    runner = Recorder()
    last.start(runner)
    wait(lambda: redis_client.xlen(last.stream) == 0)
    assert runner.payloads == []
    last.close()


def test_a_job_put_with_take_runs_in_the_putting_worker_at_once(redis_client):
    here = RedisJobs(redis_client, "t4", idle=5, capacity=4)
    there = RedisJobs(redis_client, "t4", idle=5, capacity=4)
    mine, theirs = Recorder(finish=False), Recorder()
    here.start(mine)
    there.start(theirs)
    for n in range(3):
        here.put({"n": n}, take=True)
        assert [p["n"] for p in mine.payloads] == list(range(n + 1))  # before put returns
    assert theirs.payloads == [] and mine.payloads[0]["deliveries"] == 1
    pending = redis_client.xpending(here.stream, "workers")["pending"]
    assert pending == 3  # still in the stream: another worker takes them over if this dies
    for q in (here, there):
        q.close()

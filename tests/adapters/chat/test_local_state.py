"""The one-process chat state on disk: seen deliveries and thread memory survive a restart.

A "restart" here is a new ``LocalStore`` on the same file, as a new process
would open it; the restart of a real bot process is in
tests/scenarios/test_slack_restart.py.
"""

from __future__ import annotations

import threading

from adapters.chat.conversations import MAX_TURNS, Turn
from adapters.chat.local_state import LocalStore, StoredSeen, StoredThreads


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_seen_key_is_still_seen_after_a_restart_until_its_ttl(tmp_path):
    clock = Clock()
    seen = StoredSeen(LocalStore(tmp_path / "chat.sqlite"), ttl=3600, clock=clock)
    assert seen.first(("T1", "C1", "1.0")) and not seen.first(("T1", "C1", "1.0"))
    assert seen.first(("T1", "C2", "1.0"))  # same ts, other channel

    again = StoredSeen(LocalStore(tmp_path / "chat.sqlite"), ttl=3600, clock=clock)
    assert ("T1", "C1", "1.0") in again and not again.first(("T1", "C1", "1.0"))
    clock.now += 3600
    assert again.first(("T1", "C1", "1.0"))  # expired: a new delivery


def test_racing_threads_see_a_key_first_once(tmp_path):
    seen = StoredSeen(LocalStore(tmp_path / "chat.sqlite"))
    barrier, wins = threading.Barrier(8), []

    def race() -> None:
        barrier.wait()
        wins.append(seen.first(("T1", "C1", "2.0")))

    threads = [threading.Thread(target=race) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sorted(wins) == [False] * 7 + [True]


def test_thread_memory_survives_a_restart_bounded_and_expiring(tmp_path):
    clock = Clock()
    threads = StoredThreads(LocalStore(tmp_path / "chat.sqlite"), ttl=60, clock=clock)
    for n in range(MAX_TURNS + 2):
        threads.record("slack:T1:C1:1.0", Turn(f"question {n}", ("doc",)))
    threads.open("slack:T1:C1:2.0")
    threads.record("", Turn("no thread", ()))

    again = StoredThreads(LocalStore(tmp_path / "chat.sqlite"), ttl=60, clock=clock)
    assert "slack:T1:C1:1.0" in again and "slack:T1:C1:2.0" in again and "" not in again
    assert [t.question for t in again.turns("slack:T1:C1:1.0")] == [
        f"question {n}" for n in range(2, 7)
    ]
    assert again.turns("slack:T1:C1:1.0")[0].doc_ids == ("doc",)
    clock.now += 60
    assert "slack:T1:C1:1.0" not in again and again.turns("slack:T1:C1:1.0") == []


def test_nothing_is_written_until_something_is_remembered(tmp_path):
    store = LocalStore(tmp_path / "data" / "chat.sqlite")
    StoredSeen(store)
    StoredThreads(store)
    assert not (tmp_path / "data").exists()

"""SeenSet: first sighting wins, within a TTL and a size bound, across threads."""

import threading

from adapters.chat.dedup import SeenSet


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_only_the_first_sighting_counts():
    seen = SeenSet()
    assert seen.first(("T1", "C1", "1.0"))
    assert not seen.first(("T1", "C1", "1.0"))
    assert seen.first(("T1", "C2", "1.0"))  # same ts, other channel
    assert ("T1", "C1", "1.0") in seen and len(seen) == 2


def test_keys_expire_after_the_ttl():
    clock = Clock()
    seen = SeenSet(ttl=60, clock=clock)
    assert seen.first("a")
    clock.now = 59.9
    assert not seen.first("a")
    clock.now = 60.0
    assert "a" not in seen
    assert seen.first("a")


def test_the_oldest_key_is_evicted_beyond_max_items():
    seen = SeenSet(max_items=3)
    for key in "abcd":
        assert seen.first(key)
    assert "a" not in seen and len(seen) == 3
    assert not seen.first("d")


def test_concurrent_deliveries_of_one_key_have_exactly_one_winner():
    seen = SeenSet()
    start = threading.Barrier(16)
    wins = []

    def deliver():
        start.wait()
        wins.append(seen.first(("T1", "C1", "1700000000.000100")))

    threads = [threading.Thread(target=deliver) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wins.count(True) == 1 and len(wins) == 16

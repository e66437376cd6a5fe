"""TokenBudget: daily counting, persistence, UTC rollover, provider blocks, threads."""

import logging
import threading
from datetime import UTC, datetime

from papertrail.answer.budget import TokenBudget, estimate_tokens, next_utc_midnight


class Clock:
    """A settable unix clock."""

    def __init__(self, iso: str) -> None:
        self.now = datetime.fromisoformat(iso).replace(tzinfo=UTC).timestamp()

    def __call__(self) -> float:
        return self.now


def test_in_memory_counts_and_allows():
    budget = TokenBudget(None, 1000)
    assert budget.allow(1000)
    budget.spend(700)
    assert budget.used == 700
    assert budget.remaining == 300
    assert budget.allow(300)
    assert not budget.allow(301)
    assert not budget.exhausted


def test_zero_means_no_limit():
    budget = TokenBudget(None, 0)
    budget.spend(10**9)
    assert budget.allow(10**9)
    assert budget.remaining > 10**12


def test_persisted_across_instances(tmp_path):
    path = tmp_path / "sub" / "tokens.json"  # parent created on first save
    TokenBudget(path, 1000).spend(400)
    again = TokenBudget(path, 1000)
    assert again.used == 400
    assert again.remaining == 600
    again.exhaust()
    assert TokenBudget(path, 1000).exhausted


def test_two_instances_on_one_file_see_each_other(tmp_path):
    a, b = TokenBudget(tmp_path / "t.json", 1000), TokenBudget(tmp_path / "t.json", 1000)
    a.spend(300)
    b.spend(300)
    assert a.used == b.used == 600


def test_new_utc_day_resets_the_count(tmp_path):
    clock = Clock("2025-03-01T23:59:00")
    budget = TokenBudget(tmp_path / "t.json", 1000, clock=clock)
    budget.spend(1000)
    assert not budget.allow(1)
    clock.now += 120  # 00:01 the next day
    assert budget.used == 0
    assert budget.allow(1000)
    assert TokenBudget(tmp_path / "t.json", 1000, clock=clock).used == 0


def test_exhaust_blocks_until_midnight_by_default():
    clock = Clock("2025-03-01T12:00:00")
    budget = TokenBudget(None, 1000, clock=clock)
    budget.exhaust()
    assert budget.exhausted
    assert budget.remaining == 0
    assert not budget.allow(1)
    clock.now = next_utc_midnight(clock.now) - 1
    assert budget.exhausted
    clock.now += 2
    assert not budget.exhausted
    assert budget.allow(1)


def test_exhaust_until_a_given_time():
    clock = Clock("2025-03-01T12:00:00")
    budget = TokenBudget(None, 1000, clock=clock)
    budget.exhaust(until=clock.now + 390)
    assert not budget.allow(1)
    clock.now += 391
    assert budget.allow(1)


def test_next_utc_midnight():
    noon = Clock("2025-12-31T12:00:00").now
    assert next_utc_midnight(noon) == Clock("2026-01-01T00:00:00").now


def test_damaged_file_starts_afresh(tmp_path, caplog):
    path = tmp_path / "t.json"
    path.write_text("{not json", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="papertrail.answer.budget"):
        budget = TokenBudget(path, 1000)
        assert budget.remaining == 1000
    assert "unreadable token budget" in caplog.text
    budget.spend(5)
    assert TokenBudget(path, 1000).used == 5  # rewritten as valid JSON


def test_spending_from_many_threads_loses_nothing(tmp_path):
    for path in (None, tmp_path / "t.json"):
        budget = TokenBudget(path, 0)

        def spend(b=budget):
            for _ in range(100):
                b.spend(1)

        threads = [threading.Thread(target=spend) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert budget.used == 800


def test_estimate_tokens():
    assert estimate_tokens("") == 1
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 4000) == 1000

"""adapters/chat/journal.py: one process's jobs survive it and run again, not forever."""

from __future__ import annotations

from adapters.chat.journal import MAX_DELIVERIES, LocalJobs


class Recorder:
    def __init__(self, finish: bool) -> None:
        self.finish = finish
        self.payloads: list[dict] = []

    def __call__(self, payload: dict, done) -> None:
        self.payloads.append(payload)
        if self.finish:
            done()


def test_a_job_runs_at_once_and_leaves_no_row_when_done(tmp_path):
    jobs = LocalJobs(tmp_path / "jobs.sqlite3")
    runner = Recorder(finish=True)
    jobs.start(runner)
    jobs.put({"n": 1})
    assert runner.payloads == [{"n": 1, "deliveries": 1}]
    assert jobs.pending() == 0
    jobs.close()
    again = Recorder(finish=True)
    LocalJobs(tmp_path / "jobs.sqlite3").start(again)
    assert again.payloads == []  # nothing to resume


def test_unfinished_jobs_run_again_after_a_restart_in_order(tmp_path):
    path = tmp_path / "jobs.sqlite3"
    first = LocalJobs(path)
    first.start(Recorder(finish=False))  # the process dies before finishing
    first.put({"n": 1})
    first.put({"n": 2})
    del first  # no close: as after SIGKILL
    resumed = Recorder(finish=True)
    second = LocalJobs(path)
    second.start(resumed)
    assert resumed.payloads == [{"n": 1, "deliveries": 2}, {"n": 2, "deliveries": 2}]
    assert second.pending() == 0


def test_a_job_that_keeps_killing_the_process_is_dropped(tmp_path):
    path = tmp_path / "jobs.sqlite3"
    LocalJobs(path).put({"poison": True})  # journaled before any start: a crash at once
    seen = []
    for _ in range(MAX_DELIVERIES + 1):
        runner = Recorder(finish=False)
        LocalJobs(path).start(runner)
        seen += runner.payloads
    assert [p["deliveries"] for p in seen] == list(range(2, MAX_DELIVERIES + 1))
    assert LocalJobs(path).pending() == 0


def test_jobs_put_before_start_run_when_it_starts(tmp_path):
    jobs = LocalJobs(tmp_path / "jobs.sqlite3")
    jobs.put({"n": 1})
    runner = Recorder(finish=True)
    jobs.start(runner)
    assert runner.payloads == [{"n": 1, "deliveries": 1}]

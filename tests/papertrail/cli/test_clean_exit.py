"""The CLI and the bot exit with their own code, never with a native abort (134).

Bytes already embedded in one channel are copied into another without the
model, while the warm-up thread started on the first page read is still
loading it; exiting then used to abort in C++ ("terminate called without an
active exception"). The bot, stopped at start-up by an unreachable Slack, had
the same race with its start-up warm-up. Real processes, real model.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests import pdfs

pytestmark = pytest.mark.model

ROOT = Path(__file__).resolve().parents[3]
RUNS = 4  # the abort hit 3 runs in 4 before the fix


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERTRAIL", "SLACK"))}
    return env | {"PYTHONPATH": str(ROOT), "PAPERTRAIL_DATA_DIR": str(data_dir), **extra}


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_ingest_into_another_channel_exits_zero_every_time(tmp_path):
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(pdfs.paper_pdf())
    env = _env(tmp_path / "data")
    cli = ["-m", "papertrail.cli", "--env-file", os.devnull, "ingest", "--json"]
    first = _run([*cli, "--channel", "first", str(pdf)], env)
    assert first.returncode == 0, first.stderr[-2000:]
    codes = []
    for n in range(RUNS):
        again = _run([*cli, "--channel", f"other-{n}", str(pdf)], env)
        codes.append(again.returncode)
        assert '"new": true' in again.stdout, again.stderr[-2000:]
        assert "terminate called" not in again.stderr
    assert codes == [0] * RUNS, f"exit codes {codes} (-{signal.SIGABRT} or 134 is an abort)"


def test_slack_bot_without_a_reachable_slack_stops_with_a_message(tmp_path):
    env = _env(
        tmp_path / "data",
        SLACK_BOT_TOKEN="xoxb-unreachable",
        SLACK_SIGNING_SECRET="secret",
        SLACK_API_URL="http://127.0.0.1:9/api/",  # port 9 (discard): connection refused
    )
    for _ in range(2):
        done = _run(["-m", "bot", "--env-file", os.devnull, "slack"], env)
        assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
        assert "terminate called" not in done.stderr
        assert "could not reach Slack" in done.stderr, done.stderr[-2000:]


def test_a_stop_swallowed_where_it_landed_is_sent_again_and_unwinds():
    # SIGTERM raised inside a callback Python swallows (importlib's module-lock weakref
    # callback, a __del__) reaches the unraisable hook, not the main loop: it must come again
    import signal as _signal
    import time as _time
    from types import SimpleNamespace

    from papertrail.exits import Stop

    stop = Stop().install()
    try:
        assert _signal.getsignal(_signal.SIGTERM) == stop._handle
        stop.requested = True  # as the handler leaves it
        with pytest.raises(KeyboardInterrupt):
            stop._unraisable(SimpleNamespace(exc_value=KeyboardInterrupt(), object=None))
            _time.sleep(10)  # the second delivery interrupts this
        assert stop.requested
    finally:
        stop.restore()
    assert _signal.getsignal(_signal.SIGTERM) != stop._handle

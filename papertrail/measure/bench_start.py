"""Start-up as a user meets it: ``papertrail list`` and a second ``papertrail ask``, timed.

Each command runs as a fresh ``python -m papertrail.cli`` process (what a
shell starts for the ``papertrail`` command) on a data folder of its own:
the PDF is ingested once, untimed, then ``list`` and ``ask`` (a question on
the already indexed PDF, offline answers) run ``repeat`` times each,
alternated; medians of the wall time from launch to exit are reported with
the machine's load average, since on a shared machine the load decides most
of it. Printed by ``papertrail bench``; nothing is asserted.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTION = "What is this document about?"


def bench_start(pdf: Path, repeat: int) -> dict:
    """{"start": {"list_s", "ask_s", "runs": {...}, "load": ...}} for ``pdf``."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERTRAIL_DATA")}
        env |= {"PAPERTRAIL_DATA_DIR": str(Path(tmp) / "data"), "GROQ_API_KEY": ""}
        env |= {"PAPERTRAIL_LLM_BASE_URL": ""}
        _timed(["ingest", str(pdf)], env)
        runs: dict[str, list[float]] = {"list": [], "ask": []}
        for _ in range(max(1, repeat)):
            runs["list"].append(_timed(["list"], env))
            runs["ask"].append(_timed(["ask", str(pdf), QUESTION], env))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {
        "start": {
            "list_s": round(statistics.median(runs["list"]), 2),
            "ask_s": round(statistics.median(runs["ask"]), 2),
            "runs": {k: [round(s, 2) for s in v] for k, v in runs.items()},
            "load": round(load, 1) if load is not None else None,
        }
    }


def print_start(figures: dict) -> None:
    s = figures["start"]
    load = f"; load average {s['load']}" if s["load"] is not None else ""
    print(
        f"start-up (fresh process, median of {len(s['runs']['list'])}): papertrail list "
        f"{s['list_s']:.2f} s, a second papertrail ask {s['ask_s']:.2f} s{load}"
    )


def _timed(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "papertrail.cli", "--env-file", os.devnull, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"papertrail {args[0]} failed: {done.stderr.strip()[-500:]}")
    return seconds

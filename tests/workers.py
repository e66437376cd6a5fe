"""Real ``python -m bot slack`` worker processes for multi-worker scenario tests.

``SlackWorker`` starts one bot process in Slack HTTP mode with its own data
folder, pointed at a ``FakeSlack`` (tests/fake_slack.py), a real Redis and a
real Chroma server, and waits for its ``/healthz``. Its log goes to a file
that failing tests print. ``filing_pdf`` builds a 10-K-sized many-page PDF
(no corpus file) with one fact on a known page.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pymupdf

from tests.fake_slack import EventSender
from tests.services import Service, free_port

ROOT = Path(__file__).resolve().parents[1]
SECRET = "multi-worker-signing-secret"
FACT_PAGE = 97
FACT = "Total net revenue for fiscal 2023 was 48,213 million dollars, up 7 percent."
QUESTION = "What was total net revenue for fiscal 2023?"
_FILLER = (
    "Item {item}. The company describes its segments, its customers in {n} markets, "
    "the risks of supply disruption, interest rates, foreign exchange exposure and "
    "litigation. Management reviews liquidity each quarter and holds reserves for "
    "contingencies described in note {n}. "
)


def filing_pdf(pages: int = 120) -> bytes:
    """A filing-like PDF: ``pages`` pages of dense boilerplate, ``FACT`` on ``FACT_PAGE``
    (on the last page of a shorter one)."""
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        page = doc.new_page()
        body = "".join(_FILLER.format(item=number, n=number * 10 + k) for k in range(9))
        if number == min(FACT_PAGE, pages):
            body = FACT + "\n\n" + body
        page.insert_textbox(pymupdf.Rect(50, 50, 560, 780), body, fontsize=9)
    return doc.tobytes()


class WorkerProcess:
    """What every bot process of the crash scenarios shares: its log, SIGKILL and stop.
    Subclasses set ``name``, ``log_path`` and ``process``."""

    name: str
    log_path: Path
    process: subprocess.Popen
    LOG_TAIL = 8000  # characters of the log a failing test prints

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-self.LOG_TAIL :]

    def kill(self) -> None:
        """SIGKILL: no cleanup, no ack, no lease release, as a crashed host."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()


class SlackWorker(WorkerProcess):
    """One ``python -m bot slack`` process in multi-worker mode."""

    def __init__(self, name: str, folder: Path, fake, redis: Service, chroma: Service) -> None:
        self.name = name
        self.port = free_port()
        self.log_path = folder / f"{name}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GROQ", "SLACK"))}
        env |= {
            "PYTHONPATH": str(ROOT),
            "HF_HUB_OFFLINE": "1",
            "PORT": str(self.port),
            "SLACK_BOT_TOKEN": fake.token,
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_URL": fake.api_url,
            "REDIS_URL": redis.url,
            "CHROMA_HOST": chroma.host,
            "CHROMA_PORT": str(chroma.port),
            "PAPERTRAIL_DATA_DIR": str(folder / name),
            "PAPERTRAIL_JOB_IDLE_SECONDS": "10",  # quick takeover; production default 60
            "PAPERTRAIL_LOG_LEVEL": "INFO",
        }
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bot", "--env-file", os.devnull, "slack"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.events = EventSender(f"http://127.0.0.1:{self.port}/slack/events", SECRET)
        self.data_dir = folder / name

    def wait_ready(self, timeout: float = 120.0) -> SlackWorker:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"worker {self.name} exited:\n{self.log()}")
            try:
                url = f"http://127.0.0.1:{self.port}/healthz"
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        raise AssertionError(f"worker {self.name} not ready:\n{self.log()}")

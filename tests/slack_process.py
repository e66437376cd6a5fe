"""A real ``python -m bot slack`` process in HTTP mode, aimed at a FakeSlack.

The child runs ``bot.__main__.main`` (what ``python -m bot`` runs) with the
configuration in its environment and one substitution: the pipeline uses
``HashEmbedder`` (no model to load) on a persistent Chroma in the data
directory, so the library, like every other piece of state, outlives a
restart. ``SlackProcess`` starts it, waits for ``/healthz``, reports its
memory and thread count from ``/proc``, posts raw bytes to it and stops it
with SIGTERM (what a deploy sends).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.services import free_port

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import sys
from pathlib import Path

from bot.__main__ import main
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests.fakes import HashEmbedder

data, port, env_file = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
embedder = HashEmbedder()
store = ChromaStore.persistent(data / "chroma", model=embedder.name)
pipeline = PaperTrail(Settings(data_dir=data, ocr=False), embedder=embedder, store=store)
sys.exit(main(["--env-file", env_file, "slack", "--port", port], pipeline=pipeline))
"""


class SlackProcess:
    """One bot process on ``data_dir``; ``start()`` again after ``stop()`` is a restart."""

    def __init__(self, data_dir: Path, api_url: str, secret: str) -> None:
        self.data_dir, self.api_url, self.secret = data_dir, api_url, secret
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.log = data_dir.parent / "bot.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90.0) -> SlackProcess:
        env_file = self.data_dir.parent / "empty.env"
        env_file.write_text("")
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "SLACK_BOT_TOKEN": "xoxb-test-token",
            "SLACK_SIGNING_SECRET": self.secret,
            "SLACK_API_URL": self.api_url,
            "PAPERTRAIL_DATA_DIR": str(self.data_dir),
            "PAPERTRAIL_OCR": "false",
            "PAPERTRAIL_LOG_LEVEL": "INFO",
        }
        env.pop("SLACK_APP_TOKEN", None)  # HTTP mode
        with self.log.open("a") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", CHILD, str(self.data_dir), str(self.port), str(env_file)],
                env=env,
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"bot exited {self.process.returncode}: {self.tail()}")
            try:
                if self.health() == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"bot never answered /healthz: {self.tail()}")

    def health(self) -> int:
        with urllib.request.urlopen(self.url + "/healthz", timeout=5) as response:
            return response.status

    def stop(self) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(10)

    def rss_mb(self) -> float:
        return self._status("VmRSS") / 1024  # /proc reports kB

    def threads(self) -> int:
        return self._status("Threads")

    def _status(self, field: str) -> int:
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise AssertionError(f"no {field} in /proc status")

    def tail(self) -> str:
        return self.log.read_text()[-3000:] if self.log.exists() else ""

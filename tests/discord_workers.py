"""Real ``python -m bot discord`` processes aimed at a FakeDiscord, for crash scenarios.

``DiscordWorker`` starts one bot process with its own (or a given) data
folder, pointed at a ``FakeDiscord`` running in the test process, optionally
as some shards of a sharded bot with a real Redis and Chroma server, and
waits for its ``/healthz`` and its gateway IDENTIFY. Its log goes to a file
that failing tests print; ``kill`` is SIGKILL, as a crashed host.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.services import Service, free_port
from tests.workers import WorkerProcess

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.fake.token-for-tests"


class DiscordWorker(WorkerProcess):
    """One ``python -m bot discord`` process."""

    def __init__(
        self,
        name: str,
        data_dir: Path,
        fake,
        *,
        redis: Service | None = None,
        chroma: Service | None = None,
        shards: tuple[int, int] | None = None,  # (this process's shard, shard count)
        log_dir: Path | None = None,
    ) -> None:
        self.name, self.data_dir, self.fake = name, data_dir, fake
        self.health = free_port()
        self.log_path = (log_dir or data_dir.parent) / f"{name}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GROQ", "DISCORD"))}
        env = {k: v for k, v in env.items() if not k.startswith(("PAPERTRAIL", "REDIS", "CHROMA"))}
        env |= {
            "PYTHONPATH": str(ROOT),
            "HF_HUB_OFFLINE": "1",
            "DISCORD_TOKEN": TOKEN,
            "DISCORD_API_URL": fake.api_url,
            "DISCORD_GATEWAY_URL": fake.gateway_url,
            "PAPERTRAIL_HEALTH_PORT": str(self.health),
            "PAPERTRAIL_DATA_DIR": str(data_dir),
            "PAPERTRAIL_JOB_IDLE_SECONDS": "10",  # quick takeover; production default 60
            "PAPERTRAIL_LOG_LEVEL": "INFO",
        }
        if redis is not None and chroma is not None:
            env |= {"REDIS_URL": redis.url, "CHROMA_HOST": chroma.host}
            env |= {"CHROMA_PORT": str(chroma.port)}
        if shards is not None:
            env |= {"DISCORD_SHARD_IDS": str(shards[0]), "DISCORD_SHARD_COUNT": str(shards[1])}
        self.shards = shards
        identified = len(fake.shards)
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bot", "--env-file", os.devnull, "discord"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self._identified = identified

    def wait_ready(self, timeout: float = 120.0) -> DiscordWorker:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"worker {self.name} exited:\n{self.log()}")
            try:
                url = f"http://127.0.0.1:{self.health}/healthz"
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200 and len(self.fake.shards) > self._identified:
                        time.sleep(0.5)  # READY and GUILD_CREATE are on their way
                        return self
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"worker {self.name} not ready:\n{self.log()}")

"""Several real Slack worker processes for ``load_slack.py --workers N``.

Starts a real ``redis-server`` and ``chroma run`` on free loopback ports
(``tests/services.py``) and N ``python -m bot slack`` processes in
multi-worker mode pointed at them and at the loopback FakeSlack
(``tests/workers.py``), and spreads deliveries over the workers round-robin,
so one post's duplicates usually land on different workers, as behind a load
balancer. Used by the load benchmark only; pytest never runs it.
"""

from __future__ import annotations

import itertools
import tempfile
import threading
import time
from pathlib import Path

from tests.services import start_chroma, start_redis, stop
from tests.workers import SlackWorker


class SpreadSender:
    """``EventSender.send`` over several workers, round-robin per delivery."""

    def __init__(self, workers: list[SlackWorker]) -> None:
        self._senders = itertools.cycle([w.events for w in workers])
        self._lock = threading.Lock()

    def send(self, event: dict, **kwargs):
        with self._lock:
            sender = next(self._senders)
        return sender.send(event, **kwargs)


class Cluster:
    """Redis + Chroma + ``n`` worker processes; ``events`` spreads deliveries over them."""

    def __init__(self, fake, n: int) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="papertrail-cluster-")
        folder = Path(self._dir.name)
        (folder / "redis").mkdir()
        (folder / "chroma").mkdir()
        self.redis = start_redis(folder / "redis")
        self.chroma = start_chroma(folder / "chroma")
        t0 = time.monotonic()
        self.workers = [
            SlackWorker(f"w{i}", folder, fake, self.redis, self.chroma) for i in range(n)
        ]
        for w in self.workers:
            w.wait_ready(timeout=300)
        self.ready_s = time.monotonic() - t0
        self.events = SpreadSender(self.workers)

    def peak_rss_mb(self) -> list[float]:
        """VmHWM of each worker process, in MB."""
        out = []
        for w in self.workers:
            status = Path(f"/proc/{w.process.pid}/status").read_text()
            line = next(x for x in status.splitlines() if x.startswith("VmHWM"))
            out.append(int(line.split()[1]) / 1024)
        return out

    def jobs_per_worker(self) -> list[int]:
        """Jobs each worker ran (its log's "job for" lines), index PDFs included."""
        return [w.log_path.read_text(errors="replace").count("job for ") for w in self.workers]

    def close(self) -> None:
        for w in self.workers:
            w.stop()
        stop(self.chroma.process)
        stop(self.redis.process)
        self._dir.cleanup()

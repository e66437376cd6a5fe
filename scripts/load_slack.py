"""Load benchmark for the Slack bot: concurrent mentions across channels, over loopback only.

FakeSlack (tests/fake_slack.py) and the real Bolt app in HTTP mode, with the
real ChatService and pipeline answering offline (the bundled all-MiniLM-L6-v2;
``--fake-embedder`` uses HashEmbedder for a quick run). One small, different
PDF is indexed per channel, then ``--mentions`` signed mentions are sent at
once across ``--channels`` channels with Slack's duplicates mixed in (the
``message`` twin of an ``app_mention``, retries with ``X-Slack-Retry-Num``,
re-deliveries under a new ``event_id``). Prints how many were answered exactly
once, latency from the first delivery to the answer message as the fake saw it
(p50/p95/max), wall time, peak RSS and the load average. Exits 1 if a mention
is missing or answered twice, 2 on the global ``--timeout``. A benchmark, not
a test: pytest never runs it.

``--workers N`` runs N real ``python -m bot slack`` processes in multi-worker
mode instead (a real redis-server and ``chroma run`` on loopback, see
``load_cluster.py``), with the deliveries spread over them round-robin.

    .venv/bin/python scripts/load_slack.py               # realistic: the real model
    .venv/bin/python scripts/load_slack.py --fake-embedder
    .venv/bin/python scripts/load_slack.py --workers 2   # two worker processes
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from papertrail.offline import offline_env  # noqa: E402

offline_env()


from load_data import SITES, channel_pdf  # noqa: E402  (scripts/ is sys.path[0])

from adapters.chat.service import ChatService  # noqa: E402
from adapters.slack.app import build_slack_app  # noqa: E402
from papertrail.pipeline import PaperTrail  # noqa: E402
from papertrail.settings import Settings  # noqa: E402
from papertrail.store.chroma import open_store  # noqa: E402
from tests.fake_slack import FakeSlack, RunningBot  # noqa: E402

SECRET = "load-benchmark-signing-secret"
PROGRESS = ":hourglass"  # how slack_format starts a progress line
SLACK_RETRIES = 3  # Slack retries a delivery that failed or timed out, up to 3 times
SETTLE = 1.0  # seconds to wait after the last answer for a late duplicate to show up


class TimedSlack(FakeSlack):
    """FakeSlack that notes when each thread first shows a final (non-progress) message."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.server.socket.listen(128)  # socketserver's backlog of 5 resets bursts of clients
        self.answered_at: dict[tuple[str, str], float] = {}  # (channel, thread) -> monotonic s

    def api(self, method: str, p: dict, headers: dict) -> dict:
        out = super().api(method, p, headers)
        if method in ("chat.postMessage", "chat.update") and out.get("ok"):
            now = time.monotonic()
            if not str(p.get("text", "")).startswith(PROGRESS):
                with self.lock:
                    channel, thread = p.get("channel", ""), p.get("thread_ts")
                    if not thread:  # an edit: the thread is the edited message's
                        thread = next(
                            (m.get("thread_ts") for m in self.messages.get(channel, [])
                             if m["ts"] == p.get("ts")), None)  # fmt: skip
                    self.answered_at.setdefault((channel, thread or ""), now)
        return out


def build_pipeline(settings: Settings, fake_embedder: bool) -> PaperTrail:
    if not fake_embedder:
        return PaperTrail.from_settings(settings)  # bundled model, Chroma on disk, extractive
    from tests.fakes import HashEmbedder

    embedder = HashEmbedder()
    return PaperTrail(settings, embedder=embedder, store=open_store(settings, embedder.name))


def shown(message: dict) -> str:
    parts = [message.get("text") or ""]
    for b in message.get("blocks") or []:
        parts += [b["text"]["text"]] if b.get("type") == "section" else []
        parts += [e.get("text", "") for e in b.get("elements", [])]
    return "\n".join(parts)


def finals(fake: FakeSlack, channel: str, thread: str) -> list[dict]:
    return [m for m in fake.bot_messages(channel, thread) if not m["text"].startswith(PROGRESS)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]  # nearest rank


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


@dataclass
class Mention:
    channel: str
    ts: str
    expected: str  # text the answer should quote
    sent: float = math.inf  # monotonic time of its first delivery


@dataclass
class Delivery:
    mention: int  # index into the mentions
    event: dict
    event_id: str
    kind: str = "first"  # "first", "twin", "retry" or "again"
    retry_num: int | None = None


def index_pdfs(fake: TimedSlack, bot: RunningBot, channels: list[str], deadline: float) -> dict:
    """Post each channel's PDF with a bare mention and wait until all are indexed;
    the (question, expected) pairs per channel."""
    qa, uploads = {}, []
    for k, c in enumerate(channels):
        site = SITES[k % len(SITES)]
        pdf, qa[c] = channel_pdf(site, k)
        file = fake.add_file(f"{site.lower().replace(' ', '-')}.pdf", pdf)
        post = fake.user_post(c, "<@UBOT>", files=[file])
        bot.events.send(fake.app_mention(post, with_files=True))
        uploads.append((c, post["ts"]))
    while not all(finals(fake, c, ts) for c, ts in uploads):
        if time.monotonic() > deadline:
            raise TimeoutError("timed out while indexing the PDFs")
        time.sleep(0.05)
    failed = [c for c, ts in uploads if "Indexed" not in shown(finals(fake, c, ts)[0])]
    if failed:
        raise RuntimeError(f"indexing failed in {failed}")
    return qa


def plan(fake: TimedSlack, channels: list[str], qa: dict, n: int):
    """The mentions (posted now) and their deliveries, Slack's duplicates included, shuffled."""
    mentions, deliveries = [], []
    for i in range(n):
        c = channels[i % len(channels)]
        question, expected = qa[c][(i // len(channels)) % len(qa[c])]
        post = fake.user_post(c, f"<@UBOT> {question}")
        mentions.append(Mention(c, post["ts"], expected))
        deliveries.append(Delivery(i, fake.app_mention(post), f"EvLoad{i:05d}"))
        if i % 2 == 0:  # the message event Slack also sends for a post that mentions the bot
            deliveries.append(Delivery(i, fake.message_event(post), f"EvTwin{i:05d}", "twin"))
        if i % 5 == 1:  # Slack retrying the app_mention (same event_id, X-Slack-Retry-Num)
            deliveries.append(Delivery(i, fake.app_mention(post), f"EvLoad{i:05d}", "retry", 1))
        if i % 10 == 3:  # the same post again under a new event_id (node-slack-sdk#2141)
            deliveries.append(Delivery(i, fake.app_mention(post), f"EvAgain{i:05d}", "again"))
    random.Random(7).shuffle(deliveries)
    return mentions, deliveries


def fire(bot: RunningBot, mentions: list[Mention], deliveries: list[Delivery]) -> list:
    """Send every delivery at once, one thread each; (HTTP status or error, seconds) per try."""
    acks: list[tuple[object, float]] = []
    guard = threading.Lock()
    go = threading.Barrier(len(deliveries))

    def deliver(d: Delivery) -> None:
        go.wait(timeout=60)
        with guard:
            m = mentions[d.mention]
            m.sent = min(m.sent, time.monotonic())
        retry = d.retry_num
        for _ in range(SLACK_RETRIES + 1):  # Slack retries a delivery that failed
            try:
                status, _, secs = bot.events.send(d.event, event_id=d.event_id, retry_num=retry)
            except OSError as err:  # refused or reset: the bot never answered
                status, secs = type(err).__name__, 0.0
            with guard:
                acks.append((status, secs))
            if status == 200:
                return
            retry = (retry or 0) + 1

    with ThreadPoolExecutor(max_workers=len(deliveries)) as pool:
        list(pool.map(deliver, deliveries))
    return acks


def report(fake: TimedSlack, mentions: list[Mention], deliveries, acks, figures: dict) -> int:
    n = len(mentions)
    counts = [len(finals(fake, m.channel, m.ts)) for m in mentions]
    once, missing = counts.count(1), counts.count(0)
    dupes = sum(1 for c in counts if c > 1)
    latencies = [
        fake.answered_at[(m.channel, m.ts)] - m.sent
        for m in mentions
        if (m.channel, m.ts) in fake.answered_at
    ]
    correct = sum(
        any(m.expected in shown(x) for x in finals(fake, m.channel, m.ts)) for m in mentions
    )
    kinds = Counter(d.kind for d in deliveries)
    ok = [secs for status, secs in acks if status == 200]
    failed = Counter(str(status) for status, _ in acks if status != 200)
    print(f"embedder: {figures['embedder']}; model load {figures['model_s']:.1f} s")
    print(f"indexed {figures['channels']} PDFs (one per channel) in {figures['index_s']:.1f} s")
    print(
        f"deliveries: {len(deliveries)} for {n} mentions across {figures['channels']} channels "
        f"({kinds['twin']} message twins, {kinds['retry']} retries, "
        f"{kinds['again']} re-deliveries with a new event_id), all sent at once"
    )
    print(f"{once}/{n} answered exactly once, {dupes} duplicates, {missing} missing")
    if latencies:
        print(
            f"latency event sent -> answer message: p50 {percentile(latencies, 0.5):.2f} s, "
            f"p95 {percentile(latencies, 0.95):.2f} s, max {max(latencies):.2f} s"
        )
    print(
        f"acks: {len(ok)} HTTP 200 (p50 {percentile(ok, 0.5) if ok else 0:.2f} s, "
        f"max {max(ok, default=0):.2f} s); failed and retried: {sum(failed.values())}"
        + "".join(f" {k}={v}" for k, v in failed.items())
    )
    print(f"answers quoting the expected fact: {correct}/{n}")
    print(f"wall time: {figures['load_s']:.1f} s for the mentions, {figures['total_s']:.1f} s all")
    print(f"peak RSS: {peak_rss_mb():.0f} MB (VmHWM)")
    print(f"load average (1/5/15 min) on {os.cpu_count()} cpus: {figures['load_before']} before, "
          f"{load()} after")  # fmt: skip
    return 0 if once == n else 1


def run(args) -> int:
    t_start = time.monotonic()
    deadline = t_start + args.timeout
    figures = {"load_before": load(), "channels": args.channels}
    fake = TimedSlack()
    bot = data = None
    if args.workers:
        from load_cluster import Cluster

        bot = Cluster(fake, args.workers)  # worker start-up, model load included
        figures["model_s"] = bot.ready_s
        figures["embedder"] = f"all-MiniLM-L6-v2 in {args.workers} worker processes"
    else:
        data = tempfile.TemporaryDirectory(prefix="papertrail-load-")
        settings = Settings(data_dir=Path(data.name), ocr=False)
        pipeline = build_pipeline(settings, args.fake_embedder)
        t0 = time.monotonic()
        pipeline.embedder.embed(["warm up"])  # the model loads here, outside the figures
        figures["model_s"] = time.monotonic() - t0
        figures["embedder"] = "HashEmbedder" if args.fake_embedder else pipeline.embedder.name
        app = build_slack_app(
            ChatService(pipeline),
            bot_token=fake.token,
            signing_secret=SECRET,
            api_url=fake.api_url,
        )
        bot = RunningBot(app, SECRET)
    try:
        channels = [f"C{100 + k}" for k in range(args.channels)]
        t0 = time.monotonic()
        qa = index_pdfs(fake, bot, channels, deadline)
        figures["index_s"] = time.monotonic() - t0
        mentions, deliveries = plan(fake, channels, qa, args.mentions)
        t0 = time.monotonic()
        acks = fire(bot, mentions, deliveries)
        while not all(finals(fake, m.channel, m.ts) for m in mentions):
            if time.monotonic() > deadline:
                figures["timed_out"] = True
                break
            time.sleep(0.02)
        figures["load_s"] = time.monotonic() - t0
        time.sleep(SETTLE)
        figures["total_s"] = time.monotonic() - t_start
        if args.workers:
            rss = bot.peak_rss_mb()
            print(f"worker peak RSS: {', '.join(f'{r:.0f}' for r in rss)} MB (VmHWM)")
            print(f"jobs run per worker (indexings + questions): {bot.jobs_per_worker()}")
        code = report(fake, mentions, deliveries, acks, figures)
        if figures.get("timed_out"):
            print(f"global timeout of {args.timeout:g} s reached", file=sys.stderr)
            return 2
        return code
    except (TimeoutError, RuntimeError) as err:
        print(err, file=sys.stderr)
        return 2
    finally:
        logging.disable(logging.CRITICAL)  # jobs cut off by the shutdown only make noise now
        bot.close()
        fake.close()
        if data is not None:
            data.cleanup()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mentions", type=int, default=50)
    parser.add_argument("--channels", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=300.0, help="global limit, seconds")
    parser.add_argument("--fake-embedder", action="store_true", help="HashEmbedder: no model")
    parser.add_argument(
        "--workers", type=int, default=0, help="N bot processes on Redis + Chroma (0 = in-process)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger().handlers[0].setLevel(logging.WARNING)  # bm25s logs at DEBUG itself
    # a hard stop in case something hangs where the deadline checks cannot see it
    watchdog = threading.Timer(args.timeout + 30, lambda: os._exit(2))
    watchdog.daemon = True
    watchdog.start()
    code = run(args)
    watchdog.cancel()
    return code


if __name__ == "__main__":
    sys.exit(main())

"""The real ``python -m bot slack`` HTTP process: restarts, and attacks on its endpoint.

One process mode (no Redis): a signed request Slack re-sends after a restart
(inside its 5-minute window) is answered once, a follow-up without a mention
in a thread answered before the restart still gets a reply, and the
endpoint's memory and threads stay flat under parallel 60 MB unsigned bodies
and hundreds of half-open connections. The process is
tests/slack_process.py; Slack is the loopback FakeSlack.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest

from tests.fake_slack import EventSender, FakeSlack, final_messages, shown_text
from tests.pdfs import paper_pdf
from tests.slack_process import SlackProcess

SECRET = "process-signing-secret"


@pytest.fixture
def bot(tmp_path):
    with FakeSlack() as fake:
        process = SlackProcess(tmp_path / "data", fake.api_url, SECRET)
        process.fake = fake
        try:
            yield process.start()
        finally:
            if process.process is not None and process.process.poll() is None:
                process.stop()


def sender(bot: SlackProcess) -> EventSender:
    return EventSender(bot.url + "/slack/events", SECRET)


def answered(fake: FakeSlack, ts: str, count: int = 1) -> list[dict]:
    fake.wait_for(lambda: len(final_messages(fake, "C1", ts)) >= count, timeout=30)
    return final_messages(fake, "C1", ts)


def test_a_request_replayed_after_a_restart_is_answered_once(bot):
    fake = bot.fake
    post = fake.user_post("C1", "<@UBOT> What does the report say?")
    payload = sender(bot).envelope(fake.app_mention(post), "Ev0001")
    stamp = int(time.time())
    assert sender(bot).post(payload, timestamp=stamp)[0] == 200
    assert len(answered(fake, post["ts"])) == 1

    assert bot.stop() == 0
    bot.start()
    status, _, _ = sender(bot).post(payload, timestamp=stamp, retry_num=1)  # the same bytes
    assert status == 200
    marker = fake.user_post("C1", "<@UBOT> help")  # the same channel's queue, after it
    sender(bot).send(fake.app_mention(marker))
    answered(fake, marker["ts"])
    assert len(final_messages(fake, "C1", post["ts"])) == 1  # answered once, before the restart


def test_a_follow_up_without_a_mention_in_an_old_thread_is_answered_after_a_restart(bot):
    fake = bot.fake
    pdf = fake.add_file("paper.pdf", paper_pdf())
    shared = fake.user_post("C1", "sharing", files=[pdf])
    sender(bot).send(fake.message_event(shared))
    fake.wait_for(lambda: "+white_check_mark" in fake.reactions("C1", shared["ts"]), timeout=60)
    question = fake.user_post("C1", "<@UBOT> How many identical layers are in the encoder stack?")
    sender(bot).send(fake.app_mention(question))
    assert "N = 6 identical layers" in answered(fake, question["ts"])[0]["text"]

    assert bot.stop() == 0
    bot.start()
    follow = fake.user_post("C1", "And the decoder?", thread_ts=question["ts"])
    sender(bot).send(fake.message_event(follow))  # no mention: only thread memory says "ours"
    reply = answered(fake, question["ts"], 2)[-1]
    assert "Read as: How many identical layers are in the decoder stack?" in shown_text(reply)


def send_unsigned(port: int, size: int, errors: list) -> None:
    """POST ``size`` bytes of JSON with no signature, as fast as the server takes them."""
    head = (
        f"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {size}\r\n\r\n"
    ).encode()
    chunk = b'{"a": "' + b"x" * (1024 * 1024 - 9) + b'"}'
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(head)
            for _ in range(size // len(chunk)):
                sock.sendall(chunk)
            sock.recv(64)
    except OSError as e:  # refused early: the server closed while we were still sending
        errors.append(e)


class RssSampler(threading.Thread):
    """Samples the process's resident memory every 5 ms: its peak during an attack."""

    def __init__(self, bot: SlackProcess) -> None:
        super().__init__(daemon=True)
        self.bot, self.peak_mb, self.done = bot, 0.0, threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.peak_mb = max(self.peak_mb, self.bot.rss_mb())
            time.sleep(0.005)


def test_parallel_60_mb_unsigned_bodies_and_half_open_connections_leave_it_flat(bot, capsys):
    before_mb, before_threads = bot.rss_mb(), bot.threads()
    sampler = RssSampler(bot)
    sampler.start()
    senders = [
        threading.Thread(target=send_unsigned, args=(bot.port, 60 * 1024 * 1024, []))
        for _ in range(3)
    ]
    for t in senders:
        t.start()
    start = time.monotonic()
    assert bot.health() == 200  # while the bodies are being sent
    health_s = time.monotonic() - start
    for t in senders:
        t.join(60)
    sampler.done.set()
    sampler.join()

    sockets = [socket.create_connection(("127.0.0.1", bot.port), timeout=5) for _ in range(300)]
    time.sleep(1.0)
    peak_threads = bot.threads()
    for sock in sockets:
        sock.close()
    with capsys.disabled():  # the measured figures, printed by the test run (-s not needed)
        print(
            f"\nslack endpoint: RSS {before_mb:.0f} MB, peak {sampler.peak_mb:.0f} MB during 3 "
            f"parallel 60 MB unsigned bodies; /healthz {health_s:.3f} s meanwhile; threads "
            f"{before_threads} -> {peak_threads} with 300 half-open connections"
        )
    assert sampler.peak_mb - before_mb < 40
    assert health_s < 1.0
    assert peak_threads - before_threads <= 16 + 2  # the handler pool (and nothing per socket)

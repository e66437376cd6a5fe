"""Two Slack workers on one Redis: the library and the thread memory are the same for both.

Two real Bolt apps over loopback HTTP against one FakeSlack, each with its own
``ChatService`` and Redis connections (``RedisShares``, ``RedisThreads``,
``RedisForgotten``, ``RedisSeen``), as
two Render instances would have; they share one pipeline, which stands in for
the shared Chroma server (the real-server version of that is
``test_multi_worker.py``). Whatever one worker learnt — a file shared, who
shared it, a thread it answered in, a file someone made it forget — the
other acts on.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from adapters.chat.service import ChatService
from bot.redis.coord import RedisSeen, connect
from bot.redis.feedback import RedisFeedback
from bot.redis.state import RedisForgotten, RedisShares, RedisThreads
from papertrail.settings import Settings
from tests.fake_slack import FakeSlack, final_messages, shown_text
from tests.fakes import gated_pipeline, slack_bot
from tests.pdfs import paper_pdf
from tests.scenarios.test_slack_library import HARBOUR, SECRET, WAIT, ask, command, drop, indexed


@pytest.fixture
def workers(tmp_path, redis_server, redis_client):
    fake = FakeSlack()
    settings = Settings(data_dir=tmp_path / "data", ocr=False, max_pdf_mb=1.0)
    pipeline = gated_pipeline(settings)
    running, views = [], []
    for _ in range(2):
        client = connect(redis_server.url)
        service = ChatService(
            pipeline,
            shares=RedisShares(client),
            threads=RedisThreads(client),
            forgotten=RedisForgotten(client),
            seen=RedisSeen(client),
            feedback=RedisFeedback(client),  # as bot/wiring.py gives every worker
        )
        running.append(slack_bot(fake, service, SECRET, progress_interval=0.0))
        views.append(SimpleNamespace(fake=fake, events=running[-1].events, pipeline=pipeline))
    try:
        yield views
    finally:
        for bot in running:
            bot.close()
        fake.close()


def names(pipeline, channel: str = "slack:T1:C1") -> list[str]:
    return sorted(d.name for d in pipeline.documents(channel))


def test_a_file_shared_through_one_worker_is_forgotten_when_its_deletion_reaches_the_other(
    workers,
):
    a, b = workers
    harbour, post = drop(a, "C1", "harbour.pdf", HARBOUR)
    _, other = drop(a, "C1", "paper.pdf", paper_pdf())
    indexed(a, "C1", post)
    indexed(a, "C1", other)
    assert names(a.pipeline) == ["harbour.pdf", "paper.pdf"]

    a.fake.delete_file(harbour["id"])
    b.events.send(a.fake.file_deleted(harbour))
    a.fake.wait_for(lambda: names(a.pipeline) == ["paper.pdf"], timeout=WAIT)
    refused = command(b, "forget paper.pdf", user="U2")
    assert "Only the person who shared paper.pdf" in shown_text(refused)
    assert "Forgot paper.pdf." in shown_text(command(b, "forget paper.pdf", user="U1"))
    assert names(a.pipeline) == []


def test_a_follow_up_reaching_the_other_worker_continues_the_first_ones_thread(workers):
    a, b = workers
    _, post = drop(a, "C1", "paper.pdf", paper_pdf())
    indexed(a, "C1", post)
    question, first = ask(a, "C1", "<@UBOT> How many identical layers are in the encoder stack?")
    assert "N = 6 identical layers" in first["text"]

    _, follow = ask(b, "C1", "And the decoder?", thread_ts=question["ts"], mention=False)
    assert "Read as: How many identical layers are in the decoder stack?" in shown_text(follow)
    assert "decoder is also a stack of six identical layers" in follow["text"]
    assert len(final_messages(a.fake, "C1", question["ts"])) == 2  # answered once, by B


def test_bob_cannot_forget_alices_file_through_his_copy_on_either_worker(workers):
    a, b = workers
    data = paper_pdf()
    _, alices = drop(a, "C1", "attention-is-all-you-need.pdf", data, user="U1")
    indexed(a, "C1", alices)
    _, bobs = drop(b, "C1", "my-copy.pdf", data, user="U2")  # the same bytes, through B
    indexed(b, "C1", bobs)

    refused = command(b, "forget attention-is-all-you-need.pdf", user="U2")
    assert "Only the person who shared attention-is-all-you-need.pdf" in shown_text(refused)
    assert "still shared here" in shown_text(command(a, "forget my-copy.pdf", user="U2"))
    assert names(a.pipeline) == ["attention-is-all-you-need.pdf"]


def test_a_file_forgotten_through_one_worker_is_not_brought_back_by_the_other(workers):
    a, b = workers
    _, post = drop(a, "C1", "harbour.pdf", HARBOUR, user="U1")
    indexed(a, "C1", post)
    assert "Forgot harbour.pdf." in shown_text(command(a, "forget harbour.pdf", user="U1"))

    _, reply = ask(b, "C1", "<@UBOT> How deep was the northern basin dredged?")
    assert "I don't see a PDF here yet" in shown_text(reply)
    assert names(a.pipeline) == []
    _, again = drop(b, "C1", "harbour.pdf", HARBOUR, user="U2")  # posted anew
    indexed(b, "C1", again)
    assert names(a.pipeline) == ["harbour.pdf"]

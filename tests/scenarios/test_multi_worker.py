"""Two real ``python -m bot slack`` workers, a real Redis and a real Chroma server.

The done-when scenarios of issue 13, against the loopback FakeSlack: one post
whose deliveries are split across both workers is answered once; a worker
answers with page images of a PDF it never stored; a worker SIGKILLed while
indexing a 10-K-sized PDF after acknowledging the question is taken over and
the document is listed once, complete; ``list`` through either worker agrees.
The workers run the real pipeline (bundled model, offline extractive answers).
"""

from __future__ import annotations

import re
import shutil
import time
import uuid
from types import SimpleNamespace

import pytest

from adapters.slack.jobs import TAKEN_OVER
from papertrail.settings import BUNDLED_NAME, Settings
from papertrail.store.chroma import indexed_as, open_store
from tests.fake_slack import FakeSlack
from tests.workers import FACT_PAGE, QUESTION, SlackWorker, filing_pdf

pytestmark = pytest.mark.model

ANSWER_TIMEOUT = 240.0  # the bound for a takeover; other answers come far sooner


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, redis_server, chroma_server):
    import redis

    redis.Redis(host=redis_server.host, port=redis_server.port).flushall()
    folder = tmp_path_factory.mktemp("workers")
    fake = FakeSlack()
    fake.server.socket.listen(128)
    workers = {}

    def start(name: str) -> SlackWorker:
        workers[name] = SlackWorker(name, folder, fake, redis_server, chroma_server)
        return workers[name]

    start("a"), start("b")
    for w in list(workers.values()):
        w.wait_ready()
    yield SimpleNamespace(fake=fake, workers=workers, start=start, chroma=chroma_server)
    for w in workers.values():
        w.stop()
    fake.close()


def channel() -> str:
    return "C" + uuid.uuid4().hex[:8].upper()


def finals(fake: FakeSlack, ch: str, ts: str) -> list[dict]:
    """The bot's answers in a thread: not progress, not a takeover note."""
    return [
        m
        for m in fake.bot_messages(ch, ts)
        if not m["text"].startswith(":hourglass") and m["text"] != TAKEN_OVER
    ]


def wait_final(cluster, ch: str, ts: str, timeout: float = 120.0) -> dict:
    try:
        cluster.fake.wait_for(lambda: finals(cluster.fake, ch, ts), timeout=timeout)
    except AssertionError:
        logs = "\n".join(f"--- {n}\n{w.log()}" for n, w in cluster.workers.items())
        raise AssertionError(f"no answer in {ch}/{ts}\n{logs}") from None
    return finals(cluster.fake, ch, ts)[0]


def images(fake: FakeSlack, ch: str, ts: str) -> list:
    return [u for u in fake.shared_files(ch) if u.thread_ts == ts]


def index(cluster, worker: SlackWorker, ch: str, name: str, data: bytes) -> dict:
    fake = cluster.fake
    post = fake.user_post(ch, "<@UBOT>", files=[fake.add_file(name, data)])
    assert worker.events.send(fake.app_mention(post, with_files=True))[0] == 200
    assert "Indexed" in wait_final(cluster, ch, post["ts"])["text"]
    return post


def ask(cluster, worker: SlackWorker, ch: str, text: str, timeout: float = 120.0) -> dict:
    post = cluster.fake.user_post(ch, f"<@UBOT> {text}")
    assert worker.events.send(cluster.fake.app_mention(post))[0] == 200
    return {"post": post, "answer": wait_final(cluster, ch, post["ts"], timeout)}


def listed(cluster, worker: SlackWorker, ch: str) -> list[str]:
    text = ask(cluster, worker, ch, "list")["answer"]["text"]
    return re.findall(r"• (\S+) — (\d+) pages, (\d+) passages", text)


def test_one_post_split_across_both_workers_is_answered_once(cluster):
    fake, a, b = cluster.fake, cluster.workers["a"], cluster.workers["b"]
    ch = channel()
    pdf = fake.add_file("filing.pdf", filing_pdf(8))
    post = fake.user_post(ch, f"<@UBOT> {QUESTION}", files=[pdf])
    mention, message = fake.app_mention(post), fake.message_event(post)
    deliveries = [
        (a, dict(event=mention, event_id="Ev1")),
        (b, dict(event=message, event_id="Ev2")),
        (b, dict(event=mention, event_id="Ev1", retry_num=1)),  # Slack's retry, other worker
        (a, dict(event=message)),  # re-delivered under a fresh event_id
    ]
    for worker, delivery in deliveries:
        assert worker.events.send(**delivery)[0] == 200
    answer = wait_final(cluster, ch, post["ts"])
    fake.wait_for(lambda: images(fake, ch, post["ts"]), timeout=60)
    time.sleep(3)  # a second answer would have shown up by now
    assert len(finals(fake, ch, post["ts"])) == 1
    assert len(fake.bot_messages(ch, post["ts"])) == 1  # no second progress message either
    assert "48,213" in answer["text"] or "48,213" in str(answer["blocks"])
    downloads = [c for c in fake.calls if c.method.startswith("GET /files-pri/")]
    assert len([c for c in downloads if pdf["id"] in c.method]) == 1  # downloaded once


def test_a_question_to_the_worker_without_the_pdf_gets_the_page_image(cluster):
    fake, a, b = cluster.fake, cluster.workers["a"], cluster.workers["b"]
    ch = channel()
    index(cluster, a, ch, "filing.pdf", filing_pdf(8))
    for worker in (a, b):  # neither worker keeps a copy: the bytes must come from the share
        shutil.rmtree(worker.data_dir / "files", ignore_errors=True)
    asked = ask(cluster, b, ch, QUESTION)
    ts = asked["post"]["ts"]
    fake.wait_for(lambda: images(fake, ch, ts), timeout=60)
    (upload,) = images(fake, ch, ts)
    assert upload.data.startswith(b"\x89PNG") and "filing.pdf" in upload.title
    assert any((w.data_dir / "files").exists() for w in (a, b))  # cached for next time


def test_list_through_either_worker_shows_the_same_documents_once(cluster):
    a, b = cluster.workers["a"], cluster.workers["b"]
    ch = channel()
    first = filing_pdf(3)  # once: pymupdf stamps every save with new ids
    index(cluster, a, ch, "first.pdf", first)
    index(cluster, b, ch, "second.pdf", filing_pdf(4))
    index(cluster, b, ch, "first.pdf", first)  # the same bytes again: still once
    through_a, through_b = listed(cluster, a, ch), listed(cluster, b, ch)
    assert through_a == through_b
    assert sorted(name for name, _, _ in through_a) == ["first.pdf", "second.pdf"]


@pytest.mark.timeout(900)  # up to 3 min to reach indexing + the 4 min takeover bound
def test_worker_killed_while_indexing_is_taken_over_and_the_filing_listed_once(cluster):
    fake, a, b = cluster.fake, cluster.workers["a"], cluster.workers["b"]
    ch = channel()
    data = filing_pdf(120)
    post = fake.user_post(ch, f"<@UBOT> {QUESTION}", files=[fake.add_file("10-K.pdf", data)])
    assert a.events.send(fake.app_mention(post, with_files=True))[0] == 200  # acknowledged

    def indexing_pages() -> bool:
        return any(re.search(r"— \d+/120 pages", m["text"]) for m in fake.bot_messages(ch))

    fake.wait_for(indexing_pages, timeout=180)  # some worker is embedding the filing
    (victim,) = [w for w in (a, b) if f"job for {ch}/{post['ts']}" in w.log()]
    survivor = b if victim is a else a
    victim.kill()
    killed = time.monotonic()
    answer = wait_final(cluster, ch, post["ts"], timeout=ANSWER_TIMEOUT)
    took = time.monotonic() - killed
    assert took < ANSWER_TIMEOUT
    assert "taking over job" in survivor.log()
    thread = fake.bot_messages(ch, post["ts"])
    assert not [m for m in thread if m["text"].startswith(":hourglass")]  # no stale progress
    assert [m["text"] for m in thread].count(TAKEN_OVER) == 1  # the dead worker's message
    assert "48,213" in answer["text"] or "48,213" in str(answer["blocks"])
    assert f"page {FACT_PAGE}" in str(answer["blocks"])

    docs = listed(cluster, survivor, ch)
    assert [name for name, _, _ in docs] == ["10-K.pdf"]
    settings = Settings(chroma_host=cluster.chroma.host, chroma_port=cluster.chroma.port)
    store = open_store(settings, model=indexed_as(BUNDLED_NAME, settings))  # as the workers
    (doc,) = store.all_documents(f"slack:T1:{ch}")
    assert doc.status == "ready" and doc.pages == 120
    assert len(store.chunks(f"slack:T1:{ch}")) == doc.chunks == int(docs[0][2])
    cluster.start(victim.name).wait_ready()  # later tests get two workers again

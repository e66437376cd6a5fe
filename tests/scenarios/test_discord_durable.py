"""Discord questions survive the process answering them: SIGKILL mid-indexing, then
another shard (Redis + Chroma) or the restarted process (local journal) answers.

Real ``python -m bot discord`` processes (tests/discord_workers.py) on the
loopback FakeDiscord, the real pipeline (bundled model, offline extractive
answers) and, for two processes, a real Redis and Chroma server. The
question's ⏳ progress reply is edited into the answer by whoever finishes it,
so no progress message is left hanging.
"""

from __future__ import annotations

import re
import time

import pytest

from tests.discord_workers import DiscordWorker
from tests.fake_discord import CHANNELS, FakeDiscord
from tests.fake_discord_payloads import BOT_ID, GUILD_ID
from tests.workers import FACT, QUESTION, filing_pdf

pytestmark = pytest.mark.model

GENERAL = CHANNELS["general"]
ANSWER_TIMEOUT = 240.0  # the bound for a takeover after the killed process stopped
PAGES = 120  # two embedding batches: the kill lands mid-indexing
FIGURE = "48,213"  # in FACT
assert FIGURE in FACT


@pytest.fixture
def fake():
    with FakeDiscord(heartbeat_interval=2.0) as server:
        yield server


def replies_to(fake: FakeDiscord, question: dict) -> list[dict]:
    """The bot's messages that reply to ``question``, as they are now."""
    return [
        m
        for m in fake.bot_messages(GENERAL)
        if str((m.get("message_reference") or {}).get("message_id")) == question["id"]
    ]


def indexing(fake: FakeDiscord, question: dict) -> bool:
    """The bot said it is indexing the filing, and has not finished."""
    texts = [m["content"] for m in replies_to(fake, question)]
    return any(t.startswith("⏳ Indexing 10-K.pdf") for t in texts) and not any(
        re.search(rf"{PAGES}/{PAGES} pages|{FIGURE}", t) for t in texts
    )


def wait_indexing(fake: FakeDiscord, question: dict, workers) -> None:
    try:
        fake.wait_for(lambda: indexing(fake, question), timeout=240)
    except AssertionError:
        logs = "\n".join(f"--- {w.name}\n{w.log()}" for w in workers)
        raise AssertionError(f"no progress; bot messages {fake.bot_messages()}\n{logs}") from None


def answered(fake: FakeDiscord, question: dict) -> bool:
    return any(FIGURE in m["content"] for m in replies_to(fake, question))


def ask_with_filing(fake: FakeDiscord) -> dict:
    pdf = fake.attachment("10-K.pdf", filing_pdf(PAGES))
    return fake.send(GENERAL, f"<@{BOT_ID}> {QUESTION}", attachments=[pdf])


def wait_answer(fake: FakeDiscord, question: dict, workers, timeout: float) -> None:
    try:
        fake.wait_for(lambda: answered(fake, question), timeout=timeout)
    except AssertionError:
        logs = "\n".join(f"--- {w.name}\n{w.log()}" for w in workers)
        raise AssertionError(f"no answer; bot messages {fake.bot_messages()}\n{logs}") from None


def assert_one_finished_reply(fake: FakeDiscord, question: dict) -> None:
    replies = replies_to(fake, question)
    assert [m for m in replies if m["content"].startswith("⏳")] == []  # none left hanging
    assert len([m for m in replies if FIGURE in m["content"]]) == 1


@pytest.mark.timeout(900)
def test_a_restarted_process_finishes_the_question_it_was_killed_on(fake, tmp_path):
    data = tmp_path / "data"
    first = DiscordWorker("first", data, fake).wait_ready()
    workers = [first]
    try:
        question = ask_with_filing(fake)
        wait_indexing(fake, question, workers)
        first.kill()
        assert not answered(fake, question)
        again = DiscordWorker("again", data, fake)
        workers.append(again)
        again.wait_ready()
        wait_answer(fake, question, workers, timeout=ANSWER_TIMEOUT)
        assert "resuming job" in again.log()
        assert_one_finished_reply(fake, question)
    finally:
        for w in workers:
            w.stop()


@pytest.mark.timeout(900)
def test_the_other_shard_answers_when_the_guilds_process_dies_mid_indexing(
    fake, tmp_path, redis_client, redis_server, chroma_server
):
    owner_shard = (GUILD_ID >> 22) % 2
    services = {"redis": redis_server, "chroma": chroma_server, "log_dir": tmp_path}
    owner = DiscordWorker("owner", tmp_path / "a", fake, shards=(owner_shard, 2), **services)
    other = DiscordWorker("other", tmp_path / "b", fake, shards=(1 - owner_shard, 2), **services)
    workers = [owner, other]
    try:
        owner.wait_ready(), other.wait_ready()
        question = ask_with_filing(fake)
        wait_indexing(fake, question, workers)
        assert f"job for {GENERAL}/{question['id']}" in owner.log()  # the guild's process
        owner.kill()
        killed = time.monotonic()
        wait_answer(fake, question, workers, timeout=ANSWER_TIMEOUT)
        took = time.monotonic() - killed
        print(f"answered by the other shard {took:.1f} s after the kill")
        assert took < ANSWER_TIMEOUT
        assert "taking over job" in other.log()
        assert_one_finished_reply(fake, question)
    finally:
        for w in workers:
            w.stop()

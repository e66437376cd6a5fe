"""ThreadResponder: progress throttling, replacing it with the answer, Slack refusals."""

import pytest
from slack_sdk import WebClient

from adapters.chat.service import Reply
from adapters.slack.reply import ThreadResponder
from tests.fake_slack import FakeSlack
from tests.fakes import source


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake():
    with FakeSlack() as fake:
        yield fake


def responder(fake: FakeSlack, clock=None) -> ThreadResponder:
    client = WebClient(token=fake.token, base_url=fake.api_url)
    return ThreadResponder(client, "C1", "111.000001", interval=1.0, clock=clock or Clock())


def test_progress_posts_once_then_edits_at_most_once_a_second(fake):
    clock = Clock()
    r = responder(fake, clock)
    r.progress("Indexing a.pdf — 1/40 pages")
    clock.now += 0.4
    r.progress("Indexing a.pdf — 2/40 pages")  # too soon: dropped
    clock.now += 0.7
    r.progress("Indexing a.pdf — 12/40 pages")
    (message,) = fake.bot_messages("C1", "111.000001")
    assert message["text"].endswith("12/40 pages") and message["edits"] == 1
    assert len(fake.calls_to("chat.postMessage")) == 1


def test_the_answer_replaces_the_progress_message_and_images_follow(fake):
    r = responder(fake)
    r.progress("Indexing a.pdf — 1/2 pages")
    png = b"\x89PNG\r\n\x1a\n fake"
    r.finish(
        Reply(
            kind="answer",
            text="The answer [1].",
            sources=(source("[1] a.pdf, page 1", png, filename="1-p1-a.png"),),
        )
    )
    (message,) = fake.bot_messages("C1")
    assert message["text"] == "The answer [1]." and message["thread_ts"] == "111.000001"
    (upload,) = fake.shared_files("C1")
    assert (upload.data, upload.filename, upload.thread_ts) == (png, "1-p1-a.png", "111.000001")
    complete = fake.calls_to("files.completeUploadExternal")[0].params
    assert complete["channel_id"] == "C1" and complete["thread_ts"] == "111.000001"


def test_without_progress_the_answer_is_posted(fake):
    responder(fake).finish(Reply(kind="help", text="Help text."))
    (message,) = fake.bot_messages("C1", "111.000001")
    assert message["text"] == "Help text." and "edits" not in message


def test_a_deleted_progress_message_falls_back_to_a_new_post(fake):
    r = responder(fake)
    r.progress("Indexing…")
    fake.errors["chat.update"] = {"error": "message_not_found"}
    r.finish(Reply(kind="answer", text="Final."))
    assert [m["text"] for m in fake.bot_messages("C1")][-1] == "Final."


def test_rejected_blocks_fall_back_to_plain_text(fake):
    fake.reject_blocks = "msg_blocks_too_long"
    r = responder(fake)
    r.finish(Reply(kind="answer", text="word " * 2000, sources=(source("[1] a.pdf, page 2"),)))
    messages = fake.bot_messages("C1")
    assert len(messages) >= 3 and all(not m["blocks"] for m in messages)
    assert all(len(m["text"]) <= 4000 for m in messages)
    assert sum(m["text"].count("word") for m in messages) == 2000
    assert "[1] a.pdf, page 2" in messages[-1]["text"]


def test_rejected_blocks_on_update_rewrite_the_progress_message_as_text(fake):
    r = responder(fake)
    r.progress("Indexing…")
    fake.reject_blocks = "invalid_blocks"
    r.finish(Reply(kind="answer", text="Short answer."))
    (message,) = fake.bot_messages("C1")
    assert message["text"] == "Short answer." and message["edits"] == 1


def test_not_in_channel_stops_further_calls(fake, caplog):
    fake.errors["chat.postMessage"] = {"error": "not_in_channel"}
    r = responder(fake)
    r.progress("Indexing…")
    r.finish(Reply(kind="answer", text="Answer."))
    assert len(fake.calls_to("chat.postMessage")) == 1
    assert "/invite @PaperTrail" in caplog.text

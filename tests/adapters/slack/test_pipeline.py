"""The Slack bot with the real ChatService and pipeline, end to end over loopback.

Real Bolt app, real HTTP, FakeSlack for the Web API and file host; the
pipeline is the real one (PyMuPDF, chunking, Chroma in memory, retrieval,
extractive answers, verification, rendering) with ``HashEmbedder`` standing in
for the model so the tests stay fast.
"""

from __future__ import annotations

import threading
import time

import pytest

from tests.fake_slack import final_messages, shown_text
from tests.fakes import slack_on_pipeline
from tests.pdfs import paper_pdf, simple_pdf

SECRET = "pipeline-signing-secret"


@pytest.fixture
def slack(tmp_path):
    with slack_on_pipeline(tmp_path, SECRET) as running:
        yield running


def ask(slack, channel: str, text: str, files=(), thread_ts=None) -> tuple[dict, dict]:
    post = slack.fake.user_post(channel, text, files=files, thread_ts=thread_ts)
    slack.events.send(slack.fake.app_mention(post, with_files=bool(files)))
    slack.events.send(slack.fake.message_event(post))  # Slack's twin event
    thread = thread_ts or post["ts"]
    slack.fake.wait_for(lambda: final_messages(slack.fake, channel, thread), timeout=20)
    return post, final_messages(slack.fake, channel, thread)[0]


def test_paper_question_gets_one_verified_answer_with_page_images(slack):
    fake = slack.fake
    pdf = fake.add_file("paper.pdf", paper_pdf())
    post, answer = ask(slack, "C1", "<@UBOT> How many parallel attention heads are used?", [pdf])

    text = shown_text(answer)
    assert "attention heads" in text
    assert "paper.pdf, page 2" in text
    assert "extractive" in text and "Ungrounded" not in text
    fake.wait_for(lambda: fake.shared_files("C1"))
    time.sleep(0.2)  # any second answer or upload would land by now
    assert len(final_messages(fake, "C1", post["ts"])) == 1
    uploads = fake.shared_files("C1")
    sources = [line for line in text.splitlines() if line.startswith("[")]
    assert len(uploads) == len(sources) >= 1
    assert all(u.data.startswith(b"\x89PNG") and u.thread_ts == post["ts"] for u in uploads)
    assert [u.title for u in uploads] == sources


def test_channels_keep_their_own_documents(slack):
    fake = slack.fake
    a = fake.add_file("a.pdf", simple_pdf(["The warranty on the Falcon model lasts five years."]))
    b = fake.add_file("b.pdf", simple_pdf(["The warranty on the Heron model lasts two years."]))
    _, in_a = ask(slack, "CA", "<@UBOT> How long does the warranty last?", [a])
    _, in_b = ask(slack, "CB", "<@UBOT> How long does the warranty last?", [b])

    assert "five years" in shown_text(in_a) and "two years" not in shown_text(in_a)
    assert "two years" in shown_text(in_b) and "five years" not in shown_text(in_b)
    _, later = ask(slack, "CA", "<@UBOT> Which model is it about?")
    assert "Falcon" in shown_text(later) and "Heron" not in shown_text(later)


def test_a_pdf_shared_earlier_without_a_mention_answers_a_later_question(slack):
    fake = slack.fake
    pdf = fake.add_file("policy.pdf", simple_pdf(["Remote work requires manager approval."]))
    upload = fake.user_post("C1", "policy attached", files=[pdf])
    slack.events.send(fake.message_event(upload))  # no mention: ignored

    _, answer = ask(slack, "C1", "<@UBOT> What does remote work require?")
    assert "manager approval" in shown_text(answer)
    assert fake.bot_messages("C1", upload["ts"]) == []


@pytest.mark.parametrize(
    ("name", "data", "mimetype", "expected"),
    [
        ("notes.docx", b"PK\x03\x04", "application/msword", "notes.docx is not a PDF"),
        ("fake.pdf", b"GIF89a not really", "application/pdf", "fake.pdf is not a PDF"),
        ("huge.pdf", b"%PDF-" + b"0" * 1_200_000, "application/pdf", "limit is 1 MB"),
    ],
)
def test_unreadable_attachments_get_a_clear_reply(slack, name, data, mimetype, expected):
    file = slack.fake.add_file(name, data, mimetype=mimetype)
    _, reply = ask(slack, "C1", "<@UBOT> summarise", [file])
    assert expected in shown_text(reply)


def test_missing_files_read_scope_names_the_fix(slack):
    slack.fake.sign_in_page_for_files = True
    pdf = slack.fake.add_file("paper.pdf", paper_pdf())
    _, reply = ask(slack, "C1", "<@UBOT> What is this?", [pdf])
    assert "files:read" in shown_text(reply) and "reinstall" in shown_text(reply)


def test_indexing_a_large_pdf_does_not_hold_up_another_channel(slack):
    fake = slack.fake
    gate = slack.pipeline.gates["big.pdf"] = threading.Event()
    big = fake.add_file("big.pdf", paper_pdf())
    small = fake.add_file("small.pdf", simple_pdf(["The launch date is 4 June."]))
    big_post = fake.user_post("C1", "<@UBOT> summarise", files=[big])
    try:
        slack.events.send(fake.app_mention(big_post, with_files=True))
        fake.wait_for(lambda: fake.bot_messages("C1"))  # "Indexing big.pdf…" is up
        start = time.monotonic()
        _, answer = ask(slack, "C2", "<@UBOT> When is the launch date?", [small])
        assert time.monotonic() - start < 5
        assert "4 June" in shown_text(answer)
        assert final_messages(fake, "C1", big_post["ts"]) == []
    finally:
        gate.set()
    fake.wait_for(lambda: final_messages(fake, "C1", big_post["ts"]), timeout=20)

"""The channel as a library, threads as conversations, deletions and /papertrail on Slack.

The real Bolt app over real HTTP against the loopback FakeSlack, with the real
ChatService and pipeline (PyMuPDF, chunking, in-memory Chroma, retrieval,
extractive answers, verification, rendering) on ``HashEmbedder``. Every PDF
here is generated; the end-to-end run on corpus PDFs is
``scripts/scenario_slack.py``.
"""

from __future__ import annotations

import threading
import time

import pytest

from tests.fake_slack import FakeSlack, final_messages, shown_text
from tests.fakes import slack_on_pipeline
from tests.pdfs import encrypted_pdf, paper_pdf, simple_pdf

SECRET = "library-signing-secret"
HARBOUR = simple_pdf(
    ["The harbour authority dredged the northern basin to a depth of fourteen metres."]
)


@pytest.fixture
def slack(tmp_path):
    with slack_on_pipeline(tmp_path, SECRET, progress_interval=0.0) as running:
        yield running


def downloads(fake: FakeSlack) -> int:
    return len([c for c in fake.calls if c.method.startswith("GET /files-pri/")])


def drop(slack, channel: str, name: str, data: bytes, *, user: str = "U1") -> tuple[dict, dict]:
    """Share a PDF with no mention: the message/file_share event and file_shared, as Slack."""
    pdf = slack.fake.add_file(name, data)
    post = slack.fake.user_post(channel, "here you go", files=[pdf], user=user)
    slack.events.send(slack.fake.message_event(post))
    slack.events.send(slack.fake.file_shared(pdf, channel, user=user))
    return pdf, post


# Seconds a scenario waits for the bot: generous, since a wait only costs time when the
# bot never answers, and two cores shared with other test processes can be slow
WAIT = 60


def indexed(slack, channel: str, post: dict, outcome: str = "+white_check_mark") -> list[str]:
    return slack.fake.wait_for(
        lambda: outcome in (r := slack.fake.reactions(channel, post["ts"])) and r, timeout=WAIT
    )


def ask(slack, channel: str, text: str, *, thread_ts=None, mention=True) -> tuple[dict, dict]:
    post = slack.fake.user_post(channel, text, thread_ts=thread_ts)
    if mention:
        slack.events.send(slack.fake.app_mention(post))
    slack.events.send(slack.fake.message_event(post))  # Slack's twin event, or the only one
    thread = thread_ts or post["ts"]
    count = len(final_messages(slack.fake, channel, thread))
    slack.fake.wait_for(
        lambda: len(final_messages(slack.fake, channel, thread)) > count, timeout=WAIT
    )
    return post, final_messages(slack.fake, channel, thread)[-1]


def command(slack, text: str, *, channel: str = "C1", user: str = "U1") -> dict:
    count = len(slack.fake.responses)
    status, _, seconds = slack.events.command(
        text, channel=channel, user=user, response_url=slack.fake.response_url()
    )
    assert status == 200 and seconds < 3.0  # acked within Slack's 3 s
    return slack.fake.wait_for(
        lambda: len(slack.fake.responses) > count and slack.fake.responses[-1]
    )


def test_a_dropped_pdf_is_indexed_unasked_once_and_later_questions_need_no_indexing(slack):
    fake = slack.fake
    _, post = drop(slack, "C1", "paper.pdf", paper_pdf())
    assert indexed(slack, "C1", post) == ["+hourglass_flowing_sand", "-hourglass_flowing_sand",
                                          "+white_check_mark"]  # fmt: skip
    assert downloads(fake) == 1  # file_share and file_shared: indexed once
    assert fake.bot_messages("C1") == []  # success says nothing in the channel
    for _ in range(30):  # unrelated chatter pushes the PDF far out of recent history
        fake.user_post("C1", "lunch at noon?")

    start = time.monotonic()
    _, answer = ask(slack, "C1", "<@UBOT> How many parallel attention heads are used?")
    assert time.monotonic() - start < 5.0
    assert "attention heads" in shown_text(answer) and "paper.pdf, page" in shown_text(answer)
    assert downloads(fake) == 1  # answered from the library, nothing downloaded again
    progress = [c for c in fake.calls_to("chat.postMessage") if "Indexing" in c.params["text"]]
    assert progress == []


def test_evidence_is_quoted_under_each_citation(slack):
    _, post = drop(slack, "C1", "paper.pdf", paper_pdf())
    indexed(slack, "C1", post)
    _, answer = ask(slack, "C1", "<@UBOT> How many parallel attention heads are used?")
    sources = next(
        e["text"]
        for b in answer["blocks"]
        for e in b.get("elements", [])
        if "*Sources*" in e["text"]
    )
    lines = sources.splitlines()
    titles = [i for i, line in enumerate(lines) if line.startswith("[")]
    assert titles and all(lines[i + 1].startswith("“") for i in titles)


def test_a_reply_in_the_bots_thread_is_a_follow_up_without_a_mention(slack):
    fake = slack.fake
    _, post = drop(slack, "C1", "paper.pdf", paper_pdf())
    indexed(slack, "C1", post)
    question, first = ask(
        slack, "C1", "<@UBOT> How many identical layers are in the encoder stack?"
    )
    assert "N = 6 identical layers" in first["text"]

    _, follow = ask(slack, "C1", "And the decoder?", thread_ts=question["ts"], mention=False)
    text = shown_text(follow)
    assert "Read as: How many identical layers are in the decoder stack?" in text
    assert "decoder is also a stack of six identical layers" in follow["text"]

    thanks = fake.user_post("C1", "thanks!", thread_ts=question["ts"])
    slack.events.send(fake.message_event(thanks))  # acknowledging is not asking
    other = fake.user_post("C1", "a thread the bot never spoke in")
    chatter = fake.user_post("C1", "And the decoder?", thread_ts=other["ts"])
    slack.events.send(fake.message_event(chatter))
    time.sleep(0.3)
    assert fake.bot_messages("C1", other["ts"]) == []  # not the bot's conversation
    assert len(final_messages(fake, "C1", question["ts"])) == 2  # "thanks!" got no answer


def test_a_deleted_file_is_no_longer_listed_or_cited(slack):
    fake = slack.fake
    harbour, post = drop(slack, "C1", "harbour.pdf", HARBOUR)
    _, paper_post = drop(slack, "C1", "paper.pdf", paper_pdf())
    indexed(slack, "C1", post)
    indexed(slack, "C1", paper_post)
    assert "harbour.pdf" in shown_text(command(slack, "list"))

    fake.delete_file(harbour["id"])
    slack.events.send(fake.file_deleted(harbour))
    fake.wait_for(lambda: "harbour.pdf" not in shown_text(command(slack, "list")))
    assert "paper.pdf" in shown_text(command(slack, "list"))
    _, answer = ask(slack, "C1", "<@UBOT> How deep was the northern basin dredged?")
    assert "harbour.pdf" not in shown_text(answer) and "fourteen" not in shown_text(answer)


def test_slash_commands_help_list_and_ask_in_the_channel(slack):
    fake = slack.fake
    _, post = drop(slack, "C1", "paper.pdf", paper_pdf())
    indexed(slack, "C1", post)
    help_ = command(slack, "help")
    assert help_["response_type"] == "ephemeral" and "/papertrail ask" in shown_text(help_)
    assert "the last 20 messages" in shown_text(help_)  # history is only a bounded fallback
    listing = command(slack, "list")
    assert "paper.pdf — 4 pages" in shown_text(listing)

    slack.events.command(
        "ask How many parallel attention heads are used?",
        channel="C1",
        user="U7",
        response_url=fake.response_url(),
    )
    asked = fake.wait_for(lambda: [m for m in fake.bot_messages("C1") if "asked:" in m["text"]])
    assert asked[0]["text"].startswith("<@U7> asked: How many parallel")
    thread = asked[0]["ts"]
    fake.wait_for(lambda: final_messages(fake, "C1", thread))
    assert "attention heads" in final_messages(fake, "C1", thread)[0]["text"]
    _, follow = ask(slack, "C1", "And in the big model?", thread_ts=thread, mention=False)
    assert "Read as:" in shown_text(follow)  # the command's thread is a conversation too


def test_only_the_sharer_or_an_admin_may_forget(slack):
    fake = slack.fake
    fake.users["UADMIN"] = {"is_admin": True, "is_owner": False}
    _, post = drop(slack, "C1", "paper.pdf", paper_pdf(), user="U1")
    indexed(slack, "C1", post)

    refused = command(slack, "forget paper.pdf", user="U2")
    assert "Only the person who shared paper.pdf" in shown_text(refused)
    assert "Only a workspace admin" in shown_text(command(slack, "forget all", user="U1"))
    assert "paper.pdf" in shown_text(command(slack, "list"))
    assert "Forgot paper.pdf." in shown_text(command(slack, "forget paper.pdf", user="U1"))
    _, post = drop(slack, "C1", "harbour.pdf", HARBOUR, user="U1")
    indexed(slack, "C1", post)
    assert "Forgot harbour.pdf." in shown_text(command(slack, "forget all", user="UADMIN"))
    assert [c.params["user"] for c in fake.calls_to("users.info")] == ["U2", "U1", "UADMIN"]


def test_failed_drops_react_and_say_why_in_the_thread(slack):
    fake = slack.fake
    _, html_post = drop(slack, "C1", "page.pdf", b"<!DOCTYPE html><html>an HTML page</html>")
    indexed(slack, "C1", html_post, "+x")
    (reply,) = fake.wait_for(lambda: final_messages(fake, "C1", html_post["ts"]))
    assert "not a PDF" in reply["text"] and "files:read" not in reply["text"]

    _, locked = drop(slack, "C1", "locked.pdf", encrypted_pdf("s3cret"))
    indexed(slack, "C1", locked, "+x")
    (reply,) = fake.wait_for(lambda: final_messages(fake, "C1", locked["ts"]))
    assert "unprotected copy" in reply["text"] and "--password" not in reply["text"]

    fake.sign_in_page_for_files = True  # now the token really lacks files:read
    _, post = drop(slack, "C2", "report.pdf", HARBOUR)
    indexed(slack, "C2", post, "+x")
    (reply,) = fake.wait_for(lambda: final_messages(fake, "C2", post["ts"]))
    assert "files:read" in reply["text"]
    _, answer = ask(slack, "C2", "<@UBOT> How deep is the basin?")
    assert "files:read" in shown_text(answer)  # the same message when found in history


def test_unsharing_or_a_tombstone_forgets_only_in_that_channel(slack):
    fake = slack.fake
    data = paper_pdf()
    pdf = fake.add_file("paper.pdf", data)
    for channel in ("C1", "C2"):  # one Slack file shared into two channels
        post = fake.user_post(channel, "sharing", files=[pdf])
        slack.events.send(fake.message_event(post))
        indexed(slack, channel, post)
    docs = slack.pipeline.documents
    slack.events.send({"type": "file_unshared", "file_id": pdf["id"], "channel_id": "C1"})
    fake.wait_for(lambda: docs("slack:T1:C1") == [])
    assert [d.name for d in docs("slack:T1:C2")] == ["paper.pdf"]

    changed = {
        "type": "message",
        "subtype": "message_changed",
        "channel": "C2",
        "ts": fake.next_ts(),
        "message": {"ts": post["ts"], "files": [{"id": pdf["id"], "mode": "tombstone"}]},
    }
    slack.events.send(changed)
    fake.wait_for(lambda: docs("slack:T1:C2") == [])


def test_a_pdf_shared_in_the_bots_thread_without_a_question_is_indexed_not_answered(slack):
    fake = slack.fake
    _, post = drop(slack, "C1", "paper.pdf", paper_pdf())
    indexed(slack, "C1", post)
    question, _ = ask(slack, "C1", "<@UBOT> How many parallel attention heads are used?")
    harbour = fake.add_file("harbour.pdf", HARBOUR)
    share = fake.user_post("C1", "the other report", files=[harbour], thread_ts=question["ts"])
    slack.events.send(fake.message_event(share))
    indexed(slack, "C1", share)
    assert len(final_messages(fake, "C1", question["ts"])) == 1  # only the first answer
    assert "harbour.pdf" in shown_text(command(slack, "list"))


def test_a_question_asked_while_its_pdf_indexes_says_it_waits_then_answers(slack):
    gate = slack.pipeline.gates["paper.pdf"] = threading.Event()
    pdf = slack.fake.add_file("paper.pdf", paper_pdf())
    post = slack.fake.user_post("C1", "sharing", files=[pdf])
    slack.events.send(slack.fake.message_event(post))
    slack.fake.wait_for(lambda: "+hourglass_flowing_sand" in slack.fake.reactions("C1", post["ts"]))
    question = slack.fake.user_post("C1", "<@UBOT> How many parallel attention heads are used?")
    slack.events.send(slack.fake.app_mention(question))
    waiting = slack.fake.wait_for(lambda: slack.fake.bot_messages("C1", question["ts"]))
    assert "Waiting for paper.pdf to finish indexing" in waiting[0]["text"]
    gate.set()
    slack.fake.wait_for(
        lambda: "attention heads" in slack.fake.bot_messages("C1", question["ts"])[0]["text"]
    )
    assert len(slack.fake.bot_messages("C1", question["ts"])) == 1  # the wait line became it

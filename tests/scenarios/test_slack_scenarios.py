"""End-to-end: the real Bolt app over real HTTP against the loopback FakeSlack.

Signed events go in through ``/slack/events``; assertions are on what the
fake Web API, file host and upload URLs received. The chat service here is a
small real stand-in (PyMuPDF reads the PDF, the answer quotes page 1), so
these tests pin the adapter's behaviour; test_slack_pipeline.py runs the real
ChatService and pipeline.
"""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pymupdf
import pytest

from adapters.chat.dedup import SeenSet
from adapters.chat.service import Image, Reply, Source
from adapters.slack.app import build_slack_app
from papertrail.errors import PaperTrailError
from tests.fake_slack import FakeSlack, RunningBot
from tests.fakes import NoLibrary

SECRET = "test-signing-secret"
MAX_BYTES = 200_000


def make_pdf(*pages: str) -> bytes:
    doc = pymupdf.open()
    for text in pages:
        doc.new_page(width=300, height=200).insert_text((20, 40), text, fontsize=11)
    return doc.tobytes()


class PageService(NoLibrary):
    """Indexes PDFs per channel with PyMuPDF and answers with page 1's text and PNG."""

    def __init__(self) -> None:
        self.mentions = []
        self.docs: dict[str, tuple[str, list[str], bytes]] = {}  # channel -> latest document
        self.gates: dict[str, threading.Event] = {}  # file name -> indexing waits on it
        self.reply_text: str | None = None
        self.warnings: tuple[str, ...] = ()
        self.lock = threading.Lock()

    def handle(self, mention, progress=None) -> Reply:
        with self.lock:
            self.mentions.append(mention)
        own = [a for a in mention.attachments if a.source == "message"]
        try:
            for att in own or mention.attachments[:1]:
                self._index(mention.channel, att, progress)
        except PaperTrailError as err:
            return Reply(kind="error", text=err.message)
        if mention.channel not in self.docs:
            return Reply(kind="error", text="I don't see a PDF here yet.")
        name, pages, png = self.docs[mention.channel]
        cited = Source(1, name, 1, image=Image(f"1-p1-{name}.png", png, f"[1] {name}, page 1"))
        return Reply(
            kind="answer",
            text=self.reply_text or f"{pages[0].strip()} [1]",
            sources=(cited,),
            warnings=self.warnings,
            footer="Mode: extractive",
        )

    def index_shared(self, channel, attachments, progress=None) -> Reply:
        for att in attachments:
            self._index(channel, att, progress)
        return Reply(kind="indexed", text="Indexed.")

    def _index(self, channel, att, progress) -> None:
        data = att.fetch()
        doc = pymupdf.open(stream=data, filetype="pdf")
        pages = []
        for i, page in enumerate(doc, 1):
            pages.append(page.get_text())
            if progress:
                progress(f"Indexing {att.name} — {i}/{doc.page_count} pages")
        if att.name in self.gates:
            self.gates[att.name].wait(10)
        png = doc[0].get_pixmap(dpi=30).tobytes("png")
        self.docs[channel] = (att.name, pages, png)


class CountingSeenSet(SeenSet):
    """Counts how many addressing events reached de-duplication."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self._count_lock = threading.Lock()

    def first(self, key) -> bool:
        with self._count_lock:
            self.calls += 1
        return super().first(key)


@pytest.fixture
def slack():
    fake = FakeSlack()
    service = PageService()
    seen = CountingSeenSet()
    app = build_slack_app(
        service,
        bot_token=fake.token,
        signing_secret=SECRET,
        api_url=fake.api_url,
        seen=seen,
        max_pdf_bytes=MAX_BYTES,
        progress_interval=0.0,
    )
    bot = RunningBot(app, SECRET)
    yield SimpleNamespace(fake=fake, service=service, seen=seen, events=bot.events, bot=bot)
    bot.close()
    fake.close()


def answers(fake: FakeSlack, channel: str, thread_ts: str) -> list[dict]:
    """The bot's final messages in a thread (progress messages excluded)."""
    return [
        m for m in fake.bot_messages(channel, thread_ts) if not m["text"].startswith(":hourglass")
    ]


def wait_answer(fake, channel, thread_ts, *, images: bool = False) -> dict:
    fake.wait_for(lambda: answers(fake, channel, thread_ts))
    if images:
        fake.wait_for(lambda: [u for u in fake.shared_files(channel) if u.thread_ts == thread_ts])
    return answers(fake, channel, thread_ts)[0]


def shown_text(message: dict) -> str:
    parts = []
    for b in message["blocks"]:
        if b["type"] == "section":
            parts.append(b["text"]["text"])
        parts += [e["text"] for e in b.get("elements", [])]
    return "\n".join(parts)


def test_pdf_and_mention_get_one_threaded_answer_with_images(slack):
    fake = slack.fake
    pdf = fake.add_file("report.pdf", make_pdf("Revenue grew 12 percent in 2023.", "Page two."))
    post = fake.user_post("C1", "<@UBOT> how much did revenue grow?", files=[pdf])

    status, _, seconds = slack.events.send(fake.app_mention(post, with_files=True))
    assert status == 200 and seconds < 1.0  # acked before any work

    answer = wait_answer(fake, "C1", post["ts"], images=True)
    assert "Revenue grew 12 percent" in shown_text(answer)
    assert "[1] report.pdf, page 1" in shown_text(answer)
    assert len(fake.bot_messages("C1")) == 1  # the progress message became the answer
    assert answer["edits"] >= 1
    progress = [c for c in fake.calls_to("chat.postMessage") if "Indexing" in c.params["text"]]
    assert progress and progress[0].params["thread_ts"] == post["ts"]

    (upload,) = fake.shared_files("C1")
    assert upload.data.startswith(b"\x89PNG") and upload.thread_ts == post["ts"]
    assert upload.title == "[1] report.pdf, page 1"
    assert "authorization" not in upload.headers  # the upload URL gets no token
    (download,) = [c for c in fake.calls if c.method.startswith("GET /files-pri/")]
    assert download.headers["authorization"] == f"Bearer {fake.token}"
    assert slack.service.mentions[0].channel == "slack:T1:C1"
    assert slack.service.mentions[0].text == "how much did revenue grow?"


@pytest.mark.parametrize("mention_first", [True, False])
def test_both_events_retries_and_redeliveries_answer_exactly_once(slack, mention_first):
    fake, events = slack.fake, slack.events
    pdf = fake.add_file("report.pdf", make_pdf("Alpha beta gamma."))
    post = fake.user_post("C1", "<@UBOT> what does it say?", files=[pdf])
    mention = fake.app_mention(post)  # without files[], as Slack sometimes sends it
    message = fake.message_event(post)
    first, second = (mention, message) if mention_first else (message, mention)

    deliveries = [
        dict(event=first, event_id="Ev1"),
        dict(event=second, event_id="Ev2"),
        dict(event=first, event_id="Ev1", retry_num=1),  # Slack's retries
        dict(event=second, event_id="Ev2", retry_num=1),
        dict(event=first, event_id="Ev1", retry_num=2, retry_reason="http_error"),
        dict(event=first),  # re-delivered with fresh event_ids (node-slack-sdk#2141)
        dict(event=second),
    ]
    for d in deliveries:
        status, _, _ = events.send(**d)
        assert status == 200

    fake.wait_for(lambda: slack.seen.calls == len(deliveries))
    wait_answer(fake, "C1", post["ts"], images=True)
    assert len(slack.service.mentions) == 1
    assert len(answers(fake, "C1", post["ts"])) == 1
    assert len(fake.bot_messages("C1")) == 1
    assert len(fake.shared_files("C1")) == 1
    assert [a.name for a in slack.service.mentions[0].attachments] == ["report.pdf"]


def test_app_mention_without_files_fetches_the_message(slack):
    fake = slack.fake
    pdf = fake.add_file("memo.pdf", make_pdf("The deadline is March 3."))
    post = fake.user_post("C1", "<@UBOT> when is the deadline?", files=[pdf])

    slack.events.send(fake.app_mention(post, with_files=False))

    answer = wait_answer(fake, "C1", post["ts"])
    assert "The deadline is March 3." in shown_text(answer)
    assert fake.calls_to("conversations.history")
    (att,) = slack.service.mentions[0].attachments
    assert (att.name, att.source) == ("memo.pdf", "message")


def test_a_pdf_shared_before_the_bot_was_there_is_found_in_history(slack):
    fake = slack.fake
    pdf = fake.add_file("old.pdf", make_pdf("Old findings: the sky is green."))
    upload = fake.user_post("C1", "here is the report", files=[pdf])  # no event: bot not there
    later = fake.user_post("C1", "<@UBOT> what colour is the sky?")
    slack.events.send(fake.message_event(later))  # a plain message with a mention...
    slack.events.send(fake.app_mention(later))  # ...and its app_mention twin

    answer = wait_answer(fake, "C1", later["ts"])
    assert "the sky is green" in shown_text(answer)
    assert fake.bot_messages("C1", upload["ts"]) == []  # nothing said to the plain upload
    # the mention and its message twin both reach the de-duplication (the answer may be
    # posted before the second delivery is read), and only one is answered
    fake.wait_for(lambda: slack.seen.calls == 2)
    assert len(answers(fake, "C1", later["ts"])) == 1
    (att,) = slack.service.mentions[0].attachments
    assert (att.name, att.source) == ("old.pdf", "history")


def test_mention_in_a_thread_uses_the_threads_pdf_and_answers_there(slack):
    fake = slack.fake
    pdf = fake.add_file("thread.pdf", make_pdf("Thread document text."))
    parent = fake.user_post("C1", "report attached", files=[pdf])
    other = fake.add_file("other.pdf", make_pdf("Unrelated."))
    fake.user_post("C1", "another upload", files=[other])  # newer, but outside the thread
    reply = fake.user_post("C1", "<@UBOT> summarise please", thread_ts=parent["ts"])

    slack.events.send(fake.app_mention(reply))

    answer = wait_answer(fake, "C1", parent["ts"], images=True)
    assert "Thread document text." in shown_text(answer)
    sources = [(a.name, a.source) for a in slack.service.mentions[0].attachments]
    assert sources[0] == ("thread.pdf", "thread")
    assert ("other.pdf", "history") in sources
    assert fake.calls_to("conversations.replies")[0].params["ts"] == parent["ts"]
    assert fake.shared_files("C1")[0].thread_ts == parent["ts"]


def test_slack_connect_file_needs_files_info_first(slack):
    fake = slack.fake
    pdf = fake.add_file("shared.pdf", make_pdf("Shared channel text."))
    post = fake.user_post("C1", "<@UBOT> what is it?", files=[pdf])
    event = fake.app_mention(post)
    event["files"] = [{"id": pdf["id"], "file_access": "check_file_info"}]

    slack.events.send(event)

    answer = wait_answer(fake, "C1", post["ts"])
    assert "Shared channel text." in shown_text(answer)
    assert fake.calls_to("files.info")[0].params["file"] == pdf["id"]


def test_missing_files_read_scope_is_explained(slack):
    fake = slack.fake
    fake.sign_in_page_for_files = True  # what Slack serves a token without files:read
    pdf = fake.add_file("report.pdf", make_pdf("Text."))
    post = fake.user_post("C1", "<@UBOT> question", files=[pdf])

    slack.events.send(fake.app_mention(post, with_files=True))

    text = shown_text(wait_answer(fake, "C1", post["ts"]))
    assert "files:read" in text and "reinstall" in text
    assert fake.shared_files() == []


def test_non_pdf_attachment_gets_a_clear_reply(slack):
    fake = slack.fake
    doc = fake.add_file("notes.docx", b"PK\x03\x04 not a pdf", mimetype="application/msword")
    post = fake.user_post("C1", "<@UBOT> read this", files=[doc])

    slack.events.send(fake.app_mention(post, with_files=True))

    assert "notes.docx is not a PDF" in shown_text(wait_answer(fake, "C1", post["ts"]))


def test_oversized_pdf_is_refused_before_downloading(slack):
    fake = slack.fake
    pdf = fake.add_file("huge.pdf", make_pdf("x"), size=MAX_BYTES * 5)
    post = fake.user_post("C1", "<@UBOT> read this", files=[pdf])

    slack.events.send(fake.app_mention(post, with_files=True))

    text = shown_text(wait_answer(fake, "C1", post["ts"]))
    assert "huge.pdf is 1.0 MB" in text and "limit" in text
    assert not [c for c in fake.calls if c.method.startswith("GET /files")]


def test_bad_signature_or_stale_timestamp_gets_401_and_no_answer(slack):
    fake = slack.fake
    post = fake.user_post("C1", "<@UBOT> hello")
    event = fake.app_mention(post)

    assert slack.events.send(event, secret="wrong-secret")[0] == 401
    assert slack.events.send(event, timestamp=int(time.time()) - 600)[0] == 401

    time.sleep(0.3)  # give a wrongly accepted event time to show up
    assert slack.seen.calls == 0
    assert fake.calls_to("chat.postMessage") == []


def test_long_answer_is_split_within_slack_limits(slack):
    fake = slack.fake
    sentence = "Every sentence of this long answer is worth reading carefully. "
    slack.service.reply_text = sentence * 600  # ~38,000 characters
    pdf = fake.add_file("long.pdf", make_pdf("text"))
    post = fake.user_post("C1", "<@UBOT> tell me everything", files=[pdf])

    slack.events.send(fake.app_mention(post, with_files=True))

    fake.wait_for(lambda: fake.shared_files("C1"))
    messages = answers(fake, "C1", post["ts"])
    assert len(messages) > 1
    for m in messages:
        assert m["blocks"] and len(m["blocks"]) <= 50 and len(m["text"]) <= 4000
        for b in m["blocks"]:
            assert len(shown_text({"blocks": [b]})) <= 3000
    shown = " ".join(shown_text(m) for m in messages)
    assert shown.count("worth reading carefully") == 600


def test_text_from_pdfs_cannot_mention_anyone(slack):
    fake = slack.fake
    slack.service.reply_text = "Ping <!channel> and <!everyone> and <@U999> & co [1]"
    slack.service.warnings = ("Ungrounded: treat it as unverified.",)
    pdf = fake.add_file("evil <@U1>.pdf", make_pdf("x"))
    post = fake.user_post("C1", "<@UBOT> hi", files=[pdf])

    slack.events.send(fake.app_mention(post, with_files=True))

    answer = wait_answer(fake, "C1", post["ts"])
    text = shown_text(answer) + answer["text"]
    assert "<!" not in text and "<@" not in text
    assert "&lt;!channel&gt;" in text and "&amp; co" in text
    assert answer["blocks"][0]["text"]["text"].startswith(":warning: Ungrounded")
    final = [c for c in fake.calls if c.method in ("chat.postMessage", "chat.update")][-1]
    assert final.params["parse"] == "none" and final.params["link_names"] in (False, "0")


def test_two_channels_with_different_pdfs_never_mix(slack):
    fake = slack.fake
    a = fake.add_file("alpha.pdf", make_pdf("Alpha channel secret."))
    b = fake.add_file("bravo.pdf", make_pdf("Bravo channel secret."))
    post_a = fake.user_post("CA", "<@UBOT> what is the secret?", files=[a])
    post_b = fake.user_post("CB", "<@UBOT> what is the secret?", files=[b])
    slack.events.send(fake.app_mention(post_a, with_files=True))
    slack.events.send(fake.app_mention(post_b, with_files=True))

    text_a = shown_text(wait_answer(fake, "CA", post_a["ts"], images=True))
    text_b = shown_text(wait_answer(fake, "CB", post_b["ts"], images=True))
    assert "Alpha" in text_a and "Bravo" not in text_a
    assert "Bravo" in text_b and "Alpha" not in text_b
    assert {u.channel for u in fake.shared_files()} == {"CA", "CB"}
    assert sorted(m.channel for m in slack.service.mentions) == ["slack:T1:CA", "slack:T1:CB"]


def test_question_in_one_channel_is_not_held_up_by_indexing_in_another(slack):
    fake = slack.fake
    gate = slack.service.gates["big.pdf"] = threading.Event()
    big = fake.add_file("big.pdf", make_pdf(*[f"Big page {i}." for i in range(30)]))
    small = fake.add_file("small.pdf", make_pdf("Small answer."))
    post_big = fake.user_post("C1", "<@UBOT> read this", files=[big])
    post_small = fake.user_post("C2", "<@UBOT> read this", files=[small])
    try:
        slack.events.send(fake.app_mention(post_big, with_files=True))
        # C1 has read every page and now blocks, holding one worker.
        fake.wait_for(lambda: "30/30" in "".join(m["text"] for m in fake.bot_messages("C1")))
        start = time.monotonic()
        slack.events.send(fake.app_mention(post_small, with_files=True))
        wait_answer(fake, "C2", post_small["ts"])
        assert time.monotonic() - start < 3.0
        assert answers(fake, "C1", post_big["ts"]) == []  # still indexing
    finally:
        gate.set()
    assert "Big page 0." in shown_text(wait_answer(fake, "C1", post_big["ts"]))


def test_direct_message_needs_no_mention(slack):
    fake = slack.fake
    pdf = fake.add_file("dm.pdf", make_pdf("Direct message document."))
    post = fake.user_post("D1", "what is this?", files=[pdf])

    slack.events.send(fake.message_event(post, channel_type="im"))

    assert "Direct message document." in shown_text(wait_answer(fake, "D1", post["ts"]))


def test_missing_files_write_scope_for_images_is_explained(slack):
    fake = slack.fake
    fake.errors["files.getUploadURLExternal"] = {"error": "missing_scope", "needed": "files:write"}
    pdf = fake.add_file("report.pdf", make_pdf("Some text."))
    post = fake.user_post("C1", "<@UBOT> question", files=[pdf])

    slack.events.send(fake.app_mention(post, with_files=True))

    fake.wait_for(lambda: len(answers(fake, "C1", post["ts"])) == 2)
    answer, notice = answers(fake, "C1", post["ts"])
    assert "Some text." in shown_text(answer)
    assert "files:write" in shown_text(notice) and "reinstall" in shown_text(notice)


def test_not_in_channel_is_logged_with_the_fix_and_no_token(slack, caplog):
    fake = slack.fake
    fake.errors["chat.postMessage"] = {"error": "not_in_channel"}
    post = fake.user_post("C1", "<@UBOT> hello")
    caplog.set_level("DEBUG")

    slack.events.send(fake.app_mention(post))

    fake.wait_for(lambda: "/invite @PaperTrail" in caplog.text)
    assert fake.token not in caplog.text


def test_healthz_answers_200(slack):
    import urllib.request

    with urllib.request.urlopen(slack.bot.url + "/healthz", timeout=5) as response:
        assert response.status == 200


def test_a_file_share_with_a_mention_is_answered_even_without_app_mention(slack):
    fake = slack.fake
    pdf = fake.add_file("solo.pdf", make_pdf("Only the message event came."))
    post = fake.user_post("C1", "<@UBOT> what came?", files=[pdf])

    slack.events.send(fake.message_event(post))

    assert "Only the message event came." in shown_text(wait_answer(fake, "C1", post["ts"]))

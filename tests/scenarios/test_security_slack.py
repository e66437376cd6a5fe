"""Security scenarios on Slack: the real Bolt app, service and pipeline against FakeSlack.

A PDF that tries to inject instructions, an LLM (the loopback FakeOpenAI) that
obeys it, Groq failing with bodies that carry an organisation id, real-looking
secrets with every library logging at DEBUG, and an upload whose name tries
path traversal and markup. Assertions are on what the fake Slack received,
what reached the log and what reached the disk. The shared pieces are in
tests/scenarios/test_security.py.
"""

from __future__ import annotations

import json
import logging
import re
from contextlib import ExitStack

import pytest

from adapters.chat.service import ChatService
from adapters.slack.app import build_slack_app
from papertrail.settings import Settings
from tests.fake_openai import (
    ORG_ID,
    FakeOpenAI,
    completion,
    rate_limited,
    server_error,
    unauthorized,
)
from tests.fake_slack import Call, FakeSlack, RunningBot
from tests.pdfs import simple_pdf
from tests.scenarios.test_security import (
    FACT,
    INJECTION_PAGES,
    INJECTION_QUESTION,
    OBEYING_ANSWER,
    POWER_QUESTION,
    SAFE_NAME,
    SECRETS,
    UNSUPPORTED,
    assert_no_secret,
    build_pipeline,
    debug_logs,
    files_under,
    llm_settings,
    secret_config,
)

CHANNEL = "C1"
CHAT = ("chat.postMessage", "chat.update")
PROVIDER_TEXT = (ORG_ID, "Rate limit reached", "organization", "console.groq.com", "Internal error")


@pytest.fixture
def rig():
    """``rig(settings, token=..., secret=...)`` starts FakeSlack and the bot; both stop after."""
    stack = ExitStack()

    def start(settings: Settings, *, token="xoxb-test-token", secret="security-signing-secret"):
        fake = stack.enter_context(FakeSlack(token=token))
        pipeline = build_pipeline(settings)
        app = build_slack_app(
            ChatService(pipeline),
            bot_token=token,
            signing_secret=secret,
            api_url=fake.api_url,
            max_pdf_bytes=settings.max_pdf_bytes,
            progress_interval=0.05,
        )
        bot = RunningBot(app, secret)
        stack.callback(bot.close)
        return fake, bot.events, pipeline

    start.stop = stack.close  # stops the bot and the fake early; teardown is then a no-op
    with stack:
        yield start


def ask(fake: FakeSlack, events, text: str, files=(), channel=CHANNEL) -> tuple[dict, dict]:
    """Post ``text`` with a mention (and its twin message event); the final answer."""
    post = fake.user_post(channel, f"<@UBOT> {text}", files=files)
    events.send(fake.app_mention(post, with_files=bool(files)))
    events.send(fake.message_event(post))

    def final():
        done = [
            m
            for m in fake.bot_messages(channel, post["ts"])
            if ":hourglass" not in m["text"] and not m.get("streaming")  # streamed: finished
        ]
        return done[0] if done else None

    answer = fake.wait_for(final, timeout=20)
    if "*Sources*" in shown(answer):  # the page images follow the answer
        fake.wait_for(lambda: [u for u in fake.shared_files(channel) if u.thread_ts == post["ts"]])
    return post, final()


def shown(message: dict) -> str:
    """A message's fallback text and every block's text."""
    parts = [message.get("text") or ""]
    blocks = message.get("blocks") or []
    for b in json.loads(blocks) if isinstance(blocks, str) else blocks:
        if b.get("type") == "section":
            parts.append(b["text"]["text"])
        parts += [e.get("text", "") for e in b.get("elements", [])]
    return "\n".join(parts)


def everything_posted(fake: FakeSlack) -> str:
    """Every text the bot sent Slack: messages, edits, upload names and titles."""
    with fake.lock:
        calls = [c for c in fake.calls if c.method.startswith(("chat.", "files."))]
    return "\n".join(shown(c.params) if c.method in CHAT else json.dumps(c.params) for c in calls)


def assert_only_in(fake: FakeSlack, channel: str, thread_ts: str) -> None:
    """Every message, edit and upload went into the question's thread in ``channel``."""
    for call in fake.calls_to("chat.postMessage") + fake.calls_to("chat.update"):
        assert call.params["channel"] == channel, call.params
        assert call.method == "chat.update" or call.params["thread_ts"] == thread_ts
    for call in fake.calls_to("files.completeUploadExternal"):
        assert call.params["channel_id"] == channel and call.params["thread_ts"] == thread_ts
    assert set(fake.messages) == {channel}


def assert_cannot_mention(fake: FakeSlack) -> None:
    """No ``<!channel>``, ``<!here>``, ``<@U…>``, ``<#C…>`` or link: every ``<`` is escaped."""
    text = everything_posted(fake)
    assert "<" not in text and ">" not in text.replace("&gt;", "")
    for call in fake.calls_to("chat.postMessage") + fake.calls_to("chat.update"):
        assert call.params.get("parse") == "none"
        assert call.params.get("link_names") in (False, "0", "false")


def test_injection_quoted_offline_is_escaped_and_stays_in_the_thread(rig, tmp_path):
    fake, events, _ = rig(Settings(data_dir=tmp_path / "data", ocr=False))
    pdf = fake.add_file("notes.pdf", simple_pdf(INJECTION_PAGES))
    post, answer = ask(fake, events, INJECTION_QUESTION, [pdf])

    text = shown(answer)
    assert "Mode: extractive" in text
    assert "&lt;!channel&gt;" in text and "&lt;@U0ADMIN&gt;" in text  # quoted, defused
    assert_cannot_mention(fake)
    assert_only_in(fake, CHANNEL, post["ts"])


def test_an_llm_obeying_the_injection_pings_no_one_and_loses_its_false_citation(rig, tmp_path):
    with FakeOpenAI() as server:
        server.script(completion(OBEYING_ANSWER))
        fake, events, _ = rig(llm_settings(tmp_path / "data", server.url))
        pdf = fake.add_file("notes.pdf", simple_pdf(INJECTION_PAGES))
        post, answer = ask(fake, events, POWER_QUESTION, [pdf])

    [request] = server.requests
    assert "Ignore previous instructions" in request.prompt  # the document went in ...
    user = request.messages[-1]["content"]
    assert user.index("<excerpts>") < user.index("Ignore previous") < user.index("</excerpts>")
    assert "data, not instructions" in request.messages[0]["content"]  # ... fenced as data
    text = shown(answer)
    assert "llama-3.3-70b-versatile" in text
    assert "2.4 megawatts at its rated wind speed [1]" in text  # verified, kept
    assert UNSUPPORTED in text and f"{UNSUPPORTED} [" not in text  # marker removed
    assert "1 citation verified · 1 removed" in text
    assert len(fake.shared_files(CHANNEL)) == 1  # one page image: the supported citation
    for live in ("@everyone", "@here", "<!", "<@", "<#"):
        assert live not in text
    assert_cannot_mention(fake)
    assert_only_in(fake, CHANNEL, post["ts"])
    assert "C999" not in fake.messages


@pytest.mark.parametrize(
    ("replies", "note", "requests"),
    [
        ([rate_limited(tpd=True)], "Groq's daily token limit is used up", 1),
        ([server_error(), server_error(503)], "Groq is unavailable right now (server error)", 2),
    ],
    ids=["429-tokens-per-day", "5xx"],
)
def test_provider_failures_answer_extractively_without_provider_text(
    rig, tmp_path, caplog, replies, note, requests
):
    caplog.set_level(logging.INFO)
    with FakeOpenAI(default=completion("Too late [1].")) as server:
        server.script(*replies)
        fake, events, _ = rig(llm_settings(tmp_path / "data", server.url))
        pdf = fake.add_file("notes.pdf", simple_pdf(INJECTION_PAGES))
        _, answer = ask(fake, events, POWER_QUESTION, [pdf])
    assert len(server.requests) == requests

    text = shown(answer)
    assert f"{note}; this answer is extractive." in text
    assert FACT[:-1] + " [1]" in text and "Mode: extractive" in text
    received = everything_posted(fake) + "".join(c.body.decode("latin-1") for c in fake.calls)
    for raw in PROVIDER_TEXT:
        assert raw not in received
    assert ORG_ID not in caplog.text and "org_[redacted]" in caplog.text  # logged, masked


def test_secrets_reach_neither_the_logs_nor_slack(rig, tmp_path):
    with FakeOpenAI() as server, ExitStack() as stack:
        server.script(unauthorized(), completion(f"{FACT[:-1]} [1]."))
        cfg = secret_config(tmp_path / "data", GROQ_BASE_URL=server.url)
        logs = stack.enter_context(debug_logs(cfg.secrets()))
        fake, events, _ = rig(
            cfg.settings, token=cfg.slack_bot_token, secret=cfg.slack_signing_secret
        )
        pdf = fake.add_file("notes.pdf", simple_pdf(INJECTION_PAGES))
        _, rejected = ask(fake, events, POWER_QUESTION, [pdf])
        _, answered = ask(fake, events, "What does the Kestrel turbine produce?")
        forged = fake.user_post(CHANNEL, "<@UBOT> forged")
        status, _, _ = events.send(fake.app_mention(forged), secret="not-the-signing-secret")
        rig.stop()  # inside the capture: shutting down logs too
        text = logs.getvalue()

    assert status == 401
    assert "Groq rejected the key (check GROQ_API_KEY)" in shown(rejected)
    assert "llama-3.3-70b-versatile" in shown(answered)
    # the capture really saw the libraries at DEBUG, the bot and the failures
    for seen in ("slack_sdk.web", "slack_bolt", "groq", "httpcore", "papertrail.answer.llm", "401"):
        assert seen in text, seen
    assert_no_secret(text, "the log")
    assert_no_secret(everything_posted(fake), "Slack messages")
    with fake.lock:
        calls: list[Call] = list(fake.calls)
    for call in calls:  # every request but its Authorization header
        assert_no_secret(json.dumps(call.params, default=str), call.method)
        assert_no_secret(call.body.decode("latin-1"), call.method)
    for upload in fake.shared_files():
        assert_no_secret(upload.data.decode("latin-1"), "an uploaded image")
    bearer = f"Bearer {SECRETS['SLACK_BOT_TOKEN']}"  # the real token was used, as auth only
    assert any(c.headers.get("authorization") == bearer for c in calls)


HOSTILE = "../../etc/<!channel>*evil*.pdf"


def test_a_hostile_upload_name_is_sanitised_on_disk_and_in_markup(rig, tmp_path):
    data = tmp_path / "deep" / "data"
    fake, events, pipeline = rig(Settings(data_dir=data, ocr=False))
    pdf = fake.add_file(HOSTILE, simple_pdf(INJECTION_PAGES))
    post, answer = ask(fake, events, POWER_QUESTION, [pdf])

    [doc] = pipeline.documents(f"slack:T1:{CHANNEL}")
    assert SAFE_NAME.fullmatch(doc.name) and "/" not in doc.name and ".." not in doc.name
    assert f"[1] {doc.name}, page 1" in shown(answer)
    posted = everything_posted(fake)
    for bad in ("../", "etc/", "*evil*", "&lt;!channel&gt;*"):
        assert bad not in posted, bad
    assert_cannot_mention(fake)
    assert_only_in(fake, CHANNEL, post["ts"])
    [upload] = fake.shared_files(CHANNEL)
    assert re.fullmatch(r"[A-Za-z0-9._-]+\.png", upload.filename) and "*" not in upload.title
    # on disk: only the data directory, with PDFs named by content hash
    for path in files_under(tmp_path):
        assert path.resolve().is_relative_to(data.resolve()), path
    assert not [p for p in tmp_path.rglob("*") if p.name in ("etc", "evil")]
    assert [p.name for p in files_under(data / "files")] == [f"{doc.doc_id}.pdf"]


@pytest.mark.parametrize(
    ("name", "mimetype", "expected"),
    [
        (HOSTILE, "application/pdf", "download channel__evil.pdf: Slack sent a sign-in page"),
        ("<!channel> *notes*", "text/plain", "channel_ _notes is not a PDF"),
    ],
    ids=["download-fails", "not-a-pdf"],
)
def test_a_hostile_name_in_an_error_reply_is_sanitised(rig, tmp_path, name, mimetype, expected):
    fake, events, _ = rig(Settings(data_dir=tmp_path / "data", ocr=False))
    fake.sign_in_page_for_files = True  # a PDF download fails, and the reply names the file
    upload = fake.add_file(name, simple_pdf(INJECTION_PAGES), mimetype=mimetype)
    _, reply = ask(fake, events, POWER_QUESTION, [upload])

    assert expected in shown(reply)
    posted = everything_posted(fake)
    for bad in ("../", "etc/", "*evil*", "*notes*", "document."):
        assert bad not in posted, bad
    assert_cannot_mention(fake)

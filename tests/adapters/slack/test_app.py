"""The Slack app's plumbing: per-channel worker, mention parsing, modes, ignored events."""

import logging
import threading
import time

import pytest

from adapters.chat.service import Reply
from adapters.slack.app import (
    ChannelWorker,
    build_slack_app,
    mentions,
    run_http,
    start_socket_mode,
    strip_mention,
)
from papertrail.errors import PaperTrailError
from tests.fake_slack import FakeSlack, RunningBot
from tests.fake_slack_socket import FakeSocketMode
from tests.fakes import NoLibrary

SECRET = "app-test-secret"


class EchoService(NoLibrary):
    """Answers with the question it was asked."""

    def __init__(self) -> None:
        self.mentions = []

    def handle(self, mention, progress=None) -> Reply:
        self.mentions.append(mention)
        return Reply(kind="answer", text=f"You asked: {mention.text}")


@pytest.fixture
def fake():
    with FakeSlack() as fake:
        yield fake


def test_strip_mention_removes_the_bot_and_decodes_entities():
    assert strip_mention("<@UBOT> is a &lt; b &amp;&amp; c?", "UBOT") == "is a < b && c?"
    assert strip_mention("hey <@UBOT|papertrail>  what\nnow", "UBOT") == "hey what now"
    assert strip_mention("ask <@UOTHER> too", "UBOT") == "ask <@UOTHER> too"
    assert mentions("x <@UBOT> y", "UBOT") and mentions("<@UBOT|pt>", "UBOT")
    assert not mentions("<@UBOTX>", "UBOT") and not mentions("<@UBOT>", "")


def test_worker_runs_one_job_per_channel_in_order_and_channels_in_parallel():
    worker = ChannelWorker(workers=2)
    gate = threading.Event()
    order: list[str] = []
    other_done = threading.Event()
    worker.submit("C1", lambda: (gate.wait(5), order.append("c1-first")))
    worker.submit("C1", lambda: order.append("c1-second"))
    worker.submit("C2", lambda: (order.append("c2"), other_done.set()))
    assert other_done.wait(2)  # C2 ran while C1's first job was blocked
    assert order == ["c2"]
    gate.set()
    deadline = time.monotonic() + 2
    while len(order) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert order == ["c2", "c1-first", "c1-second"]
    worker.shutdown()


def test_a_failing_job_does_not_stop_its_channel():
    worker = ChannelWorker(workers=1)
    done = threading.Event()
    worker.submit("C1", lambda: 1 / 0)
    worker.submit("C1", done.set)
    assert done.wait(2)
    worker.shutdown()


def test_http_mode_needs_a_signing_secret(fake):
    app = build_slack_app(EchoService(), bot_token=fake.token, api_url=fake.api_url.rstrip("/"))
    with pytest.raises(PaperTrailError, match="SLACK_SIGNING_SECRET"):
        run_http(app, 0)
    with pytest.raises(PaperTrailError, match="xapp-"):
        start_socket_mode(app, "xoxb-not-an-app-token")
    assert fake.calls_to("auth.test")  # api_url without the trailing slash still works
    app.papertrail.close()


def test_other_message_events_are_acknowledged_and_ignored(fake):
    service = EchoService()
    bot = RunningBot(
        build_slack_app(service, bot_token=fake.token, signing_secret=SECRET, api_url=fake.api_url),
        SECRET,
    )
    try:
        post = fake.user_post("C1", "<@UBOT> hello")
        base = fake.message_event(post)
        edited = dict(base, subtype="message_changed", message=dict(post, text="<@UBOT> edit"))
        deleted = dict(base, subtype="message_deleted")
        from_bot = dict(base, subtype="bot_message", bot_id="BOTHER")
        joined = dict(base, subtype="channel_join", text="<@UBOT> has joined")
        for event in (edited, deleted, from_bot, joined):
            assert bot.events.send(event)[0] == 200  # not 404, which Slack would retry
        time.sleep(0.3)
        assert service.mentions == [] and fake.calls_to("chat.postMessage") == []
    finally:
        bot.close()


def test_socket_mode_receives_events_acks_them_and_answers_once(fake):
    socket = FakeSocketMode(fake)
    service = EchoService()
    app = build_slack_app(service, bot_token=fake.token, api_url=fake.api_url)
    handler = start_socket_mode(app, socket.app_token)
    try:
        post = fake.user_post("C1", "<@UBOT> over the socket?")
        first = socket.send(fake.app_mention(post), event_id="EvX")
        retry = socket.send(fake.app_mention(post), event_id="EvX", retry_attempt=1)

        fake.wait_for(lambda: fake.bot_messages("C1", post["ts"]))
        fake.wait_for(lambda: socket.acked(first) and socket.acked(retry))
        (message,) = fake.bot_messages("C1", post["ts"])
        assert message["text"] == "You asked: over the socket?"
        assert len(service.mentions) == 1 and socket.opened == 1
    finally:
        # slack_sdk's close() joins its timer threads (~3 s): let it finish in the background.
        threading.Thread(target=handler.close, daemon=True).start()
        fake.wait_for(lambda: handler.client.closed)
        app.papertrail.close()
        socket.close()


def test_url_verification_challenge_is_answered(fake):
    app = build_slack_app(
        EchoService(), bot_token=fake.token, signing_secret=SECRET, api_url=fake.api_url
    )
    bot = RunningBot(app, SECRET)
    try:
        challenge = {"token": "t", "challenge": "3eZbrw1aBm2rZgRNFdxV", "type": "url_verification"}
        status, body, _ = bot.events.post(challenge)
        assert status == 200 and "3eZbrw1aBm2rZgRNFdxV" in body
        assert bot.events.post(challenge, secret="wrong")[0] == 401
    finally:
        bot.close()


def test_no_warning_at_start_when_the_environment_holds_the_token(fake, monkeypatch, caplog):
    monkeypatch.setenv("SLACK_BOT_TOKEN", fake.token)  # as in production: .env sets it
    with caplog.at_level(logging.WARNING):
        build_slack_app(EchoService(), bot_token=fake.token, api_url=fake.api_url)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []

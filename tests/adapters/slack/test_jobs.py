"""A taken-over question's thread: the dead worker's progress message is rewritten, once."""

from __future__ import annotations

from slack_sdk import WebClient

from adapters.slack.jobs import TAKEN_OVER, retire_stale_progress
from tests.fake_slack import FakeSlack


def test_only_the_bots_unfinished_progress_messages_are_rewritten():
    with FakeSlack() as fake:
        client = WebClient(token=fake.token, base_url=fake.api_url)
        post = fake.user_post("C1", "<@UBOT> what is in it?")
        stale = client.chat_postMessage(
            channel="C1", thread_ts=post["ts"], text=":hourglass_flowing_sand: Indexing a.pdf…"
        )
        done = client.chat_postMessage(channel="C1", thread_ts=post["ts"], text="An answer [1]")
        fake.user_post("C1", ":hourglass: a person's own message", thread_ts=post["ts"])
        assert retire_stale_progress(client, "C1", post["ts"], fake.bot_user) == 1
        texts = {m["ts"]: m["text"] for m in fake.bot_messages("C1", post["ts"])}
        assert texts == {stale["ts"]: TAKEN_OVER, done["ts"]: "An answer [1]"}
        assert retire_stale_progress(client, "C1", post["ts"], fake.bot_user) == 0


def test_an_unreadable_thread_is_logged_not_raised():
    with FakeSlack() as fake:
        client = WebClient(token=fake.token, base_url=fake.api_url)
        fake.errors["conversations.replies"] = {"error": "missing_scope"}
        assert retire_stale_progress(client, "C1", "1700000001.000001", fake.bot_user) == 0

"""Forgetting on Slack: shares, not bytes, are owned, and a forgotten file stays forgotten.

The real Bolt app over loopback HTTP against FakeSlack, with the real
ChatService and pipeline (``slack_on_pipeline``). Alice is U1, Bob U2; neither
is an admin. The same on Discord is tests/scenarios/test_forget_discord.py.
"""

from __future__ import annotations

import pytest

from tests.fake_slack import final_messages, shown_text
from tests.fakes import slack_on_pipeline
from tests.pdfs import paper_pdf
from tests.scenarios.test_slack_library import HARBOUR, SECRET, command, drop, indexed

ALICE, BOB = "U1", "U2"
PAPER = "attention-is-all-you-need.pdf"
QUESTION = "<@UBOT> How many parallel attention heads are used?"


@pytest.fixture
def slack(tmp_path):
    with slack_on_pipeline(tmp_path, SECRET, progress_interval=0.0) as running:
        yield running


def names(slack, channel: str = "C1") -> list[str]:
    return sorted(d.name for d in slack.pipeline.documents(f"slack:T1:{channel}"))


def ask_as(slack, user: str, text: str, channel: str = "C1") -> dict:
    """``user`` mentions the bot in a new post; the bot's final reply in its thread."""
    post = slack.fake.user_post(channel, text, user=user)
    slack.events.send(slack.fake.app_mention(post))
    slack.events.send(slack.fake.message_event(post))
    slack.fake.wait_for(lambda: final_messages(slack.fake, channel, post["ts"]), timeout=20)
    return final_messages(slack.fake, channel, post["ts"])[-1]


def test_the_same_bytes_under_another_name_do_not_let_bob_forget_alices_file(slack):
    data = paper_pdf()
    _, alices = drop(slack, "C1", PAPER, data, user=ALICE)
    indexed(slack, "C1", alices)
    _, bobs = drop(slack, "C1", "my-copy.pdf", data, user=BOB)  # the same bytes, his post
    indexed(slack, "C1", bobs)

    refused = shown_text(command(slack, f"forget {PAPER}", user=BOB))
    assert f"Only the person who shared {PAPER}" in refused
    assert names(slack) == [PAPER]
    assert PAPER in shown_text(ask_as(slack, BOB, QUESTION))  # still answered from it

    own = shown_text(command(slack, "forget my-copy.pdf", user=BOB))  # his share: allowed
    assert "Forgot my-copy.pdf." in own and "still shared here" in own
    assert names(slack) == [PAPER]  # Alice's share keeps the document
    assert "Forgot attention" in shown_text(command(slack, f"forget {PAPER}", user=ALICE))
    assert names(slack) == []  # the last share went, and the document with it


def test_a_forgotten_file_stays_forgotten_until_someone_posts_it_again(slack):
    fake = slack.fake
    data = paper_pdf()
    _, post = drop(slack, "C1", PAPER, data, user=ALICE)
    indexed(slack, "C1", post)
    assert "Forgot" in shown_text(command(slack, f"forget {PAPER}", user=ALICE))
    assert names(slack) == []
    fetched = len([c for c in fake.calls if c.method.startswith("GET /files-pri/")])

    reply = shown_text(ask_as(slack, BOB, QUESTION))  # the post is still in recent history
    assert "I don't see a PDF here yet" in reply and PAPER not in reply
    assert names(slack) == [] and PAPER not in shown_text(command(slack, "list", user=BOB))
    downloads = [c for c in fake.calls if c.method.startswith("GET /files-pri/")]
    assert len(downloads) == fetched  # not even downloaded again

    _, again = drop(slack, "C1", "paper-again.pdf", data, user=BOB)  # posted anew
    indexed(slack, "C1", again)
    assert names(slack) == ["paper-again.pdf"]
    assert "paper-again.pdf" in shown_text(ask_as(slack, BOB, QUESTION))


def test_re_sharing_the_same_slack_file_in_a_new_message_brings_it_back(slack):
    fake = slack.fake
    pdf, post = drop(slack, "C1", "harbour.pdf", HARBOUR, user=ALICE)
    indexed(slack, "C1", post)
    command(slack, "forget harbour.pdf", user=ALICE)
    assert "I don't see a PDF" in shown_text(ask_as(slack, BOB, "<@UBOT> How deep is the basin?"))

    shared = fake.user_post("C1", "this one again", files=[pdf], user=ALICE)  # same file id
    slack.events.send(fake.message_event(shared))
    indexed(slack, "C1", shared)
    assert names(slack) == ["harbour.pdf"]


def test_an_admins_forget_all_stays_forgotten_too(slack):
    slack.fake.users["UADMIN"] = {"is_admin": True, "is_owner": False}
    _, paper = drop(slack, "C1", PAPER, paper_pdf(), user=ALICE)
    _, harbour = drop(slack, "C1", "harbour.pdf", HARBOUR, user=BOB)
    indexed(slack, "C1", paper)
    indexed(slack, "C1", harbour)
    assert "Only a workspace admin" in shown_text(command(slack, "forget all", user=ALICE))
    assert "Forgot" in shown_text(command(slack, "forget all", user="UADMIN"))

    reply = shown_text(ask_as(slack, BOB, "<@UBOT> How deep was the northern basin dredged?"))
    assert "I don't see a PDF here yet" in reply and names(slack) == []

"""One bad gateway event, and a forged reply reference, against the real discord.py client.

The client, ``ChatService`` and pipeline are real; FakeDiscord speaks the
gateway and REST. A ``MESSAGE_CREATE`` whose ``message_reference`` has no
``channel_id`` made discord.py's parser raise, which ended the connection and
the process: it must be logged and dropped, and the next question on the same
connection answered. A reply whose ``message_reference`` names this channel
while the ``referenced_message`` Discord resolved is another channel's must
not bring that message's PDF into this channel.
"""

from __future__ import annotations

import logging

from papertrail.settings import Settings
from tests.fake_discord import ALICE, BOT_ID, GUILD_ID, FakeDiscord
from tests.fake_discord_payloads import member, message
from tests.pdfs import simple_pdf
from tests.scenarios.test_security_discord import GENERAL, RANDOM, shown
from tests.scenarios.test_security_discord import rig as rig  # the fixture

FACT = "The Kestrel bridge opened in 1998 after four years of work."


def malformed_reply(fake: FakeDiscord, msg_id: int) -> dict:
    """A reply whose ``message_reference`` lacks ``channel_id`` (discord.py raised KeyError)."""
    data = message(msg_id, GENERAL, ALICE, f"<@{BOT_ID}> what does it say?", [])
    data.update(mentions=[fake.bot], type=19, guild_id=str(GUILD_ID), member=member(ALICE))
    data["message_reference"] = {"message_id": "1199999999999999999"}
    return data


def test_malformed_events_are_logged_and_the_next_question_is_answered(rig, tmp_path, caplog):
    caplog.set_level(logging.INFO)
    fake, pipeline = rig(Settings(data_dir=tmp_path / "data", ocr=False))
    connected = list(fake.shards)
    fake.deliver("MESSAGE_CREATE", malformed_reply(fake, 1199999999999999001))
    fake.deliver("MESSAGE_CREATE", {"id": "not a message"})  # nothing a parser expects

    pdf = fake.attachment("bridge.pdf", simple_pdf([FACT]))
    fake.send(GENERAL, f"<@{BOT_ID}> When did the Kestrel bridge open?", attachments=[pdf])
    [reply] = [m for m in fake.answered(GENERAL, "1998", timeout=30) if "1998" in m["content"]]
    assert "[1]" in reply["content"] or reply["embeds"]
    assert fake.shards == connected  # the same connection: no reconnect, no restart
    said = [r.getMessage() for r in caplog.records]
    # the reference without a channel is dropped (the message stays a plain one) ...
    assert sum("dropped a reply reference" in m for m in said) == 1
    # ... and an event no parser can read is logged once and skipped
    assert sum("ignored a malformed MESSAGE_CREATE" in m for m in said) == 1, said


def test_a_forged_reference_to_another_channels_message_is_not_followed(rig, tmp_path):
    fake, pipeline = rig(Settings(data_dir=tmp_path / "data", ocr=False))
    secret = simple_pdf(["The vault combination of the Kestrel site is 4417."])
    shared = fake.send(
        RANDOM, "for #random only", attachments=[fake.attachment("vault.pdf", secret)]
    )
    fake.wait_for(lambda: fake.reactions(RANDOM, shared)[-1:] == ["+✅"], 20)
    hits = len(fake.cdn_hits)

    # the reference claims #general; the message Discord "resolved" is #random's
    forged = {"message_id": shared["id"], "channel_id": str(GENERAL), "guild_id": str(GUILD_ID)}
    fake.send(
        GENERAL, f"<@{BOT_ID}> What is the vault combination?", reply_to=shared, reference=forged
    )
    [reply] = fake.answered(GENERAL, "PDF", timeout=20)
    assert "I don't see a PDF here yet" in reply["content"]
    assert "4417" not in shown(fake) and "vault.pdf" not in shown(fake)
    assert pipeline.documents(f"discord:{GENERAL}") == []
    assert len(fake.cdn_hits) == hits  # its PDF was not even downloaded for #general

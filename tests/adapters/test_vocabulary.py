"""One set of command words on Slack, Discord, the console and the CLI; help lists them all."""

from __future__ import annotations

import argparse
import io

from adapters.chat.replies import ALIASES, COMMANDS, help_reply
from adapters.discord.client import build_client
from adapters.local import HELP as CONSOLE_HELP
from adapters.local import LocalConsole
from adapters.slack.commands import USAGE as SLACK_USAGE
from adapters.slack.commands import CommandSeat, run_command
from papertrail.cli.main import build_parser
from tests.adapters.test_local import RecordingService

WORDS = ["ask", "list", "forget", "help"]


def test_the_words_are_the_same_everywhere():
    assert list(COMMANDS) == WORDS
    chat_help = help_reply().text
    cli = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    discord_tree = build_client(RecordingService()).tree
    slash = {c.name for c in discord_tree.get_commands()}
    for word in WORDS:
        assert f"`{word}" in chat_help  # the help every chat channel sends
        assert f"/papertrail {word}" in SLACK_USAGE
        assert f"/{word}" in CONSOLE_HELP
        assert word in slash
        assert word in cli.choices
    assert set(ALIASES.values()) <= set(WORDS)  # the older names are aliases of these
    assert "docs" in slash and "docs" in cli.choices


SEAT = CommandSeat(post=lambda channel, text: None, is_admin=lambda user: False)


def test_slack_and_console_take_the_aliases_and_the_words(tmp_path):
    service = RecordingService()
    for text in ["list", "docs", "help", "forget a.pdf"]:
        run_command(service, SEAT, {"text": text, "channel_id": "C1"}, lambda *a, **k: None)
    assert [m.text for m in service.mentions] == ["list", "list", "help", "forget a.pdf"]
    console = LocalConsole(service, out=io.StringIO(), out_dir=tmp_path, channel="local:t")
    for line in ["/list", "/docs", "/ask What is the warranty?"]:
        assert console.command(line)
    assert [m.text for m in service.mentions[4:]] == ["list", "list", "What is the warranty?"]

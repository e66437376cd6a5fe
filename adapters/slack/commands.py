"""The ``/papertrail`` slash command: ask, list, forget <file>, forget all, help.

Bolt acks the command at once (Slack wants an answer within 3 s) and the work
runs on the channel's worker. ``list``, ``forget`` and ``help`` answer only
the person who typed them, through ``response_url`` (ephemeral). ``ask``
answers in the channel for everyone: the question is posted as a message and
the answer goes into its thread, with page images, so the thread is a
conversation the asker can follow up in without a mention. Who may forget is
decided by the service, from ``users.info`` (``SlackBot.is_admin``). The
command gets the service and a ``CommandSeat`` (how to open a thread, who is an
admin), not the app, so it does not depend on ``events.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from slack_sdk.errors import SlackApiError

from adapters.chat.replies import ALIASES, COMMANDS, Reply
from adapters.chat.service import ChatService, Mention
from adapters.slack.format import escape, reply_messages
from adapters.slack.ids import library, thread_key
from adapters.slack.reply import ThreadResponder

log = logging.getLogger(__name__)

COMMAND = "/papertrail"
USAGE = (
    "Usage: `/papertrail ask <question>` · `/papertrail list` · `/papertrail forget <file>` · "
    "`/papertrail forget all` · `/papertrail help`"
)
Respond = Callable[..., object]  # Bolt's respond(): posts to the command's response_url


@dataclass(frozen=True)
class CommandSeat:
    """Where a command answers: ``post(channel, text)`` posts a message and returns the
    ``ThreadResponder`` of its thread (raises ``SlackApiError``); ``is_admin(user)``."""

    post: Callable[[str, str], ThreadResponder]
    is_admin: Callable[[str], bool]


def run_command(service: ChatService, seat: CommandSeat, command: dict, respond: Respond) -> None:
    """Carry out one ``/papertrail`` command (on the worker pool, after the ack)."""
    team = command.get("team_id", "")
    channel, user = command.get("channel_id", ""), command.get("user_id", "")
    words = (command.get("text") or "").strip().split(maxsplit=1)
    verb = words[0].lower() if words else "help"
    verb = ALIASES.get(verb, verb)
    rest = words[1] if len(words) > 1 else ""
    if verb not in COMMANDS:
        verb, rest = "ask", " ".join(words)  # "/papertrail What is…?" asks
    if verb == "ask":
        if not rest:
            _private(respond, Reply(kind="error", text=USAGE))
            return
        _ask(service, seat, team, channel, user, rest, respond)
        return
    text = verb if verb != "forget" else f"forget {rest}".strip()
    mention = Mention(
        channel=library(team, channel),
        text=text,
        user=user,
        admin=lambda: seat.is_admin(user),
    )
    reply = service.handle(mention)
    if verb == "help":
        reply = Reply(kind="help", text=f"{reply.text}\n\n{USAGE}")
    _private(respond, reply)


def _ask(service, seat: CommandSeat, team, channel, user, question: str, respond) -> None:
    try:
        # the only mention: who asked
        responder = seat.post(channel, f"<@{user}> asked: {escape(question)}")
    except SlackApiError as err:
        error = err.response.get("error", "error")
        log.warning("posting a /papertrail question failed: %s", error)
        text = (
            "I can't post in this channel: invite me with /invite @PaperTrail and try again."
            if error in ("not_in_channel", "channel_not_found")
            else f"I could not post your question here: Slack answered `{error}`."
        )
        _private(respond, Reply(kind="error", text=text))
        return
    mention = Mention(
        channel=library(team, channel),
        text=question,
        user=user,
        thread=thread_key(team, channel, responder.thread_ts),
        admin=lambda: seat.is_admin(user),
    )
    responder.finish(service.handle(mention, responder.progress))


def _private(respond: Respond, reply: Reply) -> None:
    """``reply`` to the person who typed the command only."""
    message = reply_messages(reply)[0]
    respond(text=message.text, blocks=list(message.blocks), response_type="ephemeral")

"""The interactive parts of the bot's messages: feedback buttons and suggested questions.

An answer ends with a ``context_actions`` block holding Slack's
``feedback_buttons`` (👍/👎; the value names the answer: ``up:<id>`` or
``down:<id>``). A reply after a drop carries up to three buttons, one per
suggested question (the value is the question itself). Clicks arrive as
``block_actions`` (interactivity must be on in the manifest); ``parse_vote``
and ``SUGGEST_ACTION`` tell them apart, and ``on_click`` acts on them: a vote
is stored and acknowledged privately through the payload's ``response_url``;
a suggested question is queued as a question asked in that thread.
"""

from __future__ import annotations

import logging
import re

from adapters.chat.feedback import vote_note
from adapters.chat.text import clip
from adapters.slack.ids import library

log = logging.getLogger(__name__)

FEEDBACK_ACTION = "pt_feedback"
SUGGEST_ACTION = re.compile(r"^pt_suggest_\d+$")
BUTTON_TEXT = 75  # characters in a button's label (Slack's limit)
BUTTON_VALUE = 2000  # characters in a button's value (Slack's limit)
_VOTE = re.compile(r"^(up|down):([0-9a-f]{6,32})$")


def feedback_block(answer_id: str) -> dict:
    """👍/👎 under an answer."""

    def button(emoji: str, label: str, verdict: str) -> dict:
        return {
            "text": {"type": "plain_text", "text": emoji},
            "accessibility_label": label,
            "value": f"{verdict}:{answer_id}",
        }

    return {
        "type": "context_actions",
        "block_id": f"feedback-{answer_id}",
        "elements": [
            {
                "type": "feedback_buttons",
                "action_id": FEEDBACK_ACTION,
                "positive_button": button("👍", "This answer is right", "up"),
                "negative_button": button("👎", "This answer is wrong", "down"),
            }
        ],
    }


def suggestion_block(questions) -> dict:
    """One button per suggested question; clicking asks it in the thread."""
    return {
        "type": "actions",
        "block_id": "suggestions",
        "elements": [
            {
                "type": "button",
                "action_id": f"pt_suggest_{i}",
                "text": {"type": "plain_text", "text": clip(q, BUTTON_TEXT), "emoji": False},
                "value": clip(q, BUTTON_VALUE),
            }
            for i, q in enumerate(questions[:5])
        ],
    }


def parse_vote(value: str) -> tuple[str, str] | None:
    """``(verdict, answer id)`` from a feedback button's value; None if it is not one."""
    m = _VOTE.match(value or "")
    return (m.group(1), m.group(2)) if m else None


def prompts(questions) -> list[dict]:
    """``assistant.threads.setSuggestedPrompts``' prompts (title <= 75 characters)."""
    return [{"title": clip(q, BUTTON_TEXT), "message": q} for q in questions[:4]]


def on_click(bot, body: dict, respond=None) -> None:
    """Act on a ``block_actions`` payload for ``bot`` (a ``SlackBot``)."""
    team = (body.get("team") or {}).get("id") or ""
    user = (body.get("user") or {}).get("id") or ""
    container = body.get("container") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id") or ""
    message = body.get("message") or {}
    thread = container.get("thread_ts") or message.get("thread_ts") or message.get("ts")
    for action in body.get("actions") or ():
        action_id = action.get("action_id", "")
        if action_id == FEEDBACK_ACTION and (vote := parse_vote(action.get("value", ""))):
            verdict, answer_id = vote
            outcome = bot.service.vote(library(team, channel), answer_id, user, verdict)
            _acknowledge(respond, vote_note(outcome, verdict))
        elif SUGGEST_ACTION.match(action_id) and channel and thread and user:
            stamp = action.get("action_ts") or body.get("trigger_id") or ""
            if not bot.seen.first(("action", team, channel, stamp, user)):
                continue
            event = {  # the click, shaped as the question it asks
                "type": "message",
                "channel": channel,
                "user": user,
                "text": action.get("value", ""),
                "ts": stamp or thread,
                "thread_ts": thread,
                "channel_type": "im" if channel.startswith("D") else "channel",
            }
            bot.queue("answer", team, channel, event=event, asked_by=user)


def _acknowledge(respond, note: str) -> None:
    if respond is not None:
        try:
            respond(text=note, response_type="ephemeral", replace_original=False)
        except Exception as err:  # the vote is stored; the note is a courtesy
            log.info("feedback acknowledgement failed: %s", type(err).__name__)

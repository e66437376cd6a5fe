"""The interactive parts of the bot's messages: feedback buttons and suggested questions.

An answer ends with a ``context_actions`` block holding Slack's
``feedback_buttons`` (👍/👎; the value names the answer: ``up:<id>`` or
``down:<id>``). A reply after a drop carries up to three buttons, one per
suggested question (the value is the question itself). Clicks arrive as
``block_actions`` (interactivity must be on in the manifest); ``parse_vote``
and ``SUGGEST_ACTION`` let the app's listeners tell them apart. Nothing here
calls Slack; ``events.py`` acts on the clicks.
"""

from __future__ import annotations

import re

from adapters.chat.text import clip

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

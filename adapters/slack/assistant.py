"""Slack's assistant thread calls, each best-effort: status, title, suggested prompts.

In the app's assistant view (a DM thread opened from the assistant panel)
Slack shows a status line under the thread ("Indexing report.pdf — 45/76
pages") while the bot works, a title in the thread list and suggested
prompts the person can click. ``AssistantThread`` makes those calls and
never lets one fail or block an answer: an error (``invalid_thread_ts`` in
a thread that is not an assistant thread, a missing scope, a workspace
without the feature, a network failure) is logged once and the thread stops
trying; ``ok`` then tells the responder to fall back to progress messages.
Left out: the ``loading_messages`` rotation (one honest line is shown).
"""

from __future__ import annotations

import logging

from slack_sdk import WebClient

from adapters.chat.text import clip
from adapters.slack.actions import prompts

log = logging.getLogger(__name__)

STATUS_LIMIT = 250  # characters of a status line shown
TITLE_LIMIT = 255
DEFAULT_PROMPTS = (
    ("What can you do?", "help"),
    ("Which documents do you have?", "list"),
)


class AssistantThread:
    """Status, title and prompts of one assistant thread (``channel``, ``thread_ts``)."""

    def __init__(self, client: WebClient, channel: str, thread_ts: str) -> None:
        self.client, self.channel, self.thread_ts = client, channel, thread_ts
        self.ok = True  # False once Slack refused: not an assistant thread after all

    def status(self, line: str) -> bool:
        """Show ``line`` as the thread's status ("" clears it); False if Slack refused."""
        return self._call(
            "assistant_threads_setStatus", status=clip(line, STATUS_LIMIT) if line else ""
        )

    def asking(self, question: str, *, first: bool) -> None:
        """A question arrives: the first one titles the thread; say work has begun."""
        if first:
            self.title(question)
        self.status("Reading the documents…")

    def title(self, text: str) -> bool:
        return self._call("assistant_threads_setTitle", title=clip(text, TITLE_LIMIT))

    def suggest(self, questions, title: str = "Try asking") -> bool:
        return self._call(
            "assistant_threads_setSuggestedPrompts", prompts=prompts(questions), title=title
        )

    def greet(self) -> bool:
        """A new thread's prompts: what the bot can do and what it holds."""
        return self._call(
            "assistant_threads_setSuggestedPrompts",
            prompts=[{"title": t, "message": m} for t, m in DEFAULT_PROMPTS],
            title="Share a PDF here, or ask about the ones you shared",
        )

    def _call(self, method: str, **kwargs) -> bool:
        if not self.ok:
            return False
        try:
            getattr(self.client, method)(
                channel_id=self.channel, thread_ts=self.thread_ts, **kwargs
            )
            return True
        except Exception as err:  # SlackApiError, a timeout, a workspace without assistants
            error = getattr(getattr(err, "response", None), "get", lambda *_: None)("error")
            log.info("%s failed (%s): progress goes in messages", method, error or err)
            self.ok = False
            return False

"""Tidying a Slack thread after a worker took over a dead worker's question.

A worker that died mid-question leaves its progress message ("Indexing
report.pdf — 40/120 pages") in the thread forever. The worker that takes the
job over (``adapters/jobs.py``) first rewrites such messages of the bot into
a short note, then answers below as usual. Found statelessly with
``conversations.replies``, so nothing about the dead worker's messages has
to be stored. Left out: the answer itself (``adapters/slack.py``).
"""

from __future__ import annotations

import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

log = logging.getLogger(__name__)

PROGRESS = ":hourglass"  # how slack_format.progress_message starts
TAKEN_OVER = ":arrows_counterclockwise: The worker handling this stopped; another one took over."


def retire_stale_progress(client: WebClient, channel: str, thread_ts: str, bot_user: str) -> int:
    """Rewrite the bot's unfinished progress messages in the thread; how many were."""
    try:
        found = client.conversations_replies(channel=channel, ts=thread_ts, limit=200)
    except SlackApiError as err:
        log.warning("could not read thread %s/%s: %s", channel, thread_ts, err.response["error"])
        return 0
    stale = [
        m
        for m in found.get("messages", [])
        if m.get("user") == bot_user and str(m.get("text", "")).startswith(PROGRESS)
    ]
    for message in stale:
        try:
            client.chat_update(channel=channel, ts=message["ts"], text=TAKEN_OVER, blocks=[])
        except SlackApiError as err:
            log.warning("could not update a stale progress message: %s", err.response["error"])
    return len(stale)

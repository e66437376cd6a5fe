"""Slack ids and text as the service sees them: library and thread keys, the question.

The service keys a channel's library as ``slack:<team>:<channel>`` and a
conversation as ``slack:<team>:<channel>:<thread ts>``; a message's text
reaches it without the bot's ``<@U…>`` mention and with Slack's entities
decoded. Nothing here calls Slack.
"""

from __future__ import annotations

import html
import re


def strip_mention(text: str, bot_user_id: str) -> str:
    """The message text without ``<@BOT>`` and with Slack's entities decoded."""
    text = re.sub(rf"<@{re.escape(bot_user_id)}(\|[^>]*)?>", " ", text or "")
    return html.unescape(re.sub(r"\s+", " ", text)).strip()


def mentions(text: str, bot_user_id: str) -> bool:
    return (
        bool(bot_user_id) and re.search(rf"<@{re.escape(bot_user_id)}[|>]", text or "") is not None
    )


def library(team: str, channel: str) -> str:
    return f"slack:{team}:{channel}"


def thread_key(team: str, channel: str, thread_ts: str) -> str:
    return f"slack:{team}:{channel}:{thread_ts}"

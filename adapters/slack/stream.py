"""Streaming an answer into its thread: ``chat.startStream``, ``appendStream``, ``stopStream``.

Only text that has been checked is streamed: the pipeline verifies every
citation before the answer leaves it, so what appears sentence by sentence
is the verified text (sentences no passage states carry their ⚠️ mark from
the first character shown) and ``stopStream`` closes the message with the
sources, the footer and the buttons. A sentence whose citation failed is
never on screen as supported, not even for a moment. Any refusal from Slack
(a workspace or fake without streaming, a missing scope) makes
``stream_reply`` return None before anything was shown, and the caller posts
the reply as usual; a failure half-way turns the streamed message into the
full reply with ``chat.update``. Left out: streaming a model's draft while it
is being written (it is unchecked).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from slack_sdk import WebClient

from adapters.slack.format import SlackMessage, escape

log = logging.getLogger(__name__)

STREAM_LIMIT = 12_000  # characters of markdown one streamed message takes
PIECE = 80  # characters appended per call (about a sentence), cut at sentence ends


def pieces(text: str, size: int = PIECE) -> list[str]:
    """``text`` cut at sentence ends into pieces of about ``size`` characters; a
    sentence's ⚠️ mark stays in the piece of its sentence."""
    sentences = re.split(r"(?<=[.!?\n])(?=\s+(?!\s*⚠)|\n)", text)
    out: list[str] = []
    for s in sentences:
        if not s:
            continue
        if out and len(out[-1]) + len(s) <= size:
            out[-1] += s
        else:
            out.append(s)
    return out


def stream_reply(
    client: WebClient,
    channel: str,
    thread_ts: str,
    text: str,
    closing: SlackMessage,
    full: SlackMessage,
    *,
    recipient: tuple[str, str] | None = None,
    started: Callable[[], None] | None = None,
) -> str | None:
    """Stream ``text`` then close with ``closing``'s blocks; the message ts, or None when
    Slack would not stream (nothing was shown: post ``full`` instead). ``started`` runs
    once the stream exists (the caller removes its progress message then)."""
    markdown = escape(text)
    if len(markdown) > STREAM_LIMIT:
        return None
    extra = {}
    if recipient:  # Slack needs them when streaming into a channel rather than a DM
        extra = {"recipient_team_id": recipient[0], "recipient_user_id": recipient[1]}
    try:
        ts = client.chat_startStream(channel=channel, thread_ts=thread_ts, **extra)["ts"]
    except Exception as err:  # SlackApiError (unknown_method, not_allowed…), network
        log.info("chat.startStream refused (%s): posting the answer instead", _code(err))
        return None
    if started is not None:
        started()
    try:
        for piece in pieces(markdown):
            client.chat_appendStream(channel=channel, ts=ts, markdown_text=piece)
        client.chat_stopStream(channel=channel, ts=ts, blocks=list(closing.blocks))
    except Exception as err:
        log.warning("streaming stopped (%s): the message becomes the full answer", _code(err))
        try:
            payload = full.payload()
            for key in ("unfurl_links", "unfurl_media"):
                payload.pop(key)
            client.chat_update(channel=channel, ts=ts, **payload)
        except Exception as again:
            log.warning("chat.update after a broken stream failed (%s)", _code(again))
            return None
    return ts


def _code(err: Exception) -> str:
    response = getattr(err, "response", None)
    return str(response.get("error")) if hasattr(response, "get") else type(err).__name__

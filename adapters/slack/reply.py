"""Posts one mention's progress and answer into its Slack thread.

A ``ThreadResponder`` belongs to one question. Progress lines go into a single
message, posted on the first line and edited with ``chat.update`` at most once
per ``interval`` seconds; the final reply replaces that message (or is posted
if there was none), extra messages follow when the reply is too long for one,
and each citation's PNG is uploaded into the thread with the files_upload_v2
flow. Web API failures are logged with the fix and, where Slack still lets us
post, explained in the thread. Building the blocks is ``slack_format``'s job.
In an assistant thread (``assistant``) progress is the thread's status line
instead of a message, as long as Slack accepts it; an answer an LLM wrote is
streamed (``stream.py``) when Slack offers streaming, else posted.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from adapters.chat.replies import Reply
from adapters.chat.text import split_text
from adapters.slack.assistant import AssistantThread
from adapters.slack.format import (
    SlackMessage,
    escape,
    explain_api_error,
    notice_message,
    progress_message,
    reply_messages,
)
from adapters.slack.stream import stream_reply

log = logging.getLogger(__name__)

# Errors after which a message with blocks is retried as plain text.
_BLOCK_ERRORS = {"invalid_blocks", "msg_too_long", "msg_blocks_too_long", "invalid_blocks_format"}
# Errors after which chat.update falls back to posting a new message.
_UPDATE_ERRORS = {"message_not_found", "cant_update_message", "edit_window_closed"}
PLAIN_LIMIT = 3900  # characters per plain-text fallback message (Slack's text limit is 4,000)


def _error(err: SlackApiError) -> tuple[str, str]:
    return str(err.response.get("error", "error")), str(err.response.get("needed", ""))


class ThreadResponder:
    """Writes into the thread ``thread_ts`` of ``channel``."""

    def __init__(
        self,
        client: WebClient,
        channel: str,
        thread_ts: str,
        *,
        interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        progress_ts: str | None = None,
        assistant: AssistantThread | None = None,
        stream: bool = True,
        recipient: tuple[str, str] | None = None,  # (team, user) a stream is for
    ) -> None:
        self.assistant = assistant
        self.stream = stream
        self.recipient = recipient
        self.client = client
        self.channel = channel
        self.thread_ts = thread_ts
        self.interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        # the message progress lines are written into (one posted earlier, if given)
        self._progress_ts: str | None = progress_ts
        self._last_progress = float("-inf")
        self._broken = False  # posting failed for good (not in channel, no chat:write)

    @classmethod
    def for_event(cls, event: dict, team: str, client, channel, thread_ts, **kw):
        """The responder for a message ``event``: in a DM thread (where the assistant
        view lives; elsewhere setStatus is refused anyway) with the thread's status
        line, and streaming for the person who asked."""
        assistant = None
        if event.get("channel_type") == "im" and event.get("thread_ts"):
            assistant = AssistantThread(client, channel, thread_ts)
        user = event.get("user", "")
        recipient = (team, user) if team and user else None
        return cls(client, channel, thread_ts, assistant=assistant, recipient=recipient, **kw)

    # progress -----------------------------------------------------------

    @property
    def progress_ts(self) -> str | None:
        """The ts of the progress message, once one was posted."""
        return self._progress_ts

    def progress(self, line: str) -> None:
        """Show ``line``; calls closer than ``interval`` apart are dropped but the first."""
        with self._lock:
            now = self._clock()
            if self._broken or now - self._last_progress < self.interval:
                return
            self._last_progress = now
            if self.assistant is not None and self.assistant.status(line):
                return  # shown under the thread; no message to edit later
            message = progress_message(line)
            if self._progress_ts is None:
                self._progress_ts = self._post(message)
            else:
                self._update(self._progress_ts, message)

    # final reply ----------------------------------------------------------

    def finish(self, reply: Reply) -> None:
        """Replace the progress message with ``reply`` and upload its images."""
        with self._lock:
            if self._broken:
                return
            messages = reply_messages(reply)
            first, rest = messages[0], messages[1:]
            if len(messages) == 1 and self._streamed(reply, first):
                if reply.images:
                    self._upload(reply)
                return
            shown = self._progress_ts is not None and self._update(self._progress_ts, first)
            if not shown and self._post(first) is None:
                return
            for message in rest:
                self._post(message)
            if reply.images:
                self._upload(reply)

    def _streamed(self, reply: Reply, full: SlackMessage) -> bool:
        """Stream an LLM's answer (already verified); False when it was not streamed."""
        answer = reply.answer
        if (
            not self.stream
            or reply.kind != "answer"
            or answer is None
            or answer.mode == "extractive"  # quoted offline in one go: nothing to watch
            or not answer.grounded  # its warning must come first, and blocks come last
        ):
            return False
        closing = reply_messages(replace(reply, text=""))[0]
        ts = stream_reply(
            self.client,
            self.channel,
            self.thread_ts,
            reply.text,
            closing,
            full,
            recipient=self.recipient,
            started=self._drop_progress,
        )
        if ts is None:
            self.stream = False  # not offered here: later answers are posted at once
        return ts is not None

    def _drop_progress(self) -> None:
        """The streamed answer replaces the progress message: delete it (or, if Slack
        refuses, leave a line that points below rather than a stale status)."""
        ts, self._progress_ts = self._progress_ts, None
        if ts is None:
            return
        try:
            self.client.chat_delete(channel=self.channel, ts=ts)
        except SlackApiError:
            self._update(ts, SlackMessage("Answered below.", ()))

    def notice_question(self, user: str, question: str) -> None:
        """Say which suggested question is being answered (a click leaves no message)."""
        with self._lock:
            if not self._broken:
                text = f"❓ {escape(question)}"
                self._post(SlackMessage(text, ({"type": "section", "text": {
                    "type": "mrkdwn", "text": text, "verbatim": True}},)))  # fmt: skip

    def notice(self, line: str) -> None:
        with self._lock:
            if not self._broken:
                self._post(notice_message(line))

    # Web API calls ----------------------------------------------------------

    def _post(self, message: SlackMessage) -> str | None:
        """Post into the thread; the new message's ts, or None if Slack refused."""
        try:
            response = self.client.chat_postMessage(
                channel=self.channel, thread_ts=self.thread_ts, **message.payload()
            )
            return response.get("ts")
        except SlackApiError as err:
            error, needed = _error(err)
            if error in _BLOCK_ERRORS:
                return self._post_plain(message)
            self._give_up("post a reply", error, needed)
            return None

    def _post_plain(self, message: SlackMessage) -> str | None:
        """The message as plain-text messages, when Slack rejected its blocks."""
        ts = None
        for piece in split_text(message.plain(), PLAIN_LIMIT):
            try:
                response = self.client.chat_postMessage(
                    channel=self.channel,
                    thread_ts=self.thread_ts,
                    text=piece,
                    parse="none",
                    link_names=False,
                )
                ts = ts or response.get("ts")
            except SlackApiError as err:
                self._give_up("post a reply", *_error(err))
                break
        return ts

    def _update(self, ts: str, message: SlackMessage) -> bool:
        """Edit message ``ts`` to show ``message``; False if the caller should post instead."""
        payload = message.payload()
        for key in ("unfurl_links", "unfurl_media"):  # chat.postMessage only
            payload.pop(key)
        try:
            self.client.chat_update(channel=self.channel, ts=ts, **payload)
            return True
        except SlackApiError as err:
            error, needed = _error(err)
            if error in _BLOCK_ERRORS:
                first, *rest = split_text(message.plain(), PLAIN_LIMIT) or [message.text]
                try:
                    self.client.chat_update(
                        channel=self.channel, ts=ts, text=first, blocks=[], parse="none"
                    )
                except SlackApiError as again:
                    log.warning("chat.update failed: %s", _error(again)[0])
                    return False
                for piece in rest:
                    self._post_plain(SlackMessage(piece))
                return True
            if error not in _UPDATE_ERRORS:
                log.warning("chat.update failed: %s (needed: %s)", error, needed or "-")
            return False

    def _upload(self, reply: Reply) -> None:
        uploads = [
            {"content": image.png, "filename": image.filename, "title": image.title}
            for image in reply.images
        ]
        try:
            self.client.files_upload_v2(
                file_uploads=uploads, channel=self.channel, thread_ts=self.thread_ts
            )
        except SlackApiError as err:
            error, needed = _error(err)
            log.warning("image upload failed: %s (needed: %s)", error, needed or "-")
            self._post(notice_message(explain_api_error(error, "attach the page images", needed)))
        except Exception as err:  # the upload URL step raises SlackRequestError / URLError
            log.warning("image upload failed: %s", type(err).__name__)
            self._post(notice_message("I could not attach the page images: the upload failed."))

    def _give_up(self, doing: str, error: str, needed: str) -> None:
        fix = explain_api_error(error, doing, needed)
        log.error("channel %s: %s", self.channel, fix)
        if error in ("not_in_channel", "channel_not_found", "missing_scope", "is_archived"):
            self._broken = True  # every later post would fail the same way

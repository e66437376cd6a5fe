"""The Slack bot: a Bolt app whose listeners hand events to ``SlackBot``.

``build_slack_app`` returns a Bolt ``App`` that listens to mentions, messages
(questions, DMs, thread follow-ups, PDFs shared without a mention, edits
that turn a file into a tombstone), ``file_shared`` / ``file_deleted`` /
``file_unshared``, the assistant view's ``assistant_thread_started`` /
``assistant_thread_context_changed``, clicks on the bot's buttons
(``block_actions``: 👍/👎, suggested questions) and the ``/papertrail``
command. Listeners only translate and queue (``events.py``,
``commands.py``); Bolt has already acked, so Slack's 3 s limit always holds.
Serving it is ``slack_server``. Left out: OAuth/multi-workspace installs.
With ``jobs`` (multi-worker mode) queued work goes to a Redis stream that
every instance consumes (``bot/redis/jobs.py``, ``slack_jobs``) and ``seen``
is shared through Redis.
"""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from adapters.chat.dedup import Seen, SeenSet
from adapters.chat.service import ChatService
from adapters.slack.actions import FEEDBACK_ACTION, SUGGEST_ACTION, on_click
from adapters.slack.commands import COMMAND
from adapters.slack.events import SlackBot
from adapters.slack.files import HISTORY_LIMIT, SlackDownloader
from adapters.slack.ids import mentions, strip_mention
from adapters.slack.jobs import run_job
from adapters.slack.server import make_http_server, run_http, run_socket_mode, start_socket_mode
from adapters.slack.worker import ChannelWorker
from papertrail.read.uploads import DEFAULT_MAX_PDF_BYTES

__all__ = [
    "ChannelWorker",
    "SlackBot",
    "build_slack_app",
    "make_http_server",
    "mentions",
    "run_http",
    "run_socket_mode",
    "start_socket_mode",
    "strip_mention",
]


def build_slack_app(
    service: ChatService,
    *,
    bot_token: str,
    signing_secret: str | None = None,
    api_url: str | None = None,
    max_pdf_bytes: int = DEFAULT_MAX_PDF_BYTES,
    workers: int = 8,  # threads; a channel uses at most one, the service bounds indexing
    history_limit: int = HISTORY_LIMIT,
    progress_interval: float = 1.0,
    seen: Seen | None = None,
    download_timeout: float = 60.0,
    jobs=None,
) -> App:
    """A Bolt app serving ``service``; calls ``auth.test`` at once.

        ``api_url`` (``SLACK_API_URL``) points the Web API elsewhere, e.g. a test
        server. Deliveries already seen are the service's (``chat.sqlite`` in the data
    directory, so a restart does not answer a retry twice); pass a shared ``seen``
    when several apps must not answer twice, and
        ``jobs`` (``bot/redis/jobs.py``) so that a dead worker's work is taken over.
    """
    kwargs = {}
    if api_url:
        kwargs["base_url"] = api_url if api_url.endswith("/") else api_url + "/"
    client = WebClient(
        token=bot_token,
        retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=2)],  # honours Retry-After
        **kwargs,
    )
    logging.getLogger("slack_bolt.App").addFilter(_same_token)
    app = App(client=client, signing_secret=signing_secret or "", name="papertrail")
    downloader = SlackDownloader(
        bot_token, max_bytes=max_pdf_bytes, timeout=download_timeout, client=client
    )
    bot = SlackBot(
        service,
        client,
        downloader,
        seen=seen if seen is not None else _own_seen(service),
        worker=ChannelWorker(workers),
        history_limit=history_limit,
        progress_interval=progress_interval,
        signing_secret=signing_secret,
        jobs=jobs,
    )
    if jobs is not None:
        jobs.start(lambda payload, done: run_job(bot, payload, done))

    # Every subscribed event needs a listener, even ignored ones: Bolt 404s
    # unhandled events and Slack retries them.
    for event in (
        "app_mention",
        "message",
        "file_shared",
        "file_deleted",
        "file_unshared",
        "assistant_thread_started",
        "assistant_thread_context_changed",
    ):
        app.event(event)(_listener(bot))

    # clicks on the bot's buttons: 👍/👎 and suggested questions (interactivity on)
    @app.action(FEEDBACK_ACTION)
    @app.action(SUGGEST_ACTION)
    def on_action(ack, body, respond):
        ack()
        on_click(bot, body, respond)

    @app.command(COMMAND)
    def on_command(ack, command):
        ack()  # within 3 s; the answer follows through response_url or the channel
        team, channel = command.get("team_id", ""), command.get("channel_id", "")
        bot.queue(
            "command",
            team,
            channel,
            command=dict(command),
            response_url=command.get("response_url"),
        )

    app.papertrail = bot  # for run_http's check and for tests to shut the pool down
    return app


def _own_seen(service) -> Seen:
    """The service's seen-set (on disk: survives a restart); in memory for a bare service."""
    own = getattr(service, "seen", None)
    return own if own is not None else SeenSet()


def _listener(bot: SlackBot):
    def listener(body, event, context):
        bot.on_event(body, event, context.bot_user_id or "")

    return listener


def _same_token(record: logging.LogRecord) -> bool:
    """Drop Bolt's "`token` will be unused": it reads SLACK_BOT_TOKEN, which our client holds."""
    return record.getMessage() != warning_client_prioritized_and_token_skipped()

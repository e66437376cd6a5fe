"""The Slack bot: Bolt listeners that turn Slack events into ``Mention``s.

``build_slack_app`` returns a Bolt ``App`` whose listeners do three cheap
things and return (Bolt has already acked, within Slack's 3 s): decide whether
the event addresses the bot, drop it if its (team, channel, message ts) was
seen before (retries, re-deliveries with new ``event_id``s, and the
``app_mention`` + ``message``/``file_share`` pair of one post), and queue the
work. Work runs on a bounded pool, one job at a time per channel, so a huge
PDF in one channel holds one worker and never delays another channel. The job
gathers the PDFs (``slack_files``), calls ``ChatService.handle`` and writes the
thread (``slack_reply``). ``run_http`` serves ``/slack/events`` (signed
requests) and ``/healthz``; ``run_socket_mode`` needs an ``xapp-`` token.
With ``jobs`` (multi-worker mode) the queued work goes to a Redis stream
instead, which every instance consumes (``adapters/jobs.py``), and ``seen``
is shared through Redis. Left out: OAuth/multi-workspace installs.
"""

from __future__ import annotations

import html
import logging
import re
import threading
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from slack_bolt import App, BoltRequest
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from adapters.dedup import SeenSet
from adapters.service import ChatService, Mention, Reply
from adapters.slack_files import HISTORY_LIMIT, SlackDownloader, gather
from adapters.slack_jobs import run_job
from adapters.slack_reply import ThreadResponder
from papertrail.errors import PaperTrailError
from papertrail.uploads import DEFAULT_MAX_PDF_BYTES

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
# Message subtypes that are someone writing to the bot; edits, deletions, joins are not.
_ADDRESSING_SUBTYPES = {None, "file_share", "thread_broadcast"}


class ChannelWorker:
    """A bounded thread pool that runs one job at a time per key, in order.

    A channel with a backlog re-queues behind other channels after each job,
    so no channel holds more than one of the ``workers`` threads.
    """

    def __init__(self, workers: int = 4) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="papertrail-slack")
        self._queues: dict[Hashable, deque[Callable[[], None]]] = {}
        self._lock = threading.Lock()

    def submit(self, key: Hashable, job: Callable[[], None]) -> None:
        with self._lock:
            if key in self._queues:  # a job for this channel is running: wait behind it
                self._queues[key].append(job)
                return
            self._queues[key] = deque()
        self._pool.submit(self._run, key, job)

    def _run(self, key: Hashable, job: Callable[[], None]) -> None:
        try:
            job()
        except Exception:
            log.exception("slack job failed")
        with self._lock:
            queue = self._queues[key]
            if not queue:
                del self._queues[key]
                return
            job = queue.popleft()
        self._pool.submit(self._run, key, job)

    def shutdown(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait)


def strip_mention(text: str, bot_user_id: str) -> str:
    """The message text without ``<@BOT>`` and with Slack's entities decoded."""
    text = re.sub(rf"<@{re.escape(bot_user_id)}(\|[^>]*)?>", " ", text or "")
    return html.unescape(re.sub(r"\s+", " ", text)).strip()


def mentions(text: str, bot_user_id: str) -> bool:
    return (
        bool(bot_user_id) and re.search(rf"<@{re.escape(bot_user_id)}[|>]", text or "") is not None
    )


class SlackBot:
    """The state behind one Slack app: service, seen-set, worker pool, downloader."""

    def __init__(
        self,
        service: ChatService,
        client: WebClient,
        downloader: SlackDownloader,
        *,
        seen: SeenSet,
        worker: ChannelWorker,
        history_limit: int,
        progress_interval: float,
        signing_secret: str | None,
        jobs=None,  # multi-worker mode: an ``adapters.jobs.RedisJobs``
    ) -> None:
        self.jobs = jobs
        self.service = service
        self.client = client
        self.downloader = downloader
        self.seen = seen
        self.worker = worker
        self.history_limit = history_limit
        self.progress_interval = progress_interval
        self.signing_secret = signing_secret

    def on_event(self, body: dict, event: dict, bot_user_id: str) -> None:
        """Queue an answer if ``event`` addresses the bot and is new; never blocks."""
        channel, ts = event.get("channel"), event.get("ts")
        if not channel or not ts:
            return
        if event.get("type") == "message":
            if event.get("subtype") in _ADDRESSING_SUBTYPES and not event.get("bot_id"):
                direct = event.get("channel_type") == "im"  # in a DM every message is for us
                if not (direct or mentions(event.get("text", ""), bot_user_id)):
                    return  # e.g. a PDF shared without a mention: found later in history
            else:
                return
        team = body.get("team_id") or event.get("team") or ""
        if not self.seen.first((team, channel, ts)):
            log.info("duplicate delivery of %s/%s ignored", channel, ts)
            return
        if self.jobs is not None:  # acked: a job any worker runs, taken over if this one dies
            self.jobs.put({"team": team, "event": event, "bot_user_id": bot_user_id})
            return
        self.worker.submit((team, channel), lambda: self.answer(team, event, bot_user_id))

    def answer(self, team: str, event: dict, bot_user_id: str) -> None:
        """Gather the files, ask the service, write the thread (runs on the pool)."""
        channel = event["channel"]
        responder = ThreadResponder(
            self.client,
            channel,
            event.get("thread_ts") or event["ts"],
            interval=self.progress_interval,
        )
        try:
            found = gather(self.client, self.downloader, event, history_limit=self.history_limit)
            mention = Mention(
                channel=f"slack:{team}:{channel}",
                text=strip_mention(event.get("text", ""), bot_user_id),
                attachments=found.attachments,
            )
            reply = self.service.handle(mention, responder.progress)
            if found.notes:
                reply = replace(reply, warnings=tuple(reply.warnings) + found.notes)
        except PaperTrailError as err:
            reply = Reply(kind="error", text=err.message)
        except Exception:
            log.exception("answering %s/%s failed", channel, event.get("ts"))
            reply = Reply(
                kind="error",
                text="Something went wrong on my side while answering; the error was logged. "
                "Please try again.",
            )
        responder.finish(reply)

    def close(self) -> None:
        if self.jobs is not None:
            self.jobs.close()
        self.worker.shutdown(wait=False)


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
    seen: SeenSet | None = None,
    download_timeout: float = 60.0,
    jobs=None,
) -> App:
    """A Bolt app answering mentions with ``service``; calls ``auth.test`` at once.

    ``api_url`` (``SLACK_API_URL``) points the Web API elsewhere, e.g. a test
    server. Pass a shared ``seen`` when several apps must not answer twice, and
    ``jobs`` (``adapters/jobs.py``) so that a dead worker's questions are taken over.
    """
    kwargs = {}
    if api_url:
        kwargs["base_url"] = api_url if api_url.endswith("/") else api_url + "/"
    client = WebClient(
        token=bot_token,
        retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=2)],  # honours Retry-After
        **kwargs,
    )
    app = App(client=client, signing_secret=signing_secret or "", name="papertrail")
    bot = SlackBot(
        service,
        client,
        SlackDownloader(bot_token, max_bytes=max_pdf_bytes, timeout=download_timeout),
        seen=seen if seen is not None else SeenSet(),  # an empty set is falsy
        worker=ChannelWorker(workers),
        history_limit=history_limit,
        progress_interval=progress_interval,
        signing_secret=signing_secret,
        jobs=jobs,
    )
    if jobs is not None:
        jobs.start(lambda payload, done: run_job(bot, payload, done))

    @app.event("app_mention")
    def on_app_mention(body, event, context):
        bot.on_event(body, event, context.bot_user_id or "")

    # Every message event needs a listener, even ignored ones: Bolt 404s unhandled
    # events and Slack retries them.
    @app.event("message")
    def on_message(body, event, context):
        bot.on_event(body, event, context.bot_user_id or "")

    app.papertrail = bot  # for run_http's check and for tests to shut the pool down
    return app


class _EventServer(ThreadingHTTPServer):
    # socketserver listens with a backlog of 5: a burst of deliveries (Slack retries,
    # many channels at once) got connections reset while the accept loop was busy.
    request_queue_size = 128


def make_http_server(app: App, port: int, host: str = "0.0.0.0") -> ThreadingHTTPServer:
    """A threaded server for ``/slack/events`` and ``/healthz`` (port 0 = any free port)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.partition("?")[0] == HEALTH_PATH:
                self._send(200, {}, "ok")
            else:
                self._send(404, {}, "not found")

        def do_POST(self):
            path, _, query = self.path.partition("?")
            if path != EVENTS_PATH:
                self._send(404, {}, "not found")
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8")
            headers = {k.lower(): self.headers.get_all(k) for k in self.headers}
            response = app.dispatch(BoltRequest(body=body, query=query, headers=headers))
            self._send(response.status, response.headers, response.body)

        def _send(self, status: int, headers: dict, body) -> None:
            data = (body if isinstance(body, str) else str(body or "")).encode("utf-8")
            self.send_response(status)
            for name, values in headers.items():
                if name.lower() == "content-length":
                    continue
                for value in values if isinstance(values, list | tuple) else [values]:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args):
            log.debug("http: " + format, *args)

    server = _EventServer((host, port), Handler)
    server.daemon_threads = True
    return server


def run_http(app: App, port: int, host: str = "0.0.0.0") -> None:
    """Serve the Events API over HTTP until interrupted; needs a signing secret."""
    bot: SlackBot = app.papertrail
    if not bot.signing_secret:
        raise PaperTrailError(
            "HTTP mode needs SLACK_SIGNING_SECRET (Basic Information > App Credentials), "
            "or set SLACK_APP_TOKEN to use Socket Mode instead.",
            code="config",
        )
    server = make_http_server(app, port, host)
    log.info("listening on %s:%s%s", host, server.server_port, EVENTS_PATH)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        bot.close()


def start_socket_mode(app: App, app_token: str):
    """Connect over Socket Mode (no public URL needed) and return the handler; non-blocking."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    if not app_token.startswith("xapp-"):
        raise PaperTrailError(
            "SLACK_APP_TOKEN must be an app-level token starting with xapp- "
            "(Basic Information > App-Level Tokens, scope connections:write).",
            code="config",
        )
    handler = SocketModeHandler(app, app_token)
    handler.connect()
    return handler


def run_socket_mode(app: App, app_token: str) -> None:
    """Receive events over Socket Mode until interrupted."""
    handler = start_socket_mode(app, app_token)
    log.info("connected to Slack over Socket Mode")
    try:
        threading.Event().wait()
    finally:
        handler.close()
        app.papertrail.close()

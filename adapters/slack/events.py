"""Slack events -> ``ChatService`` calls: questions, drops, follow-ups and deletions.

``SlackBot.on_event`` decides in microseconds what an event is and queues the
work on the channel's worker (``worker.py``): a mention or DM is a
question; a reply in a thread where the bot answered is a follow-up and needs
no mention; a PDF shared without a mention (``message``/``file_share`` or
``file_shared``) is indexed at once, shown by a reaction that turns from ⏳ to
✅ and, only on failure, a short thread reply; a deleted or unshared file
(``file_deleted``, ``file_unshared``, a message whose file became a
tombstone, a deleted message) leaves the library. Assistant threads get
prompts, statuses and a title (``assistant.py``). Duplicate deliveries are
dropped on (team, channel, ts) or (team, file id) through ``SeenSet``. Every
queued unit of work is a plain-data job (``queue``/``run``: kind, ids, the
event), so another process could run it; only strings and ``Attachment``s
cross into the service, no Slack payload does. Gathering files is
``files.py``, writing the thread ``reply.py``, commands ``commands.py``.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from cachetools import TTLCache
from slack_bolt.context.respond import Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from adapters.chat.dedup import SeenSet
from adapters.chat.service import ChatService, Mention, Reply
from adapters.slack.assistant import AssistantThread
from adapters.slack.commands import CommandSeat, run_command
from adapters.slack.files import SlackDownloader, gather, is_pdf, share_attachments
from adapters.slack.ids import library, mentions, strip_mention, thread_key
from adapters.slack.reply import ThreadResponder
from adapters.slack.worker import ChannelWorker
from papertrail.errors import PaperTrailError

log = logging.getLogger(__name__)

# Message subtypes that are someone writing; edits, deletions and joins are not.
_ADDRESSING_SUBTYPES = {None, "file_share", "thread_broadcast"}
INDEXING, INDEXED, FAILED = "hourglass_flowing_sand", "white_check_mark", "x"
ADMIN_TTL = 300.0  # seconds a users.info answer is trusted
MAX_ADMINS = 10_000  # users.info answers remembered (oldest out first)


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
        jobs=None,  # multi-worker mode: an ``bot.redis.jobs.RedisJobs``
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
        self.bot_user_id = ""  # learnt from the first event's context
        self._admins: TTLCache[str, bool] = TTLCache(MAX_ADMINS, ADMIN_TTL)  # user -> admin

    # -- routing (on Bolt's thread: cheap, never blocks) --------------------------

    def on_event(self, body: dict, event: dict, bot_user_id: str) -> None:
        """Queue whatever ``event`` asks of the bot, once."""
        self.bot_user_id = bot_user_id or self.bot_user_id
        team = body.get("team_id") or event.get("team") or ""
        kind, subtype = event.get("type"), event.get("subtype")
        if kind == "assistant_thread_started":
            thread = event.get("assistant_thread") or {}
            channel, ts = thread.get("channel_id"), thread.get("thread_ts")
            if channel and ts and self.seen.first(("assistant", team, channel, ts)):
                self.queue("greet", team, channel, thread_ts=ts)
        elif kind == "assistant_thread_context_changed":
            pass  # the library is the assistant thread's own: the viewed channel is not read
        elif kind == "file_deleted":
            self._forget(team, event.get("file_id"), None)
        elif kind == "file_unshared":
            self._forget(team, event.get("file_id"), event.get("channel_id"))
        elif kind == "file_shared":
            self._file_shared(team, event)
        elif kind == "message" and subtype in ("message_changed", "message_deleted"):
            # a deleted file turns into a tombstone; a deleted message takes its files along
            edited = subtype == "message_changed"
            message = event.get("message" if edited else "previous_message") or {}
            for f in message.get("files") or ():
                if f.get("id") and (f.get("mode") == "tombstone" or not edited):
                    self._forget(team, f["id"], event.get("channel"))
        elif kind == "app_mention" or (
            kind == "message" and subtype in _ADDRESSING_SUBTYPES and not event.get("bot_id")
        ):
            self._message(team, event)

    def _message(self, team: str, event: dict) -> None:
        channel, ts = event.get("channel"), event.get("ts")
        if not channel or not ts or event.get("user") == self.bot_user_id:
            return
        direct = event.get("channel_type") == "im"  # in a DM every message is for us
        thread_ts = event.get("thread_ts")
        addressed = (
            event.get("type") == "app_mention"
            or direct
            or mentions(event.get("text", ""), self.bot_user_id)
            or (
                thread_ts not in (None, ts)
                and self.service.in_conversation(
                    thread_key(team, channel, thread_ts),
                    event.get("text", ""),
                    with_files=bool(event.get("files")),
                )
            )
        )
        if addressed:
            if self.seen.first((team, channel, ts)):
                progress_ts = None
                busy = self.service.indexing(library(team, channel))
                if busy:  # queued behind that work: say so now, not when it is done
                    responder = self._responder(channel, event.get("thread_ts") or ts)
                    responder.progress(f"Waiting for {', '.join(busy)} to finish indexing…")
                    progress_ts = responder.progress_ts
                self.queue("answer", team, channel, event=event, progress_ts=progress_ts)
            else:
                log.info("duplicate delivery of %s/%s ignored", channel, ts)
        elif any(is_pdf(f) for f in event.get("files") or ()) and self.seen.first(
            ("drop", team, channel, ts)
        ):
            files, user = list(event["files"]), event.get("user", "")
            self.queue("drop", team, channel, ts=ts, files=files, user=user)

    def _file_shared(self, team: str, event: dict) -> None:
        channel, file_id = event.get("channel_id"), event.get("file_id")
        if not channel or not file_id or event.get("user_id") == self.bot_user_id:
            return  # the bot's own uploads (page images) also fire file_shared
        if self.seen.first(("file", team, channel, file_id)):
            user = event.get("user_id", "")
            files = [{"id": file_id, "file_access": "check_file_info"}]  # details: files.info
            self.queue("drop", team, channel, ts="", files=files, user=user)

    def _forget(self, team: str, file_id: str | None, channel: str | None) -> None:
        if file_id:  # file_deleted names no channel: "" = wherever it was shared
            self.queue("forget", team, channel or "", file_id=file_id)

    # -- work (on the pool) ------------------------------------------------------------

    def queue(self, kind: str, team: str, channel: str, **payload) -> None:
        """Queue one unit of work on the channel's worker. A job is plain data (JSON:
        ids, the Slack event, file objects), so another process could run it."""
        job = {"kind": kind, "team": team, "channel": channel, **payload}
        if self.jobs is not None:  # acked: a job any worker runs, taken over if this one dies
            self.jobs.put(dict(job, bot_user_id=self.bot_user_id))
            return
        self.worker.submit((team, channel or "*"), lambda: self.run(job))

    def run(self, job: dict) -> None:
        """Carry out a job made by ``queue`` (or by the slash command listener)."""
        kind, team, channel = job["kind"], job["team"], job["channel"]
        if kind == "answer":
            event = job["event"]
            thread = event.get("thread_ts") or event["ts"]
            responder = self._responder(
                channel, thread, job.get("progress_ts"), event=event, team=team
            )
            if job.get("asked_by"):  # a suggested question someone clicked: say who asked
                responder.notice_question(job["asked_by"], event.get("text", ""))
            self.answer(team, event, responder)
        elif kind == "greet":
            AssistantThread(self.client, channel, job["thread_ts"]).greet()
        elif kind == "drop":
            self.index_drop(team, channel, job["ts"], job["files"], job["user"])
        elif kind == "forget":
            where = library(team, channel) if channel else None
            gone = self.service.forget_files([job["file_id"]], where)
            log.info("file %s deleted: forgot %d document(s)", job["file_id"], len(gone))
        elif kind == "command":
            seat = CommandSeat(post=self.post_question, is_admin=self.is_admin)
            run_command(
                self.service, seat, job["command"], Respond(response_url=job["response_url"])
            )

    def _responder(
        self, channel: str, thread_ts: str, progress_ts=None, *, event=None, team=""
    ) -> ThreadResponder:
        return ThreadResponder.for_event(
            event or {},
            team,
            self.client,
            channel,
            thread_ts,
            interval=self.progress_interval,
            progress_ts=progress_ts,
        )

    def post_question(self, channel: str, text: str) -> ThreadResponder:
        """Post ``text`` (a slash command's question) in ``channel``; its thread's responder."""
        posted = self.client.chat_postMessage(
            channel=channel, text=text, parse="none", unfurl_links=False
        )
        return self._responder(channel, posted["ts"])

    def answer(self, team: str, event: dict, responder: ThreadResponder | None = None) -> None:
        """Gather the files, ask the service, write the thread."""
        channel, user = event["channel"], event.get("user", "")
        thread = event.get("thread_ts") or event["ts"]
        responder = responder or self._responder(channel, thread)
        try:
            found = gather(self.client, self.downloader, event, history_limit=self.history_limit)
            mention = Mention(
                channel=library(team, channel),
                text=strip_mention(event.get("text", ""), self.bot_user_id),
                attachments=found.attachments,
                user=user,
                thread=thread_key(team, channel, thread),
                admin=lambda: self.is_admin(user),
            )
            if responder.assistant is not None and mention.text:
                responder.assistant.asking(mention.text, first=not self.service.in_conversation(
                    mention.thread))  # fmt: skip
            reply = self.service.handle(mention, responder.progress)
            if reply.suggestions and responder.assistant is not None:
                responder.assistant.suggest(reply.suggestions)
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

    def index_drop(self, team: str, channel: str, ts: str, files: list[dict], user: str) -> None:
        """Index a PDF shared without a mention: ⏳, then ✅, or ❌ and a short reply."""
        found = share_attachments(self.client, self.downloader, files, owner=user, post=ts)
        if not found.attachments:
            return
        self._react(channel, ts, INDEXING)
        reply = self.service.index_shared(library(team, channel), found.attachments)
        self._react(channel, ts, INDEXING, remove=True)
        if reply.kind != "error":
            self._react(channel, ts, INDEXED)
            if reply.suggestions and ts:  # questions it can answer, as buttons in a thread
                ThreadResponder(self.client, channel, ts).finish(reply)
            return
        self._react(channel, ts, FAILED)
        if ts:  # a file_shared event carries no message to reply under
            ThreadResponder(self.client, channel, ts).finish(reply)

    def is_admin(self, user: str) -> bool:
        """Workspace admin or owner, by ``users.info`` (needs ``users:read``)."""
        cached = self._admins.get(user)
        if cached is not None:
            return cached
        try:
            info = self.client.users_info(user=user).get("user") or {}
        except SlackApiError as err:
            log.warning("users.info failed: %s", err.response.get("error"))
            return False  # unknown: refuse, the refusal says who may
        admin = bool(info.get("is_admin") or info.get("is_owner"))
        self._admins[user] = admin
        return admin

    def _react(self, channel: str, ts: str, name: str, *, remove: bool = False) -> None:
        if not ts:
            return
        try:
            if remove:
                self.client.reactions_remove(channel=channel, timestamp=ts, name=name)
            else:
                self.client.reactions_add(channel=channel, timestamp=ts, name=name)
        except SlackApiError as err:  # e.g. no reactions:write: indexing goes on regardless
            log.info("reaction %s failed: %s", name, err.response.get("error"))

    def close(self) -> None:
        if self.jobs is not None:
            self.jobs.close()
        self.worker.shutdown(wait=False)

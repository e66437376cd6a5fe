"""What every chat adapter shares: commands, the channel's library, threads, answers.

An adapter turns a platform event into a ``Mention`` (a message for the bot),
``index_shared`` (files shared without addressing it) or ``forget_files`` /
``forget_post`` (files deleted), and a ``Reply`` back into platform messages;
everything in between happens here, synchronously, so it runs in a worker
thread. Work is serialised per channel (a question waits for
the PDF being indexed in its channel) and indexing is bounded across
channels. ``forget`` acts on shares, not bytes: it removes the share it names
(the file as someone posted it), and only the person who posted that share or
an admin may ask (``Mention.user``, ``Mention.admin``); the document goes when
its last share in the channel goes, and stays gone (``forgotten.py``) until
someone posts it again. In one process, threads, tombstones and the
adapters' de-duplication (``seen``) live in ``chat.sqlite`` in the data
directory (``local_state.py``); several workers pass Redis ones. Markup (Block Kit,
Discord embeds) is the adapters' job; downloading and indexing is
``intake.py``'s.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from adapters.chat.conversations import Threads, Turn
from adapters.chat.feedback import Feedback, StoredFeedback, forget_feedback, record_answer
from adapters.chat.forget import forget_command, ids_of
from adapters.chat.forgotten import Forgotten, StoredForgotten
from adapters.chat.intake import Attachment, Intake, Progress
from adapters.chat.library import ShareRegistry, Shares
from adapters.chat.local_state import LocalStore, StoredSeen, StoredThreads
from adapters.chat.replies import (
    Image,
    Reply,
    Source,
    answer_reply,
    help_reply,
    how_to_ask,
    list_reply,
)
from adapters.chat.suggest import suggestions
from papertrail.answer.followup import Complete, condense, wants_answer
from papertrail.errors import PaperTrailError
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.types import Document

log = logging.getLogger(__name__)

__all__ = ["Attachment", "ChatService", "Image", "Mention", "Reply", "Source"]

FAILURE = (
    "Something went wrong on my side while handling that. "
    "Please try again; if it keeps happening, tell the bot's admin."
)
ENCRYPTED = (
    "This PDF is password-protected, and I can't take a password in chat. "
    "Share an unprotected copy of it here."
)


@dataclass(frozen=True)
class Mention:
    """A message for the bot (mention, DM, thread follow-up or command), mention removed."""

    channel: str  # the library: platform-qualified, e.g. "slack:T1:C1" or "discord:123"
    text: str
    attachments: tuple[Attachment, ...] = ()  # this message's first, then thread, then history
    user: str = ""  # platform-qualified id of the person asking
    thread: str = ""  # the conversation it belongs to ("" = none)
    admin: Callable[[], bool] | None = None  # asked only when forgetting; None = not an admin


SLOW_ANSWER_AFTER = 8.0  # seconds an LLM may take before the chat is told it is still writing


def slow_answer_note(settings: Settings) -> str:
    """The progress line shown while a slow model writes the answer."""
    return (
        "Still writing the answer: the language model is slow right now "
        f"(I wait up to {settings.llm_timeout:g} s, then answer offline)…"
    )


_FORGET = re.compile(r"^(?:forget|remove|delete)\b\s*(.*)$", re.I | re.S)


class ChatService:
    """Turns mentions into replies; safe to call from many threads at once."""

    def __init__(
        self,
        pipeline: PaperTrail,
        settings: Settings | None = None,
        *,
        shares: Shares | None = None,  # default: a ShareRegistry in the data directory
        threads: Threads | None = None,  # default: chat.sqlite in the data directory
        forgotten: Forgotten | None = None,  # tombstones; default: chat.sqlite
        seen=None,  # the adapters' de-duplication (papertrail.coord.Seen); default: chat.sqlite
        complete: Complete | None = None,
        feedback: Feedback | None = None,  # answers and votes; default: chat.sqlite
        suggest: bool = False,  # after a drop, offer questions checked answerable
    ) -> None:
        self.pipeline = pipeline
        self.settings = settings or pipeline.settings
        data = Path(self.settings.data_dir)
        self.store = LocalStore(data / "chat.sqlite")  # opened only if something here uses it
        if shares is None:
            shares = ShareRegistry(data / "shares.json")
        self.shares = shares
        self.forgotten = forgotten if forgotten is not None else StoredForgotten(self.store)
        self.seen = seen if seen is not None else StoredSeen(self.store)
        self.intake = Intake(pipeline, self.settings, shares, self.forgotten)
        self.conversations = threads if threads is not None else StoredThreads(self.store)
        self.complete = complete  # an LLM to condense follow-ups; None = offline rewrite
        self.feedback = feedback if feedback is not None else StoredFeedback(self.store)
        self.suggest = suggest  # checking suggestions asks questions: bots turn it on
        self.slow_answer_after = SLOW_ANSWER_AFTER
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    # -- entry points ----------------------------------------------------------

    def handle(self, mention: Mention, progress: Progress | None = None) -> Reply:
        """Run a command or answer a question; never raises for user errors."""
        work = lambda: self._handle(mention, progress)  # noqa: E731
        return self._safely(mention.channel, work, progress)

    def index_shared(
        self, channel: str, attachments: Sequence[Attachment], progress: Progress | None = None
    ) -> Reply:
        """Index the PDFs of a post that did not address the bot (kind "indexed"), or
        say why one could not be read (kind "error"). Other files are ignored."""

        def work() -> Reply:
            docs = self.intake.index_all(channel, attachments, progress)
            names = ", ".join(d.name for d in docs)
            asks = self._suggestions(channel, docs, progress)
            return Reply(
                kind="indexed", text=f"Indexed {names}.", documents=tuple(docs), suggestions=asks
            )

        return self._safely(channel, work)

    def forget_files(self, files: Sequence[str], channel: str | None = None) -> list[Document]:
        """The platform deleted or unshared these files: forget their documents wherever
        no other live share of the same bytes remains."""
        gone = self.shares.remove(list(files), channel)
        removed: list[Document] = []
        for ch in dict.fromkeys(s.channel for s in gone):
            with self._channel_lock(ch):
                docs = self.intake.forget(ch, gone)
                self.forgotten.bury(ch, [s for s in gone if s.channel == ch], ids_of(docs))
                forget_feedback(self.feedback, ch, ids_of(docs))
                removed += docs
        return removed

    def forget_post(self, post: str) -> list[Document]:
        """A message carrying files was deleted (Discord): forget what it shared."""
        return self.forget_files([s.file for s in self.shares.of_post(post)])

    def vote(self, channel: str, answer_id: str, user: str, verdict: str) -> str:
        """Record ``user``'s 👍 ("up") or 👎 ("down") on an answer given in ``channel``:
        ``feedback.RECORDED``, ``CHANGED``, ``SAME`` or ``UNKNOWN`` (not an answer here)."""
        return self.feedback.vote(channel, answer_id, user, verdict)

    def in_conversation(
        self, thread: str, text: str | None = None, *, with_files: bool = False
    ) -> bool:
        """True when the bot answered in ``thread`` (and ``text``, if given, asks
        something): such replies need no mention ("thanks!" is not answered, and a
        file shared there without a question is indexed, not answered)."""
        if thread not in self.conversations:
            return False
        return text is None or wants_answer(text, with_files=with_files)

    def link(self, messages: Sequence[str], thread: str) -> None:
        """The bot's ``messages`` (platform-qualified ids) answered in ``thread``: a reply
        to one of them continues it, after a restart too."""
        link = getattr(self.conversations, "link", None)
        if callable(link) and thread and messages:
            link(list(messages), thread)

    def linked(self, message: str) -> str:
        """The thread a bot message belongs to ("" when unknown)."""
        linked = getattr(self.conversations, "linked", None)
        return linked(message) if callable(linked) else ""

    def close(self) -> None:
        """Close the pipeline this service answers with (its store client, LLM connection)
        and ``chat.sqlite`` (seen keys, threads, tombstones; it reopens if used again).
        The share registry holds nothing open; Redis state shares the coordination
        connection, which ``bot/wiring.py`` closes."""
        self.store.close()
        self.intake.close()  # its download threads
        close = getattr(self.pipeline, "close", None)
        if callable(close):
            close()

    # -- internals ---------------------------------------------------------------

    def indexing(self, channel: str) -> list[str]:
        """The files being indexed for ``channel`` now: a question there waits for them."""
        return self.intake.busy(channel)

    def _safely(
        self, channel: str, work: Callable[[], Reply], progress: Progress | None = None
    ) -> Reply:
        lock = self._channel_lock(channel)
        try:
            if not lock.acquire(blocking=False):
                busy = self.intake.busy(channel)
                if busy and progress:  # say why nothing happens yet
                    progress(f"Waiting for {', '.join(busy)} to finish indexing…")
                lock.acquire()
            try:
                return work()
            finally:
                lock.release()
        except PaperTrailError as e:
            return Reply(kind="error", text=ENCRYPTED if e.code == "encrypted" else e.message)
        except Exception:
            log.exception("unexpected failure in %s", channel)
            return Reply(kind="error", text=FAILURE)

    def _channel_lock(self, channel: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(channel, threading.Lock())

    def _handle(self, mention: Mention, progress: Progress | None) -> Reply:
        text = mention.text.strip()
        words = text.lower().split()
        command = words[0].strip("!/") if words else ""
        own = [a for a in mention.attachments if a.source == "message"]
        if not text and not own:
            return help_reply(mention.channel)
        if command in ("help", "?") and len(words) <= 2:
            return help_reply(mention.channel)
        if command in ("list", "docs", "documents") and len(words) <= 2:
            return list_reply(self.pipeline.documents(mention.channel), mention.channel)
        m = _FORGET.match(text)
        if m and len(words) <= 12:
            return self._forget(mention, m.group(1).strip())

        attachments = [replace(a, owner=a.owner or mention.user) for a in own]
        attachments += [a for a in mention.attachments if a.source != "message"]
        reach = self.intake.in_reach(mention.channel, attachments, progress)
        doc_ids, warnings, library = reach.asked, reach.warnings, reach.documents
        if not text:
            dropped = [d for d in library if d.doc_id in doc_ids]
            names = ", ".join(d.name for d in dropped)
            return Reply(
                kind="list",
                text=f"Indexed {names}. {how_to_ask(mention.channel)}",
                warnings=tuple(warnings),
                documents=tuple(dropped),
                suggestions=self._suggestions(mention.channel, dropped, progress, library),
            )
        question, doc_ids = self._resolve(mention, text, doc_ids, library)
        answer = self._ask(mention.channel, question, doc_ids, library, progress)
        cited = tuple(dict.fromkeys(c.chunk.doc_id for c in answer.citations if c.chunk))
        self.conversations.record(mention.thread, Turn(question, cited))
        reply = answer_reply(answer, extra_warnings=warnings)
        if question != text:  # say how a follow-up was read, so a misreading is visible
            reply = replace(reply, footer=f"Read as: {question} · {reply.footer}")
        kept = record_answer(self.feedback, mention.channel, reply, doc_ids)  # for 👍/👎
        return replace(reply, answer_id=kept)

    def _suggestions(self, channel, docs, progress, library=None) -> tuple[str, ...]:
        return suggestions(self.pipeline, channel, docs, progress, library) if self.suggest else ()

    def _ask(self, channel: str, question: str, doc_ids: list[str], library, progress):
        """The pipeline's answer; with an LLM, a progress line once it takes a while."""
        timer = None
        if progress is not None and self.settings.llm_configured:
            note = slow_answer_note(self.settings)
            timer = threading.Timer(self.slow_answer_after, progress, args=(note,))
            timer.daemon = True
            timer.start()
        try:
            return self.pipeline.ask(channel, question, doc_ids=doc_ids or None, documents=library)
        finally:
            if timer is not None:
                timer.cancel()
                timer.join()  # a line being posted lands before the answer replaces it

    def _resolve(self, mention: Mention, text: str, doc_ids: list[str], library: list[Document]):
        """A follow-up made standalone against its thread, and the documents to search."""
        turns = self.conversations.turns(mention.thread)
        if not turns or doc_ids:
            return text, doc_ids
        question = condense(self.complete, [t.question for t in turns], text)
        if question == text:
            return text, doc_ids
        live = {d.doc_id for d in library}
        cited = [d for t in turns for d in t.doc_ids if d in live]
        return question, list(dict.fromkeys(cited))  # the thread's documents first

    def _forget(self, mention: Mention, target: str) -> Reply:
        reply = forget_command(self, mention, target)
        if reply.kind == "forget":
            forget_feedback(self.feedback, mention.channel, ids_of(reply.documents))
        return reply

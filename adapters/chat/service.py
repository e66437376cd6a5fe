"""What every chat adapter shares: commands, the channel's library, threads, answers.

An adapter turns a platform event into a ``Mention`` (a message for the bot),
``index_shared`` (files shared without addressing it) or ``forget_files`` /
``forget_post`` (files deleted), and a ``Reply`` back into platform messages;
everything in between happens here, synchronously, so it runs in a worker
thread. Work is serialised per channel (a question waits for
the PDF being indexed in its channel) and indexing is bounded across
channels. Who may forget a file is decided here from what the adapter says
about the person (``Mention.user``, ``Mention.admin``). Markup (Block Kit,
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

from adapters.chat.conversations import Conversations, Threads, Turn
from adapters.chat.intake import Attachment, Intake, Progress
from adapters.chat.library import ShareRegistry, Shares
from adapters.chat.replies import Image, Reply, Source, answer_reply, help_reply, list_reply
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


_FORGET = re.compile(r"^(?:forget|remove|delete)\b\s*(.*)$", re.I | re.S)


class ChatService:
    """Turns mentions into replies; safe to call from many threads at once."""

    def __init__(
        self,
        pipeline: PaperTrail,
        settings: Settings | None = None,
        *,
        shares: Shares | None = None,  # default: a ShareRegistry in the data directory
        threads: Threads | None = None,  # default: in this process's memory
        complete: Complete | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.settings = settings or pipeline.settings
        if shares is None:
            shares = ShareRegistry(Path(self.settings.data_dir) / "shares.json")
        self.shares = shares
        self.intake = Intake(pipeline, self.settings, shares)
        self.conversations = threads if threads is not None else Conversations()
        self.complete = complete  # an LLM to condense follow-ups; None = offline rewrite
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
            return Reply(kind="indexed", text=f"Indexed {names}.", documents=tuple(docs))

        return self._safely(channel, work)

    def forget_files(self, files: Sequence[str], channel: str | None = None) -> list[Document]:
        """The platform deleted or unshared these files: forget their documents wherever
        no other live share of the same bytes remains."""
        gone = self.shares.remove(list(files), channel)
        removed: list[Document] = []
        for ch in dict.fromkeys(s.channel for s in gone):
            with self._channel_lock(ch):
                removed += self.intake.forget(ch, gone)
        return removed

    def forget_post(self, post: str) -> list[Document]:
        """A message carrying files was deleted (Discord): forget what it shared."""
        return self.forget_files([s.file for s in self.shares.of_post(post)])

    def in_conversation(
        self, thread: str, text: str | None = None, *, with_files: bool = False
    ) -> bool:
        """True when the bot answered in ``thread`` (and ``text``, if given, asks
        something): such replies need no mention ("thanks!" is not answered, and a
        file shared there without a question is indexed, not answered)."""
        if thread not in self.conversations:
            return False
        return text is None or wants_answer(text, with_files=with_files)

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
            return help_reply()
        if command in ("help", "?") and len(words) <= 2:
            return help_reply()
        if command in ("list", "docs", "documents") and len(words) <= 2:
            return list_reply(self.pipeline.documents(mention.channel))
        m = _FORGET.match(text)
        if m and len(words) <= 12:
            return self._forget(mention, m.group(1).strip())

        attachments = [replace(a, owner=a.owner or mention.user) for a in own]
        attachments += [a for a in mention.attachments if a.source != "message"]
        doc_ids, warnings = self.intake.in_reach(mention.channel, attachments, progress)
        if not text:
            names = ", ".join(d.name for d in self._docs(mention.channel, doc_ids))
            return Reply(
                kind="list",
                text=f"Indexed {names}. Mention me with a question about it.",
                warnings=tuple(warnings),
            )
        question, doc_ids = self._resolve(mention, text, doc_ids)
        answer = self.pipeline.ask(mention.channel, question, doc_ids=doc_ids or None)
        cited = tuple(dict.fromkeys(c.chunk.doc_id for c in answer.citations if c.chunk))
        self.conversations.record(mention.thread, Turn(question, cited))
        reply = answer_reply(answer, extra_warnings=warnings)
        if question != text:  # say how a follow-up was read, so a misreading is visible
            reply = replace(reply, footer=f"Read as: {question} · {reply.footer}")
        return reply

    def _resolve(self, mention: Mention, text: str, doc_ids: list[str]):
        """A follow-up made standalone against its thread, and the documents to search."""
        turns = self.conversations.turns(mention.thread)
        if not turns or doc_ids:
            return text, doc_ids
        question = condense(self.complete, [t.question for t in turns], text)
        if question == text:
            return text, doc_ids
        live = {d.doc_id for d in self.pipeline.documents(mention.channel)}
        cited = [d for t in turns for d in t.doc_ids if d in live]
        return question, list(dict.fromkeys(cited))  # the thread's documents first

    def _forget(self, mention: Mention, target: str) -> Reply:
        channel = mention.channel
        if not target:
            return Reply(
                kind="error", text="Say which file to forget: `forget report.pdf`, or `forget all`."
            )
        everything = target.lower() in ("all", "everything", "*")
        docs = self.pipeline.find(channel, None if everything else target)
        if not docs:
            return Reply(
                kind="forget",
                text=f"No document called {target} is indexed here. `list` shows what is.",
            )
        refusal = self._refusal(mention, docs, everything)
        if refusal:
            return Reply(kind="error", text=refusal)
        gone = self.pipeline.forget(channel, None if everything else target)
        self.shares.drop_documents(channel, {d.doc_id for d in gone})
        names = ", ".join(d.name for d in gone)
        return Reply(kind="forget", text=f"Forgot {names}.", documents=tuple(gone))

    def _refusal(self, mention: Mention, docs: list[Document], everything: bool) -> str:
        """Why this person may not forget ``docs``, or "" when they may."""
        if mention.admin is not None and mention.admin():
            return ""
        if everything:
            return (
                "Only a workspace admin (or, on Discord, someone who may manage messages) "
                "can forget every document of this channel."
            )
        for d in docs:
            owners = {s.owner for s in self.shares.of_document(mention.channel, d.doc_id)}
            if not mention.user or mention.user not in owners:
                return (
                    f"Only the person who shared {d.name} or an admin can make me forget it. "
                    "Deleting the file from the channel also removes it."
                )
        return ""

    def _docs(self, channel: str, doc_ids: list[str]) -> list[Document]:
        return [d for d in self.pipeline.documents(channel) if d.doc_id in doc_ids]

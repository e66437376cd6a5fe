"""What every chat adapter shares: commands, finding PDFs, indexing, answering.

An adapter turns a platform event into a ``Mention`` and a ``Reply`` back into
platform messages; everything in between happens here, synchronously, so it
runs in a worker thread. Work is serialised per channel and indexing is
bounded across channels, so one huge PDF never holds up another channel's
question. Markup (Block Kit, Discord embeds) is the adapters' job.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from adapters.replies import Image, Reply, answer_reply, help_reply, list_reply
from papertrail.errors import PaperTrailError
from papertrail.names import safe_filename
from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.types import Document
from papertrail.uploads import check_size, looks_like_pdf

log = logging.getLogger(__name__)

__all__ = ["Attachment", "ChatService", "Image", "Mention", "Reply"]

PROGRESS_INTERVAL = 1.0  # seconds between progress edits: chat APIs rate-limit edits
MAX_PDFS_IN_REACH = 5  # thread/history PDFs indexed for one question, newest first


@dataclass(frozen=True)
class Attachment:
    """A file the adapter can download on demand."""

    name: str
    fetch: Callable[[], bytes]  # downloads the bytes; raises PaperTrailError with a fix
    size: int | None = None  # bytes, when the platform says
    mimetype: str = ""
    key: str = ""  # platform file id, to skip re-downloading a file already indexed
    source: str = "message"  # "message" (this post), "thread" or "history"

    @property
    def looks_like_pdf(self) -> bool:
        return looks_like_pdf(self.name, self.mimetype)


@dataclass(frozen=True)
class Mention:
    """A message that addressed the bot, with the mention itself removed."""

    channel: str  # platform-qualified id, e.g. "slack:T1:C1" or "discord:123"
    text: str
    attachments: tuple[Attachment, ...] = ()  # this message's first, then thread, then history


Progress = Callable[[str], None]  # a status line such as "Indexing report.pdf — 12/40 pages"

_FORGET = re.compile(r"^(?:forget|remove|delete)\b\s*(.*)$", re.I | re.S)


class ChatService:
    """Turns mentions into replies; safe to call from many threads at once."""

    def __init__(self, pipeline: PaperTrail, settings: Settings | None = None) -> None:
        self.pipeline = pipeline
        self.settings = settings or pipeline.settings
        self._indexing = threading.BoundedSemaphore(max(1, self.settings.max_concurrent_indexing))
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self._known: dict[tuple[str, str], str] = {}  # (channel, file key) -> doc_id

    def handle(self, mention: Mention, progress: Progress | None = None) -> Reply:
        """Run a command or answer a question; never raises for user errors."""
        try:
            with self._channel_lock(mention.channel):
                return self._handle(mention, progress)
        except PaperTrailError as e:
            return Reply(kind="error", text=e.message)
        except Exception:
            log.exception("unexpected failure in %s", mention.channel)
            return Reply(
                kind="error",
                text="Something went wrong on my side while handling that. "
                "Please try again; if it keeps happening, tell the bot's admin.",
            )

    # -- internals ----------------------------------------------------------

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
            return self._forget(mention.channel, m.group(1).strip())

        doc_ids, warnings = self._index_in_reach(mention, progress)
        if not text:
            names = ", ".join(d.name for d in self._docs(mention.channel, doc_ids))
            return Reply(
                kind="list",
                text=f"Indexed {names}. Mention me with a question about it.",
                warnings=tuple(warnings),
            )
        answer = self.pipeline.ask(mention.channel, text, doc_ids=doc_ids or None)
        return answer_reply(answer, extra_warnings=warnings)

    def _forget(self, channel: str, target: str) -> Reply:
        if not target:
            return Reply(
                kind="error", text="Say which file to forget: `forget report.pdf`, or `forget all`."
            )
        everything = target.lower() in ("all", "everything", "*")
        gone = self.pipeline.forget(channel, None if everything else target)
        with self._locks_guard:
            for key in [k for k, v in self._known.items() if k[0] == channel]:
                if everything or self._known[key] in {d.doc_id for d in gone}:
                    del self._known[key]
        if not gone:
            return Reply(
                kind="forget",
                text=f"No document called {target} is indexed here. `list` shows what is.",
            )
        names = ", ".join(d.name for d in gone)
        return Reply(kind="forget", text=f"Forgot {names}.", documents=tuple(gone))

    def _docs(self, channel: str, doc_ids: list[str]) -> list[Document]:
        return [d for d in self.pipeline.documents(channel) if d.doc_id in doc_ids]

    def _index_in_reach(
        self, mention: Mention, progress: Progress | None
    ) -> tuple[list[str], list[str]]:
        """Index the PDFs this mention can see; return the doc ids to ask and warnings.

        PDFs attached to the mention itself narrow the question to them. Files
        in the thread or recent history are indexed too (newest first, bounded)
        but the question then goes to every document of the channel.
        """
        own = [a for a in mention.attachments if a.source == "message"]
        own_pdfs = [a for a in own if a.looks_like_pdf]
        if own and not own_pdfs:
            names = ", ".join(safe_filename(a.name, suffix="") for a in own)
            raise PaperTrailError(
                f"{names} is not a PDF. I can only read PDF files: attach a .pdf and "
                "mention me again.",
                code="not_pdf",
            )
        nearby = [a for a in mention.attachments if a.source != "message" and a.looks_like_pdf]
        warnings: list[str] = []
        asked: list[str] = []
        for att in own_pdfs:
            doc, notes = self._ingest(mention.channel, att, progress)
            asked.append(doc.doc_id)
            warnings += notes
        for att in nearby[:MAX_PDFS_IN_REACH]:
            try:
                self._ingest(mention.channel, att, progress)
            except PaperTrailError as e:  # an old bad file must not block the question
                log.info("skipping %s from %s: %s", att.name, att.source, e.code)
        if not asked and not self.pipeline.documents(mention.channel):
            raise PaperTrailError(
                "I don't see a PDF here yet. Upload a PDF to this channel (or attach it to "
                "your message) and mention me with your question.",
                code="no_documents",
            )
        return asked, warnings

    def _ingest(self, channel: str, att: Attachment, progress: Progress | None):
        name = safe_filename(att.name)
        key = (channel, att.key)
        if att.key and key in self._known:
            for d in self.pipeline.documents(channel):
                if d.doc_id == self._known[key]:
                    return d, []
        check_size(name, att.size, self.settings.max_pdf_bytes)
        data = att.fetch()
        last = 0.0

        def pages(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if progress and (now - last >= PROGRESS_INTERVAL or done == total):
                last = now
                progress(f"Indexing {name} — {done}/{total} pages")

        if progress:
            progress(f"Indexing {name}…")
        with self._indexing:
            result = self.pipeline.ingest(channel, name, data, progress=pages)
        if att.key:
            with self._locks_guard:
                self._known[key] = result.document.doc_id
        return result.document, list(result.warnings)

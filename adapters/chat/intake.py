"""Getting shared PDFs into a channel's library, once each, and out again.

``Intake`` downloads and indexes ``Attachment``s for a channel: a platform
file already indexed there is not downloaded again, the PDFs one question or
post brings are downloaded side by side (then indexed one by one), a file
that failed is not downloaded again until it changes (``failed.py``), the same bytes shared
twice are embedded once (the pipeline keys documents by their sha256), every
share is recorded in the ``ShareRegistry`` under the name it was shared with
and the person who shared it, and indexing is bounded across channels. A
thread or history attachment that was forgotten (``forgotten.py``) is
skipped; posting a file again lifts its tombstone. ``forget`` removes
documents whose last live share is gone. Callers hold the channel's lock (``ChatService``), so a
question that arrives while its PDF is indexing waits for that work instead
of starting it again. Commands and replies are ``service.py``'s.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from adapters.chat.failed import FailedFiles
from adapters.chat.forgotten import Forgotten
from adapters.chat.library import Share, Shares
from adapters.chat.replies import typed
from papertrail.errors import PaperTrailError
from papertrail.pipeline import PaperTrail
from papertrail.read.uploads import check_size, looks_like_pdf
from papertrail.settings import Settings
from papertrail.text.names import safe_filename
from papertrail.types import Document

log = logging.getLogger(__name__)

PROGRESS_INTERVAL = 1.0  # seconds between progress edits: chat APIs rate-limit edits
MAX_PDFS_IN_REACH = 5  # thread/history PDFs indexed for one question, newest first
DOWNLOADS_AT_ONCE = 4  # files of one question or post downloaded side by side

Progress = Callable[[str], None]  # a status line such as "Indexing report.pdf — 12/40 pages"


@dataclass(frozen=True)
class Attachment:
    """A file the adapter can download on demand."""

    name: str
    fetch: Callable[[], bytes]  # downloads the bytes; raises PaperTrailError with a fix
    size: int | None = None  # bytes, when the platform says
    mimetype: str = ""
    key: str = ""  # platform file id, to skip re-downloading a file already indexed
    source: str = "message"  # "message" (this post), "thread" or "history"
    owner: str = ""  # platform user id of who shared it, when known
    post: str = ""  # platform id of the message that carried it, when known

    @property
    def looks_like_pdf(self) -> bool:
        return looks_like_pdf(self.name, self.mimetype)


@dataclass(frozen=True)
class Reach:
    """What a question can see once its PDFs are indexed."""

    asked: list[str]  # doc ids of the PDFs attached to the question ([] = the whole library)
    warnings: list[str]  # user-facing notes from indexing them
    documents: list[Document]  # the channel's ready documents, read once for this question


class Intake:
    """Indexes attachments into channels and records each share."""

    def __init__(
        self, pipeline: PaperTrail, settings: Settings, shares: Shares, forgotten: Forgotten
    ) -> None:
        self.pipeline = pipeline
        self.settings = settings
        self.shares = shares
        self.forgotten = forgotten
        self._busy: dict[str, list[str]] = {}  # channel -> names being indexed now
        self._busy_guard = threading.Lock()
        self.failed = FailedFiles()
        self._downloads = ThreadPoolExecutor(DOWNLOADS_AT_ONCE, thread_name_prefix="pt-download")
        self.progress_interval = PROGRESS_INTERVAL  # seconds between two progress lines

    def index(
        self,
        channel: str,
        att: Attachment,
        progress: Progress | None = None,
        documents: Sequence[Document] | None = None,
        fetched: dict[int, bytes | PaperTrailError] | None = None,
    ) -> tuple[Document, list[str]]:
        """The document for ``att`` in ``channel`` (indexed now if needed) and warnings.

        ``documents``: the channel's ready documents if the caller has read them;
        ``fetched``: bytes (or the error) ``download_all`` already got for ``att``.
        """
        name = safe_filename(att.name)
        known = self._indexed(channel, att, documents)
        if known is not None:
            return known, []
        if self.is_forgotten(channel, att):
            raise _forgotten(name)
        remembered = self.failed.get(att)
        if remembered is not None:  # failed before and unchanged: no new download
            raise remembered
        with self._busy_guard:
            self._busy.setdefault(channel, []).append(name)
        try:
            got = (fetched or {}).get(id(att))
            if isinstance(got, PaperTrailError):
                raise got
            result = self._ingest(channel, name, att, progress, got)
        except PaperTrailError as e:
            if e.code != "forgotten":
                self.failed.add(att, e)
            raise
        finally:
            with self._busy_guard:
                self._busy[channel].remove(name)
        doc = result.document
        if att.key:
            self.shares.add(Share(att.key, channel, doc.doc_id, name, att.owner, att.post))
        if att.source == "message":  # posted (again): whatever was forgotten of it is back
            self.forgotten.lift(channel, att.key, doc.doc_id)
        return doc, list(result.warnings)

    def is_forgotten(self, channel: str, att: Attachment) -> bool:
        """Whether ``att`` was forgotten here and is only within reach, not posted anew."""
        return (
            att.source != "message"
            and bool(att.key)
            and self.forgotten.buried(channel, att.key, att.post)
        )

    def _indexed(
        self, channel: str, att: Attachment, documents: Sequence[Document] | None = None
    ) -> Document | None:
        if att.key and (known := self.shares.get(att.key, channel)) is not None:
            if documents is None:
                documents = self.pipeline.documents(channel)
            for d in documents:
                if d.doc_id == known.doc_id:
                    return d
        return None

    def download_all(
        self, channel: str, attachments: Sequence[Attachment], documents=None
    ) -> dict[int, bytes | PaperTrailError]:
        """Download, side by side, the PDFs of ``attachments`` that ``index`` will need:
        ``id(attachment)`` -> its bytes, or the ``PaperTrailError`` that stopped it."""
        todo = [
            a
            for a in attachments
            if a.looks_like_pdf
            and self._indexed(channel, a, documents) is None
            and not self.is_forgotten(channel, a)
            and not self.failed.get(a)
        ]
        if len(todo) < 2:
            return {}  # nothing to overlap: ``index`` downloads it itself

        def fetch(att: Attachment) -> bytes | PaperTrailError:
            try:
                check_size(safe_filename(att.name), att.size, self.settings.max_pdf_bytes)
                return att.fetch()
            except PaperTrailError as e:
                return e

        return dict(zip(map(id, todo), self._downloads.map(fetch, todo), strict=True))

    def index_all(
        self, channel: str, attachments: Sequence[Attachment], progress: Progress | None = None
    ) -> list[Document]:
        """Index the PDFs of one post (downloaded side by side); their documents."""
        pdfs = [a for a in attachments if a.looks_like_pdf]
        fetched = self.download_all(channel, pdfs)
        return [self.index(channel, a, progress, None, self._ahead(channel, fetched, pdfs, a))[0]
                for a in pdfs]  # fmt: skip

    def _ahead(self, channel: str, fetched: dict, order: list[Attachment], att: Attachment):
        """``fetched``; the PDF after ``att`` in ``order`` is read while ``att`` is embedded."""
        later = order[order.index(att) + 1 :]
        if later and isinstance(data := fetched.get(id(later[0])), bytes):
            self.pipeline.prefetch(channel, data)
        return fetched

    def close(self) -> None:
        self._downloads.shutdown(wait=False, cancel_futures=True)

    def _ingest(self, channel, name, att: Attachment, progress: Progress | None, data=None):
        check_size(name, att.size, self.settings.max_pdf_bytes)
        if data is None:
            if progress:  # a large file can take a while: say what is happening
                progress(f"Downloading {name}…")
            data = att.fetch()
        if att.source != "message":  # the same bytes under another file id stay forgotten too
            doc_id = hashlib.sha256(data).hexdigest()
            if self.forgotten.buried_document(channel, doc_id):
                share = Share(att.key, channel, doc_id, name, att.owner, att.post)
                self.forgotten.bury(channel, [share] if att.key else [], ())  # no re-download
                raise _forgotten(name)
        last = 0.0

        def told(status: str, final: bool) -> None:
            nonlocal last
            now = time.monotonic()
            if progress and (now - last >= self.progress_interval or final):
                last = now
                progress(status)

        def read(done: int, total: int) -> None:  # pages read, then embedded and stored
            told(f"Reading {name} — page {done} of {total}", False)

        def pages(done: int, total: int) -> None:
            told(f"Indexing {name} — {done}/{total} pages", done == total)

        if progress:
            progress(f"Indexing {name}…")
        # at most ``max_concurrent_indexing`` at once: the pipeline's own limit
        return self.pipeline.ingest(channel, name, data, progress=pages, reading=read)

    def busy(self, channel: str) -> list[str]:
        """The files being indexed for ``channel`` right now."""
        with self._busy_guard:
            return list(self._busy.get(channel, ()))

    def in_reach(
        self, channel: str, attachments: Sequence[Attachment], progress: Progress | None
    ) -> Reach:
        """Index the PDFs a question can see; the doc ids to ask, warnings and the library.

        PDFs attached to the question itself narrow it to them. PDFs in its thread or
        recent history (a fallback for files shared before the bot was there) are indexed
        too, newest first and bounded, and the question then goes to the whole library.
        The channel's documents are read once here and handed on, with the new ones."""
        own = [a for a in attachments if a.source == "message"]
        own_pdfs = [a for a in own if a.looks_like_pdf]
        if own and not own_pdfs:
            names = ", ".join(safe_filename(a.name, suffix="") for a in own)
            again = "ask again" if typed(channel) else "mention me again"
            raise PaperTrailError(
                f"{names} is not a PDF. I can only read PDF files: attach a .pdf and {again}.",
                code="not_pdf",
            )
        nearby = [a for a in attachments if a.source != "message" and a.looks_like_pdf]
        library = {d.doc_id: d for d in self.pipeline.documents(channel)}
        nearby = [a for a in nearby if not self.is_forgotten(channel, a)][:MAX_PDFS_IN_REACH]
        fetched = self.download_all(channel, own_pdfs + nearby, list(library.values()))
        warnings: list[str] = []
        asked: list[str] = []
        for att in own_pdfs:
            ahead = self._ahead(channel, fetched, own_pdfs + nearby, att)
            doc, notes = self.index(channel, att, progress, list(library.values()), ahead)
            library.setdefault(doc.doc_id, doc)
            asked.append(doc.doc_id)
            warnings += notes
        unreadable: PaperTrailError | None = None
        for att in nearby:
            try:
                ahead = self._ahead(channel, fetched, own_pdfs + nearby, att)
                doc, _ = self.index(channel, att, progress, list(library.values()), ahead)
                library.setdefault(doc.doc_id, doc)
            except PaperTrailError as e:  # an old bad file must not block the question
                log.info("skipping %s from %s: %s", att.name, att.source, e.code)
                if e.code == "missing_scope":
                    unreadable = e
        if not asked and not library:
            if unreadable is not None:  # the PDF is there; the app may not read it
                raise unreadable
            how = "ask" if typed(channel) else "mention me with"
            raise PaperTrailError(
                "I don't see a PDF here yet. Upload a PDF to this channel (or attach it to "
                f"your message) and {how} your question.",
                code="no_documents",
            )
        return Reach(asked, warnings, list(library.values()))

    def forget(self, channel: str, gone: Sequence[Share]) -> list[Document]:
        """Remove the documents of ``gone`` (already out of the registry) that have no
        live share left in ``channel``; the documents removed."""
        removed: list[Document] = []
        for doc_id in dict.fromkeys(s.doc_id for s in gone if s.channel == channel):
            if self.shares.of_document(channel, doc_id):
                continue  # the same bytes are still shared here
            removed += self.pipeline.forget(channel, doc_id)
        return removed


def _forgotten(name: str) -> PaperTrailError:
    return PaperTrailError(
        f"{name} was removed from this channel's library. Post it again to bring it back.",
        code="forgotten",
    )

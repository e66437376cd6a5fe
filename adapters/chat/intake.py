"""Getting shared PDFs into a channel's library, once each, and out again.

``Intake`` downloads and indexes ``Attachment``s for a channel: a platform
file already indexed there is not downloaded again, the PDFs one question or
post brings are downloaded side by side (then indexed one by one), a file
that failed is remembered by platform id and size (``FailedFiles``) and not
downloaded again until it changes, the same bytes shared twice are embedded
once (the pipeline keys documents by their sha256), every share is recorded
in the ``ShareRegistry`` with the person who shared it, and indexing is
bounded across channels. ``forget`` removes documents whose last
live share is gone. Callers hold the channel's lock (``ChatService``), so a
question that arrives while its PDF is indexing waits for that work instead
of starting it again. Commands and replies are ``service.py``'s.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from adapters.chat.library import Share, Shares
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
# failures that belong to the file itself: kept until the file changes
FILE_FAULTS = {"not_pdf", "no_text", "too_many_pages", "too_large", "no_pages", "empty"}
FILE_FAULTS |= {"corrupt", "encrypted"}
RETRY_AFTER = 300.0  # seconds before a download or permission failure is tried again
MAX_FAILED = 5000  # failed files remembered per process

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


class FailedFiles:
    """Files that could not be indexed, by (platform file id, size): asked again, the
    same error comes back without a download. A failure of the file itself lasts
    until the file changes (another id or size); a failed download, a timeout or a
    missing permission is tried again after ``RETRY_AFTER`` seconds."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._failed: OrderedDict[tuple[str, int | None], tuple[float, PaperTrailError]]
        self._failed = OrderedDict()
        self._guard = threading.Lock()

    def get(self, att: Attachment) -> PaperTrailError | None:
        if not att.key:
            return None
        with self._guard:
            found = self._failed.get((att.key, att.size))
            if found is None:
                return None
            until, error = found
            if self._clock() >= until:
                del self._failed[(att.key, att.size)]
                return None
            return error

    def add(self, att: Attachment, error: PaperTrailError) -> None:
        if not att.key:
            return
        lasts = float("inf") if error.code in FILE_FAULTS else RETRY_AFTER
        with self._guard:
            self._failed[(att.key, att.size)] = (self._clock() + lasts, error)
            while len(self._failed) > MAX_FAILED:
                self._failed.popitem(last=False)


class Intake:
    """Indexes attachments into channels and records each share."""

    def __init__(self, pipeline: PaperTrail, settings: Settings, shares: Shares) -> None:
        self.pipeline = pipeline
        self.settings = settings
        self.shares = shares
        self._indexing = threading.BoundedSemaphore(max(1, settings.max_concurrent_indexing))
        self._busy: dict[str, list[str]] = {}  # channel -> names being indexed now
        self._busy_guard = threading.Lock()
        self.failed = FailedFiles()
        self._downloads = ThreadPoolExecutor(DOWNLOADS_AT_ONCE, thread_name_prefix="pt-download")

    def index(
        self,
        channel: str,
        att: Attachment,
        progress: Progress | None = None,
        fetched: dict[int, bytes | PaperTrailError] | None = None,
    ) -> tuple[Document, list[str]]:
        """The document for ``att`` in ``channel`` (indexed now if needed) and warnings;
        ``fetched`` holds bytes (or the error) already downloaded by ``download_all``."""
        known = self._indexed(channel, att)
        if known is not None:
            return known, []
        remembered = self.failed.get(att)
        if remembered is not None:
            raise remembered
        name = safe_filename(att.name)
        with self._busy_guard:
            self._busy.setdefault(channel, []).append(name)
        try:
            got = (fetched or {}).get(id(att))
            if isinstance(got, PaperTrailError):
                raise got
            result = self._ingest(channel, name, att, progress, got)
        except PaperTrailError as e:
            self.failed.add(att, e)
            raise
        finally:
            with self._busy_guard:
                self._busy[channel].remove(name)
        if att.key:
            doc = result.document
            self.shares.add(Share(att.key, channel, doc.doc_id, doc.name, att.owner, att.post))
        return result.document, list(result.warnings)

    def _indexed(self, channel: str, att: Attachment) -> Document | None:
        if att.key and (known := self.shares.get(att.key, channel)) is not None:
            for d in self.pipeline.documents(channel):
                if d.doc_id == known.doc_id:
                    return d
        return None

    def download_all(
        self, channel: str, attachments: Sequence[Attachment]
    ) -> dict[int, bytes | PaperTrailError]:
        """Download, side by side, the PDFs of ``attachments`` that ``index`` will need:
        ``id(attachment)`` -> its bytes, or the ``PaperTrailError`` that stopped it."""
        todo = [
            a
            for a in attachments
            if a.looks_like_pdf and self._indexed(channel, a) is None and not self.failed.get(a)
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
        return [self.index(channel, a, progress, fetched)[0] for a in pdfs]

    def close(self) -> None:
        self._downloads.shutdown(wait=False, cancel_futures=True)

    def _ingest(self, channel, name, att: Attachment, progress: Progress | None, data=None):
        check_size(name, att.size, self.settings.max_pdf_bytes)
        if data is None:
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
            return self.pipeline.ingest(channel, name, data, progress=pages)

    def busy(self, channel: str) -> list[str]:
        """The files being indexed for ``channel`` right now."""
        with self._busy_guard:
            return list(self._busy.get(channel, ()))

    def in_reach(
        self, channel: str, attachments: Sequence[Attachment], progress: Progress | None
    ) -> tuple[list[str], list[str]]:
        """Index the PDFs a question can see; the doc ids to ask, and warnings.

        PDFs attached to the question itself narrow it to them. PDFs in its
        thread or recent history (a fallback for files shared before the bot
        was there) are indexed too, newest first and bounded, and the question
        then goes to the whole library.
        """
        own = [a for a in attachments if a.source == "message"]
        own_pdfs = [a for a in own if a.looks_like_pdf]
        if own and not own_pdfs:
            names = ", ".join(safe_filename(a.name, suffix="") for a in own)
            raise PaperTrailError(
                f"{names} is not a PDF. I can only read PDF files: attach a .pdf and "
                "mention me again.",
                code="not_pdf",
            )
        nearby = [a for a in attachments if a.source != "message" and a.looks_like_pdf]
        nearby = nearby[:MAX_PDFS_IN_REACH]
        fetched = self.download_all(channel, own_pdfs + nearby)
        warnings: list[str] = []
        asked: list[str] = []
        for att in own_pdfs:
            doc, notes = self.index(channel, att, progress, fetched)
            asked.append(doc.doc_id)
            warnings += notes
        unreadable: PaperTrailError | None = None
        for att in nearby:
            try:
                self.index(channel, att, progress, fetched)
            except PaperTrailError as e:  # an old bad file must not block the question
                log.info("skipping %s from %s: %s", att.name, att.source, e.code)
                if e.code == "missing_scope":
                    unreadable = e
        if not asked and not self.pipeline.documents(channel):
            if unreadable is not None:  # the PDF is there; the app may not read it
                raise unreadable
            raise PaperTrailError(
                "I don't see a PDF here yet. Upload a PDF to this channel (or attach it to "
                "your message) and mention me with your question.",
                code="no_documents",
            )
        return asked, warnings

    def forget(self, channel: str, gone: Sequence[Share]) -> list[Document]:
        """Remove the documents of ``gone`` (already out of the registry) that have no
        live share left in ``channel``; the documents removed."""
        removed: list[Document] = []
        for doc_id in dict.fromkeys(s.doc_id for s in gone if s.channel == channel):
            if self.shares.of_document(channel, doc_id):
                continue  # the same bytes are still shared here
            removed += self.pipeline.forget(channel, doc_id)
        return removed

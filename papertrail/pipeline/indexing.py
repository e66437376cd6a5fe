"""Indexing one PDF into a channel: read, chunk, embed, store, once per file and channel.

``Indexing.ingest`` is the indexing half of ``PaperTrail`` (it uses the
pipeline's settings, embedder, store, PDF files, OCR engine, retriever and
leases). The same bytes again in the same channel return the stored
document; with ``leases`` (multi-worker mode) one worker indexes a file while
the others wait for it; a document becomes visible only once every chunk is
stored, and a failure removes what was written. Questions are ``__init__``'s.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from papertrail.coord import acquire_or_wait
from papertrail.embed.model import Warmup
from papertrail.embed.once import embed_once
from papertrail.errors import PaperTrailError
from papertrail.read.chunking import chunk_blocks
from papertrail.read.pdf import decrypted, read_pdf
from papertrail.text.identity import identify, passages
from papertrail.types import Document

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]  # (pages done, pages total)
# chunks per embedding call: fills the embedder's workers (4 x 8 texts a pass) twice over,
# and progress is reported after each call, so a long PDF moves a few pages at a time
EMBED_BATCH = 64
LEASE_TTL = 30.0  # seconds an indexing lease outlives its holder: how soon a crash is taken over


@dataclass(frozen=True)
class IngestResult:
    document: Document
    new: bool  # False when the same bytes were already indexed for this channel
    embedded: int  # texts embedded by this call (0 on a re-upload, here or in another channel)
    warnings: tuple[str, ...] = ()  # user-facing, e.g. "pages 3, 4 have no text layer"
    timings: dict[str, float] | None = None  # seconds per stage: read, chunk, embed, store


class Indexing:
    """The ingest half of ``PaperTrail`` (a base class: it reads the pipeline's parts)."""

    def ingest(
        self,
        channel: str,
        name: str,
        data: bytes,
        *,
        password: str | None = None,
        progress: Progress | None = None,
        reading: Progress | None = None,
    ) -> IngestResult:
        """Index ``data`` for ``channel``; raises PaperTrailError on bad input.

        ``reading`` is told of each page read, then ``progress`` of the pages
        whose passages are embedded and stored, after each batch.

        The same bytes again in the same channel return the stored document
        without embedding anything. A document only becomes visible to
        questions once every chunk is stored.
        """
        start = time.perf_counter()
        doc_id = hashlib.sha256(data).hexdigest()
        args = (channel, name, data, doc_id, start, password, progress)
        if self.leases is None:
            return self._ingest(*args, None, reading)
        got = acquire_or_wait(
            self.leases,
            f"index:{channel}:{doc_id}",
            self.lease_ttl,
            lambda: self._ready(channel, doc_id),
            timeout=self.settings.max_index_seconds,
        )
        if isinstance(got, Document):  # another worker indexed it while we waited
            return IngestResult(got, new=False, embedded=0)
        try:
            return self._ingest(*args, got, reading)
        finally:
            got.release()

    def _ready(self, channel: str, doc_id: str) -> Document | None:
        known = self.store.get_document(channel, doc_id)
        return known if known is not None and known.status == "ready" else None

    def _ingest(self, channel, name, data, doc_id, start, password, progress, lease, reading):
        known = self.store.get_document(channel, doc_id)
        if known is not None and known.status == "ready":
            return IngestResult(known, new=False, embedded=0)
        if known is not None:  # a crash left it half-indexed: start over
            log.info("removing half-indexed %s in %s", doc_id[:12], channel)
            self.store.delete(channel, doc_id)

        warming = Warmup(self.embedder)

        def page_read(done: int, total: int) -> None:
            warming.page_read(done, total)
            if reading:
                reading(done, total)

        try:
            # once the first page has been read the file is a usable PDF: load the
            # model (~8 s in a fresh process) while the rest is read and OCRed
            parsed = read_pdf(
                data, self.settings, password=password, ocr=self.ocr, progress=page_read
            )
        except BaseException:
            warming.wait()  # no half-imported torch at interpreter exit (CLI, check child)
            raise
        t_read = time.perf_counter()
        chunks = chunk_blocks(
            parsed.blocks,
            doc_id=doc_id,
            doc_name=name,
            size=self.settings.chunk_size,
            overlap=self.settings.chunk_overlap,
        )
        t_chunk = time.perf_counter()
        if not chunks:
            raise PaperTrailError(
                f"{name} has no text I can search: it looks scanned or empty. "
                "Upload a PDF with a text layer (or run it through OCR first).",
                code="no_text",
            )
        doc = Document(
            channel=channel,
            doc_id=doc_id,
            name=name,
            pages=parsed.pages,
            chunks=len(chunks),
            status="indexing",
            no_text_pages=parsed.no_text_pages,
            ocr_pages=parsed.ocr_pages,
            created=time.time(),
            identity=identify(name, chunks, self.retriever.domains),  # what it says it is
        )
        self.store.begin(doc)
        embed_s = store_s = 0.0
        embedded = 0
        try:
            self.files.save(channel, doc_id, decrypted(data, password))
            # the same bytes already embedded in another channel: copy their vectors
            known = self.store.vectors_elsewhere(channel, doc_id)  # keyed by stored text
            about = doc.identity if self.settings.contextual and not known else None
            for i in range(0, len(chunks), self.embed_batch):
                if time.perf_counter() - start > self.settings.max_index_seconds:
                    raise PaperTrailError(
                        f"Indexing {name} took longer than the limit of "
                        f"{self.settings.max_index_seconds:g} s "
                        "(PAPERTRAIL_MAX_INDEX_SECONDS). Split the PDF or raise the limit.",
                        code="timeout",
                    )
                if lease is not None:
                    lease.check()  # stalled past the lease: another worker is indexing it
                batch = chunks[i : i + self.embed_batch]
                t0 = time.perf_counter()
                vectors, fresh = embed_once(self.embedder, passages(batch, about), known)
                embedded += fresh
                t1 = time.perf_counter()
                self.store.add_chunks(channel, batch, vectors)
                embed_s += t1 - t0
                store_s += time.perf_counter() - t1
                if progress:
                    progress(batch[-1].page, parsed.pages)
            t0 = time.perf_counter()
            doc = self.store.commit(doc)
            store_s += time.perf_counter() - t0
        except BaseException:
            if lease is None or not lease.lost:  # a lost lease's work is someone else's now
                self.store.delete(channel, doc_id)
                self.files.delete(channel, doc_id)
            raise
        try:
            self.retriever.warm(channel)  # build the BM25 index now, not on the first question
        except Exception:  # only a speed-up: the first question builds it otherwise
            log.exception("warming the BM25 index of %s failed", channel)
        timings = {
            "read": t_read - start,
            "chunk": t_chunk - t_read,
            "embed": embed_s,
            "store": store_s,
            "total": time.perf_counter() - start,
        }
        return IngestResult(doc, True, embedded, parsed.warnings, timings)

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
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from papertrail.coord import acquire_or_wait
from papertrail.embed.model import Warmup
from papertrail.embed.stream import embed_all
from papertrail.errors import PaperTrailError
from papertrail.pipeline.stages import Clock
from papertrail.pipeline.storing import StoreBehind
from papertrail.read.chunking import chunk_blocks
from papertrail.read.pdf import TextLayer, decrypted, finish_ocr, read_text_layer
from papertrail.text.identity import identify, passages
from papertrail.types import Chunk, Document

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]  # (pages done, pages total)
# chunks per embedding call: fills the embedder's workers (4 x 8 texts a pass) twice over,
# and progress is reported after each call, so a long PDF moves a few pages at a time
EMBED_BATCH = 64
LEASE_TTL = 30.0  # seconds an indexing lease outlives its holder: how soon a crash is taken over
# OCR of a document's scanned pages runs here, beside the embedding of its other pages
_OCR_THREAD = ThreadPoolExecutor(1, thread_name_prefix="papertrail-ocr-pages")
# the next PDF of a drop is read here while the current one is embedded (``ingest_many``)
_READ_AHEAD = ThreadPoolExecutor(1, thread_name_prefix="papertrail-read-ahead")
READ_AHEAD = 2  # text layers read ahead and kept at most (a 10-K's: tens of MB)


@dataclass(frozen=True)
class IngestResult:
    document: Document
    new: bool  # False when the same bytes were already indexed for this channel
    embedded: int  # texts embedded by this call (0 on a re-upload, here or in another channel)
    warnings: tuple[str, ...] = ()  # user-facing, e.g. "pages 3, 4 have no text layer"
    # seconds per stage (``stages.Clock``): read, ocr (beside embed), wait_ocr, chunk, embed, store
    # (beside embed), rest, lexical, total; ocr_pages; embed_cpu (cores busy while embedding)
    timings: dict[str, float] | None = None


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
        """Index ``data`` for ``channel`` (PaperTrailError on bad input): ``reading`` hears of
        each page read, then ``progress`` of the pages embedded and stored, batch by batch;
        the same bytes again return the stored document, embedding nothing."""
        start = time.perf_counter()  # the timings count the hashing too
        doc_id = hashlib.sha256(data).hexdigest()
        return self._index(start, channel, name, data, doc_id, password, progress, reading)

    def ingest_kept(self, channel: str, doc_id: str, name: str, data: bytes) -> IngestResult:
        """``ingest`` the kept bytes (``PdfFiles``) of the document ``doc_id`` of ``channel``
        under this pipeline's index key, as that same document: the id is the hash of the
        upload, and an encrypted upload is kept decrypted (which hashes otherwise). The
        bytes are not saved again: a forget meanwhile deletes them, and saving them would
        bring the document back (``carrying``)."""
        start = time.perf_counter()
        return self._index(start, channel, name, data, doc_id, None, None, None, save=False)

    def _index(
        self, start, channel, name, data, doc_id, password, progress, reading, *, save=True
    ) -> IngestResult:
        """``ingest`` of ``data`` as ``doc_id``: alone, or under a lease (several workers);
        ``save``: keep the bytes (an upload), not when they are kept already. At most
        ``max_concurrent_indexing`` at once in this process; the others wait their turn."""
        asked = time.perf_counter()
        with self._slots:
            start += time.perf_counter() - asked  # waiting for a turn is not indexing time
            return self._index_now(
                start, channel, name, data, doc_id, password, progress, reading, save
            )

    def _index_now(self, start, channel, name, data, doc_id, password, progress, reading, save):
        args = (channel, name, data, doc_id, start, password, progress)
        layer = None if password else self._prefetched(channel, doc_id)
        if self.leases is None:
            return self._ingest(*args, None, layer, reading=reading, save=save)
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
            return self._ingest(*args, got, layer, reading=reading, save=save)
        finally:
            got.release()

    def ingest_many(
        self,
        channel: str,
        files: Sequence[tuple[str, bytes]],
        *,
        on_ready: Callable[[IngestResult | PaperTrailError], None] | None = None,
    ) -> list[IngestResult | PaperTrailError]:
        """Index several PDFs dropped at once as one pipeline, in the order given: while one
        is embedded, the next one is read (``prefetch``); each is answerable as soon as its
        own chunks are stored, and ``on_ready`` hears of it then (an unusable file: its
        ``PaperTrailError``, the others still indexed)."""
        out: list[IngestResult | PaperTrailError] = []
        for i, (name, data) in enumerate(files):
            if i + 1 < len(files):
                self.prefetch(channel, files[i + 1][1])
            try:
                result: IngestResult | PaperTrailError = self.ingest(channel, name, data)
            except PaperTrailError as e:
                result = e
            out.append(result)
            if on_ready is not None:
                on_ready(result)
        return out

    def prefetch(self, channel: str, data: bytes) -> None:
        """Read ``data``'s text layer now, on the read-ahead thread, for the ``ingest`` of
        it that comes next in ``channel`` (the next PDF of a drop, read while the current
        one is embedded). The latest ``READ_AHEAD`` are kept; a failure is left for
        ``ingest`` to meet again."""
        key = (channel, hashlib.sha256(data).hexdigest())
        with self._ahead_lock:
            if key not in self._ahead:
                self._ahead[key] = _READ_AHEAD.submit(self._read_ahead, channel, data)
            while len(self._ahead) > READ_AHEAD:
                self._ahead.pop(next(iter(self._ahead))).cancel()

    def _prefetched(self, channel: str, doc_id: str) -> TextLayer | None:
        with self._ahead_lock:
            reading = self._ahead.pop((channel, doc_id), None)
        try:
            return reading.result() if reading is not None else None
        except Exception:  # read again by ``ingest``, which reports it to the user
            return None

    def _read_ahead(self, channel: str, data: bytes) -> TextLayer | None:
        """The text layer of ``data``, None when it is indexed in ``channel`` already."""
        if self._ready(channel, hashlib.sha256(data).hexdigest()) is not None:
            return None
        return self._read(data, None)

    def _ready(self, channel: str, doc_id: str) -> Document | None:
        known = self.store.get_document(channel, doc_id)
        return known if known is not None and known.status == "ready" else None

    def _ingest(
        self,
        channel,
        name,
        data,
        doc_id,
        start,
        password,
        progress,
        lease,
        layer=None,
        reading=None,
        save=True,
    ):
        known_doc = self.store.get_document(channel, doc_id)
        if known_doc is not None and known_doc.status == "ready":
            return IngestResult(known_doc, new=False, embedded=0)
        if known_doc is not None:  # a crash left it half-indexed: start over
            log.info("removing half-indexed %s in %s", doc_id[:12], channel)
            self.store.delete(channel, doc_id)
        clock = Clock(start)
        if layer is None:
            layer = self._read(data, password, reading)
        clock.mark("read")

        def check() -> None:  # between embedding calls: the time limit, the lease
            if time.perf_counter() - start > self.settings.max_index_seconds:
                raise PaperTrailError(
                    f"Indexing {name} took longer than the limit of "
                    f"{self.settings.max_index_seconds:g} s "
                    "(PAPERTRAIL_MAX_INDEX_SECONDS). Split the PDF or raise the limit.",
                    code="timeout",
                )
            if lease is not None:
                lease.check()  # stalled past the lease: another worker is indexing it

        # the same bytes already embedded in another channel: copy their vectors
        known = self.store.vectors_elsewhere(channel, doc_id)  # keyed by stored text
        copied = bool(known)  # then passages are looked up by stored text, context or not
        embedded = 0
        if self.ocr is not None and layer.ocr_any:
            # OCR reads its pages on its own thread while the text layer's passages are
            # embedded; chunks never cross pages, so those passages are the final ones
            # (but on pages whose pictures OCR reads: they get more lines)
            reading = _OCR_THREAD.submit(
                finish_ocr, layer, data, self.settings, password=password, ocr=self.ocr
            )
            try:
                if not copied:
                    pictured = {pno for pno, _ in layer.pictures}
                    settled = [b for b in layer.blocks if b.page not in pictured]
                    early = self._chunk(settled, doc_id, name)
                    # in context, what the text layer says the document is; the vectors
                    # are used when OCR's pages leave that unchanged (they seldom hold the cover)
                    guess = None
                    if self.settings.contextual:
                        guess = identify(name, early, self.retriever.domains)
                    with clock.part("embed"):
                        embedded += embed_all(
                            self.embedder,
                            passages(early, guess),
                            known,
                            call=self.embed_batch,
                            before_call=check,
                        )
            finally:
                parsed = reading.result()  # never leave OCR running behind a failure
        else:
            parsed = finish_ocr(layer, data, self.settings, password=password)
        clock.mark("wait_ocr")
        chunks = self._chunk(parsed.blocks, doc_id, name)
        clock.mark("chunk")
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
        # bytes kept before (the document under another index key): a failure leaves them
        kept = not save or self.files.path(channel, doc_id).exists()
        self.store.begin(doc)
        try:
            if save:
                self.files.save(channel, doc_id, decrypted(data, password))
            about = doc.identity if self.settings.contextual and not copied else None
            texts = passages(chunks, about)
            behind = StoreBehind(
                self.store,
                channel,
                chunks,
                texts,
                known,
                batch=self.embed_batch,
                progress=progress,
                pages=doc.pages,
            )
            try:
                with clock.part("embed"):
                    embedded += embed_all(
                        self.embedder,
                        texts,
                        known,
                        call=self.embed_batch,
                        before_call=check,
                        after_call=behind.push,
                    )
                behind.push()  # chunks whose vectors were known before any call
            finally:
                failed = behind.finish()
            clock.add("store", behind.busy)
            if failed is not None:
                raise failed
            with clock.part("store"):
                doc = self.store.commit(doc)
        except BaseException:
            if lease is None or not lease.lost:  # a lost lease's work is someone else's now
                self.store.delete(channel, doc_id)
                if not kept:
                    self.files.delete(channel, doc_id)
            raise
        clock.mark("rest")
        try:
            self.retriever.warm(channel)  # build the BM25 index now, not on the first question
        except Exception:  # only a speed-up: the first question builds it otherwise
            log.exception("warming the BM25 index of %s failed", channel)
        clock.mark("lexical")
        timings = clock.timings(
            ocr=parsed.ocr_seconds,
            ocr_pages=len(parsed.ocr_pages),
            picture_pages=len(parsed.picture_pages),
        )
        return IngestResult(doc, True, embedded, parsed.warnings, timings)

    def _read(
        self, data: bytes, password: str | None, reading: Progress | None = None
    ) -> TextLayer:
        warming = Warmup(self.embedder)

        def page_read(done: int, total: int) -> None:
            warming.page_read(done, total)
            if reading:
                reading(done, total)

        try:
            # once the first page has been read the file is a usable PDF: load the
            # model (~8 s in a fresh process) while the rest is read
            return read_text_layer(data, self.settings, password=password, progress=page_read)
        except BaseException:
            warming.wait()  # no half-imported torch at interpreter exit (CLI, check child)
            raise

    def _chunk(self, blocks, doc_id: str, name: str) -> list[Chunk]:
        return chunk_blocks(
            blocks,
            doc_id=doc_id,
            doc_name=name,
            size=self.settings.chunk_size,
            overlap=self.settings.chunk_overlap,
        )

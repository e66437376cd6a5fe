"""The pipeline API the adapters and the CLI call: ingest, ask, documents, forget.

Everything is per channel and synchronous; callers on an event loop run it in
a thread, and callers that serve many channels serialise work per channel
(``adapters/chat/service.py``). The pieces are passed in, so tests build a
``PaperTrail`` from small fakes and ``from_settings`` builds the real one.
With ``leases`` (multi-worker mode) one worker indexes a file while the others
wait for it; with a Chroma server the PDFs for page images are shared
(``pdf_files.py``). It leaves out scheduling, chat formatting and platform I/O.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.coord import Leases, acquire_or_wait
from papertrail.domains import KNOWN
from papertrail.embed.model import Warmup
from papertrail.embed.once import embed_once
from papertrail.errors import PaperTrailError
from papertrail.protocols import Domain, Embedder, Generator, Store
from papertrail.read.chunking import chunk_blocks
from papertrail.read.pdf import read_pdf
from papertrail.render.render import render_citations
from papertrail.retrieve.retriever import Retriever
from papertrail.settings import Settings
from papertrail.store.blobs import Blobs, ChromaBlobs
from papertrail.store.chroma import open_store
from papertrail.store.pdf_files import PdfFiles
from papertrail.text.identity import identify, passages
from papertrail.types import Answer, Citation, Document, Snippet
from papertrail.verify.verify import verify_answer

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]  # (pages done, pages total)
EMBED_BATCH = 256  # chunks per embedding call: fills the embedder's workers; progress per call
LEASE_TTL = 30.0  # seconds an indexing lease outlives its holder: how soon a crash is taken over


@dataclass(frozen=True)
class IngestResult:
    document: Document
    new: bool  # False when the same bytes were already indexed for this channel
    embedded: int  # texts embedded by this call (0 on a re-upload, here or in another channel)
    warnings: tuple[str, ...] = ()  # user-facing, e.g. "pages 3, 4 have no text layer"
    timings: dict[str, float] | None = None  # seconds per stage: read, chunk, embed, store


class PaperTrail:
    """Index PDFs per channel and answer questions with verified citations."""

    def __init__(
        self,
        settings: Settings,
        *,
        embedder: Embedder,
        store: Store,
        generator: Generator | None = None,
        ocr=None,
        leases: Leases | None = None,
        blobs: Blobs | None = None,
        domains: Sequence[Domain] = KNOWN,
    ) -> None:
        self.settings = settings
        self.embedder = embedder
        self.store = store
        self.generator = generator or ExtractiveGenerator(embedder, domains=domains)
        self.ocr = ocr
        self.retriever = Retriever(store, embedder, domains=domains)
        self.files = PdfFiles(Path(settings.data_dir) / "files", shared=blobs)
        self.embed_batch = EMBED_BATCH
        self.leases = leases  # multi-worker mode (bot/wiring.py): one worker indexes a file
        self.lease_ttl = LEASE_TTL

    @classmethod
    def from_settings(cls, settings: Settings, **shared) -> PaperTrail:
        """The production wiring: bundled model, Chroma, Groq or offline answers, OCR.

        ``shared`` passes multi-worker seams (``leases``, ``budget``) from bot/wiring.py.
        """
        from papertrail.answer.llm import get_generator
        from papertrail.embed.cache import MemoEmbedder
        from papertrail.embed.model import get_embedder

        embedder = MemoEmbedder(get_embedder(settings))
        extractive = ExtractiveGenerator(embedder, domains=KNOWN)
        ocr = None
        if settings.ocr:
            try:
                from papertrail.read.ocr import get_ocr
            except ImportError:  # the OCR engine is optional
                get_ocr = None
            ocr = get_ocr() if get_ocr else None
        store = open_store(settings, model=embedder.name + ("+context" * settings.contextual))
        # Documents a crash left half-indexed are invisible already; this frees their space.
        store.cleanup(older_than=settings.max_index_seconds)
        return cls(
            settings,
            embedder=embedder,
            store=store,
            generator=get_generator(settings, fallback=extractive, budget=shared.get("budget")),
            ocr=ocr,
            leases=shared.get("leases"),
            blobs=ChromaBlobs(store.client) if settings.chroma_host else None,
        )

    def warm_up(self) -> None:
        """Start loading the embedding model in the background (bots call it at start-up)."""
        Warmup(self.embedder).start()

    # -- indexing ---------------------------------------------------------

    def ingest(
        self,
        channel: str,
        name: str,
        data: bytes,
        *,
        password: str | None = None,
        progress: Progress | None = None,
    ) -> IngestResult:
        """Index ``data`` for ``channel``; raises PaperTrailError on bad input.

        The same bytes again in the same channel return the stored document
        without embedding anything. A document only becomes visible to
        questions once every chunk is stored.
        """
        start = time.perf_counter()
        doc_id = hashlib.sha256(data).hexdigest()
        if self.leases is None:
            return self._ingest(channel, name, data, doc_id, start, password, progress, None)
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
            return self._ingest(channel, name, data, doc_id, start, password, progress, got)
        finally:
            got.release()

    def _ready(self, channel: str, doc_id: str) -> Document | None:
        known = self.store.get_document(channel, doc_id)
        return known if known is not None and known.status == "ready" else None

    def _ingest(self, channel, name, data, doc_id, start, password, progress, lease):
        known = self.store.get_document(channel, doc_id)
        if known is not None and known.status == "ready":
            return IngestResult(known, new=False, embedded=0)
        if known is not None:  # a crash left it half-indexed: start over
            log.info("removing half-indexed %s in %s", doc_id[:12], channel)
            self.store.delete(channel, doc_id)

        warming = Warmup(self.embedder)
        try:
            # once the first page has been read the file is a usable PDF: load the
            # model (~8 s in a fresh process) while the rest is read and OCRed
            parsed = read_pdf(
                data, self.settings, password=password, ocr=self.ocr, progress=warming.page_read
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
            identity=identify(name, chunks, self.retriever.domains),
        )
        self.store.begin(doc)
        embed_s = store_s = 0.0
        embedded = 0
        try:
            self.files.save(channel, doc_id, data, password)
            known = self.store.vectors_elsewhere(channel, doc_id)  # embedded elsewhere: copy
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

    # -- questions --------------------------------------------------------

    def ask(
        self,
        channel: str,
        question: str,
        *,
        doc_ids: Sequence[str] | None = None,
        render: bool = True,
        k: int | None = None,
        mode: str = "hybrid",
    ) -> Answer:
        """Answer from the channel's ready documents (or only ``doc_ids``)."""
        question = question.strip()
        if not question:
            raise PaperTrailError("Ask a question about your PDF.", code="no_question")
        docs = {d.doc_id: d for d in self.store.documents(channel)}
        if not docs:
            raise PaperTrailError(
                "No PDF is indexed here yet. Upload a PDF and mention me with your question.",
                code="no_documents",
            )
        if doc_ids is not None:
            unknown = [d for d in doc_ids if d not in docs]
            if unknown:
                raise PaperTrailError(
                    "That document is not indexed in this channel.", code="unknown_document"
                )
        k, ready = k or self.settings.top_k, list(docs.values())  # the registry is read once
        hits = self.retriever.search(
            channel, question, k=k, doc_ids=doc_ids, mode=mode, documents=ready
        )
        draft = self.generator.generate(question, hits)
        checked = verify_answer(draft.text, hits, embedder=self.embedder)
        snippets = ()
        if render and checked.citations:
            snippets = tuple(self._render(channel, checked.citations))
        return Answer(
            question=question,
            text=checked.text,
            citations=checked.citations,
            dropped=checked.dropped,
            grounded=checked.grounded,
            refusal=checked.refusal,
            mode=draft.mode,
            hits=tuple(hits),
            snippets=snippets,
            notes=draft.notes,
        )

    def documents(self, channel: str) -> list[Document]:
        return self.store.documents(channel)

    def find(self, channel: str, name_or_id: str | None = None) -> list[Document]:
        """The documents ``forget`` would remove: one by file name or sha256 prefix, or all."""
        docs = self.store.documents(channel)
        if name_or_id is not None:
            key = name_or_id.strip()
            docs = [
                d
                for d in docs
                if d.name == key or d.name.lower() == key.lower() or d.doc_id.startswith(key)
            ]
            if len(key) < 6:  # a short prefix of a hash is too easy to hit by accident
                docs = [d for d in docs if d.name.lower() == key.lower()]
        return docs

    def forget(self, channel: str, name_or_id: str | None = None) -> list[Document]:
        """Remove one document (by file name or sha256 prefix) or, with None, all.

        Only this channel's copy goes; the same file in another channel stays.
        """
        docs = self.find(channel, name_or_id)
        for d in docs:
            self.store.delete(channel, d.doc_id)
            self.files.delete(channel, d.doc_id)
        return docs

    def render_later(self, channel: str, citations: Sequence[Citation]) -> Future[list[Snippet]]:
        """Render the snippets of ``citations`` on a background thread.

        For a caller that posts the answer text first (``ask(render=False)``)
        and attaches the pictures when they are ready: the reply does not wait
        for rendering, and nothing is rendered for an answer never shown.
        """
        return _RENDERER.submit(self._render, channel, tuple(citations))

    def _render(self, channel: str, citations: Sequence[Citation]) -> list[Snippet]:
        settings = self.settings
        return render_citations(
            citations,
            lambda doc_id: self.files.load(channel, doc_id),
            zoom=settings.render_zoom,
            max_width=settings.max_image_width,
        )


# One thread: PyMuPDF serialises rendering anyway, and a queue keeps memory flat.
_RENDERER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="papertrail-render")

"""The pipeline API the adapters and the CLI call: ingest, ask, documents, forget.

Everything is per channel and synchronous; callers on an event loop run it in
a thread, and callers that serve many channels serialise work per channel
(``adapters/chat/service.py``). The pieces are passed in, so tests build a
``PaperTrail`` from small fakes and ``from_settings`` builds the real one.
With ``leases`` (multi-worker mode) one worker indexes a file while the others
wait for it; with a Chroma server the PDFs for page images are shared
(``pdf_files.py``). Indexing is ``indexing.py``'s; carrying a library over to a
new index key, ``carrying.py``'s. ``close()`` releases what
``from_settings`` opened (store client, LLM connection); parts
passed in are the caller's to close. It leaves out scheduling, chat
formatting and platform I/O.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path

from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.coord import Leases
from papertrail.domains import KNOWN
from papertrail.errors import PaperTrailError
from papertrail.pipeline.carrying import CarryOver, Outcome, carry_over
from papertrail.pipeline.indexing import EMBED_BATCH, LEASE_TTL, Indexing, IngestResult, Progress
from papertrail.pipeline.warming import warm_answering
from papertrail.protocols import Domain, Embedder, Generator, Store
from papertrail.render.citations import render_citations
from papertrail.retrieve.retriever import Retriever
from papertrail.settings import Settings
from papertrail.store.blobs import Blobs, ChromaBlobs
from papertrail.store.chroma import indexed_as, open_store
from papertrail.store.pdf_files import PdfFiles
from papertrail.text.acronyms import expansions
from papertrail.text.ask import read
from papertrail.text.identity import most_named, named_in
from papertrail.text.memo import scoped
from papertrail.types import Answer, Ask, Citation, Document, Hit, Snippet
from papertrail.verify.computed import verify_calculation
from papertrail.verify.question import closest_if_off_question
from papertrail.verify.verify import verify_answer

__all__ = ["CarryOver", "IngestResult", "PaperTrail", "Progress"]
log = logging.getLogger(__name__)
SECTION_HITS = 60  # excerpts added for a worked-out figure (``PaperTrail._rows_for``)
LISTING_PAGES, LISTING_HITS = 3, 20  # pages read whole for a code or quoted term, excerpts
# offline answers judged against the question too: a quote, a table figure (the others
# answer only the one form of question they read: an acronym, a code, a label, a term)
QUESTION_CHECKED = ("quote", "table figure")


class PaperTrail(Indexing):
    """Index PDFs per channel and answer questions with verified citations.

    Indexing (``ingest``) is ``indexing.Indexing``'s; this class answers, lists,
    forgets, renders and carries libraries over to a new index key (``carrying``), and
    ``close()`` releases what ``from_settings`` opened (and stops a carry-over).
    """

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
        # worked-out figures; the offline rules ``settings.without`` names are left out
        self.calculator = ExtractiveGenerator(embedder, domains=domains, without=settings.without)
        self.generator = generator or self.calculator
        self.ocr = ocr
        self.retriever = Retriever(store, embedder, domains=domains, without=settings.without)
        self.domains = tuple(domains)
        self.files = PdfFiles(Path(settings.data_dir) / "files", shared=blobs)
        self.embed_batch = EMBED_BATCH
        self.leases = leases  # multi-worker mode (bot/wiring.py): one worker indexes a file
        self.lease_ttl = LEASE_TTL
        self._ahead: dict[tuple[str, str], Future] = {}  # (channel, doc id) -> text layer read
        self._ahead_lock = threading.Lock()
        # PDFs indexed at once, whoever asks (uploads, the carry-over): what bounds memory
        self._slots = threading.BoundedSemaphore(max(1, settings.max_concurrent_indexing))
        self.owned: tuple[object, ...] = ()  # parts this object opened: ``close`` closes them
        self.stopping = threading.Event()  # set by ``close``: background work (carry-over) ends

    @classmethod
    def from_settings(cls, settings: Settings, **shared) -> PaperTrail:
        """The production wiring: bundled model, Chroma, Groq or offline answers, OCR.

        ``shared`` passes multi-worker seams (``leases``, ``budget``) from bot/wiring.py.
        """
        from papertrail.answer.llm import get_generator
        from papertrail.embed.cache import MemoEmbedder
        from papertrail.embed.model import get_embedder
        from papertrail.pipeline.malloc import limit_arenas

        limit_arenas()  # before the pipeline's threads allocate: freed memory is reused

        embedder = MemoEmbedder(get_embedder(settings))
        extractive = ExtractiveGenerator(embedder, domains=KNOWN, without=settings.without)
        ocr = None
        if settings.ocr:
            try:
                from papertrail.read.ocr import get_ocr
            except ImportError:  # the OCR engine is optional
                get_ocr = None
            ocr = get_ocr() if get_ocr else None
        store = open_store(settings, model=indexed_as(embedder.name, settings))
        # Documents a crash left half-indexed are invisible already; this frees their space.
        store.cleanup(older_than=settings.max_index_seconds)
        generator = get_generator(settings, fallback=extractive, budget=shared.get("budget"))
        pipeline = cls(
            settings,
            embedder=embedder,
            store=store,
            generator=generator,
            ocr=ocr,
            leases=shared.get("leases"),
            blobs=ChromaBlobs(store.client) if settings.chroma_host else None,
        )
        pipeline.owned = (generator, store)  # the OCR engine and model are process-wide
        return pipeline

    def close(self) -> None:
        """Close what ``from_settings`` opened, each once; errors are logged, the rest go on."""
        self.stopping.set()
        owned, self.owned = self.owned, ()
        for part in owned:
            close = getattr(part, "close", None)
            if callable(close):
                try:
                    close()
                except Exception:
                    log.exception("closing %s failed", type(part).__name__)

    def warm_up(self) -> threading.Thread:
        """Load what a first question needs in a thread (bots, at start): ``Retriever.warm_up``
        (model, BM25 indexes), then the answerers' and verifier's first use (``warming``)."""
        thread = threading.Thread(target=self._warm, name="pt-warm", daemon=True)
        thread.start()
        return thread

    def _warm(self) -> None:
        self.retriever.warm_up()
        try:
            warm_answering(self.domains, self.settings.without)
        except Exception:  # the first question meets it again, with its own message
            log.exception("warming up the answerers failed")

    # -- questions --------------------------------------------------------

    @scoped  # each text the question brings is read once (``text.memo``)
    def ask(
        self,
        channel: str,
        question: str,
        *,
        doc_ids: Sequence[str] | None = None,
        render: bool = True,
        k: int | None = None,
        mode: str = "hybrid",
        documents: Sequence[Document] | None = None,
    ) -> Answer:
        """Answer from the channel's ready documents (or only ``doc_ids``).

        ``documents`` are the channel's ready documents when the caller has just
        read them (``documents(channel)``): the registry is read once per question.
        """
        question = question.strip()
        if not question:
            raise PaperTrailError("Ask a question about your PDF.", code="no_question")
        if documents is None:
            documents = self.store.documents(channel)
        docs = {d.doc_id: d for d in documents}
        if not docs:
            raise PaperTrailError(
                "No PDF is indexed here yet. Upload a PDF, then ask your question about it.",
                code="no_documents",
            )
        if doc_ids is not None:
            unknown = [d for d in doc_ids if d not in docs]
            if unknown:
                raise PaperTrailError(
                    "That document is not indexed in this channel.", code="unknown_document"
                )
        ask = read(question, self.domains)  # the one reading of the question's text
        hits = self.retriever.search(
            channel,
            question,
            k=k or self.settings.top_k,
            doc_ids=doc_ids,
            mode=mode,
            documents=list(docs.values()),
        )
        # a figure a domain works out from statement rows is answered, and checked, in
        # code whatever the generator: its rows join the hits only then
        asked = [d for d in docs.values() if doc_ids is None or d.doc_id in doc_ids]
        rows = self._rows_for(channel, ask, hits, asked)
        worked = self.calculator.figure(ask, rows) if rows is not None else None
        if worked is not None:
            hits, draft = rows, worked
        else:
            offline = (
                getattr(self.generator, "mode", "") == "extractive"
            )  # (a model: no longer prompt)
            if offline and (ask.code or ask.quoted):  # a listing's entry: on a page found
                hits = hits + self._rest_of_pages(channel, hits, asked)
            if offline and ask.acronym:  # spelled out once, where it is first used
                hits = hits + self._spelled_out(channel, ask.acronym, hits, asked)
            draft = self.generator.generate(ask, hits)
        embedder = self.embedder
        if draft.calculation is not None:  # every operand re-read, the arithmetic redone
            off = self.settings.without
            checked = verify_calculation(
                draft.text,
                draft.calculation,
                hits,
                embedder=embedder,
                without=off,
                domains=self.domains,
            )
        else:  # a model's figures must be stated for what was asked; quotes are quotes
            asked = ask if draft.mode != "extractive" else ""
            checked = verify_answer(
                draft.text,
                hits,
                embedder=embedder,
                question=asked,
                without=self.settings.without,
                domains=self.domains,
            )
        notes = draft.notes
        if (
            draft.by in QUESTION_CHECKED and not checked.refusal
        ):  # ... that must state what was asked
            about = {i: _about(d) for i, d in docs.items()}  # a document's names are context
            checked, closest = closest_if_off_question(ask, checked, about)
            notes += closest
        snippets = ()
        if render and checked.citations:
            snippets = tuple(self.render(channel, checked.citations))
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
            notes=notes,
            unsupported=checked.unsupported,
            calculation=draft.calculation,
            by=draft.by if checked.citations or draft.calculation else "",
        )

    def _rows_for(
        self, channel: str, ask: Ask, hits: list[Hit], documents: list[Document]
    ) -> list[Hit] | None:
        """The excerpts to work out a figure from, when a domain of the channel's documents
        reads ``ask`` to ask for one (else None): the ranked ones of the document it names,
        then the rest of their pages and the sections the terms are read from (a ratio needs
        rows of two statements; a table's headings may open its page), ``SECTION_HITS`` more."""
        names = {d.identity.domain for d in documents if d.identity}
        metrics = [m for d in self.domains if d.name in names and (m := d.metric(ask))]
        if not hits or not metrics:
            return None  # no figure to work out
        # the document the question names (else the best-ranked one): a channel of
        # filings holds many companies' statements
        docs = {d.doc_id: d for d in documents}
        found_in = dict.fromkeys(h.chunk.doc_id for h in hits)
        # one the search missed counts only when the question names it plainly
        named = [
            d for d in documents if d.doc_id not in found_in and named_in(ask, d.identity) >= 1
        ]
        ranked = [(i, _identity(docs, i)) for i in found_in] + [
            (d.doc_id, d.identity) for d in named
        ]
        doc_id = most_named(ask, ranked)
        hits = [h for h in hits if h.chunk.doc_id == doc_id]
        seen = {(h.chunk.doc_id, h.chunk.index) for h in hits}
        # the rest of each page the search found in that document (a table's headings
        # and its other rows), then the pages of the sections the terms are read from
        pages = {h.chunk.page for h in hits if h.chunk.doc_id == doc_id}
        found = self.retriever.page_chunks(channel, doc_id, pages, documents)
        for kind in dict.fromkeys(t.section for t in metrics[0].terms if t.section):
            found += self.retriever.section_chunks(channel, doc_id, kind, documents)
        extra: list[Hit] = []
        for chunk in found:
            if (chunk.doc_id, chunk.index) not in seen and len(extra) < SECTION_HITS:
                seen.add((chunk.doc_id, chunk.index))
                extra.append(Hit(chunk, score=0.0))
        return hits + extra

    def _rest_of_pages(self, channel: str, hits: list[Hit], documents: list[Document]) -> list[Hit]:
        """The other excerpts of the pages of the ``LISTING_PAGES`` best hits (at most
        ``LISTING_HITS``): a listing prints a code's entry a few lines from its heading,
        which is what the search finds for "What is the name for code AR01?"."""
        seen = {(h.chunk.doc_id, h.chunk.index) for h in hits}
        pages: dict[str, set[int]] = {}
        for h in hits[:LISTING_PAGES]:
            pages.setdefault(h.chunk.doc_id, set()).add(h.chunk.page)
        extra = [
            Hit(c, score=0.0)
            for doc_id, on in pages.items()
            for c in self.retriever.page_chunks(channel, doc_id, on, documents)
            if (c.doc_id, c.index) not in seen
        ]
        return extra[:LISTING_HITS]

    def _spelled_out(
        self, channel: str, acronym: str, hits: list[Hit], documents: list[Document]
    ) -> list[Hit]:
        """The first excerpt, in reading order, that spells out ``acronym`` in each document
        of the ``LISTING_PAGES`` best hits: a document gives a long form once, where it
        first uses the acronym, and a search for "What does RAG stand for?" ranks the
        pages that use it most, not the one that defines it."""
        seen = {(h.chunk.doc_id, h.chunk.index) for h in hits}
        extra = []
        for doc_id in dict.fromkeys(h.chunk.doc_id for h in hits[:LISTING_PAGES]):
            chunks = self.retriever.page_chunks(channel, doc_id, None, documents)
            first = next((c for c in chunks if expansions(c.text, acronym)), None)
            if first is not None and (first.doc_id, first.index) not in seen:
                extra.append(Hit(first, score=0.0))
        return extra

    def documents(self, channel: str) -> list[Document]:
        return self.store.documents(channel)

    def find(self, channel: str, name_or_id: str | None = None) -> list[Document]:
        """The documents ``forget`` would remove: one by file name or sha256 prefix, or all;
        those still waiting to be carried over from another index key (``carry_over``) too."""
        docs = self.store.documents(channel) + self.store.left_behind(channel)  # disjoint
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

        Only this channel's copy goes, under every index key (``Store.forget``), with its
        kept PDF: nothing brings it back. The same file in another channel stays. The PDF
        goes first: a carry-over indexing the document meanwhile looks for it once done
        (``carrying``) and, finding it gone, forgets its own copy too.
        """
        docs = self.find(channel, name_or_id)
        for d in docs:
            self.files.delete(channel, d.doc_id)
            self.store.forget(channel, d.doc_id)
        return docs

    def carry_over(self, on_each: Outcome | None = None) -> CarryOver:
        """Index again under this pipeline's index key the documents that another key
        holds (a changed model, chunking or contextual setting): ``carrying.carry_over``."""
        return carry_over(self, on_each)

    def render(self, channel: str, citations: Sequence[Citation]) -> list[Snippet]:
        """The page pictures of ``citations`` (for a caller that asked with ``render=False``
        and posts the text first)."""
        settings = self.settings
        return render_citations(
            citations,
            lambda doc_id: self.files.load(channel, doc_id),
            zoom=settings.render_zoom,
            max_width=settings.max_image_width,
        )


def _about(doc: Document) -> str:
    """What a document says it is: its title, issuer and short names ("" when unknown)."""
    return " ".join((i.title, i.issuer, *i.aliases)) if (i := doc.identity) else ""


def _identity(docs: dict[str, Document], doc_id: str):
    doc = docs.get(doc_id)
    return doc.identity if doc else None

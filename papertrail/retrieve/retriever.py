"""Hybrid retrieval: dense (Chroma) + BM25 (``bm25``), in two stages (``stages``).

``Retriever.search`` drops answer-format sentences from the question (its
domains know them), then ``gather``s the candidates: the ``candidates`` best
chunks by cosine and by BM25 over every ready document, each document's signals
(``routing``, ``confidence``), then each leading document searched as a
one-document channel would (its own dense and BM25 best, strongest pages, exact
figures, the pages of the sections a domain says the question names or that
print a table's label it names: ``text.labels``). ``stages.rank`` fuses each
document's candidates (``fusion``) and shares the top k by the calibrated
probability that each document is the one asked about; the top k shows each
asked period's document and the one printing the named labels (``fusion.cover``).
BM25 (``lexical``) is built per channel and cached until its ready documents
change. No re-ranking models.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from papertrail.errors import PaperTrailError
from papertrail.protocols import Domain, Embedder, Store
from papertrail.retrieve import confidence, lexical, routing, rules, stages
from papertrail.retrieve.fusion import Weights
from papertrail.retrieve.lexical import LexicalIndex, top_rows
from papertrail.text import labels, periods, words
from papertrail.types import Chunk, Document, Hit

MODES = ("hybrid", "dense", "bm25")
log = logging.getLogger(__name__)
_EMBEDDING = ThreadPoolExecutor(4, thread_name_prefix="papertrail-question-vector")  # ``gather``


class Retriever:
    """Finds the chunks of a channel that best match a question.

    Each ranking contributes its ``candidates`` best chunks; ``weights`` say how
    they are fused (``fusion.Weights``); the chunks of the ``top_pages`` best
    BM25 pages join the candidates; at most ``per_page`` chunks of one page come
    before the next page's best (``fusion.diversify``). ``cache_channels`` bounds how many channels
    keep a BM25 index in memory. ``domains`` are the kinds of document whose
    rules may apply (``papertrail.domains``); a channel uses those of its
    documents only. ``without``: rules switched off to measure them (``rules``).
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        candidates: int = 50,
        weights: Weights | None = None,
        top_pages: int = 3,
        per_page: int = 1,
        cache_channels: int = 8,
        domains: Sequence[Domain] = (),
        ranking_docs: int = routing.LEADERS,
        shown: int = 5,
        without: Sequence[str] = (),
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.candidates = candidates
        self.weights = weights or Weights()
        self.top_pages = top_pages
        self.per_page = per_page
        self.domains = tuple(domains)
        self.rules = rules.on(without)  # all but those switched off to measure them
        self.ranking_docs = ranking_docs
        self.shown = shown
        self.cache_channels = cache_channels
        self._cache: OrderedDict[str, LexicalIndex] = OrderedDict()
        self._lock = threading.Lock()

    def search(
        self,
        channel: str,
        question: str,
        *,
        k: int = 5,
        doc_ids: Sequence[str] | None = None,
        mode: str = "hybrid",
        documents: Sequence[Document] | None = None,
    ) -> list[Hit]:
        """The ``k`` best chunks of the channel's ready documents (or of ``doc_ids``).

        ``documents``: the channel's ready documents if the caller has read them.
        """
        if mode not in MODES:
            raise PaperTrailError(
                f"Unknown search mode {mode!r}: use one of {', '.join(MODES)}.", code="config"
            )
        docs = self.store.documents(channel) if documents is None else list(documents)
        allowed = {d.doc_id for d in docs if doc_ids is None or d.doc_id in doc_ids}
        if not allowed or k <= 0 or not question.strip():
            return []
        if mode == "hybrid":
            pool = self.gather(channel, question, docs, allowed, depth=k)
            return stages.rank(pool, self.weights, k, per_page=self.per_page, shown=self.shown)
        index = self._index(channel, docs) if mode != "dense" else None
        query = self._clean(question, self._active(index))
        if mode == "dense":
            qvec = np.asarray(self.embedder.embed([query])[0], dtype=np.float32)
            dense = self.store.query(channel, qvec, k, doc_ids=sorted(allowed), documents=docs)
            return [
                Hit(c, score=s, dense_rank=i, dense_score=s) for i, (c, s) in enumerate(dense, 1)
            ]
        assert index is not None
        scores = index.chunk_scores(self._terms(query, self._active(index)))
        found = _top(index, scores, index.rows_of(allowed), k)
        return [Hit(c, score=s, lexical_rank=i) for i, (c, s) in enumerate(found, 1)]

    def gather(
        self,
        channel: str,
        question: str,
        docs: Sequence[Document],
        allowed: set[str],
        *,
        depth: int = 0,
        leading: int | None = None,
    ) -> stages.Pool:
        """Everything ``stages.rank`` needs for ``question`` over the ``allowed`` documents.

        First stage: dense and BM25 over every allowed document, the routing prior
        and each document's signals (``confidence``). Second: for each document that
        can take a place in the top ``depth`` (``stages.reading``; with ``leading``,
        that many of the most probable) and each one the top results must show, its
        own dense and BM25 candidates, ``candidates`` of each, as a channel holding
        only that document would search it.
        """
        index = self._index(channel, docs)
        active = self._active(index)
        query = self._clean(question, active)
        terms = words.terms(query)
        # the question's vector is worked out (outside the GIL) while BM25 scores here
        embedding = _EMBEDDING.submit(self.embedder.embed, [query])
        n = max(depth, self.candidates)
        expanded = self._terms(query, active)
        scores, page_scores = index.chunk_scores(expanded), index.page_scores(expanded)
        lexical_hits = _top(index, scores, index.rows_of(allowed), n)
        qvec = np.asarray(embedding.result()[0], dtype=np.float32)
        dense = self.store.query(channel, qvec, n, doc_ids=sorted(allowed), documents=docs)
        asked = periods.asked(query)
        parts = routing.evidence(index, asked, terms, page_scores, dense, allowed)
        prior = routing.mixed(parts)
        rankings = [routing.leaders([r], self.ranking_docs) for r in (dense, lexical_hits)]
        printed = labels.named(query) if "labels" in self.rules else []  # "table II": where
        wanted = [*routing.wanted(index, asked, prior), *routing.printing(index, printed, allowed)]
        must = wanted if len(allowed) > 1 else []
        figures = sorted(_figures(terms)) if "figures" in self.rules else []
        sections = active if "sections" in self.rules else []
        named = {k for d in sections for k in d.sections_named(question)} | set(printed)
        if not prior:  # one document (or nothing to route by): the first stage is the second
            only = next(iter(allowed)) if len(allowed) == 1 else ""
            holds = index.chunk_scores(figures) > 0 if figures else None
            one = self._pool(index, allowed, dense, lexical_hits, page_scores, holds, named, only)
            return stages.Pool((one,), must=tuple(must))
        signals = confidence.signals(prior, parts, rankings)
        pools = []
        reading = stages.to_read(signals, must, self.weights, max(depth, self.shown), leading)
        own_dense = self.store.query_each(channel, qvec, n, reading, documents=docs)
        for doc_id in reading:
            alone = index.part(doc_id)  # each searched as a channel holding only it would
            lex = _top(alone, alone.chunk_scores(expanded), None, n)
            holds = alone.chunk_scores(figures) > 0 if figures else None
            pages = alone.page_scores(expanded)
            own = own_dense[doc_id]
            pools.append(self._pool(alone, {doc_id}, own, lex, pages, holds, named, doc_id))
        return stages.Pool(tuple(pools), signals=signals, must=tuple(must))

    def _pool(self, index, allowed, dense, lexical_hits, page_scores, holds, named, doc_id):
        """The candidates of the ``allowed`` documents taken together, as one ranking
        (one document: ``doc_id``), pages scaled by their best page."""
        pages = index.pages_of(allowed)
        if pages is not None:  # only the searched documents' pages count
            searched = np.zeros_like(page_scores)
            searched[pages] = page_scores[pages]
            page_scores = searched
        best_page = float(page_scores.max()) if len(page_scores) else 0.0
        strong = [
            index.chunks[r]
            for p in top_rows(page_scores, self.top_pages)
            for r in index.page_rows(p)
        ]
        sections = [
            index.chunks[row]
            for kind in sorted(named)
            for d in sorted(allowed)
            for row in index.sections.get((kind, d), ())
        ]
        candidates = {c.id: c for c, _ in dense} | {c.id: c for c, _ in lexical_hits}
        candidates |= {c.id: c for c in strong} | {c.id: c for c in sections}
        page, figures = {}, set()
        for cid, chunk in candidates.items():
            row = index.row(chunk)
            if row is None:
                continue
            if best_page > 0:
                page[cid] = float(page_scores[index.page_of_row[row]]) / best_page
            if holds is not None and bool(holds[row]):
                figures.add(cid)
        return stages.DocPool(
            doc_id, dense, lexical_hits, strong, sections, page, frozenset(figures)
        )

    def _clean(self, question: str, active: Sequence[Domain]) -> str:
        for domain in active if "instructions" in self.rules else ():
            question = domain.clean(question)
        return question

    def _terms(self, query: str, active: Sequence[Domain]) -> list[str]:
        """The BM25 query: the question's terms and the words its domains add."""
        added = [d.expand(query) for d in active] if "expansion" in self.rules else []
        return words.terms(query) + [t for more in added for t in words.terms(more)]

    def _active(self, index: LexicalIndex | None) -> list[Domain]:
        """The domains of the documents in ``index`` (none when no document is of one)."""
        if index is None:
            return [d for d in self.domains]  # dense only: no identities read; cleaning is safe
        names = {i.domain for i in index.identities}
        return [d for d in self.domains if d.name in names]

    def section_chunks(
        self, channel: str, doc_id: str, kind: str, documents: Sequence[Document]
    ) -> list[Chunk]:
        """The chunks of ``doc_id`` on the pages its domain says hold a section of ``kind``
        (a named report section, say), in reading order; empty when it has none."""
        index = self._index(channel, list(documents))
        return [index.chunks[row] for row in index.sections.get((kind, doc_id), ())]

    def page_chunks(
        self, channel: str, doc_id: str, pages: set[int] | None, documents: Sequence[Document]
    ) -> list[Chunk]:
        """Every chunk of ``doc_id`` on ``pages`` (None: on every page), in reading order."""
        index = self._index(channel, list(documents))
        rows = index.rows_of({doc_id})  # its own rows only: not the channel's 25k
        chunks = index.chunks if rows is None else [index.chunks[r] for r in rows]
        return [c for c in chunks if c.doc_id == doc_id and (pages is None or c.page in pages)]

    def warm(self, channel: str) -> None:
        """Build the channel's BM25 index now (e.g. after an upload), not on the next question."""
        self._index(channel, self.store.documents(channel))

    def warm_up(self) -> None:
        """Load the model, then the BM25 index of the channels used last (as many as are kept).

        What a first question after a start needs; a failure is only logged (that
        question meets it again).
        """
        try:
            warm = getattr(self.embedder, "warm", None)
            if callable(warm):
                warm()
            self.embedder.embed(["warm up"])  # a first inference allocates its buffers
            words.rarity("warm")  # loads the English word frequencies the verifier weighs by
            recent = getattr(self.store, "recent_channels", None)
            for channel in reversed(recent(self.cache_channels) if callable(recent) else []):
                self.warm(channel)  # the most recent last: the last to leave the cache
        except Exception:
            log.exception("warming up for the first question failed")

    def _index(self, channel: str, docs) -> LexicalIndex:
        key = tuple((d.doc_id, d.created) for d in docs)
        name = self.store.collection_name(channel)
        with self._lock:  # one build at a time: builds are CPU-bound anyway
            old = self._cache.get(name)
            if old is not None and old.key == key:
                self._cache.move_to_end(name)
                return old
            index = lexical.build(
                lambda doc_id: self.store.chunks(channel, [doc_id]),
                {d.doc_id: d for d in docs},
                key,
                old,
                self.domains,
            )
            self._cache[name] = index
            self._cache.move_to_end(name)
            while len(self._cache) > self.cache_channels:
                self._cache.popitem(last=False)
            return index


def _top(index: LexicalIndex, scores: np.ndarray, rows: np.ndarray | None, n: int):
    """The ``n`` best (chunk, BM25 score) among ``rows`` (None: every row)."""
    best = top_rows(scores, n) if rows is None else rows[top_rows(scores[rows], n)]
    return [(index.chunks[i], float(scores[i])) for i in best]


def _figures(terms: list[str]) -> set[str]:
    """Exact figures in the question: decimals or 4+ digit numbers that are not years."""
    exact = lambda t: "." in t or (len(t) >= 4 and not periods.is_year(t))  # noqa: E731
    return {t for t in terms if t[:1].isdigit() and exact(t)}

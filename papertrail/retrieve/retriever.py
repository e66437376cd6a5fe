"""Hybrid retrieval: dense (Chroma) + BM25 (``bm25``), fused with page and document signals.

``Retriever.search`` drops answer-format sentences from the question
("Round your answer to two decimal places.", see ``finance_terms``), then
takes the ``candidates`` best chunks by cosine similarity and by BM25 from the
channel's ready documents and fuses them (``fusion``): each list's scores
scaled to [0, 1] and mixed, plus the BM25 score of the chunk's whole page,
bonuses for exact figures and for pages a named financial statement titles,
and, in multi-document channels, a prior for the documents the question is
about (``routing``: what each document says about itself, the period it
covers, its best page, its best dense match); with more than ``route_docs``
documents only the best ones' passages are searched. The chunks of the best
pages join the candidates even if neither ranking found them. BM25 indexes
chunks, pages and documents (``lexical``); the query gains a filing's wording
for the finance terms it uses ("COGS" -> "cost of sales"). The BM25 index is
built per channel and cached until the set of ready documents changes. It
leaves out re-ranking models and generation.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from papertrail.domains.finance import terms as finance_terms
from papertrail.errors import PaperTrailError
from papertrail.protocols import Embedder, Store
from papertrail.retrieve import fusion, lexical, routing
from papertrail.retrieve.fusion import Weights
from papertrail.retrieve.lexical import LexicalIndex, lexical_text, top_rows
from papertrail.text import words
from papertrail.types import Chunk, Document, Hit

MODES = ("hybrid", "dense", "bm25")
log = logging.getLogger(__name__)

__all__ = ["MODES", "Retriever", "lexical_text"]


class Retriever:
    """Finds the chunks of a channel that best match a question.

    Each ranking contributes its ``candidates`` best chunks; ``weights`` say how
    they are fused (``fusion.Weights``); the chunks of the ``top_pages`` best
    BM25 pages join the candidates; at most ``per_page`` chunks of one page come
    before the next page's best (``fusion.diversify``). ``cache_channels`` bounds how many channels
    keep a BM25 index in memory.
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
        route_docs: int = routing.ROUTED,
        name_boost: float = 0.5,
        cache_channels: int = 8,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.candidates = candidates
        self.weights = weights or Weights()
        self.top_pages = top_pages
        self.per_page = per_page
        self.route_docs = route_docs
        self.name_boost = name_boost
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
        allowed = {d.doc_id for d in docs}
        if doc_ids is not None:
            allowed &= set(doc_ids)
        if not allowed or k <= 0 or not question.strip():
            return []
        n = max(k, self.candidates) if mode == "hybrid" else k
        qvec = None
        dense: list[tuple[Chunk, float]] = []
        query = finance_terms.strip_instructions(question)
        terms = words.terms(query)
        if mode != "bm25":
            qvec = np.asarray(self.embedder.embed([query])[0], dtype=np.float32)
            dense = self.store.query(channel, qvec, n, doc_ids=sorted(allowed), documents=docs)
        if mode == "dense":
            return [
                Hit(c, score=s, dense_rank=i, dense_score=s) for i, (c, s) in enumerate(dense, 1)
            ]
        index = self._index(channel, docs)
        expanded = terms + words.terms(finance_terms.expand(query))
        scores, page_scores = index.chunk_scores(expanded), index.page_scores(expanded)
        if mode == "bm25":
            lexical_hits = _top(index, scores, index.rows_of(allowed), n)
            return [Hit(c, score=s, lexical_rank=i) for i, (c, s) in enumerate(lexical_hits, 1)]
        prior = routing.doc_prior(index, question, terms, page_scores, dense, allowed)
        names = {d.doc_id: d.name for d in docs if d.doc_id in allowed}
        for doc_id, share in _name_weights(question, names).items():
            prior[doc_id] = min(1.0, prior.get(doc_id, 0.0) + self.name_boost * share)
        near = routing.routed(prior, allowed, self.route_docs)
        if near != allowed:  # second stage: passages of the routed documents only
            # the channel-wide dense list, kept to them: as good on the 33-filing channel as
            # a query filtered to them or one 4x deeper, which cost ~30 ms more at 26k chunks
            dense = [(c, sim) for c, sim in dense if c.doc_id in near]
        lexical_hits = _top(index, scores, index.rows_of(near), n)
        pages = index.pages_of(near)
        if pages is not None:  # only the searched documents' pages count
            searched = np.zeros_like(page_scores)
            searched[pages] = page_scores[pages]
            page_scores = searched
        best_page = float(page_scores.max()) if len(page_scores) else 0.0
        top = top_rows(page_scores, self.top_pages)
        strong = [index.chunks[r] for p in top for r in index.page_rows(p)]

        def page_of(chunk: Chunk) -> float:
            row = index.row(chunk)
            if row is None or best_page <= 0:
                return 0.0
            return float(page_scores[index.page_of_row[row]]) / best_page

        statements = [
            index.chunks[row]
            for kind in finance_terms.statements_named(question)
            for doc_id in routing.routed(prior, near)
            for row in index.statements.get((kind, doc_id), ())
        ]
        rows = fusion.fuse(
            dense,
            lexical_hits,
            self.weights,
            extra=strong,
            figures=_figures(terms),
            statements=statements,
            page_of=page_of,
            prior=prior,
        )
        best = fusion.diversify(rows, self.per_page)[:k]
        missing = [r["chunk"].id for r in best if "dense_score" not in r]
        if missing:  # found by BM25 only: still report the cosine similarity
            vectors = self.store.chunk_vectors(channel, missing)
            for r in best:
                if r["chunk"].id in vectors:
                    r["dense_score"] = float(vectors[r["chunk"].id] @ qvec)
        return [Hit(**r) for r in best]

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
                {d.doc_id: d.name for d in docs},
                key,
                old,
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


_YEAR = re.compile(r"(19|20)\d\d")


def _figures(terms: list[str]) -> set[str]:
    """Exact figures in the question: decimals or 4+ digit numbers that are not years."""
    return {
        t
        for t in terms
        if t[:1].isdigit() and ("." in t or (len(t) >= 4 and not _YEAR.fullmatch(t)))
    }


_NAME_WORD = re.compile(r"[^\W_]{4,}")


def _name_weights(question: str, names: dict[str, str]) -> dict[str, float]:
    """Per document, the share in [0, 1] of the question's words found in its file name.

    Only when the names tell documents apart: the best gets 1, others less, and
    nothing changes when every document matches equally (or there is one).
    """
    if len(names) < 2:
        return {}
    norm = unicodedata.normalize("NFKC", question).casefold()
    asked = {w for w in _NAME_WORD.findall(norm) if w not in words.BM25_STOPWORDS}
    if not asked:
        return {}
    compact = {
        doc_id: re.sub(r"[\W_]", "", unicodedata.normalize("NFKC", name).casefold())
        for doc_id, name in names.items()
    }
    hits = {doc_id: sum(w in c for w in asked) for doc_id, c in compact.items()}
    best = max(hits.values())
    if best == 0 or min(hits.values()) == best:
        return {}
    return {doc_id: n / best for doc_id, n in hits.items()}

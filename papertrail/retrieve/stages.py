"""Ranking a channel's passages in two stages: which documents, then which passages in each.

A channel of many documents is searched twice. The first stage ranks
documents (``routing``: a prior in [0, 1] from what each document says about
itself, its best page, its best dense match and the periods asked). The
second ranks the passages of each leading document exactly as a channel
holding only that document would (``DocPool``: the same candidate depth per
document, the same fusion, the same page and figure signals, scaled within
the document), then merges the documents' rankings: a passage's score is
multiplied by ``1 + doc_weight * prior`` of its document. So a document found by
the first stage is read as closely as if it were alone, and the number of
documents that get that reading (``Weights.docs``) and how much the prior
counts (``Weights.doc_weight``) are fitted (``scripts/fit_retrieval.py``).

A ``Pool`` holds everything the ranking needs and nothing it has to look up,
so the same pool can be ranked under many weights (that is how they are
fitted). ``rank`` is a pure function; gathering a pool lives in ``retriever``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from papertrail.retrieve import fusion
from papertrail.retrieve.fusion import Weights
from papertrail.types import Chunk, Hit


@dataclass(frozen=True)
class DocPool:
    """One document's candidates for one question, as a one-document channel sees them.

    ``dense`` and ``lexical``: the document's own best (chunk, score) by cosine
    and by BM25; ``extra``: chunks of its strongest BM25 pages; ``sections``:
    chunks of the sections the question names (a domain's); ``page``: chunk id
    -> its page's BM25 score over the document's best page, in [0, 1];
    ``figures``: ids of chunks holding an exact figure of the question.
    """

    doc_id: str
    dense: list[tuple[Chunk, float]]
    lexical: list[tuple[Chunk, float]]
    extra: list[Chunk] = field(default_factory=list)
    sections: list[Chunk] = field(default_factory=list)
    page: dict[str, float] = field(default_factory=dict)
    figures: frozenset[str] = frozenset()

    def fused(self, w: Weights) -> list[Hit]:
        """The document's passages ranked as in a channel of its own."""
        return fusion.fuse(
            self.dense,
            self.lexical,
            w,
            extra=self.extra,
            has_figure=lambda c: c.id in self.figures,
            sections=self.sections,
            page_of=lambda c: self.page.get(c.id, 0.0),
        )


@dataclass(frozen=True)
class Pool:
    """A question's candidates: the documents read closely, best first by ``prior``, and
    the documents the top results must show (``must``: ``routing.wanted``)."""

    docs: tuple[DocPool, ...]
    prior: dict[str, float] = field(default_factory=dict)
    must: tuple[str, ...] = ()


def leading(prior: dict[str, float], must: Sequence[str], n: int) -> list[str]:
    """The ``n`` documents with the highest prior, then the ``must`` ones not among them."""
    best = sorted(prior, key=lambda d: (-prior[d], d))[: max(n, 0)]
    return list(dict.fromkeys([*best, *must]))


def rank(pool: Pool, w: Weights, k: int, *, per_page: int = 1, shown: int = 5) -> list[Hit]:
    """The ``k`` best passages of ``pool`` under weights ``w``.

    Only the ``w.docs`` leading documents (and the ``must`` ones) take part;
    with one document this is exactly that document's own ranking.
    """
    keep = set(leading(pool.prior, pool.must, w.docs)) if pool.prior else None
    within = {d.doc_id: d.fused(w) for d in pool.docs if keep is None or d.doc_id in keep}
    return merge(within, pool.prior, pool.must, w, k, per_page=per_page, shown=shown)


def merge(
    within: dict[str, list[Hit]],
    prior: dict[str, float],
    must: Sequence[str],
    w: Weights,
    k: int,
    *,
    per_page: int = 1,
    shown: int = 5,
) -> list[Hit]:
    """The documents' own rankings (``within``) merged into the channel's top ``k``: each
    score times ``1 + doc_weight * prior``, at most ``per_page`` passages of a page ahead
    of other pages, and a passage of each ``must`` document among the ``shown`` first."""
    hits: list[Hit] = []
    for doc_id, ranked in within.items():
        factor = 1.0 + w.doc_weight * prior.get(doc_id, 0.0)
        hits += [replace(h, score=h.score * factor) for h in ranked]
    hits.sort(key=fusion.order)
    ranked = fusion.diversify(hits, per_page)
    for depth in sorted({min(k, shown), k}):  # the excerpts shown, then all k
        ranked = fusion.cover(ranked, list(must), depth)
    return ranked[:k]

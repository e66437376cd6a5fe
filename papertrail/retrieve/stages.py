"""Ranking a channel's passages in two stages: which documents, then which passages in each.

A channel of many documents is searched twice. The first stage ranks
documents: a prior per document (``routing``) and each single ranking's first
documents, turned into a calibrated probability that each is the one asked
about (``confidence``). The second ranks the passages of each leading document
exactly as a channel holding only that document would (``DocPool``: the same
candidate depth per document, the same fusion, the same page and figure
signals, the document's own BM25 statistics), then shares the top k among the
documents (``allocate``): each place goes to the document whose next passage
adds most to the chance that a gold page is shown, its probability times the
fitted chance that a right document's first gold page sits at that place of its
own ranking (``Weights.gains``). So a sure document keeps the places its own
ranking would fill when alone, and a doubtful rival gets one only when it is
worth more than the next passage of the favourite; no fixed split. How many
documents are read closely (``Weights.docs``), the probability's coefficients and
the gains are fitted (``scripts/fit_retrieval.py``).

A ``Pool`` holds everything the ranking needs and nothing it has to look up,
so the same pool can be ranked under many weights (that is how they are
fitted). ``rank`` is a pure function; gathering a pool lives in ``retriever``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from papertrail.retrieve import confidence, fusion
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
    """A question's candidates: the documents read closely, the first stage's signals
    for every document of the channel (``confidence.signals``; empty with one document),
    and the documents the top results must show (``must``: ``routing.wanted``)."""

    docs: tuple[DocPool, ...]
    signals: dict[str, tuple] = field(default_factory=dict)
    must: tuple[str, ...] = ()


def chances(pool: Pool, w: Weights) -> dict[str, float]:
    """doc_id -> the probability that it is the document asked about (``confidence``);
    with nothing to route by, every document read counts in full."""
    if not pool.signals:
        return {d.doc_id: 1.0 for d in pool.docs}
    return confidence.probabilities(pool.signals, w.confidence)


def required(pool_signals: dict[str, tuple], must: Sequence[str], p, guard: int) -> list[str]:
    """The documents the top results must show: ``must`` (a period's document each), then,
    with ``guard``, each single ranking's first document (``confidence.firsts``), so a
    confident first stage that is wrong never hides the document plain dense or BM25
    search puts first."""
    firsts = confidence.firsts(pool_signals) if guard else []
    return list(dict.fromkeys([*must, *sorted(firsts, key=lambda d: (-p.get(d, 0.0), d))]))


def to_read(
    signals: dict[str, tuple], must: Sequence[str], w: Weights, k: int, n: int | None = None
) -> list[str]:
    """The documents the second stage reads closely for a top ``k``: ``reading``'s, or
    (``n`` given, to gather for a fit) the ``n`` with the highest prior, each ranking's
    first and the ``must`` ones, whatever the weights say, so that one gathering serves
    every weight tried."""
    if n is not None:
        prior = {d: s[0] for d, s in signals.items()}
        return leading(prior, [*must, *confidence.firsts(signals)], n)
    p = confidence.probabilities(signals, w.confidence)
    return reading(p, required(signals, must, p, w.guard), w, k)


def reading(p: dict[str, float], must: Sequence[str], w: Weights, k: int) -> list[str]:
    """The documents that can take a place in the top ``k``: those ``placed`` would give
    one (at most ``w.docs``), then the ``must`` ones. The others are not read at all."""
    return list(dict.fromkeys([*placed(p, w.gains, k, w.first)[: max(w.docs, 1)], *must]))


def placed(p: dict[str, float], gains: Sequence[float], k: int, first: float = 0.0) -> list[str]:
    """The documents ``allocate`` gives at least one of ``k`` places when each has passages
    enough, in the order of their first place: its choice, before any passage is read."""
    count = dict.fromkeys(p, 0)
    order = confidence.ranked(p)
    out = []
    for _ in range(k if order else 0):
        best = max(order, key=lambda d: p[d] * worth(gains, count[d], first))
        count[best] += 1
        if count[best] == 1:
            out.append(best)
    return out


def leading(p: dict[str, float], must: Sequence[str], n: int) -> list[str]:
    """The ``n`` most probable documents, then the ``must`` ones not among them."""
    return list(dict.fromkeys([*confidence.ranked(p)[: max(n, 0)], *must]))


def rank(pool: Pool, w: Weights, k: int, *, per_page: int = 1, shown: int = 5) -> list[Hit]:
    """The ``k`` best passages of ``pool`` under weights ``w``.

    Only the documents that can take a place (``reading``) and the ``must`` ones
    take part; with one document this is exactly that document's own ranking.
    """
    p = chances(pool, w)
    must = required(pool.signals, pool.must, p, w.guard)
    keep = set(reading(p, must, w, max(k, shown))) if pool.signals else None
    within = {
        d.doc_id: fusion.diversify(d.fused(w), per_page)
        for d in pool.docs
        if keep is None or d.doc_id in keep
    }
    return merge(within, p, must, w.gains, k, shown=shown, first=w.first)


def gain(gains: Sequence[float], place: int) -> float:
    """The chance that a document's passage at ``place`` (0 first) is its first on a gold
    page, given that the document is the right one; beyond the fitted places it halves."""
    if place < len(gains):
        return gains[place]
    return (gains[-1] if gains else 1.0) * 0.5 ** (place - len(gains) + 1)


def worth(gains: Sequence[float], place: int, first: float = 0.0) -> float:
    """What a right document's passage at ``place`` adds: the chance that it is the first
    on a gold page (``gain``), and, for its first passage, ``first``: the worth of the
    document being shown at all (a reader who sees it can open it at any page)."""
    return gain(gains, place) + (first if place == 0 else 0.0)


def allocate(
    within: dict[str, list[Hit]],
    p: dict[str, float],
    gains: Sequence[float],
    k: int,
    first: float = 0.0,
) -> list[Hit]:
    """The documents' own rankings (``within``) merged: each of the first ``k`` places goes
    to the document whose next passage adds most to the chance of a gold page among them
    (its probability times the ``worth`` of that passage's place), so a sure document keeps
    its own order and a doubtful second one gets a place once that is worth more than
    the first's next passage. Then the rest, the likelier documents' first. Each document's
    passages keep their order, and a hit's score becomes its score times its document's
    probability."""
    at = dict.fromkeys(within, 0)
    order = confidence.ranked({d: p.get(d, 0.0) for d in within})
    out: list[Hit] = []
    while len(out) < k:
        open_docs = [d for d in order if at[d] < len(within[d])]
        if not open_docs:
            break
        best = max(open_docs, key=lambda d: p.get(d, 0.0) * worth(gains, at[d], first))
        out.append(within[best][at[best]])
        at[best] += 1
    out += [h for d in order for h in within[d][at[d] :]]
    return [replace(h, score=h.score * p.get(h.chunk.doc_id, 0.0)) for h in out]


def merge(
    within: dict[str, list[Hit]],
    p: dict[str, float],
    must: Sequence[str],
    gains: Sequence[float],
    k: int,
    *,
    shown: int = 5,
    first: float = 0.0,
) -> list[Hit]:
    """The channel's top ``k``: the documents' rankings ``allocate``d by their
    probabilities ``p`` (``first``: the worth of showing a document at all, ``worth``),
    then a passage of each ``must`` document among the ``shown`` first (``fusion.cover``)."""
    ranked = allocate(within, p, gains, max(k, shown), first)
    for depth in sorted({min(k, shown), k}):  # the excerpts shown, then all k
        ranked = fusion.cover(ranked, list(must), depth)
    return ranked[:k]

"""Fusing the dense and BM25 rankings of one question into one ranking of chunks.

Each ranking's scores are scaled to [0, weight] over its own top list (min-max)
and added (or, with ``fusion="rrf"``, reciprocal ranks are added). On top:

* ``page``: the chunk's page's BM25 score, scaled by the best page's. Tables
  are cut into several chunks; the page as a whole holds the title, the column
  headers and the rows a question names together, so a chunk of a strong page
  rises even when its own words are only some of them.
* ``figure_boost`` for a chunk holding an exact figure of the question;
* ``section_boost`` for a chunk of a page a section the question names titles
  (a domain's knowledge: a named report section, say).

This ranks one document's passages (or a channel's, when nothing tells its
documents apart); how documents share a channel's top k is ``stages``'.
``cover`` makes sure the top k shows a passage of each document the routing
says must be seen. Pure functions over plain values; what the rankings are
lives in ``retrieve``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from papertrail.types import Chunk, Hit


@dataclass(frozen=True)
class Weights:
    """How much each signal counts (see the module docstring).

    ``alpha``, ``page``, ``docs``, ``guard`` and ``first`` are chosen on the development
    sets by ``scripts/fit_retrieval.py``, ``confidence`` (the coefficients of
    ``confidence.SIGNALS``) and ``gains`` (the chance that a right document's first
    gold page is at each place of its own ranking, first place first) are fitted by
    it (docs/retrieval.md says how to refit them); the boosts and ``rrf_k`` are set
    by hand.
    """

    fusion: str = "convex"  # "convex" or "rrf"
    alpha: float = 0.6  # dense share of the convex combination
    rrf_k: int = 60
    page: float = 0.75
    figure_boost: float = 0.5
    section_boost: float = 0.6
    docs: int = 6  # at most this many documents read closely (``stages.reading``)
    guard: int = 0  # 1: the top results show each single ranking's first document
    first: float = 0.5  # the worth of showing a document at all (``stages.worth``)
    confidence: tuple[float, ...] = (-4.21, 2.19, 6.47, 3.21, 6.71, 0.55, 0.21, 0.44, 4.4)
    gains: tuple[float, ...] = (
        0.614,
        0.176,
        0.044,
        0.044,
        0.031,
        0.01,
        0.01,
        0.01,
        0.005,
        0.005,
    )


def fuse(
    dense: list[tuple[Chunk, float]],
    lexical: list[tuple[Chunk, float]],
    w: Weights,
    *,
    extra: Iterable[Chunk] = (),
    has_figure: Callable[[Chunk], bool] = lambda c: False,
    sections: Iterable[Chunk] = (),
    page_of: Callable[[Chunk], float] = lambda c: 0.0,
) -> list[Hit]:
    """Every candidate as a ``Hit``, best first.

    ``extra`` and ``sections`` are candidates found by neither ranking (chunks
    of strong pages, of named sections' pages); ``has_figure`` says whether a
    chunk holds an exact figure of the question (from BM25's own term counts);
    ``page_of`` gives a chunk's page score in [0, 1].
    """
    chunks: dict[str, Chunk] = {}
    boosted = set()
    for chunk in sections:
        boosted.add(chunk.id)
        chunks.setdefault(chunk.id, chunk)
    for chunk in extra:
        chunks.setdefault(chunk.id, chunk)
    dense_at: dict[str, tuple[int, float]] = {}
    lexical_at: dict[str, int] = {}
    for rank, (chunk, sim) in enumerate(dense, 1):
        chunks[chunk.id] = chunk
        dense_at[chunk.id] = (rank, sim)
    for rank, (chunk, _) in enumerate(lexical, 1):
        chunks.setdefault(chunk.id, chunk)
        lexical_at[chunk.id] = rank
    if w.fusion == "rrf":
        part_d = part_l = lambda rank: 1.0 / (w.rrf_k + rank)  # noqa: E731
    else:
        part_d, part_l = _minmax(dense, w.alpha), _minmax(lexical, 1.0 - w.alpha)
    hits = []
    for cid, chunk in chunks.items():
        score = w.page * page_of(chunk)
        d_rank, d_sim = dense_at.get(cid, (None, None))
        l_rank = lexical_at.get(cid)
        if d_rank is not None:
            score += part_d(d_rank)
        if l_rank is not None:
            score += part_l(l_rank)
        if has_figure(chunk):
            score += w.figure_boost
        if cid in boosted:
            score += w.section_boost
        hits.append(Hit(chunk, score, d_rank, l_rank, d_sim))
    return sorted(hits, key=order)


def order(h: Hit) -> tuple[float, float, str]:
    """Sort key of a ranking: score, then cosine (a BM25-only hit last), then chunk id."""
    return (-h.score, -(h.dense_score if h.dense_score is not None else -1.0), h.chunk.id)


def cover(hits: Sequence[Hit], docs: Sequence[str], k: int) -> list[Hit]:
    """``hits`` reordered so the top ``k`` hold a passage of each of ``docs`` (in
    their order of importance, at most ``k`` of them): a missing document's best
    hit takes the place of the last hit of a document shown more than once (a
    document's only hit is never pushed out: it may be the right one). Everything
    else keeps its order.
    """
    top = list(hits[:k])
    rest = list(hits[k:])
    docs = list(docs)[:k]
    for doc_id in docs:
        if any(h.chunk.doc_id == doc_id for h in top):
            continue
        found = next((h for h in rest if h.chunk.doc_id == doc_id), None)
        if found is None:
            continue
        counts: dict[str, int] = {}
        for h in top:
            counts[h.chunk.doc_id] = counts.get(h.chunk.doc_id, 0) + 1
        spare = [i for i, h in enumerate(top) if counts[h.chunk.doc_id] > 1]
        if not spare:
            continue  # every shown document is wanted once: nothing to give up
        rest.insert(0, top.pop(spare[-1]))  # first of the rest: it was in the top k
        rest.remove(found)
        top.append(found)
    return top + rest


def _minmax(ranked: list[tuple[Chunk, float]], weight: float):
    """Score of rank r in ``ranked`` mapped to [0, weight]: best -> weight, worst -> 0."""
    if not ranked:
        return lambda rank: 0.0
    top, low = ranked[0][1], ranked[-1][1]
    span = top - low
    return lambda rank: weight * ((ranked[rank - 1][1] - low) / span if span > 0 else 1.0)


def diversify(rows: list[Hit], per_page: int) -> list[Hit]:
    """``rows`` with at most ``per_page`` chunks of one page ahead of any other page's.

    The chunks of a strong page score alike (they share its page score); without
    a cap they fill the top k with one page and push the next-best page out.
    Rows beyond the cap keep their order, after the others. 0 means no cap.
    """
    if per_page <= 0:
        return rows
    seen: dict[tuple[str, int], int] = {}
    first, later = [], []
    for row in rows:
        key = (row.chunk.doc_id, row.chunk.page)
        seen[key] = seen.get(key, 0) + 1
        (first if seen[key] <= per_page else later).append(row)
    return first + later

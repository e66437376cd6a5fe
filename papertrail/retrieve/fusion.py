"""Fusing the dense and BM25 rankings of one question into one ranking of chunks.

Each ranking's scores are scaled to [0, weight] over its own top list (min-max)
and added (or, with ``fusion="rrf"``, reciprocal ranks are added). On top:

* ``page``: the chunk's page's BM25 score, scaled by the best page's. Tables
  are cut into several chunks; the page as a whole holds the title, the column
  headers and the rows a question names together, so a chunk of a strong page
  rises even when its own words are only some of them.
* ``figure_boost`` for a chunk holding an exact figure of the question;
* ``statement_boost`` for a chunk of a page a named financial statement titles;
* a document prior (``routing``): the score is multiplied by
  ``1 + doc_weight * prior`` with the prior of the chunk's document in [0, 1].

Pure functions over plain values; what the rankings are lives in ``retrieve``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from papertrail.text import words
from papertrail.types import Chunk


@dataclass(frozen=True)
class Weights:
    """How much each signal counts (see the module docstring)."""

    fusion: str = "convex"  # "convex" or "rrf"
    alpha: float = 0.6  # dense share of the convex combination
    rrf_k: int = 60
    page: float = 0.5
    figure_boost: float = 0.5
    statement_boost: float = 0.6
    doc_weight: float = 0.5


def fuse(
    dense: list[tuple[Chunk, float]],
    lexical: list[tuple[Chunk, float]],
    w: Weights,
    *,
    extra: Iterable[Chunk] = (),
    figures: set[str] = frozenset(),
    statements: Iterable[Chunk] = (),
    page_of: Callable[[Chunk], float] = lambda c: 0.0,
    prior: dict[str, float] | None = None,
) -> list[dict]:
    """Rows of Hit fields, best first.

    ``extra`` and ``statements`` are candidates found by neither ranking (chunks
    of strong pages, of named statements' pages); ``page_of`` gives a chunk's
    page score in [0, 1]; ``prior`` a document's prior in [0, 1].
    """
    table: dict[str, dict] = {}
    boosted = set()
    for chunk in statements:
        boosted.add(chunk.id)
        table.setdefault(chunk.id, {"chunk": chunk})
    for chunk in extra:
        table.setdefault(chunk.id, {"chunk": chunk})
    for rank, (chunk, sim) in enumerate(dense, 1):
        table[chunk.id] = {"chunk": chunk, "dense_rank": rank, "dense_score": sim}
    for rank, (chunk, _) in enumerate(lexical, 1):
        table.setdefault(chunk.id, {"chunk": chunk})["lexical_rank"] = rank
    if w.fusion == "rrf":
        part = {key: (lambda rank: 1.0 / (w.rrf_k + rank)) for key in ("d", "l")}
    else:
        part = {"d": _minmax(dense, w.alpha), "l": _minmax(lexical, 1.0 - w.alpha)}
    prior = prior or {}
    for row in table.values():
        chunk = row["chunk"]
        score = w.page * page_of(chunk)
        if "dense_rank" in row:
            score += part["d"](row["dense_rank"])
        if "lexical_rank" in row:
            score += part["l"](row["lexical_rank"])
        if figures and figures & set(words.terms(chunk.text)):
            score += w.figure_boost
        if chunk.id in boosted:
            score += w.statement_boost
        row["score"] = score * (1.0 + w.doc_weight * prior.get(chunk.doc_id, 0.0))
    return sorted(
        table.values(), key=lambda r: (-r["score"], -r.get("dense_score", -1.0), r["chunk"].id)
    )


def _minmax(ranked: list[tuple[Chunk, float]], weight: float):
    """Score of rank r in ``ranked`` mapped to [0, weight]: best -> weight, worst -> 0."""
    if not ranked:
        return lambda rank: 0.0
    top, low = ranked[0][1], ranked[-1][1]
    span = top - low
    return lambda rank: weight * ((ranked[rank - 1][1] - low) / span if span > 0 else 1.0)


def diversify(rows: list[dict], per_page: int) -> list[dict]:
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
        key = (row["chunk"].doc_id, row["chunk"].page)
        seen[key] = seen.get(key, 0) + 1
        (first if seen[key] <= per_page else later).append(row)
    return first + later

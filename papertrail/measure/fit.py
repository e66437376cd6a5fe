"""Fitting retrieval's weights on gathered candidates, validated leaving each source out.

A question's candidates are gathered once (``Retriever.gather``: both stages'
rankings and signals, a ``stages.Pool``); ranking them under other weights is
then pure arithmetic (``stages.merge``), so every point of a small grid of
weights is scored on every development set. The fitted point is the one with
the best hit@5 over all their questions (doc_hit@5 for a set without gold pages;
each question counts once, so a small set cannot swing the fit), ties broken
by mrr@10, then by the order of ``GRID`` (the current value first, so a flat
direction keeps it). Leave-one-source-out:
for each source (a corpus folder, or our own questions), the point fitted on
the other sources is scored on it, so a weight that helps one source only
shows as a drop there. It leaves out gathering (``scripts/fit_retrieval.py``)
and printing.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

from papertrail.measure.metrics import first_relevant_rank, hit_at, mean, reciprocal_rank
from papertrail.retrieve import stages
from papertrail.retrieve.fusion import Weights
from papertrail.types import Hit

DEPTH = 10
# Each weight's candidate values, the likeliest first: ties go to the earlier one.
GRID: dict[str, tuple[float, ...]] = {
    "alpha": (0.6, 0.5, 0.7, 0.4, 0.8),
    "page": (0.5, 0.25, 0.75, 1.0, 0.0),
    "doc_weight": (2.0, 1.0, 4.0, 0.5, 8.0),
    "docs": (4, 3, 5, 2, 6, 1),  # the order is fixed: a refit must not depend on the result
}


@dataclass(frozen=True)
class Case:
    """One question's gathered candidates and gold: ``docs`` file names, ``pages`` of them."""

    source: str  # left out together in validation (a corpus folder, our own set)
    dataset: str  # the data file, scored on its own
    pool: stages.Pool
    docs: tuple[str, ...]
    pages: tuple[int, ...]


def ranks(case: Case, within: dict[str, list[Hit]], w: Weights) -> tuple[int | None, int | None]:
    """(rank of the first gold page, rank of the first gold document) in the top ``DEPTH``."""
    pool = case.pool
    keep = set(stages.leading(pool.prior, pool.must, int(w.docs))) if pool.prior else None
    chosen = {d: h for d, h in within.items() if keep is None or d in keep}
    top = stages.merge(chosen, pool.prior, pool.must, w, DEPTH)
    on_doc = [h.chunk.doc_name in case.docs for h in top]
    on_page = [ok and h.chunk.page in case.pages for ok, h in zip(on_doc, top, strict=True)]
    return first_relevant_rank(on_page), first_relevant_rank(on_doc)


def heads(pool: stages.Pool, w: Weights) -> dict[str, list[Hit]]:
    """Each document's own ranking cut to its first passage per page, ``DEPTH`` of them:
    all a merged top ``DEPTH`` can take from it (a positive factor keeps its order)."""
    out = {}
    for doc in pool.docs:
        seen, kept = set(), []
        for h in doc.fused(w):
            if h.chunk.page not in seen:
                seen.add(h.chunk.page)
                kept.append(h)
                if len(kept) == DEPTH:
                    break
        out[doc.doc_id] = kept
    return out


def score_grid(
    cases: Sequence[Case], base: Weights, grid: dict[str, Sequence[float]] = GRID
) -> list[tuple[dict[str, float], dict[str, tuple[float, float, float]]]]:
    """For each grid point, per dataset: (hit@5 or doc_hit@5, mrr@10 or doc mrr@10)."""
    out = []
    within_names = [n for n in grid if n in ("alpha", "page", "figure_boost", "section_boost")]
    other = [n for n in grid if n not in within_names]
    for inner in itertools.product(*(grid[n] for n in within_names)):
        w_in = replace(base, **dict(zip(within_names, inner, strict=True)))
        fused = [heads(c.pool, w_in) for c in cases]  # the costly part: once per inner point
        for outer in itertools.product(*(grid[n] for n in other)):
            point = dict(zip(within_names, inner, strict=True)) | dict(
                zip(other, outer, strict=True)
            )
            w = replace(w_in, **{n: (int(v) if n == "docs" else v) for n, v in point.items()})
            out.append((point, per_dataset(cases, fused, w)))
    return sorted(out, key=lambda row: _grid_order(row[0], grid))


def per_dataset(
    cases: Sequence[Case], fused: Sequence[dict[str, list[Hit]]], w: Weights
) -> dict[str, tuple[float, float, float]]:
    """Per dataset: hit@5 and mrr@10 over questions with gold pages, or the same at
    document level for a dataset that has none, and how many questions count."""
    found: dict[str, list[tuple[int | None, int | None, bool]]] = {}  # dataset -> ranks
    for case, within in zip(cases, fused, strict=True):
        page, doc = ranks(case, within, w)
        found.setdefault(case.dataset, []).append((page, doc, bool(case.pages)))
    out = {}
    for name, rows in found.items():
        paged = [r for r in rows if r[2]]
        use = [r[0] for r in paged] if paged else [r[1] for r in rows]
        out[name] = (
            mean(hit_at(r, 5) for r in use) or 0.0,
            mean(reciprocal_rank(r, DEPTH) for r in use) or 0.0,
            float(len(use)),
        )
    return out


def best(
    table: Sequence[tuple[dict[str, float], dict[str, tuple[float, float, float]]]],
    datasets: set[str],
) -> tuple[dict[str, float], tuple[float, float]]:
    """The grid point with the best mean over the questions of ``datasets`` (hit@5, then
    mrr@10, then the grid's own order: ``table`` is sorted by it and the first best is
    kept)."""
    chosen, top = table[0][0], (-1.0, -1.0)
    for point, scores in table:
        rows = [scores[d] for d in datasets if d in scores]
        n = sum(r[2] for r in rows) or 1.0  # every question counts once: a small set is noisy
        value = (sum(r[0] * r[2] for r in rows) / n, sum(r[1] * r[2] for r in rows) / n)
        tied = abs(value[0] - top[0]) <= 1e-9
        if value[0] > top[0] + 1e-9 or (tied and value[1] > top[1] + 1e-9):
            chosen, top = point, value
    return chosen, top


def leave_one_out(
    table, sources: dict[str, str]
) -> dict[str, tuple[dict[str, float], dict[str, float], dict[str, float]]]:
    """Per source left out: (point fitted without it, its datasets' scores there, and
    at the point fitted on everything)."""
    every, _ = best(table, set(sources))
    scores_at = {_key(p): s for p, s in table}
    out = {}
    for source in sorted(set(sources.values())):
        mine = {d for d, s in sources.items() if s == source}
        point, _ = best(table, set(sources) - mine)
        out[source] = (
            point,
            {d: scores_at[_key(point)][d][0] for d in sorted(mine)},
            {d: scores_at[_key(every)][d][0] for d in sorted(mine)},
        )
    return out


def weights_of(point: dict[str, float], base: Weights = Weights()) -> Weights:
    return replace(base, **{n: (int(v) if n == "docs" else v) for n, v in point.items()})


def _key(point: dict[str, float]) -> tuple:
    return tuple(sorted(point.items()))


def _grid_order(point: dict[str, float], grid) -> tuple[int, ...]:
    return tuple(list(grid[n]).index(v) for n, v in point.items())

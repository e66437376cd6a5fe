"""Fitting retrieval's weights on gathered candidates, validated leaving each source out.

A question's candidates are gathered once (``Retriever.gather``: both stages'
rankings and signals, a ``stages.Pool``); ranking them under other weights is
then pure arithmetic (``stages.merge``). Three kinds of weight:

* ``confidence``: the coefficients that turn the document stage's signals into a
  probability per document (``retrieve.confidence``), fitted by maximum likelihood
  of the right document over the channel questions and softened by the temperature
  that calibrates them on the sources each fit did not see (``calibrate``);
* ``gains``: the chance that a right document's first gold page is at each place of
  its own ranking, counted over every question with gold pages whose document was
  read closely (``fit_gains``; smoothed and made non-increasing);
* ``alpha``, ``page``, ``docs``, ``guard`` and ``first``: a small grid (``GRID``), each
  point scored on every development set with the two above fitted at that point.

The fusion weights that change a document's own ranking (``alpha``, ``page``) are
chosen on the questions asked of their document alone; then the others, on every
training question. Each time the chosen point has the best hit@5 (doc_hit@5 for a
set without gold pages; each question counts once, so a small set cannot swing the
fit), ties broken by doc_hit@5, then by mrr@10, then by the order of ``GRID`` (the
current value first, so a flat direction keeps it). Leave-one-source-out: for each source (a
corpus folder, or our own questions), everything (confidence, gains, grid point) is
fitted on the other sources and scored on it, so a weight that helps one source
only shows as a drop there. It leaves out gathering (``scripts/fit_retrieval.py``)
and printing.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from papertrail.measure.calibrate import fit_confidence
from papertrail.measure.metrics import first_relevant_rank, hit_at, mean, reciprocal_rank
from papertrail.retrieve import stages
from papertrail.retrieve.fusion import Weights
from papertrail.types import Hit

DEPTH = 10
# Each weight's candidate values, the likeliest first: ties go to the earlier one.
GRID: dict[str, tuple[float, ...]] = {
    "alpha": (0.5, 0.6, 0.4, 0.7, 0.8),
    "page": (0.5, 0.25, 0.75, 1.0, 0.0),
    "docs": (2, 3, 4, 5, 6, 1),  # the order is fixed: a refit must not depend on the result
    "guard": (1, 0),
    "first": (0.0, 0.1, 0.2, 0.3, 0.5),
}
WITHIN = ("alpha", "page", "figure_boost", "section_boost")  # change a document's own ranking
INTS = ("docs", "guard")

# dataset -> (hit@5, mrr@10, questions, doc_hit@5 over all its questions)
Scores = dict[str, tuple[float, float, float, float]]


@dataclass(frozen=True)
class Case:
    """One question's gathered candidates and gold: ``docs`` file names, ``pages`` of them;
    ``names``: doc_id -> file name of every document of its channel."""

    source: str  # left out together in validation (a corpus folder, our own set)
    dataset: str  # the data file, scored on its own
    pool: stages.Pool
    docs: tuple[str, ...]
    pages: tuple[int, ...]
    names: dict[str, str] = field(default_factory=dict)


def heads(pool: stages.Pool, w: Weights) -> dict[str, list[Hit]]:
    """Each document's own ranking cut to its first passage per page, ``DEPTH`` of them:
    all a merged top ``DEPTH`` can take from it."""
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


def ranks(case: Case, within: dict[str, list[Hit]], w: Weights) -> tuple[int | None, int | None]:
    """(rank of the first gold page, rank of the first gold document) in the top ``DEPTH``."""
    pool = case.pool
    p = stages.chances(pool, w)
    must = stages.required(pool.signals, pool.must, p, w.guard)
    keep = set(stages.reading(p, must, w, DEPTH)) if pool.signals else None
    chosen = {d: h for d, h in within.items() if keep is None or d in keep}
    top = stages.merge(chosen, p, must, w.gains, DEPTH, first=w.first)
    on_doc = [h.chunk.doc_name in case.docs for h in top]
    on_page = [ok and h.chunk.page in case.pages for ok, h in zip(on_doc, top, strict=True)]
    return first_relevant_rank(on_page), first_relevant_rank(on_doc)


def fit_gains(cases: Sequence[Case], fused: Sequence[dict[str, list[Hit]]]) -> tuple[float, ...]:
    """Per place of a document's own ranking (first passage per page, ``DEPTH`` places):
    the share of questions whose first gold page is there, among those with gold pages
    whose gold document was ranked; add-a-half smoothed, made non-increasing (pooled
    where a later place counts more), rounded to 0.001."""
    counts = np.zeros(DEPTH + 1)  # the last: beyond DEPTH, or never
    for case, within in zip(cases, fused, strict=True):
        if not case.pages:
            continue
        ranked = next((h for h in within.values() if h and h[0].chunk.doc_name in case.docs), None)
        if ranked is None:
            continue
        place = next((i for i, h in enumerate(ranked) if h.chunk.page in case.pages), DEPTH)
        counts[place] += 1
    share = (counts[:DEPTH] + 0.5) / (counts.sum() + 0.5 * (DEPTH + 1))
    return tuple(max(round(float(v), 3), 0.001) for v in _non_increasing(share))


def _non_increasing(values: np.ndarray) -> list[float]:
    """The closest non-increasing sequence (pool adjacent violators, equal weights)."""
    blocks: list[list[float]] = []  # [mean, size]
    for v in values:
        blocks.append([float(v), 1.0])
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            (m2, n2), (m1, n1) = blocks.pop(), blocks.pop()
            blocks.append([(m1 * n1 + m2 * n2) / (n1 + n2), n1 + n2])
    return [m for m, n in blocks for _ in range(int(n))]


def per_dataset(
    cases: Sequence[Case], fused: Sequence[dict[str, list[Hit]]], w: Weights, known=None
) -> Scores:
    """Per dataset: hit@5 and mrr@10 over questions with gold pages, or the same at
    document level for a dataset that has none, how many questions count, and doc_hit@5.
    ``known``: case position -> its ``ranks`` already found (they do not depend on ``w``
    beyond the document's own ranking when there is nothing to route)."""
    found: dict[str, list[tuple[int | None, int | None, bool]]] = {}  # dataset -> ranks
    known = known or {}
    for i, (case, within) in enumerate(zip(cases, fused, strict=True)):
        page, doc = known[i] if i in known else ranks(case, within, w)
        found.setdefault(case.dataset, []).append((page, doc, bool(case.pages)))
    out = {}
    for name, rows in found.items():
        paged = [r for r in rows if r[2]]
        use = [r[0] for r in paged] if paged else [r[1] for r in rows]
        out[name] = (
            mean(hit_at(r, 5) for r in use) or 0.0,
            mean(reciprocal_rank(r, DEPTH) for r in use) or 0.0,
            float(len(use)),
            mean(hit_at(r[1], 5) for r in rows) or 0.0,
        )
    return out


class Fitter:
    """Scores grid points on gathered cases, computing each document's own ranking once
    per point of the weights that change it."""

    def __init__(self, cases: Sequence[Case], base: Weights, grid=GRID) -> None:
        self.cases, self.base, self.grid = list(cases), base, grid
        self.inner = [n for n in grid if n in WITHIN]
        self.outer = [n for n in grid if n not in WITHIN]
        self._heads: dict[tuple, list[dict[str, list[Hit]]]] = {}
        self._alone: dict[tuple, dict[int, tuple[int | None, int | None]]] = {}
        channel = {c.dataset for c in self.cases if c.pool.signals}
        self.alone = {c.dataset for c in self.cases} - channel  # one document per channel

    def fused(self, inner: tuple) -> list[dict[str, list[Hit]]]:
        if inner not in self._heads:
            w = replace(self.base, **dict(zip(self.inner, inner, strict=True)))
            self._heads[inner] = [heads(c.pool, w) for c in self.cases]
            self._alone[inner] = {  # nothing to route: only the document's own ranking counts
                i: ranks(c, self._heads[inner][i], w)
                for i, c in enumerate(self.cases)
                if not c.pool.signals
            }
        return self._heads[inner]

    def table(self, train: set[str]) -> list[tuple[dict[str, float], Weights, Scores]]:
        """Every grid point with ``confidence`` and ``gains`` fitted on the ``train``
        sources' questions, and its scores on every dataset, in the grid's order."""
        mine = [i for i, c in enumerate(self.cases) if c.source in train]
        confidence = fit_confidence([self.cases[i] for i in mine])
        out = []
        for inner in itertools.product(*(self.grid[n] for n in self.inner)):
            fused = self.fused(inner)
            gains = fit_gains([self.cases[i] for i in mine], [fused[i] for i in mine])
            for outer in itertools.product(*(self.grid[n] for n in self.outer)):
                point = dict(zip(self.inner, inner, strict=True))
                point |= dict(zip(self.outer, outer, strict=True))
                w = weights_of(point, replace(self.base, confidence=confidence, gains=gains))
                out.append((point, w, per_dataset(self.cases, fused, w, self._alone[inner])))
        return out


def best(
    table: Sequence[tuple[dict[str, float], Weights, Scores]],
    datasets: set[str],
    alone: Iterable[str] = (),
) -> tuple[dict[str, float], Weights, tuple[float, float, float]]:
    """The grid point with the best mean over the questions of ``datasets`` (hit@5, then
    doc_hit@5, then mrr@10, then the grid's own order: ``table`` is in it and the first
    best is kept); with its (hit@5, mrr@10, doc_hit@5).

    The weights that change a document's own ranking (``WITHIN``) are chosen first, on
    the ``alone`` datasets among them (questions asked of their document alone): they
    are judged by how they rank a document's pages, not by how they happen to reshuffle
    the places a channel shares through the gains. The others are then chosen on all."""
    alone = set(alone) & datasets
    if alone:
        point = _best(table, alone)[0]
        fixed = {n: v for n, v in point.items() if n in WITHIN}
        table = [row for row in table if all(row[0][n] == v for n, v in fixed.items())]
    return _best(table, datasets)


def ties(
    table: Sequence[tuple[dict[str, float], Weights, Scores]], alone: Iterable[str]
) -> list[tuple[dict[str, float], tuple[float, float, float]]]:
    """The settings of the weights that change a document's own ranking (``WITHIN``) whose
    hit@5 over the ``alone`` datasets (questions asked of their document alone) equals the
    best one's, each with that (hit@5, doc_hit@5, mrr@10), in the grid's order. More than
    one means ``best`` chose among them by doc_hit@5 and mrr@10 only: a flat direction,
    which a change that moves no hit@5 can tip."""
    alone = set(alone)
    seen: dict[tuple, tuple[float, float, float]] = {}
    for point, _, scores in table:  # the outer weights do not change a one-document ranking
        key = tuple((n, v) for n, v in point.items() if n in WITHIN)
        seen.setdefault(key, _pooled(scores, alone))
    top = max((v[0] for v in seen.values()), default=0.0)
    return [(dict(k), v) for k, v in seen.items() if abs(v[0] - top) <= 1e-9]


def _pooled(scores: Scores, datasets: Iterable[str]) -> tuple[float, float, float]:
    """(hit@5, doc_hit@5, mrr@10) over the questions of ``datasets``, each counted once."""
    rows = [scores[d] for d in datasets if d in scores]
    n = sum(r[2] for r in rows) or 1.0  # every question counts once: a small set is noisy
    return tuple(sum(r[i] * r[2] for r in rows) / n for i in (0, 3, 1))  # type: ignore[return-value]


def _best(
    table: Sequence[tuple[dict[str, float], Weights, Scores]], datasets: set[str]
) -> tuple[dict[str, float], Weights, tuple[float, float, float]]:
    chosen, top = table[0][:2], (-1.0, -1.0, -1.0)  # in the order compared
    for point, w, scores in table:
        value = _pooled(scores, datasets)
        for mine, theirs in zip(value, top, strict=True):
            if abs(mine - theirs) > 1e-9:
                if mine > theirs:
                    chosen, top = (point, w), value
                break
    return chosen[0], chosen[1], (top[0], top[2], top[1])


def leave_one_out(
    fitter: Fitter, sources: dict[str, str], every=None
) -> dict[str, tuple[Weights, dict[str, tuple[float, float]], dict[str, tuple[float, float]]]]:
    """Per source left out: (weights fitted without it, its datasets' (hit@5, doc_hit@5)
    there, and at the weights fitted on everything; ``every``: that table, if made)."""
    every = every if every is not None else fitter.table(set(sources.values()))
    _, w_all, _ = best(every, set(sources), fitter.alone)
    at_all = next(s for _, w, s in every if w == w_all)
    out = {}
    for source in sorted(set(sources.values())):
        mine = {d for d, s in sources.items() if s == source}
        others = set(sources.values()) - {source}
        table = fitter.table(others)
        _, w, _ = best(table, set(sources) - mine, fitter.alone)
        scores = next(s for _, w2, s in table if w2 == w)
        out[source] = (
            w,
            {d: (scores[d][0], scores[d][3]) for d in sorted(mine)},
            {d: (at_all[d][0], at_all[d][3]) for d in sorted(mine)},
        )
    return out


def weights_of(point: dict[str, float], base: Weights = Weights()) -> Weights:
    return replace(base, **{n: (int(v) if n in INTS else v) for n, v in point.items()})

"""Which documents of a channel a question is about: a prior in [0, 1] per document.

A prior, never a filter: every document's passages stay candidates, and the
prior only raises its passages' scores (``fusion``). A question about one of
many documents usually names the author, the product, the period or the
paper, not the file. The signals, each scaled by its best document:

* identity: BM25 of the question against what each document says about
  itself (its identity read from its content when indexed, its opening pages,
  its file name's words: ``lexical.identity_text``);
* content: the document's best page BM25 score for the question;
* dense: the document's best cosine similarity among the dense candidates;
* period: how well the period the document covers serves the periods the
  question names (``text.periods``), or, for "the latest" or "the last three
  quarters", whether it is among the most recent documents of the ones the
  other signals favour.

They are mixed (``IDENTITY``, ``CONTENT``, ``DENSE``, ``PERIOD``) and scaled so
the best document gets 1; ``evidence`` gives them apart, so that ``confidence``
can weigh each by a fit, with one more that the prior leaves out:

* share: how much of what the question says to tell the documents apart the
  document's identity text holds (``LexicalIndex.doc_shares``), not scaled by
  the best document. Scaled, identity gives 1 to the best match however weak:
  when no document is named, one word of one document's opening pages
  ("impact") makes it the best named. The share stays small then.

With one document there is nothing to route.
``leaders`` names each single ranking's first documents (signals of
``confidence``); ``wanted`` the documents whose passages the final ranking must
show for a question spanning several periods: the best document of each;
``printing`` the one document that prints the table or figure labels a question
names. It leaves out the calibration of the prior into a probability (``confidence``) and
metadata the uploader did not put in the PDF.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from papertrail.retrieve.lexical import LexicalIndex
from papertrail.text import periods
from papertrail.types import Chunk

IDENTITY, CONTENT, DENSE, PERIOD = 0.5, 0.25, 0.25, 1.0
SECTION_DOCS = 3  # documents whose named sections join the candidates
PEERS = 0.6  # "the latest" is chosen among documents scoring at least this share of the best
LEADERS = 2  # documents of each single ranking that the top results always show...
CLOSE = 0.9  # ... the first, and the next while its best score is this close to the first's


def leaders(
    rankings: list[list[tuple[Chunk, float]]], n: int = LEADERS, close: float | None = None
) -> list[str]:
    """Each ranking's first document, and its next ones up to ``n`` while their best score
    is within ``close`` of the first's (a near tie: the ranking cannot tell them apart);
    interleaved by place."""
    close = CLOSE if close is None else close
    orders = []
    for ranked in rankings:
        best: dict[str, float] = {}
        for chunk, score in ranked:
            best.setdefault(chunk.doc_id, score)
        first = next(iter(best.values()), 0.0)
        orders.append([d for d, s in best.items() if s >= close * first][:n] or list(best)[:1])
    return list(dict.fromkeys(o[place] for place in range(n) for o in orders if place < len(o)))


def top(prior: dict[str, float], n: int = SECTION_DOCS) -> list[str]:
    """The ``n`` documents with the highest prior, best first."""
    return sorted(prior, key=lambda d: (-prior[d], d))[:n]


def doc_prior(
    index: LexicalIndex,
    asked: periods.Asked,
    terms: list[str],
    page_scores: np.ndarray,
    dense: list[tuple[Chunk, float]],
    allowed: set[str],
) -> dict[str, float]:
    """doc_id -> prior in [0, 1] for the ``allowed`` documents of ``index``."""
    return mixed(evidence(index, asked, terms, page_scores, dense, allowed))


def mixed(parts: dict[str, tuple[float, ...]]) -> dict[str, float]:
    """The prior from each document's ``evidence``: its first four parts mixed, scaled so
    the best document gets 1 (empty when no document scores)."""
    weights = (IDENTITY, CONTENT, DENSE, PERIOD)
    raw = {
        d: sum(w * v for w, v in zip(weights, part[:4], strict=True)) for d, part in parts.items()
    }
    top_score = max(raw.values(), default=0.0)
    return {d: v / top_score for d, v in raw.items()} if top_score > 0 else {}


def evidence(
    index: LexicalIndex,
    asked: periods.Asked,
    terms: list[str],
    page_scores: np.ndarray,
    dense: list[tuple[Chunk, float]],
    allowed: set[str],
) -> dict[str, tuple[float, float, float, float, float]]:
    """doc_id -> (identity, content, dense, period, share) for the ``allowed`` documents
    of ``index``, the first three scaled by their best document; empty with fewer than
    two."""
    keep = np.array([doc_id in allowed for doc_id, _ in index.key], dtype=bool)
    if keep.sum() < 2:
        return {}
    identity = np.where(keep, index.doc_scores(terms), 0.0)
    share = np.where(keep, index.doc_shares(terms), 0.0)
    content = np.zeros(len(index.key), np.float32)
    if len(page_scores):  # pages are numbered document by document: max per run
        has_pages = np.diff(np.append(index.doc_page_start, len(page_scores))) > 0
        best = np.maximum.reduceat(page_scores, index.doc_page_start[has_pages])
        content[has_pages] = best
    content = np.where(keep, content, 0.0)
    best_dense = np.zeros(len(index.key), np.float32)
    position = {doc_id: pos for pos, (doc_id, _) in enumerate(index.key)}
    for chunk, sim in dense:
        pos = position.get(chunk.doc_id)
        if pos is not None:
            best_dense[pos] = max(best_dense[pos], sim)
    best_dense = np.where(keep, best_dense, 0.0)
    parts = [_scaled(identity), _scaled(content), _scaled(best_dense)]
    base = IDENTITY * parts[0] + CONTENT * parts[1] + DENSE * parts[2]
    period = np.where(keep, period_scores(index, asked, np.where(keep, base, 0.0)), 0.0)
    return {
        doc_id: (
            float(parts[0][pos]),
            float(parts[1][pos]),
            float(parts[2][pos]),
            float(period[pos]),
            float(share[pos]),
        )
        for doc_id, pos in position.items()
        if keep[pos]
    }


def period_scores(index: LexicalIndex, asked: periods.Asked, base: np.ndarray) -> np.ndarray:
    """Per document (``key`` order), how well its period serves the question's, in [0, 1]."""
    covered = index.covered
    out = np.zeros(len(covered), np.float32)
    for want in asked.periods:
        out = np.maximum(out, [periods.match(c, want) for c in covered])
    if asked.latest and len(base) and base.max() > 0:
        peers = [
            p for p in range(len(covered)) if base[p] >= PEERS * base.max() and covered[p].known
        ]
        ranked = sorted(peers, key=lambda p: covered[p].order(), reverse=True)
        for n, p in enumerate(ranked):
            out[p] = max(out[p], 1.0 if n < asked.latest else 0.5 if n < 2 * asked.latest else 0.0)
    return out


def wanted(index: LexicalIndex, asked: periods.Asked, prior: dict[str, float]) -> list[str]:
    """The documents the top results must include for a question spanning several periods
    ("across Q1 and Q2", "the last three quarters"): the best document of each, by the
    prior. A question about one period needs none: the right document is the most
    probable one, and ``stages`` gives places by probability."""
    out: list[str] = []
    if len(asked.periods) > 1 or asked.latest > 1:
        covered = index.covered
        pos = {doc_id: p for p, (doc_id, _) in enumerate(index.key)}
        for want in asked.periods:
            scored = [(prior.get(d, 0.0) * periods.match(covered[pos[d]], want), d) for d in prior]
            best = max(scored, default=(0.0, ""))
            if best[0] > 0:
                out.append(best[1])
        if asked.latest > 1:
            out += top(prior, asked.latest)
    return list(dict.fromkeys(d for d in out if d))


def printing(index: LexicalIndex, named: Sequence[str], allowed: set[str]) -> list[str]:
    """The one document among ``allowed`` that prints every table or figure label the
    question names ("According to table II, ..."), for the top results to include; none
    when no label is named or when several documents print them (a label common to
    many, "Figure 1", tells nothing about which one is asked)."""
    if not named:
        return []
    holders = [d for d in sorted(allowed) if all((n, d) in index.sections for n in named)]
    return holders if len(holders) == 1 else []


def _scaled(values: np.ndarray) -> np.ndarray:
    top_value = float(values.max()) if len(values) else 0.0
    return values / top_value if top_value > 0 else np.zeros_like(values)

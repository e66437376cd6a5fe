"""Which documents of a channel a question is about: a prior in [0, 1] per document.

A question about one of many filings usually names the issuer, the product,
the period or the paper, not the file. Three signals, each scaled by its best
document:

* identity: BM25 of the question against what each document says about
  itself (file name words, opening pages: ``lexical.identity_text``);
* content: the document's best page BM25 score for the question;
* dense: the document's best cosine similarity among the dense candidates;
* period: how well the reporting period the document covers serves the latest
  period the question names (``periods``: a report never holds later periods).

They are mixed (``IDENTITY``, ``CONTENT``, ``DENSE``, ``PERIOD``) and scaled so
the best document gets 1. With one document there is nothing to route. It leaves out
learned routers and metadata the uploader did not put in the PDF.
"""

from __future__ import annotations

import numpy as np

from papertrail.domains.finance import periods
from papertrail.retrieve.lexical import LexicalIndex
from papertrail.types import Chunk

IDENTITY, CONTENT, DENSE, PERIOD = 0.5, 0.25, 0.25, 0.75
ROUTED = 3  # documents whose passages a question in a larger channel searches


def routed(prior: dict[str, float], allowed: set[str], top: int = ROUTED) -> set[str]:
    """The ``top`` documents of ``allowed`` with the highest prior (all without one, or
    with ``top`` 0): the second stage searches their passages only, which also bounds
    the per-question work of whole-page candidates in a large channel.
    """
    ranked = sorted((d for d in prior if d in allowed), key=lambda d: (-prior[d], d))
    if not ranked or top <= 0 or len(allowed) <= top:
        return allowed
    return set(ranked[:top])


def doc_prior(
    index: LexicalIndex,
    question: str,
    terms: list[str],
    page_scores: np.ndarray,
    dense: list[tuple[Chunk, float]],
    allowed: set[str],
) -> dict[str, float]:
    """doc_id -> prior in [0, 1] for the ``allowed`` documents of ``index``."""
    keep = np.array([doc_id in allowed for doc_id, _ in index.key], dtype=bool)
    if keep.sum() < 2:
        return {}
    identity = np.where(keep, index.doc_scores(terms), 0.0)
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
    when = periods.asked(question)
    period = np.array([periods.match(p, when) for p in index.periods], np.float32)
    mixed = IDENTITY * _scaled(identity) + CONTENT * _scaled(content) + DENSE * _scaled(best_dense)
    mixed += PERIOD * np.where(keep, period, 0.0)
    top = float(mixed.max())
    if top <= 0:
        return {}
    return {doc_id: float(mixed[pos]) / top for doc_id, pos in position.items() if keep[pos]}


def _scaled(values: np.ndarray) -> np.ndarray:
    top = float(values.max()) if len(values) else 0.0
    return values / top if top > 0 else np.zeros_like(values)

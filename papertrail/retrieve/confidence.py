"""How sure the document stage is of each document: a calibrated probability.

The first stage gives every document of a channel a prior (``routing``: a mix of
how well the question matches what the document says about itself, its best
page, its best dense match and its period, scaled so the best gets 1) and each
single ranking (dense, BM25) names its first documents.
Neither is a probability: a prior of 0.9 beside 1.0 is a near tie in one channel
and a clear loser in another, and a document that dense search puts first is often
right when the prior is not. A conditional logit (a softmax over the channel's
documents) of a few signals per document (``SIGNALS``) turns them into one
probability per document that it holds the answer. Its coefficients
(``Weights.confidence``) are fitted by maximum likelihood on the development
channels (``papertrail.measure.fit``), so they are calibrated, not set by hand.

The second stage spends the top k's places on documents by these probabilities
(``stages.allocate``). It leaves out the fit and the signals' own computation
(``routing``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# One value per document; the coefficients in ``Weights.confidence`` follow this order.
SIGNALS = (
    "prior",
    "identity",
    "content",
    "dense",
    "period",
    "dense first",
    "BM25 first",
    "near tie",
    "share",
)
DENSE_FIRST, LEXICAL_FIRST = SIGNALS.index("dense first"), SIGNALS.index("BM25 first")


def signals(
    prior: dict[str, float],
    evidence: dict[str, tuple[float, ...]],
    rankings: Sequence[Sequence[str]],
) -> dict[str, tuple[float, ...]]:
    """doc_id -> its signals (``SIGNALS``): its prior and the parts it mixes (``routing``:
    ``evidence``); whether it is the dense (first of ``rankings``) and the BM25 (second)
    ranking's first document; whether it is one of their near-tied next ones
    (``routing.leaders`` of one ranking)."""
    dense, lexical = (list(r) for r in (*rankings, [], [])[:2])
    near = set(dense[1:]) | set(lexical[1:])
    return {
        d: (
            float(p),
            *(float(v) for v in parts[:4]),
            float(dense[:1] == [d]),
            float(lexical[:1] == [d]),
            float(d in near),
            float(parts[4]),
        )
        for d, p in prior.items()
        for parts in [evidence.get(d, (0.0,) * 5)]
    }


def probabilities(signals_of: dict[str, tuple], coef: Sequence[float]) -> dict[str, float]:
    """doc_id -> the probability that it is the document asked about (they sum to 1)."""
    if not signals_of:
        return {}
    ids = list(signals_of)
    logits = np.array([signals_of[d] for d in ids], np.float64) @ np.asarray(coef, np.float64)
    logits -= logits.max()
    p = np.exp(logits)
    p /= p.sum()
    return {d: float(v) for d, v in zip(ids, p, strict=True)}


def ranked(p: dict[str, float]) -> list[str]:
    """The documents, most probable first (ties: by id)."""
    return sorted(p, key=lambda d: (-p[d], d))


def firsts(signals_of: dict[str, tuple]) -> list[str]:
    """The documents some single ranking (dense or BM25) puts first."""
    return [d for d, s in signals_of.items() if s[DENSE_FIRST] or s[LEXICAL_FIRST]]

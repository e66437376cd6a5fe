"""The document stage's coefficients, fitted and calibrated on sources they did not see.

``fit_confidence`` turns gathered channel questions (``fit.Case``: the signals of
every document of the channel, ``confidence.SIGNALS``, and the right document's
name) into the coefficients of ``retrieve.confidence``: the maximum-likelihood
ones (L2-shrunk), divided by a ``temperature`` chosen by their likelihood on each
source under coefficients fitted without it; ``left_out`` scores each source under
coefficients fitted without it, the check that a signal helps beyond the questions it
was fitted on. It leaves out the grid of the other weights and the scoring (``fit``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from papertrail.retrieve.fusion import Weights

L2 = 0.01  # a little shrinkage: a signal no question separates stays near 0
TEMPERATURES = tuple(round(1.0 + 0.1 * i, 1) for i in range(11))  # 1.0 (none) to 2.0


def fit_confidence(cases: Sequence) -> tuple[float, ...]:
    """The coefficients of ``confidence.SIGNALS`` that maximise the probability of the
    right document over the channel questions (L2-shrunk), divided by the ``temperature``
    that calibrates them on sources they were not fitted on; rounded to 0.01."""
    rows = _rows(cases)
    if not rows:
        return Weights().confidence
    theta = _likeliest(rows) / temperature(cases)
    return tuple(round(float(v), 2) + 0.0 for v in theta)


def temperature(cases: Sequence) -> float:
    """How much to soften the fitted coefficients so that their probabilities hold on a
    source they were not fitted on: the value of ``TEMPERATURES`` (the first of equals)
    that maximises the likelihood of the right document over each channel source's
    questions under coefficients fitted on the other sources. A maximum-likelihood fit
    is sure of its own questions beyond what it earns on others; the share of places a
    runner-up document gets depends on that sureness. 1 with fewer than two sources."""
    held = [row for rows in _held_out(cases).values() for row in rows]
    if not held:
        return 1.0
    likelihood = [
        sum(np.log(_softmax(z / t)[gold].sum()) for z, gold in held) for t in TEMPERATURES
    ]
    return TEMPERATURES[int(np.argmax(likelihood))]


@dataclass(frozen=True)
class LeftOut:
    """How the document stage does on one source under coefficients fitted without it."""

    questions: int
    log_likelihood: float  # of the right document, per question (0 is certainty)
    first: float  # share of questions whose right document is the most probable
    top3: float  # ... among the three most probable


def left_out(cases: Sequence) -> dict[str, LeftOut]:
    """Per channel source, the document stage fitted on the other sources and scored on
    it (no temperature): the check that a new signal helps beyond the questions it was
    fitted on. Empty with fewer than two sources."""
    out = {}
    for source, rows in _held_out(cases).items():
        ranked = [(np.argsort(-z, kind="stable"), set(gold)) for z, gold in rows]
        out[source] = LeftOut(
            len(rows),
            float(np.mean([np.log(_softmax(z)[gold].sum()) for z, gold in rows])),
            float(np.mean([order[0] in gold for order, gold in ranked])),
            float(np.mean([bool(gold & set(order[:3].tolist())) for order, gold in ranked])),
        )
    return out


def _held_out(cases: Sequence) -> dict[str, list[tuple[np.ndarray, list[int]]]]:
    """Per channel source: (logits, gold) of each of its questions under the coefficients
    fitted on the other sources; empty with fewer than two sources."""
    sources = sorted({c.source for c in cases if _rows([c])})
    if len(sources) < 2:
        return {}
    held = {}
    for source in sources:
        theta = _likeliest(_rows([c for c in cases if c.source != source]))
        held[source] = [
            (x @ theta, gold) for x, gold in _rows([c for c in cases if c.source == source])
        ]
    return held


def _rows(cases: Sequence) -> list[tuple[np.ndarray, list[int]]]:
    """Per channel question with its right document among the signals: (signals, gold)."""
    rows = []
    for case in cases:
        ids = list(case.pool.signals)
        gold = [i for i, d in enumerate(ids) if case.names.get(d) in case.docs]
        if ids and gold:
            rows.append((np.array([case.pool.signals[d] for d in ids], np.float64), gold))
    return rows


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return np.maximum(e / e.sum(), 1e-300)


def _likeliest(rows: list[tuple[np.ndarray, list[int]]]) -> np.ndarray:
    """The L2-shrunk maximum-likelihood coefficients over ``rows``."""
    width = len(rows[0][0][0]) if rows else len(Weights().confidence)

    def loss(theta):
        total, grad = L2 * theta @ theta, 2 * L2 * theta
        for x, gold in rows:
            p = _softmax(x @ theta)
            mass = p[gold].sum()
            total -= np.log(mass)
            grad = grad - (p[gold] @ x[gold]) / mass + p @ x
        return total, grad

    return minimize(loss, np.zeros(width), jac=True, method="L-BFGS-B").x

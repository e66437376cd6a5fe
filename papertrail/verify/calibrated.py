"""The one calibrated decision: a logistic regression over the scorers and the soft checks.

``features`` turns a reading (and the claim's meaning similarity, when the
embedding model is at hand) into numbers on plain scales: coverage, the
words-only share, similarity, how specifically the claim's figures pin it,
the rarity of the rarest missing word, and 1/0 for each soft check that
fired, and two products (figures with words, words with meaning).
``probability`` weighs them with the shipped weights
(``weights.json``): two models, one with meaning and one words-only (no
embedder). ``fit`` is the fitting itself, a class-balanced, L2-regularised
logistic regression solved by Newton's method (deterministic, no random
start): ``scripts/fit_verifier.py`` runs it on labelled pairs and writes
``weights.json``; ``eval-verifier --by-source`` runs it leaving one source
out. Nothing here reads text.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import numpy as np

from papertrail.verify.checks import SOFT, active
from papertrail.verify.reading import Reading

WEIGHTS = Path(__file__).with_name("weights.json")
PIN_DIGITS = 6  # significant digits (all figures together) that pin a claim fully
SCORERS = ("coverage", "words", "figures_pinned", "pinned_coverage", "no_figures", "missing_rarity")
L2 = 1.0  # ridge penalty on every weight but the bias, in units of one pair's log-loss
ITERATIONS = 50
MAX_DROPPED = 0.05  # the share of good training citations the keep threshold may drop
MAX_PASSED = 0.05  # the share of wrong training citations that may read "verified"


def feature_names(meaning: bool) -> tuple[str, ...]:
    meant = ("similarity", "coverage_similarity") if meaning else ()
    return ("bias", *SCORERS, *meant, *SOFT)


def features(r: Reading, sim: float | None, without: Iterable[str] = ()) -> dict[str, float]:
    """The decision's inputs for one reading; a switched-off soft check reads 0."""
    on = {c.name: c for c in active(without) if not c.hard}
    found_all = r.figures > 0 and not r.missing_figs
    out = {
        "bias": 1.0,
        "coverage": r.cov,
        "words": r.word_cov,
        "figures_pinned": min(r.digits, PIN_DIGITS) / PIN_DIGITS if found_all else 0.0,
        "no_figures": float(r.figures == 0),
        "missing_rarity": r.missing_rarity / 6.0,
    }
    out["pinned_coverage"] = out["figures_pinned"] * r.cov  # figures found, with the words
    if sim is not None:
        out["similarity"] = sim
        out["coverage_similarity"] = r.cov * sim  # words and meaning agreeing
    for name in SOFT:
        out[name] = float(name in on and on[name].test(r) is not None)
    return out


@lru_cache(maxsize=4)
def load(path: Path = WEIGHTS) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def model_for(meaning: bool, weights: dict | None = None) -> dict:
    """{"weights": {feature: weight}, "keep": p, "verified": p} of one model."""
    w = weights or load()
    return w["models"]["meaning" if meaning else "words"]


def logit(x: dict[str, float], model: dict[str, float]) -> float:
    return sum(model.get(k, 0.0) * v for k, v in x.items())


def probability(x: dict[str, float], model: dict[str, float]) -> float:
    z = logit(x, model)
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


def thresholds(
    probs: list[float], labels: list[bool], groups: list[str] | None = None
) -> tuple[float, float]:
    """(keep, verified): the highest probability that keeps all but ``MAX_DROPPED`` of the
    good citations of every group, and the lowest above which at most ``MAX_PASSED`` of
    the wrong ones lie (never below keep). Both are read off the training pairs, rounded
    down and up to 0.01."""
    groups = groups or [""] * len(probs)
    keeps = []
    for g in sorted(set(groups)):
        good = sorted(p for p, y, h in zip(probs, labels, groups, strict=True) if y and h == g)
        if good:
            keeps.append(good[int(MAX_DROPPED * len(good))])
    bad = sorted((p for p, y in zip(probs, labels, strict=True) if not y), reverse=True)
    keep = math.floor(min(keeps, default=0.5) * 100) / 100
    verified = bad[int(MAX_PASSED * len(bad))] if bad else keep
    return keep, max(keep, math.ceil(verified * 100) / 100)


def fit_model(
    rows: list[dict[str, float]],
    labels: list[bool],
    names: tuple[str, ...],
    groups: list[str] | None = None,
) -> dict:
    """The weights (``fit``) and the two thresholds (``thresholds``) of one model."""
    weights = fit(rows, labels, names, groups)
    keep, verified = thresholds([probability(r, weights) for r in rows], labels, groups)
    return {"weights": weights, "keep": keep, "verified": verified}


def fit(
    rows: list[dict[str, float]],
    labels: list[bool],
    names: tuple[str, ...],
    groups: list[str] | None = None,
) -> dict:
    """Weights of a balanced L2 logistic regression of ``labels`` on ``rows``.

    Each (group, class) cell weighs the same in total: the good and the wrong
    citations alike, and each group of pairs (``groups``: how the claims were
    written) alike, so the largest set does not set the decision for all.
    Newton's method from zero: the same pairs give the same weights.
    """
    x = np.array([[row.get(n, 0.0) for n in names] for row in rows], dtype=float)
    y = np.array(labels, dtype=float)
    cells = Counter(zip(groups or [""] * len(rows), labels, strict=True))
    sw = np.array(
        [len(y) / (len(cells) * cells[(g, b)]) for g, b in zip(groups or [""] * len(rows),
                                                                  labels, strict=True)]
    )  # fmt: skip
    ridge = np.full(len(names), L2)
    ridge[names.index("bias")] = 0.0
    w = np.zeros(len(names))
    for _ in range(ITERATIONS):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -40, 40)))
        grad = x.T @ (sw * (p - y)) + ridge * w
        hess = (x * (sw * p * (1 - p))[:, None]).T @ x + np.diag(ridge) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return {n: round(float(v), 4) for n, v in zip(names, w, strict=True)}

"""Judges one claim against one excerpt: the checks, then one calibrated decision.

``read`` (``reading``) scores the excerpt's best-supporting span for the
claim. ``decide`` tries the hard checks in ``checks.CHECKS`` order: the first
that fires vetoes the citation and is named in ``Judgement.decided_by``.
Otherwise the calibrated decision (``calibrated``) weighs the scores and the
soft checks into the probability that the excerpt states the claim; from the
fitted "keep" threshold up the citation holds, "verified" from the fitted
"verified" threshold up (few wrong training citations score that high),
"partly supported" between them; below "keep" it is "not stated", decided by the soft check whose
signal turned it (``decided_by``), or by the scores ("calibrated"). The
embedding model is only asked when no hard check has decided. Checks can be
switched off by name (``without``). ``judge`` does both for one pair; whole
answers are checked in ``verify``. Nothing here generates or retrieves.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from papertrail.protocols import Domain, Embedder
from papertrail.text.sentences import strip_markers
from papertrail.verify import calibrated
from papertrail.verify.checks import active
from papertrail.verify.evidence import Span
from papertrail.verify.reading import Reading, read
from papertrail.verify.rivals import domain_contrasts

__all__ = ["Judgement", "Reading", "decide", "judge", "meaning", "read", "similarity"]

LEVELS = ("verified", "partly supported", "not stated")
CALIBRATED = "calibrated"  # ``decided_by`` when the scores decide, no check


@dataclass(frozen=True)
class Judgement:
    supported: bool
    reason: str
    scores: tuple[tuple[str, float], ...] = ()
    span: Span | None = None  # the part of the excerpt judged (best-supporting)
    decided_by: str = CALIBRATED  # the check that decided, or "calibrated"
    confidence: float = 0.0  # probability that the excerpt states the claim (0 when vetoed)
    level: str = LEVELS[2]  # how sure the checker is, in words (``LEVELS``)


def needs_meaning(r: Reading, without: Iterable[str] = ()) -> bool:
    """Whether the embedding model can change the verdict: no hard check has decided."""
    return not any(c.hard and c.test(r) for c in active(without))


def decide(
    r: Reading, sim: float | None, without: Iterable[str] = (), *, weights: dict | None = None
) -> Judgement:
    """The first hard check that fires vetoes; else the calibrated probability decides
    (with the shipped weights, or ``weights`` fitted elsewhere)."""
    without = tuple(without)
    scores = [("coverage", round(r.cov, 3)), ("figures", float(r.figures))]
    scores.append(("figures_missing", float(len(r.missing_figs))))
    if sim is not None:
        scores.append(("similarity", round(sim, 3)))
    span = r.spans[0] if r.spans else None
    for check in active(without):
        why = check.hard and check.test(r)
        if why:
            return Judgement(False, why, tuple(scores), span, check.name, 0.0)
    fitted = calibrated.model_for(sim is not None, weights)
    model, keep = fitted["weights"], fitted["keep"]
    x = calibrated.features(r, sim, without)
    p = calibrated.probability(x, model)
    scores.append(("confidence", round(p, 3)))
    if p >= keep:
        sim_said = f", similarity {sim:.2f}" if sim is not None else ""
        why = f"the excerpt states the sentence (coverage {r.cov:.2f}{sim_said}; p={p:.2f})"
        level = LEVELS[0] if p >= fitted["verified"] else LEVELS[1]
        return Judgement(True, why, tuple(scores), span, CALIBRATED, p, level)
    # the soft check whose signal weighs most against, when without it the claim would hold
    fired = [c for c in active(without) if not c.hard and x.get(c.name)]
    fired.sort(key=lambda c: model.get(c.name, 0.0))
    for c in fired:
        if calibrated.probability({**x, c.name: 0.0}, model) >= keep:
            return Judgement(False, c.test(r) or c.name, tuple(scores), span, c.name, p)
    why = _partial(r) + (f"; similarity {sim:.2f}" if sim is not None else "") + f"; p={p:.2f}"
    return Judgement(False, why, tuple(scores), span, CALIBRATED, p)


def _partial(r: Reading) -> str:
    words = ", ".join(r.missing_words[:4])
    said = f"; missing {words}" if words else ""
    return f"the excerpt does not state all of the sentence (coverage {r.cov:.2f}{said})"


def similarity(claim_vec: np.ndarray, span_vecs: np.ndarray) -> float:
    """Best cosine between the claim and any span (vectors are L2-normalised)."""
    vecs = np.atleast_2d(span_vecs)
    return float(np.max(vecs @ np.asarray(claim_vec).ravel())) if len(vecs) else 0.0


def meaning(
    embedder: Embedder,
    claims: Sequence[str],
    readings: Sequence[Reading],
    without: Iterable[str] = (),
) -> list[float | None]:
    """Cosine of each claim with its reading's spans, for the readings that need it.

    One embedding call for all of them; each distinct text is embedded once.
    """
    without = tuple(without)
    todo = [i for i, r in enumerate(readings) if needs_meaning(r, without)]
    if not todo:
        return [None] * len(readings)
    texts: list[str] = []
    for i in todo:
        texts += [strip_markers(claims[i]), *(s.text for s in readings[i].spans)]
    unique = list(dict.fromkeys(texts))
    vecs = dict(zip(unique, np.asarray(embedder.embed(unique)), strict=True))
    out: list[float | None] = [None] * len(readings)
    for i in todo:
        spans = np.vstack([vecs[s.text] for s in readings[i].spans])
        out[i] = similarity(vecs[strip_markers(claims[i])], spans)
    return out


def judge(
    claim: str,
    chunk_text: str,
    *,
    embedder: Embedder | None = None,
    context: str = "",
    without: Iterable[str] = (),
    domains: Sequence[Domain] = (),
) -> Judgement:
    """Does ``chunk_text`` state ``claim``? Usable on its own (the benchmark uses it).
    ``domains`` add their contrasting words (``Domain.contrasts``)."""
    without = tuple(without)
    reading = read(claim, chunk_text, context, domain_contrasts(domains))
    sim = meaning(embedder, [claim], [reading], without)[0] if embedder is not None else None
    return decide(reading, sim, without)

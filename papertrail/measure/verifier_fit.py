"""Readings of labelled pairs, the fit of the calibrated decision, and its validation.

``collect`` reads every (claim, chunk) pair once (``verify.reading``) with its
meaning similarity; ``training_rows`` keeps the pairs no hard check vetoes
(the only ones the calibrated decision ever sees) as feature rows;
``fit_weights`` fits both models (with meaning, words-only) on them, the
weights ``scripts/fit_verifier.py`` ships. ``by_source`` fits on all
sources but one and judges the one left out, for each source in turn; its
verdicts stand for what the checker does on documents it was not fitted on.
``check_table`` counts, for each check, the wrong citations it caught and the
good ones it dropped (the pairs it decided). Nothing here prints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from papertrail.domains import KNOWN
from papertrail.embed.cache import MemoEmbedder
from papertrail.protocols import Embedder
from papertrail.verify import calibrated
from papertrail.verify.checks import CHECKS, NAMES
from papertrail.verify.judge import CALIBRATED, Judgement, decide, meaning, needs_meaning
from papertrail.verify.reading import Reading, read
from papertrail.verify.rivals import domain_contrasts


@dataclass(frozen=True)
class Read:
    reading: Reading
    sim: float | None


def context(pair: dict) -> str:
    """What a reader sees next to the excerpt: the document's file name, without extension."""
    return Path(pair.get("doc", "")).stem


def collect(
    pairs: Sequence[dict], embedder: Embedder | None, without: Sequence[str] = ()
) -> list[Read]:
    """Each pair read once, with its similarity where no hard check decides."""
    if embedder is not None and not isinstance(embedder, MemoEmbedder):
        embedder = MemoEmbedder(embedder, max_chars=10_000)
    contrasts = domain_contrasts(KNOWN)  # judged as the pipeline judges: with every domain
    readings = [read(p["claim"], p["chunk_text"], context(p), contrasts) for p in pairs]
    if embedder is None:
        return [Read(r, None) for r in readings]
    sims = meaning(embedder, [p["claim"] for p in pairs], readings, without)
    return [Read(r, s) for r, s in zip(readings, sims, strict=True)]


def training_rows(
    pairs: Sequence[dict], reads: Sequence[Read], meaning_on: bool, without: Sequence[str] = ()
) -> tuple[list[dict[str, float]], list[bool], list[str]]:
    """Feature rows and labels of the pairs the calibrated decision sees (no hard veto)."""
    rows, labels, groups = [], [], []
    for p, r in zip(pairs, reads, strict=True):
        if not needs_meaning(r.reading, without):
            continue
        sim = r.sim if meaning_on else None
        if meaning_on and sim is None:
            continue
        rows.append(calibrated.features(r.reading, sim, without))
        labels.append(bool(p["supported"]))
        groups.append(group(p))
    return rows, labels, groups


def group(pair: dict) -> str:
    """How a pair's claim was written (reference answer, question and answer, paraphrase):
    each way weighs alike in the fit."""
    return str(pair.get("claim_from", ""))


def fit_weights(pairs: Sequence[dict], reads: Sequence[Read], without: Sequence[str] = ()) -> dict:
    """Both models fitted on ``pairs``: {"models": {"meaning": {...}, "words": {...}}}."""
    models = {}
    for key, on in (("meaning", True), ("words", False)):
        rows, labels, groups = training_rows(pairs, reads, on, without)
        models[key] = calibrated.fit_model(rows, labels, calibrated.feature_names(on), groups)
    return {"models": models}


def verdicts(
    reads: Sequence[Read], weights: dict | None = None, without: Sequence[str] = ()
) -> list[Judgement]:
    return [decide(r.reading, r.sim, without, weights=weights) for r in reads]


def by_source(
    pairs: Sequence[dict], reads: Sequence[Read], without: Sequence[str] = ()
) -> tuple[list[Judgement], dict[str, dict]]:
    """Each pair judged by weights fitted on the other sources' pairs; and those weights."""
    out: list[Judgement | None] = [None] * len(pairs)
    fitted = {}
    for src in sorted({p.get("source", "") for p in pairs}):
        train = [i for i, p in enumerate(pairs) if p.get("source", "") != src]
        weights = fit_weights([pairs[i] for i in train], [reads[i] for i in train], without)
        fitted[src] = weights
        for i, p in enumerate(pairs):
            if p.get("source", "") == src:
                out[i] = decide(reads[i].reading, reads[i].sim, without, weights=weights)
    return [j for j in out if j is not None], fitted


def check_table(
    pairs: Sequence[dict], judged: Sequence[Judgement], reads: Sequence[Read] = ()
) -> dict[str, dict]:
    """{check: {"caught": n, "dropped": n, "fired": [on wrong, on good], "by_source":
    {src: [caught, dropped]}}}: the pairs each check (or the calibrated scores) decided to
    reject, and, given the readings, how often each check fired at all."""
    table: dict[str, dict] = {}
    for name in (*NAMES, CALIBRATED):
        table[name] = {"caught": 0, "dropped": 0, "fired": [0, 0], "by_source": {}}
    for p, j in zip(pairs, judged, strict=True):
        if j.supported:
            continue
        row = table.setdefault(j.decided_by, {"caught": 0, "dropped": 0, "fired": [0, 0],
                                              "by_source": {}})  # fmt: skip
        what = "dropped" if p["supported"] else "caught"
        row[what] += 1
        per = row["by_source"].setdefault(p.get("source", ""), Counter())
        per[what] += 1
    for p, r in zip(pairs, reads, strict=False):
        for check in CHECKS:
            if check.test(r.reading):
                table[check.name]["fired"][bool(p["supported"])] += 1
    for row in table.values():
        row["by_source"] = {s: [c["caught"], c["dropped"]] for s, c in row["by_source"].items()}
    return table

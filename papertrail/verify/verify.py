"""Checks every ``[n]`` citation of an answer against the claim it is attached to.

``verify_answer`` splits an answer into claims (``claims``), judges each
(claim, cited excerpt) pair on its own (``judge``), and keeps the good ones
with their evidence: the sentence(s) or table row of the excerpt that state
the claim, with its boxes (``evidence``). A citation that fails is moved to
another retrieved excerpt that states the claim, when one does, and the
verdict says so; otherwise it is dropped. Survivors are renumbered, and the
answer is marked grounded or a refusal. It does not generate or retrieve
anything, and it never rewrites the words of the answer, only its markers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from papertrail.protocols import Embedder
from papertrail.settings import REFUSAL
from papertrail.text.coverage import coverage
from papertrail.types import Citation, Hit
from papertrail.verify.claims import is_claim, is_refusal, split_claims
from papertrail.verify.evidence import locate
from papertrail.verify.judge import Judgement, decide, meaning, read

__all__ = ["MISSING", "VerifiedText", "verify_answer"]

MISSING = "cites an excerpt that does not exist"


@dataclass(frozen=True)
class VerifiedText:
    text: str  # unsupported markers removed, survivors renumbered 1..k
    citations: tuple[Citation, ...]  # verified, one per displayed number
    dropped: tuple[Citation, ...]
    grounded: bool
    refusal: bool


def _context(hit: Hit) -> str:
    """What a reader sees beside the excerpt: the document's name and the section heading."""
    return f"{hit.chunk.doc_name.rsplit('.', 1)[0]} {hit.chunk.section}"


def judge_pairs(
    claims: Sequence[str],
    hits: Sequence[Hit],
    pairs: Sequence[tuple[int, int]],
    embedder: Embedder | None,
) -> dict[tuple[int, int], Judgement]:
    """Verdicts for (claim index, 1-based hit) pairs; one embedding call at most."""
    readings = [read(claims[c], hits[m - 1].chunk.text, _context(hits[m - 1])) for c, m in pairs]
    if embedder is None:
        sims = [None] * len(pairs)
    else:
        sims = meaning(embedder, [claims[c] for c, _ in pairs], readings)
    return {p: decide(r, s) for p, r, s in zip(pairs, readings, sims, strict=True)}


def _strength(j: Judgement) -> float:
    scores = dict(j.scores)
    return scores.get("coverage", 0.0) + scores.get("similarity", 0.0)


def verify_answer(
    text: str,
    hits: Sequence[Hit],
    *,
    embedder: Embedder | None = None,
    refusal: str = REFUSAL,
) -> VerifiedText:
    """Judge every (claim, cited excerpt) pair of ``text``; keep, move or drop each citation."""
    sentences, claims, groups = split_claims(text)
    pairs = sorted({(g.claim, m) for g in groups for m in g.markers if 1 <= m <= len(hits)})
    verdicts = judge_pairs(claims, hits, pairs, embedder)
    cited = {(c, m) for c, m in pairs}
    failing = {c for (c, _), v in verdicts.items() if not v.supported}
    others = [(c, j) for c in sorted(failing) for j in range(1, len(hits) + 1)]
    others = [p for p in others if p not in cited]
    alternatives = judge_pairs(claims, hits, others, embedder)
    moves: dict[int, tuple[int, Judgement]] = {}  # claim -> the excerpt that states it
    for (c, j), v in alternatives.items():
        if v.supported and (c not in moves or _strength(v) > _strength(moves[c][1])):
            moves[c] = (j, v)

    numbers: dict[int, int] = {}
    kept: list[Citation] = []
    dropped: list[Citation] = []
    pieces, pos = [], 0
    for g in groups:
        shown = []
        sentence = claims[g.claim]
        for m in g.markers:
            verdict = verdicts.get((g.claim, m))
            if verdict is None:
                dropped.append(Citation(0, m, sentence, None, False, MISSING))
                continue
            target, reason = m, verdict.reason
            if not verdict.supported:
                if g.claim not in moves:
                    chunk = hits[m - 1].chunk
                    dropped.append(
                        Citation(0, m, sentence, chunk, False, verdict.reason, verdict.scores)
                    )
                    continue
                target, verdict = moves[g.claim]
                reason = f"moved from [{m}], which {_why_not(reason)}: {verdict.reason}"
            if target not in numbers:
                numbers[target] = len(numbers) + 1
                chunk = hits[target - 1].chunk
                evidence = None
                if verdict.span is not None:
                    weigh = lambda t, claim=sentence: coverage(claim, t)[0]  # noqa: E731
                    evidence = locate(chunk, verdict.span, weigh)
                kept.append(
                    Citation(
                        numbers[target],
                        target,
                        sentence,
                        chunk,
                        True,
                        reason,
                        verdict.scores,
                        evidence,
                    )  # fmt: skip
                )
            if numbers[target] not in shown:
                shown.append(numbers[target])
        lead = re.match(r"\s*", text[g.start : g.end]).group()
        pieces += [text[pos : g.start], lead + "".join(f"[{n}]" for n in shown) if shown else ""]
        pos = g.end
    out = "".join(pieces) + text[pos:]
    refused = is_refusal(text, refusal)
    marked = {g.sentence for g in groups}
    asserted = [s for i, s in enumerate(sentences) if i in marked or is_claim(s)]
    grounded = refused or bool(kept) or (not asserted and bool(text.strip()))
    return VerifiedText(out.strip(), tuple(kept), tuple(dropped), grounded, refused)


def _why_not(reason: str) -> str:
    """A drop reason as a clause: "figure 12 not in excerpt" -> "lacks figure 12"."""
    if " not in excerpt" in reason:
        return "lacks " + reason.replace(" not in excerpt", "")
    return "does not state it"

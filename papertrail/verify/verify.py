"""Checks every ``[n]`` citation of an answer against the claim it is attached to.

``verify_answer`` splits an answer into claims (``claims``), judges each
(claim, cited excerpt) pair on its own (``judge``), and keeps the good ones
with their evidence: the sentence(s) or table row of the excerpt that state
the claim, with its boxes (``evidence``). A citation that fails, or a bracket
the model copied from a document ("[20]"), is moved to another retrieved
excerpt that states the claim, when one does, and the verdict says so;
otherwise it is dropped. Then the checker cites: every sentence that states
something and carries no marker is judged against all excerpts, and the one
that states it best becomes its citation ("cited by the checker"). Claims no
excerpt states are listed (``unsupported``) with where they end. Survivors
are renumbered; the answer is grounded when any claim kept a citation, or a
refusal. It does not generate or retrieve anything, and it never rewrites the
words of the answer, only its markers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from papertrail.protocols import Domain, Embedder
from papertrail.settings import REFUSAL
from papertrail.text.coverage import coverage
from papertrail.text.sentences import normalize, strip_markers
from papertrail.types import Ask, Citation, Hit, Unsupported
from papertrail.verify.claims import (
    Copied,
    document_brackets,
    is_claim,
    is_refusal,
    sentence_bounds,
    split_claims,
    strip_copied,
)
from papertrail.verify.evidence import locate
from papertrail.verify.judge import LEVELS, Judgement, decide, meaning, read
from papertrail.verify.question import on_question
from papertrail.verify.refusals import opens_with_refusal
from papertrail.verify.rivals import domain_contrasts

__all__ = ["COPIED", "MISSING", "VerifiedText", "verify_answer"]

MISSING = "cites an excerpt that does not exist"
COPIED = "a reference bracket copied from the document, not a citation"


@dataclass(frozen=True)
class VerifiedText:
    text: str  # unsupported markers removed, survivors renumbered 1..k
    citations: tuple[Citation, ...]  # verified, one per displayed number
    dropped: tuple[Citation, ...]
    grounded: bool
    refusal: bool
    unsupported: tuple[Unsupported, ...] = ()  # claims no excerpt states, where they end


def _context(hit: Hit) -> str:
    """What a reader sees beside the excerpt: the document's name and the section heading."""
    return f"{hit.chunk.doc_name.rsplit('.', 1)[0]} {hit.chunk.section}"


def judge_pairs(
    claims: Sequence[str],
    hits: Sequence[Hit],
    pairs: Sequence[tuple[int, int]],
    embedder: Embedder | None,
    question: Ask | str = "",  # read once (``text.ask``); "" for no question
    without: Sequence[str] = (),
    contrasts: tuple[str, ...] = (),
) -> dict[tuple[int, int], Judgement]:
    """Verdicts for (claim index, 1-based hit) pairs; one embedding call at most. Checks
    named in ``without`` are switched off; ``contrasts``: the domains' contrasting words."""
    readings = [
        read(claims[c], hits[m - 1].chunk.text, _context(hits[m - 1]), contrasts) for c, m in pairs
    ]
    if embedder is None:
        sims = [None] * len(pairs)
    else:
        sims = meaning(embedder, [claims[c] for c, _ in pairs], readings, without)
    out = {}
    for (c, m), r, s in zip(pairs, readings, sims, strict=True):
        hit = hits[m - 1]
        v = decide(r, s, without)
        if v.supported and v.level != LEVELS[0] and quoted(claims[c], hit.chunk.text):
            v = replace(v, level=LEVELS[0])  # the excerpt says it word for word: no doubt left
        asked = on_question(claims[c], question, v, hit.chunk.text, _context(hit))
        if asked.supported != v.supported:  # stated, but for something else than asked
            asked = replace(asked, decided_by="question", level=LEVELS[2])
        v = asked
        out[(c, m)] = v
    return out


def quoted(claim: str, excerpt: str) -> bool:
    """The claim, of five words or more, stands word for word in the excerpt (case, spacing
    and final punctuation aside): a quote is stated whatever the scores say."""
    said = " ".join(normalize(strip_markers(claim)).casefold().split()).rstrip(" .;:")
    return len(said.split()) >= 5 and said in " ".join(normalize(excerpt).casefold().split())


def _strength(j: Judgement) -> float:
    return j.confidence


def cite(n: int, target: int, sentence: str, hits: Sequence[Hit], v: Judgement, reason: str):
    """The kept citation of ``sentence`` to excerpt ``target``, with its evidence."""
    chunk = hits[target - 1].chunk
    evidence = None
    if v.span is not None:
        weigh = lambda t: coverage(sentence, t)[0]  # noqa: E731
        evidence = locate(chunk, v.span, weigh)
    return Citation(n, target, sentence, chunk, True, reason, v.scores, evidence, v.level)


def _best(verdicts: dict[tuple[int, int], Judgement]) -> dict[int, tuple[int, Judgement]]:
    """Claim -> (excerpt, verdict) of the strongest supporting excerpt, where one supports it."""
    best: dict[int, tuple[int, Judgement]] = {}
    for (c, j), v in verdicts.items():
        if v.supported and (c not in best or _strength(v) > _strength(best[c][1])):
            best[c] = (j, v)
    return best


def _insertion(text: str, start: int, end: int) -> int:
    """Where a sentence's citation goes: before its final full stop (or at its end)."""
    while end > start and text[end - 1].isspace():
        end -= 1
    return end - 1 if end > start and text[end - 1] in ".!?。" else end


def verify_answer(
    text: str,
    hits: Sequence[Hit],
    *,
    embedder: Embedder | None = None,
    refusal: str = REFUSAL,
    question: Ask | str = "",  # read once (``text.ask``); "" for no question
    without: Sequence[str] = (),
    domains: Sequence[Domain] = (),  # their contrasting words (``Domain.contrasts``)
) -> VerifiedText:
    """Judge every (claim, cited excerpt) pair of ``text``; keep, move or drop each citation,
    then cite every uncited sentence that an excerpt states (the checker's citations).

    A bracket copied from a document ("[20]", "[38, 2, 9]") is no citation: like a
    citation that fails, it is moved to an excerpt that states its claim, or dropped.
    """
    text, copies = strip_copied(text, len(hits), document_brackets([h.chunk.text for h in hits]))
    sentences, claims, groups = split_claims(text)
    bounds = sentence_bounds(text)
    copied_in: dict[int, list[Copied]] = {}  # sentence -> the brackets taken out of it
    for c in copies:
        i = next((k for k, (x, y) in enumerate(bounds) if x <= c.at < y), None)
        if i is None:  # at the very end or in a gap: the sentence before
            i = max([k for k, (x, _) in enumerate(bounds) if x <= c.at] or [0])
        copied_in.setdefault(i, []).append(c)
    pairs = sorted({(g.claim, m) for g in groups for m in g.markers})
    contrasts = domain_contrasts(domains)
    verdicts = judge_pairs(claims, hits, pairs, embedder, question, without, contrasts)
    failing = {c for (c, _), v in verdicts.items() if not v.supported}
    marked = {g.sentence for g in groups}
    unmarked = [
        i
        for i, s in enumerate(sentences)
        if i not in marked and (is_claim(s) or (i in copied_in and is_claim(s, short=True)))
    ]
    if not groups and not unmarked:  # a bare answer ("Residual Dropout") is still a claim
        unmarked = [i for i, s in enumerate(sentences) if is_claim(s, short=True)]
    everywhere = range(1, len(hits) + 1)
    others = [(c, j) for c in sorted(failing) for j in everywhere if (c, j) not in verdicts]
    others += [(i, j) for i in unmarked for j in everywhere]  # sentence i is claim i
    alternatives = judge_pairs(claims, hits, others, embedder, question, without, contrasts)
    best = _best(alternatives)

    numbers: dict[int, int] = {}
    kept: list[Citation] = []
    dropped: list[Citation] = []
    supported: set[int] = set()  # claims that keep a citation
    edits: list[tuple[int, int, str, int]] = []  # (start, end, replacement, claim)

    def show(target: int, sentence: str, v: Judgement, reason: str) -> int:
        if target not in numbers:
            numbers[target] = len(numbers) + 1
            kept.append(cite(numbers[target], target, sentence, hits, v, reason))
        return numbers[target]

    events = [(g.start, 0, i) for i, g in enumerate(groups)]
    events += [(_insertion(text, *bounds[i]), 1, i) for i in unmarked if i < len(bounds)]
    for at, kind, i in sorted(events):
        if kind == 1:  # an unmarked sentence: the checker cites it when an excerpt states it
            mark = ""
            if i in best:
                target, v = best[i]
                reason = f"cited by the checker: {v.reason}"
                if i in copied_in:  # the sentence cited a bracket copied from the document
                    first = copied_in.pop(i)[0]
                    why = _foreign(first.numbers[0], len(hits), clause=True)
                    reason = f"moved from [{first.numbers[0]}], which {why}: {v.reason}"
                mark = f" [{show(target, claims[i], v, reason)}]"
                supported.add(i)
            edits.append((at, at, mark, i))
            continue
        g, shown = groups[i], []
        sentence = claims[g.claim]
        for m in g.markers:
            v = verdicts[(g.claim, m)]
            if v.supported:
                target, reason = m, v.reason
            elif g.claim in best:
                target, v2 = best[g.claim]
                reason, v = f"moved from [{m}], which {_why_not(v.reason)}: {v2.reason}", v2
            else:
                chunk = hits[m - 1].chunk
                dropped.append(
                    Citation(0, m, sentence, chunk, False, v.reason, v.scores, None, v.level)
                )
                continue
            n = show(target, sentence, v, reason)
            supported.add(g.claim)
            if n not in shown:
                shown.append(n)
        lead = re.match(r"\s*", text[g.start : g.end]).group()
        marks = lead + "".join(f"[{n}]" for n in shown) if shown else ""
        edits.append((g.start, g.end, marks, g.claim))

    for i, taken in copied_in.items():  # copied brackets no move turned into a citation
        said = claims[i] if i < len(sentences) else ""
        for c in taken:
            for m in c.numbers:
                why = _foreign(m, len(hits))
                dropped.append(Citation(0, m, said, None, False, why))
    pieces, pos, unsupported, length = [], 0, [], 0
    asserted = {g.claim for g in groups} | set(unmarked)
    for start, end, replacement, claim in sorted(edits, key=lambda e: e[:2]):
        pieces += [text[pos:start], replacement]
        length += len(text[pos:start]) + len(replacement)
        pos = end
        if (
            claim in asserted
            and claim not in supported
            and claim not in {c for _, c in unsupported}
        ):
            unsupported.append((length, claim))
    out = "".join(pieces) + text[pos:]
    cut = len(out) - len(out.lstrip())
    out = out.strip()
    # the refusal sentence itself, or any refusal by meaning when nothing kept a citation
    refused = opens_with_refusal(text, refusal)
    refused = refused or (not kept and any(is_refusal(s, refusal) for s in sentences))
    grounded = refused or bool(kept) or (not asserted and bool(text.strip()))
    missing = tuple(
        Unsupported(strip_markers(claims[c]).strip(), min(max(at - cut, 0), len(out)))
        for at, c in unsupported
        if not (refused and is_refusal(claims[c], refusal))
    )
    return VerifiedText(out, tuple(kept), tuple(dropped), grounded, refused, missing)


def _foreign(marker: int, count: int, *, clause: bool = False) -> str:
    """Why a copied bracket's number is no citation: it points at no excerpt, or it is
    the document's own reference."""
    if not 1 <= marker <= count:
        return "points at no excerpt" if clause else MISSING
    return "copies the document's own reference" if clause else COPIED


def _why_not(reason: str) -> str:
    """A drop reason as a clause: "figure 12 not in excerpt" -> "lacks figure 12"."""
    if " not in excerpt" in reason:
        return "lacks " + reason.replace(" not in excerpt", "")
    return "does not state it"

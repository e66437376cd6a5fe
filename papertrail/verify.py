"""Checks every ``[n]`` citation of an answer against the sentence it is attached to.

``judge`` decides whether one excerpt supports one claim, from three signals:
every figure of the claim must be in the excerpt (rounding and units allowed),
enough of the claim's content words (weighted by rarity) must be in it, and,
with an embedder, the claim must be close in meaning to some passage of it.
``verify_answer`` splits an answer into sentences, judges each (sentence,
cited excerpt) pair on its own, drops failing markers, renumbers the rest and
says whether the answer is grounded or a refusal. It does not generate or
retrieve anything, and it never rewrites the words of the answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from papertrail.figures import claim_figures, excerpt_numbers, figure_in
from papertrail.protocols import Embedder
from papertrail.sentences import normalize, sentence_spans, split_sentences, strip_markers
from papertrail.settings import REFUSAL
from papertrail.types import Citation, Hit
from papertrail.words import content_words, found, is_content, rarity, stem, tokens, word_keys

# The decision has four numbers, each on a plain scale. They sit in the middle of
# the range that gave the same result on the development pairs, and a range
# chosen on one source (paper / filings) held on the other (see verifier_eval).
MIN_COVERAGE = 0.35  # share of the claim's weighted words and figures that must be there
MIN_AGREEMENT = 0.95  # coverage + best cosine, for claims not pinned by figures
WORDS_ONLY_COVERAGE = 0.6  # without an embedder, words alone must cover this much
SPECIFIC_DIGITS = 2  # found figures with this many significant digits in all pin a claim

MISSING = "cites an excerpt that does not exist"
_GROUP = re.compile(r"(?:\s*\[\s*\d+(?:\s*[-\u2013,;]\s*\d+)*\s*\])+")
_ONE = re.compile(r"\[([^\]]*)\]")


@dataclass(frozen=True)
class Judgement:
    supported: bool
    reason: str
    scores: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class VerifiedText:
    text: str  # unsupported markers removed, survivors renumbered 1..k
    citations: tuple[Citation, ...]  # verified, one per displayed number
    dropped: tuple[Citation, ...]
    grounded: bool
    refusal: bool


# --- one claim against one excerpt ------------------------------------------------------


def coverage(claim: str, chunk_text: str, context: str = "") -> tuple[float, list[str]]:
    """Rarity-weighted share of the claim's content words and figures found in the excerpt.

    A figure weighs 1 + its significant digits ("11,588" says more than "2").
    ``context`` (document name, section heading) counts as part of the excerpt
    for words: a reader checking the citation sees it. Returns (share, missing).
    """
    claim = strip_markers(claim)
    raw = re.findall(r"[^\W_]+", normalize(claim))
    words = [w.lower() for w in raw]
    upper = {w.lower() for w in raw if w.isupper() and 2 <= len(w) <= 5}
    keys = word_keys(chunk_text) | (word_keys(context) if context else set())
    hit = [found(w, keys, acronym=w in upper) for w in words]
    for i in range(len(words) - 1):  # compounds written apart: "MGM Resorts" / "MGMRESORTS"
        for n in (2, 3):
            if i + n <= len(words) and stem("".join(words[i : i + n])) in keys:
                hit[i : i + n] = [True] * n
    total = got = 0.0
    missing, seen = [], set()
    for w, ok in zip(words, hit, strict=True):
        if not is_content(w) or stem(w) in seen:
            continue
        seen.add(stem(w))
        weight = rarity(w)
        total += weight
        got += weight if ok else 0.0
        if not ok:
            missing.append(w)
    numbers = excerpt_numbers(chunk_text)
    for fig in claim_figures(claim):
        weight = 1.0 + min(fig.digits, 5)
        total += weight
        if figure_in(fig, numbers):
            got += weight
        else:
            missing.append(fig.text)
    return (got / total if total else 1.0), missing


def passages(chunk_text: str) -> list[str]:
    """The excerpt and each of its sentences: what a claim may match in meaning."""
    sents = split_sentences(chunk_text, hard_newlines=False)
    return [normalize(chunk_text)] + (sents if len(sents) > 1 else [])


def similarity(claim_vec: np.ndarray, passage_vecs: np.ndarray) -> float:
    """Best cosine between the claim and any passage (vectors are L2-normalised)."""
    vecs = np.atleast_2d(passage_vecs)
    return float(np.max(vecs @ np.asarray(claim_vec).ravel())) if len(vecs) else 0.0


def judge(
    claim: str,
    chunk_text: str,
    *,
    embedder: Embedder | None = None,
    claim_vec: np.ndarray | None = None,
    chunk_vec: np.ndarray | None = None,
    context: str = "",
) -> Judgement:
    """Does ``chunk_text`` state ``claim``? Usable on its own (the benchmark uses it).

    ``chunk_vec`` may be one vector or one row per ``passages(chunk_text)``;
    missing vectors are computed with ``embedder`` when one is given.
    """
    figures = claim_figures(claim)
    numbers = excerpt_numbers(chunk_text)
    missing_figs = [f.text for f in figures if not figure_in(f, numbers)]
    cov, missing_words = coverage(claim, chunk_text, context)
    missing_words = [w for w in missing_words if w not in missing_figs]
    scores = {"coverage": round(cov, 3), "figures": float(len(figures))}
    scores["figures_missing"] = float(len(missing_figs))
    sim = None
    if embedder is not None or (claim_vec is not None and chunk_vec is not None):
        if claim_vec is None:
            claim_vec = embedder.embed([strip_markers(claim)])[0]
        if chunk_vec is None:
            chunk_vec = embedder.embed(passages(chunk_text))
        sim = similarity(claim_vec, chunk_vec)
        scores["similarity"] = round(sim, 3)
    digits = sum(f.digits for f in figures)
    return decide(cov, sim, missing_figs, missing_words, scores, digits=digits)


def decide(
    cov: float,
    sim: float | None,
    missing_figs: Sequence[str],
    missing_words: Sequence[str],
    scores: dict[str, float],
    *,
    digits: int = 0,
) -> Judgement:
    """Combine the signals: a missing figure is a veto, then words, then meaning.

    When the claim's figures are found and specific together (``digits``
    significant digits in all), they tie it to this excerpt and the words need
    only reach ``MIN_COVERAGE``: tables state figures, not sentences, and the
    embedding model reads them poorly. Otherwise words and meaning together
    must reach ``MIN_AGREEMENT``.
    """
    if missing_figs:
        noun = "figure" if len(missing_figs) == 1 else "figures"
        return Judgement(False, f"{noun} {', '.join(missing_figs[:3])} not in excerpt", scores)
    if cov < MIN_COVERAGE:
        why = f"too little of the sentence is in the excerpt (coverage {cov:.2f})"
        return Judgement(False, why, scores)
    if digits >= SPECIFIC_DIGITS:
        return Judgement(True, f"figures and {cov:.0%} of the sentence are in the excerpt", scores)
    if sim is None:
        if cov >= WORDS_ONLY_COVERAGE:
            return Judgement(True, f"{cov:.0%} of the sentence is in the excerpt", scores)
        return Judgement(False, _partial(cov, missing_words), scores)
    if cov + sim >= MIN_AGREEMENT:
        why = f"excerpt states the sentence (coverage {cov:.2f}, similarity {sim:.2f})"
        return Judgement(True, why, scores)
    return Judgement(False, _partial(cov, missing_words) + f"; similarity {sim:.2f}", scores)


def _partial(cov: float, missing_words: Sequence[str]) -> str:
    words = ", ".join(missing_words[:4])
    return f"the excerpt does not state all of the sentence (coverage {cov:.2f}; missing {words})"


# --- a whole answer -------------------------------------------------------------------


@dataclass(frozen=True)
class _Group:
    start: int  # offsets of the marker group in the answer, leading space included
    end: int
    markers: tuple[int, ...]  # as written, ranges expanded, duplicates removed
    sentence: int  # index of the sentence it belongs to
    claim: int  # index of the text its excerpts must support (the sentence or its part)


def parse_markers(group: str) -> tuple[int, ...]:
    """Numbers in ``[1][2]``, ``[1, 2]``, ``[1-3]`` (a range of at most 20), in order."""
    out: list[int] = []
    for inner in _ONE.findall(group):
        for part in re.split(r"[,;]", inner):
            ends = [int(x) for x in re.findall(r"\d+", part)]
            if len(ends) == 2 and abs(ends[1] - ends[0]) <= 20:
                lo, hi = sorted(ends)
                ends = list(range(lo, hi + 1))
            out += [n for n in ends if n not in out]
    return tuple(out)


def is_refusal(text: str, refusal: str = REFUSAL) -> bool:
    """True when ``text`` is, or starts with, the refusal sentence (case and spacing aside)."""
    want = tokens(refusal)
    return bool(want) and tokens(text)[: len(want)] == want


def _is_claim(sentence: str) -> bool:
    """Whether an unmarked sentence asserts something ("Here is what I found:" does not)."""
    if sentence.rstrip().endswith(":") or is_refusal(sentence):
        return False
    return bool(claim_figures(sentence)) or len(content_words(sentence)) >= 3


def _split(text: str) -> tuple[list[str], list[str], list[_Group]]:
    """Sentences, claims (markers removed) and marker groups, each tied to one claim.

    Markers are blanked before splitting, so "layers.[1] Next" splits too; a
    group between two sentences ("... layers. [1] Next") belongs to the one before.
    The claim of a group is its sentence, or, when the sentence carries several
    groups ("6 layers [1] and 8 heads [2]."), the part since the previous group,
    if that part says something on its own.
    """
    found = list(_GROUP.finditer(text))
    masked = list(text)
    for m in found:
        masked[m.start() : m.end()] = " " * (m.end() - m.start())
    masked_text = "".join(masked)
    spans = sentence_spans(masked_text)
    sentences = [strip_markers(masked_text[a:b]).strip() for a, b in spans]
    owner = []
    for m in found:
        idx = next((i for i, (a, b) in enumerate(spans) if a <= m.start() < b), None)
        if idx is None:  # in the gap after a sentence: it cites that sentence
            before = [i for i, (_, b) in enumerate(spans) if b <= m.start()]
            idx = before[-1] if before else 0
        owner.append(idx)
    claims = list(sentences)
    groups = []
    for k, m in enumerate(found):
        claim = owner[k]
        inside = [j for j in range(len(found)) if owner[j] == owner[k]]
        if len(inside) > 1 and spans:
            first = inside.index(k) == 0
            a = spans[owner[k]][0] if first else found[inside[inside.index(k) - 1]].end()
            part = strip_markers(masked_text[a : m.start()]).strip(" ,;:")
            if claim_figures(part) or len(content_words(part)) >= 3:
                claims.append(part)
                claim = len(claims) - 1
        groups.append(_Group(m.start(), m.end(), parse_markers(m.group()), owner[k], claim))
    return sentences, claims, groups


def verify_answer(
    text: str,
    hits: Sequence[Hit],
    *,
    embedder: Embedder | None = None,
    refusal: str = REFUSAL,
    chunk_vectors: Mapping[str, np.ndarray] | None = None,
) -> VerifiedText:
    """Judge every (sentence, cited excerpt) pair of ``text``; keep and renumber the good ones.

    ``chunk_vectors`` (chunk id -> stored embedding of the chunk text) saves
    embedding the cited excerpts again.
    """
    sentences, claims, groups = _split(text)
    pairs = {(g.claim, m) for g in groups for m in g.markers if 1 <= m <= len(hits)}
    vectors = _embed(embedder, claims, hits, pairs, chunk_vectors or {})
    verdicts: dict[tuple[int, int], Judgement] = {}
    for s_idx, m in sorted(pairs):
        chunk = hits[m - 1].chunk
        context = f"{chunk.doc_name.rsplit('.', 1)[0]} {chunk.section}"
        claim_vec, chunk_vec = vectors.get(("s", s_idx)), vectors.get(("c", m))
        verdicts[(s_idx, m)] = judge(
            claims[s_idx], chunk.text, claim_vec=claim_vec, chunk_vec=chunk_vec, context=context
        )
    numbers: dict[int, int] = {}
    kept: list[Citation] = []
    dropped: list[Citation] = []
    pieces, pos = [], 0
    for g in groups:
        shown = []
        for m in g.markers:
            sentence = claims[g.claim]
            verdict = verdicts.get((g.claim, m))
            if verdict is None:
                dropped.append(Citation(0, m, sentence, None, False, MISSING))
                continue
            chunk = hits[m - 1].chunk
            if not verdict.supported:
                dropped.append(
                    Citation(0, m, sentence, chunk, False, verdict.reason, verdict.scores)
                )
                continue
            if m not in numbers:
                numbers[m] = len(numbers) + 1
                kept.append(
                    Citation(numbers[m], m, sentence, chunk, True, verdict.reason, verdict.scores)
                )
            if numbers[m] not in shown:
                shown.append(numbers[m])
        lead = re.match(r"\s*", text[g.start : g.end]).group()
        pieces += [text[pos : g.start], lead + "".join(f"[{n}]" for n in shown) if shown else ""]
        pos = g.end
    out = "".join(pieces) + text[pos:]
    refused = is_refusal(text, refusal)
    cited = {g.sentence for g in groups}
    claims = [s for i, s in enumerate(sentences) if i in cited or _is_claim(s)]
    grounded = refused or bool(kept) or (not claims and bool(text.strip()))
    return VerifiedText(out.strip(), tuple(kept), tuple(dropped), grounded, refused)


def _embed(embedder, claims, hits, pairs, stored) -> dict[tuple[str, int], np.ndarray]:
    """Vectors for every judged claim and every passage of every cited excerpt.

    Two calls: whole excerpts, then claims and sentences. The model pads a batch
    to its longest text, so mixing 800-character excerpts with short sentences
    would make every sentence cost as much as an excerpt.
    """
    if embedder is None or not pairs:
        return {}
    c_ids = sorted({c for c, _ in pairs})
    m_ids = sorted({m for _, m in pairs})
    cited = {m: passages(hits[m - 1].chunk.text) for m in m_ids}
    todo = [m for m in m_ids if hits[m - 1].chunk.id not in stored]
    fresh = dict(zip(todo, np.asarray(embedder.embed([cited[m][0] for m in todo])), strict=True))
    wholes = np.vstack(
        [
            np.asarray(stored.get(hits[m - 1].chunk.id, fresh.get(m)), dtype=np.float32)
            for m in m_ids
        ]
    )
    short = [claims[c] for c in c_ids] + [t for m in m_ids for t in cited[m][1:]]
    vecs = np.asarray(embedder.embed(short))
    out = {("s", c): vecs[i] for i, c in enumerate(c_ids)}
    pos = len(c_ids)
    for k, m in enumerate(m_ids):
        n = len(cited[m]) - 1
        out[("c", m)] = np.vstack([wholes[k : k + 1], vecs[pos : pos + n]])
        pos += n
    return out

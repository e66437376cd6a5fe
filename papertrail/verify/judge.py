"""Judges one claim against one excerpt, against the excerpt's best-supporting span.

``read`` finds the sentence(s) or table row of an excerpt that best state a
claim (``evidence.windows``): the share of the claim's content words
(weighted by rarity) and figures found there, with the document name and
section heading as context a reader also sees. ``decide`` turns that into a
verdict: every figure of the claim must be in the span (rounding and units
allowed), enough of the claim's words must be there, and, unless the words
alone state it, the claim must be close in meaning to the span (the embedding
model is only asked when its answer can change the verdict). A claim that
restates a question ("the email address in this document is ...") is also
read for its answer-bearing part. A span that says something else
(``contrast``: negation, a contrasting word beside the same neighbour, another
period, a question or a mere mention) fails whatever its coverage. Each
excerpt is read once (``excerpt.parse``). ``judge`` does both for one pair;
whole answers are checked in ``verify``. Nothing here generates or retrieves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from papertrail.protocols import Embedder
from papertrail.text.coverage import Claim as _Claim
from papertrail.text.coverage import parse as _parse
from papertrail.text.coverage import share as _share
from papertrail.text.figures import excerpt_numbers, figure_in
from papertrail.text.sentences import strip_markers
from papertrail.text.words import is_content, rarity
from papertrail.verify.claims import answer_part, clauses, predicate
from papertrail.verify.contrast import conflict
from papertrail.verify.evidence import Span
from papertrail.verify.excerpt import Excerpt, context_keys, parse
from papertrail.verify.mentions import asks_or_mentions

# The decision has four numbers, each on a plain scale. They sit in the middle of
# the range that gave the same result on the development pairs, and a range
# chosen on one source (paper / filings) held on the other (see verifier_eval).
MIN_COVERAGE = 0.35  # share of the claim's weighted words and figures that must be there
MIN_WORDS = 0.55  # ... and, for a claim its figures do not pin, more than half its words,
PARAPHRASE_SIM = 0.8  # unless the claim and the span are this close in meaning (a paraphrase)
MIN_AGREEMENT = 0.95  # coverage + best cosine, for claims not pinned by figures
WORDS_ONLY_COVERAGE = 0.6  # without an embedder, words alone must cover this much
SPECIFIC_DIGITS = 2  # found figures with this many significant digits in all pin a claim
ANSWER_COVERAGE = 0.8  # the answer part of a restated question must be found this fully
ANSWER_WEIGHT = 4.0  # ... and weigh this much without a figure or name (one rare word, two common)
SIM_SPANS = 2  # the lexically best spans whose meaning is compared with the claim
MIN_CLAUSE = 0.25  # each statement a claim joins ("A, and B") needs this share in the span


@dataclass(frozen=True)
class Judgement:
    supported: bool
    reason: str
    scores: tuple[tuple[str, float], ...] = ()
    span: Span | None = None  # the part of the excerpt judged (best-supporting)


@dataclass(frozen=True)
class Reading:
    """What the words and figures say about one claim and one excerpt."""

    spans: tuple[Span, ...]  # best first
    cov: float
    missing_figs: tuple[str, ...]
    missing_words: tuple[str, ...]
    figures: int
    digits: int  # significant digits of the claim's figures, all together
    missing_keys: tuple[str, ...] = ()  # names the claim's answer part gives, not in the span
    conflict: str | None = None  # why the span says something else (``contrast``), if it does

    def needs_meaning(self) -> bool:
        """Whether the embedding model can change the verdict."""
        return (
            not self.missing_figs
            and not self.missing_keys
            and self.conflict is None
            and MIN_COVERAGE <= self.cov < MIN_AGREEMENT
            and (self.digits < SPECIFIC_DIGITS)
        )


def _weight(c: _Claim) -> float:
    return sum(rarity(w) for w in set(c.words) if is_content(w))


def read(claim: str, chunk_text: str, context: str = "") -> Reading:
    """The claim against each span of the excerpt; the best spans and their coverage.

    Words are read in each span, figures in the whole excerpt (a table states
    them in rows apart from the words). The best span has the most coverage,
    then the most of the claim's figures, then the fewest characters. For a
    restated question ("the email address in this document is ...") the
    answer part may carry it: the question's words need not be in the excerpt
    when the answer's words and figures nearly all are (``ANSWER_COVERAGE``).
    """
    full, (framing, answer) = _parse(claim), answer_part(claim)
    short = _parse(answer) if framing else None
    if short is not None and not (short.figures or short.names or _weight(short) >= ANSWER_WEIGHT):
        short = None  # "... is blue": too common an answer to tie the claim to this excerpt
    ctx = context_keys(context)
    ex = parse(chunk_text)  # read once per distinct excerpt, whichever claim it is judged for
    only = not asks_or_mentions(claim)  # what the excerpt asks or only names states nothing
    numbers = ex.numbers  # figures may sit in other rows of a table
    scored = []
    for span, here in ex.windows:
        # a window's keys are its units' keys: each unit is read once, not once per window
        keys = ex.keys(span, asserted_only=only) | ctx
        cov, missing, figs = _share(full, keys, numbers)
        if short is not None:
            a_cov, a_missing, a_figs = _share(short, keys, numbers)
            if a_cov >= ANSWER_COVERAGE and a_cov > cov:
                cov, missing, figs = a_cov, a_missing, a_figs
        pinned = sum(figure_in(f, here) for f in full.figures)
        scored.append(((cov, pinned, -len(span.text)), span, cov, missing, figs))
    scored.sort(key=lambda s: s[0], reverse=True)
    if ctx:  # the heading counts for every span: among equals, the span that says it wins
        tied = [s for s in scored if s[0][:2] == scored[0][0][:2]]

        def own(s) -> tuple[float, int]:
            return _share(full, ex.keys(s[1], asserted_only=only), numbers)[0], s[0][2]

        scored.remove(top := max(tied, key=own))
        scored.insert(0, top)
    _, best, cov, missing, figs = scored[0]
    rows = _figure_rows(full, ex, best)
    scored[0] = (None, replace(best, also=best.also + rows), cov, missing, figs)
    digits = sum(f.digits for f in full.figures)
    spans = tuple(s[1] for s in scored[:SIM_SPANS])
    words = tuple(w for w in missing if w not in figs)
    names = _parse(predicate(answer)).names  # of the answer-bearing part: "... is Little Rock"
    missing_keys = tuple(w for w in words if w in names)
    why = conflict(claim, best.text, chunk_text, context) or _unstated(claim, ex, best, ctx)
    return Reading(spans, cov, tuple(figs), words, len(full.figures), digits, missing_keys, why)


def _unstated(claim: str, ex: Excerpt, best: Span, ctx: frozenset[str]) -> str | None:
    """A statement of a claim that joins several ("A, and B") which the span barely holds."""
    parts = clauses(claim)
    if len(parts) < 2:
        return None
    keys = ex.keys(best, asserted_only=not asks_or_mentions(claim)) | ctx
    for part in parts:
        if _share(_parse(part), keys, ex.numbers)[0] < MIN_CLAUSE:
            return f"the excerpt does not state {_quote(part)}"
    return None


def _quote(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: text.rfind(" ", 0, limit)] + " …")


def _figure_rows(c: _Claim, ex: Excerpt, best: Span) -> tuple[tuple[int, int], ...]:
    """Where the claim's figures that ``best`` lacks are: the unit holding each (with its
    column headings), the one sharing most words with the claim when several do."""
    out: list[tuple[int, int]] = []
    here = next((n for s, n in ex.windows if s == best), None)
    for fig in c.figures:
        if figure_in(fig, here if here is not None else excerpt_numbers(best.text)):
            continue
        holders = [u for u in ex.units if figure_in(fig, u.numbers)]
        if holders:
            u = max(holders, key=lambda h: _share(c, set(h.keys), [])[0])
            out += [r for r in ex.rows(u.start, u.end) if r not in out]
    return tuple(out)


def decide(r: Reading, sim: float | None) -> Judgement:
    """Combine the signals: a missing figure is a veto, then words, then meaning.

    When the claim's figures are found and specific together (``digits``
    significant digits in all), they tie it to this span and the words need
    only reach ``MIN_COVERAGE``: tables state figures, not sentences, and the
    embedding model reads them poorly. A span that says something else
    (``r.conflict``: a negation, a contrasting word, another period) fails
    whatever its words. Words covering ``MIN_AGREEMENT`` state the claim on
    their own; otherwise words and meaning together must, and words covering
    less than ``MIN_WORDS`` only when the meaning is a paraphrase's
    (``PARAPHRASE_SIM``): a topically close excerpt shares the subject's
    words and a middling similarity, not the relation.
    """
    scores = [("coverage", round(r.cov, 3)), ("figures", float(r.figures))]
    scores.append(("figures_missing", float(len(r.missing_figs))))
    if sim is not None:
        scores.append(("similarity", round(sim, 3)))
    span = r.spans[0] if r.spans else None

    def out(ok: bool, why: str) -> Judgement:
        return Judgement(ok, why, tuple(scores), span)

    if r.missing_figs:
        noun = "figure" if len(r.missing_figs) == 1 else "figures"
        return out(False, f"{noun} {', '.join(r.missing_figs[:3])} not in excerpt")
    if r.missing_keys:
        return out(False, f"{', '.join(r.missing_keys[:3])} not in excerpt")
    if r.conflict:
        return out(False, r.conflict)
    if r.cov < MIN_COVERAGE:
        return out(False, f"too little of the sentence is in the excerpt (coverage {r.cov:.2f})")
    if r.digits >= SPECIFIC_DIGITS:
        return out(True, f"figures and {r.cov:.0%} of the sentence are in the excerpt")
    if r.cov < MIN_WORDS and (sim is None or sim < PARAPHRASE_SIM):
        return out(False, _partial(r) + (f"; similarity {sim:.2f}" if sim is not None else ""))
    if r.cov >= MIN_AGREEMENT:
        return out(True, f"the excerpt states {r.cov:.0%} of the sentence")
    if sim is None:
        if r.cov >= WORDS_ONLY_COVERAGE:
            return out(True, f"{r.cov:.0%} of the sentence is in the excerpt")
        return out(False, _partial(r))
    if r.cov + sim >= MIN_AGREEMENT:
        why = f"excerpt states the sentence (coverage {r.cov:.2f}, similarity {sim:.2f})"
        return out(True, why)
    return out(False, _partial(r) + f"; similarity {sim:.2f}")


def _partial(r: Reading) -> str:
    words = ", ".join(r.missing_words[:4])
    return f"the excerpt does not state all of the sentence (coverage {r.cov:.2f}; missing {words})"


def similarity(claim_vec: np.ndarray, span_vecs: np.ndarray) -> float:
    """Best cosine between the claim and any span (vectors are L2-normalised)."""
    vecs = np.atleast_2d(span_vecs)
    return float(np.max(vecs @ np.asarray(claim_vec).ravel())) if len(vecs) else 0.0


def meaning(
    embedder: Embedder, claims: Sequence[str], readings: Sequence[Reading]
) -> list[float | None]:
    """Cosine of each claim with its reading's spans, for the readings that need it.

    One embedding call for all of them; each distinct text is embedded once.
    """
    todo = [i for i, r in enumerate(readings) if r.needs_meaning()]
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
    claim: str, chunk_text: str, *, embedder: Embedder | None = None, context: str = ""
) -> Judgement:
    """Does ``chunk_text`` state ``claim``? Usable on its own (the benchmark uses it)."""
    reading = read(claim, chunk_text, context)
    sim = meaning(embedder, [claim], [reading])[0] if embedder is not None else None
    return decide(reading, sim)

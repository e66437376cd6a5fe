"""The evidence scorers: what the words, figures and wording of one excerpt say about a claim.

``read`` finds the sentence(s) or table row of an excerpt that best state a
claim (``evidence.windows``) and measures it: the share of the claim's
content words (weighted by rarity) and figures found there (``coverage``),
the words-only share, the figures found and how specific they are, and the
signs that the span says something else (``contrast``: negation, a
contrasting word beside the same neighbour, another period, a ranking the
span lacks, a joined statement it barely holds, a question). The document's
name and section heading count as context a reader also sees. A claim that
restates a question ("the email address in this document is ...") is also
read for its answer-bearing part. Each claim is read once (``claim_view``)
and each excerpt once (``excerpt.parse``), whatever pair they are judged in.
Nothing here decides: the checks (``checks``) and the calibrated decision
(``calibrated``) do.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from papertrail.text.abbreviations import DOWN, UP, direction
from papertrail.text.coverage import Claim, share
from papertrail.text.coverage import parse as parse_claim
from papertrail.text.figures import excerpt_numbers, figure_in
from papertrail.text.words import is_content, rarity, stem, tokens
from papertrail.verify.anchors import BOUND, PERIOD, anchor_conflicts
from papertrail.verify.claims import answer_part, clauses, predicate
from papertrail.verify.contrast import (
    missing_superlative,
    negation_conflict,
    read_tokens,
    substitution,
)
from papertrail.verify.evidence import Span
from papertrail.verify.excerpt import Excerpt, context_keys, parse
from papertrail.verify.mentions import asks_or_mentions, only_asks
from papertrail.verify.periods import kind_conflict, period_conflict

ANSWER_COVERAGE = 0.8  # the answer part of a restated question must be found this fully
ANSWER_WEIGHT = 4.0  # ... and weigh this much without a figure or name (one rare word, two common)
SIM_SPANS = 2  # the lexically best spans whose meaning is compared with the claim
CACHED = 256  # claims kept read: every claim of a few answers
# Words of period and rank: the ones a close but wrong claim changes
QUALIFIERS = frozenset(
    "first second third fourth last next prior previous year annual quarter quarterly half "
    "month full fiscal calendar ytd yoy qoq q1 q2 q3 q4 h1 h2 before after earlier later "
    "higher lower more less".split()
)


@dataclass(frozen=True)
class ClaimView:
    """A claim read once: its words and figures, its answer part and its statements."""

    text: str
    full: Claim
    words_only: Claim  # the same without figures
    short: Claim | None  # the answer part of a restated question, when it ties the claim
    names: frozenset[str]  # names the answer-bearing part gives
    parts: tuple[Claim, ...]  # the statements it joins ("A, and B"), when more than one
    asserted_only: bool  # False for a claim that itself asks or reports a mention


def _weight(c: Claim) -> float:
    return sum(rarity(w) for w in set(c.words) if is_content(w))


@lru_cache(maxsize=CACHED)
def claim_view(claim: str) -> ClaimView:
    """``claim`` read once for every excerpt it is judged against."""
    full, (framing, answer) = parse_claim(claim), answer_part(claim)
    short = parse_claim(answer) if framing else None
    if short is not None and not (short.figures or short.names or _weight(short) >= ANSWER_WEIGHT):
        short = None  # "... is blue": too common an answer to tie the claim to this excerpt
    parts = clauses(claim)
    read_tokens(claim)  # warm the contrast reading of the claim once
    return ClaimView(
        claim,
        full,
        replace(full, figures=()),
        short,
        parse_claim(predicate(answer)).names,  # "... is Little Rock"
        tuple(parse_claim(p) for p in parts) if len(parts) > 1 else (),
        not asks_or_mentions(claim),
    )


@dataclass(frozen=True)
class Reading:
    """What the words and figures say about one claim and one excerpt."""

    spans: tuple[Span, ...]  # best first
    cov: float  # rarity-weighted share of the claim's words and figures in the best span
    missing_figs: tuple[str, ...]
    missing_words: tuple[str, ...]
    figures: int
    digits: int  # significant digits of the claim's figures, all together
    missing_keys: tuple[str, ...] = ()  # names the claim's answer part gives, not in the span
    word_cov: float = 1.0  # the share of the claim's words alone
    clause_min: float = 1.0  # the least-held statement of a claim that joins several
    missing_rarity: float = 0.0  # rarity of the rarest missing word (1 common .. 6 rare)
    # signs that the span says something else, each a reason or None
    asks: str | None = None
    negation: str | None = None
    contrast: str | None = None
    period: str | None = None  # another year, quarter or half named
    period_length: str | None = None  # another length of period spoken of (quarter / year)
    superlative: str | None = None
    unstated: str | None = None
    direction: str | None = None  # the claim says up, the span only down (or the reverse)
    qualifier: str | None = None  # a word of direction, period or rank the span lacks
    # the excerpt states the claim's figure for another period (or comparison), or on the
    # other side of a bound ("more than" / "just under"): ``anchors``
    figure_period: str | None = None
    figure_bound: str | None = None


def read(
    claim: str, chunk_text: str, context: str = "", contrasts: tuple[str, ...] = ()
) -> Reading:
    """The claim against each span of the excerpt; the best spans and their coverage.

    Words are read in each span, figures in the whole excerpt (a table states
    them in rows apart from the words). The best span has the most coverage,
    then the most of the claim's figures, then the fewest characters. For a
    restated question the answer part may carry it: the question's words need
    not be in the excerpt when the answer's words and figures nearly all are
    (``ANSWER_COVERAGE``). ``contrasts`` are the contrasting word groups domains add
    (``contrast.domain_contrasts``).
    """
    cv = claim_view(claim)
    full, short, only = cv.full, cv.short, cv.asserted_only
    ctx = context_keys(context)
    ex = parse(chunk_text)  # read once per distinct excerpt, whichever claim it is judged for
    numbers = ex.numbers  # figures may sit in other rows of a table
    scored = []
    for span, here in ex.windows:
        keys = ex.keys(span, asserted_only=only) | ctx
        cov, missing, figs = share(full, keys, numbers)
        if short is not None:
            a_cov, a_missing, a_figs = share(short, keys, numbers)
            if a_cov >= ANSWER_COVERAGE and a_cov > cov:
                cov, missing, figs = a_cov, a_missing, a_figs
        pinned = sum(figure_in(f, here) for f in full.figures)
        scored.append(((cov, pinned, -len(span.text)), span, cov, missing, figs))
    scored.sort(key=lambda s: s[0], reverse=True)
    if ctx:  # the heading counts for every span: among equals, the span that says it wins
        tied = [s for s in scored if s[0][:2] == scored[0][0][:2]]

        def own(s) -> tuple[float, int]:
            return share(full, ex.keys(s[1], asserted_only=only), numbers)[0], s[0][2]

        scored.remove(top := max(tied, key=own))
        scored.insert(0, top)
    _, best, cov, missing, figs = scored[0]
    rows = _figure_rows(full, ex, best)
    scored[0] = (None, replace(best, also=best.also + rows), cov, missing, figs)
    spans = tuple(s[1] for s in scored[:SIM_SPANS])
    words = tuple(w for w in missing if w not in figs)
    keys = ex.keys(best, asserted_only=only) | ctx
    word_cov = share(cv.words_only, keys, ())[0]
    clause_min, unstated = _clauses(cv, keys, ex)
    anchored = anchor_conflicts(claim, chunk_text)
    return Reading(
        spans=spans,
        cov=cov,
        missing_figs=tuple(figs),
        missing_words=words,
        figures=len(full.figures),
        digits=sum(f.digits for f in full.figures),
        missing_keys=tuple(w for w in words if w in cv.names),
        word_cov=word_cov,
        clause_min=clause_min,
        missing_rarity=max((rarity(w) for w in words), default=0.0),
        asks=(
            "the excerpt only asks it"
            if only_asks(best.text) and not claim.rstrip().endswith("?")
            else None
        ),
        negation=negation_conflict(claim, best.text),
        contrast=substitution(claim, best.text, contrasts),
        period=period_conflict(claim, chunk_text, context),
        period_length=kind_conflict(claim, best.text),
        superlative=missing_superlative(claim, best.text, chunk_text),
        unstated=unstated,
        direction=_direction(cv, best.text),
        qualifier=next((w for w in words if _qualifier(w)), None),
        figure_period=anchored.get(PERIOD),
        figure_bound=anchored.get(BOUND),
    )


def _qualifier(word: str) -> bool:
    """A word that tells one statement from a close other: up or down, which period, which
    rank ("rose", "quarter", "second", "full")."""
    return word in QUALIFIERS or stem(word) in UP | DOWN


def _direction(cv: ClaimView, span: str) -> str | None:
    mine, theirs = direction(cv.full.words), direction(tuple(tokens(span)))
    if mine and theirs and not (mine & theirs):
        return f"the excerpt says {'/'.join(theirs)}, the sentence {'/'.join(mine)}"
    return None


def _clauses(cv: ClaimView, keys: set[str], ex: Excerpt) -> tuple[float, str | None]:
    """The share of the least-held statement of a claim that joins several, and which."""
    if not cv.parts:
        return 1.0, None
    shares = [share(p, keys, ex.numbers)[0] for p in cv.parts]
    low = min(range(len(shares)), key=shares.__getitem__)
    said = " ".join(cv.parts[low].words)
    return shares[low], f"the excerpt barely states {_quote(said)}"


def _quote(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: text.rfind(" ", 0, limit)] + " …")


def _figure_rows(c: Claim, ex: Excerpt, best: Span) -> tuple[tuple[int, int], ...]:
    """Where the claim's figures that ``best`` lacks are: the unit holding each (with its
    column headings), the one sharing most words with the claim when several do."""
    out: list[tuple[int, int]] = []
    here = next((n for s, n in ex.windows if s == best), None)
    for fig in c.figures:
        if figure_in(fig, here if here is not None else excerpt_numbers(best.text)):
            continue
        holders = [u for u in ex.units if figure_in(fig, u.numbers)]
        if holders:
            u = max(holders, key=lambda h: share(c, set(h.keys), ())[0])
            out += [r for r in ex.rows(u.start, u.end) if r not in out]
    return tuple(out)

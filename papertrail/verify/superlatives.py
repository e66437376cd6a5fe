"""Superlatives: a claim that ranks ("the largest", "the best") needs a span that ranks.

``missing_superlative`` reads the claim's words written as words, not inside a
name ("Best Buy" ranks nothing), finds its superlatives (adjectives' -est forms
whose root is an English word, "best", "worst") and says when the span ranks
nothing in any words ("outperforms", "state of the art", "most"). Nothing here
weighs words.
"""

from __future__ import annotations

import re
from functools import lru_cache

from papertrail.text.sentences import normalize
from papertrail.text.words import rarity

WORD_RARITY = 4.0  # a superlative's root this common is an English word
_TOKEN = re.compile(r"w/o|[^\W_]+(?:'[^\W_]+)?|[,;:.()!?\"]")

# "The best", "the largest": a claim that ranks needs a span that ranks too, in some words.
_SUPERLATIVE = re.compile(r"^(?:best|worst)$|^[a-z]{3,}est$")
_NOT_SUPERLATIVE = frozenset(
    "interest latest honest modest forest harvest suggest request invest digest protest "
    "contest test manifest guest quest arrest rest west nest chest pest crest behest midwest "
    "southwest northwest attest detest divest ingest conquest inquest bequest pretest retest "
    "backtest priest everest".split()
)
_OUTDOES = re.compile(
    r"\b(?:outperform\w*|surpass\w*|state[- ]of[- ]the[- ]art|than (?:any|all|every)|"
    r"number one|exceed\w*|beat\w*|rank\w* first|first place|record|top|leading|most|least)\b"
    r"|#1\b",
    re.I,
)


def _superlative(word: str) -> bool:
    """ "best", or an adjective's -est form: "largest", "biggest", "earliest"."""
    if word in ("best", "worst"):
        return True
    if not _SUPERLATIVE.match(word) or word in _NOT_SUPERLATIVE:
        return False
    root = word[:-3]
    bases = (root, root + "e", root[:-1] if root[-1:] == root[-2:-1] else "", root[:-1] + "y")
    return any(b and rarity(b) <= WORD_RARITY for b in bases)


@lru_cache(maxsize=1024)
def _ranking_words(claim: str) -> tuple[str, ...]:
    """The claim's words written as words, not as part of a name: "Best Buy", "Dollar
    General's Biggest Savings" rank nothing. A capitalised word counts only at the start
    of a sentence and when the next word is not capitalised too."""
    raw = [t for t in _TOKEN.findall(normalize(claim)) if t[0].isalnum()]
    out = []
    for i, w in enumerate(raw):
        nxt = raw[i + 1] if i + 1 < len(raw) else ""
        if w[:1].isupper() and (i > 0 or nxt[:1].isupper()):
            continue
        out.append(w.lower())
    return tuple(out)


def missing_superlative(claim: str, span: str, excerpt: str = "") -> str | None:
    """The claim ranks ("the largest", "the best") and the span ranks nothing (nor does
    the excerpt hold the claim's own superlative)."""
    sup = [w for w in _ranking_words(claim) if _superlative(w)]
    whole = {t.lower() for t in _TOKEN.findall(normalize(excerpt))}
    if not sup or set(sup) <= whole:
        return None
    said = {w.lower() for w in _TOKEN.findall(normalize(span))}
    if any(_superlative(w) for w in said) or _OUTDOES.search(normalize(span)):
        return None
    return f"the excerpt does not say {sup[0]!r}"

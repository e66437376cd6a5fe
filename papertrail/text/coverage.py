"""How much of a claim's words and figures a text holds, weighted by rarity.

``coverage`` is the lexical half of judging a citation (``verify/judge.py``)
and the offline answerer's relevance of a sentence to a question
(``answer/extractive.py``): both read a claim the same way (``parse``: words,
acronyms, names, figures) and score the share of it found in a text
(``share``: a content word weighs its rarity, a figure 1 + its significant
digits). A word written short ("FY", "Q3", "bps") or a verb of direction
counts as found when the text spells it out (``abbreviations``). It does
not look at meaning (embeddings) or choose spans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from papertrail.text.abbreviations import spelled_out
from papertrail.text.figures import Figure, claim_figures, excerpt_numbers, figure_in
from papertrail.text.memo import per_text
from papertrail.text.sentences import normalize, strip_markers
from papertrail.text.words import found, is_content, rarity, stem, word_keys

# Generic nouns a claim uses for the document's subject, which its text calls "we", "our"
# or by name: missing, they count neither for nor against the claim.
REFERENTS = frozenset(
    "company companies firm corporation registrant issuer model method approach system "
    "framework paper study authors author".split()
)


@dataclass(frozen=True)
class Claim:
    words: tuple[str, ...]  # lowercase tokens in order
    upper: frozenset[str]  # tokens written as acronyms
    figures: tuple[Figure, ...]
    names: frozenset[str]  # words capitalised after the first one, and acronyms


_DOTTED = re.compile(r"\b(?:[A-Z]\.){2,}")  # "M.A.", "U.S.": one acronym, not single letters
_CONTRACTION = re.compile(r"(?i)\b(ca|wo)n't\b|n't\b|'(?:re|ve|ll|d|m)\b")


def _uncontract(m: re.Match) -> str:
    """ "don't" -> "do not", "can't" -> "can not", "we're" -> "we": the excerpt's word keys
    hold "don't" whole, so its halves must not be claim words of their own ("don")."""
    if m.group(1):
        return {"ca": "can", "wo": "will"}[m.group(1).lower()] + " not"
    return " not" if m.group().lower() == "n't" else ""


@per_text
def parse(claim: str) -> Claim:
    text = _DOTTED.sub(lambda m: m.group().replace(".", "") + " ", normalize(strip_markers(claim)))
    text = _CONTRACTION.sub(_uncontract, text)
    raw = re.findall(r"[^\W_]+", text)
    upper = frozenset(w.lower() for w in raw if w.isupper() and 2 <= len(w) <= 5)
    names = frozenset(w.lower() for w in raw[1:] if w[:1].isupper() and not w.isdigit()) | upper
    return Claim(tuple(w.lower() for w in raw), upper, tuple(claim_figures(claim)), names)


def share(c: Claim, keys: set[str], numbers) -> tuple[float, list[str], list[str]]:
    """(weighted share found, missing words, missing figures); a figure weighs 1 + digits."""
    words = c.words
    hit = [found(w, keys, acronym=w in c.upper) or spelled_out(w, keys) for w in words]
    for i, n, key in _runs(words):  # a run of words the text may write as one key
        if key in keys:
            hit[i : i + n] = [True] * n
    total = got = 0.0
    missing, figs, seen = [], [], set()
    for w, ok in zip(words, hit, strict=True):
        if not is_content(w) or stem(w) in seen or (not ok and w in REFERENTS):
            continue  # "the company", "the model": a reader resolves them, excerpts say "we"
        seen.add(stem(w))
        total += rarity(w)
        got += rarity(w) if ok else 0.0
        if not ok:
            missing.append(w)
    for weight, ok, text in _figures_found(c, numbers):  # added in the claim's order
        total += weight
        if ok:
            got += weight
        else:
            figs.append(text)
    return (got / total if total else 1.0), missing, figs


@per_text  # a claim is compared with every window of an excerpt against its one numbers
def _figures_found(c: Claim, numbers) -> tuple[tuple[float, bool, str], ...]:
    """(weight, found, text) of each of the claim's figures that counts against ``numbers``."""
    dated = any(n.day for n in numbers)
    out = []
    for fig in c.figures:
        if fig.day and not dated:
            continue  # "ended June 30, 2023" for "the second quarter of 2023": the same period
        out.append((1.0 + min(fig.digits, 5), figure_in(fig, numbers), fig.text))
    return tuple(out)


@lru_cache(maxsize=4096)
def _runs(words: tuple[str, ...]) -> tuple[tuple[int, int, str], ...]:
    """(start, length, key) of the runs of ``words`` found whole when ``key`` is among a
    text's keys: compounds written apart ("MGM Resorts" / "MGMRESORTS"), and words spelled
    out where the text writes their acronym ("RAG", not "US"). The same for every text a
    claim is compared with: worked out once per claim, not once per window."""
    out = []
    for i in range(len(words) - 1):
        for n in (2, 3):
            if i + n <= len(words):
                out.append((i, n, stem("".join(words[i : i + n]))))
        for n in (3, 4):
            run = words[i : i + n]
            if len(run) == n:
                out.append((i, n, "up:" + "".join(w[0] for w in run)))
    return tuple(out)


def coverage(claim: str, chunk_text: str, context: str = "") -> tuple[float, list[str]]:
    """Rarity-weighted share of the claim's content words and figures found in the excerpt.

    ``context`` (document name, section heading) counts as part of the excerpt
    for words: a reader checking the citation sees it. Returns (share, missing).
    """
    keys = word_keys(chunk_text) | (word_keys(context) if context else set())
    found_share, missing, figs = share(parse(claim), keys, tuple(excerpt_numbers(chunk_text)))
    return found_share, missing + figs

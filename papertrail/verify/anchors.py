"""What the excerpt says beside the claim's own figure: the period its statement speaks of.

A close but wrong claim often keeps the excerpt's figure and moves it to
another period: "rose 23% in the second quarter" cited to "increased 23% for
the six months ended June 30", "grew 40% year over year" to "growing 40%
quarter-over-quarter", "up from 65 a year earlier" to "up from 65 last
quarter". Words found anywhere in the excerpt cannot see it: the excerpt
speaks of both periods, each beside another figure.

``anchor_conflict`` aligns the two texts on the claim's figures. For each
figure of the claim that the excerpt states, it reads the *statement of that
figure*: the words after it up to the next figure or the end of its sentence
(where "23% for the six months ended" puts the period), else the words before
it back to the previous figure or the start of the sentence ("In Q4, ...
increased to 77"). Other figures bound the statement; years, days of a month
and digits glued to letters ("Q4", "FY22", "COVID-19") do not. In that
statement it reads three things, each a set:

* the **length** of the period: a quarter, a half (six months), nine months
  or a full year, as the words say it ("Q3", "three months ended", "first
  half", "full-year", "year ended");
* the **comparison**: against a year before ("year over year", "a year
  earlier", "prior year quarter", "same quarter last year") or a quarter
  before ("quarter-over-quarter", "sequentially", "last quarter");
* the **years** named ("2022", "FY22", "fiscal 2021").

It reads the claim's side the same way (the whole claim when the figure's
own statement names none). A figure conflicts when, for one of the three,
the claim names some and *every* statement of that figure in the excerpt
names others, none of the claim's. An excerpt statement that names none is
no evidence either way; a sentence that pairs figures and periods
"respectively" is not read. It knows no company, metric or document.
"""

from __future__ import annotations

import re
from functools import lru_cache

from papertrail.text.figures import claim_figures_at, figure_in, figure_text, numbers_at
from papertrail.text.sentences import normalize, sentence_spans
from papertrail.text.words import content_words, found, word_keys

_LENGTH = {
    "quarter": re.compile(
        r"\b(?:q[1-4]|[1-4]q(?:\d\d)?|quarter(?:ly|s)?|three[- ]months?)\b", re.I
    ),
    "half": re.compile(r"\b(?:h[12]|(?:first|second) half|half[- ]year|six[- ]months?)\b", re.I),
    "nine months": re.compile(r"\bnine[- ]months?\b", re.I),
    "year": re.compile(
        r"\b(?:full[- ]year|annual(?:ly)?|(?:fiscal\s+)?year\s+ended|for\s+the\s+(?:fiscal\s+)?"
        r"year\b(?!\s+(?:19|20)\d\d))",
        re.I,
    ),
}
_BASIS = {
    "a year before": re.compile(
        r"\b(?:year[- ](?:over|on)[- ]year|yoy|y/y|(?:prior|previous|last)[- ]year|year[- ]ago|"
        r"a year (?:earlier|ago|before)|(?:same|comparable) (?:quarter|period) (?:of |in )?"
        r"(?:the )?(?:last|prior|previous) year)\b",
        re.I,
    ),
    "a quarter before": re.compile(
        r"\b(?:quarter[- ](?:over|on)[- ]quarter|qoq|q/q|sequential(?:ly)?|"
        r"(?:prior|previous|preceding|last) quarter|a quarter (?:earlier|ago|before))\b",
        re.I,
    ),
}
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"  # a month's name
_DAY_BEFORE = re.compile(rf"\b{_MONTH}\s*$", re.I)  # "June 30"
_DAY_AFTER = re.compile(rf"^(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b", re.I)  # "28 September"
_RESPECTIVELY = re.compile(r"\brespectively\b", re.I)


def _sets(text: str) -> dict[str, frozenset[str]]:
    """The period lengths, comparisons and years ``text`` names."""
    return {
        "length": frozenset(k for k, rx in _LENGTH.items() if rx.search(text)),
        "comparison": frozenset(k for k, rx in _BASIS.items() if rx.search(text)),
    }


def _bounds(text: str) -> list[tuple[int, int]]:
    """Offsets of the numbers of ``text`` that bound a figure's statement: every number
    but years, days of a month and digits glued to letters ("Q4", "FY22", "COVID-19")."""
    out = []
    for a, b, n in numbers_at(text):
        before, after = text[max(0, a - 2) : a], text[b : b + 1]
        if before[-1:].isalpha() or re.search(r"[^\W\d_]-$", before) or after.isalpha():
            continue
        if n.integer and 1900 <= n.value <= 2100 and "," not in text[a:b]:
            continue
        if _is_day(text, a, b):
            continue
        out.append((a, b))
    return out


def _is_day(text: str, a: int, b: int) -> bool:
    return bool(_DAY_BEFORE.search(text[max(0, a - 12) : a]) or _DAY_AFTER.match(text[b : b + 16]))


def _statement(
    text: str, a: int, b: int, sentences: list[tuple[int, int]], bounds: list[tuple[int, int]]
) -> dict[str, frozenset[str]] | None:
    """What the statement of the figure at ``a``..``b`` names, per kind: the words after it
    for each kind they name, else the words before it. None in a "respectively" sentence."""
    s, e = next(((x, y) for x, y in sentences if x <= a < y), (0, len(text)))
    if _RESPECTIVELY.search(text, s, e):
        return None
    prev = max((y for x, y in bounds if s <= x and y <= a), default=s)
    nxt = min((x for x, y in bounds if x >= b and y <= e), default=e)
    after = _sets(text[b:nxt])
    if prev > s:  # the words since the previous figure are that figure's ("$26.3 billion in 2018")
        return after
    before = _sets(text[s:a])  # the sentence's opening frame ("In Q4, ...", "For fiscal 2022")
    return {k: after[k] | before[k] for k in after}


def _aligned(
    words: list[str], text: str, places: list[tuple[int, int]], sentences: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Of the places an excerpt states a figure, those whose sentence holds the most of the
    claim's words: the statement the claim restates ("product revenue ... growing 40%",
    not "represent over 40% of revenue")."""
    if len(places) < 2:
        return places

    def held(x: int) -> int:
        s, e = next(((a, b) for a, b in sentences if a <= x < b), (0, len(text)))
        keys = word_keys(text[s:e])
        return sum(found(w, keys) for w in set(words))

    scores = [held(x) for x, _ in places]
    return [p for p, k in zip(places, scores, strict=True) if k == max(scores)]


@lru_cache(maxsize=1024)
def _excerpt(text: str) -> tuple[str, list[tuple[int, int]], list, list[tuple[int, int]]]:
    """The excerpt read once: its normalised text, sentences, numbers and bounds."""
    norm = normalize(text)
    return norm, sentence_spans(norm, hard_newlines=False), numbers_at(norm), _bounds(norm)


def anchor_conflict(claim: str, excerpt: str) -> str | None:
    """The first figure of ``claim`` whose every statement in ``excerpt`` names another
    period length, comparison or year than the claim's own statement of it, or None."""
    ctext = figure_text(claim)
    figures = claim_figures_at(ctext)
    if not figures:
        return None
    c_sentences = sentence_spans(ctext, hard_newlines=False)
    c_bounds = _bounds(ctext)
    norm, sentences, numbers, bounds = _excerpt(excerpt)
    words = [w for w in content_words(ctext) if not w[:1].isdigit()]
    for a, b, fig in figures:
        if _is_day(ctext, a, b):
            continue
        mine = _statement(ctext, a, b, c_sentences, c_bounds)
        if mine is None:
            continue
        places = _aligned(words, norm, [(x, y) for x, y, n in numbers if figure_in(fig, [n])],
                          sentences)  # fmt: skip
        theirs = [_statement(norm, x, y, sentences, bounds) for x, y in places]
        if not theirs or any(t is None for t in theirs):
            continue
        for kind, want in mine.items():
            if not want:
                continue
            have = [t[kind] for t in theirs if t is not None]
            if all(h and not (h & want) for h in have):
                said = ", ".join(sorted(have[0]))
                return (
                    f"the excerpt gives {fig.text} for {said}, not {', '.join(sorted(want))}"
                    f" ({kind})"
                )
    return None

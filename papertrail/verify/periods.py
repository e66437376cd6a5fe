"""Periods a text names (years, quarters, halves) and a claim about another period.

``periods`` reads "2023", "FY23", "fiscal 2023", "Q3", "3Q", "third quarter",
"H1", "first half"; ``period_conflict`` says when a claim names a period of a
kind the excerpt names too (with what a reader sees beside it, such as the
document's name), but never the same one: "fiscal 2021" cited to an excerpt
about fiscal 2022 and 2023. An excerpt that names no period of that kind
neither confirms nor contradicts. Amounts ("$2,023") are not years. Fiscal and
calendar years are not told apart. Nothing here weighs words.
"""

from __future__ import annotations

import re

from papertrail.text.sentences import normalize

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3,
             "4th": 4}  # fmt: skip
_QUARTER = re.compile(
    r"\b(?:q([1-4])|([1-4])q|(first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:fiscal\s+)?quarter)",
    re.I,
)
_HALF = re.compile(r"\b(?:h([12])|(first|second|1st|2nd)\s+half)\b", re.I)
_YEAR = re.compile(
    r"(?<![\d.,$])(?:fy|cy|fiscal\s+(?:year\s+)?)?((?:19|20)\d\d)(?!\d|,\d|\.\d)", re.I
)
_SHORT_FY = re.compile(r"\bfy\s?'?(\d\d)\b|\bq[1-4]\s?'(\d\d)\b", re.I)  # FY23, Q3 '23


def periods(text: str) -> dict[str, frozenset[int]]:
    """The years, quarters and halves ``text`` names: {"year": {2022}, "quarter": {3}}."""
    text = normalize(text)
    years = {int(m.group(1)) for m in _YEAR.finditer(text)}
    years |= {2000 + int(m.group(1) or m.group(2)) for m in _SHORT_FY.finditer(text)}
    quarters = set()
    for m in _QUARTER.finditer(text):
        q = m.group(1) or m.group(2)
        quarters.add(int(q) if q else _ORDINALS[m.group(3).lower()])
    halves = set()
    for m in _HALF.finditer(text):
        halves.add(int(m.group(1)) if m.group(1) else _ORDINALS[m.group(2).lower()])
    return {k: frozenset(v) for k, v in (("year", years), ("quarter", quarters),
                                         ("half", halves)) if v}  # fmt: skip


def period_conflict(claim: str, excerpt: str, context: str = "") -> str | None:
    """The claim names a period of a kind the excerpt names too, but not the same one."""
    mine = periods(claim)
    theirs = periods(excerpt + " " + context)
    for kind, want in mine.items():
        have = theirs.get(kind)
        if have and not (want & have):
            said = ", ".join(str(x) for x in sorted(have)[:3])
            return f"the excerpt is about {kind} {said}, not {', '.join(map(str, sorted(want)))}"
    return None


# What length of period a text speaks of, in words: a quarter, a half or nine months, a year.
_KINDS = {
    "quarter": re.compile(
        r"\b(?:q[1-4]|[1-4]q|quarter(?:ly)?|three[- ]months?|qoq|sequential(?:ly)?)\b", re.I
    ),
    "half": re.compile(
        r"\b(?:h[12]|half|six[- ]months?|nine[- ]months?|year[- ]to[- ]date)\b", re.I
    ),
    "year": re.compile(
        r"\b(?:full[- ]year|fiscal[- ]year|annual(?:ly)?|twelve[- ]months?|fy\s?'?\d\d(?:\d\d)?|"
        r"year[- ]ended)\b",
        re.I,
    ),
}


def kinds(text: str) -> frozenset[str]:
    """The lengths of period ``text`` speaks of: "quarter", "half", "year"."""
    text = normalize(text)
    return frozenset(k for k, rx in _KINDS.items() if rx.search(text))


def kind_conflict(claim: str, span: str) -> str | None:
    """The claim speaks of a quarter (a half, a year) and the span only of another length."""
    mine, theirs = kinds(claim), kinds(span)
    if mine and theirs and not (mine & theirs):
        return f"the excerpt speaks of a {'/'.join(sorted(theirs))}, not a {'/'.join(sorted(mine))}"
    return None

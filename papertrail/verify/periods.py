"""A claim about another period than the excerpt's.

``period_conflict`` says when a claim names a period of a kind the excerpt
names too (with what a reader sees beside it, such as the document's name),
but never the same one: "fiscal 2021" cited to an excerpt about fiscal 2022
and 2023. An excerpt that names no period of that kind neither confirms nor
contradicts. Reading the periods a text names is ``text.periods.named``'s;
nothing here weighs words.
"""

from __future__ import annotations

import re

from papertrail.text.periods import named
from papertrail.text.sentences import normalize

# A year that ends in the first half of a calendar year ("fiscal year ended January 28, 2024")
# is as often named for the year before (retailers' "fiscal 2023") as for the year it ends in
_EARLY_YEAR_END = re.compile(
    r"\b(?:fiscal\s+)?(?:year|5[23][- ]weeks?)\s+end(?:ed|ing)\s+(?:on\s+)?"
    r"(?:jan|feb|mar|apr|may|jun)[a-z]*\.?\s+\d{1,2},?\s+((?:19|20)\d\d)",
    re.I,
)


def periods(text: str) -> dict[str, frozenset[int]]:
    """The years, quarters and halves ``text`` names: {"year": {2022}, "quarter": {3}}; a
    year that ends in January to June counts under both names."""
    text = normalize(text)
    out = named(text)
    early = {int(m.group(1)) - 1 for m in _EARLY_YEAR_END.finditer(text)}
    if early:
        out["year"] = out.get("year", frozenset()) | early
    return out


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

"""What length of period a text speaks of, and what period a figure is compared with.

``lengths`` reads a whole text loosely ("three months ended", "H1", "full-year",
"annual"): the lengths a claim or an excerpt speaks of. ``clause_lengths`` reads
one clause strictly, as the statement of a figure: "a quarter of revenue" is a
share and "annual" names things ("annual meeting"), so neither is a period there.
``bases`` says what a figure is compared with: the period a year before ("year
over year", "prior year") or a quarter before ("sequentially"). Which periods a
text names (years, quarters) is ``periods``'.
"""

from __future__ import annotations

import re

from papertrail.text.memo import per_text
from papertrail.text.periods import YEAR

# What length of period a text speaks of, in words: a quarter, a half or nine months, a year.
_LENGTHS = {
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
# The same, strictly, within the clause that states a figure
_CLAUSE_LENGTHS = {
    "quarter": re.compile(
        # "a quarter of revenue" is a share, not a period
        r"\b(?:q[1-4]|[1-4]q(?:\d\d)?|(?<!\ba )(?<!\bone )(?<!\bthree )quarter(?:ly|s)?|"
        r"three[- ]months?)\b",
        re.I,
    ),
    "half": re.compile(r"\b(?:h[12]|(?:first|second) half|half[- ]year|six[- ]months?)\b", re.I),
    "nine months": re.compile(r"\bnine[- ]months?\b", re.I),
    # not "annual": it names things ("annual recurring revenue", "annual meeting")
    "year": re.compile(
        r"\b(?:full[- ]year|(?:fiscal\s+)?year\s+ended|for\s+the\s+(?:fiscal\s+)?"
        rf"year\b(?!\s+{YEAR}))",
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


@per_text
def lengths(text: str) -> frozenset[str]:
    """The lengths of period ``text`` speaks of: "quarter", "half", "year" ("three months
    ended", "H1", "full-year")."""
    return frozenset(k for k, rx in _LENGTHS.items() if rx.search(text))


def clause_lengths(clause: str) -> frozenset[str]:
    """The lengths of period a clause stating a figure gives it: "quarter", "half",
    "nine months", "year"."""
    return frozenset(k for k, rx in _CLAUSE_LENGTHS.items() if rx.search(clause))


def bases(clause: str) -> frozenset[str]:
    """What a clause compares its figure with: "a year before", "a quarter before"."""
    return frozenset(k for k, rx in _BASIS.items() if rx.search(clause))

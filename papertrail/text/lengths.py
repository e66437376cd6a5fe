"""What length of period a text speaks of: a quarter, a half, a year.

``lengths`` reads a whole text loosely ("three months ended", "H1", "full-year",
"annual"): the lengths a claim or an excerpt speaks of. Which periods a text
names (years, quarters) is ``periods``'.
"""

from __future__ import annotations

import re

from papertrail.text.memo import per_text

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


@per_text
def lengths(text: str) -> frozenset[str]:
    """The lengths of period ``text`` speaks of: "quarter", "half", "year" ("three months
    ended", "H1", "full-year")."""
    return frozenset(k for k, rx in _LENGTHS.items() if rx.search(text))

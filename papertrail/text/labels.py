"""The labels documents print on their tables and figures ("Table II", "Figure 3-1", "Fig. 7").

A question that names a table or a figure by its label ("According to table II,
...") names a place in one document as precisely as a page number would, and
the page that prints the label is where the answer is. ``named`` reads labels
the same way in a question and in a page's text, so the two meet: the kind is
lower-cased and "Fig." is "figure"; the number keeps its writing ("II" and "2"
differ: a document uses one of them) with "1.1" read as "1-1". A Roman numeral
counts only in capitals ("Table II", "TABLE II"), so "table i made" names
nothing. It does not tell a caption from a mention ("as shown in Table II"):
both sit next to what the table holds.
"""

from __future__ import annotations

import re

_KINDS = {"fig": "figure"}  # the others are their own name
_LABEL = re.compile(
    r"\b(?i:(table|figure|fig|chart|exhibit))\.?\s*"
    r"(\d{1,3}(?:[-.\u2013]\d{1,3})*[a-z]?(?![\w-])|[IVX]{1,5}\b)"
)


def named(text: str) -> tuple[str, ...]:
    """The labels ``text`` names, each once, in order: ("table II", "figure 7")."""
    found = []
    for m in _LABEL.finditer(text):
        kind = m.group(1).lower()
        number = re.sub(r"[.\u2013]", "-", m.group(2))
        found.append(f"{_KINDS.get(kind, kind)} {number}")
    return tuple(dict.fromkeys(found))

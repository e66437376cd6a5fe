"""What a passage inside a table carries: the table's title and column headings.

A statement runs over several passages, and only the first holds its title
("Consolidated Statements of Cash Flows (in millions)") and the line of years
its columns are headed by; "Dividends paid (2,115) (1,905)" further down says
neither what it is a part of nor which year each figure is. ``heads`` gives each
line of a page the head in force there: the nearest line above whose numbers are
only the years (and dates) of column headings, with up to ``TITLE_LINES`` short
lines above it (the title, the unit). A heading or a line of prose ends a
table, and with it its head. The head is searched with the passage (BM25 and
its vector); the passage's stored text and boxes stay exactly its own. It is
used with ``PAPERTRAIL_TABLE_HEADS`` on (off by default: docs/retrieval.md says
what it finds and what it costs).

It reads only tables whose columns are headed by years or dates (statements,
year-on-year comparisons); columns headed by words ("Model", "BLEU") are left
out, as are heads on an earlier page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from papertrail.text.periods import heading_date_word, heading_year

TITLE_LINES = 3  # short lines above the column headings that title the table
TITLE_CHARS = 80  # a line longer than this is prose, not a title
HEAD_CHARS = 240  # the longest head carried
_PROSE = 60  # a line this long, ending a sentence, with under two figures, is prose
OTHER_WORDS = 4  # words of column headings that are neither a year nor a date's
_NUMBER = re.compile(r"\d[\d,.]*")
_BRACKETED = re.compile(r"\([^()]*\)")


def column_headings(text: str) -> bool:
    """``text`` heads columns by year: two or more years; besides them and a date's words
    ("Year Ended December 28, 2019 December 29, 2018") at most ``OTHER_WORDS`` words, each
    capitalised, outside brackets ("(in millions, except per share data)"). "Sales in
    2019 and 2018" is a sentence, not headings."""
    words = _BRACKETED.sub(" ", text).split()
    years = [w for w in words if heading_year(w.strip(",;:"))]
    other = [w for w in words if not heading_year(w.strip(",;:")) and not heading_date_word(w)]
    return (
        len(years) >= 2
        and len(other) <= OTHER_WORDS
        and not any(any(c.isdigit() for c in w) or w[:1].islower() for w in other)
    )


def _prose(text: str) -> bool:
    return (
        len(text) >= _PROSE
        and bool(re.search(r"[.!?](\s|$)", text))
        and len(_NUMBER.findall(text)) < 2
    )


def heads(lines: Sequence[str], opens: Sequence[bool] = ()) -> list[str]:
    """The head in force at each of a page's ``lines`` ("" outside a table): a line
    that ``opens`` (a heading) or is prose ends the table above it."""
    out: list[str] = []
    head = ""
    for i, text in enumerate(lines):
        if (opens and opens[i]) or _prose(text):
            head = ""
        elif column_headings(text):
            head = " ".join([*_title(lines[:i]), text])[:HEAD_CHARS]
        out.append(head)
    return out


def _title(above: Sequence[str]) -> list[str]:
    """Up to ``TITLE_LINES`` short lines right above a table's column headings."""
    title: list[str] = []
    for text in reversed(above[-TITLE_LINES:]):
        if len(text) > TITLE_CHARS or _prose(text) or column_headings(text):
            break
        title.insert(0, text)
    return title

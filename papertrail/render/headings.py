"""The column headings of a table row cited as evidence, found on the page above it.

A table row's figures mean nothing without their columns' headings (which of
"$ 596 $ 2,371 $ 3,033" is 2017?). The evidence carries the headings when
they are in the same chunk; when the chunk starts below them (a long
statement cut into passages), ``column_heading`` finds the nearest line of
years above the row on the page, over the row's figures, and returns the box
of those years, so the picture shows and marks them. It reads page words only;
it does not decide what a row says, and leaves text that runs sideways alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pymupdf

from papertrail.types import Rect

_YEAR = re.compile(r"^(?:FY)?(?:19|20)\d\d$")
_FIGURE = re.compile(r"^[($]*[-–]?\d[\d,.]*%?\)?$")
SAME_ROW = 3.0  # points: words whose middles are this close share a row
MIN_FIGURES = 2  # a row of fewer figures is a sentence, not a table row


def column_heading(page: pymupdf.Page, marked: Sequence[Rect]) -> Rect | None:
    """The box of the years heading the columns of the table row at the bottom of
    ``marked`` (the evidence, displayed-page points), or None when it is not a
    table row, no such line is above it, or the evidence already shows one."""
    if not marked:
        return None
    row = max(marked, key=lambda r: r.y1)
    rows = _rows(page)
    band = [w for w in _in_band(rows, row) if w[2] >= row.x0 - 1 and w[0] <= row.x1 + 1]
    figures = [w for w in band if _FIGURE.match(w[4])]
    if len(figures) < MIN_FIGURES:
        return None
    # the columns start after the row's label (and a "$" before the first figure)
    first, right = min(w[0] for w in figures), max(w[2] for w in figures)
    left = max((w[2] for w in band if w[2] <= first), default=row.x0)
    above = sorted((k for k in rows if k < row.y0 - 1), reverse=True)
    for y in above:
        years = [w for w in rows[y] if _YEAR.match(w[4])]
        numbers = [w for w in rows[y] if re.search(r"\d", w[4])]
        if len(years) < MIN_FIGURES or len(years) != len(numbers):
            continue
        over = [w for w in years if w[0] >= left - 1 and w[0] <= right + 2]
        if len(over) < MIN_FIGURES:
            continue
        box = Rect(
            min(w[0] for w in over),
            min(w[1] for w in over),
            max(w[2] for w in over),
            max(w[3] for w in over),
        )
        if any(_overlaps(box, r) for r in marked):
            return None  # the evidence shows its headings already
        return box
    return None


def _rows(page: pymupdf.Page) -> dict[float, list[tuple]]:
    """The page's upright words (displayed-page boxes) grouped by row, by middle height."""
    turn = page.rotation_matrix
    rows: dict[float, list[tuple]] = {}
    for w in page.get_text("words"):
        box = pymupdf.Rect(w[:4]) * turn
        word = (box.x0, box.y0, box.x1, box.y1, w[4])
        mid = (box.y0 + box.y1) / 2
        key = next((k for k in rows if abs(k - mid) <= SAME_ROW), mid)
        rows.setdefault(key, []).append(word)
    return rows


def _in_band(rows: dict[float, list[tuple]], r: Rect) -> list[tuple]:
    return [w for k, ws in rows.items() if r.y0 - 1 <= k <= r.y1 + 1 for w in ws]


def _overlaps(a: Rect, b: Rect) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1

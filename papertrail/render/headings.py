"""A cited table row as its picture should mark it: that row alone, under its column headings.

A table row's figures mean nothing without their columns' headings (which of
"$ 596 $ 2,371 $ 3,033" is 2017?), and a quote cut from a flattened table can
run over several rows. ``table_row`` takes the evidence boxes of a picture
and the claim they support; when one of the boxes is a table row (figures in
columns, set apart by wide gaps) holding the claim's figure, it keeps that
row only, and adds the nearest line of years above it on the page, over its
figures (``column_heading``), unless the evidence shows one already. Prose
evidence (no figures in columns) is returned as it came. It reads page words
only and decides nothing about what a row says; text that runs sideways is
left to the caller.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

import pymupdf

from papertrail.text.periods import heading_year, is_year
from papertrail.types import Rect

_FIGURE = re.compile(r"^[($£€¥]*[-–]?\d[\d,.]*%?\)?$")
_CLAIMED = re.compile(r"\d[\d,]*(?:\.\d+)?")
SAME_ROW = 3.0  # points: words whose middles are this close share a row
MIN_FIGURES = 2  # a row of fewer figures is a sentence, not a table row
COLUMN_GAP = 12.0  # points of blank between two words that sit in different columns
HEAD_GAP = 4.0  # points between the lines of one heading ("Year Ended" over "2017")

Word = tuple[float, float, float, float, str]  # x0, y0, x1, y1 on the displayed page, text


def table_row(
    page: pymupdf.Page,
    marked: Sequence[Rect],
    claim: str = "",
    words: Sequence[Word] | None = None,
) -> list[Rect]:
    """``marked`` narrowed to the table row holding ``claim``'s figure, with the years
    heading its columns; ``marked`` unchanged when it is no table row. ``words``: the
    page's ``page_words`` when the caller has read them."""
    rows = _rows(page, words)
    marked = list(marked)
    figures = _claimed(claim)
    holding = [r for r in marked if _is_table_row(_in(rows, r)) and figures & _values(rows, r)]
    if len(holding) == 1 and len(marked) > 1:  # the rest: other rows, or their headings
        marked = [r for r in marked if r == holding[0] or _years_only(_in(rows, r))]
    heading = column_heading(page, marked, rows)
    return marked + ([heading] if heading is not None else [])


def column_heading(
    page: pymupdf.Page, marked: Sequence[Rect], rows: dict[float, list[Word]] | None = None
) -> Rect | None:
    """The box of the years heading the columns of the table row at the bottom of
    ``marked`` (displayed-page points), with the heading lines set right above them
    over the same columns ("52 Weeks Ended", "August 29,"), or None when it is not a
    table row, no such line is above it, or the evidence shows one already."""
    if not marked:
        return None
    rows = _rows(page) if rows is None else rows
    row = max(marked, key=lambda r: r.y1)
    band = _in(rows, row)
    figures = [w for w in band if _FIGURE.match(w[4])]
    if not _is_table_row(band):
        return None
    # the columns start after the row's label (and a "$" before the first figure)
    first, right = min(w[0] for w in figures), max(w[2] for w in figures)
    left = max((w[2] for w in band if w[2] <= first), default=row.x0)
    for y in sorted((k for k in rows if k < row.y0 - 1), reverse=True):
        years = [w for w in rows[y] if heading_year(w[4]) and left - 1 <= w[0] <= right + 2]
        if len(years) < MIN_FIGURES or not _years_only(rows[y]):
            continue
        box = _box(years)
        for k in sorted((k for k in rows if k < y), reverse=True):  # "Year Ended December 31,"
            above = rows[k]
            near = box.y0 - max(w[3] for w in above) <= HEAD_GAP
            if not near or any(w[0] < left - 1 or w[2] > right + 2 for w in above):
                break
            box = box.union(_box(above))
        if any(_overlaps(box, r) for r in marked):
            return None  # the evidence shows its headings already
        return box
    return None


def _box(words: list[Word]) -> Rect:
    return Rect(
        min(w[0] for w in words),
        min(w[1] for w in words),
        max(w[2] for w in words),
        max(w[3] for w in words),
    )


def page_words(page: pymupdf.Page) -> list[Word]:
    """The page's words with their boxes on the displayed page, in reading order."""
    turn = page.rotation_matrix
    upright = page.rotation == 0  # the displayed page is the page: no box to transform
    out: list[Word] = []
    for w in page.get_text("words"):
        box = w[:4] if upright else tuple(pymupdf.Rect(w[:4]) * turn)
        out.append((box[0], box[1], box[2], box[3], w[4]))
    return out


def _rows(page: pymupdf.Page, words: Sequence[Word] | None = None) -> dict[float, list[Word]]:
    """The page's words (displayed-page boxes; ``page_words``) grouped by row, by middle
    height: a word joins the first row (in the order rows were met) whose middle is within
    ``SAME_ROW``."""
    rows: dict[float, list[Word]] = {}
    keys: list[tuple[float, int]] = []  # (row middle, order met), sorted: a few to compare
    for w in page_words(page) if words is None else words:
        mid = (w[1] + w[3]) / 2
        lo = bisect.bisect_left(keys, (mid - SAME_ROW, -1))
        near = [k for k in keys[lo : bisect.bisect_right(keys, (mid + SAME_ROW, len(keys)))]]
        key = min(near, key=lambda k: k[1])[0] if near else mid
        if not near:
            bisect.insort(keys, (mid, len(keys)))
        rows.setdefault(key, []).append(w)
    return rows


def _in(rows: dict[float, list[Word]], r: Rect) -> list[Word]:
    """The words of the row(s) ``r`` covers, within its left and right edges, in order."""
    words = [
        w
        for k, ws in rows.items()
        if r.y0 - 1 <= k <= r.y1 + 1
        for w in ws
        if w[2] >= r.x0 - 1 and w[0] <= r.x1 + 1
    ]
    return sorted(words)


def _is_table_row(words: list[Word]) -> bool:
    """Figures in columns: two or more, and a gap wider than a space between words."""
    if sum(bool(_FIGURE.match(w[4])) for w in words) < MIN_FIGURES:
        return False
    return any(b[0] - a[2] >= COLUMN_GAP for a, b in zip(words, words[1:], strict=False))


def _years_only(words: list[Word]) -> bool:
    numbers = [w for w in words if re.search(r"\d", w[4])]
    return bool(numbers) and all(heading_year(w[4].strip(",.")) for w in numbers)


def _claimed(claim: str) -> set[str]:
    """The figures a claim states, digits only ("$5,007 million": "5007"), years left out."""
    out = set()
    for m in _CLAIMED.findall(claim):
        if not is_year(m):
            whole, _, cents = m.partition(".")
            out.add(whole.replace(",", "") + (f".{cents}" if cents else ""))
    return out


def _values(rows: dict[float, list[Word]], r: Rect) -> set[str]:
    return _claimed(" ".join(w[4] for w in _in(rows, r)))


def _overlaps(a: Rect, b: Rect) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1

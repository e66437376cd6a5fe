"""Page furniture: the lines on a page's edges that are no part of its text.

A page number, a running header or footer, or a repository stamp printed
sideways in the margin can end up in a chunk next to the text it borders.
``is_furniture`` tells such a line from its place and length, so the picture
never marks it as evidence (nor stretches its crop to it). It does not remove
anything from the index or from the text.
"""

from __future__ import annotations

import pymupdf

from papertrail.types import Chunk, Rect

FURNITURE_BAND = 0.08  # share of the page height (width) at its edges where furniture sits
FURNITURE_WORDS = 8  # a line in that band with at most this many words is furniture


def is_furniture(chunk: Chunk, r: Rect, page: pymupdf.Rect) -> bool:
    """Whether ``r`` (a line of ``chunk``, or part of one) is page furniture: a short line
    in the top or bottom band of the page (a page number, a running header or footer) or
    a line running sideways along its left or right edge (a repository stamp)."""
    band_y, band_x = FURNITURE_BAND * page.height, FURNITURE_BAND * page.width
    edge_y = r.y1 <= page.y0 + band_y or r.y0 >= page.y1 - band_y
    edge_x = r.height > 2 * r.width and (r.x1 <= page.x0 + band_x or r.x0 >= page.x1 - band_x)
    if not (edge_y or edge_x):
        return False
    text = _line_text(chunk, r)
    return edge_x or text is None or len(text.split()) <= FURNITURE_WORDS


def _line_text(chunk: Chunk, r: Rect) -> str | None:
    """The text of the chunk line whose box holds ``r``'s centre; None when unknown."""
    if len(chunk.lines) != len(chunk.rects):
        return None
    x, y = (r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2
    ends = [*chunk.lines[1:], len(chunk.text)]
    for line, a, b in zip(chunk.rects, chunk.lines, ends, strict=True):
        if line.x0 <= x <= line.x1 and line.y0 <= y <= line.y1:
            return chunk.text[a:b]
    return None

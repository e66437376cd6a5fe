"""Snapping a citation's evidence boxes to the words on the PDF page.

``evidence.locate`` cuts a partial line (a sentence starting or ending
mid-line) in proportion to character counts, so its edge can fall inside a
glyph. ``snap_to_words`` moves each such inner edge to the edge of the word
it belongs to, read from the page's text layer: the span's first and last
words are found by counting words in the chunk's line text (exact when the
page splits the line into the same words), else by where the estimate put
their centres. Whole-line boxes, sideways lines and pages without a text layer
(OCR) keep their boxes; a snapped box never leaves its line's box.
It does not change which lines are evidence, nor the evidence text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import pymupdf

from papertrail.text.lines import is_rtl, line_starts
from papertrail.types import Chunk, Rect

EPS = 0.01  # points: an edge this close to its line's edge is the line's edge
BAND = 24.0  # points above and below the chunk's lines read for words (whole lines inside)
_WORD = re.compile(r"\S+")


def snap_to_words(
    page: pymupdf.Page,
    chunk: Chunk,
    rects: Sequence[Rect],
    page_words: Callable[[], Sequence[tuple]] | None = None,
) -> list[Rect]:
    """``rects`` (evidence boxes in ``chunk``'s frame) with inner edges on word edges.

    A partial box is read as ``evidence.locate`` cut it: its edges stand for
    character offsets into the line, in proportion to the line's width.
    ``page_words``: gives the page's words (``headings.page_words``, displayed-page
    boxes) when the caller reads them anyway; else only a band of the page is read.
    """
    starts = line_starts(chunk)
    ends = [*starts[1:], len(chunk.text)]
    words: list[Rect] | None = None  # the page's words, read once and only when needed
    out = []
    for r in rects:
        i = _line_of(chunk, r)
        line = chunk.rects[i] if i is not None else None
        if line is None or line.width < line.height or r.width >= line.width - EPS:
            out.append(r)
            continue
        if words is None:
            words = _words(page, _union(chunk.rects), page_words)
        inside = [w for w in words if _centre_in(w, line)]
        out.append(_snap(r, line, chunk.text[starts[i] : ends[i]], inside))
    return out


def _snap(r: Rect, line: Rect, text: str, words: list[Rect]) -> Rect:
    """``r``, a part of ``line`` (whose text is ``text``), widened/narrowed to whole ``words``."""
    if not words:
        return r
    rtl = is_rtl(text)
    words = sorted(words, key=lambda w: -w.x0 if rtl else w.x0)  # reading order
    tokens = [m.span() for m in _WORD.finditer(text)]
    chosen = []
    if len(tokens) == len(words):  # the page's words are the line's words: count them
        # invert chunking.line_part: the characters a..b of ``text`` the box was cut for
        lo, hi = (line.x1 - r.x1, line.x1 - r.x0) if rtl else (r.x0 - line.x0, r.x1 - line.x0)
        a, b = (round(v / line.width * max(1, len(text))) for v in (lo, hi))
        chosen = [w for w, (s, e) in zip(words, tokens, strict=True) if e > a and s < b]
    if not chosen:  # differently split (hyphens joined, ligatures): words centred in the box
        chosen = [w for w in words if r.x0 <= (w.x0 + w.x1) / 2 <= r.x1]
    if not chosen:
        return r
    x0 = min(w.x0 for w in chosen) if r.x0 > line.x0 + EPS else r.x0
    x1 = max(w.x1 for w in chosen) if r.x1 < line.x1 - EPS else r.x1
    return Rect(max(line.x0, x0), r.y0, min(line.x1, x1), r.y1)


def _line_of(chunk: Chunk, r: Rect) -> int | None:
    """The index of the chunk line ``r`` was cut from: same height, within its width."""
    for i, line in enumerate(chunk.rects):
        same_row = abs(line.y0 - r.y0) <= EPS and abs(line.y1 - r.y1) <= EPS
        if same_row and line.x0 - EPS <= r.x0 and r.x1 <= line.x1 + EPS:
            return i
    return None


def _words(page: pymupdf.Page, around: Rect, page_words=None) -> list[Rect]:
    """The word boxes on the displayed page (the chunk's frame) in the band of the page
    across ``around`` (the chunk's lines): the rest of the page is never read, unless
    ``page_words`` gives every word of it (then those touching the band are taken: the
    words of the chunk's lines, well inside it, are the same)."""
    band = pymupdf.Rect(page.rect.x0, around.y0 - BAND, page.rect.x1, around.y1 + BAND)
    if page_words is not None:
        if page.rotation:  # the band as drawn
            x0, y0, x1, y1 = around.x0 - BAND, around.y0 - BAND, around.x1 + BAND, around.y1 + BAND
            band = pymupdf.Rect(x0, y0, x1, y1)
        return [
            Rect(w[0], w[1], w[2], w[3])
            for w in page_words()
            if w[0] <= band.x1 and w[2] >= band.x0 and w[1] <= band.y1 and w[3] >= band.y0
        ]
    turn = page.rotation_matrix
    if page.rotation:  # the band as drawn, turned back into the page's own frame
        band = pymupdf.Rect(around.x0 - BAND, around.y0 - BAND, around.x1 + BAND, around.y1 + BAND)
        band = band * page.derotation_matrix
    out = []
    for w in page.get_text("words", clip=band):
        b = pymupdf.Rect(w[:4]) * turn if page.rotation else w
        out.append(Rect(b[0], b[1], b[2], b[3]))
    return out


def _union(rects: Sequence[Rect]) -> Rect:
    return Rect(
        min(r.x0 for r in rects),
        min(r.y0 for r in rects),
        max(r.x1 for r in rects),
        max(r.y1 for r in rects),
    )


def _centre_in(w: Rect, line: Rect) -> bool:
    x, y = (w.x0 + w.x1) / 2, (w.y0 + w.y1) / 2
    return line.x0 <= x <= line.x1 and line.y0 <= y <= line.y1

"""Rendering the page region a citation points to as a PNG with its evidence marked.

``render_snippet`` renders the displayed page with PyMuPDF at ``zoom`` and marks
it in two strengths (``marks``). With the citation's ``Evidence`` (the
sentence(s) or table row and column header that support the claim), the
evidence lines get a strong fill and an outline around each run of adjacent
lines, the rest of the chunk a faint fill for context, and the crop is centred
on the evidence, widened to show the whole chunk when it is not much taller.
A table row is marked alone (the one holding the claim's figure, when the quote
runs over several) with the years heading its columns, read from the page when
its chunk starts below them (``headings``). Without evidence every chunk line is marked
strongly, as the evidence. Page
furniture (a page number, a running header) is never marked (``furniture``).
The crop's top and bottom are moved, by at most ``SLACK``, to blank rows, so
no text line is cut in half. When the text runs sideways or upside down on the
displayed page (a landscape table on a portrait /Rotate page), the image is
turned so the text reads left to right. Width is capped at ``max_width`` and
height at ``MAX_HEIGHT`` by rendering at a lower zoom.

It does not annotate the PDF itself, draw citation numbers on the image, or
render more than one page per snippet.
"""

from __future__ import annotations

import logging

import numpy as np
import pymupdf
from PIL import Image

from papertrail.render.furniture import is_furniture
from papertrail.render.glyphs import snap_to_words
from papertrail.render.headings import page_words, table_row
from papertrail.render.marks import CONTEXT_FILL, FILL, OUTLINE, Box, Shades, blank_rows, mark
from papertrail.render.png import png_bytes
from papertrail.types import Chunk, Evidence, Rect, Snippet

log = logging.getLogger(__name__)

__all__ = ["CONTEXT_FILL", "FILL", "OUTLINE", "render_snippet"]
MAX_HEIGHT = 2400  # pixels: taller regions are rendered at a lower zoom
MIN_WIDTH = 320.0  # points: narrow chunks get horizontal context up to this width
PAD = 2.0  # points between a line's glyphs and its outline
MAX_SPREAD = 3.0  # the crop grows to show the whole chunk up to this many ``context``s a side
SLACK = 12.0  # points the crop's top or bottom may move to fall between two lines


def render_snippet(
    doc: pymupdf.Document,
    chunk: Chunk,
    *,
    n: int,
    zoom: float = 2.0,
    max_width: int = 1600,
    context: float = 36.0,
    evidence: Evidence | None = None,
    claim: str = "",
) -> Snippet:
    """A PNG of ``chunk``'s region on its page, ``evidence`` marked; ``n``: citation number;
    ``claim``: the sentence it supports (picks a table row's one row out of its quote)."""
    page = doc[chunk.page - 1]
    bounds = page.rect
    body = [r for r in _boxes(chunk.rects) if not is_furniture(chunk, r, bounds)]
    rects = body or _boxes(chunk.rects) or [_as_rect(bounds)]
    words: list = []  # the page's words, read once for both uses, when first needed

    def read_words() -> list:
        if not words:
            words.append(page_words(page))
        return words[0]

    marked = _boxes(snap_to_words(page, chunk, evidence.rects, read_words)) if evidence else []
    marked = [r for r in marked if not is_furniture(chunk, r, bounds)]
    if not marked:
        marked, rects = rects, []
    turn = _turn(page, _union(marked))
    if evidence and not turn:  # a table row: that row alone, with the years heading it
        marked = table_row(page, marked, claim, read_words())
    focus = _union(marked)
    sideways = turn in (90, 270)
    clip = _region(focus, _union(marked + rects), bounds, context, sideways=sideways)
    w, h = clip.width * zoom, clip.height * zoom
    if sideways:
        w, h = h, w
    z = zoom * min(1.0, max_width / max(w, 1.0), MAX_HEIGHT / max(h, 1.0))
    # a little more page above and below, so the crop can end between two lines
    slack = min(SLACK, context / 2)
    grow = (slack, 0, slack, 0) if sideways else (0, slack, 0, slack)
    shown = (clip + (-grow[0], -grow[1], grow[2], grow[3])) & bounds
    pix = page.get_pixmap(matrix=pymupdf.Matrix(z, z), clip=shown, alpha=False)
    size = (pix.width, pix.height)
    pixels = np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width, pix.n)
    if turn:
        pixels = np.ascontiguousarray(np.rot90(pixels, turn // 90))  # counter-clockwise

    def px(r: Rect) -> Box:
        return _to_image(r, shown, z, turn, size)

    shades = Shades.of(pixels)  # read once: where the crop ends and where the marks go
    top, bottom = _crop_rows(shades.ink, px(_as_rect(clip)), px(focus), slack * z)
    width = max(2, min(3, round(z)))  # 2-3 px: clear at any zoom, never hides the text
    marks = ([px(r) for r in marked], [px(r) for r in rects], PAD * z, width)
    pixels = mark(pixels, *marks, shades=shades)
    x0, _, x1, _ = px(_as_rect(clip))
    shown_px = pixels[top:bottom, max(0, round(x0)) : round(x1)]
    if shown_px.shape[1] > max_width:  # rounding in get_pixmap can add a pixel
        img = Image.fromarray(shown_px)
        img = img.resize((max_width, max(1, round(img.height * max_width / img.width))))
        shown_px = np.asarray(img)
    return Snippet(
        n=n,
        chunk_id=chunk.id,
        doc_name=chunk.doc_name,
        page=chunk.page,
        png=png_bytes(shown_px),
        width=shown_px.shape[1],
        height=shown_px.shape[0],
    )


def _crop_rows(ink: np.ndarray, clip: Box, focus: Box, slack: float) -> tuple[int, int]:
    """The first and end rows of the crop: blank rows nearest the clip's edges, within
    ``slack`` pixels and outside the evidence, so no line is cut in half."""
    blank = blank_rows(ink)
    h = ink.shape[0]
    top, bottom = max(0, round(clip[1])), min(h, round(clip[3]))

    def nearest(want: int, lo: float, hi: float) -> int | None:
        # the blank rows are sorted: those in [lo, hi] are one slice of them
        near = blank[np.searchsorted(blank, lo, "left") : np.searchsorted(blank, hi, "right")]
        if not len(near):
            return None
        return int(near[np.argmin(np.abs(near - want))])  # the first of two as near

    t = nearest(top, top - slack, min(top + slack, focus[1] - 1))
    b = nearest(bottom - 1, max(bottom - 1 - slack, focus[3] + 1), bottom - 1 + slack)
    return (top if t is None else t), (bottom if b is None else b + 1)


def _to_image(r: Rect, clip: pymupdf.Rect, z: float, turn: int, size: tuple[int, int]) -> Box:
    """``r`` (points on the page) in pixels of the picture rendered from ``clip`` at ``z``
    (``size`` before turning) and turned ``turn`` degrees counter-clockwise."""
    w, h = size
    x0, y0, x1, y1 = (
        (r.x0 - clip.x0) * z,
        (r.y0 - clip.y0) * z,
        (r.x1 - clip.x0) * z,
        (r.y1 - clip.y0) * z,
    )
    if turn == 90:
        return (y0, w - x1, y1, w - x0)
    if turn == 180:
        return (w - x1, h - y1, w - x0, h - y0)
    if turn == 270:
        return (h - y1, x0, h - y0, x1)
    return (x0, y0, x1, y1)


def _region(
    focus: Rect, chunk: Rect, page: pymupdf.Rect, context: float, *, sideways: bool
) -> pymupdf.Rect:
    """The clip centred on ``focus`` (the evidence): ``context`` points before and after
    its lines, grown evenly to take in the whole ``chunk`` up to ``MAX_SPREAD`` times
    that, as wide as the chunk's lines (plus a little), widened to ``MIN_WIDTH`` for a
    short line, kept on the page."""
    if sideways:  # work in the frame where lines run along x
        focus, chunk = _swap(focus), _swap(chunk)
    below = max(context, min(MAX_SPREAD * context, max(focus.y0 - chunk.y0, chunk.y1 - focus.y1)))
    x0, x1 = min(focus.x0, chunk.x0) - context / 2, max(focus.x1, chunk.x1) + context / 2
    r = Rect(x0, focus.y0 - below, x1, focus.y1 + below)
    r = _swap(r) if sideways else r
    r = pymupdf.Rect(r.x0, r.y0, r.x1, r.y1)
    r = _widen(r, page, vertical=sideways) & page
    return r if not r.is_empty else pymupdf.Rect(page)


def _widen(r: pymupdf.Rect, page: pymupdf.Rect, *, vertical: bool) -> pymupdf.Rect:
    """Grow ``r`` to ``MIN_WIDTH`` along the text direction, centred, within the page."""
    lo, hi = (r.y0, r.y1) if vertical else (r.x0, r.x1)
    start, end = (page.y0, page.y1) if vertical else (page.x0, page.x1)
    need = min(MIN_WIDTH, end - start) - (hi - lo)
    if need > 0:
        lo, hi = lo - need / 2, hi + need / 2
        shift = max(0.0, start - lo) - max(0.0, hi - end)
        lo, hi = lo + shift, hi + shift
    if vertical:
        return pymupdf.Rect(r.x0, lo, r.x1, hi)
    return pymupdf.Rect(lo, r.y0, hi, r.y1)


def _turn(page: pymupdf.Page, union: Rect) -> int:
    """Degrees (counter-clockwise) to turn the image so the text in ``union`` reads upright."""
    clip = pymupdf.Rect(union.x0, union.y0, union.x1, union.y1) * page.derotation_matrix
    a, b, c, d = tuple(page.rotation_matrix)[:4]
    votes: dict[int, int] = {}
    for block in page.get_text("dict", clip=clip, flags=0)["blocks"]:
        for ln in block.get("lines", ()):
            if ln.get("wmode"):  # CJK vertical writing is upright as it is
                continue
            dx, dy = ln["dir"]
            sx, sy = a * dx + c * dy, b * dx + d * dy  # direction on the displayed page
            turn = 0 if sx > 0.7 else 180 if sx < -0.7 else 90 if sy > 0 else 270
            votes[turn] = votes.get(turn, 0) + sum(len(s["text"]) for s in ln["spans"])
    return max(votes, key=votes.get) if votes else 0


def _as_rect(r: pymupdf.Rect) -> Rect:
    return Rect(r.x0, r.y0, r.x1, r.y1)


def _boxes(rects) -> list[Rect]:
    return [r for r in rects if r.width > 0 and r.height > 0]


def _union(rects: list[Rect]) -> Rect:
    u = rects[0]
    for r in rects[1:]:
        u = u.union(r)
    return u


def _swap(r: Rect) -> Rect:
    return Rect(r.y0, r.x0, r.y1, r.x1)

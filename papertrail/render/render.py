"""Rendering the page region a citation points to as a PNG with its evidence marked.

``render_snippet`` renders the displayed page with PyMuPDF at ``zoom`` and marks
it with Pillow in two strengths. With the citation's ``Evidence`` (the
sentence(s) or table row and column header that support the claim), the
evidence lines get a strong fill and an outline around each run of adjacent
lines, the rest of the chunk a faint fill for context, and the crop is centred
on the evidence, widened to show the whole chunk when it is not much taller.
Without evidence every chunk line is marked strongly, as the evidence. When
the text runs sideways or upside down on the displayed page (a landscape table
on a portrait /Rotate page), the image is turned so the text reads left to
right. Width is capped at ``max_width`` and
height at ``MAX_HEIGHT`` by rendering at a lower zoom.

It does not annotate the PDF itself, draw citation numbers on the image, or
render more than one page per snippet.
"""

from __future__ import annotations

import io
import logging

import pymupdf
from PIL import Image, ImageChops, ImageDraw

from papertrail.render.glyphs import snap_to_words
from papertrail.types import Chunk, Evidence, Rect, Snippet

log = logging.getLogger(__name__)

# Fills are multiplied into the page like a highlighter pen: glyphs stay black.
FILL = (255, 208, 112)  # strong yellow for the evidence; glyphs stay the darkest pixels
CONTEXT_FILL = (255, 246, 205)  # the rest of the chunk: a faint wash, no outline
OUTLINE = (230, 70, 0)  # orange-red, visible on white, black and yellow
MAX_HEIGHT = 2400  # pixels: taller regions are rendered at a lower zoom
MIN_WIDTH = 320.0  # points: narrow chunks get horizontal context up to this width
PAD = 2.0  # points between a line's glyphs and its outline
MAX_SPREAD = 3.0  # the crop grows to show the whole chunk up to this many ``context``s a side


def render_snippet(
    doc: pymupdf.Document,
    chunk: Chunk,
    *,
    n: int,
    zoom: float = 2.0,
    max_width: int = 1600,
    context: float = 36.0,
    evidence: Evidence | None = None,
) -> Snippet:
    """A PNG of ``chunk``'s region on its page, ``evidence`` marked; ``n``: citation number."""
    page = doc[chunk.page - 1]
    bounds = page.rect
    rects = _boxes(chunk.rects) or [_as_rect(bounds)]
    marked = _boxes(snap_to_words(page, chunk, evidence.rects)) if evidence else []
    if not marked:
        marked, rects = rects, []
    focus = _union(marked)
    turn = _turn(page, focus)
    clip = _region(focus, _union(marked + rects), bounds, context, sideways=turn in (90, 270))
    w, h = clip.width * zoom, clip.height * zoom
    if turn in (90, 270):
        w, h = h, w
    z = zoom * min(1.0, max_width / max(w, 1.0), MAX_HEIGHT / max(h, 1.0))
    pix = page.get_pixmap(matrix=pymupdf.Matrix(z, z), clip=clip, alpha=False)
    img = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    _highlight(img, marked, rects, clip, z)
    if turn:
        img = img.rotate(turn, expand=True)
    if img.width > max_width:  # rounding in get_pixmap can add a pixel
        img = img.resize((max_width, max(1, round(img.height * max_width / img.width))))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return Snippet(
        n=n,
        chunk_id=chunk.id,
        doc_name=chunk.doc_name,
        page=chunk.page,
        png=buf.getvalue(),
        width=img.width,
        height=img.height,
    )


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


def _highlight(
    img: Image.Image, marked: list[Rect], context: list[Rect], clip: pymupdf.Rect, z: float
) -> None:
    """A faint fill on the ``context`` lines, then a strong fill on the ``marked``
    ones (replacing the faint one where they overlap) and one outline around the
    shape each run of them makes: a sentence ending mid-line is outlined as a
    text selection is, not as the rectangle around its lines."""

    def px(r: list[float]) -> tuple[float, float, float, float]:
        return (
            (r[0] - clip.x0) * z,
            (r[1] - clip.y0) * z,
            (r[2] - clip.x0) * z,
            (r[3] - clip.y0) * z,
        )

    layer = Image.new("RGB", img.size, (255, 255, 255))
    fill = ImageDraw.Draw(layer)
    for r in context:
        fill.rectangle(px([r.x0, r.y0, r.x1, r.y1]), fill=CONTEXT_FILL)
    for r in marked:
        fill.rectangle(px([r.x0, r.y0, r.x1, r.y1]), fill=FILL)
    img.paste(ImageChops.multiply(img, layer))
    width = max(2, min(3, round(z)))  # 2-3 px: clear at any zoom, never hides the text
    boxes = _closed(marked, overlap=width / z)
    edges = Image.new("L", img.size, 0)
    draw = ImageDraw.Draw(edges)
    for r in boxes:  # every box's outline, then each box's inside wiped: the union's border
        draw.rectangle(px(r), outline=255, width=width)
    for r in boxes:
        x0, y0, x1, y1 = px(r)
        if x1 - x0 > 2 * width and y1 - y0 > 2 * width:
            draw.rectangle((x0 + width, y0 + width, x1 - width, y1 - width), fill=0)
    img.paste(OUTLINE, mask=edges)


def _closed(rects: list[Rect], overlap: float) -> list[list[float]]:
    """The boxes padded by ``PAD``, each pair of neighbouring lines grown to overlap by
    ``overlap`` points across the gap between them, so a run outlines as one shape."""
    boxes = [[r.x0 - PAD, r.y0 - PAD, r.x1 + PAD, r.y1 + PAD] for r in rects]
    for i, a in enumerate(rects):
        for j, b in enumerate(rects):
            if i == j or not _touch(a, b):
                continue
            for lo, hi in ((1, 3), (0, 2)):  # stacked lines (top to bottom), then side by side
                across = (0, 2) if lo == 1 else (1, 3)
                if min(boxes[i][across[1]], boxes[j][across[1]]) <= max(
                    boxes[i][across[0]], boxes[j][across[0]]
                ):
                    continue  # no overlap across: not neighbours in this direction
                if boxes[i][lo] < boxes[j][lo] and boxes[i][hi] < boxes[j][hi]:
                    mid = (boxes[i][hi] + boxes[j][lo]) / 2
                    boxes[i][hi] = max(boxes[i][hi], mid + overlap)
                    boxes[j][lo] = min(boxes[j][lo], mid - overlap)
    return boxes


def _touch(a: Rect, b: Rect) -> bool:
    tol = 0.8 * min(a.width, a.height, b.width, b.height)
    return max(a.x0 - b.x1, b.x0 - a.x1) <= tol and max(a.y0 - b.y1, b.y0 - a.y1) <= tol


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

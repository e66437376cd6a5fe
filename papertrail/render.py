"""Rendering the page region a citation points to as a PNG with its lines outlined.

``render_snippet`` crops the displayed page around the chunk's line boxes (plus
some context above and below), renders it with PyMuPDF at ``zoom``, fills each
line with translucent yellow and outlines each run of adjacent lines in a
strong colour with Pillow. When the text runs sideways or upside down on the
displayed page (a landscape table on a portrait /Rotate page), the image is
turned so the text reads left to right. Width is capped at ``max_width`` and
height at ``MAX_HEIGHT`` by rendering at a lower zoom.

It does not annotate the PDF itself, draw citation numbers on the image, or
render more than one page per snippet.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping

import pymupdf
from PIL import Image, ImageDraw

from papertrail.pdf import open_document
from papertrail.types import Chunk, Rect, Snippet

log = logging.getLogger(__name__)

FILL = (255, 221, 0, 90)  # translucent highlighter yellow (RGBA)
OUTLINE = (230, 70, 0)  # orange-red, visible on white, black and yellow
MAX_HEIGHT = 2400  # pixels: taller regions are rendered at a lower zoom
MIN_WIDTH = 320.0  # points: narrow chunks get horizontal context up to this width
PAD = 2.0  # points between a line's glyphs and its outline


def render_snippet(
    doc: pymupdf.Document,
    chunk: Chunk,
    *,
    n: int,
    zoom: float = 2.0,
    max_width: int = 1600,
    context: float = 36.0,
) -> Snippet:
    """A PNG of ``chunk``'s region on its page, lines highlighted; ``n`` is the citation number."""
    page = doc[chunk.page - 1]
    bounds = page.rect
    rects = [r for r in chunk.rects if r.width > 0 and r.height > 0] or [_as_rect(bounds)]
    union = rects[0]
    for r in rects[1:]:
        union = union.union(r)
    turn = _turn(page, union)
    clip = _region(union, bounds, context, sideways=turn in (90, 270))
    w, h = clip.width * zoom, clip.height * zoom
    if turn in (90, 270):
        w, h = h, w
    z = zoom * min(1.0, max_width / max(w, 1.0), MAX_HEIGHT / max(h, 1.0))
    pix = page.get_pixmap(matrix=pymupdf.Matrix(z, z), clip=clip, alpha=False)
    img = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    _highlight(img, rects, clip, z)
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


def render_snippets(
    data: bytes,
    chunks_by_n: Mapping[int, Chunk],
    *,
    password: str | None = None,
    zoom: float = 2.0,
    max_width: int = 1600,
    context: float = 36.0,
) -> list[Snippet]:
    """One snippet per distinct chunk (numbered by its lowest ``n``), opening the PDF once."""
    out: list[Snippet] = []
    seen: set[str] = set()
    with open_document(data, password) as doc:
        for n in sorted(chunks_by_n):
            chunk = chunks_by_n[n]
            if chunk.id in seen:
                continue
            seen.add(chunk.id)
            try:
                out.append(
                    render_snippet(doc, chunk, n=n, zoom=zoom, max_width=max_width, context=context)
                )
            except Exception:  # a missing picture must not cost the other citations
                log.exception("rendering page %d of %s failed", chunk.page, chunk.doc_name)
    return out


def _region(union: Rect, page: pymupdf.Rect, context: float, *, sideways: bool) -> pymupdf.Rect:
    """The clip around ``union``: ``context`` points before and after the lines, less
    along them, widened to ``MIN_WIDTH`` for a short line, kept on the page."""
    across, along = (context / 2, context) if not sideways else (context, context / 2)
    r = pymupdf.Rect(union.x0 - across, union.y0 - along, union.x1 + across, union.y1 + along)
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


def _highlight(img: Image.Image, rects: list[Rect], clip: pymupdf.Rect, z: float) -> None:
    """Yellow fill on every line, an outline around each run of adjacent lines."""

    def px(r: Rect, pad: float = 0.0) -> tuple[float, float, float, float]:
        return (
            (r.x0 - pad - clip.x0) * z,
            (r.y0 - pad - clip.y0) * z,
            (r.x1 + pad - clip.x0) * z,
            (r.y1 + pad - clip.y0) * z,
        )

    layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
    fill = ImageDraw.Draw(layer)
    for r in rects:
        fill.rectangle(px(r), fill=FILL)
    img.paste(Image.alpha_composite(img.convert("RGBA"), layer).convert("RGB"))
    draw = ImageDraw.Draw(img)
    width = max(2, min(3, round(z)))  # 2-3 px: clear at any zoom, never hides the text
    for g in _runs(rects):
        draw.rectangle(px(g, PAD), outline=OUTLINE, width=width)


def _runs(rects: list[Rect]) -> list[Rect]:
    """Merge line boxes that touch or stack closely (one paragraph, one column) into runs.

    Works whichever way the lines run on the displayed page: two boxes merge
    when the gap between them is under a line's thickness in both directions.
    """
    runs = list(rects)
    while True:  # passes of greedy merging until nothing touches (usually two)
        out: list[Rect] = []
        for r in sorted(runs, key=lambda r: (r.y0, r.x0)):
            for i, g in enumerate(out):
                if _touch(g, r):
                    out[i] = g.union(r)
                    break
            else:
                out.append(r)
        if len(out) == len(runs):
            return out
        runs = out


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

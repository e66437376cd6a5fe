"""papertrail.render: the picture's marks never hide text, cut lines or mark furniture.

Each test reads the pixels back: the snippet is found on an unmarked render of
the whole page (by correlating their glyphs), so every outline pixel can be
checked against the ink the page had there.
"""

from __future__ import annotations

import numpy as np
import pymupdf
import pytest
from scipy.signal import fftconvolve

from papertrail.read.pdf import open_document
from papertrail.render.marks import OUTLINE, OUTLINE_ALT
from papertrail.render.render import render_snippet
from papertrail.types import Evidence, Rect
from tests import pdfs
from tests.papertrail.render.test_render import chunks_of, pixels

ZOOM = 2.0


def dark(img: np.ndarray) -> np.ndarray:
    """Glyph pixels: dark whatever fill or band lies under them (the outline is no glyph)."""
    return (img.astype(int).mean(axis=2) < 100) & ~outline(img)


def outline(img: np.ndarray) -> np.ndarray:
    return np.all(img == OUTLINE, axis=2) | np.all(img == OUTLINE_ALT, axis=2)


def page_pixels(data: bytes, page: int = 1) -> np.ndarray:
    with open_document(data) as doc:
        pix = doc[page - 1].get_pixmap(matrix=pymupdf.Matrix(ZOOM, ZOOM), alpha=False)
    return np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width, 3)


def place(snip: np.ndarray, page: np.ndarray) -> tuple[int, int]:
    """Where (x, y) the snippet's top-left pixel lies on the page render."""
    a, b = dark(page).astype(float), dark(snip).astype(float)
    score = fftconvolve(a, b[::-1, ::-1], mode="valid")
    y, x = np.unravel_index(np.argmax(score), score.shape)
    h, w = b.shape
    assert (dark(page[y : y + h, x : x + w]) == dark(snip)).mean() > 0.99  # found it
    return int(x), int(y)


def render(data: bytes, chunk, marked: list[Rect] | None, **kw) -> np.ndarray:
    evidence = Evidence("(the span)", tuple(marked)) if marked is not None else None
    with open_document(data) as doc:
        return pixels(render_snippet(doc, chunk, n=1, zoom=ZOOM, evidence=evidence, **kw).png)


def test_the_outline_never_crosses_a_glyph_when_evidence_starts_and_ends_mid_line():
    data = pdfs.tight_paragraph_pdf()
    chunk = chunks_of(data)[0]
    a, b, c, d = chunk.rects[1:5]
    assert b.y0 < a.y1  # set solid: the line boxes overlap, so padding alone cannot work
    marked = [Rect((a.x0 + a.x1) / 2, a.y0, a.x1, a.y1), b, c, Rect(d.x0, d.y0, 250, d.y1)]
    img = render(data, chunk, marked)
    page = page_pixels(data)
    x, y = place(img, page)
    ink = page[y : y + img.shape[0], x : x + img.shape[1]].astype(int).mean(axis=2) < 160
    edge = outline(img)
    assert edge.sum() > 1000  # an outline was drawn
    assert not (edge & ink).any()  # and none of it lies on a glyph of any line
    # it still goes round the evidence: above the first line's words, under the last's
    rows = np.nonzero(edge.any(axis=1))[0]
    assert rows.min() + y < (a.y0 + 4) * ZOOM and rows.max() + y > (d.y1 - 4) * ZOOM


@pytest.mark.parametrize("line", [2, 5, 8, 11, 14])
@pytest.mark.parametrize("context", [20.0, 36.0])
def test_the_crop_never_cuts_a_line_in_half(line, context):
    data = pdfs.long_block_pdf()
    chunk = max(chunks_of(data), key=lambda c: len(c.rects))
    img = render(data, chunk, [chunk.rects[min(line, len(chunk.rects) - 1)]], context=context)
    glyphs = dark(img)
    assert glyphs.any(axis=1).sum() > 40  # lines are in the picture
    assert not glyphs[0].any() and not glyphs[-1].any()  # but none crosses its edges


def test_a_page_number_is_never_marked_as_evidence():
    data = pdfs.paper_pdf()
    chunk = next(c for c in chunks_of(data) if c.text.endswith("results on translation. 1"))
    number = chunk.rects[-1]
    assert number.y0 > 700  # the page number, at the foot of the page
    page = page_pixels(data)
    for marked in (None, list(chunk.rects)):  # the whole chunk as evidence, either way
        img = render(data, chunk, marked)
        x, y = place(img, page)
        x0, y0 = round(number.x0 * ZOOM) - x - 8, round(number.y0 * ZOOM) - y - 8
        x1, y1 = round(number.x1 * ZOOM) - x + 8, round(number.y1 * ZOOM) - y + 8
        around = img[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)]
        if around.size:  # shown as context it may be, but neither outlined nor filled
            assert not outline(around).any()
            assert (around.astype(int).min(axis=2) > 240).mean() > 0.9
        assert outline(img).any()  # the text above it is marked


@pytest.mark.parametrize("band", ["green", "red"])
def test_the_mark_stays_readable_on_a_coloured_band(band):
    data = pdfs.banded_table_pdf()
    label = "Net revenue" if band == "green" else "Cost of sales"
    chunk = next(c for c in chunks_of(data) if label in c.text)
    with open_document(data) as doc:
        words = doc[0].get_text("words")
    first = label.split()[0]
    wy = next((w[1] + w[3]) / 2 for w in words if w[4] == first)
    row = next(r for r in chunk.rects if r.y0 <= wy <= r.y1)
    img = render(data, chunk, [row])
    page = page_pixels(data)
    x, y = place(img, page)
    colour = np.array(pdfs.BANDS[band]) * 255
    was_band = np.all(np.abs(page.astype(int) - colour) < 8, axis=2)
    was_band = was_band[y : y + img.shape[0], x : x + img.shape[1]]
    inside = img[round(row.y0 * ZOOM) - y + 3 : round(row.y1 * ZOOM) - y - 3]
    inside_band = was_band[round(row.y0 * ZOOM) - y + 3 : round(row.y1 * ZOOM) - y - 3]
    marked = inside[inside_band].astype(int)
    assert len(marked) > 500
    r, g, b = np.median(marked, axis=0)
    assert r > 235 and 175 < g < 235 and r - b > 90  # yellow, not olive or orange
    edge = img[outline(img)].astype(int)
    assert len(edge)
    distance = np.linalg.norm(np.median(edge, axis=0) - colour)
    assert distance > 150  # the outline stands out from the band it is drawn on

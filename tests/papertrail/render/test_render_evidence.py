"""papertrail.render.render with a citation's Evidence: the span stands out, the crop holds it.

Everything is read back from the pixels of a page built with PyMuPDF: where the
outline colour is, how strongly each line is tinted.
"""

from __future__ import annotations

import numpy as np

from papertrail.read.pdf import open_document
from papertrail.render.glyphs import snap_to_words
from papertrail.render.render import OUTLINE, PAD, render_snippet
from papertrail.types import Evidence, Rect
from tests import pdfs
from tests.papertrail.render.test_render import chunks_of, pixels, union

ZOOM = 2.0


def long_paragraph() -> bytes:
    text = " ".join(
        f"Sentence {i} of the paragraph says one plain thing about the harbour." for i in range(30)
    )
    return pdfs.simple_pdf([text])


def render(data: bytes, chunk, marked: list[Rect]):
    evidence = Evidence(text="(the span)", rects=tuple(marked))
    with open_document(data) as doc:
        snip = render_snippet(doc, chunk, n=1, zoom=ZOOM, evidence=evidence)
    return pixels(snip.png)


def outline_mask(img: np.ndarray) -> np.ndarray:
    return np.all(img == OUTLINE, axis=2)


def to_px(r: Rect, origin: tuple[float, float], pad: float = 0.0) -> tuple[int, int, int, int]:
    """A box in points as pixel bounds, given where the crop's top-left corner lies (points)."""
    ox, oy = origin
    return (
        round((r.x0 - pad - ox) * ZOOM),
        round((r.y0 - pad - oy) * ZOOM),
        round((r.x1 + pad - ox) * ZOOM),
        round((r.y1 + pad - oy) * ZOOM),
    )


def crop_origin(img: np.ndarray, marked: list[Rect]) -> tuple[float, float]:
    """The crop's top-left corner in points, from where the evidence outline was drawn."""
    ys, xs = np.nonzero(outline_mask(img))
    assert len(xs), "no outline drawn"
    u = union(marked)
    return u.x0 - PAD - xs.min() / ZOOM, u.y0 - PAD - ys.min() / ZOOM


def assert_outlined_inside(img: np.ndarray, boxes: list[Rect], origin) -> None:
    """The outline around stacked ``boxes`` is all in the picture: the top of the first,
    the bottom of the last and the sides of each (a run is outlined as one shape)."""
    h, w = img.shape[:2]
    mask = outline_mask(img)
    px = [to_px(r, origin, PAD) for r in boxes]
    for x0, y0, x1, y1 in px:  # Pillow draws the far edges on pixel x1 and y1 themselves
        assert min(x0, y0) >= 0 and x1 < w and y1 < h, "evidence box outside the crop"
        for side in (mask[y0:y1, x0 : x0 + 3], mask[y0:y1, x1 - 2 : x1 + 1]):
            assert side.any(axis=1).mean() > 0.7  # left and right edges drawn
    (x0, y0, x1, _), (a0, _, a1, y1) = px[0], px[-1]
    assert mask[y0 : y0 + 3, x0:x1].any(axis=0).mean() > 0.95  # top edge
    assert mask[y1 - 2 : y1 + 1, a0:a1].any(axis=0).mean() > 0.95  # bottom edge


def tint(img: np.ndarray, r: Rect, origin) -> float:
    """How strongly a line is highlighted: 255 minus the blue of its blank pixels (white: 0)."""
    x0, y0, x1, y1 = to_px(r, origin)
    box = img[y0 + 3 : y1 - 3, x0 + 3 : x1 - 3].reshape(-1, 3).astype(int)
    blank = box[box[:, :2].min(axis=1) > 200]  # not glyph ink (red and green stay high)
    return 255 - float(np.median(blank[:, 2]))


def test_evidence_lines_stand_out_from_the_rest_of_the_chunk():
    data = long_paragraph()
    chunk = next(c for c in chunks_of(data) if len(c.rects) >= 6)
    marked = list(chunk.rects[2:4])
    img = render(data, chunk, marked)
    origin = crop_origin(img, marked)
    assert_outlined_inside(img, marked, origin)
    ys, xs = np.nonzero(outline_mask(img))
    top, bottom = to_px(union(marked), origin, PAD)[1], to_px(union(marked), origin, PAD)[3]
    assert ys.min() >= top - 1 and ys.max() <= bottom + 1  # only the evidence is outlined
    strong = [tint(img, r, origin) for r in marked]
    faint = [tint(img, r, origin) for r in chunk.rects if r not in marked]
    assert min(strong) > 2 * max(faint)  # the evidence is tinted far more than its context
    assert min(faint) > 10  # and the context is still marked, lightly
    outside = img[: max(1, to_px(chunk.rects[0], origin)[1] - 4)]
    assert 255 - np.median(outside[..., 2]) < 3  # above the chunk: plain white page


def test_the_crop_is_centred_on_the_evidence():
    data = long_paragraph()
    chunk = max(chunks_of(data), key=lambda c: len(c.rects))
    marked = [chunk.rects[-1]]  # the chunk's last line: the crop must not cut it off
    img = render(data, chunk, marked)
    origin = crop_origin(img, marked)
    assert_outlined_inside(img, marked, origin)
    x0, y0, x1, y1 = to_px(marked[0], origin, PAD)
    above, below = y0, img.shape[0] - y1
    assert abs(above - below) <= 4 or below < above  # centred, unless the page ends first
    assert below >= 30 * ZOOM  # enough context after the line to read on


def test_a_table_figure_marks_its_row_and_its_column_header():
    data = pdfs.table_pdf()
    chunk = next(c for c in chunks_of(data) if "Operating income" in c.text)
    with open_document(data) as doc:
        blocks = doc[0].get_text("dict")["blocks"]
    lines = [ln for b in blocks for ln in b.get("lines", ())]
    header_y = next(ln["bbox"][1] for ln in lines if "2022" in ln["spans"][0]["text"])
    header = next(r for r in chunk.rects if abs(r.y0 - header_y) < 6)
    row = next(r for r in chunk.rects if r.y0 > header.y1 + 40)  # far from the header
    img = render(data, chunk, [header, row])
    origin = crop_origin(img, [header, row])
    for r in (header, row):
        assert_outlined_inside(img, [r], origin)
    between = [r for r in chunk.rects if header.y1 < r.y0 and r.y1 < row.y0]
    assert between
    assert all(tint(img, r, origin) < tint(img, row, origin) / 2 for r in between)


def test_a_sentence_ending_mid_line_is_outlined_as_a_selection_not_a_box():
    data = long_paragraph()
    chunk = next(c for c in chunks_of(data) if len(c.rects) >= 6)
    a, b, c = chunk.rects[1:4]
    mid = (a.x0 + a.x1) / 2
    marked = [Rect(mid, a.y0, a.x1, a.y1), b, Rect(c.x0, c.y0, mid, c.y1)]
    img = render(data, chunk, marked)
    with open_document(data) as doc:  # drawn with the mid-line edges moved to word edges
        marked = snap_to_words(doc[0], chunk, marked)
    origin = crop_origin(img, marked)
    assert_outlined_inside(img, marked, origin)
    mask = outline_mask(img)
    x0, y0, _, _ = to_px(a, origin, PAD)
    xm = to_px(marked[0], origin, PAD)[0]
    assert not mask[y0 : y0 + 3, x0 + 4 : xm - 4].any()  # no edge over the line's first half
    _, _, x1, y1 = to_px(c, origin, PAD)
    xm = to_px(marked[2], origin, PAD)[2]
    assert not mask[y1 - 2 : y1 + 1, xm + 4 : x1 - 4].any()  # nor under the last line's rest

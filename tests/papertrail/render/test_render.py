"""papertrail.render.render: valid PNGs, size caps, outlines on the right lines, upright text."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from papertrail.read.chunking import chunk_blocks
from papertrail.read.pdf import open_document, read_pdf
from papertrail.render.citations import render_snippets
from papertrail.render.render import MAX_HEIGHT, OUTLINE, PAD, render_snippet
from papertrail.settings import Settings
from papertrail.types import Chunk, Rect
from tests import pdfs


def chunks_of(data: bytes, password: str | None = None, **kw) -> list[Chunk]:
    blocks = read_pdf(data, Settings(), password=password).blocks
    return chunk_blocks(blocks, doc_id="f" * 64, doc_name="doc.pdf", **kw)


def pixels(png: bytes) -> np.ndarray:
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG"
    return np.asarray(img.convert("RGB"))


def outline_box(img: np.ndarray) -> tuple[int, int, int, int]:
    """Bounding box (x0, y0, x1, y1) of the pixels in the outline colour."""
    ys, xs = np.nonzero(np.all(img == OUTLINE, axis=2))
    assert len(xs) > 0, "no outline drawn"
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def union(rects) -> Rect:
    u = rects[0]
    for r in rects[1:]:
        u = u.union(r)
    return u


def test_snippet_is_a_png_with_the_chunk_outlined():
    data = pdfs.paper_pdf()
    chunk = next(c for c in chunks_of(data) if "N = 6" in c.text)
    with open_document(data) as doc:
        snip = render_snippet(doc, chunk, n=2, zoom=2.0, context=36.0)
    img = pixels(snip.png)
    assert (snip.width, snip.height) == (img.shape[1], img.shape[0])
    assert (snip.n, snip.page, snip.chunk_id, snip.doc_name) == (2, 2, chunk.id, "doc.pdf")
    x0, y0, x1, y1 = outline_box(img)
    u = union(chunk.rects)
    # the outline wraps the chunk's lines (plus padding) at the zoom factor
    assert abs((x1 - x0) - (u.width + 2 * PAD) * 2) <= 6
    assert abs((y1 - y0) - (u.height + 2 * PAD) * 2) <= 6
    assert y0 >= (36 - PAD) * 2 - 4  # context above the lines is shown
    inside = img[y0 + 4 : y1 - 4, x0 + 4 : x1 - 4]
    assert (inside.min(axis=2) < 100).mean() > 0.03  # the text is in the box
    yellowish = (inside[..., 0] > 200) & (inside[..., 1] > 190) & (inside[..., 2] < 200)
    assert yellowish.mean() > 0.5  # highlighted
    outside = np.concatenate([img[: max(0, y0 - 2)], img[y1 + 2 :]])
    yellow_out = (outside[..., 0] > 200) & (outside[..., 1] > 190) & (outside[..., 2] < 200)
    assert yellow_out.mean() < 0.01


def test_width_is_capped():
    data = pdfs.paper_pdf()
    chunk = chunks_of(data)[1]
    with open_document(data) as doc:
        snip = render_snippet(doc, chunk, n=1, zoom=4.0, max_width=300)
    assert snip.width <= 300
    assert pixels(snip.png).shape[1] == snip.width
    outline_box(pixels(snip.png))  # still outlined after scaling


def test_height_is_capped():
    data = pdfs.simple_pdf(["tall " * 400], fontsize=8)
    page_chunk = Chunk("f" * 64, "doc.pdf", 0, 1, "tall", (Rect(20, 10, 590, 780),))
    with open_document(data) as doc:
        snip = render_snippet(doc, page_chunk, n=1, zoom=6.0, max_width=10_000)
    assert snip.height <= MAX_HEIGHT


def test_short_line_gets_some_width():
    data = pdfs.simple_pdf(["Short words here and there."])
    chunk = chunks_of(data)[0]
    with open_document(data) as doc:
        snip = render_snippet(doc, chunk, n=1, zoom=2.0)
    assert snip.width >= 320 * 2 - 2


@pytest.mark.parametrize("upright", [True, False])
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_rotated_pages_render_the_right_way_up(rotation, upright):
    data = pdfs.rotated_pdf(rotation, "Sideways text that must read upright", upright=upright)
    (chunk,) = chunks_of(data)
    with open_document(data) as doc:
        snip = render_snippet(doc, chunk, n=1, zoom=2.0)
    img = pixels(snip.png)
    x0, y0, x1, y1 = outline_box(img)
    assert x1 - x0 > 4 * (y1 - y0)  # the line runs left to right in the picture
    box = img[y0 + 3 : y1 - 3, x0 + 3 : x1 - 3]
    assert (box.min(axis=2) < 100).sum() > 300  # and the text is inside the outline
    # MuPDF's line box reserves more room above the capitals than below the
    # descenders: upright, the blank band is on top (upside down, at the bottom)
    ink_rows = np.nonzero((box.min(axis=2) < 100).any(axis=1))[0]
    blank_top, blank_bottom = ink_rows.min(), len(box) - 1 - ink_rows.max()
    assert blank_top > 2 * blank_bottom + 2


def test_render_snippets_opens_once_and_renders_each_chunk_once():
    data = pdfs.paper_pdf()
    chunks = chunks_of(data)
    snaps = render_snippets(data, {3: chunks[5], 1: chunks[0], 2: chunks[5]})
    assert [(s.n, s.chunk_id) for s in snaps] == [(1, chunks[0].id), (2, chunks[5].id)]
    assert all(pixels(s.png).size for s in snaps)


def test_render_snippets_of_an_encrypted_pdf_with_its_password():
    data = pdfs.encrypted_pdf("pw")
    (chunk,) = chunks_of(data, password="pw")
    (snip,) = render_snippets(data, {1: chunk}, password="pw")
    outline_box(pixels(snip.png))


def test_a_chunk_on_a_missing_page_is_skipped_not_fatal():
    data = pdfs.paper_pdf()
    good = chunks_of(data)[0]
    bad = Chunk(good.doc_id, good.doc_name, 99, 40, "gone", (Rect(0, 0, 10, 10),))
    snaps = render_snippets(data, {1: bad, 2: good})
    assert [s.n for s in snaps] == [2]

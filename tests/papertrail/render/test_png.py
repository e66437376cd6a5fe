"""The PNG writer: any RGB picture comes back pixel for pixel, and snippets use it."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from papertrail.render.png import png_bytes


def _decoded(data: bytes) -> np.ndarray:
    img = Image.open(io.BytesIO(data))
    img.load()  # reads every chunk: a bad CRC or a short stream raises here
    assert img.mode == "RGB"
    return np.asarray(img)


@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (64, 33), (200, 150)])
def test_pixels_come_back_exactly(shape):
    rng = np.random.default_rng(sum(shape))
    pixels = rng.integers(0, 256, (*shape, 3), dtype=np.uint8)
    pixels[: shape[0] // 2] = 255  # flat paper as well as noise
    assert np.array_equal(_decoded(png_bytes(pixels)), pixels)


def test_a_cropped_view_is_written_as_what_it_shows():
    page = np.random.default_rng(0).integers(0, 256, (40, 60, 3), dtype=np.uint8)
    view = page[5:30, 7:50]  # not contiguous: the rows of a wider picture
    assert np.array_equal(_decoded(png_bytes(view)), view)


BAD = [np.zeros((4, 4), np.uint8), np.zeros((4, 4, 4), np.uint8), np.zeros((0, 4, 3), np.uint8)]


@pytest.mark.parametrize("bad", BAD)
def test_other_arrays_are_refused(bad):
    with pytest.raises(ValueError):
        png_bytes(bad)


def test_a_snippet_is_written_by_this_writer():
    import pymupdf

    from papertrail.render.render import render_snippet
    from papertrail.types import Chunk, Rect

    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    page.insert_text((40, 60), "Revenue rose 12 % in 2023.", fontsize=11)
    words = page.get_text("words")
    box = Rect(words[0][0], words[0][1], words[-1][2], words[-1][3])
    chunk = Chunk(
        doc_id="d",
        doc_name="d.pdf",
        index=0,
        page=1,
        text="Revenue rose 12 % in 2023.",
        rects=(box,),
    )
    snip = render_snippet(doc, chunk, n=1)
    assert snip.png == png_bytes(_decoded(snip.png))  # the same bytes: not Pillow's encoder

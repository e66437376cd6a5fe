"""The outline's erosion matches scipy's; the row medians and the wash, computed the quick
way, give exactly the numbers of the plain way."""

from __future__ import annotations

import numpy as np
from scipy.ndimage import binary_erosion

from papertrail.render import marks
from papertrail.render.marks import (
    CONTEXT_FILL,
    FILL,
    INK_DROP,
    WHITE,
    Shades,
    _eroded,
    _row_medians,
    mark,
)


def test_erosion_matches_scipy_on_any_shape_and_width():
    rng = np.random.default_rng(0)
    for _ in range(300):
        h, w = rng.integers(1, 40, 2)
        width = int(rng.integers(1, 4))
        region = rng.random((h, w)) < rng.random() * 1.2  # empty to full
        line = np.ones(2 * width + 1, bool)
        across = binary_erosion(region, line[None, :], border_value=0)
        expected = binary_erosion(across, line[:, None], border_value=0)
        assert (_eroded(region, width) == expected).all()


def test_erosion_keeps_the_inside_of_a_block_and_clears_its_rim():
    region = np.zeros((12, 12), bool)
    region[2:10, 3:11] = True
    inner = _eroded(region, 2)
    assert inner[4:8, 5:9].all() and inner.sum() == 4 * 4


def _page_like(rng, h: int, w: int) -> np.ndarray:
    """White paper, a tinted table band, dark glyphs with soft (anti-aliased) edges."""
    img = np.full((h, w, 3), 255, np.uint8)
    img[h // 3 : h // 2] = (230, 236, 245)  # a band: its rows' background is not white
    ink = rng.random((h, w)) < 0.12
    img[ink] = rng.integers(0, 60, (int(ink.sum()), 3))
    soft = rng.random((h, w)) < 0.08
    img[soft] = rng.integers(60, 256, (int(soft.sum()), 3))
    return img


def test_row_medians_are_numpys_medians():
    rng = np.random.default_rng(1)
    for _ in range(50):
        h, w = rng.integers(1, 30, 2)
        sums = np.where(rng.random((h, w)) < rng.random(), WHITE, rng.integers(0, 766, (h, w)))
        sums = sums.astype(np.int16)
        got = _row_medians(sums)
        assert got.dtype == np.float64
        assert np.array_equal(got, np.median(sums, axis=1, keepdims=True))


def _reference_mark(img, marked, context, pad, width):
    """The wash as one float32 blend over the whole window (how it was first written)."""
    shades = Shades.of(img)
    ink = shades.ink
    region = marks._region(ink, list(marked), pad, width)
    wash = np.zeros(ink.shape, bool)
    for x0, y0, x1, y1 in context:
        wash[marks._rows(y0, y1, ink), marks._cols(x0, x1, ink)] = True
    out = img.copy()
    touched = region | wash
    lum = marks._channel_sum(img, np.float32) / 3
    weight = np.clip((lum - shades.background + INK_DROP) / INK_DROP, 0.0, 1.0) * touched
    for c in range(3):
        part = img[:, :, c].astype(np.float32)
        colour = np.where(region, np.float32(FILL[c]), np.float32(CONTEXT_FILL[c]))
        part += (colour - part) * weight
        out[:, :, c] = part.round().clip(0, 255).astype(np.uint8)
    edges = region & ~marks._eroded(region, width)
    if edges.any():
        out[edges] = marks._colour(img[edges & ~ink])
    return out


def test_the_wash_gives_the_pixels_of_a_float_blend_over_the_whole_window():
    # only the soft pixels are blended in floats: every other one must come out the same
    rng = np.random.default_rng(2)
    for _ in range(20):
        h, w = (int(v) for v in rng.integers(40, 120, 2))
        img = _page_like(rng, h, w)
        marked = [(5.0, 10.0, w - 8.0, 22.0), (5.0, 24.0, w / 2, 36.0)]
        context = [(3.0, 4.0, w - 3.0, h - 4.0)]
        got = mark(img, marked, context, 3.0, 2)
        assert np.array_equal(got, _reference_mark(img, marked, context, 3.0, 2))

"""The outline's erosion: shifted ANDs give exactly what scipy's binary erosion gives."""

from __future__ import annotations

import numpy as np
from scipy.ndimage import binary_erosion

from papertrail.render.marks import _eroded


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

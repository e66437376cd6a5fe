"""Marking evidence on a rendered page region, placed by the ink on the page.

``mark`` takes the picture as rendered and the boxes (in pixels) of the
evidence lines and of the rest of the chunk. It fills them, then draws one
outline around each run of stacked evidence lines, every horizontal edge of it
in the blank rows between text lines (found from the pixels): when evidence
starts or ends mid-line, or the line boxes of tightly set text overlap, the
outline still never crosses a glyph of the line above or below. Under the
marks, every pixel as light as its row's background (white, or a coloured
table band) takes the highlight colour and glyph ink keeps its own, so text
stays dark and a band turns yellow rather than olive; the outline is drawn in a
second colour where the first does not stand out from the background under it.
``blank_rows`` tells where a crop can end without cutting
a line. It does not decide which lines are evidence nor where the crop lies.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels of the picture

FILL = (255, 208, 112)  # strong yellow for the evidence, exact on a white page
CONTEXT_FILL = (255, 246, 205)  # the rest of the chunk: a faint wash, no outline
OUTLINE = (230, 70, 0)  # orange-red, visible on white, black and yellow
OUTLINE_ALT = (0, 70, 200)  # blue, for backgrounds too close to the orange-red
MIN_CONTRAST = 150.0  # RGB distance below which the outline colour is not clear enough
INK_DROP = 80  # a pixel this much darker (0..255) than its row's usual colour is ink
WHITE = 3 * 255  # the channel sum of a white pixel: no sum is larger


def ink_mask(img: np.ndarray) -> np.ndarray:
    """Where ``img`` (H x W x 3) has ink: pixels well darker than their row's median,
    so a coloured table band is background and its text is ink."""
    return Shades.of(img).ink


class Shades:
    """A picture's luminance read once: the ink mask and each row's background.

    Sums of the three channels (0..765, integers) stand for the luminance:
    three times the mean, exactly, and several times cheaper than averaging
    floats over a whole picture; ``background`` is in luminance units (0..255).
    """

    def __init__(self, sums: np.ndarray) -> None:
        self.sums = sums  # R + G + B per pixel
        median = _row_medians(sums)  # a row's usual colour, x 3
        self.ink = sums < median - 3 * INK_DROP
        self.background = (median / 3).astype(np.float32)

    @classmethod
    def of(cls, img: np.ndarray) -> Shades:
        return cls(_channel_sum(img, np.int16))


def _row_medians(sums: np.ndarray) -> np.ndarray:
    """``np.median(sums, axis=1, keepdims=True)``, the same floats, several times faster on
    a page: a row more than half white (``WHITE``, the largest sum there is) has white
    as its median without sorting; only the other rows are sorted."""
    h, w = sums.shape
    white = np.count_nonzero(sums == WHITE, axis=1)
    # the two middle values (sorted, ascending) are white when the last ``white`` are
    plain = white >= w - (w - 1) // 2
    out = np.full((h, 1), float(WHITE))
    if not plain.all():
        out[~plain] = np.median(sums[~plain], axis=1, keepdims=True)
    return out


def blank_rows(ink: np.ndarray) -> np.ndarray:
    """Row indices holding no ink: a crop edge there cuts no line."""
    return np.nonzero(~ink.any(axis=1))[0]


def mark(
    img: np.ndarray,
    marked: Sequence[Box],
    context: Sequence[Box],
    pad: float,
    width: int,
    *,
    shades: Shades | None = None,
) -> np.ndarray:
    """``img`` with ``context`` washed, ``marked`` filled and outlined (see module doc).

    ``pad``: pixels between a line's glyphs and its outline; ``width``: the
    outline's thickness in pixels; ``shades``: ``Shades.of(img)`` when the
    caller has it already. Only the rows and columns the marks touch are
    recomputed: the rest of the picture is copied as it is.
    """
    shades = Shades.of(img) if shades is None else shades
    ink = shades.ink
    region = _region(ink, list(marked), pad, width)
    wash = np.zeros(ink.shape, bool)
    for x0, y0, x1, y1 in context:
        wash[_rows(y0, y1, ink), _cols(x0, x1, ink)] = True
    out = img.copy()
    touched = region | wash
    rows, cols = np.flatnonzero(touched.any(axis=1)), np.flatnonzero(touched.any(axis=0))
    if not len(rows):
        return out
    win = (slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1))
    region, ink, touched = region[win], ink[win], touched[win]
    src, view = img[win], out[win]
    _wash(src, view, shades.sums[win], shades.background[win[0]], region, touched)
    edges = region & ~_eroded(region, width)
    if edges.any():
        view[edges] = _colour(src[edges & ~ink])
    return out


def _wash(src, view, sums, background, region, touched) -> None:
    """Into ``view`` (a copy of ``src``): every ``touched`` pixel takes FILL in the
    ``region``, CONTEXT_FILL elsewhere, as far as it is as light as its row's
    ``background`` (a glyph keeps its ink): with weight
    ``clip((lum - background + INK_DROP) / INK_DROP, 0, 1)``, ``lum`` the pixel's
    channel ``sums`` / 3.

    The weight of a sum depends only on the row's background, and a page has few of
    those: it is worked out once per (background, sum) in float32 as a whole picture
    would be, so the pixels are the same. Most pixels weigh 0 (ink, or untouched) or 1
    (page colour, which simply becomes the fill): only the few in between, a glyph's
    soft edge, are blended in floats."""
    levels, row_level = np.unique(background[:, 0], return_inverse=True)
    lum = np.arange(WHITE + 1, dtype=np.float32) / 3  # as (R + G + B) / 3 in float32
    table = np.clip((lum[None, :] - levels[:, None] + INK_DROP) / INK_DROP, 0.0, 1.0)
    # the weight never falls as the sum grows: the sums from which it is 1, to which it is 0
    full_from = np.argmax(np.append(table >= 1.0, np.ones((len(levels), 1), bool), 1), axis=1)
    zero_to = np.argmax(np.append(table > 0.0, np.ones((len(levels), 1), bool), 1), axis=1) - 1
    full = touched & (sums >= full_from[row_level][:, None])
    soft = touched & ~full & (sums > zero_to[row_level][:, None])
    ys, xs = np.nonzero(soft)
    weight = table[row_level[ys], sums[ys, xs]]
    soft_region = region[ys, xs]
    full_region, full_context = full & region, full & ~region
    for c in range(3):  # one plane at a time: 2-D passes, several times faster than H x W x 3
        plane = view[:, :, c]
        plane[full_region] = FILL[c]
        plane[full_context] = CONTEXT_FILL[c]
        part = src[ys, xs, c].astype(np.float32)
        colour = np.where(soft_region, np.float32(FILL[c]), np.float32(CONTEXT_FILL[c]))
        part += (colour - part) * weight
        plane[ys, xs] = part.round().clip(0, 255).astype(np.uint8)


def _channel_sum(img: np.ndarray, dtype) -> np.ndarray:
    """R + G + B per pixel: three additions, several times faster than ``sum(axis=2)``."""
    total = img[:, :, 0].astype(dtype)
    total += img[:, :, 1]
    total += img[:, :, 2]
    return total


def _rgb(colour: tuple[int, int, int]) -> np.ndarray:
    return np.asarray(colour, np.float32)


def _eroded(region: np.ndarray, width: int) -> np.ndarray:
    """``region`` eroded by a square of side 2 * width + 1 (outside the picture counts as
    empty): a row pass then a column pass of shifted ANDs, the same result as the
    square at once (and as ``scipy.ndimage.binary_erosion``), a few times faster."""
    return _erode_along(_erode_along(region, width, 1), width, 0)


def _erode_along(a: np.ndarray, width: int, axis: int) -> np.ndarray:
    """``a`` where each of the ``width`` neighbours on both sides along ``axis`` is set."""
    out = a.copy()
    n = a.shape[axis]
    for s in range(1, width + 1):
        if s >= n:
            return np.zeros_like(a)
        ahead = [slice(None)] * a.ndim
        behind = [slice(None)] * a.ndim
        ahead[axis], behind[axis] = slice(s, None), slice(None, n - s)
        out[tuple(behind)] &= a[tuple(ahead)]  # the neighbour s further on
        out[tuple(ahead)] &= a[tuple(behind)]  # the neighbour s before
        edge = [slice(None)] * a.ndim
        edge[axis] = slice(n - s, None)
        out[tuple(edge)] = False  # its neighbour s further on is outside: empty
        edge[axis] = slice(None, s)
        out[tuple(edge)] = False
    return out


def _colour(background: np.ndarray) -> tuple[int, int, int]:
    if not len(background):
        return OUTLINE
    bg = np.median(background.reshape(-1, 3), axis=0)
    far = np.linalg.norm(bg - np.asarray(OUTLINE)) >= MIN_CONTRAST
    return OUTLINE if far else OUTLINE_ALT


def _region(ink: np.ndarray, boxes: list[Box], pad: float, width: int) -> np.ndarray:
    """The area the outline goes around: each box padded across, stacked neighbours
    meeting in the blank rows between their lines, free top and bottom edges in the
    blank rows next to their own line's glyphs."""
    region = np.zeros(ink.shape, bool)
    tops = [b[1] - pad for b in boxes]
    bottoms = [b[3] + pad for b in boxes]
    above: set[int] = set()
    below: set[int] = set()
    for i, a in enumerate(boxes):
        under = [j for j, b in enumerate(boxes) if j != i and _stacked(a, b, pad)]
        if not under:
            continue
        j = min(under, key=lambda j: boxes[j][1])  # the line right below, not one further
        b = boxes[j]
        rows = ink[:, _cols(min(a[0], b[0]) - pad, max(a[2], b[2]) + pad, ink)].sum(axis=1)
        lo, hi = _gap(rows, _mid(a), 1), _gap(rows, _mid(b), -1)
        if lo is not None and hi is not None and lo[0] <= hi[1]:
            y = (lo[0] + hi[1] + 1) / 2  # the middle of the blank rows between the lines
        else:  # the lines' glyphs touch: the least inked rows between their middles
            span = range(round(_mid(a)) + width, round(_mid(b)) - width + 1)
            y = min(span, key=lambda y: rows[y - width : y + width].sum(), default=_mid(b))
        bottoms[i], tops[j] = y, y
        below.add(i)
        above.add(j)
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        rows = ink[:, _cols(x0 - pad, x1 + pad, ink)].sum(axis=1)
        if i not in above and (g := _gap(rows, _mid(boxes[i]), -1)):  # rows [top, top + width)
            tops[i] = max(g[0], min(y0 - pad, g[1] + 1 - width))
        if i not in below and (g := _gap(rows, _mid(boxes[i]), 1)):  # [bottom - width, bottom)
            bottoms[i] = min(g[1] + 1, max(y1 + pad, g[0] + width))
        region[_rows(tops[i], bottoms[i], ink), _cols(x0 - pad, x1 + pad, ink)] = True
    for a in boxes:  # cells side by side on one row: one shape
        for b in boxes:
            gap = b[0] - a[2]
            if 0 < gap <= 2 * pad + 0.8 * min(a[3] - a[1], b[3] - b[1]) and _same_row(a, b):
                y0, y1 = max(a[1], b[1]) - pad, min(a[3], b[3]) + pad
                region[_rows(y0, y1, ink), _cols(a[2], b[0], ink)] = True
    return region


def _gap(rows: np.ndarray, start: float, step: int) -> tuple[int, int] | None:
    """The first blank rows (two or more together) met going from row ``start`` (a line's
    middle) in direction ``step``, as (first, last); None when the picture ends first."""
    y, n = round(start), len(rows)
    while 0 <= y < n and 0 <= y + step < n and (rows[y] or rows[y + step]):
        y += step
    if not (0 <= y < n and 0 <= y + step < n):
        return None
    end = y
    while 0 <= end + step < n and not rows[end + step]:
        end += step
    return (min(y, end), max(y, end))


def _mid(b: Box) -> float:
    return (b[1] + b[3]) / 2


def _stacked(a: Box, b: Box, pad: float) -> bool:
    """``b``'s line comes under ``a``'s, close enough to be the next line, overlapping across."""
    across = min(a[2], b[2]) - max(a[0], b[0]) > -2 * pad
    gap = b[1] - a[3]
    height = min(a[3] - a[1], b[3] - b[1])
    return across and _mid(a) < _mid(b) and -height / 2 < gap <= 0.8 * height


def _same_row(a: Box, b: Box) -> bool:
    return min(a[3], b[3]) - max(a[1], b[1]) > 0.5 * min(a[3] - a[1], b[3] - b[1])


def _rows(y0: float, y1: float, ink: np.ndarray) -> slice:
    return slice(max(0, round(y0)), min(ink.shape[0], round(y1)))


def _cols(x0: float, x1: float, ink: np.ndarray) -> slice:
    return slice(max(0, round(x0)), min(ink.shape[1], round(x1)))

"""Reading order of the text on one page: columns, full-width blocks, table rows.

Works on plain boxes in an *upright frame* (text runs along +x, lines stack
along +y), so it serves both the PDF text layer and OCR output. The method:

* find column gutters: x-ranges that few blocks cross while many blocks lie
  fully left and right of them, and accept one only if the columns it makes
  read like prose (lines that fill the column width) rather than a table;
* blocks that cross a gutter (titles, wide figures, page numbers) split the
  page into bands; inside a band the columns are read left to right, each
  one recursively (a column may hold its own columns or a table);
* without columns, blocks are read top to bottom, and lines sharing a row
  (table cells, a section number and its title) are joined into one line.

It does not detect tables as such, read right-to-left *columns* (RTL text
inside a line is fine), or recover reading order from tagged PDF structure.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from papertrail.text.lines import is_rtl
from papertrail.types import Rect

MIN_GUTTER = 3.0  # points of clear space between columns (LaTeX puts 10-24)
PROSE_CHARS = 20  # characters a line of running text has at least (table cells have fewer)
FILL = 0.75  # a prose line spans at least this share of its column's width


@dataclass
class TextLine:
    """A line being laid out; ``box`` is upright-frame, ``rect`` displayed-page points."""

    text: str
    box: tuple[float, float, float, float]
    rect: Rect
    size: float = 0.0  # font size in points
    bold: float = 0.0  # share of characters set in a bold face
    flow: bool = True  # runs along the page's reading direction (False: rotated labels)

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


@dataclass
class TextBlock:
    lines: list[TextLine] = field(default_factory=list)

    @cached_property  # lines are not changed once a block is built
    def box(self) -> tuple[float, float, float, float]:
        return _union([ln.box for ln in self.lines])


def reading_order(blocks: list[TextBlock]) -> list[TextBlock]:
    """Blocks in reading order, with each block's lines merged into rows."""
    blocks = [b for b in blocks if b.lines]
    if len(blocks) <= 1:
        return [TextBlock(merge_rows(b.lines)) for b in blocks]
    cuts = find_gutters(blocks)
    if not cuts:
        return _without_columns(blocks)
    spanning, columns = [], [[] for _ in range(len(cuts) + 1)]
    for b in blocks:
        x0, _, x1, _ = b.box
        if any(x0 < g - 1 and x1 > g + 1 for g in cuts):
            spanning.append(b)
        else:
            columns[sum(x0 >= g - 1 for g in cuts)].append(b)
    out: list[TextBlock] = []
    spanning.sort(key=lambda b: (b.box[1], b.box[0]))
    for limit in [_mid_y(s) for s in spanning] + [float("inf")]:
        for i, col in enumerate(columns):
            band = [b for b in col if _mid_y(b) < limit]
            columns[i] = [b for b in col if _mid_y(b) >= limit]
            out.extend(reading_order(band))
        if spanning:
            out.append(TextBlock(merge_rows(spanning.pop(0).lines)))
    return out


def find_gutters(blocks: list[TextBlock]) -> list[float]:
    """x positions that separate prose columns, left to right (empty for one column)."""
    boxes = np.array([b.box for b in blocks], dtype=float)
    weight = np.array([len(b.lines) for b in blocks], dtype=float)
    left, right = boxes[:, 0].min(), boxes[:, 2].max()
    n = int(right - left) + 1
    if n < 100:  # narrower than ~1.4 inches: no room for two columns
        return []
    x0 = boxes[:, 0] - left
    x1 = boxes[:, 2] - left
    cross = np.zeros(n + 1)  # weight of blocks strictly covering each 1-pt step
    done = np.zeros(n + 1)  # weight of blocks ending at or before x
    start = np.zeros(n + 1)  # weight of blocks starting at or after x
    for a, b, w in zip(x0, x1, weight, strict=True):
        ia, ib = int(np.floor(a)) + 1, int(np.ceil(b))
        if ib > ia:
            cross[ia:ib] += w
        done[min(n, int(np.ceil(b)))] += w
        start[max(0, int(np.floor(a)))] += w
    lhs = np.cumsum(done)
    rhs = np.cumsum(start[::-1])[::-1]
    side = np.minimum(lhs, rhs)
    ok = (side > 0) & (cross <= side)
    cuts = []
    for a, b in _runs(ok):
        if b - a >= MIN_GUTTER:
            seg = cross[a:b]
            best = np.flatnonzero(seg == seg.min())
            cuts.append(left + a + (best[0] + best[-1]) / 2)
    while cuts and not _all_prose(blocks, cuts):
        cuts = _drop_worst(blocks, cuts)
    return cuts


def merge_rows(lines: list[TextLine]) -> list[TextLine]:
    """Join lines that share a row (overlap vertically by half a line) left to right."""
    rows: list[list[TextLine]] = []
    # lines across the flow (a rotated margin note, an axis label) go last, not mid-sentence
    for ln in sorted(lines, key=lambda x: (not x.flow, x.box[1], x.box[0])):
        for row in rows[-2:] if ln.flow else ():
            head = row[0]
            overlap = min(head.box[3], ln.box[3]) - max(head.box[1], ln.box[1])
            if head.flow and overlap >= 0.5 * min(head.height, ln.height):
                row.append(ln)
                break
        else:
            rows.append([ln])
    return [_join(row) for row in rows]


def _join(row: list[TextLine]) -> TextLine:
    if len(row) == 1:
        return row[0]
    rtl = is_rtl("".join(x.text for x in row))
    row = sorted(row, key=lambda x: -x.box[2] if rtl else x.box[0])
    text, prev = row[0].text, row[0]
    for ln in row[1:]:
        gap = (prev.box[0] - ln.box[2]) if rtl else (ln.box[0] - prev.box[2])
        # fragments of one word touch: a sub/superscript, a run of CJK glyphs. Cells may
        # touch too (their boxes include trailing spaces), but they are longer.
        glued = gap <= 0.15 * max(prev.height, ln.height) and min(len(text), len(ln.text)) <= 3
        sep = "" if glued or (gap <= 0 and _wide(text[-1]) and _wide(ln.text[0])) else " "
        text, prev = text + sep + ln.text, ln
    chars = [len(x.text) for x in row]
    total = sum(chars) or 1
    box = _union([x.box for x in row])
    rect = row[0].rect
    for x in row[1:]:
        rect = rect.union(x.rect)
    return TextLine(
        text=" ".join(text.split()),
        box=box,
        rect=rect,
        size=sum(x.size * c for x, c in zip(row, chars, strict=True)) / total,
        bold=sum(x.bold * c for x, c in zip(row, chars, strict=True)) / total,
        flow=True,
    )


def _without_columns(blocks: list[TextBlock]) -> list[TextBlock]:
    """Top to bottom; blocks side by side (table cells) become one block of rows."""
    out: list[TextBlock] = []
    group: list[TextBlock] = []
    bottom = 0.0
    for b in sorted(blocks, key=lambda b: (b.box[1], b.box[0])):
        if group and b.box[1] < bottom - 1.0:  # overlaps the group vertically by > 1 pt
            group.append(b)
            bottom = max(bottom, b.box[3])
            continue
        if group:
            out.append(TextBlock(merge_rows([ln for g in group for ln in g.lines])))
        group, bottom = [b], b.box[3]
    if group:
        out.append(TextBlock(merge_rows([ln for g in group for ln in g.lines])))
    return out


def _all_prose(blocks: list[TextBlock], cuts: list[float]) -> bool:
    return all(_is_prose(col) for col in _columns(blocks, cuts))


def _drop_worst(blocks: list[TextBlock], cuts: list[float]) -> list[float]:
    """Remove the gutter next to the first column that does not read like prose."""
    for i, col in enumerate(_columns(blocks, cuts)):
        if not _is_prose(col):
            return cuts[:i] + cuts[i + 1 :] if i < len(cuts) else cuts[:-1]
    return cuts


def _columns(blocks: list[TextBlock], cuts: list[float]) -> list[list[TextLine]]:
    cols: list[list[TextLine]] = [[] for _ in range(len(cuts) + 1)]
    for b in blocks:
        x0, _, x1, _ = b.box
        if not any(x0 < g - 1 and x1 > g + 1 for g in cuts):
            cols[sum(x0 >= g - 1 for g in cuts)].extend(merge_rows(b.lines))
    return cols


def _is_prose(lines: list[TextLine]) -> bool:
    """A column holds running text: several long lines that fill its width.

    Table columns fail (cells are short or ragged); a text column that also
    holds code or a figure's labels passes, as long as a third of it is prose.
    """
    lines = [ln for ln in lines if ln.flow]
    if not lines:
        return False
    x0 = min(ln.box[0] for ln in lines)
    x1 = max(ln.box[2] for ln in lines)
    wide = FILL * (x1 - x0)
    prose = [ln for ln in lines if len(ln.text) >= PROSE_CHARS and ln.box[2] - ln.box[0] >= wide]
    chars = sum(len(ln.text) for ln in prose)
    return len(prose) >= min(3, len(lines)) and chars >= 0.3 * sum(len(ln.text) for ln in lines)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) index ranges where ``mask`` is true."""
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True))


def _union(boxes: list[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _mid_y(b: TextBlock) -> float:
    _, y0, _, y1 = b.box
    return (y0 + y1) / 2


def _wide(c: str) -> bool:
    return unicodedata.east_asian_width(c) in ("W", "F")

"""Where characters sit on a chunk's line boxes: direction, line starts, parts of a box.

Pure functions shared by the stages that map text offsets to page boxes:
chunking cuts an overlong line's box (``read/chunking.py``), the verifier marks
the part of a line holding the evidence (``verify/evidence.py``), and the
renderer snaps those marks to word edges (``render/glyphs.py``). Box widths are
in the chunk's own frame; nothing here reads a PDF or measures glyphs.
"""

from __future__ import annotations

import unicodedata

from papertrail.types import Chunk, Rect


def is_rtl(text: str) -> bool:
    """True when most letters of ``text`` are written right to left (Hebrew, Arabic)."""
    kinds = [unicodedata.bidirectional(c) for c in text if c.isalpha()]
    return sum(k in ("R", "AL") for k in kinds) > len(kinds) / 2


def line_part(rect: Rect, a: float, b: float, rtl: bool) -> Rect:
    """The part of a line's box holding characters ``a``..``b`` (fractions of its length).

    Proportional to character count along the width; a box taller than wide
    (text running vertically on the displayed page) is kept whole.
    """
    if rect.width < rect.height:
        return rect
    if rtl:
        a, b = 1 - b, 1 - a
    return Rect(rect.x0 + a * rect.width, rect.y0, rect.x0 + b * rect.width, rect.y1)


def line_starts(chunk: Chunk) -> list[int]:
    """Where each line of the chunk starts; estimated from box widths for older indexes."""
    if len(chunk.lines) == len(chunk.rects):
        return list(chunk.lines)
    widths = [max(r.width, 1e-6) for r in chunk.rects]
    total, acc, out = sum(widths), 0.0, []
    for w in widths:
        out.append(round(acc / total * len(chunk.text)) if total else 0)
        acc += w
    return out

"""One page's text layer as PyMuPDF gives it, turned into ordered blocks of lines.

``page_layout`` reads a page's lines with their font size and weight, moves
their boxes to the displayed (rotated) page and to an upright frame for
``layout.reading_order``; ``to_block`` makes the final ``Block`` (original text,
NFKC ``norm``, heading flag). Also the text hygiene every reader shares:
``clean_text`` (control characters, unknown glyphs) and ``has_text`` (is there
enough to search). It does not open documents or decide what a page without
text means: that is ``pdf.py``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

import pymupdf

from papertrail.read.layout import TextBlock, TextLine, reading_order
from papertrail.types import Block, Line, Rect

# Keep ligatures (display text) and spaces; skip images (not needed, slow); ignore
# text outside the media box. CID codes for unmapped glyphs are left out on purpose:
# they come out as U+FFFD (made a space), instead of as plausible-looking garbage.
FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE
FLAGS |= pymupdf.TEXT_MEDIABOX_CLIP
MIN_TEXT_SCORE = 10  # letters (CJK count 2, digits 1/2) a page needs to count as having text
_BLANKS = re.compile(r"[\t\n\r\v\f\u2028\u2029\ufffd]")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u00ad\ufeff\ud800-\udfff]")


def page_layout(page: pymupdf.Page) -> list[TextBlock]:
    """The page's lines grouped in blocks, in reading order, rects on the displayed page."""
    raw = page.get_text("dict", flags=FLAGS)["blocks"]
    axis = _dominant_dir(
        (ln["dir"], sum(len(s["text"]) for s in ln["spans"]))
        for b in raw
        for ln in b.get("lines", ())
    )
    m = tuple(page.rotation_matrix)  # unrotated page -> displayed page
    width, height = page.rect.width, page.rect.height
    todo: list[TextBlock] = []
    for b in raw:
        lines = []
        for ln in b.get("lines", ()):
            text = clean_text("".join(s["text"] for s in ln["spans"]))
            rect = _transform(ln["bbox"], m)
            if not text or rect.x1 <= 0 or rect.y1 <= 0 or rect.x0 >= width or rect.y0 >= height:
                continue  # blank, or outside the crop box
            chars = [(len(s["text"].strip()), s) for s in ln["spans"]]
            n = sum(c for c, _ in chars) or 1
            lines.append(
                TextLine(
                    text=text,
                    box=_upright(ln["bbox"], axis),
                    rect=rect,
                    size=sum(c * s["size"] for c, s in chars) / n,
                    bold=sum(c for c, s in chars if _is_bold(s)) / n,
                    flow=ln["dir"][0] * axis[0] + ln["dir"][1] * axis[1] > 0.95,
                )
            )
        if lines:
            todo.append(TextBlock(lines))
    return reading_order(todo)


def body_size(blocks: Iterable[TextBlock]) -> float:
    """Font size of most characters (points): the yardstick for headings."""
    count: Counter[float] = Counter()
    for tb in blocks:
        for ln in tb.lines:
            count[round(ln.size, 1)] += len(ln.text)
    return count.most_common(1)[0][0] if count else 0.0


def has_text(text: str) -> bool:
    """True when ``text`` holds enough letters to be worth searching.

    Letters count 1 (CJK and other wide characters 2, as each is a word or
    syllable), digits 1/2; stray glyphs, a page number or a date do not reach
    the threshold, a short real sentence such as "Reduced test-case" does.
    """
    score = 0.0
    for c in text:
        if c.isalpha():
            score += 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
        elif c.isdigit():
            score += 0.5
        if score >= MIN_TEXT_SCORE:
            return True
    return False


def to_block(tb: TextBlock, pno: int, body: float, *, ocr: bool = False) -> Block:
    lines = tuple(Line(ln.text, ln.rect) for ln in tb.lines)
    rect = lines[0].rect
    for ln in lines[1:]:
        rect = rect.union(ln.rect)
    text = " ".join(ln.text for ln in lines)
    norm = " ".join(unicodedata.normalize("NFKC", text).split())
    return Block(pno, text, norm, rect, lines, ocr=ocr, heading=_is_heading(tb, text, body))


def _is_heading(tb: TextBlock, text: str, body: float) -> bool:
    """A short line or two set larger than the body text, or bold at body size."""
    if body <= 0 or len(tb.lines) > 2 or not 2 <= len(text) <= 120 or text.endswith((",", ";")):
        return False
    letters = sum(c.isalpha() for c in text)
    if letters < 2 or sum(c.isdigit() for c in text) > 0.3 * letters:  # a figure, a table row
        return False
    n = sum(len(ln.text) for ln in tb.lines)
    size = sum(ln.size * len(ln.text) for ln in tb.lines) / n
    bold = sum(ln.bold * len(ln.text) for ln in tb.lines) / n
    return size >= 1.15 * body or (bold >= 0.8 and size >= 0.95 * body)


def clean_text(text: str) -> str:
    """Control characters dropped (tabs, newlines and unknown glyphs U+FFFD become
    spaces, so words stay apart); whitespace collapsed."""
    return " ".join(_CONTROLS.sub("", _BLANKS.sub(" ", text)).split())


def _is_bold(span: dict) -> bool:
    return bool(span["flags"] & pymupdf.TEXT_FONT_BOLD) or "bold" in span["font"].lower()


def _dominant_dir(dirs: Iterable[tuple[tuple[float, float], int]]) -> tuple[float, float]:
    """The axis most characters run along: (1, 0) for ordinary text."""
    votes = {(1.0, 0.0): 0, (0.0, 1.0): 0, (-1.0, 0.0): 0, (0.0, -1.0): 0}
    for (dx, dy), n in dirs:
        ax = (1.0 if dx > 0.5 else -1.0 if dx < -0.5 else 0.0, 0.0)
        if not ax[0]:
            ax = (0.0, 1.0 if dy > 0 else -1.0)
        votes[ax] += n
    return max(votes, key=votes.get)


def _transform(bbox, m: tuple[float, ...]) -> Rect:
    """Axis-aligned box through the affine matrix ``m`` (a multiple of 90 degrees)."""
    a, b, c, d, e, f = m
    x0, y0, x1, y1 = bbox
    xs = (a * x0 + c * y0 + e, a * x1 + c * y1 + e)
    ys = (b * x0 + d * y0 + f, b * x1 + d * y1 + f)
    return Rect(min(xs), min(ys), max(xs), max(ys))


def _upright(bbox, axis: tuple[float, float]) -> tuple[float, float, float, float]:
    """Box in a frame where ``axis`` points along +x (reading) and lines stack along +y."""
    dx, dy = axis
    xs, ys = [], []
    for x, y in ((bbox[0], bbox[1]), (bbox[2], bbox[3])):
        xs.append(x * dx + y * dy)
        ys.append(-x * dy + y * dx)
    return (min(xs), min(ys), max(xs), max(ys))

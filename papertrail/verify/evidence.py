"""Evidence spans: the sentences or table rows of an excerpt, and their boxes on the page.

``units`` cuts an excerpt into sentences, and table runs (a "sentence" of many
numbers) into rows, as offsets into the excerpt's text; ``windows`` are runs
of one to ``MAX_UNITS`` consecutive units, what a claim is judged against.
``locate`` turns a span of a chunk's text into an ``Evidence``: its text and
the boxes of the lines (or the parts of lines) holding it, in the chunk's own
frame, never more than half of the chunk's lines for chunks of 3 or more; it
adds the rows that hold the claim's figures and, for a table row, the row of
column headings above it (years, periods).
``shown`` is the evidence as people read it under a citation (one line,
trimmed at a word), the one wording the CLI report and every chat reply use.
Nothing here decides whether a span supports a claim.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from papertrail.text.figures import excerpt_numbers
from papertrail.text.lines import is_rtl, line_part, line_starts
from papertrail.text.memo import per_text
from papertrail.text.periods import is_year
from papertrail.text.rows import MAX_CHARS, ROW_START, TABLE_NUMBERS, TABLE_SHARE
from papertrail.text.sentences import normalize, sentence_spans, strip_heading
from papertrail.types import Chunk, Evidence, Rect

MAX_UNITS = 3  # a claim may draw on up to three consecutive sentences or rows
SHOWN_CHARS = 280  # evidence quoted under a citation: two or three lines of chat


@dataclass(frozen=True)
class Span:
    start: int  # offsets into the excerpt's text
    end: int
    text: str
    also: tuple[tuple[int, int], ...] = ()  # shown with it: column headings, rows of its figures


@per_text
def units(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, in_table) of each sentence or table row of ``text``, in order."""
    out = []
    for a, b in sentence_spans(text, hard_newlines=False):
        piece = text[a:b]
        numbers = len(excerpt_numbers(piece))
        table = numbers >= TABLE_NUMBERS and numbers >= TABLE_SHARE * len(piece.split())
        rows = table or len(piece) > MAX_CHARS  # an overlong "sentence" is cut where rows start
        cuts = [a] + ([a + m.end() for m in ROW_START.finditer(piece)] if rows else []) + [b]
        for x, y in zip(cuts, cuts[1:], strict=False):
            while y - x > MAX_CHARS:
                cut = text.rfind(" ", x, x + MAX_CHARS)
                cut = cut if cut > x + MAX_CHARS // 2 else x + MAX_CHARS
                out.append((x, cut, table))
                x = cut + 1
            piece = text[x:y]
            if piece.strip():  # offsets of the unit without its surrounding spaces
                x, y = x + len(piece) - len(piece.lstrip()), y - len(piece) + len(piece.rstrip())
                x = _after_heading(text, x, y)
                out.append((x, y, table))
    return out


def _after_heading(text: str, x: int, y: int) -> int:
    """Where the unit ``text[x:y]`` starts once a section heading or run-in label run into
    it is left out ("3.1 Encoder and Decoder Stacks Encoder: The encoder is..."): the
    heading supports nothing, and marking it would send the eye to the wrong line."""
    piece = bare = text[x:y]
    for _ in range(3):  # "6 Results 6.1 Machine Translation On the WMT..." holds two
        shorter = strip_heading(bare)
        if shorter == bare or len(shorter.split()) < 4:
            break
        bare = shorter
    if bare != piece and len(bare.split()) >= 4 and piece.endswith(bare):
        return y - len(bare)
    return x


def windows(text: str) -> list[Span]:
    """Every run of 1..MAX_UNITS consecutive units of ``text``, a table row with its headings."""
    us = units(text)
    out = []
    for i in range(len(us)):
        for n in range(1, MAX_UNITS + 1):
            if i + n > len(us):
                break
            a, b = us[i][0], us[i + n - 1][1]
            header = _header(text, us, i) if us[i][2] and n == 1 else None
            out.append(Span(a, b, text[a:b].strip(), (header,) if header else ()))
    return out


def row_with_header(text: str, a: int, b: int) -> tuple[tuple[int, int], ...]:
    """Unit ``a``..``b`` of ``text`` and, for a table row, the column headings above it."""
    us = units(text)
    i = next((k for k, u in enumerate(us) if u[:2] == (a, b)), None)
    header = _header(text, us, i) if i is not None and us[i][2] else None
    return ((header,) if header else ()) + ((a, b),)


def _header(text: str, us: list[tuple[int, int, bool]], i: int) -> tuple[int, int] | None:
    """The nearest unit above row ``i`` whose numbers are all years: the column headings."""
    for a, b, table in reversed(us[:i]):
        nums = re.findall(r"\d[\d,.]*", text[a:b])
        if nums and all(is_year(n) for n in nums):
            return a, b
        if not table:
            return None
    return None


def locate(chunk: Chunk, span: Span, weigh: Callable[[str], float] | None = None) -> Evidence:
    """The evidence for ``span`` of ``chunk``: its text and its boxes (line parts).

    ``weigh`` scores a piece of text for the claim; when the span covers more
    than half of a chunk of 3+ lines, the best-weighing run of half the lines is kept.
    """
    starts = line_starts(chunk)
    n = len(starts)
    if not n:
        return Evidence(span.text, ())
    ends = [*starts[1:], len(chunk.text)]
    lines = [i for i in range(n) if starts[i] < span.end and ends[i] > span.start]
    limit = max(1, n // 2) if n >= 3 else n
    if len(lines) > limit:
        runs = [lines[k : k + limit] for k in range(len(lines) - limit + 1)]
        best = max(runs, key=lambda r: (weigh or len)(chunk.text[starts[r[0]] : ends[r[-1]]]))
        lo = max(span.start, starts[best[0]])
        hi = min(span.end, ends[best[-1]])
        span = Span(lo, hi, chunk.text[lo:hi].strip(), span.also)
        lines = best
    pieces = [(span.start, span.end, lines)]
    for a, b in span.also:  # headings and figure rows, while the half-of-the-chunk limit allows
        taken = {i for *_, idx in pieces for i in idx}
        more = [i for i in range(n) if starts[i] < b and ends[i] > a and i not in taken]
        if more and len(taken) + len(more) <= limit:
            pieces.append((a, b, more))
    pieces.sort(key=lambda p: p[0])
    rects: list[Rect] = []
    for a, b, idx in pieces:
        for i in idx:
            rects.append(_cut(chunk, i, starts[i], ends[i], a, b))
    text = " … ".join(chunk.text[a:b].strip() for a, b, _ in pieces)
    return Evidence(text, tuple(rects))


def _cut(chunk: Chunk, i: int, start: int, end: int, a: int, b: int) -> Rect:
    """The part of line ``i``'s box holding characters ``a``..``b`` of the chunk text."""
    length = max(1, end - start)
    lo = (max(a, start) - start) / length
    hi = (min(b, end) - start) / length
    line = chunk.text[start:end]
    return line_part(chunk.rects[i], max(0.0, lo), min(1.0, hi), is_rtl(line))


def shown(evidence: Evidence | None, limit: int = SHOWN_CHARS) -> str:
    """``evidence``'s text on one line, cut at a word to ``limit`` with "…"; "" if none."""
    if evidence is None or not evidence.text.strip():
        return ""
    text = " ".join(normalize(evidence.text).split())
    if len(text) > limit:
        cut = text.rfind(" ", 0, limit)
        text = text[: cut if cut > limit // 2 else limit - 1].rstrip(" ,;:") + "…"
    return text

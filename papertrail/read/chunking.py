"""Cutting Blocks into retrievable Chunks of about ``size`` characters.

Chunks are built from whole lines, so each chunk's ``rects`` are exactly the
boxes of the lines whose text it holds (the overlap with the previous chunk
included) and a snippet can outline them. A chunk never crosses a page and
never exceeds ``size`` characters: a line longer than that is split at
sentence, then word boundaries, and its box is cut in proportion. Lines are
joined with spaces; a word hyphenated across a line break is rejoined. A
heading starts a new chunk, without overlap, and so does the text OCR read
inside a picture (``Block.picture``): a diagram's labels get passages of their own.
``section`` is the nearest heading above (headers repeated on many pages,
such as a journal's running title, are ignored).

It does not look at meaning (no semantic splitting) and does not merge a
page's short tail into the next page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from papertrail.text.lines import is_rtl, line_part
from papertrail.types import Block, Chunk, Rect

SECTION_CHARS = 120  # longest heading carried into chunks
OVERLAP_SLACK = 1.25  # overlap may run this much over ``overlap`` to keep whole lines
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class _Unit:
    """A line (or a piece of a long line) with the heading in force where it starts."""

    text: str
    rect: Rect
    section: str
    heading: bool = False  # part of a heading line
    picture: bool = False  # read inside a picture (Block.picture)


def chunk_blocks(
    blocks: Sequence[Block], *, doc_id: str, doc_name: str, size: int = 800, overlap: int = 100
) -> list[Chunk]:
    """Chunks of ``blocks`` in document order, numbered from 0."""
    if size < 20:
        raise ValueError("chunk size must be at least 20 characters")
    overlap = max(0, min(overlap, size // 2))
    running = _running_headers(blocks)
    pages: dict[int, list[_Unit]] = {}
    section = ""
    for block in blocks:
        heading = block.heading and _header_key(block.text) not in running
        if heading:
            section = block.text[:SECTION_CHARS].strip()
        for line in block.lines:
            for text, rect in split_line(line.text, line.rect, size):
                unit = _Unit(text, rect, section, heading, block.picture)
                pages.setdefault(block.page, []).append(unit)
    chunks: list[Chunk] = []
    for page, units in pages.items():
        for group, fresh in _pack(units, size, overlap):
            text, starts = _join([u.text for u in group])
            if not any(c.isalnum() for c in text):
                continue
            chunks.append(
                Chunk(
                    doc_id=doc_id,
                    doc_name=doc_name,
                    index=len(chunks),
                    page=page,
                    text=text,
                    rects=tuple(u.rect for u in group),
                    lines=starts,
                    # the heading in force where the chunk starts, else the first one inside
                    section=next((u.section for u in group[fresh:] if u.section), ""),
                )
            )
    return chunks


def join_lines(lines: Sequence[str]) -> str:
    """Join lines with spaces, rejoining words hyphenated at a line end ("pos-" + "sible")."""
    return _join(lines)[0]


def _join(lines: Sequence[str]) -> tuple[str, tuple[int, ...]]:
    """``join_lines`` and the offset where each line starts in the result."""
    out = ""
    starts = []
    for text in lines:
        if not out:
            out = text
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and text[:1].islower():
            last_word = out.rsplit(" ", 1)[-1]
            # "state-of-the-" + "art" keeps its hyphen; "pos-" + "sible" loses it
            out = out + text if "-" in last_word[:-1] else out[:-1] + text
        else:
            out = f"{out} {text}"
        starts.append(len(out) - len(text))
    return out, tuple(starts)


def split_line(text: str, rect: Rect, size: int) -> list[tuple[str, Rect]]:
    """``text`` cut into pieces of at most ``size`` characters, each with its share of ``rect``."""
    if len(text) <= size:
        return [(text, rect)]
    pieces = _pack_words(_SENTENCE_END.split(text), size, " ")
    out, pos = [], 0
    for piece in pieces:
        start = text.find(piece, pos)
        start = pos if start < 0 else start
        pos = start + len(piece)
        out.append((piece, line_part(rect, start / len(text), pos / len(text), is_rtl(text))))
    return out


def _pack_words(parts: list[str], size: int, sep: str) -> list[str]:
    """Greedily pack ``parts`` into strings of at most ``size`` characters."""
    out: list[str] = []
    for part in parts:
        if len(part) > size:
            if sep == " ":  # a sentence too long: fall back to words
                words = _pack_words(part.split(" "), size, "")
            else:  # a single word too long: hard cut
                words = [part[i : i + size] for i in range(0, len(part), size)]
            out.extend(words)
            continue
        if out and len(out[-1]) + 1 + len(part) <= size:
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def _pack(units: list[_Unit], size: int, overlap: int) -> list[tuple[list[_Unit], int]]:
    """Group a page's units into chunks: (units, index of the first unit not in the overlap)."""
    out: list[tuple[list[_Unit], int]] = []
    group: list[_Unit] = []
    fresh = 0  # index in ``group`` of the first unit that is not overlap
    for unit in units:
        if group and unit.picture != group[-1].picture:
            # a picture's words and the page's text share no chunk, nor overlap: a
            # diagram's labels would blur a paragraph's meaning, and it theirs
            if len(group) > fresh:
                out.append((group, fresh))
            group, fresh = [], 0
        elif unit.heading and len(group) > fresh and not group[-1].heading:
            # a heading opens a new chunk: sections do not share chunks or overlap
            out.append((group, fresh))
            group, fresh = [], 0
        elif group and _length(group) + 1 + len(unit.text) > size:
            out.append((group, fresh))
            group = _tail(group, overlap)
            while group and _length(group) + 1 + len(unit.text) > size:
                group = group[1:]
            fresh = len(group)
        group = [*group, unit]
    if len(group) > fresh:
        out.append((group, fresh))
    return out


def _tail(group: list[_Unit], overlap: int) -> list[_Unit]:
    """The last lines of ``group`` that together hold about ``overlap`` characters."""
    tail: list[_Unit] = []
    for unit in reversed(group[1:]):  # never the whole group: the next chunk must move on
        if _length([unit, *tail]) > overlap * OVERLAP_SLACK:
            break
        tail.insert(0, unit)
    return tail


def _length(units: list[_Unit]) -> int:
    """Upper bound of the joined length (rejoined hyphenation only shortens it)."""
    return sum(len(u.text) for u in units) + len(units) - 1


def _running_headers(blocks: Sequence[Block]) -> set[str]:
    """Headings that recur on 3+ pages (running titles): not section names."""
    pages: dict[str, set[int]] = {}
    for b in blocks:
        if b.heading:
            pages.setdefault(_header_key(b.text), set()).add(b.page)
    return {key for key, seen in pages.items() if len(seen) >= 3}


def _header_key(text: str) -> str:
    return _DIGITS.sub("#", text.lower())

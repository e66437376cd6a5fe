"""Fitting text into chat limits: splitting at natural boundaries and clipping.

One home for what Slack (3,000-character sections, 4,000-character messages)
and Discord (2,000-character messages, 256-character embed titles) both need.
Cuts prefer a paragraph end, then a line end, then a sentence end, then a
space, and never land inside an HTML entity such as ``&amp;`` (Slack text is
escaped before it is split). Markup and escaping are the adapters' job.
"""

from __future__ import annotations

import re

# A sentence end followed by whitespace: cut after the space, before the next word.
_SENTENCE_END = re.compile(r"[.!?][)\]\"']*\s")
_LONGEST_ENTITY = 6  # "&quot;" is the longest entity the adapters produce


def split_text(text: str, limit: int) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, stripped, none empty."""
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        cut = _cut_point(rest, limit)
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending in "…" when cut (at a word
    end when one is near)."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit * 2 // 3:  # a word end near the limit reads better than half a word
        cut = cut[:space]
    return _entity_safe(cut).rstrip() + "…"


def _cut_point(text: str, limit: int) -> int:
    window = text[: limit + 1]  # a boundary exactly at ``limit`` still fits
    floor = limit // 3  # do not leave a tiny piece just to honour a boundary
    for sep in ("\n\n", "\n"):
        at = window.rfind(sep)
        if at >= floor:
            return at + len(sep)
    ends = [m.end() for m in _SENTENCE_END.finditer(window) if m.end() <= limit]
    if ends and ends[-1] >= floor:
        return ends[-1]
    at = window.rfind(" ")
    if at >= floor:
        return at + 1
    return len(_entity_safe(text[:limit])) or limit


def _entity_safe(text: str) -> str:
    """``text`` without a trailing, unfinished ``&…`` entity."""
    amp = text.rfind("&", max(0, len(text) - _LONGEST_ENTITY + 1))
    if amp >= 0 and ";" not in text[amp:]:
        return text[:amp]
    return text

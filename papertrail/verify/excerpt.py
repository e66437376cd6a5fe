"""An excerpt read once: its units, windows, word keys and numbers, kept for reuse.

Judging an answer reads the same excerpt for each of its claims, and again for
every alternative when a citation fails. ``parse`` cuts an excerpt into units
and windows (``evidence``), reads the words each unit asserts (``contrast.
asserted``: questions and mere mentions left out) and the numbers of each unit,
window and of the whole text, once per distinct text: the result depends on the
text alone, so a cached reading gives the same verdicts. ``context_keys`` does
the same for what a reader sees beside an excerpt. Nothing here judges a claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from papertrail.text.figures import Number, excerpt_numbers
from papertrail.text.periods import glued_quarters
from papertrail.text.words import word_keys
from papertrail.verify.evidence import Span, row_with_header, units, windows
from papertrail.verify.mentions import asserted

CACHED = 32  # excerpts kept: more than one answer's hits; each holds its units' word keys


@dataclass(frozen=True)
class Unit:
    start: int  # offsets into the excerpt's text
    end: int
    keys: frozenset[str]  # ``word_keys`` of what the unit asserts
    all_keys: frozenset[str]  # ... and of all its words, for a claim that itself asks or mentions
    numbers: tuple[Number, ...]


@dataclass(frozen=True)
class Excerpt:
    text: str
    numbers: tuple[Number, ...]  # of the whole text: a table states figures apart from words
    units: tuple[Unit, ...]
    windows: tuple[tuple[Span, tuple[Number, ...]], ...]  # each window with its numbers

    def keys(self, span: Span, *, asserted_only: bool = True) -> set[str]:
        """The word keys of the units inside ``span``: each unit was read once."""
        inside = [u for u in self.units if span.start <= u.start and u.end <= span.end]
        return set().union(*((u.keys if asserted_only else u.all_keys) for u in inside))

    def rows(self, start: int, end: int) -> tuple[tuple[int, int], ...]:
        """Unit ``start``..``end`` and, for a table row, its column headings (``evidence``)."""
        return _rows(self.text, start, end)


@lru_cache(maxsize=CACHED)
def parse(text: str) -> Excerpt:
    """``text`` read into units, windows, keys and numbers; one reading per distinct text."""
    said = asserted(text)
    unit_list = []
    for a, b, _ in units(text):
        every = frozenset(word_keys(text[a:b]))
        keys = every if said[a:b] == text[a:b] else frozenset(word_keys(said[a:b]))
        unit_list.append(Unit(a, b, keys, every, tuple(excerpt_numbers(text[a:b]))))
    spans = windows(text) or [Span(0, len(text), text)]
    return Excerpt(
        text,
        tuple(excerpt_numbers(text)),
        tuple(unit_list),
        tuple((s, tuple(excerpt_numbers(s.text))) for s in spans),
    )


_ORDINALS = ("first", "second", "third", "fourth")


@lru_cache(maxsize=CACHED)
def context_keys(context: str) -> frozenset[str]:
    """``word_keys`` of a document name and section heading, read once; a quarter the
    name glues to its year ("2023Q2") also as the words a claim writes for it ("Q2",
    "second quarter")."""
    if not context:
        return frozenset()
    keys = word_keys(context)
    for n in glued_quarters(context):
        keys |= word_keys(f"Q{n} {n}Q {_ORDINALS[n - 1]} quarter")
    return frozenset(keys)


@lru_cache(maxsize=CACHED * 4)
def _rows(text: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    return row_with_header(text, start, end)

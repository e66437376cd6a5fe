"""The named checks: each says, from one reading, why an excerpt may not state a claim.

A check is a small class with a ``name`` and one method, ``test(reading)``,
returning a reason for people or None. ``CHECKS`` lists them in the order they
are tried. Two kinds:

* **hard** checks veto a citation whatever else the excerpt holds. They fire
  only on precise evidence: a figure, date or unit of the claim that the
  excerpt lacks (``figures``), a span that only asks (``asks``), a negation of
  a word both texts use (``negation``), a contrasting word beside the same
  neighbour, "base" for "big" (``contrast``), another year or quarter than
  the excerpt names (``period``), the claim's own figure stated by the
  excerpt for another length of period or another comparison ("23% for the
  six months" for "23% in the quarter", "up from 65 last quarter" for "up
  from 65 a year earlier": ``figure-period``) or on the other side of a bound
  ("just under 100%" for "more than 100%": ``figure-bound``), both read by
  ``anchors``.
* **soft** checks weaken a citation: their firing is one input of the
  calibrated decision (``calibrated``), weighted by what the labelled pairs
  say it is worth, never a veto on its own (another period named in the
  excerpt, another length of period, a word of direction or rank the span
  lacks or turns around, a ranking the span lacks, a joined statement the span barely
  holds, a name the answer gives that the span lacks).

``active`` gives the checks left once some are switched off by name
(``Settings.without``, ``eval-verifier --without``). Scoring lives in
``reading`` and the decision in ``judge``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from papertrail.errors import PaperTrailError
from papertrail.verify.reading import Reading

MIN_CLAUSE = 0.25  # each statement a claim joins ("A, and B") needs this share in the span


class Check(Protocol):
    name: str
    hard: bool  # True: vetoes; False: an input of the calibrated decision

    def test(self, r: Reading) -> str | None: ...


class Figures:
    """A figure, date or unit of the claim that the excerpt states nowhere."""

    name, hard = "figures", True

    def test(self, r: Reading) -> str | None:
        if not r.missing_figs:
            return None
        noun = "figure" if len(r.missing_figs) == 1 else "figures"
        return f"{noun} {', '.join(r.missing_figs[:3])} not in excerpt"


class Asks:
    """A span that only asks states nothing."""

    name, hard = "asks", True

    def test(self, r: Reading) -> str | None:
        return r.asks


class Negation:
    """A word both texts use, negated in one and not in the other."""

    name, hard = "negation", True

    def test(self, r: Reading) -> str | None:
        return r.negation


class Contrast:
    """The claim's word replaced by a contrasting one beside the same neighbour."""

    name, hard = "contrast", True

    def test(self, r: Reading) -> str | None:
        return r.contrast


class Period:
    """The excerpt names years (quarters, halves), none of them the claim's: a date the
    excerpt contradicts."""

    name, hard = "period", True

    def test(self, r: Reading) -> str | None:
        return r.period


class PeriodLength:
    """The claim speaks of a quarter (a half, a year), the span only of another length."""

    name, hard = "period-length", False

    def test(self, r: Reading) -> str | None:
        return r.period_length


class FigurePeriod:
    """The excerpt states the claim's figure for another period length, comparison or year
    than the claim gives it ("23% for the six months" cited for "23% in the quarter")."""

    name, hard = "figure-period", True

    def test(self, r: Reading) -> str | None:
        return r.figure_period


class FigureBound:
    """The excerpt states the claim's figure as a bound on the other side ("just under
    100%" cited for "more than 100%")."""

    name, hard = "figure-bound", True

    def test(self, r: Reading) -> str | None:
        return r.figure_bound


class Direction:
    """The claim says something went up, the span only that it went down (or the reverse)."""

    name, hard = "direction", False

    def test(self, r: Reading) -> str | None:
        return r.direction


class Qualifier:
    """A word of direction, period or rank of the claim that the span lacks ("rose", "full")."""

    name, hard = "qualifier", False

    def test(self, r: Reading) -> str | None:
        return f"the excerpt does not say {r.qualifier!r}" if r.qualifier else None


class Superlative:
    """The claim ranks ("the largest") and the span ranks nothing."""

    name, hard = "superlative", False

    def test(self, r: Reading) -> str | None:
        return r.superlative


class Clauses:
    """One statement of a claim that joins several is barely in the span."""

    name, hard = "clauses", False

    def test(self, r: Reading) -> str | None:
        return r.unstated if r.clause_min < MIN_CLAUSE else None


class AnswerName:
    """A name the claim gives as its answer ("... is Little Rock") that the span lacks."""

    name, hard = "answer-name", False

    def test(self, r: Reading) -> str | None:
        return f"{', '.join(r.missing_keys[:3])} not in excerpt" if r.missing_keys else None


CHECKS: tuple[Check, ...] = (
    Figures(),
    Asks(),
    Negation(),
    Contrast(),
    Period(),
    FigurePeriod(),
    FigureBound(),
    PeriodLength(),
    Direction(),
    Qualifier(),
    Superlative(),
    Clauses(),
    AnswerName(),
)
NAMES = tuple(c.name for c in CHECKS)
SOFT = tuple(c.name for c in CHECKS if not c.hard)


def active(without: Iterable[str] = ()) -> tuple[Check, ...]:
    """The checks in order, less those named in ``without``. Other names are ignored:
    ``Settings.without`` also names answerers."""
    off = set(without)
    return tuple(c for c in CHECKS if c.name not in off)


def unknown(names: Iterable[str]) -> PaperTrailError | None:
    """An error naming what in ``names`` is no check, or None."""
    bad = sorted(set(names) - set(NAMES))
    if not bad:
        return None
    return PaperTrailError(
        f"No check named {', '.join(bad)}. The checks are: {', '.join(NAMES)}.", code="input"
    )

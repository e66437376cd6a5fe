"""The reporting period a document covers and the one a question asks about.

General knowledge of periodic reports: a filing or report is named and titled
by the period it covers ("MGMRESORTS_2023Q2_10Q", "For the fiscal year ended
December 31, 2019") and reports that period and earlier ones for comparison,
never later ones (except an outlook for the next). So a question about FY2020
(or "FY2018 - FY2020") is best served by the document of period 2020; one of
2021 may still hold it as a comparative figure; one of 2019 only as guidance;
one of 2018 not at all. ``match`` scores that in [0, 1].
It leaves out fiscal calendars (a "Q2" is compared as written, not as months).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_YEAR = r"(?:19|20)\d\d"
_NAME_PERIOD = re.compile(rf"(?<!\d)({_YEAR})(?:[ _-]?Q([1-4]))?(?!\d)", re.IGNORECASE)
_ENDED = re.compile(
    rf"(?:year|period|quarter)s? ended\s+(?:[A-Za-z]+\.?\s+\d{{1,2}},?\s+)?({_YEAR})", re.IGNORECASE
)
_ASKED_YEAR = re.compile(rf"(?<!\d)(?:FY\s?)?({_YEAR})(?!\d)", re.IGNORECASE)
_ASKED_SHORT_FY = re.compile(r"\bFY\s?(\d\d)\b", re.IGNORECASE)
_ASKED_QUARTER = re.compile(
    r"(?:\b|(?<=\d))Q([1-4])\b|\b(first|second|third|fourth) quarter|\b([1-4])Q\b", re.IGNORECASE
)
OUTLOOK = 0.3  # a report of the year before the asked one: guidance, never actuals
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4}


@dataclass(frozen=True)
class Period:
    year: int | None = None
    quarter: int | None = None


def of_document(name: str, opening: str) -> Period:
    """The period a document covers: from its file name, else its opening text."""
    found = _NAME_PERIOD.findall(name)
    if found:
        year, quarter = max(found, key=lambda f: (int(f[0]), f[1]))
        return Period(int(year), int(quarter) if quarter else None)
    ended = _ENDED.search(opening)
    return Period(int(ended.group(1))) if ended else Period()


def asked(question: str) -> Period:
    """The latest period ``question`` names (years, "FY22", "Q2"), if any."""
    years = [int(y) for y in _ASKED_YEAR.findall(question)]
    years += [2000 + int(y) for y in _ASKED_SHORT_FY.findall(question)]
    quarter = None
    m = _ASKED_QUARTER.search(question)
    if m:
        quarter = int(m.group(1) or m.group(3)) if not m.group(2) else _ORDINAL[m.group(2).lower()]
    return Period(max(years) if years else None, quarter)


def match(doc: Period, question: Period) -> float:
    """How well a document's period serves the asked one, in [0, 1]; 0 when unknown."""
    if doc.year is None or question.year is None:
        return 0.0
    gap = doc.year - question.year
    if gap < 0:  # a report never holds later periods' figures, only an outlook for the next
        return OUTLOOK if gap == -1 else 0.0
    score = 1.0 if gap == 0 else 0.5 if gap == 1 else 0.1
    if gap == 0 and question.quarter and doc.quarter and doc.quarter != question.quarter:
        score = 0.5 if doc.quarter > question.quarter else 0.0
    return score

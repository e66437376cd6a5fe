"""The period a dated document covers, the periods a question asks about, and how they meet.

General knowledge of periodic documents (filings, reports, earnings calls,
annual reviews): a document says on its first page which period it covers,
either by label ("Q1 2023 ... Earnings Call", "FY23 Third Quarter", "third
quarter of fiscal 2023") or by the day the period ended ("For the quarterly
period ended June 30, 2023", "fiscal year ended January 31, 2020"). A label is
the issuer's own (fiscal) name for the period; an end date also gives the
calendar quarter and year, which is how a reader without the issuer's fiscal
calendar names it. Both are kept and a question may use either.

A report holds its own period and, for comparison, earlier ones, never later
ones (except an outlook for the next): a question about FY2020 (or "FY2018 -
FY2020") is best served by the report of 2020, one of 2021 may hold it as a
comparative, one of 2019 only as guidance. Questions naming quarters name
documents ("between Q3 2021 and Q3 2023": two calls); "the latest" or "the last
three quarters" names the most recent documents. ``match`` scores a document
for a question in [0, 1]. ``named`` reads the years, quarters and halves any
text names, ``lengths`` the length of period it speaks of (a quarter, a half,
a year), and ``is_year`` / ``heading_year`` / ``ends_in_years`` a year written
as one word (a table's column headings): the one place years are read. It
leaves out holidays, week-based calendars and languages other than English.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from papertrail.text.memo import per_text

Named = Callable[[date], int]  # the end of a fiscal year -> the year it is named for
YEAR = r"(?:19|20)\d\d"  # a year as documents write it; the one year pattern
_MONTHS = "january february march april may june july august september october november december"
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
MONTH_WORD = (  # a month's name or its short form, never the start of a word ("margin")
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
)
_DATE = rf"({_MONTH})\s+(\d{{1,2}}),?\s+({YEAR})"
_ORDINAL = dict(first=1, second=2, third=3, fourth=4) | {"1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_ORD = r"(first|second|third|fourth|1st|2nd|3rd|4th)"
_FY = r"(?:fy\s?'?|fiscal\s+(?:year\s+)?)"
_Y = r"((?:19|20)?\d\d)"  # a year, maybe short ("FY23")

# A document's own label for its period, most specific first.
_LABELS = (  # (pattern, group of the quarter, group of the year)
    (re.compile(rf"\bq([1-4])\s*(?:of\s+)?(?:{_FY}{_Y}|({YEAR}))\b", re.I), 1, (2, 3)),
    (re.compile(rf"\b{_FY}{_Y}\s+(?:q([1-4])|{_ORD}[- ]quarter)\b", re.I), (2, 3), 1),
    (re.compile(rf"\b{_ORD}[- ]quarter\s+(?:of\s+)?(?:{_FY})?({YEAR})\b", re.I), 1, 2),
    (re.compile(rf"\b(?:{_FY})?({YEAR})\s+{_ORD}[- ]quarter\b", re.I), 2, 1),
    (re.compile(rf"\b([1-4])q\s*(?:{_FY}{_Y}|({YEAR}))\b", re.I), 1, (2, 3)),
)
_FISCAL_YEAR = re.compile(rf"\b{_FY}{_Y}\b", re.I)
_ENDED = re.compile(rf"\b(fiscal year|year|quarterly period|quarter|period|(?:three|six|nine|"
                    rf"twelve) months)s?\s+ended\s+{_DATE}", re.I)  # fmt: skip
_ANY_DATE = re.compile(rf"\b{_DATE}", re.I)
_NAME_PERIOD = re.compile(rf"(?<!\d)({YEAR})(?:[ _-]?Q([1-4]))?(?!\d)", re.I)

COVER_CHARS = 1500  # a cover page states the period it covers near its top
OUTLOOK = 0.3  # a report of the year before the asked one: guidance, never actuals
CALENDAR = 0.8  # a period matched by its calendar name, not the issuer's label
LATEST_WORDS = re.compile(r"\b(?:latest|most recent|newest|last (?:report|filing|quarter|call|year)"
                          r"|current quarter)\b", re.I)  # fmt: skip
_LAST_N = re.compile(r"\b(?:last|past|previous|latest|recent)\s+(two|three|four|five|six|\d)"
                     r"\s+(?:fiscal\s+)?(quarters|years|reports|filings|calls|documents)\b",
                     re.I)  # fmt: skip
_COUNT = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


@dataclass(frozen=True)
class Period:
    """A period: a year and maybe a quarter. Documents also carry when the period ended."""

    year: int | None = None
    quarter: int | None = None


@dataclass(frozen=True)
class Covered:
    """What a document covers: the issuer's label and the calendar period of its end date."""

    fiscal: Period = Period()  # as the document labels it ("Q1 2023", "fiscal 2020")
    calendar: Period = Period()  # from the end date: the calendar quarter or year it ends in
    end: str = ""  # ISO date the period ended, or the document's date; "" when unknown

    @property
    def known(self) -> bool:
        return self.fiscal.year is not None or self.calendar.year is not None

    def order(self) -> tuple:
        """Sort key: later periods sort higher (labels first, then dates)."""
        p = self.fiscal if self.fiscal.year is not None else self.calendar
        return (p.year or 0, p.quarter or 5, self.end)


@dataclass(frozen=True)
class Asked:
    """The periods a question names, and how many of the most recent documents it wants."""

    periods: tuple[Period, ...] = ()
    latest: int = 0  # "the latest report": 1; "the last three quarters": 3

    def __bool__(self) -> bool:
        return bool(self.periods) or self.latest > 0


def _year(text: str) -> int:
    return int(text) + (2000 if int(text) < 100 else 0)


def _quarter(raw: str) -> int:
    return int(raw) if raw.isdigit() else _ORDINAL[raw.casefold()]


def _iso(month: str, day: str, year: str) -> str:
    m = next(i for i, n in enumerate(_MONTHS.split(), 1) if n.startswith(month[:3].casefold()))
    try:
        return date(int(year), m, int(day)).isoformat()
    except ValueError:
        return ""


def label(text: str) -> Period:
    """The first period label in ``text`` ("Q1 2023", "FY23 Third Quarter", "fiscal 2020")."""
    best: tuple[int, Period] | None = None
    for pattern, q_group, y_group in _LABELS:
        m = pattern.search(text)
        if m is None:
            continue
        groups = q_group if isinstance(q_group, tuple) else (q_group,)
        raw = next(m.group(g) for g in groups if m.group(g))
        quarter = int(raw) if raw.isdigit() else _ORDINAL[raw.casefold()]
        years = y_group if isinstance(y_group, tuple) else (y_group,)
        found = Period(_year(next(m.group(g) for g in years if m.group(g))), quarter)
        if best is None or m.start() < best[0]:
            best = (m.start(), found)
    if best is not None:
        return best[1]
    m = _FISCAL_YEAR.search(text)
    return Period(_year(m.group(1))) if m else Period()


_FISCAL_QUARTER = (  # how a quarterly report's own text names its fiscal quarter
    re.compile(rf"\b{_ORD}[- ]quarter\s+of\s+fiscal\s+(?:year\s+)?{_Y}\b", re.I),
    re.compile(rf"\bfiscal\s+(?:year\s+)?{_Y}\s+{_ORD}[- ]quarter\b", re.I),
)


def fiscal_quarter(body: str) -> Period:
    """The fiscal quarter a quarterly report's text names most often ("third quarter of
    fiscal year 2023"), or nothing: covers give the date a quarter ended, not its name."""
    seen: dict[Period, int] = {}
    for n, pattern in enumerate(_FISCAL_QUARTER):
        for m in pattern.finditer(body):
            q, y = (m.group(1), m.group(2)) if n == 0 else (m.group(2), m.group(1))
            key = Period(_year(y), _quarter(q))
            seen[key] = seen.get(key, 0) + 1
    return max(seen, key=lambda p: (seen[p], p.year or 0)) if seen else Period()


def covered(name: str, opening: str, body: str = "", named_for: Named | None = None) -> Covered:
    """The period a document covers, from its opening text (and, for a quarterly report
    whose cover gives only an end date, its ``body``); the file name is a fallback. A
    fiscal year is named for the year it ends in, or as ``named_for(end)`` says (a
    domain's calendar, ``Domain.fiscal_year``)."""
    fiscal = label(opening)
    calendar, end = Period(), ""
    m = _ENDED.search(opening[:COVER_CHARS])
    if m:
        end = _iso(m.group(2), m.group(3), m.group(4))
        if end:
            d = date.fromisoformat(end)
            annual = m.group(1).casefold() in ("fiscal year", "year", "twelve months")
            if annual:  # the calendar year holding most of it
                calendar = Period(d.year if d.month >= 7 else d.year - 1)
            else:
                calendar = Period(d.year, (d.month - 1) // 3 + 1)
            if fiscal.year is None and annual:  # the name of a fiscal year, by its end
                fiscal = Period(named_for(d) if named_for else d.year)
    if not end:  # the document's own date (a call, a release, a current report)
        first = _ANY_DATE.search(opening)
        end = _iso(first.group(1), first.group(2), first.group(3)) if first else ""
        if end and fiscal.year is None:
            calendar = Period(int(end[:4]))
    if fiscal.year is None and calendar.quarter is not None:
        fiscal = fiscal_quarter(body)
    if fiscal.year is None:
        found = _NAME_PERIOD.findall(name.rsplit(".", 1)[0])
        if found:  # one signal among others: used only when the text names no fiscal period
            year, quarter = max(found, key=lambda f: (int(f[0]), f[1]))
            fiscal = Period(int(year), int(quarter) if quarter else None)
    return Covered(fiscal, calendar, end)


_Q_THEN_YEAR = re.compile(
    rf"\b((?:q[1-4]|{_ORD}[- ]quarter)"
    rf"(?:\s*(?:,|and|&|to|-|through)\s*(?:q[1-4]|{_ORD}[- ]quarter))*)"
    rf"\s*(?:of\s+)?(?:{_FY})?{_Y}\b",
    re.I,
)
_FY_THEN_Q = re.compile(rf"\b{_FY}{_Y}\s*(?:q([1-4])|{_ORD}[- ]quarter)\b", re.I)
_Q_IN = re.compile(rf"\bq([1-4])|{_ORD}[- ]quarter", re.I)
_ASKED_YEAR = re.compile(rf"(?<![\d$.,])(?:{_FY})?({YEAR})(?![\d%])|\b{_FY}(\d\d)\b", re.I)


def asked(question: str) -> Asked:
    """The periods ``question`` names and whether it wants the most recent documents.

    Quarters are kept one by one ("Q1 and Q2 2023": two); of years alone only the
    latest counts, because a report holds earlier years as comparatives.
    """
    quarters: list[Period] = []
    spans = []
    for m in _Q_THEN_YEAR.finditer(question):
        year = _year(m.group(m.lastindex))
        for q in _Q_IN.finditer(m.group(1)):
            quarters.append(Period(year, _quarter(q.group(1) or q.group(2))))
        spans.append(m.span())
    for m in _FY_THEN_Q.finditer(question):
        raw = m.group(2) or m.group(3)
        quarters.append(Period(_year(m.group(1)), _quarter(raw)))
        spans.append(m.span())
    years = [
        _year(m.group(1) or m.group(2))
        for m in _ASKED_YEAR.finditer(question)
        if not any(a <= m.start() < b for a, b in spans)
    ]
    bare = [
        _quarter(q.group(1) or q.group(2))
        for q in _Q_IN.finditer(question)
        if not any(a <= q.start() < b for a, b in spans)
    ]
    if bare and not quarters and len(set(years)) == 1:  # "In 2021, how did Q3 ...": Q3 2021
        quarters = [Period(years[0], q) for q in bare]
    periods = list(dict.fromkeys(quarters))
    if years and not quarters:
        periods.append(Period(max(years)))
    latest = 0
    n = _LAST_N.search(question)
    if n:
        latest = int(n.group(1)) if n.group(1).isdigit() else _COUNT[n.group(1).casefold()]
    elif LATEST_WORDS.search(question):
        latest = 1
    return Asked(tuple(periods), latest)


def _year_score(gap: int) -> float:
    """A report of year Y for a question about year Y - gap (see the module docstring)."""
    if gap < 0:
        return OUTLOOK if gap == -1 else 0.0
    return 1.0 if gap == 0 else 0.5 if gap == 1 else 0.1


def _one(doc: Period, want: Period) -> float:
    if doc.year is None or want.year is None:
        return 0.0
    if want.quarter is None:
        return _year_score(doc.year - want.year) * (0.8 if doc.quarter else 1.0)
    if doc.quarter is None:  # an annual report holds its fourth quarter, loosely the others
        return 0.5 if doc.year == want.year else 0.0
    if doc.year == want.year:
        return 1.0 if doc.quarter == want.quarter else 0.3 if doc.quarter > want.quarter else 0.0
    return 0.0


def match(doc: Covered, want: Period) -> float:
    """How well a document serves one asked period, in [0, 1]; 0 when either is unknown."""
    return max(_one(doc.fiscal, want), CALENDAR * _one(doc.calendar, want))


def of_fields(fiscal_year, fiscal_quarter, calendar_year, calendar_quarter, end: str) -> Covered:
    """A ``Covered`` from the flat fields a document's identity stores."""
    fiscal, calendar = Period(fiscal_year, fiscal_quarter), Period(calendar_year, calendar_quarter)
    return Covered(fiscal, calendar, end)


def shown(c: Covered) -> str:
    """The period for people: "Q1 fiscal 2023 (as of 2022-05-26)", "Q2 2023 (as of 2023-06-30)"."""
    parts = []
    if c.fiscal.year is not None:
        q = f"Q{c.fiscal.quarter} " if c.fiscal.quarter else ""
        parts.append(f"{q}fiscal {c.fiscal.year}")
    if c.calendar.year is not None and c.fiscal.year is None:
        q = f"Q{c.calendar.quarter} " if c.calendar.quarter else ""
        parts.append(f"{q}{c.calendar.year}")
    if c.end:
        parts.append(f"(as of {c.end})" if parts else f"as of {c.end}")
    return " ".join(parts)


_NAMED_Q = re.compile(rf"\b(?:q([1-4])|([1-4])q|{_ORD}\s+(?:fiscal\s+)?quarter)", re.I)
_NAMED_H = re.compile(r"\b(?:h([12])|(first|second|1st|2nd)\s+half)\b", re.I)
_NAMED_Y = re.compile(rf"(?<![\d.,$])(?:fy|cy|{_FY})?({YEAR})(?!\d|,\d|\.\d)", re.I)
_SHORT_FY = re.compile(r"\bfy\s?'?(\d\d)\b|\bq[1-4]\s?'(\d\d)\b", re.I)  # FY23, Q3 '23


@per_text
def named(text: str) -> dict[str, frozenset[int]]:
    """The years, quarters and halves ``text`` names, ``{"year": {2022}, "quarter": {3}}``:
    "2023", "FY23", "fiscal 2023", "Q3", "3Q", "third quarter", "H1", "first half"; an
    amount ("$2,023") is no year. Fiscal and calendar years are not told apart."""
    years = {int(m.group(1)) for m in _NAMED_Y.finditer(text)}
    years |= {2000 + int(m.group(1) or m.group(2)) for m in _SHORT_FY.finditer(text)}
    quarters = {_quarter(m.group(1) or m.group(2) or m.group(3)) for m in _NAMED_Q.finditer(text)}
    halves = {_quarter(m.group(1) or m.group(2)) for m in _NAMED_H.finditer(text)}
    found = (("year", years), ("quarter", quarters), ("half", halves))
    return {kind: frozenset(v) for kind, v in found if v}


# --- years as single words: a table's column headings, tokens, a figure that is a year --

_IS_YEAR = re.compile(YEAR)
_HEADING_YEAR = re.compile(rf"^(?:FY|fiscal\s?)?({YEAR})$", re.I)
_HEADING_DATE = re.compile(rf"^(?:at|as|of|ended|end|{_MONTH}|[0-3]?\d,?)$", re.I)
_YEARS_AT_END = re.compile(rf"(?:\b{YEAR}\b[\s,]*){{2,}}[.:;]?$")
# a year, a period label with its year, or a short number as one token: "2019", "fy23",
# "q32023", "2019q4", "512" (a lone "q3" is a word of its own)
_PERIOD_TOKEN = re.compile(r"^(?:fy|cy|q[1-4]|h[12])?\d{2,4}[a-z]?$|^\d{4}q[1-4]$")


def is_year(text: str) -> bool:
    """``text`` is a year and nothing else: "2019" (not "2019,", not "3019")."""
    return bool(_IS_YEAR.fullmatch(text))


def heading_year(word: str) -> str:
    """The year a column heading names ("2019", "FY2019", "fiscal 2019"), else ""."""
    m = _HEADING_YEAR.match(word)
    return m.group(1) if m else ""


def heading_date_word(word: str) -> bool:
    """A word of the date before a column heading's year: "At", "December", "31,", "ended"."""
    return bool(_HEADING_DATE.match(word))


def ends_in_years(text: str) -> bool:
    """``text`` ends in a row of two or more years: a table's headings, not a sentence."""
    return bool(_YEARS_AT_END.search(text))


def is_period_token(token: str) -> bool:
    """A lowercase token that is a year, a period with its year or a short number ("2019",
    "fy23", "2019q4", "512"): no content word."""
    return bool(_PERIOD_TOKEN.match(token))


# A year that ends in the first half of a calendar year ("fiscal year ended January 28, 2024")
# is as often named for the year before (retailers' "fiscal 2023") as for the year it ends in
_EARLY_YEAR_END = re.compile(
    rf"\b(?:fiscal\s+)?(?:year|5[23][- ]weeks?)\s+end(?:ed|ing)\s+(?:on\s+)?"
    rf"(?:jan|feb|mar|apr|may|jun)[a-z]*\.?\s+\d{{1,2}},?\s+({YEAR})",
    re.I,
)


def early_year_names(text: str) -> set[int]:
    """The other names of the years ``text`` says end in January to June: the year before."""
    return {int(m.group(1)) - 1 for m in _EARLY_YEAR_END.finditer(text)}


# A quarter glued to its year in a file name ("ACME_2023Q2_EARNINGS", "report-2023-q2")
_GLUED_QUARTER = re.compile(rf"(?<!\d){YEAR}[ _-]?q([1-4])(?![^\W_])", re.I)


def glued_quarters(name: str) -> list[int]:
    """The quarters ``name`` glues to their year ("2023Q2" -> 2), in order."""
    return [int(m.group(1)) for m in _GLUED_QUARTER.finditer(name)]


# A date as a question writes it, with its lead-in: "as of May 26, 2023", "ended June 30"
_DATE_PHRASE = re.compile(
    r"\b(?:(?:as\s+(?:of|at)|on|ended|ending)\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov"
    rf"|dec)[a-z]*\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+{YEAR})?\b",
    re.I,
)


def without_dates(text: str) -> str:
    """``text`` with its dates ("as of May 26, 2023") blanked out."""
    return _DATE_PHRASE.sub(" ", text)

"""Financial metrics a question asks to work out, as formulas over statement rows.

``metric`` reads the asking sentence of a question for a textbook metric
(fixed asset turnover, days payable outstanding, EBITDA margin, revenue
growth, ...) or a statement line item asked as an amount (capital
expenditure, total assets, ...), and the fiscal years it is asked for; it
returns a ``Metric``: the formula, the rows it needs in which years and
statements, and how to state the result (decimals, percent, money scale, as
the question asks). A range of years with "average" averages the metric over
them. The definitions are the standard ones (averages of opening and closing
balances for turnover and return ratios); it leaves out metrics whose inputs
vary by company (quick ratio, adjusted figures) and anything outside the three
primary statements.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from papertrail.domains.finance.rows import ROWS
from papertrail.types import Metric, Term

Build = Callable[["_Terms", int], str]  # (terms, year) -> formula for that year


class _Terms:
    """Collects the terms a formula uses and hands out their placeholders."""

    def __init__(self) -> None:
        self.terms: list[Term] = []

    def __call__(self, name: str, year: int) -> str:
        statement, labels, outflow = ROWS[name]
        term = Term(name, labels, year, statement, outflow)
        if term not in self.terms:
            self.terms.append(term)
        return f"{{{self.terms.index(term)}}}"


def _avg(t: _Terms, name: str, y: int) -> str:
    return f"(({t(name, y)} + {t(name, y - 1)}) / 2)"


def _ebitda(t: _Terms, y: int) -> str:
    return f"({t('operating income', y)} + {t('depreciation and amortization', y)})"


# (pattern on the asking sentence, name, build, percent by default, money); first match wins
_METRICS: tuple[tuple[str, str, Build, bool, bool], ...] = (
    (
        r"ebitda (?:less|minus) (?:capex|capital expenditures?)",
        "EBITDA less capital expenditure",
        lambda t, y: f"{_ebitda(t, y)} - {t('capital expenditure', y)}",
        False,
        True,
    ),
    (
        r"ebitda (?:% |percent(?:age)? )?margin",
        "EBITDA margin",
        lambda t, y: f"{_ebitda(t, y)} / {t('revenue', y)}",
        True,
        False,
    ),
    (r"\bebitda\b", "EBITDA", _ebitda, False, True),
    (
        r"(?:capex|capital expenditures?) as a (?:%|percent(?:age)?) of (?:total )?"
        r"(?:revenues?|sales)",
        "capital expenditure as a share of revenue",
        lambda t, y: f"{t('capital expenditure', y)} / {t('revenue', y)}",
        True,
        False,
    ),
    (
        r"fixed asset turnover",
        "fixed asset turnover ratio",
        lambda t, y: f"{t('revenue', y)} / {_avg(t, 'PP&E', y)}",
        False,
        False,
    ),
    (
        r"inventory turnover",
        "inventory turnover ratio",
        lambda t, y: f"{t('cost of sales', y)} / {_avg(t, 'inventory', y)}",
        False,
        False,
    ),
    (
        r"days payable outstanding|\bdpo\b",
        "days payable outstanding",
        lambda t, y: (
            f"365 * {_avg(t, 'accounts payable', y)} / ({t('cost of sales', y)}"
            f" + {t('inventory', y)} - {t('inventory', y - 1)})"
        ),
        False,
        False,
    ),
    (
        r"return on assets|\broa\b",
        "return on assets",
        lambda t, y: f"{t('net income', y)} / {_avg(t, 'total assets', y)}",
        False,
        False,
    ),
    (
        r"return on (?:shareholders |stockholders )?equity|\broe\b",
        "return on equity",
        lambda t, y: f"{t('net income', y)} / {_avg(t, 'equity', y)}",
        False,
        False,
    ),
    (
        r"working capital ratio|current ratio",
        "current ratio",
        lambda t, y: f"{t('current assets', y)} / {t('current liabilities', y)}",
        False,
        False,
    ),
    (
        r"working capital",
        "working capital",
        lambda t, y: f"{t('current assets', y)} - {t('current liabilities', y)}",
        False,
        True,
    ),
    (
        r"(?:revenue|sales) growth|growth (?:rate )?(?:in|of) (?:total )?(?:net )?(?:revenue|sales)"
        r"|change in (?:total )?(?:net )?(?:revenue|sales)",
        "revenue growth",
        lambda t, y: f"({t('revenue', y)} - {t('revenue', y - 1)}) / {t('revenue', y - 1)}",
        True,
        False,
    ),
    (
        r"gross (?:profit )?margin",
        "gross margin",
        lambda t, y: f"({t('revenue', y)} - {t('cost of sales', y)}) / {t('revenue', y)}",
        True,
        False,
    ),
    (
        r"operating (?:income |profit )?margin",
        "operating margin",
        lambda t, y: f"{t('operating income', y)} / {t('revenue', y)}",
        True,
        False,
    ),
    (
        r"(?:net (?:income |profit )?|profit )margin",
        "net profit margin",
        lambda t, y: f"{t('net income', y)} / {t('revenue', y)}",
        True,
        False,
    ),
    (
        r"interest coverage",
        "interest coverage ratio",
        lambda t, y: f"{t('operating income', y)} / {t('interest expense', y)}",
        False,
        False,
    ),
    (
        r"effective tax rate",
        "effective tax rate",
        lambda t, y: f"{t('income tax', y)} / {t('pretax income', y)}",
        True,
        False,
    ),
    (
        r"free cash flow",
        "free cash flow",
        lambda t, y: f"{t('operating cash flow', y)} - {t('capital expenditure', y)}",
        False,
        True,
    ),
)
# A line item asked as an amount: (pattern on the asking sentence, row name)
_ITEMS = (
    (r"\bcapex\b|capital expenditures?", "capital expenditure"),
    (r"cash (?:flows? )?(?:from|provided by) operat|operating cash flow", "operating cash flow"),
    (r"dividends", "dividends paid"),
    (r"net income|net earnings", "net income"),
    (r"total current liabilities", "current liabilities"),
    (r"total current assets", "current assets"),
    (r"total assets", "total assets"),
    (r"accounts payable", "accounts payable"),
    (r"depreciation and amortization|\bd\s?&\s?a\b", "depreciation and amortization"),
    (r"cost of (?:goods sold|sales)|\bcogs\b", "cost of sales"),
    (r"operating income", "operating income"),
    (r"(?:total |net )?(?:revenues?|net sales)\b", "revenue"),
    (r"\bpp\s?&\s?e\b|property,? plant,? (?:and|&) equipment", "PP&E"),
    (r"\binventor(?:y|ies)\b", "inventory"),
    (r"(?:shareholders|stockholders)'? equity|\btotal equity", "equity"),
    (r"interest expense", "interest expense"),
    (r"(?:income|earnings) before (?:provision for )?income tax|pre-?tax income", "pretax income"),
    (r"income tax", "income tax"),
)
_YEAR = re.compile(r"\b(?:FY\s?|fiscal (?:year )?)?((?:19|20)\d\d)\b", re.I)
_AVERAGE = re.compile(r"\baverage\b", re.I)
_DECIMALS = re.compile(r"\b(one|two|three|zero|\d) decimal", re.I)
_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3}
_PERCENT = re.compile(r"%|\bpercent", re.I)
_SCALE = re.compile(r"\b(?:usd|us\$|\$|dollars)?\s?(millions|billions|thousands)\b", re.I)
_SHARE = re.compile(
    r"(?:%|percent(?:age)?) margin"
    r"|as a (?:%|percent(?:age)?) of (?:total )?(?:net )?(?:revenue|sales)"
)
_YES_NO = re.compile(r"(?:[\w,' ]*: )?(?:is|are|was|were|did|does|do|has|have|had|can|will)\b")
_SIGN = re.compile(r"\b(?:positive|negative)\b")  # "Does it have positive working capital?"
_ADJUSTED = re.compile(r"(?<!un)adjusted\b")
_ASKS = re.compile(r"[^?]*\?")  # the asking sentence: up to its question mark
# a sentence that names the metric to work out after a question that words it otherwise
_COMPUTE = re.compile(r"(?:^|[.?;]\s+)((?:calculate|compute|work out)\b[^.;?]*)", re.I)


def _defined(formula: str, low: str) -> tuple[str, str, Build, bool, bool] | None:
    """The spec of a ratio the question defines itself ("... is defined as: A / B"), when
    both A and B name line items (an "average" one over the year and the one before)."""
    sides = [x.strip(" ()") for x in re.split(r"\s*[/÷]\s*", formula.casefold())]
    rows = [next((r for p, r in _ITEMS if re.search(p, side)), None) for side in sides]
    if len(sides) != 2 or None in rows:
        return None
    avg = [bool(_AVERAGE.search(side)) for side in sides]
    named = re.search(r"([a-z][\w&%' -]{2,60}?)\s+(?:is|are)?\s*defined as", low)
    name = named.group(1).strip() if named else f"{rows[0]} to {rows[1]} ratio"

    def build(t: _Terms, y: int) -> str:
        a, b = (_avg(t, r, y) if v else t(r, y) for r, v in zip(rows, avg, strict=True))
        return f"{a} / {b}"

    return ("", name, build, False, False)


def metric(question: str, defined: str = "") -> Metric | None:
    """The metric ``question`` asks to work out or look up, for its fiscal years, or None;
    ``defined`` is the formula the question gives a ratio of its own (``Ask.defined``)."""
    asking = " ".join(_ASKS.findall(question)) or question
    low = " ".join(asking.casefold().replace("&", " & ").split())
    years = sorted({int(m.group(1)) for m in _YEAR.finditer(asking)})
    if not years:
        return None
    # a yes/no question asks for no figure, unless it asks for the sign of one
    if (_YES_NO.match(low) and not _SIGN.search(low)) or _ADJUSTED.search(low):
        return None  # a yes/no question, or a company's own adjusted figure
    spec = next((m for m in _METRICS if re.search(m[0], low)), None)
    said = " ".join(m.group(1).casefold() for m in _COMPUTE.finditer(question))
    if spec is None and said:  # "How many times ...? Calculate inventory turnover ratio."
        spec = next((m for m in _METRICS if re.search(m[0], said)), None)
    if spec is None and defined:  # a ratio in the question's own words, worked out alike
        spec = _defined(defined, " ".join(question.casefold().split()))
    share = _SHARE.search(low)
    if spec is None and share:  # a line item as a share of revenue ("D&A % margin")
        row = next((r for p, r in _ITEMS if re.search(p, low[: share.start()])), None)
        if row is None or row == "revenue":
            return None
        spec = (
            "",
            f"{row} as a share of revenue",
            lambda t, y: f"{t(row, y)} / {t('revenue', y)}",
            True,
            False,
        )
    elif spec is None:  # a line item asked as an amount
        row = next((r for pattern, r in _ITEMS if re.search(pattern, low)), None)
        if row is None or len(years) > 1 or _PERCENT.search(asking):
            return None  # a percentage asked is no amount of one line item
        spec = ("", row, lambda t, y: t(row, y), False, True)
    _, name, build, percent, money = spec
    span = years if _AVERAGE.search(low) and len(years) == 2 else [years[-1]]
    if len(span) == 2:
        span = list(range(span[0], span[1] + 1))
    terms = _Terms()
    parts = [build(terms, y) for y in span]
    formula = parts[0] if len(parts) == 1 else f"({' + '.join(parts)}) / {len(parts)}"
    asked_percent = bool(_PERCENT.search(question))
    m = _DECIMALS.search(question)
    decimals = _WORDS.get(m.group(1).lower()) if m else None
    decimals = int(m.group(1)) if m and decimals is None else decimals
    scale = _SCALE.search(question)
    period = f"FY{span[0]}–FY{span[-1]} average" if len(span) > 1 else f"FY{span[0]}"
    unit = scale.group(1).lower().rstrip("s") if scale and money else ""
    if decimals is None:  # as analysts state them: 30.8%, 24.26, $4.60 billion, $1,577 million
        decimals = 1 if percent or asked_percent else 2 if unit == "billion" or not money else 0
    return Metric(
        name=f"{period} {name}",
        formula=formula,
        terms=tuple(terms.terms),
        decimals=decimals,
        percent=not money and (percent or asked_percent),
        money=money,
        scale=unit,
    )

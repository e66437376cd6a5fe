"""Financial filings and reports as a ``Domain``: how they introduce themselves, and their words.

A filing's cover page says what it is ("FORM 10-Q", "QUARTERLY REPORT"), who
filed it (the line above "(Exact name of registrant as specified in its
charter)") and under which trading symbols its shares trade (the column under
"Trading Symbol(s)"); an earnings release names the issuer with its exchange
and symbol ("PepsiCo, Inc. (NASDAQ: PEP)"); a call transcript says "Earnings
Call". A document with none of these is not a financial one, and gets none of
the glossary's rules (``terms``). The metrics a question may ask to work out
from the statements are ``metrics``'s. It leaves out non-US filings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from papertrail.domains.finance import metrics, terms
from papertrail.types import Ask, Chunk, Metric

TITLE_CHARS = 600  # a cover page says what the document is within its first lines


def _form(code: str) -> re.Pattern:
    """A cover's form line: "FORM 10-K" in capitals, or "Form 10-K" opening a line (not
    "see our Form 10-K" in a sentence)."""
    return re.compile(rf"FORM\s+{code}\b|^[\W_]*(?i:form)\s+{code}\b", re.M)


def _said(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.I | re.S)


_FORMS = (  # (pattern on the cover, kind), checked in order
    (_said(r"\bearnings\s+(?:conference\s+)?call\b"), "earnings call"),
    (_form("10-?K"), "annual report (10-K)"),
    (_form("10-?Q"), "quarterly report (10-Q)"),
    (_form("8-?K"), "current report (8-K)"),
    (_form("20-?F"), "annual report (20-F)"),
    (
        _said(
            r"\breports?\s+(?:(?:first|second|third|fourth)[- ]quarter"
            r"|(?:full[- ]year|annual|quarterly))"
            r"|\b(?:quarter|year)(?:ly)?\s+(?:\d{4}\s+)?(?:financial\s+)?results\b"
            r"|\b(?:first|second|third|fourth)[- ]quarter\b.{0,40}\b(?:results|sales|earnings)\b"
        ),
        "earnings release",
    ),
    (_said(r"\bannual\s+report\s+to\s+(?:share|stock)holders\b"), "annual report"),
)
_REGISTRANT = re.compile(r"([^\n]{2,100})\n\s*\(exact name of registrant", re.I)
_NOT_A_NAME = re.compile(r"commission|file number|period|report|act of|\d{3}-\d", re.I)
_TRANSCRIPT = re.compile(r"transcript of ([A-Z][\w.,&' -]{1,60}?) earnings", re.I)
_LISTED = re.compile(
    r"([A-Z][\w.,&' -]{1,60}?)\s*\((?:NYSE|NASDAQ|Nasdaq|NYSE American|AMEX)\s*:\s*([A-Z.]{1,6})\)"
)
_SYMBOLS = re.compile(
    r"trading\s+symbol\(?s?\)?(.{0,600}?)(?:indicate by check|section 12\(g\))", re.I | re.S
)
_SYMBOL = re.compile(r"(?<![\w$.(])(?<!Class )(?<!Series )([A-Z]{1,5})(?![\w.%)])")
_NOT_SYMBOLS = {
    "NYSE",
    "LLC",
    "INC",
    "PLC",
    "USA",
    "NA",
    "N",
    "DE",
    "NY",
    "CA",
    "OR",
    "THE",
    "AND",
    "OF",
}
_SUFFIX = re.compile(
    r"[,\s]+(?:inc|incorporated|corp|corporation|co|company|ltd|limited|plc|llc|l\.p|n\.v|s\.a"
    r"|ag|se)\.?$",
    re.I,
)


def short_name(issuer: str) -> str:
    """The issuer without its legal form: "WALMART INC." -> "WALMART"."""
    name = issuer.strip()
    while True:
        shorter = _SUFFIX.sub("", name).strip(" ,")
        if shorter == name:
            return name
        name = shorter


class Finance:
    """The finance domain (see the module docstring)."""

    name = "finance"
    amounts = frozenset("revenue revenues income sales cash earnings ebitda eps".split())
    contrasts = ("basic | diluted",)  # per-share figures: "basic EPS" is not "diluted EPS"

    def recognise(self, opening: str) -> dict[str, object] | None:
        head = opening[:TITLE_CHARS]
        kind = next((k for pattern, k in _FORMS if pattern.search(head)), "")
        if not kind:
            return None
        issuer, aliases = "", []
        m = _REGISTRANT.search(opening) or _TRANSCRIPT.search(opening)
        listed = _LISTED.search(opening)
        if m and not _NOT_A_NAME.search(m.group(1)):
            issuer = " ".join(m.group(1).split())
        elif listed:  # "PURCHASE, N.Y. - April 25, 2023 - PepsiCo, Inc. (NASDAQ: PEP)"
            issuer = " ".join(listed.group(1).split()).rsplit(" - ", 1)[-1].strip("- ")
        if listed:
            aliases.append(listed.group(2))
        table = _SYMBOLS.search(opening)
        if table:
            aliases += [s for s in _SYMBOL.findall(table.group(1)) if s not in _NOT_SYMBOLS]
        if issuer and short_name(issuer) != issuer:
            aliases.append(short_name(issuer))
        out: dict[str, object] = {"kind": kind, "aliases": tuple(dict.fromkeys(aliases))}
        if issuer:
            out["issuer"] = issuer
            if kind.endswith(")"):  # a form: its title is the issuer and the form
                out["title"] = f"{issuer}, {kind}"
        return out

    def fiscal_year(self, end: date) -> int:
        # the year it ends in, or the one before for a 52/53-week year ending in early
        # January (a retailer's year ending on January 1, 2023 is its fiscal 2022)
        return end.year - 1 if (end.month, end.day) <= (1, 7) else end.year

    def clean(self, question: str) -> str:
        return terms.strip_instructions(question)

    def expand(self, question: str) -> str:
        return terms.expand(question)

    def sections_named(self, question: str) -> set[str]:
        return terms.statements_named(question)

    def section_rows(self, chunks: Sequence[Chunk]) -> dict[str, list[int]]:
        return terms.statement_rows(chunks)

    def metric(self, ask: Ask) -> Metric | None:
        return metrics.metric(ask.text, defined=ask.defined)

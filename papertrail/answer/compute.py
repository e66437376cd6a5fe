"""Working out a figure from table rows, so the verifier can check every step.

``calculate`` takes a ``Metric`` (what a domain read the question to ask: a
formula over rows in given years) and the retrieved excerpts. For each term it
finds the row whose label matches (``Term.labels``, most specific first) in a
table of the best-ranked excerpt's document whose columns include the term's
year, preferring excerpts in the kind of section the term names (a domain says
which excerpts are, e.g., a balance sheet), then the earliest table. It works
the formula out (``text.formula``), states the result as the question asks
(decimals, percent, money in millions or billions) and returns a
``Calculation``: every operand with its excerpt, cell and the sentence that
excerpt must state. It returns None when a term has no row, when the terms'
tables disagree on the unit, or when the arithmetic fails. It reads only tables
whose columns are years, and never guesses a figure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from papertrail.answer.tables import Row, own_labels, rows_in, say
from papertrail.protocols import Domain
from papertrail.text.formula import FormulaError, cell_value, evaluate, stated
from papertrail.types import Ask, Calculation, Hit, Metric, Operand, Term


def label_key(label: str) -> str:
    """A row label as ``Term.labels`` match it: lower case, "&" as "and", no punctuation."""
    text = label.casefold().replace("&", " and ")
    return " ".join(re.sub(r"[^\w ]+", " ", text).split())


def _kinds(hits: Sequence[Hit], domains: Sequence[Domain]) -> dict[int, str]:
    """0-based hit -> the kind of section it lies in, as the domains tell."""
    chunks = [h.chunk for h in hits]
    out: dict[int, str] = {}
    for domain in domains:
        for kind, rows in domain.section_rows(chunks).items():
            for k in rows:
                out.setdefault(k, kind)
    return out


def _find(
    term: Term, found: list[tuple[int, Row, str]], kinds: dict[int, str], hits_order: list[int]
) -> tuple[int, Row, str, str] | None:
    """(hit, row, own label, unit) for ``term``: the first label pattern any row matches, in
    a table of the term's section kind before one of unknown kind; never another kind's."""
    year = str(term.year)
    for pattern in term.labels:
        best = None
        for k, row, unit in found:
            kind = kinds.get(k, "")
            if year not in row.years or (term.section and kind and kind != term.section):
                continue
            own = next(
                (t for t in own_labels(row.label) if re.fullmatch(pattern, label_key(t))), None
            )
            if own is None:
                continue
            # the term's own section first, then the earlier table: a filing's primary
            # statements come before its subsidiaries' and its notes
            key = (0 if kind == term.section else 1, hits_order[k])
            if best is None or key < best[0]:
                best = (key, (k, row, own, unit))
        if best:
            return best[1]
    return None


def calculate(
    metric: Metric, hits: Sequence[Hit], domains: Sequence[Domain] = ()
) -> Calculation | None:
    """The worked-out ``metric`` from the rows of ``hits``, or None (see the module)."""
    doc_id = hits[0].chunk.doc_id if hits else ""
    # one document's tables: figures of two companies (or two filings) never mix
    found = [(k, row, unit) for k, row, unit in rows_in(hits) if hits[k].chunk.doc_id == doc_id]
    kinds = _kinds(hits, domains)
    order = [h.chunk.index for h in hits]
    operands: list[Operand] = []
    units = set()
    for term in metric.terms:
        got = _find(term, found, kinds, order)
        if got is None:
            return None
        k, row, own, unit = got
        col = row.years.index(str(term.year))
        value = cell_value(row.values[col])
        if value is None:
            return None
        if term.outflow:
            value = abs(value)
        units.add(unit)
        claim = say(Row(own, row.values, row.years, row.money), col, unit)
        operands.append(Operand(term, k + 1, own, row.values[col], value, claim))
    if len(units) > 1:
        return None  # one table in thousands, another in millions: not comparable as read
    try:
        value = evaluate(metric.formula, [o.value for o in operands])
    except FormulaError:
        return None
    unit = units.pop() if units else ""
    return Calculation(metric, tuple(operands), stated(metric, value, unit), unit)


def worked_out(
    ask: Ask, hits: Sequence[Hit], domains: Sequence[Domain], printed: str = ""
) -> Calculation | None:
    """The metric a domain reads ``ask`` to ask, worked out from the rows of ``hits``.

    A figure the document prints under the metric's own name (``printed``, a table
    row's sentence: "Gross margin in 2022 was $582 million") beats working it out; a
    line item is still looked up the metric's way (its statement, the unit asked).
    """
    for domain in domains:
        metric = domain.metric(ask)
        calc = calculate(metric, hits, domains) if metric else None
        if calc is None:
            continue
        named = calc.metric.name.split(" ", 1)[1]  # without its period
        if len(calc.operands) == 1 or not printed.lower().startswith(named):
            return calc
    return None


def sentence(calc: Calculation) -> str:
    """The answer: "The FY2019 fixed asset turnover ratio was 24.26." (no citation yet)."""
    if len(calc.operands) == 1:  # a line item: its own label ("Total net sales in 2017 were")
        o = calc.operands[0]
        label = o.label[:1].upper() + o.label[1:]
        return f"{label} in {o.term.year} {_verb(o.label)} {calc.result}."
    return f"The {calc.metric.name} {_verb(calc.metric.name)} {calc.result}."


def _verb(name: str) -> str:
    """ "were" after a plural head noun ("total assets"), else "was"."""
    head = re.split(r" (?:of|on|by|from|in|for|provided|used|paid)\b", name.lower())[0].split()[-1]
    return "were" if head.endswith("s") and not head.endswith(("ss", "us", "is")) else "was"

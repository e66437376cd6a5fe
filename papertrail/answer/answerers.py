"""The offline answerer's rules, each an ``Answerer`` with a name, tried in one ordered list.

``registry`` builds the list: first each domain's worked-out metric (``compute``:
a ratio, a growth, a line item in a unit, checked operand by operand by the
verifier), then what a listing or a definition states outright (the long form
of an acronym, the name beside a code or quoted term, the value printed after a
label, the definition a glossary gives, the caption of a table or figure asked
about), then a table figure with its row,
column and period (``tables``), then the quoted sentences (``quote.Quote``).
The first rule that returns a ``Draft`` answers, and ``Draft.by`` says which.
A rule whose name is in ``without`` is left out (``eval --without NAME``
measures what each one adds). The list is data: a new rule is a class with a
``name`` and ``answer(ask, hits)`` added here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from papertrail.answer.captions import Caption
from papertrail.answer.compute import sentence, worked_out
from papertrail.answer.definitions import definition_answer
from papertrail.answer.lookup import acronym_answer, field_answer, lookup_answer
from papertrail.answer.quote import Quote, cite
from papertrail.answer.tables import figure_answer
from papertrail.protocols import Answerer, Domain, Embedder
from papertrail.types import Ask, Draft, Hit

Found = Callable[[Ask, Sequence[Hit]], "tuple[str, int] | None"]  # (sentence, 1-based hit)


class DomainMetric:
    """A figure a domain reads the question to ask, worked out from table rows."""

    def __init__(self, domain: Domain, domains: Sequence[Domain]) -> None:
        self.domain = domain
        self.domains = tuple(domains)  # their wording, for the printed figure it may beat
        self.name = f"{domain.name} metric"

    def answer(self, ask: Ask, hits: Sequence[Hit]) -> Draft | None:
        if ask.explains:
            return None
        printed = figure_answer(ask, hits, self.domains)
        calc = worked_out(ask, hits, (self.domain,), printed=printed[0] if printed else "")
        return Draft(sentence(calc), "extractive", calculation=calc) if calc else None


class TableFigure:
    """The table row the question names, in the column of the year it asks."""

    name = "table figure"

    def __init__(self, domains: Sequence[Domain]) -> None:
        self.domains = tuple(domains)

    def answer(self, ask: Ask, hits: Sequence[Hit]) -> Draft | None:
        found = None if ask.explains else figure_answer(ask, hits, self.domains)
        return Draft(cite(*found), "extractive") if found else None


class Stated:
    """What an excerpt states outright for the question, quoted as printed."""

    def __init__(self, name: str, find: Found) -> None:
        self.name = name
        self.find = find

    def answer(self, ask: Ask, hits: Sequence[Hit]) -> Draft | None:
        found = self.find(ask, hits)
        return Draft(cite(*found), "extractive") if found else None


def registry(
    embedder: Embedder | None = None,
    domains: Sequence[Domain] = (),
    *,
    max_sentences: int = 3,
    without: Sequence[str] = (),
) -> tuple[Answerer, ...]:
    """The answerers in the order they are tried (see the module docstring)."""
    rules: tuple[Answerer, ...] = (
        *(DomainMetric(d, domains) for d in domains),
        Stated("acronym", acronym_answer),
        Stated("lookup", lookup_answer),
        Stated("field", field_answer),
        Stated("definition", definition_answer),
        Caption(),
        TableFigure(domains),
        Quote(embedder, max_sentences),
    )
    return tuple(r for r in rules if r.name not in set(without))


def names(domains: Sequence[Domain] = ()) -> tuple[str, ...]:
    """Every answerer's name, in order (for ``--without`` and the eval tables)."""
    return tuple(r.name for r in registry(None, domains))

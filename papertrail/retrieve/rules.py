"""The retrieval rules that a measurement can switch off by name (``--without NAME``).

Each is a piece of knowledge the retriever applies on top of plain dense and BM25
search; switching one off shows what it adds on each question set (``papertrail eval
--without expansion``, or ``PAPERTRAIL_WITHOUT``). The same switch names the offline
answerers and the citation checks; this module knows only the retriever's names.
"""

from __future__ import annotations

from collections.abc import Iterable

RULES: dict[str, str] = {
    "expansion": "a domain's wording for what the question names, added to the BM25 query",
    "instructions": "a domain's answer-format sentences, dropped from the question",
    "sections": "the pages of a section or statement the question names, made candidates",
    "figures": "the lift of a passage that prints an exact figure of the question",
    "labels": 'the pages that print a table or figure label the question names ("table II")',
}


def on(without: Iterable[str] = ()) -> frozenset[str]:
    """The rules left on when those ``without`` names are switched off."""
    return frozenset(RULES) - set(without)

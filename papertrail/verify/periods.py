"""A claim about another period than the excerpt's.

``period_conflict`` says when a claim names a period of a kind the excerpt
names too (with what a reader sees beside it, such as the document's name),
but never the same one: "fiscal 2021" cited to an excerpt about fiscal 2022
and 2023. An excerpt that names no period of that kind neither confirms nor
contradicts. ``kind_conflict`` says when the claim speaks of one length of
period (a quarter) and the span only of another (a year). Reading the periods
and lengths a text names is ``text.periods``'s (``named``, ``lengths``); nothing
here reads a date or weighs words.
"""

from __future__ import annotations

from papertrail.text.lengths import lengths
from papertrail.text.periods import early_year_names, named
from papertrail.text.sentences import normalize


def periods(text: str) -> dict[str, frozenset[int]]:
    """The years, quarters and halves ``text`` names: {"year": {2022}, "quarter": {3}}; a
    year that ends in January to June counts under both names."""
    text = normalize(text)
    out = named(text)
    early = early_year_names(text)
    if early:
        out["year"] = out.get("year", frozenset()) | early
    return out


def period_conflict(claim: str, excerpt: str, context: str = "") -> str | None:
    """The claim names a period of a kind the excerpt names too, but not the same one."""
    mine = periods(claim)
    theirs = periods(excerpt + " " + context)
    for kind, want in mine.items():
        have = theirs.get(kind)
        if have and not (want & have):
            said = ", ".join(str(x) for x in sorted(have)[:3])
            return f"the excerpt is about {kind} {said}, not {', '.join(map(str, sorted(want)))}"
    return None


def kind_conflict(claim: str, span: str) -> str | None:
    """The claim speaks of a quarter (a half, a year) and the span only of another length."""
    mine, theirs = lengths(normalize(claim)), lengths(normalize(span))
    if mine and theirs and not (mine & theirs):
        return f"the excerpt speaks of a {'/'.join(sorted(theirs))}, not a {'/'.join(sorted(mine))}"
    return None

"""Checks a worked-out answer: every operand stated by its excerpt, the arithmetic redone.

A ``Calculation`` names, for each figure it used, the excerpt and the sentence
that excerpt must state ("Total net revenues in 2019 were $6,489 million").
``verify_calculation`` judges each of those (claim, excerpt) pairs with the
same judge as any citation, reading a table's continuation with the opening
of the page's earlier excerpts above it (its title and column headings), then
works the formula out again from the operand cells and states the result the
same way. The answer keeps one citation per operand row when every operand is
stated and the result is the one claimed; otherwise it keeps none, says which
step failed, and is ungrounded. It does not look for other rows or recompute
with other figures: a calculation it cannot confirm is flagged, not repaired.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from papertrail.protocols import Domain, Embedder
from papertrail.text.formula import FormulaError, cell_value, evaluate, stated
from papertrail.types import Calculation, Citation, Hit, Unsupported
from papertrail.verify.rivals import domain_contrasts
from papertrail.verify.verify import MISSING, VerifiedText, cite, judge_pairs

HEAD_CHARS = 300  # of an earlier excerpt of the page: a statement's title, unit and columns


def verify_calculation(
    text: str,
    calc: Calculation,
    hits: Sequence[Hit],
    *,
    embedder: Embedder | None = None,
    without: Sequence[str] = (),
    domains: Sequence[Domain] = (),
) -> VerifiedText:
    """``text`` (the answer stating ``calc.result``) with a citation per operand row when
    every operand is stated by its excerpt and the arithmetic holds (checks named in
    ``without`` switched off; ``domains`` add their contrasting words)."""
    ops = calc.operands
    claims = [o.claim for o in ops]
    pairs = [(i, o.hit) for i, o in enumerate(ops) if 1 <= o.hit <= len(hits)]
    contrasts = domain_contrasts(domains)
    verdicts = judge_pairs(
        claims, _headed(hits), pairs, embedder, without=without, contrasts=contrasts
    )
    dropped: list[Citation] = []
    for i, o in enumerate(ops):
        v = verdicts.get((i, o.hit))
        if v is None:
            dropped.append(Citation(0, o.hit, o.claim, None, False, MISSING))
        elif not v.supported:
            chunk = hits[o.hit - 1].chunk
            dropped.append(Citation(0, o.hit, o.claim, chunk, False, v.reason, v.scores))
    redone = _redo(calc)
    if not dropped and redone != calc.result:
        why = f"the arithmetic gives {redone}, not {calc.result}"
        dropped = [Citation(0, o.hit, o.claim, hits[o.hit - 1].chunk, False, why) for o in ops]
    body = text.rstrip()
    if dropped:
        return VerifiedText(body, (), tuple(dropped), False, False, (Unsupported(body, len(body)),))
    kept: list[Citation] = []
    shown: dict[tuple[int, str], int] = {}  # (excerpt, row label) -> citation number
    for i, o in enumerate(ops):
        key = (o.hit, o.label)
        if key in shown:
            continue
        shown[key] = len(kept) + 1
        cells = ", ".join(f"{p.term.year}: {p.cell}" for p in ops if (p.hit, p.label) == key)
        reason = f"states {o.label} ({cells}); the arithmetic redone from the cited cells gives"
        reason += f" {redone}"
        kept.append(cite(shown[key], o.hit, o.claim, hits, verdicts[(i, o.hit)], reason))
    end = body[-1] if body and body[-1] in ".!?" else ""
    marks = "".join(f"[{n}]" for n in shown.values())
    out = f"{body[: len(body) - len(end)].rstrip()} {marks}{end}"
    return VerifiedText(out, tuple(kept), (), True, False, ())


def _redo(calc: Calculation) -> str:
    """The result worked out again from the operand cells as printed."""
    values = []
    for o in calc.operands:
        v = cell_value(o.cell)
        if v is None:
            return "no figure"
        values.append(abs(v) if o.term.outflow else v)
    try:
        value = evaluate(calc.metric.formula, values)
    except FormulaError as e:
        return f"no result ({e})"
    return stated(calc.metric, value, calc.unit)


def _headed(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` with the opening of each earlier excerpt of the same page added to a later
    one's section heading: what a reader sees above a table's continuation, its column
    headings ("December 31, 2016 2017") included."""
    out = []
    for h in hits:
        c = h.chunk
        heads = [
            o.chunk.text[:HEAD_CHARS]
            for o in sorted(hits, key=lambda o: o.chunk.index)
            if (o.chunk.doc_id, o.chunk.page) == (c.doc_id, c.page) and o.chunk.index < c.index
        ]
        if heads:
            h = replace(h, chunk=replace(c, section=" ".join([c.section, *heads])))
        out.append(h)
    return out

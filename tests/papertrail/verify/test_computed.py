"""papertrail.verify.computed: each operand re-read from its excerpt, the arithmetic redone."""

from __future__ import annotations

from dataclasses import replace

from papertrail.answer.compute import calculate, sentence
from papertrail.domains import KNOWN
from papertrail.domains.finance.metrics import metric
from papertrail.verify.computed import verify_calculation
from tests.papertrail.answer.test_compute import BALANCE, BALANCE_MORE, INCOME, hits

ASKED = "What is the FY2019 fixed asset turnover ratio?"


def worked(found):
    calc = calculate(metric(ASKED), found, KNOWN)
    return calc, sentence(calc)


def test_a_right_calculation_keeps_one_citation_per_row():
    found = hits(INCOME, BALANCE, BALANCE_MORE)
    calc, text = worked(found)
    v = verify_calculation(text, calc, found)
    assert v.text == "The FY2019 fixed asset turnover ratio was 24.26 [1][2]."
    assert v.grounded and not v.unsupported and not v.dropped
    assert [(c.n, c.marker, c.chunk.page) for c in v.citations] == [(1, 1, 70), (2, 3, 69)]
    assert "2019: 253, 2018: 282" in v.citations[1].reason
    assert "gives 24.26" in v.citations[1].reason


def test_a_continued_table_is_read_with_the_headings_above_it():
    # the continuation names 2019 in passing; its columns (2019, 2018) are in the opening above
    more = BALANCE_MORE + " Amounts for 2019 include the acquired business."
    found = hits(INCOME, BALANCE) + [replace(h, chunk=replace(h.chunk, text=more)) for h in
                                     hits(BALANCE_MORE)]  # fmt: skip
    calc, text = worked(found)
    assert verify_calculation(text, calc, found).grounded
    alone = [found[0], found[2]]  # the page's opening not retrieved: 2018 is not in sight
    calc = replace(calc, operands=tuple(replace(o, hit=min(o.hit, 2)) for o in calc.operands))
    v = verify_calculation(text, calc, alone)
    assert not v.grounded
    assert [c.reason for c in v.dropped] == ["the excerpt is about year 2019, not 2018"]


def test_a_figure_the_excerpt_does_not_state_fails_the_answer():
    found = hits(INCOME, BALANCE, BALANCE_MORE)
    calc, text = worked(found)
    forged = replace(calc.operands[0], cell="6,849", value=6849.0,
                     claim="Total net revenues in 2019 were $6,849 million")  # fmt: skip
    bad = replace(calc, operands=(forged, *calc.operands[1:]), result="25.60")
    v = verify_calculation("The FY2019 fixed asset turnover ratio was 25.60.", bad, found)
    assert not v.grounded and not v.citations and v.unsupported
    assert v.text == "The FY2019 fixed asset turnover ratio was 25.60."
    assert any("6,849" in c.sentence for c in v.dropped)


def test_wrong_arithmetic_fails_even_when_every_row_is_stated():
    found = hits(INCOME, BALANCE, BALANCE_MORE)
    calc, _ = worked(found)
    v = verify_calculation("The ratio was 30.00.", replace(calc, result="30.00"), found)
    assert not v.grounded and not v.citations
    assert all(c.reason == "the arithmetic gives 24.26, not 30.00" for c in v.dropped)


def test_an_operand_pointing_at_no_excerpt_fails():
    found = hits(INCOME, BALANCE, BALANCE_MORE)
    calc, text = worked(found)
    lost = replace(calc, operands=(replace(calc.operands[0], hit=9), *calc.operands[1:]))
    v = verify_calculation(text, lost, found)
    assert not v.grounded and v.dropped[0].chunk is None

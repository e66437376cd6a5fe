"""papertrail.answer.compute: a metric worked out from the rows of the retrieved statements."""

from __future__ import annotations

from dataclasses import replace

from papertrail.answer.compute import calculate, label_key, sentence
from papertrail.domains import KNOWN
from papertrail.domains.finance.metrics import metric
from papertrail.text.formula import working
from papertrail.types import Chunk, Hit

INCOME = (
    "CONSOLIDATED STATEMENTS OF OPERATIONS (in millions) Year Ended December 31, 2019 2018 2017 "
    "Total net revenues $ 6,489 $ 7,500 $ 7,017 Cost of revenues 2,100 2,300 2,200 "
    "Operating income 1,607 1,988 1,309 Net income $ 1,503 $ 1,848 $ 273"
)
BALANCE = (
    "CONSOLIDATED BALANCE SHEETS (in millions) At December 31, 2019 At December 31, 2018 "
    "Inventories, net 32 43 Total current assets 7,292 6,106"
)
BALANCE_MORE = (  # the same page continued: no title, no column headings
    "Property and equipment, net 253 282 Total assets $ 19,845 $ 17,890 "
    "Accounts payable $ 292 $ 253 Total current liabilities 2,915 2,642"
)
CASH = (
    "CONSOLIDATED STATEMENTS OF CASH FLOWS (in millions) 2019 2018 2017 "
    "Depreciation and amortization 328 509 888 Inventories 7 (5) (26) "
    "Capital expenditures (116) (131) (155) Dividends paid (283) (259) (226)"
)
PLACE = {INCOME: (70, 1), BALANCE: (69, 2), BALANCE_MORE: (69, 3), CASH: (73, 4)}


def hits(*texts: str, unit: str = "") -> list[Hit]:
    out = []
    for t in texts:
        page, index = PLACE.get(t, (90, 9))
        out.append(
            Hit(
                Chunk(
                    "d" * 64, "10-K.pdf", index, page, t.replace("millions", unit or "millions"), ()
                ),
                1.0,
            )
        )
    return out


def test_a_ratio_from_two_statements_and_a_continued_table():
    m = metric("What is the FY2019 fixed asset turnover ratio?")
    calc = calculate(m, hits(INCOME, BALANCE, BALANCE_MORE), KNOWN)
    assert calc.result == "24.26" and calc.unit == "million"
    assert [(o.label, o.cell, o.hit) for o in calc.operands] == [
        ("Total net revenues", "6,489", 1),
        ("Property and equipment, net", "253", 3),
        ("Property and equipment, net", "282", 3),
    ]
    assert calc.operands[1].claim == "Property and equipment, net in 2019 was $253 million"
    assert sentence(calc) == "The FY2019 fixed asset turnover ratio was 24.26."
    assert "6,489 / ((253 + 282) / 2) = 24.26" in working(calc)


def test_a_balance_row_is_not_read_from_the_cash_flow_statement():
    m = metric("What is the FY2019 inventory turnover ratio?")
    calc = calculate(m, hits(CASH, INCOME, BALANCE), KNOWN)  # both tables have "Inventories"
    assert [o.cell for o in calc.operands] == ["2,100", "32", "43"]
    assert calc.result == "56.00"


def test_outflows_count_by_size_and_averages_span_the_years():
    m = metric("What is the FY2017 - FY2019 3 year average of capex as a % of revenue?")
    calc = calculate(m, hits(INCOME, CASH), KNOWN)
    assert calc.result == "1.9%"  # (155/7,017 + 131/7,500 + 116/6,489) / 3
    assert "(155 / 7,017 + 131 / 7,500 + 116 / 6,489) / 3" in working(calc)


def test_money_is_stated_in_the_unit_asked():
    m = metric("How much did the company pay in dividends in FY2019 (in USD billions)?")
    assert calculate(m, hits(CASH), KNOWN).result == "$0.28 billion"


def test_no_answer_when_a_row_a_year_or_a_common_unit_is_missing():
    turnover = metric("What is the FY2019 fixed asset turnover ratio?")
    assert calculate(turnover, hits(INCOME, BALANCE), KNOWN) is None  # no PP&E row
    early = metric("What is the FY2017 fixed asset turnover ratio?")
    assert calculate(early, hits(INCOME, BALANCE, BALANCE_MORE), KNOWN) is None  # no 2016
    mixed = hits(INCOME) + [
        replace(h, chunk=replace(h.chunk, text=h.chunk.text.replace("millions", "thousands")))
        for h in hits(BALANCE, BALANCE_MORE)
    ]
    assert calculate(turnover, mixed, KNOWN) is None


def test_labels_are_matched_whole_not_by_prefix_of_another_item():
    assert label_key("Property, plant & equipment, net") == "property plant and equipment net"
    m = metric("What is the FY2019 fixed asset turnover ratio?")
    purchases = "Purchases of property and equipment 253 282"
    trap = [Hit(Chunk("d" * 64, "10-K.pdf", 3, 69, purchases, ()), 1.0)]
    assert calculate(m, hits(INCOME, BALANCE) + trap, KNOWN) is None


def test_the_working_is_shown_for_a_metric_and_says_when_it_was_not_confirmed():
    calc = calculate(metric("What is the FY2019 fixed asset turnover ratio?"),
                     hits(INCOME, BALANCE, BALANCE_MORE), KNOWN)  # fmt: skip
    assert working(calc, confirmed=False).startswith("Worked out (not confirmed): 6,489 /")
    lookup = calculate(metric("What were FY2019 total assets (in USD millions)?"),
                       hits(BALANCE, BALANCE_MORE), KNOWN)  # fmt: skip
    assert sentence(lookup) == "Total assets in 2019 were $19,845 million."
    assert working(lookup) == ""  # nothing was worked out


def test_the_offline_answerer_states_a_line_item_in_the_unit_asked():
    from papertrail.answer.extractive import ExtractiveGenerator

    draft = ExtractiveGenerator(domains=KNOWN).generate(
        "What were FY2019 accounts payable, in USD billions?", hits(BALANCE, BALANCE_MORE)
    )
    assert draft.text == "Accounts payable in 2019 was $0.29 billion."
    assert draft.calculation.operands[0].cell == "292"


def test_net_income_is_the_shareholders_share_when_the_statement_splits_it():
    split = (
        "CONSOLIDATED STATEMENTS OF INCOME (in millions) 2020 2019 Consolidated net income "
        "15,201 7,179 Consolidated net income attributable to noncontrolling interest (320) (509) "
        "Consolidated net income attributable to Walmart 14,881 6,670"
    )
    found = [Hit(Chunk("d" * 64, "10-K.pdf", 1, 51, split, ()), 1.0)]
    calc = calculate(metric("What was FY2020 net income, in USD millions?"), found, KNOWN)
    assert calc.operands[0].label == "Consolidated net income attributable to Walmart"
    assert calc.result == "$14,881 million"


def test_a_ratio_the_question_defines_in_its_own_words_is_worked_out_like_a_named_one():
    from papertrail.answer.extractive import ExtractiveGenerator
    from papertrail.verify.computed import verify_calculation

    question = (
        "What is the FY2019 cash conversion ratio? Cash conversion ratio is defined as: "
        "net income / operating income. Round your answer to two decimal places."
    )
    found = hits(INCOME, BALANCE, BALANCE_MORE)
    draft = ExtractiveGenerator(domains=KNOWN).generate(question, found)
    assert draft.by == "finance metric" and draft.calculation is not None
    assert [(o.label, o.cell) for o in draft.calculation.operands] == [
        ("Net income", "1,503"),
        ("Operating income", "1,607"),
    ]
    assert draft.calculation.result == "0.94"  # 1,503 / 1,607
    assert "cash conversion ratio" in draft.text
    assert verify_calculation(draft.text, draft.calculation, found).citations  # operands checked
    # an operand the statements do not hold: no figure worked out, none made up
    other = question.replace("operating income", "accounts receivable")
    assert ExtractiveGenerator(domains=KNOWN).generate(other, found).calculation is None


def test_a_defined_ratio_needs_both_operands_named_as_line_items():
    assert metric("What is FY2019 X? X is defined as: foo / bar.", defined="foo / bar") is None
    m = metric("What is FY2019 X? X is defined as: net income / total assets.",
               defined="net income / total assets")  # fmt: skip
    assert m is not None and m.formula == "{0} / {1}"
    assert [(t.name, t.year) for t in m.terms] == [("net income", 2019), ("total assets", 2019)]

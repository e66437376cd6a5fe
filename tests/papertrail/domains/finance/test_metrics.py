"""papertrail.domains.finance.metrics: which metric a question asks for, in which years."""

from __future__ import annotations

from papertrail.domains.finance.metrics import metric
from papertrail.domains.finance.terms import BALANCE, CASH, INCOME


def terms(m):
    return [(t.name, t.year) for t in m.terms]


def test_a_turnover_ratio_averages_two_balance_sheets():
    m = metric(
        "What was Contoso's fiscal 2021 asset turnover? No: its FY2021 fixed asset turnover?"
    )
    assert m.formula == "{0} / (({1} + {2}) / 2)"
    assert terms(m) == [("revenue", 2021), ("PP&E", 2021), ("PP&E", 2020)]
    assert [t.section for t in m.terms] == [INCOME, BALANCE, BALANCE]
    assert m.decimals == 2 and not m.percent and not m.money


def test_a_range_with_average_averages_the_metric_over_the_years():
    m = metric("What was the FY2019 to FY2021 average capex as a % of revenue for Fabrikam?")
    assert m.formula == "({0} / {1} + {2} / {3} + {4} / {5}) / 3"
    assert {y for _, y in terms(m)} == {2019, 2020, 2021}
    assert m.percent and m.decimals == 1
    assert all(t.outflow for t in m.terms if t.name == "capital expenditure")
    assert {t.section for t in m.terms if t.name == "capital expenditure"} == {CASH}


def test_growth_compares_the_year_asked_with_the_one_before():
    m = metric("By how much did Northwind's revenue growth run from FY2020 to FY2021?")
    assert m.formula == "({0} - {1}) / {1}" and terms(m) == [("revenue", 2021), ("revenue", 2020)]


def test_a_line_item_in_a_unit_is_a_lookup_with_its_scale():
    m = metric("How much did Tailspin spend on capital expenditures in FY2022 (in USD billions)?")
    assert m.formula == "{0}" and m.money and m.scale == "billion" and m.decimals == 2
    m = metric("What were total assets at the end of FY2020? Answer in USD millions.")
    assert terms(m) == [("total assets", 2020)] and m.scale == "million" and m.decimals == 0


def test_a_share_of_revenue_of_any_line_item():
    m = metric("What is the FY2018 depreciation and amortization % margin for Litware?")
    assert m.formula == "{0} / {1}" and m.percent
    assert terms(m) == [("depreciation and amortization", 2018), ("revenue", 2018)]


def test_the_question_sets_decimals_and_percent():
    m = metric("What is the FY2020 return on assets? Round your answer to three decimal places.")
    assert m.decimals == 3 and not m.percent
    m = metric("What is the FY2020 return on assets, in percent?")
    assert m.percent


def test_no_metric_without_a_year_for_yes_no_or_adjusted_figures():
    assert metric("What is the fixed asset turnover ratio?") is None
    assert metric("Did the FY2022 gross margin improve?") is None
    assert metric("What was the FY2022 interest coverage using adjusted EBIT?") is None
    assert metric("Who audited the FY2022 financial statements?") is None
    assert metric("What was the FY2022 unadjusted EBITDA?") is not None


def test_a_yes_no_question_about_the_sign_of_a_figure_gets_the_figure():
    m = metric("Does Contoso have positive working capital based on FY2022 data?")
    assert m.formula == "{0} - {1}" and m.money
    assert terms(m) == [("current assets", 2022), ("current liabilities", 2022)]
    assert metric("What is the FY2022 working capital ratio?").name == "FY2022 current ratio"


def test_a_metric_named_in_a_calculate_sentence_after_the_question():
    m = metric(
        "Roughly how many times has Contoso sold its inventory in FY2022? Calculate inventory "
        "turnover ratio for FY2022; if it is not meaningful for the company, explain why."
    )
    assert m is not None and m.name == "FY2022 inventory turnover ratio"
    assert terms(m) == [("cost of sales", 2022), ("inventory", 2022), ("inventory", 2021)]
    # a sentence that only says how to work something out names no metric of its own
    assert metric("How many stores did Contoso open in FY2022? Compute it from the list.") is None


def test_a_percentage_asked_is_no_line_item():
    assert metric("What percentage of total net sales were service sales in 2017?") is None
    assert metric("What were total net sales in 2017?").name == "FY2017 revenue"


def test_a_defined_ratio_reads_any_statement_row_the_metrics_use():
    question = (
        "What is Contoso's FY2021 asset intensity? Asset intensity is defined as: total "
        "revenue / (average PP&E between FY2020 and FY2021)."
    )
    m = metric(question, defined="total revenue / (average PP&E between FY2020 and FY2021)")
    assert m is not None and m.formula == "{0} / (({1} + {2}) / 2)"
    assert terms(m) == [("revenue", 2021), ("PP&E", 2021), ("PP&E", 2020)]
    tax = "income tax / pretax income"
    m = metric(f"What is FY2021 tax burden? Tax burden is defined as: {tax}.", defined=tax)
    assert terms(m) == [("income tax", 2021), ("pretax income", 2021)]

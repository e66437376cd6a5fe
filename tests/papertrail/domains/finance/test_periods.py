"""periods: what a document covers, what a question asks, and how well they meet."""

from __future__ import annotations

from papertrail.domains.finance.periods import OUTLOOK, Period, asked, match, of_document


def test_document_period_from_name_else_cover():
    assert of_document("MGMRESORTS_2023Q2_10Q.pdf", "") == Period(2023, 2)
    assert of_document("PEPSICO_2023_8K_dated-2023-05-30.pdf", "") == Period(2023)
    cover = "ANNUAL REPORT For the fiscal year ended December 31, 2019 Commission file"
    assert of_document("report.pdf", cover) == Period(2019)
    assert of_document("manual.pdf", "Owner's manual") == Period()


def test_asked_period_is_the_latest_named():
    assert asked("What is the FY2018 - FY2020 average capex?") == Period(2020)
    assert asked("As of FY2023Q1, why was guidance raised?") == Period(2023, 1)
    assert asked("Did net earnings rise in Q2 of FY2023 vs Q2 of FY2022?") == Period(2023, 2)
    assert asked("Is the quick ratio healthy for FY22?") == Period(2022)
    assert asked("Who is the chief executive?") == Period()


def test_a_report_serves_its_period_and_earlier_ones():
    q = Period(2020)
    assert match(Period(2020), q) == 1.0
    assert match(Period(2021), q) == 0.5  # comparative figures
    assert match(Period(2019), q) == OUTLOOK  # only guidance for the next year
    assert match(Period(2018), q) == 0.0
    assert match(Period(2023, 2), Period(2023, 2)) == 1.0
    assert match(Period(2023, 1), Period(2023, 2)) == 0.0
    assert match(Period(), q) == 0.0 and match(Period(2020), Period()) == 0.0

"""periods: what a document covers, what a question asks, and how well they meet."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import papertrail
from papertrail.domains import KNOWN
from papertrail.text.lengths import bases, clause_lengths, lengths
from papertrail.text.periods import (
    CALENDAR,
    OUTLOOK,
    Asked,
    Covered,
    Period,
    asked,
    covered,
    ends_in_years,
    glued_quarters,
    heading_date_word,
    heading_year,
    is_period_token,
    is_year,
    label,
    match,
)


def test_a_document_period_from_its_label_its_end_date_else_its_file_name():
    call = covered("x.pdf", "Q1 2023 Snowflake Inc. Earnings Call\nSAN MATEO May 26, 2022")
    assert call == Covered(Period(2023, 1), Period(), "2022-05-26")  # labelled: fiscal
    assert label("Microsoft FY23 Third Quarter Earnings Conference Call") == Period(2023, 3)
    assert label("Acme Reports 2022 Fourth-Quarter Results") == Period(2022, 4)
    q = covered("scan.pdf", "FORM 10-Q\nFor the quarterly period ended July 1, 2023")
    assert q == Covered(Period(), Period(2023, 3), "2023-07-01")  # its calendar quarter
    year = covered("r.pdf", "ANNUAL REPORT For the fiscal year ended January 31, 2020, or")
    assert year == Covered(Period(2020), Period(2019), "2020-01-31")  # mostly calendar 2019
    weeks = "For the fiscal year ended January 1, 2023"
    assert covered("r.pdf", weeks).fiscal == Period(2023)  # no calendar rule: the year it ends
    # a 52/53-week year ending in early January, as filings name it (the finance domain's)
    assert covered("r.pdf", weeks, named_for=KNOWN[0].fiscal_year).fiscal == Period(2022)
    assert covered("MGMRESORTS_2023Q2_10Q.pdf", "no period here").fiscal == Period(2023, 2)
    assert covered("ACME_2023Q2_10Q.pdf", "For the quarterly period ended June 30, 2023") == (
        Covered(Period(2023, 2), Period(2023, 2), "2023-06-30")  # the name: one more signal
    )
    assert covered("manual.pdf", "Owner's manual") == Covered()


def test_a_quarterly_report_names_its_fiscal_quarter_in_its_text_not_on_its_cover():
    cover = "FORM 10-Q For the Quarterly Period Ended March 31, 2023"
    body = (
        "Revenue in the third quarter of fiscal year 2023 grew. Compared with the third "
        "quarter of fiscal year 2022, ... Fiscal year 2023 third quarter margins ..."
    )
    found = covered("scan-0042.pdf", cover, body)
    assert found.fiscal == Period(2023, 3) and found.calendar == Period(2023, 1)
    assert match(found, Period(2023, 3)) == 1.0  # "Q3 FY2023" finds it by its fiscal name
    annual = covered("r.pdf", "FORM 10-K For the fiscal year ended June 30, 2023", body)
    assert annual.fiscal == Period(2023)  # an annual report's quarters are not its period


def test_asked_periods_quarters_one_by_one_years_the_latest():
    assert asked("What is the FY2018 - FY2020 average capex?") == Asked((Period(2020),))
    assert asked("As of FY2023Q1, why was guidance raised?") == Asked((Period(2023, 1),))
    assert asked("How much did product revenue grow in Q1 Fiscal 2023?").periods == (
        Period(2023, 1),
    )
    assert asked("Across Q1 and Q2 2023, what share of services?").periods == (
        Period(2023, 1),
        Period(2023, 2),
    )
    assert asked("the cash position between Q3 2021 and Q3 2023").periods == (
        Period(2021, 3),
        Period(2023, 3),
    )
    assert asked("third quarter of fiscal 2023 margin").periods == (Period(2023, 3),)
    assert asked("In 2021, how did the Q3 backlog affect growth?").periods == (Period(2021, 3),)
    assert asked("Q3 backlog in 2021 vs 2022").periods == (Period(2022),)  # which Q3: unsaid
    assert asked("Is the quick ratio healthy for FY22?") == Asked((Period(2022),))
    assert asked("Revenue was $2019 million") == Asked()  # an amount, not a year
    assert asked("Who is the chief executive?") == Asked() and not asked("Who?")


def test_asked_latest_documents():
    assert asked("How fast is revenue growing? Prioritize the most recent document").latest == 1
    assert asked("Compare the last three quarters").latest == 3
    assert asked("What changed over the past 2 years?").latest == 2
    assert asked("What is the latest guidance?").latest == 1


def test_a_report_serves_its_period_and_earlier_ones():
    q = Period(2020)
    assert match(Covered(Period(2020)), q) == 1.0
    assert match(Covered(Period(2021)), q) == 0.5  # comparative figures
    assert match(Covered(Period(2019)), q) == OUTLOOK  # only guidance for the next year
    assert match(Covered(Period(2018)), q) == 0.0
    assert match(Covered(Period(2023, 2)), Period(2023, 2)) == 1.0
    assert match(Covered(Period(2023, 1)), Period(2023, 2)) == 0.0
    assert match(Covered(), q) == 0.0 and match(Covered(Period(2020)), Period()) == 0.0


def test_a_calendar_name_matches_a_little_less_than_the_issuers_label():
    q10 = Covered(Period(), Period(2023, 3), "2023-07-01")  # quarter ended July 1
    assert match(q10, Period(2023, 3)) == CALENDAR
    jan = Covered(Period(2020), Period(2019), "2020-01-31")
    assert match(jan, Period(2019)) == CALENDAR and match(jan, Period(2020)) == 1.0


def test_the_length_of_period_a_text_speaks_of():
    assert lengths("Revenue for the three months ended June 30 rose") == {"quarter"}
    assert lengths("Q3 sales were up sequentially") == {"quarter"}
    assert lengths("H1 and year-to-date margins") == {"half"}
    assert lengths("full-year guidance for FY23") == {"year"}
    assert lengths("For the year ended December 31 and the quarter") == {"year", "quarter"}
    assert lengths("The encoder has six layers") == frozenset()


def test_years_as_single_words():
    assert is_year("2019") and not is_year("2019,") and not is_year("3019") and not is_year("19")
    assert heading_year("2019") == heading_year("FY2019") == heading_year("fiscal 2019") == "2019"
    assert heading_year("Q3") == heading_year("20190") == heading_year("$2019") == ""
    assert all(heading_date_word(w) for w in ("At", "December", "31,", "Sept.", "ended", "as"))
    assert not any(heading_date_word(w) for w in ("Revenue", "2019", "45,", "Total"))
    assert ends_in_years("(in millions) 2021 2020 2019") and ends_in_years("2022, 2021.")
    assert not ends_in_years("Revenue rose in 2021.") and not ends_in_years("From 2019 to now")
    assert all(is_period_token(t) for t in ("2019", "fy23", "q32023", "h119", "2019q4", "512"))
    assert not any(is_period_token(t) for t in ("encoder", "q3", "q52023", "12345", "fy"))


# a year as a pattern: "(19|20)" followed by two digits, in a string literal of the code
_YEAR_PATTERN = re.compile(r"\(\??:?19\|20\)\\d\\d|\(\?:19\|20\)\\d\{2\}")


def _year_patterns(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _YEAR_PATTERN.search(node.value)
    ]


def test_the_year_pattern_has_one_home():
    # the period parser is the one reader of years; a domain may read its own labels
    root = Path(papertrail.__file__).parent
    home = {root / "text" / "periods.py"}
    found = [
        hit
        for path in sorted(root.rglob("*.py"))
        if path not in home and "domains" not in path.parts
        for hit in _year_patterns(path)
    ]
    assert found == []
    assert _year_patterns(root / "text" / "periods.py")  # the rule sees a year pattern


def test_a_clause_gives_its_figure_a_period_length_and_a_comparison():
    assert clause_lengths("revenue for the three months ended June 30 was $5 million") == {
        "quarter"
    }
    assert clause_lengths("a quarter of revenue came from services") == frozenset()  # a share
    assert clause_lengths("at the annual meeting, 40 votes") == frozenset()  # names a thing
    assert clause_lengths("for the nine months ended September 30") == {"nine months"}
    assert bases("up 7% year over year") == {"a year before"}
    assert bases("up 2% sequentially") == {"a quarter before"}
    assert bases("up 7% to $4 million") == frozenset()


def test_a_quarter_glued_to_its_year_in_a_name():
    assert glued_quarters("ACME_2023Q2_EARNINGS") == [2]
    assert glued_quarters("report-2023-q4.pdf") == [4]
    assert glued_quarters("Q2 report 2023") == []

"""read.table_heads: which lines head a table's columns, and the head each line is under."""

from __future__ import annotations

from papertrail.read.table_heads import HEAD_CHARS, column_headings, heads

STATEMENT = [
    "The Kraft Heinz Company",
    "Consolidated Statements of Cash Flows",
    "(in millions)",
    "December 28, 2019 December 29, 2018 December 30, 2017",
    "CASH FLOWS FROM OPERATING ACTIVITIES:",
    "Net income/(loss) $ 1,933 $ (10,254) $ 10,932",
    "Dividends paid (2,115) (3,183) (2,888)",
]
HEAD = (
    "The Kraft Heinz Company Consolidated Statements of Cash Flows (in millions) "
    "December 28, 2019 December 29, 2018 December 30, 2017"
)


def test_years_and_dates_head_columns_sentences_naming_years_do_not():
    assert column_headings("December 28, 2019 December 29, 2018 December 30, 2017")
    assert column_headings("Year Ended December 31, 2017 2018 2019")
    assert column_headings("(In millions, except per share data) 2023 2022 2021")
    assert column_headings("FY2019 FY2018")
    assert not column_headings("Sales in 2019 and 2018")  # words of a sentence
    assert not column_headings("Fiscal Year 2019 Compared to Fiscal Year 2018:")
    assert not column_headings("Net revenue 2019 1,577 1,402")  # a row: figures beside a year
    assert not column_headings("December 31, 2019")  # one year heads no columns


def test_every_row_below_the_headings_is_under_the_title_and_headings():
    got = heads(STATEMENT)
    assert got[:3] == ["", "", ""]
    assert got[3:] == [HEAD] * 4
    assert heads(["Item 8.", *STATEMENT])[4] == HEAD  # three short lines above, no more


def test_prose_or_a_heading_ends_the_table():
    lines = [
        *STATEMENT,
        "See the accompanying notes, which are an integral part of these statements.",
    ]
    assert heads([*lines, "Dividends 2 3 4"])[-2:] == ["", ""]
    opened = heads([*STATEMENT, "Note 7. Debt", "Term loan 1,000 900"], [False] * 7 + [True, False])
    assert opened[-2:] == ["", ""]


def test_a_long_line_above_the_headings_is_not_a_title_and_a_head_stays_short():
    prose = "x" * 90
    assert heads([prose, "2023 2022", "Revenue 5 4"])[-1] == "2023 2022"
    long_title = ["A" * 79, "B" * 79, "C" * 79, "2023 2022 " + "2021 " * 60]
    assert len(heads(long_title)[-1]) == HEAD_CHARS

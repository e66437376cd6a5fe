"""finance_terms: statement names, statement titles, query expansion, instruction stripping."""

from __future__ import annotations

from papertrail.domains.finance.terms import (
    BALANCE,
    CASH,
    INCOME,
    TITLE_CHARS,
    expand,
    statement_rows,
    statement_title,
    statements_named,
    strip_instructions,
)
from papertrail.types import Chunk, Rect


def test_statements_named_by_name_and_by_metric():
    assert statements_named("Using the P&L statement, what is net income?") == {INCOME}
    assert statements_named("Per the statement of financial position, cash?") == {BALANCE}
    assert statements_named("From the statement of cash flows, what is D&A?") == {CASH}
    assert statements_named("What is FY2017 DPO for Amazon?") == {INCOME, BALANCE}
    assert statements_named("What was capex in 2019?") == {CASH}
    assert statements_named("Who is the new CEO?") == set()


def test_statement_title_needs_capitalised_wording():
    assert statement_title("CONSOLIDATED STATEMENTS OF OPERATIONS (in millions)") == INCOME
    assert statement_title("Consolidated Statements of Cash Flows") == CASH
    assert statement_title("Consolidated Balance Sheets") == BALANCE
    assert statement_title("as shown in our consolidated balance sheets") is None
    # comprehensive income is a different statement
    assert statement_title("CONSOLIDATED STATEMENTS OF COMPREHENSIVE INCOME") is None


def test_expand_adds_filing_wording():
    extra = expand("What is COGS as a % of revenue?")
    assert "cost of sales" in extra and "net sales" in extra
    assert expand("Who is the new CEO?") == ""


def test_strip_instructions_keeps_the_question():
    q = (
        "What is the FY2019 ratio? Ratio is defined as: revenue / PP&E. Round your answer to "
        "two decimal places. Base your judgments on the information provided primarily in "
        "the statement of income."
    )
    assert strip_instructions(q) == "What is the FY2019 ratio? Ratio is defined as: revenue / PP&E."
    q2 = "Basing your judgments off of the balance sheet, what is accounts payable?"
    assert strip_instructions(q2) == q2  # the question sentence itself stays
    assert strip_instructions("Round your answer to two decimal places.") == (
        "Round your answer to two decimal places."
    )


def test_strip_instructions_drops_an_answer_format_aside():
    q = (
        "What is the change in revenue from FY2016 to FY2017 (in units of percents and round "
        "to one decimal place)? Calculate what was asked by utilizing the line items clearly "
        "shown in the statement of income."
    )
    assert strip_instructions(q) == "What is the change in revenue from FY2016 to FY2017?"
    q2 = "What is the FY2018 capital expenditure amount (in USD millions) for 3M?"
    assert strip_instructions(q2) == "What is the FY2018 capital expenditure amount for 3M?"
    # an aside that says what is asked stays
    q3 = "What is the total (net of tax) of other comprehensive income (see Note 3)?"
    assert strip_instructions(q3) == q3


def chunk(i: int, page: int, text: str, section: str = "") -> Chunk:
    box = Rect(0, 0, 10, 10)
    return Chunk("d" * 64, "t.pdf", i, page, text, (box,), section)


def test_statement_rows_cover_every_chunk_of_a_titled_page():
    chunks = [
        chunk(0, 1, "CONSOLIDATED STATEMENTS OF CASH FLOWS Operating activities"),
        # page 2's first chunk still carries page 1's section; its words say otherwise
        chunk(1, 2, "CONSOLIDATED BALANCE SHEETS Cash 19,334", "STATEMENTS OF CASH FLOWS"),
        chunk(2, 2, "Current liabilities: Accounts payable 34,616", "LIABILITIES AND EQUITY"),
        chunk(3, 3, "Amounts are shown in our consolidated balance sheets as follows."),
    ]
    assert statement_rows(chunks) == {CASH: [0], BALANCE: [1, 2]}


def lined(i: int, page: int, *lines: str) -> Chunk:
    """A chunk whose text is ``lines`` joined, with each line's box and offset."""
    text, starts = "", []
    for line in lines:
        starts.append(len(text))
        text += line + " "
    boxes = tuple(Rect(0, 10 * k, 100, 10 * k + 9) for k in range(len(lines)))
    return Chunk("d" * 64, "t.pdf", i, page, text, boxes, lines=tuple(starts))


def test_a_title_below_a_running_header_is_read_on_its_own_line():
    header = ("Table of Contents", "American Water Works Company, Inc. and Subsidiary Companies")
    income = lined(0, 86, *header, "Consolidated Statements of Operations", "(In millions)")
    cash = lined(1, 88, *header, "Consolidated Statements of Cash Flows", "(In millions)")
    assert statement_title(income.text[:TITLE_CHARS]) is None  # the premise: past the window
    assert statement_rows([income, cash]) == {INCOME: [0], CASH: [1]}


def test_a_line_of_prose_naming_a_statement_is_no_title():
    prose = lined(
        0,
        40,
        "Liquidity and Capital Resources",
        "Cash flows are presented in the Consolidated Statements of Cash Flows included in",
        "Item 8 of this report, which also shows our investing and financing activities.",
    )
    late = lined(  # a title deeper in the page than its opening lines
        1,
        41,
        "Notes to the Consolidated Financial Statements",
        "Note 1 - Organization",
        "Note 2 - Significant Accounting Policies",
        "Note 3 - Debt",
        "Consolidated Balance Sheets",
    )
    assert statement_rows([prose, late]) == {}


def test_concepts_are_recognised_by_kind_not_by_one_phrasing():
    for question in (
        "Is the company's segment margin holding up?",
        "How did the contribution margin move year over year?",
    ):
        assert INCOME in statements_named(question)
    assert {INCOME, BALANCE} <= statements_named("What are its days of inventory on hand (DIO)?")

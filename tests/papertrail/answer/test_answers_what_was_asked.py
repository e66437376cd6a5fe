"""The offline answerer says what was asked, or says it has no answer.

Excerpts here are written like a 10-K and a paper as PyMuPDF extracts them: a
segment table, an income statement, an auditor's opinion, a balance sheet and
prose cut at the page's end. Each test names what the answer must hold (the
asked row, period and figure) and what it must not quote.
"""

from __future__ import annotations

from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.domains import KNOWN
from papertrail.settings import REFUSAL
from papertrail.types import Chunk, Hit
from papertrail.verify.verify import verify_answer

SEGMENTS = (
    "Information on reportable segments is as follows (in millions): Year Ended December 31, "
    "2015 2016 2017 North America Net sales $ 63,708 $ 79,785 $ 106,110 Operating expenses "
    "62,283 77,424 103,273 Operating income $ 1,425 $ 2,361 $ 2,837"
)
PROSE = (
    "Net sales include product and service sales. We have organized our operations into "
    "three segments: North America, International, and AWS."
)
OPINION = (
    "In our opinion, the consolidated financial statements referred to above present fairly, "
    "in all material respects, the financial position of the Company and the results of its "
    "operations and its cash flows, including its net income, for each of the three years."
)
STATEMENT = (
    "CONSOLIDATED STATEMENTS OF OPERATIONS (in millions, except per share data) Year Ended "
    "December 31, 2015 2016 2017 Net product sales $ 79,268 $ 94,665 $ 118,573 Net service "
    "sales 27,738 41,322 59,293 Total net sales 107,006 135,987 177,866 Operating expenses: "
    "Cost of sales 71,651 88,265 111,934 Operating income 2,233 4,186 4,106"
)
CASH_FLOWS = (  # the statement's next excerpt: its column headings are on the page before
    "Net income $ 596 $ 2,371 $ 3,033 Adjustments to reconcile net income to net cash from "
    "operating activities: Depreciation 6,281 8,116 11,478"
)
BALANCE = (
    "CONSOLIDATED BALANCE SHEETS (in millions) December 31, 2016 2017 Total current assets "
    "45,781 60,197 Total assets 83,402 131,310 Total current liabilities 43,816 57,883 "
    "Long-term debt 7,694 24,743"
)


def hits(*texts: str) -> list[Hit]:
    """Hits in rank order, each excerpt on its own page of one document."""
    return [
        Hit(Chunk("d" * 64, "10k.pdf", i, 30 + i, t, ()), 1.0 - i / 10) for i, t in enumerate(texts)
    ]


def answer(question: str, h: list[Hit]) -> str:
    # the filing's words for amounts ("net income") are the finance domain's; its worked-out
    # line items are left out: what is measured here is the table figure and the quote
    draft = ExtractiveGenerator(domains=KNOWN, without=("finance metric",)).generate(question, h)
    checked = verify_answer(draft.text, h)
    assert checked.dropped == ()  # whatever it says, each citation holds
    return draft.text


def test_total_net_sales_come_from_the_total_row_not_a_segments():
    text = answer("What were total net sales in 2017?", hits(SEGMENTS, PROSE, OPINION, STATEMENT))
    assert text == "Total net sales in 2017 were $177,866 million [4]."


def test_net_income_is_stated_with_its_year_not_quoted_from_boilerplate_or_a_bare_row():
    h = hits(OPINION, PROSE, SEGMENTS, CASH_FLOWS, STATEMENT)
    text = answer("What was net income in 2017?", h)
    assert "in our opinion" not in text.lower()
    assert "596 2,371" not in text and "$ 596 $ 2,371" not in text
    # its headings are in no excerpt: no year can be told, so it says it has no answer
    assert text == REFUSAL
    with_headings = hits(OPINION, STATEMENT, CASH_FLOWS)  # now the statement comes first
    with_headings[2] = Hit(
        Chunk("d" * 64, "10k.pdf", 2, 31, CASH_FLOWS, ()), 0.5
    )  # same page as the statement, right after it
    with_headings[1] = Hit(Chunk("d" * 64, "10k.pdf", 1, 31, STATEMENT, ()), 0.8)
    said = answer("What was net income in 2017?", with_headings)
    assert said == "Net income in 2017 was $3,033 million [3]."


def test_a_ratio_it_cannot_compute_gets_no_dump_of_rows_but_the_closest_passages():
    draft = ExtractiveGenerator().generate("What is the current ratio for 2017?", hits(BALANCE))
    assert draft.text == REFUSAL
    assert draft.notes and draft.notes[0].startswith("Closest passage (10k.pdf, page 30)")
    assert "Total current assets" in draft.notes[0]


def test_a_ratio_is_not_answered_by_a_sentence_that_gives_no_figure():
    h = hits(
        "We believe the current ratio is an important liquidity metric because it measures "
        "the cash available to repay obligations. Net sales grew in every segment."
    )
    draft = ExtractiveGenerator().generate("What is the current ratio for the company?", h)
    assert draft.text == REFUSAL and draft.notes


def test_a_sentence_about_other_years_does_not_answer_for_the_year_asked():
    h = hits(
        "Net sales were $135,987 million in 2016, compared with $107,006 million in 2015. "
        "The increase reflects growth in unit sales."
    )
    assert ExtractiveGenerator().generate("What were net sales in 2017?", h).text == REFUSAL
    said = ExtractiveGenerator().generate("What were net sales in 2016?", h).text
    assert said.startswith("Net sales were $135,987 million in 2016")


def test_each_part_of_a_two_part_question_gets_its_sentence():
    h = hits(  # under the heading "Hardware and Schedule", as papers set it
        "Each training step took about 0.4 seconds. We trained the base models for a total of "
        "100,000 steps or 12 hours. The big models were trained for 300,000 steps (3.5 days). "
        "Training ran on one machine with 8 NVIDIA P100 GPUs.",
    )
    h = [Hit(Chunk("d" * 64, "paper.pdf", 7, 7, h[0].chunk.text, (), "Hardware and Schedule"), 1)]
    text = answer("Which GPUs were used and how long did the base model train?", h)
    assert "8 NVIDIA P100 GPUs" in text and "12 hours" in text


def test_a_filing_pdf_end_to_end(tmp_path):
    from adapters.chat.replies import answer_reply
    from tests import pdfs
    from tests.papertrail.test_pipeline import make

    pt = make(tmp_path)
    pt.ingest("c1", "10k.pdf", pdfs.filing_pdf())
    total = pt.ask("c1", "What were total net sales in 2017?", render=False)
    assert total.text == "Total net sales in 2017 were $177,866 million [1]."
    assert total.grounded and total.citations[0].chunk.page == 2
    income = pt.ask("c1", "What was net income in 2017?", render=False)
    assert income.text == "Net income in 2017 was $3,033 million [1]."
    # worked out from two rows of the balance sheet, each cited, the arithmetic shown
    ratio = pt.ask("c1", "What is the current ratio for 2017?", render=False)
    assert ratio.text == "The FY2017 current ratio was 1.04 [1][2]."
    assert ratio.grounded and [c.chunk.page for c in ratio.citations] == [3, 3]
    assert ratio.calculation.result == "1.04" and not ratio.notes
    assert answer_reply(ratio).text == (
        "The FY2017 current ratio was 1.04 [1][2].\nWorked out from the cited rows: 60,197 / "
        "57,883 = 1.04 (current assets: Total current assets; current liabilities: Total "
        "current liabilities)."
    )
    growth = pt.ask("c1", "What was the revenue growth from 2016 to 2017?", render=False)
    assert growth.text == "The FY2017 revenue growth was 30.8% [1]." and growth.grounded

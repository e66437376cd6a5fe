"""papertrail.answer.tables: row label, year column, value and unit from a statement's text."""

from __future__ import annotations

from papertrail.answer.tables import figure_answer, table_rows
from papertrail.types import Chunk, Hit

TOP = (
    "CONSOLIDATED STATEMENTS OF OPERATIONS (in millions, except per share data) Year Ended "
    "December 31, 2017 2018 2019 Net product sales $ 118,573 $ 141,915 $ 160,408 Net service "
    "sales 59,293 90,972 120,114 Total net sales 177,866 232,887 280,522 Operating expenses: "
    "Cost of sales 111,934 139,156 165,536 Interest expense (848) (1,417) (1,600)"
)
BOTTOM = (  # the same table continued in the next excerpt, without its column headings
    "Interest expense (848) (1,417) (1,600) Net income $ 3,033 $ 10,073 $ 11,588 "
    "Basic earnings per share $ 6.32 $ 20.68 $ 23.46"
)


def hits(*texts: str) -> list[Hit]:
    """Hits in rank order; each excerpt's place in the document is that of its text here."""
    where = {TOP: 10, BOTTOM: 11}
    return [Hit(Chunk("d" * 64, "f.pdf", where.get(t, 10), 38, t, ()), 1.0) for t in texts]


def test_rows_are_read_with_their_year_columns():
    rows, years = table_rows(TOP)
    assert years == ("2017", "2018", "2019")
    total = next(r for r in rows if r.label == "Total net sales")
    assert total.values == ("177,866", "232,887", "280,522") and total.money
    assert any(r.label == "Cost of sales" for r in rows)  # "Operating expenses:" left out


def test_the_row_and_year_the_question_names():
    said = figure_answer("What were the total net sales in FY2017?", hits(TOP))
    assert said == ("Total net sales in 2017 were $177,866 million", 1)
    said = figure_answer("What was the cost of sales in 2018?", hits(TOP))
    assert said == ("Cost of sales in 2018 was $139,156 million", 1)


def test_no_year_means_the_latest_and_negatives_keep_their_sign():
    said = figure_answer("How much was the interest expense?", hits(TOP))
    assert said == ("Interest expense in 2019 was -$1,600 million", 1)


def test_headings_carry_into_the_next_excerpt_of_the_same_table():
    said = figure_answer("What was net income in 2018?", hits(BOTTOM, TOP))
    assert said == ("Net income in 2018 was $10,073 million", 1)
    per_share = figure_answer("What were basic earnings per share in 2019?", hits(BOTTOM, TOP))
    assert per_share == ("Basic earnings per share in 2019 was $23.46", 1)


def test_no_answer_for_two_periods_an_unnamed_row_or_a_missing_year():
    assert figure_answer("How did net income change from 2017 to 2019?", hits(TOP)) is None
    assert figure_answer("What was the dividend in 2019?", hits(TOP)) is None
    assert figure_answer("What were total net sales in 2014?", hits(TOP)) is None


def test_the_pipeline_states_the_figure_and_the_verifier_keeps_it(tmp_path):
    from tests import pdfs
    from tests.papertrail.test_pipeline import make

    pt = make(tmp_path)
    pt.ingest("c1", "statement.pdf", pdfs.table_pdf())
    answer = pt.ask("c1", "What was the gross margin in 2022?", render=False)
    assert answer.text == "Gross margin in 2022 was $582 million [1]."
    assert answer.grounded and answer.citations[0].chunk.page == 1


def test_a_ratio_or_the_company_name_alone_gives_no_figure():
    ratio = "What is the FY2019 inventory turnover ratio? Define it as cost of sales / inventory."
    assert figure_answer(ratio, hits(TOP)) is None
    named = TOP + " Amazon 1 2 3"
    assert figure_answer("What is Amazon's dividend in 2019?", hits(named)) is None


def test_instructions_around_the_question_do_not_pick_the_row():
    asked = (
        "What was the cost of sales in 2019? Answer as an analyst who reads only the total "
        "net sales line of the statement."
    )
    said = figure_answer(asked, hits(TOP))
    assert said == ("Cost of sales in 2019 was $165,536 million", 1)


def test_a_labels_pointer_to_the_notes_is_no_cell():
    balance = (
        "CONSOLIDATED BALANCE SHEETS (Dollars in Millions) 2022 2021 Cash and cash equivalents "
        "(Notes 1 and 2) $ 1,412 1,448 Inventories (Notes 1 and 3) 1,248 1,038 Goodwill (Note 5) "
        "452 352 Total assets $ 18,737 18,201"
    )
    rows = {r.label: r.values for r in table_rows(balance)[0]}
    assert rows["Inventories"] == ("1,248", "1,038")
    assert rows["Cash and cash equivalents"] == ("1,412", "1,448")
    assert rows["Goodwill"] == ("452", "352")


def test_an_excerpt_is_read_for_rows_once_per_question():
    from papertrail.text import memo

    assert table_rows(TOP) is not table_rows(TOP)  # no question open: read each time
    with memo.scope():  # a question: the answerer and the calculator share the reading
        first = table_rows(TOP)
        assert table_rows(TOP) is first
        assert table_rows(TOP, ("2018", "2019")) is not first  # other headings carried in
    assert isinstance(first[0], tuple)  # shared: nothing in it can be changed

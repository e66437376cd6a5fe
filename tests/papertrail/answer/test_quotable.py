"""answer.quotable: headings, labels, column headings and cut sentences are not quoted."""

from __future__ import annotations

from papertrail.answer.quotable import candidate_sentences, quotable, strip_heading
from papertrail.types import Chunk


def chunk(text: str, section: str = "", index: int = 1) -> Chunk:
    return Chunk("f" * 64, "doc.pdf", index, 1, text, (), section)


def test_the_section_heading_and_a_run_in_label_are_not_part_of_the_answer():
    c = chunk(
        "3.1 Encoder and Decoder Stacks Encoder: The encoder is composed of a stack of "
        "N = 6 identical layers. Each layer has two sub-layers.",
        section="3.1 Encoder and Decoder Stacks",
    )
    texts = [q.text for q in quotable(c)]
    assert texts[0] == "The encoder is composed of a stack of N = 6 identical layers."
    assert strip_heading("Optimizer We used the Adam optimizer.") == "We used the Adam optimizer."
    assert strip_heading("Net income was $5 million.") == "Net income was $5 million."


def test_a_sentence_cut_by_the_end_of_the_excerpt_is_left_out():
    c = chunk("The model has six layers. It was trained at less than the cost of the")
    assert [q.text for q in quotable(c)] == ["The model has six layers."]
    whole = chunk("The model has six layers. Revenue in the fourth quarter was 2.8")
    assert len(quotable(whole)) == 2  # a sentence ending in a number is not cut


def test_the_first_sentence_is_marked_as_maybe_begun_earlier():
    opened = quotable(chunk("English-to-German task, the model wins. It has six layers."))
    assert [q.opens for q in opened] == [True, False]
    first = quotable(chunk("The report starts here. It has six layers.", index=0))
    assert not first[0].opens  # the document's first excerpt starts with it


def test_column_headings_and_glued_footnotes_are_not_quoted():
    text = (
        "Net sales information is as follows (in millions): Year Ended December 31, "
        "2015 2016 2017. The heads run in parallel, yielding 64-dimensional 4To illustrate "
        "why the products grow."
    )
    assert candidate_sentences(text) == ["The heads run in parallel, yielding 64-dimensional"]


def test_offline_answers_do_not_quote_the_heading(tmp_path):
    from tests import pdfs
    from tests.papertrail.test_pipeline import make

    pt = make(tmp_path)
    pt.ingest("c1", "paper.pdf", pdfs.paper_pdf())
    answer = pt.ask("c1", "How many identical layers is the encoder composed of?", render=False)
    assert answer.text.startswith("The encoder is composed of a stack of N = 6 identical layers")


def test_a_table_heading_row_is_not_an_answer_even_when_alone():
    region = "Planning Service Southern Region"
    c = chunk(f"{region} EPS Market Name Code", region)
    assert quotable(c) == []
    title = chunk("Northwind Tidal Cooperative Annual Report 2025")
    assert [q.text for q in quotable(title)] == [title.text]  # a title page says what it is
    assert candidate_sentences("Net Sales By Region And Year. The Board Met Twice In May") == [
        "Net Sales By Region And Year."
    ]


def test_a_table_row_of_names_and_figures_is_data_not_a_heading():
    text = (
        "03/04/2016 05/03/2016 03/04/2016 Southern Home Care Services, Inc. San Leandro 123 "
        "Closure Permanent 03/07/2016 05/06/2016 03/07/2016 Barnes & Noble College "
        "Booksellers, LLC Mountain View 40 Closure Permanent"
    )
    quotes = [q.text for q in quotable(Chunk("d" * 64, "warn.pdf", 3, 2, text, ()))]
    assert any("Southern Home Care Services" in q for q in quotes)


def test_page_numbers_lead_ins_bare_rows_and_boilerplate_are_never_quotable():
    text = (
        "We employ three types of regularization during training: 7 "
        "Net income $ 596 $ 2,371 $ 3,033 "
        "In our opinion, the financial statements present fairly, in all material respects, "
        "the financial position of the Company and its net income for each of the years. "
        "Ratio of earnings to fixed charges (2) 3.52 - 3.70 7.19 4.53 ______________ (1) "
        "The decoder also has six layers and attends over the encoder output. 4"
    )
    texts = [q.text for q in quotable(chunk(text, index=0))]
    assert texts == ["The decoder also has six layers and attends over the encoder output."]


def test_a_question_in_the_document_is_never_an_answer():
    analyst = (
        "Can you address the overlap between the $1 million customers and the Fortune 500 "
        "base? We now have 246 customers with trailing product revenue above $1 million."
    )
    texts = [q.text for q in quotable(chunk(analyst, index=0))]
    assert texts == ["We now have 246 customers with trailing product revenue above $1 million."]
    alone = "Does the storage compression affect gross margins (in the second half)?"
    assert quotable(chunk(alone, index=3)) == []
    said = "Gross margins improved, as the question of storage compression was settled."
    assert [q.text for q in quotable(chunk(said, index=3))] == [said]


def test_a_margin_stamp_and_a_page_number_line_are_not_part_of_a_sentence():
    text = (
        "We show that it generalizes well to parsing. arXiv:1706.03762v7 [cs.CL] 2 Aug 2023 "
        "During inference, we\n9"
    )
    lines = (0, text.index("During"), text.index("9"))
    c = Chunk("d" * 64, "paper.pdf", 4, 9, text, (), "", lines)
    assert [q.text for q in quotable(c)] == ["We show that it generalizes well to parsing."]

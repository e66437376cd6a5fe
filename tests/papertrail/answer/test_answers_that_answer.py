"""An offline answer states what was asked, or is shown as the closest passage.

The PDFs are written here, in the words of a well-known paper's training
section (never the corpus): what a question asks about, the figure it asks
for, sits in one sentence, and a sentence elsewhere shares the question's words
without stating it. A quote that does not state what was asked must never be
presented as a verified answer.
"""

from __future__ import annotations

from dataclasses import replace

from papertrail.settings import REFUSAL
from papertrail.verify.question import MAY_NOT_ANSWER
from tests import pdfs
from tests.papertrail.test_pipeline import make

INTRO = (
    "Attention Is All You Need. We propose a new simple network architecture, the Transformer, "
    "based solely on attention mechanisms, dispensing with recurrence and convolutions entirely."
)
HEADS = (
    "3.2.2 Multi-Head Attention. In this work we employ h = 8 parallel attention layers, or "
    "heads. For each of these we use dk = dv = dmodel/h = 64."
)
TRAINING = (
    "5.3 Optimizer. We used the Adam optimizer with β1 = 0.9, β2 = 0.98 and ε = 10-9. We "
    "varied the learning rate over the course of training. 5.4 Regularization. Residual "
    "Dropout. We apply dropout to the output of each sub-layer. For the base model, we use a "
    "dropout rate of Pdrop = 0.1."
)
PARSING = (
    "6.3 English Constituency Parsing. We performed only a small number of experiments to "
    "select the dropout, both attention and residual (section 5.4), learning rates and beam "
    "size on the Section 22 development set, all other parameters remained unchanged from the "
    "English-to-German base translation model."
)
DROPOUT = "What dropout rate was used for the base model?"
HEADS_Q = "How many attention heads does the base model use?"
OPTIMIZER = "What optimizer was used?"


def answered_or_closest(answer, expected: str) -> bool:
    """Either a verified answer that states ``expected``, or the refusal with the closest
    passages marked as such; never a verified answer without it."""
    if answer.citations:
        return expected in answer.text
    return answer.text == REFUSAL and any(n.startswith(MAY_NOT_ANSWER) for n in answer.notes)


def test_the_three_training_questions_are_answered_or_shown_as_closest_passages(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c", "paper.pdf", pdfs.simple_pdf([INTRO, HEADS, TRAINING, PARSING]))
    for question, expected in ((DROPOUT, "0.1"), (HEADS_Q, "8"), (OPTIMIZER, "Adam")):
        answer = pt.ask("c", question)
        assert answered_or_closest(answer, expected)
        # each is answered: the sentence that states the rate, the count, the name
        assert answer.citations and answer.by == "quote" and expected in answer.text
    # the rate comes from the sentence that states one, not the one about choosing it
    assert pt.ask("c", DROPOUT).citations[0].chunk.page == 3


def test_a_sentence_that_only_shares_the_words_is_the_closest_passage_not_an_answer(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c", "paper.pdf", pdfs.simple_pdf([INTRO, PARSING]))  # no rate stated anywhere
    answer = pt.ask("c", DROPOUT)
    assert answer.citations == () and answer.refusal and answer.by == ""
    assert any(n.startswith(MAY_NOT_ANSWER) and "page 2" in n for n in answer.notes)
    assert any(c.reason.startswith("it may not answer") for c in answer.dropped)


def test_a_figure_stated_for_something_else_is_the_closest_passage(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c", "paper.pdf", pdfs.simple_pdf([INTRO, HEADS]))
    answer = pt.ask("c", "How many encoder layers does the big model use?")
    assert answer.citations == () and answer.refusal
    assert all(n.startswith(("Closest passage", MAY_NOT_ANSWER)) for n in answer.notes)


RESULTS = (
    "6.1 Machine Translation. On the WMT 2014 English-to-German translation task, the big "
    "transformer model outperforms the best previously reported models by more than 2.0 BLEU, "
    "establishing a new state-of-the-art BLEU score of 28.4. Training took 3.5 days on 8 P100 "
    "GPUs. On the WMT 2014 English-to-French translation task, our big model achieves a BLEU "
    "score of 41.0, outperforming all of the previously published single models."
)


def test_the_follow_up_on_the_other_language_pair_gets_its_own_figure(tmp_path):
    from papertrail.answer.followup import standalone

    pt = make(tmp_path)
    pt.ingest("c", "paper.pdf", pdfs.simple_pdf([INTRO, RESULTS]))
    first = "What BLEU did the big model get on English-to-German?"
    assert "28.4" in pt.ask("c", first).text
    followup = standalone([first], "And on English-to-French?")
    assert followup == "What BLEU did the big model get on English-to-French?"
    answer = pt.ask("c", followup)
    assert "41.0" in answer.text and "28.4" not in answer.text and answer.citations


def test_a_yes_or_no_question_gets_the_quote_as_a_closest_passage(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c", "paper.pdf", pdfs.simple_pdf([INTRO, TRAINING]))
    answer = pt.ask("c", "Was the Adam optimizer used for training?")
    assert answer.citations == () and answer.refusal
    assert any(n.startswith(MAY_NOT_ANSWER) and "Adam" in n for n in answer.notes)


def test_a_quote_is_judged_with_the_documents_names_and_without_the_questions_frame():
    from papertrail.text.ask import read
    from papertrail.types import Chunk, Citation
    from papertrail.verify.question import _abbreviated, off_question

    assert _abbreviated("What did JnJ or GE pay?", "Johnson & Johnson and General Electric") == [
        "JnJ",
        "GE",
    ]
    assert _abbreviated("What did JnJ pay?", "Kenvue Inc.") == []
    said = "The Company received $13.2 billion in cash proceeds from the Kenvue offering."
    cited = Citation(1, 1, said, Chunk("d" * 64, "8k.pdf", 0, 4, said, ()), True, "quoted")
    asked = read("What is the amount of the cash proceeds that JnJ received from Kenvue?")
    assert off_question(asked, cited, about="Johnson & Johnson") is None
    # the figure is the "amount": a sentence without one must still hold the question's words
    bare = replace(cited, sentence="The Company received proceeds.")
    assert off_question(read("What amount of proceeds did JnJ receive?"), bare) is not None


KETTLE = (
    "4.2 Filters. The kettle takes two filter cartridges, one in the spout and one under the "
    "lid. Replace both every three months."
)
SHOP = "Spare parts. Filter cartridges for the kettle are sold separately by the maker."


def test_how_many_is_answered_by_the_count_not_by_a_sentence_about_the_things(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c", "kettle.pdf", pdfs.simple_pdf([SHOP, KETTLE]))
    answer = pt.ask("c", "How many filter cartridges does the kettle take?")
    assert answer.citations and "two filter cartridges" in answer.text
    pt.ingest("d", "kettle.pdf", pdfs.simple_pdf([SHOP]))  # no count anywhere
    answer = pt.ask("d", "How many filter cartridges does the kettle take?")
    assert answer.refusal and answer.citations == ()
    assert any(n.startswith("Closest passage") and "sold separately" in n for n in answer.notes)
    # the sentence about the cartridges is no answer when it is offered as one
    from papertrail.text.ask import read
    from papertrail.types import Chunk, Citation
    from papertrail.verify.question import off_question

    said = "Filter cartridges for the kettle are sold separately by the maker."
    cited = Citation(1, 1, said, Chunk("d" * 64, "kettle.pdf", 0, 1, said, ()), True, "quoted")
    asked = read("How many filter cartridges does the kettle take?")
    assert off_question(asked, cited) == "it gives no number of cartridges"


MARKETS = (
    "Enrollment Planning Service. Western Region. The region is divided into geographic "
    "markets, each named below with its market code. Market Name and Code. Market names follow "
    "the counties they cover, and a student's market is the one of the high school attended.\n"
    "Nevada (NV)\n1. Las Vegas and Clark County NV01\n2. Reno and Northern Nevada NV02\n"
    "3. Rural Nevada NV03\nUtah (UT)\n1. Salt Lake City UT01\n2. Provo and Orem UT02"
)


def test_a_codes_entry_is_read_on_the_rest_of_the_page_the_search_found(tmp_path):
    pt = make(tmp_path, chunk_size=300, chunk_overlap=30)  # the listing is an excerpt of its own
    pt.ingest("c", "markets.pdf", pdfs.simple_pdf([MARKETS]))
    answer = pt.ask("c", "What is the market name for code NV02?", k=1)  # finds the heading
    assert answer.text == "Reno and Northern Nevada [1]." and answer.by == "lookup"
    # a code no entry names is not answered by the heading that shares the question's words
    absent = pt.ask("c", "What is the market name for code NV07?", k=1)
    assert absent.refusal and absent.citations == ()


def test_a_question_s_aside_and_date_do_not_count_against_the_sentence_that_answers():
    from papertrail.text.ask import read
    from papertrail.types import Chunk, Citation
    from papertrail.verify.question import off_question

    said = "The Company generated $2.4 billion in cash proceeds from the Fabrikam offering."
    doc = "contoso-2024-03-03.pdf"  # its name says the year (as a filing's does)
    cited = Citation(1, 1, said, Chunk("d" * 64, doc, 0, 4, said, ()), True, "quoted")
    asked = read(
        "What is the amount of the cash proceeds that Contoso realised from the separation of "
        "Fabrikam (formerly its Outdoor Goods business segment), as of March 3, 2024?"
    )
    assert off_question(asked, cited, about="Contoso Ltd.") is None
    other = replace(cited, sentence="The Company generated proceeds from its bonds.")
    assert off_question(asked, other, about="Contoso Ltd.") is not None


def test_a_documents_own_reference_marker_is_no_citation():
    from papertrail.answer.quote import cite

    assert cite("We add position signals [9] to the word vectors.", 2) == (
        "We add position signals to the word vectors [2]."
    )


def test_a_figure_is_no_answer_to_which_one_or_to_a_percentage(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c", "10k.pdf", pdfs.filing_pdf())
    for question in (
        "Which type of sales was the largest in 2017?",  # a name: a table figure is none
        "What percentage of total net sales were service sales in 2017?",  # not an amount
    ):
        answer = pt.ask("c", question, render=False)
        assert answer.refusal and answer.citations == (), answer.text


def test_a_quote_holding_none_of_the_questions_words_is_no_answer():
    # a press release's headline says what the question asks; the line quoted under it
    # says none of it, and the heading alone does not make it an answer
    from papertrail.text.ask import read
    from papertrail.types import Chunk, Citation, Evidence
    from papertrail.verify.question import off_question

    headline = "Contoso Reports Second-Quarter 2024 Results; Raises Full-Year Outlook"
    text = "Outlook Reported Second-Quarter 2024 Results Second-Quarter Net revenue growth 8.1%"
    chunk = Chunk("d" * 64, "contoso-2024q2-release.pdf", 0, 1, text, (), section=headline)
    shown = "Results Second-Quarter Net revenue growth 8.1%."
    cited = Citation(1, 1, shown, chunk, True, "quoted")
    asked = read("Why did Contoso raise its full-year outlook?")
    assert off_question(asked, cited, about="Contoso Ltd.") == (
        "it holds none of the question's words: only its heading or neighbours do"
    )
    # a sentence of its own that gives the reason holds the question's words
    said = "Contoso raised its full-year outlook on strong demand for its outdoor range."
    reason = replace(cited, sentence=said, chunk=replace(chunk, text=f"{text}. {said}"))
    assert off_question(asked, reason, about="Contoso Ltd.") is None
    # a name asked for need not repeat the question: its sentence is read instead
    named = "The board appointed Mary Smith chief executive officer of Contoso."
    person = replace(cited, sentence="Mary Smith", chunk=replace(chunk, text=named))
    person = replace(person, evidence=Evidence(named, ()))
    assert off_question(read("Who was appointed chief executive officer?"), person) is None
    # so need not a figure: "£1,577,000." is read in the sentence it was taken from
    income = "Net income was £1,577,000, and members received a dividend."
    figure = replace(cited, sentence="£1,577,000.", chunk=replace(chunk, text=income))
    figure = replace(figure, evidence=Evidence(income, ()))
    assert off_question(read("What was the net income?"), figure) is None
    # a question about the document itself names nothing its sentences would repeat
    secret = "This document is secret. The code word is heliotrope."
    word = replace(cited, sentence="The code word is heliotrope.", evidence=None)
    word = replace(word, chunk=replace(chunk, text=secret, section=""))
    assert off_question(read("What does the document say?"), word) is None


def test_a_quote_for_another_length_of_period_than_asked_is_no_answer():
    # asked about a quarter, the sentence quoted speaks of the full year's outlook
    from papertrail.text.ask import read
    from papertrail.types import Chunk, Citation
    from papertrail.verify.question import off_question

    said = "For the full year of fiscal 2024, we expect Contoso's product revenue to grow 30%."
    chunk = Chunk("d" * 64, "contoso-call-2024-q2.pdf", 0, 3, said, ())
    cited = Citation(1, 1, said, chunk, True, "quoted")
    asked = read("How much did Contoso's product revenue grow in Q2 fiscal 2024?")
    assert off_question(asked, cited, about="Contoso Ltd.") == (
        "it is for another length of period: the excerpt speaks of a year, not a quarter"
    )
    # the quarter's own sentence answers
    quarter = "Contoso's product revenue grew 34% in the second quarter of fiscal 2024."
    right = replace(cited, sentence=quarter, chunk=replace(chunk, text=quarter))
    assert off_question(asked, right, about="Contoso Ltd.") is None


def test_a_quote_holding_only_the_documents_own_names_is_no_answer():
    # a manual named for its machine: every passage names the machine, so a sentence
    # about the machine holds half the question without saying where the USB port is
    from papertrail.text.ask import read
    from papertrail.text.coverage import coverage
    from papertrail.types import Chunk, Citation
    from papertrail.verify.question import FOCUS, ON_QUESTION, off_question

    said = "The Acme 900 coffee machine is a fully automatic machine for espresso and tea."
    chunk = Chunk("d" * 64, "Acme_900_coffee_machine_manual.pdf", 0, 2, said, ())
    cited = Citation(1, 1, said, chunk, True, "quoted")
    asked = read("Where is the USB port on the Acme 900 coffee machine?")
    # the premise: with the document's names, the sentence holds enough of the question
    assert coverage(asked.asking, said, chunk.doc_name)[0] >= ON_QUESTION
    assert off_question(asked, cited) == (
        "it does not say what was asked of this document (lacks usb, port)"
    )
    # the sentence that says where it is answers, the machine's name or not
    where = "The USB port is at the top left on the back of the operating panel."
    right = replace(cited, sentence=where, chunk=replace(chunk, text=where))
    assert off_question(asked, right) is None
    # a question of nothing but the document's names is judged as before
    about = read("What is the Acme 900 coffee machine?")
    assert off_question(about, cited) is None
    assert 0 < FOCUS < ON_QUESTION
    # a document without a title is "titled" by its first sentence: only its capitalised
    # words are names of it, so that sentence still answers what it says
    first = "The harbour authority dredged the northern basin to a depth of fourteen metres."
    basin = replace(cited, sentence=first, chunk=replace(chunk, text=first, doc_name="h.pdf"))
    deep = read("How deep was the northern basin dredged?")
    assert off_question(deep, basin, about=first) is None

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
    assert answered_or_closest(pt.ask("c", DROPOUT), "0.1")
    assert answered_or_closest(pt.ask("c", HEADS_Q), "8")
    optimizer = pt.ask("c", OPTIMIZER)
    assert answered_or_closest(optimizer, "Adam")
    assert optimizer.citations and optimizer.by == "quote"  # the name is kept in the quote


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

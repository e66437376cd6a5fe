"""papertrail.text.stated: whether a sentence states the kind of thing a question asks.

The sentences are written here, in the manner of an appliance manual, a paper and a
quarterly report; each test pairs one that answers with one that only shares words.
"""

from __future__ import annotations

import pytest

from papertrail.text.ask import read
from papertrail.text.stated import counting_piece, counts, lacks


def counted_noun(question: str) -> str:  # what the Ask reads "how many N" as counting
    return read(question).counted


def test_what_how_many_counts():
    assert counted_noun("How many filter cartridges does the kettle take?") == "cartridges"
    assert counted_noun("How many brewing strength levels can be chosen?") == "levels"
    assert counted_noun("How many tables report recall as a metric?") == "tables"  # not "report"
    assert counted_noun("How many people work there?") == "people"
    assert counted_noun("How many grams of tea fit in the basket?") == "grams"
    assert counted_noun("How many times did sales double?") == ""  # a ratio, not a count
    assert counted_noun("What is the boiling point?") == ""


def test_a_count_is_a_number_of_the_thing_counted():
    assert counts("The kettle takes two filter cartridges.", "cartridges")
    assert counts("We stack N = 4 identical blocks, or stages.", "stages")  # within the window
    assert counts("The number of stages is 4.", "stages")  # after it, with a linking word
    assert counts("Fill the basket with tea (max. 12 g).", "grams")  # a unit by its symbol
    # numbers that count nothing: a list item, a section, a table's name, a measure, a note
    assert not counts("To descale the kettle: 1", "steps")
    assert not counts("Descaling 4.2 Descaling is done with citric acid.", "steps")
    assert not counts("Table 3-1 lists the brewing strength levels.", "levels")
    assert not counts("Noise stays under 60 dB at each strength level.", "levels")
    assert not counts("Noise stays low (2 level (LpA) measured at the front.", "levels")


def test_the_piece_that_gives_the_count_is_cut_from_a_run_of_steps():
    run = "5 Lift the lid 5 Fill the basket with tea (max. 12 g) 5 Close the lid"
    assert counting_piece(run, "grams") == "Fill the basket with tea (max. 12 g)"
    assert counting_piece("The kettle takes two filter cartridges.", "cartridges") is None


def test_a_percentage_an_amount_a_change_and_a_year_are_each_their_kind():
    share = read("What percentage of revenue came from online orders in 2023?")
    assert lacks(share, "Online orders brought in $4.1 million in 2023.") is not None
    assert lacks(share, "Online orders made up 31% of revenue in 2023.") is None
    amount = read("How much was spent on research in USD millions in 2023?")
    assert lacks(amount, "Research spending rose 12% in 2023.") is not None
    assert lacks(amount, "Research spending was $42 million in 2023.") is None
    change = read("By how much did Contoso increase its credit line?")
    assert lacks(change, "Contoso signed a new $900 million credit line.") is not None
    assert lacks(change, "Contoso raised its credit line by $100 million.") is None
    year = read("In what year was the plant opened?")
    assert lacks(year, "The plant opened with 300 workers.") is not None
    assert lacks(year, "The plant opened in 1998 with 300 workers.") is None


def test_a_name_question_needs_a_name_the_question_does_not_give():
    ask = read("Which method aligns the retriever with the reader model?")
    assert lacks(ask, "This method aligns the retriever with the reader model.") is not None
    assert lacks(ask, "Duet aligns the retriever with the reader model.") is None
    assert lacks(ask, "The retriever is aligned by RRA, a ranking loss.") is None
    # "what <noun>" asks for a figure as often as for a name: no name is needed
    budget = read("What budget did the Lynx project have?")
    assert lacks(budget, "The Lynx project had a budget of 3.1 million euros.") is None


# question, a sentence that does not state what it asks, why, and one that does
KINDS = [
    (
        "How many filter cartridges does the kettle take?",
        "Filter cartridges are sold separately.",
        "it gives no number of cartridges",
        "The kettle takes two filter cartridges.",
    ),
    (
        "What is the market name for code NV02?",
        "Western Region Market Name Code",
        "it does not name NV02",
        "2. Reno and Northern Nevada NV02",
    ),
    (
        "What does RAG stand for?",
        "Comparison between the three paradigms of RAG.",
        "it does not spell out RAG",
        "Retrieval-Augmented Generation (RAG) has emerged as a solution.",
    ),
]


@pytest.mark.parametrize(("question", "lacking", "why", "stating"), KINDS)
def test_a_sentence_must_state_the_kind_of_thing_asked(question, lacking, why, stating):
    ask = read(question)
    assert lacks(ask, lacking) == why
    assert lacks(ask, stating) is None

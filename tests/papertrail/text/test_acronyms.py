"""Acronyms a question asks to spell out, and the long forms a text defines for them."""

import pytest

from papertrail.text.acronyms import expansions, spells
from papertrail.text.ask import read


def asked_acronym(question: str) -> str | None:
    """What the question reads as (``Ask.acronym``), None when it asks no such thing."""
    return read(question).acronym or None


TEXT = (
    "21 National Atmospheric Research Laboratory (NARL) NARL at Gadanki, an autonomous "
    "society supported by DOS, is a centre for atmospheric research. The gross domestic "
    "product (GDP) rose. We use RAG (Retrieval-Augmented Generation) throughout."
)


@pytest.mark.parametrize(
    ("question", "acronym"),
    [
        ("What is NARL stand for in this document?", "NARL"),
        ("What does GDP stand for?", "GDP"),
        ("What is the full form of RAG?", "RAG"),
        ("Which organisation is the abbreviation DoS short for?", "DoS"),
        ("How many centres does NARL run?", None),  # not asked to spell it out
        ("What do NARL and DOS stand for?", None),  # two: which one?
        ("How many times does the acronym NARL appear?", None),
        ("Does NARL stand for a laboratory?", None),
    ],
)
def test_reads_the_acronym_a_question_asks_to_spell_out(question, acronym):
    assert asked_acronym(question) == acronym


def test_finds_long_forms_before_or_inside_the_brackets_as_written():
    assert expansions(TEXT, "NARL") == ["National Atmospheric Research Laboratory"]
    assert expansions(TEXT, "GDP") == ["gross domestic product"]
    assert expansions(TEXT, "RAG") == ["Retrieval-Augmented Generation"]


def test_does_not_guess_a_long_form_whose_letters_do_not_match():
    assert expansions("The main office (NARL) is in Gadanki.", "NARL") == []
    assert expansions(TEXT, "DOS") == []  # used, never spelled out
    # words that no letter of the acronym starts are not part of its long form
    assert expansions("the new Gross Domestic Product (GDP) figure", "GDP") == [
        "Gross Domestic Product"
    ]


def test_finds_a_long_form_spelled_out_in_words():
    said = "Here NARL stands for National Atmospheric Research Laboratory, a centre."
    assert expansions(said, "NARL") == ["National Atmospheric Research Laboratory"]
    short = "GPL, short for GNU General Public License, applies."
    assert expansions(short, "GPL") == ["GNU General Public License"]
    assert expansions("GPL stands for something else entirely.", "GPL") == []


def test_a_sentence_spells_an_acronym_out_when_it_writes_its_long_form_anywhere():
    assert spells("Retrieval-Augmented Generation (RAG) has emerged.", "RAG")
    assert spells("Data came from the National Atmospheric Research Laboratory.", "NARL")
    assert spells("The Global Positioning System is used.", "GPS")
    # the acronym itself, or its plural, is no long form
    assert not spells("Comparison between the three paradigms of RAG.", "RAG")
    assert not spells("RAG and RAGs are popular; GPS too.", "RAG")
    assert not spells("GPS satellites orbit the earth.", "GPS")


def test_prefers_the_long_form_whose_initials_are_the_acronym():
    # the shortest run that matches letter by letter is only its tail ("Geo Augmented
    # Navigation" also holds g, a, g, a, n)
    text = "The satellite carried the GPS Aided Geo Augmented Navigation (GAGAN) payload."
    assert expansions(text, "GAGAN") == ["GPS Aided Geo Augmented Navigation"]

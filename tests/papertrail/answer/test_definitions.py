"""A question asking how a document defines a term gets the definition it gives."""

from papertrail.answer.definitions import definition_answer
from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.text.ask import read
from papertrail.types import Chunk, Hit
from papertrail.verify.verify import verify_answer


def asked_term(question: str) -> str | None:
    """What the question reads as (``Ask.term``), None when it asks no such thing."""
    return read(question).term or None


SLIDE = (
    "Law of good Gestalt. Elements of objects tend to be perceptually grouped together if "
    "they form a pattern that is regular, simple, and orderly. This law implies that "
    "individuals eliminate complexity. The law of good gestalt focuses on conciseness."
)
GLOSSARY = "Firmware: The software that runs inside the device and controls its hardware."
PROSE = "A checksum is a small value computed from a block of data to detect errors."


def hits(*texts):
    return [Hit(Chunk("d" * 64, "doc.pdf", i, 1 + i, t, ()), 1.0) for i, t in enumerate(texts)]


def test_reads_the_term_a_question_asks_to_define():
    assert asked_term("How does this document define the law of good gestalt?") == (
        "law of good gestalt"
    )
    assert asked_term("What is the definition of 'firmware' in this manual?") == "firmware"
    assert asked_term("What is meant by checksum?") == "checksum"
    assert asked_term("What does the law of good gestalt imply?") is None


def test_the_sentence_after_the_terms_label_is_its_definition():
    h = hits(PROSE, SLIDE)
    assert definition_answer("How does this document define the law of good gestalt?", h) == (
        "Elements of objects tend to be perceptually grouped together if they form a pattern "
        "that is regular, simple, and orderly.",
        2,
    )


def test_a_label_with_a_colon_and_a_sentence_saying_what_it_is():
    h = hits(GLOSSARY, PROSE)
    assert definition_answer("What is the definition of firmware?", h) == (
        "The software that runs inside the device and controls its hardware.",
        1,
    )
    assert definition_answer("What is meant by checksum?", h) == (PROSE, 2)
    assert definition_answer("How does the manual define a watchdog?", h) is None


def test_the_definition_is_answered_and_verified():
    h = hits(PROSE, SLIDE)
    question = "How does this document define the law of good gestalt?"
    draft = ExtractiveGenerator().generate(question, h)
    assert draft.text.startswith("Elements of objects tend to be perceptually grouped")
    checked = verify_answer(draft.text, h)
    assert checked.grounded and not checked.dropped


def test_a_definition_the_question_gives_is_no_question_about_one():
    q = "What is the FY2022 unadjusted EBITDA? Define unadjusted EBITDA as operating income."
    assert asked_term(q) is None
    assert asked_term("Considering the balance sheet, what does it define as current?") is None

"""Answers looked up where a document lists them: the name beside a code, a long form."""

from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.answer.lookup import field_answer, lookup_answer
from papertrail.text.ask import read
from papertrail.types import Chunk, Hit, Rect
from papertrail.verify.verify import verify_answer


def asked_code(question: str) -> str | None:
    """What the question reads as (``Ask.code``), None when it asks no such thing."""
    return read(question).code or None


# A listing as the text layer gives it: one printed line per row, list number first
ROWS = [
    "Arkansas (AR) ",
    "1. Little Rock AR01 ",
    "2. Northern Arkansas AR02 ",
    "New Mexico (NM) ",
    "1. Albuquerque and ",
    "Northern New Mexico NM01 ",
    "2. Southern New Mexico NM02 ",
]
CODES_FIRST = ["E-12 Water tank empty ", "E-13 Drip tray missing "]
PROSE = "The Enrollment Planning Service divides each state into geographic markets by code."


def chunk(lines: list[str], index: int = 0) -> Chunk:
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line)
    rects = tuple(Rect(0, 10 * i, 100, 10 * i + 8) for i in range(len(lines)))
    return Chunk("d" * 64, "guide.pdf", index, 8, "".join(lines), rects, "", tuple(starts))


def hits(*chunks: Chunk) -> list[Hit]:
    return [Hit(c, 1.0 - i / 10) for i, c in enumerate(chunks)]


def test_reads_one_code_from_a_what_or_which_question():
    assert asked_code("What's the geographic market name for EPS Code AR01?") == "AR01"
    assert asked_code("According to this guide, which fault is E-12?") == "E-12"
    assert asked_code("Is market CA03 part of the Bay Area? Answer yes or no.") is None
    assert asked_code("Which is larger, CA19 or Covina?") is None  # a comparison
    assert asked_code("What were net sales in FY2017?") is None  # a period, not a code
    assert asked_code("What is filed in the 10-K?") is None


def test_quotes_the_name_beside_the_code_without_its_list_number():
    h = hits(chunk([PROSE]), chunk(ROWS, 1))
    assert lookup_answer("What's the geographic market name for EPS Code AR01?", h) == (
        "Little Rock",
        2,
    )
    assert lookup_answer("What is the market name for AR02?", h) == ("Northern Arkansas", 2)


def test_a_name_over_two_lines_is_quoted_whole():
    h = hits(chunk(ROWS))
    assert lookup_answer("What is market NM01?", h) == ("Albuquerque and Northern New Mexico", 1)


def test_code_first_rows_and_codes_not_listed():
    h = hits(chunk(CODES_FIRST))
    assert lookup_answer("What does error E-13 mean?", h) == ("Drip tray missing", 1)
    assert lookup_answer("What does error E-14 mean?", h) is None
    assert lookup_answer("What is the market name for AR03?", hits(chunk(ROWS))) is None


def test_the_looked_up_name_is_answered_and_verified():
    h = hits(chunk([PROSE]), chunk(ROWS, 1))
    gen = ExtractiveGenerator()
    draft = gen.generate("What's the geographic market name for EPS Code AR01?", h)
    assert draft.text == "Little Rock [2]."
    checked = verify_answer(draft.text, h)
    assert checked.grounded and not checked.dropped and checked.citations[0].marker == 2


def test_an_acronym_is_answered_with_the_long_form_the_document_gives():
    text = "National Atmospheric Research Laboratory (NARL) NARL at Gadanki is a centre."
    h = hits(chunk([PROSE]), chunk([text], 1))
    draft = ExtractiveGenerator().generate("What is NARL stand for in this document?", h)
    assert draft.text == "National Atmospheric Research Laboratory [2]."
    checked = verify_answer(draft.text, h)
    assert checked.grounded and not checked.dropped


def test_a_quoted_term_gets_the_entry_printed_beside_it_hanging_lines_included():
    lines = [
        "Life.Die The word {evt} triggers a DIE event: a person dies. ",
        "Contact.Meet The word {evt} triggers a MEET event: two or more entities come ",
        "together at a single location. ",
        "Life.Marry The word {evt} triggers a MARRY event. ",
    ]
    c = chunk(lines)
    hanging = tuple(Rect(86 if k != 2 else 212, 10 * k, 500, 10 * k + 8) for k in range(len(lines)))
    h = hits(chunk([PROSE]), Chunk(c.doc_id, c.doc_name, 1, 29, c.text, hanging, "", c.lines))
    question = "Tell me the prompt template used for label 'Contact.Meet' in this work."
    assert lookup_answer(question, h) == (
        "The word {evt} triggers a MEET event: two or more entities come together at a "
        "single location.",
        2,
    )
    assert lookup_answer("Tell me the template for 'Contact.Phone'.", h) is None
    assert lookup_answer("Is 'Contact.Meet' a template or a label?", h) is None


def test_a_labelled_number_is_quoted_with_its_label():
    signature = (
        "Respectfully submitted, ADRIANA DYDELL Assistant United States Attorney 211 W. Fort "
        "Street, Suite 2001 Detroit, Michigan 48226 Dated: September 2018 (CA. Bar No. 239516)"
    )
    h = hits(chunk([PROSE]), chunk([signature], 1))
    assert field_answer("what is the CA, Bar no of the report?", h) == ("CA. Bar No. 239516", 2)
    assert field_answer("What is the bar number?", h) is None  # not the label it prints
    phone = hits(chunk(["Detroit, Michigan 48226 Phone Number: (313) 226-9125 Dated: 2018"]))
    assert field_answer("What is the phone number of the office?", phone) == (
        "Phone Number: (313) 226-9125",
        1,
    )
    row = "Total revenue 1,200 1,350 1,410"  # a table row: which column is asked?
    assert field_answer("What is the total revenue?", hits(chunk([row]))) is None
    assert field_answer("What is the total revenue in 2019?", hits(chunk([row]))) is None
    draft = ExtractiveGenerator().generate("what is the CA, Bar no of the report?", h)
    assert draft.text == "CA. Bar No. 239516 [2]."
    checked = verify_answer(draft.text, h)
    assert checked.grounded and not checked.dropped


def test_a_line_of_prose_ending_in_a_code_is_no_listing():
    prose = ["For the full table of charges see the schedule in annex AB12 ", "of this guide. "]
    assert lookup_answer("What is in annex AB12?", hits(chunk(prose))) is None


def test_a_line_of_prose_opening_with_the_quoted_term_is_no_entry():
    lines = ["Contact.Meet is the label we found hardest, as the table shows. ", "Other labels "]
    c = chunk(lines)
    rects = (Rect(86, 0, 500, 8), Rect(86, 10, 300, 18))
    h = hits(Chunk(c.doc_id, c.doc_name, 0, 29, c.text, rects, "", c.lines))
    assert lookup_answer("Tell me the template for 'Contact.Meet'.", h) is None

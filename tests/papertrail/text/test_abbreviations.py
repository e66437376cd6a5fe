"""Short forms and verbs of direction found in the words an excerpt spells them out with."""

import pytest

from papertrail.text.abbreviations import direction, spelled_out
from papertrail.text.words import word_keys


@pytest.mark.parametrize(
    "word,excerpt",
    [
        ("fell", "Net sales decreased 4.9% to $25.0 billion."),
        ("slipped", "Operating margin declined to 11%."),
        ("rose", "Revenue increased 8% in the quarter."),
        ("grew", "Bookings increased 12%."),
        ("q3", "For the three months ended September 30, revenue was flat."),
        ("bps", "Gross margin widened by 40 basis points."),
    ],
)
def test_a_short_form_or_verb_of_direction_is_found_spelled_out(word, excerpt):
    assert spelled_out(word, word_keys(excerpt))


def test_a_verb_of_direction_is_not_found_in_the_opposite_direction():
    assert not spelled_out("rose", word_keys("Net sales decreased 4.9%."))
    assert not spelled_out("fell", word_keys("Net sales increased 4.9%."))
    assert direction(("sales", "fell")) == {"down"}

"""An answer's claims: marker groups, refusals, and the answer part of a restated question."""

import pytest

from papertrail.verify.claims import answer_part, is_claim, parse_markers, split_claims


@pytest.mark.parametrize(
    ("group", "expected"),
    [
        ("[1]", (1,)),
        ("[1][2]", (1, 2)),
        ("[1] [3]", (1, 3)),
        ("[1, 2]", (1, 2)),
        ("[2,1,2]", (2, 1)),
        ("[1-3]", (1, 2, 3)),
        ("[3\u20131]", (1, 2, 3)),
        ("[1-3, 5]", (1, 2, 3, 5)),
    ],
)
def test_parse_markers(group, expected):
    assert parse_markers(group) == expected


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        (
            "The email address in this document is info@acme.com.",
            ("The email address", "info@acme.com."),
        ),
        ("The presenter of this slide is Ann Lee.", ("The presenter", "Ann Lee.")),
        ("According to the report, revenue was $5 million.", (", revenue", "$5 million.")),
        (
            "The encoder stacks six identical layers.",
            ("", "The encoder stacks six identical layers."),
        ),
        ("The answer is it.", ("", "The answer is it.")),  # nothing to judge after the verb
    ],
)
def test_answer_part_drops_words_pointing_at_the_document(claim, expected):
    assert answer_part(claim) == expected


def test_groups_tie_markers_to_their_sentence_or_part():
    sentences, claims, groups = split_claims("It has 6 layers [1] and 8 heads [2]. Next. [3]")
    assert sentences == ["It has 6 layers and 8 heads.", "Next."]
    assert [claims[g.claim] for g in groups] == ["It has 6 layers", "and 8 heads", "Next."]
    assert [g.markers for g in groups] == [(1,), (2,), (3,)]
    assert not is_claim("Here is what I found:") and is_claim("It has 6 layers.")


def test_clauses_are_the_statements_a_claim_joins():
    from papertrail.verify.claims import clauses

    assert clauses("The encoder has 6 layers, and the decoder adds a third sub-layer.") == [
        "The encoder has 6 layers",
        "the decoder adds a third sub-layer",
    ]
    assert clauses("Revenue grew strongly overall; margins held steady at the plant.") == [
        "Revenue grew strongly overall",
        "margins held steady at the plant",
    ]
    assert clauses("Revenue grew; margins held steady at the plant.") == [
        "margins held steady at the plant"  # "Revenue grew" is too short to stand alone
    ]
    one = "Apples, pears and plums were sold at the market."
    assert clauses(one) == ["Apples, pears and plums were sold at the market"]

from papertrail.measure.metrics import (
    correctness,
    first_relevant_rank,
    hit_at,
    numbers,
    numbers_match,
    reciprocal_rank,
    token_f1,
)


def test_ranks():
    assert first_relevant_rank([False, False, True, True]) == 3
    assert first_relevant_rank([False]) is None
    assert hit_at(3, 5) == 1.0 and hit_at(6, 5) == 0.0 and hit_at(None, 5) == 0.0
    assert reciprocal_rank(4) == 0.25 and reciprocal_rank(11) == 0.0


def test_numbers_parse_finance_formats():
    assert numbers("$1,577.00 and (12.5) and 24.26%") == [1577.0, -12.5, 24.26]


def test_numbers_match_with_tolerance_and_scale():
    assert numbers_match("$1577.00", "Total revenue was $1,577 million [1].")
    assert numbers_match("$1577.00", "about $1.58 billion")
    assert numbers_match("24.26", "The ratio is 24.3.")
    assert numbers_match("24.26", "The ratio is 28.4.") is False
    assert numbers_match("Yes, it did.", "yes") is None


def test_years_are_not_the_figure():
    # "in FY2019 ... 1.2" compares 1.2, not 2019
    assert numbers_match("In FY2019 the ratio was 1.2", "1.2 in 2019")
    assert numbers_match("In FY2019 the ratio was 1.2", "2019 only") is False


def test_token_f1_and_correctness():
    assert token_f1("The Transformer", "the transformer") == 1.0
    assert token_f1("a b c", "x y z") == 0.0
    assert correctness("$5466.00", "Liabilities were $5,466 million [1].") == (1.0, "number")
    score, how = correctness("Dispensing with recurrence", "It dispenses with recurrence")
    assert how == "f1" and 0 < score < 1

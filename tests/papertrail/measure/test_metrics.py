from papertrail.measure.metrics import (
    correctness,
    first_relevant_rank,
    hit_at,
    hit_given_doc,
    is_wrong,
    numbers,
    numbers_match,
    reciprocal_rank,
    summarise,
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


def test_a_figure_scores_only_as_the_answer_not_as_any_number_in_it():
    q = "What were total net sales in 2017?"
    assert correctness("177866", "Total net sales in 2017 were $177,866 million [1].", q) == (
        1.0,
        "number",
    )
    dump = "North America 106,110 International 54,297 AWS 17,459 Total 177,866 [1]"
    assert correctness("177866", dump, q) == (0.25, "number")
    assert correctness("177866", "North America sales were $106,110 million.", q)[0] == 0.0
    # the question's own figures and citation markers are not the answer's
    h = "Why are dot products scaled by 1/sqrt(dk) for dk = 64?"
    assert correctness("8", "Each of the 8 heads uses dk = 64 [2].", h) == (1.0, "number")


def test_wrong_means_the_reference_is_not_given():
    assert is_wrong("177866", "North America 106,110 and International 54,297 [1].")
    assert not is_wrong("The Transformer", "It proposes the Transformer, built on attention.")
    assert is_wrong("The Transformer", "It proposes a recurrent network.")


def test_refusals_are_reported_apart_from_grounded_answers():
    def rec(refusal, grounded, wrong, score):
        return {
            "answer": "x",
            "rank": 1,
            "scored": True,
            "answerable": True,
            "refusal": refusal,
            "grounded": grounded,
            "wrong": wrong,
            "correctness": score,
            "citation_on_evidence": [],
        }

    records = [rec(True, True, True, 0.3), rec(False, True, True, 0.0), rec(False, True, False, 1)]
    m = summarise(records, multi_doc=False)
    assert m["answered_rate"] == 2 / 3 and m["false_refusal_rate"] == 1 / 3
    assert m["grounded_rate"] == 2 / 3 and m["verified_wrong_rate"] == 1 / 3
    assert m["correctness"] == 1 / 3  # a refusal scores nothing


def test_figures_the_reference_also_gives_are_no_distractors():
    ref = "28.4 BLEU, improving over the existing best results by more than 2 BLEU."
    answer = "It beats the best models by more than 2.0 BLEU, reaching 28.4 [1]."
    assert correctness(ref, answer, "What BLEU score?") == (1.0, "number")
    # the reference's figure is the question's: words decide
    assert correctness("scaling by 1/sqrt(dk) counteracts it", "x", "Why 1/sqrt(dk)?")[1] == "f1"


def test_hit_given_doc_scores_passages_only_where_the_document_was_found():
    records = [
        {"scored": True, "rank": 2, "doc_rank": 1},  # right document, right page
        {"scored": True, "rank": None, "doc_rank": 1},  # right document, wrong pages
        {"scored": True, "rank": None, "doc_rank": None},  # document missed: not counted
        {"scored": True, "rank": 7, "doc_rank": 6},  # found below 5: not counted
    ]
    assert hit_given_doc(records, 5) == 0.5
    assert hit_given_doc(records[2:], 5) is None
    m = summarise(records, multi_doc=True)
    assert m["hit@5|doc"] == 0.5 and m["hit@5"] == 0.25 and m["doc_hit@5"] == 0.5
    assert "hit@5|doc" not in summarise(records, multi_doc=False)

"""An excerpt is read once per distinct text, however many claims it is judged for."""

from papertrail.verify import excerpt
from papertrail.verify.judge import read
from papertrail.verify.verify import verify_answer
from tests.fakes import HashEmbedder
from tests.papertrail.verify.test_verify import BLEU_DE, ENCODER, HEADS, OPTIMIZER, hits


def test_an_answer_reads_each_excerpt_once():
    excerpt.parse.cache_clear()
    answer = (
        "The encoder is composed of a stack of 6 identical layers [1]. "
        "The model employs 8 parallel attention heads [1]. "  # fails on [1], moves to [2]
        "The big model reaches a BLEU score of 29.9 [3]. "  # fails everywhere: 4 excerpts tried
        "Adam was used with beta2 = 0.98 [4]."
    )
    out = verify_answer(answer, hits(ENCODER, HEADS, BLEU_DE, OPTIMIZER), embedder=HashEmbedder())
    assert [c.marker for c in out.citations] == [1, 2, 4]
    info = excerpt.parse.cache_info()
    assert info.misses == 4  # one reading per excerpt
    assert info.hits >= 6  # every other (claim, excerpt) pair reused it


def test_a_cached_reading_gives_the_same_verdict():
    claim = "The encoder is composed of a stack of 6 identical layers."
    excerpt.parse.cache_clear()
    first = read(claim, ENCODER, "attention Encoder")
    again = read(claim, ENCODER, "attention Encoder")
    assert excerpt.parse.cache_info().hits == 1
    excerpt.parse.cache_clear()
    assert read(claim, ENCODER, "attention Encoder") == first == again


def test_units_assert_what_the_excerpt_says_not_what_it_asks():
    text = "Did revenue grow? Revenue grew on enterprise demand."
    units = excerpt.parse(text).units
    assert len(units) == 2
    assert "revenu" not in units[0].keys and "revenu" in units[1].keys


def test_a_quarter_glued_to_its_year_in_a_file_name_is_context():
    from papertrail.text.words import found
    from papertrail.verify.excerpt import context_keys

    keys = context_keys("CONTOSO_2023Q2_EARNINGS")
    assert found("q2", keys) and found("second", keys)
    assert not found("q3", keys)
    assert not found("q2", context_keys("CONTOSO_2023_10K"))

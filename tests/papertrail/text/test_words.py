"""Words: stems, word keys, rarity and content words, as the verifier and BM25 share them."""

from papertrail.text.words import content_words, found, is_content, rarity, stem, word_keys


def test_stem_gives_one_key_to_the_forms_of_a_word():
    assert stem("dividends") == stem("dividend")
    assert stem("increased") == stem("increasing") == stem("increase")
    assert stem("companies") == stem("company")
    assert stem("sales") == stem("sale")


def test_found_handles_compounds_acronyms_and_derivations():
    keys = word_keys("The Chief Executive Officer set dmodel = 512; pos- sible generation")
    assert found("ceo", keys, acronym=True)
    assert not found("ceo", keys)  # only a word written in capitals may be an acronym
    assert found("possible", keys)
    assert found("generated", keys)
    assert not found("dropout", keys)
    # two long lowercase words spell a two-letter acronym; short or stop words do not
    assert found("lm", word_keys("the language model is trained"), acronym=True)
    assert not found("ma", word_keys("militate against it"), acronym=True)


def test_a_figures_glued_scale_is_no_content_word():
    assert not is_content("6b") and not is_content("100k")  # of "$4.6B", "100K": a scale
    assert is_content("p100")


def test_rarity_weighs_names_above_everyday_words():
    assert rarity("kenvue") > rarity("encoder") > rarity("company")
    assert 1.0 <= rarity("company") <= 6.0


def test_content_words_drop_stopwords_units_and_numbers():
    words = content_words("The revenue was roughly $5 million in FY2021 [1].")
    assert words == ["revenue"]


def test_irregular_verbs_share_their_base_key():
    from papertrail.text.words import stem

    assert stem("paid") == stem("pay") and stem("grew") == stem("grows") == stem("grown")
    assert stem("rose") == stem("rise") and stem("written") == stem("write")


def test_a_claim_may_spell_out_an_acronym_the_text_writes():
    from papertrail.text.coverage import coverage

    said = "RAG reduces factually incorrect content."
    assert coverage("Retrieval augmented generation reduces incorrect content.", said)[0] == 1.0
    assert (
        coverage("Unit sales reduce incorrect content.", "US sales reduce incorrect content.")[0]
        < 1.0
    )  # two letters are too few to tell an acronym from a word ("US")


def test_a_claim_may_write_apart_a_compound_the_text_writes_as_one_word():
    from papertrail.text.coverage import coverage

    # the runs a claim can be found as are worked out once per claim: a second text
    # compared with the same claim is judged on its own keys
    claim = "MGM Resorts reported higher revenue."
    assert coverage(claim, "MGMRESORTS reported higher revenue.")[0] == 1.0
    assert coverage(claim, "Caesars reported higher revenue.")[0] < 1.0
    assert coverage(claim, "MGMRESORTS reported higher revenue.")[0] == 1.0


def test_a_claims_figures_are_looked_up_for_each_set_of_numbers():
    from papertrail.text.coverage import parse, share
    from papertrail.text.figures import excerpt_numbers

    # looked up once per (claim, numbers) pair and kept: never the answer for other numbers
    claim = parse("Revenue was $5,466 million in 2019.")
    has = tuple(excerpt_numbers("Revenue was $5,466 million in 2019."))
    lacks = tuple(excerpt_numbers("Revenue was $4,100 million in 2019."))
    keys = {"revenu"}
    for _ in range(2):
        assert not share(claim, keys, has)[2]
        assert share(claim, keys, lacks)[2]
        assert share(claim, keys, has)[0] > share(claim, keys, lacks)[0]
    assert share(claim, keys, list(lacks)) == share(claim, keys, lacks)

"""Citation verification: each (sentence, cited excerpt) pair judged on its own."""

import pytest

from papertrail.settings import REFUSAL
from papertrail.types import Chunk, Hit
from papertrail.verify.verify import MISSING, verify_answer
from tests.fakes import HashEmbedder

ENCODER = (
    "3.1 Encoder and Decoder Stacks. Encoder: The encoder is composed of a stack of N = 6 "
    "identical layers. Each layer has two sub-layers: a multi-head self-attention mechanism "
    "and a position-wise fully connected feed-forward network."
)
BLEU_FR = (
    "On the WMT 2014 English-to-French translation task, our big model achieves a BLEU "
    "score of 41.0, outperforming all of the previously published single models."
)
BLEU_DE = (
    "On the WMT 2014 English-to-German translation task, the big transformer model "
    "outperforms the best previously reported models by more than 2.0 BLEU, establishing "
    "a new state-of-the-art BLEU score of 28.4."
)
HEADS = (
    "In this work we employ h = 8 parallel attention layers, or heads. For each of these "
    "we use dk = dv = dmodel/h = 64."
)
OPTIMIZER = (
    "We used the Adam optimizer with beta1 = 0.9, beta2 = 0.98 and a learning rate that "
    "increases linearly during the warmup steps."
)


def hits(*texts: str) -> list[Hit]:
    return [
        Hit(Chunk("d" * 64, "attention.pdf", i, i + 1, t, ()), 1.0 / (i + 1))
        for i, t in enumerate(texts)
    ]


@pytest.fixture(params=[None, HashEmbedder()], ids=["words-only", "with-embedder"])
def embedder(request):
    return request.param


def test_seed_failure_1_chunk_must_support_its_own_sentence(embedder):
    # The seed compared the whole answer with each chunk, so the optimizer excerpt
    # "supported" the second sentence through words of the first one.
    answer = (
        "The encoder is composed of a stack of 6 identical layers [1]. "
        "Each layer has a multi-head self-attention mechanism [2]."
    )
    wrong = OPTIMIZER + " The encoder stack of identical layers is described above."
    out = verify_answer(answer, hits(wrong, HEADS), embedder=embedder)
    assert out.citations == ()
    assert [(c.marker, c.sentence) for c in out.dropped] == [
        (1, "The encoder is composed of a stack of 6 identical layers."),
        (2, "Each layer has a multi-head self-attention mechanism."),
    ]
    assert out.text.endswith("self-attention mechanism.")
    assert not out.grounded


def test_a_citation_of_the_wrong_excerpt_moves_to_the_one_that_states_it(embedder):
    answer = (
        "The encoder is composed of a stack of 6 identical layers [1]. "
        "Each layer has a multi-head self-attention mechanism [2]."
    )
    out = verify_answer(answer, hits(ENCODER, OPTIMIZER), embedder=embedder)
    assert [(c.n, c.marker) for c in out.citations] == [(1, 1)]
    assert out.dropped == ()
    assert out.text.endswith("self-attention mechanism [1].")
    moved = verify_answer(answer, hits(OPTIMIZER, ENCODER), embedder=embedder)
    (c,) = moved.citations
    assert (c.n, c.marker) == (1, 2)
    assert c.reason.startswith("moved from [1], which")
    assert moved.text.count("[1]") == 2


def test_seed_failure_2_changed_figure_is_caught(embedder):
    answer = "The big model achieves 28.4 BLEU on WMT 2014 English-to-French [1]."
    out = verify_answer(answer, hits(BLEU_FR), embedder=embedder)
    assert out.citations == ()
    (d,) = out.dropped
    assert d.reason == "figure 28.4 not in excerpt"
    assert not out.grounded
    assert out.text == "The big model achieves 28.4 BLEU on WMT 2014 English-to-French."


def test_seed_failure_3_refusal_is_grounded(embedder):
    out = verify_answer(REFUSAL, hits(ENCODER), embedder=embedder)
    assert out.refusal and out.grounded
    assert out.citations == () and out.dropped == ()
    assert out.text == REFUSAL
    loose = verify_answer(REFUSAL.lower().rstrip(".") + " Try asking about X.", hits(ENCODER))
    assert loose.refusal and loose.grounded


def test_supported_number_claim_is_kept_with_scores(embedder):
    answer = "The big transformer reaches a BLEU score of 28.4 on English-to-German [1]."
    out = verify_answer(answer, hits(BLEU_DE), embedder=embedder)
    (c,) = out.citations
    assert (c.n, c.marker, c.supported) == (1, 1, True)
    assert dict(c.scores)["coverage"] >= 0.8 and dict(c.scores)["figures_missing"] == 0
    assert c.level in ("verified", "partly supported")  # how sure, in words
    assert dict(c.scores)["confidence"] > 0


@pytest.mark.parametrize(
    "answer",
    [
        "The encoder has a stack of 6 identical layers [1][2].",
        "The encoder has a stack of 6 identical layers [1, 2].",
        "The encoder has a stack of 6 identical layers [1-2].",
        "The encoder has a stack of 6 identical layers. [1][2]",
        "The encoder has a stack of 6 identical layers.[1] [2]",
    ],
)
def test_marker_variants_and_markers_after_the_period(answer):
    out = verify_answer(answer + " Adam is the optimizer [3].", hits(ENCODER, HEADS, OPTIMIZER))
    assert [(c.n, c.marker) for c in out.citations] == [(1, 1), (2, 3)]
    assert [c.marker for c in out.dropped] == [2]
    assert out.citations[0].sentence == "The encoder has a stack of 6 identical layers."
    assert "[1]" in out.text and "[2]" in out.text and "[3]" not in out.text


def test_survivors_renumbered_in_order_of_first_appearance():
    answer = (
        "The model uses 8 parallel attention heads [2]. "
        "The encoder is a stack of 6 identical layers [1]. "
        "Adam is used as the optimizer with beta2 = 0.98 [3]. "
        "The encoder stack has 6 identical layers again [1]."
    )
    out = verify_answer(answer, hits(ENCODER, HEADS))
    assert [(c.n, c.marker) for c in out.citations] == [(1, 2), (2, 1)]
    assert out.text == (
        "The model uses 8 parallel attention heads [1]. "
        "The encoder is a stack of 6 identical layers [2]. "
        "Adam is used as the optimizer with beta2 = 0.98. "
        "The encoder stack has 6 identical layers again [2]."
    )
    assert [(c.marker, c.reason) for c in out.dropped] == [(3, MISSING)]


def test_out_of_range_markers_are_dropped():
    answer = "The encoder is a stack of 6 identical layers [0][1][4]."
    out = verify_answer(answer, hits(ENCODER, HEADS))
    assert [c.marker for c in out.citations] == [1]
    assert [(c.marker, c.reason, c.chunk) for c in out.dropped] == [
        (0, MISSING, None),
        (4, MISSING, None),
    ]
    assert out.text == "The encoder is a stack of 6 identical layers [1]."


def test_each_part_of_a_sentence_is_judged_against_its_own_excerpt():
    answer = "The encoder stacks 6 identical layers [1] and it employs 8 parallel heads [2]."
    out = verify_answer(answer, hits(ENCODER, HEADS))
    assert [c.marker for c in out.citations] == [1, 2]
    assert out.dropped == ()
    assert out.citations[1].sentence == "and it employs 8 parallel heads"


def test_list_items_are_separate_sentences():
    answer = (
        "Here is what I found:\n"
        "1. The encoder is a stack of 6 identical layers [1].\n"
        "2. The model employs 8 parallel attention layers, or heads [2]."
    )
    out = verify_answer(answer, hits(ENCODER, HEADS))
    assert [c.sentence for c in out.citations] == [
        "The encoder is a stack of 6 identical layers.",
        "The model employs 8 parallel attention layers, or heads.",
    ]
    assert out.grounded


def test_claims_no_excerpt_states_are_not_grounded():
    out = verify_answer("The encoder is a stack of 12 identical layers.", hits(ENCODER))
    assert not out.grounded and not out.refusal and out.citations == ()
    assert verify_answer("Here is what I found:", hits(ENCODER)).grounded


def test_a_sentence_quoted_word_for_word_is_verified_not_partly():
    from papertrail.verify.verify import quoted

    text = "The encoder is composed of a stack of N = 6 identical layers [1]."
    out = verify_answer(text, hits("The encoder is composed of a stack of N = 6 identical layers."))
    assert [c.level for c in out.citations] == ["verified"]
    assert quoted("The encoder is composed of a stack [1].", "the  encoder is composed of a stack.")
    assert not quoted("The encoder has six layers.", "The encoder is composed of six layers.")
    assert not quoted("Six layers.", "Six layers.")  # too short to be a quote of anything


def test_the_domains_handed_in_add_their_contrasting_words():
    from papertrail.domains import KNOWN

    per_share = "Diluted earnings per share were $1.27 in 2019, up from $1.10 in 2018."
    answer = "Basic earnings per share were $1.27 in 2019 [1]."
    assert verify_answer(answer, hits(per_share)).citations  # no general contrast
    checked = verify_answer(answer, hits(per_share), domains=KNOWN)
    assert not checked.citations and "diluted" in checked.dropped[0].reason

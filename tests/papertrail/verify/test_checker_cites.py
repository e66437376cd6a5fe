"""The checker cites: unmarked sentences, copied reference brackets, claims off the question.

Fixtures are written here in the habits of small local models: no markers at
all, a paper's own reference brackets copied into the answer, a figure the
excerpts state for something other than what was asked.
"""

import pytest

from papertrail.types import Chunk, Hit
from papertrail.verify.verify import COPIED, MISSING, judge_pairs, verify_answer
from tests.fakes import HashEmbedder

HEADS = (
    "3.2.2 Multi-Head Attention. In this work we employ h = 8 parallel attention layers, "
    "or heads. For each of these we use dk = dv = dmodel/h = 64."
)
OPTIMIZER = (
    "5.3 Optimizer. We used the Adam optimizer [20] with beta1 = 0.9, beta2 = 0.98 and "
    "epsilon = 10^-9. We varied the learning rate over the course of training."
)
USES = (
    "In encoder-decoder attention layers, the queries come from the previous decoder layer, "
    "and the memory keys and values come from the output of the encoder. This mimics the "
    "typical encoder-decoder attention mechanisms in sequence-to-sequence models such as "
    "[38, 2, 9]."
)
RESULTS = (
    "On the WMT 2014 English-to-German translation task, the big transformer model "
    "establishes a new state-of-the-art BLEU score of 28.4. Training took 3.5 days on 8 "
    "P100 GPUs. On the WMT 2014 English-to-French "
    "translation task, our big model achieves a BLEU score of 41.0, outperforming all of "
    "the previously published single models."
)
PARSING = (
    "6.3 English Constituency Parsing. To evaluate if the Transformer can generalize to other "
    "tasks we performed experiments on English constituency parsing. Our model performs "
    "surprisingly well, reaching an F1 score of 91.3 on the WSJ test set."
)


def hits(*texts: str) -> list[Hit]:
    return [
        Hit(Chunk("e" * 64, "paper.pdf", i, i + 1, t, ()), 1.0 / (i + 1))
        for i, t in enumerate(texts)
    ]


@pytest.fixture(params=[None, HashEmbedder()], ids=["words-only", "with-embedder"])
def embedder(request):
    return request.param


def test_an_answer_without_markers_is_cited_by_the_checker(embedder):
    answer = (
        "The model uses h = 8 parallel attention layers, or heads. "
        "For each of these we use dk = dv = dmodel/h = 64."
    )
    out = verify_answer(answer, hits(OPTIMIZER, HEADS), embedder=embedder)
    assert out.text == (
        "The model uses h = 8 parallel attention layers, or heads [1]. "
        "For each of these we use dk = dv = dmodel/h = 64 [1]."
    )
    (c,) = out.citations
    assert (c.n, c.marker) == (1, 2) and c.reason.startswith("cited by the checker: ")
    assert out.grounded and out.unsupported == () and out.dropped == ()


def test_a_sentence_no_excerpt_states_is_listed_where_it_ends(embedder):
    answer = "The model uses 8 parallel attention heads. Training took 12 days on 64 TPUs."
    out = verify_answer(answer, hits(HEADS), embedder=embedder)
    assert out.text == (
        "The model uses 8 parallel attention heads [1]. Training took 12 days on 64 TPUs."
    )
    (u,) = out.unsupported
    assert u.sentence == "Training took 12 days on 64 TPUs."
    assert out.text[: u.at].endswith("on 64 TPUs")  # where its citation would stand
    assert out.grounded  # one sentence is supported: the answer is grounded
    alone = verify_answer("Training took 12 days on 64 TPUs.", hits(HEADS), embedder=embedder)
    assert not alone.grounded and [u.sentence for u in alone.unsupported] == [
        "Training took 12 days on 64 TPUs."
    ]


def test_a_copied_out_of_range_bracket_moves_to_the_excerpt_that_states_it(embedder):
    answer = "Adam [20] with beta1 = 0.9, beta2 = 0.98 and epsilon = 10^-9."
    out = verify_answer(answer, hits(HEADS, OPTIMIZER), embedder=embedder)
    assert out.text == "Adam with beta1 = 0.9, beta2 = 0.98 and epsilon = 10^-9 [1]."
    (c,) = out.citations
    assert c.marker == 2 and c.reason.startswith("moved from [20], which points at no excerpt")
    assert "[20]" not in out.text


def test_a_copied_bracket_with_an_in_range_number_is_no_citation(embedder):
    # "[38, 2, 9]": 2 is a valid excerpt number, but the bracket is the paper's own
    answer = (
        "This mimics the typical encoder-decoder attention mechanisms in "
        "sequence-to-sequence models such as [38, 2, 9]."
    )
    out = verify_answer(answer, hits(HEADS, OPTIMIZER, USES), embedder=embedder)
    assert "[38" not in out.text and "9]" not in out.text
    assert [(c.marker, c.reason.split(",")[0]) for c in out.citations] == [(3, "moved from [38]")]
    assert out.text.endswith("models such as [1].")
    # a single bracket an excerpt has after the same word is the document's, not a marker
    out = verify_answer("The Adam optimizer [2] was used.", hits(HEADS, USES, OPTIMIZER))
    assert all(c.marker != 2 or not c.supported for c in out.citations)
    own = "Recurrent models such as [2] are slow."
    nowhere = verify_answer("Models such as [2] are fast.", hits(HEADS, own))
    assert nowhere.citations == ()
    assert [(c.marker, c.reason) for c in nowhere.dropped] == [(2, COPIED)]


def test_out_of_range_markers_without_support_are_dropped_as_missing():
    out = verify_answer("The encoder has 6 layers [9].", hits(HEADS))
    assert out.citations == () and [(c.marker, c.reason) for c in out.dropped] == [(9, MISSING)]
    assert out.text == "The encoder has 6 layers."


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "What score did the Transformer reach on English constituency parsing?",
            "The Transformer reached a BLEU score of 28.4 on English constituency parsing.",
        ),
        ("What score did the Transformer reach on English constituency parsing?", "28.4"),
        (
            "What BLEU score does the big Transformer achieve on the WMT 2014 "
            "English-to-German translation task?",
            "The big Transformer achieves a BLEU score of 41.0, outperforming all of the "
            "previous best models.",
        ),
    ],
)
def test_a_figure_stated_for_something_else_than_asked_gets_no_citation(embedder, question, answer):
    out = verify_answer(answer, hits(RESULTS, PARSING), embedder=embedder, question=question)
    assert out.citations == () and not out.grounded
    assert [u.sentence for u in out.unsupported] == [answer]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "What BLEU score does the big Transformer achieve on the WMT 2014 "
            "English-to-German translation task?",
            "The big Transformer achieves a BLEU score of 28.4 on English-to-German.",
        ),
        ("What score did the Transformer reach on English constituency parsing?", "91.3"),
        ("How many parallel attention heads does the model use?", "8"),
    ],
)
def test_a_figure_stated_for_what_was_asked_is_cited(embedder, question, answer):
    out = verify_answer(answer, hits(RESULTS, PARSING, HEADS), embedder=embedder, question=question)
    assert len(out.citations) == 1 and out.grounded and out.unsupported == ()


def test_a_bare_phrase_answer_is_judged_too(embedder):
    out = verify_answer("Adam optimizer", hits(HEADS, OPTIMIZER), embedder=embedder)
    assert out.text == "Adam optimizer [1]" and [c.marker for c in out.citations] == [2]
    wrong = verify_answer("Dropout layers", hits(HEADS, OPTIMIZER), embedder=embedder)
    assert not wrong.grounded and [u.sentence for u in wrong.unsupported] == ["Dropout layers"]


def test_instructions_in_a_question_and_names_the_excerpt_never_uses_do_not_veto(embedder):
    question = (
        "Using only the balance sheet: how much in total assets did Acme have at the end of "
        "FY2021? Answer in USD millions."
    )
    sheet = "Consolidated balance sheet (in millions). Total assets were $59,268 at year end 2021."
    answer = "Total assets in 2021 were $59,268 million."
    out = verify_answer(answer, hits(sheet), embedder=embedder, question=question)
    assert len(out.citations) == 1 and out.unsupported == ()


def test_a_figure_for_something_else_than_asked_is_named_as_decided_by_the_question():
    question = "What score did the Transformer reach on English constituency parsing?"
    verdicts = judge_pairs(["28.4"], hits(RESULTS, PARSING), [(0, 1)], None, question)
    assert judge_pairs(["28.4"], hits(RESULTS, PARSING), [(0, 1)], None)[(0, 1)].supported
    v = verdicts[(0, 1)]  # stated by the excerpt, but for another task than asked
    assert not v.supported and v.decided_by == "question" and v.level == "not stated"

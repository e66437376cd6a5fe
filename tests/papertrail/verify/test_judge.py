"""One claim against one excerpt: judged on the excerpt's best-supporting span."""

from papertrail.verify.judge import judge, read
from tests.fakes import HashEmbedder
from tests.papertrail.verify.test_verify import ENCODER, HEADS, OPTIMIZER

# Two sentences about the same model: the words of a wrong claim are all in the
# excerpt, but no one sentence of it states the claim.
CLOSE = (
    "The encoder maps an input sequence to a sequence of continuous representations. "
    "Most competitive models have this structure. "
    "We use residual connections around each of the sub-layers. "
    "Given these, the decoder then generates an output sequence one element at a time."
)


def test_judge_standalone_reasons():
    ok = judge("The encoder is composed of a stack of 6 identical layers.", ENCODER)
    assert ok.supported
    changed = judge("The encoder is composed of a stack of 12 identical layers.", ENCODER)
    assert not changed.supported and changed.reason == "figure 12 not in excerpt"
    assert changed.decided_by == "figures" and changed.level == "not stated"
    off = judge("Adam was used with a warmup of the learning rate.", ENCODER)
    assert not off.supported and off.reason.startswith("the excerpt does not state all")
    assert off.decided_by == "calibrated" and dict(off.scores)["coverage"] < 0.35


def test_document_name_counts_as_context():
    excerpt = "Net revenues were 12,345 in 2022, compared with 11,002 in 2021."
    claim = "Pepsico net revenues were $12,345 million in 2022."
    assert dict(judge(claim, excerpt).scores)["coverage"] < 1.0
    assert dict(judge(claim, excerpt, context="PEPSICO_2022_10K").scores)["coverage"] == 1.0


def test_judge_calls_the_embedding_model_only_when_no_hard_check_decided():
    emb = HashEmbedder()
    changed = judge("The encoder is a stack of 12 identical layers.", ENCODER, embedder=emb)
    assert not changed.supported and emb.calls == 0  # the figure vetoed it
    loose = judge(
        "Each layer combines self-attention with a feed-forward part.", ENCODER, embedder=emb
    )
    assert emb.calls == 1 and "similarity" in dict(loose.scores)


def test_a_topically_close_excerpt_is_judged_sentence_by_sentence():
    claim = "The decoder generates the continuous representations."
    whole = read(claim, CLOSE.replace(". ", " "))  # one long sentence holds every word
    assert whole.cov == 1.0 and judge(claim, CLOSE.replace(". ", " ")).supported
    spans = read(claim, CLOSE)
    assert spans.cov < 0.6 and "continuous" in spans.missing_words
    assert not judge(claim, CLOSE).supported
    assert judge(
        "The encoder maps an input sequence to continuous representations.", CLOSE
    ).supported


def test_the_best_span_is_the_supporting_sentence():
    j = judge("The model employs 8 parallel attention heads.", HEADS + " " + OPTIMIZER)
    assert j.supported
    assert j.span.text == "In this work we employ h = 8 parallel attention layers, or heads."


def test_figures_may_sit_in_table_rows_apart_from_the_words():
    table = (
        "Table 4: Results on parsing. Parser Training F1 Zhu et al. semi-supervised 91.3 "
        "Huang et al. semi-supervised 91.3 McClosky et al. semi-supervised 92.1 Vinyals "
        "et al. semi-supervised 92.1 Luong et al. multi-task 93.0 Ours semi-supervised 92.7"
    )
    assert judge("Our parser reaches 92.7 F1 on parsing, semi-supervised.", table).supported
    assert not judge("Our parser reaches 94.7 F1 on parsing, semi-supervised.", table).supported


def test_a_restated_question_is_judged_on_its_answer():
    excerpt = "Contact us: Ann Lee, Head of Sales, ann.lee@acme-tools.com, +1 555 0100."
    claim = "The email address of the sales contact in this document is ann.lee@acme-tools.com."
    assert judge(claim, excerpt).supported
    wrong = "The email address of the sales contact in this document is bob.ray@acme-tools.com."
    assert not judge(wrong, excerpt).supported
    # an everyday answer does not tie a restated question to an excerpt on its own
    colour = "The colour of the logo in this brochure is blue."
    assert read(colour, "The sky over the harbour was blue all week.").cov < 0.8
    # without the pointer at the document it is an ordinary claim: all its words count
    plain = "The email address of the sales contact is ann.lee@acme-tools.com."
    assert read(plain, excerpt).cov < read(claim, excerpt).cov == 1.0

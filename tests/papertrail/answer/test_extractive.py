"""The offline answerer quotes relevant sentences with their [n] or refuses."""

import pytest

from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.answer.quotable import candidate_sentences
from papertrail.settings import REFUSAL
from papertrail.types import Chunk, Hit
from papertrail.verify.verify import verify_answer
from tests.fakes import HashEmbedder

ENCODER = (
    "3.1 Encoder and Decoder Stacks. Encoder: The encoder is composed of a stack of N = 6 "
    "identical layers. Each layer has two sub-layers."
)
HEADS = (
    "In this work we employ h = 8 parallel attention layers, or heads. For each of these "
    "we use dk = dv = dmodel/h = 64."
)
TABLE = (
    "(In millions, except per share data) Year Ended December 31, 2017 2018 2019 "
    "Net income $ 3,033 $ 10,073 $ 11,588 Basic earnings per share $ 6.32 $ 20.68 $ 23.46 "
    "Diluted earnings per share $ 6.15 $ 20.14 $ 23.01"
)
OPTIMIZER = "We used the Adam optimizer with beta1 = 0.9 and beta2 = 0.98 for all models."


def hits(*texts):
    return [Hit(Chunk("d" * 64, "a.pdf", i, 1, t, ()), 1.0) for i, t in enumerate(texts)]


@pytest.fixture(params=[None, HashEmbedder()], ids=["words-only", "with-embedder"])
def gen(request):
    return ExtractiveGenerator(request.param)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many layers does the encoder have?", "stack of N = 6 identical layers [1]."),
        ("How many attention heads are used?", "h = 8 parallel attention layers, or heads [2]."),
        (
            "What was the diluted earnings per share?",
            "Diluted earnings per share in 2019 was $23.01 [3].",
        ),
    ],
)
def test_quotes_the_sentence_that_answers_with_its_number(gen, question, expected):
    h = hits(ENCODER, HEADS, TABLE, OPTIMIZER)
    draft = gen.generate(question, h)
    assert draft.mode == "extractive"
    assert expected in draft.text
    checked = verify_answer(draft.text, h, embedder=gen.embedder)
    assert checked.dropped == () and checked.grounded and checked.citations


def test_refuses_when_nothing_is_relevant(gen):
    draft = gen.generate("What is the capital of France?", hits(ENCODER, HEADS, OPTIMIZER))
    assert draft.text == REFUSAL
    assert gen.generate("How many layers?", []).text == REFUSAL


def test_keeps_at_most_max_sentences_and_skips_repeats():
    same = "The encoder is composed of a stack of N = 6 identical layers."
    h = hits(same, same + " Nothing else.", ENCODER, HEADS)
    draft = ExtractiveGenerator(max_sentences=2).generate("How many encoder layers?", h)
    lines = draft.text.splitlines()
    assert 1 <= len(lines) <= 2
    assert sum("identical layers" in line for line in lines) == 1
    assert lines[0].endswith("[1].")


def test_table_rows_without_their_headings_and_fragments_are_not_quoted():
    assert candidate_sentences(TABLE) == []  # a bare row does not say which year is which
    prose = "Net income was $ 11,588 million in 2019, up from $ 10,073 million in 2018."
    assert candidate_sentences(f"{TABLE}. {prose}") == [prose]
    assert candidate_sentences("of the previous layer. The encoder has six layers.") == [
        "The encoder has six layers."
    ]


def test_answer_text_is_clean(gen):
    draft = gen.generate("How many layers does the encoder have?", hits(ENCODER))
    assert "extractive" not in draft.text.lower()
    assert draft.text.count("[1]") == len(draft.text.splitlines())


def test_embeds_a_bounded_shortlist_in_one_call():
    from papertrail.answer.extractive import SHORTLIST

    emb = HashEmbedder()
    many = [f"Layer {i} of the encoder stack is described in section {i}." for i in range(30)]
    ExtractiveGenerator(emb).generate("How is the encoder stack built?", hits(*many))
    assert emb.calls == 1 and emb.texts_embedded <= SHORTLIST + 1


def test_sentences_sharing_only_the_topic_words_are_not_an_answer():
    topic = [
        "The cooperative operates a tidal array with 38 turbines.",
        "The cooperative repaid 2.0 million of its loan this year.",
        "Members of the cooperative received a dividend of 4.5 percent.",
    ]
    h = hits(*topic)
    gen = ExtractiveGenerator()
    assert gen.generate("Who is the cooperative's chief executive?", h).text == REFUSAL
    answer = gen.generate("What dividend did members of the cooperative receive?", h).text
    assert "4.5 percent [3]" in answer


def test_sentences_without_spaces_count_their_characters():
    # Chinese and Japanese are written without spaces: one "word" to str.split
    report = "东北电气发展股份有限公司董事会保证季度报告内容真实。Short label."
    assert candidate_sentences(report) == ["东北电气发展股份有限公司董事会保证季度报告内容真实。"]


def test_an_excerpt_of_one_short_line_is_quotable_but_a_fragment_is_not():
    assert candidate_sentences("Reduced test-case") == ["Reduced test-case"]
    assert candidate_sentences("of the layer") == []
    assert candidate_sentences("Two words. And two.") == []  # labels among others: dropped
    draft = ExtractiveGenerator().generate(
        "What does the document say about the reduced test case?", hits("Reduced test-case")
    )
    assert draft.text == "Reduced test-case [1]."


def test_a_number_written_out_is_an_amount_too(tmp_path):
    # "six" states the count as much as "N = 6": the sentence about the subject asked wins
    from papertrail.settings import Settings
    from tests.fakes import gated_pipeline
    from tests.pdfs import paper_pdf

    pipeline = gated_pipeline(Settings(data_dir=tmp_path, ocr=False))
    pipeline.ingest("c", "paper.pdf", paper_pdf())
    answer = pipeline.ask("c", "How many identical layers are in the decoder stack?", render=False)
    assert "decoder is also a stack of six identical layers" in answer.text

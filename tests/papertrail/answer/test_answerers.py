"""The offline answerer's rules: their order, the name each answer carries, and switching off."""

from __future__ import annotations

from collections.abc import Sequence

from papertrail.answer.answerers import names, registry
from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.domains import KNOWN
from papertrail.settings import REFUSAL
from papertrail.types import Ask, Chunk, Hit, Metric

NARL = "The National Atmospheric Research Laboratory (NARL) at Gadanki studies the atmosphere."
LAYERS = "The encoder is composed of a stack of N = 6 identical layers."


def hits(*texts: str) -> list[Hit]:
    return [
        Hit(Chunk("d" * 64, "paper.pdf", i, 1, t, ()), 1.0 - i / 10) for i, t in enumerate(texts)
    ]


class Weather:
    """A domain of its own: its metric rule comes first, named after it."""

    name = "weather"
    amounts = frozenset({"rainfall"})

    def metric(self, ask: Ask) -> Metric | None:
        return None


def test_the_rules_are_tried_in_one_order_with_each_domains_metric_first():
    assert names(KNOWN) == (
        "finance metric",
        "acronym",
        "lookup",
        "field",
        "definition",
        "caption",
        "table figure",
        "quote",
    )
    assert names((Weather(), *KNOWN))[:2] == ("weather metric", "finance metric")
    assert all(callable(r.answer) and r.name for r in registry(None, KNOWN))
    assert [r.name for r in registry(None, KNOWN, without=("lookup", "quote"))] == [
        "finance metric",
        "acronym",
        "field",
        "definition",
        "caption",
        "table figure",
    ]


def test_a_draft_names_the_rule_that_wrote_it():
    gen = ExtractiveGenerator()
    assert gen.generate("What does NARL stand for?", hits(NARL, LAYERS)).by == "acronym"
    quoted = gen.generate("How many layers is the encoder composed of?", hits(NARL, LAYERS))
    assert quoted.by == "quote" and "6 identical layers" in quoted.text
    refused = gen.generate("Who wrote the sagas?", hits(NARL, LAYERS))
    assert refused.text == REFUSAL and refused.by == ""


def test_a_rule_switched_off_leaves_the_question_to_the_next():
    gen = ExtractiveGenerator(without=("acronym",))
    draft = gen.generate("What does NARL stand for?", hits(NARL, LAYERS))
    assert draft.by != "acronym"
    assert (
        ExtractiveGenerator(without=("quote",))
        .generate("How many layers is the encoder composed of?", hits(NARL, LAYERS))
        .text
        == REFUSAL
    )


def test_an_answerer_is_a_one_method_seam():
    class Always:
        name = "always"

        def answer(self, ask: Ask, hits: Sequence[Hit]):
            from papertrail.types import Draft

            return Draft(f"{ask.subject} [1].", "extractive")

    gen = ExtractiveGenerator()
    gen.answerers = (Always(), *gen.answerers)
    draft = gen.generate("What is the colour of the sky?", hits(LAYERS))
    assert draft.by == "always" and draft.text == "colour of the sky [1]."


ABLATION = (
    "The filter is useful, as Table 5 shows. Table 5: Ablation study on three datasets. "
    "The filter is removed in each row in turn."
)
SURVEY = "13 TABLE II DOWNSTREAM TASKS AND DATASETS OF RAG Task Sub Task Dataset Method QA"


def test_a_question_about_what_a_table_shows_is_answered_by_its_caption():
    gen = ExtractiveGenerator()
    draft = gen.generate("What does Table 5 of the paper study?", hits(LAYERS, ABLATION))
    assert draft.by == "caption"
    assert draft.text == "Table 5: Ablation study on three datasets [2]."
    caps = gen.generate("What is shown in Table II?", hits(SURVEY))
    assert caps.text == "TABLE II DOWNSTREAM TASKS AND DATASETS OF RAG [1]."
    # asking something of the table is not asking for its caption
    asked = gen.generate("Which method does Table 5 drop first?", hits(ABLATION))
    assert asked.by != "caption"
    # no caption printed for the label asked: the rule does not answer
    assert gen.generate("What does Table 6 show?", hits(ABLATION)).by != "caption"

"""Suggested questions: made from the document's own words, offered only when answered."""

from __future__ import annotations

from dataclasses import replace

from adapters.chat.suggest import (
    answerable,
    candidates,
    defined_terms,
    row_labels,
    stated_figures,
    suggest,
)
from papertrail.settings import Settings
from papertrail.types import Answer, Chunk, Citation
from tests.fakes import ScriptedGenerator, gated_pipeline
from tests.pdfs import table_pdf


def chunk(text: str, section: str = "", index: int = 0) -> Chunk:
    return Chunk("doc", "doc.pdf", index, 1, text, (), section)


def test_questions_come_from_headings_rows_and_defined_terms_in_turns():
    chunks = [
        chunk("Body text.", "1. Introduction", 0),
        chunk("Pump capacity 120 140 Water loss 3.1 2.9", "2.1 Station Design", 1),
        chunk('The "Basin Authority" means the regional body that runs the dams.', "", 2),
        chunk("Filed on December 31, 2023 by the board.", "ANNUAL REPORT", 3),
        chunk("Operating costs were £5.10 million. Revenue rose to £9.27 million.", "", 4),
    ]
    assert row_labels(chunks) == ["Pump capacity", "Water loss"]  # not "December 31, 2023"
    assert defined_terms(chunks) == ["Basin Authority"]
    assert stated_figures(chunks) == [("Operating costs", "were"), ("Revenue", "was")]
    assert list(candidates(chunks, title="Station Design")) == [
        "What were the operating costs?",
        "What is the pump capacity?",  # the title and generic or all-capital headings are not
        "What does Basin Authority mean?",
        "What was the revenue?",
        "What is the water loss?",
    ]


SURE = Citation(1, 1, "Pump capacity was 120.", None, True, "stated", level="verified")


def answer(text: str, question: str = "What is the pump capacity?", **kw) -> Answer:
    base = Answer(question, text, citations=(SURE,), dropped=(), grounded=True,
                  refusal=False, mode="extractive")  # fmt: skip
    return replace(base, **kw)


def test_only_a_grounded_informative_answer_makes_a_question_worth_offering():
    assert answerable(answer("Pump capacity was 120 cubic metres an hour in 2023 [1]."))
    assert not answerable(answer("Pump capacity 120 [1]."))  # an echo of the question
    assert not answerable(answer("Pump capacity was 120 cubic metres an hour [1].", grounded=False))
    assert not answerable(answer("Pump capacity was 120 cubic metres an hour [1].", citations=()))
    assert not answerable(answer("The documents do not say.", refusal=True))
    partly = replace(SURE, level="partly supported")  # kept, but not beyond doubt
    assert not answerable(
        answer("Pump capacity was 120 cubic metres an hour [1].", citations=(partly,))
    )


def test_a_question_whose_answer_fails_verification_is_never_offered(tmp_path):
    made_up = ScriptedGenerator("The company employs 9,000 engineers on Mars [1].", mode="llm")
    pipeline = gated_pipeline(Settings(data_dir=tmp_path, ocr=False), generator=made_up)
    doc = pipeline.ingest("c", "statement.pdf", table_pdf()).document
    assert suggest(pipeline, "c", doc.doc_id) == []
    assert made_up.asked  # the candidates were really asked

    offline = gated_pipeline(Settings(data_dir=tmp_path / "2", ocr=False))
    doc = offline.ingest("c", "statement.pdf", table_pdf()).document
    offered = suggest(offline, "c", doc.doc_id)
    assert 2 <= len(offered) <= 3
    for question in offered:
        assert answerable(offline.ask("c", question, doc_ids=[doc.doc_id], render=False))

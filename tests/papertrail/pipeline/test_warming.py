"""The start-up warm-up answers a made-up question offline, embedding nothing."""

from __future__ import annotations

from papertrail.domains import KNOWN
from papertrail.pipeline.warming import warm_answering
from tests import pdfs
from tests.fakes import HashEmbedder
from tests.papertrail.test_pipeline import make

QUESTION = "How many identical layers is the encoder composed of?"


def test_the_made_up_question_is_answered_and_verified_offline():
    text = warm_answering(KNOWN)
    assert "4,210" in text  # the answerers and the verifier really ran on the excerpt


def test_warming_up_embeds_only_the_models_first_text_and_changes_no_answer(tmp_path):
    data = pdfs.paper_pdf()  # one copy: its bytes name the document
    cold = make(tmp_path / "cold")
    cold.ingest("c1", "paper.pdf", data)
    want = cold.ask("c1", QUESTION, render=False)
    embedder = HashEmbedder()
    warm = make(tmp_path / "warm", embedder=embedder)
    warm.ingest("c1", "paper.pdf", data)
    before = embedder.texts_embedded
    warm.warm_up().join()
    assert embedder.texts_embedded == before + 1  # "warm up": the model's first inference
    got = warm.ask("c1", QUESTION, render=False)
    assert (got.text, got.citations, got.grounded) == (want.text, want.citations, want.grounded)

"""The pipeline API end to end, with a hash embedder and an in-memory Chroma."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from papertrail.errors import PaperTrailError
from papertrail.pipeline import PaperTrail
from papertrail.settings import REFUSAL, Settings
from papertrail.store.chroma import ChromaStore
from tests import pdfs
from tests.fakes import HashEmbedder, ScriptedGenerator, WarmingEmbedder


class CrashingEmbedder(HashEmbedder):
    """Fails on the n-th call, like a process killed in the middle of indexing."""

    def __init__(self, fail_on_call: int) -> None:
        super().__init__()
        self.fail_on_call = fail_on_call

    def embed(self, texts):
        if self.calls + 1 == self.fail_on_call:
            self.calls += 1
            raise RuntimeError("simulated crash")
        return super().embed(texts)


def make(tmp_path, *, embedder=None, generator=None, **overrides) -> PaperTrail:
    embedder = embedder or HashEmbedder()
    settings = Settings(data_dir=tmp_path, **overrides)
    store = ChromaStore.ephemeral(model=embedder.name)
    return PaperTrail(settings, embedder=embedder, store=store, generator=generator)


def test_ingest_then_ask_gives_verified_citations_and_snippets(tmp_path):
    pt = make(tmp_path)
    result = pt.ingest("c1", "paper.pdf", pdfs.paper_pdf())
    assert result.new and result.embedded == result.document.chunks > 0
    assert set(result.timings) >= {"read", "chunk", "embed", "store", "total"}
    answer = pt.ask("c1", "How many identical layers is the encoder composed of?")
    assert answer.mode == "extractive" and answer.grounded and not answer.refusal
    assert answer.citations, answer.text
    assert any(c.chunk.page == 2 for c in answer.citations)
    assert "[1]" in answer.text
    assert len(answer.snippets) == len({c.chunk.id for c in answer.citations})
    image = Image.open(io.BytesIO(answer.snippets[0].png))
    assert image.format == "PNG" and image.width <= 1600


def test_same_bytes_again_cost_zero_embeddings(tmp_path):
    embedder = HashEmbedder()
    pt = make(tmp_path, embedder=embedder)
    data = pdfs.paper_pdf()
    first = pt.ingest("c1", "paper.pdf", data)
    before = embedder.texts_embedded
    again = pt.ingest("c1", "renamed.pdf", data)
    assert not again.new and again.embedded == 0
    assert embedder.texts_embedded == before
    assert again.document.doc_id == first.document.doc_id
    assert len(pt.documents("c1")) == 1


def test_wrong_citation_is_dropped_or_moved_and_right_one_kept(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c1", "paper.pdf", pdfs.paper_pdf())
    question = "What BLEU score on English-to-German and how many layers?"
    hits = pt.retriever.search("c1", question, k=5)
    bleu = next(i for i, h in enumerate(hits, 1) if "28.4 BLEU" in h.chunk.text)
    other = next(i for i, h in enumerate(hits, 1) if "28.4" not in h.chunk.text)
    draft = (
        f"The model reaches 28.4 BLEU on the WMT 2014 English-to-German translation task [{bleu}]."
        f" The model reaches 24.8 BLEU on English-to-German [{bleu}]."
        f" It reaches 28.4 BLEU on the WMT 2014 English-to-German translation task [{other}]."
    )
    pt.generator = ScriptedGenerator(draft)
    answer = pt.ask("c1", question)
    assert answer.citations[0].marker == bleu
    # the wrong [other] moves to an excerpt that states 28.4 BLEU; 24.8 is nowhere
    assert [c.reason.startswith(f"moved from [{other}]") for c in answer.citations] == [0, 1]
    assert all("28.4 BLEU" in c.chunk.text for c in answer.citations)
    assert [c.marker for c in answer.dropped] == [bleu]
    assert answer.grounded
    assert "24.8 BLEU on English-to-German." in answer.text  # marker gone, sentence kept


def test_refusal_is_grounded_and_unsupported_answer_is_not(tmp_path):
    pt = make(tmp_path, generator=ScriptedGenerator(REFUSAL))
    pt.ingest("c1", "paper.pdf", pdfs.paper_pdf())
    answer = pt.ask("c1", "Who funded the work?")
    assert answer.refusal and answer.grounded and not answer.citations

    pt.generator = ScriptedGenerator("The lattice was funded by a grant of 7 million euros [1].")
    answer = pt.ask("c1", "Who funded the work?")
    assert not answer.grounded and not answer.citations and answer.dropped


def test_no_documents_and_unknown_document(tmp_path):
    pt = make(tmp_path)
    with pytest.raises(PaperTrailError) as e:
        pt.ask("empty", "anything?")
    assert e.value.code == "no_documents"
    other = pt.ingest("c2", "paper.pdf", pdfs.paper_pdf()).document
    pt.ingest("c1", "numbers.pdf", pdfs.numbers_pdf())
    with pytest.raises(PaperTrailError) as e:
        pt.ask("c1", "layers?", doc_ids=[other.doc_id + "x"])
    assert e.value.code == "unknown_document"


def test_crash_mid_ingest_leaves_nothing_visible_and_retry_works(tmp_path):
    embedder = CrashingEmbedder(fail_on_call=2)
    pt = make(tmp_path, embedder=embedder)
    pt.embed_batch = 4  # several batches, so the crash lands after some chunks are stored
    data = pdfs.paper_pdf()
    with pytest.raises(RuntimeError):
        pt.ingest("c1", "paper.pdf", data)
    assert pt.documents("c1") == []
    assert pt.store.chunks("c1") == []
    result = pt.ingest("c1", "paper.pdf", data)  # asking again re-indexes
    assert result.new and pt.documents("c1")[0].status == "ready"


def test_time_limit_abandons_indexing(tmp_path):
    pt = make(tmp_path, max_index_seconds=0)
    with pytest.raises(PaperTrailError) as e:
        pt.ingest("c1", "paper.pdf", pdfs.paper_pdf())
    assert e.value.code == "timeout" and "PAPERTRAIL_MAX_INDEX_SECONDS" in e.value.message
    assert pt.documents("c1") == []


def test_encrypted_pdf_with_password_renders_snippets(tmp_path):
    pt = make(tmp_path)
    data = pdfs.encrypted_pdf("æøå")
    with pytest.raises(PaperTrailError) as e:
        pt.ingest("c1", "locked.pdf", data)
    assert e.value.code == "encrypted"
    pt.ingest("c1", "locked.pdf", data, password="æøå")
    answer = pt.ask("c1", "What does the document say?")
    assert answer.citations and answer.snippets


def test_forget_by_name_and_all_only_touch_this_channel(tmp_path):
    pt = make(tmp_path)
    data = pdfs.paper_pdf()
    pt.ingest("c1", "paper.pdf", data)
    pt.ingest("c1", "numbers.pdf", pdfs.numbers_pdf())
    pt.ingest("c2", "paper.pdf", data)
    gone = pt.forget("c1", "PAPER.pdf")
    assert [d.name for d in gone] == ["paper.pdf"]
    assert [d.name for d in pt.documents("c1")] == ["numbers.pdf"]
    assert [d.name for d in pt.documents("c2")] == ["paper.pdf"]
    assert pt.forget("c1", "ab") == []  # too short a hash prefix to mean anything
    pt.forget("c1")
    assert pt.documents("c1") == [] and len(pt.documents("c2")) == 1
    assert pt.ask("c2", "How many layers?").citations  # c2's file still renders


def test_progress_reports_pages(tmp_path):
    pt = make(tmp_path)
    pt.embed_batch = 2
    seen = []
    pt.ingest("c1", "paper.pdf", pdfs.paper_pdf(), progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1][1] == 4 and seen == sorted(seen)


def test_half_indexed_document_left_by_a_kill_is_invisible_then_redone(tmp_path):
    """No except-block runs on SIGKILL: the 'indexing' status alone must hide it."""
    pt = make(tmp_path)
    data = pdfs.paper_pdf()
    full = make(tmp_path / "other").ingest("x", "paper.pdf", data).document
    from dataclasses import replace

    from papertrail.read.chunking import chunk_blocks
    from papertrail.read.pdf import read_pdf

    parsed = read_pdf(data, pt.settings)
    some = chunk_blocks(parsed.blocks, doc_id=full.doc_id, doc_name="paper.pdf")[:2]
    pt.store.begin(replace(full, channel="c1", status="indexing"))
    pt.store.add_chunks("c1", some, pt.embedder.embed([c.text for c in some]))
    assert pt.documents("c1") == []
    with pytest.raises(PaperTrailError):
        pt.ask("c1", "How many layers?")
    result = pt.ingest("c1", "paper.pdf", data)
    assert result.new and result.document.chunks == full.chunks
    assert len(pt.store.chunks("c1")) == full.chunks  # stale chunks replaced, not doubled


def test_the_model_loads_in_the_background_once_the_pdf_opens(tmp_path):
    embedder = WarmingEmbedder()
    make(tmp_path, embedder=embedder).ingest("c1", "paper.pdf", pdfs.paper_pdf())
    assert embedder.warmed == ["papertrail-warm"]  # once, off the calling thread
    assert embedder.calls_before_warm == 0  # before any chunk was embedded


@pytest.mark.parametrize("data", [b"not a pdf", pdfs.corrupt_bytes(), pdfs.encrypted_pdf("pw")])
def test_a_refused_file_does_not_load_the_model(tmp_path, data):
    embedder = WarmingEmbedder()
    with pytest.raises(PaperTrailError):
        make(tmp_path, embedder=embedder).ingest("c1", "bad.pdf", data)
    assert embedder.warmed == []


def test_close_releases_what_from_settings_opened(tmp_path):
    pt = PaperTrail.from_settings(Settings(data_dir=tmp_path))  # the model loads lazily
    assert pt.documents("c1") == []
    store = pt.store
    pt.close()
    assert store.closed and store.client._closed  # chromadb's own flag: its system released
    pt.close()  # twice is harmless


def test_rules_switched_off_by_name_reach_the_retriever(tmp_path):
    """``PAPERTRAIL_WITHOUT`` / ``eval --without`` names retrieval rules too."""
    assert "expansion" in make(tmp_path / "a").retriever.rules
    off = make(tmp_path / "b", without=("expansion", "quote")).retriever.rules
    assert "expansion" not in off and "sections" in off


def _survey(defined: bool) -> bytes:
    """A dozen pages that use RAG throughout; the first spells it out only if ``defined``."""
    opening = (
        "Retrieval-Augmented Generation (RAG) has emerged as a promising approach."
        if defined
        else "This survey reviews a promising approach."
    )
    uses = " ".join(f"RAG pipeline {n} ranks RAG passages for the RAG reader." for n in range(6))
    return pdfs.simple_pdf([f"{opening} It draws on external knowledge."] + [uses] * 11)


def test_an_acronym_is_spelled_out_from_where_the_document_defines_it(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c1", "survey.pdf", _survey(defined=True))
    question = "What does RAG stand for?"
    searched = pt.retriever.search("c1", question, k=5)
    assert 1 not in {h.chunk.page for h in searched}  # the search ranks the pages using it
    answer = pt.ask("c1", question, render=False)
    assert answer.by == "acronym" and not answer.refusal
    assert answer.text.startswith("Retrieval-Augmented Generation")
    assert [c.chunk.page for c in answer.citations] == [1]


def test_a_quote_that_does_not_spell_the_acronym_out_is_no_answer(tmp_path):
    pt = make(tmp_path)
    pt.ingest("c1", "survey.pdf", _survey(defined=False))
    pt.ingest("c2", "survey.pdf", _survey(defined=True))  # another channel's copy defines it
    answer = pt.ask("c1", "What does RAG stand for?", render=False)
    assert answer.refusal and not answer.citations
    assert any("may not answer" in n for n in answer.notes), answer.notes

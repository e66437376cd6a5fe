"""Vectors are computed once per text: same bytes in another channel, repeated chunks.

The second channel still sees only its own documents.
"""

from __future__ import annotations

import numpy as np

from papertrail.pipeline import PaperTrail
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from tests import pdfs
from tests.fakes import HashEmbedder

PAPER_QUESTION = "How many identical layers is the encoder composed of?"
OTHER_FACT = "The harbour of Velmora ships 4,210 tonnes of saffron every spring."


def make(tmp_path, embedder) -> PaperTrail:
    store = ChromaStore.ephemeral(model=embedder.name)
    return PaperTrail(Settings(data_dir=tmp_path), embedder=embedder, store=store)


def test_same_bytes_in_another_channel_embed_nothing_and_see_only_their_channel(tmp_path):
    embedder = HashEmbedder()
    pt = make(tmp_path, embedder)
    paper = pdfs.paper_pdf()
    first = pt.ingest("A", "paper.pdf", paper)
    pt.ingest("A", "saffron.pdf", pdfs.simple_pdf([OTHER_FACT]))
    before = embedder.texts_embedded

    copy = pt.ingest("B", "paper-again.pdf", paper)

    assert copy.new and copy.embedded == 0 and embedder.texts_embedded == before
    assert copy.document.chunks == first.document.chunks
    a_chunks = pt.store.chunks("A", [first.document.doc_id])
    a_vectors = pt.store.chunk_vectors("A", [c.id for c in a_chunks])
    b_chunks = pt.store.chunks("B")
    b_vectors = pt.store.chunk_vectors("B", [c.id for c in b_chunks])
    assert [c.text for c in b_chunks] == [c.text for c in a_chunks]
    for a, b in zip(a_chunks, b_chunks, strict=True):  # copied, not re-embedded differently
        np.testing.assert_allclose(b_vectors[b.id], a_vectors[a.id], atol=1e-6)
    # channel B holds the paper only: A's other document never answers there
    assert {c.doc_id for c in b_chunks} == {first.document.doc_id}
    assert [d.name for d in pt.documents("B")] == ["paper-again.pdf"]
    for question in (PAPER_QUESTION, "How many tonnes of saffron does Velmora ship?"):
        answer = pt.ask("B", question)
        assert all(h.chunk.doc_id == first.document.doc_id for h in answer.hits)
        assert "saffron" not in answer.text.lower()
    assert any("saffron" in h.chunk.text for h in pt.ask("A", "saffron Velmora").hits)


def test_forgetting_the_first_channels_copy_leaves_the_second_intact(tmp_path):
    embedder = HashEmbedder()
    pt = make(tmp_path, embedder)
    paper = pdfs.paper_pdf()
    pt.ingest("A", "paper.pdf", paper)
    pt.ingest("B", "paper.pdf", paper)
    pt.forget("A")
    answer = pt.ask("B", PAPER_QUESTION)
    assert answer.citations and answer.grounded


def test_a_text_repeated_in_one_document_is_embedded_once(tmp_path):
    embedder = HashEmbedder()
    pt = make(tmp_path, embedder)
    notice = "Confidential draft. Do not circulate outside the review board."
    pages = [notice, "Revenue rose to 7,292 in the second year.", notice, notice]
    result = pt.ingest("c", "notices.pdf", pdfs.simple_pdf(pages))

    chunks = pt.store.chunks("c")
    assert len(chunks) == 4 and len({c.text for c in chunks}) == 2
    assert result.embedded == embedder.texts_embedded == 2
    vectors = pt.store.chunk_vectors("c", [c.id for c in chunks])
    repeated = [vectors[c.id] for c in chunks if c.text == notice]
    for v in repeated:
        np.testing.assert_allclose(v, repeated[0], atol=1e-6)

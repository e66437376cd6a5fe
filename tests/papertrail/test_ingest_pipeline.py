"""Ingest as a pipeline: OCR beside embedding, several PDFs at once, stage timings."""

from __future__ import annotations

import threading
import time

from papertrail.errors import PaperTrailError
from papertrail.pipeline import PaperTrail
from papertrail.read.chunking import chunk_blocks
from papertrail.read.pdf import read_pdf
from papertrail.settings import Settings
from papertrail.store.chroma import ChromaStore
from papertrail.types import Rect
from tests import pdfs
from tests.fakes import HashEmbedder

WAIT = 10.0  # seconds a fake waits for the other side before deciding it ran alone


class SignallingEmbedder(HashEmbedder):
    """Sets ``started`` on its first call."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()

    def embed(self, texts):
        self.started.set()
        return super().embed(texts)


class WaitingOcr:
    """Reads every page as one fixed line, after noting whether embedding had begun."""

    def __init__(self, embedder: SignallingEmbedder | None) -> None:
        self.embedder = embedder
        self.overlapped: list[bool] = []

    def read(self, png: bytes):
        if self.embedder is not None:
            self.overlapped.append(self.embedder.started.wait(WAIT))
        return [
            (
                "Scanned invoice total 4,210 euros due in March to the supplier",
                Rect(100, 100, 900, 140),
            )
        ]

    def read_scored(self, png: bytes):  # for pictures: the same line, sure of it
        return 0, [(t, r, 1.0) for t, r in self.read(png)]


def make(tmp_path, embedder, ocr=None, **settings) -> PaperTrail:
    store = ChromaStore.ephemeral(model=embedder.name)
    config = Settings(data_dir=tmp_path, **settings)
    return PaperTrail(config, embedder=embedder, store=store, ocr=ocr)


def test_ocr_runs_beside_the_embedding_and_indexes_what_reading_first_would(tmp_path):
    embedder = SignallingEmbedder()
    ocr = WaitingOcr(embedder)
    pt = make(tmp_path, embedder, ocr)
    data = pdfs.mixed_pdf()  # page 2 is a picture only
    result = pt.ingest("c1", "mixed.pdf", data)
    assert ocr.overlapped == [True]  # the text pages were being embedded while OCR read
    assert result.document.ocr_pages == (2,)
    assert result.timings["ocr"] > 0 and result.timings["ocr_pages"] == 1
    # the same chunks as reading everything (OCR included) before chunking
    alone = read_pdf(data, Settings(), ocr=WaitingOcr(None))
    want = chunk_blocks(alone.blocks, doc_id=result.document.doc_id, doc_name="mixed.pdf")
    got = sorted(pt.store.chunks("c1"), key=lambda c: c.index)
    assert [(c.page, c.text, c.section) for c in got] == [(c.page, c.text, c.section) for c in want]
    assert result.embedded == len({c.text for c in want})  # each distinct text once


def test_in_contextual_mode_too_ocr_runs_beside_the_embedding_and_nothing_is_embedded_twice(
    tmp_path,
):
    embedder = SignallingEmbedder()
    ocr = WaitingOcr(embedder)
    pt = make(tmp_path, embedder, ocr, contextual=True)
    result = pt.ingest("c1", "mixed.pdf", pdfs.mixed_pdf())
    assert ocr.overlapped == [True]  # the text layer's passages, embedded while OCR read
    texts = {c.text for c in pt.store.chunks("c1")}
    assert result.embedded == len(texts)  # the early vectors were the final ones


def test_timings_name_every_stage(tmp_path):
    result = make(tmp_path, HashEmbedder()).ingest("c1", "paper.pdf", pdfs.paper_pdf())
    for stage in ("read", "chunk", "embed", "store", "lexical", "total", "embed_cpu"):
        assert stage in result.timings
    assert result.timings["ocr"] == 0.0 and result.timings["ocr_pages"] == 0


def test_a_drop_of_pdfs_makes_each_answerable_as_soon_as_it_is_indexed(tmp_path):
    pt = make(tmp_path, HashEmbedder())
    files = [("paper.pdf", pdfs.paper_pdf()), ("bad.pdf", b"not a pdf")]
    files.append(("numbers.pdf", pdfs.numbers_pdf()))
    seen: list[tuple[str, list[str]]] = []

    def ready(result):
        name = "refused" if isinstance(result, PaperTrailError) else result.document.name
        seen.append((name, sorted(d.name for d in pt.documents("c1"))))

    results = pt.ingest_many("c1", files, on_ready=ready)
    assert seen == [
        ("paper.pdf", ["paper.pdf"]),  # answerable before the others were indexed
        ("refused", ["paper.pdf"]),
        ("numbers.pdf", ["numbers.pdf", "paper.pdf"]),
    ]
    assert isinstance(results[1], PaperTrailError) and results[1].code == "not_pdf"
    assert pt.ask("c1", "How many layers?").citations
    again = pt.ingest_many("c1", files[:1])  # the same bytes again: nothing re-embedded
    assert not again[0].new and again[0].embedded == 0


class ReadAheadEmbedder(HashEmbedder):
    """On its first call, waits for the pipeline to have read the next PDF ahead."""

    def __init__(self) -> None:
        super().__init__()
        self.pipeline: PaperTrail | None = None
        self.read_ahead: bool | None = None

    def embed(self, texts):
        if self.read_ahead is None and self.pipeline is not None:
            self.read_ahead = _wait_for(
                lambda: any(f.done() for f in self.pipeline._ahead.values())
            )
        return super().embed(texts)


def _wait_for(done) -> bool:
    end = time.monotonic() + WAIT
    while not done():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def test_the_next_pdf_of_a_drop_is_read_while_the_current_one_is_embedded(tmp_path):
    embedder = ReadAheadEmbedder()
    pt = make(tmp_path, embedder)
    embedder.pipeline = pt
    files = [("paper.pdf", pdfs.paper_pdf()), ("numbers.pdf", pdfs.numbers_pdf())]
    results = pt.ingest_many("c1", files)
    assert embedder.read_ahead is True
    assert pt._ahead == {}  # the layer read ahead was used, not kept
    alone = make(tmp_path / "alone", HashEmbedder())
    want = alone.ingest("c1", "numbers.pdf", files[1][1])
    assert results[1].document.chunks == want.document.chunks
    got = [(c.page, c.text) for c in pt.store.chunks("c1", [want.document.doc_id])]
    assert got == [(c.page, c.text) for c in alone.store.chunks("c1")]


def test_a_pictures_words_are_indexed_on_its_page_and_that_page_is_embedded_once(tmp_path):
    from tests.papertrail.read.test_pictures import page_with_picture

    embedder = SignallingEmbedder()
    pt = make(tmp_path, embedder, WaitingOcr(None))
    data = page_with_picture(pages=2)  # two text pages, each with a picture
    result = pt.ingest("c1", "chart.pdf", data)
    assert result.document.ocr_pages == () and result.timings["picture_pages"] == 2
    got = sorted(pt.store.chunks("c1"), key=lambda c: c.index)
    assert [c.page for c in got if "Scanned invoice total" in c.text] == [1, 2]  # own passages
    alone = read_pdf(data, Settings(), ocr=WaitingOcr(None))
    want = chunk_blocks(alone.blocks, doc_id=result.document.doc_id, doc_name="chart.pdf")
    assert [(c.page, c.text) for c in got] == [(c.page, c.text) for c in want]
    # the text layer of a page whose pictures OCR reads is not embedded before they are
    assert result.embedded == len({c.text for c in want})


def test_a_forgotten_file_takes_its_pictures_words_with_it_and_other_channels_never_see_them(
    tmp_path,
):
    from tests.papertrail.read.test_pictures import page_with_picture

    pt = make(tmp_path, HashEmbedder(), WaitingOcr(None))
    pt.ingest("c1", "chart.pdf", page_with_picture())
    pt.ingest("c2", "other.pdf", pdfs.paper_pdf())
    assert any("Scanned invoice" in c.text for c in pt.store.chunks("c1"))
    assert not any("Scanned invoice" in c.text for c in pt.store.chunks("c2"))
    answer = pt.ask("c2", "What was the scanned invoice total due to the supplier?")
    assert "4,210" not in answer.text
    pt.forget("c1", "chart.pdf")
    assert pt.store.chunks("c1") == [] and pt.documents("c1") == []
